//! SCIP positions to ours: SCIP lines and characters are 0-based, characters counted in the
//! document's position encoding (UTF-8, UTF-16 or UTF-32 code units); ours are 1-based lines and
//! 1-based UTF-8 byte columns. UTF-16 and UTF-32 offsets are converted with the line's text.

use scip::types::occurrence::{Typed_enclosing_range, Typed_range};
use scip::types::Occurrence;

use super::mapping::Span;
use super::quirks::{self, Tally};

/// How `character` offsets count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 code units (bytes): our own unit.
    Utf8,
    /// UTF-16 code units.
    Utf16,
    /// UTF-32 code units (Unicode scalar values).
    Utf32,
}

/// The encoding assumed when a document leaves `position_encoding` unset. The SCIP schema says an
/// indexer should use the unit its implementation language indexes strings with: UTF-16 for
/// JavaScript/TypeScript and JVM/.NET indexers (scip-typescript, scip-python — built on pyright —,
/// scip-java, scip-dotnet, scip-dart), UTF-8 for Go, Rust and C++ ones (rust-analyzer, scip-go,
/// scip-clang, scip-ruby). Unknown tools get UTF-16, the LSP unit SCIP inherited.
pub fn default_encoding(tool: &str) -> Encoding {
    match tool {
        "rust-analyzer" | "scip-go" | "scip-clang" | "scip-ruby" | "scip-rust" | "scip-zig" => {
            Encoding::Utf8
        }
        _ => Encoding::Utf16,
    }
}

/// A raw 0-based range `[start line, start char, end line, end char]` from a 3- or 4-element
/// `repeated int32`; `None` when malformed.
pub fn raw_range(v: &[i32]) -> Option<[i32; 4]> {
    let r = match *v {
        [l, s, e] => [l, s, l, e],
        [l, s, el, e] => [l, s, el, e],
        _ => return None,
    };
    let ok = r.iter().all(|x| *x >= 0) && (r[2], r[3]) >= (r[0], r[1]) && r[2] < i32::MAX;
    ok.then_some(r)
}

pub(super) fn occurrence_range(o: &Occurrence) -> Option<([i32; 4], bool)> {
    if !o.range.is_empty() {
        return raw_range(&o.range).map(|r| (r, false));
    }
    let r = match o.typed_range.as_ref()? {
        Typed_range::SingleLineRange(r) => [r.line, r.start_character, r.line, r.end_character],
        Typed_range::MultiLineRange(r) => {
            [r.start_line, r.start_character, r.end_line, r.end_character]
        }
        #[allow(unreachable_patterns)]
        _ => return None,
    };
    raw_range(&r).map(|r| (r, true))
}

pub(super) fn enclosing_range(o: &Occurrence) -> Option<[i32; 4]> {
    if !o.enclosing_range.is_empty() {
        return raw_range(&o.enclosing_range);
    }
    let r = match o.typed_enclosing_range.as_ref()? {
        Typed_enclosing_range::SingleLineEnclosingRange(r) => {
            [r.line, r.start_character, r.line, r.end_character]
        }
        Typed_enclosing_range::MultiLineEnclosingRange(r) => {
            [r.start_line, r.start_character, r.end_line, r.end_character]
        }
        #[allow(unreachable_patterns)]
        _ => return None,
    };
    raw_range(&r)
}

/// Line access for converting UTF-16/32 offsets.
pub(super) struct Lines {
    pub(super) text: Vec<u8>,
    pub(super) starts: Vec<usize>,
    /// The whole text is ASCII (most source files): every offset is already a byte offset, so
    /// no line needs checking occurrence by occurrence.
    pub(super) ascii: bool,
}

impl Lines {
    pub(super) fn new(text: Vec<u8>) -> Lines {
        // Counted first (a fast pass), so that the vector is allocated once rather than regrown.
        let mut starts = Vec::with_capacity(memchr::memchr_iter(b'\n', &text).count() + 1);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', &text).map(|i| i + 1));
        let ascii = text.is_ascii();
        Lines {
            text,
            starts,
            ascii,
        }
    }

    pub(super) fn line(&self, i: usize) -> Option<&[u8]> {
        let start = *self.starts.get(i)?;
        let end = self
            .starts
            .get(i + 1)
            .map(|e| e - 1)
            .unwrap_or(self.text.len());
        let line = &self.text[start..end];
        Some(line.strip_suffix(b"\r").unwrap_or(line))
    }
}

/// Converts a code-unit offset within a line to a byte offset. `(bytes, within the line)`; past the
/// end, the excess is kept as bytes.
pub(super) fn byte_offset(line: &[u8], units: u32, enc: Encoding, ascii: bool) -> (u32, bool) {
    if ascii || enc == Encoding::Utf8 || line.is_ascii() {
        return (units, (units as usize) <= line.len());
    }
    let Ok(text) = std::str::from_utf8(line) else {
        return (units, (units as usize) <= line.len());
    };
    let mut seen: u32 = 0;
    for (i, ch) in text.char_indices() {
        if seen >= units {
            return (i as u32, true);
        }
        seen += match enc {
            Encoding::Utf16 => ch.len_utf16() as u32,
            _ => 1,
        };
    }
    if seen >= units {
        (line.len() as u32, true)
    } else {
        (line.len() as u32 + (units - seen), false)
    }
}

/// Converts a raw range to our convention. `None` when a number overflows.
pub(super) fn to_span(
    r: [i32; 4],
    enc: Encoding,
    lines: Option<&Lines>,
    tally: &mut Tally,
) -> Option<Span> {
    let (mut sc, mut ec) = (r[1] as u32, r[3] as u32);
    if enc != Encoding::Utf8 {
        if let Some(lines) = lines {
            let mut in_range = true;
            // A character offset on line `row` as a byte offset; unchanged when out of range.
            let mut to_bytes = |row: i32, units: u32| match lines.line(row as usize) {
                Some(l) => {
                    let (b, ok) = byte_offset(l, units, enc, lines.ascii);
                    in_range &= ok;
                    b
                }
                None => {
                    in_range = false;
                    units
                }
            };
            sc = to_bytes(r[0], sc);
            ec = to_bytes(r[2], ec);
            if !in_range {
                tally.bump(quirks::STALE_POSITION_OUT_OF_RANGE);
            }
        }
    }
    Some(Span {
        line: r[0].checked_add(1)?,
        col: i32::try_from(sc).ok()?.checked_add(1)?,
        end_line: r[2].checked_add(1)?,
        end_col: i32::try_from(ec).ok()?.checked_add(1)?,
    })
}
