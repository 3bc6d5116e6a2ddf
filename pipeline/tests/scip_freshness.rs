//! Which SCIP indexes a snapshot reads (explicit, discovered, disabled) and how fresh they are
//! against HEAD (`--scip-commit`, `<index>.commit` sidecars, commits behind, completeness).

mod scip_support;

use std::path::Path;

use output_schema::manifest::StageStatus;
use output_schema::{ErrorCode, Stage};
use scip::types::Index;
use scip_support::*;

fn index_for(paths: &[&str]) -> Index {
    let mut idx = index("rust-analyzer", "1.0", "");
    for p in paths {
        let mut d = doc(p);
        let sym = format!(
            "rust-analyzer cargo fx 1 {}/f().",
            p.replace(['/', '.'], "_")
        );
        d.occurrences.push(def(&sym, &[0, 3, 4], &[0, 0, 9]));
        idx.documents.push(d);
    }
    idx
}

fn history_repo() -> tempfile::TempDir {
    let repo = repo_with(&[("a.rs", "fn f() {}\n")]);
    for i in 1..=2 {
        std::fs::write(repo.path().join("a.rs"), format!("fn f() {{}}\n// {i}\n")).expect("write");
        git(repo.path(), &["commit", "-qam", &format!("change {i}")]);
    }
    repo
}

fn backend_facts(repo: &Path, opts_edit: impl FnOnce(&mut pipeline::SnapshotOptions)) -> Snap {
    snapshot_in_temp_store(repo, opts_edit)
}

#[test]
fn sidecar_commit_behind_head_marks_the_index_stale() {
    let repo = history_repo();
    let first = git(repo.path(), &["rev-list", "--max-parents=0", "HEAD"]);
    write_index(&repo.path().join("index.scip"), &index_for(&["a.rs"]));
    std::fs::write(repo.path().join("index.scip.commit"), format!("{first}\n")).expect("sidecar");
    let snap = backend_facts(repo.path(), |_| {});
    let b = &snap.manifest.backends[0];
    assert_eq!(b.facts["indexedCommit"], first);
    assert_eq!(b.facts["commitsBehind"], "2");
    assert_eq!(b.facts["freshness"], "behind");
    let report = snap.scip();
    assert_eq!(report.status, StageStatus::Partial);
    assert_eq!(
        report.completeness.as_ref().map(|c| c.reason.as_str()),
        Some("index-stale")
    );
    assert!(report.warnings.iter().any(|w| w.code == "index-stale"));
    // Sidecars and discovered indexes do not make the tree dirty.
    assert!(!snap.manifest.repo_state.dirty);
}

/// The sidecar sits in the repository: a symlink to `/dev/zero`, a FIFO with no writer, a
/// folder or a file over the limit is a warning naming what it is, read no further (the run
/// neither hangs nor fills memory); a sidecar of exactly the limit is read.
#[test]
fn a_sidecar_that_is_no_small_regular_file_is_a_warning_and_never_read_whole() {
    let repo = history_repo();
    let first = git(repo.path(), &["rev-list", "--max-parents=0", "HEAD"]);
    write_index(&repo.path().join("index.scip"), &index_for(&["a.rs"]));
    let sidecar = repo.path().join("index.scip.commit");
    let limit = pipeline::scip::freshness::MAX_SIDECAR_BYTES as usize;
    let padded = |len: usize| format!("{first}\n{}", " ".repeat(len - first.len() - 1));
    let warned = |what: &str| {
        let snap = backend_facts(repo.path(), |_| {});
        assert_eq!(
            snap.manifest.backends[0].facts["freshness"], "unknown",
            "{what}"
        );
        let warning = snap
            .scip()
            .warnings
            .iter()
            .find(|w| w.code == "scip-commit-sidecar-invalid")
            .unwrap_or_else(|| panic!("{what}: no warning"))
            .message
            .clone();
        assert!(warning.contains(what), "{warning}");
    };
    std::os::unix::fs::symlink("/dev/zero", &sidecar).expect("symlink");
    warned("symlink");
    std::fs::remove_file(&sidecar).expect("remove");
    let made = std::process::Command::new("mkfifo").arg(&sidecar).status();
    assert!(made.expect("mkfifo runs").success());
    warned("not a regular file");
    std::fs::remove_file(&sidecar).expect("remove");
    std::fs::write(&sidecar, padded(limit + 1)).expect("sidecar");
    warned(&format!("more than {limit} bytes"));
    std::fs::write(&sidecar, padded(limit)).expect("sidecar");
    let snap = backend_facts(repo.path(), |_| {});
    assert_eq!(snap.manifest.backends[0].facts["indexedCommit"], first);
}

#[test]
fn scip_commit_option_overrides_the_sidecar_and_resolves_short_ids() {
    let repo = history_repo();
    let first = git(repo.path(), &["rev-list", "--max-parents=0", "HEAD"]);
    let head = git(repo.path(), &["rev-parse", "HEAD"]);
    write_index(&repo.path().join("index.scip"), &index_for(&["a.rs"]));
    std::fs::write(repo.path().join("index.scip.commit"), &first).expect("sidecar");
    let snap = backend_facts(repo.path(), |o| o.scip_commit = Some(head[..8].to_string()));
    let b = &snap.manifest.backends[0];
    assert_eq!(
        (
            b.facts["indexedCommit"].as_str(),
            b.facts["freshness"].as_str()
        ),
        (head.as_str(), "current")
    );
    assert_eq!(b.facts["commitsBehind"], "0");
    assert_eq!(
        snap.scip().completeness.as_ref().map(|c| c.reason.as_str()),
        Some("full-backend")
    );
}

#[test]
fn diverged_unknown_and_invalid_commits() {
    let repo = history_repo();
    git(repo.path(), &["checkout", "-q", "-b", "side", "HEAD~1"]);
    std::fs::write(repo.path().join("b.rs"), "fn b() {}\n").expect("write");
    git(repo.path(), &["add", "b.rs"]);
    git(repo.path(), &["commit", "-qm", "side"]);
    let side = git(repo.path(), &["rev-parse", "HEAD"]);
    git(repo.path(), &["checkout", "-q", "main"]);
    write_index(&repo.path().join("index.scip"), &index_for(&["a.rs"]));
    let facts = |commit: &str| {
        let c = commit.to_string();
        backend_facts(repo.path(), move |o| o.scip_commit = Some(c))
            .manifest
            .backends[0]
            .facts
            .clone()
    };
    let diverged = facts(&side);
    assert_eq!(diverged["freshness"], "diverged");
    assert_eq!(diverged["commitsBehind"], "1");
    let unknown = facts("0123456789abcdef0123456789abcdef01234567");
    assert_eq!(unknown["freshness"], "unknown-commit");
    assert!(!unknown.contains_key("commitsBehind"));

    // A sidecar that is not a commit ID is a warning, not an error.
    std::fs::write(repo.path().join("index.scip.commit"), "not a sha\n").expect("sidecar");
    let snap = backend_facts(repo.path(), |_| {});
    assert_eq!(snap.manifest.backends[0].facts["freshness"], "unknown");
    assert!(snap
        .scip()
        .warnings
        .iter()
        .any(|w| w.code == "scip-commit-sidecar-invalid"));

    let store = tempfile::tempdir().expect("store");
    let mut opts = options(repo.path(), store.path());
    opts.scip_commit = Some("HEAD~1".into());
    let err = pipeline::snapshot(&opts, &pipeline::NoProgress).expect_err("not hex");
    assert_eq!(err.code(), ErrorCode::InvalidParameter);
}

#[test]
fn dirty_working_tree_against_an_index_of_head() {
    let repo = history_repo();
    write_index(&repo.path().join("index.scip"), &index_for(&["a.rs"]));
    std::fs::write(repo.path().join("a.rs"), "fn f() {}\n// edited\n").expect("edit");
    let head = git(repo.path(), &["rev-parse", "HEAD"]);
    let snap = backend_facts(repo.path(), |o| o.scip_commit = Some(head.clone()));
    assert!(snap.manifest.repo_state.dirty);
    assert_eq!(
        snap.manifest.backends[0].facts["freshness"],
        "current-dirty"
    );
    assert_eq!(
        snap.scip().completeness.as_ref().map(|c| c.reason.as_str()),
        Some("index-stale")
    );
}

#[test]
fn discovery_order_and_explicit_indexes() {
    let repo = repo_with(&[
        ("a.rs", "fn f() {}\n"),
        ("b.rs", "fn f() {}\n"),
        ("c.rs", "fn f() {}\n"),
        ("d.rs", "fn f() {}\n"),
        ("e.rs", "fn f() {}\n"),
    ]);
    let r = repo.path();
    for d in [".scip", ".ckb", "idx"] {
        std::fs::create_dir_all(r.join(d)).expect("mkdir");
    }
    write_index(&r.join("index.scip"), &index_for(&["a.rs"]));
    write_index(&r.join(".scip/b.scip"), &index_for(&["c.rs"]));
    write_index(&r.join(".scip/a.scip"), &index_for(&["b.rs"]));
    write_index(&r.join(".ckb/z.scip"), &index_for(&["d.rs"]));
    std::fs::write(r.join(".scip/notes.txt"), "not an index").expect("write");
    std::fs::write(r.join(".git/info/exclude"), ".scip/notes.txt\n").expect("exclude");
    // .scip and .ckb indexes are ckb inputs: ignored for dirtiness even though untracked.
    let snap = backend_facts(r, |_| {});
    assert_eq!(
        snap.backend_inputs(),
        ["index.scip", ".scip/a.scip", ".scip/b.scip", ".ckb/z.scip"]
    );
    assert_eq!(snap.scip().counts["files.covered"], 4);
    assert!(!snap.manifest.repo_state.dirty);

    // Explicit indexes replace discovery; an untracked explicit index does not dirty the tree.
    write_index(&r.join("idx/e.scip"), &index_for(&["e.rs"]));
    std::fs::write(r.join("idx/e.scip.commit"), git(r, &["rev-parse", "HEAD"])).expect("sidecar");
    let snap = backend_facts(r, |o| o.scip = vec![r.join("idx/e.scip")]);
    assert_eq!(snap.backend_inputs(), ["idx/e.scip"]);
    assert_eq!(snap.manifest.backends[0].facts["freshness"], "current");
    assert!(!snap.manifest.repo_state.dirty);
    assert_eq!(snap.symbols().len(), 1);

    // An index outside the repository is named by its file name only.
    let outside = tempfile::tempdir().expect("outside");
    write_index(&outside.path().join("ext.scip"), &index_for(&["a.rs"]));
    let snap = backend_facts(r, |o| o.scip = vec![outside.path().join("ext.scip")]);
    assert_eq!(snap.manifest.backends[0].input.as_deref(), Some("ext.scip"));
}

#[test]
fn no_index_disabled_or_not_selected() {
    let repo = repo_with(&[("a.rs", "fn f() {}\n")]);
    let snap = backend_facts(repo.path(), |_| {});
    assert_eq!(snap.scip().status, StageStatus::NotRun);
    assert_eq!(snap.scip().reason.as_deref(), Some("no SCIP index found"));
    assert!(snap.manifest.backends.iter().all(|b| b.kind != "scip"));

    write_index(&repo.path().join("index.scip"), &index_for(&["a.rs"]));
    let snap = backend_facts(repo.path(), |o| o.no_scip = true);
    assert_eq!(snap.scip().reason.as_deref(), Some("disabled (--no-scip)"));
    assert!(snap.manifest.table("symbols").is_none());

    let snap = backend_facts(repo.path(), |o| o.stages = Some(vec![Stage::Scan]));
    assert_eq!(snap.scip().status, StageStatus::NotRun);
    assert!(snap.manifest.backends.iter().all(|b| b.kind != "scip"));

    let snap = backend_facts(repo.path(), |_| {});
    assert_eq!(snap.scip().status, StageStatus::Ok);
    assert_eq!(snap.manifest.table("symbols").map(|t| t.rows), Some(1));
}
