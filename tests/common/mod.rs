//! Shared helpers for CLI integration tests: fixture repositories built at runtime with the git CLI
//! (fixed identities and dates, no user or system config), and a runner for the `ckb` binary.
#![allow(dead_code)]

pub mod fixture_snapshot;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use output_schema::manifest::Manifest;

/// Called when a test's external tool is missing. Under CI (`CI=true`, as `.ci/run` runs) the test
/// fails: `.ci/run` installs every tool, so a missing one is a broken setup, never a pass. Locally the
/// test may go on without the tool, and says so loudly with the command that installs it.
pub fn tool_missing(tool: &str, install: &str) {
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{tool} is missing under CI; install it with `{install}`"
    );
    eprintln!("SKIPPED (tool missing): {tool}; install it with `{install}`");
}

/// A temporary folder holding a fixture repository.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    /// The repository folder: `dir` itself, or a folder below it ([`Fixture::git_in`]).
    root: PathBuf,
    tick: std::cell::Cell<u32>,
}

impl Fixture {
    /// An empty folder (not a repository).
    pub fn plain() -> Fixture {
        let dir = tempfile::Builder::new()
            .prefix("ckb-fixture")
            .tempdir()
            .unwrap();
        Fixture {
            root: dir.path().to_path_buf(),
            dir,
            tick: std::cell::Cell::new(0),
        }
    }

    /// A fresh git repository on branch main at `sub` (folders made) below a temporary folder.
    pub fn git_in(sub: &str) -> Fixture {
        let mut f = Fixture::plain();
        f.root = f.dir.path().join(sub);
        std::fs::create_dir_all(&f.root).unwrap();
        f.run_git(&["init", "-q", "-b", "main"]);
        f
    }

    /// A fresh git repository on branch main.
    pub fn git() -> Fixture {
        let f = Fixture::plain();
        f.run_git(&["init", "-q", "-b", "main"]);
        f
    }

    pub fn path(&self) -> &Path {
        &self.root
    }

    /// Writes a file (creating folders).
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> &Self {
        let p = self.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
        self
    }

    /// Runs git with a fixed, config-free environment; panics on failure.
    pub fn run_git(&self, args: &[&str]) -> String {
        let t = self.tick.get();
        self.tick.set(t + 1);
        let date = format!("2024-01-{:02}T12:00:00Z", 1 + t.min(27));
        let out = Command::new("git")
            .args(args)
            .current_dir(self.path())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Fixture Author")
            .env("GIT_AUTHOR_EMAIL", "author@example.com")
            .env("GIT_COMMITTER_NAME", "Fixture Author")
            .env("GIT_COMMITTER_EMAIL", "author@example.com")
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Stages everything and commits.
    pub fn commit(&self, message: &str) -> String {
        self.run_git(&["add", "-A"]);
        self.run_git(&["commit", "-q", "-m", message]);
        self.run_git(&["rev-parse", "HEAD"])
    }
}

/// Runs `ckb` with arguments in a folder (without the caller's `CKB_STORE`, which would move
/// every store the tests expect in the repository).
pub fn ckb(dir: &Path, args: &[&str]) -> Output {
    ckb_env(dir, args, &[])
}

/// Runs `ckb` with arguments and extra environment variables in a folder.
pub fn ckb_env(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ckb"));
    cmd.args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("CKB_STORE")
        .env("CKB_SALT", "test-salt");
    for (name, value) in env {
        cmd.env(name, value);
    }
    cmd.output().unwrap()
}

/// Runs `ckb` and asserts success; returns stdout.
pub fn ckb_ok(dir: &Path, args: &[&str]) -> String {
    let out = ckb(dir, args);
    assert!(
        out.status.success(),
        "ckb {args:?} failed ({:?}):\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Snapshots `repo` into `store` and returns the snapshot folder (the last stdout line).
pub fn snapshot(repo: &Path, store: &Path, extra: &[&str]) -> PathBuf {
    let mut args = vec![
        "snapshot",
        repo.to_str().unwrap(),
        "--out",
        store.to_str().unwrap(),
        "--progress",
        "never",
    ];
    args.extend_from_slice(extra);
    let out = ckb_ok(repo, &args);
    PathBuf::from(out.lines().last().unwrap())
}

/// Reads a snapshot's manifest.
pub fn manifest(snapshot: &Path) -> Manifest {
    output_schema::verify::read_manifest(snapshot).unwrap()
}

/// Every file of a folder, relative path → bytes, sorted.
pub fn files_of(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// Whether the tests run as root (permission tests cannot fail then).
pub fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// The stock DuckDB CLI: `CKB_DUCKDB`, else the one `ci/install-tools.sh` installs, else `PATH`'s.
pub fn stock_duckdb() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("CKB_DUCKDB").map(PathBuf::from),
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/ckb-tools/venv/bin/duckdb")),
        Some(PathBuf::from("duckdb")),
    ];
    candidates.into_iter().flatten().find(|c| {
        Command::new(c)
            .arg("-version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}
