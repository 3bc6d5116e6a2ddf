//! `architecture`: the module graph ranked by importance, what `ckb query arch` serves without
//! recomputation. Written by the modules stage (`pipeline/src/modules/view.rs`), bounded there:
//! `totals` counts the whole graph, `truncated` what the lists leave out.
use super::{view_struct, View, ViewInfo};
use crate::Stage;

view_struct! {
    /// The `architecture` view.
    pub struct ArchitectureView as "architecture" {
        /// Format version of the view (1).
        pub version: i64,
        /// Modules by importance rank, most important first (a bounded prefix).
        pub modules: Vec<ModuleEntry>,
        /// Internal edges among the listed modules, strongest first.
        pub edges: Vec<ModuleEdgeEntry>,
        /// Edges from listed modules to external packages, most imports first.
        pub external_edges: Vec<ModuleEdgeEntry>,
        /// Entry points of the listed modules.
        pub entrypoints: Vec<ModuleEntrypointEntry>,
        /// Counts over the whole graph.
        pub totals: ModuleCounts,
        /// How many of each the lists leave out.
        pub truncated: ModuleCounts,
        /// How modules are ranked, in words.
        pub ranking: String,
    }
}

view_struct! {
    /// One module of the view.
    pub struct ModuleEntry as "module" {
        /// Module ID (its root, `.` for the repository root).
        pub id: String,
        /// Display name.
        pub name: String,
        /// Root directory, repo-relative.
        pub root: String,
        /// Manifest kind (cargo, npm, …, none).
        pub manifest: String,
        /// How the module was found: config, manifest, convention or directory.
        pub detection: String,
        /// Most common language among its files.
        pub language: Option<String>,
        /// Files in the module.
        pub files: i64,
        /// Symbols defined in the module.
        pub symbols: i64,
        /// Lines in the module's files.
        pub lines: i64,
        /// Whether the module has an entry point.
        pub is_entrypoint: bool,
        /// PageRank importance scaled so the top module has 1.
        pub importance: f64,
        /// 1-based rank by importance, then lines, then ID.
        pub rank: i64,
        /// Internal edges into the module.
        pub fan_in: i64,
        /// Internal edges out of the module.
        pub fan_out: i64,
        /// Folder depth of the module ID (`.` is 0, `crates/core` is 2).
        pub depth: i64,
    }
}

view_struct! {
    /// One module dependency of the view.
    pub struct ModuleEdgeEntry as "edge" {
        /// Depending module ID.
        pub from: String,
        /// Module ID depended on (`external:<package>` for an external package).
        pub to: String,
        /// Classification: local, workspace-package, external-dependency, ….
        pub kind: String,
        /// Import statements behind the edge.
        pub imports: i64,
        /// Resolved references behind the edge.
        pub references: i64,
        /// Strength of the edge, 0..1.
        pub strength: f64,
    }
}

view_struct! {
    /// One entry point of the view.
    pub struct ModuleEntrypointEntry as "entrypoint" {
        /// Module ID it belongs to.
        pub module: String,
        /// File (or declaring manifest).
        pub path: String,
        /// What makes it an entry point (main-function, bin-target, …).
        pub kind: String,
    }
}

view_struct! {
    /// Counts of each list of the view.
    pub struct ModuleCounts as "counts" {
        /// Modules.
        pub modules: i64,
        /// Internal edges.
        pub edges: i64,
        /// External edges.
        pub external_edges: i64,
        /// Entry points.
        pub entrypoints: i64,
    }
}

impl View for ArchitectureView {
    const INFO: &'static ViewInfo = &ViewInfo::of::<ArchitectureView>(
        "architecture",
        "The module graph ranked by importance: modules, edges and entry points (bounded), with totals",
        &[Stage::Modules],
    );
}
