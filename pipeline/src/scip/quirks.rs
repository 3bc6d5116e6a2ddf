//! Counting what the SCIP stage met: quirks of real indexers, skipped input and evidence that an
//! index is stale. Every name below appears in the stage report's `counts` (zero when not met), so
//! the manifest has the same shape for every index and a reader can tell "none seen" from "not
//! counted".

use std::collections::BTreeMap;

/// Document `text` was empty (the usual case: indexers are asked not to embed sources).
pub const DOCUMENT_TEXT_EMPTY: &str = "quirk.document-text-empty";
/// Document `language` was unset (scip-typescript, scip-python).
pub const LANGUAGE_UNSET: &str = "quirk.language-unset";
/// Document `position_encoding` was unset; the tool's documented default was assumed.
pub const POSITION_ENCODING_UNSET: &str = "quirk.position-encoding-unset";
/// `SymbolInformation.kind` was unset; the kind came from the descriptor suffix.
pub const KIND_UNSET: &str = "quirk.kind-unset";
/// Documents whose occurrences were not sorted by position (scip-python).
pub const UNSORTED_OCCURRENCES: &str = "quirk.unsorted-occurrences";
/// Indexes that carried no relationships at all (rust-analyzer).
pub const NO_RELATIONSHIPS: &str = "quirk.no-relationships";
/// Global symbols defined (definition occurrence) in more than one document.
pub const DEFINED_IN_SEVERAL_DOCUMENTS: &str = "quirk.symbol-defined-in-several-documents";
/// Global symbols with two definition occurrences in one document.
pub const DEFINED_TWICE_IN_DOCUMENT: &str = "quirk.symbol-defined-twice-in-document";
/// `SymbolInformation` listed twice for one symbol in one document.
pub const LISTED_TWICE_IN_DOCUMENT: &str = "quirk.symbol-listed-twice-in-document";
/// Distinct `local N` symbols (per document); they get no stable ID and no rows.
pub const LOCAL_SYMBOLS: &str = "quirk.local-symbols";
/// Distinct numbered `Meta` pseudo-symbols (per document): scip-typescript names object-literal
/// properties and type literals with a per-document counter (`state8:`, `typeLiteral13:`); unique
/// only within their document, they are taken as locals (no stable ID, no rows).
pub const NUMBERED_META_SYMBOLS: &str = "quirk.numbered-meta-symbols";
/// Distinct symbols whose own term is repeated as their container: scip-python names an annotated
/// module-level assignment (`codes: T = …`) `codes.codes.`; the repetition is left out of the
/// container (and so of the stable ID).
pub const DOUBLED_TERM_SYMBOLS: &str = "quirk.doubled-term-symbols";
/// Packages whose version is a URL (rust-analyzer's standard library).
pub const PACKAGE_VERSION_URL: &str = "quirk.package-version-url";
/// Packages whose version is a commit hash.
pub const PACKAGE_VERSION_HASH: &str = "quirk.package-version-hash";
/// Indexes whose `project_root` is an absolute URI (stored only relative to the repository).
pub const PROJECT_ROOT_ABSOLUTE: &str = "quirk.project-root-absolute-uri";
/// Indexes whose `project_root` lies outside this repository (built on another machine or path).
pub const PROJECT_ROOT_ELSEWHERE: &str = "quirk.project-root-outside-repo";
/// Reference occurrences whose `enclosing_range` does not enclose their own range (rust-analyzer
/// puts the target's definition span there); ignored for enclosure.
pub const REFERENCE_ENCLOSING_RANGE_ELSEWHERE: &str = "quirk.reference-enclosing-range-elsewhere";
/// Occurrences given with the typed (`single_line_range` / `multi_line_range`) fields.
pub const TYPED_RANGES: &str = "quirk.typed-ranges";
/// Indexes whose metadata was not the first field of the stream.
pub const METADATA_NOT_FIRST: &str = "quirk.metadata-not-first";
/// Indexes without metadata.
pub const METADATA_MISSING: &str = "quirk.metadata-missing";
/// Top-level fields this reader does not know (skipped).
pub const UNKNOWN_FIELDS: &str = "quirk.unknown-top-level-fields";
/// Distinct SCIP symbols that mapped to an already used stable ID and got a discriminator.
pub const STABLE_ID_COLLISIONS: &str = "quirk.stable-id-collisions";

/// Documents whose path escapes the repository (rejected).
pub const SKIP_PATH_ESCAPES: &str = "skipped.document-path-escapes-repo";
/// Documents for files the scan did not keep (ignored, binary, too large, or gone).
pub const SKIP_NOT_IN_SCAN: &str = "skipped.document-not-in-scan";
/// Documents already covered by an earlier index (same path).
pub const SKIP_ALREADY_COVERED: &str = "skipped.document-already-covered";
/// Documents that could not be decoded (invalid UTF-8 in a string, malformed message).
pub const SKIP_UNDECODABLE: &str = "skipped.document-undecodable";
/// Documents above the size limit (never decoded).
pub const SKIP_OVERSIZED: &str = "skipped.document-too-large";
/// Documents above the occurrence limit.
pub const SKIP_TOO_MANY_OCCURRENCES: &str = "skipped.document-too-many-occurrences";
/// Occurrences whose range is malformed (not 3 or 4 non-negative elements, end before start).
pub const SKIP_BAD_RANGE: &str = "skipped.occurrence-bad-range";
/// Distinct symbol strings the SCIP symbol parser rejects (their occurrences are dropped).
pub const SKIP_UNPARSABLE_SYMBOL: &str = "skipped.unparsable-symbols";
/// Occurrences dropped because their symbol was unparsable.
pub const SKIP_UNPARSABLE_OCCURRENCES: &str = "skipped.unparsable-symbol-occurrences";
/// Occurrences of `local N` symbols (kept out of the tables).
pub const SKIP_LOCAL_OCCURRENCES: &str = "skipped.local-occurrences";
/// Occurrences of numbered `Meta` pseudo-symbols (kept out of the tables, as locals' are).
pub const SKIP_NUMBERED_META_OCCURRENCES: &str = "skipped.numbered-meta-occurrences";
/// Occurrences without a symbol (syntax highlighting only).
pub const SKIP_NO_SYMBOL: &str = "skipped.occurrences-without-symbol";
/// External symbol entries that could not be decoded.
pub const SKIP_EXTERNAL_UNDECODABLE: &str = "skipped.external-symbols-undecodable";
/// Symbol rows dropped because an earlier index already defined the same stable ID.
pub const SKIP_DUPLICATE_SYMBOL_ROW: &str = "skipped.symbol-defined-by-earlier-index";

/// Documents naming a file that does not exist in the working tree (index-stale evidence).
pub const STALE_MISSING_FILE: &str = "stale.document-file-missing";
/// Positions past the end of their line or file (index-stale evidence).
pub const STALE_POSITION_OUT_OF_RANGE: &str = "stale.position-out-of-range";
/// Documents whose non-UTF-8 positions could not be converted (file unreadable).
pub const POSITIONS_UNCONVERTED: &str = "positions.unconverted-documents";
/// Documents whose positions were converted from UTF-16 code units.
pub const POSITIONS_UTF16: &str = "positions.utf16-documents";
/// Documents whose positions were converted from UTF-32 code units.
pub const POSITIONS_UTF32: &str = "positions.utf32-documents";

/// Every name, in the order the report lists them (a `BTreeMap` sorts them anyway).
pub const ALL: &[&str] = &[
    DOCUMENT_TEXT_EMPTY,
    LANGUAGE_UNSET,
    POSITION_ENCODING_UNSET,
    KIND_UNSET,
    UNSORTED_OCCURRENCES,
    NO_RELATIONSHIPS,
    DEFINED_IN_SEVERAL_DOCUMENTS,
    DEFINED_TWICE_IN_DOCUMENT,
    LISTED_TWICE_IN_DOCUMENT,
    LOCAL_SYMBOLS,
    NUMBERED_META_SYMBOLS,
    DOUBLED_TERM_SYMBOLS,
    PACKAGE_VERSION_URL,
    PACKAGE_VERSION_HASH,
    PROJECT_ROOT_ABSOLUTE,
    PROJECT_ROOT_ELSEWHERE,
    REFERENCE_ENCLOSING_RANGE_ELSEWHERE,
    TYPED_RANGES,
    METADATA_NOT_FIRST,
    METADATA_MISSING,
    UNKNOWN_FIELDS,
    STABLE_ID_COLLISIONS,
    SKIP_PATH_ESCAPES,
    SKIP_NOT_IN_SCAN,
    SKIP_ALREADY_COVERED,
    SKIP_UNDECODABLE,
    SKIP_OVERSIZED,
    SKIP_TOO_MANY_OCCURRENCES,
    SKIP_BAD_RANGE,
    SKIP_UNPARSABLE_SYMBOL,
    SKIP_UNPARSABLE_OCCURRENCES,
    SKIP_LOCAL_OCCURRENCES,
    SKIP_NUMBERED_META_OCCURRENCES,
    SKIP_NO_SYMBOL,
    SKIP_EXTERNAL_UNDECODABLE,
    SKIP_DUPLICATE_SYMBOL_ROW,
    STALE_MISSING_FILE,
    STALE_POSITION_OUT_OF_RANGE,
    POSITIONS_UNCONVERTED,
    POSITIONS_UTF16,
    POSITIONS_UTF32,
];

/// Named counters. Keys are the `&'static str` constants above, so a typo cannot invent a name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally(BTreeMap<&'static str, i64>);

impl Tally {
    /// Adds `n` to a counter.
    pub fn add(&mut self, key: &'static str, n: i64) {
        if n != 0 {
            *self.0.entry(key).or_insert(0) += n;
        }
    }

    /// Adds one to a counter.
    pub fn bump(&mut self, key: &'static str) {
        self.add(key, 1);
    }

    /// The value of a counter (0 when never bumped).
    pub fn get(&self, key: &str) -> i64 {
        self.0.get(key).copied().unwrap_or(0)
    }

    /// Every counter met, by name.
    pub fn entries(&self) -> impl Iterator<Item = (&'static str, i64)> + '_ {
        self.0.iter().map(|(k, v)| (*k, *v))
    }

    /// Adds every counter of `other`.
    pub fn absorb(&mut self, other: &Tally) {
        for (k, v) in &other.0 {
            self.add(k, *v);
        }
    }

    /// Whether any stale-evidence counter is non-zero.
    pub fn has_stale_evidence(&self) -> bool {
        self.get(STALE_MISSING_FILE) > 0 || self.get(STALE_POSITION_OUT_OF_RANGE) > 0
    }

    /// Number of skipped documents of any reason.
    pub fn skipped_documents(&self) -> i64 {
        [
            SKIP_PATH_ESCAPES,
            SKIP_NOT_IN_SCAN,
            SKIP_UNDECODABLE,
            SKIP_OVERSIZED,
            SKIP_TOO_MANY_OCCURRENCES,
        ]
        .iter()
        .map(|k| self.get(k))
        .sum()
    }

    /// Every known counter (zeros included), for the stage report.
    pub fn to_counts(&self) -> BTreeMap<String, i64> {
        ALL.iter()
            .map(|k| (k.to_string(), self.get(k)))
            .chain(
                self.0
                    .iter()
                    .filter(|(k, _)| !ALL.contains(k))
                    .map(|(k, v)| (k.to_string(), *v)),
            )
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_listed_once_and_reported_even_when_zero() {
        let mut names: Vec<&str> = ALL.to_vec();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), ALL.len());
        let mut t = Tally::default();
        t.bump(LOCAL_SYMBOLS);
        t.add(LOCAL_SYMBOLS, 2);
        let counts = t.to_counts();
        assert_eq!(counts.len(), ALL.len());
        assert_eq!(counts[LOCAL_SYMBOLS], 3);
        assert_eq!(counts[KIND_UNSET], 0);
    }
}
