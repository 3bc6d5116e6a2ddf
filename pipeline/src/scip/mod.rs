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

pub mod doc_cache;
mod document_wire;
pub mod freshness;
mod index_file;
pub use index_file::{MAX_PROJECT_ROOT_BYTES, MAX_TOOL_FIELD_BYTES};
pub mod mapping;
mod materialize;
pub mod occurrences;
mod positions;
pub mod quirks;
pub mod reader;
pub mod symbols;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use output_schema::manifest::{Backend, Completeness, RepoState, StageReport, Warning};
use output_schema::tables::{CallEdgeRow, FileRow, RelationshipRow, SymbolRow};
use output_schema::{Roles, SharedStr, Table};
use protobuf::Message;
use rayon::prelude::*;
use scip::types::{Metadata, SymbolInformation};

use crate::cache_pack::{CachePack, PackUpdate};
use crate::fast_map::FastMap;
use crate::stage::{ManifestParts, StageOutput};
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
    /// The document cache ([`doc_cache`]), when one is kept.
    pub cache: Option<&'a CachePack>,
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
    /// Covered paths whose index stated no relationship at all (rust-analyzer): the merge keeps
    /// the tree-sitter relationships of these files.
    pub relationless_paths: BTreeSet<String>,
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
    /// What this run leaves in the document cache (when one was given), to be saved once the
    /// snapshot is published.
    pub cache_update: Option<PackUpdate>,
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
    let cached = input
        .cache
        .map(|pack| index_file::CachedDocs::new(pack, input.files));
    let mut cache_update = input.cache.map(CachePack::update);
    let mut documents_cached = 0i64;
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
        let one = index_file::read_one(index_file::IndexToRead {
            input,
            index,
            files: &files,
            covered_before: &covered,
            cached: cached.as_ref(),
            progress,
        })?;
        documents += one.documents_used;
        documents_cached += one.documents_cached;
        record_cache_entries(cache_update.as_mut(), one.cache_entries);
        stale |= one.freshness.is_stale();
        tally.absorb(&one.tally);
        warnings.extend(one.warnings);
        backends.push(one.backend);
        covered.extend(one.tables.covered_paths.iter().cloned());
        tables.covered_paths.extend(one.tables.covered_paths);
        tables
            .relationless_paths
            .extend(one.tables.relationless_paths);
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

    let linked_across_indexes = (indexes.len() > 1).then(|| link_across_indexes(&mut tables));
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
    let mut report = StageReport::ran(stale || skipped);
    report.items = documents;
    report.counts = tally.to_counts();
    report.counts.insert("indexes".into(), indexes.len() as i64);
    let linked = linked_across_indexes.map(|n| ("references.linked-across-indexes".into(), n));
    report.counts.extend(linked);
    report.counts.insert("documents".into(), documents);
    if input.cache.is_some() {
        report
            .counts
            .insert("documents.reused".into(), documents_cached);
    }
    report
        .counts
        .insert("files.candidates".into(), candidates as i64);
    report
        .counts
        .insert("files.covered".into(), tables.covered_paths.len() as i64);
    report.counts.extend(
        [
            ("symbols", tables.symbols.len()),
            ("occurrences", tables.occurrences.len()),
            ("call-edges", tables.call_edges.len()),
            ("relationships", tables.relationships.len()),
        ]
        .map(|(name, n)| (name.to_string(), n as i64)),
    );
    report.completeness = Some(Completeness {
        score: (score * 1_000_000.0).round() / 1_000_000.0,
        reason: reason.into(),
    });
    warnings.extend(CachePack::warnings(
        input.cache,
        doc_cache::CACHE_DIR,
        "its documents were converted",
    ));
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
        cache_update,
    })
}

/// Links what one index refers to and another defines: each index is converted on its own, so a
/// symbol it does not define is external to it, its target the SCIP symbol string. With several
/// indexes of one repository — `ckb index` writes two for a TypeScript repository whose tests lie
/// outside every tsconfig, and one per Rust workspace — the tests' calls into the project are
/// such references: left as they are, the project's functions would have no callers and no usage
/// from them. Every occurrence, call edge and relationship whose target is the SCIP symbol of a
/// definition some index holds is pointed at that definition's stable ID (the first index's,
/// when several define it), and the call edges and relationships that then coincide are made one
/// (call sites summed). Returns the number of occurrences linked.
fn link_across_indexes(tables: &mut ScipTables) -> i64 {
    let ScipTables {
        symbols,
        occurrences,
        call_edges,
        relationships,
        ..
    } = tables;
    // In index order, and in each index's own row order: the first definition wins.
    let mut defined: FastMap<&str, &SharedStr> = FastMap::default();
    defined.reserve(symbols.len());
    for row in symbols.iter() {
        if let Some(symbol) = &row.backend_id {
            defined.entry(symbol.as_str()).or_insert(&row.stable_id);
        }
    }
    let link = |target: &str| defined.get(target).map(|id| (*id).clone());
    let linked = occurrences.link_targets(link);
    for edge in call_edges.iter_mut() {
        if let Some(id) = edge.callee_id.as_deref().and_then(link) {
            edge.callee_id = Some(id);
        }
    }
    for relationship in relationships.iter_mut() {
        if let Some(id) = link(&relationship.to_id) {
            relationship.to_id = id.to_string();
        }
    }
    // The writer sorts the rows again; here they are only brought together by key (a leading
    // part of each table's order).
    call_edges.sort_unstable_by(|a, b| a.compare(b));
    call_edges.dedup_by(|later, kept| {
        let same = later.shares_key(kept);
        if same {
            kept.count += later.count;
        }
        same
    });
    relationships.sort_unstable_by(|a, b| a.compare(b));
    relationships.dedup_by(|later, kept| later.shares_key(kept));
    linked as i64
}

/// Records one index's document cache entries in the update: a blob found stays, a converted one
/// is added.
fn record_cache_entries(update: Option<&mut PackUpdate>, entries: Vec<index_file::DocEntry>) {
    let Some(update) = update else {
        return;
    };
    for (key, blob) in entries {
        match blob {
            None => update.keep(key),
            Some(blob) => update.add(key, blob),
        }
    }
}

/// The outcome of one index.
struct OneIndex {
    tables: ScipTables,
    backend: Backend,
    tally: Tally,
    warnings: Vec<Warning>,
    documents_used: i64,
    /// Documents used whose facts came from the document cache.
    documents_cached: i64,
    /// Every document's cache key, with the blob to add for those converted.
    cache_entries: Vec<index_file::DocEntry>,
    freshness: freshness::Freshness,
}

/// A global symbol of one index. Its string is parsed only after the last document (once per
/// distinct symbol, see [`materialize`]).
struct GlobalSym {
    symbol: SharedStr,
    info_kind: Option<&'static str>,
    signature: Option<String>,
    /// The first definition in [`definition_order`]: (document, whole-definition span).
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
        let mut names = symbols::fixed_names().to_vec();
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
    documents_cached: i64,
    cache_entries: Vec<index_file::DocEntry>,
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
                        definition_order(best_path, span) > definition_order(&facts.path, def)
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

/// The order in which a global symbol's definitions compete to stand for it: by path and
/// position, except that a Cargo build script comes last. rust-analyzer names a build script's
/// items after its package, so `build.rs`'s `main` and the binary's `main` are one symbol; the
/// package's own definition is the one meant.
fn definition_order(path: &str, span: Span) -> (bool, &str, i32, i32) {
    let build_script = path == "build.rs" || path.ends_with("/build.rs");
    (build_script, path, span.line, span.col)
}

impl StageOutput for ScipOutput {
    type Rows = ScipTables;
    fn split(self) -> (ScipTables, ManifestParts) {
        let mut parts = ManifestParts::report(self.report);
        parts.extras.backends = self.backends;
        (self.tables, parts)
    }
}
