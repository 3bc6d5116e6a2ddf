//! `ckb query` bad input end to end: every error code a query can return, with its exit code,
//! remediation and JSON shape; usage errors; `doctor --fix` printing (never running) a script.

mod common;
#[path = "../queries/tests/fixture/mod.rs"]
mod fixture;

use std::collections::BTreeSet;
use std::path::Path;

use common::*;
use fixture::sid;
use serde_json::Value;

fn json(out: &[u8]) -> Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(out)))
}

/// Runs a query against the fixture snapshot; returns (exit code, stdout JSON).
fn query(root: &Path, args: &[&str]) -> (Option<i32>, Value) {
    let snap = fixture::snapshot_rel();
    let mut all = vec!["query", "--snapshot", snap.as_str(), "--format", "json"];
    all.extend_from_slice(args);
    let out = ckb(root, &all);
    (out.status.code(), json(&out.stdout))
}

fn error_of(root: &Path, args: &[&str]) -> Value {
    let (code, v) = query(root, args);
    assert_eq!(code, Some(1), "{args:?}: {v}");
    let e = v["error"].clone();
    assert!(e["message"].as_str().is_some_and(|m| !m.is_empty()), "{e}");
    assert!(
        e["remediation"].as_str().is_some_and(|m| !m.is_empty()),
        "{e}"
    );
    e
}

#[test]
fn every_query_error_code_is_reachable_with_a_remediation() {
    let root = fixture::built(&fixture::Options::default());
    let r = root.path();
    let p = sid(2);
    let (deleted, cycle, deep) = (sid(122), sid(110), sid(101));
    let many: Vec<String> = (1..=51).map(sid).collect();
    let mut batch = vec!["batch-get"];
    batch.extend(many.iter().map(String::as_str));
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["symbol", "nothing_has_this_name"], "SYMBOL_NOT_FOUND"),
        (
            vec!["symbol", "ckb:other:sym:00000000000000000002"],
            "SYMBOL_NOT_FOUND",
        ),
        (vec!["symbol", "ckb:fx:sym:12"], "INVALID_PARAMETER"),
        (vec!["refs", &p, "--limit", "abc"], "INVALID_PARAMETER"),
        (vec!["refs", &p, "--limit", "-3"], "INVALID_PARAMETER"),
        (
            vec!["search", "parse", "--limit", "1001"],
            "INVALID_PARAMETER",
        ),
        (vec!["--max-modules", "0", "arch"], "INVALID_PARAMETER"),
        (
            vec!["--max-tokens", "10", "symbol", &p],
            "INVALID_PARAMETER",
        ),
        (vec!["impact", &p, "--depth", "99"], "INVALID_PARAMETER"),
        (
            vec!["prepare-change", &p, "--change-type", "explode"],
            "INVALID_PARAMETER",
        ),
        (vec!["hotspots", "--window", "7d"], "INVALID_PARAMETER"),
        (vec!["coupling", "../outside.rs"], "INVALID_PARAMETER"),
        (batch, "INVALID_PARAMETER"),
        (vec!["symbol", &deleted], "SYMBOL_DELETED"),
        (vec!["symbol", &cycle], "ALIAS_CYCLE"),
        (vec!["symbol", &deep], "ALIAS_CHAIN_TOO_DEEP"),
        (vec!["refs", "parse"], "AMBIGUOUS_QUERY"),
        (vec!["explore", "no/such/file.rs"], "PATH_NOT_FOUND"),
        (vec!["--max-tokens", "500", "impact", &p], "BUDGET_EXCEEDED"),
    ];
    let mut seen = BTreeSet::new();
    for (args, want) in &cases {
        let e = error_of(r, args);
        assert_eq!(e["code"], *want, "{args:?}: {e}");
        seen.insert(want.to_string());
    }
    // Details that make errors actionable.
    let e = error_of(r, &["symbol", &sid(122)]);
    assert_eq!(e["details"]["deletedInCommit"], fixture::HEAD);
    // Three definitions named `parse` (the parameter of that name does not count), ranked as
    // search ranks them: the public method first, the test helper last.
    let e = error_of(r, &["refs", "parse"]);
    let matches = e["details"]["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 3);
    assert_eq!(matches[2]["path"], "crates/core/tests/parser_test.rs");
    assert_eq!(
        e["drilldowns"][0]["command"],
        format!("ckb query symbol {p}")
    );
    let e = error_of(r, &["symbol", "ckb:other:sym:00000000000000000002"]);
    assert!(e["remediation"]
        .as_str()
        .unwrap()
        .contains("snapshot of other"));

    // Snapshot-level errors.
    let empty = tempfile::tempdir().unwrap();
    let out = ckb(empty.path(), &["query", "--format", "json", "symbol", &p]);
    assert_eq!(out.status.code(), Some(1));
    let e = json(&out.stdout)["error"].clone();
    assert_eq!(e["code"], "SNAPSHOT_NOT_FOUND");
    assert!(
        e["remediation"].as_str().unwrap().contains("ckb snapshot"),
        "{e}"
    );
    seen.insert("SNAPSHOT_NOT_FOUND".into());

    let bad = tempfile::tempdir().unwrap();
    let dir = fixture::build(bad.path(), &fixture::Options::default());
    std::fs::write(dir.join("occurrences.parquet"), b"PAR1 not really").unwrap();
    let e = error_of(bad.path(), &["refs", &p]);
    assert_eq!(e["code"], "SNAPSHOT_CORRUPT");
    assert!(
        e["message"].as_str().unwrap().contains("table occurrences"),
        "{e}"
    );
    seen.insert("SNAPSHOT_CORRUPT".into());

    let mut m = manifest(&dir);
    m.schema_version = output_schema::SCHEMA_VERSION + 1;
    std::fs::write(dir.join("manifest.json.zst"), m.encode().unwrap()).unwrap();
    let e = error_of(bad.path(), &["symbol", &p]);
    assert_eq!(e["code"], "SCHEMA_UNSUPPORTED");
    seen.insert("SCHEMA_UNSUPPORTED".into());

    // Budgets in the repository's config are checked too.
    let cfg = tempfile::tempdir().unwrap();
    fixture::build(cfg.path(), &fixture::Options::default());
    std::fs::create_dir_all(cfg.path().join(".ckb")).unwrap();
    std::fs::write(
        cfg.path().join(".ckb/config.json"),
        r#"{"budgets": {"modules": 0}}"#,
    )
    .unwrap();
    let e = error_of(cfg.path(), &["arch"]);
    assert_eq!(e["code"], "CONFIG_INVALID");
    assert!(
        e["message"].as_str().unwrap().contains("budgets.modules"),
        "{e}"
    );
    seen.insert("CONFIG_INVALID".into());

    for code in [
        "SYMBOL_NOT_FOUND",
        "INVALID_PARAMETER",
        "SYMBOL_DELETED",
        "ALIAS_CYCLE",
        "ALIAS_CHAIN_TOO_DEEP",
        "AMBIGUOUS_QUERY",
        "SCHEMA_UNSUPPORTED",
        "SNAPSHOT_CORRUPT",
        "SNAPSHOT_NOT_FOUND",
        "BUDGET_EXCEEDED",
    ] {
        assert!(seen.contains(code), "{code} not exercised");
    }
}

#[test]
fn usage_errors_exit_2_and_human_errors_go_to_stderr() {
    let root = fixture::built(&fixture::Options::default());
    let snap = fixture::snapshot_rel();
    let out = ckb(root.path(), &["query", "--snapshot", &snap, "frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
    let out = ckb(root.path(), &["query", "--snapshot", &snap, "batch-get"]);
    assert_eq!(out.status.code(), Some(2));
    let out = ckb(
        root.path(),
        &[
            "query",
            "--snapshot",
            &snap,
            "--format",
            "human",
            "symbol",
            "parse",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("error[AMBIGUOUS_QUERY]: 3 symbols are named \"parse\""),
        "{err}"
    );
    test_support::assert_mentions(&err, &["  details:\n", "try: ckb query symbol"]);
}

#[test]
fn doctor_fix_prints_a_script_and_runs_nothing() {
    let root = fixture::built(&fixture::Options {
        stale_scip: true,
        ..fixture::Options::default()
    });
    let snap = fixture::snapshot_rel();
    let out = ckb(
        root.path(),
        &["query", "--snapshot", &snap, "doctor", "--fix"],
    );
    assert_eq!(out.status.code(), Some(0));
    let script = String::from_utf8(out.stdout).unwrap();
    assert!(script.starts_with("#!/bin/sh\n"), "{script}");
    assert!(
        script.contains("\nckb index --languages rust,typescript\nckb snapshot --force\n"),
        "{script}"
    );
    // It is a valid shell script …
    let path = root.path().join("fix.sh");
    std::fs::write(&path, &script).unwrap();
    let check = std::process::Command::new("sh")
        .arg("-n")
        .arg(&path)
        .status()
        .unwrap();
    assert!(check.success());
    // … and printing it changed nothing: the snapshot is as it was.
    let before = files_of(&root.path().join(&snap));
    ckb(
        root.path(),
        &["query", "--snapshot", &snap, "doctor", "--fix"],
    );
    assert_eq!(before, files_of(&root.path().join(&snap)));
    assert!(!root.path().join("index.scip").exists());

    // The JSON answer lists the same checks.
    let (code, v) = query(root.path(), &["doctor"]);
    assert_eq!(code, Some(0));
    let scip = doctor_check(&v, "scip");
    assert_eq!(scip["status"], "warn");
    assert!(scip["message"].as_str().unwrap().starts_with("INDEX_STALE"));
}

#[test]
fn token_budget_trims_lists_and_keeps_valid_json() {
    let root = fixture::built(&fixture::Options::default());
    let (code, full) = query(root.path(), &["search", "e"]);
    assert_eq!(code, Some(0));
    let (code, small) = query(root.path(), &["--max-tokens", "800", "search", "e"]);
    assert_eq!(code, Some(0));
    assert!(small["compression"]["estimatedTokens"].as_u64().unwrap() <= 800);
    assert!(
        small["facts"]["results"].as_array().unwrap().len()
            < full["facts"]["results"].as_array().unwrap().len()
    );
    assert!(small["provenance"]["truncations"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["budget"] == "max-tokens"));
    assert_eq!(
        small["drilldowns"][0]["command"],
        "ckb query search e --max-tokens 1600"
    );
    // Drilldowns are capped too.
    let (_, d) = query(
        root.path(),
        &["--max-drilldowns", "1", "search", "parse", "--limit", "1"],
    );
    assert_eq!(d["drilldowns"].as_array().unwrap().len(), 1);
    assert_eq!(
        d["drilldowns"][0]["command"],
        "ckb query search parse --limit 2"
    );
}

/// A bug is still an answer: a panic prints `INTERNAL_ERROR` in the error envelope (JSON on
/// stdout with `--format json` or `--json`, a human line on stderr otherwise) and exits 1, not
/// Rust's 101 with a backtrace.
#[test]
fn a_panic_is_an_internal_error_in_the_envelope_with_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["query", "--format", "json", "status"][..],
        &["query", "--format=json", "status"][..],
        &["snapshot", "--json", "."][..],
    ] {
        let out = ckb_env(dir.path(), args, &[("CKB_FAILPOINT", Path::new("panic"))]);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let v = json(&out.stdout);
        assert_eq!(v["error"]["code"], "INTERNAL_ERROR", "{args:?}: {v}");
        let message = v["error"]["message"].as_str().unwrap();
        test_support::assert_mentions(message, &[env!("CARGO_PKG_VERSION"), "failpoint"]);
        assert_error_says(&v, "remediation", "report");
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("panicked at"),
            "Rust's own panic message leaked: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = ckb_env(
        dir.path(),
        &["query", "status"],
        &[("CKB_FAILPOINT", Path::new("panic"))],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error[INTERNAL_ERROR]: ckb "),
        "{stderr}"
    );
    assert!(stderr.contains("  fix: this is a bug in ckb"), "{stderr}");
}

/// A panic on a worker thread of the snapshot's thread pool (not the main thread) is the same
/// answer: the envelope on stdout, exit 1, and nothing in the store — no snapshot, no temporary
/// folder.
#[test]
fn a_panic_on_a_worker_thread_is_an_internal_error_and_the_store_stays_empty() {
    let repo = tempfile::tempdir().unwrap();
    std::fs::write(repo.path().join("a.rs"), "fn a() {}\n").unwrap();
    let store = tempfile::tempdir().unwrap();
    let out = ckb_env(
        repo.path(),
        &[
            "snapshot",
            "--json",
            "--out",
            &store.path().to_string_lossy(),
            ".",
        ],
        &[("CKB_FAILPOINT", Path::new("panic-in-worker"))],
    );
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out.stdout);
    assert_eq!(v["error"]["code"], "INTERNAL_ERROR", "{v}");
    let message = v["error"]["message"].as_str().unwrap();
    // The pool's workers are unnamed: not the main thread.
    assert!(
        message.contains("failpoint on None") && message.contains(env!("CARGO_PKG_VERSION")),
        "{message}"
    );
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("panicked at"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_dir(store.path()).unwrap().count(), 0);
}
