//! Syntax stage: tree-sitter definitions, references, call sites, imports and body hashes.
//!
//! Every scanned file of a supported language (Rust, Python, TypeScript, TSX, JavaScript, Go,
//! Java, C, C++) is parsed in parallel with its grammar and the language's query
//! (`pipeline/grammar-queries/<language>/syntax.scm`), and turned into `symbols`, `occurrences`,
//! `imports`, `call_edges` and `relationships` rows with `source = tree-sitter`:
//!
//! - per file (`extract.rs`): definitions with stable IDs, containers, signatures, arity,
//!   visibility (`visibility.rs`) and body hashes; definition, reference, call, write, import and
//!   forward-definition sites with their enclosing definition; import statements (`imports.rs`);
//! - over all files (`name_binding.rs`): by-name resolution of each site's `symbol_id`, the call
//!   edges, and the `implementation` relationships that supertype sites state (`extends`,
//!   `implements`, base classes, supertraits, `impl Trait for Type`).
//!
//! A bad file is a counted skip, never an error: parse errors are counted per file and language,
//! a file over [`SyntaxConfig::max_file_bytes`] or over the work budget is skipped, unreadable or
//! changed-while-running files are skipped; each with a warning. Per-file problems are also
//! listed in the `syntax-files` view, which lets the next run carry them forward.
//!
//! Incremental: given a previous snapshot written by the same extractor, the rows of files whose
//! content hash (and language and test/generated flags) did not change are taken from it, with
//! the columns later stages fill reset to what this stage emits; only changed files are parsed.
//! Resolution, call edges and relationships are always recomputed over the full set, so the tables are
//! byte-identical to a cold run's. Which files can be reused is known from the syntax cache's
//! index and the previous `files` table alone, so the changed files are parsed while the cached
//! rows and the previous rows are decoded (the latter column by column, in parallel); the reused
//! rows arrive in table order and each parsed file's rows are
//! sorted on its worker, so the final order comes from a merge (each re-parsed row placed by
//! binary search) rather than a sort.

pub mod body_hash;
pub mod cache;
pub mod captures;
pub mod definitions;
pub mod extract;
pub mod imports;
pub mod lang;
pub mod name_binding;
pub mod visibility;

mod incremental;
mod shared_ids;

use std::collections::BTreeMap;
use std::path::Path;

use output_schema::manifest::{Backend, Completeness, StageReport, Warning};
use output_schema::tables::{
    CallEdgeRow, FileRow, ImportRow, OccurrenceRow, RelationshipRow, SymbolRow,
};
use output_schema::views::{SyntaxFileEntry, SyntaxFilesView};
use output_schema::View;
use rayon::prelude::*;

use crate::cache_pack::{CachePack, PackUpdate};
use crate::merge::SyntaxTables;
use crate::stage::{ManifestParts, StageContext, StageOutput};
use crate::store::StoredSnapshot;
use crate::PipelineError;
use extract::{Budget, FileFacts, FileInput, Worker};
use lang::Lang;

/// Name of the view listing files the stage could not parse cleanly.
pub const FILES_VIEW: &str = SyntaxFilesView::INFO.name;

/// Stage settings (defaults in [`SyntaxConfig::default`]).
#[derive(Clone, Copy, Debug)]
pub struct SyntaxConfig {
    /// Files larger than this are not parsed (`skipped-too-large`).
    pub max_file_bytes: u64,
    /// Per-file work budget.
    pub budget: Budget,
}

impl Default for SyntaxConfig {
    fn default() -> Self {
        SyntaxConfig {
            max_file_bytes: 2 * 1024 * 1024,
            budget: Budget::default(),
        }
    }
}

/// What the stage produced.
#[derive(Debug)]
pub struct SyntaxOutput {
    /// The rows (`relationships`: `implementation` links from supertype clauses).
    pub tables: SyntaxTables,
    /// The manifest report.
    pub report: StageReport,
    /// The tree-sitter backend's provenance.
    pub backend: Backend,
    /// The `syntax-files` view: files that did not parse cleanly, with why.
    pub view: SyntaxFilesView,
    /// What this run leaves in the syntax cache (when one was given), to be saved once the
    /// snapshot is published.
    pub cache_update: Option<PackUpdate>,
}

/// How one file fared; the per-file status is what the `syntax-files` view records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileStatus {
    /// Parsed; `errors` ERROR/MISSING nodes (0 = clean).
    Parsed { errors: u32 },
    /// Over the size limit.
    TooLarge,
    /// Over the work budget.
    TimedOut,
    /// Could not be read, or changed since the scan.
    Unreadable { code: &'static str, message: String },
    /// The language's query or grammar is broken (a ckb bug).
    Broken { message: String },
}

impl FileStatus {
    /// For a skipped file: the count it goes under, its warning's code and message.
    fn skip(&self, size_bytes: i64) -> Option<(&'static str, &'static str, String)> {
        Some(match self {
            FileStatus::Parsed { .. } => return None,
            FileStatus::TooLarge => (
                "skipped-too-large",
                "too-large",
                format!("{size_bytes} bytes is over the syntax stage's limit"),
            ),
            FileStatus::TimedOut => (
                "timed-out",
                "timed-out",
                "parsing exceeded the per-file work budget; file skipped".into(),
            ),
            FileStatus::Unreadable { code, message } => (code, code, message.clone()),
            FileStatus::Broken { message } => ("broken-query", "broken-query", message.clone()),
        })
    }

    /// The status as the view stores it; `None` for a clean parse.
    fn view_entry(&self) -> Option<SyntaxFileEntry> {
        let entry = |status: &str, errors: Option<i64>| SyntaxFileEntry {
            status: status.to_string(),
            errors,
        };
        match self {
            FileStatus::Parsed { errors: 0 } => None,
            FileStatus::Parsed { errors } => Some(entry("parse-errors", Some(i64::from(*errors)))),
            FileStatus::TooLarge => Some(entry("too-large", None)),
            FileStatus::TimedOut => Some(entry("timed-out", None)),
            FileStatus::Unreadable { code, .. } => Some(entry(code, None)),
            FileStatus::Broken { .. } => Some(entry("broken-query", None)),
        }
    }

    /// The status a previous run recorded, if it can be carried forward (deterministic ones).
    fn from_view_entry(v: &SyntaxFileEntry) -> Option<FileStatus> {
        match v.status.as_str() {
            "parse-errors" => Some(FileStatus::Parsed {
                errors: u32::try_from(v.errors?).ok()?,
            }),
            "too-large" => Some(FileStatus::TooLarge),
            "timed-out" => Some(FileStatus::TimedOut),
            _ => None,
        }
    }
}

/// Where a file's rows came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// Parsed in this run.
    Parsed,
    /// The previous snapshot's rows (`incremental.rs`).
    Previous,
    /// The syntax cache (`cache.rs`).
    Cache,
}

/// One file's result: its rows and status.
pub(crate) struct FileResult {
    pub(crate) facts: FileFacts,
    pub(crate) status: FileStatus,
    pub(crate) origin: Origin,
}

impl FileResult {
    /// A file whose rows come from the previous snapshot (they are kept apart, see
    /// `incremental.rs`); only its status is per file.
    fn reused(status: FileStatus) -> FileResult {
        let errors = match status {
            FileStatus::Parsed { errors } => errors,
            _ => 0,
        };
        FileResult {
            facts: FileFacts {
                errors,
                ..FileFacts::default()
            },
            status,
            origin: Origin::Previous,
        }
    }
}

/// Parses the supported files whose index passes `which`, in parallel; `None` for the others.
fn parse_where(
    ctx: &StageContext<'_>,
    supported: &[(&FileRow, Lang)],
    config: &SyntaxConfig,
    which: impl Fn(usize) -> bool + Sync,
) -> Vec<Option<FileResult>> {
    // Largest files first, one file per task. Parse time follows size, and rayon otherwise hands
    // each thread runs of neighbouring files: the last run, a dozen files on one thread, was
    // still being parsed long after the other threads had run out of work. In this order the
    // last files to start are the smallest, so the threads finish together.
    let mut order: Vec<usize> = (0..supported.len()).filter(|&i| which(i)).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(supported[i].0.size_bytes), i));
    let parsed: Vec<(usize, FileResult)> = order
        .into_par_iter()
        .with_max_len(1)
        .map(|i| {
            let (file, lang) = supported[i];
            let r = with_worker(|worker| parse_one(worker, ctx, file, lang, config));
            ctx.progress.advance(1);
            (i, r)
        })
        .collect();
    let mut results: Vec<Option<FileResult>> = (0..supported.len()).map(|_| None).collect();
    for (i, r) in parsed {
        results[i] = Some(r);
    }
    results
}

/// Runs `f` with this thread's [`Worker`]: its parsers and query cursor are reused by every file
/// the thread parses, in this run and the next.
fn with_worker<R>(f: impl FnOnce(&mut Worker) -> R) -> R {
    thread_local! {
        static WORKER: std::cell::RefCell<Worker> = std::cell::RefCell::new(Worker::new());
    }
    WORKER.with(|w| match w.try_borrow_mut() {
        Ok(mut worker) => f(&mut worker),
        // Not reachable (parsing a file never parses another on the same thread); a fresh worker
        // is as correct, only slower.
        Err(_) => f(&mut Worker::new()),
    })
}

/// Parses one file, its rows in table order: done on the worker threads, and since `supported`
/// is in path order the concatenation of every file's rows is (nearly) in table order already,
/// which leaves the write's sort little to do.
fn parse_one(
    worker: &mut Worker,
    ctx: &StageContext<'_>,
    file: &FileRow,
    lang: Lang,
    config: &SyntaxConfig,
) -> FileResult {
    let mut r = process(worker, ctx.root, ctx.repo_id, file, lang, config);
    output_schema::table::sort_rows(&mut r.facts.occurrences);
    output_schema::table::sort_rows(&mut r.facts.imports);
    r
}

/// The lists one after the other, in one list.
fn concat<T>(parts: Vec<Vec<T>>) -> Vec<T> {
    let mut all = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    for mut part in parts {
        all.append(&mut part);
    }
    all
}

/// Merges two lists that are each in table order into one in table order (stable: `a` first on
/// ties). `b` is typically small (the rows of a commit's changed files, `a` every other file's),
/// so each of its rows finds its place in `a` by binary search. When `b` goes into `a` in a few
/// runs (rows of one file sort together, so a one-file commit makes one run per table), the runs
/// are spliced into `a` in place: no second list as large as `a` is allocated and filled.
fn merge_sorted<T: output_schema::Table>(mut a: Vec<T>, b: Vec<T>) -> Vec<T> {
    /// Beyond this many runs, moving `a`'s tail once per run costs more than one merged copy.
    const MAX_SPLICED_RUNS: usize = 8;
    if a.is_empty() {
        return b;
    }
    if b.is_empty() {
        return a;
    }
    // Where each row of `b` goes: after the rows of `a` that do not sort after it.
    let places: Vec<usize> = b
        .iter()
        .map(|y| a.partition_point(|x| !y.compare(x).is_lt()))
        .collect();
    let runs = 1 + places.windows(2).filter(|w| w[0] != w[1]).count();
    if runs <= MAX_SPLICED_RUNS {
        // Last run first, so the places of the earlier ones stay valid.
        let mut b = b;
        let mut end = b.len();
        while end > 0 {
            let place = places[end - 1];
            let start = places[..end].partition_point(|&p| p < place);
            let run: Vec<T> = b.drain(start..end).collect();
            a.splice(place..place, run);
            end = start;
        }
        return a;
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let mut a = a.into_iter();
    let mut taken = 0;
    for (y, place) in b.into_iter().zip(places) {
        out.extend(a.by_ref().take(place - taken));
        taken = place;
        out.push(y);
    }
    out.extend(a);
    out
}

/// Runs the stage over the scanned files with the default settings.
pub fn run(
    ctx: &StageContext<'_>,
    files: &[FileRow],
    previous: Option<&StoredSnapshot>,
    cache: Option<&CachePack>,
) -> Result<SyntaxOutput, PipelineError> {
    run_with(ctx, files, previous, cache, &SyntaxConfig::default())
}

/// Runs the stage with explicit settings. Each file's rows come from the syntax cache when it
/// has them, else from the previous snapshot when it can supply them, else from a parse.
pub fn run_with(
    ctx: &StageContext<'_>,
    files: &[FileRow],
    previous: Option<&StoredSnapshot>,
    cache: Option<&CachePack>,
    config: &SyntaxConfig,
) -> Result<SyntaxOutput, PipelineError> {
    let fingerprint = fingerprint(config);
    let supported: Vec<(&FileRow, Lang)> = files
        .iter()
        .filter_map(|f| {
            f.language
                .as_deref()
                .and_then(Lang::from_name)
                .map(|l| (f, l))
        })
        .collect();
    ctx.progress
        .stage_started("syntax", Some(supported.len() as u64));

    let incremental::Gathered {
        mut results,
        reused_symbols,
        reused_occurrences,
        reused_imports,
        reuse_warning,
    } = incremental::gather(ctx, &supported, previous, cache, config, &fingerprint);
    let cache_update = cache.map(|cache| {
        let previous_rows = cache::PreviousRows {
            symbols: &reused_symbols,
            occurrences: &reused_occurrences,
            imports: &reused_imports,
        };
        cache::update(cache, ctx.repo_id, &supported, &results, previous_rows)
    });

    // Assemble in file order (deterministic), merge with the reused rows (both in table order),
    // then resolve over everything.
    // Each file's rows are moved into one list per table: a copy of every row, one core's work
    // per table (on a one-file commit the cached rows of every other file are most of it), so
    // the occurrences are gathered beside the symbols and imports.
    let mut symbol_parts = Vec::with_capacity(results.len());
    let mut occurrence_parts = Vec::with_capacity(results.len());
    let mut import_parts = Vec::with_capacity(results.len());
    for r in &mut results {
        symbol_parts.push(std::mem::take(&mut r.facts.symbols));
        occurrence_parts.push(std::mem::take(&mut r.facts.occurrences));
        import_parts.push(std::mem::take(&mut r.facts.imports));
    }
    let (occurrences, ((symbols, separated), imports)) = rayon::join(
        || concat(occurrence_parts),
        || {
            let mut symbols = concat(symbol_parts);
            // Symbols sort by stable ID, which file order does not give; the merge needs table
            // order, and so does telling apart the IDs two files give alike.
            output_schema::table::sort_rows(&mut symbols);
            let mut symbols = merge_sorted(reused_symbols, symbols);
            let separated = shared_ids::separate(&mut symbols);
            (
                (symbols, separated),
                merge_sorted(reused_imports, concat(import_parts)),
            )
        },
    );
    // The definitions' index needs only symbols and imports: built while occurrences merge.
    let (mut occurrences, index) = rayon::join(
        || {
            let mut occurrences = merge_sorted(reused_occurrences, occurrences);
            shared_ids::rename_occurrences(&mut occurrences, &separated);
            occurrences
        },
        || name_binding::Index::new(&symbols, &imports),
    );
    let languages: crate::fast_map::FastMap<&str, Lang> = supported
        .iter()
        .map(|(f, l)| (f.path.as_str(), *l))
        .collect();
    let name_binding::Resolution {
        call_edges,
        relationships,
    } = name_binding::resolve_all(&index, &mut occurrences, &languages);
    drop(index);

    let mut warnings: Vec<Warning> = reuse_warning.into_iter().collect();
    warnings.extend(CachePack::warnings(
        cache,
        cache::CACHE_DIR,
        "its files were parsed",
    ));
    let (report, view) = report(
        files,
        &supported,
        &results,
        &symbols,
        &occurrences,
        &call_edges,
        &relationships,
        &imports,
        warnings,
    );
    let backend = backend(&fingerprint, &report);
    ctx.progress.stage_finished(
        "syntax",
        &format!(
            "{} files, {} symbols, {} occurrences",
            report.items,
            symbols.len(),
            occurrences.len()
        ),
    );
    Ok(SyntaxOutput {
        tables: SyntaxTables {
            symbols,
            occurrences,
            call_edges,
            relationships,
            imports,
        },
        report,
        backend,
        view,
        cache_update,
    })
}

/// The extractor fingerprint for these settings (queries, revision, limits).
pub fn fingerprint(config: &SyntaxConfig) -> String {
    let b = &config.budget;
    format!(
        "{}-{}-{}-{}-{}-{}",
        lang::extractor_fingerprint(),
        config.max_file_bytes,
        b.parse_base,
        b.parse_per_kib,
        b.query_base,
        b.query_per_kib
    )
}

/// Reads, checks and extracts one file.
fn process(
    worker: &mut Worker,
    root: &Path,
    repo_id: &str,
    file: &FileRow,
    lang: Lang,
    config: &SyntaxConfig,
) -> FileResult {
    let done = |status: FileStatus| FileResult {
        facts: FileFacts::default(),
        status,
        origin: Origin::Parsed,
    };
    if file.size_bytes as u64 > config.max_file_bytes {
        return done(FileStatus::TooLarge);
    }
    let bytes = match std::fs::read(root.join(&file.path)) {
        Ok(b) => b,
        Err(e) => {
            return done(FileStatus::Unreadable {
                code: "unreadable",
                message: e.kind().to_string(),
            })
        }
    };
    if bytes.len() as u64 > config.max_file_bytes {
        return done(FileStatus::TooLarge);
    }
    if crate::scan::content_hash(&bytes) != file.content_hash {
        return done(FileStatus::Unreadable {
            code: "changed-during-run",
            message: "the file changed after the scan; its facts are left out".into(),
        });
    }
    let input = FileInput {
        repo_id,
        path: &file.path,
        lang,
        is_test: file.is_test,
        is_generated: file.is_generated,
    };
    match extract::extract(worker, &input, &bytes, &config.budget) {
        Ok(facts) => FileResult {
            status: FileStatus::Parsed {
                errors: facts.errors,
            },
            facts,
            origin: Origin::Parsed,
        },
        Err(extract::Failure::TimedOut(_)) => done(FileStatus::TimedOut),
        Err(extract::Failure::BrokenQuery(m)) => done(FileStatus::Broken {
            message: m.to_string(),
        }),
        Err(extract::Failure::BrokenGrammar(m)) => done(FileStatus::Broken { message: m }),
    }
}

#[allow(clippy::too_many_arguments)]
fn report(
    files: &[FileRow],
    supported: &[(&FileRow, Lang)],
    results: &[FileResult],
    symbols: &[SymbolRow],
    occurrences: &[OccurrenceRow],
    call_edges: &[CallEdgeRow],
    relationships: &[RelationshipRow],
    imports: &[ImportRow],
    reuse_warnings: Vec<Warning>,
) -> (StageReport, SyntaxFilesView) {
    let mut counts: BTreeMap<String, i64> = BTreeMap::new();
    let mut breakdown: BTreeMap<String, BTreeMap<String, i64>> = BTreeMap::new();
    let mut warnings = Vec::new();
    let mut view_files = BTreeMap::new();
    let mut bump = |counts: &mut BTreeMap<String, i64>, lang: &str, key: &str, n: i64| {
        *counts.entry(format!("files.{key}")).or_default() += n;
        *breakdown
            .entry(lang.to_string())
            .or_default()
            .entry(key.to_string())
            .or_default() += n;
    };
    for f in files {
        let supported_lang = f.language.as_deref().and_then(Lang::from_name).is_some();
        if !supported_lang {
            let lang = f.language.as_deref().unwrap_or("unknown");
            bump(&mut counts, lang, "unsupported-language", 1);
        }
    }
    let mut symbols_by_lang: BTreeMap<&str, i64> = BTreeMap::new();
    for s in symbols {
        *symbols_by_lang
            .entry(s.language.as_deref().unwrap_or("unknown"))
            .or_default() += 1;
    }
    let mut skipped = 0i64;
    let mut parsed = 0i64;
    for ((file, lang), r) in supported.iter().zip(results) {
        let l = lang.name();
        bump(&mut counts, l, "total", 1);
        if r.origin != Origin::Parsed {
            bump(&mut counts, l, "reused", 1);
        }
        if r.origin == Origin::Cache {
            bump(&mut counts, l, "from-cache", 1);
        }
        if let Some(entry) = r.status.view_entry() {
            view_files.insert(file.path.clone(), entry);
        }
        match &r.status {
            FileStatus::Parsed { errors } => {
                parsed += 1;
                bump(&mut counts, l, "parsed", 1);
                if *errors > 0 {
                    bump(&mut counts, l, "parse-errors", 1);
                    bump(&mut counts, l, "error-nodes", i64::from(*errors));
                    warnings.push(Warning {
                        code: "parse-error".into(),
                        path: Some(file.path.clone()),
                        message: format!(
                            "{errors} syntax error node(s); definitions outside them were extracted"
                        ),
                    });
                }
            }
            status => {
                // Every other status skips the file: counted, with a warning.
                let Some((count, code, message)) = status.skip(file.size_bytes) else {
                    continue;
                };
                skipped += 1;
                bump(&mut counts, l, count, 1);
                warnings.push(Warning {
                    code: code.to_string(),
                    path: Some(file.path.clone()),
                    message,
                });
            }
        }
    }
    for (lang, n) in symbols_by_lang {
        breakdown
            .entry(lang.to_string())
            .or_default()
            .insert("symbols".into(), n);
    }
    warnings.extend(reuse_warnings);
    counts.insert("symbols".into(), symbols.len() as i64);
    counts.insert("occurrences".into(), occurrences.len() as i64);
    counts.insert(
        "occurrences.resolved".into(),
        occurrences.iter().filter(|o| o.symbol_id.is_some()).count() as i64,
    );
    counts.insert("call_edges".into(), call_edges.len() as i64);
    counts.insert("relationships".into(), relationships.len() as i64);
    counts.insert("imports".into(), imports.len() as i64);
    let total = supported.len() as i64;
    let mut report = StageReport::ran(skipped > 0);
    report.items = total;
    report.counts = counts;
    report.breakdown = breakdown;
    let with_errors = results
        .iter()
        .filter(|r| matches!(r.status, FileStatus::Parsed { errors } if errors > 0))
        .count();
    report.completeness = Some(Completeness {
        score: if total == 0 {
            1.0
        } else {
            parsed as f64 / total as f64
        },
        reason: if skipped > 0 {
            "files-skipped".into()
        } else if with_errors > 0 {
            "parse-errors".into()
        } else {
            "full".into()
        },
    });
    report.set_warnings(warnings);
    (report, SyntaxFilesView { files: view_files })
}

fn backend(fingerprint: &str, report: &StageReport) -> Backend {
    let mut counts = BTreeMap::new();
    for key in [
        "symbols",
        "occurrences",
        "call_edges",
        "relationships",
        "imports",
    ] {
        if let Some(n) = report.counts.get(key) {
            counts.insert(key.to_string(), *n);
        }
    }
    counts.insert("files".into(), report.items);
    let mut facts = BTreeMap::new();
    facts.insert("extractor".to_string(), fingerprint.to_string());
    let grammars: Vec<String> = Lang::ALL
        .iter()
        .map(|l| {
            let g = l.grammar();
            match g.metadata() {
                Some(m) => format!(
                    "{} {}.{}.{}",
                    l.name(),
                    m.major_version,
                    m.minor_version,
                    m.patch_version
                ),
                None => format!("{} abi{}", l.name(), g.abi_version()),
            }
        })
        .collect();
    facts.insert("grammars".to_string(), grammars.join(", "));
    Backend {
        kind: "tree-sitter".into(),
        tool: "tree-sitter".into(),
        version: Some(lang::tree_sitter_version()),
        input: None,
        counts,
        facts,
    }
}

impl StageOutput for SyntaxOutput {
    type Rows = SyntaxTables;
    fn split(self) -> (SyntaxTables, ManifestParts) {
        let mut parts = ManifestParts::report(self.report);
        parts.extras.backends.push(self.backend);
        parts.extras.views.syntax_files = Some(self.view);
        (self.tables, parts)
    }
}

#[cfg(test)]
mod tests {
    use output_schema::tables::ImportRow;

    use super::merge_sorted;

    fn import(path: &str, line: i32) -> ImportRow {
        ImportRow::unclassified(path.into(), line, "m".into(), vec![], "rust".into())
    }

    #[test]
    fn merge_keeps_table_order_whatever_the_interleaving() {
        let a: Vec<ImportRow> = (0..40).map(|i| import(&format!("f{}", i / 4), i)).collect();
        let cases: Vec<Vec<ImportRow>> = vec![
            vec![],
            vec![import("a", 1)],
            vec![import("f0", 0), import("f3", 13), import("f9", 99)],
            vec![import("f5", 21), import("f5", 21), import("z", 1)],
            // More runs than are spliced in place: the merged copy.
            (0..10).map(|f| import(&format!("f{f}"), 100)).collect(),
            (0..40).map(|i| import(&format!("f{}", i / 4), i)).collect(),
        ];
        for b in cases {
            let mut want: Vec<ImportRow> = a.iter().chain(&b).cloned().collect();
            output_schema::table::sort_rows(&mut want);
            assert_eq!(merge_sorted(a.clone(), b.clone()), want);
            assert_eq!(merge_sorted(b.clone(), a.clone()), want);
        }
    }
}
