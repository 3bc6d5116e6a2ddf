//! The snapshot store: where snapshots live, how they become visible atomically, and how the
//! previous snapshot of a repository is found and checked before its rows are reused.
//!
//! A snapshot is built in a temporary sibling folder (`.tmp-commit=<state>.<pid>`), every file is
//! fsynced, and one `rename` makes it visible; the parent folder is fsynced afterwards. A snapshot
//! that replaces one of the same state (`--force`) is exchanged with it in one step
//! (`renameat2(RENAME_EXCHANGE)`), so the old one stays visible until the new one is in place;
//! where the file system has no exchange, the old one is set aside (`.old-commit=…`) for the
//! instant of the second rename, and the next writer puts it back should the process die in
//! between. Leftovers of a killed writer are removed by the next writer of the repository (and
//! by `ckb store gc`) once it holds their state's lock ([`crate::leftovers`]).
//!
//! An OS file lock per state (`.lock-commit=<state>`) keeps two writers of the same state from
//! racing; the kernel releases it when a process dies, so a crash never leaves a lock held. The
//! holder removes the file before releasing it, and whoever is granted a lock checks that the
//! file it locked still has the name: so lock files do not pile up, and removing one can never
//! let two writers in.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use output_schema::failpoint;
use output_schema::folder_lock;
use output_schema::layout::{Leftover, LeftoverKind, COMMIT_PARTITION, REPO_PARTITION};
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

/// Holds the lock of one state until dropped; the lock file goes with it.
#[derive(Debug)]
pub struct SnapshotLock {
    _file: File,
    path: PathBuf,
}

impl Drop for SnapshotLock {
    fn drop(&mut self) {
        // Removed while still held: a process waiting on this file finds, once granted, that the
        // name no longer leads to it, and locks the name anew (`SnapshotLock::try_take`). Only
        // the holder ever removes the file, so the name always leads to the file whose holder
        // counts. (Windows cannot remove an open file; the file stays there, harmlessly.)
        #[cfg(unix)]
        {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

impl SnapshotLock {
    /// Locks the file at `path` (made if missing) if no one holds it; `None` when someone does.
    fn try_take(path: &Path) -> Result<Option<SnapshotLock>, PipelineError> {
        let not_writable = |source| PipelineError::OutputNotWritable {
            path: path.to_path_buf(),
            source,
        };
        // Granted a file that was removed (or replaced) meanwhile: lock the name again. A holder
        // removes it only on release, so this repeats at most once per release that raced.
        for _ in 0..1000 {
            // Lock names are predictable (a base commit's), so a store inside a repository may
            // hold a committed symlink by that name: opening it for writing would follow it.
            if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
                return Err(not_writable(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "the lock file is a symlink, which ckb never writes through; delete it",
                )));
            }
            let file = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(path)
                .map_err(not_writable)?;
            match file.try_lock() {
                Ok(()) if names(&file, path) => {
                    return Ok(Some(SnapshotLock {
                        _file: file,
                        path: path.to_path_buf(),
                    }))
                }
                Ok(()) => continue,
                Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
                Err(std::fs::TryLockError::Error(source)) => return Err(not_writable(source)),
            }
        }
        Ok(None)
    }
}

/// Whether `path` still names the file `file` has open.
fn names(file: &File, path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), std::fs::symlink_metadata(path)) {
            (Ok(held), Ok(named)) => held.dev() == named.dev() && held.ino() == named.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        path.is_file()
    }
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

    /// The lock file of one state.
    pub fn lock_path(&self, repo_id: &str, partition: &str) -> PathBuf {
        self.repo_dir(repo_id)
            .join(Leftover::name(LeftoverKind::Lock, partition, 0))
    }

    /// Takes the lock of one state, waiting up to `timeout` for another writer to finish.
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
        let path = self.lock_path(repo_id, partition);
        let start = Instant::now();
        loop {
            match SnapshotLock::try_take(&path)? {
                Some(lock) => return Ok(lock),
                None if start.elapsed() < timeout => {
                    std::thread::sleep(Duration::from_millis(100));
                }
                None => {
                    return Err(PipelineError::Locked {
                        path,
                        since: format!("more than {} s", timeout.as_secs()),
                    })
                }
            }
        }
    }

    /// Takes the lock of one state if no writer holds it, without waiting: `None` means a writer
    /// of that state is at work.
    pub fn try_lock(
        &self,
        repo_id: &str,
        partition: &str,
    ) -> Result<Option<SnapshotLock>, PipelineError> {
        SnapshotLock::try_take(&self.lock_path(repo_id, partition))
    }

    /// Whether a writer of the state holds its lock now, found without making or removing
    /// anything (for `ckb store gc --dry-run`).
    pub fn writer_alive(&self, repo_id: &str, partition: &str) -> bool {
        let path = self.lock_path(repo_id, partition);
        if std::fs::symlink_metadata(&path).map_or(true, |m| !m.is_file()) {
            return false;
        }
        match File::open(&path).map(|f| f.try_lock_shared()) {
            Ok(Ok(())) => false,
            Ok(Err(std::fs::TryLockError::WouldBlock)) => true,
            // Cannot tell: count it as alive, which only keeps things.
            _ => true,
        }
    }

    /// Creates a fresh temporary folder for building a snapshot. Call only while holding that
    /// state's lock, after [`Store::recover`].
    pub fn temp_dir(&self, repo_id: &str, partition: &str) -> Result<PathBuf, PipelineError> {
        let name = Leftover::name(LeftoverKind::Build, partition, std::process::id());
        let tmp = self.repo_dir(repo_id).join(name);
        std::fs::create_dir_all(tmp.join(output_schema::layout::VIEWS_DIR)).map_err(|source| {
            PipelineError::OutputNotWritable {
                path: tmp.clone(),
                source,
            }
        })?;
        Ok(tmp)
    }

    /// Clears what killed writers of one state left (a set-aside snapshot put back when the state
    /// has none, everything else removed: [`crate::leftovers`]). Call only while holding that
    /// state's lock.
    pub fn recover(&self, repo_id: &str, partition: &str) {
        crate::leftovers::recover_state(self, repo_id, partition, false);
    }

    /// Where the scan cache is written before it is renamed into place: a name that carries the
    /// state whose writer (holding its lock) writes it, so that a leftover of a killed writer can
    /// be told from a cache being written.
    pub fn cache_temp(&self, repo_id: &str, partition: &str) -> PathBuf {
        self.repo_dir(repo_id).join(Leftover::name(
            LeftoverKind::CacheTemp,
            partition,
            std::process::id(),
        ))
    }

    /// Makes a built snapshot visible under its final name. `tmp` must be on disk already (its
    /// files and folders flushed). An existing snapshot of the same state (only with `--force`)
    /// is replaced so that its name always leads to one whole snapshot (`replace`), once its
    /// readers are done (waiting up to `readers_timeout`).
    pub fn publish(
        &self,
        tmp: &Path,
        dest: &Path,
        readers_timeout: Duration,
    ) -> Result<(), PipelineError> {
        let parent = dest.parent().unwrap_or(self.root.as_path());
        if std::fs::symlink_metadata(dest).is_ok() {
            // Readers of the old snapshot finish first, and new ones wait until the new one is
            // in: none reads the manifest of one and the tables of the other.
            let readers = match folder_lock::wait_exclusive(dest, readers_timeout) {
                Ok(Some(lock)) => Some(lock),
                Ok(None) => {
                    return Err(PipelineError::ReadersHold {
                        path: dest.to_path_buf(),
                        waited_secs: readers_timeout.as_secs(),
                    })
                }
                // No locks on this file system (or a symlink, which replace() swaps away).
                Err(_) => None,
            };
            let replaced = self.replace(tmp, dest, parent);
            drop(readers);
            return replaced;
        }
        failpoint::hit("publish-rename").map_err(|e| PipelineError::io(dest, e))?;
        std::fs::rename(tmp, dest).map_err(|e| PipelineError::io(dest, e))?;
        failpoint::hit("published").map_err(|e| PipelineError::io(dest, e))?;
        sync_dir(parent)
    }

    /// Puts the snapshot built in `new` in the place of the one at `dest`, so that `dest` always
    /// holds one whole snapshot: the two folders are exchanged atomically, then the old one (now
    /// at `new`'s name) is removed. Where the file system cannot exchange, the old one is set
    /// aside under a name the next writer recognises and restores if this process dies before
    /// the new one is in.
    fn replace(&self, new: &Path, dest: &Path, parent: &Path) -> Result<(), PipelineError> {
        let io = |e| PipelineError::io(dest, e);
        failpoint::hit("force-swap").map_err(io)?;
        match exchange(new, dest) {
            Ok(()) => {
                sync_dir(parent)?;
                failpoint::hit("force-swapped").map_err(io)?;
                // `new` names the old snapshot now.
                let _ = std::fs::remove_dir_all(new);
                return Ok(());
            }
            Err(e) if e.kind() != std::io::ErrorKind::Unsupported => return Err(io(e)),
            Err(_) => {}
        }
        let state = dest
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix(COMMIT_PARTITION))
            .unwrap_or_default();
        let aside = parent.join(Leftover::name(
            LeftoverKind::SetAside,
            state,
            std::process::id(),
        ));
        // The two renames follow each other at once (the folder is flushed after both): readers
        // find the name empty only for that instant, and a crash between them leaves the old
        // snapshot set aside, which the next writer puts back.
        std::fs::rename(dest, &aside).map_err(io)?;
        let moved_in = failpoint::hit("force-set-aside")
            .map_err(io)
            .and_then(|()| std::fs::rename(new, dest).map_err(io));
        if let Err(e) = moved_in {
            // Put the old one back: the store stays as it was.
            let _ = std::fs::rename(&aside, dest);
            let _ = sync_dir(parent);
            return Err(e);
        }
        sync_dir(parent)?;
        let _ = std::fs::remove_dir_all(&aside);
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
pub(crate) fn is_real_dir(dir: &Path) -> bool {
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
    let report = output_schema::verify::verify_against(
        &snapshot.dir,
        &snapshot.manifest,
        output_schema::verify::Depth::Files,
    );
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

/// Exchanges two folders atomically (`renameat2(RENAME_EXCHANGE)` on Linux, `renameatx_np(
/// RENAME_SWAP)` on macOS). `ErrorKind::Unsupported` where the platform or file system has no
/// such call, or when the `no-exchange` failpoint asks to act as if it had none.
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    let unsupported = || std::io::Error::from(std::io::ErrorKind::Unsupported);
    if failpoint::flag("no-exchange") {
        return Err(unsupported());
    }
    #[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
    {
        use rustix::fs::{renameat_with, RenameFlags, CWD};
        use rustix::io::Errno;
        match renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE) {
            Ok(()) => Ok(()),
            // An old kernel (ENOSYS), or a file system without the flag (EINVAL, EOPNOTSUPP).
            Err(e)
                if [Errno::NOSYS, Errno::INVAL, Errno::OPNOTSUPP, Errno::NOTSUP].contains(&e) =>
            {
                Err(unsupported())
            }
            Err(e) => Err(e.into()),
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android", target_vendor = "apple")))]
    {
        let _ = (a, b);
        Err(unsupported())
    }
}

pub(crate) fn sync_dir(dir: &Path) -> Result<(), PipelineError> {
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
