//! `ckb store gc` (issue #24): what writers that died left is cleared once their state's lock
//! shows them gone, snapshots are pruned by the retention rules CI owners use (the last N per
//! branch head, one per N commits, younger than D days, combined), a dry run changes nothing,
//! nothing in use is removed, and no reader (`ckb query`, the README's DuckDB glob) ever sees a
//! temporary folder.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::store_check::*;
use common::*;
use serde_json::Value;

const REPO_ID: &str = "fx";
const DAY: i64 = 86_400;

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// Commits everything in `repo`, dated `days_ago` days before now.
fn dated_commit(repo: &Fixture, days_ago: i64) -> String {
    let who = test_support::Signature::fixture().at(&format!("@{} +0000", now() - days_ago * DAY));
    test_support::git_as(repo.path(), &who, &["add", "-A"]);
    test_support::git_as(repo.path(), &who, &["commit", "-q", "-m", "change"]);
    repo.run_git(&["rev-parse", "HEAD"])
}

/// Snapshots the repository's current checkout into `store`.
fn snap(repo: &Fixture, store: &Path) -> PathBuf {
    snapshot(repo.path(), store, &["--repo-id", REPO_ID])
}

/// `ckb store gc --store STORE --json <args>`: the report (exit status asserted).
fn gc_json(store: &Path, args: &[&str], code: i32) -> Value {
    let mut all = gc_args(store, &["--json"]);
    all.extend_from_slice(args);
    let out = ckb(store, &all);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// `store gc --store STORE <extra…>`.
fn gc_args<'a>(store: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["store", "gc", "--store", store.to_str().unwrap()];
    args.extend_from_slice(extra);
    args
}

/// `snapshot . --out STORE --repo-id fx <extra…>`.
fn snapshot_args<'a>(store: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "snapshot",
        ".",
        "--out",
        store.to_str().unwrap(),
        "--repo-id",
        REPO_ID,
    ];
    args.extend_from_slice(extra);
    args
}

/// `ckb query --store STORE status` answers.
fn store_status(repo: &Path, store: &Path) {
    let store = store.to_str().unwrap();
    ckb_ok(
        repo,
        &["query", "--store", store, "--format", "json", "status"],
    );
}

/// Snapshot folder name (`commit=<sha>`) → its action and reasons, from a report.
fn verdicts(report: &Value) -> BTreeMap<String, (String, Vec<String>)> {
    report["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let name = s["path"].as_str().unwrap().rsplit('/').next().unwrap();
            let reasons = s["reasons"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap().to_string())
                .collect();
            (
                name.to_string(),
                (s["action"].as_str().unwrap().to_string(), reasons),
            )
        })
        .collect()
}

/// Main at six commits (100, 80, 60, 40, 20 and 15 days ago), then a branch `feature` with two
/// more (10 and 5 days ago), each snapshotted as it was made. Returns the commits in order.
fn branchy_store(repo: &Fixture, store: &Path) -> Vec<String> {
    let mut shas = Vec::new();
    for (i, days) in [100, 80, 60, 40, 20, 15].into_iter().enumerate() {
        repo.write("main.py", format!("def f():\n    return {i}\n"));
        shas.push(dated_commit(repo, days));
        snap(repo, store);
    }
    repo.run_git(&["checkout", "-q", "-b", "feature"]);
    for (i, days) in [10, 5].into_iter().enumerate() {
        repo.write("feature.py", format!("def g():\n    return {i}\n"));
        shas.push(dated_commit(repo, days));
        snap(repo, store);
    }
    shas
}

fn kept_names(report: &Value, shas: &[String]) -> Vec<usize> {
    let v = verdicts(report);
    (0..shas.len())
        .filter(|&i| v[&format!("commit={}", shas[i])].0 == "kept")
        .collect()
}

#[test]
fn each_rule_and_their_union_prune_as_documented_and_a_second_gc_keeps_the_same() {
    let repo = Fixture::git();
    let store = tempfile::tempdir().unwrap();
    let store = store.path();
    let shas = branchy_store(&repo, store);
    let before = files_of(store);

    // Each rule alone, dry: the newest (feature, 5 days) is kept whatever the rule.
    let last = gc_json(store, &["--dry-run", "--keep-last", "2"], 0);
    assert_eq!(kept_names(&last, &shas), [4, 5, 6, 7]);
    let v = verdicts(&last);
    assert_eq!(v[&format!("commit={}", shas[0])].0, "would-remove");
    assert_eq!(v[&format!("commit={}", shas[7])].1, ["keep-last", "newest"]);
    let days = gc_json(store, &["--dry-run", "--keep-days", "30"], 0);
    assert_eq!(kept_names(&days, &shas), [4, 5, 6, 7]);
    // First-parent depths: main 1..6, feature 7, 8; runs of 3 commits keep depths 1, 4, 7.
    let every = gc_json(store, &["--dry-run", "--keep-every", "3"], 0);
    assert_eq!(kept_names(&every, &shas), [0, 3, 6, 7]);
    assert_eq!(
        verdicts(&every)[&format!("commit={}", shas[7])].1,
        ["newest"]
    );
    let old = gc_json(store, &["--dry-run", "--keep-days", "3"], 0);
    assert_eq!(kept_names(&old, &shas), [7], "only the newest");
    let none = gc_json(
        store,
        &["--dry-run", "--keep-days", "3", "--no-keep-newest"],
        0,
    );
    assert_eq!(kept_names(&none, &shas), Vec::<usize>::new());
    assert_eq!(files_of(store), before, "a dry run changes nothing");

    // The union, for real.
    let rules = ["--keep-last", "1", "--keep-every", "3", "--keep-days", "18"];
    let report = gc_json(store, &rules, 0);
    assert_eq!(kept_names(&report, &shas), [0, 3, 5, 6, 7]);
    let removed: Vec<&Value> = report["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["action"] == "removed")
        .collect();
    assert_eq!(removed.len(), 3);
    let freed: u64 = removed.iter().map(|s| s["bytes"].as_u64().unwrap()).sum();
    assert!(freed > 0);
    assert_eq!(report["totals"]["bytesFreed"].as_u64(), Some(freed));
    assert_eq!(report["totals"]["snapshotsRemoved"], 3);
    for i in [1, 2, 4] {
        assert!(!store
            .join(format!("repo={REPO_ID}/commit={}", shas[i]))
            .exists());
    }
    assert_eq!(visible_snapshots(store).len(), 5);
    assert_all_verify(store, "after gc");
    assert_eq!(leftovers(store), Vec::<String>::new());
    // Every kept snapshot says why, oldest main commit by its run of commits.
    let v = verdicts(&report);
    assert_eq!(v[&format!("commit={}", shas[0])].1, ["keep-every"]);
    assert_eq!(
        v[&format!("commit={}", shas[5])].1,
        ["keep-last", "keep-days"]
    );

    // Run again: the same snapshots stay (a rule that counted snapshots would thin them again).
    let again = gc_json(store, &rules, 0);
    assert_eq!(again["totals"]["snapshotsRemoved"], 0, "{again}");
    // And readers still answer.
    store_status(repo.path(), store);
}

#[test]
fn the_report_is_deterministic_and_without_rules_no_snapshot_is_removed() {
    let repo = Fixture::git();
    let store = tempfile::tempdir().unwrap();
    let store = store.path();
    branchy_store(&repo, store);
    let strip = |mut v: Value| {
        v.as_object_mut().unwrap().remove("now");
        v
    };
    let a = strip(gc_json(store, &["--dry-run", "--keep-last", "1"], 0));
    let b = strip(gc_json(store, &["--dry-run", "--keep-last", "1"], 0));
    assert_eq!(a, b);
    let plain = gc_json(store, &[], 0);
    assert_eq!(plain["totals"]["snapshotsRemoved"], 0);
    assert!(verdicts(&plain)
        .values()
        .all(|(a, r)| a == "kept" && r == &["no-rule"]));
    // The human report names every snapshot and the sums.
    let out = ckb_ok(store, &gc_args(store, &["--dry-run", "--keep-last", "1"]));
    assert!(
        out.contains("dry run") && out.contains("would remove"),
        "{out}"
    );
    assert!(
        out.contains("refs/heads/feature") && out.contains("6 to remove"),
        "{out}"
    );
}

/// Two commits of `repo`, each snapshotted into `store`; their snapshot folders.
fn two_snapshots(repo: &Fixture, store: &Path) -> [PathBuf; 2] {
    ["a", "b"].map(|name| {
        repo.write(
            &format!("{name}.py"),
            format!("def {name}():\n    return 1\n"),
        );
        repo.commit(name);
        snap(repo, store)
    })
}

/// Copies a folder (files and subfolders).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for (rel, bytes) in files_of(from) {
        let dest = to.join(rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::write(dest, bytes).unwrap();
    }
}

#[test]
fn gc_clears_what_dead_writers_left_and_keeps_what_a_live_writer_holds() {
    let (repo, store) = (Fixture::git(), tempfile::tempdir().unwrap());
    let store = store.path();
    let [a, b] = two_snapshots(&repo, store);
    let repo_dir = store.join(format!("repo={REPO_ID}"));
    let state = |dir: &Path| {
        dir.file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .trim_start_matches("commit=")
            .to_string()
    };
    // A writer killed while writing tables: its temporary folder and lock file.
    repo.write("c.py", "def c():\n    return 3\n");
    repo.commit("c");
    let out = ckb_failpoint(repo.path(), &snapshot_args(store, &[]), "kill@fsync#2");
    assert!(was_killed(&out));
    // A replaced snapshot whose successor is in place, and one whose successor never came (the
    // only copy of b).
    copy_dir(&a, &repo_dir.join(format!(".old-commit={}.9", state(&a))));
    copy_dir(&b, &repo_dir.join(format!(".old-commit={}.9", state(&b))));
    std::fs::remove_dir_all(&b).unwrap();
    // What gc was deleting, a scan cache half written, one of an earlier ckb (two hours old).
    copy_dir(&a, &repo_dir.join(".gc-commit=0123abcd.7"));
    std::fs::write(repo_dir.join(".cache-commit=0123abcd.7"), b"half").unwrap();
    let legacy = repo_dir.join("scan-cache.json.tmp4242");
    std::fs::write(&legacy, b"half").unwrap();
    let two_hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
    std::fs::File::options()
        .write(true)
        .open(&legacy)
        .unwrap()
        .set_modified(two_hours_ago)
        .unwrap();
    // A live writer of another state.
    let live = pipeline::store::Store::new(store)
        .lock(REPO_ID, "feedbeef", std::time::Duration::ZERO)
        .unwrap();
    std::fs::create_dir(repo_dir.join(".tmp-commit=feedbeef.1")).unwrap();

    let before = files_of(store);
    let dry = gc_json(store, &["--dry-run"], 0);
    assert_eq!(files_of(store), before, "a dry run changes nothing");
    let actions = |report: &Value| -> BTreeMap<String, String> {
        report["leftovers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                (
                    l["path"].as_str().unwrap().to_string(),
                    l["action"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let planned = actions(&dry);
    let restored = format!("repo={REPO_ID}/.old-commit={}.9", state(&b));
    assert_eq!(planned[&restored], "would-restore", "{dry}");
    assert_eq!(
        planned[&format!("repo={REPO_ID}/.tmp-commit=feedbeef.1")],
        "kept"
    );
    assert_eq!(
        planned[&format!("repo={REPO_ID}/scan-cache.json.tmp4242")],
        "would-remove"
    );

    let report = gc_json(store, &[], 0);
    let done = actions(&report);
    assert_eq!(done[&restored], "restored");
    for (path, action) in &planned {
        let want = action.replace("would-", "").replace("restore", "restored");
        let want = if want == "remove" {
            "removed".to_string()
        } else {
            want
        };
        assert_eq!(&done[path], &want, "{path}");
    }
    assert!(b.is_dir(), "the set-aside copy of b is back");
    assert_all_verify(store, "after gc");
    assert_eq!(
        leftovers(store),
        [
            format!("repo={REPO_ID}/.lock-commit=feedbeef"),
            format!("repo={REPO_ID}/.tmp-commit=feedbeef.1"),
        ]
    );
    assert!(
        report["totals"]["leftoversRemoved"].as_u64().unwrap() >= 6,
        "{report}"
    );
    // Once the writer is gone (its lock released), gc clears the rest.
    drop(live);
    gc_json(store, &[], 0);
    assert_eq!(leftovers(store), Vec::<String>::new());
}

#[test]
fn snapshots_in_use_or_unreadable_are_kept_and_say_why() {
    let repo = Fixture::git();
    let store = tempfile::tempdir().unwrap();
    let store = store.path();
    let mut snaps = Vec::new();
    for i in 0..4 {
        repo.write("x.py", format!("def x():\n    return {i}\n"));
        repo.commit("x");
        snaps.push(snap(&repo, store));
    }
    let name = |p: &Path| p.file_name().unwrap().to_str().unwrap().to_string();
    // A reader (as `ckb query` takes it), a writer rebuilding a state, a damaged manifest.
    let reader = output_schema::folder_lock::hold_shared(&snaps[0])
        .unwrap()
        .unwrap();
    let state1 = name(&snaps[1]).trim_start_matches("commit=").to_string();
    let writer = pipeline::store::Store::new(store)
        .lock(REPO_ID, &state1, std::time::Duration::ZERO)
        .unwrap();
    std::fs::write(snaps[2].join("manifest.json.zst"), b"not zstd").unwrap();
    let report = gc_json(store, &["--keep-last", "1"], 0);
    let v = verdicts(&report);
    assert_eq!(v[&name(&snaps[0])], ("kept".into(), vec!["reading".into()]));
    assert_eq!(v[&name(&snaps[1])], ("kept".into(), vec!["writing".into()]));
    assert_eq!(
        v[&name(&snaps[2])],
        ("kept".into(), vec!["unreadable".into()])
    );
    assert_eq!(
        v[&name(&snaps[3])],
        ("kept".into(), vec!["keep-last".into(), "newest".into()])
    );
    drop((reader, writer));

    // A SQL session over the whole store holds gc off for as long as it runs.
    let session = output_schema::folder_lock::hold_shared(store)
        .unwrap()
        .unwrap();
    let report = gc_json(store, &["--keep-last", "1", "--lock-timeout", "1"], 0);
    assert_eq!(verdicts(&report)[&name(&snaps[0])].1, ["store-reading"]);
    assert!(snaps[0].is_dir() && snaps[1].is_dir());
    drop(session);

    // Killed between hiding a snapshot and deleting it: the snapshot is gone from sight, and
    // what is left goes with the next gc.
    let out = ckb_failpoint(
        store,
        &gc_args(store, &["--keep-last", "1"]),
        "kill@gc-renamed",
    );
    assert!(was_killed(&out));
    assert!(!snaps[0].exists() || !snaps[1].exists());
    assert!(
        leftovers(store).iter().any(|l| l.contains("/.gc-commit=")),
        "{:?}",
        leftovers(store)
    );
    assert_all_verify_but(store, &[&snaps[2]], "the damaged one aside");
    gc_json(store, &["--keep-last", "1"], 0);
    assert!(!snaps[0].exists() && !snaps[1].exists());
    assert_eq!(leftovers(store), Vec::<String>::new());
}

#[test]
fn readers_and_the_documented_glob_never_see_temporary_folders() {
    let (repo, store) = (Fixture::git(), tempfile::tempdir().unwrap());
    let store = store.path();
    let [_, b] = two_snapshots(&repo, store);
    // Leftovers of every kind a killed writer makes, each holding Parquet files.
    let (args, forced) = (
        snapshot_args(store, &[]),
        snapshot_args(store, &["--force"]),
    );
    assert!(was_killed(&ckb_failpoint(
        repo.path(),
        &forced,
        "kill@force-swapped"
    )));
    repo.write("c.py", "def c():\n    return 3\n");
    repo.commit("c");
    assert!(was_killed(&ckb_failpoint(
        repo.path(),
        &args,
        "kill@publish-rename"
    )));
    let tmp_tables = leftovers(store)
        .iter()
        .filter(|l| store.join(l).join("files.parquet").is_file())
        .count();
    assert_eq!(tmp_tables, 2, "{:?}", leftovers(store));
    assert!(b.is_dir());

    // The README's glob, in the stock DuckDB CLI: one partition per visible snapshot.
    let Some(duckdb) = duckdb_cli() else {
        return;
    };
    let sql = format!(
        "select count(distinct \"commit\") from read_parquet('{}/repo=*/commit=*/files.parquet', \
         hive_partitioning = true)",
        store.display()
    );
    let out = std::process::Command::new(duckdb)
        .args(["-csv", "-noheader", "-c", &sql])
        .output()
        .unwrap();
    test_support::assert_success(&out, "duckdb over the store");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "2");
    // ckb's own SQL over the store, and a query through the store.
    let rows = ckb_ok(
        repo.path(),
        &[
            "query",
            "--store",
            store.to_str().unwrap(),
            "--format",
            "csv",
            "sql",
            "select count(distinct \"commit\") as n from files",
        ],
    );
    assert!(rows.lines().any(|l| l.trim() == "2"), "{rows}");
    store_status(repo.path(), store);
}

#[test]
fn bad_gc_arguments_are_coded_errors() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let out = ckb(dir.path(), &gc_args(&missing, &["--json"]));
    error_answer(&out, "PATH_NOT_FOUND");
    std::fs::create_dir(dir.path().join(format!("repo={REPO_ID}"))).unwrap();
    let out = ckb(
        dir.path(),
        &gc_args(dir.path(), &["--repo-id", "nope", "--json"]),
    );
    let v = error_answer(&out, "INVALID_PARAMETER");
    assert!(
        v["error"]["message"].as_str().unwrap().contains(REPO_ID),
        "{v}"
    );
    let out = ckb(dir.path(), &["store", "gc", "--keep-last", "0"]);
    assert_eq!(out.status.code(), Some(2));
}
