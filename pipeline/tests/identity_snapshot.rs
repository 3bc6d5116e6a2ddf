//! End to end: a git history scripted with the git CLI (rename, move between modules, signature
//! change, deletion, re-addition, a rename chain over four commits), each commit snapshotted in
//! order through `pipeline::snapshot` into one store, so every snapshot builds against the one
//! before it.

use std::path::Path;

use output_schema::manifest::StageStatus;
use output_schema::parquet_io::read_table;
use output_schema::redirect::{resolve, Resolution};
use output_schema::tables::{AliasRow, SymbolRow, TombstoneRow};
use pipeline::store::StoredSnapshot;
use pipeline::{snapshot, NoProgress, PreviousChoice, SnapshotOptions};

fn write(root: &Path, path: &str, text: &str) {
    test_support::write_file(root, path, text);
}

fn commit(root: &Path, message: &str) {
    test_support::git_commit_all(root, message);
}

fn snap(root: &Path, previous: PreviousChoice) -> StoredSnapshot {
    let opts = SnapshotOptions {
        root: root.to_path_buf(),
        repo_id: Some("fx".into()),
        threads: Some(1),
        previous,
        ..SnapshotOptions::default()
    };
    snapshot(&opts, &NoProgress)
        .expect("snapshot")
        .snapshot()
        .clone()
}

/// Writes the files (path, text), commits everything and snapshots, building on the previous
/// snapshot.
fn commit_files(root: &Path, message: &str, files: &[(&str, &str)]) -> StoredSnapshot {
    for (path, text) in files {
        write(root, path, text);
    }
    commit(root, message);
    snap(root, PreviousChoice::Auto)
}

/// `src/chain.rs` at one hop of the rename chain: the same body under another name.
fn chain_link(name: &str) -> String {
    format!("pub fn {name}(v: &[u8]) -> u64 {{\n    v.iter().map(|b| *b as u64 * 3).sum()\n}}\n")
}

fn table<T: output_schema::Table>(s: &StoredSnapshot) -> Option<Vec<T>> {
    let entry = s.manifest.table(T::INFO.name)?;
    Some(read_table::<T>(&s.dir.join(&entry.file)).expect("table reads"))
}

fn id_named(symbols: &[SymbolRow], name: &str) -> String {
    let hits: Vec<&SymbolRow> = symbols.iter().filter(|s| s.name == name).collect();
    assert_eq!(hits.len(), 1, "one symbol named {name}");
    hits[0].stable_id.to_string()
}

const LIB: &str = "pub mod config;\npub mod util;\npub mod chain;\n";

#[test]
fn snapshots_of_a_scripted_history_keep_ids_meaningful() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("fx");
    std::fs::create_dir_all(&root).unwrap();
    test_support::git_init(&root);
    // The store is inside the repository and `commit` adds everything: keep it out of git, as
    // users do (a committed snapshot is never reused as the previous one).
    std::fs::write(root.join(".git/info/exclude"), ".ckb/snapshots/\n").unwrap();
    let s1 = commit_files(
        &root,
        "c1",
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"fx\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
            ),
            ("src/lib.rs", LIB),
            (
                "src/config.rs",
                "pub fn parse_config(path: &str) -> usize {\n    path.len() * 2 + 1\n}\n",
            ),
            ("src/util.rs", "pub fn helper(x: u32) -> u32 {\n    x.wrapping_mul(31) ^ 7\n}\n\npub fn obsolete() -> u8 {\n    42\n}\n"),
            ("src/chain.rs", &chain_link("step_one")),
        ],
    );

    let identity = &s1.manifest.stages["identity"];
    let symbols1 = table::<SymbolRow>(&s1).expect("the syntax stage writes symbols");
    assert_eq!(identity.status, StageStatus::Ok);
    assert!(table::<AliasRow>(&s1).unwrap().is_empty());
    assert!(table::<TombstoneRow>(&s1).unwrap().is_empty());
    let parse_id = id_named(&symbols1, "parse_config");
    let helper_id = id_named(&symbols1, "helper");
    let obsolete_id = id_named(&symbols1, "obsolete");
    let step_one = id_named(&symbols1, "step_one");

    // c2: rename (same body), move helper to another module, delete obsolete, chain hop 1.
    let s2 = commit_files(
        &root,
        "c2",
        &[
            ("src/lib.rs", &format!("{LIB}pub mod helpers;\n")),
            (
                "src/config.rs",
                "pub fn load_config(path: &str) -> usize {\n    path.len() * 2 + 1\n}\n",
            ),
            ("src/util.rs", ""),
            (
                "src/helpers.rs",
                "pub fn helper(x: u32) -> u32 {\n    x.wrapping_mul(31) ^ 7\n}\n",
            ),
            ("src/chain.rs", &chain_link("step_two")),
        ],
    );
    assert_eq!(
        s2.manifest.previous.as_ref().unwrap().snapshot_id,
        s1.manifest.snapshot_id
    );
    let symbols2 = table::<SymbolRow>(&s2).unwrap();
    let aliases2 = table::<AliasRow>(&s2).unwrap();
    let tombs2 = table::<TombstoneRow>(&s2).unwrap();
    let to = |aliases: &[AliasRow], old: &str| {
        aliases
            .iter()
            .find(|a| a.old_id == old)
            .map(|a| a.new_id.clone())
    };
    assert_eq!(
        to(&aliases2, &parse_id),
        Some(id_named(&symbols2, "load_config"))
    );
    assert_eq!(
        to(&aliases2, &helper_id),
        Some(id_named(&symbols2, "helper"))
    );
    assert_eq!(
        to(&aliases2, &step_one),
        Some(id_named(&symbols2, "step_two"))
    );
    assert!(tombs2
        .iter()
        .any(|t| t.stable_id == obsolete_id && t.last_path == "src/util.rs"));

    // c3: signature change (same ID, new definition version), re-addition, chain hop 2.
    let s3 = commit_files(
        &root,
        "c3",
        &[
            (
                "src/helpers.rs",
                "pub fn helper(x: u32, y: u32) -> u32 {\n    x.wrapping_mul(31) ^ y\n}\n",
            ),
            ("src/util.rs", "pub fn obsolete() -> u8 {\n    42\n}\n"),
            ("src/chain.rs", &chain_link("step_three")),
        ],
    );
    let symbols3 = table::<SymbolRow>(&s3).unwrap();
    let helper2 = symbols2.iter().find(|s| s.name == "helper").unwrap();
    let helper3 = symbols3.iter().find(|s| s.name == "helper").unwrap();
    assert_eq!(helper2.stable_id, helper3.stable_id);
    assert_ne!(helper2.definition_version_id, helper3.definition_version_id);
    assert_eq!(id_named(&symbols3, "obsolete"), obsolete_id);
    assert!(!table::<TombstoneRow>(&s3)
        .unwrap()
        .iter()
        .any(|t| t.stable_id == obsolete_id));

    // c4: chain hop 3; the first ID resolves to the last.
    let s4 = commit_files(&root, "c4", &[("src/chain.rs", &chain_link("step_four"))]);
    let symbols4 = table::<SymbolRow>(&s4).unwrap();
    let aliases4 = table::<AliasRow>(&s4).unwrap();
    let tombs4 = table::<TombstoneRow>(&s4).unwrap();
    let active: std::collections::BTreeSet<&str> =
        symbols4.iter().map(|s| s.stable_id.as_str()).collect();
    match resolve(&step_one, &aliases4, &tombs4, |id| active.contains(id)).unwrap() {
        Resolution::Redirected { id, hops, .. } => {
            assert_eq!(id, id_named(&symbols4, "step_four"));
            assert_eq!(hops.len(), 3);
        }
        other => panic!("{other:?}"),
    }
    // The orchestrator's problems choosing a previous snapshot reach the identity report.
    commit_nothing_and_check_previous_warning(&root);
}

/// Snapshots again with an explicit previous snapshot that does not exist: the warning must be in
/// the identity report.
fn commit_nothing_and_check_previous_warning(root: &Path) {
    write(root, "src/extra.rs", "pub fn extra() {}\n");
    commit(root, "c-extra");
    let s = snap(
        root,
        PreviousChoice::Explicit(root.join("no-such-snapshot")),
    );
    let w = test_support::warning(&s.manifest.stages["identity"], "previous-snapshot");
    assert!(w.message.contains("no-such-snapshot"), "{}", w.message);
}
