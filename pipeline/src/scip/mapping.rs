//! Mapping one SCIP `Document` to document-local facts: repo path, occurrences with normalized
//! ranges and decoded roles, the innermost enclosing definition of every occurrence, and what its
//! `SymbolInformation` entries say. Pure and independent per document, so documents convert in
//! parallel; symbol strings stay document-local here and are parsed and resolved to stable IDs only
//! after the whole index has been read (once per distinct string; a symbol's kind, and so its ID,
//! may come from another document). A global symbol the parser then rejects counts as a definition
//! here; its occurrences are dropped afterwards and what it enclosed becomes top level.
//!
//! A document is decoded one message at a time, not as a whole `Document`: a first walk over its
//! top-level fields (protobuf's `CodedInputStream`, as [`super::reader`] walks the index) reads the
//! path, language, text and position encoding and counts the rest; then each occurrence, and then
//! each `SymbolInformation`, is decoded with the SCIP crate's own message decoder into one reused
//! message and converted before the next. Nothing holds all of a document's messages, and an
//! occurrence allocates nothing unless it names a symbol the document had not named yet (its string
//! then becomes the table's key). A document that fails to decode at any point is skipped whole.
//!
//! Positions: SCIP lines and characters are 0-based, characters counted in the document's
//! `position_encoding`; ours are 1-based lines and 1-based UTF-8 byte columns. UTF-16 and UTF-32
//! offsets need the line's text: it is taken from `Document.text` when present, else read from the
//! scanned file transiently (never stored). When the encoding is unset the tool's documented choice
//! is assumed (see [`default_encoding`]).
//!
//! Local symbols (`local N`) are unique only within one document, so they never get a stable ID:
//! they get no `symbols` row and their occurrences are left out (counted). They are recognised with
//! the SCIP crate's local-symbol parser and never reach the full symbol parser. They still cannot
//! hide a global definition's enclosure, because enclosure is computed over global definitions only.

use std::cmp::Reverse;
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::Path;

use output_schema::manifest::Warning;
use output_schema::Roles;
use protobuf::rt::WireType;
use protobuf::{CodedInputStream, EnumOrUnknown, Message};
use scip::types::occurrence::{Typed_enclosing_range, Typed_range};
use scip::types::{Occurrence, PositionEncoding, SymbolInformation};

use super::quirks::{self, Tally};
use super::symbols;
use crate::fast_map::FastMap;

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

/// What the conversion of every document needs to know.
pub struct DocEnv<'a> {
    /// Repository root (absolute).
    pub root: &'a Path,
    /// The index's project root relative to the repository root (`""` for the root itself).
    pub prefix: &'a str,
    /// Scanned files: repo path → `files.language`.
    pub files: &'a HashMap<String, String>,
    /// Paths an earlier index already covers.
    pub covered_before: &'a HashSet<String>,
    /// Encoding assumed when a document does not say.
    pub default_encoding: Encoding,
    /// Documents with more occurrences than this are skipped.
    pub max_occurrences: usize,
}

/// A range in our convention: 1-based lines, 1-based UTF-8 byte columns, end exclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    /// First line.
    pub line: i32,
    /// First column.
    pub col: i32,
    /// Last line.
    pub end_line: i32,
    /// Column just past the end.
    pub end_col: i32,
}

impl Span {
    fn start(&self) -> (i32, i32) {
        (self.line, self.col)
    }
    fn end(&self) -> (i32, i32) {
        (self.end_line, self.end_col)
    }
    /// Whether `inner` lies within `self`.
    pub fn contains(&self, inner: &Span) -> bool {
        self.start() <= inner.start() && inner.end() <= self.end()
    }
}

/// One occurrence of a global symbol.
#[derive(Clone, Debug)]
pub struct DocOcc {
    /// Document-local symbol index.
    pub sym: u32,
    /// Where.
    pub span: Span,
    /// Decoded roles.
    pub roles: Roles,
    /// Innermost enclosing global definition (document-local symbol index).
    pub enclosing: Option<u32>,
    /// For definitions: the span of the whole definition (its enclosing range, else the name).
    pub def_span: Option<Span>,
}

/// A relationship's kinds as bits.
pub const REL_IMPLEMENTATION: u8 = 1;
/// `is_type_definition`.
pub const REL_TYPE_DEFINITION: u8 = 2;
/// `is_reference`.
pub const REL_REFERENCE: u8 = 4;
/// `is_definition`.
pub const REL_DEFINITION: u8 = 8;

/// What the document's `SymbolInformation` says about one global symbol.
#[derive(Clone, Debug, Default)]
pub struct DocInfo {
    /// Our kind from `SymbolInformation.kind`, when set.
    pub kind: Option<&'static str>,
    /// Normalized signature from `signature_documentation.text`.
    pub signature: Option<String>,
    /// `(target document-local index, REL_* bits)`.
    pub relationships: Vec<(u32, u8)>,
}

/// A global symbol as this document names it. The string is not parsed here: the stage parses
/// each distinct symbol of an index once, after the last document.
#[derive(Clone, Debug)]
pub struct DocSymbol {
    /// The SCIP symbol string.
    pub symbol: String,
    /// Its `SymbolInformation` in this document, if listed.
    pub info: Option<DocInfo>,
}

/// The facts of one converted document.
#[derive(Debug)]
pub struct DocFacts {
    /// Repo-relative path.
    pub path: String,
    /// `files.language` of the path.
    pub language: String,
    /// Global symbols named in the document (indexed by the `sym` fields).
    pub symbols: Vec<DocSymbol>,
    /// Occurrences of global symbols, in the index's order.
    pub occurrences: Vec<DocOcc>,
    /// Counters.
    pub tally: Tally,
    /// Warnings.
    pub warnings: Vec<Warning>,
}

/// A document that was not used.
#[derive(Debug)]
pub struct DocSkip {
    /// The counter naming the reason.
    pub reason: &'static str,
    /// Counters (stale evidence among them).
    pub tally: Tally,
    /// The warning to report.
    pub warning: Warning,
}

/// The outcome of converting one document.
#[derive(Debug)]
pub enum DocOutcome {
    /// Converted.
    Facts(DocFacts),
    /// Skipped.
    Skipped(DocSkip),
}

fn skip(reason: &'static str, path: Option<String>, message: String) -> DocOutcome {
    let mut tally = Tally::default();
    tally.bump(reason);
    DocOutcome::Skipped(DocSkip {
        reason,
        tally,
        warning: Warning {
            code: reason.trim_start_matches("skipped.").to_string(),
            path,
            message,
        },
    })
}

/// Joins the project-root prefix and a document's relative path into a repo-relative path, or
/// `None` when the result would leave the repository (absolute paths, `..` past the root, drive
/// letters, NUL bytes).
pub fn repo_path(prefix: &str, relative: &str) -> Option<String> {
    if relative.is_empty()
        || relative.starts_with('/')
        || relative.starts_with('\\')
        || relative.contains('\0')
        || relative.as_bytes().get(1) == Some(&b':')
    {
        return None;
    }
    let mut parts: Vec<&str> = prefix.split('/').filter(|p| !p.is_empty()).collect();
    for part in relative.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// Decodes a SCIP role bitset. A site without the Definition bit is a reference.
pub fn roles(bits: i32) -> Roles {
    let mut r = if bits & 1 != 0 {
        Roles::DEFINITION
    } else {
        Roles::REFERENCE
    };
    for (bit, role) in [
        (2, Roles::IMPORT),
        (4, Roles::WRITE),
        (8, Roles::READ),
        (16, Roles::GENERATED),
        (32, Roles::TEST),
        (64, Roles::FORWARD_DEFINITION),
    ] {
        if bits & bit != 0 {
            r |= role;
        }
    }
    r
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

fn occurrence_range(o: &Occurrence) -> Option<([i32; 4], bool)> {
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

fn enclosing_range(o: &Occurrence) -> Option<[i32; 4]> {
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
struct Lines {
    text: Vec<u8>,
    starts: Vec<usize>,
    /// The whole text is ASCII (most source files): every offset is already a byte offset, so
    /// no line needs checking occurrence by occurrence.
    ascii: bool,
}

impl Lines {
    fn new(text: Vec<u8>) -> Lines {
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

    fn line(&self, i: usize) -> Option<&[u8]> {
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
fn byte_offset(line: &[u8], units: u32, enc: Encoding, ascii: bool) -> (u32, bool) {
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
fn to_span(r: [i32; 4], enc: Encoding, lines: Option<&Lines>, tally: &mut Tally) -> Option<Span> {
    let (mut sc, mut ec) = (r[1] as u32, r[3] as u32);
    if enc != Encoding::Utf8 {
        if let Some(lines) = lines {
            let mut in_range = true;
            match lines.line(r[0] as usize) {
                Some(l) => {
                    let (b, ok) = byte_offset(l, sc, enc, lines.ascii);
                    sc = b;
                    in_range &= ok;
                }
                None => in_range = false,
            }
            match lines.line(r[2] as usize) {
                Some(l) => {
                    let (b, ok) = byte_offset(l, ec, enc, lines.ascii);
                    ec = b;
                    in_range &= ok;
                }
                None => in_range = false,
            }
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

#[derive(Clone, Copy)]
enum Class {
    Global(u32),
    Local,
    Invalid,
}

/// Document-local symbol table. Its keys are the symbol strings themselves, copied from the
/// messages that name them the first time (the messages are decoded into reused buffers, so a
/// symbol named again costs no allocation); the strings of `symbols` stay empty until
/// [`SymTable::finish`] moves the global ones there.
#[derive(Default)]
struct SymTable {
    classes: FastMap<String, Class>,
    symbols: Vec<DocSymbol>,
    locals: usize,
}

impl SymTable {
    /// Classifies a symbol string the first time the document names it. `local N` symbols are
    /// recognised (and validated) by the SCIP crate's local-symbol parser and never reach the full
    /// symbol parser; global ones are kept as strings for the stage to parse once per index.
    fn classify(
        &mut self,
        symbol: &str,
        tally: &mut Tally,
        warnings: &mut Vec<Warning>,
        path: &str,
    ) -> Class {
        if let Some(&class) = self.classes.get(symbol) {
            return class;
        }
        let class = match scip::symbol::try_parse_local_symbol(symbol) {
            Ok(Some(_)) => {
                self.locals += 1;
                Class::Local
            }
            Ok(None) => {
                self.symbols.push(DocSymbol {
                    symbol: String::new(),
                    info: None,
                });
                Class::Global((self.symbols.len() - 1) as u32)
            }
            Err(err) => {
                tally.bump(quirks::SKIP_UNPARSABLE_SYMBOL);
                warnings.push(unparsable_symbol_warning(symbol, path, &format!("{err:?}")));
                Class::Invalid
            }
        };
        self.classes.insert(symbol.to_owned(), class);
        class
    }

    /// The global symbols, each with its string.
    fn finish(self) -> Vec<DocSymbol> {
        let mut symbols = self.symbols;
        // Each string goes to the slot its class names, so the map's order cannot show.
        #[allow(clippy::iter_over_hash_type)]
        for (string, class) in self.classes {
            if let Class::Global(i) = class {
                symbols[i as usize].symbol = string;
            }
        }
        symbols
    }
}

/// The warning for a symbol string the SCIP symbol parser rejects.
pub fn unparsable_symbol_warning(symbol: &str, path: &str, why: &str) -> Warning {
    Warning {
        code: "unparsable-symbol".into(),
        path: Some(path.to_string()),
        message: format!(
            "symbol {:?} rejected by the SCIP symbol parser: {why}",
            truncate(symbol, 120)
        ),
    }
}

fn truncate(s: &str, max: usize) -> &str {
    let mut cut = s.len().min(max);
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    &s[..cut]
}

/// `Document` field tags (field number and wire type) as the SCIP crate's decoder matches them; any
/// other tag is an unknown field and is skipped.
const TAG_RELATIVE_PATH: u32 = 1 << 3 | 2;
const TAG_OCCURRENCE: u32 = 2 << 3 | 2;
const TAG_SYMBOL: u32 = 3 << 3 | 2;
const TAG_LANGUAGE: u32 = 4 << 3 | 2;
const TAG_TEXT: u32 = 5 << 3 | 2;
const TAG_POSITION_ENCODING: u32 = 6 << 3;

/// A document's fields other than its occurrences and symbols, which are only counted. Repeated
/// singular fields keep the last value, as protobuf's decoder does.
#[derive(Default)]
pub struct DocHeader {
    /// `relative_path`.
    pub relative_path: String,
    language: String,
    text: String,
    position_encoding: EnumOrUnknown<PositionEncoding>,
    occurrences: usize,
    symbols: usize,
    /// The bytes from the first occurrence field to the end of the last (other fields may lie
    /// between), so the walk over occurrences skips nothing before or after them; the same for
    /// symbols.
    occurrence_bytes: Range<usize>,
    symbol_bytes: Range<usize>,
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
fn for_each_message<M: Message>(
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

fn undecodable(e: protobuf::Error) -> DocOutcome {
    let mut tally = Tally::default();
    tally.bump(quirks::SKIP_UNDECODABLE);
    DocOutcome::Skipped(DocSkip {
        reason: quirks::SKIP_UNDECODABLE,
        tally,
        warning: Warning {
            code: "document-undecodable".into(),
            path: None,
            message: format!("a document could not be decoded: {e}"),
        },
    })
}

/// Converts one encoded document. Also returns the number of occurrences it holds (0 when it
/// cannot be decoded).
pub fn convert(bytes: &[u8], env: &DocEnv<'_>) -> (i64, DocOutcome) {
    convert_with_header(bytes, read_header(bytes), env)
}

/// [`convert`] of a document whose header was already read ([`read_header`] of `bytes`).
pub fn convert_with_header(
    bytes: &[u8],
    header: protobuf::Result<DocHeader>,
    env: &DocEnv<'_>,
) -> (i64, DocOutcome) {
    let header = match header {
        Ok(h) => h,
        Err(e) => return (0, undecodable(e)),
    };
    match convert_decoded(bytes, header, env) {
        Ok((occurrences, outcome)) => (occurrences as i64, outcome),
        Err(e) => (0, undecodable(e)),
    }
}

fn convert_decoded(
    bytes: &[u8],
    header: DocHeader,
    env: &DocEnv<'_>,
) -> protobuf::Result<(usize, DocOutcome)> {
    let (occurrence_count, symbol_count) = (header.occurrences, header.symbols);
    let Some(path) = repo_path(env.prefix, &header.relative_path) else {
        return Ok((
            occurrence_count,
            skip(
                quirks::SKIP_PATH_ESCAPES,
                None,
                format!(
                    "document path {:?} leaves the repository; rejected",
                    truncate(&header.relative_path, 200)
                ),
            ),
        ));
    };
    if env.covered_before.contains(&path) {
        return Ok((
            occurrence_count,
            skip(
                quirks::SKIP_ALREADY_COVERED,
                Some(path),
                "an earlier SCIP index already covers this file".into(),
            ),
        ));
    }
    let Some(language) = env.files.get(&path) else {
        let missing = matches!(
            std::fs::symlink_metadata(env.root.join(&path)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound
        );
        let mut out = skip(
            quirks::SKIP_NOT_IN_SCAN,
            Some(path),
            if missing {
                "the index describes a file that does not exist (index is stale)".into()
            } else {
                "the scan did not keep this file (ignored, binary, generated or too large)".into()
            },
        );
        if let (true, DocOutcome::Skipped(s)) = (missing, &mut out) {
            s.tally.bump(quirks::STALE_MISSING_FILE);
        }
        return Ok((occurrence_count, out));
    };
    if occurrence_count > env.max_occurrences {
        return Ok((
            occurrence_count,
            skip(
                quirks::SKIP_TOO_MANY_OCCURRENCES,
                Some(path),
                format!(
                    "{occurrence_count} occurrences exceed the limit of {}",
                    env.max_occurrences
                ),
            ),
        ));
    }

    let mut tally = Tally::default();
    let mut warnings = Vec::new();
    if header.text.is_empty() {
        tally.bump(quirks::DOCUMENT_TEXT_EMPTY);
    }
    if header.language.is_empty() {
        tally.bump(quirks::LANGUAGE_UNSET);
    }
    let encoding = match header.position_encoding.enum_value() {
        Ok(PositionEncoding::UTF8CodeUnitOffsetFromLineStart) => Encoding::Utf8,
        Ok(PositionEncoding::UTF16CodeUnitOffsetFromLineStart) => Encoding::Utf16,
        Ok(PositionEncoding::UTF32CodeUnitOffsetFromLineStart) => Encoding::Utf32,
        _ => {
            tally.bump(quirks::POSITION_ENCODING_UNSET);
            env.default_encoding
        }
    };
    let lines = if encoding != Encoding::Utf8 && occurrence_count > 0 {
        let text = if header.text.is_empty() {
            std::fs::read(env.root.join(&path)).ok()
        } else {
            Some(header.text.into_bytes())
        };
        match text {
            Some(t) => {
                tally.bump(if encoding == Encoding::Utf16 {
                    quirks::POSITIONS_UTF16
                } else {
                    quirks::POSITIONS_UTF32
                });
                Some(Lines::new(t))
            }
            None => {
                tally.bump(quirks::POSITIONS_UNCONVERTED);
                None
            }
        }
    } else {
        None
    };

    // Sized for the symbols the document describes and those it only refers to: a document names
    // about one distinct symbol per three occurrences (scip-typescript on vue, rust-analyzer on
    // ripgrep), so the table rarely regrows. Capped, so that a huge document does not reserve
    // room for millions of symbols it may not name.
    let named = symbol_count.max(occurrence_count / 2).min(1 << 16);
    let mut table = SymTable {
        classes: FastMap::with_capacity_and_hasher(named, Default::default()),
        symbols: Vec::with_capacity(named),
        locals: 0,
    };
    let mut occs: Vec<DocOcc> = Vec::with_capacity(occurrence_count);
    let mut last_start: Option<(i32, i32)> = None;
    let mut unsorted = false;
    // Per-occurrence counters, added to the tally once per document.
    let (mut no_symbol, mut local_occs, mut invalid_occs, mut bad_ranges, mut typed_ranges) =
        (0i64, 0i64, 0i64, 0i64, 0i64);
    let mut enclosing_elsewhere = 0i64;
    let mut message = Occurrence::new();
    let occurrence_bytes = &bytes[header.occurrence_bytes.clone()];
    let symbol_bytes = &bytes[header.symbol_bytes.clone()];
    for_each_message(occurrence_bytes, TAG_OCCURRENCE, &mut message, |o| {
        if o.symbol.is_empty() {
            no_symbol += 1;
            return;
        }
        let sym = match table.classify(&o.symbol, &mut tally, &mut warnings, &path) {
            Class::Global(i) => i,
            Class::Local => {
                local_occs += 1;
                return;
            }
            Class::Invalid => {
                invalid_occs += 1;
                return;
            }
        };
        let Some((raw, typed)) = occurrence_range(o) else {
            bad_ranges += 1;
            return;
        };
        typed_ranges += typed as i64;
        if last_start.is_some_and(|p| (raw[0], raw[1]) < p) {
            unsorted = true;
        }
        last_start = Some((raw[0], raw[1]));
        let Some(span) = to_span(raw, encoding, lines.as_ref(), &mut tally) else {
            bad_ranges += 1;
            return;
        };
        let r = roles(o.symbol_roles);
        let enclosing = enclosing_range(o)
            .and_then(|e| to_span(e, encoding, lines.as_ref(), &mut Tally::default()));
        let def_span = if r.contains(Roles::DEFINITION) {
            // The definition's extent. scip-typescript's module definitions sit at 0:0 outside
            // their own enclosing range, so containment is not required here.
            Some(enclosing.unwrap_or(span))
        } else {
            if enclosing.is_some_and(|e| !e.contains(&span)) {
                enclosing_elsewhere += 1;
            }
            None
        };
        occs.push(DocOcc {
            sym,
            span,
            roles: r,
            enclosing: None,
            def_span,
        });
    })?;
    drop(message);
    drop(lines);
    tally.add(quirks::SKIP_NO_SYMBOL, no_symbol);
    tally.add(quirks::SKIP_LOCAL_OCCURRENCES, local_occs);
    tally.add(quirks::SKIP_UNPARSABLE_OCCURRENCES, invalid_occs);
    tally.add(quirks::SKIP_BAD_RANGE, bad_ranges);
    tally.add(quirks::TYPED_RANGES, typed_ranges);
    tally.add(
        quirks::REFERENCE_ENCLOSING_RANGE_ELSEWHERE,
        enclosing_elsewhere,
    );
    if unsorted {
        tally.bump(quirks::UNSORTED_OCCURRENCES);
    }

    // Indexed by document symbol; `classify` may add symbols as it goes.
    let mut seen_info: Vec<bool> = Vec::new();
    let mut kind_unset = 0i64;
    let mut message = SymbolInformation::new();
    for_each_message(symbol_bytes, TAG_SYMBOL, &mut message, |info| {
        let sym = match table.classify(&info.symbol, &mut tally, &mut warnings, &path) {
            Class::Global(i) => i,
            Class::Local | Class::Invalid => return,
        };
        let kind = symbols::kind_name(info.kind);
        kind_unset += i64::from(info.kind.value() == 0);
        let signature = info
            .signature_documentation
            .as_ref()
            .and_then(|d| symbols::normalize_signature(&d.text, rules_of(&info.symbol)));
        let mut rels = Vec::new();
        for rel in &info.relationships {
            let bits = (if rel.is_implementation {
                REL_IMPLEMENTATION
            } else {
                0
            }) | (if rel.is_type_definition {
                REL_TYPE_DEFINITION
            } else {
                0
            }) | (if rel.is_reference { REL_REFERENCE } else { 0 })
                | (if rel.is_definition { REL_DEFINITION } else { 0 });
            if bits == 0 || rel.symbol.is_empty() {
                continue;
            }
            if let Class::Global(t) = table.classify(&rel.symbol, &mut tally, &mut warnings, &path)
            {
                rels.push((t, bits));
            }
        }
        if seen_info.len() <= sym as usize {
            seen_info.resize(table.symbols.len(), false);
        }
        if std::mem::replace(&mut seen_info[sym as usize], true) {
            tally.bump(quirks::LISTED_TWICE_IN_DOCUMENT);
        }
        let slot = &mut table.symbols[sym as usize].info;
        let merged = slot.get_or_insert_with(DocInfo::default);
        merged.kind = merged.kind.or(kind);
        if merged.signature.is_none() {
            merged.signature = signature;
        }
        merged.relationships.extend(rels);
    })?;
    drop(message);
    tally.add(quirks::KIND_UNSET, kind_unset);
    tally.add(quirks::LOCAL_SYMBOLS, table.locals as i64);

    let mut defs_per_symbol: Vec<u32> = vec![0; table.symbols.len()];
    for o in occs.iter().filter(|o| o.def_span.is_some()) {
        defs_per_symbol[o.sym as usize] += 1;
    }
    tally.add(
        quirks::DEFINED_TWICE_IN_DOCUMENT,
        defs_per_symbol.iter().filter(|n| **n > 1).count() as i64,
    );
    assign_enclosing(&mut occs);

    Ok((
        occurrence_count,
        DocOutcome::Facts(DocFacts {
            path,
            language: language.clone(),
            symbols: table.finish(),
            occurrences: occs,
            tally,
            warnings,
        }),
    ))
}

/// Sets every occurrence's innermost enclosing global definition: a sweep over occurrences in
/// position order with a stack of open definition spans (outer first), O(n log n).
fn assign_enclosing(occs: &mut [DocOcc]) {
    struct Def {
        span: Span,
        occ: usize,
        sym: u32,
    }
    let mut defs: Vec<Def> = occs
        .iter()
        .enumerate()
        .filter_map(|(i, o)| {
            o.def_span.map(|span| Def {
                span,
                occ: i,
                sym: o.sym,
            })
        })
        .collect();
    if defs.is_empty() {
        return;
    }
    // Position order, outer spans first; the index breaks ties, so the result is unique (and a
    // stable sort gives what any sort would). Most indexers already list occurrences in this order
    // (then nothing is sorted); scip-python lists them in sorted runs, which a merge sort takes
    // as they are (a quicksort spent twice as much on them).
    let def_key = |d: &Def| (d.span.start(), Reverse(d.span.end()), d.occ);
    if !defs.is_sorted_by_key(def_key) {
        defs.sort_by_key(def_key);
    }
    let occ_key = |&i: &usize| (occs[i].span.start(), Reverse(occs[i].span.end()), i);
    let mut order: Vec<usize> = (0..occs.len()).collect();
    if !order.is_sorted_by_key(occ_key) {
        order.sort_by_key(occ_key);
    }
    let mut stack: Vec<usize> = Vec::new();
    let mut next = 0;
    for i in order {
        let span = occs[i].span;
        while next < defs.len() && defs[next].span.start() <= span.start() {
            stack.push(next);
            next += 1;
        }
        // A definition that ended before this position cannot enclose anything later.
        while stack
            .last()
            .is_some_and(|&t| defs[t].span.end() <= span.start() && defs[t].occ != i)
        {
            stack.pop();
        }
        occs[i].enclosing = stack
            .iter()
            .rev()
            .map(|&t| &defs[t])
            .find(|d| d.occ != i && d.span.contains(&span) && d.span.end() > span.start())
            .map(|d| d.sym);
    }
}

/// The stripping rules for the signatures of the indexer that wrote `symbol`: rust-analyzer's `'`
/// starts a lifetime, every other indexer's languages quote strings with it.
fn rules_of(symbol: &str) -> crate::signature::Rules {
    crate::signature::Rules::indexer(symbol.starts_with("rust-analyzer "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use scip::types::Document;

    #[test]
    fn paths_are_joined_and_escapes_rejected() {
        assert_eq!(repo_path("", "src/a.ts").as_deref(), Some("src/a.ts"));
        assert_eq!(
            repo_path("pkg", "./src//a.ts").as_deref(),
            Some("pkg/src/a.ts")
        );
        assert_eq!(repo_path("pkg", "../b.ts").as_deref(), Some("b.ts"));
        assert_eq!(repo_path("", "../b.ts"), None);
        assert_eq!(repo_path("", "a/../../b.ts"), None);
        assert_eq!(repo_path("", "/etc/passwd"), None);
        assert_eq!(repo_path("", "C:/x"), None);
        assert_eq!(repo_path("", ""), None);
        assert_eq!(repo_path("", "a\0b"), None);
    }

    #[test]
    fn roles_decode_every_bit() {
        let all = roles(0x7f);
        for name in [
            "definition",
            "import",
            "write",
            "read",
            "generated",
            "test",
            "forward-definition",
        ] {
            assert!(all.names().any(|n| n == name), "{name}");
        }
        assert!(!all.contains(Roles::REFERENCE));
        assert_eq!(roles(0), Roles::REFERENCE);
        assert_eq!(roles(8), Roles::REFERENCE | Roles::READ);
    }

    #[test]
    fn ranges_normalize_and_reject_garbage() {
        assert_eq!(raw_range(&[1, 2, 5]), Some([1, 2, 1, 5]));
        assert_eq!(raw_range(&[1, 2, 3, 0]), Some([1, 2, 3, 0]));
        assert_eq!(raw_range(&[1, 2]), None);
        assert_eq!(raw_range(&[1, 2, 3, 4, 5]), None);
        assert_eq!(raw_range(&[-1, 2, 3]), None);
        assert_eq!(raw_range(&[1, 5, 2]), None);
        assert_eq!(raw_range(&[3, 0, 2, 9]), None);
    }

    #[test]
    fn utf16_and_utf32_offsets_become_byte_columns() {
        let line = "const s = \"größe 🚀\"; x".as_bytes();
        // 'x' is at UTF-16 offset 22 (the rocket is two units), UTF-32 offset 21, byte 26.
        assert_eq!(byte_offset(line, 22, Encoding::Utf16, false), (26, true));
        assert_eq!(byte_offset(line, 21, Encoding::Utf32, false), (26, true));
        assert_eq!(byte_offset(line, 23, Encoding::Utf16, false), (27, true));
        assert_eq!(byte_offset(line, 25, Encoding::Utf16, false), (29, false));
        assert_eq!(byte_offset(b"abc", 2, Encoding::Utf16, false), (2, true));
        let lines = Lines::new(b"a\r\nb\xc3\xa9c\n".to_vec());
        assert_eq!(lines.line(0), Some(&b"a"[..]));
        assert_eq!(lines.line(1), Some("béc".as_bytes()));
        assert_eq!(lines.line(2), Some(&b""[..]));
        // An all-ASCII text skips the per-line check; past the end still counts as out of range.
        assert!(!lines.ascii);
        assert!(Lines::new(b"abc\n".to_vec()).ascii);
        assert_eq!(byte_offset(b"abc", 5, Encoding::Utf16, true), (5, false));
        assert_eq!(lines.line(3), None);
    }

    /// A conversion environment with no files on disk (the root does not exist).
    fn test_env<'a>(
        files: &'a HashMap<String, String>,
        covered: &'a HashSet<String>,
        default_encoding: Encoding,
    ) -> DocEnv<'a> {
        DocEnv {
            root: Path::new("/nonexistent"),
            prefix: "",
            files,
            covered_before: covered,
            default_encoding,
            max_occurrences: 100,
        }
    }

    fn occ(sym: u32, span: (i32, i32, i32, i32), def: Option<(i32, i32, i32, i32)>) -> DocOcc {
        let s = |t: (i32, i32, i32, i32)| Span {
            line: t.0,
            col: t.1,
            end_line: t.2,
            end_col: t.3,
        };
        DocOcc {
            sym,
            span: s(span),
            roles: if def.is_some() {
                Roles::DEFINITION
            } else {
                Roles::REFERENCE
            },
            enclosing: None,
            def_span: def.map(s),
        }
    }

    #[test]
    fn local_symbols_never_reach_the_symbol_parser() {
        // Global symbol strings leave a document in `symbols`, the list the stage parses once per
        // index; `local N` ones are recognised here and never join it, valid or not.
        let mut doc = Document::new();
        doc.relative_path = "src/a.rs".into();
        for (symbol, line) in [
            ("local 1", 0),
            ("rust-analyzer cargo fx 1 f().", 1),
            ("local 1", 2),
            ("local 2", 3),
            ("local not simple", 4),
            ("rust-analyzer cargo fx 1 f().", 5),
        ] {
            let mut o = Occurrence::new();
            o.symbol = symbol.into();
            o.range = vec![line, 0, 1];
            doc.occurrences.push(o);
        }
        let files = HashMap::from([("src/a.rs".to_string(), "rust".to_string())]);
        let covered = HashSet::new();
        let env = test_env(&files, &covered, Encoding::Utf8);
        let bytes = doc.write_to_bytes().expect("encode");
        let (6, DocOutcome::Facts(facts)) = convert(&bytes, &env) else {
            panic!("converted")
        };
        let strings: Vec<&str> = facts.symbols.iter().map(|s| s.symbol.as_str()).collect();
        assert_eq!(strings, ["rust-analyzer cargo fx 1 f()."]);
        assert_eq!(facts.occurrences.len(), 2);
        assert_eq!(facts.tally.get(quirks::LOCAL_SYMBOLS), 2);
        assert_eq!(facts.tally.get(quirks::SKIP_LOCAL_OCCURRENCES), 3);
        assert_eq!(facts.tally.get(quirks::SKIP_UNPARSABLE_SYMBOL), 1);
        assert_eq!(facts.tally.get(quirks::SKIP_UNPARSABLE_OCCURRENCES), 1);
        assert_eq!(facts.warnings.len(), 1);
    }

    #[test]
    fn documents_decode_field_by_field_as_protobuf_merges_them() {
        // A document whose fields come in any order, split across several runs, with repeated
        // singular fields and unknown fields, converts exactly as its merged decode: the bytes of
        // several encoded messages concatenated are one message with their fields merged.
        let occ = |symbol: &str, range: Vec<i32>, roles: i32| {
            let mut o = Occurrence::new();
            o.symbol = symbol.into();
            o.range = range;
            o.symbol_roles = roles;
            o
        };
        let f = "scip-typescript npm fx 1 src/`a.ts`/f().";
        let g = "scip-typescript npm fx 1 src/`a.ts`/g().";
        let mut info = SymbolInformation::new();
        info.symbol = f.into();
        info.kind = scip::types::symbol_information::Kind::Function.into();
        let mut part1 = Document::new();
        part1.symbols.push(info);
        part1.relative_path = "wrong.ts".into();
        let mut part2 = Document::new();
        part2.relative_path = "src/a.ts".into();
        part2.occurrences.push(occ(f, vec![0, 9, 10], 1));
        part2.occurrences.push(occ("local 0", vec![1, 0, 1], 0));
        let mut part3 = Document::new();
        part3.position_encoding = PositionEncoding::UTF8CodeUnitOffsetFromLineStart.into();
        part3.occurrences.push(occ(g, vec![2, 4, 5], 0));
        part3.language = "typescript".into();
        let mut bytes = Vec::new();
        for part in [&part1, &part2, &part3] {
            bytes.extend(part.write_to_bytes().expect("encode"));
        }
        // Unknown fields: a varint (field 15), and field 2 as a varint, which is not an occurrence.
        bytes.extend([15 << 3, 7, 2 << 3, 1]);
        let merged = Document::parse_from_bytes(&bytes).expect("protobuf decodes it");
        assert_eq!(merged.relative_path, "src/a.ts");
        assert_eq!(merged.occurrences.len(), 3);

        let files = HashMap::from([("src/a.ts".to_string(), "typescript".to_string())]);
        let covered = HashSet::new();
        let env = test_env(&files, &covered, Encoding::Utf16);
        let split = convert(&bytes, &env);
        let whole = convert(&merged.write_to_bytes().expect("encode"), &env);
        assert_eq!(format!("{split:?}"), format!("{whole:?}"));
        let (3, DocOutcome::Facts(facts)) = split else {
            panic!("converted: {split:?}")
        };
        assert_eq!(facts.path, "src/a.ts");
        let strings: Vec<&str> = facts.symbols.iter().map(|s| s.symbol.as_str()).collect();
        assert_eq!(strings, [f, g]);
        assert_eq!(
            facts.symbols[0].info.as_ref().and_then(|i| i.kind),
            Some("function")
        );
        assert_eq!(facts.occurrences.len(), 2);
        assert_eq!(facts.occurrences[1].enclosing, None);
        // UTF-8 was stated, so no source file was needed for the columns.
        assert_eq!(facts.tally.get(quirks::POSITION_ENCODING_UNSET), 0);
        assert_eq!(facts.tally.get(quirks::POSITIONS_UNCONVERTED), 0);

        // Cut short (in its header fields), or with an occurrence whose symbol is not UTF-8 (found
        // only when the occurrences are decoded): the whole document is undecodable, nothing of
        // it kept.
        let cut = bytes[..bytes.len() - 8].to_vec();
        let mut bad_symbol = bytes.clone();
        let at = bad_symbol.windows(4).position(|w| w == b"g().").expect("g");
        bad_symbol[at..at + 2].copy_from_slice(&[0xc3, 0x28]);
        for broken in [cut, bad_symbol] {
            assert!(Document::parse_from_bytes(&broken).is_err());
            let (0, DocOutcome::Skipped(skipped)) = convert(&broken, &env) else {
                panic!("a broken document is skipped")
            };
            assert_eq!(skipped.reason, quirks::SKIP_UNDECODABLE);
        }
    }

    #[test]
    fn enclosing_is_the_innermost_other_definition() {
        let mut occs = vec![
            occ(1, (5, 1, 5, 4), None),               // inside g
            occ(0, (1, 4, 1, 5), Some((1, 1, 9, 2))), // f defined, lines 1-9
            occ(1, (3, 4, 3, 5), Some((3, 1, 6, 2))), // g defined inside f
            occ(0, (7, 1, 7, 2), None),               // recursive call of f inside f
            occ(2, (12, 1, 12, 2), None),             // top level
            occ(0, (6, 1, 6, 2), None),               // on g's last line, still inside
        ];
        assign_enclosing(&mut occs);
        let got: Vec<Option<u32>> = occs.iter().map(|o| o.enclosing).collect();
        assert_eq!(got, [Some(1), None, Some(0), Some(0), None, Some(1)]);
    }
}
