//! Bad SCIP input: every unusable file is a coded `SCIP_INVALID` error that leaves no snapshot
//! behind; smaller problems are counted skips. Nothing panics.

mod scip_support;

use std::path::Path;

use output_schema::manifest::RepoState;
use output_schema::tables::FileRow;
use output_schema::ErrorCode;
use protobuf::Message;
use scip::types::symbol_information::Kind;
use scip::types::Index;
use scip_support::*;

const LIB: &str = LIB_F_CALLS_G;

fn good_index() -> Index {
    let mut idx = index("rust-analyzer", "1.0", "");
    let mut d = f_calls_g(1);
    d.symbols.push(info(
        "rust-analyzer cargo fx 1 f().",
        Some(Kind::Function),
        Some("pub fn f()"),
    ));
    idx.documents.push(d);
    idx
}

/// Snapshots with `bytes` as `index.scip` and expects `SCIP_INVALID` with no snapshot written.
fn expect_invalid(bytes: &[u8], why: &str) -> String {
    let repo = repo_with(&[("src/lib.rs", LIB)]);
    std::fs::write(repo.path().join("index.scip"), bytes).expect("write");
    let store = tempfile::tempdir().expect("store");
    let err = pipeline::snapshot(&options(repo.path(), store.path()), &pipeline::NoProgress)
        .expect_err(why);
    assert_eq!(err.code(), ErrorCode::ScipInvalid, "{why}: {err}");
    assert!(err.remediation().contains("--no-scip"));
    // No snapshot (and no leftover temporary folder) in the store.
    assert_eq!(
        count_files(store.path()),
        0,
        "{why}: something was left in the store"
    );
    // The error names the index repo-relative, never by absolute path.
    let text = err.to_string();
    assert!(!text.contains(&repo.path().display().to_string()), "{text}");
    text
}

fn count_files(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(|e| e.ok())
        .map(|e| {
            let p = e.path();
            if p.is_dir() {
                count_files(&p)
            } else if p
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(".lock-"))
            {
                0
            } else {
                1
            }
        })
        .sum()
}

#[test]
fn truncated_index_is_invalid() {
    let bytes = good_index().write_to_bytes().expect("encodes");
    let text = expect_invalid(&bytes[..bytes.len() - 7], "truncated");
    assert!(
        text.contains("truncated") && text.contains("index.scip"),
        "{text}"
    );
}

#[test]
fn random_bytes_are_invalid() {
    // A fixed xorshift stream: deterministic garbage.
    let mut rng = test_support::random::Rng::new(0x9e37_79b9_7f4a_7c15);
    let bytes: Vec<u8> = (0..4096).map(|_| (rng.next_u64() >> 24) as u8).collect();
    expect_invalid(&bytes, "random bytes");
}

#[test]
fn empty_file_is_invalid() {
    let text = expect_invalid(b"", "empty file");
    assert!(text.contains("empty"), "{text}");
}

#[test]
fn index_of_another_repository_is_invalid() {
    let mut idx = index("rust-analyzer", "1.0", "file:///somewhere/else");
    for p in ["crates/other/src/main.rs", "crates/other/src/util.rs"] {
        let mut d = doc(p);
        d.occurrences.push(def(
            "rust-analyzer cargo other 1 main().",
            &[0, 3, 7],
            &[0, 0, 9],
        ));
        idx.documents.push(d);
    }
    let text = expect_invalid(&idx.write_to_bytes().expect("encodes"), "foreign index");
    assert!(text.contains("none of its 2 documents"), "{text}");
}

#[test]
fn zero_document_index_is_a_counted_no_op() {
    let repo = repo_with(&[("src/lib.rs", LIB)]);
    write_index(
        &repo.path().join("index.scip"),
        &index("rust-analyzer", "1.0", ""),
    );
    let store = tempfile::tempdir().expect("store");
    let snap = snapshot(&options(repo.path(), store.path()));
    let report = snap.scip();
    assert_eq!(report.counts["documents"], 0);
    assert!(report
        .warnings
        .iter()
        .any(|w| w.code == "index-without-documents"));
    assert_eq!(snap.manifest.backends[0].counts["documents"], 0);
    assert_eq!(report.completeness.as_ref().map(|c| c.score), Some(0.0));
    assert!(snap.symbols().is_empty());
}

#[test]
fn invalid_utf8_and_unparsable_symbols_are_counted_skips() {
    let repo = repo_with(&[("src/lib.rs", LIB), ("src/b.rs", "fn b() {}\n")]);
    let mut idx = good_index();
    idx.documents[0]
        .occurrences
        .push(occ("rust-analyzer cargo fx 1 not a symbol?", &[1, 0, 1], 0));
    idx.documents[0]
        .occurrences
        .push(occ("local", &[1, 0, 1], 0));
    let mut b = doc("src/b.rs");
    b.occurrences
        .push(occ("rust-analyzer cargo fx 1 QQQQ.", &[0, 3, 4], 0));
    idx.documents.push(b);
    let mut bytes = idx.write_to_bytes().expect("encodes");
    let at = bytes.windows(4).position(|w| w == b"QQQQ").expect("marker");
    bytes[at..at + 4].copy_from_slice(&[0xc3, 0x28, 0xa0, 0xa1]);
    std::fs::write(repo.path().join("index.scip"), bytes).expect("write");
    let store = tempfile::tempdir().expect("store");
    let snap = snapshot(&options(repo.path(), store.path()));
    let c = &snap.scip().counts;
    assert_eq!(c["skipped.document-undecodable"], 1);
    assert_eq!(c["skipped.unparsable-symbols"], 2);
    assert_eq!(c["skipped.unparsable-symbol-occurrences"], 2);
    assert_eq!(snap.symbols().len(), 2);
    assert_eq!(snap.occurrences().len(), 3);
}

#[test]
fn explicit_missing_index_is_an_error() {
    let repo = repo_with(&[("src/lib.rs", LIB)]);
    let store = tempfile::tempdir().expect("store");
    let mut opts = options(repo.path(), store.path());
    opts.scip = vec![repo.path().join("nope.scip")];
    let err = pipeline::snapshot(&opts, &pipeline::NoProgress).expect_err("missing index");
    assert_eq!(err.code(), ErrorCode::ScipInvalid);
}

#[test]
fn no_cut_of_an_index_panics() {
    // Every prefix of a valid index (and every single-byte corruption of it) either converts or
    // fails with a reader error; the stage never panics.
    let repo = repo_with(&[("src/lib.rs", LIB)]);
    let root = repo.path().canonicalize().expect("root");
    let bytes = good_index().write_to_bytes().expect("encodes");
    let files = [FileRow {
        line_count: 2,
        ..test_support::rows::file("src/lib.rs", "rust", LIB.len() as i64)
    }];
    let state = RepoState::default();
    let input = stage_input(&root, &files, &state, Default::default());
    let path = root.join("cut.scip");
    let mut ok = 0;
    let mut variants: Vec<Vec<u8>> = (0..bytes.len()).map(|n| bytes[..n].to_vec()).collect();
    for i in 0..bytes.len() {
        let mut v = bytes.clone();
        v[i] ^= 0xff;
        variants.push(v);
    }
    for v in variants {
        std::fs::write(&path, &v).expect("write");
        match pipeline::scip::run(&input, std::slice::from_ref(&path), &pipeline::NoProgress) {
            Ok(_) => ok += 1,
            Err(e) => assert_eq!(e.code(), ErrorCode::ScipInvalid, "{e}"),
        }
    }
    assert!(ok > 0);
}
