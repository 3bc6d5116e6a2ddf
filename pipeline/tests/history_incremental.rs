//! Incremental history: a snapshot that reuses the previous snapshot's rows must be byte-identical
//! (all five history tables) to a full walk, under every window setting; changed settings, a
//! rewritten history and a damaged previous snapshot must all still give the full-walk result.

mod history_support;

use history_support::*;
use pipeline::PreviousChoice;

/// Adds commits `from..to`, three days apart, touching a rotating set of files, with renames,
/// deletions and a bot author now and then.
fn grow(r: &mut Repo, from: usize, to: usize) {
    for i in from..to {
        r.time += 3 * DAY - 3600;
        r.write(
            &format!("f{}.txt", i % 7),
            format!("{i}\n").repeat(i % 5 + 1),
        );
        r.write(
            &format!("src/g{}.rs", (i * 3) % 11),
            format!("fn g{i}() {{}}\n"),
        );
        if i % 6 == 5 {
            let from = format!("src/g{}.rs", (i * 3) % 11);
            let to = format!("moved/g{i}.rs");
            std::fs::create_dir_all(r.path().join("moved")).unwrap();
            r.git(&["add", "-A"]);
            r.git(&["mv", &from, &to]);
        }
        if i % 9 == 8 {
            let _ = std::fs::remove_file(r.path().join(format!("f{}.txt", (i + 1) % 7)));
        }
        r.author = if i % 8 == 7 {
            (
                "dependabot[bot]".into(),
                "dependabot@users.noreply.github.com".into(),
            )
        } else if i % 2 == 0 {
            ("Alice".into(), "alice@example.com".into())
        } else {
            ("Bob".into(), "bob@example.com".into())
        };
        r.commit(&format!("c{i}"));
    }
}

/// A side branch forked `back` commits ago, two commits long, merged into main.
fn merge_side_branch(r: &mut Repo, name: &str, back: usize) {
    r.git(&["checkout", "-q", "-b", name, &format!("HEAD~{back}")]);
    r.write(&format!("{name}/a.txt"), "side\n");
    r.commit(&format!("{name} 1"));
    r.write(&format!("{name}/a.txt"), "side\nmore\n");
    r.write(&format!("{name}/b.txt"), "side edit\n");
    r.commit(&format!("{name} 2"));
    r.git(&["checkout", "-q", "main"]);
    r.time += 3600;
    r.git(&[
        "merge",
        "-q",
        "--no-ff",
        "-X",
        "theirs",
        name,
        "-m",
        &format!("merge {name}"),
    ]);
}

fn assert_same_tables(incremental: &std::path::Path, full: &std::path::Path) {
    let a = history_bytes(incremental);
    let b = history_bytes(full);
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(
            x == y,
            "{name}.parquet differs between incremental and full walk"
        );
    }
}

/// Snapshots at the current HEAD (previous) and after more commits (incremental), and compares
/// the latter with a full walk. Returns the incremental snapshot's report.
fn check(
    mut opts_for: impl FnMut(&std::path::Path, &std::path::Path) -> pipeline::SnapshotOptions,
) -> output_schema::manifest::StageReport {
    let mut r = Repo::new();
    grow(&mut r, 0, 30);
    merge_side_branch(&mut r, "early", 10);
    let store = tempfile::tempdir().unwrap();
    let full_store = tempfile::tempdir().unwrap();
    let opts = opts_for(r.path(), store.path());
    let previous = snapshot(&opts);
    assert!(git_report(&previous).counts["commits"] > 0);

    grow(&mut r, 30, 36);
    merge_side_branch(&mut r, "late", 20);
    grow(&mut r, 36, 38);
    let incremental = snapshot(&opts);
    let full = snapshot_full(&opts_for(r.path(), full_store.path()));
    assert_same_tables(&incremental, &full);
    let m = manifest(&incremental);
    assert_eq!(m.previous.as_ref().unwrap().chosen_by, "ancestor");
    let report = git_report(&incremental);
    let full_report = git_report(&full);
    assert_eq!(count(&full_report, "commits.reused"), 0);
    assert_eq!(report.counts["commits"], full_report.counts["commits"]);
    assert_eq!(report.warnings, full_report.warnings);
    assert_eq!(m.backends[0].facts["mode"], "incremental");
    report
}

#[test]
fn incremental_equals_full_walk() {
    let report = check(git_only);
    // 8 new main commits, 2 side-branch commits and the merge were diffed; the rest reused.
    assert_eq!(count(&report, "commits.diffed"), 11);
    assert!(count(&report, "commits.reused") > 30);
}

#[test]
fn incremental_equals_full_walk_with_a_moving_window() {
    // 45 days: commits leave the window between the two snapshots; the late side branch forks
    // from a commit outside the window.
    let report = check(|root, store| {
        let mut o = git_only(root, store);
        o.history_days = Some(45);
        o
    });
    assert!(count(&report, "commits.reused") > 0);
    assert!(count(&report, "commits") < 30);
}

#[test]
fn incremental_equals_full_walk_with_max_commits_and_first_parent() {
    let report = check(|root, store| {
        let mut o = git_only(root, store);
        o.max_commits = Some(12);
        o.first_parent = Some(true);
        o
    });
    assert_eq!(count(&report, "commits"), 12);
    assert_eq!(report.completeness.unwrap().reason, "max-commits");
    let report = check(|root, store| {
        let mut o = git_only(root, store);
        o.max_commits = Some(14);
        o
    });
    assert_eq!(count(&report, "commits"), 14);
    assert_eq!(count(&report, "commits.reused"), 3);
}

#[test]
fn changed_settings_force_a_full_walk() {
    let mut r = Repo::new();
    grow(&mut r, 0, 12);
    let store = tempfile::tempdir().unwrap();
    let opts = git_only(r.path(), store.path());
    let first = snapshot(&opts);
    grow(&mut r, 12, 14);
    let mut changed = opts.clone();
    changed.history_days = Some(20);
    let snap = snapshot(&changed);
    let report = git_report(&snap);
    assert_eq!(count(&report, "commits.reused"), 0);
    assert_eq!(
        manifest(&snap).backends[0].facts["reuse"],
        "settings-changed"
    );
    assert_eq!(
        manifest(&snap).settings["historyDays"],
        serde_json::json!(20)
    );
    // With the first settings again, the first snapshot's rows are reusable.
    grow(&mut r, 14, 15);
    let mut again = opts.clone();
    again.previous = PreviousChoice::Explicit(first);
    let snap = snapshot(&again);
    assert_eq!(count(&git_report(&snap), "commits.reused"), 12);
    assert_eq!(count(&git_report(&snap), "commits.diffed"), 3);
}

#[test]
fn previous_of_a_rewritten_history_and_damaged_previous_are_safe() {
    let mut r = Repo::new();
    grow(&mut r, 0, 15);
    let store = tempfile::tempdir().unwrap();
    let full_store = tempfile::tempdir().unwrap();
    let opts = git_only(r.path(), store.path());
    let previous = snapshot(&opts);

    // Force-push: drop three commits and write different ones.
    r.git(&["reset", "-q", "--hard", "HEAD~3"]);
    r.time += DAY;
    grow(&mut r, 100, 104);
    let mut explicit = opts.clone();
    explicit.previous = PreviousChoice::Explicit(previous.clone());
    let snap = snapshot(&explicit);
    assert_eq!(manifest(&snap).previous.unwrap().chosen_by, "explicit");
    let report = git_report(&snap);
    assert_eq!(count(&report, "commits.reused"), 12);
    assert_eq!(count(&report, "commits.diffed"), 4);
    let full = snapshot_full(&git_only(r.path(), full_store.path()));
    assert_same_tables(&snap, &full);

    // A damaged table in the previous snapshot: none of its rows is used. Given explicitly, it
    // is an error with the stable code; chosen automatically, it gives a full walk with a
    // warning (tests/store_previous.rs).
    std::fs::write(previous.join("file_changes.parquet"), b"not parquet").unwrap();
    let mut forced = explicit.clone();
    forced.force = true;
    let err = pipeline::snapshot(&forced, &pipeline::NoProgress).unwrap_err();
    assert_eq!(err.code(), output_schema::ErrorCode::SnapshotCorrupt);
    assert!(err.to_string().contains("file_changes.parquet"), "{err}");
}

#[test]
fn thread_count_does_not_change_the_tables() {
    let mut r = Repo::new();
    grow(&mut r, 0, 20);
    merge_side_branch(&mut r, "side", 5);
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut one = git_only(r.path(), a.path());
    one.threads = Some(1);
    let mut four = git_only(r.path(), b.path());
    four.threads = Some(4);
    assert_same_tables(&snapshot_full(&one), &snapshot_full(&four));
}
