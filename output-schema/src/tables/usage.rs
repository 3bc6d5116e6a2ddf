//! `usage`: how much each symbol is used, counted once per snapshot for ranking.
use crate::{table, SharedStr, Stage};

table! {
    /// One row per active symbol that something in the repository refers to or calls (a symbol without a row is unused); counts of the `occurrences` and `call_edges` rows that target it.
    pub struct UsageRow in "usage", produced by [Stage::Syntax, Stage::Scip, Stage::Identity], sorted by [stable_id], unique by [stable_id] {
        /// Stable ID of the used symbol (a `symbols` row).
        stable_id: SharedStr,
        /// Reference sites that resolve to it: occurrences without the definition role (imports and calls included).
        references: i64,
        /// Distinct files holding those sites.
        files: i64,
        /// Distinct definitions that call it (`call_edges` rows with it as callee, itself left out).
        callers: i64,
    }
}
