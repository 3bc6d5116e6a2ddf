//! A table file that the fuzzers found to crash the Parquet decoder, put into a real snapshot:
//! every reader says `SNAPSHOT_CORRUPT` and names the table — `ckb query` (which reads tables
//! without checking their hashes first), `ckb verify`, and a snapshot that would build on it —
//! never `INTERNAL_ERROR` and never a crash. And tables whose bytes the manifest vouches for but
//! whose rows break the table's order or repeat its unique key: `ckb verify` names them.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use output_schema::tables::{FileRow, SymbolRow};

/// The fuzz input, without its first byte (which picks the table in the `table_parquet` target).
fn crash_file(name: &str) -> Vec<u8> {
    let path = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo test"))
        .join("fuzz/regressions/table_parquet")
        .join(name);
    std::fs::read(&path).expect("the regression input")[1..].to_vec()
}

fn assert_corrupt(out: &std::process::Output, table: &str, what: &str) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{what}: {stdout}{stderr}");
    assert!(
        stdout.contains("SNAPSHOT_CORRUPT") || stderr.contains("SNAPSHOT_CORRUPT"),
        "{what}: {stdout}{stderr}"
    );
    assert!(
        !stdout.contains("INTERNAL_ERROR") && !stderr.contains("INTERNAL_ERROR"),
        "{what}: {stdout}{stderr}"
    );
    assert!(
        stdout.contains(table) || stderr.contains(table),
        "{what} names {table}: {stdout}{stderr}"
    );
}

fn snapshot_of_a_small_repository(store: &Path) -> (Fixture, PathBuf) {
    let repo = Fixture::git();
    repo.write(
        "src/lib.rs",
        "pub fn parse(s: &str) -> usize { s.len() }\npub fn run() -> usize { parse(\"x\") }\n",
    );
    repo.commit("one");
    repo.write("src/main.rs", "fn main() { let _ = run(); }\n");
    repo.commit("two");
    let snap = snapshot(repo.path(), store, &[]);
    (repo, snap)
}

#[test]
fn a_table_that_crashed_the_decoder_is_a_corrupt_snapshot_for_every_reader() {
    let store = tempfile::tempdir().unwrap();
    let (repo, snap) = snapshot_of_a_small_repository(store.path());
    let snap_arg = snap.to_str().unwrap();
    // A footer that places a column chunk at a negative offset (files), and pages the
    // dictionary decoder was never set up for (ownership).
    std::fs::write(
        snap.join("files.parquet"),
        crash_file("negative-column-offset"),
    )
    .unwrap();
    std::fs::write(
        snap.join("ownership.parquet"),
        crash_file("dictionary-decoder-unset"),
    )
    .unwrap();

    let query = |args: &[&str]| {
        let mut all = vec!["query", "--snapshot", snap_arg, "--format", "json"];
        all.extend_from_slice(args);
        ckb(repo.path(), &all)
    };
    assert_corrupt(&query(&["explore", "src"]), "files", "ckb query explore");
    assert_corrupt(
        &query(&["ownership", "src/lib.rs"]),
        "ownership",
        "ckb query ownership",
    );
    let verify = ckb(repo.path(), &["verify", snap_arg]);
    assert_corrupt(&verify, "files", "ckb verify");

    // Built on explicitly, the damaged snapshot is refused before any of its rows is read.
    repo.write("src/extra.rs", "pub fn extra() {}\n");
    repo.commit("three");
    let next = run_snapshot(repo.path(), store.path(), &["--previous", snap_arg]);
    assert_corrupt(&next, "files", "ckb snapshot --previous");
}

#[test]
fn rows_out_of_order_or_a_key_twice_fail_ckb_verify_though_the_manifest_vouches_for_them() {
    let store = tempfile::tempdir().unwrap();
    let (repo, snap) = snapshot_of_a_small_repository(store.path());
    let snap_arg = snap.to_str().unwrap();
    test_support::assert_success(&ckb(repo.path(), &["verify", snap_arg]), "ckb verify");

    let read = |table: &str| snap.join(format!("{table}.parquet"));
    let mut symbols: Vec<SymbolRow> =
        output_schema::parquet_io::read_table(&read("symbols")).unwrap();
    assert!(symbols.len() >= 2);
    let twice = symbols[0].clone();
    symbols.insert(1, twice.clone());
    forge_table(&snap, &symbols);
    let mut files: Vec<FileRow> = output_schema::parquet_io::read_table(&read("files")).unwrap();
    assert!(files.len() >= 2);
    files.reverse();
    forge_table(&snap, &files);

    // The files check alone (what `--previous` and doctor run) finds nothing wrong...
    let report =
        output_schema::verify::verify_snapshot(&snap, output_schema::verify::Depth::Files).unwrap();
    assert!(report.ok(), "{report:?}");
    // ...`ckb verify` reads the rows and names both tables, the key and the row.
    let out = ckb(repo.path(), &["verify", snap_arg]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    for needle in [
        "SNAPSHOT_CORRUPT".to_string(),
        format!(
            "table symbols: row 1 repeats the key of the row above it (stable_id = \"{}\")",
            twice.stable_id
        ),
        "table files: row 1 comes before the row above it".to_string(),
    ] {
        assert!(err.contains(&needle), "{needle}: {err}");
    }
    assert!(!err.contains("INTERNAL_ERROR"), "{err}");
}
