//! SQL across a store of several snapshots: every canned query (`queries/sql/*.sql`) through ckb
//! (`ckb query canned`, `ckb query sql --file`) against golden results, the same files through the
//! stock `duckdb` CLI (PyPI `duckdb-cli`; `ci/install-tools.sh` installs it), and the read-only
//! lockdown in store mode.
//!
//! Goldens: `tests/golden/sql/<name>.csv`, regenerated with `CKB_UPDATE_GOLDEN=1 cargo test -p ckb
//! --test cli_sql` and reviewed by hand before committing.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::fixture_snapshot::*;
use common::*;
use serde_json::Value;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn repo_root() -> PathBuf {
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR"))
}

fn canned_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(repo_root().join("queries/sql"))
        .unwrap()
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".sql")
                .map(String::from)
        })
        .collect();
    names.sort();
    names
}

fn golden(name: &str, actual: &str) -> String {
    let dir = repo_root().join("tests/golden/sql");
    let path = dir.join(format!("{name}.csv"));
    if std::env::var_os("CKB_UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&path, actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (CKB_UPDATE_GOLDEN=1 writes it)", path.display()));
    assert_eq!(
        actual, expected,
        "{name}: differs from tests/golden/sql/{name}.csv"
    );
    expected
}

#[test]
fn every_canned_query_runs_through_ckb_and_matches_its_golden() {
    let store = sample_store();
    let names = canned_names();
    assert_eq!(names.len(), 6, "{names:?}");
    let dir = tempfile::tempdir().unwrap();
    for name in &names {
        let csv = ckb_ok(
            dir.path(),
            &[
                "query",
                "--store",
                s(store.path()),
                "--format",
                "csv",
                "canned",
                name,
            ],
        );
        golden(name, &csv);
        // `sql --file` runs the very same file.
        let file = repo_root().join(format!("queries/sql/{name}.sql"));
        let via_file = ckb_ok(
            dir.path(),
            &[
                "query",
                "--store",
                s(store.path()),
                "--format",
                "csv",
                "sql",
                "--file",
                s(&file),
            ],
        );
        assert_eq!(via_file, csv, "{name}");
    }
}

#[test]
fn canned_results_say_what_the_fixture_store_holds() {
    let store = sample_store();
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str| -> Value {
        json(&ckb_ok(
            dir.path(),
            &[
                "query",
                "--store",
                s(store.path()),
                "--format",
                "json",
                "canned",
                name,
            ],
        ))
    };
    let col = |v: &Value, name: &str| {
        v["columns"]
            .as_array()
            .unwrap()
            .iter()
            .position(|c| c == name)
            .unwrap()
    };

    // Hotspots: the newest acme snapshot and beta's only one; generated files left out.
    let v = run("hotspots");
    let p = col(&v, "path");
    let paths: Vec<&str> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[p].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "src/core.rs",
            "tests/core_test.rs",
            "app/x.rs",
            "src/util.rs",
            "src/extra.rs"
        ]
    );

    // API changes between acme's two newest snapshots.
    let v = run("api_changes");
    let (c, n) = (col(&v, "change"), col(&v, "name"));
    let got: Vec<(String, String)> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r[c].as_str().unwrap().into(), r[n].as_str().unwrap().into()))
        .collect();
    let want: Vec<(String, String)> = [
        ("signature-changed", "parse"),
        ("renamed", "tokenize"),
        ("removed", "legacy"),
        ("added", "fresh"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(got, want);

    // Churn trend: every snapshot, oldest first per repository.
    let v = run("churn_trend");
    assert_eq!(v["rows"].as_array().unwrap().len(), 4);
    let ld = col(&v, "lines_delta");
    assert_eq!(v["rows"][0][ld], Value::Null, "acme's first snapshot");
    assert_eq!(v["rows"][1][ld], -460, "acme: 670 → 210 lines");
    assert_eq!(v["rows"][2][ld], 535, "acme: 210 → 745 lines");
    assert_eq!(v["rows"][3][ld], Value::Null, "beta's only snapshot");

    // Dead code: private orphan (recursion is no use) and the internal one; tests and public left out.
    let v = run("dead_code");
    let (n, conf) = (col(&v, "name"), col(&v, "confidence"));
    let got: Vec<(String, String)> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r[n].as_str().unwrap().into(),
                r[conf].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("orphan".to_string(), "high".to_string()),
            ("x".into(), "high".into()),
            ("internal_unused".into(), "medium".into()),
            ("stale".into(), "medium".into())
        ]
    );

    // Module fan-in/out: only in-repository edges count.
    let v = run("module_fan");
    let (m, fi, fo) = (col(&v, "module_id"), col(&v, "fan_in"), col(&v, "fan_out"));
    let got: Vec<(String, i64, i64)> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r[m].as_str().unwrap().into(),
                r[fi].as_i64().unwrap(),
                r[fo].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("core".to_string(), 1, 1),
            ("tests".into(), 0, 2),
            ("util".into(), 2, 0),
            ("app".into(), 0, 0)
        ]
    );

    // Coupling: pairs with at least two shared commits.
    let v = run("coupling");
    assert_eq!(v["rows"].as_array().unwrap().len(), 2);
}

/// The stock CLI: `PATH`'s `duckdb`, else the one `ci/install-tools.sh` installs.
fn stock_duckdb() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("CKB_DUCKDB").map(PathBuf::from),
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/ckb-tools/venv/bin/duckdb")),
        Some(PathBuf::from("duckdb")),
    ];
    candidates.into_iter().flatten().find(|c| {
        Command::new(c)
            .arg("-version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// CSV cells equal as text, or as numbers (the CLI prints `2.0` where ckb prints `2`).
fn same_csv(a: &str, b: &str) -> bool {
    let rows = |t: &str| -> Vec<Vec<String>> {
        t.lines()
            .map(|l| l.split(',').map(String::from).collect())
            .collect()
    };
    let (ra, rb) = (rows(a), rows(b));
    ra.len() == rb.len()
        && ra.iter().zip(&rb).all(|(x, y)| {
            x.len() == y.len()
                && x.iter().zip(y).all(|(p, q)| {
                    p == q
                        || matches!((p.parse::<f64>(), q.parse::<f64>()), (Ok(u), Ok(v)) if (u - v).abs() < 1e-9)
                })
        })
}

#[test]
fn the_stock_duckdb_cli_runs_every_canned_file_as_is() {
    let Some(duckdb) = stock_duckdb() else {
        eprintln!("SKIP: no stock duckdb CLI (run ci/install-tools.sh, or set CKB_DUCKDB)");
        return;
    };
    let store = sample_store();
    let cwd = tempfile::tempdir().unwrap();
    for name in canned_names() {
        let file = repo_root().join(format!("queries/sql/{name}.sql"));
        // Exactly the documented command.
        let out = Command::new(&duckdb)
            .args(["-csv", "-nullvalue", ""])
            .arg("-c")
            .arg(format!("SET VARIABLE ckb_store = '{}'", s(store.path())))
            .arg("-f")
            .arg(&file)
            .current_dir(cwd.path())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let expected =
            std::fs::read_to_string(repo_root().join(format!("tests/golden/sql/{name}.csv")))
                .unwrap();
        assert!(
            same_csv(&stdout, &expected),
            "{name}:\nstock CLI:\n{stdout}\ngolden:\n{expected}"
        );
    }
    // Without the variable, the files read ./.ckb/snapshots.
    let repo = tempfile::tempdir().unwrap();
    let snapshots = repo.path().join(".ckb/snapshots");
    std::fs::create_dir_all(repo.path().join(".ckb")).unwrap();
    std::fs::rename(store.path(), &snapshots).unwrap();
    let out = Command::new(&duckdb)
        .args(["-csv", "-nullvalue", "", "-f"])
        .arg(repo_root().join("queries/sql/hotspots.sql"))
        .current_dir(repo.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(same_csv(
        &String::from_utf8_lossy(&out.stdout),
        &std::fs::read_to_string(repo_root().join("tests/golden/sql/hotspots.csv")).unwrap()
    ));
}

#[test]
fn canned_list_unknown_names_and_missing_tables() {
    let store = sample_store();
    let dir = tempfile::tempdir().unwrap();
    let v = json(&ckb_ok(
        dir.path(),
        &["query", "--format", "json", "canned"],
    ));
    assert_eq!(
        v["columns"],
        serde_json::json!(["name", "description", "tables"])
    );
    assert_eq!(v["rows"].as_array().unwrap().len(), canned_names().len());
    assert_eq!(v["rows"][0][0], "api_changes");

    let out = ckb(
        dir.path(),
        &[
            "query",
            "--store",
            s(store.path()),
            "--format",
            "json",
            "canned",
            "nope",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let v = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(v["error"]["code"], "INVALID_PARAMETER");
    assert!(v["error"]["remediation"]
        .as_str()
        .unwrap()
        .contains("hotspots"));

    // A store whose snapshots lack a table the query reads: a clear error naming the table.
    let thin = tempfile::tempdir().unwrap();
    SnapshotBuilder::new("acme", &"f".repeat(40))
        .without("churn")
        .write(thin.path());
    let out = ckb(
        dir.path(),
        &[
            "query",
            "--store",
            s(thin.path()),
            "--format",
            "json",
            "canned",
            "hotspots",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let v = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(v["error"]["code"], "SQL_ERROR");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("churn table"),
        "{v}"
    );

    // No store at all.
    let out = ckb(
        dir.path(),
        &[
            "query",
            "--store",
            "/nonexistent/store",
            "--format",
            "json",
            "canned",
            "hotspots",
        ],
    );
    assert_eq!(
        json(&String::from_utf8_lossy(&out.stdout))["error"]["code"],
        "SNAPSHOT_NOT_FOUND"
    );

    // Both a statement and --file, or neither: usage errors.
    let f = repo_root().join("queries/sql/hotspots.sql");
    assert_eq!(
        ckb(
            dir.path(),
            &[
                "query",
                "--store",
                s(store.path()),
                "sql",
                "select 1",
                "--file",
                s(&f)
            ]
        )
        .status
        .code(),
        Some(2)
    );
    assert_eq!(
        ckb(dir.path(), &["query", "--store", s(store.path()), "sql"])
            .status
            .code(),
        Some(2)
    );
    let out = ckb(
        dir.path(),
        &[
            "query",
            "--store",
            s(store.path()),
            "--format",
            "json",
            "sql",
            "--file",
            "/nonexistent.sql",
        ],
    );
    assert_eq!(
        json(&String::from_utf8_lossy(&out.stdout))["error"]["code"],
        "PATH_NOT_FOUND"
    );
}

#[test]
fn store_sessions_cannot_write_change_the_store_or_read_elsewhere() {
    let store = sample_store();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.csv"), "token\nhunter2\n").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let st = s(store.path());
    let run = |sql: &str| {
        let out = ckb(
            dir.path(),
            &["query", "--store", st, "--format", "json", "sql", sql],
        );
        (
            out.status.code(),
            json(&String::from_utf8_lossy(&out.stdout)),
        )
    };
    for sql in [
        "set variable ckb_store = '/'".to_string(),
        "copy (select * from files) to '/tmp/ckb-leak.parquet'".to_string(),
        format!(
            "create table t as select * from read_csv('{}/secret.csv')",
            s(outside.path())
        ),
        "attach ':memory:' as m".to_string(),
        "load httpfs".to_string(),
        "pragma enable_external_access".to_string(),
    ] {
        let (code, v) = run(&sql);
        assert_eq!(code, Some(1), "{sql}");
        assert_eq!(v["error"]["code"], "SQL_NOT_ALLOWED", "{sql}: {v}");
    }
    for sql in [
        format!("select * from read_csv('{}/secret.csv')", s(outside.path())),
        format!(
            "select * from read_csv(getvariable('ckb_store') || '/../{}/secret.csv')",
            outside.path().file_name().unwrap().to_str().unwrap()
        ),
        "select * from read_parquet('/etc/*.parquet')".to_string(),
        "select * from glob('/etc/*')".to_string(),
    ] {
        let (code, v) = run(&sql);
        assert_eq!(code, Some(1), "{sql}: {v}");
        assert_eq!(v["error"]["code"], "SQL_NOT_ALLOWED", "{sql}: {v}");
        assert!(
            !v.to_string().contains("hunter2"),
            "leaked a file outside the store"
        );
    }
    // The variable holds the store, and reading through it works.
    let (code, v) = run("select getvariable('ckb_store') as s, (select count(*) from read_parquet(getvariable('ckb_store') || '/repo=*/commit=*/files.parquet')) as n");
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["rows"][0][0], st.trim_end_matches('/'));
    assert_eq!(v["rows"][0][1], 14);
}
