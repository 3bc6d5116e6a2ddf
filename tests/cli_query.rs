//! `ckb query status` and `ckb query sql` end to end, and stock DuckDB reading every written file.

mod common;

use common::*;
use serde_json::Value;

fn repo() -> Fixture {
    Fixture::committed(&[
        ("src/a.rs", "fn a() {}\n"),
        ("src/b.rs", "fn b() {}\n"),
        ("app/main.py", "print(1)\n"),
        ("web/x.ts", "export const x = 1;\n"),
    ])
}

fn json(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn status_reads_the_newest_snapshot_of_the_current_repo() {
    let r = repo();
    snapshot_into_own_store(r.path());
    let out = ckb_ok(r.path(), &["query", "--format", "json", "status"]);
    let v = json(&out);
    assert_eq!(v["command"], "status");
    assert_eq!(v["facts"]["snapshot"]["schemaVersion"], 1);
    assert_eq!(v["provenance"]["freshness"]["state"], "current");
    let tables = v["facts"]["tables"].as_array().unwrap();
    let files = tables.iter().find(|t| t["name"] == "files").unwrap();
    assert_eq!(files["rows"], 4);
    assert_eq!(v["facts"]["languages"]["rust"], 2);
    assert!(v["explanation"].as_str().unwrap().contains("4 files"));
    assert!(v["compression"]["estimatedTokens"].as_u64().unwrap() > 0);
    // Byte-deterministic.
    assert_eq!(
        out,
        ckb_ok(r.path(), &["query", "--format", "json", "status"])
    );
    // From a subfolder too; and a human rendering exists.
    let human = ckb_ok(
        &r.path().join("src"),
        &["query", "--format", "human", "status"],
    );
    assert!(human.contains("freshness: current"), "{human}");

    // One commit later the snapshot is behind.
    r.write("src/c.rs", "fn c() {}\n");
    r.commit("two");
    let v = json(&ckb_ok(r.path(), &["query", "--format", "json", "status"]));
    assert_eq!(v["provenance"]["freshness"]["state"], "behind");
    assert_eq!(v["provenance"]["freshness"]["commitsBehind"], 1);
    assert_suggests(&v, "ckb snapshot");
}

#[test]
fn sql_answers_over_the_snapshot_tables() {
    let r = repo();
    snapshot_into_own_store(r.path());
    let sql = "select language, count(*) as n from files group by 1 order by 1";
    let human = ckb_ok(r.path(), &["query", "--format", "human", "sql", sql]);
    assert_eq!(
        human,
        "language    n\n----------  ---\npython      1\nrust        2\ntypescript  1\n(3 rows)\n"
    );
    let csv = ckb_ok(r.path(), &["query", "--format", "csv", "sql", sql]);
    assert_eq!(csv, "language,n\npython,1\nrust,2\ntypescript,1\n");
    let v = json(&ckb_ok(r.path(), &["query", "sql", sql]));
    assert_eq!(v["columns"], serde_json::json!(["language", "n"]));
    assert_eq!(v["rows"][1], serde_json::json!(["rust", 2]));
}

#[test]
fn sql_cannot_write_or_read_outside_the_snapshot() {
    let r = repo();
    snapshot_into_own_store(r.path());
    // Writes, and reads of files outside the snapshot (whose content never leaks).
    for sql in [
        "create table t as select 1",
        "copy files to '/tmp/ckb-leak.csv'",
        "attach '/tmp/x.db'",
        "install httpfs",
        "set enable_external_access = true",
        "select * from read_csv('/etc/passwd')",
        "select * from read_text('/etc/hostname')",
        "with x as (select 1) select * from read_parquet('/tmp/../etc/*.parquet')",
    ] {
        let out = ckb(r.path(), &["query", "--format", "json", "sql", sql]);
        let v = error_answer(&out, "SQL_NOT_ALLOWED");
        assert!(
            !v["error"]["message"].as_str().unwrap().contains("root:"),
            "leaked file content: {sql}: {v}"
        );
    }
    // A table whose stage did not run is explained.
    let out = ckb(
        r.path(),
        &[
            "query",
            "--format",
            "json",
            "sql",
            "select * from tombstones",
        ],
    );
    let v = json(&String::from_utf8_lossy(&out.stdout));
    if out.status.code() == Some(1) {
        assert_eq!(v["error"]["code"], "SQL_ERROR");
        assert_error_says(&v, "remediation", "not written");
    }
}

#[test]
fn store_wide_sql_has_partition_columns() {
    let r = repo();
    let store = tempfile::tempdir().unwrap();
    snapshot(r.path(), store.path(), &[]);
    r.write("src/c.rs", "fn c() {}\n");
    let head2 = r.commit("two");
    snapshot(r.path(), store.path(), &[]);
    let v = json(&ckb_ok(
        r.path(),
        &[
            "query",
            "--store",
            store.path().to_str().unwrap(),
            "sql",
            "select repo, \"commit\", count(*) as n from files group by all order by n",
        ],
    ));
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(
        rows[1],
        serde_json::json!([
            r.path().file_name().unwrap().to_str().unwrap().replace(
                |c: char| !(c.is_ascii_alphanumeric() || "._-".contains(c)),
                "-"
            ),
            head2,
            5
        ])
    );
}

#[test]
fn missing_and_newer_snapshots_are_coded_errors() {
    let r = repo();
    let out = ckb(r.path(), &["query", "--format", "json", "status"]);
    let v = error_answer(&out, "SNAPSHOT_NOT_FOUND");
    assert_error_says(&v, "remediation", "ckb snapshot");

    let out = query_json(r.path(), "/nonexistent", &["status"]);
    assert_eq!(
        json(&String::from_utf8_lossy(&out.stdout))["error"]["code"],
        "SNAPSHOT_NOT_FOUND"
    );

    let store = tempfile::tempdir().unwrap();
    let s = snapshot(r.path(), store.path(), &[]);
    let mut m = manifest(&s);
    m.schema_version = 99;
    let bytes =
        output_schema::manifest::compress_json(&output_schema::json::to_string(&m).unwrap())
            .unwrap();
    std::fs::write(s.join("manifest.json.zst"), bytes).unwrap();
    let out = query_json(r.path(), s.to_str().unwrap(), &["status"]);
    error_answer(&out, "SCHEMA_UNSUPPORTED");
}

#[test]
fn stock_duckdb_reads_every_written_table_offline() {
    let r = repo();
    let store = tempfile::tempdir().unwrap();
    let s = snapshot(r.path(), store.path(), &[]);
    let m = manifest(&s);
    assert!(!m.tables.is_empty());
    let conn = duckdb::Connection::open_in_memory().unwrap();
    // No network: extensions may be neither downloaded nor loaded; parquet must be built in.
    conn.execute_batch(
        "SET autoinstall_known_extensions = false; SET autoload_known_extensions = false;",
    )
    .unwrap();
    for t in &m.tables {
        let path = s.join(&t.file);
        let n: i64 = conn
            .query_row(
                &format!("select count(*) from read_parquet('{}')", path.display()),
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(n, t.rows, "{}", t.name);
        // Every declared column is there with a usable type.
        let cols: i64 = conn
            .query_row(
                // Hive partition columns (repo, commit) would be added from the folder names otherwise.
                &format!(
                    "select count(*) from (describe select * from read_parquet('{}', hive_partitioning = false))",
                    path.display()
                ),
                [],
                |row| row.get(0),
            )
            .unwrap();
        let info = output_schema::table_info(&t.name).unwrap();
        assert_eq!(cols as usize, info.columns.len(), "{}", t.name);
    }
}

#[test]
fn schema_prints_every_table() {
    let dir = tempfile::tempdir().unwrap();
    let v = json(&ckb_ok(dir.path(), &["schema", "--format", "json"]));
    assert_eq!(
        v["tables"].as_array().unwrap().len(),
        output_schema::ALL_TABLES.len()
    );
    let table = |name: &str| json(&ckb_ok(dir.path(), &["schema", name, "--format", "json"]));
    let occurrences = table("occurrences")["tables"][0].clone();
    assert_eq!(
        occurrences["sortKey"],
        serde_json::json!(["path", "line", "col"])
    );
    assert_eq!(occurrences["uniqueKey"], serde_json::json!([]));
    assert_eq!(
        table("call_edges")["tables"][0]["uniqueKey"],
        serde_json::json!(["caller_id", "callee_id", "callee_name"])
    );
    let human = ckb_ok(dir.path(), &["schema", "files"]);
    assert!(
        human.contains("content_hash") && human.contains("sorted by: path   one row per: path")
    );
    assert!(
        !human.contains("view "),
        "one table asked for, no views: {human}"
    );
    assert_eq!(ckb(dir.path(), &["schema", "nope"]).status.code(), Some(1));
}

#[test]
fn schema_lists_every_view_with_its_fields() {
    let dir = tempfile::tempdir().unwrap();
    let v = json(&ckb_ok(dir.path(), &["schema", "--format", "json"]));
    let views = v["views"].as_array().unwrap();
    let names: Vec<&str> = views.iter().map(|v| v["name"].as_str().unwrap()).collect();
    let declared: Vec<&str> = output_schema::ALL_VIEWS.iter().map(|v| v.name).collect();
    assert_eq!(names, declared);
    assert!(names.contains(&"architecture") && names.contains(&"syntax-files"));
    let arch = &views[0];
    assert_eq!(arch["file"], "views/architecture.json.zst");
    let fields = test_support::json::strs(&arch["fields"], "name");
    assert!(fields.contains(&"totals.modules") && fields.contains(&"modules[].fanIn"));
    let human = ckb_ok(dir.path(), &["schema"]);
    assert!(human.contains("view architecture (views/architecture.json.zst)"));
    assert!(human.contains("files{}.status"));
    let one = json(&ckb_ok(
        dir.path(),
        &["schema", "syntax-files", "--format", "json"],
    ));
    assert_eq!(one["views"][0]["name"], "syntax-files");
}
