//! `ckb query` over snapshots the pipeline really made (scan, syntax, git, identity, modules) of a
//! small Rust repository built by the test: the commands answer from extracted facts, freshness
//! follows the working tree, and saved IDs keep resolving after a rename.

mod common;

use common::*;
use serde_json::{json, Value};

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

/// Members rank by the type they belong to, on a snapshot the pipeline made (its `usage` table
/// and the owning types read back by `search`): three `send` methods, unused themselves, tied on
/// match, usage, kind and depth; `Session` is used four times, `Adapter` once, `_Adapter` is
/// private by name (its members are internal).
#[test]
fn search_ranks_members_by_the_type_they_belong_to() {
    let f = Fixture::git();
    f.write(".gitignore", ".ckb/\n").write(
        "pkg/sessions.py",
        "class _Adapter:\n    def send(self, r):\n        return r\n\n\n\
         class Adapter:\n    def send(self, r):\n        return r\n\n\n\
         class Session:\n    def send(self, r):\n        return r\n\n\n\
         def make():\n    a = Session()\n    b = Session()\n    c = Session()\n    d = Session()\n    \
         return [a, b, c, d, Adapter()]\n",
    );
    f.commit("one");
    ckb_ok(f.path(), &["snapshot", "--progress", "never"]);
    let s = q(&f, &["search", "send"]);
    let ranked = test_support::json::str_pairs(&s["facts"]["results"], "container", "place");
    assert_eq!(
        ranked,
        [
            ("Session", "api"),
            ("Adapter", "api"),
            ("_Adapter", "internal")
        ],
        "{s}"
    );
    // `ckb mcp` ranks from the index its table cache keeps, not from reads: the same answer, on
    // the call that builds the index and on the next.
    let requests = [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": "send"}}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": "send"}}}),
    ];
    let input: String = requests.iter().map(|r| format!("{r}\n")).collect();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ckb"))
        .args(["mcp", "--repo", "."])
        .current_dir(f.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), input.as_bytes()).unwrap();
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    let replies: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for id in [1, 2] {
        let reply = replies.iter().find(|r| r["id"] == id).expect("a reply");
        assert_eq!(
            reply["result"]["structuredContent"]["facts"], s["facts"],
            "{reply}"
        );
    }
}
