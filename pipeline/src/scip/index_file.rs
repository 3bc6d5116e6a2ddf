//! One SCIP index file, read as a stream: metadata first, documents in bounded batches decoded
//! and converted in parallel and folded into the accumulator, then the checks that refuse a file
//! that is no index of this repository, and the backend entry with the index's freshness.

use super::materialize::materialize;
use super::*;
use crate::scip::doc_cache;

/// The longest `project_root` used: a path longer than the system's `PATH_MAX` names no folder.
pub const MAX_PROJECT_ROOT_BYTES: usize = 4096;
/// The longest tool name or version kept (they go to the manifest's backend entry).
pub const MAX_TOOL_FIELD_BYTES: usize = 256;

/// The index's metadata with its text fields within bounds, each cut one a warning: a
/// `project_root` over [`MAX_PROJECT_ROOT_BYTES`] is dropped (documents are then placed relative
/// to the repository root), a tool name or version over [`MAX_TOOL_FIELD_BYTES`] is shortened.
fn capped_metadata(mut m: Metadata, index: &str, warnings: &mut Vec<Warning>) -> Metadata {
    let mut warn = |field: &str, len: usize, limit: usize, what: &str| {
        warnings.push(Warning {
            code: "scip-metadata-field-too-long".into(),
            path: Some(index.to_string()),
            message: format!("its {field} of {len} bytes is over the limit of {limit}; {what}"),
        })
    };
    if m.project_root.len() > MAX_PROJECT_ROOT_BYTES {
        warn(
            "project_root",
            m.project_root.len(),
            MAX_PROJECT_ROOT_BYTES,
            "ignored (documents are placed relative to the repository root)",
        );
        m.project_root.clear();
    }
    if let Some(tool) = m.tool_info.as_mut() {
        for (field, value) in [
            ("tool name", &mut tool.name),
            ("tool version", &mut tool.version),
        ] {
            if value.len() > MAX_TOOL_FIELD_BYTES {
                warn(field, value.len(), MAX_TOOL_FIELD_BYTES, "shortened");
                let mut end = MAX_TOOL_FIELD_BYTES;
                while !value.is_char_boundary(end) {
                    end -= 1;
                }
                value.truncate(end);
            }
        }
    }
    m
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
/// outcome comes with the document's occurrence count (0 when undecodable) and, when a document
/// cache is in use, the document's key with the blob to add to it (none when the outcome came
/// from it). `headers`, when given, are the documents' headers, already read.
fn convert_batch(
    batch: Vec<Vec<u8>>,
    headers: Option<Vec<protobuf::Result<mapping::DocHeader>>>,
    env: &DocEnv<'_>,
    cached: Option<&CachedDocs<'_>>,
) -> Vec<(i64, DocOutcome, Option<DocEntry>)> {
    let one = |bytes: Vec<u8>, header: Option<protobuf::Result<mapping::DocHeader>>| {
        let header = header.unwrap_or_else(|| mapping::read_header(&bytes));
        let (Some(cached), Ok(h)) = (cached, &header) else {
            let (n, outcome) = mapping::convert_with_header(&bytes, header, env);
            return (n, outcome, None);
        };
        let key = doc_cache::key(&bytes, h, env, &cached.file_facts(env, h));
        if let Some(blob) = cached.pack.get(&key) {
            let decoded = doc_cache::decode(blob).and_then(|(n, outcome)| {
                doc_cache::check_place(&outcome, h, env)?;
                Ok((n, outcome))
            });
            match decoded {
                Ok((n, outcome)) => return (n, outcome, Some((key, None))),
                Err(e) => cached.pack.problem(crate::cache_pack::CacheProblem {
                    code: "cache-unreadable",
                    message: format!("an entry of {}: {e}", doc_cache::CACHE_DIR),
                }),
            }
        }
        let (n, outcome) = mapping::convert_with_header(&bytes, header, env);
        let blob = doc_cache::encode(n, &outcome);
        (n, outcome, blob.map(|b| (key, Some(b))))
    };
    match headers {
        Some(headers) => batch
            .into_par_iter()
            .zip(headers)
            .map(|(bytes, header)| one(bytes, Some(header)))
            .collect(),
        None => batch
            .into_par_iter()
            .map(|bytes| one(bytes, None))
            .collect(),
    }
}

/// A document's key in the document cache, and the blob to add (`None`: found there).
pub(super) type DocEntry = (crate::cache_pack::Key, Option<Vec<u8>>);

/// The document cache and what its keys need to know of the scanned files.
pub(super) struct CachedDocs<'a> {
    pub(super) pack: &'a crate::cache_pack::CachePack,
    /// Content hash of every scanned file, by path.
    pub(super) content_hashes: HashMap<&'a str, &'a str>,
}

impl<'a> CachedDocs<'a> {
    /// The cache, with the content hash of every scanned file.
    pub(super) fn new(pack: &'a crate::cache_pack::CachePack, files: &'a [FileRow]) -> Self {
        CachedDocs {
            pack,
            content_hashes: files
                .iter()
                .map(|f| (f.path.as_str(), f.content_hash.as_str()))
                .collect(),
        }
    }

    /// What a document's conversion reads of the scanned file it names: its language and content
    /// (positions may be converted with its lines), or, for a path the scan did not keep, whether
    /// the file exists.
    fn file_facts(&self, env: &DocEnv<'_>, header: &mapping::DocHeader) -> Vec<u8> {
        let Some(path) = mapping::repo_path(env.prefix, &header.relative_path) else {
            return vec![2];
        };
        match (env.files.get(&path), self.content_hashes.get(path.as_str())) {
            (Some(language), Some(hash)) => {
                let mut facts = vec![1];
                for field in [language.as_bytes(), hash.as_bytes()] {
                    facts.extend_from_slice(&(field.len() as u64).to_le_bytes());
                    facts.extend_from_slice(field);
                }
                facts
            }
            _ => {
                let missing = matches!(
                    std::fs::symlink_metadata(env.root.join(&path)),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound
                );
                vec![0, u8::from(missing)]
            }
        }
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
    cached: Option<&'a CachedDocs<'a>>,
}

/// A converted batch of documents, waiting to be absorbed.
type Converted = Vec<(i64, DocOutcome, Option<DocEntry>)>;

/// Converts a batch of documents (in parallel) while the batch converted before it, if any, is
/// absorbed into `acc`; the new batch then waits in `pending` for the next call (or for
/// [`absorb`] after the last one). Absorbing is serial (one symbol table), and when the documents
/// come from the document cache their conversion is short, so absorbing after converting left
/// one core idle for a part of every batch. The batches are still absorbed one after the other,
/// in the index's order.
fn flush(
    batch: Vec<Vec<u8>>,
    acc: &mut Accum,
    pending: &mut Option<Converted>,
    setup: &mut Setup,
    ctx: &BatchContext<'_>,
) {
    if batch.is_empty() {
        return;
    }
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
    let before = pending.take();
    let (_, converted) = rayon::join(
        || absorb(acc, before, ctx.progress),
        || convert_batch(batch, headers, &env, ctx.cached),
    );
    *pending = Some(converted);
}

/// Absorbs a converted batch into `acc` (nothing when there is none).
fn absorb(acc: &mut Accum, converted: Option<Converted>, progress: &dyn Progress) {
    let Some(converted) = converted else { return };
    let n = converted.len() as u64;
    for (occurrences, outcome, entry) in converted {
        acc.occurrences_total += occurrences;
        // Counted among the documents used (`documents`), as skipped ones are not.
        let used = matches!(outcome, DocOutcome::Facts(_));
        acc.absorb(outcome);
        if let Some((key, blob)) = entry {
            acc.documents_cached += i64::from(used && blob.is_none());
            acc.cache_entries.push((key, blob));
        }
    }
    progress.advance(n);
}

/// One index to read, and what reading it needs from the stage.
#[derive(Clone, Copy)]
pub(super) struct IndexToRead<'a> {
    /// The stage's input.
    pub(super) input: &'a ScipInput<'a>,
    /// The index file.
    pub(super) index: &'a Path,
    /// The scanned files' languages, by path.
    pub(super) files: &'a HashMap<String, String>,
    /// Paths an earlier index covered (an earlier index wins a path both cover).
    pub(super) covered_before: &'a HashSet<String>,
    /// The document cache, when the run keeps one.
    pub(super) cached: Option<&'a CachedDocs<'a>>,
    /// Where progress goes.
    pub(super) progress: &'a dyn Progress,
}

pub(super) fn read_one(read: IndexToRead<'_>) -> Result<OneIndex, PipelineError> {
    let IndexToRead { input, index, .. } = read;
    let root = input.root;
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
    let (setup, metadata) = stream_documents(read, &mut acc)?;
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
    let backend = backend_entry(
        root, index, &acc, used, &tables, counts, setup, &metadata, &fresh,
    );
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
        documents_cached: acc.documents_cached,
        cache_entries: std::mem::take(&mut acc.cache_entries),
        freshness: fresh,
    })
}

/// Streams the index into `acc`: the metadata first (looked for in a pass of its own when it is
/// not the first field), then the documents in batches, the external symbols' kinds, and the
/// unknown fields. An index with neither metadata nor documents is an error.
fn stream_documents(
    read: IndexToRead<'_>,
    acc: &mut Accum,
) -> Result<(Setup, Option<Metadata>), PipelineError> {
    let IndexToRead {
        input,
        index,
        files,
        covered_before,
        cached,
        progress,
    } = read;
    let root = input.root;
    let limits = reader::ReadLimits {
        max_document_bytes: input.config.max_document_bytes,
        metadata_only: false,
    };
    let metadata_pass = reader::ReadLimits {
        metadata_only: true,
        ..limits
    };
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
    let shown = display_input(root, index);
    if metadata_first == Some(false) {
        acc.tally.bump(quirks::METADATA_NOT_FIRST);
        reader::read_index::<()>(index, metadata_pass, |item| {
            if let reader::Item::Metadata(m) = item {
                if metadata.is_none() {
                    metadata = Some(capped_metadata(m, &shown, &mut acc.warnings));
                }
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
        cached,
    };
    let mut batch: Vec<Vec<u8>> = Vec::new();
    let mut pending: Option<Converted> = None;
    let mut batch_bytes = 0usize;
    let mut unknown = 0i64;
    reader::read_index::<()>(index, limits, |item| {
        match item {
            reader::Item::Metadata(m) => {
                if metadata.is_none() {
                    metadata = Some(capped_metadata(m, &shown, &mut acc.warnings));
                }
                let m = metadata.as_ref().expect("set just above");
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
                    flush(std::mem::take(&mut batch), acc, &mut pending, s, &ctx);
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
    flush(
        std::mem::take(&mut batch),
        acc,
        &mut pending,
        &mut setup,
        &ctx,
    );
    absorb(acc, pending, progress);
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
    Ok((setup, metadata))
}

/// The manifest's backend entry of one index.
#[allow(clippy::too_many_arguments)]
fn backend_entry(
    root: &Path,
    index: &Path,
    acc: &Accum,
    used: i64,
    tables: &ScipTables,
    counts: BTreeMap<String, i64>,
    setup: Setup,
    metadata: &Option<Metadata>,
    fresh: &freshness::Freshness,
) -> Backend {
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
    Backend {
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache_pack::CachePack;
    use scip::types::{Document, Occurrence};

    fn document(path: &str, symbol: &str) -> Vec<u8> {
        let mut doc = Document::new();
        doc.relative_path = path.into();
        let mut o = Occurrence::new();
        o.symbol = symbol.into();
        o.range = vec![0, 3, 4];
        o.symbol_roles = 1;
        doc.occurrences.push(o);
        doc.write_to_bytes().expect("encode")
    }

    fn file(path: &str, hash: &str) -> FileRow {
        FileRow {
            content_hash: hash.into(),
            ..test_support::rows::file(path, "rust", 10)
        }
    }

    fn path_of(outcome: &DocOutcome) -> Option<&str> {
        match outcome {
            DocOutcome::Facts(f) => Some(&f.path),
            DocOutcome::Skipped(s) => s.warning.path.as_deref(),
        }
    }

    /// A cache entry whose checksum holds but which was not written for the document it is found
    /// under (here: another document's facts) is refused with a problem, and the document is
    /// converted afresh: a cache never puts rows on a path its document does not name.
    #[test]
    fn a_cached_outcome_of_another_document_is_refused() {
        let scanned = [file("src/a.rs", "aaaa"), file("src/b.rs", "bbbb")];
        let files: HashMap<String, String> = scanned
            .iter()
            .map(|f| (f.path.clone(), "rust".to_string()))
            .collect();
        let covered = HashSet::new();
        let env = DocEnv::detached(&files, &covered);
        let a = document("src/a.rs", "rust-analyzer cargo x 1 a().");
        let b = document("src/b.rs", "rust-analyzer cargo x 1 b().");
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("scip-cache");

        // An honest cache: b's entry holds b's facts, and comes back as they are.
        let pack = CachePack::open(&dir, "test");
        let cached = CachedDocs::new(&pack, &scanned);
        let first = convert_batch(vec![a.clone(), b.clone()], None, &env, Some(&cached));
        let blob_of = |i: usize| {
            first[i]
                .2
                .as_ref()
                .and_then(|(_, blob)| blob.clone())
                .unwrap()
        };
        let key_of = |i: usize| first[i].2.as_ref().unwrap().0;
        // The pack after a run that left `blob` under `key`.
        let saved = |pack: &CachePack, key, blob| {
            let mut update = pack.update();
            update.add(key, blob);
            update.save(pack);
            CachePack::open(&dir, "test")
        };
        let pack = saved(&pack, key_of(1), blob_of(1));
        let cached = CachedDocs::new(&pack, &scanned);
        let again = convert_batch(vec![b.clone()], None, &env, Some(&cached));
        assert!(again[0].2.as_ref().is_some_and(|(_, blob)| blob.is_none()));
        assert_eq!(path_of(&again[0].1), Some("src/b.rs"));
        assert!(pack.problems().is_empty());

        // A forged cache: a's key holds b's facts (its checksum holds: the pack wrote it).
        let pack = saved(&pack, key_of(0), blob_of(1));
        let cached = CachedDocs::new(&pack, &scanned);
        let forged = convert_batch(vec![a.clone()], None, &env, Some(&cached));
        assert_eq!(path_of(&forged[0].1), Some("src/a.rs"));
        // Converted afresh, with a's own blob to replace the forged one.
        assert!(forged[0].2.as_ref().is_some_and(|(_, blob)| blob.is_some()));
        let problems = pack.problems();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].code, "cache-unreadable");
        assert!(
            problems[0].message.contains("another document"),
            "{problems:?}"
        );
    }

    /// A cached outcome must also agree with the scan's language, and name no other file in its
    /// warnings.
    #[test]
    fn a_cached_outcome_with_another_language_or_file_is_refused() {
        let bytes = document("src/a.rs", "rust-analyzer cargo x 1 a().");
        let header = mapping::read_header(&bytes).unwrap();
        let files = HashMap::from([("src/a.rs".to_string(), "rust".to_string())]);
        let covered = HashSet::new();
        let env = DocEnv::detached(&files, &covered);
        let facts = || match mapping::convert(&bytes, &env) {
            (_, DocOutcome::Facts(facts)) => facts,
            (_, skipped) => panic!("converted: {skipped:?}"),
        };
        let check = |facts| doc_cache::check_place(&DocOutcome::Facts(facts), &header, &env);
        assert!(check(facts()).is_ok());
        let mut other_language = facts();
        other_language.language = "python".into();
        assert!(check(other_language).is_err());
        let mut other_file = facts();
        other_file.warnings.push(Warning {
            code: "unparsable-symbol".into(),
            path: Some("src/other.rs".into()),
            message: String::new(),
        });
        assert!(check(other_file).is_err());
    }
}
