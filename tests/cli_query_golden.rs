//! Golden answers of `ckb query` over the hand-written fixture snapshot
//! (`queries/tests/fixture/mod.rs`), compared byte for byte with `tests/golden/query/*`.
//!
//! The snapshot is passed as a relative `--snapshot` path from a temporary folder outside any
//! repository, so provenance (snapshot path, freshness `unknown`) and token estimates are the same
//! on every machine.
//!
//! Regenerate with `CKB_UPDATE_GOLDEN=1 cargo test -p ckb --test cli_query_golden`, then review
//! every changed file with `git diff tests/golden/query` before committing: a golden file is a
//! reviewed statement of what the answer must be, never just the latest output.

mod common;
#[path = "../queries/tests/fixture/mod.rs"]
mod fixture;

use std::path::{Path, PathBuf};

use fixture::sid;

fn golden_dir() -> PathBuf {
    Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR"))
        .join("tests/golden/query")
}

struct Case {
    name: &'static str,
    args: Vec<String>,
    exit: i32,
}

fn case(name: &'static str, args: &[&str], exit: i32) -> Case {
    Case {
        name,
        args: args.iter().map(|s| s.to_string()).collect(),
        exit,
    }
}

/// A case answered in JSON with exit code 0.
fn json_case(name: &'static str, args: &[&str]) -> Case {
    json_exit(name, args, 0)
}

/// A case answered in JSON with an error (exit code 1).
fn json_error(name: &'static str, args: &[&str]) -> Case {
    json_exit(name, args, 1)
}

fn json_exit(name: &'static str, args: &[&str], exit: i32) -> Case {
    let mut case = case(name, args, exit);
    case.args
        .splice(0..0, ["--format".to_string(), "json".to_string()]);
    case
}

fn cases() -> Vec<Case> {
    let p = sid(2);
    vec![
        json_case("symbol", &["symbol", &p]),
        json_case("symbol-redirected", &["symbol", &sid(102)]),
        case("symbol-human", &["--format", "human", "symbol", &p], 0),
        json_case("search", &["search", "parse"]),
        json_case("search-limit-2", &["search", "parse", "--limit", "2"]),
        case(
            "search-markdown",
            &[
                "--format", "markdown", "search", "render", "--kind", "function",
            ],
            0,
        ),
        json_case("refs", &["refs", &p]),
        json_case("refs-max-modules-1", &["--max-modules", "1", "refs", &p]),
        json_case("arch", &["arch", "--include-external"]),
        json_case("impact", &["impact", &p]),
        json_case("impact-trait", &["impact", &sid(7)]),
        json_case("explore-module", &["explore", "crates/core"]),
        json_case("understand", &["understand", "Parser::parse"]),
        json_case("understand-ambiguous", &["understand", "parse"]),
        json_case(
            "prepare-change-rename",
            &["prepare-change", &p, "--change-type", "rename"],
        ),
        json_case(
            "prepare-change-file",
            &[
                "prepare-change",
                "crates/core/src/util.rs",
                "--change-type",
                "delete",
            ],
        ),
        json_case("batch-get", &["batch-get", &p, &sid(122), "ckb:fx:sym:zz"]),
        json_case("batch-search", &["batch-search", "parse", "render"]),
        json_case("hotspots", &["hotspots"]),
        json_case("coupling", &["coupling", "crates/core/src/parser.rs"]),
        json_case("ownership", &["ownership", "crates/core/src/parser.rs"]),
        json_case("dead-code", &["dead-code"]),
        json_case(
            "affected-tests",
            &["affected-tests", "crates/core/src/parser.rs"],
        ),
        json_case("callers", &["callers", &p, "--depth", "3"]),
        json_case("callers-by-name", &["callers", "render"]),
        json_case("callees", &["callees", "run"]),
        json_case("hierarchy", &["hierarchy", "Parse"]),
        json_case("hierarchy-supertypes", &["hierarchy", &sid(8)]),
        json_case("doctor", &["doctor"]),
        case("doctor-fix", &["doctor", "--fix"], 0),
        json_error("error-ambiguous", &["symbol", "parse"]),
        json_error("error-deleted", &["symbol", &sid(120)]),
        json_error("error-cycle", &["refs", &sid(110)]),
        json_error("error-chain-too-deep", &["impact", &sid(101)]),
        json_error(
            "error-other-repo",
            &["symbol", "ckb:other:sym:00000000000000000002"],
        ),
        json_error("error-malformed-id", &["symbol", "ckb:fx:sym:nothex"]),
        json_error("error-not-found", &["symbol", &sid(999)]),
        json_error("error-limit", &["search", "parse", "--limit", "0"]),
        case("error-human", &["--format", "human", "symbol", "parse"], 1),
        case(
            "error-callers-ambiguous",
            &["--format", "json", "callers", "parse"],
            1,
        ),
        case(
            "error-depth",
            &["--format", "json", "callees", &p, "--depth", "11"],
            1,
        ),
    ]
}

fn run_case(root: &Path, c: &Case) -> String {
    let mut args: Vec<String> = vec!["query".into(), "--snapshot".into(), fixture::snapshot_rel()];
    args.extend(c.args.iter().cloned());
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = common::ckb(root, &refs);
    assert_eq!(
        out.status.code(),
        Some(c.exit),
        "{}: {}\n{}",
        c.name,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // Human errors go to stderr; everything else to stdout.
    let text = if c.exit != 0 && c.args.contains(&"human".to_string()) {
        out.stderr
    } else {
        out.stdout
    };
    String::from_utf8(text).unwrap()
}

fn extension(c: &Case) -> &'static str {
    if c.args.contains(&"human".to_string()) || c.args.contains(&"--fix".to_string()) {
        "txt"
    } else if c.args.contains(&"markdown".to_string()) {
        "md"
    } else {
        "json"
    }
}

#[test]
fn answers_match_the_reviewed_goldens() {
    let root = fixture::built(&fixture::Options::default());
    let dir = golden_dir();
    let mut mismatches = Vec::new();
    for c in cases() {
        let got = run_case(root.path(), &c);
        // Byte-deterministic: the same command gives the same bytes.
        assert_eq!(
            got,
            run_case(root.path(), &c),
            "{} is not deterministic",
            c.name
        );
        let file = dir.join(format!("{}.{}", c.name, extension(&c)));
        if let Err(m) = test_support::check_golden(&file, &got) {
            mismatches.push(format!("{}: {m}", c.name));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{}\n\nIf the change is intended: CKB_UPDATE_GOLDEN=1 cargo test -p ckb --test cli_query_golden, then review `git diff tests/golden/query`.",
        mismatches.join("\n\n")
    );
}

#[test]
fn every_golden_file_belongs_to_a_case() {
    let names: Vec<String> = cases()
        .iter()
        .map(|c| format!("{}.{}", c.name, extension(c)))
        .collect();
    let Ok(entries) = std::fs::read_dir(golden_dir()) else {
        return;
    };
    for e in entries.flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        assert!(
            names.contains(&n),
            "stale golden file {n}: remove it or add its case"
        );
    }
}
