//! The working-tree state around git's "racy clean" rule. Sub-second mtimes are on (see
//! `repo_state::open_repository`), so files written before the index are trusted by their stat
//! data. These tests check that this never hides an edit:
//! - an edit made right after the commit, in the same second and usually the same clock tick, with
//!   the same size as the committed content;
//! - an edit whose mtime is set back to the committed file's own mtime;
//! - an untouched fresh clone, whose files all share the index's second, which must read as clean.

mod scip_support;

use std::path::Path;
use std::time::{Duration, SystemTime};

use pipeline::repo_state::{read_git_state, StateExclusions};
use scip_support::{git, repo_with};

fn state(root: &Path) -> output_schema::manifest::RepoState {
    let root = root.canonicalize().expect("canonical root");
    read_git_state(&root, &StateExclusions::default())
        .expect("git state")
        .expect("a git repository")
}

#[test]
fn a_same_size_edit_right_after_the_commit_is_dirty() {
    for round in 0..5 {
        let repo = repo_with(&[("src/a.py", "x = 1\n"), ("src/b.py", "y = 2\n")]);
        let before = state(repo.path());
        assert!(!before.dirty, "round {round}: fresh commit");
        // Same length, different bytes, written immediately after the index.
        std::fs::write(repo.path().join("src/a.py"), "x = 9\n").expect("edit");
        let after = state(repo.path());
        assert!(after.dirty, "round {round}: same-size edit missed");
        assert_ne!(after.worktree_hash, before.worktree_hash, "round {round}");
    }
}

#[test]
fn an_edit_that_keeps_the_committed_mtime_is_dirty() {
    let repo = repo_with(&[("a.py", "x = 1\n")]);
    let path = repo.path().join("a.py");
    let committed = std::fs::metadata(&path)
        .and_then(|m| m.modified())
        .expect("mtime");
    std::fs::write(&path, "x = 2\n").expect("edit");
    let file = std::fs::File::options()
        .write(true)
        .open(&path)
        .expect("open");
    file.set_modified(committed).expect("set mtime");
    drop(file);
    assert!(state(repo.path()).dirty);
}

#[test]
fn a_fresh_clone_reads_clean_and_its_edits_dirty() {
    let origin = repo_with(&[("src/a.py", "x = 1\n"), ("README.md", "hi\n")]);
    let parent = tempfile::tempdir().expect("temp dir");
    let clone = parent.path().join("clone");
    git(
        parent.path(),
        &[
            "clone",
            "-q",
            origin.path().to_str().expect("utf-8 path"),
            "clone",
        ],
    );
    let fresh = state(&clone);
    assert!(!fresh.dirty, "untouched clone");
    // Back-dated edit: older than the index, same size, so only the content tells.
    let path = clone.join("README.md");
    std::fs::write(&path, "ho\n").expect("edit");
    let file = std::fs::File::options()
        .write(true)
        .open(&path)
        .expect("open");
    file.set_modified(SystemTime::now() - Duration::from_secs(3600))
        .expect("set mtime");
    drop(file);
    assert!(state(&clone).dirty, "back-dated edit");
}
