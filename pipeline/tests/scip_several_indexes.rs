//! Several SCIP indexes of one repository: `ckb index` writes one per tool and project, and a
//! second scip-typescript index for the files outside every tsconfig (tests, scripts). Each index
//! is converted on its own, so what one refers to and another defines must be linked afterwards:
//! a test's call into the project is a caller of the project's function, counts in its usage, and
//! its relationships point at the definition.

mod scip_support;

use output_schema::tables::UsageRow;
use scip::types::symbol_information::Kind;
use scip_support::*;

const F: &str = "rust-analyzer cargo fx 1 f().";
const G: &str = "rust-analyzer cargo fx 1 g().";
const T: &str = "rust-analyzer cargo fx 1 t().";
/// `tests/t.rs`: `t` calls `f` twice.
const T_RS: &str = "pub fn t() { f(); f() }\n";

/// The second index: `tests/t.rs`, whose `t` calls the first index's `f` twice and refers to its
/// `g` in a relationship.
fn tests_index() -> scip::types::Index {
    let mut index = index("rust-analyzer", "1", "");
    let mut d = doc("tests/t.rs");
    d.occurrences.push(def(T, &[0, 7, 8], &[0, 0, 23]));
    d.occurrences.push(occ(F, &[0, 13, 14], 0));
    d.occurrences.push(occ(F, &[0, 18, 19], 0));
    let mut t = info(T, Some(Kind::Function), None);
    t.relationships.push(rel(G, false, false, true, false));
    d.symbols.push(t);
    index.documents.push(d);
    index
}

#[test]
fn references_into_another_index_point_at_its_definitions() {
    let repo = repo_with(&[("src/lib.rs", LIB_F_CALLS_G), ("tests/t.rs", T_RS)]);
    let mut project = index("rust-analyzer", "1", "");
    project.documents.push(f_calls_g(1));
    let (first, second) = (repo.path().join("lib.scip"), repo.path().join("tests.scip"));
    write_index(&first, &project);
    write_index(&second, &tests_index());
    let snap = snapshot_in_temp_store(repo.path(), |o| {
        o.stages = None;
        o.scip = vec![first.clone(), second.clone()];
    });

    let symbols = snap.symbols();
    let id_of = |symbol: &str| {
        let row = symbols
            .iter()
            .find(|s| s.backend_id.as_deref() == Some(symbol))
            .unwrap_or_else(|| panic!("no row for {symbol}: {symbols:?}"));
        row.stable_id.to_string()
    };
    let (f, g, t) = (id_of(F), id_of(G), id_of(T));

    let in_tests: Vec<Option<String>> = (snap.occurrences().into_iter())
        .filter(|o| o.path == "tests/t.rs" && o.name == "f")
        .map(|o| o.symbol_id.map(|s| s.to_string()))
        .collect();
    assert_eq!(in_tests, [Some(f.clone()), Some(f.clone())]);

    let edges: Vec<(String, Option<String>, i64)> = (snap.call_edges().into_iter())
        .filter(|e| e.caller_id.as_str() == t)
        .map(|e| {
            let callee = e.callee_id.map(|c| c.to_string());
            (e.caller_id.to_string(), callee, e.count)
        })
        .collect();
    assert_eq!(edges, [(t.clone(), Some(f.clone()), 2)]);

    let links: Vec<(String, String)> = (snap.relationships().into_iter())
        .filter(|r| r.from_id == t)
        .map(|r| (r.to_id, r.kind))
        .collect();
    assert_eq!(links, [(g.clone(), "reference".to_string())]);

    let usage: Vec<UsageRow> = snap.rows();
    let f_usage = usage
        .iter()
        .find(|u| u.stable_id.as_str() == f)
        .expect("f is used");
    assert_eq!(
        (f_usage.references, f_usage.files, f_usage.callers),
        (2, 1, 1),
        "{f_usage:?}"
    );
    assert_eq!(
        snap.scip().counts["references.linked-across-indexes"],
        2,
        "{:?}",
        snap.scip().counts
    );

    // In the other order the tests' index comes first: its reference to `f` is linked all the
    // same, to the one definition of it.
    let reversed = snapshot_in_temp_store(repo.path(), |o| {
        o.stages = None;
        o.scip = vec![second.clone(), first.clone()];
    });
    let edges: Vec<(String, Option<String>)> = (reversed.call_edges().into_iter())
        .map(|e| (e.caller_id.to_string(), e.callee_id.map(|c| c.to_string())))
        .collect();
    assert!(edges.contains(&(t.clone(), Some(f.clone()))), "{edges:?}");
}

/// One index alone keeps what it does not define as the SCIP symbol, as before: the link is made
/// only to a definition some index holds, and the count is not reported for a single index.
#[test]
fn a_single_index_keeps_its_external_references() {
    let repo = repo_with(&[("src/lib.rs", LIB_F_CALLS_G), ("tests/t.rs", T_RS)]);
    let alone = repo.path().join("tests.scip");
    write_index(&alone, &tests_index());
    let snap = snapshot_in_temp_store(repo.path(), |o| {
        o.stages = None;
        o.scip = vec![alone.clone()];
    });
    let callees: Vec<Option<String>> = (snap.call_edges().into_iter())
        .filter(|e| e.source.as_str() == "scip")
        .map(|e| e.callee_id.map(|c| c.to_string()))
        .collect();
    assert_eq!(callees, [Some(F.to_string())]);
    assert!(!(snap.scip().counts).contains_key("references.linked-across-indexes"));
}
