//! The identity algorithm over a scripted history of hand-made symbol tables: renames, moves
//! between modules, signature changes, deletions, re-additions, a rename chain over four commits,
//! a SCIP package version bump, a crate folder rename seen only through SCIP, a merge, Java
//! overloads, and an unrelated delete-plus-add that must not become a redirect. Each commit's
//! output becomes the next commit's previous snapshot, as in the pipeline.
//!
//! Prints the share of scripted renames recovered and the false redirects (`--nocapture`).
//!
//! Size: `scripted_history_keeps_ids_meaningful` (~250 lines) is one scripted history of renames, moves and deletions, checked step by step.

use std::collections::{BTreeMap, BTreeSet};

use output_schema::redirect::{resolve, Resolution};
use output_schema::tables::{AliasRow, SymbolRow, TombstoneRow};
use pipeline::fingerprint::{
    definition_version_id, discriminators, qualify_scip, qualify_source, symbol_id,
};
use pipeline::identity::{compute, Previous, Stamp};

const REPO: &str = "fx";

/// A definition as an extractor would emit it.
#[derive(Clone)]
struct Def {
    lang: &'static str,
    path: &'static str,
    container: Option<&'static str>,
    name: &'static str,
    kind: &'static str,
    signature: &'static str,
    arity: Option<i32>,
    body: &'static str,
    scip: Option<&'static str>,
}

fn def(path: &'static str, name: &'static str, signature: &'static str, body: &'static str) -> Def {
    Def {
        lang: "rust",
        path,
        container: None,
        name,
        kind: "function",
        signature,
        arity: None,
        body,
        scip: None,
    }
}

/// Builds the symbols table of one commit, with discriminators for colliding groups.
fn table(defs: &[Def]) -> Vec<SymbolRow> {
    let qualified: Vec<String> = defs
        .iter()
        .map(|d| match d.scip {
            Some(symbol) => {
                let mut s = scip::symbol::parse_symbol_ref(symbol).expect("fixture symbol parses");
                s.descriptors.pop();
                qualify_scip(d.lang, d.path, &s.descriptors)
            }
            None => qualify_source(d.lang, d.path, d.container),
        })
        .collect();
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, d) in defs.iter().enumerate() {
        let fp = pipeline::fingerprint::fingerprint(&qualified[i], d.name, d.kind);
        groups.entry(fp).or_default().push(i);
    }
    let mut disc: Vec<Option<String>> = vec![None; defs.len()];
    for members in groups.values() {
        let input: Vec<(Option<i32>, Option<&str>)> = members
            .iter()
            .map(|&i| (defs[i].arity, Some(defs[i].signature)))
            .collect();
        for (k, d) in discriminators(&input).into_iter().enumerate() {
            disc[members[k]] = d;
        }
    }
    defs.iter()
        .enumerate()
        .map(|(i, d)| SymbolRow {
            kind: d.kind.into(),
            container: d.container.map(Into::into),
            signature: Some(d.signature.into()),
            arity: d.arity,
            definition_version_id: definition_version_id(Some(d.signature)),
            language: Some(d.lang.into()),
            start_line: 1 + i as i32,
            end_line: 2 + i as i32,
            source: if d.scip.is_some() {
                "scip"
            } else {
                "tree-sitter"
            }
            .into(),
            backend_id: d.scip.map(output_schema::SharedStr::from),
            body_hash: Some(format!("body-{}", d.body)),
            ..test_support::rows::symbol(
                &symbol_id(REPO, &qualified[i], d.name, d.kind, disc[i].as_deref()),
                d.path,
                d.name,
            )
        })
        .collect()
}

/// The identity tables of one snapshot, which the next one starts from.
type Snapshot = Previous;

/// Asserts that identity decided `deleted` deletions and no alias.
#[track_caller]
fn assert_deleted_only(aliases: &[AliasRow], tombstones: &[TombstoneRow], deleted: usize) {
    assert!(aliases.is_empty(), "{aliases:?}");
    assert_eq!(tombstones.len(), deleted);
}

fn step(prev: Option<&Snapshot>, defs: &[Def], commit: &str) -> Snapshot {
    let symbols = table(defs);
    let first = Previous::default();
    let stamp = Stamp {
        state_id: &format!("state-{commit}"),
        commit,
    };
    let prev = prev.unwrap_or(&first);
    let out = compute(prev, &symbols, stamp);
    // The stage reads the previous symbols as `read_previous` does: every stable ID, and whole
    // rows only for the IDs no longer active. That must decide exactly what every row decides.
    let active: BTreeSet<&str> = symbols.iter().map(|s| s.stable_id.as_str()).collect();
    let pruned = Previous {
        ids: prev.symbols.iter().map(|s| s.stable_id.clone()).collect(),
        symbols: prev
            .symbols
            .iter()
            .filter(|s| !active.contains(s.stable_id.as_str()))
            .cloned()
            .collect(),
        aliases: prev.aliases.clone(),
        tombstones: prev.tombstones.clone(),
    };
    let from_pruned = compute(&pruned, &symbols, stamp);
    assert_eq!(from_pruned.aliases, out.aliases, "{commit}");
    assert_eq!(from_pruned.tombstones, out.tombstones, "{commit}");
    assert_eq!(from_pruned.stats, out.stats, "{commit}");
    Snapshot {
        ids: Vec::new(),
        symbols,
        aliases: out.aliases,
        tombstones: out.tombstones,
    }
}

fn id_of<'a>(s: &'a Snapshot, path: &str, name: &str) -> &'a str {
    let hits: Vec<&SymbolRow> = s
        .symbols
        .iter()
        .filter(|r| r.path == path && r.name == name)
        .collect();
    assert_eq!(hits.len(), 1, "{path} {name}");
    &hits[0].stable_id
}

fn row<'a>(s: &'a Snapshot, id: &str) -> &'a SymbolRow {
    s.symbols
        .iter()
        .find(|r| r.stable_id == id)
        .expect("id is active")
}

fn alias<'a>(s: &'a Snapshot, old: &str) -> Option<&'a AliasRow> {
    s.aliases.iter().find(|a| a.old_id == old)
}

fn new_aliases<'a>(s: &'a Snapshot, commit: &str) -> Vec<&'a AliasRow> {
    s.aliases
        .iter()
        .filter(|a| a.created_commit == commit)
        .collect()
}

fn java(name: &'static str, signature: &'static str, arity: i32, body: &'static str) -> Def {
    Def {
        lang: "java",
        path: "src/main/java/com/ex/Calc.java",
        container: Some("class Calc"),
        name,
        kind: "method",
        signature,
        arity: Some(arity),
        body,
        scip: None,
    }
}

fn base() -> Vec<Def> {
    vec![
        def(
            "src/config.rs",
            "parse_config",
            "fn parse_config(path: &Path) -> Config",
            "b1",
        ),
        Def {
            kind: "struct",
            signature: "pub struct Config",
            ..def("src/config.rs", "Config", "", "b2")
        },
        def("src/util.rs", "helper", "fn helper(x: u32) -> u32", "b3"),
        def("src/util.rs", "obsolete", "fn obsolete()", "b4"),
        def("src/net.rs", "connect", "fn connect(addr: &str)", "b5"),
        def(
            "src/chain.rs",
            "step_one",
            "fn step_one(x: u32) -> u32",
            "b6",
        ),
        Def {
            kind: "method",
            container: Some("impl Config"),
            ..def("src/config.rs", "new", "fn new() -> Self", "b7")
        },
        def("src/unrelated.rs", "alpha", "fn alpha(x: u32) -> u32", "b8"),
        def("src/merge.rs", "merge_a", "fn merge_a(x: u32) -> u32", "b9"),
        def("src/merge.rs", "merge_b", "fn merge_b(x: u32) -> u32", "b9"),
        Def {
            scip: Some("rust-analyzer cargo fx 0.1.0 versioned()."),
            ..def("src/lib.rs", "versioned", "fn versioned()", "b11")
        },
        Def {
            scip: Some("rust-analyzer cargo fx-core 0.1.0 core_fn()."),
            ..def("crates/core/src/lib.rs", "core_fn", "fn core_fn()", "b12")
        },
        java("add", "int add(int a, int b)", 2, "j1"),
        java("add", "int add(int a, int b, int c)", 3, "j2"),
    ]
}

/// Replaces the definition named `name` in `path`.
fn replace(defs: &mut [Def], path: &str, name: &str, f: impl FnOnce(&mut Def)) {
    let d = defs
        .iter_mut()
        .find(|d| d.path == path && d.name == name)
        .expect("definition to replace exists");
    f(d);
}

fn remove(defs: &mut Vec<Def>, path: &str, name: &str) {
    let before = defs.len();
    defs.retain(|d| !(d.path == path && d.name == name));
    assert_eq!(defs.len() + 1, before, "{path} {name}");
}

#[test]
fn scripted_history_keeps_ids_meaningful() {
    // c1: first snapshot, nothing to compare with.
    let mut defs = base();
    let s1 = step(None, &defs, "c1");
    assert!(s1.aliases.is_empty() && s1.tombstones.is_empty());
    let parse_id = id_of(&s1, "src/config.rs", "parse_config").to_string();
    let helper_id = id_of(&s1, "src/util.rs", "helper").to_string();
    let obsolete_id = id_of(&s1, "src/util.rs", "obsolete").to_string();
    let connect_id = id_of(&s1, "src/net.rs", "connect").to_string();
    let step_one = id_of(&s1, "src/chain.rs", "step_one").to_string();
    let alpha_id = id_of(&s1, "src/unrelated.rs", "alpha").to_string();
    let versioned_id = id_of(&s1, "src/lib.rs", "versioned").to_string();
    let core_id = id_of(&s1, "crates/core/src/lib.rs", "core_fn").to_string();
    let adds1: Vec<&SymbolRow> = s1.symbols.iter().filter(|r| r.name == "add").collect();
    assert!(adds1.iter().any(|r| r.stable_id.ends_with("~a2")));
    assert!(adds1.iter().any(|r| r.stable_id.ends_with("~a3")));
    let add_id = |suffix: &str| {
        let add = adds1.iter().find(|r| r.stable_id.ends_with(suffix));
        add.unwrap().stable_id.clone()
    };
    let (add3_id, add2_id) = (add_id("~a3"), add_id("~a2"));

    // c2: rename (same body), move between modules, signature change, deletion, first chain
    // hop, SCIP package bump, and an unrelated function replacing another in the same file.
    replace(&mut defs, "src/config.rs", "parse_config", |d| {
        d.name = "load_config";
        d.signature = "fn load_config(path: &Path) -> Config";
    });
    replace(&mut defs, "src/util.rs", "helper", |d| {
        d.path = "src/helpers.rs"
    });
    replace(&mut defs, "src/net.rs", "connect", |d| {
        d.signature = "fn connect(addr: &str, timeout: u32)"
    });
    remove(&mut defs, "src/util.rs", "obsolete");
    replace(&mut defs, "src/chain.rs", "step_one", |d| {
        d.name = "step_two";
        d.signature = "fn step_two(x: u32) -> u32";
    });
    replace(&mut defs, "src/lib.rs", "versioned", |d| {
        d.scip = Some("rust-analyzer cargo fx 0.2.0 versioned().")
    });
    remove(&mut defs, "src/unrelated.rs", "alpha");
    defs.push(def(
        "src/unrelated.rs",
        "omega",
        "fn omega(x: u32) -> u32",
        "b13",
    ));
    let s2 = step(Some(&s1), &defs, "c2");

    let load_id = id_of(&s2, "src/config.rs", "load_config").to_string();
    let a = alias(&s2, &parse_id).expect("rename recovered");
    assert_eq!(
        (a.new_id.as_str(), a.reason.as_str(), a.confidence),
        (load_id.as_str(), "renamed", 0.9)
    );
    let helper2 = id_of(&s2, "src/helpers.rs", "helper").to_string();
    assert_ne!(
        helper2, helper_id,
        "a move between modules changes the qualified container"
    );
    let a = alias(&s2, &helper_id).expect("move recovered");
    assert_eq!(
        (a.new_id.as_str(), a.reason.as_str()),
        (helper2.as_str(), "moved")
    );
    // Signature change: same ID, new definition version.
    assert_eq!(id_of(&s2, "src/net.rs", "connect"), connect_id);
    assert_ne!(
        row(&s2, &connect_id).definition_version_id,
        row(&s1, &connect_id).definition_version_id
    );
    // Package bump: same ID, nothing to alias.
    assert_eq!(id_of(&s2, "src/lib.rs", "versioned"), versioned_id);
    // Deletions become tombstones, with when and where.
    let t = s2
        .tombstones
        .iter()
        .find(|t| t.stable_id == obsolete_id)
        .expect("tombstone");
    assert_eq!(
        (t.last_path.as_str(), t.deleted_in_commit.as_str()),
        ("src/util.rs", "c2")
    );
    assert_eq!(t.deleted_in_state_id, "state-c2");
    // alpha → omega shares file, container and signature but nothing else: no redirect.
    assert!(
        alias(&s2, &alpha_id).is_none(),
        "false redirect alpha -> omega"
    );
    assert!(s2.tombstones.iter().any(|t| t.stable_id == alpha_id));
    let step_two = id_of(&s2, "src/chain.rs", "step_two").to_string();
    assert_eq!(
        alias(&s2, &step_one).map(|a| a.new_id.as_str()),
        Some(step_two.as_str())
    );

    // c3: re-addition, second chain hop, a Java overload whose arity collides.
    defs.push(def("src/util.rs", "obsolete", "fn obsolete()", "b4"));
    replace(&mut defs, "src/chain.rs", "step_two", |d| {
        d.name = "step_three";
        d.signature = "fn step_three(x: u32) -> u32";
    });
    defs.push(java("add", "double add(double a, double b)", 2, "j3"));
    let s3 = step(Some(&s2), &defs, "c3");
    assert_eq!(
        id_of(&s3, "src/util.rs", "obsolete"),
        obsolete_id,
        "re-added under its old ID"
    );
    assert!(
        !s3.tombstones.iter().any(|t| t.stable_id == obsolete_id),
        "tombstone dropped"
    );
    assert!(
        s3.tombstones.iter().any(|t| t.stable_id == alpha_id),
        "tombstone carried forward"
    );
    assert!(alias(&s3, &parse_id).is_some(), "alias carried forward");
    // Overloads: the three-parameter one keeps its ID; the int one now needs a signature
    // discriminator and is aliased to it by its unchanged body.
    assert!(s3.symbols.iter().any(|r| r.stable_id == add3_id));
    let a = alias(&s3, &add2_id).expect("re-discriminated overload aliased");
    assert_eq!(
        row(&s3, &a.new_id).signature.as_deref(),
        Some("int add(int a, int b)")
    );
    assert_eq!(a.reason, "renamed");

    // c4: third chain hop, merge, crate folder renamed (same SCIP symbol, new version).
    replace(&mut defs, "src/chain.rs", "step_three", |d| {
        d.name = "step_four";
        d.signature = "fn step_four(x: u32) -> u32";
    });
    remove(&mut defs, "src/merge.rs", "merge_a");
    remove(&mut defs, "src/merge.rs", "merge_b");
    // Two duplicated helpers consolidated into one with the same body.
    defs.push(def(
        "src/merge.rs",
        "merge_ab",
        "fn merge_ab(x: u32) -> u32",
        "b9",
    ));
    replace(&mut defs, "crates/core/src/lib.rs", "core_fn", |d| {
        d.path = "crates/core-lib/src/lib.rs";
        d.scip = Some("rust-analyzer cargo fx-core 0.3.0 core_fn().");
    });
    let s4 = step(Some(&s3), &defs, "c4");
    let merged: Vec<&AliasRow> = new_aliases(&s4, "c4")
        .into_iter()
        .filter(|a| a.reason == "merged")
        .collect();
    let merge_ab = id_of(&s4, "src/merge.rs", "merge_ab");
    assert_eq!(merged.len(), 2, "both halves merged");
    assert!(merged.iter().all(|a| a.new_id == merge_ab));
    let core2 = id_of(&s4, "crates/core-lib/src/lib.rs", "core_fn");
    let a = alias(&s4, &core_id).expect("crate folder rename recovered through SCIP");
    assert_eq!(
        (a.new_id.as_str(), a.reason.as_str(), a.confidence),
        (core2, "moved", 0.95)
    );

    // Resolution: the first ID of the chain reaches the last in three hops.
    let step_four = id_of(&s4, "src/chain.rs", "step_four").to_string();
    let active: BTreeSet<&str> = s4.symbols.iter().map(|r| r.stable_id.as_str()).collect();
    match resolve(&step_one, &s4.aliases, &s4.tombstones, |id| {
        active.contains(id)
    })
    .unwrap()
    {
        Resolution::Redirected {
            id, hops, reason, ..
        } => {
            assert_eq!(id, step_four);
            assert_eq!(hops.len(), 3);
            assert_eq!(reason, "renamed");
        }
        other => panic!("{other:?}"),
    }
    match resolve(&alpha_id, &s4.aliases, &s4.tombstones, |id| {
        active.contains(id)
    })
    .unwrap()
    {
        Resolution::Deleted { deletion, .. } => assert_eq!(deletion.deleted_in_commit, "c2"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        resolve(&obsolete_id, &s4.aliases, &s4.tombstones, |id| active
            .contains(id))
        .unwrap(),
        Resolution::Active {
            id: obsolete_id.clone()
        }
    );

    // Measure: every scripted identity change (old ID -> expected new ID) against what was found.
    let expected: BTreeSet<(String, String)> = [
        (parse_id.clone(), load_id.clone()),
        (helper_id.clone(), helper2.clone()),
        (step_one.clone(), step_two.clone()),
        (
            step_two.clone(),
            id_of(&s3, "src/chain.rs", "step_three").to_string(),
        ),
        (
            id_of(&s3, "src/chain.rs", "step_three").to_string(),
            step_four.clone(),
        ),
        (
            add2_id.to_string(),
            alias(&s3, &add2_id).unwrap().new_id.clone(),
        ),
        (
            id_of(&s3, "src/merge.rs", "merge_a").to_string(),
            merge_ab.to_string(),
        ),
        (
            id_of(&s3, "src/merge.rs", "merge_b").to_string(),
            merge_ab.to_string(),
        ),
        (core_id.clone(), core2.to_string()),
    ]
    .into_iter()
    .collect();
    let found: BTreeSet<(String, String)> = s4
        .aliases
        .iter()
        .map(|a| (a.old_id.clone(), a.new_id.clone()))
        .collect();
    let recovered = expected.intersection(&found).count();
    let false_redirects = found.difference(&expected).count();
    println!(
        "identity scripted history: renames recovered {recovered}/{} ({:.1}%), false redirects {false_redirects}",
        expected.len(),
        100.0 * recovered as f64 / expected.len() as f64
    );
    assert_eq!(recovered, expected.len());
    assert_eq!(false_redirects, 0);
}

#[test]
fn discriminators_are_stable_under_reordering_and_unrelated_additions() {
    let a = java("add", "int add(int a, int b)", 2, "j1");
    let b = java("add", "int add(int a, int b, int c)", 3, "j2");
    let c = java("mul", "int mul(int a, int b)", 2, "j4");
    let ids = |defs: &[Def]| -> BTreeSet<String> {
        table(defs)
            .into_iter()
            .map(|r| r.stable_id.to_string())
            .collect()
    };
    let one = ids(&[a.clone(), b.clone()]);
    assert_eq!(one, ids(&[b.clone(), a.clone()]));
    let with_mul = ids(&[a.clone(), c, b.clone()]);
    assert!(one.is_subset(&with_mul));
    // Java's overloads of one name differ only by discriminator.
    let rows = table(&[a, b]);
    let (x, y) = (&rows[0].stable_id, &rows[1].stable_id);
    assert_eq!(x.split('~').next(), y.split('~').next());
}

#[test]
fn an_existing_symbol_is_never_a_rename_target() {
    // `keep` existed before; `gone` vanishes with the same body and a similar name. Redirecting
    // `gone` to `keep` would send a saved ID to an unrelated, long-standing symbol.
    let keep = def(
        "src/a.rs",
        "parse_item",
        "fn parse_item(x: u32) -> u32",
        "same",
    );
    let gone = def(
        "src/a.rs",
        "parse_items",
        "fn parse_items(x: u32) -> u32",
        "same",
    );
    let s1 = step(None, &[keep.clone(), gone], "c1");
    let s2 = step(Some(&s1), &[keep], "c2");
    assert_deleted_only(&s2.aliases, &s2.tombstones, 1);
}

#[test]
fn trivial_shared_bodies_are_not_evidence() {
    // Two empty functions deleted, one unrelated empty function added: same body hash on three
    // symbols says nothing about identity.
    let s1 = step(
        None,
        &[
            def("src/a.rs", "init", "fn init()", "empty"),
            def("src/b.rs", "reset", "fn reset()", "empty"),
        ],
        "c1",
    );
    let s2 = step(
        Some(&s1),
        &[def("src/c.rs", "shutdown", "fn shutdown()", "empty")],
        "c2",
    );
    assert_deleted_only(&s2.aliases, &s2.tombstones, 2);
}

#[test]
fn an_alias_is_dropped_when_its_old_id_comes_back() {
    let s1 = step(
        None,
        &[def("src/a.rs", "old_name", "fn old_name()", "b")],
        "c1",
    );
    let s2 = step(
        Some(&s1),
        &[def("src/a.rs", "new_name", "fn new_name()", "b")],
        "c2",
    );
    assert_eq!(s2.aliases.len(), 1);
    let s3 = step(
        Some(&s2),
        &[
            def("src/a.rs", "new_name", "fn new_name()", "b"),
            def("src/a.rs", "old_name", "fn old_name()", "c"),
        ],
        "c3",
    );
    assert!(s3.aliases.is_empty(), "{:?}", s3.aliases);
}

#[test]
fn huge_candidate_blocks_are_skipped_not_compared_pairwise() {
    // A vanished `run` and 300 new functions named `run` elsewhere: no single pairing is
    // supported by the evidence, and comparing them all would be quadratic.
    let old = table(&[def("src/old.rs", "run", "fn run()", "x")]);
    let leaked: Vec<&'static str> = (0..300)
        .map(|i| &*Box::leak(format!("src/gen{i}.rs").into_boxed_str()))
        .collect();
    let new_defs: Vec<Def> = leaked
        .iter()
        .enumerate()
        .map(|(i, p)| {
            def(
                p,
                "run",
                "fn run()",
                Box::leak(format!("y{i}").into_boxed_str()),
            )
        })
        .collect();
    let out = compute(
        &Previous {
            symbols: old,
            ..Previous::default()
        },
        &table(&new_defs),
        Stamp {
            state_id: "s",
            commit: "c",
        },
    );
    assert_deleted_only(&out.aliases, &out.tombstones, 1);
    assert_eq!(out.stats.fuzzy_blocks_skipped, 1);
}
