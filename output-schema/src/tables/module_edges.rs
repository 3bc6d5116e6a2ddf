//! `module_edges`: the module dependency graph.
use crate::{table, Stage};

table! {
    /// One row per ordered module pair with a dependency, traceable to imports or references.
    pub struct ModuleEdgeRow in "module_edges", produced by [Stage::Modules], sorted by [from_module, to_module, kind], unique by [from_module, to_module, kind] {
        /// Depending module.
        from_module: String,
        /// Module depended on (a module ID, or `external:<package>` for dependencies outside the repo).
        to_module: String,
        /// local, workspace-package, external-dependency or stdlib.
        kind: String,
        /// Import rows behind the edge.
        import_count: i64,
        /// SCIP references crossing from one module to the other.
        reference_count: i64,
        /// Edge weight, 0..1, from import and reference counts.
        strength: f64,
    }
}
