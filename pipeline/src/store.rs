//! The snapshot store: where snapshots live, how they become visible atomically, and how the
//! previous snapshot of a repository is found and checked before its rows are reused.
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
use output_schema::manifest::{Manifest, RepoState};
use output_schema::verify::read_manifest;

use crate::PipelineError;

/// The `commit=` partition value of a state: the name of its snapshot's folder.
pub fn snapshot_partition(state: &RepoState) -> String {
    output_schema::layout::commit_partition_value(
        state.is_git,
        state.head_commit.as_deref(),
        state.dirty,
        &state.repo_state_id,
    )
}

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
        // Lock names are predictable (a base commit's), so a store inside a repository may hold a
        // committed symlink by that name: opening it for writing would follow it.
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(PipelineError::OutputNotWritable {
                path,
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "the lock file is a symlink, which ckb never writes through; delete it",
                ),
            });
        }
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

    /// The snapshot of exactly `state`, if one is stored: the folder named after the state, when
    /// its manifest records the same `repoStateId`.
    pub fn snapshot_of(&self, repo_id: &str, state: &RepoState) -> Option<StoredSnapshot> {
        let dir = self.snapshot_dir(repo_id, &snapshot_partition(state));
        if !is_real_dir(&dir) {
            return None;
        }
        let manifest = read_manifest(&dir).ok()?;
        (manifest.repo_state.repo_state_id == state.repo_state_id)
            .then_some(StoredSnapshot { dir, manifest })
    }

    /// The snapshot folders of a repository, known by name: nothing is read but the listing.
    /// Symlinks are left out (ckb never makes one; the listing's file types tell them apart).
    pub fn folders(&self, repo_id: &str) -> SnapshotFolders {
        let names = std::fs::read_dir(self.repo_dir(repo_id))
            .map(|entries| {
                entries
                    .flatten()
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                    .filter_map(|e| e.file_name().into_string().ok())
                    .filter(|name| name.starts_with(COMMIT_PARTITION))
                    .collect()
            })
            .unwrap_or_default();
        SnapshotFolders::from_names(&self.repo_dir(repo_id), names)
    }
}

/// The snapshot folders of one repository, by the head commit each folder's name carries.
///
/// A snapshot's folder is named after its state (`commit=<sha>`, `commit=<sha>-dirty-<id>`, see
/// [`output_schema::layout::commit_partition_value`]), so the snapshots of a commit are found
/// without opening any. Choosing one reads the manifests of the commit it settles on, not the
/// whole store's: CI adds a snapshot per commit, and reading 1 000 manifests took 150 ms, more
/// than the rest of a one-file snapshot.
#[derive(Clone, Debug, Default)]
pub struct SnapshotFolders {
    /// Every snapshot folder, sorted by name.
    all: Vec<PathBuf>,
    /// The folders of each head commit: clean first, then by name.
    by_head: std::collections::HashMap<String, Vec<PathBuf>>,
}

impl SnapshotFolders {
    fn from_names(repo_dir: &Path, mut names: Vec<String>) -> SnapshotFolders {
        names.sort();
        let mut by_head: std::collections::HashMap<String, Vec<PathBuf>> = Default::default();
        let mut clean_first: Vec<(bool, &String)> =
            names.iter().map(|n| (n.contains("-dirty-"), n)).collect();
        clean_first.sort();
        for (_, name) in clean_first {
            if let Some(head) = head_of(name) {
                by_head
                    .entry(head.to_string())
                    .or_default()
                    .push(repo_dir.join(name));
            }
        }
        let all = names.iter().map(|n| repo_dir.join(n)).collect();
        SnapshotFolders { all, by_head }
    }

    /// Whether the repository has no snapshot folder at all.
    pub fn is_empty(&self) -> bool {
        self.all.is_empty()
    }

    /// Every snapshot folder, sorted by name.
    pub fn all(&self) -> &[PathBuf] {
        &self.all
    }

    /// The folders whose name says their head commit is `sha`: clean first, then by name.
    pub fn at_commit(&self, sha: &str) -> &[PathBuf] {
        self.by_head.get(sha).map_or(&[], Vec::as_slice)
    }
}

/// Whether `dir` is a folder itself, not a symlink to one.
fn is_real_dir(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir())
}

/// Checks every file of a snapshot against its manifest (hashes, sizes, Parquet schemas, as
/// `ckb verify` does) before any of its rows are reused. On failure, says which files fail.
///
/// Reusing rows trusts them as if this build had computed them: a snapshot whose files were
/// altered, or a fake folder committed into a store inside the repository, must not feed a new
/// snapshot. The files are hashed side by side; they are the files a reuse reads next, so the
/// reads that follow find them in the page cache.
pub fn verify(snapshot: &StoredSnapshot) -> Result<(), String> {
    let report = output_schema::verify::verify_against(&snapshot.dir, &snapshot.manifest);
    let failed: Vec<String> = report
        .files
        .iter()
        .filter(|f| !f.ok)
        .map(|f| format!("{}: {}", f.file, f.problem.as_deref().unwrap_or("fails")))
        .collect();
    match failed.as_slice() {
        [] => Ok(()),
        [one] => Err(one.clone()),
        [first, rest @ ..] => Err(format!("{first} (and {} more files)", rest.len())),
    }
}

/// Whether the manifest of `snapshot` is committed in HEAD's tree of `repo`, whose work tree is
/// `root`. ckb never commits a snapshot: one that is committed came with the repository's content,
/// and a pull request can commit a folder whose manifest matches forged files, which no hash check
/// can tell. One tree lookup per folder on the way (a few object reads).
pub fn is_committed(repo: &gix::Repository, root: &Path, snapshot: &Path) -> bool {
    is_tracked(
        repo,
        root,
        &snapshot.join(output_schema::layout::MANIFEST_FILE),
    )
}

/// Whether `file` (a path under `root`, the work tree of `repo`) is in HEAD's tree.
pub fn is_tracked(repo: &gix::Repository, root: &Path, file: &Path) -> bool {
    let Ok(relative) = file.strip_prefix(root) else {
        return false;
    };
    repo.head_tree()
        .ok()
        .and_then(|tree| tree.lookup_entry_by_path(relative).ok().flatten())
        .is_some()
}

/// The head commit in a snapshot folder's name, if it has one (not `unborn-…` or `nogit-…`).
fn head_of(folder: &str) -> Option<&str> {
    let value = folder.strip_prefix(COMMIT_PARTITION)?;
    let head = value.split_once("-dirty-").map_or(value, |(head, _)| head);
    let is_object_id = matches!(head.len(), 40 | 64) && head.bytes().all(|b| b.is_ascii_hexdigit());
    is_object_id.then_some(head)
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

/// Finds the newest snapshot whose head commit is HEAD or an ancestor of it, preferring the
/// closest ancestor and, at one commit, a clean snapshot. Walks at most `max_walk` commits, and
/// reads only the manifests of the commit it stops at. A snapshot whose state is
/// `exclude_state_id`, whose manifest does not name the commit its folder does, or that cannot be
/// read (reported to `unreadable`, then skipped) is passed over.
pub fn newest_ancestor_snapshot(
    repo: &gix::Repository,
    folders: &SnapshotFolders,
    exclude_state_id: &str,
    max_walk: usize,
    unreadable: &mut dyn FnMut(&Path, String),
) -> Option<StoredSnapshot> {
    if folders.by_head.is_empty() {
        return None;
    }
    let head = repo.head_id().ok()?;
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
        for dir in folders.at_commit(&sha) {
            match read_manifest(dir) {
                Ok(manifest) => {
                    let state = &manifest.repo_state;
                    if state.head_commit.as_deref() == Some(sha.as_str())
                        && state.repo_state_id != exclude_state_id
                    {
                        return Some(StoredSnapshot {
                            dir: dir.clone(),
                            manifest,
                        });
                    }
                }
                Err(e) => unreadable(dir, e.to_string()),
            }
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
