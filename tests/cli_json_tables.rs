//! `ckb snapshot --json-tables`: every written table also as zstd-compressed JSON Lines — listed in
//! the manifest, row for row the Parquet table in the same (sorted) order, canonical and
//! byte-stable, checked by `ckb verify`, and readable by the stock DuckDB CLI.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;
use output_schema::manifest::decompress;
use output_schema::parquet_io::read_table;
use output_schema::tables::FileRow;
use output_schema::Table;

fn repo() -> Fixture {
    Fixture::committed(&[
        ("src/b.rs", "fn b() {}\n"),
        ("src/a.rs", "pub fn a() -> u8 {\n    1\n}\n"),
        ("tests/t.rs", "#[test]\nfn t() {}\n"),
        ("README.md", "# x\n"),
    ])
}

fn lines_of(snapshot: &Path, file: &str) -> Vec<String> {
    let bytes = std::fs::read(snapshot.join(file)).unwrap();
    String::from_utf8(decompress(&bytes).unwrap())
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn json_tables_mirror_every_written_table() {
    let r = repo();
    let store = tempfile::tempdir().unwrap();
    let s = snapshot(r.path(), store.path(), &["--json-tables"]);
    let m = manifest(&s);
    assert!(!m.tables.is_empty());
    // One export per written table, in the same order.
    let names = |v: &[output_schema::manifest::FileEntry]| -> Vec<String> {
        v.iter().map(|e| e.name.clone()).collect()
    };
    assert_eq!(names(&m.json_tables), names(&m.tables));
    for e in &m.json_tables {
        assert_eq!(e.file, format!("{}.jsonl.zst", e.name));
        let table = m.table(&e.name).unwrap();
        assert_eq!(e.rows, table.rows, "{}", e.name);
        let lines = lines_of(&s, &e.file);
        assert_eq!(lines.len() as i64, e.rows, "{}", e.name);
        for l in &lines {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            // Canonical: re-encoding gives the same text (sorted keys, no nulls, no spaces).
            assert_eq!(&output_schema::json::value_to_string(&v, false), l);
            assert!(!l.contains(":null"), "{l}");
        }
    }
    // Row for row the Parquet table, in its sorted order.
    let files: Vec<FileRow> = read_table(&s.join("files.parquet")).unwrap();
    let expected: Vec<String> = files
        .iter()
        .map(|f| output_schema::json::value_to_string(&f.to_json(), false))
        .collect();
    assert_eq!(lines_of(&s, "files.jsonl.zst"), expected);
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["README.md", "src/a.rs", "src/b.rs", "tests/t.rs"]);

    // ckb verify checks them; a damaged export is named.
    ckb_ok(r.path(), &["verify", s.to_str().unwrap()]);
    flip_byte(&s.join("files.jsonl.zst"), 0, true);
    assert_verify_names(r.path(), &s, "files.jsonl.zst");
}

#[test]
fn json_tables_are_byte_stable_and_only_written_on_request() {
    let r = repo();
    let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = snapshot(r.path(), one.path(), &["--json-tables", "--threads", "1"]);
    let b = snapshot(r.path(), two.path(), &["--json-tables", "--threads", "4"]);
    for e in &manifest(&a).json_tables {
        assert_eq!(
            std::fs::read(a.join(&e.file)).unwrap(),
            std::fs::read(b.join(&e.file)).unwrap(),
            "{}",
            e.file
        );
    }
    let plain = tempfile::tempdir().unwrap();
    let c = snapshot(r.path(), plain.path(), &[]);
    assert!(manifest(&c).json_tables.is_empty());
    assert!(!files_of(&c).iter().any(|(p, _)| p.ends_with(".jsonl.zst")));
}

#[test]
fn stock_duckdb_reads_the_json_lines() {
    let Some(duckdb) = duckdb_cli() else {
        return;
    };
    let r = repo();
    let store = tempfile::tempdir().unwrap();
    let s = snapshot(r.path(), store.path(), &["--json-tables"]);
    let out = test_support::run_ok(Command::new(duckdb).args(["-csv", "-noheader", "-c"]).arg(
        format!(
            "select count(*), min(path), bool_or(is_test) from read_json('{}', format = 'newline_delimited')",
            s.join("files.jsonl.zst").display()
        ),
    ));
    assert_eq!(test_support::stdout_of(&out).trim(), "4,README.md,true");
}
