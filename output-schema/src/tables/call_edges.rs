//! `call_edges`: the call graph.
use crate::{table, SharedStr, Stage};

table! {
    /// One row per caller → callee pair.
    pub struct CallEdgeRow in "call_edges", produced by [Stage::Syntax, Stage::Scip, Stage::Identity], sorted by [caller_id, callee_id], unique by [caller_id, callee_id, callee_name] {
        /// Stable ID of the calling definition.
        caller_id: SharedStr,
        /// Stable ID (or external backend ID) of the callee; null when a by-name call could not be resolved.
        callee_id: Option<SharedStr>,
        /// Name of the callee as written at the call sites.
        callee_name: SharedStr,
        /// Number of call sites.
        count: i64,
        /// Backend: `scip` or `tree-sitter`.
        source: SharedStr,
        /// Confidence that the edge is real, 0..1 (SCIP 1.0; by-name resolution lower).
        confidence: f64,
    }
}
