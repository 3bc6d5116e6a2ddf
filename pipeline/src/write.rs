//! Write stage: encode every produced table and view into a snapshot folder, and describe them in
//! the manifest. Tables are encoded in parallel; their manifest entries keep `ALL_TABLES` order.

use std::collections::BTreeMap;
use std::path::Path;

use output_schema::manifest::{compress_json, file_hash, FileEntry};
use output_schema::parquet_io::{write_file_synced, write_table};
use output_schema::tables::*;
use output_schema::{json, layout, FormatError, ALL_TABLES};
use rayon::prelude::*;

use crate::PipelineError;

/// Every table a snapshot may hold; `None` means the producing stages did not run and the table is
/// not written (the manifest says why), `Some(vec![])` is a real, empty table.
#[derive(Debug, Default)]
pub struct TableSet {
    /// `files`
    pub files: Option<Vec<FileRow>>,
    /// `symbols`
    pub symbols: Option<Vec<SymbolRow>>,
    /// `occurrences`
    pub occurrences: Option<Vec<OccurrenceRow>>,
    /// `call_edges`
    pub call_edges: Option<Vec<CallEdgeRow>>,
    /// `relationships`
    pub relationships: Option<Vec<RelationshipRow>>,
    /// `imports`
    pub imports: Option<Vec<ImportRow>>,
    /// `modules`
    pub modules: Option<Vec<ModuleRow>>,
    /// `module_edges`
    pub module_edges: Option<Vec<ModuleEdgeRow>>,
    /// `aliases`
    pub aliases: Option<Vec<AliasRow>>,
    /// `tombstones`
    pub tombstones: Option<Vec<TombstoneRow>>,
    /// `commits`
    pub commits: Option<Vec<CommitRow>>,
    /// `file_changes`
    pub file_changes: Option<Vec<FileChangeRow>>,
    /// `churn`
    pub churn: Option<Vec<ChurnRow>>,
    /// `cochange`
    pub cochange: Option<Vec<CochangeRow>>,
    /// `ownership`
    pub ownership: Option<Vec<OwnershipRow>>,
}

type Job<'a> = Box<dyn FnOnce() -> Result<FileEntry, FormatError> + Send + 'a>;

fn job<'a, T: output_schema::Table>(dir: &'a Path, rows: &'a mut Option<Vec<T>>) -> Option<Job<'a>> {
    rows.as_mut()
        .map(|rows| Box::new(move || write_table(dir, rows)) as Job<'a>)
}

/// Writes every present table into `dir` (rows get sorted in place) and returns their manifest
/// entries in `ALL_TABLES` order.
pub fn write_tables(dir: &Path, tables: &mut TableSet) -> Result<Vec<FileEntry>, PipelineError> {
    let jobs: Vec<Job<'_>> = [
        job(dir, &mut tables.files),
        job(dir, &mut tables.symbols),
        job(dir, &mut tables.occurrences),
        job(dir, &mut tables.call_edges),
        job(dir, &mut tables.relationships),
        job(dir, &mut tables.imports),
        job(dir, &mut tables.modules),
        job(dir, &mut tables.module_edges),
        job(dir, &mut tables.aliases),
        job(dir, &mut tables.tombstones),
        job(dir, &mut tables.commits),
        job(dir, &mut tables.file_changes),
        job(dir, &mut tables.churn),
        job(dir, &mut tables.cochange),
        job(dir, &mut tables.ownership),
    ]
    .into_iter()
    .flatten()
    .collect();
    let mut entries = jobs
        .into_par_iter()
        .map(|j| j())
        .collect::<Result<Vec<_>, _>>()?;
    let order = |name: &str| ALL_TABLES.iter().position(|t| t.name == name);
    entries.sort_by_key(|e| order(&e.name));
    Ok(entries)
}

/// Writes each view as canonical, zstd-compressed JSON under `views/`, sorted by name.
pub fn write_views(
    dir: &Path,
    views: &BTreeMap<String, serde_json::Value>,
) -> Result<Vec<FileEntry>, PipelineError> {
    let mut entries = Vec::new();
    for (name, value) in views {
        let bytes = compress_json(&json::value_to_string(value, false))?;
        let file = layout::view_file(name);
        write_file_synced(&dir.join(&file), &bytes)?;
        entries.push(FileEntry {
            name: name.clone(),
            file,
            rows: 0,
            bytes: bytes.len() as i64,
            hash: file_hash(&bytes),
        });
    }
    Ok(entries)
}
