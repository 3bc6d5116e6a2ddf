//! `aliases`: where a vanished stable ID went.
use crate::{table, Stage};

table! {
    /// One row per redirect from an old stable ID to the ID that replaced it.
    pub struct AliasRow in "aliases", produced by [Stage::Identity], sorted by [old_id, new_id], unique by [old_id, new_id] {
        /// Stable ID that no longer exists.
        old_id: String,
        /// Stable ID it now resolves to.
        new_id: String,
        /// renamed, moved, merged or fuzzy-match.
        reason: String,
        /// Confidence of the match, 0..1.
        confidence: f64,
        /// repoStateId of the snapshot that created the alias.
        created_state_id: String,
        /// Commit of the snapshot that created the alias.
        created_commit: String,
    }
}
