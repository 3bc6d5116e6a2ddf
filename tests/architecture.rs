//! Enforces the dependency rules of ARCHITECTURE.md by reading the crates' manifests, that every
//! Rust source file opens with a `//!` doc saying what it is for, and that tests look up their
//! files at run time (see `tests_find_their_files_at_run_time`).

use std::path::{Path, PathBuf};

fn deps(crate_dir: &str) -> Vec<String> {
    let text =
        std::fs::read_to_string(workspace_root().join(crate_dir).join("Cargo.toml")).unwrap();
    let mut out = Vec::new();
    let mut in_deps = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
            continue;
        }
        if in_deps {
            if let Some((name, _)) = line.split_once(['.', '=', ' ']) {
                if !name.is_empty() && !name.starts_with('#') {
                    out.push(name.trim().to_string());
                }
            }
        }
    }
    out
}

#[test]
fn crate_dependency_rules_hold() {
    let schema = deps("output-schema");
    for ckb_crate in ["pipeline", "queries", "ckb"] {
        assert!(
            !schema.contains(&ckb_crate.to_string()),
            "output-schema depends on {ckb_crate}"
        );
    }
    let queries = deps("queries");
    assert!(
        !queries.contains(&"pipeline".to_string()),
        "queries depends on pipeline"
    );
    let pipeline = deps("pipeline");
    assert!(
        !pipeline.contains(&"queries".to_string()),
        "pipeline depends on queries"
    );
    for lib in [&schema, &queries, &pipeline] {
        for ui in ["clap", "indicatif"] {
            assert!(
                !lib.contains(&ui.to_string()),
                "a library crate depends on {ui}"
            );
        }
    }
    for lib in [&schema, &pipeline] {
        assert!(
            !lib.contains(&"duckdb".to_string()),
            "DuckDB must stay inside queries"
        );
    }
}

/// Every Rust file of the workspace's crates, as paths relative to `root` (fixtures and build
/// output left out), sorted.
fn rust_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![
        root.join("src"),
        root.join("output-schema"),
        root.join("pipeline"),
        root.join("queries"),
        root.join("tests"),
    ];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                if !p.ends_with("fixtures") && !p.ends_with("target") {
                    stack.push(p);
                }
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    files.sort();
    files
}

fn workspace_root() -> PathBuf {
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR"))
}

#[test]
fn every_rust_file_opens_with_a_module_doc() {
    let root = workspace_root();
    let missing: Vec<String> = rust_files(&root)
        .into_iter()
        .filter(|p| {
            !std::fs::read_to_string(root.join(p))
                .unwrap()
                .trim_start()
                .starts_with("//!")
        })
        .map(|p| p.display().to_string())
        .collect();
    assert!(missing.is_empty(), "files without a //! doc: {missing:?}");
}

/// Tests find their files through the manifest folder cargo gives them when it runs them. The
/// compile-time `env!` form bakes in the folder the binary was built in, and cargo does not rebuild
/// a test when only that folder changed: with a target folder shared between clones (`.ci/run`
/// keeps one under `$HOME/.cache`), a test built in another clone reads that clone's files, or
/// fails on a folder that is gone.
#[test]
fn tests_find_their_files_at_run_time() {
    let root = workspace_root();
    let baked = ["env!(\"CARGO_", "MANIFEST_DIR\")"].concat();
    let offenders: Vec<String> = rust_files(&root)
        .into_iter()
        .filter(|p| {
            std::fs::read_to_string(root.join(p))
                .unwrap()
                .contains(&baked)
        })
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        offenders.is_empty(),
        "use std::env::var(\"CARGO_MANIFEST_DIR\") at run time instead: {offenders:?}"
    );
}

/// SECURITY.md names a test for every guarantee as `` `path/to/file.rs::test_name` ``; each must
/// exist, or the guarantee is no longer held by anything.
#[test]
fn security_guarantees_name_tests_that_exist() {
    let root = workspace_root();
    let text = std::fs::read_to_string(root.join("SECURITY.md")).expect("SECURITY.md exists");
    let mut named = 0;
    for span in text.split('`').skip(1).step_by(2) {
        let Some((file, test)) = span.split_once(".rs::") else {
            continue;
        };
        let source = std::fs::read_to_string(root.join(format!("{file}.rs")))
            .unwrap_or_else(|e| panic!("SECURITY.md names {file}.rs, which cannot be read: {e}"));
        assert!(
            source.contains(&format!("fn {test}(")),
            "SECURITY.md names the test {span}, which does not exist"
        );
        named += 1;
    }
    assert!(named >= 5, "SECURITY.md names only {named} tests");
}
