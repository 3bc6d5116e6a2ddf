//! `occurrences`: reference and definition sites.
use crate::{table, Roles, SharedStr, Stage};

table! {
    /// One row per site where a symbol is defined, referenced, imported, called, read or written.
    pub struct OccurrenceRow in "occurrences", produced by [Stage::Syntax, Stage::Scip, Stage::Identity], sorted by [path, line, col] {
        /// Target: a stable ID, a backend symbol string for external symbols, or null when a by-name reference could not be resolved.
        symbol_id: Option<SharedStr>,
        /// Name of the referenced symbol as it appears at the site.
        name: SharedStr,
        /// Repo-relative path of the site.
        path: SharedStr,
        /// Line of the site (1-based).
        line: i32,
        /// Column of the site (1-based, UTF-8 bytes).
        col: i32,
        /// Last line of the site.
        end_line: i32,
        /// Column just past the site (1-based, UTF-8 bytes).
        end_col: i32,
        /// Roles: definition, reference, import, write, read, call, generated, test, forward-definition, supertype (names a base class, interface or trait the enclosing definition extends or implements, or the trait of a Rust `impl Trait for Type`), subtype (names the type of a Rust `impl Trait for Type`).
        roles: Roles,
        /// Stable ID of the innermost definition enclosing the site; null at top level.
        enclosing_symbol_id: Option<SharedStr>,
        /// Backend: `scip`, or `tree-sitter` (by-name, lower confidence).
        source: SharedStr,
    }
}
