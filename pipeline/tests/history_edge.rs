//! The history stage on awkward repositories: not git, unborn, one commit on a detached HEAD,
//! shallow clones, invalid UTF-8 paths, skewed clocks, enormous commits, missing and corrupt
//! objects, bots, mailmaps and salts. Partial clones: `history_partial.rs`.

mod history_support;

use std::os::unix::ffi::OsStrExt;

use history_support::*;
use output_schema::manifest::StageStatus;
use pipeline::NoProgress;

#[test]
fn a_folder_outside_git_is_skipped_without_tables() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    let store = tempfile::tempdir().unwrap();
    let snap = snapshot(&git_only(dir.path(), store.path()));
    let m = manifest(&snap);
    let report = &m.stages["git"];
    assert_eq!(report.status, StageStatus::Skipped);
    assert_eq!(report.reason.as_deref(), Some("not a git repository"));
    assert!(m.table("commits").is_none() && m.table("churn").is_none());
    assert!(m.backends.iter().all(|b| b.kind != "git"));
}

#[test]
fn an_unborn_branch_gives_empty_tables() {
    let r = Repo::new();
    r.write("a.txt", "a\n");
    let store = tempfile::tempdir().unwrap();
    let snap = snapshot(&git_only(r.path(), store.path()));
    let h = read_history(&snap);
    assert!(h.commits.is_empty() && h.file_changes.is_empty() && h.churn.is_empty());
    let report = git_report(&snap);
    assert_eq!(report.status, StageStatus::Ok);
    assert_eq!(report.completeness.unwrap().reason, "no-commits");
}

#[test]
fn a_single_commit_on_a_detached_head() {
    let mut r = Repo::new();
    r.write("a.txt", "1\n2\n");
    r.write("b/c.txt", "x\n");
    let sha = r.commit("only");
    r.git(&["checkout", "-q", "--detach"]);
    let store = tempfile::tempdir().unwrap();
    let snap = snapshot(&git_only(r.path(), store.path()));
    let h = read_history(&snap);
    assert_eq!(h.commits.len(), 1);
    assert_eq!(h.commits[0].sha, sha);
    assert!(h.commits[0].parents.is_empty());
    assert_eq!((h.commits[0].files_changed, h.commits[0].additions), (2, 3));
    let rows: Vec<(&str, &str, Option<i64>)> = h
        .file_changes
        .iter()
        .map(|c| (c.path.as_str(), c.change.as_str(), c.additions))
        .collect();
    assert_eq!(
        rows,
        vec![("a.txt", "A", Some(2)), ("b/c.txt", "A", Some(1))]
    );
    assert_eq!(h.churn.len(), 8, "two files, four windows");
    assert!(
        h.cochange.is_empty(),
        "one shared commit is below the minimum of 2"
    );
    assert!(h.ownership.iter().all(|o| o.share == 1.0 && !o.is_bot));
    let m = manifest(&snap);
    assert!(m.repo_state.detached);
    assert_eq!(m.backends[0].facts["head"], sha);
    assert_eq!(m.backends[0].tool, "gix");
}

#[test]
fn a_shallow_clone_says_its_history_is_cut() {
    let mut src = Repo::new();
    for i in 0..5 {
        src.write("a.txt", format!("{i}\n").repeat(i + 1));
        src.commit(&format!("c{i}"));
    }
    let parent = tempfile::tempdir().unwrap();
    let url = format!("file://{}", src.path().display());
    test_support::run_ok(
        git_command(parent.path(), src.time, &src.author)
            .args(["clone", "-q", "--depth", "2", &url, "clone"]),
    );
    let clone = parent.path().join("clone");
    let store = tempfile::tempdir().unwrap();
    let snap = snapshot(&git_only(&clone, store.path()));
    let h = read_history(&snap);
    assert_eq!(h.commits.len(), 2);
    let boundary = h.commits.iter().min_by_key(|c| c.committer_time).unwrap();
    assert_eq!(boundary.parents.len(), 1, "the recorded parent is kept");
    assert_eq!(boundary.files_changed, 0);
    assert!(
        h.file_changes.iter().all(|c| c.sha != boundary.sha),
        "no fake diff for the boundary"
    );
    let report = git_report(&snap);
    assert_eq!(report.status, StageStatus::Partial);
    assert_eq!(
        report.completeness.as_ref().unwrap().reason,
        "shallow-history"
    );
    assert_eq!(count(&report, "commits.shallow-boundary"), 1);
    assert!(report.warnings.iter().any(|w| w.code == "shallow-history"));
    assert_eq!(manifest(&snap).backends[0].facts["shallow"], "true");
    let state = manifest(&snap).repo_state.clone_state.unwrap();
    assert_eq!(state.kind, "shallow");
    assert_eq!(state.shallow_boundary, vec![boundary.sha.clone()]);

    // A shallow window that does not reach the boundary is complete.
    let mut short = git_only(&clone, store.path());
    short.max_commits = Some(1);
    let report = git_report(&snapshot(&short));
    assert_eq!(report.completeness.unwrap().reason, "max-commits");
}

#[test]
fn invalid_utf8_paths_are_counted_and_skipped() {
    let mut r = Repo::new();
    r.write("ok.txt", "ok\n");
    let bad = std::ffi::OsStr::from_bytes(b"bad\xff.txt");
    std::fs::write(r.path().join(bad), "bad\n").unwrap();
    let sha = r.commit("bad name");
    let store = tempfile::tempdir().unwrap();
    let snap = snapshot(&git_only(r.path(), store.path()));
    let h = read_history(&snap);
    assert_eq!(h.commits[0].files_changed, 2);
    assert_eq!(h.commits[0].additions, 2);
    assert_eq!(h.file_changes.len(), 1);
    assert_eq!(h.file_changes[0].path, "ok.txt");
    let report = git_report(&snap);
    assert_eq!(report.status, StageStatus::Partial);
    assert_eq!(count(&report, "paths.skipped-invalid"), 1);
    let w = test_support::warning(&report, "invalid-path");
    assert!(w.message.contains(&sha), "{}", w.message);
}

#[test]
fn skewed_clocks_are_reported_and_bound_the_window_like_git_since() {
    let mut r = Repo::new();
    let t0 = r.time;
    let at = |r: &mut Repo, day: i64, name: &str| {
        r.time = t0 + day * DAY - 3600;
        r.write("a.txt", format!("{name}\n"));
        r.commit(name)
    };
    at(&mut r, 0, "c1");
    at(&mut r, 10, "c2");
    at(&mut r, 1, "c3 (clock behind its parent)");
    at(&mut r, 100, "c4 (clock ahead of HEAD)");
    at(&mut r, 20, "c5 (HEAD, behind its parent)");
    let store = tempfile::tempdir().unwrap();
    let snap = snapshot(&git_only(r.path(), store.path()));
    let report = git_report(&snap);
    assert_eq!(count(&report, "commits"), 5);
    assert_eq!(count(&report, "commits.clock-skew"), 2);
    assert_eq!(count(&report, "commits.future"), 1);
    assert_eq!(
        report
            .warnings
            .iter()
            .filter(|w| w.code == "clock-skew")
            .count(),
        2
    );
    // The churn windows count from HEAD's committer time: c4 (ahead of HEAD) is in every one.
    let h = read_history(&snap);
    let churn_30d = h.churn.iter().find(|c| c.window == "30d").unwrap();
    assert_eq!(churn_30d.commits, 5);
    assert_eq!(churn_30d.last_changed, t0 + 100 * DAY);

    // 15 days back from c5 (day 20) is day 5: c3 (day 1) is out and hides c2 and c1.
    let mut short = git_only(r.path(), store.path());
    short.history_days = Some(15);
    let h = read_history(&snapshot(&short));
    assert_eq!(h.commits.len(), 2);
}

#[test]
fn enormous_commits_are_left_out_of_cochange() {
    let mut r = Repo::new();
    for i in 0..60 {
        r.write(&format!("gen/f{i:02}.txt"), format!("{i}\n"));
    }
    r.commit("vendor drop");
    for n in 0..2 {
        r.write("gen/f00.txt", format!("edit {n}\n"));
        r.write("gen/f01.txt", format!("edit {n}\n"));
        r.commit("pair");
    }
    let store = tempfile::tempdir().unwrap();
    let snap = snapshot(&git_only(r.path(), store.path()));
    let report = git_report(&snap);
    assert_eq!(count(&report, "cochange.skipped-large-commits"), 1);
    let h = read_history(&snap);
    assert_eq!(h.commits.iter().map(|c| c.files_changed).max(), Some(60));
    assert_eq!(h.cochange.len(), 1);
    let pair = &h.cochange[0];
    assert_eq!(
        (
            pair.path_a.as_str(),
            pair.path_b.as_str(),
            pair.shared_commits,
            pair.commits_a,
            pair.degree
        ),
        ("gen/f00.txt", "gen/f01.txt", 2, 2, 1.0)
    );
    // Churn still counts the large commit.
    let churn = h
        .churn
        .iter()
        .find(|c| c.path == "gen/f00.txt" && c.window == "all")
        .unwrap();
    assert_eq!(churn.commits, 3);
}

fn object_file(r: &Repo, id: &str) -> std::path::PathBuf {
    r.path().join(".git/objects").join(&id[..2]).join(&id[2..])
}

#[test]
fn missing_and_corrupt_history_objects_degrade_and_name_the_commit() {
    for damage in ["missing-blob", "corrupt-tree"] {
        let mut r = Repo::new();
        r.write("a.txt", "first\n");
        r.write("d/b.txt", "b\n");
        let one = r.commit("one");
        r.write("a.txt", "second\n");
        let two = r.commit("two");
        r.write("a.txt", "third\n");
        r.write("d/b.txt", "b2\n");
        let three = r.commit("three");
        // Objects only the older commits use, so the working tree state stays readable.
        let id = match damage {
            "missing-blob" => r.git(&["rev-parse", "HEAD~1:a.txt"]),
            _ => r.git(&["rev-parse", "HEAD~1:d"]),
        };
        let id = id.trim().to_string();
        let file = object_file(&r, &id);
        assert!(file.exists());
        std::fs::remove_file(&file).unwrap();
        if damage == "corrupt-tree" {
            std::fs::write(&file, b"garbage, not zlib").unwrap();
        }
        let store = tempfile::tempdir().unwrap();
        let snap = snapshot(&git_only(r.path(), store.path()));
        let h = read_history(&snap);
        assert_eq!(h.commits.len(), 3, "{damage}: every commit is kept");
        let report = git_report(&snap);
        assert_eq!(report.status, StageStatus::Partial, "{damage}");
        assert_eq!(
            report.completeness.as_ref().unwrap().reason,
            "missing-objects",
            "{damage}"
        );
        let m = manifest(&snap);
        assert_eq!(
            m.repo_state.clone_state.unwrap().kind,
            "damaged",
            "{damage}"
        );
        let named = |sha: &str| {
            report.warnings.iter().any(|w| {
                w.code == "missing-object" && w.message.contains(sha) && w.message.contains(&id)
            })
        };
        // Both commits named in a warning, one object counted, two commits or changes affected.
        let warned = |shas: [&str; 2], objects: &str, affected: &str| {
            assert!(
                shas.iter().all(|sha| named(sha)),
                "{damage}: {:?}",
                report.warnings
            );
            assert_eq!(count(&report, objects), 1, "{damage}");
            assert_eq!(count(&report, affected), 2, "{damage}");
        };
        let lines = |sha: &str| -> Vec<Option<i64>> {
            h.file_changes
                .iter()
                .filter(|c| c.sha == sha && c.path == "a.txt")
                .map(|c| c.additions)
                .collect()
        };
        if damage == "missing-blob" {
            // Commit two added that blob and three replaced it: both lack a.txt's line counts,
            // everything else is whole.
            assert_eq!(lines(&two), vec![None], "{damage}");
            assert_eq!(lines(&three), vec![None], "{damage}");
            assert_eq!(lines(&one), vec![Some(1)], "{damage}");
            warned(
                [&two, &three],
                "objects.missing",
                "file-changes.without-line-counts",
            );
            let w = test_support::warning(&report, "lines-unavailable");
            assert!(w.message.contains("git fsck --full"), "{}", w.message);
            // Not a partial clone: there is no promisor remote to fetch the blob from.
            let mut fetch = git_only(r.path(), store.path());
            fetch.history_fetch_missing = true;
            let again = git_report(&snapshot(&fetch));
            test_support::warning(&again, "fetch-missing-skipped");
            assert_eq!(count(&again, "objects.fetch-requested"), 0);
        } else {
            // The damaged tree is one's and two's `d`: one (diffed against nothing) and three
            // (diffed against two) cannot list their changes; two's diff never opens `d`.
            assert!(
                lines(&one).is_empty() && lines(&three).is_empty(),
                "{damage}"
            );
            assert_eq!(lines(&two), vec![Some(1)], "{damage}");
            warned(
                [&one, &three],
                "objects.unreadable",
                "commits.file-changes-unknown",
            );
        }
        // No message quotes git's error text, which can hold absolute paths.
        let root = r.path().to_string_lossy().into_owned();
        assert!(
            report.warnings.iter().all(|w| !w.message.contains(&root)),
            "{damage}: {:?}",
            report.warnings
        );
    }
}

#[test]
fn bots_mailmap_and_salt() {
    let mut r = Repo::new();
    r.author = ("Alice".into(), "alice@example.com".into());
    r.write("a.txt", "1\n");
    r.commit("a1");
    r.author = ("Alice Old".into(), "Alice@Old.Example.com".into());
    r.write("a.txt", "2\n");
    r.commit("a2");
    r.author = (
        "dependabot[bot]".into(),
        "49699333+dependabot[bot]@users.noreply.github.com".into(),
    );
    r.write("a.txt", "3\n");
    r.commit("bump");
    r.author = ("Alice".into(), "alice@example.com".into());
    r.write(
        ".mailmap",
        "Alice <alice@example.com> <alice@old.example.com>\n",
    );
    r.commit("mailmap");
    let store = tempfile::tempdir().unwrap();
    let snap = snapshot(&git_only(r.path(), store.path()));
    let h = read_history(&snap);
    let owners: Vec<(i64, bool)> = h
        .ownership
        .iter()
        .filter(|o| o.path == "a.txt")
        .map(|o| (o.commits, o.is_bot))
        .collect();
    let mut owners_sorted = owners.clone();
    owners_sorted.sort();
    assert_eq!(
        owners_sorted,
        vec![(1, true), (2, false)],
        "mailmap joins Alice's two emails"
    );
    assert_eq!(h.commits.iter().filter(|c| c.is_bot).count(), 1);
    for c in &h.commits {
        assert_eq!(c.author_id.len(), 32);
        assert!(!c.author_id.contains("alice"));
    }
    let m = manifest(&snap);
    let text = format!("{m:?}");
    assert!(
        !text.contains("alice@") && !text.contains("Alice"),
        "no names or emails in the manifest"
    );
    assert!(m.settings.contains_key("historyAuthorKey"));

    // The salt changes every ID; the same salt gives the same IDs.
    let repo = gix::open(r.path()).unwrap();
    let config = output_schema::config::Config::default();
    let state = output_schema::manifest::RepoState::default();
    let ctx = pipeline::StageContext {
        root: r.path(),
        repo_id: "fixture",
        config: &config,
        repo_state: &state,
        previous: None,
        progress: &NoProgress,
    };
    let ids = |salt: Option<&str>| {
        let opts = pipeline::history::HistoryOptions::new(
            &config.history,
            "fixture",
            salt.map(String::from),
        );
        let out = pipeline::history::run(&ctx, &repo, &opts, None).unwrap();
        let mut ids: Vec<String> = out
            .tables
            .commits
            .iter()
            .map(|c| c.author_id.clone())
            .collect();
        ids.sort();
        (ids, out.settings["historyAuthorKey"].clone())
    };
    let default = ids(None);
    assert_eq!(
        default,
        ids(Some("")),
        "an empty CKB_SALT means the default salt"
    );
    let mut snapshot_ids: Vec<String> = h.commits.iter().map(|c| c.author_id.clone()).collect();
    snapshot_ids.sort();
    assert_eq!(default.0, snapshot_ids);
    let salted = ids(Some("org secret"));
    assert_ne!(default.0, salted.0);
    assert_ne!(default.1, salted.1);
    assert_eq!(salted, ids(Some("org secret")));
}
