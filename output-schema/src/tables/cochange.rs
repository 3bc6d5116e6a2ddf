//! `cochange`: files that change together.
use crate::{table, Stage};

table! {
    /// One row per pair of files changed together in at least cochangeMinShared commits (path_a < path_b); commits changing more than cochangeMaxFiles files, and merges unless first-parent, are left out.
    pub struct CochangeRow in "cochange", produced by [Stage::Git], sorted by [path_a, path_b], unique by [path_a, path_b] {
        /// First path (lexically smaller).
        path_a: String,
        /// Second path.
        path_b: String,
        /// Commits touching both.
        shared_commits: i64,
        /// Commits touching path_a (of the commits co-change considers).
        commits_a: i64,
        /// Commits touching path_b (of the commits co-change considers).
        commits_b: i64,
        /// shared_commits / min(commits_a, commits_b).
        degree: f64,
    }
}
