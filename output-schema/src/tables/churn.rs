//! `churn`: change volume per file and window.
use crate::{table, Stage};

table! {
    /// One row per file and time window (30d, 90d, 365d, all = the history window) in which it changed, measured back from HEAD's committer time; merges count only in first-parent mode.
    pub struct ChurnRow in "churn", produced by [Stage::Git], sorted by [path, window], unique by [path, window] {
        /// Repo-relative path.
        path: String,
        /// Window: 30d, 90d, 365d or all.
        window: String,
        /// Commits touching the file in the window.
        commits: i64,
        /// Lines added in the window (changes without line counts add none).
        additions: i64,
        /// Lines deleted in the window (changes without line counts add none).
        deletions: i64,
        /// Distinct authors in the window.
        authors: i64,
        /// Committer time of the latest change (Unix seconds).
        last_changed: i64,
    }
}
