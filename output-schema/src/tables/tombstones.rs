//! `tombstones`: symbols that were deleted.
use crate::{table, Stage};

table! {
    /// One row per deleted symbol.
    pub struct TombstoneRow in "tombstones", produced by [Stage::Identity], sorted by [stable_id], unique by [stable_id] {
        /// Stable ID of the deleted symbol.
        stable_id: String,
        /// Its name when last seen.
        name: String,
        /// Its kind when last seen.
        kind: String,
        /// Its container when last seen.
        container: Option<String>,
        /// Path of its last definition.
        last_path: String,
        /// repoStateId of the first snapshot without it.
        deleted_in_state_id: String,
        /// Commit of the first snapshot without it.
        deleted_in_commit: String,
    }
}
