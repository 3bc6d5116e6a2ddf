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
//! scip-typescript's numbered `Meta` pseudo-symbols (`src/`a.ts`/state8:`, object-literal
//! properties named with a per-document counter; [`symbols::is_numbered_meta`]) are global in form
//! only: they are taken as locals the same way, and counted apart.

use std::cmp::Reverse;
use std::collections::{HashMap, HashSet};
use std::path::Path;

use output_schema::manifest::Warning;
use output_schema::Roles;
use protobuf::EnumOrUnknown;
use scip::types::{Occurrence, PositionEncoding, SymbolInformation};

use super::document_wire::{for_each_message, TAG_OCCURRENCE, TAG_SYMBOL};
pub use super::document_wire::{read_header, DocHeader};
pub use super::positions::{default_encoding, raw_range, Encoding};
use super::positions::{enclosing_range, occurrence_range, to_span, Lines};
use super::quirks::{self, Tally};
use super::symbols;
use crate::fast_map::FastMap;

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

impl<'a> DocEnv<'a> {
    /// An environment for documents with no repository on disk behind them (the root does not
    /// exist), at the repository's root, UTF-8 by default, with a limit of 100 occurrences: for
    /// converting or checking documents on their own (tests, fuzzing). Change a field to differ.
    pub fn detached(files: &'a HashMap<String, String>, covered: &'a HashSet<String>) -> Self {
        DocEnv {
            root: Path::new("/nonexistent"),
            prefix: "",
            files,
            covered_before: covered,
            default_encoding: Encoding::Utf8,
            max_occurrences: 100,
        }
    }
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

#[derive(Clone, Copy)]
enum Class {
    Global(u32),
    Local,
    /// A numbered `Meta` pseudo-symbol: a local in all but form.
    NumberedMeta,
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
    numbered_meta: usize,
}

impl SymTable {
    /// Classifies a symbol string the first time the document names it. `local N` symbols are
    /// recognised (and validated) by the SCIP crate's local-symbol parser and never reach the full
    /// symbol parser; numbered `Meta` pseudo-symbols are told apart by their last descriptor;
    /// global ones are kept as strings for the stage to parse once per index.
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
            Ok(None) if symbols::is_numbered_meta(symbol) => {
                self.numbered_meta += 1;
                Class::NumberedMeta
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
    let (path, language) = match usable_document(&header, env) {
        Ok(found) => found,
        Err(skipped) => return Ok((occurrence_count, *skipped)),
    };

    let mut tally = Tally::default();
    let mut warnings = Vec::new();
    if header.text.is_empty() {
        tally.bump(quirks::DOCUMENT_TEXT_EMPTY);
    }
    if header.language.is_empty() {
        tally.bump(quirks::LANGUAGE_UNSET);
    }
    let (encoding, lines) = positions(
        header.position_encoding,
        header.text,
        &path,
        env,
        occurrence_count,
        &mut tally,
    );

    // Sized for the symbols the document describes and those it only refers to: a document names
    // about one distinct symbol per three occurrences (scip-typescript on vue, rust-analyzer on
    // ripgrep), so the table rarely regrows. Capped, so that a huge document does not reserve
    // room for millions of symbols it may not name.
    let named = symbol_count.max(occurrence_count / 2).min(1 << 16);
    let mut table = SymTable {
        classes: FastMap::with_capacity_and_hasher(named, Default::default()),
        symbols: Vec::with_capacity(named),
        locals: 0,
        numbered_meta: 0,
    };
    let mut doc = DocState {
        table: &mut table,
        tally: &mut tally,
        warnings: &mut warnings,
        path: &path,
    };
    let mut occs = read_occurrences(
        &bytes[header.occurrence_bytes.clone()],
        occurrence_count,
        encoding,
        lines,
        &mut doc,
    )?;
    read_symbol_information(&bytes[header.symbol_bytes.clone()], &mut doc)?;
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
            language,
            symbols: table.finish(),
            occurrences: occs,
            tally,
            warnings,
        }),
    ))
}

/// The repository path and language of a document whose facts are used, or why it is skipped:
/// a path outside the repository, a file an earlier index covers, a file the scan did not keep,
/// too many occurrences.
fn usable_document(
    header: &DocHeader,
    env: &DocEnv<'_>,
) -> Result<(String, String), Box<DocOutcome>> {
    let occurrence_count = header.occurrences;
    let Some(path) = repo_path(env.prefix, &header.relative_path) else {
        return Err(Box::new(skip(
            quirks::SKIP_PATH_ESCAPES,
            None,
            format!(
                "document path {:?} leaves the repository; rejected",
                truncate(&header.relative_path, 200)
            ),
        )));
    };
    if env.covered_before.contains(&path) {
        return Err(Box::new(skip(
            quirks::SKIP_ALREADY_COVERED,
            Some(path),
            "an earlier SCIP index already covers this file".into(),
        )));
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
        return Err(Box::new(out));
    };
    if occurrence_count > env.max_occurrences {
        return Err(Box::new(skip(
            quirks::SKIP_TOO_MANY_OCCURRENCES,
            Some(path),
            format!(
                "{occurrence_count} occurrences exceed the limit of {}",
                env.max_occurrences
            ),
        )));
    }
    Ok((path, language.clone()))
}

/// The document's position encoding and, when positions are not UTF-8 offsets, its lines to
/// convert them with (from the index's text, else the file).
fn positions(
    position_encoding: EnumOrUnknown<PositionEncoding>,
    text: String,
    path: &str,
    env: &DocEnv<'_>,
    occurrence_count: usize,
    tally: &mut Tally,
) -> (Encoding, Option<Lines>) {
    let encoding = match position_encoding.enum_value() {
        Ok(PositionEncoding::UTF8CodeUnitOffsetFromLineStart) => Encoding::Utf8,
        Ok(PositionEncoding::UTF16CodeUnitOffsetFromLineStart) => Encoding::Utf16,
        Ok(PositionEncoding::UTF32CodeUnitOffsetFromLineStart) => Encoding::Utf32,
        _ => {
            tally.bump(quirks::POSITION_ENCODING_UNSET);
            env.default_encoding
        }
    };
    let lines = if encoding != Encoding::Utf8 && occurrence_count > 0 {
        let text = if text.is_empty() {
            std::fs::read(env.root.join(path)).ok()
        } else {
            Some(text.into_bytes())
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
    (encoding, lines)
}

/// What the walks over one document's occurrences and symbol information write to.
struct DocState<'a> {
    table: &'a mut SymTable,
    tally: &'a mut Tally,
    warnings: &'a mut Vec<Warning>,
    path: &'a str,
}

/// The document's kept occurrences, with their spans converted; skipped ones are counted.
fn read_occurrences(
    occurrence_bytes: &[u8],
    occurrence_count: usize,
    encoding: Encoding,
    lines: Option<Lines>,
    doc: &mut DocState<'_>,
) -> protobuf::Result<Vec<DocOcc>> {
    let mut occs: Vec<DocOcc> = Vec::with_capacity(occurrence_count);
    let mut last_start: Option<(i32, i32)> = None;
    let mut unsorted = false;
    // Per-occurrence counters, added to the tally once per document.
    let (mut no_symbol, mut local_occs, mut invalid_occs, mut bad_ranges, mut typed_ranges) =
        (0i64, 0i64, 0i64, 0i64, 0i64);
    let mut numbered_meta_occs = 0i64;
    let mut enclosing_elsewhere = 0i64;
    let mut message = Occurrence::new();
    for_each_message(occurrence_bytes, TAG_OCCURRENCE, &mut message, |o| {
        if o.symbol.is_empty() {
            no_symbol += 1;
            return;
        }
        let sym = match doc
            .table
            .classify(&o.symbol, doc.tally, doc.warnings, doc.path)
        {
            Class::Global(i) => i,
            Class::Local => {
                local_occs += 1;
                return;
            }
            Class::NumberedMeta => {
                numbered_meta_occs += 1;
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
        let Some(span) = to_span(raw, encoding, lines.as_ref(), doc.tally) else {
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
    doc.tally.add(quirks::SKIP_NO_SYMBOL, no_symbol);
    doc.tally.add(quirks::SKIP_LOCAL_OCCURRENCES, local_occs);
    doc.tally
        .add(quirks::SKIP_NUMBERED_META_OCCURRENCES, numbered_meta_occs);
    doc.tally
        .add(quirks::SKIP_UNPARSABLE_OCCURRENCES, invalid_occs);
    doc.tally.add(quirks::SKIP_BAD_RANGE, bad_ranges);
    doc.tally.add(quirks::TYPED_RANGES, typed_ranges);
    doc.tally.add(
        quirks::REFERENCE_ENCLOSING_RANGE_ELSEWHERE,
        enclosing_elsewhere,
    );
    if unsorted {
        doc.tally.bump(quirks::UNSORTED_OCCURRENCES);
    }
    Ok(occs)
}

/// Folds the document's symbol information (kind, signature, relationships) into its table.
fn read_symbol_information(symbol_bytes: &[u8], doc: &mut DocState<'_>) -> protobuf::Result<()> {
    // Indexed by document symbol; `classify` may add symbols as it goes.
    let mut seen_info: Vec<bool> = Vec::new();
    let mut kind_unset = 0i64;
    let mut message = SymbolInformation::new();
    for_each_message(symbol_bytes, TAG_SYMBOL, &mut message, |info| {
        let sym = match doc
            .table
            .classify(&info.symbol, doc.tally, doc.warnings, doc.path)
        {
            Class::Global(i) => i,
            Class::Local | Class::NumberedMeta | Class::Invalid => return,
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
            if let Class::Global(t) =
                doc.table
                    .classify(&rel.symbol, doc.tally, doc.warnings, doc.path)
            {
                rels.push((t, bits));
            }
        }
        if seen_info.len() <= sym as usize {
            seen_info.resize(doc.table.symbols.len(), false);
        }
        if std::mem::replace(&mut seen_info[sym as usize], true) {
            doc.tally.bump(quirks::LISTED_TWICE_IN_DOCUMENT);
        }
        let slot = &mut doc.table.symbols[sym as usize].info;
        let merged = slot.get_or_insert_with(DocInfo::default);
        merged.kind = merged.kind.or(kind);
        if merged.signature.is_none() {
            merged.signature = signature;
        }
        merged.relationships.extend(rels);
    })?;
    drop(message);
    doc.tally.add(quirks::KIND_UNSET, kind_unset);
    doc.tally
        .add(quirks::LOCAL_SYMBOLS, doc.table.locals as i64);
    doc.tally.add(
        quirks::NUMBERED_META_SYMBOLS,
        doc.table.numbered_meta as i64,
    );
    Ok(())
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
#[path = "mapping_tests.rs"]
mod tests;
