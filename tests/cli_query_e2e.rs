//! `ckb query` over snapshots the pipeline really made (scan, syntax, git, identity, modules) of a
//! small Rust repository built by the test: the commands answer from extracted facts, freshness
//! follows the working tree, and saved IDs keep resolving after a rename.

mod common;

use common::*;
use serde_json::Value;

fn repo() -> Fixture {
    Fixture::committed(&[
        (".gitignore", ".ckb/\n"),
        (
            "Cargo.toml",
            "[package]\nname = \"shapes\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        (
            "src/lib.rs",
            "pub mod shapes;\n\nuse shapes::Square;\n\npub fn total_area(v: &[Square]) -> u32 {\n    v.iter().map(|s| s.area()).sum()\n}\n",
        ),
        (
            "src/shapes.rs",
            "pub struct Square {\n    pub side: u32,\n}\n\nimpl Square {\n    pub fn area(&self) -> u32 {\n        self.side * self.side\n    }\n}\n\nfn unused_helper() -> u32 {\n    1\n}\n",
        ),
        (
            "tests/shapes_test.rs",
            "use shapes::shapes::Square;\n\n#[test]\nfn square_area() {\n    let a = Square { side: 2 }.area();\n    assert!(a == 4);\n}\n",
        ),
    ])
}

fn q(f: &Fixture, args: &[&str]) -> Value {
    let mut all = vec!["query", "--format", "json"];
    all.extend_from_slice(args);
    let out = ckb_ok(f.path(), &all);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn queries_answer_from_a_real_snapshot() {
    let f = repo();
    snapshot_into_own_store(f.path());

    let s = q(&f, &["search", "area"]);
    let first = &s["facts"]["results"][0];
    assert_eq!(first["name"], "area");
    assert_eq!(first["kind"], "method");
    assert_eq!(first["match"], "exact");
    let id = first["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("ckb:"), "{id}");

    let sym = q(&f, &["symbol", &id]);
    assert_eq!(sym["facts"]["symbol"]["location"]["path"], "src/shapes.rs");
    assert_eq!(sym["facts"]["locationFreshness"], "current");
    assert_eq!(sym["provenance"]["freshness"]["state"], "current");

    let refs = q(&f, &["refs", "area"]);
    let files = test_support::json::strs(&refs["facts"]["modules"][0]["files"], "path");
    assert_eq!(files, ["src/lib.rs", "tests/shapes_test.rs"]);
    assert_eq!(refs["facts"]["testReferences"], 1);
    assert_eq!(refs["provenance"]["completeness"]["reason"], "by-name");

    let impact = q(&f, &["impact", &id]);
    let mut callers = test_support::json::strs(&impact["facts"]["directCallers"], "name");
    // Equal confidence and calls: the order is by stable ID, which is a hash.
    callers.sort_unstable();
    assert_eq!(callers, ["square_area", "total_area"]);
    let t = q(&f, &["affected-tests", &id]);
    assert_eq!(t["facts"]["testFiles"][0]["path"], "tests/shapes_test.rs");
    assert_eq!(
        t["facts"]["testFiles"][0]["tests"][0]["name"],
        "square_area"
    );

    let dead = q(&f, &["dead-code"]);
    let names = test_support::json::strs(&dead["facts"]["candidates"], "name");
    assert!(names.contains(&"unused_helper"), "{names:?}");
    assert!(!names.contains(&"area"), "{names:?}");

    let u = q(&f, &["understand", "total_area"]);
    assert_eq!(u["facts"]["callees"][0]["name"], "area");
    let arch = q(&f, &["arch"]);
    assert_eq!(arch["facts"]["viewPresent"], true);
    let doctor = q(&f, &["doctor"]);
    assert_eq!(doctor["facts"]["checks"][0]["status"], "pass");
    let h = q(&f, &["hotspots", "--window", "all"]);
    assert_eq!(h["facts"]["total"], 5);

    // A dirty working tree: locations may be stale, and answers say how to refresh.
    f.write(
        "src/shapes.rs",
        "\n\npub struct Square {\n    pub side: u32,\n}\n",
    );
    let sym = q(&f, &["symbol", &id]);
    assert_eq!(sym["facts"]["locationFreshness"], "may-be-stale");
    assert_suggests(&sym, "ckb snapshot");
}

#[test]
fn a_saved_id_follows_a_rename_to_the_next_snapshot() {
    let f = repo();
    snapshot_into_own_store(f.path());
    let old = q(&f, &["symbol", "total_area"])["facts"]["symbol"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let lib = std::fs::read_to_string(f.path().join("src/lib.rs")).unwrap();
    f.write("src/lib.rs", lib.replace("total_area", "sum_of_areas"));
    f.commit("rename");
    snapshot_into_own_store(f.path());
    let v = q(&f, &["symbol", &old]);
    // The identity stage recorded the rename as an alias; the old ID reaches the new symbol.
    assert_eq!(v["facts"]["symbol"]["name"], "sum_of_areas", "{v}");
    assert_eq!(v["facts"]["resolution"]["redirected"], true);
    assert_eq!(v["facts"]["resolution"]["redirectedFrom"], old.as_str());
    assert_eq!(v["facts"]["resolution"]["reason"], "renamed");
}
