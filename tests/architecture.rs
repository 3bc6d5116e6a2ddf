//! Enforces the dependency rules of ARCHITECTURE.md by reading the crates' manifests, and that every
//! Rust source file opens with a `//!` doc saying what it is for.

use std::path::Path;

fn deps(crate_dir: &str) -> Vec<String> {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(crate_dir)
            .join("Cargo.toml"),
    )
    .unwrap();
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

#[test]
fn every_rust_file_opens_with_a_module_doc() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut missing = Vec::new();
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
                let text = std::fs::read_to_string(&p).unwrap();
                if !text.trim_start().starts_with("//!") {
                    missing.push(p.strip_prefix(root).unwrap().display().to_string());
                }
            }
        }
    }
    missing.sort();
    assert!(missing.is_empty(), "files without a //! doc: {missing:?}");
}
