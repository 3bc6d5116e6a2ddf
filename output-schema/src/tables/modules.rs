//! `modules`: the units of the architecture graph.
use crate::{table, Stage};

table! {
    /// One row per module (package, crate, workspace member, or directory).
    pub struct ModuleRow in "modules", produced by [Stage::Modules], sorted by [module_id], unique by [module_id] {
        /// Module ID: the module root's repo-relative path (`.` for the repository root).
        module_id: String,
        /// Display name (package name from the manifest, else the directory name).
        name: String,
        /// Root directory, repo-relative.
        root: String,
        /// Manifest kind: cargo, npm, go, python, maven, gradle, dart, or none.
        manifest: String,
        /// How the module was found: config, manifest, convention or directory.
        detection: String,
        /// Most common language among its files.
        language: Option<String>,
        /// Files in the module.
        file_count: i64,
        /// Symbols defined in the module.
        symbol_count: i64,
        /// Lines in the module's files.
        line_count: i64,
        /// Whether the module has an entry point (main function, bin target, package bin/main, __main__).
        is_entrypoint: bool,
    }
}
