//! The history stage on the clones CI really has: blobless (`--filter=blob:none`) and treeless
//! (`--filter=tree:0`) partial clones, shallow clones, a HEAD whose own objects are missing, and
//! `--history-fetch-missing` against a local `file://` promisor remote. Every clone is made with
//! real `git` from a source repository the test scripts.

mod history_support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use history_support::*;
use output_schema::manifest::StageStatus;
use output_schema::tables::FileChangeRow;
use output_schema::ErrorCode;
use pipeline::{NoProgress, PipelineError, PreviousChoice};

/// A source repository that allows partial clones, with modifications, an exact and an inexact
/// rename, a binary file and a file added in the middle.
fn source() -> Repo {
    let mut r = Repo::new();
    r.git(&["config", "uploadpack.allowFilter", "true"]);
    let numbered = |tag: &str| -> String { (0..30).map(|i| format!("{tag} line {i}\n")).collect() };
    r.write("a.txt", numbered("a"));
    r.write("d/b.txt", "b\n");
    r.write("bin.dat", b"\0\x01binary\0".as_slice());
    r.commit("c1");
    r.write("a.txt", numbered("a").replace("a line 3\n", "changed 3\n"));
    r.write("e.txt", numbered("e"));
    r.commit("c2");
    std::fs::create_dir_all(r.path().join("d2")).unwrap();
    r.git(&["mv", "d/b.txt", "d2/b.txt"]);
    r.write("bin.dat", b"\0\x02binary\0".as_slice());
    r.commit("c3 exact rename");
    r.remove("e.txt");
    r.write("f.txt", numbered("e").replace("e line 7\n", "edited 7\n"));
    r.commit("c4 inexact rename");
    r.write(
        "a.txt",
        numbered("a").replace("a line 20\n", "changed 20\n"),
    );
    r.commit("c5");
    r
}

/// The [`source`] repository and a folder for its clones.
struct Origin {
    src: Repo,
    parent: tempfile::TempDir,
}

impl Origin {
    fn new() -> Origin {
        Origin {
            src: source(),
            parent: tempfile::tempdir().unwrap(),
        }
    }

    /// `git clone <args> file://<src> <name>` in the clones' folder; returns the clone's path.
    fn clone_as(&self, name: &str, args: &[&str]) -> PathBuf {
        let url = format!("file://{}", self.src.path().display());
        let parent = self.parent.path();
        test_support::run_ok(
            git_command(parent, self.src.time, &self.src.author)
                .arg("clone")
                .arg("-q")
                .args(args)
                .args([url.as_str(), name]),
        );
        parent.join(name)
    }
}

/// `file_changes` keyed by (sha, path, change).
fn changes_by_key(rows: &[FileChangeRow]) -> BTreeMap<(String, String, String), &FileChangeRow> {
    rows.iter()
        .map(|r| ((r.sha.clone(), r.path.clone(), r.change.clone()), r))
        .collect()
}

/// A git-only snapshot of `root` in a store of its own (clones of one source share snapshot
/// folder names); the store lives as long as the returned guard.
fn snapshot_in(
    root: &Path,
    configure: impl FnOnce(&mut pipeline::SnapshotOptions),
) -> (tempfile::TempDir, PathBuf) {
    let store = tempfile::tempdir().unwrap();
    let mut opts = git_only(root, store.path());
    configure(&mut opts);
    let dir = snapshot(&opts);
    (store, dir)
}

fn clone_kind(snap: &Path) -> (String, Option<String>, Vec<String>) {
    let c = manifest(snap)
        .repo_state
        .clone_state
        .expect("git snapshots record the clone");
    (c.kind, c.filter, c.shallow_boundary)
}

#[test]
fn a_blobless_clone_keeps_every_commit_and_change_and_says_which_lack_line_counts() {
    let origin = Origin::new();
    let full = origin.clone_as("full", &[]);
    let blobless = origin.clone_as("blobless", &["--filter=blob:none"]);
    let (_s1, full_snap) = snapshot_in(&full, |_| {});
    let (_s2, snap) = snapshot_in(&blobless, |_| {});
    let (want, got) = (read_history(&full_snap), read_history(&snap));

    assert_eq!(clone_kind(&full_snap), ("full".into(), None, vec![]));
    assert_eq!(
        clone_kind(&snap),
        ("blobless".into(), Some("blob:none".into()), vec![])
    );

    // Commits, times, parents and authors come from commits, which the clone has.
    let ids = |h: &History| -> Vec<(String, Vec<String>, i64, i64, String)> {
        h.commits
            .iter()
            .map(|c| {
                (
                    c.sha.clone(),
                    c.parents.clone(),
                    c.author_time,
                    c.committer_time,
                    c.author_id.clone(),
                )
            })
            .collect()
    };
    assert_eq!(ids(&got), ids(&want));
    assert_eq!(got.commits.len(), 5);

    // Every change is there with its kind and paths; the exact rename too. Only the inexact
    // rename (c4), whose old blob is not in the clone, is an addition plus a deletion.
    let (want_rows, got_rows) = (
        changes_by_key(&want.file_changes),
        changes_by_key(&got.file_changes),
    );
    let c3 = &want.commits[2].sha;
    let c4 = &want.commits[3].sha;
    let key = |sha: &str, path: &str, change: &str| (sha.to_string(), path.into(), change.into());
    assert!(got_rows.contains_key(&key(c3, "d2/b.txt", "R")));
    assert!(want_rows.contains_key(&key(c4, "f.txt", "R")));
    assert!(got_rows.contains_key(&key(c4, "f.txt", "A")));
    assert!(got_rows.contains_key(&key(c4, "e.txt", "D")));
    type Key = (String, String, String);
    let others = |rows: &BTreeMap<Key, &FileChangeRow>| -> Vec<Key> {
        rows.keys().filter(|k| &k.0 != c4).cloned().collect()
    };
    assert_eq!(others(&got_rows), others(&want_rows));

    // Line counts: equal where known, null (and not binary) where a blob is missing.
    let mut without = 0;
    for (k, row) in &got_rows {
        match (row.additions, want_rows.get(k)) {
            (Some(_), Some(w)) => {
                assert_eq!(
                    (row.additions, row.deletions),
                    (w.additions, w.deletions),
                    "{k:?}"
                )
            }
            (None, _) if row.is_binary => {}
            (None, _) => {
                without += 1;
                assert!(row.deletions.is_none(), "{k:?}");
            }
            (Some(_), None) => {} // c4's addition, counted from the checked-out blob
        }
    }
    assert!(
        without >= 3,
        "c1's a.txt, c2's and c5's modifications: {without}"
    );

    let report = git_report(&snap);
    assert_eq!(report.status, StageStatus::Partial);
    let c = report.completeness.clone().unwrap();
    assert_eq!(c.reason, "blobless-clone");
    assert!(c.score >= 0.5 && c.score < 1.0, "{}", c.score);
    assert_eq!(count(&report, "file-changes.without-line-counts"), without);
    assert_eq!(count(&report, "commits.file-changes-unknown"), 0);
    assert!(count(&report, "objects.missing") >= 3);
    assert_eq!(count(&report, "commits.renames-unscored"), 1);
    // A warning counts the changes without line counts.
    let w = test_support::warning(&report, "lines-unavailable");
    assert!(
        w.message.starts_with(&format!("{without} file change(s)")),
        "{}",
        w.message
    );
    assert!(
        w.message.contains("--history-fetch-missing"),
        "{}",
        w.message
    );
    // A partial clone lacks objects by design: no warning per commit.
    assert!(!test_support::warning_codes(&report).contains(&"missing-object"));

    // Churn still counts every commit that touched a file.
    let churn = |h: &History, path: &str| -> Option<i64> {
        h.churn
            .iter()
            .find(|c| c.path == path && c.window == "all")
            .map(|c| c.commits)
    };
    assert_eq!(churn(&got, "a.txt"), churn(&want, "a.txt"));
    assert_eq!(churn(&got, "a.txt"), Some(3));

    // The same clone gives the same bytes at any thread count.
    let (_s3, one) = snapshot_in(&blobless, |o| o.threads = Some(1));
    assert_eq!(history_bytes(&one), history_bytes(&snap));
}

#[test]
fn a_treeless_clone_keeps_every_commit_without_its_file_changes() {
    let origin = Origin::new();
    let treeless = origin.clone_as("treeless", &["--filter=tree:0"]);
    let (_store, snap) = snapshot_in(&treeless, |_| {});
    let h = read_history(&snap);
    assert_eq!(
        clone_kind(&snap),
        ("treeless".into(), Some("tree:0".into()), vec![])
    );
    assert_eq!(h.commits.len(), 5);
    assert!(h.commits.iter().all(|c| c.files_changed == 0));
    // Only HEAD's own tree is checked out; every commit's diff needs an older one.
    assert!(h.file_changes.is_empty());
    let report = git_report(&snap);
    assert_eq!(report.status, StageStatus::Partial);
    let c = report.completeness.clone().unwrap();
    assert_eq!(c.reason, "treeless-clone");
    assert!(c.score < 0.5, "{}", c.score);
    assert_eq!(count(&report, "commits.file-changes-unknown"), 5);
    // A warning counts the commits without file changes.
    let w = test_support::warning(&report, "changes-unavailable");
    assert!(w.message.starts_with("5 commit(s)"), "{}", w.message);
    // Ownership of a file needs its changes; the commits still name their authors.
    assert!(h.ownership.is_empty());
    assert!(h.commits.iter().all(|c| c.author_id.len() == 32));
}

#[test]
fn fetch_missing_completes_blobless_and_treeless_clones_from_the_promisor_remote() {
    let origin = Origin::new();
    let full = origin.clone_as("full", &[]);
    let want = history_bytes(&snapshot_in(&full, |_| {}).1);
    for filter in ["--filter=blob:none", "--filter=tree:0"] {
        let name = filter.trim_start_matches("--filter=").replace(':', "-");
        let partial = origin.clone_as(&name, &[filter]);
        let store = tempfile::tempdir().unwrap();
        let mut opts = git_only(&partial, store.path());
        opts.history_fetch_missing = true;
        let snap = snapshot(&opts);
        assert_eq!(history_bytes(&snap), want, "{filter}: as from a full clone");
        let report = git_report(&snap);
        assert_eq!(report.status, StageStatus::Ok, "{filter}");
        assert_eq!(report.completeness.as_ref().unwrap().reason, "full-history");
        let requested = count(&report, "objects.fetch-requested");
        assert!(requested > 0, "{filter}");
        assert_eq!(count(&report, "objects.fetched"), requested, "{filter}");
        assert_eq!(count(&report, "objects.missing"), 0, "{filter}");
        // The fetch time goes to run.json, never into the snapshot.
        let run = std::fs::read_to_string(snap.join("run.json")).unwrap();
        assert!(run.contains("git.fetch-missing"), "{run}");
        // The objects are in the clone now: the next snapshot fetches nothing.
        let again = git_report(&snapshot(&opts));
        assert_eq!(count(&again, "objects.fetch-requested"), 0, "{filter}");
    }
}

#[test]
fn fetch_missing_failing_or_without_a_promisor_still_gives_the_degraded_snapshot() {
    let origin = Origin::new();
    let blobless = origin.clone_as("blobless", &["--filter=blob:none"]);
    // The promisor remote is gone.
    std::fs::rename(origin.src.path(), origin.parent.path().join("moved-away")).unwrap();
    let (_store, dir) = snapshot_in(&blobless, |o| o.history_fetch_missing = true);
    let report = git_report(&dir);
    assert_eq!(
        report.completeness.as_ref().unwrap().reason,
        "blobless-clone"
    );
    assert!(test_support::warning_codes(&report).contains(&"fetch-missing-failed"));
    assert!(count(&report, "file-changes.without-line-counts") > 0);
    assert_eq!(count(&report, "objects.fetched"), 0);
}

#[test]
fn incremental_snapshots_of_a_blobless_clone_equal_a_full_walk_and_fill_gaps_later() {
    let mut origin = Origin::new();
    let blobless = origin.clone_as("blobless", &["--filter=blob:none"]);
    let (_s1, first) = snapshot_in(&blobless, |_| {});
    for i in 0..3 {
        origin.src.write("a.txt", format!("grown {i}\n"));
        origin.src.write(&format!("new{i}.txt"), "n\n");
        origin.src.commit(&format!("grow {i}"));
    }
    test_support::run_ok(
        git_command(&blobless, origin.src.time, &origin.src.author).args([
            "pull",
            "-q",
            "--ff-only",
        ]),
    );

    let previous = PreviousChoice::Explicit(first.clone());
    let (_s2, incremental) = snapshot_in(&blobless, |o| o.previous = previous.clone());
    let m = manifest(&incremental);
    let git = m.backends.iter().find(|b| b.kind == "git").unwrap();
    assert!(git.counts["commitsReused"] > 0, "{:?}", git.counts);
    assert!(
        git.counts["commitsDiffed"] > 3,
        "rows without line counts are diffed again"
    );
    let (_s3, walked) = snapshot_in(&blobless, |o| o.previous = PreviousChoice::Disabled);
    assert_eq!(
        history_bytes(&incremental),
        history_bytes(&walked),
        "reuse gives what a full walk of the same clone gives"
    );

    // After the blobs are fetched, rows that lacked line counts are diffed again, not reused.
    let (_s4, completed) = snapshot_in(&blobless, |o| {
        o.previous = previous.clone();
        o.history_fetch_missing = true;
    });
    let full = origin.clone_as("full", &[]);
    let (_s5, want) = snapshot_in(&full, |o| o.previous = PreviousChoice::Disabled);
    assert_eq!(history_bytes(&completed), history_bytes(&want));
    assert_eq!(git_report(&completed).status, StageStatus::Ok);
}

#[test]
fn a_shallow_blobless_clone_records_its_boundary() {
    let origin = Origin::new();
    let shallow = origin.clone_as("shallow", &["--depth", "2", "--filter=blob:none"]);
    let (_store, snap) = snapshot_in(&shallow, |_| {});
    let h = read_history(&snap);
    assert_eq!(h.commits.len(), 2);
    let boundary = h.commits.iter().min_by_key(|c| c.committer_time).unwrap();
    let (kind, filter, shallow_boundary) = clone_kind(&snap);
    assert_eq!(
        (kind.as_str(), filter.as_deref()),
        ("blobless", Some("blob:none"))
    );
    assert_eq!(shallow_boundary, vec![boundary.sha.clone()]);
    assert!(manifest(&snap).repo_state.shallow);
}

#[test]
fn an_unreadable_head_is_an_error_that_names_the_cause_and_the_fix() {
    // A full repository whose checked-out root tree was lost.
    let mut r = Repo::new();
    r.write("a.txt", "a\n");
    r.commit("one");
    let tree = r.git(&["rev-parse", "HEAD^{tree}"]).trim().to_string();
    std::fs::remove_file(
        r.path()
            .join(".git/objects")
            .join(&tree[..2])
            .join(&tree[2..]),
    )
    .unwrap();
    let store = tempfile::tempdir().unwrap();
    let err = pipeline::snapshot(&git_only(r.path(), store.path()), &NoProgress)
        .expect_err("HEAD's tree is missing");
    assert!(matches!(err, PipelineError::HeadUnreadable { .. }), "{err}");
    assert_eq!(err.code(), ErrorCode::GitError);
    assert!(err.to_string().contains(&tree), "{err}");
    assert!(err.to_string().contains("full clone"), "{err}");
    assert!(
        err.remediation().contains("git fsck --full"),
        "{}",
        err.remediation()
    );
    assert!(!store.path().join("repo=fixture").exists() || no_snapshot(store.path()));

    // A treeless clone made without a checkout lacks HEAD's tree by design: say so.
    let origin = Origin::new();
    let bare = origin.clone_as("nocheckout", &["--filter=tree:0", "--no-checkout"]);
    let err = pipeline::snapshot(&git_only(&bare, store.path()), &NoProgress)
        .expect_err("HEAD's tree is not in the clone");
    assert_eq!(err.code(), ErrorCode::GitError);
    assert!(err.to_string().contains("treeless clone"), "{err}");
    assert!(
        err.remediation().contains("treeless partial clone")
            && err.remediation().contains("git checkout"),
        "{}",
        err.remediation()
    );
}

/// No snapshot folder (only lock files) in the store's repository folder.
fn no_snapshot(store: &Path) -> bool {
    std::fs::read_dir(store.join("repo=fixture"))
        .map(|d| {
            d.flatten()
                .all(|e| e.file_name().to_string_lossy().starts_with(".lock-"))
        })
        .unwrap_or(true)
}
