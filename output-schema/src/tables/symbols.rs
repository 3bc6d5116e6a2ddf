//! `symbols`: one row per active definition.
use crate::{table, SharedStr, Stage};

table! {
    /// One row per symbol defined in the repository and active in this snapshot.
    pub struct SymbolRow in "symbols", produced by [Stage::Syntax, Stage::Scip, Stage::Identity], sorted by [stable_id], unique by [stable_id] {
        /// Stable ID `ckb:<repo>:sym:<fingerprint>`; survives line moves and signature changes.
        stable_id: SharedStr,
        /// Unqualified name.
        name: String,
        /// Kind: function, method, class, struct, enum, interface, trait, type_alias, constant, variable, module, field, macro, …
        kind: SharedStr,
        /// Enclosing scopes joined with `::` (e.g. `impl Foo`, `module::Type`); null at top level.
        container: Option<SharedStr>,
        /// Normalized one-line declaration header (no body, no doc comments); null when unknown.
        signature: Option<String>,
        /// Number of parameters where known.
        arity: Option<i32>,
        /// Hash of the normalized signature; changes when the signature changes.
        definition_version_id: String,
        /// public, private, internal, protected or unknown.
        visibility: SharedStr,
        /// Confidence in `visibility`, 0..1.
        visibility_confidence: f64,
        /// How visibility was derived: signature, modifier, naming, reference-analysis or none.
        visibility_source: SharedStr,
        /// Module of the defining file (null until the modules stage runs).
        module_id: Option<SharedStr>,
        /// Language of the defining file.
        language: Option<SharedStr>,
        /// Repo-relative path of the definition.
        path: SharedStr,
        /// First line of the definition's span (1-based).
        start_line: i32,
        /// First column of the span (1-based, UTF-8 bytes).
        start_col: i32,
        /// Last line of the span.
        end_line: i32,
        /// Column just past the span's end (1-based, UTF-8 bytes).
        end_col: i32,
        /// Backend that stands for this definition: `scip` or `tree-sitter`.
        source: SharedStr,
        /// The backend's own ID (the SCIP symbol string); null for tree-sitter definitions.
        backend_id: Option<SharedStr>,
        /// Hash of the definition's token stream (whitespace and comments ignored); null when unknown.
        body_hash: Option<String>,
    }
}

impl SymbolRow {
    /// `container::name`, or the name alone without a container.
    pub fn qualified_name(&self) -> String {
        match &self.container {
            Some(c) => format!("{c}::{}", self.name),
            None => self.name.to_string(),
        }
    }
}
