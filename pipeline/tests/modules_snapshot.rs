//! End to end through `pipeline::snapshot`: the modules stage runs last, writes `modules`,
//! `module_edges`, fills `files.module_id`, and publishes `views/architecture.json.zst`.
//! Import edges are checked only when the syntax stage produced `imports` in this build.

#[path = "modules_common/mod.rs"]
mod common;

use common::*;
use output_schema::manifest::{decompress, StageStatus};
use output_schema::parquet_io::read_table;
use output_schema::tables::{FileRow, ImportRow, ModuleEdgeRow, ModuleRow};
use output_schema::{layout, Stage};
use pipeline::store::StoredSnapshot;
use pipeline::{NoProgress, SnapshotOptions};

fn fixture() -> Fixture {
    Fixture::new(&[
        ("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n"),
        ("crates/core/Cargo.toml", "[package]\nname = \"core-lib\"\n"),
        (
            "crates/core/src/lib.rs",
            "pub fn add(a: i32, b: i32) -> i32 { a + b }\n",
        ),
        (
            "crates/app/Cargo.toml",
            "[package]\nname = \"app\"\n\n[dependencies]\ncore-lib = { path = \"../core\" }\n",
        ),
        (
            "crates/app/src/main.rs",
            "use core_lib::add;\nuse std::fmt;\n\nfn main() { println!(\"{}\", add(1, 2)); }\n",
        ),
    ])
}

/// Snapshots the fixture, with options `configure` adjusts, into a store of its own; the
/// fixture and the store live as long as the returned guards.
fn snapshot_fixture(
    configure: impl FnOnce(&mut SnapshotOptions),
) -> (Fixture, tempfile::TempDir, StoredSnapshot) {
    let fx = fixture();
    let store = tempfile::tempdir().unwrap();
    let mut opts = SnapshotOptions {
        root: fx.root().to_path_buf(),
        out: Some(store.path().to_path_buf()),
        ..SnapshotOptions::default()
    };
    configure(&mut opts);
    let outcome = pipeline::snapshot(&opts, &NoProgress).unwrap();
    let snap = outcome.snapshot().clone();
    (fx, store, snap)
}

#[test]
fn snapshot_writes_modules_tables_and_view() {
    let (_fx, _store, snap) = snapshot_fixture(|o| o.threads = Some(2));
    let report = &snap.manifest.stages[Stage::Modules.name()];
    assert!(
        matches!(report.status, StageStatus::Ok | StageStatus::Partial),
        "{report:?}"
    );

    let modules: Vec<ModuleRow> = read_table(&snap.dir.join("modules.parquet")).unwrap();
    let ids: Vec<&str> = modules.iter().map(|m| m.module_id.as_str()).collect();
    assert_eq!(ids, [".", "crates/app", "crates/core"]);
    let files: Vec<FileRow> = read_table(&snap.dir.join("files.parquet")).unwrap();
    assert!(files.iter().all(|f| f.module_id.is_some()));
    let main = files
        .iter()
        .find(|f| f.path == "crates/app/src/main.rs")
        .unwrap();
    assert_eq!(main.module_id.as_deref(), Some("crates/app"));

    let view_path = snap.dir.join(layout::view_file("architecture"));
    let view: serde_json::Value =
        serde_json::from_slice(&decompress(&std::fs::read(view_path).unwrap()).unwrap()).unwrap();
    assert_eq!(view["totals"]["modules"], 3);
    assert!(snap.manifest.views.iter().any(|v| v.name == "architecture"));

    let edges: Vec<ModuleEdgeRow> = read_table(&snap.dir.join("module_edges.parquet")).unwrap();
    let imports_file = snap.dir.join("imports.parquet");
    let imports: Vec<ImportRow> = read_table(&imports_file).unwrap();
    let lib = imports
        .iter()
        .find(|r| r.path == "crates/app/src/main.rs" && r.raw.contains("core_lib"))
        .unwrap();
    assert_eq!(lib.kind, "workspace-package");
    assert_eq!(lib.to_module.as_deref(), Some("crates/core"));
    assert!(
        edges
            .iter()
            .any(|e| e.from_module == "crates/app" && e.to_module == "crates/core"),
        "{edges:?}"
    );
    assert!(
        edges.iter().any(|e| e.from_module == "crates/app"
            && e.to_module == "external:std"
            && e.kind == "stdlib"),
        "{edges:?}"
    );
}

#[test]
fn modules_without_scan_is_skipped() {
    let (_fx, _store, snap) = snapshot_fixture(|o| o.stages = Some(vec![Stage::Modules]));
    let report = &snap.manifest.stages[Stage::Modules.name()];
    assert_eq!(report.status, StageStatus::Skipped);
    assert_eq!(
        report.reason.as_deref(),
        Some("input stage scan did not run")
    );
    assert!(!snap.dir.join("modules.parquet").exists());
}
