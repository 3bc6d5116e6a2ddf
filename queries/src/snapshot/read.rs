//! Reading only what a query needs from a snapshot's Parquet files.
//!
//! The hot commands (`symbol`, `search`, `refs`) must answer in a few milliseconds on snapshots
//! with hundreds of thousands of rows, so they never decode a whole table: a [`Pred`] on one
//! string column is checked first against each row group's min/max statistics (tables are sorted
//! — `symbols` by `stable_id`, `occurrences` by `path` — so a lookup by key touches one row
//! group), then evaluated as a Parquet row filter that decodes only that column, and the other
//! columns are decoded only for the rows that match. [`read_columns`] reads a projection of
//! whole columns for the aggregate commands (reference counts, call graph).
//!
//! Every failure to read a table the manifest lists is `SNAPSHOT_CORRUPT` naming the table.
//!
//! A snapshot with a [`crate::snapshot::cache::TableCache`] (`ckb mcp`) is read differently: each
//! table is decoded once, whole, and every read filters and projects the decoded batches in
//! memory with the same predicates, giving the same rows in the same order.

use std::collections::BTreeSet;
use std::fs::File;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, BooleanArray, RecordBatch, StringArray};
use arrow::compute::filter_record_batch;
use arrow::error::ArrowError;
use output_schema::{Column, ErrorCode, Table};
use parquet::arrow::arrow_reader::{
    ArrowPredicateFn, ArrowReaderOptions, ParquetRecordBatchReaderBuilder, RowFilter,
};
use parquet::arrow::ProjectionMask;
use parquet::file::metadata::ParquetMetaData;

use crate::{QueryError, Snapshot};

/// A condition on one string column.
#[derive(Clone, Debug)]
pub enum Pred {
    /// Equal to the value.
    Eq(String),
    /// Equal to one of the values.
    In(BTreeSet<String>),
    /// Contains the needle, ignoring ASCII and Unicode case (the needle is lowercased here).
    ContainsCi(String),
    /// Equal to the value or starting with `value + "/"` (a path or any path below it).
    PathOrBelow(String),
}

impl Pred {
    /// A case-insensitive substring condition.
    pub fn contains_ci(needle: &str) -> Pred {
        Pred::ContainsCi(needle.to_lowercase())
    }

    /// Whether a value matches.
    pub fn matches(&self, v: &str) -> bool {
        match self {
            Pred::Eq(x) => v == x,
            Pred::In(set) => set.contains(v),
            Pred::ContainsCi(n) => contains_ci(v, n),
            Pred::PathOrBelow(p) => is_path_or_below(v, p),
        }
    }

    /// Whether a row group whose column lies within `[min, max]` may hold a match.
    fn may_match(&self, min: &[u8], max: &[u8]) -> bool {
        let within = |v: &[u8]| min <= v && v <= max;
        match self {
            Pred::Eq(x) => within(x.as_bytes()),
            Pred::In(set) => set.iter().any(|x| within(x.as_bytes())),
            Pred::ContainsCi(_) => true,
            Pred::PathOrBelow(p) => {
                // Every match starts with `p`; matches sort between `p` and `p/\u{10FFFF}`.
                let lo = p.as_bytes();
                let mut hi = format!("{p}/").into_bytes();
                hi.push(0xff);
                !(max < lo || min > hi.as_slice())
            }
        }
    }
}

/// Case-insensitive substring test against an already lowercased needle.
pub fn contains_ci(haystack: &str, lower_needle: &str) -> bool {
    if haystack.is_ascii() && lower_needle.is_ascii() {
        let h = haystack.as_bytes();
        let n = lower_needle.as_bytes();
        if n.is_empty() {
            return true;
        }
        return h
            .windows(n.len())
            .any(|w| w.iter().zip(n).all(|(a, b)| a.to_ascii_lowercase() == *b));
    }
    haystack.to_lowercase().contains(lower_needle)
}

/// Whether `path` is `prefix` itself or lies below it (`prefix` of `.` or empty matches all).
pub fn is_path_or_below(path: &str, prefix: &str) -> bool {
    let prefix = prefix.trim_end_matches('/');
    if prefix.is_empty() || prefix == "." {
        return true;
    }
    path == prefix
        || (path.len() > prefix.len()
            && path.starts_with(prefix)
            && path.as_bytes()[prefix.len()] == b'/')
}

fn corrupt(table: &str, e: impl std::fmt::Display) -> QueryError {
    QueryError::new(
        ErrorCode::SnapshotCorrupt,
        format!("table {table} cannot be read: {e}"),
        format!(
            "run `ckb verify <snapshot>` to check every file, then rebuild the snapshot with `ckb snapshot --force` ({table}.parquet is damaged or missing)"
        ),
    )
}

fn open(
    snapshot: &Snapshot,
    table: &str,
) -> Result<Option<ParquetRecordBatchReaderBuilder<File>>, QueryError> {
    let Some(path) = snapshot.table_path(table) else {
        return Ok(None);
    };
    let file = File::open(&path).map_err(|e| corrupt(table, e))?;
    let probe = file.try_clone().map_err(|e| corrupt(table, e))?;
    let builder =
        ParquetRecordBatchReaderBuilder::try_new_with_options(file, ArrowReaderOptions::new())
            .map_err(|e| corrupt(table, e))?;
    output_schema::parquet_io::check_chunk_ranges(builder.metadata(), &probe)
        .map_err(|e| corrupt(table, e))?;
    Ok(Some(builder))
}

/// Runs a decode of `table` so that a panic of the Parquet decoder on a damaged file is the
/// table's `SNAPSHOT_CORRUPT` error (see `output_schema::contain`), not a crash.
fn contained<R>(
    table: &str,
    decode: impl FnOnce() -> Result<R, QueryError>,
) -> Result<R, QueryError> {
    let mut answer = None;
    output_schema::contain::decoding(table, || {
        answer = Some(decode());
        Ok(())
    })
    .map_err(|e| corrupt(table, e))?;
    answer.unwrap_or_else(|| Err(corrupt(table, "the decoder stopped")))
}

fn leaf_index(metadata: &ParquetMetaData, column: &str) -> Option<usize> {
    metadata
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .position(|c| c.path().parts().first().map(String::as_str) == Some(column))
}

fn row_groups(metadata: &ParquetMetaData, leaf: usize, pred: &Pred) -> Vec<usize> {
    (0..metadata.num_row_groups())
        .filter(|&i| {
            let stats = metadata.row_group(i).column(leaf).statistics();
            match stats.and_then(|s| Some((s.min_bytes_opt()?, s.max_bytes_opt()?))) {
                Some((min, max)) => pred.may_match(min, max),
                // No statistics (or only nulls): the row group has to be read.
                None => true,
            }
        })
        .collect()
}

fn string_mask(array: &ArrayRef, pred: &Pred) -> Result<BooleanArray, ArrowError> {
    let strings = array
        .as_any()
        .downcast_ref::<StringArray>()
        .ok_or_else(|| ArrowError::SchemaError("filter column is not a string column".into()))?;
    Ok(strings
        .iter()
        .map(|v| Some(v.is_some_and(|v| pred.matches(v))))
        .collect())
}

fn filtered_builder(
    builder: ParquetRecordBatchReaderBuilder<File>,
    table: &str,
    column: &str,
    pred: &Pred,
) -> Result<ParquetRecordBatchReaderBuilder<File>, QueryError> {
    let metadata = builder.metadata().clone();
    let leaf = leaf_index(&metadata, column)
        .ok_or_else(|| corrupt(table, format!("column {column} is missing")))?;
    let groups = row_groups(&metadata, leaf, pred);
    let mask = ProjectionMask::leaves(builder.parquet_schema(), [leaf]);
    let owned = pred.clone();
    let predicate = ArrowPredicateFn::new(mask, move |batch: RecordBatch| {
        string_mask(batch.column(0), &owned)
    });
    Ok(builder
        .with_row_groups(groups)
        .with_row_filter(RowFilter::new(vec![Box::new(predicate)])))
}

/// The whole decoded table from the snapshot's cache, decoded and kept first when it is not
/// there yet: `None` when the snapshot has no cache, `Some(None)` when the table was not written.
type Cached = Option<Option<Arc<Vec<RecordBatch>>>>;

fn from_cache(snapshot: &Snapshot, table: &str) -> Result<Cached, QueryError> {
    let Some(cache) = &snapshot.cache else {
        return Ok(None);
    };
    if let Some(batches) = cache.get(table) {
        return Ok(Some(Some(batches)));
    }
    let Some(builder) = open(snapshot, table)? else {
        return Ok(Some(None));
    };
    Ok(Some(Some(cache.put(table, batches_of(builder, table)?))))
}

/// Every batch a reader yields, in stored order.
fn batches_of(
    builder: ParquetRecordBatchReaderBuilder<File>,
    table: &str,
) -> Result<Vec<RecordBatch>, QueryError> {
    let reader = builder
        .with_batch_size(65_536)
        .build()
        .map_err(|e| corrupt(table, e))?;
    let mut batches = Vec::new();
    for batch in reader {
        batches.push(batch.map_err(|e| corrupt(table, e))?);
    }
    Ok(batches)
}

/// The rows of cached batches a mask keeps (computed on the whole batch), with only `columns`
/// (all when `None`).
fn filter_cached(
    table: &str,
    batches: &[RecordBatch],
    mask: &dyn Fn(&RecordBatch) -> Result<BooleanArray, ArrowError>,
    columns: Option<&[&str]>,
) -> Result<Vec<RecordBatch>, QueryError> {
    let mut out = Vec::with_capacity(batches.len());
    for batch in batches {
        let keep = mask(batch).map_err(|e| corrupt(table, e))?;
        let batch = match columns {
            None => batch.clone(),
            Some(names) => {
                let indexes = names
                    .iter()
                    .map(|n| {
                        batch
                            .schema()
                            .index_of(n)
                            .map_err(|_| corrupt(table, format!("column {n} is missing")))
                    })
                    .collect::<Result<Vec<usize>, QueryError>>()?;
                batch.project(&indexes).map_err(|e| corrupt(table, e))?
            }
        };
        out.push(filter_record_batch(&batch, &keep).map_err(|e| corrupt(table, e))?);
    }
    Ok(out)
}

/// Decodes cached batches as rows.
fn rows_of<T: Table>(batches: &[RecordBatch]) -> Result<Vec<T>, QueryError> {
    let mut rows = Vec::new();
    for batch in batches {
        rows.extend(T::from_batch(batch).map_err(|e| corrupt(T::INFO.name, e))?);
    }
    Ok(rows)
}

/// Rows of a table whose string `column` matches `pred`, decoded in full; `Ok(None)` when the
/// table was not written. Rows come back in the table's stored order.
pub fn rows_where<T: Table>(
    snapshot: &Snapshot,
    column: &str,
    pred: &Pred,
) -> Result<Option<Vec<T>>, QueryError> {
    let table = T::INFO.name;
    contained(table, || {
        if let Some(cached) = from_cache(snapshot, table)? {
            let Some(batches) = cached else {
                return Ok(None);
            };
            let mask = |b: &RecordBatch| column_mask(b, column, pred);
            return rows_of(&filter_cached(table, &batches, &mask, None)?).map(Some);
        }
        let Some(builder) = open(snapshot, table)? else {
            return Ok(None);
        };
        collect_rows(filtered_builder(builder, table, column, pred)?).map(Some)
    })
}

/// The rows of a batch whose string `column` matches `pred`.
fn column_mask(batch: &RecordBatch, column: &str, pred: &Pred) -> Result<BooleanArray, ArrowError> {
    let array = batch
        .column_by_name(column)
        .ok_or_else(|| ArrowError::SchemaError(format!("column {column} is missing")))?;
    string_mask(array, pred)
}

/// Decodes every row a (filtered) reader yields, in stored order.
fn collect_rows<T: Table>(
    builder: ParquetRecordBatchReaderBuilder<File>,
) -> Result<Vec<T>, QueryError> {
    let table = T::INFO.name;
    let reader = builder
        .with_batch_size(8192)
        .build()
        .map_err(|e| corrupt(table, e))?;
    let mut rows = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| corrupt(table, e))?;
        rows.extend(T::from_batch(&batch).map_err(|e| corrupt(table, e))?);
    }
    Ok(rows)
}

/// Rows whose `key` column matches `pred`, together with the rows whose `key` is null and whose
/// `fallback` column matches `fallback_pred` — in one pass: both filter columns are decoded once
/// and the other columns only for the rows kept. (`refs` of a by-name symbol: its resolved sites
/// and the same-name sites resolution left open.) Rows come back in stored order.
pub fn rows_where_or_unset<T: Table>(
    snapshot: &Snapshot,
    (key, pred): (&str, &Pred),
    (fallback, fallback_pred): (&str, &Pred),
) -> Result<Option<Vec<T>>, QueryError> {
    contained(T::INFO.name, || {
        rows_where_or_unset_contained(snapshot, (key, pred), (fallback, fallback_pred))
    })
}

fn rows_where_or_unset_contained<T: Table>(
    snapshot: &Snapshot,
    (key, pred): (&str, &Pred),
    (fallback, fallback_pred): (&str, &Pred),
) -> Result<Option<Vec<T>>, QueryError> {
    let table = T::INFO.name;
    if let Some(cached) = from_cache(snapshot, table)? {
        let Some(batches) = cached else {
            return Ok(None);
        };
        let mask = |b: &RecordBatch| or_unset_mask(b, (key, pred), (fallback, fallback_pred));
        return rows_of(&filter_cached(table, &batches, &mask, None)?).map(Some);
    }
    let Some(builder) = open(snapshot, table)? else {
        return Ok(None);
    };
    let metadata = builder.metadata().clone();
    let leaf = |c: &str| {
        leaf_index(&metadata, c).ok_or_else(|| corrupt(table, format!("column {c} is missing")))
    };
    let (key_leaf, fallback_leaf) = (leaf(key)?, leaf(fallback)?);
    let mask = ProjectionMask::leaves(builder.parquet_schema(), [key_leaf, fallback_leaf]);
    let (key, fallback) = (key.to_string(), fallback.to_string());
    let (pred, fallback_pred) = (pred.clone(), fallback_pred.clone());
    let predicate = ArrowPredicateFn::new(mask, move |batch: RecordBatch| {
        or_unset_mask(&batch, (&key, &pred), (&fallback, &fallback_pred))
    });
    collect_rows(builder.with_row_filter(RowFilter::new(vec![Box::new(predicate)]))).map(Some)
}

/// The rows whose `key` matches, or whose `key` is null and whose `fallback` matches.
fn or_unset_mask(
    batch: &RecordBatch,
    (key, pred): (&str, &Pred),
    (fallback, fallback_pred): (&str, &Pred),
) -> Result<BooleanArray, ArrowError> {
    let strings = |name: &str| {
        batch
            .column_by_name(name)
            .and_then(|a| a.as_any().downcast_ref::<StringArray>())
            .ok_or_else(|| ArrowError::SchemaError(format!("{name} is not a string column")))
    };
    let (keys, fallbacks) = (strings(key)?, strings(fallback)?);
    Ok(keys
        .iter()
        .zip(fallbacks.iter())
        .map(|(k, f)| {
            Some(match k {
                Some(k) => pred.matches(k),
                None => f.is_some_and(|f| fallback_pred.matches(f)),
            })
        })
        .collect())
}

/// Whole columns of a table (optionally only rows whose `filter` column matches), as batches
/// holding exactly the named columns; `Ok(None)` when the table was not written.
pub fn read_columns(
    snapshot: &Snapshot,
    table: &str,
    columns: &[&str],
    filter: Option<(&str, &Pred)>,
) -> Result<Option<Columns>, QueryError> {
    contained(table, || {
        read_columns_contained(snapshot, table, columns, filter)
    })
}

fn read_columns_contained(
    snapshot: &Snapshot,
    table: &str,
    columns: &[&str],
    filter: Option<(&str, &Pred)>,
) -> Result<Option<Columns>, QueryError> {
    if let Some(cached) = from_cache(snapshot, table)? {
        let Some(batches) = cached else {
            return Ok(None);
        };
        let mask = |b: &RecordBatch| match filter {
            Some((column, pred)) => column_mask(b, column, pred),
            None => Ok(BooleanArray::from(vec![true; b.num_rows()])),
        };
        return Ok(Some(Columns {
            table: table.to_string(),
            batches: filter_cached(table, &batches, &mask, Some(columns))?,
        }));
    }
    let Some(builder) = open(snapshot, table)? else {
        return Ok(None);
    };
    let mask = ProjectionMask::columns(builder.parquet_schema(), columns.iter().copied());
    let builder = match filter {
        Some((column, pred)) => filtered_builder(builder, table, column, pred)?,
        None => builder,
    };
    Ok(Some(Columns {
        table: table.to_string(),
        batches: batches_of(builder.with_projection(mask), table)?,
    }))
}

/// Batches of a projection, decoded column by column with the format's own column codecs.
pub struct Columns {
    table: String,
    batches: Vec<RecordBatch>,
}

impl Columns {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Decodes one column over all batches as the Rust type the table declares for it.
    pub fn get<C: Column>(&self, name: &str) -> Result<Vec<C>, QueryError> {
        let mut out = Vec::with_capacity(self.len());
        for batch in &self.batches {
            let array: &Arc<dyn Array> = batch
                .column_by_name(name)
                .ok_or_else(|| corrupt(&self.table, format!("column {name} is missing")))?;
            out.extend(C::from_array(array.as_ref(), name).map_err(|e| corrupt(&self.table, e))?);
        }
        Ok(out)
    }
}

/// Every row of a table; `Ok(None)` when it was not written (errors name the table).
pub fn all_rows<T: Table>(snapshot: &Snapshot) -> Result<Option<Vec<T>>, QueryError> {
    let table = T::INFO.name;
    if snapshot.cache.is_some() {
        return contained(table, || match from_cache(snapshot, table)? {
            Some(Some(batches)) => rows_of(&batches).map(Some),
            _ => Ok(None),
        });
    }
    match snapshot.table_path(table) {
        None => Ok(None),
        Some(p) => output_schema::parquet_io::read_table::<T>(&p)
            .map(Some)
            .map_err(|e| corrupt(table, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_insensitive_contains() {
        assert!(contains_ci("ParseConfig", "config"));
        assert!(contains_ci("ÄRGER", "är"));
        assert!(!contains_ci("parse", "parser"));
        assert!(contains_ci("x", ""));
    }

    #[test]
    fn paths_below() {
        assert!(is_path_or_below("src/a.rs", "src"));
        assert!(is_path_or_below("src", "src/"));
        assert!(!is_path_or_below("srcx/a.rs", "src"));
        assert!(is_path_or_below("a.rs", "."));
    }

    #[test]
    fn row_group_pruning_by_range() {
        let p = Pred::Eq("m".into());
        assert!(p.may_match(b"a", b"z"));
        assert!(!p.may_match(b"n", b"z"));
        let p = Pred::PathOrBelow("src".into());
        assert!(p.may_match(b"a", b"src/x"));
        assert!(!p.may_match(b"t", b"z"));
        assert!(!p.may_match(b"a", b"sr"));
        assert!(p.may_match(b"src/zzz", b"tests/a"));
    }
}
