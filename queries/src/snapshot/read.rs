//! Reading only what a query needs from a snapshot's Parquet files.
//!
//! The hot commands (`symbol`, `search`, `refs`) must answer in a few milliseconds on snapshots
//! with hundreds of thousands of rows, so they never decode a whole table: a [`Pred`] on one
//! string column is checked first against each row group's min/max statistics (tables are sorted
//! — `symbols` by `stable_id`, `occurrences` by `path` — so a lookup by key touches one row
//! group), then evaluated on that column alone, and the other columns are decoded only for the
//! rows that match (see `read_selected`), each column once. String columns the file stores with
//! a dictionary are read in dictionary form, so a predicate tests each distinct value once and
//! a dropped row's string is never copied. [`read_columns`] reads a projection — of whole
//! columns for the aggregate commands (reference counts, call graph), or of the rows a predicate
//! keeps — so a command leaves the columns it does not show compressed.
//!
//! Every failure to read a table the manifest lists is `SNAPSHOT_CORRUPT` naming the table.
//!
//! A snapshot with a [`crate::snapshot::cache::TableCache`] (`ckb mcp`) is read differently: each
//! table is decoded once, whole, and every read filters and projects the decoded batches in
//! memory with the same predicates, giving the same rows in the same order.

use std::collections::BTreeSet;
use std::sync::Arc;

use arrow::array::{
    new_empty_array, new_null_array, Array, ArrayRef, BooleanArray, Float64Array, Int32Array,
    Int64Array, ListArray, RecordBatch, StringArray,
};
use arrow::buffer::OffsetBuffer;
use arrow::compute::filter_record_batch;
use arrow::datatypes::{DataType, Field, Schema};
use arrow::error::ArrowError;
use output_schema::{Column, ErrorCode, Table};

pub use super::passes::{column_mask, string_values, Choose};
use super::passes::{
    matches_of, matching, open, read_selected, whole_columns, RowCondition, Strings,
};
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
    pub(crate) fn may_match(&self, min: &[u8], max: &[u8]) -> bool {
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

pub(crate) fn corrupt(table: &str, e: impl std::fmt::Display) -> QueryError {
    QueryError::new(
        ErrorCode::SnapshotCorrupt,
        format!("table {table} cannot be read: {e}"),
        format!(
            "run `ckb verify <snapshot>` to check every file, then rebuild the snapshot with `ckb snapshot --force` ({table}.parquet is damaged or missing)"
        ),
    )
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
    let Some(opened) = open(snapshot, table)? else {
        return Ok(Some(None));
    };
    let all = opened.all_roots();
    Ok(Some(Some(cache.put(table, whole_columns(&opened, &all)?))))
}

/// The rows of cached batches a mask keeps (computed on the whole batch), with only `columns`
/// (all when `None`).
fn filter_cached(
    table: &str,
    batches: &[RecordBatch],
    choose: &Choose<'_>,
    columns: Option<&[&str]>,
) -> Result<Vec<RecordBatch>, QueryError> {
    let masks = choose(batches).map_err(|e| corrupt(table, e))?;
    if masks.len() != batches.len() {
        return Err(corrupt(table, "the rows of a row group cannot be selected"));
    }
    let mut out = Vec::with_capacity(batches.len());
    for (batch, keep) in batches.iter().zip(&masks) {
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
        out.push(filter_record_batch(&batch, keep).map_err(|e| corrupt(table, e))?);
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
            let choose = matches_of(column, pred);
            return rows_of(&filter_cached(table, &batches, &choose, None)?).map(Some);
        }
        let Some(opened) = open(snapshot, table)? else {
            return Ok(None);
        };
        let (groups, root) = matching(&opened, column, pred)?;
        let choose = matches_of(column, pred);
        let condition = RowCondition {
            roots: vec![root],
            choose: &choose,
        };
        let batches = read_selected(&opened, &groups, &condition, &opened.all_roots())?;
        rows_of(&batches).map(Some)
    })
}

/// Rows of a table whose string `column` matches `pred`, in stored order, with only `columns`
/// decoded: every other field holds its type's empty value ("", 0, false, no items, none) and is
/// never to be shown. For a command that shows a few fields of its rows: the columns it leaves
/// out stay compressed. `Ok(None)` when the table was not written.
pub fn partial_rows_where<T: Table>(
    snapshot: &Snapshot,
    (column, pred): (&str, &Pred),
    columns: &[&str],
) -> Result<Option<Vec<T>>, QueryError> {
    let found = read_columns(snapshot, T::INFO.name, columns, Some((column, pred)))?;
    found.map(|f| partial_rows(&f)).transpose()
}

/// [`partial_rows_where`] for the rows `choose` keeps, deciding on the `condition` columns of
/// every row ([`read_columns_chosen`]).
pub fn partial_rows_chosen<T: Table>(
    snapshot: &Snapshot,
    condition: (&[&str], &Choose<'_>),
    columns: &[&str],
) -> Result<Option<Vec<T>>, QueryError> {
    let found = read_columns_chosen(snapshot, T::INFO.name, columns, condition)?;
    found.map(|f| partial_rows(&f)).transpose()
}

/// Rows of a read of some columns, each other field empty.
fn partial_rows<T: Table>(found: &Columns) -> Result<Vec<T>, QueryError> {
    let table = T::INFO.name;
    let declared = (T::INFO.schema)();
    let mut rows = Vec::with_capacity(found.len());
    for batch in &found.batches {
        let n = batch.num_rows();
        let (mut fields, mut arrays) = (Vec::new(), Vec::new());
        for f in declared.fields() {
            let array = match batch.column_by_name(f.name()) {
                Some(a) => a.clone(),
                None => empty_values(f, n).ok_or_else(|| {
                    corrupt(table, format!("column {} cannot be left out", f.name()))
                })?,
            };
            // Nullable here: the row decoder checks the nulls each field may hold.
            fields.push(Field::new(f.name(), array.data_type().clone(), true));
            arrays.push(array);
        }
        let whole = RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)
            .map_err(|e| corrupt(table, e))?;
        rows.extend(T::from_batch(&whole).map_err(|e| corrupt(table, e))?);
    }
    Ok(rows)
}

/// `n` empty values of a column left out of a read: nulls where the column may hold them, else
/// "", 0, false or an empty list. `None` for a type no table has.
fn empty_values(field: &Field, n: usize) -> Option<ArrayRef> {
    if field.is_nullable() {
        return Some(new_null_array(field.data_type(), n));
    }
    Some(match field.data_type() {
        DataType::Utf8 => Arc::new(StringArray::from_iter_values(std::iter::repeat_n("", n))),
        DataType::Int32 => Arc::new(Int32Array::from(vec![0; n])),
        DataType::Int64 => Arc::new(Int64Array::from(vec![0; n])),
        DataType::Float64 => Arc::new(Float64Array::from(vec![0.0; n])),
        DataType::Boolean => Arc::new(BooleanArray::from(vec![false; n])),
        DataType::List(item) => Arc::new(ListArray::new(
            item.clone(),
            OffsetBuffer::new_zeroed(n),
            new_empty_array(item.data_type()),
            None,
        )),
        _ => return None,
    })
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
    let choose = |batches: &[RecordBatch]| {
        batches
            .iter()
            .map(|b| or_unset_mask(b, (key, pred), (fallback, fallback_pred)))
            .collect()
    };
    if let Some(cached) = from_cache(snapshot, table)? {
        let Some(batches) = cached else {
            return Ok(None);
        };
        return rows_of(&filter_cached(table, &batches, &choose, None)?).map(Some);
    }
    let Some(opened) = open(snapshot, table)? else {
        return Ok(None);
    };
    let condition = RowCondition {
        roots: vec![opened.root(key)?, opened.root(fallback)?],
        choose: &choose,
    };
    let groups: Vec<usize> = (0..opened.parquet().num_row_groups()).collect();
    let batches = read_selected(&opened, &groups, &condition, &opened.all_roots())?;
    rows_of(&batches).map(Some)
}

/// The rows whose `key` matches, or whose `key` is null and whose `fallback` matches.
fn or_unset_mask(
    batch: &RecordBatch,
    (key, pred): (&str, &Pred),
    (fallback, fallback_pred): (&str, &Pred),
) -> Result<BooleanArray, ArrowError> {
    let keys = Strings::of(batch, key)?.test(pred);
    let fallbacks = Strings::of(batch, fallback)?.test(fallback_pred);
    Ok(keys
        .into_iter()
        .zip(fallbacks)
        .map(|(k, f)| Some(k.unwrap_or(f == Some(true))))
        .collect())
}

/// Whole columns of a table (optionally only rows whose `filter` column matches), as batches
/// holding the named columns; `Ok(None)` when the table was not written.
pub fn read_columns(
    snapshot: &Snapshot,
    table: &str,
    columns: &[&str],
    filter: Option<(&str, &Pred)>,
) -> Result<Option<Columns>, QueryError> {
    let filter = filter.map(|(column, pred)| Filter::Matches(column, pred));
    contained(table, || read_filtered(snapshot, table, columns, filter))
}

/// The named columns of the rows `choose` keeps, deciding on the `condition` columns of every
/// row (see [`Choose`]); `Ok(None)` when the table was not written. For a condition on several
/// columns, or one that depends on other rows.
pub fn read_columns_chosen(
    snapshot: &Snapshot,
    table: &str,
    columns: &[&str],
    (condition, choose): (&[&str], &Choose<'_>),
) -> Result<Option<Columns>, QueryError> {
    let filter = Some(Filter::Chosen(condition, choose));
    contained(table, || read_filtered(snapshot, table, columns, filter))
}

/// The rows a read keeps.
#[derive(Clone, Copy)]
enum Filter<'a> {
    /// Those whose string column matches (row groups pruned by the column's statistics).
    Matches(&'a str, &'a Pred),
    /// Those a [`Choose`] keeps, deciding on the named columns.
    Chosen(&'a [&'a str], &'a Choose<'a>),
}

fn read_filtered(
    snapshot: &Snapshot,
    table: &str,
    columns: &[&str],
    filter: Option<Filter<'_>>,
) -> Result<Option<Columns>, QueryError> {
    if let Some(cached) = from_cache(snapshot, table)? {
        let Some(batches) = cached else {
            return Ok(None);
        };
        let all = |batches: &[RecordBatch]| -> Result<Vec<BooleanArray>, ArrowError> {
            Ok(batches
                .iter()
                .map(|b| BooleanArray::from(vec![true; b.num_rows()]))
                .collect())
        };
        let batches = match filter {
            None => filter_cached(table, &batches, &all, Some(columns))?,
            Some(Filter::Matches(column, pred)) => {
                filter_cached(table, &batches, &matches_of(column, pred), Some(columns))?
            }
            Some(Filter::Chosen(_, choose)) => {
                filter_cached(table, &batches, choose, Some(columns))?
            }
        };
        return Ok(Some(Columns {
            table: table.to_string(),
            batches,
        }));
    }
    let Some(opened) = open(snapshot, table)? else {
        return Ok(None);
    };
    let roots_of = |names: &[&str]| {
        Ok(names
            .iter()
            .map(|c| opened.root(c))
            .collect::<Result<BTreeSet<usize>, QueryError>>()?
            .into_iter()
            .collect::<Vec<usize>>())
    };
    let roots = roots_of(columns)?;
    let batches = match filter {
        None => whole_columns(&opened, &roots)?,
        Some(Filter::Matches(column, pred)) => {
            let (groups, root) = matching(&opened, column, pred)?;
            let choose = matches_of(column, pred);
            let condition = RowCondition {
                roots: vec![root],
                choose: &choose,
            };
            read_selected(&opened, &groups, &condition, &roots)?
        }
        Some(Filter::Chosen(condition, choose)) => {
            let groups: Vec<usize> = (0..opened.parquet().num_row_groups()).collect();
            let condition = RowCondition {
                roots: roots_of(condition)?,
                choose,
            };
            read_selected(&opened, &groups, &condition, &roots)?
        }
    };
    Ok(Some(Columns {
        table: table.to_string(),
        batches,
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

    /// Whether the read holds a column (a read without rows holds none).
    pub fn has(&self, name: &str) -> bool {
        self.batches
            .first()
            .is_some_and(|b| b.column_by_name(name).is_some())
    }

    /// [`Columns::get`] when the read holds the column, else the type's default for every row.
    pub fn get_or_default<C: Column + Default + Clone>(
        &self,
        name: &str,
    ) -> Result<Vec<C>, QueryError> {
        match self.has(name) {
            true => self.get(name),
            false => Ok(vec![C::default(); self.len()]),
        }
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

    /// Three rows of `T` with every column left out of the read.
    fn all_left_out<T: Table>() -> Vec<T> {
        let declared = (T::INFO.schema)();
        let (mut fields, mut arrays) = (Vec::new(), Vec::new());
        for f in declared.fields() {
            let array = empty_values(f, 3).unwrap_or_else(|| panic!("{} {}", T::INFO.name, f));
            fields.push(Field::new(f.name(), array.data_type().clone(), true));
            arrays.push(array);
        }
        let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).unwrap();
        T::from_batch(&batch).unwrap()
    }

    /// Any column of the tables read in part can be left out: its empty values decode.
    #[test]
    fn columns_left_out_of_a_read_decode_as_empty_values() {
        use output_schema::tables::{FileRow, OccurrenceRow, SymbolRow};
        let symbols = all_left_out::<SymbolRow>();
        assert_eq!(symbols.len(), 3);
        assert_eq!((symbols[0].name.as_str(), symbols[0].start_line), ("", 0));
        assert_eq!(symbols[0].container, None);
        let sites = all_left_out::<OccurrenceRow>();
        assert_eq!((sites[2].line, sites[2].roles), (0, Default::default()));
        let files = all_left_out::<FileRow>();
        assert_eq!((files[1].is_test, files[1].line_count), (false, 0));
    }

    #[test]
    fn case_insensitive_contains() {
        assert!(contains_ci("ParseConfig", "config"));
        assert!(contains_ci("ÄRGER", "är"));
        assert!(!contains_ci("parse", "parser"));
        assert!(contains_ci("x", ""));
    }

    #[test]
    fn paths_below() {
        for (path, folder, below) in [
            ("src/a.rs", "src", true),
            ("src", "src/", true),
            ("srcx/a.rs", "src", false),
            ("a.rs", ".", true),
        ] {
            assert_eq!(is_path_or_below(path, folder), below, "{path} in {folder}");
        }
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
