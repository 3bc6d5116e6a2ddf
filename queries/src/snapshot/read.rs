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
    new_empty_array, new_null_array, Array, ArrayRef, BooleanArray, DictionaryArray, Float64Array,
    Int32Array, Int64Array, ListArray, RecordBatch, StringArray,
};
use arrow::buffer::OffsetBuffer;
use arrow::compute::{concat, concat_batches, filter_record_batch};
use arrow::datatypes::{DataType, Field, Int32Type, Schema};
use arrow::error::ArrowError;
use output_schema::table_file::TableFile;
use output_schema::{Column, ErrorCode, Table};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ParquetRecordBatchReaderBuilder, RowSelection,
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

/// A table file opened for reading: the file and its reader metadata, from which each pass over
/// the file builds its own reader.
struct Opened {
    table: String,
    file: TableFile,
    metadata: ArrowReaderMetadata,
}

fn open(snapshot: &Snapshot, table: &str) -> Result<Option<Opened>, QueryError> {
    let Some(path) = snapshot.table_path(table) else {
        return Ok(None);
    };
    let (file, metadata) =
        output_schema::parquet_io::open_table(&path).map_err(|e| corrupt(table, e))?;
    Ok(Some(Opened {
        table: table.to_string(),
        file,
        metadata,
    }))
}

impl Opened {
    fn builder(&self) -> ParquetRecordBatchReaderBuilder<TableFile> {
        ParquetRecordBatchReaderBuilder::new_with_metadata(self.file.clone(), self.metadata.clone())
    }

    fn parquet(&self) -> &ParquetMetaData {
        self.metadata.metadata()
    }

    /// The index of a top-level column (its Arrow field and Parquet root).
    fn root(&self, column: &str) -> Result<usize, QueryError> {
        self.metadata
            .schema()
            .index_of(column)
            .map_err(|_| self.corrupt(format!("column {column} is missing")))
    }

    fn all_roots(&self) -> Vec<usize> {
        (0..self.metadata.schema().fields().len()).collect()
    }

    /// Whether a top-level column repeats (a list): any leaf below it has a repetition level.
    fn repeats(&self, root: usize) -> bool {
        let schema = self.parquet().file_metadata().schema_descr();
        (0..schema.num_columns()).any(|leaf| {
            schema.get_column_root_idx(leaf) == root && schema.column(leaf).max_rep_level() > 0
        })
    }

    fn corrupt(&self, e: impl std::fmt::Display) -> QueryError {
        corrupt(&self.table, e)
    }

    /// Every batch of `builder`'s reader, in stored order.
    fn batches(
        &self,
        builder: ParquetRecordBatchReaderBuilder<TableFile>,
    ) -> Result<Vec<RecordBatch>, QueryError> {
        let reader = builder.build().map_err(|e| self.corrupt(e))?;
        reader
            .map(|b| b.map_err(|e| self.corrupt(e)))
            .collect::<Result<Vec<_>, _>>()
    }

    /// One column of `batches` (each holding it under `name`) as one array.
    fn column(&self, batches: &[RecordBatch], name: &str) -> Result<ArrayRef, QueryError> {
        let arrays = batches
            .iter()
            .map(|b| {
                b.column_by_name(name)
                    .map(|a| a.as_ref())
                    .ok_or_else(|| self.corrupt(format!("column {name} is missing")))
            })
            .collect::<Result<Vec<&dyn Array>, QueryError>>()?;
        match arrays.as_slice() {
            [one] => Ok(Arc::new(one.slice(0, one.len()))),
            _ => concat(&arrays).map_err(|e| self.corrupt(e)),
        }
    }
}

/// The row groups whose statistics let `column` (leaf `leaf`) match `pred`.
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

/// The values of a batch's string column (plain or in dictionary form), row by row.
pub fn string_values<'a>(
    batch: &'a RecordBatch,
    column: &str,
) -> Result<Vec<Option<&'a str>>, ArrowError> {
    Ok(match Strings::of(batch, column)? {
        Strings::Plain(a) => a.iter().collect(),
        Strings::Dictionary { keys, values } => keys
            .iter()
            .map(|k| {
                let k = usize::try_from(k?).ok()?;
                (k < values.len() && values.is_valid(k)).then(|| values.value(k))
            })
            .collect(),
    })
}

/// A string column of a batch, plain or in dictionary form.
enum Strings<'a> {
    Plain(&'a StringArray),
    Dictionary {
        keys: &'a Int32Array,
        values: &'a StringArray,
    },
}

impl<'a> Strings<'a> {
    fn of(batch: &'a RecordBatch, name: &str) -> Result<Strings<'a>, ArrowError> {
        let array = batch
            .column_by_name(name)
            .ok_or_else(|| ArrowError::SchemaError(format!("column {name} is missing")))?;
        let not_strings = || ArrowError::SchemaError(format!("{name} is not a string column"));
        if let Some(dict) = array.as_any().downcast_ref::<DictionaryArray<Int32Type>>() {
            let values = dict
                .values()
                .as_any()
                .downcast_ref::<StringArray>()
                .ok_or_else(not_strings)?;
            return Ok(Strings::Dictionary {
                keys: dict.keys(),
                values,
            });
        }
        array
            .as_any()
            .downcast_ref::<StringArray>()
            .map(Strings::Plain)
            .ok_or_else(not_strings)
    }

    /// Per row: `Some(matches)` for a value, `None` for a null. A dictionary's values are each
    /// tested once.
    fn test(&self, pred: &Pred) -> Vec<Option<bool>> {
        match self {
            Strings::Plain(a) => a.iter().map(|v| v.map(|v| pred.matches(v))).collect(),
            Strings::Dictionary { keys, values } => {
                let hits: Vec<bool> = values
                    .iter()
                    .map(|v| v.is_some_and(|v| pred.matches(v)))
                    .collect();
                keys.iter()
                    .map(|k| {
                        let k = k?;
                        // A key past the dictionary fails the decoders later; here it matches
                        // nothing.
                        Some(usize::try_from(k).ok().and_then(|k| hits.get(k).copied())?)
                    })
                    .collect()
            }
        }
    }
}

/// The rows of a batch whose string `column` matches `pred`.
pub fn column_mask(
    batch: &RecordBatch,
    column: &str,
    pred: &Pred,
) -> Result<BooleanArray, ArrowError> {
    Ok(Strings::of(batch, column)?
        .test(pred)
        .into_iter()
        .map(|m| Some(m == Some(true)))
        .collect())
}

/// Chooses the rows to keep: given the condition's columns of every row group read (a batch per
/// row group, in file order), a mask per batch. A condition may depend on rows of other row
/// groups (the types the matches of a search name).
pub type Choose<'a> = dyn Fn(&[RecordBatch]) -> Result<Vec<BooleanArray>, ArrowError> + 'a;

/// Which rows to keep, decided on batches that hold (at least) the columns `roots`.
struct RowCondition<'a> {
    roots: Vec<usize>,
    choose: &'a Choose<'a>,
}

/// The rows whose string `column` matches `pred`, batch by batch.
fn matches_of<'a>(
    column: &'a str,
    pred: &'a Pred,
) -> impl Fn(&[RecordBatch]) -> Result<Vec<BooleanArray>, ArrowError> + 'a {
    move |batches: &[RecordBatch]| {
        batches
            .iter()
            .map(|b| column_mask(b, column, pred))
            .collect()
    }
}

/// The rows of the row groups `groups` that `condition` keeps, with the top-level columns
/// `columns` (in file order; one batch per row group that has such rows).
///
/// Each row group is read in up to three passes, each decompressing only its own columns:
/// 1. the condition's columns, every row (a string column in dictionary form tests each distinct
///    value once), for every row group before the condition decides; a row group where nothing
///    is kept is done;
/// 2. the other plain columns, only the rows kept: Parquet skips the others, whole pages at a time
///    where it can, and never turns a dropped row into a value;
/// 3. the other repeated (list) columns, every row, filtered in memory. `parquet` 60 skips rows
///    with `skip_records`, which loops for ever on a repeated column whose level data ends before
///    its page says it does (its reading path refuses such a page, its skipping path does not;
///    found by fuzzing, `fuzz/regressions/table_parquet/rle-rows-beyond-the-file`), so rows of
///    a repeated column are never skipped. A file's schema is the file's say, so the check is on
///    the file, not on the table ckb declares.
///
/// The condition's columns are decoded once: the kept rows of pass 1 are the answer's values.
fn read_selected(
    opened: &Opened,
    groups: &[usize],
    condition: &RowCondition<'_>,
    columns: &[usize],
) -> Result<Vec<RecordBatch>, QueryError> {
    let schema_descr = opened.parquet().file_metadata().schema_descr_ptr();
    let (mut plain, mut repeated) = (Vec::new(), Vec::new());
    for &c in columns.iter().filter(|c| !condition.roots.contains(c)) {
        match opened.repeats(c) {
            true => repeated.push(c),
            false => plain.push(c),
        }
    }
    let disagree =
        |g: usize| opened.corrupt(format!("the columns of row group {g} disagree on its rows"));
    // One batch of the columns `projection` of row group `g`, the rows `selection` keeps (all
    // without one): `rows` of them.
    let read = |g: usize, projection: &[usize], selection: Option<&BooleanArray>, rows: usize| {
        let mut builder = opened
            .builder()
            .with_row_groups(vec![g])
            .with_projection(ProjectionMask::roots(
                &schema_descr,
                projection.iter().copied(),
            ))
            .with_batch_size(rows.max(1));
        if let Some(mask) = selection {
            builder =
                builder.with_row_selection(RowSelection::from_filters(std::slice::from_ref(mask)));
        }
        let batches = opened.batches(builder)?;
        let batch = match batches.as_slice() {
            [one] => one.clone(),
            [first, ..] => {
                concat_batches(&first.schema(), &batches).map_err(|e| opened.corrupt(e))?
            }
            [] => return Err(disagree(g)),
        };
        match batch.num_rows() == rows {
            true => Ok(batch),
            false => Err(disagree(g)),
        }
    };
    let mut tested = Vec::with_capacity(groups.len());
    for &g in groups {
        let rows = usize::try_from(opened.parquet().row_group(g).num_rows()).unwrap_or(0);
        if rows > 0 {
            tested.push((g, read(g, &condition.roots, None, rows)?));
        }
    }
    let batches: Vec<RecordBatch> = tested.iter().map(|(_, b)| b.clone()).collect();
    let masks = (condition.choose)(&batches).map_err(|e| opened.corrupt(e))?;
    if masks.len() != tested.len() {
        return Err(opened.corrupt("the rows of a row group cannot be selected"));
    }
    let fields = opened.metadata.schema().fields().clone();
    let wanted: Vec<usize> = condition
        .roots
        .iter()
        .copied()
        .filter(|c| columns.contains(c))
        .collect();
    let mut out = Vec::new();
    for ((g, tested), mask) in tested.iter().zip(&masks) {
        let (g, rows) = (*g, tested.num_rows());
        if mask.len() != rows {
            return Err(disagree(g));
        }
        let kept = mask.true_count();
        if kept == 0 {
            continue;
        }
        let kept_rows = |batch: &RecordBatch, roots: &[usize]| {
            let filtered = filter_record_batch(batch, mask).map_err(|e| opened.corrupt(e))?;
            roots
                .iter()
                .map(|&r| {
                    Ok((
                        r,
                        opened.column(std::slice::from_ref(&filtered), fields[r].name())?,
                    ))
                })
                .collect::<Result<Vec<_>, QueryError>>()
        };
        let mut arrays: Vec<(usize, ArrayRef)> = kept_rows(tested, &wanted)?;
        if !plain.is_empty() {
            let batch = read(g, &plain, Some(mask), kept)?;
            for &r in &plain {
                arrays.push((
                    r,
                    opened.column(std::slice::from_ref(&batch), fields[r].name())?,
                ));
            }
        }
        if !repeated.is_empty() {
            arrays.extend(kept_rows(&read(g, &repeated, None, rows)?, &repeated)?);
        }
        arrays.sort_by_key(|(r, _)| *r);
        let schema = Arc::new(Schema::new(
            arrays
                .iter()
                .map(|(r, _)| fields[*r].clone())
                .collect::<Vec<_>>(),
        ));
        let batch = RecordBatch::try_new(schema, arrays.into_iter().map(|(_, a)| a).collect())
            .map_err(|e| opened.corrupt(e))?;
        out.push(batch);
    }
    Ok(out)
}

/// The row groups of `opened` whose statistics let `column` match `pred`, and the column's root.
fn matching(opened: &Opened, column: &str, pred: &Pred) -> Result<(Vec<usize>, usize), QueryError> {
    let root = opened.root(column)?;
    let schema = opened.parquet().file_metadata().schema_descr();
    let leaf = (0..schema.num_columns())
        .find(|&l| schema.get_column_root_idx(l) == root)
        .ok_or_else(|| opened.corrupt(format!("column {column} is missing")))?;
    Ok((row_groups(opened.parquet(), leaf, pred), root))
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

/// The top-level columns `roots` of every row, one batch per row group: a batch never spans two
/// row groups, whose dictionaries differ (Parquet would turn a string column in dictionary form
/// that changes dictionary mid-batch back into strings and hash them into a new dictionary).
fn whole_columns(opened: &Opened, roots: &[usize]) -> Result<Vec<RecordBatch>, QueryError> {
    let schema_descr = opened.parquet().file_metadata().schema_descr_ptr();
    let mut out = Vec::new();
    for (g, group) in opened.parquet().row_groups().iter().enumerate() {
        let rows = usize::try_from(group.num_rows()).unwrap_or(0);
        if rows == 0 {
            continue;
        }
        out.extend(
            opened.batches(
                opened
                    .builder()
                    .with_row_groups(vec![g])
                    .with_projection(ProjectionMask::roots(&schema_descr, roots.iter().copied()))
                    .with_batch_size(rows),
            )?,
        );
    }
    Ok(out)
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
