//! What a table is: a static description ([`TableInfo`]) paired with a typed row ([`Table`]).
//!
//! Tables are declared with the [`table!`](crate::table!) macro, which turns one list of documented
//! fields into the row struct, its Arrow schema, its encoder and decoder and its sort order, so the
//! four can never disagree. Rows are always sorted by the declared key, then by every remaining column
//! in declaration order: the order is total, so the written bytes never depend on the order in which a
//! stage (or a thread pool) produced its rows.

use std::cmp::Ordering;

use arrow::array::{ArrayRef, RecordBatch};
use arrow::datatypes::SchemaRef;
use rayon::prelude::*;

use crate::FormatError;

/// The pipeline stages, in the order they run. A table names the stages that produce it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    /// Walks the tree: files, languages, hashes.
    Scan,
    /// tree-sitter: definitions, references, call sites, imports, body hashes.
    Syntax,
    /// SCIP indexes: authoritative definitions, references, relationships.
    Scip,
    /// git history: commits, changes, churn, co-change, ownership.
    Git,
    /// Stable IDs, aliases and tombstones against the previous snapshot.
    Identity,
    /// Modules, import resolution and the module graph.
    Modules,
}

impl Stage {
    /// Every stage in run order.
    pub const ALL: [Stage; 6] = [
        Stage::Scan,
        Stage::Syntax,
        Stage::Scip,
        Stage::Git,
        Stage::Identity,
        Stage::Modules,
    ];

    /// The stage's name as used on the command line (`--stages`) and in the manifest.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Scan => "scan",
            Stage::Syntax => "syntax",
            Stage::Scip => "scip",
            Stage::Git => "git",
            Stage::Identity => "identity",
            Stage::Modules => "modules",
        }
    }

    /// Parses a stage name.
    pub fn from_name(name: &str) -> Option<Stage> {
        Stage::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Every stage's name in run order, comma-separated, for messages that list the valid ones.
    pub fn names_list() -> String {
        Stage::ALL.map(Stage::name).join(", ")
    }
}

/// One column of a table, as documented data.
#[derive(Debug)]
pub struct ColumnInfo {
    /// Column name.
    pub name: &'static str,
    /// Type name as shown by `ckb schema` (`string`, `int64?`, `list<string>`, …).
    pub type_name: &'static str,
    /// Whether the column may be null.
    pub nullable: bool,
    /// One-line description.
    pub doc: &'static str,
}

/// Static description of a table.
#[derive(Debug)]
pub struct TableInfo {
    /// Table name; the file is `<name>.parquet`.
    pub name: &'static str,
    /// What one row is.
    pub doc: &'static str,
    /// Stages that produce rows of this table; it is written when any of them ran.
    pub stages: &'static [Stage],
    /// Columns rows are sorted by (then by all other columns, in order).
    pub sort_key: &'static [&'static str],
    /// Columns no two rows share all of (the table's "one row per"); empty for a table whose
    /// rows may agree on every column that names them (`occurrences`: one site can hold two
    /// symbols; `imports`: one line the same import twice). Always a leading part of the table's order
    /// (sort key, then the other columns), so rows that would share it sit side by side: the
    /// writer refuses such rows ([`SortedRows::repeated_key`]) and `ckb verify` reports them.
    pub unique_key: &'static [&'static str],
    /// Every column, in order.
    pub columns: &'static [ColumnInfo],
    /// The Arrow schema.
    pub schema: fn() -> SchemaRef,
    /// Reads a file of the table batch by batch and checks its rows' order and unique key
    /// ([`RowOrderCheck`]): `ckb verify`'s row check.
    pub check_rows: fn(&std::path::Path) -> Result<(), FormatError>,
}

impl TableInfo {
    /// File name of the table inside a snapshot folder.
    pub fn file_name(&self) -> String {
        format!("{}.parquet", self.name)
    }
}

/// A typed row of a table.
pub trait Table: Sized + Clone + Send + Sync + 'static {
    /// The table's description.
    const INFO: &'static TableInfo;
    /// Total order: sort key first, then every other column.
    fn compare(&self, other: &Self) -> Ordering;
    /// Whether the two rows share the table's unique key ([`TableInfo::unique_key`]); never for
    /// a table without one.
    fn shares_key(&self, other: &Self) -> bool;
    /// The leading sort column's [`crate::Column::sort_bytes`].
    fn leading_key_bytes(&self) -> Option<&[u8]>;
    /// Encodes rows (already in order) into one array per column.
    fn to_arrays(rows: &[Self]) -> Vec<ArrayRef>;
    /// Encodes rows (already in order) into one array per column for the Parquet writer
    /// ([`crate::Column::to_write_array`]): the values of [`Table::to_arrays`], not always its types.
    fn to_write_arrays(rows: &[Self]) -> Vec<ArrayRef>;
    /// Decodes a record batch of this table's schema.
    fn from_batch(batch: &RecordBatch) -> Result<Vec<Self>, FormatError>;
    /// The row as a JSON object keyed by column name.
    fn to_json(&self) -> serde_json::Value;
    /// Writes the row in the binary row form ([`crate::row_codec`]), column by column.
    fn put_row(&self, out: &mut crate::row_codec::RowWriter);
    /// Reads a row [`Table::put_row`] wrote.
    fn take_row(input: &mut crate::row_codec::RowReader<'_>) -> Result<Self, FormatError>;
    /// Appends the row's digest form, column by column ([`crate::Column::put_digest`]).
    fn put_digest_row(&self, out: &mut Vec<u8>);
}

/// Sorts rows into the table's canonical order, in parallel.
pub fn sort_rows<T: Table>(rows: &mut [T]) {
    // Most tables arrive sorted (or nearly): checking first is one pass over them.
    if rows.is_sorted_by(|a, b| T::compare(a, b).is_le()) {
        return;
    }
    // The order is total over all columns, so an unstable sort is still deterministic, and a
    // parallel one gives the same rows as a serial one.
    match leading_prefixes(rows) {
        Some(prefixes) => sort_by_prefixes(rows, prefixes),
        None => rows.par_sort_unstable_by(T::compare),
    }
}

/// For each row, its place and the eight bytes of its leading sort column that follow the prefix
/// every row shares, as a big-endian number (short values padded with zeros): rows whose numbers
/// differ are in the numbers' order. `None` when the leading column is not a byte string, or
/// when its values repeat in runs of more than [`MAX_MEAN_RUN`] rows on average.
///
/// Most tables lead with an ID (`ckb:<repo>:sym:` then a hash). Comparing two rows reads both
/// strings from wherever they were allocated and compares them from the first byte; the numbers
/// sit side by side in one list, so most comparisons touch neither row. Rows with one leading
/// value (the rows of one file, led by its path) are still compared in full, from their places:
/// there, sorting the rows themselves is cheaper.
fn leading_prefixes<T: Table>(rows: &[T]) -> Option<Vec<(u64, u32)>> {
    let first = rows.first()?.leading_key_bytes()?;
    u32::try_from(rows.len()).ok()?;
    let mut shared = first.len();
    let mut runs = 0usize;
    let mut last: &[u8] = &[];
    for (i, row) in rows.iter().enumerate() {
        let bytes = row.leading_key_bytes()?;
        if i == 0 || bytes != last {
            runs += 1;
        }
        last = bytes;
        shared = first[..shared]
            .iter()
            .zip(bytes)
            .take_while(|(a, b)| a == b)
            .count();
    }
    if runs.saturating_mul(MAX_MEAN_RUN) < rows.len() {
        return None;
    }
    Some(
        rows.par_iter()
            .enumerate()
            .map(|(i, row)| {
                let rest = row.leading_key_bytes().map_or(&[][..], |b| &b[shared..]);
                let mut prefix = [0u8; 8];
                let n = rest.len().min(8);
                prefix[..n].copy_from_slice(&rest[..n]);
                (u64::from_be_bytes(prefix), i as u32)
            })
            .collect(),
    )
}

/// Above this many rows per run of one leading value, on average, rows are sorted directly
/// ([`leading_prefixes`]). Call edges run about four to a caller.
const MAX_MEAN_RUN: usize = 8;

/// Sorts the rows by their [`leading_prefixes`], the full order breaking ties, then moves each
/// row to its place.
fn sort_by_prefixes<T: Table>(rows: &mut [T], mut prefixes: Vec<(u64, u32)>) {
    {
        let rows = &*rows;
        prefixes.par_sort_unstable_by(|(pa, a), (pb, b)| {
            pa.cmp(pb)
                .then_with(|| rows[*a as usize].compare(&rows[*b as usize]))
        });
    }
    // Position i takes the row now at `from[i]`: each cycle of that permutation is walked once,
    // swapping every row straight into its place.
    let mut from: Vec<u32> = prefixes.into_iter().map(|(_, i)| i).collect();
    for start in 0..from.len() {
        let mut at = start;
        loop {
            let source = from[at] as usize;
            from[at] = at as u32;
            if source == start {
                break;
            }
            rows.swap(at, source);
            at = source;
        }
    }
}

/// Rows in their table's canonical order: made only by [`SortedRows::sort`], so code that
/// encodes them (and must give the bytes a sort-then-encode would) cannot be handed rows in
/// another order. Shared: other readers may go on reading the rows meanwhile.
#[derive(Debug)]
pub struct SortedRows<'a, T>(&'a [T]);

impl<T> Clone for SortedRows<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for SortedRows<'_, T> {}

impl<'a, T: Table> SortedRows<'a, T> {
    /// Sorts `rows` ([`sort_rows`]) and keeps them read-only from here on.
    pub fn sort(rows: &'a mut [T]) -> Self {
        sort_rows(rows);
        SortedRows(rows)
    }

    /// The rows.
    pub fn rows(self) -> &'a [T] {
        self.0
    }

    /// The first row that shares the table's unique key with the row before it, as
    /// [`FormatError::RepeatedKey`]: in sorted rows two that share it are neighbours.
    pub fn repeated_key(self) -> Result<(), FormatError> {
        match self.0.windows(2).position(|w| w[0].shares_key(&w[1])) {
            None => Ok(()),
            Some(i) => Err(FormatError::RepeatedKey {
                table: T::INFO.name,
                row: i as u64 + 1,
                key: key_text(&self.0[i]),
            }),
        }
    }
}

/// Follows a table's rows batch by batch, as a reader meets them, and finds the first that
/// breaks the table's order ([`Table::compare`]) or repeats its unique key: what `ckb verify`
/// checks of every table, holding one row besides the batch.
pub struct RowOrderCheck<T> {
    last: Option<T>,
    rows: u64,
}

impl<T: Table> Default for RowOrderCheck<T> {
    fn default() -> Self {
        RowOrderCheck {
            last: None,
            rows: 0,
        }
    }
}

impl<T: Table> RowOrderCheck<T> {
    /// Checks the next rows of the table, in file order.
    pub fn next_rows(&mut self, rows: Vec<T>) -> Result<(), FormatError> {
        let mut previous = self.last.as_ref();
        for (i, row) in rows.iter().enumerate() {
            let at = self.rows + i as u64;
            if let Some(before) = previous {
                if before.compare(row).is_gt() {
                    return Err(FormatError::OutOfOrder {
                        table: T::INFO.name,
                        row: at,
                    });
                }
                if before.shares_key(row) {
                    return Err(FormatError::RepeatedKey {
                        table: T::INFO.name,
                        row: at,
                        key: key_text(row),
                    });
                }
            }
            previous = Some(row);
        }
        self.rows += rows.len() as u64;
        if let Some(last) = rows.into_iter().last() {
            self.last = Some(last);
        }
        Ok(())
    }
}

/// A row's unique key as `column = value` pairs, for a message.
fn key_text<T: Table>(row: &T) -> String {
    let json = row.to_json();
    T::INFO
        .unique_key
        .iter()
        .map(|c| format!("{c} = {}", json.get(*c).unwrap_or(&serde_json::Value::Null)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Builds one column's array from a table's rows.
#[doc(hidden)]
pub type ColumnBuilder<R> = dyn Fn(&[R]) -> ArrayRef + Sync;

/// Builds a table's arrays, one column per task: building them was serial ahead of the (parallel)
/// encoding. Collected in schema order, so the arrays are the same as one after the other.
#[doc(hidden)]
pub fn build_columns<R: Sync>(rows: &[R], columns: &[&ColumnBuilder<R>]) -> Vec<ArrayRef> {
    columns.par_iter().map(|build| build(rows)).collect()
}

/// Sorts rows and encodes them as one record batch.
pub fn to_record_batch<T: Table>(rows: &mut [T]) -> RecordBatch {
    sort_rows(rows);
    let schema = (T::INFO.schema)();
    // The arrays come from the same field list as the schema, so this cannot fail.
    RecordBatch::try_new(schema, T::to_arrays(rows))
        .expect("table macro keeps schema and arrays in step")
}

/// Declares a table: its row struct, documentation, sort key, Arrow schema and codecs.
///
/// ```ignore
/// table! {
///     /// One row per file.
///     pub struct FileRow in "files", produced by [Stage::Scan], sorted by [path] {
///         /// Repo-relative path.
///         path: String,
///     }
/// }
/// ```
#[macro_export]
macro_rules! table {
    (
        #[doc = $tdoc:literal]
        pub struct $row:ident in $name:literal, produced by [$($stage:expr),+], sorted by [$lead:ident $(, $key:ident)*] $(, unique by [$($unique:ident),+])? {
            $( #[doc = $cdoc:literal] $col:ident : $ty:ty ),+ $(,)?
        }
    ) => {
        #[doc = $tdoc]
        #[derive(Clone, Debug, PartialEq)]
        pub struct $row {
            $( #[doc = $cdoc] pub $col: $ty, )+
        }

        impl $row {
            /// The table's description.
            pub const INFO: $crate::TableInfo = $crate::TableInfo {
                name: $name,
                doc: $tdoc,
                stages: &[$($stage),+],
                sort_key: &[stringify!($lead) $(, stringify!($key))*],
                unique_key: &[$($(stringify!($unique)),+)?],
                columns: &[
                    $( $crate::ColumnInfo {
                        name: stringify!($col),
                        type_name: <$ty as $crate::Column>::TYPE_NAME,
                        nullable: <$ty as $crate::Column>::NULLABLE,
                        doc: $cdoc,
                    }, )+
                ],
                schema: $row::schema,
                check_rows: $crate::parquet_io::check_rows::<$row>,
            };

            /// The Arrow schema of the table (cached).
            pub fn schema() -> ::arrow::datatypes::SchemaRef {
                static SCHEMA: ::std::sync::OnceLock<::arrow::datatypes::SchemaRef> =
                    ::std::sync::OnceLock::new();
                SCHEMA
                    .get_or_init(|| {
                        ::std::sync::Arc::new(::arrow::datatypes::Schema::new(vec![
                            $( ::arrow::datatypes::Field::new(
                                stringify!($col),
                                <$ty as $crate::Column>::data_type(),
                                <$ty as $crate::Column>::NULLABLE,
                            ), )+
                        ]))
                    })
                    .clone()
            }
        }

        impl $crate::Table for $row {
            const INFO: &'static $crate::TableInfo = &$row::INFO;

            fn compare(&self, other: &Self) -> ::std::cmp::Ordering {
                <_ as $crate::Column>::compare(&self.$lead, &other.$lead)
                    $( .then_with(|| <_ as $crate::Column>::compare(&self.$key, &other.$key)) )*
                    $( .then_with(|| <$ty as $crate::Column>::compare(&self.$col, &other.$col)) )+
            }

            fn shares_key(&self, other: &Self) -> bool {
                let _ = other; // unused by a table without a unique key
                let same: &[bool] = &[$($(
                    <_ as $crate::Column>::compare(&self.$unique, &other.$unique).is_eq()
                ),+)?];
                !same.is_empty() && same.iter().all(|&s| s)
            }

            fn leading_key_bytes(&self) -> Option<&[u8]> {
                <_ as $crate::Column>::sort_bytes(&self.$lead)
            }

            fn to_json(&self) -> ::serde_json::Value {
                let mut map = ::serde_json::Map::new();
                $( map.insert(stringify!($col).to_string(), <$ty as $crate::Column>::to_json(&self.$col)); )+
                ::serde_json::Value::Object(map)
            }

            fn put_row(&self, out: &mut $crate::row_codec::RowWriter) {
                $( <$ty as $crate::Column>::put(&self.$col, out); )+
            }

            fn put_digest_row(&self, out: &mut Vec<u8>) {
                $( <$ty as $crate::Column>::put_digest(&self.$col, out); )+
            }

            fn take_row(
                input: &mut $crate::row_codec::RowReader<'_>,
            ) -> Result<Self, $crate::FormatError> {
                Ok($row {
                    $( $col: <$ty as $crate::Column>::take(input)?, )+
                })
            }

            fn to_arrays(rows: &[Self]) -> Vec<::arrow::array::ArrayRef> {
                $crate::table::build_columns(rows, &[
                    $( &|rows: &[$row]| <$ty as $crate::Column>::to_array(rows.iter().map(|r| &r.$col)), )+
                ])
            }

            fn to_write_arrays(rows: &[Self]) -> Vec<::arrow::array::ArrayRef> {
                $crate::table::build_columns(rows, &[
                    $( &|rows: &[$row]| <$ty as $crate::Column>::to_write_array(rows.iter().map(|r| &r.$col)), )+
                ])
            }

            fn from_batch(
                batch: &::arrow::array::RecordBatch,
            ) -> Result<Vec<Self>, $crate::FormatError> {
                $(
                    let $col: Vec<$ty> = {
                        let array = batch.column_by_name(stringify!($col)).ok_or_else(|| {
                            $crate::FormatError::MissingColumn {
                                table: $name.to_string(),
                                column: stringify!($col).to_string(),
                            }
                        })?;
                        <$ty as $crate::Column>::from_array(array.as_ref(), stringify!($col))?
                    };
                    let mut $col = $col.into_iter();
                )+
                let mut rows = Vec::with_capacity(batch.num_rows());
                for _ in 0..batch.num_rows() {
                    rows.push($row {
                        $( $col: $col.next().ok_or_else(|| $crate::FormatError::ShortColumn {
                            column: stringify!($col).to_string(),
                        })?, )+
                    });
                }
                Ok(rows)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::CallEdgeRow;

    /// Rows in a scrambled but fixed order, with ties on the sort key (broken by later columns).
    fn scrambled(n: u64) -> Vec<CallEdgeRow> {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                CallEdgeRow {
                    caller_id: format!("caller{}", x % 97).as_str().into(),
                    callee_id: (!x.is_multiple_of(5))
                        .then(|| format!("callee{}", x % 31).as_str().into()),
                    callee_name: format!("name{}", x % 7).as_str().into(),
                    count: (x % 3) as i64,
                    source: "tree-sitter".into(),
                    confidence: 0.5,
                }
            })
            .collect()
    }

    #[test]
    fn rows_that_repeat_the_unique_key_are_refused_and_found_across_batches() {
        // call_edges has one row per (caller, callee, callee name); these rows repeat some with
        // other counts.
        let mut rows = scrambled(2_000);
        let err = SortedRows::sort(&mut rows).repeated_key().unwrap_err();
        let FormatError::RepeatedKey { table, row, key } = &err else {
            panic!("{err}");
        };
        let row = *row as usize;
        assert_eq!(*table, "call_edges");
        assert!(rows[row - 1].shares_key(&rows[row]));
        assert!(!rows[..row].windows(2).any(|w| w[0].shares_key(&w[1])));
        let expected = format!(
            "caller_id = \"{}\", callee_id = {}, callee_name = \"{}\"",
            rows[row].caller_id,
            rows[row]
                .callee_id
                .as_ref()
                .map_or("null".to_string(), |c| format!("\"{c}\"")),
            rows[row].callee_name
        );
        assert_eq!(*key, expected);
        // Every table file is encoded through the check.
        let err = crate::parquet_io::encode_table(&mut scrambled(2_000)).unwrap_err();
        assert!(matches!(err, FormatError::RepeatedKey { .. }), "{err}");
        assert_eq!(err.code(), crate::ErrorCode::InternalError);

        // Read back batch by batch, split anywhere (between the two rows of the key too), the
        // reader's check finds the same row.
        for split in [0, 1, row - 1, row, row + 1, rows.len()] {
            let mut check = RowOrderCheck::<CallEdgeRow>::default();
            let found = check
                .next_rows(rows[..split].to_vec())
                .and_then(|()| check.next_rows(rows[split..].to_vec()));
            match found {
                Err(FormatError::RepeatedKey { row: at, .. }) => assert_eq!(at, row as u64),
                other => panic!("split at {split}: {other:?}"),
            }
        }

        // One row per key passes both; two rows swapped are out of order.
        let mut unique = rows.clone();
        unique.dedup_by(|a, b| a.shares_key(b));
        assert!(unique.len() < rows.len());
        SortedRows::sort(&mut unique).repeated_key().unwrap();
        let mut check = RowOrderCheck::<CallEdgeRow>::default();
        check.next_rows(unique[..7].to_vec()).unwrap();
        check.next_rows(unique[7..].to_vec()).unwrap();
        unique.swap(20, 21);
        let mut check = RowOrderCheck::<CallEdgeRow>::default();
        check.next_rows(unique[..21].to_vec()).unwrap();
        let err = check.next_rows(unique[21..].to_vec()).unwrap_err();
        assert!(
            matches!(
                err,
                FormatError::OutOfOrder {
                    table: "call_edges",
                    row: 21
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn parallel_sort_gives_the_serial_order() {
        // Large enough for the parallel sort to split the work.
        let mut rows = scrambled(50_000);
        let mut serial = rows.clone();
        serial.sort_by(CallEdgeRow::compare);
        assert!(!rows.is_sorted_by(|a, b| CallEdgeRow::compare(a, b).is_le()));
        sort_rows(&mut rows);
        assert!(
            rows == serial,
            "sort_rows differs from a serial stable sort"
        );
        // Sorted input is left as it is.
        sort_rows(&mut rows);
        assert!(rows == serial);
    }

    fn commit_row() -> crate::tables::CommitRow {
        crate::tables::CommitRow {
            sha: "c0ffee".into(),
            parents: Vec::new(),
            author_time: 0,
            committer_time: 0,
            author_id: "a".into(),
            is_bot: false,
            files_changed: 0,
            additions: 0,
            deletions: 0,
        }
    }

    #[test]
    fn leading_prefixes_order_as_the_full_comparison_does() {
        // Values that share a long prefix, end inside the eight bytes after it, hold NUL bytes,
        // are empty after it or tie on those eight bytes and differ later: the prefix sort must
        // still give the full comparison's order.
        let tails = [
            "",
            "\0",
            "\0\0",
            "\0\x01",
            "a",
            "a\0",
            "ab",
            "aaaaaaaa",
            "aaaaaaaaX",
            "aaaaaaaaY",
            "aaaaaaab",
            "b",
            "\u{7f}",
            "\u{e9}",
            "zzzzzzzzzzzz",
        ];
        let mut rows = scrambled(2_000);
        for (i, row) in rows.iter_mut().enumerate() {
            let tail = tails[i * 7 % tails.len()];
            row.caller_id = format!("ckb:repo:sym:{tail}").as_str().into();
        }
        let mut serial = rows.clone();
        serial.sort_by(CallEdgeRow::compare);
        assert!(leading_prefixes(&rows).is_some());
        sort_rows(&mut rows);
        assert!(rows == serial, "the prefix sort differs from a serial sort");

        // Long runs of one leading value (a file's rows, led by its path) sort directly.
        let mut runs = scrambled(400);
        for (i, row) in runs.iter_mut().enumerate() {
            row.caller_id = format!("file{}", i / 40).as_str().into();
        }
        assert!(leading_prefixes(&runs).is_none());
        let mut serial = runs.clone();
        serial.sort_by(CallEdgeRow::compare);
        runs.reverse();
        sort_rows(&mut runs);
        assert!(runs == serial);

        // A table led by a number has no prefixes and sorts as before.
        let mut commits: Vec<crate::tables::CommitRow> = (0..500i64)
            .map(|i| crate::tables::CommitRow {
                committer_time: (i * 7919) % 500 - 250,
                ..commit_row()
            })
            .collect();
        assert!(leading_prefixes(&commits).is_none());
        let mut serial = commits.clone();
        serial.sort_by(crate::tables::CommitRow::compare);
        sort_rows(&mut commits);
        assert!(commits == serial);
    }
}
