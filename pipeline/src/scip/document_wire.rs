//! A SCIP `Document` at the protobuf wire level: one walk over its top-level fields reads the
//! path, language, text and position encoding and finds where its occurrences and symbol
//! information lie ([`read_header`]); [`for_each_message`] then decodes those one message at a
//! time into a reused message.

use std::ops::Range;

use protobuf::rt::WireType;
use protobuf::{CodedInputStream, EnumOrUnknown, Message};
use scip::types::PositionEncoding;

/// `Document` field tags (field number and wire type) as the SCIP crate's decoder matches them; any
/// other tag is an unknown field and is skipped.
pub(super) const TAG_RELATIVE_PATH: u32 = 1 << 3 | 2;
pub(super) const TAG_OCCURRENCE: u32 = 2 << 3 | 2;
pub(super) const TAG_SYMBOL: u32 = 3 << 3 | 2;
pub(super) const TAG_LANGUAGE: u32 = 4 << 3 | 2;
pub(super) const TAG_TEXT: u32 = 5 << 3 | 2;
pub(super) const TAG_POSITION_ENCODING: u32 = 6 << 3;

/// A document's fields other than its occurrences and symbols, which are only counted. Repeated
/// singular fields keep the last value, as protobuf's decoder does.
#[derive(Default)]
pub struct DocHeader {
    /// `relative_path`.
    pub relative_path: String,
    pub(super) language: String,
    pub(super) text: String,
    pub(super) position_encoding: EnumOrUnknown<PositionEncoding>,
    pub(super) occurrences: usize,
    pub(super) symbols: usize,
    /// The bytes from the first occurrence field to the end of the last (other fields may lie
    /// between), so the walk over occurrences skips nothing before or after them; the same for
    /// symbols.
    pub(super) occurrence_bytes: Range<usize>,
    pub(super) symbol_bytes: Range<usize>,
}

/// Widens `range` (empty when nothing was found yet) to cover `field`.
fn cover(range: &mut Range<usize>, field: Range<usize>) {
    if range.start == range.end {
        *range = field;
    } else {
        range.end = field.end;
    }
}

/// Reads the header of an encoded `Document` (see the module doc).
pub fn read_header(bytes: &[u8]) -> protobuf::Result<DocHeader> {
    let mut is = CodedInputStream::from_bytes(bytes);
    let mut header = DocHeader::default();
    let mut at = is.pos() as usize;
    while let Some(tag) = is.read_raw_tag_or_eof()? {
        match tag {
            TAG_RELATIVE_PATH => is.read_string_into(&mut header.relative_path)?,
            TAG_LANGUAGE => is.read_string_into(&mut header.language)?,
            TAG_TEXT => is.read_string_into(&mut header.text)?,
            TAG_POSITION_ENCODING => header.position_encoding = is.read_enum_or_unknown()?,
            TAG_OCCURRENCE => {
                header.occurrences += 1;
                is.skip_field(WireType::LengthDelimited)?;
                cover(&mut header.occurrence_bytes, at..is.pos() as usize);
            }
            TAG_SYMBOL => {
                header.symbols += 1;
                is.skip_field(WireType::LengthDelimited)?;
                cover(&mut header.symbol_bytes, at..is.pos() as usize);
            }
            tag => protobuf::rt::skip_field_for_tag(tag, &mut is)?,
        }
        at = is.pos() as usize;
    }
    Ok(header)
}

/// Decodes the messages of one repeated field (`tag`) of an encoded `Document` in order, each into
/// `message` (cleared first, so its buffers are reused) with the SCIP crate's decoder, and hands
/// each to `each`. `bytes` is a whole number of fields (see [`DocHeader`]).
pub(super) fn for_each_message<M: Message>(
    bytes: &[u8],
    tag: u32,
    message: &mut M,
    mut each: impl FnMut(&mut M),
) -> protobuf::Result<()> {
    let mut is = CodedInputStream::from_bytes(bytes);
    while let Some(t) = is.read_raw_tag_or_eof()? {
        if t == tag {
            message.clear();
            is.merge_message(message)?;
            each(message);
        } else {
            protobuf::rt::skip_field_for_tag(t, &mut is)?;
        }
    }
    Ok(())
}
