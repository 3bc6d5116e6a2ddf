//! Fact shapes shared by several commands (a symbol in full or in brief) and the file index
//! (path → module, test flag, language, lines) used to group and classify sites.
//!
//! Field names are camelCase; absent values are omitted (the canonical encoder drops nulls).

use std::collections::BTreeMap;

use output_schema::tables::{FileRow, SymbolRow};
use serde_json::{json, Value};

use crate::snapshot::read;
use crate::{QueryError, Snapshot};

/// A symbol with everything the snapshot knows about it.
pub fn symbol_full(s: &SymbolRow) -> Value {
    json!({
        "id": s.stable_id,
        "name": s.name,
        "kind": s.kind,
        "container": s.container,
        "signature": s.signature,
        "arity": s.arity,
        "definitionVersionId": s.definition_version_id,
        "visibility": s.visibility,
        "visibilityConfidence": s.visibility_confidence,
        "visibilitySource": s.visibility_source,
        "module": s.module_id,
        "language": s.language,
        "source": s.source,
        "backendId": s.backend_id,
        "location": {
            "path": s.path,
            "startLine": s.start_line,
            "startCol": s.start_col,
            "endLine": s.end_line,
            "endCol": s.end_col,
        },
    })
}

/// A symbol as an item of a list.
pub fn symbol_brief(s: &SymbolRow) -> Value {
    json!({
        "id": s.stable_id,
        "name": s.name,
        "kind": s.kind,
        "container": s.container,
        "visibility": s.visibility,
        "module": s.module_id,
        "path": s.path,
        "line": s.start_line,
        "source": s.source,
    })
}

/// One file's facts used by queries.
#[derive(Clone, Debug, PartialEq)]
pub struct FileInfo {
    /// Module (from the modules stage), if any.
    pub module: Option<String>,
    /// Whether the file is a test.
    pub is_test: bool,
    /// Whether the file is generated.
    pub is_generated: bool,
    /// Language.
    pub language: Option<String>,
    /// Lines.
    pub lines: i64,
}

/// Files by path.
#[derive(Clone, Debug, Default)]
pub struct FileIndex {
    files: BTreeMap<String, FileInfo>,
}

impl FileIndex {
    /// Reads the `files` table (empty when it was not written).
    pub fn load(snapshot: &Snapshot) -> Result<FileIndex, QueryError> {
        let rows: Vec<FileRow> = read::all_rows(snapshot)?.unwrap_or_default();
        Ok(FileIndex::from_rows(rows))
    }

    /// Reads only the given paths' rows (row groups pruned by path statistics), and of them only
    /// the columns the index keeps (not the sizes and content hashes).
    pub fn load_paths(
        snapshot: &Snapshot,
        paths: &std::collections::BTreeSet<String>,
    ) -> Result<FileIndex, QueryError> {
        if paths.is_empty() {
            return Ok(FileIndex::default());
        }
        let pred = read::Pred::In(paths.clone());
        const COLUMNS: [&str; 6] = [
            "path",
            "module_id",
            "is_test",
            "is_generated",
            "language",
            "line_count",
        ];
        let rows: Vec<FileRow> =
            read::partial_rows_where(snapshot, ("path", &pred), &COLUMNS)?.unwrap_or_default();
        Ok(FileIndex::from_rows(rows))
    }

    /// Builds the index from rows.
    pub fn from_rows(rows: Vec<FileRow>) -> FileIndex {
        FileIndex {
            files: rows
                .into_iter()
                .map(|f| {
                    (
                        f.path,
                        FileInfo {
                            module: f.module_id,
                            is_test: f.is_test,
                            is_generated: f.is_generated,
                            language: f.language,
                            lines: f.line_count,
                        },
                    )
                })
                .collect(),
        }
    }

    /// A file's facts.
    pub fn get(&self, path: &str) -> Option<&FileInfo> {
        self.files.get(path)
    }

    /// Every file, by path.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &FileInfo)> {
        self.files.iter()
    }

    /// Whether a path is a test file (paths unknown to the scan are not).
    pub fn is_test(&self, path: &str) -> bool {
        self.files.get(path).is_some_and(|f| f.is_test)
    }

    /// The module a path belongs to: the modules stage's module, else the path's top-level
    /// folder (`.` for files at the root) so that grouping still works without that stage.
    pub fn module_of(&self, path: &str) -> String {
        match self.files.get(path).and_then(|f| f.module.clone()) {
            Some(m) => m,
            None => fallback_module(path),
        }
    }

    /// Whether any file has a module (the modules stage ran).
    pub fn has_modules(&self) -> bool {
        self.files.values().any(|f| f.module.is_some())
    }
}

/// The grouping key of a path when no module is known: its top-level folder, or `.`.
pub fn fallback_module(path: &str) -> String {
    match path.split_once('/') {
        Some((top, _)) => top.to_string(),
        None => ".".to_string(),
    }
}

/// Whether a path lies in a module: the module's ID is its root folder (`.` is the whole
/// repository).
pub fn in_module(module_of_path: &str, scope: &str) -> bool {
    module_of_path == scope
}
