//! The snapshot store: where snapshots live, how they become visible atomically, and how the
//! previous snapshot of a repository is found.
//!
//! A snapshot is built in a temporary sibling folder (`.tmp-commit=<state>.<pid>`), every file is
//! fsynced, and one `rename` makes it visible; the parent folder is fsynced afterwards. A process
//! killed mid-write leaves only a temporary folder, which the next writer of the same state removes.
//! An OS file lock per snapshot (`.lock-commit=<state>`) keeps two writers of the same state from
//! racing; it is released by the kernel when a process dies, so a crash never leaves a stale lock.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use output_schema::layout::{COMMIT_PARTITION, REPO_PARTITION};
use output_schema::manifest::Manifest;
use output_schema::verify::read_manifest;

use crate::PipelineError;

/// A snapshot store folder.
#[derive(Clone, Debug)]
pub struct Store {
    root: PathBuf,
}

/// An existing snapshot.
#[derive(Clone, Debug)]
pub struct StoredSnapshot {
    /// Its folder.
    pub dir: PathBuf,
    /// Its manifest.
    pub manifest: Manifest,
}

/// Holds the per-snapshot lock until dropped.
#[derive(Debug)]
pub struct SnapshotLock {
    _file: File,
}

impl Store {
    /// A store at `root` (created on first write).
    pub fn new(root: impl Into<PathBuf>) -> Store {
        Store { root: root.into() }
    }

    /// The store folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Folder of all snapshots of a repository.
    pub fn repo_dir(&self, repo_id: &str) -> PathBuf {
        self.root.join(format!("{REPO_PARTITION}{repo_id}"))
    }

    /// Folder of one snapshot.
    pub fn snapshot_dir(&self, repo_id: &str, partition: &str) -> PathBuf {
        self.repo_dir(repo_id)
            .join(format!("{COMMIT_PARTITION}{partition}"))
    }

    /// Takes the lock of one snapshot, waiting up to `timeout` for another writer to finish.
    pub fn lock(
        &self,
        repo_id: &str,
        partition: &str,
        timeout: Duration,
    ) -> Result<SnapshotLock, PipelineError> {
        let dir = self.repo_dir(repo_id);
        std::fs::create_dir_all(&dir).map_err(|source| PipelineError::OutputNotWritable {
            path: dir.clone(),
            source,
        })?;
        let path = dir.join(format!(".lock-{COMMIT_PARTITION}{partition}"));
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|source| PipelineError::OutputNotWritable {
                path: path.clone(),
                source,
            })?;
        let start = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(SnapshotLock { _file: file }),
                Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < timeout => {
                    std::thread::sleep(Duration::from_millis(100));
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(PipelineError::Locked {
                        path,
                        since: format!("more than {} s", timeout.as_secs()),
                    })
                }
                Err(std::fs::TryLockError::Error(source)) => {
                    return Err(PipelineError::OutputNotWritable { path, source })
                }
            }
        }
    }

    /// Creates a fresh temporary folder for building a snapshot, removing leftovers of killed
    /// writers of the same state. Call only while holding that state's lock.
    pub fn temp_dir(&self, repo_id: &str, partition: &str) -> Result<PathBuf, PipelineError> {
        let repo_dir = self.repo_dir(repo_id);
        let prefix = format!(".tmp-{COMMIT_PARTITION}{partition}.");
        if let Ok(entries) = std::fs::read_dir(&repo_dir) {
            for e in entries.flatten() {
                if e.file_name().to_string_lossy().starts_with(&prefix) {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
        let tmp = repo_dir.join(format!("{prefix}{}", std::process::id()));
        std::fs::create_dir_all(tmp.join(output_schema::layout::VIEWS_DIR)).map_err(|source| {
            PipelineError::OutputNotWritable {
                path: tmp.clone(),
                source,
            }
        })?;
        Ok(tmp)
    }

    /// Makes a built snapshot visible under its final name. `tmp` must be on disk already (its
    /// files and folders flushed). An existing snapshot of the same state (only with `--force`) is
    /// moved aside first and removed after the new one is in place.
    pub fn publish(&self, tmp: &Path, dest: &Path) -> Result<(), PipelineError> {
        let parent = dest.parent().unwrap_or(self.root.as_path());
        let mut old = None;
        if dest.exists() {
            let aside = tmp.with_extension(format!("old{}", std::process::id()));
            std::fs::rename(dest, &aside).map_err(|e| PipelineError::io(dest, e))?;
            old = Some(aside);
        }
        std::fs::rename(tmp, dest).map_err(|e| PipelineError::io(dest, e))?;
        sync_dir(parent)?;
        if let Some(old) = old {
            let _ = std::fs::remove_dir_all(old);
        }
        Ok(())
    }

    /// Every readable snapshot of a repository, sorted by folder name. Unreadable ones are
    /// returned separately so callers can warn about them.
    pub fn list(&self, repo_id: &str) -> (Vec<StoredSnapshot>, Vec<(PathBuf, String)>) {
        let mut good = Vec::new();
        let mut bad = Vec::new();
        let Ok(entries) = std::fs::read_dir(self.repo_dir(repo_id)) else {
            return (good, bad);
        };
        let mut dirs: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with(COMMIT_PARTITION)
            })
            .map(|e| e.path())
            .collect();
        dirs.sort();
        for dir in dirs {
            match read_manifest(&dir) {
                Ok(manifest) => good.push(StoredSnapshot { dir, manifest }),
                Err(e) => bad.push((dir, e.to_string())),
            }
        }
        (good, bad)
    }
}

fn sync_dir(dir: &Path) -> Result<(), PipelineError> {
    if let Some(f) = open_dir(dir) {
        f.sync_all().map_err(|e| PipelineError::io(dir, e))?;
    }
    Ok(())
}

/// A folder opened for an fsync, which makes its new entries and renames durable. Not every
/// platform lets a folder be opened, so `None` there is not an error.
pub(crate) fn open_dir(dir: &Path) -> Option<File> {
    File::open(dir).ok()
}

/// Finds the newest snapshot in `snapshots` whose head commit is HEAD or an ancestor of it,
/// preferring clean snapshots and the closest ancestor. Walks at most `max_walk` commits.
pub fn newest_ancestor_snapshot<'a>(
    repo: &gix::Repository,
    snapshots: &'a [StoredSnapshot],
    exclude_state_id: &str,
    max_walk: usize,
) -> Option<&'a StoredSnapshot> {
    let head = repo.head_id().ok()?;
    let usable = |s: &&StoredSnapshot| s.manifest.repo_state.repo_state_id != exclude_state_id;
    let walk = repo
        .rev_walk([head.detach()])
        .sorting(gix::revision::walk::Sorting::ByCommitTime(
            gix::traverse::commit::simple::CommitTimeOrder::NewestFirst,
        ))
        .all()
        .ok()?;
    for info in walk.take(max_walk) {
        let Ok(info) = info else { break };
        let sha = info.id.to_string();
        let mut at_commit: Vec<&StoredSnapshot> = snapshots
            .iter()
            .filter(|s| s.manifest.repo_state.head_commit.as_deref() == Some(sha.as_str()))
            .filter(usable)
            .collect();
        // Clean first; among dirty ones, a deterministic choice by folder name.
        at_commit.sort_by_key(|s| (s.manifest.repo_state.dirty, s.dir.clone()));
        if let Some(s) = at_commit.first() {
            return Some(s);
        }
    }
    None
}

/// How a snapshot's head relates to the repository's HEAD.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeadRelation {
    /// Same commit.
    Same,
    /// The snapshot's head is an ancestor of HEAD, this many commits back.
    Behind(u64),
    /// Not an ancestor (another branch, rewritten history, or unknown commit).
    Diverged,
}

/// Relates a snapshot's head commit to HEAD by walking from HEAD with the snapshot's head hidden.
pub fn head_relation(repo: &gix::Repository, snapshot_head: &str) -> Option<HeadRelation> {
    let head = repo.head_id().ok()?.detach();
    let Ok(base) = gix::ObjectId::from_hex(snapshot_head.as_bytes()) else {
        return Some(HeadRelation::Diverged);
    };
    if head == base {
        return Some(HeadRelation::Same);
    }
    if repo.find_object(base).is_err() {
        return Some(HeadRelation::Diverged);
    }
    let is_ancestor = repo
        .merge_base(base, head)
        .map(|mb| mb.is_some_and(|id| id.detach() == base))
        .unwrap_or(false);
    if !is_ancestor {
        return Some(HeadRelation::Diverged);
    }
    let walk = repo.rev_walk([head]).with_hidden([base]).all().ok()?;
    let mut n = 0u64;
    for info in walk {
        if info.is_err() {
            break;
        }
        n += 1;
    }
    Some(HeadRelation::Behind(n))
}
