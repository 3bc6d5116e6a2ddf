//! Table rows for tests that build a stage's input by hand: a row with every field set to a plain
//! value, which a test adjusts with struct update syntax
//! (`SymbolRow { signature: …, ..rows::symbol("id", "src/a.rs", "f") }`), so each test spells out
//! only the fields it is about.

use output_schema::tables::{FileRow, OccurrenceRow, SymbolRow};
use output_schema::Roles;

/// A public Rust function `name` at `path`, lines 1–3, from tree-sitter, with stable ID `id`;
/// no signature, arity, definition version, module, backend ID or body hash.
pub fn symbol(id: &str, path: &str, name: &str) -> SymbolRow {
    SymbolRow {
        stable_id: id.into(),
        name: name.into(),
        kind: "function".into(),
        container: None,
        signature: None,
        arity: None,
        definition_version_id: String::new(),
        visibility: "public".into(),
        visibility_confidence: 1.0,
        visibility_source: "signature".into(),
        module_id: None,
        language: Some("rust".into()),
        path: path.into(),
        start_line: 1,
        start_col: 1,
        end_line: 3,
        end_col: 2,
        source: "tree-sitter".into(),
        backend_id: None,
        body_hash: None,
    }
}

/// A reference to `symbol_id` (none: unresolved) named `name` at `path:line`, columns 1–2, from
/// `source`, with no enclosing symbol.
pub fn reference(
    symbol_id: Option<&str>,
    name: &str,
    path: &str,
    line: i32,
    source: &str,
) -> OccurrenceRow {
    OccurrenceRow {
        symbol_id: symbol_id.map(Into::into),
        name: name.into(),
        path: path.into(),
        line,
        col: 1,
        end_line: line,
        end_col: 2,
        roles: Roles::REFERENCE,
        enclosing_symbol_id: None,
        source: source.into(),
    }
}

/// A scanned source file at `path` in `language`, one line of `size_bytes` bytes, content hash
/// `"0"`, no module, neither test nor generated.
pub fn file(path: &str, language: &str, size_bytes: i64) -> FileRow {
    FileRow {
        path: path.into(),
        language: Some(language.into()),
        size_bytes,
        line_count: 1,
        content_hash: "0".into(),
        module_id: None,
        is_test: false,
        is_generated: false,
    }
}
