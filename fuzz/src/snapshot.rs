//! The `snapshot` target: a whole snapshot — scan, syntax, modules, identity, usage, the writer,
//! the manifest and the publish — of a repository the fuzzer writes, then of that repository
//! changed, once building on the first snapshot and once cold. What a run reuses changes its
//! speed, never its bytes: the two snapshots of the changed repository must hold the same tables
//! (but `aliases` and `tombstones`, which compare with the previous snapshot) and views byte for
//! byte, and every snapshot must verify against its manifest.
//!
//! An input is two parts separated by an empty record (two NUL bytes in a row): the repository
//! ([`crate::repo`]'s records), then its change (records that write a file, or a plain path
//! alone, which removes one). No git repository: the state is the working tree's, as for any
//! folder `ckb snapshot` is pointed at, so the history stage has nothing to read.

use std::path::{Path, PathBuf};

use output_schema::manifest::{FileEntry, Manifest};
use output_schema::ErrorCode;
use pipeline::{NoProgress, PreviousChoice, SnapshotOptions};

use crate::repo::{self, encode_repo};

/// The tables that compare a snapshot with its previous one.
const IDENTITY_HISTORY: &[&str] = &["aliases", "tombstones"];

/// What one input of `snapshot` or `scip_snapshot` came to, for the corpus test (a seed must
/// reach the reuse, and with SCIP the merge).
#[derive(Debug, Default, PartialEq)]
pub struct SnapshotRun {
    /// Whether the snapshots were written (a repository's config may refuse a run).
    pub written: bool,
    /// Tables the changed repository's snapshots hold.
    pub tables: usize,
    /// Files whose rows the warm run took from the first snapshot or the caches beside it.
    pub reused_files: i64,
    /// Indexes the first snapshot's SCIP stage read.
    pub scip_indexes: i64,
    /// Documents the first snapshot's SCIP stage read.
    pub scip_documents: i64,
    /// References of one index the first snapshot linked to another's definitions.
    pub scip_linked: i64,
    /// Definitions the first snapshot's merge matched with tree-sitter's.
    pub scip_matched: i64,
    /// Documents the warm run took from the SCIP document cache.
    pub scip_documents_reused: i64,
}

impl SnapshotRun {
    /// What the first snapshot's manifest (when it is at hand) and the warm one's say.
    pub(crate) fn of(first: Option<&Manifest>, warm: &Manifest) -> SnapshotRun {
        let count = |m: Option<&Manifest>, stage: &str, key: &str| {
            m.and_then(|m| m.stages.get(stage))
                .and_then(|s| s.counts.get(key).copied())
                .unwrap_or(0)
        };
        SnapshotRun {
            written: true,
            tables: warm.tables.len(),
            reused_files: count(Some(warm), "syntax", "files.reused")
                + count(Some(warm), "syntax", "files.from-cache"),
            scip_indexes: count(first, "scip", "indexes"),
            scip_documents: count(first, "scip", "documents"),
            scip_linked: count(first, "scip", "references.linked-across-indexes"),
            scip_matched: count(first, "scip", "merge.matched"),
            scip_documents_reused: count(Some(warm), "scip", "documents.reused"),
        }
    }
}

/// Runs the three snapshots; never panics for any input.
pub fn snapshot(data: &[u8]) {
    let _ = snapshot_run(data);
}

/// [`snapshot`], returning what it came to.
pub fn snapshot_run(data: &[u8]) -> SnapshotRun {
    let (before, change) = split_change(data);
    let root = repo::write_repo(before, "snapshot-repo");
    let scratch = crate::thread_scratch();
    let (warm_store, cold_store) = (scratch.join("snapshot-warm"), scratch.join("snapshot-cold"));
    for store in [&warm_store, &cold_store] {
        let _ = std::fs::remove_dir_all(store);
    }
    let Ok(first) = take(&root, &warm_store, PreviousChoice::Disabled, &[]) else {
        return SnapshotRun::default();
    };
    verified(&first);
    repo::change_repo(&root, change);
    let Some((warm_m, _)) = warm_and_cold(&root, &first, (&warm_store, &cold_store), &[]) else {
        return SnapshotRun::default();
    };
    SnapshotRun::of(None, &warm_m)
}

/// Snapshots the changed repository at `root` twice, into `warm_store` building on `first`
/// (and the caches beside it) and cold into `cold_store`, with the SCIP indexes `scip` (none:
/// `--no-scip`): both fail, or both are written, verify, and hold the same tables (but
/// `aliases` and `tombstones`) and views. Returns their manifests (warm, cold).
pub(crate) fn warm_and_cold(
    root: &Path,
    first: &Path,
    (warm_store, cold_store): (&Path, &Path),
    scip: &[PathBuf],
) -> Option<(Manifest, Manifest)> {
    let warm = take(
        root,
        warm_store,
        PreviousChoice::Explicit(first.to_path_buf()),
        scip,
    );
    let cold = take(root, cold_store, PreviousChoice::Disabled, scip);
    let (warm, cold) = match (warm, cold) {
        (Ok(warm), Ok(cold)) => (warm, cold),
        (Err(_), Err(_)) => return None,
        (warm, cold) => panic!("one run failed, the other did not: warm {warm:?}, cold {cold:?}"),
    };
    let (warm_m, cold_m) = (verified(&warm), verified(&cold));
    // Aliases and tombstones say what changed since the previous snapshot: a run without one
    // has none. Every other table is the same whether or not the run built on the first.
    let files = |entries: &[FileEntry]| -> Vec<(String, String)> {
        entries
            .iter()
            .filter(|e| !IDENTITY_HISTORY.contains(&e.name.as_str()))
            .map(|e| (e.name.clone(), e.hash.clone()))
            .collect()
    };
    assert_eq!(
        files(&warm_m.tables),
        files(&cold_m.tables),
        "a table differs between the warm and the cold snapshot"
    );
    assert_eq!(
        files(&warm_m.views),
        files(&cold_m.views),
        "a view differs between the warm and the cold snapshot"
    );
    Some((warm_m, cold_m))
}

/// The repository and its change: the input's parts before and after its first empty record.
pub(crate) fn split_change(data: &[u8]) -> (&[u8], &[u8]) {
    match data.windows(2).position(|w| w == [0, 0]) {
        Some(at) => (&data[..at], &data[at + 2..]),
        None => (data, &[]),
    }
}

/// One snapshot of `root` into `store`, with the SCIP indexes `scip` (none: `--no-scip`); the
/// snapshot's folder, or the run's error. An error that says ckb has a bug (`INTERNAL_ERROR`: a
/// table that would repeat its unique key, for one) is a finding.
pub(crate) fn take(
    root: &Path,
    store: &Path,
    previous: PreviousChoice,
    scip: &[PathBuf],
) -> Result<PathBuf, String> {
    let options = SnapshotOptions {
        root: root.to_path_buf(),
        out: Some(store.to_path_buf()),
        repo_id: Some("fuzz".into()),
        previous,
        scip: scip.to_vec(),
        no_scip: scip.is_empty(),
        ..SnapshotOptions::default()
    };
    match pipeline::snapshot(&options, &NoProgress) {
        Ok(outcome) => Ok(outcome.snapshot().dir.clone()),
        Err(e) if e.code() == ErrorCode::InternalError => panic!("a bug in ckb: {e}"),
        Err(e) => Err(e.to_string()),
    }
}

/// Every file of the snapshot at `dir` matches its manifest, and every table's rows keep its
/// order and unique key; returns the manifest.
pub(crate) fn verified(dir: &Path) -> Manifest {
    let manifest = output_schema::verify::read_manifest(dir).expect("a written manifest reads");
    let report =
        output_schema::verify::verify_against(dir, &manifest, output_schema::verify::Depth::Rows);
    assert!(
        report.ok(),
        "a written snapshot does not verify: {report:?}"
    );
    manifest
}

/// The seeds: repositories of a few languages and manifests, each with a change that edits,
/// adds and removes files.
pub fn snapshot_seeds() -> Vec<(&'static str, Vec<u8>)> {
    let with_change = |before: &[(&str, &str)], change: &[(&str, &str)], removed: &[&str]| {
        let mut input = encode_repo(before);
        input.extend_from_slice(&[0, 0]);
        input.extend_from_slice(&encode_repo(change));
        for path in removed {
            input.push(0);
            input.extend_from_slice(path.as_bytes());
        }
        input
    };
    vec![
        (
            "rust-workspace",
            with_change(
                &[
                    ("Cargo.toml", "[workspace]\nmembers = [\"core\", \"cli\"]\n"),
                    ("core/Cargo.toml", "[package]\nname = \"core\"\n"),
                    (
                        "core/src/lib.rs",
                        "pub mod shapes;\n\npub fn area(s: &shapes::Square) -> f64 {\n    s.side() * s.side()\n}\n",
                    ),
                    (
                        "core/src/shapes.rs",
                        "pub struct Square(pub f64);\n\nimpl Square {\n    pub fn side(&self) -> f64 { self.0 }\n}\n",
                    ),
                    (
                        "cli/Cargo.toml",
                        "[package]\nname = \"cli\"\n\n[dependencies]\ncore = { path = \"../core\" }\n",
                    ),
                    (
                        "cli/src/main.rs",
                        "use core::shapes::Square;\n\nfn main() {\n    println!(\"{}\", core::area(&Square(2.0)));\n}\n",
                    ),
                ],
                &[(
                    "core/src/lib.rs",
                    "pub mod shapes;\n\npub fn surface(s: &shapes::Square) -> f64 {\n    s.side() * s.side()\n}\n",
                )],
                &["cli/src/main.rs"],
            ),
        ),
        (
            "go-platform-files",
            with_change(
                &[
                    ("go.mod", "module example.com/sys\n"),
                    ("open_linux.go", "package sys\n\nfunc open() int { return 1 }\n"),
                    ("open_windows.go", "package sys\n\nfunc open() int { return 2 }\n"),
                    ("use.go", "package sys\n\nimport \"fmt\"\n\nfunc Use() { fmt.Println(open()) }\n"),
                ],
                &[("open_darwin.go", "package sys\n\nfunc open() int { return 3 }\n")],
                &["open_linux.go"],
            ),
        ),
        (
            "typescript-and-python",
            with_change(
                &[
                    ("package.json", "{\"name\": \"web\", \"dependencies\": {\"react\": \"18\"}}"),
                    (
                        "src/main.ts",
                        "import { Circle } from \"./circle\";\n\nexport function run(): number {\n  return new Circle(2).area();\n}\n",
                    ),
                    (
                        "src/circle.ts",
                        "export class Circle {\n  constructor(public r: number) {}\n  area(): number { return 3 * this.r * this.r; }\n}\n",
                    ),
                    ("tools/gen.py", "import os\n\n\ndef main():\n    return os.getcwd()\n"),
                ],
                &[
                    (
                        "src/circle.ts",
                        "export class Circle {\n  constructor(public r: number) {}\n  area(): number { return 3.14 * this.r * this.r; }\n  perimeter(): number { return 6.28 * this.r; }\n}\n",
                    ),
                    ("tools/gen_test.py", "from gen import main\n\n\ndef test_main():\n    assert main()\n"),
                ],
                &[],
            ),
        ),
    ]
}
