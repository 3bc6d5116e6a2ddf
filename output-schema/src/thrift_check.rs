//! Checking Parquet's thrift structures (a file's footer, each page header) before the `parquet`
//! crate parses them, so that its parse is bounded by the bytes it is given.
//!
//! The crate reads the fields it knows by their id, whatever type the bytes say they have, and
//! skips the others by the type the bytes say. Skipping a list of bools reads nothing per
//! element, so a list that claims 2^31 of them costs seconds, and a list of such lists costs
//! seconds per byte: a footer or page header of a few kilobytes could keep a reader busy for
//! hours. (Over a `File`, skipped doubles past the end also read nothing: the fuzzer's 80 s
//! finding.)
//!
//! [`walk`] parses the same bytes the way the crate will, knowing its structs (`parquet.thrift`,
//! as `parquet` 60 reads it: [`Shape`]), and refuses anything on which the two parses could part:
//! a field the crate reads by id must carry the type the crate reads it as (then both parses take
//! the same bytes), no container may hold bools, and no container may claim more entries than
//! bytes are left (every entry takes at least one). A structure this accepts is parsed by the crate
//! to the same end, in time linear in its bytes. It is stricter than the crate, never looser: a
//! file ckb writes always passes (tested), and what it refuses is damaged.

/// Nesting of thrift structs and containers allowed (real footers nest 6 deep).
const MAX_DEPTH: u32 = 24;

/// Compact-protocol type codes.
pub(crate) mod wire {
    pub const BOOL_TRUE: u8 = 1;
    pub const BOOL_FALSE: u8 = 2;
    pub const BYTE: u8 = 3;
    pub const I16: u8 = 4;
    pub const I32: u8 = 5;
    pub const I64: u8 = 6;
    pub const DOUBLE: u8 = 7;
    pub const BINARY: u8 = 8;
    pub const LIST: u8 = 9;
    pub const SET: u8 = 10;
    pub const MAP: u8 = 11;
    pub const STRUCT: u8 = 12;
    pub const UUID: u8 = 13;
}

/// The structs `parquet` reads field by field (`parquet.thrift`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `PageHeader`.
    PageHeader,
    /// `DataPageHeader`.
    DataPageHeader,
    /// `DictionaryPageHeader`.
    DictionaryPageHeader,
    /// `DataPageHeaderV2`.
    DataPageHeaderV2,
    /// `Statistics` (of a page or a column chunk).
    Statistics,
    /// `FileMetaData`: the footer.
    FileMetaData,
    /// `SchemaElement`.
    SchemaElement,
    /// The `LogicalType` union.
    LogicalType,
    /// `DecimalType`.
    DecimalType,
    /// `TimeType` and `TimestampType`.
    TimeType,
    /// `IntType`.
    IntType,
    /// `VariantType`.
    VariantType,
    /// `GeometryType`.
    GeometryType,
    /// `GeographyType`.
    GeographyType,
    /// `RowGroup`.
    RowGroup,
    /// `SortingColumn`.
    SortingColumn,
    /// `ColumnChunk`.
    ColumnChunk,
    /// `ColumnMetaData`.
    ColumnMetaData,
    /// `PageEncodingStats`.
    PageEncodingStats,
    /// `KeyValue`.
    KeyValue,
    /// `SizeStatistics`.
    SizeStatistics,
    /// `GeospatialStatistics`.
    GeospatialStatistics,
    /// `BoundingBox`.
    BoundingBox,
    /// The `EncryptionAlgorithm` union.
    EncryptionAlgorithm,
    /// `AesGcmV1` and `AesGcmCtrV1`.
    AesGcm,
    /// The `ColumnCryptoMetaData` union.
    ColumnCryptoMetaData,
    /// `EncryptionWithColumnKey`.
    EncryptionWithColumnKey,
    /// A struct whose fields the crate skips (empty structs, union variants without fields).
    Skipped,
}

/// How the crate reads a field it knows.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// A value of this wire type (`BOOL_TRUE` for either bool).
    Plain(u8),
    /// A struct.
    Struct(Shape),
    /// A list of plain values of this wire type.
    ListOf(u8),
    /// A list of structs.
    ListOfStruct(Shape),
}

/// How the crate reads field `id` of a `shape`; `None` when it skips it.
fn field(shape: Shape, id: i16) -> Option<Kind> {
    use wire::*;
    use Kind::{ListOf, ListOfStruct, Plain, Struct};
    use Shape as S;
    Some(match (shape, id) {
        (S::PageHeader, 1..=4) => Plain(I32),
        (S::PageHeader, 5) => Struct(S::DataPageHeader),
        (S::PageHeader, 6) => Struct(S::Skipped),
        (S::PageHeader, 7) => Struct(S::DictionaryPageHeader),
        (S::PageHeader, 8) => Struct(S::DataPageHeaderV2),
        (S::DataPageHeader, 1..=4) => Plain(I32),
        (S::DataPageHeader, 5) => Struct(S::Statistics),
        (S::DictionaryPageHeader, 1 | 2) => Plain(I32),
        (S::DictionaryPageHeader, 3) => Plain(BOOL_TRUE),
        (S::DataPageHeaderV2, 1..=6) => Plain(I32),
        (S::DataPageHeaderV2, 7) => Plain(BOOL_TRUE),
        (S::DataPageHeaderV2, 8) => Struct(S::Statistics),
        (S::Statistics, 1 | 2 | 5 | 6) => Plain(BINARY),
        (S::Statistics, 3 | 4 | 9) => Plain(I64),
        (S::Statistics, 7 | 8) => Plain(BOOL_TRUE),

        (S::FileMetaData, 1) => Plain(I32),
        (S::FileMetaData, 2) => ListOfStruct(S::SchemaElement),
        (S::FileMetaData, 3) => Plain(I64),
        (S::FileMetaData, 4) => ListOfStruct(S::RowGroup),
        (S::FileMetaData, 5) => ListOfStruct(S::KeyValue),
        (S::FileMetaData, 6 | 9) => Plain(BINARY),
        (S::FileMetaData, 7) => ListOfStruct(S::Skipped),
        (S::FileMetaData, 8) => Struct(S::EncryptionAlgorithm),
        (S::SchemaElement, 1..=3 | 5..=9) => Plain(I32),
        (S::SchemaElement, 4) => Plain(BINARY),
        (S::SchemaElement, 10) => Struct(S::LogicalType),
        (S::LogicalType, 1..=4 | 6 | 11..=15 | 19) => Struct(S::Skipped),
        (S::LogicalType, 5) => Struct(S::DecimalType),
        (S::LogicalType, 7 | 8) => Struct(S::TimeType),
        (S::LogicalType, 10) => Struct(S::IntType),
        (S::LogicalType, 16) => Struct(S::VariantType),
        (S::LogicalType, 17) => Struct(S::GeometryType),
        (S::LogicalType, 18) => Struct(S::GeographyType),
        (S::DecimalType, 1 | 2) => Plain(I32),
        (S::TimeType, 1) => Plain(BOOL_TRUE),
        (S::TimeType, 2) => Struct(S::Skipped),
        (S::IntType, 1) => Plain(BYTE),
        (S::IntType, 2) => Plain(BOOL_TRUE),
        (S::VariantType, 1) => Plain(BYTE),
        (S::GeometryType, 1) => Plain(BINARY),
        (S::GeographyType, 1) => Plain(BINARY),
        (S::GeographyType, 2) => Plain(I32),
        (S::RowGroup, 1) => ListOfStruct(S::ColumnChunk),
        (S::RowGroup, 2 | 3 | 5 | 6) => Plain(I64),
        (S::RowGroup, 4) => ListOfStruct(S::SortingColumn),
        (S::RowGroup, 7) => Plain(I16),
        (S::SortingColumn, 1) => Plain(I32),
        (S::SortingColumn, 2 | 3) => Plain(BOOL_TRUE),
        (S::ColumnChunk, 1 | 9) => Plain(BINARY),
        (S::ColumnChunk, 2 | 4 | 6) => Plain(I64),
        (S::ColumnChunk, 3) => Struct(S::ColumnMetaData),
        (S::ColumnChunk, 5 | 7) => Plain(I32),
        (S::ColumnChunk, 8) => Struct(S::ColumnCryptoMetaData),
        (S::ColumnMetaData, 1 | 4 | 15) => Plain(I32),
        (S::ColumnMetaData, 2) => ListOf(I32),
        (S::ColumnMetaData, 3) => ListOf(BINARY),
        (S::ColumnMetaData, 5..=7 | 9..=11 | 14) => Plain(I64),
        (S::ColumnMetaData, 8) => ListOfStruct(S::KeyValue),
        (S::ColumnMetaData, 12) => Struct(S::Statistics),
        (S::ColumnMetaData, 13) => ListOfStruct(S::PageEncodingStats),
        (S::ColumnMetaData, 16) => Struct(S::SizeStatistics),
        (S::ColumnMetaData, 17) => Struct(S::GeospatialStatistics),
        (S::PageEncodingStats, 1..=3) => Plain(I32),
        (S::KeyValue, 1 | 2) => Plain(BINARY),
        (S::SizeStatistics, 1) => Plain(I64),
        (S::SizeStatistics, 2 | 3) => ListOf(I64),
        (S::GeospatialStatistics, 1) => Struct(S::BoundingBox),
        (S::GeospatialStatistics, 2) => ListOf(I32),
        (S::BoundingBox, 1..=8) => Plain(DOUBLE),
        (S::EncryptionAlgorithm, 1 | 2) => Struct(S::AesGcm),
        (S::AesGcm, 1 | 2) => Plain(BINARY),
        (S::AesGcm, 3) => Plain(BOOL_TRUE),
        (S::ColumnCryptoMetaData, 1) => Struct(S::Skipped),
        (S::ColumnCryptoMetaData, 2) => Struct(S::EncryptionWithColumnKey),
        (S::EncryptionWithColumnKey, 1) => ListOf(BINARY),
        (S::EncryptionWithColumnKey, 2) => Plain(BINARY),
        _ => return None,
    })
}

/// Why a structure did not pass: more bytes are needed, or it is not one the crate parses the
/// same way in bounded time.
#[derive(Debug, PartialEq, Eq)]
pub enum Stop {
    /// The bytes end before the structure does.
    Short,
    /// The structure is malformed or could parse differently in the crate; the text says how.
    Bad(String),
}

/// What [`walk`] found: the bytes the structure takes and, for a `PageHeader`, its
/// `uncompressed_page_size` and `compressed_page_size` and a data page's `num_values`.
#[derive(Debug, PartialEq, Eq)]
pub struct Walked {
    /// Bytes the structure takes.
    pub len: usize,
    /// `PageHeader` fields 2 and 3, when seen.
    pub page_sizes: [Option<i64>; 2],
    /// `num_values` of a `DataPageHeader` or `DataPageHeaderV2`, when seen.
    pub page_values: Option<i64>,
}

/// Walks one `shape` struct at the start of `buf`, of which `room` bytes belong to the structure's
/// container (a column chunk, the footer); `buf` may be shorter, and then [`Stop::Short`] asks for
/// more.
pub fn walk(shape: Shape, buf: &[u8], room: u64) -> Result<Walked, Stop> {
    let mut cursor = Cursor {
        buf,
        at: 0,
        room: room.min(usize::MAX as u64) as usize,
        page_sizes: [None; 2],
        page_values: None,
    };
    cursor.walk_struct(shape, 0)?;
    Ok(Walked {
        len: cursor.at,
        page_sizes: cursor.page_sizes,
        page_values: cursor.page_values,
    })
}

struct Cursor<'a> {
    buf: &'a [u8],
    at: usize,
    /// Bytes of the container from the structure's start (`buf` may hold fewer).
    room: usize,
    page_sizes: [Option<i64>; 2],
    page_values: Option<i64>,
}

fn bad<T>(why: String) -> Result<T, Stop> {
    Err(Stop::Bad(why))
}

impl Cursor<'_> {
    fn left(&self) -> usize {
        self.room.saturating_sub(self.at)
    }

    fn byte(&mut self) -> Result<u8, Stop> {
        if self.at >= self.room {
            return bad("runs past the end of its column chunk or footer".into());
        }
        let b = self.buf.get(self.at).copied().ok_or(Stop::Short)?;
        self.at += 1;
        Ok(b)
    }

    fn skip(&mut self, n: u64) -> Result<(), Stop> {
        if n > self.left() as u64 {
            return bad(format!(
                "holds a value of {n} bytes with {} left",
                self.left()
            ));
        }
        let n = n as usize;
        if self.at + n > self.buf.len() {
            return Err(Stop::Short);
        }
        self.at += n;
        Ok(())
    }

    /// An unsigned LEB128 varint of at most 10 bytes.
    fn varint(&mut self) -> Result<u64, Stop> {
        let mut value = 0u64;
        for i in 0..10 {
            let b = self.byte()?;
            value |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        bad("holds a varint longer than 10 bytes".into())
    }

    fn zigzag(&mut self) -> Result<i64, Stop> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    fn deeper(depth: u32) -> Result<u32, Stop> {
        if depth >= MAX_DEPTH {
            return bad(format!("nests deeper than {MAX_DEPTH} levels"));
        }
        Ok(depth + 1)
    }

    fn walk_struct(&mut self, shape: Shape, depth: u32) -> Result<(), Stop> {
        let depth = Self::deeper(depth)?;
        let mut last: i16 = 0;
        loop {
            let head = self.byte()?;
            let kind = head & 0x0f;
            if kind == 0 {
                return Ok(());
            }
            if kind > wire::UUID {
                return bad(format!("holds a field of unknown type {kind}"));
            }
            let delta = head >> 4;
            let id = if delta != 0 {
                last.checked_add(i16::from(delta))
                    .ok_or_else(|| Stop::Bad("numbers a field past 32767".into()))?
            } else {
                // The crate reads the id as a zigzag varint cut to 16 bits.
                self.zigzag()? as i16
            };
            match field(shape, id) {
                None => self.skip_value(kind, depth)?,
                Some(expected) => self.read_known(shape, id, kind, expected, depth)?,
            }
            last = id;
        }
    }

    /// Field `id` of `shape`, which the crate reads as `expected`, encoded as `kind`.
    fn read_known(
        &mut self,
        shape: Shape,
        id: i16,
        kind: u8,
        expected: Kind,
        depth: u32,
    ) -> Result<(), Stop> {
        let is_bool = |k| k == wire::BOOL_TRUE || k == wire::BOOL_FALSE;
        let wire_of = match expected {
            Kind::Plain(w) => w,
            Kind::Struct(_) => wire::STRUCT,
            Kind::ListOf(_) | Kind::ListOfStruct(_) => wire::LIST,
        };
        if kind != wire_of && !(is_bool(kind) && is_bool(wire_of)) {
            return bad(format!(
                "encodes field {id} of its {shape:?} as type {kind}, which the decoder reads \
                 as type {wire_of}"
            ));
        }
        match expected {
            Kind::Plain(_) if shape == Shape::PageHeader && matches!(id, 2 | 3) => {
                let value = i64::from(self.zigzag()? as i32);
                self.page_sizes[(id - 2) as usize] = Some(value);
                Ok(())
            }
            Kind::Plain(_)
                if matches!(shape, Shape::DataPageHeader | Shape::DataPageHeaderV2) && id == 1 =>
            {
                self.page_values = Some(i64::from(self.zigzag()? as i32));
                Ok(())
            }
            Kind::Plain(w) => self.skip_value(w, depth),
            Kind::Struct(inner) => self.walk_struct(inner, depth),
            Kind::ListOf(element) => self.list(Some(element), None, depth),
            Kind::ListOfStruct(inner) => self.list(Some(wire::STRUCT), Some(inner), depth),
        }
    }

    /// A list or set: its element type must be `element` when given; struct entries are
    /// walked as `shape` (the crate's type) when given, else skipped.
    fn list(&mut self, element: Option<u8>, shape: Option<Shape>, depth: u32) -> Result<(), Stop> {
        let head = self.byte()?;
        if head == 0 {
            return Ok(());
        }
        let kind = head & 0x0f;
        if element.is_some_and(|e| e != kind) {
            return bad(format!(
                "holds a list of type {kind} where the decoder reads type {}",
                element.unwrap_or_default()
            ));
        }
        let size = match head >> 4 {
            15 => i32::try_from(self.varint()?)
                .map_err(|_| Stop::Bad("holds a list longer than 2^31".into()))?
                as u64,
            n => u64::from(n),
        };
        self.entries(size, &[kind], shape, depth)
    }

    /// Skips a value of wire type `kind` as the crate skips it.
    fn skip_value(&mut self, kind: u8, depth: u32) -> Result<(), Stop> {
        use wire::*;
        match kind {
            BOOL_TRUE | BOOL_FALSE => Ok(()),
            BYTE => self.skip(1),
            I16 | I32 | I64 => self.varint().map(drop),
            DOUBLE => self.skip(8),
            BINARY => {
                let n = self.varint()?;
                self.skip(n)
            }
            LIST | SET => self.list(None, None, Self::deeper(depth)?),
            MAP => {
                let size = i32::try_from(self.varint()?)
                    .map_err(|_| Stop::Bad("holds a map larger than 2^31".into()))?;
                if size <= 0 {
                    return Ok(());
                }
                let types = self.byte()?;
                self.entries(
                    size as u64,
                    &[types >> 4, types & 0x0f],
                    None,
                    Self::deeper(depth)?,
                )
            }
            STRUCT => self.walk_struct(Shape::Skipped, depth),
            UUID => self.skip(16),
            _ => bad(format!("holds a value of unknown type {kind}")),
        }
    }

    /// `size` entries of `kinds` each (one for a list, key and value for a map).
    fn entries(
        &mut self,
        size: u64,
        kinds: &[u8],
        shape: Option<Shape>,
        depth: u32,
    ) -> Result<(), Stop> {
        for &kind in kinds {
            if kind == wire::BOOL_TRUE || kind == wire::BOOL_FALSE {
                return bad("holds a container of bools".into());
            }
            if kind == 0 || kind > wire::UUID {
                return bad(format!("holds a container of unknown type {kind}"));
            }
        }
        if size.saturating_mul(kinds.len() as u64) > self.left() as u64 {
            return bad(format!(
                "holds a container of {size} entries with {} bytes left",
                self.left()
            ));
        }
        for _ in 0..size {
            for &kind in kinds {
                match shape {
                    Some(s) if kind == wire::STRUCT => self.walk_struct(s, depth)?,
                    _ => self.skip_value(kind, depth)?,
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Compact-protocol bytes of a `PageHeader` (type, sizes) with `extra` fields before the stop.
    pub(crate) fn header(uncompressed: i32, compressed: i32, extra: &[u8]) -> Vec<u8> {
        let zigzag = |v: i32| {
            let mut z = ((v << 1) ^ (v >> 31)) as u32;
            let mut out = Vec::new();
            loop {
                if z < 0x80 {
                    out.push(z as u8);
                    return out;
                }
                out.push((z as u8 & 0x7f) | 0x80);
                z >>= 7;
            }
        };
        let mut h = vec![0x15];
        h.extend(zigzag(0));
        h.push(0x15);
        h.extend(zigzag(uncompressed));
        h.push(0x15);
        h.extend(zigzag(compressed));
        h.extend_from_slice(extra);
        h.push(0);
        h
    }

    fn page(buf: &[u8], room: u64) -> Result<Walked, Stop> {
        walk(Shape::PageHeader, buf, room)
    }

    #[test]
    fn headers_the_decoder_would_read_differently_or_slowly_are_refused() {
        let ok = header(100, 10, &[]);
        let walked = page(&ok, 1000).unwrap();
        assert_eq!(
            walked,
            Walked {
                len: ok.len(),
                page_sizes: [Some(100), Some(10)],
                page_values: None,
            }
        );
        // The finding's shape: an unknown field (id 9) holding a list that claims 2^31 - 1
        // doubles, which the decoder skips one by one past the end of the chunk.
        let list_of_doubles = [0x69, 0xf7, 0xff, 0xff, 0xff, 0xff, 0x07];
        let e = page(&header(100, 10, &list_of_doubles), 1000).unwrap_err();
        assert!(
            matches!(&e, Stop::Bad(why) if why.contains("2147483647 entries")),
            "{e:?}"
        );
        // A short list of bools: the decoder skips them without reading their bytes.
        let e = page(&header(100, 10, &[0x69, 0x21, 1, 1]), 1000).unwrap_err();
        assert_eq!(e, Stop::Bad("holds a container of bools".into()));
        // A known field (compressed_page_size) encoded as a binary.
        let mut wrong = header(100, 10, &[]);
        wrong[5] = 0x18;
        assert!(matches!(page(&wrong, 1000), Err(Stop::Bad(_))));
        // A binary longer than what is left, and a header cut by the end of its chunk.
        let e = page(&header(100, 10, &[0x68, 0x80, 0x08]), 1000).unwrap_err();
        assert!(
            matches!(&e, Stop::Bad(why) if why.contains("1024 bytes")),
            "{e:?}"
        );
        assert_eq!(page(&ok[..4], 1000), Err(Stop::Short));
        assert!(matches!(page(&ok[..4], 4), Err(Stop::Bad(_))));
        // Nesting deeper than allowed.
        let mut deep = vec![0x6c];
        deep.extend(vec![0x1c; 39]);
        deep.extend(vec![0; 40]);
        assert!(matches!(
            page(&header(1, 1, &deep), 1000),
            Err(Stop::Bad(why)) if why.contains("nests deeper")
        ));
    }

    /// A footer whose known list (`row_groups`, id 4) is fine but whose unknown field (id 20)
    /// is a list of lists of bools — seconds of skipping per byte in the crate — is refused,
    /// while the same footer without it passes.
    #[test]
    fn a_footer_with_a_container_of_bools_is_refused() {
        // FileMetaData { 1: version = 1, 3: num_rows = 0, 4: row_groups = [] } then stop.
        let mut footer = vec![0x15, 0x02, 0x26, 0x00, 0x19, 0x00];
        let mut with = footer.clone();
        footer.push(0);
        assert_eq!(walk(Shape::FileMetaData, &footer, 7).unwrap().len, 7);
        // Field 20 (explicit id): list of 2 lists of 2^31 - 1 bools each.
        with.extend([0x09, 0x28, 0x29]);
        for _ in 0..2 {
            with.extend([0xf1, 0xff, 0xff, 0xff, 0xff, 0x07]);
        }
        with.push(0);
        let e = walk(Shape::FileMetaData, &with, with.len() as u64).unwrap_err();
        assert!(
            matches!(&e, Stop::Bad(why) if why.contains("bools")),
            "{e:?}"
        );
    }
}
