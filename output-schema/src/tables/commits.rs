//! `commits`: the history window.
use crate::{table, Stage};

table! {
    /// One row per commit in the history window.
    pub struct CommitRow in "commits", produced by [Stage::Git], sorted by [committer_time, sha], unique by [committer_time, sha] {
        /// Commit ID (hex).
        sha: String,
        /// Parent commit IDs, in order.
        parents: Vec<String>,
        /// Author time (Unix seconds).
        author_time: i64,
        /// Committer time (Unix seconds).
        committer_time: i64,
        /// Salted hash of the mailmap-resolved author email.
        author_id: String,
        /// Whether the author looks like a bot ([bot], dependabot, renovate, …).
        is_bot: bool,
        /// Files changed against the first parent (0 when its trees are not in the clone).
        files_changed: i64,
        /// Lines added, over the changes with line counts.
        additions: i64,
        /// Lines deleted, over the changes with line counts.
        deletions: i64,
    }
}
