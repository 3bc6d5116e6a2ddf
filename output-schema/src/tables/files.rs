//! `files`: one row per file the scan kept.
use crate::{table, Stage};

table! {
    /// One row per file kept by the scan (binary, oversized and ignored files are counted in the manifest, not listed).
    pub struct FileRow in "files", produced by [Stage::Scan], sorted by [path], unique by [path] {
        /// Repo-relative path, `/`-separated.
        path: String,
        /// Detected language (`rust`, `python`, `typescript`, `tsx`, `javascript`, `go`, `java`, `c`, `cpp`, …); null when unknown.
        language: Option<String>,
        /// Size in bytes.
        size_bytes: i64,
        /// Number of lines (a final line without a newline counts).
        line_count: i64,
        /// BLAKE3 hash of the content, first 32 hex digits.
        content_hash: String,
        /// Module the file belongs to (null until the modules stage runs).
        module_id: Option<String>,
        /// Whether the path looks like a test (tests/, test/, *_test.*, *.test.*, *.spec.*, test_*.py, …).
        is_test: bool,
        /// Whether the file is generated (`@generated` markers, *.pb.go, *.min.js, lockfiles, …).
        is_generated: bool,
    }
}

/// The by-name resolution family of a `files.language` value: languages whose files refer to
/// each other's definitions by name share one. TypeScript, TSX and JavaScript form `js`, C and
/// C++ form `c`; every other language is its own family. The syntax stage resolves references
/// within a family and `refs` looks for candidates within one.
pub fn language_family(language: &str) -> &str {
    match language {
        "typescript" | "tsx" | "javascript" => "js",
        "c" | "cpp" => "c",
        other => other,
    }
}
