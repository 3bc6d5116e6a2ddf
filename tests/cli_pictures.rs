//! `ckb query arch --format mermaid|dot` and the impact graph of `ckb diff`'s markdown: golden
//! text over the hand-written fixture snapshot, checked by the tools that draw it — the official
//! Mermaid CLI (`mmdc`, driving Debian's chromium) parses and renders the Mermaid, graphviz's
//! `dot -Tsvg` renders the DOT — and every bad input.
//!
//! Goldens live in `tests/golden/pictures/`; regenerate with `CKB_UPDATE_GOLDEN=1 cargo test -p
//! ckb --test cli_pictures` and review every changed line. The diff markdown with its graph is
//! `tests/golden/diff/pr.md` (tests/cli_diff.rs).

mod common;
#[path = "../queries/tests/fixture/mod.rs"]
mod fixture;

use std::path::Path;
use std::process::Command;

use common::*;

fn golden(name: &str, actual: &str) {
    let dir = Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo test"))
        .join("tests/golden/pictures");
    test_support::assert_golden(&dir.join(name), actual);
}

fn arch(root: &Path, args: &[&str]) -> std::process::Output {
    let snapshot = fixture::snapshot_rel();
    ckb(
        root,
        &[&["query", "--snapshot", &snapshot, "arch"], args].concat(),
    )
}

fn arch_ok(root: &Path, args: &[&str]) -> String {
    let snapshot = fixture::snapshot_rel();
    ckb_ok(
        root,
        &[&["query", "--snapshot", &snapshot, "arch"], args].concat(),
    )
}

/// Renders Mermaid text with the official Mermaid CLI to SVG; `None` when the tool is missing
/// (which fails under CI). Panics with the CLI's message when the text does not parse.
pub fn mermaid_renders(text: &str, work: &Path) -> Option<String> {
    let modules = test_support::node_tool("@mermaid-js/mermaid-cli")?;
    let chromium = test_support::chromium()?;
    let config = work.join("puppeteer.json");
    std::fs::write(
        &config,
        serde_json::json!({
            "executablePath": chromium,
            "args": ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync"],
        })
        .to_string(),
    )
    .unwrap();
    let input = work.join("graph.mmd");
    let output = work.join("graph.svg");
    std::fs::write(&input, text).unwrap();
    let out = Command::new(modules.join(".bin/mmdc"))
        .env("PUPPETEER_SKIP_DOWNLOAD", "1")
        .env("PUPPETEER_EXECUTABLE_PATH", &chromium)
        .args(["-q", "-p"])
        .arg(&config)
        .arg("-i")
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .expect("mmdc runs");
    test_support::assert_success(&out, "mmdc (the Mermaid CLI)");
    Some(std::fs::read_to_string(output).unwrap())
}

/// Renders DOT with graphviz's `dot -Tsvg`; `None` when it is missing (fails under CI).
fn dot_renders(text: &str) -> Option<String> {
    let dot = test_support::graphviz_dot()?;
    let mut child = Command::new(dot)
        .arg("-Tsvg")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    test_support::assert_success(&out, "dot -Tsvg");
    assert!(
        out.stderr.is_empty(),
        "dot warns: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).unwrap())
}

#[test]
fn arch_graphs_match_the_goldens_and_render_with_the_stock_tools() {
    let root = fixture::built(&fixture::Options::default());
    let mermaid = arch_ok(root.path(), &["--format", "mermaid", "--include-external"]);
    golden("arch.mmd", &mermaid);
    let dot = arch_ok(root.path(), &["--format", "dot", "--include-external"]);
    golden("arch.dot", &dot);
    let cut = arch_ok(
        root.path(),
        &[
            "--format",
            "mermaid",
            "--max-modules",
            "2",
            "--size-by",
            "symbols",
        ],
    );
    golden("arch-max-modules-2.mmd", &cut);
    // Deterministic text.
    assert_eq!(
        mermaid,
        arch_ok(root.path(), &["--format", "mermaid", "--include-external"])
    );
    assert_eq!(
        dot,
        arch_ok(root.path(), &["--include-external", "--format", "dot"])
    );

    // What the picture says is what the JSON says: one node per module shown, the cycle red.
    let json: serde_json::Value = serde_json::from_str(&arch_ok(
        root.path(),
        &["--format", "json", "--include-external"],
    ))
    .unwrap();
    let modules = json["facts"]["modules"].as_array().unwrap();
    for m in modules {
        let id = m["id"].as_str().unwrap();
        assert!(
            dot.contains(&format!("\"{id}\" [label=\"{id}")),
            "{id}: {dot}"
        );
    }
    assert_eq!(json["facts"]["cycles"], serde_json::json!([[".", "web"]]));
    assert_eq!(
        dot.matches("color=\"#d9480f\", fontcolor").count(),
        2,
        "{dot}"
    );
    assert!(cut.contains("✂ 2 of 4 modules shown (max-modules) · more: ckb query arch --max-modules 4 --format mermaid"), "{cut}");

    let work = tempfile::tempdir().unwrap();
    if let Some(svg) = dot_renders(&dot) {
        for m in modules {
            assert!(svg.contains(&format!("<title>{}</title>", m["id"].as_str().unwrap())));
        }
    }
    for text in [&mermaid, &cut] {
        if let Some(svg) = mermaid_renders(text, work.path()) {
            assert!(svg.contains("crates/core"), "{svg}");
            assert!(svg.contains("flowchart"), "a flowchart was drawn");
        }
    }
}

#[test]
fn a_snapshot_without_the_modules_stage_draws_a_note_and_exits_0() {
    let root = fixture::built(&fixture::Options {
        modules: false,
        ..fixture::Options::default()
    });
    let mermaid = arch_ok(root.path(), &["--format", "mermaid"]);
    assert!(
        mermaid.contains("no architecture view: the modules stage did not run"),
        "{mermaid}"
    );
    assert!(!mermaid.contains("n0["), "no module is drawn: {mermaid}");
    let dot = arch_ok(root.path(), &["--format", "dot"]);
    assert!(
        dot.contains("label=\"This snapshot has no architecture view"),
        "{dot}"
    );
    let work = tempfile::tempdir().unwrap();
    mermaid_renders(&mermaid, work.path());
    dot_renders(&dot);
}

#[test]
fn graph_formats_are_for_arch_only_and_bad_values_are_errors() {
    let root = fixture::built(&fixture::Options::default());
    let snapshot = fixture::snapshot_rel();
    let out = ckb(
        root.path(),
        &[
            "query",
            "--snapshot",
            &snapshot,
            "--format",
            "dot",
            "search",
            "parse",
        ],
    );
    test_support::assert_fails_mentioning(&out, &["INVALID_PARAMETER", "arch"]);
    assert!(out.stdout.is_empty());
    let out = arch(root.path(), &["--format", "mermaid", "--size-by", "bytes"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--size-by"));
    let out = arch(root.path(), &["--format", "svg"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unknown format is a usage error"
    );
}

/// A directory with the diff fixture of tests/cli_diff.rs is not shared; the impact graph is
/// checked there (golden `pr.md`) and its Mermaid here.
#[test]
fn the_impact_graph_of_the_diff_golden_renders() {
    let golden =
        Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("tests/golden/diff/pr.md");
    let md = std::fs::read_to_string(golden).unwrap();
    let block = md
        .split("```mermaid\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("pr.md holds a mermaid block");
    assert!(block.contains("flowchart LR"));
    let work = tempfile::tempdir().unwrap();
    if let Some(svg) = mermaid_renders(block, work.path()) {
        for module in ["crates/core", "crates/app", "crates/cli"] {
            assert!(svg.contains(module), "{module}: {svg}");
        }
    }
}
