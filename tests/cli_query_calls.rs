//! `ckb query callers`, `callees` and `hierarchy` over snapshots the pipeline wrote: a fixture
//! repository in five languages through tree-sitter (supertype clauses and by-name call edges),
//! and a Rust crate through rust-analyzer, whose SCIP index states no relationships, so the
//! hierarchy comes from tree-sitter's `impl … for …` bound to SCIP's definitions.

mod common;

use std::path::Path;

use common::{ckb, error_answer, query_json_ok, snapshot, Fixture};
use serde_json::Value;

const RUST: &str = r#"pub mod shapes;

pub trait Shape {
    fn area(&self) -> f64;
}

pub trait Solid: Shape {
    fn volume(&self) -> f64;
}

pub struct Cube {
    pub side: f64,
}

impl Shape for Cube {
    fn area(&self) -> f64 {
        6.0 * self.side * self.side
    }
}

impl Solid for Cube {
    fn volume(&self) -> f64 {
        self.side * self.area()
    }
}

impl Shape for shapes::Sphere {
    fn area(&self) -> f64 {
        self.r
    }
}

impl std::fmt::Debug for Cube {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("cube")
    }
}

pub fn ping(n: u32) -> u32 {
    if n == 0 {
        0
    } else {
        pong(n - 1)
    }
}

pub fn pong(n: u32) -> u32 {
    ping(n)
}

pub fn start() -> u32 {
    ping(3)
}
"#;

const SHAPES: &str = "pub struct Sphere {\n    pub r: f64,\n}\n";

const TS: &str = r#"export interface Named {
  name(): string;
}

export interface Greeter extends Named {}

export class Base {}

export class Hello extends Base implements Greeter {
  name(): string {
    return "hello";
  }
}
"#;

const JAVA: &str = r#"interface Animal {}

abstract class Pet implements Animal {}

class Dog extends Pet {}
"#;

const PYTHON: &str = "class Model:\n    pass\n\n\nclass User(Model):\n    pass\n";

const CPP: &str = "class Node {};\n\nclass Leaf : public Node {};\n";

/// What implements or extends `Shape` in [`RUST`], whichever backend bound the names.
const SHAPE_SUBTYPES: [&str; 3] = ["Cube@1 by-name", "Solid@1 by-name", "Sphere@1 by-name"];

fn repo() -> Fixture {
    let f = Fixture::git();
    f.write(
        "Cargo.toml",
        "[package]\nname = \"geo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .write("src/lib.rs", RUST)
    .write("src/shapes.rs", SHAPES)
    .write("web/app.ts", TS)
    .write("java/Zoo.java", JAVA)
    .write("py/models.py", PYTHON)
    .write("cpp/tree.hpp", CPP);
    f.commit("shapes");
    f
}

/// Snapshots the fixture (with `extra` arguments) into a store beside it; the snapshot's folder.
fn snapshot_in_store(f: &Fixture, extra: &[&str]) -> String {
    let snap = snapshot(f.path(), &f.dir.path().join("store"), extra);
    snap.to_str().unwrap().to_string()
}

fn answer(dir: &Path, snap: &str, args: &[&str]) -> Value {
    serde_json::from_str(&query_json_ok(dir, snap, args)).unwrap()
}

/// `name@depth[ via name] source` of each listed symbol, sorted (the answer orders ties by
/// stable ID, a hash).
fn listed(answer: &Value, list: &str) -> Vec<String> {
    let names: std::collections::BTreeMap<String, String> = answer["facts"][list]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap().to_string(),
                s["name"].as_str().unwrap_or("?").to_string(),
            )
        })
        .collect();
    answer["facts"][list]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let via = s["via"]
                .as_str()
                .map(|v| format!(" via {}", names.get(v).map(String::as_str).unwrap_or(v)))
                .unwrap_or_default();
            format!(
                "{}@{}{via} {}",
                s["name"].as_str().unwrap_or("?"),
                s["depth"],
                s["source"].as_str().unwrap_or("?")
            )
        })
        .collect::<std::collections::BTreeSet<String>>()
        .into_iter()
        .collect()
}

/// Asserts the listed symbols, in any order.
fn assert_listed(answer: &Value, list: &str, expected: &[&str]) {
    let mut want: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(
        listed(answer, list),
        want,
        "{list} of {}",
        answer["facts"]["symbol"]
    );
}

fn id_of(dir: &Path, snap: &str, name: &str) -> String {
    let a = answer(dir, snap, &["symbol", name]);
    a["facts"]["symbol"]["id"].as_str().unwrap().to_string()
}

#[test]
fn hierarchy_from_supertype_clauses_in_five_languages() {
    let f = repo();
    let snap = &snapshot_in_store(&f, &[]);
    let dir = f.path();

    let shape = answer(dir, snap, &["hierarchy", "Shape"]);
    // Sphere is defined in another file than its `impl Shape for shapes::Sphere`.
    assert_listed(&shape, "subtypes", &SHAPE_SUBTYPES);
    assert!(listed(&shape, "supertypes").is_empty());
    let cube = answer(dir, snap, &["hierarchy", "Cube"]);
    // `Debug` is the standard library's: nothing in the snapshot to link to.
    assert_listed(&cube, "supertypes", &["Shape@1 by-name", "Solid@1 by-name"]);
    let hello = answer(dir, snap, &["hierarchy", "Hello"]);
    assert_listed(
        &hello,
        "supertypes",
        &[
            "Base@1 by-name",
            "Greeter@1 by-name",
            "Named@2 via Greeter by-name",
        ],
    );
    let hello1 = answer(dir, snap, &["hierarchy", "Hello", "--depth", "1"]);
    assert_eq!(hello1["facts"]["counts"]["beyondDepth"]["supertypes"], 1);
    assert!(hello1["drilldowns"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["command"].as_str().unwrap().ends_with("--depth 2")));
    let named = answer(dir, snap, &["hierarchy", "Named"]);
    assert_listed(
        &named,
        "subtypes",
        &["Greeter@1 by-name", "Hello@2 via Greeter by-name"],
    );
    let dog = answer(dir, snap, &["hierarchy", "Dog"]);
    assert_listed(
        &dog,
        "supertypes",
        &["Pet@1 by-name", "Animal@2 via Pet by-name"],
    );
    let user = answer(dir, snap, &["hierarchy", "User"]);
    assert_listed(&user, "supertypes", &["Model@1 by-name"]);
    let leaf = answer(dir, snap, &["hierarchy", "Leaf"]);
    assert_listed(&leaf, "supertypes", &["Node@1 by-name"]);
    assert_eq!(leaf["provenance"]["completeness"]["reason"], "by-name");
}

#[test]
fn callers_and_callees_walk_depth_and_cut_cycles() {
    let f = repo();
    let snap = &snapshot_in_store(&f, &[]);
    let dir = f.path();

    let callers = answer(dir, snap, &["callers", "ping", "--depth", "3"]);
    assert_listed(&callers, "callers", &["pong@1 by-name", "start@1 by-name"]);
    let ping = id_of(dir, snap, "ping");
    let pong = id_of(dir, snap, "pong");
    let cycles = callers["facts"]["cycles"].as_array().unwrap();
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    // The call that closes the cycle: ping calls pong, which is on the path (pong calls ping).
    assert_eq!(
        (
            &cycles[0]["caller"],
            &cycles[0]["callee"],
            &cycles[0]["length"]
        ),
        (
            &Value::from(ping.as_str()),
            &Value::from(pong.as_str()),
            &Value::from(2)
        )
    );
    // Same-file by-name binding: confidence 0.8 per edge, decaying with depth.
    assert_eq!(callers["facts"]["callers"][0]["confidence"], 0.8);

    let callees = answer(dir, snap, &["callees", "start"]);
    assert_listed(
        &callees,
        "callees",
        &["ping@1 by-name", "pong@2 via ping by-name"],
    );
    assert_eq!(callees["facts"]["callees"][1]["pathConfidence"], 0.512);
    assert_eq!(callees["facts"]["counts"]["cycles"], 1);
    // `self.area()` names three `area`s of the file, none in the caller's scope: by name, no
    // binding, so the call is listed as unresolved.
    let volume = answer(dir, snap, &["callees", "Cube::volume"]);
    assert_eq!(volume["facts"]["unresolvedCalls"][0]["name"], "area");

    // Bad input: each a stable error with exit 1.
    for (args, code) in [
        (vec!["callers", "ping", "--depth", "0"], "INVALID_PARAMETER"),
        (
            vec!["callees", "ping", "--depth", "11"],
            "INVALID_PARAMETER",
        ),
        (vec!["callers", "ping", "--limit", "0"], "INVALID_PARAMETER"),
        (vec!["hierarchy", "NoSuchType"], "SYMBOL_NOT_FOUND"),
        (vec!["callers", "area"], "AMBIGUOUS_QUERY"),
    ] {
        let mut all = vec!["query", "--snapshot", snap, "--format", "json"];
        all.extend(&args);
        let e = error_answer(&ckb(dir, &all), code);
        if code == "INVALID_PARAMETER" {
            let flag = args[2];
            assert!(
                e["error"]["message"].as_str().unwrap().contains(flag),
                "{e}"
            );
        }
    }
}

#[test]
fn rust_analyzer_states_no_relationships_and_tree_sitter_fills_the_hierarchy() {
    let Some(ra) = test_support::rust_analyzer() else {
        return;
    };
    let f = Fixture::git();
    f.write(
        "Cargo.toml",
        "[package]\nname = \"geo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .write("src/lib.rs", RUST)
    .write("src/shapes.rs", SHAPES);
    f.commit("shapes");
    let out = std::process::Command::new(ra)
        .args(["scip", "."])
        .current_dir(f.path())
        .output()
        .unwrap();
    test_support::assert_success(&out, "rust-analyzer scip");
    let index = f.path().join("index.scip");
    let snap = &snapshot_in_store(&f, &["--scip", index.to_str().unwrap()]);
    let manifest = common::manifest(Path::new(snap));
    assert_eq!(manifest.stages["scip"].counts["quirk.no-relationships"], 1);
    let dir = f.path();
    let shape = answer(dir, snap, &["hierarchy", "Shape"]);
    assert_listed(&shape, "subtypes", &SHAPE_SUBTYPES);
    // Both ends are SCIP's definitions (their backend IDs are rust-analyzer's).
    for s in shape["facts"]["subtypes"].as_array().unwrap() {
        let sym = answer(dir, snap, &["symbol", s["id"].as_str().unwrap()]);
        assert_eq!(sym["facts"]["symbol"]["source"], "scip", "{sym}");
    }
    // Calls come from SCIP, with full confidence.
    let callers = answer(dir, snap, &["callers", "ping"]);
    assert_listed(&callers, "callers", &["pong@1 scip", "start@1 scip"]);
    assert_eq!(callers["facts"]["callers"][0]["confidence"], 1.0);
}
