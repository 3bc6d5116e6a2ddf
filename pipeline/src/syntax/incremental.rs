//! Reusing a previous snapshot's rows for files that did not change, and [`gather`]: where each
//! file's rows come from (the syntax cache, this previous snapshot, or a parse).
//!
//! A previous snapshot qualifies when it is of the same repository, its syntax stage ran, and its
//! tree-sitter backend records the same extractor fingerprint (queries, extractor revision,
//! limits). A file's rows are reused when the previous `files` table has the same path with the
//! same content hash, language and test/generated flags, and every `symbols` / `occurrences`
//! row of that path came from tree-sitter (a file where another backend replaced rows is parsed
//! again). The file's status (parse errors, too large, timed out) comes from the previous
//! `syntax-files` view; a file absent from it parsed cleanly.
//!
//! Columns other stages fill are reset to what this stage emits: `symbols.module_id`, the import
//! classification, and every non-definition occurrence's `symbol_id` (resolution recomputes it
//! over the full set, since it depends on other files); so are IDs the stage told apart across
//! files (`shared_ids`), which depend on other files too. Call edges are not reused at all; they
//! are rebuilt from the occurrences.
//!
//! The reused rows stay in one flat list per table, in the previous table's order (already the
//! canonical order, so the write's sort has little left to do); rows of a path are kept or dropped
//! by one set lookup per run of equal paths, not one map lookup per row.

use std::collections::{BTreeMap, HashMap};

use output_schema::manifest::{decompress, StageStatus, Warning};
use output_schema::parquet_io::{read_table, read_table_parallel_with_room};
use output_schema::tables::{FileRow, ImportRow, OccurrenceRow, SymbolRow};
use output_schema::views::{SyntaxFileEntry, SyntaxFilesView};
use output_schema::{Roles, View};
use rayon::prelude::*;

use super::extract::SOURCE;
use super::lang::Lang;
use super::{
    parse_one, parse_where, with_worker, FileResult, FileStatus, Origin, SyntaxConfig, FILES_VIEW,
};
use crate::cache_pack::CachePack;
use crate::stage::StageContext;
use crate::store::StoredSnapshot;

/// What can be reused from a previous snapshot.
#[derive(Default)]
pub(crate) struct Reuse {
    /// Status of every reused file, by path (a file not listed here is parsed).
    pub(crate) files: HashMap<String, FileStatus>,
    /// The reused files' `symbols` rows.
    pub(crate) symbols: Vec<SymbolRow>,
    /// The reused files' `occurrences` rows, in the previous table's (canonical) order.
    pub(crate) occurrences: Vec<OccurrenceRow>,
    /// The reused files' `imports` rows, in the previous table's (canonical) order.
    pub(crate) imports: Vec<ImportRow>,
    /// Why a qualifying previous snapshot could not be used, if it could not.
    pub(crate) warning: Option<Warning>,
}

/// The files a previous snapshot may supply, decided from its small `files` table and
/// `syntax-files` view before the large tables are read (so the stage can parse the other files
/// while [`Plan::load`] decodes them).
pub(crate) struct Plan<'p> {
    prev: &'p StoredSnapshot,
    /// Candidate files (same content hash, language and flags) with their carried status.
    pub(crate) candidates: HashMap<String, FileStatus>,
}

/// Decides which of `files` `prev` may supply. `Ok(None)` when it does not qualify (another
/// repository, no syntax stage) or supplies nothing; `Err` with a warning when its rows come from
/// another extractor or it cannot be read.
pub(crate) fn plan<'p>(
    prev: &'p StoredSnapshot,
    repo_id: &str,
    fingerprint: &str,
    files: &[FileRow],
) -> Result<Option<Plan<'p>>, Warning> {
    let m = &prev.manifest;
    let stage_ran = m
        .stages
        .get("syntax")
        .is_some_and(|r| matches!(r.status, StageStatus::Ok | StageStatus::Partial));
    let same_extractor = m.backends.iter().any(|b| {
        b.kind == "tree-sitter" && b.facts.get("extractor").map(String::as_str) == Some(fingerprint)
    });
    let has_tables = ["files", "symbols", "occurrences", "imports"]
        .iter()
        .all(|t| m.table(t).is_some());
    if m.repo_id != repo_id || !stage_ran || !has_tables {
        return Ok(None);
    }
    if !same_extractor {
        return Err(Warning {
            code: "previous-other-extractor".into(),
            path: None,
            message: "previous snapshot's rows come from another tree-sitter extractor (another \
                      ckb version or other settings): not reused; every file not in the syntax \
                      cache was parsed"
                .into(),
        });
    }
    candidates(prev, files)
        .map(|candidates| (!candidates.is_empty()).then_some(Plan { prev, candidates }))
        .map_err(unreadable)
}

fn unreadable(message: String) -> Warning {
    Warning {
        code: "previous-unreadable".into(),
        path: None,
        message: format!("previous snapshot not reused, every file parsed: {message}"),
    }
}

fn table_path(prev: &StoredSnapshot, name: &str) -> Result<std::path::PathBuf, String> {
    prev.manifest
        .table(name)
        .map(|e| prev.dir.join(&e.file))
        .ok_or_else(|| format!("no {name} table"))
}

fn candidates(
    prev: &StoredSnapshot,
    files: &[FileRow],
) -> Result<HashMap<String, FileStatus>, String> {
    let prev_files: Vec<FileRow> =
        read_table(&table_path(prev, "files")?).map_err(|e| format!("files: {e}"))?;
    let by_path: HashMap<&str, &FileRow> =
        prev_files.iter().map(|f| (f.path.as_str(), f)).collect();
    let same: Vec<&str> = files
        .iter()
        .filter(|f| {
            by_path.get(f.path.as_str()).is_some_and(|p| {
                p.content_hash == f.content_hash
                    && p.language == f.language
                    && p.is_test == f.is_test
                    && p.is_generated == f.is_generated
            })
        })
        .map(|f| f.path.as_str())
        .collect();
    if same.is_empty() {
        return Ok(HashMap::new());
    }
    let statuses = read_view(prev)?;
    let mut out = HashMap::new();
    for path in same {
        let status = match statuses.get(path) {
            None => FileStatus::Parsed { errors: 0 },
            Some(v) => match FileStatus::from_view_entry(v) {
                Some(s) => s,
                None => continue,
            },
        };
        out.insert(path.to_string(), status);
    }
    Ok(out)
}

impl Plan<'_> {
    /// Reads the candidates' rows. A candidate with rows from another backend (merged by a later
    /// stage) is dropped from [`Reuse::files`] and must be parsed.
    pub(crate) fn load(self) -> Reuse {
        let Plan {
            prev,
            mut candidates,
        } = self;
        match read(prev, &mut candidates) {
            Ok((symbols, occurrences, imports)) => Reuse {
                files: candidates,
                symbols,
                occurrences,
                imports,
                warning: None,
            },
            Err(message) => Reuse {
                warning: Some(unreadable(message)),
                ..Reuse::default()
            },
        }
    }
}

type Rows = (Vec<SymbolRow>, Vec<OccurrenceRow>, Vec<ImportRow>);

fn read(prev: &StoredSnapshot, reused: &mut HashMap<String, FileStatus>) -> Result<Rows, String> {
    let (symbols_path, occurrences_path, imports_path) = (
        table_path(prev, "symbols")?,
        table_path(prev, "occurrences")?,
        table_path(prev, "imports")?,
    );
    // The rows of the files parsed again are merged into these vectors (`merge_sorted`): room
    // for an eighth more rows than the table had lets a usual commit insert them in place. A full
    // vector is copied whole into a larger one instead (on a one-file commit of ripgrep, that copy
    // was 500 of the run's 8 100 page faults).
    let room = |table: &str| {
        prev.manifest
            .table(table)
            .map_or(0, |e| usize::try_from(e.rows).unwrap_or(0) / 8 + 1024)
    };
    // Decoding is most of the cost of a per-commit run: read the tables side by side.
    let (occurrences, (symbols, imports)) = rayon::join(
        || {
            read_table_parallel_with_room::<OccurrenceRow>(&occurrences_path, room("occurrences"))
                .map_err(|e| format!("occurrences: {e}"))
        },
        || {
            rayon::join(
                || {
                    read_table_parallel_with_room::<SymbolRow>(&symbols_path, room("symbols"))
                        .map_err(|e| format!("symbols: {e}"))
                },
                || read_table::<ImportRow>(&imports_path).map_err(|e| format!("imports: {e}")),
            )
        },
    );
    let (mut occurrences, mut symbols, mut imports) = (occurrences?, symbols?, imports?);

    // A file with rows from another backend was merged by a later stage: parse it again.
    let merged: Vec<String> = symbols
        .par_iter()
        .filter(|s| s.source != SOURCE)
        .map(|s| s.path.to_string())
        .chain(
            occurrences
                .par_iter()
                .filter(|o| o.source != SOURCE)
                .map(|o| o.path.to_string()),
        )
        .collect();
    for path in merged {
        reused.remove(&path);
    }

    // Columns are reset on every row in parallel (most rows are kept); the rows of files that
    // are parsed again are dropped after, in one pass.
    symbols.par_iter_mut().for_each(|s| s.module_id = None);
    occurrences.par_iter_mut().for_each(|o| {
        if !o.roles.contains(Roles::DEFINITION) {
            o.symbol_id = None;
        }
    });
    // IDs the previous run told apart go back to their files' own: this run tells them apart
    // with its own files.
    if super::shared_ids::restore_per_file_ids(&mut symbols, &mut occurrences) {
        output_schema::table::sort_rows(&mut symbols);
    }
    let mut keep = KeepPaths::new(reused);
    symbols.retain(|s| keep.keeps(&s.path));
    let mut keep = KeepPaths::new(reused);
    occurrences.retain(|o| keep.keeps(&o.path));
    let mut keep = KeepPaths::new(reused);
    imports.retain_mut(|i| {
        i.target = None;
        i.kind = "unknown".into();
        i.method = None;
        i.confidence = 0.0;
        i.from_module = None;
        i.to_module = None;
        keep.keeps(&i.path)
    });
    Ok((symbols, occurrences, imports))
}

/// Whether a row's path is a reused file. Tables sorted by path hold long runs of one path, so
/// the answer for the previous row's path is remembered.
struct KeepPaths<'a> {
    reused: &'a HashMap<String, FileStatus>,
    last: (String, bool),
}

impl<'a> KeepPaths<'a> {
    fn new(reused: &'a HashMap<String, FileStatus>) -> Self {
        KeepPaths {
            reused,
            last: (String::new(), false),
        }
    }

    fn keeps(&mut self, path: &str) -> bool {
        let last = &mut self.last;
        if last.0 != path {
            last.0.clear();
            last.0.push_str(path);
            last.1 = self.reused.contains_key(path);
        }
        last.1
    }
}

/// The previous `syntax-files` view: path → status entry.
fn read_view(prev: &StoredSnapshot) -> Result<BTreeMap<String, SyntaxFileEntry>, String> {
    let Some(entry) = prev.manifest.views.iter().find(|v| v.name == FILES_VIEW) else {
        return Err(format!("no {FILES_VIEW} view"));
    };
    let bytes =
        std::fs::read(prev.dir.join(&entry.file)).map_err(|e| format!("{FILES_VIEW}: {e}"))?;
    let text = decompress(&bytes).map_err(|e| format!("{FILES_VIEW}: {e}"))?;
    let view = SyntaxFilesView::decode(&text).map_err(|e| format!("{FILES_VIEW}: {e}"))?;
    Ok(view.files)
}

/// Every supported file's result, in file order, with the previous snapshot's rows (in table
/// order) for the files it supplied.
pub(super) struct Gathered {
    pub(super) results: Vec<FileResult>,
    pub(super) reused_symbols: Vec<SymbolRow>,
    pub(super) reused_occurrences: Vec<OccurrenceRow>,
    pub(super) reused_imports: Vec<ImportRow>,
    pub(super) reuse_warning: Option<Warning>,
}

/// Where each file's rows come from: the syntax cache when it has them, else the previous
/// snapshot when it can supply them, else a parse. The files neither records are parsed while the
/// cached rows are decoded and the previous rows read (a one-file commit parses its file, and
/// compiles its grammar's queries, beside the decoding instead of after it).
pub(super) fn gather(
    ctx: &StageContext<'_>,
    supported: &[(&FileRow, Lang)],
    previous: Option<&StoredSnapshot>,
    cache: Option<&CachePack>,
    config: &SyntaxConfig,
    fingerprint: &str,
) -> Gathered {
    let recorded = match cache {
        Some(cache) => super::cache::recorded(cache, ctx.repo_id, supported),
        None => vec![None; supported.len()],
    };
    // The previous snapshot is asked only for the files the cache does not record.
    let uncached: Vec<FileRow> = supported
        .iter()
        .zip(&recorded)
        .filter(|(_, r)| r.is_none())
        .map(|((f, _), _)| (*f).clone())
        .collect();
    let (plan, plan_warning) = match previous
        .filter(|_| !uncached.is_empty())
        .map(|p| plan(p, ctx.repo_id, fingerprint, &uncached))
    {
        None | Some(Ok(None)) => (None, None),
        Some(Ok(Some(plan))) => (Some(plan), None),
        Some(Err(warning)) => (None, Some(warning)),
    };
    drop(uncached);
    let candidate: Vec<bool> = supported
        .iter()
        .zip(&recorded)
        .map(|((f, _), r)| {
            r.is_none()
                && plan
                    .as_ref()
                    .is_some_and(|p| p.candidates.contains_key(&f.path))
        })
        .collect();
    let (mut cached, (reuse, mut parsed)) = rayon::join(
        || match cache {
            Some(cache) => super::cache::lookup(cache, supported, &recorded),
            None => (0..supported.len()).map(|_| None).collect(),
        },
        || {
            rayon::join(
                || plan.map(Plan::load).unwrap_or_default(),
                || {
                    parse_where(ctx, supported, config, |i| {
                        recorded[i].is_none() && !candidate[i]
                    })
                },
            )
        },
    );
    let Reuse {
        files: mut reused,
        symbols: reused_symbols,
        occurrences: reused_occurrences,
        imports: reused_imports,
        warning: load_warning,
    } = reuse;
    let reuse_warning = plan_warning.or(load_warning);
    // Candidates the previous snapshot could not supply after all (unreadable, or merged with
    // another backend), and recorded blobs found damaged.
    let mut late = parse_where(ctx, supported, config, |i| {
        (candidate[i] && !reused.contains_key(&supported[i].0.path))
            || (recorded[i].is_some() && cached[i].is_none())
    });
    let mut results: Vec<FileResult> = Vec::with_capacity(supported.len());
    for (i, (file, lang)) in supported.iter().enumerate() {
        let r = match (cached[i].take(), parsed[i].take(), late[i].take()) {
            (Some(r), _, _) | (None, Some(r), _) | (None, None, Some(r)) => {
                if r.origin == Origin::Cache {
                    ctx.progress.advance(1);
                }
                r
            }
            (None, None, None) => match reused.remove(&file.path) {
                Some(status) => {
                    ctx.progress.advance(1);
                    FileResult::reused(status)
                }
                // Not reachable (a candidate is either reused or parsed late); parse it rather
                // than lose it.
                None => with_worker(|worker| parse_one(worker, ctx, file, *lang, config)),
            },
        };
        results.push(r);
    }
    Gathered {
        results,
        reused_symbols,
        reused_occurrences,
        reused_imports,
        reuse_warning,
    }
}
