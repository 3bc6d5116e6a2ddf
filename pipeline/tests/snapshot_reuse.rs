//! Incremental reuse with a real SCIP index (issue 25): over scripted multi-commit histories of
//! the TypeScript and Rust fixtures, each commit indexed afresh by scip-typescript or
//! rust-analyzer, a snapshot that builds on the previous one (the syntax cache, the SCIP document
//! cache and the previous snapshot's rows) writes the same bytes as a cold `--no-previous`
//! snapshot of the same commit, reuses what did not change, and falls back to deriving everything
//! — with a coded warning and the same bytes — when its caches are damaged. That an anonymized run
//! keeps no cache is checked by `tests/privacy.rs`.

mod scip_support;

use std::path::{Path, PathBuf};

use output_schema::manifest::Manifest;
use pipeline::{PreviousChoice, SnapshotOptions};
use scip_support::*;

/// How to index one fixture: the indexer and its arguments (run in the repository's root, writing
/// `index.scip` there).
struct Fixture {
    name: &'static str,
    tool: &'static str,
    args: &'static [&'static str],
}

const TS: Fixture = Fixture {
    name: "ts",
    tool: "scip-typescript",
    args: &["index"],
};

const RUST: Fixture = Fixture {
    name: "rust",
    tool: "rust-analyzer",
    args: &["scip", "."],
};

/// One commit of a scripted history: files written (path, text) and files removed.
struct Step {
    write: Vec<(&'static str, String)>,
    remove: Vec<&'static str>,
}

/// Tables whose rows depend on the previous snapshot by design (aliases and tombstones record what
/// changed since it); every other table and view must be byte-identical to a cold run.
const HISTORY_RELATIVE: [&str; 2] = ["aliases.parquet", "tombstones.parquet"];

fn options(root: &Path, store: &Path, previous: PreviousChoice, head: &str) -> SnapshotOptions {
    SnapshotOptions {
        root: root.to_path_buf(),
        out: Some(store.to_path_buf()),
        repo_id: Some("fx".into()),
        previous,
        scip: vec![root.join("index.scip")],
        scip_commit: Some(head.to_string()),
        threads: Some(2),
        ..SnapshotOptions::default()
    }
}

/// Indexes the work tree afresh (the index a CI job would build for this commit).
fn index(root: &Path, fixture: &Fixture, program: &Path) {
    let _ = std::fs::remove_file(root.join("index.scip"));
    run(root, program, fixture.args);
    assert!(
        root.join("index.scip").is_file(),
        "{} wrote no index",
        fixture.tool
    );
}

/// Every Parquet table and view of a snapshot, by its path inside the snapshot folder.
fn snapshot_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for sub in ["", "views"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let keep = path.is_file()
                && (name.ends_with(".parquet") || sub == "views")
                && !HISTORY_RELATIVE.contains(&name.as_str());
            if keep {
                let rel = if sub.is_empty() {
                    name
                } else {
                    format!("{sub}/{name}")
                };
                out.push((rel, std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn assert_same_bytes(warm: &Path, cold: &Path, what: &str) {
    let (warm, cold) = (snapshot_files(warm), snapshot_files(cold));
    let names = |f: &[(String, Vec<u8>)]| f.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&warm), names(&cold), "{what}: the same files");
    assert!(warm.iter().any(|(n, _)| n == "symbols.parquet"));
    for ((name, a), (_, b)) in warm.iter().zip(&cold) {
        assert!(a == b, "{what}: {name} differs from a cold run's");
    }
}

fn count(manifest: &Manifest, stage: &str, key: &str) -> i64 {
    manifest.stages[stage].counts.get(key).copied().unwrap_or(0)
}

fn warning_codes(manifest: &Manifest, stage: &str) -> Vec<String> {
    manifest.stages[stage]
        .warnings
        .iter()
        .map(|w| w.code.clone())
        .collect()
}

/// Commits `step`, indexes the commit and snapshots it twice: into `store` building on what is
/// there, and into a fresh store cold. Asserts the bytes agree; returns the warm manifest.
fn commit_and_compare(
    root: &Path,
    fixture: &Fixture,
    program: &Path,
    store: &Path,
    step: &Step,
    what: &str,
) -> (Manifest, PathBuf) {
    for (path, text) in &step.write {
        test_support::write_file(root, path, text);
    }
    for path in &step.remove {
        std::fs::remove_file(root.join(path)).unwrap();
    }
    let head = test_support::git_commit_all(root, what);
    index(root, fixture, program);
    let warm = snapshot(&options(root, store, PreviousChoice::Auto, &head));
    let cold_store = tempfile::tempdir().unwrap();
    let cold = snapshot(&options(
        root,
        cold_store.path(),
        PreviousChoice::Disabled,
        &head,
    ));
    assert_eq!(
        warm.manifest
            .previous
            .as_ref()
            .map(|p| p.chosen_by.as_str()),
        Some("ancestor"),
        "{what}: the warm run builds on the previous snapshot"
    );
    assert!(count(&cold.manifest, "syntax", "files.reused") == 0);
    assert_same_bytes(&warm.dir, &cold.dir, what);
    (warm.manifest, warm.dir)
}

/// The first snapshot of a fixture repository, indexed, into `store`.
fn first(fixture: &Fixture, program: &Path, store: &Path) -> tempfile::TempDir {
    let repo = fixture_repo(fixture.name);
    let root = repo.path();
    index(root, fixture, program);
    let head = git(root, &["rev-parse", "HEAD"]).trim().to_string();
    let snap = snapshot(&options(root, store, PreviousChoice::Auto, &head));
    assert!(
        count(&snap.manifest, "scip", "documents") > 0,
        "the index was used"
    );
    repo
}

/// The scripted history, then a run whose caches were damaged.
fn history(fixture: &Fixture, steps: Vec<(Step, &str, i64)>) {
    let Some(program) = indexer(fixture.tool) else {
        return;
    };
    let store = tempfile::tempdir().unwrap();
    let repo = first(fixture, &program, store.path());
    let root = repo.path();
    for (step, what, changed) in steps {
        let (m, _) = commit_and_compare(root, fixture, &program, store.path(), &step, what);
        // Every unchanged file came from the cache, tree-sitter's rows and SCIP's documents both.
        let total = count(&m, "syntax", "files.total");
        assert_eq!(
            count(&m, "syntax", "files.reused"),
            total - changed,
            "{what}: {:?}",
            m.stages["syntax"].counts
        );
        let documents = count(&m, "scip", "documents");
        let reused = count(&m, "scip", "documents.reused");
        assert!(
            reused >= documents - changed && (changed == 0 || reused < documents),
            "{what}: {:?}",
            m.stages["scip"].counts
        );
        assert!(
            warning_codes(&m, "syntax").is_empty()
                && !warning_codes(&m, "scip")
                    .iter()
                    .any(|c| c.starts_with("cache-"))
        );
    }

    // Damage every blob of the three caches: the next run derives and encodes everything, says
    // why, and writes the same bytes.
    let repo_dir = store.path().join("repo=fx");
    for cache in ["syntax-cache", "scip-cache", "table-cache"] {
        let mut damaged = 0;
        for entry in std::fs::read_dir(repo_dir.join(cache)).unwrap() {
            let path = entry.unwrap().path();
            if path
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("seg-")
            {
                let mut bytes = std::fs::read(&path).unwrap();
                for b in bytes.iter_mut() {
                    *b ^= 0x5a;
                }
                std::fs::write(&path, bytes).unwrap();
                damaged += 1;
            }
        }
        assert!(damaged > 0, "{cache} holds segments");
    }
    let step = Step {
        write: vec![("NOTES.md", "# notes\n".to_string())],
        remove: vec![],
    };
    let (m, _) = commit_and_compare(root, fixture, &program, store.path(), &step, "damaged");
    assert!(warning_codes(&m, "syntax").contains(&"cache-unreadable".to_string()));
    assert!(warning_codes(&m, "scip").contains(&"cache-unreadable".to_string()));
    let table_cache = m.stages["identity"]
        .warnings
        .iter()
        .find(|w| w.message.starts_with("table-cache: "))
        .unwrap_or_else(|| panic!("no table-cache warning: {:?}", m.stages["identity"]));
    assert_eq!(table_cache.code, "cache-unreadable");
    assert_eq!(count(&m, "syntax", "files.from-cache"), 0);
    assert_eq!(count(&m, "scip", "documents.reused"), 0);
    // The damaged caches were replaced: the run after that reuses again, silently.
    let step = Step {
        write: vec![("NOTES.md", "# notes, again\n".to_string())],
        remove: vec![],
    };
    let (m, _) = commit_and_compare(root, fixture, &program, store.path(), &step, "repaired");
    assert!(count(&m, "syntax", "files.from-cache") > 0);
    assert!(count(&m, "scip", "documents.reused") > 0);
    assert!(warning_codes(&m, "syntax").is_empty());
    let warnings = &m.stages["identity"].warnings;
    assert!(!warnings
        .iter()
        .any(|w| w.message.starts_with("table-cache")));
}

fn read(root_rel: &str, fixture: &str) -> String {
    let path = Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets it"))
        .join("../tests/fixtures/scip")
        .join(fixture)
        .join(root_rel);
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn typescript_history_with_scip_typescript_is_byte_identical_to_cold_runs() {
    let shapes = read("src/shapes.ts", "ts");
    history(
        &TS,
        vec![
            (
                Step {
                    // A new function in one file: the other file's document is unchanged.
                    write: vec![(
                        "src/shapes.ts",
                        format!("{shapes}\nexport function cube(x: number): number {{\n  return square(x) * x;\n}}\n"),
                    )],
                    remove: vec![],
                },
                "one file changed",
                1,
            ),
            (
                Step {
                    // A new file calling into an unchanged one.
                    write: vec![(
                        "src/extra.ts",
                        "import { square } from \"./shapes\";\n\nexport function twice(x: number): number {\n  return square(x) + square(x);\n}\n".to_string(),
                    )],
                    remove: vec![],
                },
                "file added",
                1,
            ),
            (
                Step {
                    write: vec![],
                    remove: vec!["src/extra.ts"],
                },
                "file removed",
                0,
            ),
        ],
    );
}

#[test]
fn rust_history_with_rust_analyzer_is_byte_identical_to_cold_runs() {
    let shapes = read("src/shapes.rs", "rust");
    let lib = read("src/lib.rs", "rust");
    history(
        &RUST,
        vec![
            (
                Step {
                    write: vec![(
                        "src/shapes.rs",
                        format!("{shapes}\npub fn cube(x: f64) -> f64 {{\n    square(x) * x\n}}\n"),
                    )],
                    remove: vec![],
                },
                "one file changed",
                1,
            ),
            (
                Step {
                    // A new module: lib.rs changes too.
                    write: vec![
                        (
                            "src/extra.rs",
                            "use crate::shapes::cube;\n\npub fn twice(x: f64) -> f64 {\n    cube(x) + cube(x)\n}\n".to_string(),
                        ),
                        ("src/lib.rs", format!("{lib}\npub mod extra;\n")),
                    ],
                    remove: vec![],
                },
                "module added",
                2,
            ),
        ],
    );
}
