//! `syntax-files`: the files the syntax stage could not parse cleanly, with why. A file absent
//! from it parsed cleanly; the next run carries the deterministic statuses forward
//! (`pipeline/src/syntax/incremental.rs`).
use std::collections::BTreeMap;

use super::{view_struct, View, ViewInfo};
use crate::Stage;

view_struct! {
    /// The `syntax-files` view.
    pub struct SyntaxFilesView as "syntax-files" {
        /// Repo-relative path → how the file fared.
        pub files: BTreeMap<String, SyntaxFileEntry>,
    }
}

view_struct! {
    /// How one file fared in the syntax stage.
    pub struct SyntaxFileEntry as "file-status" {
        /// parse-errors, too-large, timed-out, unreadable, changed-during-run or broken-query.
        pub status: String,
        /// ERROR/MISSING nodes (status parse-errors only).
        pub errors: Option<i64>,
    }
}

impl View for SyntaxFilesView {
    const INFO: &'static ViewInfo = &ViewInfo::of::<SyntaxFilesView>(
        "syntax-files",
        "Files the syntax stage could not parse cleanly, with why",
        &[Stage::Syntax],
    );
}
