//! `ckb index` with the real indexers `ci/install-indexers.sh` installs (rust-analyzer,
//! scip-typescript, scip-python), then `ckb snapshot`: every index lands where the snapshot finds
//! it, describes HEAD, and is read whole — also from a copy of the repository at another path,
//! since these indexers write absolute project roots. A missing indexer fails these tests under
//! `CI=true` and skips them loudly otherwise.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::*;
use serde_json::Value;

/// `ckb` in `repo` with the installed indexers on `PATH` and ckb's cache in `cache`.
fn ckb_indexed(repo: &Path, cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ckb"))
        .args(args)
        .current_dir(repo)
        .env("PATH", test_support::path_with_indexers())
        .env("XDG_CACHE_HOME", cache)
        .env_remove("CKB_STORE")
        .output()
        .unwrap()
}

/// Every installed indexer, or `None` (after `tool_missing`) when one is missing.
fn indexers_installed() -> Option<()> {
    test_support::rust_analyzer()?;
    test_support::npm_indexer("scip-typescript")?;
    test_support::npm_indexer("scip-python")?;
    Some(())
}

/// The fixture `tests/fixtures/scip/<name>` copied into `repo` at `under` (`""`: the root).
fn copy_fixture(repo: &Fixture, name: &str, under: &str) {
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets it");
    let src = Path::new(&manifest_dir)
        .join("tests/fixtures/scip")
        .join(name);
    for (rel, bytes) in files_of(&src) {
        let at = if under.is_empty() {
            rel
        } else {
            format!("{under}/{rel}")
        };
        repo.write(&at, bytes);
    }
}

fn index_json(repo: &Path, cache: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["index", "--json", "--progress", "never"];
    args.extend_from_slice(extra);
    let out = ckb_indexed(repo, cache, &args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&String::from_utf8_lossy(&out.stdout)).unwrap()
}

/// ckb's cache folder and a fresh repository, when scip-typescript is installed (`None` after
/// `tool_missing` otherwise).
fn with_scip_typescript() -> Option<(tempfile::TempDir, Fixture)> {
    test_support::npm_indexer("scip-typescript")?;
    Some((tempfile::tempdir().unwrap(), Fixture::git()))
}

/// Each run of a report by the index it wrote (or its tool, for a run that wrote none).
fn runs_by_index(report: &Value) -> std::collections::BTreeMap<String, &Value> {
    report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let key = r["index"].as_str().or(r["tool"].as_str()).unwrap();
            (key.to_string(), r)
        })
        .collect()
}

#[test]
fn real_indexers_write_indexes_of_head_that_a_snapshot_reads_whole_also_from_a_copy() {
    if indexers_installed().is_none() {
        return;
    }
    let cache = tempfile::tempdir().unwrap();
    // A polyglot repository: Rust in a sub-folder (not at the root), TypeScript with a tsconfig
    // and a script outside it, Python at the root.
    let repo = Fixture::git();
    copy_fixture(&repo, "rust", "engine");
    copy_fixture(&repo, "ts", "");
    copy_fixture(&repo, "py", "");
    repo.write(
        "scripts/build.js",
        "function build() {\n  return 1;\n}\nbuild();\n",
    );
    repo.write(".gitignore", "node_modules/\n");
    let head = repo.commit("polyglot");
    let report = index_json(repo.path(), cache.path(), &[]);
    let runs = runs_by_index(&report);
    let expect = [
        (
            ".ckb/rust-analyzer@engine.scip",
            "rust-analyzer",
            "engine",
            2,
        ),
        (".ckb/scip-typescript.scip", "scip-typescript", ".", 2),
        // The script no tsconfig includes: a second scip-typescript run over it.
        (
            ".ckb/scip-typescript@other-files.scip",
            "scip-typescript",
            ".",
            1,
        ),
        (".ckb/scip-python.scip", "scip-python", ".", 3),
    ];
    assert_eq!(runs.len(), expect.len(), "{report}");
    for (index, tool, project, documents) in expect {
        let r = runs
            .get(index)
            .unwrap_or_else(|| panic!("no {index}: {report}"));
        assert_eq!(r["status"], "indexed", "{r}");
        assert_eq!(r["tool"], tool, "{r}");
        assert_eq!(r["project"], project, "{r}");
        assert_eq!(r["documents"], documents, "{r}");
        assert!(r["version"].as_str().is_some_and(|v| !v.is_empty()));
    }
    assert!(report["worktreeChanged"].is_null(), "{report}");
    assert!(!report["dirty"].as_bool().unwrap());

    let store = tempfile::tempdir().unwrap();
    let check = |root: &Path| {
        let snap = snapshot(root, store.path(), &["--force"]);
        let m = manifest(&snap);
        assert!(!m.repo_state.dirty, "indexing left the tree clean");
        let mut inputs = Vec::new();
        for b in m.backends.iter().filter(|b| b.kind == "scip") {
            inputs.push(b.input.clone().unwrap());
            assert_eq!(b.facts["freshness"], "current", "{b:?}");
            assert_eq!(b.facts["indexedCommit"], head.as_str());
            assert_eq!(
                b.counts["documentsUsed"], b.counts["documents"],
                "every document maps to a file: {b:?}"
            );
            let root_expected = if b.tool == "rust-analyzer" {
                "engine"
            } else {
                "."
            };
            assert_eq!(b.facts["projectRoot"], root_expected, "{b:?}");
        }
        inputs.sort();
        assert_eq!(
            inputs,
            [
                ".ckb/rust-analyzer@engine.scip",
                ".ckb/scip-python.scip",
                ".ckb/scip-typescript.scip",
                ".ckb/scip-typescript@other-files.scip",
            ]
        );
    };
    check(repo.path());
    // A copy at another path (CI builds the index in one place, snapshots in another): the
    // absolute project roots are matched by their trailing folders.
    let elsewhere = tempfile::tempdir().unwrap();
    let copy = elsewhere.path().join("moved");
    test_support::run_ok(Command::new("cp").arg("-a").arg(repo.path()).arg(&copy));
    check(&copy);

    // Up to date: nothing reruns.
    let again = index_json(repo.path(), cache.path(), &[]);
    for r in again["runs"].as_array().unwrap() {
        assert_eq!(r["status"], "up-to-date", "{r}");
    }
}

/// What scip-typescript does without `node_modules`: every file is indexed, but references into
/// a package resolve to nothing; ckb says the dependencies are not installed.
#[test]
fn without_node_modules_scip_typescript_indexes_every_file_but_not_references_into_packages() {
    let Some((cache, repo)) = with_scip_typescript() else {
        return;
    };
    repo.write(
        "package.json",
        r#"{"name": "fx", "version": "1.0.0", "dependencies": {"left-pad-ts": "1.0.0"}}"#,
    )
    .write("tsconfig.json", r#"{"compilerOptions": {"strict": true, "noEmit": true}}"#)
    .write(
        "src/main.ts",
        "import { leftPad } from \"left-pad-ts\";\nexport function show(s: string): string {\n  return leftPad(s, 4);\n}\n",
    )
    .write(".gitignore", "node_modules/\n");
    repo.commit("one");
    let store = tempfile::tempdir().unwrap();
    let package_refs = |root: &Path| -> usize {
        let snap = snapshot(root, store.path(), &["--force"]);
        let occ: Vec<output_schema::tables::OccurrenceRow> =
            output_schema::parquet_io::read_table(&snap.join("occurrences.parquet")).unwrap();
        occ.iter()
            .filter(|o| {
                o.source == "scip"
                    && o.symbol_id
                        .as_deref()
                        .is_some_and(|s| s.contains("left-pad-ts"))
            })
            .count()
    };

    let without = index_json(repo.path(), cache.path(), &[]);
    let run = &without["runs"][0];
    assert_eq!(run["status"], "indexed", "{without}");
    assert_eq!(run["documents"], 1);
    assert!(
        run["notes"]
            .to_string()
            .contains("not installed (no node_modules)"),
        "{run}"
    );
    assert_eq!(
        package_refs(repo.path()),
        0,
        "nothing resolves into the package"
    );

    // With the package installed (by hand here: a typed module), its references resolve.
    repo.write(
        "node_modules/left-pad-ts/package.json",
        r#"{"name": "left-pad-ts", "version": "1.0.0", "types": "index.d.ts"}"#,
    )
    .write(
        "node_modules/left-pad-ts/index.d.ts",
        "export declare function leftPad(s: string, n: number): string;\n",
    );
    // node_modules is ignored, so the state is the same: --force reruns.
    let with = index_json(repo.path(), cache.path(), &["--force"]);
    let run = &with["runs"][0];
    assert_eq!(run["status"], "indexed", "{with}");
    assert!(
        !run["notes"].to_string().contains("no node_modules"),
        "{run}"
    );
    assert!(
        package_refs(repo.path()) >= 2,
        "the import and the call resolve"
    );
}

/// The usual TypeScript layout: a tsconfig that includes `src/` only, tests beside it. `ckb index`
/// indexes the tests in a second scip-typescript run, so their calls into `src/` sit in another
/// index than the functions they call; the snapshot links them, so a function only the tests call
/// has its callers and usage (dead code calls it test-only, not unreferenced).
#[test]
fn calls_from_tests_outside_the_tsconfig_reach_the_functions_they_call() {
    let Some((cache, repo)) = with_scip_typescript() else {
        return;
    };
    repo.write("package.json", r#"{"name": "fx", "version": "1.0.0"}"#)
        .write(
            "tsconfig.json",
            r#"{"compilerOptions": {"strict": true, "noEmit": true}, "include": ["src"]}"#,
        )
        .write(
            "src/lib.ts",
            "export function usedOnlyByTests(x: number): number {\n  return x + 1;\n}\n\n\
             export function main(): number {\n  return 2;\n}\n",
        )
        .write(
            "test/lib.test.ts",
            "import { usedOnlyByTests } from \"../src/lib\";\n\n\
             export function checkIt(): boolean {\n  return usedOnlyByTests(1) === 2;\n}\n",
        );
    repo.commit("one");
    let report = index_json(repo.path(), cache.path(), &[]);
    let runs = runs_by_index(&report);
    assert_eq!(
        runs.keys().collect::<Vec<_>>(),
        [
            ".ckb/scip-typescript.scip",
            ".ckb/scip-typescript@other-files.scip"
        ],
        "{report}"
    );
    let store = tempfile::tempdir().unwrap();
    let snap = snapshot(repo.path(), store.path(), &[]);
    let m = manifest(&snap);
    assert_eq!(
        m.stages["scip"].counts["references.linked-across-indexes"], 3,
        "the imported module, the imported name and the call: {:?}",
        m.stages["scip"].counts
    );
    let snap_arg = snap.to_str().unwrap();
    let callers: Value = serde_json::from_str(&query_json_ok(
        repo.path(),
        snap_arg,
        &["callers", "usedOnlyByTests"],
    ))
    .unwrap();
    let names: Vec<&str> = callers["facts"]["callers"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(names, ["checkIt"], "{callers}");
    // Dead code sees the tests' references: test-only, not unreferenced.
    let dead: Value =
        serde_json::from_str(&query_json_ok(repo.path(), snap_arg, &["dead-code"])).unwrap();
    let candidate = (dead["facts"]["candidates"].as_array().unwrap().iter())
        .find(|c| c["name"] == "usedOnlyByTests")
        .unwrap_or_else(|| panic!("{dead}"));
    assert_eq!(
        (&candidate["category"], &candidate["references"]),
        (&Value::from("test-only"), &Value::from(2)),
        "{dead}"
    );
}
