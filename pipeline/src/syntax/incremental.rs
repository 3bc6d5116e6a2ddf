//! Reusing a previous snapshot's rows for files that did not change.
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
//! over the full set, since it depends on other files). Call edges are not reused at all; they
//! are rebuilt from the occurrences.
//!
//! The reused rows stay in one flat list per table, in the previous table's order (already the
//! canonical order, so the write's sort has little left to do); rows of a path are kept or dropped
//! by one set lookup per run of equal paths, not one map lookup per row.

use std::collections::{HashMap, HashSet};

use output_schema::manifest::{decompress, StageStatus, Warning};
use output_schema::parquet_io::read_table;
use output_schema::tables::{FileRow, ImportRow, OccurrenceRow, SymbolRow};
use output_schema::Roles;

use super::extract::SOURCE;
use super::{FileStatus, FILES_VIEW};
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

/// Loads what can be reused from `prev` for the current `files`.
pub(crate) fn load(
    prev: &StoredSnapshot,
    repo_id: &str,
    fingerprint: &str,
    files: &[FileRow],
) -> Reuse {
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
    if m.repo_id != repo_id || !stage_ran || !same_extractor || !has_tables {
        return Reuse::default();
    }
    read(prev, files).unwrap_or_else(|message| Reuse {
        warning: Some(Warning {
            code: "previous-unreadable".into(),
            path: None,
            message: format!("previous snapshot not reused, every file parsed: {message}"),
        }),
        ..Reuse::default()
    })
}

fn read(prev: &StoredSnapshot, files: &[FileRow]) -> Result<Reuse, String> {
    let m = &prev.manifest;
    let table_path = |name: &str| {
        m.table(name)
            .map(|e| prev.dir.join(&e.file))
            .ok_or_else(|| format!("no {name} table"))
    };
    let prev_files: Vec<FileRow> =
        read_table(&table_path("files")?).map_err(|e| format!("files: {e}"))?;
    let by_path: HashMap<&str, &FileRow> =
        prev_files.iter().map(|f| (f.path.as_str(), f)).collect();
    let mut candidates: HashSet<&str> = files
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
    if candidates.is_empty() {
        return Ok(Reuse::default());
    }

    let statuses = read_view(prev)?;
    let (symbols_path, occurrences_path, imports_path) = (
        table_path("symbols")?,
        table_path("occurrences")?,
        table_path("imports")?,
    );
    // Decoding is most of the cost of a per-commit run: read the tables side by side.
    let (occurrences, (symbols, imports)) = rayon::join(
        || read_table::<OccurrenceRow>(&occurrences_path).map_err(|e| format!("occurrences: {e}")),
        || {
            rayon::join(
                || read_table::<SymbolRow>(&symbols_path).map_err(|e| format!("symbols: {e}")),
                || read_table::<ImportRow>(&imports_path).map_err(|e| format!("imports: {e}")),
            )
        },
    );
    let (mut occurrences, mut symbols, mut imports) = (occurrences?, symbols?, imports?);

    // A file with rows from another backend was merged by a later stage: parse it again.
    for s in &symbols {
        if s.source != SOURCE {
            candidates.remove(s.path.as_str());
        }
    }
    for o in &occurrences {
        if o.source != SOURCE {
            candidates.remove(o.path.as_str());
        }
    }
    let mut reused: HashMap<String, FileStatus> = HashMap::new();
    // Filling a map keyed by path: iteration order cannot reach the output.
    #[allow(clippy::iter_over_hash_type)]
    for path in &candidates {
        let status = match statuses.get(*path) {
            None => FileStatus::Parsed { errors: 0 },
            Some(v) => match FileStatus::from_view_entry(v) {
                Some(s) => s,
                None => continue,
            },
        };
        reused.insert(path.to_string(), status);
    }
    drop(candidates);

    let mut keep = KeepPaths::new(&reused);
    symbols.retain_mut(|s| {
        let k = keep.keeps(&s.path);
        s.module_id = None;
        k
    });
    let mut keep = KeepPaths::new(&reused);
    occurrences.retain_mut(|o| {
        if !o.roles.contains(Roles::DEFINITION) {
            o.symbol_id = None;
        }
        keep.keeps(&o.path)
    });
    let mut keep = KeepPaths::new(&reused);
    imports.retain_mut(|i| {
        i.target = None;
        i.kind = "unknown".into();
        i.method = None;
        i.confidence = 0.0;
        i.from_module = None;
        i.to_module = None;
        keep.keeps(&i.path)
    });
    Ok(Reuse {
        files: reused,
        symbols,
        occurrences,
        imports,
        warning: None,
    })
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
fn read_view(prev: &StoredSnapshot) -> Result<HashMap<String, serde_json::Value>, String> {
    let Some(entry) = prev.manifest.views.iter().find(|v| v.name == FILES_VIEW) else {
        return Err(format!("no {FILES_VIEW} view"));
    };
    let bytes =
        std::fs::read(prev.dir.join(&entry.file)).map_err(|e| format!("{FILES_VIEW}: {e}"))?;
    let text = decompress(&bytes).map_err(|e| format!("{FILES_VIEW}: {e}"))?;
    let value: serde_json::Value =
        serde_json::from_slice(&text).map_err(|e| format!("{FILES_VIEW}: {e}"))?;
    Ok(value
        .get("files")
        .and_then(|f| f.as_object())
        .map(|o| o.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default())
}
