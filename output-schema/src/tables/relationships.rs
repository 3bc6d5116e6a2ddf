//! `relationships`: typed symbol → symbol links.
use crate::{table, Stage};

table! {
    /// One row per typed link between two symbols.
    pub struct RelationshipRow in "relationships", produced by [Stage::Scip, Stage::Syntax, Stage::Identity], sorted by [from_id, to_id, kind], unique by [from_id, to_id, kind] {
        /// Stable ID of the symbol the link starts from.
        from_id: String,
        /// Stable ID or external backend ID of the linked symbol.
        to_id: String,
        /// implementation, type_definition, reference or definition.
        kind: String,
        /// Backend: `scip` or `tree-sitter`.
        source: String,
    }
}
