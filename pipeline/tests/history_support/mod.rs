//! Shared helpers of the history tests: fixture repositories scripted with `test_support`'s
//! hermetic git, with a clock and an author the tests move, and snapshot/table readers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use output_schema::parquet_io::read_table;
use output_schema::Stage;
use pipeline::{NoProgress, PreviousChoice, SnapshotOptions};
use test_support::Signature;

/// Seconds in a day.
pub const DAY: i64 = 86_400;
/// Date of the first fixture commit (2024-01-01T00:00:00Z).
pub const EPOCH: i64 = 1_704_067_200;

/// A git repository in a temp dir with a controllable clock.
pub struct Repo {
    pub dir: tempfile::TempDir,
    /// Committer/author time of the next commit.
    pub time: i64,
    /// Author of the next commits.
    pub author: (String, String),
}

impl Repo {
    /// `git init -b main` in a fresh temp dir.
    pub fn new() -> Repo {
        let repo = Repo {
            dir: tempfile::tempdir().expect("temp dir"),
            time: EPOCH,
            author: ("Alice Example".into(), "alice@example.com".into()),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo
    }

    /// The work tree.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs git with fixed identity and dates; panics on failure; returns stdout.
    pub fn git(&self, args: &[&str]) -> String {
        let out = self.git_raw(args);
        test_support::assert_success(&out, &format!("git {args:?}"));
        test_support::stdout_of(&out)
    }

    /// Runs git and returns the raw output.
    pub fn git_raw(&self, args: &[&str]) -> std::process::Output {
        git_command(self.path(), self.time, &self.author)
            .args(args)
            .output()
            .expect("git runs")
    }

    /// Writes a file (creating folders).
    pub fn write(&self, path: &str, content: impl AsRef<[u8]>) {
        test_support::write_file(self.path(), path, content);
    }

    /// Removes a file.
    pub fn remove(&self, path: &str) {
        std::fs::remove_file(self.path().join(path)).expect("remove");
    }

    /// `git add -A && git commit`, one hour after the previous commit; returns the new sha.
    pub fn commit(&mut self, message: &str) -> String {
        self.time += 3600;
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
        self.head()
    }

    /// The HEAD commit.
    pub fn head(&self) -> String {
        self.git(&["rev-parse", "HEAD"]).trim().to_string()
    }
}

/// A git command in `dir` isolated from the machine's configuration, as `author` at `time`.
pub fn git_command(dir: &Path, time: i64, author: &(String, String)) -> Command {
    let date = format!("@{time} +0000");
    test_support::git_command(dir, &Signature::new(&author.0, &author.1, &date))
}

/// Options for a git-only snapshot of `root` into `store`.
pub fn git_only(root: &Path, store: &Path) -> SnapshotOptions {
    SnapshotOptions {
        root: root.to_path_buf(),
        out: Some(store.to_path_buf()),
        repo_id: Some("fixture".into()),
        stages: Some(vec![Stage::Git]),
        threads: Some(2),
        ..SnapshotOptions::default()
    }
}

/// Takes a snapshot and returns its folder.
pub fn snapshot(opts: &SnapshotOptions) -> PathBuf {
    let mut opts = opts.clone();
    opts.force = true;
    pipeline::snapshot(&opts, &NoProgress)
        .expect("snapshot succeeds")
        .snapshot()
        .dir
        .clone()
}

/// A full-walk snapshot (no previous snapshot).
pub fn snapshot_full(opts: &SnapshotOptions) -> PathBuf {
    let mut opts = opts.clone();
    opts.previous = PreviousChoice::Disabled;
    snapshot(&opts)
}

/// The five history tables of a snapshot, as the git stage returns them.
pub use pipeline::history::HistoryTables as History;

/// Reads the history tables of a snapshot.
pub fn read_history(dir: &Path) -> History {
    History {
        commits: read_table(&dir.join("commits.parquet")).expect("commits"),
        file_changes: read_table(&dir.join("file_changes.parquet")).expect("file_changes"),
        churn: read_table(&dir.join("churn.parquet")).expect("churn"),
        cochange: read_table(&dir.join("cochange.parquet")).expect("cochange"),
        ownership: read_table(&dir.join("ownership.parquet")).expect("ownership"),
    }
}

/// The raw bytes of the five history tables.
pub fn history_bytes(dir: &Path) -> Vec<(String, Vec<u8>)> {
    ["commits", "file_changes", "churn", "cochange", "ownership"]
        .iter()
        .map(|t| {
            let bytes = std::fs::read(dir.join(format!("{t}.parquet"))).expect("table file");
            (t.to_string(), bytes)
        })
        .collect()
}

/// The manifest of a snapshot.
pub fn manifest(dir: &Path) -> output_schema::manifest::Manifest {
    output_schema::verify::read_manifest(dir).expect("manifest")
}

/// The git stage report of a snapshot.
pub fn git_report(dir: &Path) -> output_schema::manifest::StageReport {
    manifest(dir).stages["git"].clone()
}

/// A count of the git stage report (0 when absent).
pub fn count(report: &output_schema::manifest::StageReport, key: &str) -> i64 {
    report.counts.get(key).copied().unwrap_or(0)
}
