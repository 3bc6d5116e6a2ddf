//! `cochange`: files that change together.
use crate::{table, Stage};

table! {
    /// One row per pair of files changed in the same commits (path_a < path_b).
    pub struct CochangeRow in "cochange", produced by [Stage::Git], sorted by [path_a, path_b] {
        /// First path (lexically smaller).
        path_a: String,
        /// Second path.
        path_b: String,
        /// Commits touching both.
        shared_commits: i64,
        /// Commits touching path_a.
        commits_a: i64,
        /// Commits touching path_b.
        commits_b: i64,
        /// shared_commits / min(commits_a, commits_b).
        degree: f64,
    }
}
