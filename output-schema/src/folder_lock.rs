//! Locks on a snapshot folder (or a whole store folder) that say "someone is reading this".
//!
//! A reader (`ckb query`, `ckb diff`, `ckb verify`, a writer reading its previous snapshot, a SQL
//! session over a store) holds a shared lock on the folder it reads, taken on the folder itself
//! (an OS file lock, `flock`, on an open handle of the folder), so nothing is written into the
//! store and a read-only store can still be read. `ckb store gc` takes the same lock exclusively,
//! without waiting, before it renames a snapshot out of sight: a snapshot being read is kept. The
//! kernel drops a lock when its process dies, so a killed reader never blocks a clean-up.
//!
//! The lock belongs to the folder, not to its name: `--force` exchanges a new folder with the old
//! one under the same name, and gc renames a folder away before deleting it. So a reader, once
//! its lock is granted, checks that the name still leads to the folder it locked, and otherwise
//! tries again (or finds the snapshot gone).
//!
//! A `--force` rebuild takes the old snapshot's lock exclusively (waiting for its readers) for
//! the instant it puts the new one in its place, so a reader reads the old one or the new one,
//! never a manifest of one and tables of the other.
//!
//! Where the platform or file system has no such locks, readers go on without one; gc, which
//! must know, keeps a folder it cannot lock.

use std::fs::File;
use std::path::Path;

/// A held lock on a folder; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct FolderLock {
    _handle: File,
    /// The closed gate of a writer waiting for the folder's readers ([`wait_exclusive`]).
    _gate: Option<File>,
}

impl FolderLock {
    fn new(handle: File) -> FolderLock {
        FolderLock {
            _handle: handle,
            _gate: None,
        }
    }
}

/// What became of a shared lock request.
#[derive(Debug)]
pub enum Shared {
    /// The folder is locked for reading.
    Locked(FolderLock),
    /// The folder is not there (any more): removed, or renamed away by gc.
    Gone,
    /// The name now leads to another folder (a `--force` rebuild exchanged them): ask again.
    Replaced,
    /// This platform or file system cannot lock folders: read without a lock.
    Unsupported,
}

/// Takes a shared lock on `dir`, waiting while gc holds it exclusively (only for the instant of a
/// rename).
pub fn share(dir: &Path) -> Shared {
    let Ok(handle) = open(dir) else {
        return if dir.exists() {
            Shared::Unsupported
        } else {
            Shared::Gone
        };
    };
    if handle.lock_shared().is_err() {
        return Shared::Unsupported;
    }
    match same_folder(&handle, dir) {
        Some(true) => Shared::Locked(FolderLock::new(handle)),
        Some(false) => Shared::Replaced,
        None => Shared::Gone,
    }
}

/// Takes a shared lock on the folder `dir` (a snapshot, or a whole store) for as long as the
/// result lives: `None` when the folder cannot be locked here, and an error when it is gone. A
/// snapshot exchanged by a `--force` rebuild meanwhile is locked under its new content.
pub fn hold_shared(dir: &Path) -> std::io::Result<Option<FolderLock>> {
    let mut gone = 0;
    for _ in 0..16 {
        match share(dir) {
            Shared::Locked(lock) => return Ok(Some(lock)),
            Shared::Unsupported => return Ok(None),
            Shared::Replaced => continue,
            // On a file system without an exchange, a `--force` rebuild leaves the name empty
            // for the instant between two renames: look again, briefly, before giving up.
            Shared::Gone if gone < 3 => {
                gone += 1;
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Shared::Gone => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "the folder is gone (removed by `ckb store gc`, or never there)",
                ))
            }
        }
    }
    // Replaced sixteen times in a row: read without the lock rather than not at all.
    Ok(None)
}

/// Takes `dir`'s lock exclusively if nobody holds it: `Ok(None)` when someone reads it (or the
/// name led to another folder meanwhile), `Err` when the folder cannot be opened or the file
/// system cannot lock it.
pub fn try_exclusive(dir: &Path) -> std::io::Result<Option<FolderLock>> {
    let handle = open(dir)?;
    match handle.try_lock() {
        Ok(()) if same_folder(&handle, dir) == Some(true) => Ok(Some(FolderLock::new(handle))),
        Ok(()) | Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}

/// Takes a shared lock on the snapshot folder `dir`, as [`hold_shared`] does, after passing its
/// gate: a shared lock on the parent folder (`repo=<id>`), held only while the folder's own lock
/// is taken. A writer waiting for the folder's readers closes the gate, so that readers arriving
/// meanwhile wait instead of overtaking it one after another ([`wait_exclusive`]).
///
/// The gate is waited for at most [`GATE_WAIT`]: a process that already reads another snapshot
/// of the repository (`ckb diff` opens two) may be what the writer waits for, so past that it
/// goes in without the gate rather than stall both.
pub fn hold_snapshot(dir: &Path) -> std::io::Result<Option<FolderLock>> {
    let start = std::time::Instant::now();
    let gate = dir.parent().and_then(|parent| File::open(parent).ok());
    if let Some(gate) = &gate {
        // Through the gate (its lock is released with the handle, below), or past it in time.
        while let Err(std::fs::TryLockError::WouldBlock) = gate.try_lock_shared() {
            if start.elapsed() >= GATE_WAIT {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
    let lock = hold_shared(dir);
    drop(gate);
    lock
}

/// How long a reader waits at a closed gate (a writer waiting for a snapshot's readers).
pub const GATE_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Waits up to `timeout` for the readers of the snapshot folder `dir` to finish and takes its lock
/// exclusively, the gate closed (see [`hold_snapshot`]): a writer replacing a snapshot
/// (`--force`) lets the readers of the old one finish and keeps new ones waiting until the new one
/// is in place. `Ok(None)` when readers still hold it at the end.
pub fn wait_exclusive(
    dir: &Path,
    timeout: std::time::Duration,
) -> std::io::Result<Option<FolderLock>> {
    let start = std::time::Instant::now();
    let pause = || std::thread::sleep(std::time::Duration::from_millis(5));
    // Readers hold the gate only while they take their own lock: it closes at once, unless the
    // file system has no locks (then there is no gate either).
    let gate = match dir.parent().map(File::open).transpose()? {
        Some(gate) => loop {
            match gate.try_lock() {
                Ok(()) => break Some(gate),
                Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < timeout => pause(),
                Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
                Err(std::fs::TryLockError::Error(_)) => break None,
            }
        },
        None => None,
    };
    loop {
        if let Some(mut lock) = try_exclusive(dir)? {
            lock._gate = gate;
            return Ok(Some(lock));
        }
        if start.elapsed() >= timeout {
            return Ok(None);
        }
        pause();
    }
}

/// Opens a folder (never through a symlink) so that it can be locked.
fn open(dir: &Path) -> std::io::Result<File> {
    if std::fs::symlink_metadata(dir)?.file_type().is_symlink() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "is a symlink, which ckb never follows in a store",
        ));
    }
    File::open(dir)
}

/// Whether `dir` still names the folder `handle` has open: `None` when `dir` is gone.
fn same_folder(handle: &File, dir: &Path) -> Option<bool> {
    let now = std::fs::symlink_metadata(dir).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let held = handle.metadata().ok()?;
        Some(held.dev() == now.dev() && held.ino() == now.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = handle;
        Some(now.is_dir())
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_reader_keeps_gc_out_and_a_replaced_folder_is_noticed() {
        let store = tempfile::tempdir().unwrap();
        let dir = store.path().join("commit=a");
        std::fs::create_dir(&dir).unwrap();
        let reader = hold_shared(&dir).unwrap().expect("folders lock here");
        assert!(try_exclusive(&dir).unwrap().is_none(), "read: gc keeps out");
        let second_reader = hold_shared(&dir).unwrap();
        assert!(second_reader.is_some(), "readers share");
        drop((reader, second_reader));
        let gc = try_exclusive(&dir).unwrap().expect("nobody reads");
        drop(gc);
        // A writer waiting for a reader: it gets the folder once the reader is done, and a reader
        // arriving meanwhile waits at the gate instead of overtaking it.
        let reader = hold_snapshot(&dir).unwrap().expect("folders lock here");
        let short = std::time::Duration::from_millis(50);
        assert!(
            wait_exclusive(&dir, short).unwrap().is_none(),
            "the reader holds it"
        );
        std::thread::scope(|scope| {
            let writer = scope.spawn(|| wait_exclusive(&dir, std::time::Duration::from_secs(10)));
            std::thread::sleep(std::time::Duration::from_millis(100));
            drop(reader);
            let lock = writer.join().unwrap().unwrap().expect("the reader left");
            let late = scope.spawn(|| hold_snapshot(&dir));
            std::thread::sleep(std::time::Duration::from_millis(100));
            assert!(
                !late.is_finished(),
                "a new reader waits while the writer holds the folder"
            );
            drop(lock);
            assert!(late.join().unwrap().unwrap().is_some());
        });

        // The name now leads to another folder: a lock on the old one is not a lock on it.
        let handle = open(&dir).unwrap();
        std::fs::rename(&dir, store.path().join(".gc-commit=a.1")).unwrap();
        std::fs::create_dir(&dir).unwrap();
        assert_eq!(same_folder(&handle, &dir), Some(false));
        assert!(matches!(share(&store.path().join("missing")), Shared::Gone));
        assert!(hold_shared(&store.path().join("missing")).is_err());
    }
}
