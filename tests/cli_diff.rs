//! `ckb diff` over hand-written fixture snapshots: golden markdown and JSON of a scripted PR
//! (rename, signature change, deletion, new caller, …), the markdown budget, and every bad input.
//!
//! Goldens live in `tests/golden/diff/`; regenerate with `CKB_UPDATE_GOLDEN=1 cargo test -p ckb
//! --test cli_diff` and review every changed line before committing (see the README there).
//!
//! Size: one base and head fixture shared by every diff test, spelled out in full (the goldens are traced to it).

mod common;

use std::path::{Path, PathBuf};

use common::fixture_snapshot::*;
use common::*;
use serde_json::Value;

const REPO: &str = "acme";
const BASE: &str = "1111111111111111111111111111111111111111";
const HEAD: &str = "2222222222222222222222222222222222222222";
const MID: &str = "1515151515151515151515151515151515151515";
const ROOT: &str = "0000000000000000000000000000000000000000";

const LIB: &str = "crates/core/src/lib.rs";
const RENDER: &str = "crates/core/src/render.rs";
const UTIL: &str = "crates/core/src/util.rs";
const MISC: &str = "crates/core/src/misc.rs";
const MAIN: &str = "crates/app/src/main.rs";
const REPORT: &str = "crates/app/src/report.rs";
const CMD: &str = "crates/cli/src/cmd.rs";
const TESTS: &str = "crates/core/tests/parse_test.rs";
const CHANGELOG: &str = "docs/CHANGELOG.md";

fn id(key: &str) -> String {
    sid(REPO, key)
}

/// The base snapshot of the scripted PR.
fn base() -> SnapshotBuilder {
    let mut b = SnapshotBuilder::new(REPO, BASE);
    b.files = vec![
        file(LIB, "lib-1", Some("crates/core")),
        file(RENDER, "render-1", Some("crates/core")),
        file(UTIL, "util-1", Some("crates/core")),
        file(MAIN, "main-1", Some("crates/app")),
        file(REPORT, "report-1", Some("crates/app")),
        file(CMD, "cmd-1", Some("crates/cli")),
        file(TESTS, "tests-1", Some("crates/core")),
        file(CHANGELOG, "changelog-1", None),
        file("docs/guide.md", "guide-1", None),
    ];
    b.symbols = vec![
        func(REPO, "parse", "parse", LIB, 3)
            .sig("pub fn parse(input: &str) -> Doc", 1)
            .module("crates/core"),
        func(REPO, "tokenize", "tokenize", LIB, 10)
            .sig("pub fn tokenize(input: &str) -> Vec<Token>", 1)
            .module("crates/core"),
        func(REPO, "helper", "helper", LIB, 20)
            .vis("private")
            .sig("fn helper(t: &Token) -> bool", 1)
            .module("crates/core"),
        func(REPO, "legacy", "legacy", LIB, 30)
            .sig("pub fn legacy()", 0)
            .module("crates/core"),
        func(REPO, "Options", "Options", LIB, 40)
            .kind("struct")
            .sig("pub struct Options", 0)
            .module("crates/core"),
        func(REPO, "render", "render", RENDER, 5)
            .sig("pub fn render(doc: &Doc, out: &mut String)", 2)
            .module("crates/core"),
        func(REPO, "old_util", "old_util", UTIL, 1)
            .vis("private")
            .sig("fn old_util()", 0)
            .module("crates/core"),
        func(REPO, "main", "main", MAIN, 1)
            .vis("private")
            .sig("fn main()", 0)
            .module("crates/app"),
        func(REPO, "report", "report", REPORT, 1)
            .vis("private")
            .sig("fn report()", 0)
            .module("crates/app"),
        func(REPO, "run", "run", CMD, 1)
            .sig("pub fn run()", 0)
            .module("crates/cli"),
        func(REPO, "test_parse", "test_parse", TESTS, 3)
            .vis("private")
            .sig("fn test_parse()", 0)
            .module("crates/core"),
        func(REPO, "test_render", "test_render", TESTS, 9)
            .vis("private")
            .sig("fn test_render()", 0)
            .module("crates/core"),
    ];
    b.call_edges = vec![
        call(&id("main"), &id("parse"), "parse", 1),
        call(&id("main"), &id("render"), "render", 2),
        call(&id("main"), &id("legacy"), "legacy", 1),
        call(&id("report"), &id("tokenize"), "tokenize", 3),
        call(&id("run"), &id("main"), "main", 1),
        call(&id("run"), &id("render"), "render", 1),
        call(&id("parse"), &id("helper"), "helper", 1),
        call(&id("parse"), &id("tokenize"), "tokenize", 1),
        call(&id("test_parse"), &id("parse"), "parse", 1),
        call(&id("test_render"), &id("render"), "render", 1),
    ];
    b.occurrences = vec![
        reference(&id("parse"), "parse", MAIN, 2, Some(&id("main"))),
        reference(&id("render"), "render", MAIN, 3, Some(&id("main"))),
        reference(&id("render"), "render", MAIN, 4, Some(&id("main"))),
        reference(&id("legacy"), "legacy", MAIN, 5, Some(&id("main"))),
        reference(&id("tokenize"), "tokenize", REPORT, 2, Some(&id("report"))),
        reference(&id("render"), "render", CMD, 2, Some(&id("run"))),
        reference(&id("parse"), "parse", TESTS, 4, Some(&id("test_parse"))),
        reference(&id("render"), "render", TESTS, 10, Some(&id("test_render"))),
    ];
    b.commits = vec![
        commit(ROOT, &[], 1_700_000_000),
        commit(BASE, &[ROOT], 1_700_100_000),
    ];
    b.cochange = vec![
        cochange(RENDER, CHANGELOG, 4, 5, 6),
        cochange(LIB, MAIN, 3, 5, 4),
        cochange(LIB, "crates/core/README.md", 2, 8, 6),
    ];
    b
}

/// The head snapshot: `tokenize` renamed to `lex`, `legacy` deleted, `render` takes a third
/// parameter, `helper`'s body changed, `Options` no longer public, `old_util` moved to misc.rs,
/// a new public `parse_all` that `main` now calls, docs/guide.md renamed.
fn head() -> SnapshotBuilder {
    let b = base();
    let mut h = SnapshotBuilder::new(REPO, HEAD);
    h.files = vec![
        file(LIB, "lib-2", Some("crates/core")),
        file(RENDER, "render-2", Some("crates/core")),
        file(MISC, "misc-1", Some("crates/core")),
        file(MAIN, "main-2", Some("crates/app")),
        file(REPORT, "report-1", Some("crates/app")),
        file(CMD, "cmd-1", Some("crates/cli")),
        file(TESTS, "tests-1", Some("crates/core")),
        file(CHANGELOG, "changelog-1", None),
        file("docs/manual.md", "guide-1", None),
    ];
    let keep = [
        "parse",
        "main",
        "report",
        "run",
        "test_parse",
        "test_render",
    ];
    h.symbols = b
        .symbols
        .iter()
        .filter(|s| keep.iter().any(|k| s.stable_id == id(k)))
        .cloned()
        .collect();
    h.symbols.extend([
        func(REPO, "lex", "lex", LIB, 10)
            .sig("pub fn lex(input: &str) -> Vec<Token>", 1)
            .body("body:tokenize")
            .module("crates/core"),
        func(REPO, "helper", "helper", LIB, 20)
            .vis("private")
            .sig("fn helper(t: &Token) -> bool", 1)
            .body("body:helper-v2")
            .module("crates/core"),
        func(REPO, "Options", "Options", LIB, 40)
            .kind("struct")
            .vis("internal")
            .sig("pub(crate) struct Options", 0)
            .module("crates/core"),
        func(REPO, "parse_all", "parse_all", LIB, 50)
            .sig("pub fn parse_all(inputs: &[&str]) -> Vec<Doc>", 1)
            .module("crates/core"),
        func(REPO, "render", "render", RENDER, 5)
            .sig(
                "pub fn render(doc: &Doc, out: &mut String, opts: &Options)",
                3,
            )
            .body("body:render-v2")
            .module("crates/core"),
        func(REPO, "old_util2", "old_util", MISC, 1)
            .vis("private")
            .sig("fn old_util()", 0)
            .body("body:old_util")
            .module("crates/core"),
    ]);
    h.call_edges = vec![
        call(&id("main"), &id("parse"), "parse", 1),
        call(&id("main"), &id("render"), "render", 2),
        call(&id("main"), &id("parse_all"), "parse_all", 1),
        call(&id("report"), &id("lex"), "lex", 3),
        call(&id("run"), &id("main"), "main", 1),
        call(&id("run"), &id("render"), "render", 1),
        call(&id("parse"), &id("helper"), "helper", 1),
        call(&id("parse"), &id("lex"), "lex", 1),
        call(&id("test_parse"), &id("parse"), "parse", 1),
        call(&id("test_render"), &id("render"), "render", 1),
    ];
    h.aliases = vec![
        alias(&id("tokenize"), &id("lex"), "renamed", 0.95, HEAD),
        alias(&id("old_util"), &id("old_util2"), "moved", 0.95, HEAD),
        // Carried forward from older history: never consulted for IDs the base does not have.
        alias(&id("ancient"), &id("parse"), "renamed", 0.9, ROOT),
    ];
    h.tombstones = vec![tombstone(&id("legacy"), "legacy", LIB, HEAD)];
    h.commits = vec![
        commit(ROOT, &[], 1_700_000_000),
        commit(BASE, &[ROOT], 1_700_100_000),
        commit(MID, &[BASE], 1_700_150_000),
        commit(HEAD, &[MID], 1_700_200_000),
    ];
    h
}

fn golden_dir() -> PathBuf {
    Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR"))
        .join("tests/golden/diff")
}

/// Compares with (or, with CKB_UPDATE_GOLDEN=1, rewrites) a golden file.
fn golden(name: &str, actual: &str) {
    test_support::assert_golden(&golden_dir().join(name), actual);
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn diff_out(dir: &Path, args: &[&str]) -> std::process::Output {
    let mut all = vec!["diff"];
    all.extend_from_slice(args);
    ckb(dir, &all)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn write_pair(
    base: SnapshotBuilder,
    head: SnapshotBuilder,
) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let store = tempfile::tempdir().unwrap();
    let b = base.write(store.path());
    let h = head.write(store.path());
    (store, b, h)
}

/// Replaces the temporary store path so JSON goldens do not depend on it.
fn scrub(text: &str, store: &Path) -> String {
    text.replace(s(store), "<STORE>")
}

#[test]
fn scripted_pr_markdown_and_json_match_the_goldens() {
    let (store, b, h) = write_pair(base(), head());
    let md = ckb_ok(store.path(), &["diff", s(&b), s(&h)]);
    golden("pr.md", &md);
    let js = ckb_ok(store.path(), &["diff", s(&b), s(&h), "--format", "json"]);
    golden("pr.json", &scrub(&js, store.path()));
    // Byte-deterministic.
    assert_eq!(
        js,
        ckb_ok(store.path(), &["diff", s(&b), s(&h), "--format", "json"])
    );
    assert_eq!(md, ckb_ok(store.path(), &["diff", s(&b), s(&h)]));
}

#[test]
fn scripted_pr_facts() {
    let (store, b, h) = write_pair(base(), head());
    let v = json(&ckb_ok(
        store.path(),
        &["diff", s(&b), s(&h), "--format", "json"],
    ));
    assert_eq!(v["command"], "diff");
    let f = &v["facts"];
    assert_eq!(f["ancestry"]["relation"], "ancestor");
    assert_eq!(f["ancestry"]["commitsBetween"], 2);

    // Files, by content hash; docs/guide.md → docs/manual.md is a rename.
    let paths = |k: &str| -> Vec<String> {
        f["files"][k]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["path"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(paths("added"), [MISC]);
    assert_eq!(paths("removed"), [UTIL]);
    assert_eq!(paths("modified"), [MAIN, LIB, RENDER]);
    assert_eq!(f["files"]["renamed"][0]["to"], "docs/manual.md");

    // The rename is a rename, not a delete + add; the move too.
    let sy = &f["symbols"];
    let renamed = sy["renamed"].as_array().unwrap();
    assert_eq!(renamed.len(), 2);
    let tok = renamed
        .iter()
        .find(|r| r["from"]["name"] == "tokenize")
        .unwrap();
    assert_eq!(tok["to"]["name"], "lex");
    assert_eq!(tok["change"], "renamed");
    assert_eq!(tok["signatureChanged"], false);
    let moved = renamed
        .iter()
        .find(|r| r["from"]["name"] == "old_util")
        .unwrap();
    assert_eq!(moved["change"], "moved");
    let names = |k: &str, inner: bool| -> Vec<String> {
        sy[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                let x = if inner { &x["symbol"] } else { x };
                x["name"].as_str().unwrap().to_string()
            })
            .collect()
    };
    assert_eq!(names("removed", true), ["legacy"]);
    assert_eq!(sy["removed"][0]["resolution"], "tombstone");
    assert_eq!(names("added", false), ["parse_all"]);
    assert_eq!(names("signatureChanged", true), ["Options", "render"]);
    assert_eq!(names("bodyChanged", false), ["helper"]);
    assert_eq!(sy["visibilityChanged"][0]["direction"], "narrowed");

    // compareAPI.
    let breaking = &f["api"]["breaking"];
    let changes = test_support::json::texts(breaking, &["kind", "severity", "symbol.name"]);
    for change in [
        "removed high legacy",
        "renamed high tokenize",
        "signature-changed high render",
        "visibility-narrowed high Options",
    ] {
        assert!(changes.iter().any(|c| c == change), "{change}: {changes:?}");
    }
    let names = test_support::json::strs(breaking, "symbol.name");
    assert!(
        !names.iter().any(|n| *n == "old_util" || *n == "helper"),
        "private symbols are not API: {changes:?}"
    );
    // render has the most dependents, so it leads among the high-severity changes.
    assert_eq!(f["api"]["breaking"][0]["symbol"]["name"], "render");
    assert_eq!(f["api"]["breaking"][0]["callers"], 3);
    assert_eq!(f["api"]["nonBreaking"][0]["kind"], "added");

    // New caller.
    let added_calls = f["calls"]["added"].as_array().unwrap();
    assert_eq!(added_calls.len(), 1, "{added_calls:?}");
    assert_eq!(added_calls[0]["callee"]["name"], "parse_all");
    assert_eq!(added_calls[0]["caller"]["name"], "main");
    // The rename changes no call edge; the deleted function's call is gone.
    let removed_calls = f["calls"]["removed"].as_array().unwrap();
    assert_eq!(removed_calls.len(), 1);
    assert_eq!(removed_calls[0]["callee"]["name"], "legacy");

    // Impact from the base: report.rs (untouched) calls tokenize; cmd.rs (untouched) calls render;
    // test_render reaches render directly, test_parse reaches tokenize through parse.
    let im = &f["impact"];
    let tests = test_support::json::strs(&im["tests"], "path");
    assert_eq!(tests, [TESTS]);
    assert_eq!(im["tests"][0]["depth"], 1);
    let untouched: Vec<String> = im["changed"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["callers"].as_array().unwrap().iter())
        .filter(|c| c["touched"] == false && !c["isTest"].as_bool().unwrap())
        .map(|c| c["path"].as_str().unwrap().to_string())
        .collect();
    assert!(untouched.contains(&REPORT.to_string()) && untouched.contains(&CMD.to_string()));
    let modules = test_support::json::strs(&im["modules"], "moduleId");
    assert_eq!(modules.len(), 3, "{modules:?}");
    assert_eq!(modules[0], "crates/core");
    // CHANGELOG usually changes with render.rs and was not touched; main.rs was.
    assert_eq!(im["cochange"].as_array().unwrap().len(), 1);
    assert_eq!(im["cochange"][0]["path"], CHANGELOG);
    assert_eq!(im["cochange"][0]["changedWith"], RENDER);
    assert_eq!(f["risk"]["level"], "high");
    assert_eq!(f["completeness"]["score"], 1);
    assert!(f["warnings"].as_array().unwrap().is_empty());
}

#[test]
fn markdown_always_fits_the_budget_and_keeps_the_most_important_first() {
    let (store, b, h) = write_pair(base(), head());
    let full = ckb_ok(store.path(), &["diff", s(&b), s(&h)]);
    let full_len = full.chars().count();
    assert!(!full.contains("Truncated"));
    // Find the smallest budget that renders.
    let mut min = None;
    for n in (100..full_len).step_by(7) {
        let out = diff_out(store.path(), &[s(&b), s(&h), "--max-chars", &n.to_string()]);
        if out.status.success() {
            min = Some(n);
            break;
        }
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1));
        assert!(err.contains("BUDGET_EXCEEDED"), "{err}");
    }
    let min = min.expect("some budget below the full size renders");
    let mut last_shown = 0;
    for n in (min..full_len + 50).step_by(97) {
        let md = ckb_ok(
            store.path(),
            &["diff", s(&b), s(&h), "--max-chars", &n.to_string()],
        );
        let len = md.chars().count();
        assert!(len <= n, "{len} > {n}");
        assert!(md.starts_with("<!-- ckb:diff -->\n"));
        assert!(md.contains("**Risk: high**"));
        if n < full_len {
            assert!(md.contains("**Truncated** to fit"), "{md}");
            // Sections appear in priority order: breaking API first when anything is shown.
            if let (Some(a), Some(c)) = (
                md.find("Breaking API changes"),
                md.find("<summary><b>Files"),
            ) {
                assert!(a < c);
            }
            // The first section only grows with the budget (later ones may shrink when an earlier
            // one takes the room: importance wins over item count).
            let rows = md
                .lines()
                .filter(|l| l.starts_with("| high") || l.starts_with("| medium"))
                .count();
            assert!(
                rows >= last_shown,
                "more room never shows fewer breaking changes"
            );
            last_shown = rows;
        } else {
            assert_eq!(md, full);
        }
    }
    // A budget that holds the header but little else keeps the breaking changes first.
    let md = ckb_ok(
        store.path(),
        &[
            "diff",
            s(&b),
            s(&h),
            "--max-chars",
            &(min + 700).to_string(),
        ],
    );
    assert!(md.contains("Breaking API changes"), "{md}");
    golden(
        "pr-truncated-1800.md",
        &ckb_ok(store.path(), &["diff", s(&b), s(&h), "--max-chars", "1800"]),
    );
}

#[test]
fn too_small_budgets_and_bad_flags_are_errors() {
    let (store, b, h) = write_pair(base(), head());
    let out = diff_out(store.path(), &[s(&b), s(&h), "--max-chars", "50"]);
    test_support::assert_fails_mentioning(&out, &["BUDGET_EXCEEDED", "--max-chars"]);
    assert!(out.stdout.is_empty());
    // JSON is never truncated, so the budget does not apply.
    let out = diff_out(
        store.path(),
        &[s(&b), s(&h), "--max-chars", "50", "--format", "json"],
    );
    assert_eq!(out.status.code(), Some(0));
    for bad in [
        ["--max-chars", "-1"],
        ["--max-chars", "lots"],
        ["--format", "html"],
    ] {
        let out = diff_out(store.path(), &[s(&b), s(&h), bad[0], bad[1]]);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
    }
    let out = diff_out(
        store.path(),
        &[s(&b), "/nonexistent/snapshot", "--format", "json"],
    );
    error_answer(&out, "SNAPSHOT_NOT_FOUND");
}

#[test]
fn snapshots_of_different_repositories_are_a_mismatch() {
    let store = tempfile::tempdir().unwrap();
    let b = base().write(store.path());
    let mut other = head();
    other.repo_id = "other".into();
    let h = other.write(store.path());
    let out = diff_out(store.path(), &[s(&b), s(&h), "--format", "json"]);
    let v = error_answer(&out, "SNAPSHOT_MISMATCH");
    assert_error_says(&v, "message", "different repositories");
    // Markdown errors go to stderr, stdout stays empty (nothing to post).
    let out = diff_out(store.path(), &[s(&b), s(&h)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("SNAPSHOT_MISMATCH"));

    let mut anon = head();
    anon.privacy = "anonymized".into();
    let (store, b, h) = write_pair(base(), anon);
    let v = json(&String::from_utf8_lossy(
        &diff_out(store.path(), &[s(&b), s(&h), "--format", "json"]).stdout,
    ));
    assert_eq!(v["error"]["code"], "SNAPSHOT_MISMATCH");
}

#[test]
fn a_base_newer_than_the_head_is_refused_and_diverged_history_warns() {
    // Swapped arguments: the base's history shows the head is its ancestor.
    let (store, b, h) = write_pair(base(), head());
    let out = diff_out(store.path(), &[s(&h), s(&b), "--format", "json"]);
    let v = error_answer(&out, "SNAPSHOT_MISMATCH");
    assert_error_says(&v, "message", "newer than the head");
    assert_error_says(&v, "remediation", "swap");

    // Diverged: the base is a sibling commit inside the head's history window.
    let mut sibling = base();
    sibling.commit = "3333333333333333333333333333333333333333".into();
    sibling.commits = vec![
        commit(ROOT, &[], 1_700_000_000),
        commit(BASE, &[ROOT], 1_700_100_000),
        commit(&sibling.commit.clone(), &[BASE], 1_700_160_000),
    ];
    let (store, b, h) = write_pair(sibling, head());
    let v = json(&ckb_ok(
        store.path(),
        &["diff", s(&b), s(&h), "--format", "json"],
    ));
    assert_eq!(v["facts"]["ancestry"]["relation"], "diverged");
    assert!(v["provenance"]["warnings"][0]
        .as_str()
        .unwrap()
        .contains("not an ancestor"));
    let md = ckb_ok(store.path(), &["diff", s(&b), s(&h)]);
    assert!(
        md.contains("> ⚠️ the base commit is not an ancestor"),
        "{md}"
    );

    // Without commits tables nothing can be decided: a warning, not an error.
    let (store, b, h) = write_pair(base().without("commits"), head().without("commits"));
    let v = json(&ckb_ok(
        store.path(),
        &["diff", s(&b), s(&h), "--format", "json"],
    ));
    assert_eq!(v["facts"]["ancestry"]["relation"], "unknown");
    assert!(v["facts"]["completeness"]["score"].as_f64().unwrap() < 1.0);
}

#[test]
fn missing_tables_degrade_with_stated_completeness() {
    let (store, b, h) = write_pair(
        base()
            .without("call_edges")
            .without("occurrences")
            .without("cochange"),
        head().without("aliases"),
    );
    let js = ckb_ok(store.path(), &["diff", s(&b), s(&h), "--format", "json"]);
    golden("missing-tables.json", &scrub(&js, store.path()));
    let v = json(&js);
    let f = &v["facts"];
    assert_eq!(f["completeness"]["reason"], "missing-tables");
    assert_eq!(f["completeness"]["score"], 0.6);
    let missing: Vec<String> = f["completeness"]["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            format!(
                "{}.{}",
                m["snapshot"].as_str().unwrap(),
                m["table"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        missing,
        [
            "base.call_edges",
            "base.cochange",
            "base.occurrences",
            "head.aliases"
        ]
    );
    assert_eq!(v["provenance"]["completeness"]["score"], 0.6);
    // Without aliases, the unique body hash still pairs tokenize → lex.
    let renamed = f["symbols"]["renamed"].as_array().unwrap();
    assert!(renamed
        .iter()
        .any(|r| r["from"]["name"] == "tokenize" && r["source"] == "body-match"));
    // No call graph: no dependents, but the API changes stand.
    assert_eq!(f["impact"]["callers"], 0);
    assert!(!f["api"]["breaking"].as_array().unwrap().is_empty());
    let md = ckb_ok(store.path(), &["diff", s(&b), s(&h)]);
    golden("missing-tables.md", &md);
    assert!(md.contains(
        "> ⚠️ base snapshot lacks call_edges, cochange, occurrences (not-written): callers, tests, removed calls, co-change partners, references incomplete\n"
    ), "{md}");
    assert!(md.contains("> ⚠️ head snapshot lacks aliases (not-written): renames incomplete\n"));

    // No symbols anywhere (a files-only snapshot): files still compare.
    let (store, b, h) = write_pair(base().without("symbols"), head());
    let v = json(&ckb_ok(
        store.path(),
        &["diff", s(&b), s(&h), "--format", "json"],
    ));
    assert_eq!(v["facts"]["symbols"]["added"].as_array().unwrap().len(), 0);
    assert_eq!(v["facts"]["files"]["modified"].as_array().unwrap().len(), 3);

    // A table listed in the manifest whose file is damaged is missing too, not a crash.
    let (store, b, h) = write_pair(base(), head());
    std::fs::write(b.join("occurrences.parquet"), b"not parquet").unwrap();
    let v = json(&ckb_ok(
        store.path(),
        &["diff", s(&b), s(&h), "--format", "json"],
    ));
    let m = &v["facts"]["completeness"]["missing"][0];
    assert_eq!(m["table"], "occurrences");
    assert!(m["reason"].as_str().unwrap().starts_with("unreadable"));
}

#[test]
fn schema_versions_that_differ_warn_and_newer_ones_are_refused() {
    let mut old = base();
    old.schema_version = 0;
    let (store, b, h) = write_pair(old, head());
    let v = json(&ckb_ok(
        store.path(),
        &["diff", s(&b), s(&h), "--format", "json"],
    ));
    let w = v["facts"]["warnings"][0].as_str().unwrap();
    assert!(
        w.contains("different schema versions (base v0, head v1)"),
        "{w}"
    );
    assert_eq!(v["facts"]["base"]["schemaVersion"], 0);

    let mut newer = head();
    newer.schema_version = output_schema::SCHEMA_VERSION + 1;
    let (store, b, h) = write_pair(base(), newer);
    let out = diff_out(store.path(), &[s(&b), s(&h), "--format", "json"]);
    error_answer(&out, "SCHEMA_UNSUPPORTED");
}

#[test]
fn identical_snapshots_have_nothing_to_report() {
    let store = tempfile::tempdir().unwrap();
    let b = base().write(store.path());
    let v = json(&ckb_ok(
        store.path(),
        &["diff", s(&b), s(&b), "--format", "json"],
    ));
    let f = &v["facts"];
    assert_eq!(f["ancestry"]["relation"], "same-commit");
    assert_eq!(f["risk"]["level"], "low");
    assert_eq!(f["risk"]["score"], 0);
    assert_eq!(f["symbols"]["unchanged"], 12);
    let md = ckb_ok(store.path(), &["diff", s(&b), s(&b)]);
    assert!(md.contains("no changes between the snapshots"), "{md}");
    assert!(!md.contains("<details"));
}

/// Real snapshots of a scripted PR in a git fixture: file-level and symbol-level diff.
#[test]
fn end_to_end_over_real_snapshots_of_a_scripted_pr() {
    let repo = Fixture::git();
    repo.write(
        "src/lib.rs",
        "pub fn tokenize(input: &str) -> usize {\n    input.len()\n}\n\npub fn render(doc: usize) -> String {\n    format!(\"{doc}\")\n}\n\npub fn legacy() -> u8 {\n    7\n}\n",
    )
    .write(
        "src/main.rs",
        "fn main() {\n    let n = acme::tokenize(\"x\");\n    println!(\"{}\", acme::render(n));\n}\n",
    )
    .write(
        "src/report.rs",
        "pub fn report() -> usize {\n    crate::tokenize(\"abc\")\n}\n",
    )
    .write("Cargo.toml", "[package]\nname = \"acme\"\nversion = \"0.1.0\"\n");
    repo.commit("base");
    let store = tempfile::tempdir().unwrap();
    let b = snapshot(repo.path(), store.path(), &["--repo-id", "acme"]);
    repo.write(
        "src/lib.rs",
        "pub fn lex(input: &str) -> usize {\n    input.len()\n}\n\npub fn render(doc: usize, width: usize) -> String {\n    format!(\"{doc:width$}\")\n}\n",
    )
    .write(
        "src/main.rs",
        "fn main() {\n    let n = acme::lex(\"x\");\n    println!(\"{}\", acme::render(n, 4));\n    acme::shout();\n}\n",
    )
    .write("src/shout.rs", "pub fn shout() {\n    println!(\"!\");\n}\n");
    repo.commit("head: rename, signature change, deletion, new caller");
    let h = snapshot(
        repo.path(),
        store.path(),
        &["--repo-id", "acme", "--previous", s(&b)],
    );

    let v = json(&ckb_ok(
        repo.path(),
        &["diff", s(&b), s(&h), "--format", "json"],
    ));
    let f = &v["facts"];
    assert_eq!(f["ancestry"]["relation"], "ancestor");
    assert_eq!(f["ancestry"]["commitsBetween"], 1);
    assert_eq!(f["files"]["added"][0]["path"], "src/shout.rs");
    let modified = test_support::json::strs(&f["files"]["modified"], "path");
    assert_eq!(modified, ["src/lib.rs", "src/main.rs"]);
    let md = ckb_ok(repo.path(), &["diff", s(&b), s(&h)]);
    assert!(md.chars().count() <= queries::diff::DEFAULT_MAX_CHARS);

    let sy = &f["symbols"];
    let renamed = sy["renamed"].as_array().unwrap();
    assert!(
        renamed
            .iter()
            .any(|r| r["from"]["name"] == "tokenize" && r["to"]["name"] == "lex"),
        "rename reported as rename: {sy}"
    );
    assert!(sy["removed"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["symbol"]["name"] == "legacy"));
    assert!(sy["signatureChanged"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["symbol"]["name"] == "render"));
    assert!(f["calls"]["added"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["callee"]["name"] == "shout"));
    let kinds = test_support::json::strs(&f["api"]["breaking"], "kind");
    for k in ["removed", "renamed", "signature-changed"] {
        assert!(kinds.contains(&k), "{k} in {kinds:?}");
    }
    assert!(md.contains("Breaking API changes"));
    // report.rs is untouched and still calls the old name: the call site that breaks.
    let tokenize = f["impact"]["changed"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["symbol"]["name"] == "tokenize")
        .unwrap();
    assert!(tokenize["callers"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["path"] == "src/report.rs" && c["touched"] == false));
    assert!(
        md.contains("`report` in `src/report.rs` uses `tokenize` (renamed)"),
        "{md}"
    );
}

#[test]
fn the_impact_graph_is_drawn_dropped_before_must_reads_are_cut_and_left_out_by_no_graph() {
    let (store, b, h) = write_pair(base(), head());
    let md = ckb_ok(store.path(), &["diff", s(&b), s(&h)]);
    let start = md
        .find("\n<details open><summary><b>Impact graph")
        .expect("the graph section");
    let end = start + md[start..].find("</details>\n").unwrap() + "</details>\n".len();
    let section = &md[start..end];
    assert!(
        section.contains("```mermaid\n%% ckb diff impact"),
        "{section}"
    );
    // core's changes reach dependents in app and cli: two arrows, labelled with their counts.
    assert!(
        section.contains("n0[\"crates/core<br/>6 changed · 3 dependents\"]"),
        "{section}"
    );
    assert_eq!(section.matches(" -->|\"").count(), 2, "{section}");
    // The graph comes after the must-read sections, before the rest.
    assert!(md.find("Call sites that may break").unwrap() < start);
    assert!(start < md.find("Risk factors").unwrap());

    let without = ckb_ok(store.path(), &["diff", s(&b), s(&h), "--no-graph"]);
    assert_eq!(without, format!("{}{}", &md[..start], &md[end..]));

    // Under any budget, the graph shows only when both must-read sections are whole.
    let last_breaking = "| high | visibility-narrowed |";
    let last_call_site = "uses `tokenize` (renamed), 3 sites";
    let mut drawn_in_a_cut = false;
    for n in (1200..md.chars().count()).step_by(61) {
        let cut = ckb_ok(
            store.path(),
            &["diff", s(&b), s(&h), "--max-chars", &n.to_string()],
        );
        if cut.contains("```mermaid") {
            assert!(
                cut.contains(last_breaking) && cut.contains(last_call_site),
                "the graph took room a must-read section needed at --max-chars {n}:\n{cut}"
            );
            drawn_in_a_cut = true;
        }
    }
    assert!(
        drawn_in_a_cut,
        "some cut budget still has room for the graph"
    );
}
