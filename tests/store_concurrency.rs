//! Real concurrent processes on one store (issue #24): writers of the same commit, of different
//! commits and `--force` rebuilds side by side, and readers (`ckb query`) running while snapshots
//! are published and replaced. Every writer succeeds, every snapshot verifies, nothing is left
//! behind, and a reader never sees a damaged or half snapshot.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};

use common::store_check::*;
use common::*;

const REPO_ID: &str = "fx";

fn repo_with_commits(n: usize) -> (Fixture, Vec<String>) {
    let repo = Fixture::git_in("repo");
    let mut shas = Vec::new();
    for c in 0..n {
        for i in 0..15 {
            repo.write(
                &format!("pkg/f{i:02}.py"),
                format!("def f{i}(x):\n    return g{i}(x) + {c}\n\ndef g{i}(x):\n    return x\n"),
            );
        }
        shas.push(repo.commit(&format!("commit {c}")));
    }
    (repo, shas)
}

/// Starts `ckb snapshot <dir> --out <store> --json` (plus `extra`) without waiting.
fn spawn_snapshot(dir: &Path, store: &Path, extra: &[&str], env: &[(&str, &str)]) -> Child {
    let mut cmd = ckb_command(dir, &["snapshot", dir.to_str().unwrap(), "--out"]);
    cmd.arg(store)
        .args(["--repo-id", REPO_ID, "--progress", "never", "--json"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.spawn().unwrap()
}

/// Waits for a snapshot process; asserts success and returns its `status` (`written`,
/// `existing`) and snapshot folder.
fn finished(child: Child) -> (String, PathBuf) {
    let out = child.wait_with_output().unwrap();
    test_support::assert_success(&out, "concurrent ckb snapshot");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    (
        v["status"].as_str().unwrap().to_string(),
        PathBuf::from(v["snapshot"].as_str().unwrap()),
    )
}

/// Detached worktrees of `repo` at each commit, beside the repository.
fn worktrees(repo: &Fixture, shas: &[String]) -> Vec<PathBuf> {
    shas.iter()
        .enumerate()
        .map(|(i, sha)| {
            let dir = repo.dir.path().join(format!("wt{i}"));
            repo.run_git(&["worktree", "add", "--detach", dir.to_str().unwrap(), sha]);
            dir
        })
        .collect()
}

#[test]
fn writers_of_one_commit_write_it_once_and_the_others_find_it() {
    let (repo, _) = repo_with_commits(1);
    let store = tempfile::tempdir().unwrap();
    let children: Vec<Child> = (0..4)
        .map(|_| spawn_snapshot(repo.path(), store.path(), &[], &[]))
        .collect();
    let results: Vec<(String, PathBuf)> = children.into_iter().map(finished).collect();
    let written = results.iter().filter(|(s, _)| s == "written").count();
    assert_eq!(written, 1, "{results:?}");
    assert!(results.iter().all(|(_, dir)| *dir == results[0].1));
    assert_eq!(visible_snapshots(store.path()).len(), 1);
    assert_all_verify(store.path(), "one commit, four writers");
    assert_eq!(leftovers(store.path()), Vec::<String>::new());
}

#[test]
fn writers_of_different_commits_share_one_store() {
    let (repo, shas) = repo_with_commits(3);
    let trees = worktrees(&repo, &shas);
    let store = tempfile::tempdir().unwrap();
    // Two writers per commit, all at once.
    let children: Vec<Child> = trees
        .iter()
        .chain(trees.iter())
        .map(|dir| spawn_snapshot(dir, store.path(), &[], &[]))
        .collect();
    let results: Vec<(String, PathBuf)> = children.into_iter().map(finished).collect();
    assert_eq!(
        results.iter().filter(|(s, _)| s == "written").count(),
        3,
        "{results:?}"
    );
    let visible = visible_snapshots(store.path());
    let expected: Vec<PathBuf> = {
        let mut v: Vec<PathBuf> = shas
            .iter()
            .map(|s| store.path().join(format!("repo={REPO_ID}/commit={s}")))
            .collect();
        v.sort();
        v
    };
    assert_eq!(visible, expected);
    assert_all_verify(store.path(), "three commits, six writers");
    assert_eq!(leftovers(store.path()), Vec::<String>::new());
    // The shared scan cache, written by whichever finished last, is a whole file.
    let cache = store
        .path()
        .join(format!("repo={REPO_ID}/scan-cache.json.zst"));
    assert!(output_schema::manifest::decompress(&std::fs::read(cache).unwrap()).is_ok());
}

#[test]
fn concurrent_force_rebuilds_keep_one_whole_snapshot() {
    let (repo, _) = repo_with_commits(1);
    let store = tempfile::tempdir().unwrap();
    let first = snapshot(repo.path(), store.path(), &["--repo-id", REPO_ID]);
    let tables = table_files(&first);
    for env in [&[][..], &[("CKB_FAILPOINT", "no-exchange")][..]] {
        let children: Vec<Child> = (0..3)
            .map(|_| spawn_snapshot(repo.path(), store.path(), &["--force"], env))
            .collect();
        for child in children {
            assert_eq!(finished(child).0, "written");
        }
        assert_eq!(visible_snapshots(store.path()), vec![first.clone()]);
        assert_all_verify(store.path(), "three --force rebuilds");
        assert_eq!(table_files(&first), tables, "{env:?}");
        assert_eq!(leftovers(store.path()), Vec::<String>::new(), "{env:?}");
    }
}

/// One reader call in the repository: `ckb query --format json <args>` over `--store STORE`
/// (the snapshot of the current state) or `--snapshot DIR` (that folder).
fn read(repo: &Path, flag: &str, dir: &Path, args: &[&str]) -> Output {
    let mut all: Vec<&str> = vec!["query", flag, dir.to_str().unwrap(), "--format", "json"];
    all.extend_from_slice(args);
    ckb(repo, &all)
}

/// Runs two readers in a loop on other threads while `write` runs: one through the store, one
/// reading the tables of the snapshot folder `snapshot`. Returns every reader call's outcome:
/// `ok`, or the error code it answered with.
fn read_while(repo: &Path, store: &Path, snapshot: &Path, write: impl FnOnce()) -> Vec<String> {
    let done = AtomicBool::new(false);
    let outcomes = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for (flag, dir, args) in [
            ("--store", store, &["status"][..]),
            ("--snapshot", snapshot, &["search", "f1"][..]),
        ] {
            let (done, outcomes) = (&done, &outcomes);
            scope.spawn(move || {
                while !done.load(Ordering::SeqCst) {
                    let out = read(repo, flag, dir, args);
                    let text = String::from_utf8_lossy(&out.stdout).into_owned();
                    let v: serde_json::Value = serde_json::from_str(&text)
                        .unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
                    let outcome = if out.status.success() {
                        assert!(v["facts"].is_object(), "{text}");
                        "ok".to_string()
                    } else {
                        v["error"]["code"].as_str().unwrap_or("?").to_string()
                    };
                    outcomes.lock().unwrap().push(outcome);
                }
            });
        }
        write();
        done.store(true, Ordering::SeqCst);
    });
    outcomes.into_inner().unwrap()
}

#[test]
fn a_reader_never_sees_a_damaged_or_half_snapshot_while_snapshots_are_published() {
    let (repo, shas) = repo_with_commits(3);
    let trees = worktrees(&repo, &shas[..2]);
    let store = tempfile::tempdir().unwrap();
    let head = snapshot(repo.path(), store.path(), &["--repo-id", REPO_ID]);
    let outcomes = read_while(repo.path(), store.path(), &head, || {
        for round in 0..6 {
            // New snapshots published by a rename, then rebuilt (exchanged); and each round the
            // head's snapshot, the one the readers read, replaced by an exchange.
            let tree = &trees[round % trees.len()];
            let extra: &[&str] = if round < trees.len() {
                &[]
            } else {
                &["--force"]
            };
            finished(spawn_snapshot(tree, store.path(), extra, &[]));
            finished(spawn_snapshot(repo.path(), store.path(), &["--force"], &[]));
        }
    });
    eprintln!("exchange: {} reader calls", outcomes.len());
    assert!(
        outcomes.len() >= 4,
        "the readers ran {} times",
        outcomes.len()
    );
    assert!(
        outcomes.iter().all(|o| o == "ok"),
        "a reader failed while snapshots were published: {outcomes:?}"
    );
    assert_all_verify(store.path(), "after the publishes");
    assert_eq!(leftovers(store.path()), Vec::<String>::new());

    // Without an exchange, the head's folder is missing for the instant between two renames;
    // ckb's readers wait at the gate the writer closes for it, so they still always answer.
    let outcomes = read_while(repo.path(), store.path(), &head, || {
        for _ in 0..4 {
            finished(spawn_snapshot(
                repo.path(),
                store.path(),
                &["--force"],
                &[("CKB_FAILPOINT", "no-exchange")],
            ));
        }
    });
    eprintln!("fallback: {} reader calls", outcomes.len());
    assert!(outcomes.iter().all(|o| o == "ok"), "{outcomes:?}");
    assert_all_verify(store.path(), "after the fallback publishes");
}
