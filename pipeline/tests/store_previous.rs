//! Choosing the previous snapshot in a store that holds many (CI adds one per commit): the
//! snapshots of a commit are found by folder name, and only the manifests of the commit the
//! choice settles on are read.
//!
//! The store is seeded with damaged snapshots: a manifest that is read shows up as an
//! "unreadable snapshot" warning, so the warnings say exactly which manifests were opened.

mod scip_support;

use std::path::{Path, PathBuf};

use output_schema::manifest::Warning;
use output_schema::Stage;
use pipeline::store::StoredSnapshot;
use pipeline::{snapshot, NoProgress, PreviousChoice, SnapshotOptions};
use scip_support::git;

fn commit_file(root: &Path, path: &str, text: &str) -> String {
    std::fs::write(root.join(path), text).unwrap();
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", path]);
    git(root, &["rev-parse", "HEAD"])
}

fn snap(root: &Path, store: &Path) -> StoredSnapshot {
    let opts = SnapshotOptions {
        root: root.to_path_buf(),
        out: Some(store.to_path_buf()),
        repo_id: Some("fx".into()),
        stages: Some(vec![Stage::Scan, Stage::Syntax, Stage::Identity]),
        threads: Some(1),
        previous: PreviousChoice::Auto,
        ..SnapshotOptions::default()
    };
    snapshot(&opts, &NoProgress)
        .expect("snapshot")
        .snapshot()
        .clone()
}

/// A snapshot folder whose manifest cannot be read.
fn damaged(store: &Path, partition: &str) {
    let dir = store.join("repo=fx").join(format!("commit={partition}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("manifest.json.zst"), b"not a manifest").unwrap();
}

fn previous_warnings(s: &StoredSnapshot) -> Vec<&Warning> {
    s.manifest.stages["identity"]
        .warnings
        .iter()
        .filter(|w| w.code == "previous-snapshot")
        .collect()
}

/// An empty git repository `repo` and the path of a store `store`, both under `tmp`.
fn repo_and_store(tmp: &Path) -> (PathBuf, PathBuf) {
    let root = tmp.join("repo");
    std::fs::create_dir_all(&root).unwrap();
    test_support::git_init(&root);
    (root, tmp.join("store"))
}

#[test]
fn the_newest_ancestor_is_found_by_folder_name_reading_only_its_commits_manifests() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, store) = repo_and_store(tmp.path());

    let a = commit_file(&root, "a.py", "def a():\n    return 1\n");
    let first = snap(&root, &store);
    assert_eq!(first.manifest.previous, None, "nothing to build on yet");

    let b = commit_file(&root, "b.py", "def b():\n    return a()\n");
    // The commit just before HEAD has only a damaged snapshot: it is read, reported and passed
    // over for an older ancestor.
    damaged(&store, &b);
    // A dirty snapshot of the ancestor that is chosen: the clean one is preferred, so the dirty
    // one's manifest is never opened.
    damaged(&store, &format!("{a}-dirty-0123456789ab"));
    // Many snapshots of commits that are not ancestors, and folders without a head commit: none
    // of them is opened.
    for i in 0..300 {
        damaged(&store, &format!("{i:040x}"));
    }
    damaged(&store, "unborn-0123456789ab");
    damaged(&store, "nogit-0123456789ab");

    let c = commit_file(&root, "c.py", "def c():\n    return b()\n");
    let third = snap(&root, &store);
    let previous = third
        .manifest
        .previous
        .as_ref()
        .expect("a previous snapshot");
    assert_eq!(previous.chosen_by, "ancestor");
    assert_eq!(previous.head_commit.as_deref(), Some(a.as_str()));
    assert_eq!(previous.snapshot_id, a);
    assert_eq!(
        third.manifest.repo_state.head_commit.as_deref(),
        Some(c.as_str())
    );

    let warnings = previous_warnings(&third);
    assert_eq!(
        warnings.len(),
        1,
        "only B's manifest was opened: {warnings:?}"
    );
    assert!(
        warnings[0].message.contains(&format!("commit={b}"))
            && warnings[0].message.contains("unreadable"),
        "{warnings:?}"
    );

    // The syntax stage built on it: only the files added since A were parsed.
    let syntax = &third.manifest.stages["syntax"];
    assert_eq!(
        syntax.counts.get("files.reused").copied(),
        Some(1),
        "{syntax:?}"
    );
}

/// Snapshots with the given stages into `store`, the previous snapshot chosen automatically.
fn snap_stages(
    root: &Path,
    store: &Path,
    stages: &[Stage],
    previous: PreviousChoice,
) -> StoredSnapshot {
    let opts = SnapshotOptions {
        root: root.to_path_buf(),
        out: Some(store.to_path_buf()),
        repo_id: Some("fx".into()),
        stages: Some(stages.to_vec()),
        threads: Some(1),
        previous,
        force: true,
        ..SnapshotOptions::default()
    };
    snapshot(&opts, &NoProgress)
        .expect("snapshot")
        .snapshot()
        .clone()
}

fn parquet_bytes(s: &StoredSnapshot) -> Vec<(String, Vec<u8>)> {
    s.manifest
        .tables
        .iter()
        .map(|t| (t.file.clone(), std::fs::read(s.dir.join(&t.file)).unwrap()))
        .collect()
}

#[test]
fn a_previous_snapshot_that_fails_verification_is_passed_over_even_without_identity() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, store) = repo_and_store(tmp.path());
    commit_file(&root, "a.py", "def a():\n    return 1\n");
    let stages = [Stage::Scan, Stage::Syntax, Stage::Git];
    let first = snap_stages(&root, &store, &stages, PreviousChoice::Auto);
    commit_file(&root, "b.py", "def b():\n    return a()\n");

    // Honest: the rows are reused.
    let honest = snap_stages(&root, &store, &stages, PreviousChoice::Auto);
    assert_eq!(honest.manifest.stages["syntax"].counts["files.reused"], 1);
    assert_eq!(honest.manifest.stages["git"].counts["commits.reused"], 1);

    // The `files` table replaced by the current one: valid Parquet, readable rows, wrong hash.
    let files = first.manifest.table("files").unwrap().file.clone();
    std::fs::copy(honest.dir.join(&files), first.dir.join(&files)).unwrap();
    let tampered = snap_stages(&root, &store, &stages, PreviousChoice::Auto);
    assert_eq!(tampered.manifest.previous, None);
    // Without identity, the first reusing stage that ran holds the warning.
    let syntax = &tampered.manifest.stages["syntax"];
    let w = test_support::warning(syntax, "previous-unverified");
    assert!(w.message.contains("files.parquet"), "{}", w.message);
    assert_eq!(syntax.counts.get("files.reused"), None, "{syntax:?}");
    assert_eq!(tampered.manifest.stages["git"].counts["commits.reused"], 0);

    let cold = snap_stages(&root, &store, &stages, PreviousChoice::Disabled);
    assert_eq!(parquet_bytes(&tampered), parquet_bytes(&cold));
    assert_eq!(parquet_bytes(&honest), parquet_bytes(&cold));

    // The same snapshot given explicitly is an error with the stable code, naming the file.
    let explicit = PreviousChoice::Explicit(first.dir.clone());
    let opts = SnapshotOptions {
        root: root.clone(),
        out: Some(store.clone()),
        repo_id: Some("fx".into()),
        stages: Some(stages.to_vec()),
        previous: explicit,
        force: true,
        ..SnapshotOptions::default()
    };
    let err = snapshot(&opts, &NoProgress).unwrap_err();
    assert_eq!(err.code(), output_schema::ErrorCode::SnapshotCorrupt);
    assert!(err.to_string().contains("files.parquet"), "{err}");
}
