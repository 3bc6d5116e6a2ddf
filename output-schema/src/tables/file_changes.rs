//! `file_changes`: what each commit touched.
use crate::{table, Stage};

table! {
    /// One row per file touched by a commit (against its first parent).
    pub struct FileChangeRow in "file_changes", produced by [Stage::Git], sorted by [sha, path], unique by [sha, path] {
        /// Commit ID.
        sha: String,
        /// Path after the change.
        path: String,
        /// Path before a rename; null otherwise.
        old_path: Option<String>,
        /// A (added), M (modified), D (deleted) or R (renamed).
        change: String,
        /// Lines added; null for binary files, submodules, and blobs not in the clone (git stage count `file-changes.without-line-counts`).
        additions: Option<i64>,
        /// Lines deleted; null exactly when `additions` is.
        deletions: Option<i64>,
        /// Whether the file is binary.
        is_binary: bool,
    }
}
