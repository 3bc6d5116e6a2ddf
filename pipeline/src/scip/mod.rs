//! SCIP stage: authoritative definitions, references, call edges and relationships from SCIP
//! indexes written by the standard indexers (rust-analyzer, scip-typescript, scip-python, …).
//!
//! ckb never builds an index. It reads the files given with `--scip FILE` (in order), else the
//! ones it finds under the root ([`discover`]: `index.scip`, `.scip/*.scip`, `.ckb/*.scip`,
//! sorted). Each index is read as a stream ([`reader`]): documents are collected into batches of
//! bounded size, each batch is decoded and converted in parallel ([`mapping`]: a document one
//! occurrence at a time, never as a whole `Document`) and folded in file order into a compact
//! per-index accumulator (each symbol string stored once, fixed-size occurrence records indexing
//! into it), so neither the whole `Index` nor a document's protobuf form is ever held. After the
//! last field, every distinct global symbol string of the index is parsed once
//! (`scip::symbol::parse_symbol_ref`, in parallel; `local N` symbols never reach it), symbols are
//! resolved to stable IDs (a symbol's kind, which takes part in its ID, may be stated in
//! another document) and the tables are built. Occurrences stay compact ([`occurrences`]); their
//! row form is built by the merge.
//!
//! Stable IDs come from [`fingerprint::symbol_id`] over [`fingerprint::qualify_scip`] (package
//! manager and name, never the version), the symbol's name and kind, and a discriminator when two
//! symbols of one index collide. `backend_id` keeps the SCIP symbol string. References to symbols
//! the index does not define (dependencies, the standard library) keep the SCIP symbol string as
//! their target and get no `symbols` row.
//!
//! A file that cannot be used as an index at all (not protobuf, truncated, no metadata and no
//! documents, or none of its documents is a file of this repository) is a `SCIP_INVALID` error:
//! nothing is written rather than a silently partial snapshot. Everything smaller — a bad
//! document, path or symbol — is a counted skip with a warning ([`quirks`]).

pub mod freshness;
pub mod mapping;
pub mod occurrences;
pub mod quirks;
pub mod reader;
pub mod symbols;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use output_schema::manifest::{
    Backend, Completeness, RepoState, StageReport, StageStatus, Warning,
};
use output_schema::tables::{CallEdgeRow, FileRow, RelationshipRow, SymbolRow};
use output_schema::{Roles, SharedStr};
use protobuf::Message;
use rayon::prelude::*;
use scip::types::{Metadata, SymbolInformation};

use crate::fast_map::FastMap;
use crate::{fingerprint, PipelineError, Progress};
use mapping::{DocEnv, DocOutcome, Encoding, Span};
use occurrences::{Record, ScipOccurrences, Target, NO_TARGET};
use quirks::Tally;
use symbols::{Parsed, ParsedSymbol};

/// The `source` value of every row this stage writes.
pub const SOURCE: &str = "scip";

/// Limits of the SCIP stage.
#[derive(Clone, Debug)]
pub struct ScipConfig {
    /// Encoded document bytes collected before a batch is decoded in parallel.
    pub batch_bytes: usize,
    /// Documents larger than this (encoded) are skipped unread.
    pub max_document_bytes: u64,
    /// Documents with more occurrences than this are skipped.
    pub max_occurrences_per_document: usize,
}

impl Default for ScipConfig {
    fn default() -> Self {
        ScipConfig {
            batch_bytes: 4 << 20,
            max_document_bytes: 1 << 30,
            max_occurrences_per_document: 5_000_000,
        }
    }
}

/// What the stage reads.
pub struct ScipInput<'a> {
    /// Repository root (absolute, canonical).
    pub root: &'a Path,
    /// Repository ID (part of stable IDs).
    pub repo_id: &'a str,
    /// The scan's files (documents for other paths are skipped).
    pub files: &'a [FileRow],
    /// The git repository, for freshness.
    pub repo: Option<&'a gix::Repository>,
    /// The state being snapshotted.
    pub repo_state: &'a RepoState,
    /// `--scip-commit`: the commit every given index describes.
    pub indexed_commit: Option<&'a str>,
    /// Limits.
    pub config: ScipConfig,
}

/// The rows SCIP contributes, before the merge with tree-sitter.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ScipTables {
    /// `symbols` (source `scip`).
    pub symbols: Vec<SymbolRow>,
    /// `occurrences`, in compact form (rows are built by the merge).
    pub occurrences: ScipOccurrences,
    /// `call_edges`.
    pub call_edges: Vec<CallEdgeRow>,
    /// `relationships`.
    pub relationships: Vec<RelationshipRow>,
    /// Repo paths whose facts come from SCIP (the merge keeps tree-sitter rows only elsewhere).
    pub covered_paths: BTreeSet<String>,
}

/// What the stage produced.
#[derive(Debug)]
pub struct ScipOutput {
    /// Rows.
    pub tables: ScipTables,
    /// One backend entry per index, in input order.
    pub backends: Vec<Backend>,
    /// The stage report.
    pub report: StageReport,
}

/// The SCIP indexes under `root` that are used when none is given: `index.scip`, then
/// `.scip/*.scip` and `.ckb/*.scip`, each folder's files sorted by name. Symlinks are not followed.
pub fn discover(root: &Path) -> Vec<PathBuf> {
    let is_file = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file());
    let mut found = Vec::new();
    let top = root.join("index.scip");
    if is_file(&top) {
        found.push(top);
    }
    for dir in [".scip", ".ckb"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "scip") && is_file(p))
            .collect();
        files.sort();
        found.extend(files);
    }
    found
}

/// How an index file is named in the manifest: repo-relative when inside the repository, else its
/// file name only (never an absolute path).
pub fn display_input(root: &Path, index: &Path) -> String {
    let abs = index.canonicalize().unwrap_or_else(|_| index.to_path_buf());
    match abs.strip_prefix(root) {
        Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
        Err(_) => abs
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "index.scip".into()),
    }
}

/// Runs the stage over `indexes` in order. An earlier index wins a path both cover.
pub fn run(
    input: &ScipInput<'_>,
    indexes: &[PathBuf],
    progress: &dyn Progress,
) -> Result<ScipOutput, PipelineError> {
    progress.stage_started("scip", None);
    let files: HashMap<String, String> = input
        .files
        .iter()
        .map(|f| (f.path.clone(), f.language.clone().unwrap_or_default()))
        .collect();
    let mut covered: HashSet<String> = HashSet::new();
    let mut tables = ScipTables::default();
    let mut backends = Vec::new();
    let mut tally = Tally::default();
    let mut warnings: Vec<Warning> = Vec::new();
    let mut stale = false;
    let mut documents = 0i64;
    // Stable IDs that already have a row: a later index may define a symbol an earlier one did.
    let mut seen_ids: FastMap<SharedStr, ()> = FastMap::default();
    for index in indexes {
        let one = read_one(input, index, &files, &covered, progress)?;
        documents += one.documents_used;
        stale |= one.freshness.is_stale();
        tally.absorb(&one.tally);
        warnings.extend(one.warnings);
        backends.push(one.backend);
        covered.extend(one.tables.covered_paths.iter().cloned());
        tables.covered_paths.extend(one.tables.covered_paths);
        let mut rows = one.tables.symbols;
        seen_ids.reserve(rows.len());
        let mut duplicates = 0i64;
        rows.retain(|row| {
            let fresh = seen_ids.insert(row.stable_id.clone(), ()).is_none();
            duplicates += !fresh as i64;
            fresh
        });
        tally.add(quirks::SKIP_DUPLICATE_SYMBOL_ROW, duplicates);
        // The first index's rows are taken as they are, not moved row by row.
        if tables.symbols.is_empty() {
            tables.symbols = rows;
        } else {
            tables.symbols.append(&mut rows);
        }
        tables.occurrences.append(one.tables.occurrences);
        tables.call_edges.extend(one.tables.call_edges);
        tables.relationships.extend(one.tables.relationships);
    }

    let languages: BTreeSet<&str> = input
        .files
        .iter()
        .filter(|f| tables.covered_paths.contains(&f.path))
        .filter_map(|f| f.language.as_deref())
        .collect();
    let candidates = input
        .files
        .iter()
        .filter(|f| f.language.as_deref().is_some_and(|l| languages.contains(l)))
        .count();
    let coverage = if candidates == 0 {
        0.0
    } else {
        tables.covered_paths.len() as f64 / candidates as f64
    };
    stale |= tally.has_stale_evidence();
    let skipped = tally.skipped_documents() > 0;
    let reason = if stale {
        "index-stale"
    } else if coverage < 1.0 || skipped {
        "partial-backend"
    } else {
        "full-backend"
    };
    let score = if stale { coverage * 0.75 } else { coverage };
    let mut report = StageReport::with_status(
        if stale || skipped {
            StageStatus::Partial
        } else {
            StageStatus::Ok
        },
        None,
    );
    report.items = documents;
    report.counts = tally.to_counts();
    report.counts.insert("indexes".into(), indexes.len() as i64);
    report.counts.insert("documents".into(), documents);
    report
        .counts
        .insert("files.candidates".into(), candidates as i64);
    report
        .counts
        .insert("files.covered".into(), tables.covered_paths.len() as i64);
    report
        .counts
        .insert("symbols".into(), tables.symbols.len() as i64);
    report
        .counts
        .insert("occurrences".into(), tables.occurrences.len() as i64);
    report
        .counts
        .insert("call-edges".into(), tables.call_edges.len() as i64);
    report
        .counts
        .insert("relationships".into(), tables.relationships.len() as i64);
    report.completeness = Some(Completeness {
        score: (score * 1_000_000.0).round() / 1_000_000.0,
        reason: reason.into(),
    });
    report.set_warnings(warnings);
    progress.stage_finished(
        "scip",
        &format!(
            "{} indexes, {} documents, {} symbols, {} occurrences",
            indexes.len(),
            documents,
            tables.symbols.len(),
            tables.occurrences.len()
        ),
    );
    Ok(ScipOutput {
        tables,
        backends,
        report,
    })
}

/// The outcome of one index.
struct OneIndex {
    tables: ScipTables,
    backend: Backend,
    tally: Tally,
    warnings: Vec<Warning>,
    documents_used: i64,
    freshness: freshness::Freshness,
}

/// A global symbol of one index. Its string is parsed only after the last document (once per
/// distinct symbol, see [`materialize`]).
struct GlobalSym {
    symbol: SharedStr,
    info_kind: Option<&'static str>,
    signature: Option<String>,
    /// The first definition in (path, line, col) order: (document, whole-definition span).
    best_def: Option<(u32, Span)>,
    def_docs: u32,
    last_def_doc: u32,
    /// The first document that names the symbol (warnings about the symbol point there).
    first_doc: u32,
}

/// A document whose facts were kept. Its strings are shared by every row that names them.
struct UsedDoc {
    path: SharedStr,
    language: SharedStr,
}

/// One shared copy of each fixed string the symbol rows repeat (kinds, visibilities, their
/// sources), so that a row costs no allocation for them. The few every row names are kept apart,
/// so that they are not looked up per row.
struct FixedStrs {
    by_name: FastMap<&'static str, SharedStr>,
    source: SharedStr,
    from_signature: SharedStr,
    from_nothing: SharedStr,
    unknown: SharedStr,
}

impl FixedStrs {
    fn new() -> FixedStrs {
        let mut names = symbols::fixed_names();
        names.extend([SOURCE, "signature", "none"]);
        let by_name: FastMap<&'static str, SharedStr> =
            names.into_iter().map(|n| (n, SharedStr::from(n))).collect();
        FixedStrs {
            source: Self::lookup(&by_name, SOURCE),
            from_signature: Self::lookup(&by_name, "signature"),
            from_nothing: Self::lookup(&by_name, "none"),
            unknown: Self::lookup(&by_name, "unknown"),
            by_name,
        }
    }

    fn get(&self, name: &'static str) -> SharedStr {
        Self::lookup(&self.by_name, name)
    }

    /// The shared copy of `name`, or a new one for a name missing from the list.
    fn lookup(by_name: &FastMap<&'static str, SharedStr>, name: &'static str) -> SharedStr {
        by_name
            .get(name)
            .cloned()
            .unwrap_or_else(|| SharedStr::from(name))
    }
}

/// Everything one index contributed so far, folded in file order. Occurrences are kept as
/// fixed-size records whose symbol and path are indexes into `syms` and `docs`.
#[derive(Default)]
struct Accum {
    ids: FastMap<SharedStr, u32>,
    syms: Vec<GlobalSym>,
    docs: Vec<UsedDoc>,
    records: Vec<Record>,
    paths: HashSet<String>,
    relationships: BTreeSet<(u32, u32, u8)>,
    relationship_entries: i64,
    external_kinds: FastMap<String, &'static str>,
    external_symbols: i64,
    documents_total: i64,
    occurrences_total: i64,
    tally: Tally,
    warnings: Vec<Warning>,
}

impl Accum {
    fn intern(&mut self, symbol: String, doc: u32) -> u32 {
        if let Some(&g) = self.ids.get(symbol.as_str()) {
            return g;
        }
        let g = self.syms.len() as u32;
        let symbol = SharedStr::from(symbol);
        self.ids.insert(symbol.clone(), g);
        self.syms.push(GlobalSym {
            symbol,
            info_kind: None,
            signature: None,
            best_def: None,
            def_docs: 0,
            last_def_doc: NO_TARGET,
            first_doc: doc,
        });
        g
    }

    fn absorb(&mut self, outcome: DocOutcome) {
        let facts = match outcome {
            DocOutcome::Skipped(s) => {
                self.tally.absorb(&s.tally);
                self.warnings.push(s.warning);
                return;
            }
            DocOutcome::Facts(f) => f,
        };
        if !self.paths.insert(facts.path.clone()) {
            self.tally.bump(quirks::SKIP_ALREADY_COVERED);
            self.warnings.push(Warning {
                code: "document-already-covered".into(),
                path: Some(facts.path),
                message: "the index lists this document twice; the first is used".into(),
            });
            return;
        }
        self.tally.absorb(&facts.tally);
        self.warnings.extend(facts.warnings);
        let doc = self.docs.len() as u32;
        let mut infos = Vec::with_capacity(facts.symbols.len());
        let mut map: Vec<u32> = Vec::with_capacity(facts.symbols.len());
        for s in facts.symbols {
            map.push(self.intern(s.symbol, doc));
            infos.push(s.info);
        }
        for (local, info) in infos.into_iter().enumerate() {
            let Some(info) = info else { continue };
            let g = &mut self.syms[map[local] as usize];
            g.info_kind = g.info_kind.or(info.kind);
            if g.signature.is_none() {
                g.signature = info.signature;
            }
            self.relationship_entries += info.relationships.len() as i64;
            for (target, bits) in info.relationships {
                self.relationships
                    .insert((map[local], map[target as usize], bits));
            }
        }
        self.records.reserve(facts.occurrences.len());
        for o in facts.occurrences {
            let g = map[o.sym as usize];
            if let Some(def) = o.def_span {
                let sym = &mut self.syms[g as usize];
                if sym.last_def_doc != doc {
                    sym.def_docs += 1;
                    sym.last_def_doc = doc;
                }
                let better = match sym.best_def {
                    None => true,
                    Some((d, span)) => {
                        // `d` may be this very document, not yet pushed.
                        let best_path = self
                            .docs
                            .get(d as usize)
                            .map_or(facts.path.as_str(), |x| x.path.as_str());
                        (best_path, span.line, span.col) > (facts.path.as_str(), def.line, def.col)
                    }
                };
                if better {
                    sym.best_def = Some((doc, def));
                }
            }
            self.records.push(Record {
                target: g,
                enclosing: o.enclosing.map(|e| map[e as usize]).unwrap_or(NO_TARGET),
                path: doc,
                span: o.span,
                roles: o.roles.0,
            });
        }
        self.docs.push(UsedDoc {
            path: facts.path.into(),
            language: facts.language.into(),
        });
    }
}

/// The qualified container of a defined SCIP symbol: the identity stage's normalization
/// ([`fingerprint::qualify_scip`]), so that tree-sitter and SCIP agree, with the unit of the
/// defining file. The package version is deliberately not passed.
fn qualified_container(parsed: &ParsedSymbol<'_>, unit: &fingerprint::ScipUnit) -> String {
    unit.qualify(parsed.container_descriptors())
}

/// A discriminator from a SCIP method disambiguator (`+1` → `d1`); `None` when it has no
/// usable characters.
fn disambiguator_discriminator(disambiguator: &str) -> Option<String> {
    let kept: String = disambiguator
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '.')
        .collect();
    (!kept.is_empty()).then(|| format!("d{kept}"))
}

/// The project root of an index relative to the repository root, plus candidates to try when the
/// index was built at another path. Returns `(fixed prefix, candidates)`.
fn project_root_prefix(
    root: &Path,
    project_root: &str,
    tally: &mut Tally,
) -> (Option<String>, Vec<String>) {
    let raw = project_root.trim();
    let path = match raw.strip_prefix("file://") {
        Some(rest) => percent_decode(rest),
        None => raw.to_string(),
    };
    let path = path.trim_end_matches('/');
    if path.is_empty() {
        return (Some(String::new()), Vec::new());
    }
    if raw.starts_with("file://") || path.starts_with('/') {
        tally.bump(quirks::PROJECT_ROOT_ABSOLUTE);
    }
    let abs = Path::new(path);
    let abs = abs.canonicalize().unwrap_or_else(|_| abs.to_path_buf());
    if let Ok(rel) = abs.strip_prefix(root) {
        return (Some(rel.to_string_lossy().replace('\\', "/")), Vec::new());
    }
    tally.bump(quirks::PROJECT_ROOT_ELSEWHERE);
    // Built elsewhere (CI): the same project may sit at a sub-folder whose trailing path matches.
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".." && *p != ".")
        .collect();
    let mut candidates = vec![String::new()];
    for k in (1..parts.len()).rev() {
        let suffix = parts[parts.len() - k..].join("/");
        if std::fs::symlink_metadata(root.join(&suffix)).is_ok_and(|m| m.is_dir()) {
            candidates.push(suffix);
        }
    }
    (None, candidates)
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn scip_error(path: &Path, root: &Path, message: impl Into<String>) -> PipelineError {
    PipelineError::Scip {
        path: PathBuf::from(display_input(root, path)),
        message: message.into(),
    }
}

/// Decodes and converts one batch of encoded documents in parallel, keeping input order. Each
/// outcome comes with the document's occurrence count (0 when undecodable). `headers`, when given,
/// are the documents' headers, already read.
fn convert_batch(
    batch: Vec<Vec<u8>>,
    headers: Option<Vec<protobuf::Result<mapping::DocHeader>>>,
    env: &DocEnv<'_>,
) -> Vec<(i64, DocOutcome)> {
    match headers {
        Some(headers) => batch
            .into_par_iter()
            .zip(headers)
            .map(|(bytes, header)| mapping::convert_with_header(&bytes, header, env))
            .collect(),
        None => batch
            .into_par_iter()
            .map(|bytes| mapping::convert(&bytes, env))
            .collect(),
    }
}

/// How the documents of one index are placed, decided from its metadata.
struct Setup {
    /// Project root relative to the repository; `None` until chosen among `candidates`.
    prefix: Option<String>,
    candidates: Vec<String>,
    tool: String,
    encoding: Encoding,
}

impl Setup {
    fn new(root: &Path, metadata: Option<&Metadata>, tally: &mut Tally) -> Setup {
        let tool = metadata
            .and_then(|m| m.tool_info.as_ref())
            .map(|t| t.name.clone())
            .unwrap_or_default();
        let (prefix, candidates) = project_root_prefix(
            root,
            metadata.map(|m| m.project_root.as_str()).unwrap_or(""),
            tally,
        );
        let encoding = mapping::default_encoding(&tool);
        Setup {
            prefix,
            candidates,
            tool,
            encoding,
        }
    }
}

/// What converting a batch needs besides the batch.
struct BatchContext<'a> {
    root: &'a Path,
    files: &'a HashMap<String, String>,
    covered_before: &'a HashSet<String>,
    max_occurrences: usize,
    progress: &'a dyn Progress,
}

fn flush(batch: Vec<Vec<u8>>, acc: &mut Accum, setup: &mut Setup, ctx: &BatchContext<'_>) {
    if batch.is_empty() {
        return;
    }
    let n = batch.len() as u64;
    let mut headers = None;
    if setup.prefix.is_none() {
        // Built elsewhere: choose the project-root prefix under which most of this batch's
        // documents are files of the repository (the repository root wins ties). The headers
        // read for it are kept for the conversion.
        let read: Vec<protobuf::Result<mapping::DocHeader>> =
            batch.par_iter().map(|b| mapping::read_header(b)).collect();
        let paths: Vec<&str> = read
            .iter()
            .filter_map(|h| h.as_ref().ok().map(|h| h.relative_path.as_str()))
            .collect();
        let mut best: Option<(usize, &String)> = None;
        for c in &setup.candidates {
            let hits = paths
                .iter()
                .filter(|p| mapping::repo_path(c, p).is_some_and(|rp| ctx.files.contains_key(&rp)))
                .count();
            if best.is_none_or(|(h, _)| hits > h) {
                best = Some((hits, c));
            }
        }
        setup.prefix = Some(best.map(|(_, c)| c.clone()).unwrap_or_default());
        headers = Some(read);
    }
    let prefix = setup.prefix.clone().unwrap_or_default();
    let env = DocEnv {
        root: ctx.root,
        prefix: &prefix,
        files: ctx.files,
        covered_before: ctx.covered_before,
        default_encoding: setup.encoding,
        max_occurrences: ctx.max_occurrences,
    };
    for (occurrences, outcome) in convert_batch(batch, headers, &env) {
        acc.occurrences_total += occurrences;
        acc.absorb(outcome);
    }
    ctx.progress.advance(n);
}

fn read_one(
    input: &ScipInput<'_>,
    index: &Path,
    files: &HashMap<String, String>,
    covered_before: &HashSet<String>,
    progress: &dyn Progress,
) -> Result<OneIndex, PipelineError> {
    let root = input.root;
    let limits = reader::ReadLimits {
        max_document_bytes: input.config.max_document_bytes,
        metadata_only: false,
    };
    let metadata_pass = reader::ReadLimits {
        metadata_only: true,
        ..limits
    };
    let mut acc = Accum::default();
    // The symbol table and the occurrence records grow with the index (one distinct symbol per
    // 0.7–1 KB of index, one kept occurrence per 140–150 bytes, on scip-typescript's vue and
    // rust-analyzer's ripgrep). Sized up front, the table is not rehashed (each rehash hashes every
    // symbol string again) and the records are not copied as they fill; room reserved but never
    // filled is never touched.
    if let Ok(meta) = std::fs::metadata(index) {
        acc.ids.reserve((meta.len() / 1024).min(1 << 22) as usize);
        acc.records
            .reserve((meta.len() / 128).min(1 << 26) as usize);
    }
    // Metadata must come first (the SCIP schema asks for it, for streaming). Peek at the first
    // known field; when it is not the metadata, a metadata-only pass finds it before the documents
    // are read.
    let mut metadata_first: Option<bool> = None;
    reader::read_index(index, metadata_pass, |item| match item {
        reader::Item::Metadata(_) => {
            metadata_first = Some(true);
            Err(())
        }
        reader::Item::Unknown => Ok(()),
        _ => {
            metadata_first = Some(false);
            Err(())
        }
    })
    .map_err(|e| scip_error(index, root, e.to_string()))?
    .ok();
    let mut metadata: Option<Metadata> = None;
    if metadata_first == Some(false) {
        acc.tally.bump(quirks::METADATA_NOT_FIRST);
        reader::read_index::<()>(index, metadata_pass, |item| {
            if let reader::Item::Metadata(m) = item {
                metadata.get_or_insert(m);
            }
            Ok(())
        })
        .map_err(|e| scip_error(index, root, e.to_string()))?
        .ok();
    }
    let mut setup: Option<Setup> = metadata
        .as_ref()
        .map(|m| Setup::new(root, Some(m), &mut acc.tally));
    let ctx = BatchContext {
        root,
        files,
        covered_before,
        max_occurrences: input.config.max_occurrences_per_document,
        progress,
    };
    let mut batch: Vec<Vec<u8>> = Vec::new();
    let mut batch_bytes = 0usize;
    let mut unknown = 0i64;
    reader::read_index::<()>(index, limits, |item| {
        match item {
            reader::Item::Metadata(m) => {
                let m = metadata.get_or_insert(m);
                if setup.is_none() {
                    setup = Some(Setup::new(root, Some(m), &mut acc.tally));
                }
            }
            reader::Item::Document(bytes) => {
                let s = setup.get_or_insert_with(|| Setup::new(root, None, &mut acc.tally));
                acc.documents_total += 1;
                batch_bytes += bytes.len();
                batch.push(bytes);
                if batch_bytes >= input.config.batch_bytes {
                    flush(std::mem::take(&mut batch), &mut acc, s, &ctx);
                    batch_bytes = 0;
                }
            }
            reader::Item::OversizedDocument { bytes } => {
                acc.documents_total += 1;
                acc.tally.bump(quirks::SKIP_OVERSIZED);
                acc.warnings.push(Warning {
                    code: "document-too-large".into(),
                    path: None,
                    message: format!(
                        "a document of {bytes} bytes exceeds the limit of {}; skipped unread",
                        input.config.max_document_bytes
                    ),
                });
            }
            reader::Item::ExternalSymbol(bytes) => {
                acc.external_symbols += 1;
                match SymbolInformation::parse_from_bytes(&bytes) {
                    Ok(info) => {
                        if let Some(kind) = symbols::kind_name(info.kind) {
                            acc.external_kinds.insert(info.symbol, kind);
                        }
                    }
                    Err(_) => acc.tally.bump(quirks::SKIP_EXTERNAL_UNDECODABLE),
                }
            }
            reader::Item::Skipped { .. } | reader::Item::Unknown => unknown += 1,
        }
        Ok(())
    })
    .map_err(|e| scip_error(index, root, e.to_string()))?
    .ok();
    let mut setup = setup.unwrap_or_else(|| Setup::new(root, None, &mut acc.tally));
    flush(std::mem::take(&mut batch), &mut acc, &mut setup, &ctx);
    acc.tally.add(quirks::UNKNOWN_FIELDS, unknown);
    if metadata.is_none() {
        acc.tally.bump(quirks::METADATA_MISSING);
        if acc.documents_total == 0 {
            return Err(scip_error(
                index,
                root,
                "no metadata and no documents: this is not a SCIP index",
            ));
        }
    }
    let used = acc.docs.len() as i64;
    let covered_elsewhere = acc.tally.get(quirks::SKIP_ALREADY_COVERED);
    if acc.documents_total > 0 && used == 0 && covered_elsewhere < acc.documents_total {
        return Err(scip_error(
            index,
            root,
            format!(
                "none of its {} documents is a usable file of this repository (an index of another \
                 repository, a project root that does not match, or undecodable documents)",
                acc.documents_total
            ),
        ));
    }
    if acc.documents_total == 0 {
        acc.warnings.push(Warning {
            code: "index-without-documents".into(),
            path: Some(display_input(root, index)),
            message: "the index holds no documents".into(),
        });
    }

    // Freshness.
    let indexed = match input.indexed_commit {
        Some(c) => Some(c.to_string()),
        None => match freshness::sidecar_commit(index) {
            Ok(c) => c,
            Err(message) => {
                acc.warnings.push(Warning {
                    code: "scip-commit-sidecar-invalid".into(),
                    path: Some(format!("{}.commit", display_input(root, index))),
                    message,
                });
                None
            }
        },
    };
    let fresh = freshness::assess(input.repo, input.repo_state, indexed.as_deref());

    let (tables, counts) = materialize(&mut acc, input.repo_id);
    let mut backend_counts: BTreeMap<String, i64> = BTreeMap::new();
    backend_counts.insert("documents".into(), acc.documents_total);
    backend_counts.insert("documentsUsed".into(), used);
    backend_counts.insert("occurrences".into(), acc.occurrences_total);
    backend_counts.insert("occurrencesUsed".into(), tables.occurrences.len() as i64);
    backend_counts.insert("symbols".into(), tables.symbols.len() as i64);
    backend_counts.insert("externalSymbols".into(), acc.external_symbols);
    backend_counts.insert("relationships".into(), tables.relationships.len() as i64);
    backend_counts.insert("callEdges".into(), tables.call_edges.len() as i64);
    backend_counts.extend(counts);
    let mut facts: BTreeMap<String, String> = BTreeMap::new();
    let prefix = setup.prefix.unwrap_or_default();
    facts.insert(
        "projectRoot".into(),
        if prefix.is_empty() {
            ".".into()
        } else {
            prefix
        },
    );
    facts.insert("freshness".into(), fresh.state.into());
    if let Some(c) = &fresh.indexed_commit {
        facts.insert("indexedCommit".into(), c.clone());
    }
    if let Some(n) = fresh.commits_behind {
        facts.insert("commitsBehind".into(), n.to_string());
    }
    let version = metadata
        .as_ref()
        .and_then(|m| m.tool_info.as_ref())
        .map(|t| t.version.clone())
        .filter(|v| !v.is_empty());
    let backend = Backend {
        kind: SOURCE.into(),
        tool: if setup.tool.is_empty() {
            "unknown".into()
        } else {
            setup.tool
        },
        version,
        input: Some(display_input(root, index)),
        counts: backend_counts,
        facts,
    };
    if fresh.is_stale() {
        acc.warnings.push(Warning {
            code: "index-stale".into(),
            path: backend.input.clone(),
            message: match fresh.commits_behind {
                Some(n) if fresh.state == "behind" => {
                    format!("the index describes a commit {n} commits behind HEAD")
                }
                _ if fresh.state == "current-dirty" => {
                    "the index describes HEAD but the working tree has changed since".into()
                }
                _ => "the index describes a commit that is not an ancestor of HEAD".into(),
            },
        });
    }
    Ok(OneIndex {
        tables,
        backend,
        tally: std::mem::take(&mut acc.tally),
        warnings: std::mem::take(&mut acc.warnings),
        documents_used: used,
        freshness: fresh,
    })
}

/// What one global symbol of an index resolves to, computed from its parse (which is then dropped).
/// Kept small (one per distinct symbol, all alive until the tables are built): what few symbols
/// need is boxed, and a package's quirk is shared by its symbols.
struct Resolved {
    name: SharedStr,
    kind: &'static str,
    /// Why the SCIP symbol parser rejects the string: rare, so boxed.
    invalid: Option<Box<str>>,
    /// The version quirk of the symbol's package, when it has one.
    package_quirk: Option<Arc<PackageQuirk>>,
}

/// A package version quirk, with the package's key (manager, name, version) so that each package
/// counts once.
struct PackageQuirk {
    quirk: &'static str,
    key: String,
}

/// The last package [`resolve`] looked at and its quirk. Consecutive symbols mostly share their
/// package (an index lists a file's symbols together), and some indexers give every symbol a
/// quirky version (scip-python: the commit hash), so the quirk is derived once per run of a
/// package rather than once per symbol.
#[derive(Default)]
struct PackageMemo {
    package: [String; 3],
    quirk: Option<Arc<PackageQuirk>>,
}

impl PackageMemo {
    fn quirk(&mut self, parsed: &ParsedSymbol<'_>) -> Option<Arc<PackageQuirk>> {
        let package = [&parsed.manager, &parsed.package_name, &parsed.version];
        if self.package.iter().zip(package).any(|(a, b)| a != b) {
            self.quirk = symbols::version_quirk(&parsed.version).map(|quirk| {
                Arc::new(PackageQuirk {
                    quirk,
                    key: package.map(|k| k.as_ref()).join(" "),
                })
            });
            for (a, b) in self.package.iter_mut().zip(package) {
                a.clear();
                a.push_str(b);
            }
        }
        self.quirk.clone()
    }
}

impl Resolved {
    fn is_valid(&self) -> bool {
        self.invalid.is_none()
    }
}

/// Parses one symbol string (the SCIP crate's parser) and derives what the tables need from it: the
/// facts, and for a symbol this index defines its row, with the stable ID it gets unless another
/// symbol collides with it. The rows are kept apart from the facts so that they can become the
/// `symbols` table where they lie, without a second copy of every row.
fn resolve(
    memo: &mut PackageMemo,
    sym: &GlobalSym,
    external_kind: Option<&'static str>,
    docs: &[UsedDoc],
    units: &[fingerprint::ScipUnit],
    strs: &FixedStrs,
    repo_id: &str,
) -> (Resolved, Option<SymbolRow>) {
    let invalid = |why: String| {
        let resolved = Resolved {
            name: SharedStr::default(),
            kind: "unknown",
            invalid: Some(why.into_boxed_str()),
            package_quirk: None,
        };
        (resolved, None)
    };
    let parsed = match symbols::parse(&sym.symbol) {
        Parsed::Global(p) => p,
        Parsed::Local => return invalid("a local symbol where a global one was expected".into()),
        Parsed::Invalid(why) => return invalid(why),
    };
    let kind = sym
        .info_kind
        .or(external_kind)
        .unwrap_or_else(|| parsed.suffix_kind());
    let name = SharedStr::from(parsed.name());
    let package_quirk = memo.quirk(&parsed);
    let row = sym.best_def.map(|(doc, span)| {
        let d = &docs[doc as usize];
        let qualified_container = qualified_container(&parsed, &units[doc as usize]);
        let vis = sym
            .signature
            .as_deref()
            .and_then(|s| symbols::visibility(s, &d.language, &parsed, kind));
        SymbolRow {
            stable_id: fingerprint::symbol_id(repo_id, &qualified_container, &name, kind, None),
            name: name.as_str().to_owned(),
            kind: strs.get(kind),
            container: parsed.container().map(SharedStr::from),
            signature: sym.signature.clone(),
            arity: None,
            definition_version_id: fingerprint::definition_version_id(sym.signature.as_deref()),
            visibility: vis.map_or_else(|| strs.unknown.clone(), |v| strs.get(v.0)),
            visibility_confidence: vis.map(|v| v.1).unwrap_or(0.0),
            visibility_source: if vis.is_some() {
                strs.from_signature.clone()
            } else {
                strs.from_nothing.clone()
            },
            module_id: None,
            language: Some(d.language.clone()),
            path: d.path.clone(),
            start_line: span.line,
            start_col: span.col,
            end_line: span.end_line,
            end_col: span.end_col,
            source: strs.source.clone(),
            backend_id: Some(sym.symbol.clone()),
            body_hash: None,
        }
    });
    let resolved = Resolved {
        name,
        kind,
        invalid: None,
        package_quirk,
    };
    (resolved, row)
}

/// What resolving a stable-ID collision needs of one colliding definition: derived again from its
/// symbol string (collisions are rare, so this is not kept for every symbol).
struct Colliding {
    qualified_container: String,
    disambiguator: String,
}

impl Colliding {
    fn new(sym: &GlobalSym, units: &[fingerprint::ScipUnit]) -> Option<Colliding> {
        let Parsed::Global(parsed) = symbols::parse(&sym.symbol) else {
            return None;
        };
        let (doc, _) = sym.best_def?;
        Some(Colliding {
            qualified_container: qualified_container(&parsed, &units[doc as usize]),
            disambiguator: parsed.disambiguator().to_string(),
        })
    }
}

/// Parses every distinct global symbol of one index (once each, in parallel), resolves them to
/// stable IDs and builds the tables of the index.
fn materialize(acc: &mut Accum, repo_id: &str) -> (ScipTables, BTreeMap<String, i64>) {
    // The SCIP crate's parser runs once per distinct symbol string; each parse is independent of
    // the others and dropped as soon as its facts are taken, so the order of the work does not
    // matter and the parses are never all in memory at once.
    let units: Vec<fingerprint::ScipUnit> = acc
        .docs
        .par_iter()
        .map(|d| fingerprint::ScipUnit::new(&d.language, &d.path))
        .collect();
    let strs = FixedStrs::new();
    let (resolved, mut rows): (Vec<Resolved>, Vec<Option<SymbolRow>>) = acc
        .syms
        .par_iter()
        .map_init(PackageMemo::default, |memo, sym| {
            let external = acc.external_kinds.get(&*sym.symbol).copied();
            resolve(memo, sym, external, &acc.docs, &units, &strs, repo_id)
        })
        .collect();
    let ok: Vec<bool> = resolved.iter().map(Resolved::is_valid).collect();
    let valid = |g: usize| ok[g];
    let mut records = std::mem::take(&mut acc.records);
    if ok.iter().any(|ok| !ok) {
        for (g, r) in resolved.iter().enumerate() {
            if let Some(why) = r.invalid.as_deref() {
                let sym = &acc.syms[g];
                acc.tally.bump(quirks::SKIP_UNPARSABLE_SYMBOL);
                acc.warnings.push(mapping::unparsable_symbol_warning(
                    &sym.symbol,
                    &acc.docs[sym.first_doc as usize].path,
                    why,
                ));
            }
        }
        let before = records.len();
        records.retain(|r| valid(r.target as usize));
        acc.tally.add(
            quirks::SKIP_UNPARSABLE_OCCURRENCES,
            (before - records.len()) as i64,
        );
        // A rejected symbol is no definition: what it enclosed counts as top level.
        for r in &mut records {
            if r.enclosing != NO_TARGET && !valid(r.enclosing as usize) {
                r.enclosing = NO_TARGET;
            }
        }
    }

    acc.tally.add(
        quirks::DEFINED_IN_SEVERAL_DOCUMENTS,
        acc.syms
            .iter()
            .enumerate()
            .filter(|(g, s)| s.def_docs > 1 && valid(*g))
            .count() as i64,
    );
    let mut packages: FastMap<&str, ()> = FastMap::default();
    for package in resolved.iter().filter_map(|r| r.package_quirk.as_deref()) {
        if packages.insert(package.key.as_str(), ()).is_none() {
            acc.tally.bump(package.quirk);
        }
    }
    if acc.relationship_entries == 0 && !acc.docs.is_empty() {
        acc.tally.bump(quirks::NO_RELATIONSHIPS);
    }

    // Stable IDs of defined symbols; colliding ones get a discriminator. Groups are listed by
    // their first member, members in symbol order.
    let defined = rows.iter().filter(|r| r.is_some()).count();
    let mut first_with_id: FastMap<&str, u32> =
        FastMap::with_capacity_and_hasher(defined, Default::default());
    let mut groups: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for (g, row) in rows.iter().enumerate() {
        if let Some(row) = row {
            let first = *first_with_id
                .entry(row.stable_id.as_str())
                .or_insert(g as u32);
            if first != g as u32 {
                groups
                    .entry(first)
                    .or_insert_with(|| vec![first])
                    .push(g as u32);
            }
        }
    }
    drop(first_with_id);
    let colliding: Vec<Vec<u32>> = groups.into_values().collect();
    let mut collisions = 0i64;
    let no_span = Span {
        line: 0,
        col: 0,
        end_line: 0,
        end_col: 0,
    };
    for members in colliding {
        collisions += members.len() as i64 - 1;
        let mut members: Vec<(u32, Option<Colliding>)> = members
            .into_iter()
            .map(|g| (g, Colliding::new(&acc.syms[g as usize], &units)))
            .collect();
        let key = |(g, colliding): &(u32, Option<Colliding>)| {
            let s = &acc.syms[*g as usize];
            let (doc, span) = s.best_def.unwrap_or((0, no_span));
            let disambiguated = colliding
                .as_ref()
                .is_some_and(|c| !c.disambiguator.is_empty());
            (
                disambiguated,
                acc.docs[doc as usize].path.clone(),
                span.line,
                span.col,
                s.symbol.clone(),
            )
        };
        members.sort_by_key(key);
        let mut used: HashSet<String> = HashSet::new();
        for (k, (g, colliding)) in members.iter().enumerate().skip(1) {
            let r = &resolved[*g as usize];
            let (Some(c), Some(row)) = (colliding.as_ref(), rows[*g as usize].as_mut()) else {
                continue;
            };
            let disc = disambiguator_discriminator(&c.disambiguator)
                .filter(|d| !used.contains(d))
                .unwrap_or_else(|| format!("n{k}"));
            used.insert(disc.clone());
            row.stable_id = fingerprint::symbol_id(
                repo_id,
                &c.qualified_container,
                &r.name,
                r.kind,
                Some(&disc),
            );
        }
    }
    drop(units);
    acc.tally.add(quirks::STABLE_ID_COLLISIONS, collisions);
    let kinds: Vec<&'static str> = resolved.iter().map(|r| r.kind).collect();
    let names: Vec<SharedStr> = resolved.into_iter().map(|r| r.name).collect();
    let stable: Vec<Option<SharedStr>> = rows
        .iter()
        .map(|r| r.as_ref().map(|r| r.stable_id.clone()))
        .collect();
    // Taken out where they lie: `filter_map` (unlike `flatten`) lets the collect reuse `rows`'
    // buffer, so the rows are not copied into a second one.
    #[allow(clippy::filter_map_identity)]
    let symbol_rows: Vec<SymbolRow> = rows.into_iter().filter_map(|row| row).collect();
    // The target of an occurrence or edge: the stable ID, or the SCIP symbol of an external symbol.
    let targets: Vec<SharedStr> = stable
        .iter()
        .zip(&acc.syms)
        .map(|(id, sym)| id.clone().unwrap_or_else(|| sym.symbol.clone()))
        .collect();
    let target = |g: u32| -> &SharedStr { &targets[g as usize] };
    let source = strs.source.clone();
    let mut tables = ScipTables {
        symbols: symbol_rows,
        ..Default::default()
    };

    // Call edges: (caller, callee) pairs counted by sorting (a map per occurrence costs more).
    let mut calls: Vec<(u32, u32)> = records
        .iter()
        .filter(|o| {
            let roles = Roles(o.roles);
            // Module-level references (imports among them: scip-typescript marks no Import
            // role) are not calls of a definition.
            o.enclosing != NO_TARGET
                && !roles.contains(Roles::DEFINITION)
                && !roles.contains(Roles::IMPORT)
                && kinds[o.enclosing as usize] != "module"
                && symbols::is_callable(kinds[o.target as usize])
        })
        .map(|o| (o.enclosing, o.target))
        .collect();
    calls.sort_unstable();
    let mut call_edges: Vec<((u32, u32), i64)> = Vec::new();
    for pair in calls {
        match call_edges.last_mut() {
            Some((last, count)) if *last == pair => *count += 1,
            _ => call_edges.push((pair, 1)),
        }
    }
    tables.call_edges = call_edges
        .into_iter()
        .map(|((caller, callee), count)| CallEdgeRow {
            caller_id: target(caller).clone(),
            callee_id: Some(target(callee).clone()),
            callee_name: names[callee as usize].clone(),
            count,
            source: source.clone(),
            confidence: 1.0,
        })
        .collect();

    let mut rels: BTreeSet<(String, String, &'static str)> = BTreeSet::new();
    for &(from, to, bits) in &acc.relationships {
        if stable[from as usize].is_none() || !valid(to as usize) {
            continue;
        }
        for (bit, kind) in [
            (mapping::REL_IMPLEMENTATION, "implementation"),
            (mapping::REL_TYPE_DEFINITION, "type_definition"),
            (mapping::REL_REFERENCE, "reference"),
            (mapping::REL_DEFINITION, "definition"),
        ] {
            if bits & bit != 0 {
                rels.insert((target(from).to_string(), target(to).to_string(), kind));
            }
        }
    }
    tables.relationships = rels
        .into_iter()
        .map(|(from_id, to_id, kind)| RelationshipRow {
            from_id,
            to_id,
            kind: kind.into(),
            source: SOURCE.into(),
        })
        .collect();
    tables.covered_paths = acc.docs.iter().map(|d| d.path.to_string()).collect();
    // The occurrences: each target's ID and name once, records pointing at them.
    let targets: Vec<Target> = (0..acc.syms.len())
        .map(|g| Target {
            id: Some(target(g as u32).clone()),
            name: names[g].clone(),
        })
        .collect();
    let paths: Vec<SharedStr> = acc.docs.iter().map(|d| d.path.clone()).collect();
    records.shrink_to_fit();
    tables.occurrences = ScipOccurrences::from_parts(targets, paths, records);

    let mut counts = BTreeMap::new();
    counts.insert(
        "definedSymbols".into(),
        stable.iter().filter(|s| s.is_some()).count() as i64,
    );
    counts.insert(
        "referencedExternalSymbols".into(),
        (0..stable.len())
            .filter(|&g| stable[g].is_none() && valid(g))
            .count() as i64,
    );
    (tables, counts)
}
