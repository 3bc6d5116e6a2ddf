//! The SCIP stage on indexes built in the test with the `scip` crate's types, covering every quirk
//! real indexers show (see `pipeline::scip::quirks`) and checking each is handled and counted.
//!
//! Size: `every_quirk_is_handled_and_counted` (~210 lines) builds one index holding every quirk and checks each count.

mod scip_support;

use std::collections::BTreeMap;

use output_schema::manifest::StageStatus;
use output_schema::Roles;
use protobuf::Message;
use scip::types::occurrence::Typed_range;
use scip::types::symbol_information::Kind;
use scip::types::{Document, Index, PositionEncoding, SingleLineRange, SymbolInformation};
use scip_support::*;

const A_RS: &str = "pub fn f(x: u8) -> u8 {\n    g(x)\n}\nfn g(x: u8) -> u8 { x }\npub struct S { pub v: u8 }\n// twice twice\n";
const D_RS: &str = "pub fn dup() {}\n";
const B_TS: &str =
    "const s = \"größe 🚀\"; export function h() { return k(); }\nfunction k() { return 1; }\n";
const C_PY: &str = "s = \"größe 🚀\"; t = 1\n";

const F: &str = "rust-analyzer cargo fx 1.0.0 a/f().";
const G: &str = "rust-analyzer cargo fx 1.0.0 a/g().";
const S: &str = "rust-analyzer cargo fx 1.0.0 a/S#";
const V: &str = "rust-analyzer cargo fx 1.0.0 a/S#v.";
const T: &str = "rust-analyzer cargo fx 1.0.0 a/T#";
const TWICE: &str = "rust-analyzer cargo fx 1.0.0 a/twice!";
const SEV: &str = "rust-analyzer cargo fx 1.0.0 dup().";
const EXT_URL: &str =
    "rust-analyzer cargo core https://github.com/rust-lang/rust/library/core f64/consts/PI.";
const EXT_HASH: &str = "scip-go gomod github.com/x/y 3f1e2d4c5b6a y/Z().";
const BAD: &str = "rust-analyzer cargo fx 1.0.0 a/bad?";
const T_VAR: &str = "scip-python python fx 0.1 c/t.";
const H: &str = "scip-typescript npm fx 1.0.0 web/`b.ts`/h().";
const K: &str = "scip-typescript npm fx 1.0.0 web/`b.ts`/k().";

/// Code units before the first `needle` on `line` of `text` in UTF-16 / UTF-32, and its byte offset.
fn offsets(text: &str, line: usize, needle: &str) -> (i32, i32, i32) {
    let l = text.lines().nth(line).expect("line");
    let byte = l.find(needle).expect("needle");
    let before = &l[..byte];
    (
        before.encode_utf16().count() as i32,
        before.chars().count() as i32,
        byte as i32,
    )
}

fn rust_index(root: &std::path::Path) -> Vec<u8> {
    let mut idx = index(
        "rust-analyzer",
        "1.0",
        &format!("file://{}", root.display()),
    );
    let mut a = doc("src/a.rs");
    // Deliberately unsorted: g's definition before f's.
    a.occurrences.push(def(G, &[3, 3, 4], &[3, 0, 23]));
    a.occurrences.push(def(F, &[0, 7, 8], &[0, 0, 2, 1]));
    a.occurrences.push(occ(G, &[1, 4, 5], 8));
    a.occurrences.push(occ("local 1", &[0, 9, 10], 1));
    a.occurrences.push(occ("local 1", &[1, 6, 7], 8));
    a.occurrences.push(occ(EXT_HASH, &[1, 0, 2], 0));
    a.occurrences.push(occ(EXT_URL, &[1, 2, 3], 0));
    a.occurrences.push(occ(BAD, &[3, 0, 1], 0));
    a.occurrences.push(occ(G, &[3, 0], 0));
    let mut typed = occ(G, &[], 0);
    let mut r = SingleLineRange::new();
    r.line = 1;
    r.start_character = 7;
    r.end_character = 8;
    typed.typed_range = Some(Typed_range::SingleLineRange(r));
    a.occurrences.push(typed);
    a.occurrences.push(occ("", &[0, 0, 3], 0));
    a.occurrences.push(def(S, &[4, 11, 12], &[4, 0, 26]));
    a.occurrences.push(def(V, &[4, 19, 20], &[4, 15, 24]));
    a.occurrences.push(occ(TWICE, &[5, 3, 8], 1));
    a.occurrences.push(occ(TWICE, &[5, 9, 14], 1));
    a.occurrences.push(occ(SEV, &[4, 0, 3], 1));
    let mut f = info(F, Some(Kind::Function), Some("pub fn f(x: u8)\n    -> u8"));
    f.relationships.push(rel(G, false, true, true, true));
    a.symbols.push(f);
    a.symbols
        .push(info(G, Some(Kind::Function), Some("fn g(x: u8) -> u8")));
    a.symbols
        .push(info(S, Some(Kind::Struct), Some("pub struct S")));
    let mut s2 = info(S, None, None);
    s2.relationships.push(rel(T, true, false, false, false));
    a.symbols.push(s2);
    a.symbols
        .push(info(V, Some(Kind::Field), Some("pub v: u8")));
    a.symbols
        .push(info("local 1", Some(Kind::Parameter), Some("x: u8")));
    a.symbols
        .push(info(T, Some(Kind::Trait), Some("pub trait T")));
    idx.documents.push(a);

    let mut d = doc("src/d.rs");
    d.occurrences.push(occ(SEV, &[0, 7, 10], 1));
    idx.documents.push(d);

    let mut c = doc("py/c.py");
    c.language = "python".into();
    c.position_encoding = PositionEncoding::UTF32CodeUnitOffsetFromLineStart.into();
    let (_, u32_t, _) = offsets(C_PY, 0, "t =");
    c.occurrences.push(occ(T_VAR, &[0, u32_t, u32_t + 1], 1));
    idx.documents.push(c);

    for path in ["gone.rs", "vendor/x.rs", "../escape.rs", "src/a.rs"] {
        let mut x = doc(path);
        x.occurrences.push(occ(G, &[0, 0, 1], 0));
        idx.documents.push(x);
    }
    let mut e = doc("src/e.rs");
    e.occurrences.push(occ(
        "rust-analyzer cargo fx 1.0.0 XXXXINVALIDXXXX.",
        &[0, 0, 1],
        0,
    ));
    idx.documents.push(e);

    let mut ext = SymbolInformation::new();
    ext.symbol = EXT_HASH.into();
    ext.kind = Kind::Method.into();
    idx.external_symbols.push(ext);

    let mut bytes = idx.write_to_bytes().expect("encodes");
    // Invalid UTF-8 inside one document's symbol string (same length, so framing stays intact).
    let pos = bytes
        .windows(15)
        .position(|w| w == b"XXXXINVALIDXXXX")
        .expect("marker");
    bytes[pos..pos + 4].copy_from_slice(&[0xff, 0xfe, 0xfd, 0xfc]);
    // An unknown top-level field (9, varint 1).
    bytes.extend_from_slice(&[0x48, 0x01]);
    bytes
}

fn ts_index() -> Vec<u8> {
    // Documents first, metadata after them: protobuf concatenation merges the two messages.
    let mut docs = Index::new();
    let mut b = doc("web/b.ts");
    b.language = String::new();
    b.position_encoding = PositionEncoding::UnspecifiedPositionEncoding.into();
    let (h16, _, _) = offsets(B_TS, 0, "h()");
    let (ex16, _, _) = offsets(B_TS, 0, "export");
    let (k16, _, _) = offsets(B_TS, 0, "k()");
    let line_len16 = B_TS.lines().next().expect("line").encode_utf16().count() as i32;
    b.occurrences
        .push(def(H, &[0, h16, h16 + 1], &[0, ex16, line_len16]));
    b.occurrences.push(occ(K, &[0, k16, k16 + 1], 0));
    b.occurrences.push(def(K, &[1, 9, 10], &[1, 0, 26]));
    docs.documents.push(b);
    let mut dup = doc("src/a.rs");
    dup.occurrences.push(occ(H, &[0, 0, 1], 0));
    docs.documents.push(dup);
    let meta = index("scip-typescript", "0.4.0", "file:///ci/build/elsewhere");
    let mut bytes = docs.write_to_bytes().expect("encodes");
    bytes.extend(meta.write_to_bytes().expect("encodes"));
    bytes
}

fn quirk_repo() -> tempfile::TempDir {
    let repo = repo_with(&[
        ("src/a.rs", A_RS),
        ("src/d.rs", D_RS),
        ("src/e.rs", "fn e() {}\n"),
        ("web/b.ts", B_TS),
        ("py/c.py", C_PY),
        ("vendor/x.rs", "fn x() {}\n"),
    ]);
    std::fs::create_dir_all(repo.path().join(".scip")).expect("mkdir");
    let root = repo.path().canonicalize().expect("canonical");
    std::fs::write(repo.path().join("index.scip"), rust_index(&root)).expect("write");
    std::fs::write(repo.path().join(".scip/ts.scip"), ts_index()).expect("write");
    repo
}

#[test]
fn every_quirk_is_handled_and_counted() {
    let repo = quirk_repo();
    let store = tempfile::tempdir().expect("store");
    let snap = snapshot(&options(repo.path(), store.path()));
    let report = snap.scip();
    let c = &report.counts;
    let expect: BTreeMap<&str, i64> = [
        ("quirk.document-text-empty", 4),
        ("quirk.language-unset", 1),
        ("quirk.position-encoding-unset", 1),
        ("quirk.kind-unset", 1),
        ("quirk.unsorted-occurrences", 1),
        ("quirk.no-relationships", 1),
        ("quirk.symbol-defined-in-several-documents", 1),
        ("quirk.symbol-defined-twice-in-document", 1),
        ("quirk.symbol-listed-twice-in-document", 1),
        ("quirk.local-symbols", 1),
        ("quirk.package-version-url", 1),
        ("quirk.package-version-hash", 1),
        ("quirk.project-root-absolute-uri", 2),
        ("quirk.project-root-outside-repo", 1),
        ("quirk.typed-ranges", 1),
        ("quirk.metadata-not-first", 1),
        ("quirk.unknown-top-level-fields", 1),
        ("skipped.document-path-escapes-repo", 1),
        ("skipped.document-not-in-scan", 2),
        ("skipped.document-already-covered", 2),
        ("skipped.document-undecodable", 1),
        ("skipped.occurrence-bad-range", 1),
        ("skipped.unparsable-symbols", 1),
        ("skipped.unparsable-symbol-occurrences", 1),
        ("skipped.local-occurrences", 2),
        ("skipped.occurrences-without-symbol", 1),
        ("stale.document-file-missing", 1),
        ("positions.utf16-documents", 1),
        ("positions.utf32-documents", 1),
        ("indexes", 2),
        ("documents", 4),
    ]
    .into_iter()
    .collect();
    let got: BTreeMap<&str, i64> = expect.keys().map(|k| (*k, c[*k])).collect();
    assert_eq!(got, expect);
    // The rust index has relationships; the TypeScript one has none.
    assert_eq!(report.status, StageStatus::Partial);
    let completeness = report.completeness.as_ref().expect("completeness");
    assert_eq!(completeness.reason, "index-stale");

    // Discovery order: index.scip, then .scip/*.scip.
    let inputs: Vec<&str> = snap
        .manifest
        .backends
        .iter()
        .filter(|b| b.kind == "scip")
        .map(|b| b.input.as_deref().unwrap_or(""))
        .collect();
    assert_eq!(inputs, ["index.scip", ".scip/ts.scip"]);
    assert_eq!(snap.manifest.backends[0].facts["projectRoot"], ".");
    assert_eq!(snap.manifest.backends[1].facts["projectRoot"], ".");
    assert_eq!(snap.manifest.backends[0].counts["documents"], 8);
    assert_eq!(snap.manifest.backends[0].counts["documentsUsed"], 3);
    assert_eq!(snap.manifest.backends[0].counts["externalSymbols"], 1);

    let symbols = snap.symbols();
    let by_backend = |b: &str| {
        symbols
            .iter()
            .find(|s| s.backend_id.as_deref() == Some(b))
            .unwrap_or_else(|| panic!("no row for {b}"))
    };
    let f = by_backend(F);
    assert_eq!(f.signature.as_deref(), Some("pub fn f(x: u8) -> u8"));
    assert_eq!(
        (f.kind.as_str(), f.visibility.as_str()),
        ("function", "public")
    );
    assert_eq!(
        (f.start_line, f.start_col, f.end_line, f.end_col),
        (1, 1, 3, 2)
    );
    let g = by_backend(G);
    assert_eq!(g.visibility, "private");
    let s = by_backend(S);
    assert_eq!(s.kind, "struct");
    let v = by_backend(V);
    assert_eq!(
        (v.kind.as_str(), v.container.as_deref()),
        ("field", Some("S"))
    );
    assert_eq!(by_backend(TWICE).kind, "macro");
    // Defined in two documents: one row, at the first path.
    assert_eq!(by_backend(SEV).path, "src/a.rs");
    assert_eq!(by_backend(T_VAR).path, "py/c.py");
    let h = by_backend(H);
    let k = by_backend(K);
    // No rows for locals, undefined or external symbols.
    assert_eq!(symbols.len(), 9, "{symbols:#?}");
    for sym in &symbols {
        assert!(!format!("{sym:?}").contains("DOCSTRING"), "{sym:?}");
    }

    let occs = snap.occurrences();
    assert!(occs
        .iter()
        .all(|o| !o.symbol_id.as_deref().unwrap_or("").starts_with("local")));
    assert!(occs
        .iter()
        .all(|o| o.path != "gone.rs" && o.path != "vendor/x.rs" && o.path != "src/e.rs"));
    let ext = occs
        .iter()
        .find(|o| o.symbol_id.as_deref() == Some(EXT_URL))
        .expect("external reference kept with its SCIP symbol");
    assert_eq!(
        (ext.name.as_str(), ext.enclosing_symbol_id.as_deref()),
        ("PI", Some(f.stable_id.as_str()))
    );
    let g_refs: Vec<_> = occs
        .iter()
        .filter(|o| o.symbol_id.as_deref() == Some(g.stable_id.as_str()))
        .collect();
    assert_eq!(
        g_refs.len(),
        3,
        "definition, plain reference, typed-range reference"
    );
    let read = g_refs
        .iter()
        .find(|o| o.line == 2 && o.col == 5)
        .expect("read site");
    assert_eq!(read.roles, Roles::REFERENCE | Roles::READ);
    // UTF-32 and UTF-16 offsets became byte columns.
    let (_, _, t_byte) = offsets(C_PY, 0, "t =");
    let t = occs.iter().find(|o| o.path == "py/c.py").expect("t");
    assert_eq!((t.col, t.end_col), (t_byte + 1, t_byte + 2));
    let (_, _, h_byte) = offsets(B_TS, 0, "h()");
    let hdef = occs
        .iter()
        .find(|o| o.symbol_id.as_deref() == Some(h.stable_id.as_str()))
        .expect("h");
    assert_eq!(hdef.col, h_byte + 1);
    let (_, _, ex_byte) = offsets(B_TS, 0, "export");
    assert_eq!(
        (h.start_col, h.end_col),
        (
            ex_byte + 1,
            B_TS.lines().next().expect("l").len() as i32 + 1
        )
    );

    let edges = snap.call_edges();
    let edge = |from: &str, to: &str| {
        edges
            .iter()
            .find(|e| e.caller_id == from && e.callee_id.as_deref() == Some(to))
            .map(|e| (e.count, e.source.as_str(), e.confidence))
    };
    assert_eq!(edge(&f.stable_id, &g.stable_id), Some((2, "scip", 1.0)));
    assert_eq!(edge(&f.stable_id, EXT_HASH), Some((1, "scip", 1.0)));
    assert_eq!(edge(&h.stable_id, &k.stable_id), Some((1, "scip", 1.0)));
    assert_eq!(edges.len(), 3, "{edges:#?}");

    let rels: Vec<(String, String, String)> = snap
        .relationships()
        .into_iter()
        .map(|r| (r.from_id, r.to_id, r.kind))
        .collect();
    let want = vec![
        (
            f.stable_id.to_string(),
            g.stable_id.to_string(),
            "definition".to_string(),
        ),
        (
            f.stable_id.to_string(),
            g.stable_id.to_string(),
            "reference".to_string(),
        ),
        (
            f.stable_id.to_string(),
            g.stable_id.to_string(),
            "type_definition".to_string(),
        ),
        (
            s.stable_id.to_string(),
            T.to_string(),
            "implementation".to_string(),
        ),
    ];
    let mut rels_sorted = rels.clone();
    rels_sorted.sort();
    let mut want_sorted = want;
    want_sorted.sort();
    assert_eq!(rels_sorted, want_sorted);

    let warnings = test_support::warning_codes(report);
    for code in [
        "document-path-escapes-repo",
        "document-not-in-scan",
        "document-undecodable",
        "unparsable-symbol",
        "document-already-covered",
    ] {
        assert!(warnings.contains(&code), "{code} missing from {warnings:?}");
    }
    // The escaping path is never echoed as a path field.
    assert!(report
        .warnings
        .iter()
        .all(|w| w.path.as_deref() != Some("../escape.rs")));
}

fn one_symbol_index(version: &str) -> Index {
    let mut idx = index("rust-analyzer", "1.0", "");
    let mut a = doc("src/lib.rs");
    let f = format!("rust-analyzer cargo fx {version} m/f().");
    let s = format!("rust-analyzer cargo fx {version} m/S#");
    a.occurrences.push(def(&f, &[0, 7, 8], &[0, 0, 12]));
    a.occurrences.push(def(&s, &[1, 11, 12], &[1, 0, 14]));
    a.occurrences.push(occ(&s, &[0, 8, 9], 0));
    a.symbols
        .push(info(&f, Some(Kind::Function), Some("pub fn f() {}")));
    idx.documents.push(a);
    idx
}

#[test]
fn package_version_never_changes_stable_ids() {
    let repo = repo_with(&[("src/lib.rs", "pub fn f() {}\npub struct S;\n")]);
    let ids = |version: &str| {
        write_index(&repo.path().join("index.scip"), &one_symbol_index(version));
        let store = tempfile::tempdir().expect("store");
        let snap = snapshot(&options(repo.path(), store.path()));
        let syms: Vec<(String, String, Option<String>)> = snap
            .symbols()
            .into_iter()
            .map(|s| {
                (
                    s.stable_id.to_string(),
                    s.name,
                    s.backend_id.map(String::from),
                )
            })
            .collect();
        let occs: Vec<Option<String>> = snap
            .occurrences()
            .into_iter()
            .map(|o| o.symbol_id.map(String::from))
            .collect();
        (syms, occs)
    };
    let (a_syms, a_occs) = ids("1.0.0");
    let (b_syms, b_occs) = ids("2.3.4-beta");
    assert_eq!(a_syms.len(), 2);
    let strip = |v: &[(String, String, Option<String>)]| {
        v.iter()
            .map(|(id, n, _)| (id.clone(), n.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&a_syms), strip(&b_syms));
    assert_eq!(a_occs, b_occs);
    // The backend ID keeps the version.
    assert_ne!(a_syms[0].2, b_syms[0].2);
}

#[test]
fn each_quirky_package_counts_once_however_its_symbols_interleave() {
    // Two packages versioned by commit hash and one by URL, their symbols interleaved and one
    // package coming back after the others: each package counts once.
    let repo = repo_with(&[("src/lib.rs", "fn a() {}\n")]);
    let mut idx = index("scip-python", "0.6", "");
    let mut a = doc("src/lib.rs");
    let p1 = "scip-python python fx 58a4c3e2f1d0 m/a().";
    a.occurrences.push(def(p1, &[0, 3, 4], &[0, 0, 9]));
    for (i, symbol) in [
        "scip-python python dep 9b8a7c6d5e4f d/x().",
        "scip-python python fx 58a4c3e2f1d0 m/b().",
        "scip-python python web https://example.com/web.git w/y().",
        "scip-python python dep 9b8a7c6d5e4f d/z().",
        "scip-python python fx 58a4c3e2f1d0 m/c().",
        // The same name and version under another manager is another package.
        "scip-python pip fx 58a4c3e2f1d0 m/d().",
    ]
    .into_iter()
    .enumerate()
    {
        a.occurrences
            .push(occ(symbol, &[0, 5 + i as i32, 6 + i as i32], 0));
    }
    idx.documents.push(a);
    write_index(&repo.path().join("index.scip"), &idx);
    let store = tempfile::tempdir().expect("store");
    let snap = snapshot(&options(repo.path(), store.path()));
    let c = &snap.scip().counts;
    assert_eq!(c.get("quirk.package-version-hash"), Some(&3), "{c:?}");
    assert_eq!(c.get("quirk.package-version-url"), Some(&1), "{c:?}");
}

#[test]
fn colliding_symbols_get_disambiguator_discriminators() {
    let repo = repo_with(&[("src/lib.rs", "fn m() {}\nfn m(a) {}\nfn m(a, b) {}\n")]);
    let mut idx = index("scip-java", "1.0", "");
    let mut a = doc("src/lib.rs");
    let names = [
        "semanticdb maven g 1.0 p/C#m().",
        "semanticdb maven g 1.0 p/C#m(+1).",
        "semanticdb maven g 1.0 p/C#m(+2).",
    ];
    for (i, n) in names.iter().enumerate() {
        a.occurrences
            .push(def(n, &[i as i32, 3, 4], &[i as i32, 0, 9]));
    }
    idx.documents.push(a);
    write_index(&repo.path().join("index.scip"), &idx);
    let store = tempfile::tempdir().expect("store");
    let snap = snapshot(&options(repo.path(), store.path()));
    let mut ids: Vec<(String, String)> = snap
        .symbols()
        .into_iter()
        .map(|s| {
            (
                s.backend_id.expect("backend").to_string(),
                s.stable_id.to_string(),
            )
        })
        .collect();
    ids.sort();
    assert_eq!(ids.len(), 3);
    assert!(!ids[0].1.contains('~'), "{ids:?}");
    assert!(ids[1].1.ends_with("~d1"), "{ids:?}");
    assert!(ids[2].1.ends_with("~d2"), "{ids:?}");
    assert_eq!(snap.scip().counts["quirk.stable-id-collisions"], 2);
}

#[test]
fn enclosure_falls_back_to_the_innermost_definition_span() {
    // No enclosing ranges anywhere: definitions span their names only, so nothing encloses the
    // call; with an enclosing range on the definition, the call is inside it.
    let repo = repo_with(&[("src/lib.rs", "fn f() {\n    g();\n}\nfn g() {}\n")]);
    let f = "rust-analyzer cargo fx 1 f().";
    let g = "rust-analyzer cargo fx 1 g().";
    let build = |with_range: bool| {
        let mut idx = index("rust-analyzer", "1", "");
        let mut d = doc("src/lib.rs");
        d.occurrences.push(if with_range {
            def(f, &[0, 3, 4], &[0, 0, 2, 1])
        } else {
            occ(f, &[0, 3, 4], 1)
        });
        d.occurrences.push(occ(g, &[1, 4, 5], 0));
        d.occurrences.push(occ(g, &[3, 3, 4], 1));
        idx.documents.push(d);
        idx
    };
    for (with_range, edges) in [(false, 0), (true, 1)] {
        write_index(&repo.path().join("index.scip"), &build(with_range));
        let store = tempfile::tempdir().expect("store");
        let snap = snapshot(&options(repo.path(), store.path()));
        assert_eq!(snap.call_edges().len(), edges, "with_range={with_range}");
        let call = snap
            .occurrences()
            .into_iter()
            .find(|o| o.line == 2)
            .expect("call site");
        assert_eq!(call.enclosing_symbol_id.is_some(), with_range);
    }
}

#[test]
fn occurrence_counts_equal_a_direct_decode() {
    let repo = repo_with(&[("src/lib.rs", "pub fn f() {}\npub struct S;\n")]);
    let path = repo.path().join("index.scip");
    let mut idx = one_symbol_index("1.0.0");
    // Many occurrences of a few symbols, some sharing a position.
    let d = &mut idx.documents[0];
    for i in 0..500 {
        d.occurrences
            .push(occ("rust-analyzer cargo fx 1.0.0 m/S#", &[i % 2, 0, 1], 0));
        d.occurrences
            .push(occ("rust-analyzer cargo std 1.0 x/y().", &[i % 2, 2, 3], 0));
    }
    write_index(&path, &idx);
    let store = tempfile::tempdir().expect("store");
    let snap = snapshot(&options(repo.path(), store.path()));
    assert_eq!(direct_counts(&path), snapshot_counts(&snap));
}

#[test]
fn project_root_elsewhere_matches_a_sub_folder() {
    let repo = repo_with(&[
        ("pkg/sub/src/lib.rs", "pub fn f() {}\n"),
        ("src/other.rs", ""),
    ]);
    let mut idx = index("rust-analyzer", "1", "file:///home/runner/work/fx/pkg/sub");
    let mut d = doc("src/lib.rs");
    d.occurrences.push(def(
        "rust-analyzer cargo fx 1 f().",
        &[0, 7, 8],
        &[0, 0, 13],
    ));
    idx.documents.push(d);
    write_index(&repo.path().join("index.scip"), &idx);
    let store = tempfile::tempdir().expect("store");
    let snap = snapshot(&options(repo.path(), store.path()));
    assert_eq!(snap.manifest.backends[0].facts["projectRoot"], "pkg/sub");
    assert_eq!(snap.symbols()[0].path, "pkg/sub/src/lib.rs");
    assert_eq!(snap.scip().counts["quirk.project-root-outside-repo"], 1);
    let text = serde_json::to_string(&snap.manifest).expect("json");
    assert!(
        !text.contains("/home/runner"),
        "absolute project root leaked"
    );
}

#[test]
fn a_document_over_the_occurrence_limit_is_skipped() {
    use output_schema::manifest::RepoState;
    let repo = repo_with(&[("a.rs", "fn a() {}\n"), ("b.rs", "fn b() {}\n")]);
    let root = repo.path().canonicalize().expect("root");
    let mut idx = index("rust-analyzer", "1", "");
    let mut a = doc("a.rs");
    for _ in 0..1001 {
        a.occurrences
            .push(occ("rust-analyzer cargo fx 1 a().", &[0, 3, 4], 0));
    }
    idx.documents.push(a);
    let mut b = doc("b.rs");
    b.occurrences
        .push(def("rust-analyzer cargo fx 1 b().", &[0, 3, 4], &[0, 0, 9]));
    idx.documents.push(b);
    let path = root.join("index.scip");
    write_index(&path, &idx);
    let file = |p: &str| test_support::rows::file(p, "rust", 10);
    let files = [file("a.rs"), file("b.rs")];
    let state = RepoState::default();
    let config = pipeline::scip::ScipConfig {
        max_occurrences_per_document: 1000,
        batch_bytes: 16,
        ..Default::default()
    };
    let input = stage_input(&root, &files, &state, config);
    let out = pipeline::scip::run(&input, &[path], &pipeline::NoProgress).expect("stage");
    assert_eq!(
        out.report.counts["skipped.document-too-many-occurrences"],
        1
    );
    assert_eq!(out.tables.symbols.len(), 1);
    assert_eq!(
        out.tables.covered_paths.iter().collect::<Vec<_>>(),
        ["b.rs"]
    );
    assert_eq!(
        out.report.completeness.as_ref().map(|c| c.reason.as_str()),
        Some("partial-backend")
    );
}

#[test]
fn big_documents_keep_every_occurrence() {
    let repo = repo_with(&[("src/lib.rs", LIB_F_CALLS_G)]);
    let path = repo.path().join("index.scip");
    let mut idx = index("rust-analyzer", "1", "");
    idx.documents.push(f_calls_g(200_000));
    write_index(&path, &idx);
    let store = tempfile::tempdir().expect("store");
    let snap = snapshot(&options(repo.path(), store.path()));
    assert_eq!(snap.occurrences().len(), 200_002);
    let edges = snap.call_edges();
    assert_eq!(edges.len(), 1);
    assert_eq!(edges[0].count, 200_000);
}

#[test]
fn unknown_encoding_values_and_document_text_are_used() {
    // Text embedded in the document is used for UTF-16 conversion instead of the file.
    let repo = repo_with(&[("src/x.ts", "let a = \"🚀\"; let b = 1;\n")]);
    let mut idx = index("scip-typescript", "0.4.0", "");
    let mut d = Document::new();
    d.relative_path = "src/x.ts".into();
    d.text = "let a = \"🚀\"; let b = 1;\n".into();
    let (b16, _, b_byte) = offsets(&d.text, 0, "b =");
    d.occurrences.push(occ(
        "scip-typescript npm fx 1 src/`x.ts`/b.",
        &[0, b16, b16 + 1],
        1,
    ));
    idx.documents.push(d);
    write_index(&repo.path().join("index.scip"), &idx);
    let store = tempfile::tempdir().expect("store");
    let snap = snapshot(&options(repo.path(), store.path()));
    let o = &snap.occurrences()[0];
    assert_eq!(o.col, b_byte + 1);
    assert_eq!(snap.scip().counts["quirk.document-text-empty"], 0);
}
