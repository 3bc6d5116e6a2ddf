//! The passes of a selective read of one table file (see [`crate::snapshot::read`]): the
//! condition's columns of every row group first, then the other columns of the rows kept only,
//! each column decoded once; and whole columns, one row group at a time.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, BooleanArray, DictionaryArray, Int32Array, RecordBatch, StringArray,
};
use arrow::compute::{concat_batches, filter_record_batch};
use arrow::datatypes::{Int32Type, Schema};
use arrow::error::ArrowError;
use output_schema::table_file::TableFile;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ParquetRecordBatchReaderBuilder, RowSelection,
};
use parquet::arrow::ProjectionMask;
use parquet::file::metadata::ParquetMetaData;

use super::read::{corrupt, Pred};
use crate::{QueryError, Snapshot};

/// A table file opened for reading: the file and its reader metadata, from which each pass over
/// the file builds its own reader.
pub(crate) struct Opened {
    table: String,
    file: TableFile,
    metadata: ArrowReaderMetadata,
}

pub(crate) fn open(snapshot: &Snapshot, table: &str) -> Result<Option<Opened>, QueryError> {
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
    pub(crate) fn builder(&self) -> ParquetRecordBatchReaderBuilder<TableFile> {
        ParquetRecordBatchReaderBuilder::new_with_metadata(self.file.clone(), self.metadata.clone())
    }

    pub(crate) fn parquet(&self) -> &ParquetMetaData {
        self.metadata.metadata()
    }

    /// The index of a top-level column (its Arrow field and Parquet root).
    pub(crate) fn root(&self, column: &str) -> Result<usize, QueryError> {
        self.metadata
            .schema()
            .index_of(column)
            .map_err(|_| self.corrupt(format!("column {column} is missing")))
    }

    pub(crate) fn all_roots(&self) -> Vec<usize> {
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

    /// The column `name` of a batch read from the file.
    fn column(&self, batch: &RecordBatch, name: &str) -> Result<ArrayRef, QueryError> {
        batch
            .column_by_name(name)
            .cloned()
            .ok_or_else(|| self.corrupt(format!("column {name} is missing")))
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
pub(crate) enum Strings<'a> {
    Plain(&'a StringArray),
    Dictionary {
        keys: &'a Int32Array,
        values: &'a StringArray,
    },
}

impl<'a> Strings<'a> {
    pub(crate) fn of(batch: &'a RecordBatch, name: &str) -> Result<Strings<'a>, ArrowError> {
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
    pub(crate) fn test(&self, pred: &Pred) -> Vec<Option<bool>> {
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
                        Some(
                            usize::try_from(k)
                                .ok()
                                .and_then(|k| hits.get(k).copied())
                                .unwrap_or(false),
                        )
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
pub(crate) struct RowCondition<'a> {
    pub(crate) roots: Vec<usize>,
    pub(crate) choose: &'a Choose<'a>,
}

/// The rows whose string `column` matches `pred`, batch by batch.
pub(crate) fn matches_of<'a>(
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
///    where it can (a page none of whose rows are kept is never decompressed; the dictionary-less
///    columns of `symbols` are written in pages of `output_schema::parquet_io::PLAIN_PAGE_ROWS`
///    rows so that it can), and never turns a dropped row into a value;
/// 3. the other repeated (list) columns, every row, filtered in memory. `parquet` 60 skips rows
///    with `skip_records`, which loops for ever on a repeated column whose level data ends before
///    its page says it does (its reading path refuses such a page, its skipping path does not;
///    found by fuzzing, `fuzz/regressions/table_parquet/rle-rows-beyond-the-file`), so rows of
///    a repeated column are never skipped. A file's schema is the file's say, so the check is on
///    the file, not on the table ckb declares.
///
/// The condition's columns are decoded once: the kept rows of pass 1 are the answer's values.
pub(crate) fn read_selected(
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
                .map(|&r| Ok((r, opened.column(&filtered, fields[r].name())?)))
                .collect::<Result<Vec<_>, QueryError>>()
        };
        let mut arrays: Vec<(usize, ArrayRef)> = kept_rows(tested, &wanted)?;
        if !plain.is_empty() {
            let batch = read(g, &plain, Some(mask), kept)?;
            for &r in &plain {
                arrays.push((r, opened.column(&batch, fields[r].name())?));
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
pub(crate) fn matching(
    opened: &Opened,
    column: &str,
    pred: &Pred,
) -> Result<(Vec<usize>, usize), QueryError> {
    let root = opened.root(column)?;
    let schema = opened.parquet().file_metadata().schema_descr();
    let leaf = (0..schema.num_columns())
        .find(|&l| schema.get_column_root_idx(l) == root)
        .ok_or_else(|| opened.corrupt(format!("column {column} is missing")))?;
    Ok((row_groups(opened.parquet(), leaf, pred), root))
}

/// The top-level columns `roots` of every row, one batch per row group: a batch never spans two
/// row groups, whose dictionaries differ (Parquet would turn a string column in dictionary form
/// that changes dictionary mid-batch back into strings and hash them into a new dictionary).
pub(crate) fn whole_columns(
    opened: &Opened,
    roots: &[usize],
) -> Result<Vec<RecordBatch>, QueryError> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(array: ArrayRef) -> RecordBatch {
        let field = arrow::datatypes::Field::new("name", array.data_type().clone(), true);
        RecordBatch::try_new(Arc::new(Schema::new(vec![field])), vec![array]).unwrap()
    }

    /// A predicate gives the same rows on a plain string column and on the same values in
    /// dictionary form (each distinct value tested once); a null matches nothing, and so does a
    /// key past the dictionary.
    #[test]
    fn plain_and_dictionary_columns_match_the_same_rows() {
        let values = [
            Some("ParseConfig"),
            None,
            Some("run"),
            Some("parse"),
            Some("run"),
        ];
        let plain = batch(Arc::new(StringArray::from(values.to_vec())));
        let keys = Int32Array::from(vec![Some(0), None, Some(1), Some(2), Some(1)]);
        let dictionary = StringArray::from(vec!["ParseConfig", "run", "parse"]);
        let dict = DictionaryArray::<Int32Type>::try_new(keys, Arc::new(dictionary)).unwrap();
        let dict = batch(Arc::new(dict));
        for pred in [
            Pred::contains_ci("parse"),
            Pred::Eq("run".into()),
            Pred::In(["parse".to_string(), "x".to_string()].into()),
        ] {
            assert_eq!(
                column_mask(&plain, "name", &pred).unwrap(),
                column_mask(&dict, "name", &pred).unwrap(),
                "{pred:?}"
            );
        }
        let hits = column_mask(&dict, "name", &Pred::contains_ci("parse")).unwrap();
        assert_eq!(
            hits.iter().collect::<Vec<_>>(),
            [
                Some(true),
                Some(false),
                Some(false),
                Some(true),
                Some(false)
            ]
        );
        assert_eq!(
            string_values(&dict, "name").unwrap(),
            string_values(&plain, "name").unwrap()
        );

        let past = Strings::Dictionary {
            keys: &Int32Array::from(vec![Some(7), None]),
            values: &StringArray::from(vec!["run"]),
        };
        assert_eq!(past.test(&Pred::contains_ci("")), [Some(false), None]);
    }
}
