//! `imports`: import statements and how each resolved.
use crate::{table, Stage};

table! {
    /// One row per import statement (or per imported path of a grouped import).
    pub struct ImportRow in "imports", produced by [Stage::Syntax, Stage::Modules], sorted by [path, line, raw] {
        /// File containing the import.
        path: String,
        /// Line of the import (1-based).
        line: i32,
        /// The imported module path or string exactly as written (no surrounding code).
        raw: String,
        /// Names imported from it (empty for whole-module imports).
        names: Vec<String>,
        /// Language of the importing file.
        language: String,
        /// Resolved target: a repo-relative path, a module ID or a package name; null when unresolved.
        target: Option<String>,
        /// local-file, local-module, workspace-package, external-dependency, stdlib or unknown.
        kind: String,
        /// How the target was found: exact, suffix or fuzzy; null when unresolved.
        method: Option<String>,
        /// Confidence in the resolution, 0..1.
        confidence: f64,
        /// Module of the importing file.
        from_module: Option<String>,
        /// Module of the target when it is inside the repository.
        to_module: Option<String>,
    }
}

impl ImportRow {
    /// An import as the syntax stage writes it: not yet classified (kind `unknown`, no target,
    /// method, confidence or modules); the modules stage fills those in.
    pub fn unclassified(
        path: String,
        line: i32,
        raw: String,
        names: Vec<String>,
        language: String,
    ) -> ImportRow {
        ImportRow {
            path,
            line,
            raw,
            names,
            language,
            target: None,
            kind: "unknown".to_string(),
            method: None,
            confidence: 0.0,
            from_module: None,
            to_module: None,
        }
    }
}
