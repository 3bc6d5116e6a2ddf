//! Tables to Parquet bytes and back, with pinned writer settings.
//!
//! Every setting that influences the bytes is fixed here (compression and level, row-group size,
//! dictionary, statistics, `created_by`, key-value metadata), so the same rows always produce the
//! same file. Rows are sorted by the table's declared order before encoding.
//!
//! A table's columns are encoded side by side (rayon), each into its own column chunk, and the
//! chunks are then appended in schema order: the bytes are exactly those of `ArrowWriter::write`
//! of the whole batch (tested), but the largest table no longer encodes on one core while the
//! others wait.
//!
//! Size: about 510 of its lines are the tests at its end, which prove the writer's bytes equal a serial ArrowWriter's and the readers' round trips; the rest (~1 150 lines) is the writer settings, the two encoders (fresh and copying cached row groups, which share `encode_columns` and the footer checks) and the readers.

use std::borrow::Cow;
use std::fs::File;
use std::io::Write;
use std::marker::PhantomData;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch};
use arrow::datatypes::{DataType, Schema, SchemaRef};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder,
};
use parquet::arrow::arrow_writer::compute_leaves;
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::{Compression, ZstdLevel};
use parquet::column::writer::ColumnCloseResult;
use parquet::file::metadata::{
    ColumnChunkMetaData, KeyValue, PageIndexPolicy, ParquetMetaData, ParquetMetaDataOptions,
    ParquetMetaDataReader,
};
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use parquet::file::reader::{ChunkReader, Length};
use parquet::file::statistics::Statistics;
use parquet::schema::types::ColumnDescPtr;
use rayon::iter::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use rayon::prelude::*;

use bytes::Bytes;

use crate::manifest::{file_hash, FileEntry};
use crate::row_groups::{
    group_key, row_groups, GroupCache, GroupKey, GroupRows, GROUP_MIN_ROWS, GROUP_TARGET_ROWS,
};
use crate::table::SortedRows;
use crate::table_file::TableFile;
use crate::{FormatError, Table, TableInfo, CKB_VERSION, SCHEMA_VERSION};

/// Most rows a row group holds. Groups are cut by content ([`crate::row_groups`]), about
/// [`crate::row_groups::GROUP_TARGET_ROWS`] rows each; this bounds a run of one leading key longer
/// than that (and the groups of a table whose leading column is a number), and what a reader
/// accepts from a file.
pub const ROW_GROUP_ROWS: usize = 131_072;

/// How many rows the row groups of a table hold ([`crate::row_groups`]): about
/// [`GROUP_TARGET_ROWS`] rows, but for the tables of [`SMALL_GROUPS`].
pub fn group_rows(table: &TableInfo) -> GroupRows {
    SMALL_GROUPS
        .iter()
        .find(|(name, _)| *name == table.name)
        .map_or(
            GroupRows {
                target: GROUP_TARGET_ROWS,
                min: GROUP_MIN_ROWS,
                max: ROW_GROUP_ROWS,
            },
            |(_, rows)| *rows,
        )
}

/// Tables cut into smaller row groups than the others, with their sizes.
///
/// `symbols` is sorted by stable ID, so the few rows a commit changes fall in any of its groups,
/// and its rows cost the most to encode (about 1.2 µs a row on tokio, four times an occurrence's).
/// In groups of 2 048 rows plus about 512 (a small target beside the minimum keeps the sizes
/// regular: with unique keys, cuts at one row in 8 192 left tokio's 11 400 symbols in one group,
/// at one in 2 048 in groups of 950, 9 291 and 1 180), a commit that adds one symbol to tokio
/// encodes 3 800 of its rows instead of all of them, and the write of `symbols` in a per-commit
/// run took 11-12 ms instead of 18-21. Each group repeats the path and name dictionaries:
/// `symbols.parquet` is 11% larger (764 to 848 KB).
pub const SMALL_GROUPS: &[(&str, GroupRows)] = &[(
    "symbols",
    GroupRows {
        target: 512,
        min: 2048,
        max: ROW_GROUP_ROWS,
    },
)];

/// zstd level of every column chunk. Level 1 rather than the library default 3: on ckb's tables
/// (dictionary-encoded IDs and names, page-sized chunks) it compressed 30-50% faster and the files
/// came out no larger (ripgrep's syntax tables: 0.95-1.02x the bytes of level 3). Every snapshot
/// rewrites its tables, so the encoding cost is paid on every commit.
pub const ZSTD_LEVEL: i32 = 1;

/// Statistics level: min, max and null count per column chunk, which `queries`' reader and
/// DuckDB use to skip row groups. Not per page: `queries` never reads the page index, DuckDB's
/// Parquet reader did not use it either when last asked (duckdb/duckdb#2755), and keeping a min
/// and max per page cost 14% of the write's CPU time on a one-file commit of ripgrep (46 -> 39 ms).
pub const STATISTICS: EnabledStatistics = EnabledStatistics::Chunk;

/// Columns written without a dictionary, as (table, column). Every other column has one.
///
/// - IDs and hashes unique to their row: a dictionary is as large as the column, and building it
///   hashes every value;
/// - line numbers in tables sorted by path and line: neighbours are close, which zstd packs well
///   as plain integers and not as dictionary indices (numbered in order of first appearance).
///
/// Measured on six repositories (Rust, Python, JavaScript, C++, TypeScript, Java): `symbols` files
/// 4-8% smaller, `occurrences` files 6-17% smaller, the same rows read back by DuckDB. Encoding
/// these columns took no more CPU time (ripgrep: about 1.5 ms less, of a run's 120).
pub const PLAIN_COLUMNS: &[(&str, &str)] = &[
    ("symbols", "stable_id"),
    ("symbols", "definition_version_id"),
    ("symbols", "body_hash"),
    ("symbols", "start_line"),
    ("symbols", "end_line"),
    ("occurrences", "line"),
    ("occurrences", "end_line"),
];

/// Rows per data page of the [`PLAIN_COLUMNS`] of `symbols` (every other column keeps the
/// library's pages).
///
/// A reader that keeps a few symbols (`search`'s matches, `symbol`'s definition, the members
/// `understand` lists) decodes those rows' plain columns only where Parquet can skip the rest: a
/// page none of whose rows are kept is passed over without being decompressed. Plain columns are
/// as large as their table (IDs, hashes, lines); in one page per row group, a read of seven
/// symbols decompressed all of `symbols.stable_id`. A dictionary column's pages hold small
/// indices and stay whole.
///
/// Measured on tokio (11 172 symbols, `ci/bench-query.sh`, whole process, 21 runs, A/B with the
/// same build): `search` 10.4 -> 8.4-9.2 ms, `symbol` 12.7 -> 10.5-11.3 ms, answers
/// byte-identical; `symbols.parquet` 4% larger, the write stage of a full snapshot within its
/// noise (81-83 ms before, 81-90 after). Pages of 128 and 64 rows read slower than 256. Not
/// `occurrences`: the sites `refs` keeps of a much-used symbol fall on most pages, and smaller
/// pages of `line` made it 7% slower (and the file 7% larger).
pub const PLAIN_PAGE_ROWS: usize = 256;

/// The tables whose [`PLAIN_COLUMNS`] are written in pages of [`PLAIN_PAGE_ROWS`] rows.
pub const PAGED_TABLES: &[&str] = &["symbols"];

/// The pinned writer settings for a table.
pub fn writer_properties(table: &TableInfo) -> WriterProperties {
    let plain = PLAIN_COLUMNS
        .iter()
        .filter(|(t, _)| *t == table.name)
        .map(|(_, column)| parquet::schema::types::ColumnPath::from(*column));
    let paged = PAGED_TABLES.contains(&table.name);
    // The writer checks a page's limits once per batch of this many rows.
    let batch_rows = match paged {
        true => PLAIN_PAGE_ROWS,
        false => parquet::file::properties::DEFAULT_WRITE_BATCH_SIZE,
    };
    plain
        .fold(WriterProperties::builder(), |builder, column| {
            let builder = builder.set_column_dictionary_enabled(column.clone(), false);
            match paged {
                true => builder.set_column_data_page_row_count_limit(column, PLAIN_PAGE_ROWS),
                false => builder,
            }
        })
        .set_write_batch_size(batch_rows)
        .set_writer_version(WriterVersion::PARQUET_1_0)
        .set_compression(Compression::ZSTD(
            ZstdLevel::try_new(ZSTD_LEVEL).expect("1 is a valid zstd level"),
        ))
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .set_dictionary_enabled(true)
        .set_statistics_enabled(STATISTICS)
        .set_created_by(format!("ckb {CKB_VERSION}"))
        .set_key_value_metadata(Some(vec![
            KeyValue::new("ckb.table".to_string(), table.name.to_string()),
            KeyValue::new("ckb.schema_version".to_string(), SCHEMA_VERSION.to_string()),
        ]))
        .build()
}

/// Sorts rows and encodes them as a Parquet file in memory: the bytes an `ArrowWriter` with
/// [`writer_properties`] writes for [`crate::table::to_record_batch`], from the cheaper arrays of
/// [`Table::to_write_arrays`].
pub fn encode_table<T: Table>(rows: &mut [T]) -> Result<Vec<u8>, FormatError> {
    encode_sorted(SortedRows::sort(rows))
}

/// Encodes rows already in their canonical order: the bytes [`encode_table`] gives for them.
pub fn encode_sorted<T: Table>(rows: SortedRows<'_, T>) -> Result<Vec<u8>, FormatError> {
    encode_sorted_with(rows, None)
}

/// [`encode_sorted`], taking each row group that `cache` holds from there instead of encoding it,
/// and telling `cache` every group the file holds: the same bytes whatever the cache held.
///
/// Refuses rows that repeat the table's unique key ([`SortedRows::repeated_key`]): every table
/// file ckb writes comes through here, so none holds two rows of one key.
pub fn encode_sorted_with<T: Table>(
    rows: SortedRows<'_, T>,
    cache: Option<&dyn GroupCache>,
) -> Result<Vec<u8>, FormatError> {
    rows.repeated_key()?;
    let rows = rows.rows();
    let schema = (T::INFO.schema)();
    let groups = row_groups(rows, group_rows(T::INFO));
    match cache {
        None => encode_columns(T::INFO, &schema, &T::to_write_arrays(rows), &groups),
        Some(cache) => encode_from_cache(rows, &schema, &groups, cache),
    }
}

/// Encodes a table's columns as the file of `schema`, one row group per range of `groups`.
///
/// Within a row group every column is encoded in parallel into its own chunk, and the chunks are
/// appended in schema order, which is what `ArrowWriter` does one column after the other. The
/// writer takes its column types from `schema`; a column's array may be any form its encoder
/// reads the same values from (a dictionary array for a string column).
fn encode_columns(
    table: &TableInfo,
    schema: &SchemaRef,
    columns: &[ArrayRef],
    groups: &[Range<usize>],
) -> Result<Vec<u8>, FormatError> {
    let mut buffer = Vec::new();
    let writer = ArrowWriter::try_new(&mut buffer, schema.clone(), Some(writer_properties(table)))?;
    let (mut file, factory) = writer.into_serialized_writer()?;
    for (group, range) in groups.iter().enumerate() {
        let (start, len) = (range.start, range.len());
        let mut leaves = Vec::new();
        for (field, column) in schema.fields().iter().zip(columns) {
            leaves.extend(compute_leaves(field.as_ref(), &column.slice(start, len))?);
        }
        let writers = factory.create_column_writers(group)?;
        if writers.len() != leaves.len() {
            return Err(parquet::errors::ParquetError::General(format!(
                "{}: {} column writers for {} leaf columns",
                table.name,
                writers.len(),
                leaves.len()
            ))
            .into());
        }
        let chunks = writers
            .into_par_iter()
            .zip(leaves)
            .map(|(mut writer, leaf)| {
                writer.write(&leaf)?;
                writer.close()
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut row_group = file.next_row_group()?;
        for chunk in chunks {
            chunk.append_to_row_group(&mut row_group)?;
        }
        row_group.close()?;
    }
    file.close()?;
    Ok(buffer)
}

/// A row group's own file, read for its chunks: its bytes (borrowed from the cache, or owned when
/// this run encoded them) and their footer.
struct GroupFile<'c> {
    key: GroupKey,
    bytes: Cow<'c, [u8]>,
    metadata: ParquetMetaData,
}

/// Bytes in memory read by the Parquet library in place: `Bytes` would need a copy of a blob the
/// cache lends (only the footer, which the reader asks for as `Bytes`, is copied).
struct Blob<'a>(&'a [u8]);

impl Length for Blob<'_> {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }
}

impl<'a> ChunkReader for Blob<'a> {
    type T = &'a [u8];

    fn get_read(&self, start: u64) -> parquet::errors::Result<&'a [u8]> {
        usize::try_from(start)
            .ok()
            .and_then(|start| self.0.get(start..))
            .ok_or_else(|| parquet::errors::ParquetError::EOF(format!("no byte {start}")))
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        usize::try_from(start)
            .ok()
            .and_then(|start| self.0.get(start..start.checked_add(length)?))
            .map(Bytes::copy_from_slice)
            .ok_or_else(|| {
                parquet::errors::ParquetError::EOF(format!("no {length} bytes at {start}"))
            })
    }
}

/// [`encode_columns`] of `rows`, each group's chunks copied from its own file: the file `cache`
/// holds for the group's rows when it is sound, or one encoded now (and given to the cache).
/// Chunks are position-independent (a page header holds no file offset), and the footer entries
/// are rebuilt around the copied bytes, so the file is byte for byte [`encode_columns`]' (tested).
fn encode_from_cache<T: Table>(
    rows: &[T],
    schema: &SchemaRef,
    groups: &[Range<usize>],
    cache: &dyn GroupCache,
) -> Result<Vec<u8>, FormatError> {
    let mut buffer = Vec::new();
    let properties = writer_properties(T::INFO);
    let writer = ArrowWriter::try_new(&mut buffer, schema.clone(), Some(properties))?;
    let (mut file, _) = writer.into_serialized_writer()?;
    let columns = file.schema_descr().columns().to_vec();
    let files = groups
        .par_iter()
        .map(|range| {
            let rows = &rows[range.clone()];
            // The group's own file holds its rows from 0.
            let range = 0..rows.len();
            let key = group_key(rows);
            let cached = cache.get(&key).and_then(|found| {
                let metadata = group_file_metadata(found, &columns, rows.len()).ok()?;
                Some((Cow::Borrowed(found), metadata))
            });
            let (bytes, metadata) = match cached {
                Some(found) => found,
                None => {
                    let arrays = T::to_write_arrays(rows);
                    let whole = std::slice::from_ref(&range);
                    let bytes = encode_columns(T::INFO, schema, &arrays, whole)?;
                    let metadata = group_file_metadata(&bytes, &columns, rows.len())?;
                    (Cow::Owned(bytes), metadata)
                }
            };
            Ok(GroupFile {
                key,
                bytes,
                metadata,
            })
        })
        .collect::<Result<Vec<_>, FormatError>>()?;
    for group in files {
        let rows_written = group.metadata.row_group(0).num_rows().unsigned_abs();
        let page_index = group.metadata.page_index_for_row_group(0);
        let mut row_group = file.next_row_group()?;
        for (c, column) in group.metadata.row_group(0).columns().iter().enumerate() {
            let close = ColumnCloseResult {
                bytes_written: column.compressed_size().unsigned_abs(),
                rows_written,
                metadata: as_written(column.clone())?,
                bloom_filter: None,
                column_index: None,
                offset_index: page_index.offset_index(c).cloned(),
            };
            row_group.append_column(&Blob(&group.bytes), close)?;
        }
        row_group.close()?;
        let encoded = match group.bytes {
            Cow::Owned(bytes) => Some(bytes),
            Cow::Borrowed(_) => None,
        };
        cache.used(group.key, encoded);
    }
    file.close()?;
    Ok(buffer)
}

/// A column chunk's footer entry as the writer made it, from the one the reader decoded. The
/// reader keeps one pair of minimum and maximum and forgets that the writer also filled the
/// deprecated `min` and `max` fields, which it does for every column whose sort order is signed
/// (numbers): restored here, the rebuilt entry encodes to the writer's bytes (tested).
fn as_written(column: ColumnChunkMetaData) -> Result<ColumnChunkMetaData, FormatError> {
    let signed = column.column_descr().sort_order().is_signed();
    let Some(statistics) = column.statistics().cloned() else {
        return Ok(column);
    };
    let statistics = match statistics {
        Statistics::Boolean(s) => Statistics::Boolean(s.with_backwards_compatible_min_max(signed)),
        Statistics::Int32(s) => Statistics::Int32(s.with_backwards_compatible_min_max(signed)),
        Statistics::Int64(s) => Statistics::Int64(s.with_backwards_compatible_min_max(signed)),
        Statistics::Int96(s) => Statistics::Int96(s.with_backwards_compatible_min_max(signed)),
        Statistics::Float(s) => Statistics::Float(s.with_backwards_compatible_min_max(signed)),
        Statistics::Double(s) => Statistics::Double(s.with_backwards_compatible_min_max(signed)),
        Statistics::ByteArray(s) => {
            Statistics::ByteArray(s.with_backwards_compatible_min_max(signed))
        }
        Statistics::FixedLenByteArray(s) => {
            Statistics::FixedLenByteArray(s.with_backwards_compatible_min_max(signed))
        }
    };
    Ok(column.into_builder().set_statistics(statistics).build()?)
}

/// The footer of a row group's own file, checked to be one that [`encode_from_cache`] can copy
/// whole into a file of `columns`: one row group of `rows` rows, the same columns, no column
/// index, every chunk and page inside the file. Anything else is [`FormatError::Damaged`].
fn group_file_metadata(
    bytes: &[u8],
    columns: &[ColumnDescPtr],
    rows: usize,
) -> Result<ParquetMetaData, FormatError> {
    // The pages' encoding statistics as the writer wrote them (not folded into a mask, as the
    // reader does by default), so that the footer entry rebuilt around the copy is the same.
    // Inside `decoding`: a cache may hold anything its checksums let through.
    let metadata = crate::contain::decoding("a cached row group's footer", || {
        let options = ParquetMetaDataOptions::new().with_encoding_stats_as_mask(false);
        Ok(ParquetMetaDataReader::new()
            .with_metadata_options(Some(options))
            .with_offset_index_policy(PageIndexPolicy::Optional)
            .parse_and_finish(&Blob(bytes))?)
    })?;
    check_chunk_ranges_within(&metadata, bytes.len() as u64)?;
    let [group] = metadata.row_groups() else {
        return Err(damaged(format!(
            "a cached row group's file holds {} row groups",
            metadata.num_row_groups()
        )));
    };
    let described = group.columns().iter().map(|c| c.column_descr());
    if group.num_rows() != rows as i64
        || group.columns().len() != columns.len()
        || !described.eq(columns.iter().map(|c| c.as_ref()))
    {
        return Err(damaged(
            "a cached row group's rows or columns differ".into(),
        ));
    }
    let page_index = metadata.page_index_for_row_group(0);
    for (c, column) in group.columns().iter().enumerate() {
        let start = column
            .dictionary_page_offset()
            .unwrap_or(column.data_page_offset());
        let end = start.saturating_add(column.compressed_size());
        let pages_inside = page_index.offset_index(c).is_none_or(|index| {
            index.page_locations().iter().all(|page| {
                page.offset >= start
                    && page
                        .offset
                        .saturating_add(i64::from(page.compressed_page_size))
                        <= end
            })
        });
        if column.column_index_offset().is_some() || !pages_inside {
            return Err(damaged(format!(
                "a cached row group's column {} has pages outside its chunk or a column index",
                column.column_path()
            )));
        }
    }
    Ok(metadata)
}

/// Sorts rows, writes `<dir>/<table>.parquet` and returns its manifest entry.
///
/// The caller is responsible for `dir` being a private temporary folder (the store makes the
/// snapshot visible atomically); the file is fsynced before returning.
pub fn write_table<T: Table>(dir: &Path, rows: &mut [T]) -> Result<FileEntry, FormatError> {
    Syncs::around(|syncs| write_table_to(syncs, dir, rows))
}

/// [`write_table`], with the file's flush to disk left to `syncs`.
pub fn write_table_to<T: Table>(
    syncs: &Syncs,
    dir: &Path,
    rows: &mut [T],
) -> Result<FileEntry, FormatError> {
    let bytes = encode_table(rows)?;
    write_entry::<T>(syncs, dir, T::INFO.file_name(), rows.len(), &bytes)
}

/// [`write_table_to`] for rows that [`encode_sorted`] already encoded as `bytes`. The rows must
/// not have changed since: debug builds (every test) encode them again and compare.
pub fn write_encoded_to<T: Table>(
    syncs: &Syncs,
    dir: &Path,
    rows: &mut [T],
    bytes: &[u8],
) -> Result<FileEntry, FormatError> {
    debug_assert!(
        encode_table(rows).is_ok_and(|again| again == bytes),
        "{}: rows changed after they were encoded",
        T::INFO.name
    );
    write_entry::<T>(syncs, dir, T::INFO.file_name(), rows.len(), bytes)
}

/// Writes a table's file `<dir>/<file>` (flushed by `syncs`) and returns its manifest entry.
fn write_entry<T: Table>(
    syncs: &Syncs,
    dir: &Path,
    file: String,
    rows: usize,
    bytes: &[u8],
) -> Result<FileEntry, FormatError> {
    syncs.write(&dir.join(&file), bytes)?;
    Ok(FileEntry {
        name: T::INFO.name.to_string(),
        file,
        rows: rows as i64,
        bytes: bytes.len() as i64,
        hash: file_hash(bytes),
    })
}

/// Writes bytes to a new file and fsyncs it.
pub fn write_file_synced(path: &Path, bytes: &[u8]) -> Result<(), FormatError> {
    Syncs::around(|syncs| syncs.write(path, bytes))
}

/// New files whose flush to disk is under way.
///
/// A snapshot is a handful of files that must all be on disk before the folder is published.
/// Flushing each one right after writing it held a worker for about a millisecond per file (the
/// wait for the filesystem's journal commit) while tables were still to be encoded. Here each
/// written file is flushed on a thread of its own: the flushes overlap the remaining encoding and
/// one another (concurrent fsyncs share journal commits), and [`Syncs::wait`] returns when every
/// file is durable, or with the first error. Nothing is lost by waiting later: the folder is
/// private until the caller publishes it, which it does only after `wait` succeeded.
#[derive(Default)]
pub struct Syncs {
    pending: std::sync::Mutex<Vec<Pending>>,
}

/// A file being flushed: its path (for the error) and the flushing thread.
type Pending = (PathBuf, std::thread::JoinHandle<std::io::Result<()>>);

impl Syncs {
    /// Runs `write` with fresh `Syncs` and returns its result once every file it wrote is on
    /// disk.
    pub fn around<R>(
        write: impl FnOnce(&Syncs) -> Result<R, FormatError>,
    ) -> Result<R, FormatError> {
        let syncs = Syncs::default();
        let result = write(&syncs)?;
        syncs.wait()?;
        Ok(result)
    }

    /// Creates `path` with `bytes` and starts flushing it. Write errors are returned at once;
    /// flush errors by [`Syncs::wait`].
    pub fn write(&self, path: &Path, bytes: &[u8]) -> Result<(), FormatError> {
        let io = |source| FormatError::Io {
            path: path.display().to_string(),
            source,
        };
        crate::failpoint::hit("write").map_err(io)?;
        let mut f = File::create(path).map_err(io)?;
        f.write_all(bytes).map_err(io)?;
        self.flush(path, f)
    }

    /// Starts flushing an open file (or folder: its entries) to disk.
    pub fn flush(&self, path: &Path, file: File) -> Result<(), FormatError> {
        let io = |source| FormatError::Io {
            path: path.display().to_string(),
            source,
        };
        // Without a thread (the process is at its limit), flush here: slower, as durable.
        let file = std::sync::Arc::new(file);
        let handle = {
            let file = std::sync::Arc::clone(&file);
            std::thread::Builder::new()
                .name("ckb-fsync".into())
                .spawn(move || {
                    crate::failpoint::hit("fsync")?;
                    file.sync_all()
                })
        };
        match handle {
            Ok(handle) => {
                self.pending
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push((path.to_path_buf(), handle));
                Ok(())
            }
            Err(_) => file.sync_all().map_err(io),
        }
    }

    /// Waits until every file is on disk; the first failure (in the order the files were
    /// written) is the error.
    pub fn wait(self) -> Result<(), FormatError> {
        let pending = self
            .pending
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut first = Ok(());
        for (path, handle) in pending {
            let result = handle.join().unwrap_or_else(|_| {
                Err(std::io::Error::other(
                    "the thread flushing the file panicked",
                ))
            });
            if let (Ok(()), Err(source)) = (&first, result) {
                first = Err(FormatError::Io {
                    path: path.display().to_string(),
                    source,
                });
            }
        }
        first
    }
}

/// File name of a table's JSON Lines export.
pub fn jsonl_file_name(table: &TableInfo) -> String {
    format!("{}.jsonl.zst", table.name)
}

/// Writes rows (already in canonical order, e.g. after [`write_table`]) as zstd-compressed JSON
/// Lines: one canonical JSON object per row, nulls omitted. For consumers without Parquet.
pub fn write_jsonl<T: Table>(dir: &Path, rows: &[T]) -> Result<FileEntry, FormatError> {
    Syncs::around(|syncs| write_jsonl_to(syncs, dir, rows))
}

/// [`write_jsonl`], with the file's flush to disk left to `syncs`.
pub fn write_jsonl_to<T: Table>(
    syncs: &Syncs,
    dir: &Path,
    rows: &[T],
) -> Result<FileEntry, FormatError> {
    let mut text = String::new();
    for row in rows {
        text.push_str(&crate::json::value_to_string(&row.to_json(), false));
        text.push('\n');
    }
    let bytes = crate::manifest::compress_json(&text)?;
    write_entry::<T>(syncs, dir, jsonl_file_name(T::INFO), rows.len(), &bytes)
}

/// Rows per record batch of the table readers.
const READ_BATCH_ROWS: usize = 65_536;

/// A reader of the top-level column `index` of a table file alone (each batch has that one
/// column).
fn column_reader(
    file: TableFile,
    metadata: ArrowReaderMetadata,
    index: usize,
) -> Result<ParquetRecordBatchReader, FormatError> {
    let mask = ProjectionMask::roots(metadata.parquet_schema(), [index]);
    Ok(
        ParquetRecordBatchReaderBuilder::new_with_metadata(file, metadata)
            .with_projection(mask)
            .with_batch_size(READ_BATCH_ROWS)
            .build()?,
    )
}

/// Reads every row of a table file.
pub fn read_table<T: Table>(path: &Path) -> Result<Vec<T>, FormatError> {
    let mut rows = Vec::new();
    for_each_batch::<T>(path, |batch| {
        rows.extend(batch);
        Ok(())
    })?;
    Ok(rows)
}

/// Reads a table file batch by batch and checks that its rows are in the table's order and
/// repeat no unique key ([`crate::table::RowOrderCheck`]), holding one batch at a time.
pub fn check_rows<T: Table>(path: &Path) -> Result<(), FormatError> {
    let mut check = crate::table::RowOrderCheck::<T>::default();
    for_each_batch::<T>(path, |batch| check.next_rows(batch))
}

/// Decodes a table file's rows a batch at a time, in file order, and hands each batch to
/// `visit`: the one guarded read [`read_table`] and [`check_rows`] share.
fn for_each_batch<T: Table>(
    path: &Path,
    mut visit: impl FnMut(Vec<T>) -> Result<(), FormatError>,
) -> Result<(), FormatError> {
    crate::contain::decoding(&path.display().to_string(), || {
        let (file, metadata) = open_guarded(path, DictionaryColumns::All)?;
        let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(file, metadata)
            .with_batch_size(READ_BATCH_ROWS)
            .build()?;
        for batch in reader {
            visit(T::from_batch(&batch?)?)?;
        }
        Ok(())
    })
}

/// Reads one column of a table file, in row order, without decoding the others: for a reader that
/// needs a single column of a large table (the identity stage's previous stable IDs). `column` must
/// be one `T` declares.
pub fn read_column<T: Table, C: crate::Column>(
    path: &Path,
    column: &str,
) -> Result<Vec<C>, FormatError> {
    let missing = || FormatError::MissingColumn {
        table: T::INFO.name.to_string(),
        column: column.to_string(),
    };
    if !T::INFO.columns.iter().any(|c| c.name == column) {
        return Err(missing());
    }
    crate::contain::decoding(&path.display().to_string(), || {
        let (file, metadata) = open_guarded(path, DictionaryColumns::Stored)?;
        let index = metadata.schema().index_of(column).map_err(|_| missing())?;
        let mut values = Vec::new();
        for batch in column_reader(file, metadata, index)? {
            values.extend(C::from_array(batch?.column(0).as_ref(), column)?);
        }
        Ok(values)
    })
}

/// Opens a table file that ckb did not just write for `ckb query`'s lookups: the footer loaded
/// and range-checked, every read confined to a column chunk whose pages were checked first
/// ([`TableFile`]). Returns the file and its reader metadata, from which a reader builds one
/// `ParquetRecordBatchReaderBuilder` per pass over the file (they share the file handle, the
/// footer and the pages already checked).
///
/// A string column that the file stores with a dictionary in every row group is read in
/// dictionary form ([`DictionaryColumns::Stored`]): a lookup tests each distinct value once, and
/// rows it drops never have their string copied out of the dictionary. A column stored plain (the
/// unique IDs) stays a plain string column: read as a dictionary, each value would be hashed to
/// build one.
pub fn open_table(path: &Path) -> Result<(TableFile, ArrowReaderMetadata), FormatError> {
    open_guarded(path, DictionaryColumns::Stored)
}

/// Which string columns a reader asks Parquet for in dictionary form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DictionaryColumns {
    /// Every top-level string column.
    All,
    /// The top-level string columns that have a dictionary page in every row group.
    Stored,
}

/// A table file and its reader metadata (string columns in dictionary form as `dictionaries`
/// says).
fn open_guarded(
    path: &Path,
    dictionaries: DictionaryColumns,
) -> Result<(TableFile, ArrowReaderMetadata), FormatError> {
    let file = open_table_file(path)?;
    let metadata = reader_metadata(&file, dictionaries)?;
    let guarded = TableFile::new(file, metadata.metadata())?;
    Ok((guarded, metadata))
}

/// Whether every row group of a file stores the top-level column `name` with a dictionary page.
fn stored_with_dictionary(metadata: &parquet::file::metadata::ParquetMetaData, name: &str) -> bool {
    let leaves = metadata.file_metadata().schema_descr().columns();
    let Some(leaf) = leaves
        .iter()
        .position(|c| c.path().parts() == [name.to_string()])
    else {
        return false;
    };
    metadata
        .row_groups()
        .iter()
        .all(|g| g.column(leaf).dictionary_page_offset().is_some())
}

/// A file's reader metadata, asking for top-level string columns in dictionary form
/// (`dictionaries`: all of them, or those stored with a dictionary).
///
/// ckb writes string columns dictionary-encoded, and most of their values repeat (paths, kinds,
/// the IDs many rows point at): read as dictionaries, each distinct value is decoded once and rows
/// refer to it, instead of Parquet first copying every row's bytes into one value buffer. The
/// column decoders accept both forms, so a file whose chunks are not dictionary-encoded reads the
/// same.
fn reader_metadata(
    file: &File,
    dictionaries: DictionaryColumns,
) -> Result<ArrowReaderMetadata, FormatError> {
    let plain = load_metadata(file)?;
    let fields: Vec<_> = plain
        .schema()
        .fields()
        .iter()
        .map(|f| {
            let wanted = match dictionaries {
                DictionaryColumns::All => true,
                DictionaryColumns::Stored => stored_with_dictionary(plain.metadata(), f.name()),
            };
            match f.data_type() {
                DataType::Utf8 if wanted => Arc::new(f.as_ref().clone().with_data_type(
                    DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
                )),
                _ => f.clone(),
            }
        })
        .collect();
    let schema = Arc::new(Schema::new_with_metadata(
        fields,
        plain.schema().metadata().clone(),
    ));
    Ok(ArrowReaderMetadata::try_new(
        plain.metadata().clone(),
        ArrowReaderOptions::new().with_schema(schema),
    )?)
}

/// Loads the footer of a table file that ckb did not just write: checked before the `parquet`
/// crate parses it ([`crate::table_file::check_footer`]), and every column chunk inside the file
/// ([`check_chunk_ranges`]).
pub fn load_metadata(file: &File) -> Result<ArrowReaderMetadata, FormatError> {
    crate::table_file::check_footer(file)?;
    let metadata = ArrowReaderMetadata::load(file, ArrowReaderOptions::default())?;
    check_chunk_ranges(metadata.metadata(), file)?;
    Ok(metadata)
}

/// The most rows per byte of a row group's column chunks that a reader accepts. The decoders
/// produce as many rows as the footer claims, and run-length encoding lets a few bytes stand for
/// any number of them: this bounds a reader's work and memory by the file's size. Tables ckb
/// writes hold under one row per byte (ripgrep's snapshot: 0.12 at most, in `call_edges`).
pub const MAX_ROWS_PER_BYTE: i64 = 64;

/// Refuses a file whose footer places a column chunk outside the file: a negative offset or size
/// (the `parquet` crate asserts they are not negative, so it would panic while reading) or a
/// chunk that ends past the file's last byte; or whose row groups claim more rows than ckb
/// writes in one ([`ROW_GROUP_ROWS`]) or than their bytes can hold ([`MAX_ROWS_PER_BYTE`]). Any
/// reader of a file that ckb did not just write calls this right after loading the footer: a
/// previous snapshot's tables, a snapshot a query opens, `ckb verify`.
pub fn check_chunk_ranges(
    metadata: &parquet::file::metadata::ParquetMetaData,
    file: &File,
) -> Result<(), FormatError> {
    let file_len = file.metadata().map(|m| m.len()).unwrap_or(u64::MAX);
    check_chunk_ranges_within(metadata, file_len)
}

/// [`check_chunk_ranges`] for a file of `file_len` bytes.
fn check_chunk_ranges_within(
    metadata: &parquet::file::metadata::ParquetMetaData,
    file_len: u64,
) -> Result<(), FormatError> {
    for (g, group) in metadata.row_groups().iter().enumerate() {
        let rows = group.num_rows();
        if !(0..=ROW_GROUP_ROWS as i64).contains(&rows) {
            return Err(damaged(format!(
                "row group {g} has {rows} rows; ckb writes at most {ROW_GROUP_ROWS} per row group"
            )));
        }
        let mut bytes = 0i64;
        for column in group.columns() {
            bytes = bytes.saturating_add(column.compressed_size().max(0));
            let start = column
                .dictionary_page_offset()
                .unwrap_or(column.data_page_offset());
            let len = column.compressed_size();
            let end = u64::try_from(start)
                .ok()
                .zip(u64::try_from(len).ok())
                .and_then(|(s, l)| s.checked_add(l));
            if column.data_page_offset() < 0 || end.is_none_or(|e| e > file_len) {
                return Err(damaged(format!(
                    "column chunk {} of row group {g} lies outside the file (offset {start}, \
                     {len} bytes, file {file_len} bytes)",
                    column.column_path()
                )));
            }
        }
        if rows > bytes.saturating_mul(MAX_ROWS_PER_BYTE) {
            return Err(damaged(format!(
                "row group {g} claims {rows} rows in {bytes} bytes; a table ckb writes takes at \
                 least a byte per {MAX_ROWS_PER_BYTE} rows"
            )));
        }
    }
    Ok(())
}

fn damaged(what: String) -> FormatError {
    parquet::errors::ParquetError::General(format!("damaged file: {what}")).into()
}

/// Opens a table file, naming it in the error.
fn open_table_file(path: &Path) -> Result<File, FormatError> {
    File::open(path).map_err(|source| FormatError::Io {
        path: path.display().to_string(),
        source,
    })
}

/// Rows per slice that [`read_table_parallel`] turns into rows on one worker.
const DECODE_SLICE_ROWS: usize = 4096;

/// Reads every row of a table file, like [`read_table`] (same rows, same order), with the work
/// spread over the rayon pool: each column is decoded by its own reader (all sharing the file's
/// metadata, read once), then slices of rows are built side by side. For the large tables a
/// one-file commit reads back from the previous snapshot, where decoding on one core was the
/// longest step.
pub fn read_table_parallel<T: Table>(path: &Path) -> Result<Vec<T>, FormatError> {
    read_table_parallel_with_room(path, 0)
}

/// [`read_table_parallel`] into a `Vec` with room for `room` more rows: a caller that will insert
/// rows into what it read does so without the `Vec` being copied to a larger buffer. Room that is
/// never used is only address space (the pages are not touched).
pub fn read_table_parallel_with_room<T: Table>(
    path: &Path,
    room: usize,
) -> Result<Vec<T>, FormatError> {
    let what = path.display().to_string();
    crate::contain::decoding(&what, || read_table_parallel_contained(path, &what, room))
}

fn read_table_parallel_contained<T: Table>(
    path: &Path,
    what: &str,
    room: usize,
) -> Result<Vec<T>, FormatError> {
    let (file, metadata) = open_guarded(path, DictionaryColumns::All)?;
    let schema = metadata.schema().clone();
    // One reader per top-level column, all reading the one file by offset; each worker contains
    // its own decoder's panic (a panic hook runs on the thread that panicked).
    let columns: Vec<Vec<ArrayRef>> = (0..schema.fields().len())
        .into_par_iter()
        .map(|i| -> Result<Vec<ArrayRef>, FormatError> {
            crate::contain::decoding(what, || {
                column_reader(file.clone(), metadata.clone(), i)?
                    .map(|batch| Ok(batch?.column(0).clone()))
                    .collect()
            })
        })
        .collect::<Result<_, _>>()?;
    // Every column's reader cuts batches at the same rows (batch size, row groups); a file where
    // they do not is damaged, and no batch of it is dropped silently.
    let batches = columns.first().map_or(0, Vec::len);
    if columns.iter().any(|c| c.len() != batches) {
        return Err(parquet::errors::ParquetError::General(format!(
            "{}: columns decoded into different batches",
            path.display()
        ))
        .into());
    }
    let mut decoded = Vec::with_capacity(batches);
    let mut starts = Vec::with_capacity(batches);
    let mut total = 0;
    for b in 0..batches {
        let arrays: Vec<ArrayRef> = columns.iter().map(|c| c[b].clone()).collect();
        let batch = RecordBatch::try_new(schema.clone(), arrays)?;
        starts.push(total);
        total += batch.num_rows();
        decoded.push(batch);
    }
    drop(columns);
    // Rows are built on the workers, a slice at a time, and rayon's collect moves each one
    // straight to its place in the vector that is returned. (Collecting each slice's rows first
    // and appending them after was a serial copy of the whole table into fresh pages, on the
    // longest path of a one-file commit.) A row is an `Option` so that a slice that fails to
    // decode still fills its places; the error is then returned instead of the rows.
    let failure = std::sync::Mutex::new(None);
    let source = DecodedBatches {
        batches: &decoded,
        starts: &starts,
        failure: &failure,
    };
    let mut cells: Vec<Option<T>> = Vec::with_capacity(total + room);
    DecodedRows::<T> {
        source: &source,
        total,
        row: PhantomData,
    }
    .collect_into_vec(&mut cells);
    if let Some(error) = failure
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
    {
        return Err(error);
    }
    // In place: an `Option` of a row is the size of the row, so the buffer (and the room in it)
    // is kept as it is.
    let rows: Vec<T> = cells.into_iter().map_while(|row| row).collect();
    if rows.len() != total {
        return Err(parquet::errors::ParquetError::General(format!(
            "{}: {} of {total} rows decoded",
            path.display(),
            rows.len()
        ))
        .into());
    }
    Ok(rows)
}

/// A table's decoded batches, turned into rows by [`DecodedRows`].
struct DecodedBatches<'a> {
    batches: &'a [RecordBatch],
    /// The table row each batch starts at.
    starts: &'a [usize],
    /// The first slice that failed to turn into rows.
    failure: &'a std::sync::Mutex<Option<FormatError>>,
}

impl DecodedBatches<'_> {
    /// The slice of [`DECODE_SLICE_ROWS`] rows (cut per batch) holding table row `row`: its
    /// batch, and the slice's first and end rows in the table.
    fn slice_of(&self, row: usize) -> (usize, usize, usize) {
        let b = self.starts.partition_point(|&s| s <= row) - 1;
        let (start, rows) = (self.starts[b], self.batches[b].num_rows());
        let first = (row - start) / DECODE_SLICE_ROWS * DECODE_SLICE_ROWS;
        (
            b,
            start + first,
            start + rows.min(first + DECODE_SLICE_ROWS),
        )
    }

    /// Table rows `from..to` (within one batch) as rows; `None` after recording the failure.
    fn rows<T: Table>(&self, b: usize, from: usize, to: usize) -> Option<Vec<T>> {
        let offset = from - self.starts[b];
        let decoded = T::from_batch(&self.batches[b].slice(offset, to - from)).and_then(|rows| {
            if rows.len() == to - from {
                Ok(rows)
            } else {
                Err(FormatError::ShortColumn {
                    column: format!("rows {from}..{to}"),
                })
            }
        });
        match decoded {
            Ok(rows) => Some(rows),
            Err(error) => {
                let mut failure = self
                    .failure
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                failure.get_or_insert(error);
                None
            }
        }
    }
}

/// Every row of [`DecodedBatches`] as an indexed parallel iterator.
struct DecodedRows<'a, T> {
    source: &'a DecodedBatches<'a>,
    total: usize,
    row: PhantomData<fn() -> T>,
}

impl<T: Table + Send> ParallelIterator for DecodedRows<'_, T> {
    type Item = Option<T>;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.total)
    }
}

impl<T: Table + Send> IndexedParallelIterator for DecodedRows<'_, T> {
    fn len(&self) -> usize {
        self.total
    }

    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        callback.callback(RowRange::<T> {
            source: self.source,
            front: 0,
            back: self.total,
            row: PhantomData,
        })
    }
}

/// Table rows `front..back`, for rayon to split among workers.
struct RowRange<'a, T> {
    source: &'a DecodedBatches<'a>,
    front: usize,
    back: usize,
    row: PhantomData<fn() -> T>,
}

impl<'a, T: Table + Send> Producer for RowRange<'a, T> {
    type Item = Option<T>;
    type IntoIter = RowIter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        RowIter {
            source: self.source,
            front: self.front,
            back: self.back,
            front_rows: Rows::default(),
            back_rows: Rows::default(),
        }
    }

    fn min_len(&self) -> usize {
        // A split inside a slice decodes that slice in two pieces: not for a few rows.
        DECODE_SLICE_ROWS / 4
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let mid = self.front + index;
        (
            RowRange { back: mid, ..self },
            RowRange { front: mid, ..self },
        )
    }
}

/// Rows decoded ahead of iteration, or the number of places left by a slice that failed.
enum Rows<T> {
    Decoded(std::vec::IntoIter<T>),
    Failed(usize),
}

impl<T> Default for Rows<T> {
    fn default() -> Self {
        Rows::Failed(0)
    }
}

impl<T> Rows<T> {
    fn len(&self) -> usize {
        match self {
            Rows::Decoded(rows) => rows.len(),
            Rows::Failed(n) => *n,
        }
    }

    fn take(&mut self, back: bool) -> Option<Option<T>> {
        match self {
            Rows::Decoded(rows) if back => rows.next_back().map(Some),
            Rows::Decoded(rows) => rows.next().map(Some),
            Rows::Failed(0) => None,
            Rows::Failed(n) => {
                *n -= 1;
                Some(None)
            }
        }
    }
}

/// Iterates [`RowRange`], decoding a slice (at most up to the range's ends) when the rows
/// decoded so far run out: from the front for `next`, from the back for `next_back`.
struct RowIter<'a, T> {
    source: &'a DecodedBatches<'a>,
    /// Rows `front..back` are not decoded yet.
    front: usize,
    back: usize,
    /// Decoded rows just before `front`, and just after `back`.
    front_rows: Rows<T>,
    back_rows: Rows<T>,
}

impl<T: Table> RowIter<'_, T> {
    fn decoded(&self, b: usize, from: usize, to: usize) -> Rows<T> {
        match self.source.rows(b, from, to) {
            Some(rows) => Rows::Decoded(rows.into_iter()),
            None => Rows::Failed(to - from),
        }
    }
}

impl<T: Table> Iterator for RowIter<'_, T> {
    type Item = Option<T>;

    fn next(&mut self) -> Option<Option<T>> {
        if let Some(row) = self.front_rows.take(false) {
            return Some(row);
        }
        if self.front < self.back {
            let (b, _, end) = self.source.slice_of(self.front);
            let to = end.min(self.back);
            self.front_rows = self.decoded(b, self.front, to);
            self.front = to;
            return self.front_rows.take(false);
        }
        self.back_rows.take(false)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.front_rows.len() + (self.back - self.front) + self.back_rows.len();
        (n, Some(n))
    }
}

impl<T: Table> DoubleEndedIterator for RowIter<'_, T> {
    fn next_back(&mut self) -> Option<Option<T>> {
        if let Some(row) = self.back_rows.take(true) {
            return Some(row);
        }
        if self.front < self.back {
            let (b, start, _) = self.source.slice_of(self.back - 1);
            let from = start.max(self.front);
            self.back_rows = self.decoded(b, from, self.back);
            self.back = from;
            return self.back_rows.take(true);
        }
        self.front_rows.take(true)
    }
}

impl<T: Table> ExactSizeIterator for RowIter<'_, T> {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::{CommitRow, SymbolRow};
    use crate::SharedStr;

    fn commit(sha: &str, t: i64) -> CommitRow {
        CommitRow {
            sha: sha.into(),
            parents: vec!["p".into()],
            author_time: t,
            committer_time: t,
            author_id: "a".into(),
            is_bot: false,
            files_changed: 1,
            additions: 2,
            deletions: 3,
        }
    }

    #[test]
    fn same_rows_in_any_order_give_identical_bytes() {
        let mut a = vec![commit("b", 2), commit("a", 2), commit("c", 1)];
        let mut b = vec![commit("c", 1), commit("b", 2), commit("a", 2)];
        assert_eq!(encode_table(&mut a).unwrap(), encode_table(&mut b).unwrap());
    }

    #[test]
    fn parquet_round_trips_through_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut rows = vec![commit("b", 2), commit("a", 1)];
        let entry = write_table(dir.path(), &mut rows).unwrap();
        assert_eq!(entry.rows, 2);
        assert_eq!(entry.file, "commits.parquet");
        let bytes = std::fs::read(dir.path().join("commits.parquet")).unwrap();
        assert_eq!(entry.hash, file_hash(&bytes));
        let back: Vec<CommitRow> = read_table(&dir.path().join("commits.parquet")).unwrap();
        assert_eq!(back, rows);
    }

    #[test]
    fn one_column_reads_as_the_rows_hold_it() {
        let dir = tempfile::tempdir().unwrap();
        // More rows than one batch and one row group, so that the reader's batches and the
        // file's row groups are both crossed.
        let mut rows: Vec<CommitRow> = (0..(ROW_GROUP_ROWS as i64 + 70_000))
            .map(|i| commit(&format!("{i:07}"), i % 5))
            .collect();
        write_table(dir.path(), &mut rows).unwrap();
        let path = dir.path().join("commits.parquet");
        // Strings read as plain arrays or dictionary arrays alike (see `plain_columns_…` for
        // a column stored without a dictionary), and other types too.
        let shas: Vec<SharedStr> = read_column::<CommitRow, _>(&path, "sha").unwrap();
        let want: Vec<&str> = rows.iter().map(|r| r.sha.as_str()).collect();
        assert_eq!(shas.iter().map(|s| s.as_str()).collect::<Vec<_>>(), want);
        let authors: Vec<String> = read_column::<CommitRow, _>(&path, "author_id").unwrap();
        assert_eq!(authors.len(), rows.len());
        assert!(authors.iter().all(|a| a == "a"));
        let times: Vec<i64> = read_column::<CommitRow, _>(&path, "author_time").unwrap();
        assert_eq!(
            times,
            rows.iter().map(|r| r.author_time).collect::<Vec<_>>()
        );
        // A column the table does not declare is refused before the file is opened.
        let err = read_column::<CommitRow, String>(&dir.path().join("absent"), "nope").unwrap_err();
        assert!(
            matches!(&err, FormatError::MissingColumn { table, column } if table == "commits" && column == "nope"),
            "{err}"
        );
    }

    #[test]
    fn plain_columns_exist_and_are_written_without_a_dictionary() {
        for (table, column) in PLAIN_COLUMNS {
            let info = crate::table_info(table).unwrap_or_else(|| panic!("no table {table}"));
            assert!(
                info.columns.iter().any(|c| c.name == *column),
                "{table}.{column}: no such column"
            );
        }
        let dir = tempfile::tempdir().unwrap();
        let symbol = |id: &str, name: &str| SymbolRow {
            stable_id: id.into(),
            name: name.into(),
            kind: "function".into(),
            container: None,
            signature: Some(format!("fn {name}()")),
            arity: Some(0),
            definition_version_id: format!("v-{id}"),
            visibility: "public".into(),
            visibility_confidence: 1.0,
            visibility_source: "modifier".into(),
            module_id: None,
            language: Some("rust".into()),
            path: "src/lib.rs".into(),
            start_line: 1,
            start_col: 1,
            end_line: 2,
            end_col: 2,
            source: "tree-sitter".into(),
            backend_id: None,
            body_hash: Some(format!("h-{id}")),
        };
        // 1 000 rows: four pages of at most `PLAIN_PAGE_ROWS` in a plain column, one in the others.
        let mut rows: Vec<SymbolRow> = (0..1000)
            .map(|i| symbol(&format!("s{i:04}"), ["a", "b", "c"][i % 3]))
            .collect();
        write_table(dir.path(), &mut rows).unwrap();
        let ids: Vec<SharedStr> =
            read_column::<SymbolRow, _>(&dir.path().join("symbols.parquet"), "stable_id").unwrap();
        assert!(ids
            .iter()
            .map(|s| s.as_str())
            .eq(rows.iter().map(|r| r.stable_id.as_str())));
        let file = File::open(dir.path().join("symbols.parquet")).unwrap();
        let metadata = ArrowReaderMetadata::load(&file, ArrowReaderOptions::new()).unwrap();
        let reader = parquet::file::serialized_reader::SerializedFileReader::new(file).unwrap();
        let group = parquet::file::reader::FileReader::get_row_group(&reader, 0).unwrap();
        for (i, column) in metadata
            .metadata()
            .row_group(0)
            .columns()
            .iter()
            .enumerate()
        {
            let name = column.column_path().string();
            let plain = PLAIN_COLUMNS.contains(&("symbols", name.as_str()));
            assert_eq!(
                column.dictionary_page_offset().is_none(),
                plain,
                "symbols.{name}: a dictionary page only where not listed"
            );
            let mut data_pages = Vec::new();
            for page in group.get_column_page_reader(i).unwrap() {
                let page = page.unwrap();
                if page.page_type() != parquet::basic::PageType::DICTIONARY_PAGE {
                    data_pages.push(page.num_values());
                }
            }
            let expected: &[u32] = if plain {
                &[256, 256, 256, 232]
            } else {
                &[1000]
            };
            assert_eq!(data_pages, expected, "symbols.{name}: rows per data page");
        }
    }

    /// Readers skip row groups by each column chunk's min and max (`queries`' reader, DuckDB),
    /// so every chunk must carry them; pages carry none (see [`STATISTICS`]).
    #[test]
    fn every_column_chunk_has_min_and_max_and_pages_have_no_index() {
        let dir = tempfile::tempdir().unwrap();
        let mut rows = vec![commit("b", 2), commit("a", 1), commit("c", 3)];
        write_table(dir.path(), &mut rows).unwrap();
        let file = File::open(dir.path().join("commits.parquet")).unwrap();
        let metadata = ArrowReaderMetadata::load(&file, ArrowReaderOptions::new()).unwrap();
        let group = metadata.metadata().row_group(0);
        for column in group.columns() {
            let path = column.column_path();
            let stats = column
                .statistics()
                .unwrap_or_else(|| panic!("{path}: no statistics"));
            assert!(
                stats.min_bytes_opt().is_some() && stats.max_bytes_opt().is_some(),
                "{path}: no min or max"
            );
            assert!(
                column.column_index_offset().is_none(),
                "{path}: pages carry statistics"
            );
        }
    }

    #[test]
    fn syncs_flush_every_file_and_name_the_one_that_fails() {
        let dir = tempfile::tempdir().unwrap();
        let syncs = Syncs::default();
        for i in 0..5 {
            syncs
                .write(
                    &dir.path().join(format!("f{i}")),
                    format!("bytes {i}").as_bytes(),
                )
                .unwrap();
        }
        syncs
            .flush(dir.path(), File::open(dir.path()).unwrap())
            .unwrap();
        syncs.wait().unwrap();
        for i in 0..5 {
            let text = std::fs::read_to_string(dir.path().join(format!("f{i}"))).unwrap();
            assert_eq!(text, format!("bytes {i}"));
        }
        let missing = dir.path().join("no-such-folder").join("f");
        match Syncs::default().write(&missing, b"x") {
            Err(FormatError::Io { path, .. }) => assert!(path.ends_with("f"), "{path}"),
            other => panic!("{other:?}"),
        }
        Syncs::default().wait().unwrap();
    }

    #[test]
    fn jsonl_export_is_canonical_and_ordered() {
        let dir = tempfile::tempdir().unwrap();
        let mut rows = vec![commit("b", 2), commit("a", 1)];
        write_table(dir.path(), &mut rows).unwrap();
        let entry = write_jsonl(dir.path(), &rows).unwrap();
        assert_eq!(entry.file, "commits.jsonl.zst");
        let bytes = std::fs::read(dir.path().join(&entry.file)).unwrap();
        let text = String::from_utf8(crate::manifest::decompress(&bytes).unwrap()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(
            lines[0].starts_with(r#"{"additions":2,"author_id":"a","author_time":1,"#),
            "{}",
            lines[0]
        );
        assert!(lines[0].contains(r#""parents":["p"]"#) && lines[0].contains(r#""sha":"a""#));
    }

    /// The reference encoding: the batch through `ArrowWriter`, one column after another, a row
    /// group per range of `groups`.
    fn encode_serially(table: &TableInfo, batch: &RecordBatch, groups: &[Range<usize>]) -> Vec<u8> {
        let mut buffer = Vec::new();
        let mut writer =
            ArrowWriter::try_new(&mut buffer, batch.schema(), Some(writer_properties(table)))
                .unwrap();
        for range in groups {
            writer
                .write(&batch.slice(range.start, range.len()))
                .unwrap();
            writer.flush().unwrap();
        }
        writer.close().unwrap();
        buffer
    }

    /// [`encode_serially`] of rows, cut where the writer cuts them.
    fn encode_rows_serially<T: Table>(rows: &mut [T]) -> Vec<u8> {
        let groups = row_groups(SortedRows::sort(rows).rows(), group_rows(T::INFO));
        encode_serially(T::INFO, &crate::table::to_record_batch(rows), &groups)
    }

    #[test]
    fn parallel_columns_give_the_bytes_of_the_serial_writer() {
        use crate::tables::OccurrenceRow;
        use crate::Roles;
        // More rows than one row group holds, nulls, a list column and repeated strings.
        let mut rows: Vec<OccurrenceRow> = (0..ROW_GROUP_ROWS + 60_000)
            .map(|i| OccurrenceRow {
                symbol_id: (i % 3 != 0).then(|| format!("sym{}", i % 977).into()),
                name: format!("name{}", i % 131).into(),
                // Rows spread over a thousand files, and one file of more rows than a row group
                // holds.
                path: match i {
                    20_000..=151_500 => "src/big.rs".into(),
                    _ => format!("src/f{}.rs", (i * i / 7919) % 1000).into(),
                },
                line: (i % 4000) as i32 + 1,
                col: (i % 80) as i32 + 1,
                end_line: (i % 4000) as i32 + 1,
                end_col: (i % 80) as i32 + 9,
                // The writer's roles are keys into the role names: one role, several, none,
                // every one.
                roles: match i % 7 {
                    0 => Roles::DEFINITION,
                    1 => Roles::default(),
                    2 => Roles::NAMES
                        .iter()
                        .fold(Roles::default(), |all, (r, _)| all | *r),
                    _ => Roles::REFERENCE | Roles::CALL,
                },
                enclosing_symbol_id: (i % 5 != 0).then(|| format!("enc{}", i % 313).into()),
                source: "tree-sitter".into(),
            })
            .collect();
        let parallel = encode_table(&mut rows).unwrap();
        // From rows, shared strings go to the writer as dictionary arrays: same bytes as their
        // string arrays, whether rows share one allocation of a value or hold copies of it.
        assert_eq!(parallel, encode_rows_serially(&mut rows.clone()));
        let groups = row_groups(&rows, group_rows(&OccurrenceRow::INFO));
        assert!(groups.len() >= 5, "{}", groups.len());
        assert!(
            groups.iter().any(|g| g.len() == ROW_GROUP_ROWS),
            "{groups:?}"
        );
        let shared: Vec<SharedStr> = (0..50).map(|i| format!("src/s{i}.rs").into()).collect();
        let mut mixed = rows.clone();
        for (i, row) in mixed.iter_mut().enumerate() {
            row.path = match i % 3 {
                0 => shared[i % 50].clone(),
                1 => shared[i % 50].as_str().into(),
                _ => shared[(i * 7) % 50].clone(),
            };
            if i % 11 == 0 {
                row.enclosing_symbol_id = row.symbol_id.clone();
            }
        }
        assert_eq!(
            encode_table(&mut mixed.clone()).unwrap(),
            encode_rows_serially(&mut mixed)
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("occurrences.parquet");
        std::fs::write(&path, &parallel).unwrap();
        assert_eq!(read_table::<OccurrenceRow>(&path).unwrap(), rows);

        let mut few = vec![commit("b", 2), commit("a", 1)];
        assert_eq!(
            encode_table(&mut few.clone()).unwrap(),
            encode_rows_serially(&mut few)
        );
        let mut none: Vec<CommitRow> = vec![];
        assert_eq!(
            encode_table(&mut none).unwrap(),
            encode_rows_serially(&mut none)
        );
    }

    #[test]
    fn parallel_read_gives_the_rows_of_the_serial_read() {
        use crate::tables::OccurrenceRow;
        let dir = tempfile::tempdir().unwrap();
        let mut rows: Vec<OccurrenceRow> = (0..ROW_GROUP_ROWS + 70_000)
            .map(|i| OccurrenceRow {
                symbol_id: (i % 3 != 0).then(|| format!("sym{i}").into()),
                name: format!("name{}", i % 131).into(),
                path: format!("src/f{}.rs", i / 5000).into(),
                line: (i % 4000) as i32 + 1,
                col: 1,
                end_line: (i % 4000) as i32 + 1,
                end_col: 9,
                roles: if i % 7 == 0 {
                    crate::Roles::DEFINITION
                } else {
                    crate::Roles::REFERENCE | crate::Roles::CALL
                },
                enclosing_symbol_id: (i % 5 != 0).then(|| format!("enc{}", i % 313).into()),
                source: "tree-sitter".into(),
            })
            .collect();
        write_table(dir.path(), &mut rows).unwrap();
        let path = dir.path().join("occurrences.parquet");
        let serial: Vec<OccurrenceRow> = read_table(&path).unwrap();
        assert_eq!(serial, rows);
        assert_eq!(read_table_parallel::<OccurrenceRow>(&path).unwrap(), serial);
        // Room asked for is there, and the rows are the same.
        let roomy = read_table_parallel_with_room::<OccurrenceRow>(&path, 1000).unwrap();
        assert!(roomy.capacity() >= serial.len() + 1000);
        assert_eq!(roomy, serial);

        let mut none: Vec<SymbolRow> = vec![];
        write_table(dir.path(), &mut none).unwrap();
        let empty = read_table_parallel::<SymbolRow>(&dir.path().join("symbols.parquet"));
        assert!(empty.unwrap().is_empty());
    }

    /// Commits with distinct SHAs, in table order.
    fn commits(n: usize) -> Vec<CommitRow> {
        (0..n)
            .map(|i| commit(&format!("{i:08}"), i as i64))
            .collect()
    }

    #[test]
    fn rows_are_decoded_the_same_however_rayon_splits_them() {
        let mut rows = commits(3 * DECODE_SLICE_ROWS + 1234);
        let batch = crate::table::to_record_batch(&mut rows);
        // Batches of uneven length, as readers cut them at row groups and batch sizes.
        let batches = vec![
            batch.slice(0, 5000),
            batch.slice(5000, 1),
            batch.slice(5001, batch.num_rows() - 5001),
        ];
        let starts = vec![0, 5000, 5001];
        let failure = std::sync::Mutex::new(None);
        let source = DecodedBatches {
            batches: &batches,
            starts: &starts,
            failure: &failure,
        };
        let all = || DecodedRows::<CommitRow> {
            source: &source,
            total: rows.len(),
            row: PhantomData,
        };
        let expected: Vec<Option<CommitRow>> = rows.iter().cloned().map(Some).collect();
        let mut collected = Vec::new();
        all().collect_into_vec(&mut collected);
        assert_eq!(collected, expected);
        // Tiny splits, and iteration from the back (`next_back`), meet in the middle of slices.
        let small: Vec<_> = all().with_max_len(7).collect();
        assert_eq!(small, expected);
        let mut reversed: Vec<_> = all().rev().with_max_len(333).collect();
        reversed.reverse();
        assert_eq!(reversed, expected);
        let mut iter = RowRange::<CommitRow> {
            source: &source,
            front: 4000,
            back: 9000,
            row: PhantomData,
        }
        .into_iter();
        let mut front = Vec::new();
        let mut back = Vec::new();
        while iter.len() > 0 {
            front.extend(iter.next());
            back.extend(iter.next_back());
            assert_eq!(iter.len() + front.len() + back.len(), 5000);
        }
        back.reverse();
        front.extend(back);
        assert_eq!(front, expected[4000..9000]);
        assert!(failure.lock().unwrap().is_none());
    }

    #[test]
    fn a_slice_that_fails_to_decode_fails_the_parallel_read() {
        use arrow::array::StringArray;
        use arrow::datatypes::Field;
        // A `commits` file whose `sha` (not nullable) is null in one row of the third slice.
        let mut rows = commits(3 * DECODE_SLICE_ROWS);
        let batch = crate::table::to_record_batch(&mut rows);
        let bad_row = 2 * DECODE_SLICE_ROWS + 17;
        let sha = StringArray::from_iter(
            rows.iter()
                .enumerate()
                .map(|(i, r)| (i != bad_row).then_some(r.sha.as_str())),
        );
        let fields: Vec<Field> = batch
            .schema()
            .fields()
            .iter()
            .map(|f| f.as_ref().clone().with_nullable(true))
            .collect();
        let mut columns = batch.columns().to_vec();
        columns[0] = Arc::new(sha);
        let nullable = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("commits.parquet");
        let mut writer =
            ArrowWriter::try_new(File::create(&path).unwrap(), nullable.schema(), None).unwrap();
        writer.write(&nullable).unwrap();
        writer.close().unwrap();
        let serial = read_table::<CommitRow>(&path);
        let parallel = read_table_parallel::<CommitRow>(&path);
        assert!(
            matches!(&serial, Err(FormatError::UnexpectedNull { column }) if column == "sha"),
            "{serial:?}"
        );
        assert!(
            matches!(&parallel, Err(FormatError::UnexpectedNull { column }) if column == "sha"),
            "{parallel:?}"
        );
    }

    #[test]
    fn files_without_dictionary_pages_read_the_same_rows() {
        use crate::tables::OccurrenceRow;
        use crate::Roles;
        let mut rows: Vec<OccurrenceRow> = (0..3000)
            .map(|i| OccurrenceRow {
                symbol_id: (i % 3 != 0).then(|| format!("sym{}", i % 97).into()),
                name: format!("name{}", i % 13).into(),
                path: format!("src/f{}.rs", i / 1000).into(),
                line: i + 1,
                col: 1,
                end_line: i + 1,
                end_col: 9,
                roles: Roles::REFERENCE,
                enclosing_symbol_id: None,
                source: "tree-sitter".into(),
            })
            .collect();
        let batch = crate::table::to_record_batch(&mut rows);
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain.parquet");
        let props = WriterProperties::builder()
            .set_dictionary_enabled(false)
            .build();
        let mut writer =
            ArrowWriter::try_new(File::create(&plain).unwrap(), batch.schema(), Some(props))
                .unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        assert_eq!(read_table::<OccurrenceRow>(&plain).unwrap(), rows);
        assert_eq!(read_table_parallel::<OccurrenceRow>(&plain).unwrap(), rows);

        // ckb's own files are dictionary-encoded: read back, rows share each distinct value.
        let ours = dir.path().join("occurrences.parquet");
        std::fs::write(&ours, encode_table(&mut rows.clone()).unwrap()).unwrap();
        let back = read_table::<OccurrenceRow>(&ours).unwrap();
        assert_eq!(back, rows);
        assert!(std::ptr::eq(
            back[0].source.as_str(),
            back[2999].source.as_str()
        ));
        assert!(std::ptr::eq(back[1].name.as_str(), back[14].name.as_str()));
    }

    #[test]
    fn empty_table_is_a_valid_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut rows: Vec<SymbolRow> = vec![];
        write_table(dir.path(), &mut rows).unwrap();
        let back: Vec<SymbolRow> = read_table(&dir.path().join("symbols.parquet")).unwrap();
        assert!(back.is_empty());
    }
}
