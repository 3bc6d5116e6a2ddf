//! `ownership`: who changes each file.
use crate::{table, Stage};

table! {
    /// One row per file and author over the history window; merges count only in first-parent mode.
    pub struct OwnershipRow in "ownership", produced by [Stage::Git], sorted by [path, author_id], unique by [path, author_id] {
        /// Repo-relative path.
        path: String,
        /// Salted author hash.
        author_id: String,
        /// Whether the author looks like a bot.
        is_bot: bool,
        /// Commits by this author touching the file.
        commits: i64,
        /// This author's share of the file's commits, 0..1.
        share: f64,
    }
}
