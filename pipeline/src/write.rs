//! Write stage: encode every produced table and view into a snapshot folder, and describe them in
//! the manifest. Tables are encoded in parallel; their manifest entries keep `ALL_TABLES` order.

use std::path::Path;

use output_schema::manifest::{compress_json, file_hash, FileEntry};
use output_schema::parquet_io::{encode_sorted_with, write_encoded_to, write_jsonl_to, Syncs};
use output_schema::row_groups::GroupCache;
use output_schema::table::SortedRows;
use output_schema::tables::*;
use output_schema::views::Views;
use output_schema::{layout, FormatError, ALL_TABLES};
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
    /// `usage`
    pub usage: Option<Vec<UsageRow>>,
}

/// Parquet bytes of tables encoded before the write, while later steps still ran: rows that no
/// step after the merge changes (see the driver). `None`: encoded by the write, as every other
/// table.
#[derive(Debug, Default)]
pub struct EncodedAhead {
    /// `occurrences`.
    pub occurrences: Option<Result<Vec<u8>, FormatError>>,
    /// `call_edges`.
    pub call_edges: Option<Result<Vec<u8>, FormatError>>,
    /// `relationships`.
    pub relationships: Option<Result<Vec<u8>, FormatError>>,
}

impl EncodedAhead {
    /// Encodes each table's rows, side by side, copying the row groups `cache` holds.
    pub fn encode(
        occurrences: Option<SortedRows<'_, OccurrenceRow>>,
        call_edges: Option<SortedRows<'_, CallEdgeRow>>,
        relationships: Option<SortedRows<'_, RelationshipRow>>,
        cache: Option<&dyn GroupCache>,
    ) -> EncodedAhead {
        let (occurrences, (call_edges, relationships)) = rayon::join(
            || occurrences.map(|rows| encode_sorted_with(rows, cache)),
            || {
                rayon::join(
                    || call_edges.map(|rows| encode_sorted_with(rows, cache)),
                    || relationships.map(|rows| encode_sorted_with(rows, cache)),
                )
            },
        );
        EncodedAhead {
            occurrences,
            call_edges,
            relationships,
        }
    }
}

/// Manifest entries of one written table: its Parquet file and, when asked, its JSON Lines export.
type Written = (FileEntry, Option<FileEntry>);
type Job<'a> = Box<dyn FnOnce() -> Result<Written, FormatError> + Send + 'a>;

/// A table's write job and a guess at its cost (cells to encode; none when `encoded` already
/// holds its bytes), to start the largest first.
fn job<'a, T: output_schema::Table>(
    (syncs, dir, cache): Target<'a>,
    rows: &'a mut Option<Vec<T>>,
    encoded: Option<Result<Vec<u8>, FormatError>>,
    json_lines: bool,
) -> Option<(usize, Job<'a>)> {
    rows.as_mut().map(|rows| {
        let cells = match encoded {
            Some(_) => 0,
            None => rows.len() * T::INFO.columns.len(),
        };
        let job = Box::new(move || {
            // Rows are sorted in place (or were, before they were encoded ahead), so the JSON
            // Lines follow the same order.
            let bytes = match encoded {
                Some(bytes) => bytes?,
                None => encode_sorted_with(SortedRows::sort(rows), cache)?,
            };
            let parquet = write_encoded_to(syncs, dir, rows, &bytes)?;
            let jsonl = if json_lines {
                Some(write_jsonl_to(syncs, dir, rows)?)
            } else {
                None
            };
            Ok((parquet, jsonl))
        }) as Job<'a>;
        (cells, job)
    })
}

/// Where a table's job writes: the flushes, the folder, and the row groups it may copy.
type Target<'a> = (&'a Syncs, &'a Path, Option<&'a dyn GroupCache>);

/// Writes every present table into `dir` (rows get sorted in place), copying the row groups
/// `cache` holds, and returns the manifest entries of the Parquet files and of the JSON Lines
/// exports (when `json_lines`), in `ALL_TABLES` order. The files are on disk once `syncs` has
/// been waited for.
pub fn write_tables(
    (syncs, dir, cache): Target<'_>,
    tables: &mut TableSet,
    encoded: EncodedAhead,
    json_lines: bool,
) -> Result<(Vec<FileEntry>, Vec<FileEntry>), PipelineError> {
    let (j, to) = (json_lines, (syncs, dir, cache));
    // Test hook (tests/store_faults.rs): a stage defect that makes one definition twice, which
    // the encoder must refuse.
    if output_schema::failpoint::flag("repeat-symbol") {
        if let Some(symbols) = tables.symbols.as_mut() {
            symbols.extend(symbols.first().cloned());
        }
    }
    let mut jobs: Vec<(usize, Job<'_>)> = [
        job(to, &mut tables.files, None, j),
        job(to, &mut tables.symbols, None, j),
        job(to, &mut tables.occurrences, encoded.occurrences, j),
        job(to, &mut tables.call_edges, encoded.call_edges, j),
        job(to, &mut tables.relationships, encoded.relationships, j),
        job(to, &mut tables.imports, None, j),
        job(to, &mut tables.modules, None, j),
        job(to, &mut tables.module_edges, None, j),
        job(to, &mut tables.aliases, None, j),
        job(to, &mut tables.tombstones, None, j),
        job(to, &mut tables.commits, None, j),
        job(to, &mut tables.file_changes, None, j),
        job(to, &mut tables.churn, None, j),
        job(to, &mut tables.cochange, None, j),
        job(to, &mut tables.ownership, None, j),
        job(to, &mut tables.usage, None, j),
    ]
    .into_iter()
    .flatten()
    .collect();
    // Largest first, one table per task (otherwise rayon may hand one thread two large tables in
    // a row while the other finishes the small ones and waits): the threads finish together.
    // Each table's columns are encoded in parallel too, so the order only evens out the tail.
    jobs.sort_by_key(|(cells, _)| std::cmp::Reverse(*cells));
    let written = jobs
        .into_par_iter()
        .with_max_len(1)
        .map(|(_, j)| j())
        .collect::<Result<Vec<_>, _>>()?;
    let order = |name: &str| ALL_TABLES.iter().position(|t| t.name == name);
    let (mut parquet, jsonl): (Vec<FileEntry>, Vec<Option<FileEntry>>) =
        written.into_iter().unzip();
    let mut jsonl: Vec<FileEntry> = jsonl.into_iter().flatten().collect();
    parquet.sort_by_key(|e| order(&e.name));
    jsonl.sort_by_key(|e| order(&e.name));
    Ok((parquet, jsonl))
}

/// Writes each view from its typed struct as canonical, zstd-compressed JSON under `views/`,
/// sorted by name. The files are on disk once `syncs` has been waited for.
pub fn write_views(
    syncs: &Syncs,
    dir: &Path,
    views: &Views,
) -> Result<Vec<FileEntry>, PipelineError> {
    let mut entries = Vec::new();
    for (name, text) in views.encoded() {
        let bytes = compress_json(&text)?;
        let file = layout::view_file(name);
        syncs.write(&dir.join(&file), &bytes)?;
        entries.push(FileEntry {
            name: name.to_string(),
            file,
            rows: 0,
            bytes: bytes.len() as i64,
            hash: file_hash(&bytes),
        });
    }
    Ok(entries)
}
