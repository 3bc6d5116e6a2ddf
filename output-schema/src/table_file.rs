//! A table file as the Parquet decoder reads it: every read confined to one column chunk, and
//! each chunk's page headers checked before the decoder sees a byte of it.
//!
//! The `parquet` crate trusts what lies inside a column chunk. It parses each page header from a
//! stream that runs to the end of the *file*; it skips thrift fields it does not know element by
//! element, so a list that claims 2^31 elements of a type that takes no bytes to skip (a bool, a
//! double past the end) runs for seconds; and it decompresses a page into a buffer of the size
//! the header claims. Fuzzing found a 3.5 KB `file_changes` file on which it spent 80 s reading
//! 8 KiB at a time past the end of the file (`fuzz/regressions/table_parquet/thrift-skip-at-eof`).
//!
//! So every decode of a file ckb did not just write goes through
//! [`crate::parquet_io::load_metadata`] and then reads through a [`TableFile`]:
//! - its footer must parse as the decoder will parse it, in bounded time ([`check_footer`],
//!   [`crate::thrift_check`]), and place every column chunk inside the file, with no two chunks
//!   overlapping ([`crate::parquet_io::check_chunk_ranges`], [`TableFile::new`]), and claim no
//!   more rows per row group than ckb writes in one or than its bytes can hold (run-length
//!   encoding lets a few bytes claim billions of rows, which the decoder would then produce);
//! - before the first read from a chunk, the chunk is walked page by page ([`check_pages`]): each
//!   header must parse inside the chunk exactly as the decoder will parse it (no list holds more
//!   elements than bytes are left, none holds bools, which the decoder skips without reading),
//!   each page must lie inside the chunk, and decompress to at most [`max_page_bytes`] — the
//!   decompression bound for Parquet, as [`crate::manifest::decompress_at_most`] is for JSON —
//!   and the data pages together hold at most [`MAX_VALUES_PER_ROW`] values per row;
//! - every read the decoder makes is served from inside that chunk, by offset: a reader runs dry
//!   at the chunk's end, never the file's, and readers on several threads share one file handle.
//!
//! A chunk is checked once per `TableFile` (and its clones), so the cost is one walk over the page
//! headers of the chunks actually read — a few reads of a few bytes per megabyte of table.

use std::fs::File;
use std::io::Read;
use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use parquet::errors::ParquetError;
use parquet::file::metadata::ParquetMetaData;
use parquet::file::reader::{ChunkReader, Length};

use crate::thrift_check::{walk, Shape, Stop, Walked};

/// The environment variable that raises [`DEFAULT_MAX_PAGE_BYTES`].
pub const MAX_PAGE_ENV: &str = "CKB_MAX_PAGE_BYTES";

/// How large one Parquet page of a table may be once decompressed: 64 times the pages ckb writes
/// (the writer starts a new page after 1 MiB), room for a page of very long values, and far below
/// what a few bytes of crafted zstd could otherwise claim per column being decoded.
pub const DEFAULT_MAX_PAGE_BYTES: u64 = 64 << 20;

/// The page limit in force: [`MAX_PAGE_ENV`] when it holds a byte count, else the default.
pub fn max_page_bytes() -> u64 {
    crate::byte_limit(MAX_PAGE_ENV, DEFAULT_MAX_PAGE_BYTES)
}

/// How many bytes of a page header are read at first; a longer header is read again, larger.
const HEADER_WINDOW: u64 = 1024;

/// A table file whose reads stay inside the column chunk they start in (see the module doc).
/// Cloning shares the file handle and what has been checked.
#[derive(Clone)]
pub struct TableFile {
    inner: Arc<Inner>,
}

struct Inner {
    file: File,
    len: u64,
    /// Column chunks with bytes, sorted by start, not overlapping.
    chunks: Vec<Chunk>,
    page_limit: u64,
}

struct Chunk {
    start: u64,
    end: u64,
    /// The most values its data pages may hold: [`MAX_VALUES_PER_ROW`] per row of its row group.
    max_values: u64,
    /// The outcome of [`check_pages`], once a read first asks for the chunk.
    checked: OnceLock<Result<(), String>>,
}

fn damaged(what: impl std::fmt::Display) -> ParquetError {
    ParquetError::General(format!("damaged file: {what}"))
}

impl TableFile {
    /// Wraps an open table file whose footer `metadata` was loaded from it (without a page
    /// index) and passed [`crate::parquet_io::check_chunk_ranges`]. Refuses overlapping chunks.
    pub fn new(file: File, metadata: &ParquetMetaData) -> Result<TableFile, ParquetError> {
        Self::with_page_limit(file, metadata, max_page_bytes())
    }

    /// [`TableFile::new`] with a page limit of `page_limit` bytes.
    pub fn with_page_limit(
        file: File,
        metadata: &ParquetMetaData,
        page_limit: u64,
    ) -> Result<TableFile, ParquetError> {
        if metadata.page_index().is_some() {
            return Err(damaged(
                "a page index was loaded; table files are read without one",
            ));
        }
        let len = file.metadata().map(|m| m.len())?;
        let mut chunks = Vec::new();
        for group in metadata.row_groups() {
            let max_values = u64::try_from(group.num_rows())
                .unwrap_or(0)
                .saturating_mul(MAX_VALUES_PER_ROW);
            for column in group.columns() {
                let start = column
                    .dictionary_page_offset()
                    .unwrap_or(column.data_page_offset());
                let (Ok(start), Ok(size)) = (
                    u64::try_from(start),
                    u64::try_from(column.compressed_size()),
                ) else {
                    return Err(damaged("a column chunk has a negative offset or size"));
                };
                let end = start
                    .checked_add(size)
                    .filter(|&end| end <= len)
                    .ok_or_else(|| damaged("a column chunk ends past the end of the file"))?;
                if size > 0 {
                    chunks.push(Chunk {
                        start,
                        end,
                        max_values,
                        checked: OnceLock::new(),
                    });
                }
            }
        }
        chunks.sort_by_key(|c| c.start);
        if let Some(pair) = chunks.windows(2).find(|p| p[0].end > p[1].start) {
            return Err(damaged(format!(
                "column chunks overlap (bytes {}..{} and {}..{})",
                pair[0].start, pair[0].end, pair[1].start, pair[1].end
            )));
        }
        Ok(TableFile {
            inner: Arc::new(Inner {
                file,
                len,
                chunks,
                page_limit,
            }),
        })
    }

    /// Checks the pages of every column chunk (what `ckb verify` does; a decode checks only the
    /// chunks it reads).
    pub fn check_all_pages(&self) -> Result<(), ParquetError> {
        (0..self.inner.chunks.len()).try_for_each(|i| self.checked(i))
    }

    /// The chunk holding byte `offset`, checked.
    fn chunk_at(&self, offset: u64) -> Result<&Chunk, ParquetError> {
        let chunks = &self.inner.chunks;
        let i = chunks.partition_point(|c| c.start <= offset);
        match i.checked_sub(1) {
            Some(i) if offset < chunks[i].end => {
                self.checked(i)?;
                Ok(&chunks[i])
            }
            _ => Err(damaged(format!(
                "the decoder asked for byte {offset}, which lies in no column chunk"
            ))),
        }
    }

    fn checked(&self, i: usize) -> Result<(), ParquetError> {
        let chunk = &self.inner.chunks[i];
        chunk
            .checked
            .get_or_init(|| {
                check_pages(
                    &mut |at, buf| read_at(&self.inner.file, buf, at),
                    (chunk.start, chunk.end),
                    chunk.max_values,
                    self.inner.page_limit,
                )
            })
            .clone()
            .map_err(damaged)
    }
}

impl Length for TableFile {
    fn len(&self) -> u64 {
        self.inner.len
    }
}

impl ChunkReader for TableFile {
    type T = std::io::BufReader<ChunkRead>;

    fn get_read(&self, start: u64) -> Result<Self::T, ParquetError> {
        let chunk = self.chunk_at(start)?;
        let read = ChunkRead {
            inner: Arc::clone(&self.inner),
            at: start,
            end: chunk.end,
        };
        // Page headers are parsed a byte at a time: buffer, but not past the chunk.
        let capacity = (chunk.end - start).min(8192) as usize;
        Ok(std::io::BufReader::with_capacity(capacity, read))
    }

    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes, ParquetError> {
        let chunk = self.chunk_at(start)?;
        let end = start.checked_add(length as u64).filter(|&e| e <= chunk.end);
        if end.is_none() {
            return Err(damaged(format!(
                "the decoder asked for {length} bytes at {start}, past the end of the column \
                 chunk at {}",
                chunk.end
            )));
        }
        let mut buf = vec![0; length];
        read_exact_at(&self.inner.file, &mut buf, start)?;
        Ok(Bytes::from(buf))
    }
}

/// A reader of one column chunk from a given offset, ending at the chunk's end.
pub struct ChunkRead {
    inner: Arc<Inner>,
    at: u64,
    end: u64,
}

impl Read for ChunkRead {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let room = (self.end - self.at).min(buf.len() as u64) as usize;
        if room == 0 {
            return Ok(0);
        }
        let n = read_at(&self.inner.file, &mut buf[..room], self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

/// The most values a column chunk's data pages may hold per row of its row group: one for a
/// plain column, one per element for a list (`commits.parents`, `imports.names`), whose average
/// length stays far below this in any real table.
pub const MAX_VALUES_PER_ROW: u64 = 16;

/// Reads at an offset without moving a shared cursor (readers of several columns share a file).
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_at(file, buf, offset)
    }
    #[cfg(windows)]
    {
        std::os::windows::fs::FileExt::seek_read(file, buf, offset)
    }
    #[cfg(not(any(unix, windows)))]
    {
        use std::io::{Seek, SeekFrom};
        let mut f = file.try_clone()?;
        f.seek(SeekFrom::Start(offset))?;
        f.read(buf)
    }
}

fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    while !buf.is_empty() {
        match read_at(file, buf, offset) {
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Checks a table file's footer before the `parquet` crate parses it: it must parse as the
/// crate parses it, in bounded time ([`crate::thrift_check`]). A file too short for the 8-byte
/// tail, without Parquet's magic or with a footer longer than the bytes before its tail is left
/// for the crate to refuse. The bound is the crate's own: it parses any footer that fits before
/// the tail, even one that overlaps the leading magic (the fuzzer's 13 s finding,
/// `footer-over-the-leading-magic`), so every such footer is walked, however short.
pub fn check_footer(file: &File) -> Result<(), ParquetError> {
    let len = file.metadata()?.len();
    if len < 8 {
        return Ok(());
    }
    let mut tail = [0u8; 8];
    read_exact_at(file, &mut tail, len - 8)?;
    let footer_len = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
    if &tail[4..] != b"PAR1" || footer_len > len - 8 {
        return Ok(());
    }
    let mut footer = vec![0; footer_len as usize];
    read_exact_at(file, &mut footer, len - 8 - footer_len)?;
    match walk(Shape::FileMetaData, &footer, footer_len) {
        Ok(_) => Ok(()),
        Err(Stop::Short) => Err(damaged("the footer ends inside its metadata")),
        Err(Stop::Bad(why)) => Err(damaged(format!("the footer {why}"))),
    }
}

/// Walks the pages of the column chunk `start..end`, reading with `read(offset, buf)`: every
/// header parses inside the chunk as the decoder parses it ([`crate::thrift_check`]), every page
/// lies inside the chunk, none decompresses to more than `page_limit` bytes, and the data pages
/// hold at most `max_values` values in all (run-length encoding would let a few bytes claim
/// billions).
pub fn check_pages(
    read: &mut dyn FnMut(u64, &mut [u8]) -> std::io::Result<usize>,
    (start, end): (u64, u64),
    max_values: u64,
    page_limit: u64,
) -> Result<(), String> {
    let mut at = start;
    let mut values = 0u64;
    let mut buf = Vec::new();
    while at < end {
        let left = end - at;
        let mut window = left.min(HEADER_WINDOW);
        let (header_len, compressed, uncompressed, page_values) = loop {
            buf.resize(window as usize, 0);
            let mut got = 0;
            while got < buf.len() {
                match read(at + got as u64, &mut buf[got..]) {
                    Ok(0) => break,
                    Ok(n) => got += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(format!("cannot read the page at {at}: {e}")),
                }
            }
            if got < buf.len() {
                return Err(format!(
                    "the file ends inside the column chunk, at {}",
                    at + got as u64
                ));
            }
            match walk(Shape::PageHeader, &buf, left) {
                Err(Stop::Short) if window < left => window = left.min(window * 16),
                Err(Stop::Short) => {
                    return Err(format!(
                        "the page header at {at} runs past the end of its column chunk at {end}"
                    ))
                }
                Err(Stop::Bad(why)) => return Err(format!("the page header at {at} {why}")),
                Ok(Walked {
                    len,
                    page_sizes: [Some(uncompressed), Some(compressed)],
                    page_values,
                }) => break (len, compressed, uncompressed, page_values),
                Ok(_) => return Err(format!("the page header at {at} lacks its page sizes")),
            }
        };
        let (Ok(compressed), Ok(uncompressed)) =
            (u64::try_from(compressed), u64::try_from(uncompressed))
        else {
            return Err(format!("the page at {at} has a negative size"));
        };
        if uncompressed > page_limit {
            return Err(format!(
                "the page at {at} decompresses to {uncompressed} bytes, over the limit of \
                 {page_limit} (pages ckb writes are about 1 MiB; set {MAX_PAGE_ENV} to a larger \
                 byte count if this one really is that large)"
            ));
        }
        if let Some(n) = page_values {
            values = u64::try_from(n)
                .ok()
                .and_then(|n| values.checked_add(n))
                .filter(|&v| v <= max_values)
                .ok_or_else(|| {
                    format!(
                        "the data page at {at} brings its column chunk to more than {max_values} \
                         values ({MAX_VALUES_PER_ROW} per row of its row group)"
                    )
                })?;
        }
        let page_end = at + header_len as u64 + compressed;
        if compressed > left || page_end > end {
            return Err(format!(
                "the page at {at} ({compressed} bytes) ends past its column chunk at {end}"
            ));
        }
        at = page_end;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parquet_io::{encode_table, read_table};
    use crate::tables::CommitRow;

    fn commits(n: usize) -> Vec<CommitRow> {
        (0..n)
            .map(|i| CommitRow {
                sha: format!("{i:040x}"),
                parents: vec![format!("{:040x}", i + 1)],
                author_time: i as i64,
                committer_time: i as i64,
                author_id: format!("author{}", i % 7),
                is_bot: false,
                files_changed: 1,
                additions: 2,
                deletions: 3,
            })
            .collect()
    }

    /// The column chunks of an encoded table as (start, end).
    fn chunks(bytes: &[u8]) -> Vec<(u64, u64)> {
        let metadata = parquet::file::metadata::ParquetMetaDataReader::new()
            .parse_and_finish(&Bytes::copy_from_slice(bytes))
            .unwrap();
        let mut chunks = Vec::new();
        for group in metadata.row_groups() {
            for column in group.columns() {
                let (start, len) = column.byte_range();
                chunks.push((start, start + len));
            }
        }
        chunks
    }

    fn walk_pages(bytes: &[u8], limit: u64) -> Result<(), String> {
        let mut read = reader(bytes);
        chunks(bytes)
            .into_iter()
            .try_for_each(|(start, end)| check_pages(&mut read, (start, end), u64::MAX, limit))
    }

    /// The largest decompressed page of an encoded table, header by header.
    fn largest_page(bytes: &[u8]) -> u64 {
        let mut largest = 0;
        for (mut at, end) in chunks(bytes) {
            while at < end {
                let h = walk(
                    Shape::PageHeader,
                    &bytes[at as usize..end as usize],
                    end - at,
                )
                .unwrap();
                let [Some(uncompressed), Some(compressed)] = h.page_sizes else {
                    panic!("a header without sizes")
                };
                largest = largest.max(uncompressed as u64);
                at += h.len as u64 + compressed as u64;
            }
        }
        largest
    }

    #[test]
    fn pages_ckb_writes_pass_and_a_page_over_the_limit_is_refused_naming_the_variable() {
        let bytes = encode_table(&mut commits(3000)).unwrap();
        walk_pages(&bytes, DEFAULT_MAX_PAGE_BYTES).unwrap();
        // At the largest page's size the file passes, a byte below it does not.
        let largest = largest_page(&bytes);
        assert!(largest > 1000, "{largest}");
        walk_pages(&bytes, largest).unwrap();
        let e = walk_pages(&bytes, largest - 1).unwrap_err();
        assert!(
            e.contains(MAX_PAGE_ENV) && e.contains("decompresses to"),
            "{e}"
        );

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("commits.parquet");
        std::fs::write(&path, &bytes).unwrap();
        let open = |limit| {
            let file = File::open(&path).unwrap();
            let metadata =
                parquet::arrow::arrow_reader::ArrowReaderMetadata::load(&file, Default::default())
                    .unwrap();
            TableFile::with_page_limit(file, metadata.metadata(), limit).unwrap()
        };
        open(largest).check_all_pages().unwrap();
        let e = open(largest - 1).check_all_pages().unwrap_err().to_string();
        assert!(e.contains(MAX_PAGE_ENV), "{e}");
        assert_eq!(read_table::<CommitRow>(&path).unwrap().len(), 3000);
    }

    use crate::thrift_check::tests::header;

    fn reader(bytes: &[u8]) -> impl FnMut(u64, &mut [u8]) -> std::io::Result<usize> + '_ {
        move |at: u64, buf: &mut [u8]| {
            let from = (at as usize).min(bytes.len());
            let n = buf.len().min(bytes.len() - from);
            buf[..n].copy_from_slice(&bytes[from..from + n]);
            Ok(n)
        }
    }

    #[test]
    fn a_page_of_negative_size_is_refused() {
        let negative = [header(-1, 10, &[]), vec![0; 10]].concat();
        let range = (0, negative.len() as u64);
        let e = check_pages(&mut reader(&negative), range, u64::MAX, 1 << 20).unwrap_err();
        assert!(e.contains("negative size"), "{e}");
    }

    #[test]
    fn a_page_past_the_chunk_and_a_header_across_its_end_are_refused() {
        let h = header(100, 50, &[]);
        let file = [h.clone(), vec![0; 49]].concat();
        let mut read = reader(&file);
        let e = check_pages(&mut read, (0, file.len() as u64), u64::MAX, 1 << 20).unwrap_err();
        assert!(e.contains("ends past its column chunk"), "{e}");
        let e = check_pages(&mut read, (0, 5), u64::MAX, 1 << 20).unwrap_err();
        assert!(e.contains("runs past the end of its column chunk"), "{e}");
    }

    /// Two data pages of 16 values each: a chunk allowed 32 values passes, one allowed 31 does
    /// not — run-length encoding lets a page claim any number in a few bytes.
    #[test]
    fn data_pages_may_hold_the_values_their_rows_allow_and_no_more() {
        // PageHeader field 5: a DataPageHeader { num_values: 16, three encodings: 0 }.
        let data_page = [0x2c, 0x15, 0x20, 0x15, 0x00, 0x15, 0x00, 0x15, 0x00, 0x00];
        let page = header(0, 0, &data_page);
        let chunk = [page.clone(), page].concat();
        let range = (0, chunk.len() as u64);
        check_pages(&mut reader(&chunk), range, 32, 1 << 20).unwrap();
        let e = check_pages(&mut reader(&chunk), range, 31, 1 << 20).unwrap_err();
        assert!(e.contains("more than 31 values"), "{e}");
    }

    /// `bytes` (an encoded table) with every row group claiming `rows` rows in its footer.
    fn claiming_rows(bytes: &[u8], rows: i64) -> Vec<u8> {
        use parquet::file::metadata::{ParquetMetaDataReader, ParquetMetaDataWriter};
        let len = bytes.len();
        let footer = u32::from_le_bytes(bytes[len - 8..len - 4].try_into().unwrap()) as usize;
        let metadata = ParquetMetaDataReader::new()
            .parse_and_finish(&Bytes::copy_from_slice(bytes))
            .unwrap();
        let mut builder = metadata.into_builder();
        let groups = builder
            .take_row_groups()
            .into_iter()
            .map(|g| g.into_builder().set_num_rows(rows).build().unwrap())
            .collect();
        let metadata = builder.set_row_groups(groups).build();
        let mut out = bytes[..len - 8 - footer].to_vec();
        ParquetMetaDataWriter::new(&mut out, &metadata)
            .finish()
            .unwrap();
        out
    }

    /// A row group may claim at most `ROW_GROUP_ROWS` rows, and at most `MAX_ROWS_PER_BYTE` per
    /// byte of its column chunks: at each limit the footer passes, one row more does not.
    #[test]
    fn a_row_group_may_claim_the_rows_its_bytes_allow_and_no_more() {
        use crate::parquet_io::{load_metadata, MAX_ROWS_PER_BYTE, ROW_GROUP_ROWS};
        let bytes = encode_table(&mut commits(10)).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("commits.parquet");
        let check = |rows: i64| {
            std::fs::write(&path, claiming_rows(&bytes, rows)).unwrap();
            load_metadata(&File::open(&path).unwrap()).map(drop)
        };
        let metadata = parquet::file::metadata::ParquetMetaDataReader::new()
            .parse_and_finish(&Bytes::copy_from_slice(&bytes))
            .unwrap();
        let group_bytes: i64 = metadata
            .row_group(0)
            .columns()
            .iter()
            .map(|c| c.compressed_size())
            .sum();
        let by_bytes = group_bytes * MAX_ROWS_PER_BYTE;
        assert!(by_bytes < ROW_GROUP_ROWS as i64, "{by_bytes}");
        check(by_bytes).unwrap();
        let e = check(by_bytes + 1).unwrap_err().to_string();
        assert!(
            e.contains(&format!("a byte per {MAX_ROWS_PER_BYTE} rows")),
            "{e}"
        );
        let big = claiming_rows(
            &encode_table(&mut commits(20_000)).unwrap(),
            ROW_GROUP_ROWS as i64,
        );
        std::fs::write(&path, &big).unwrap();
        load_metadata(&File::open(&path).unwrap()).unwrap();
        std::fs::write(&path, claiming_rows(&big, ROW_GROUP_ROWS as i64 + 1)).unwrap();
        let e = load_metadata(&File::open(&path).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("at most {ROW_GROUP_ROWS} per row group")),
            "{e}"
        );
        assert_eq!(read_table::<CommitRow>(&path).map(|r| r.len()).ok(), None);
    }

    /// The crate parses any footer that fits before the 8-byte tail, even one that starts inside
    /// the leading magic or has none before it: such a footer is walked like any other. This one
    /// (a file of nothing but footer and tail) claims 2^31 - 1 bools in an unknown field, which the
    /// crate skips for seconds.
    #[test]
    fn a_footer_that_leaves_no_room_for_the_leading_magic_is_still_checked() {
        // Field 10 (delta 10) a list; the list: size in a varint, bools; 2^31 - 1; stop.
        let footer = [0xa9, 0xf1, 0xff, 0xff, 0xff, 0xff, 0x07, 0x00];
        let mut bytes = footer.to_vec();
        bytes.extend_from_slice(&(footer.len() as u32).to_le_bytes());
        bytes.extend_from_slice(b"PAR1");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("commits.parquet");
        std::fs::write(&path, &bytes).unwrap();
        let e = check_footer(&File::open(&path).unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains("container of bools"), "{e}");
    }
}
