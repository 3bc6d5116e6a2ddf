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
//! Where the platform or file system has no such locks, readers go on without one; gc, which
//! must know, treats a folder it cannot lock as in use.

use std::fs::File;
use std::path::Path;

/// A held lock on a folder; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct FolderLock {
    _handle: File,
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
        Some(true) => Shared::Locked(FolderLock { _handle: handle }),
        Some(false) => Shared::Replaced,
        None => Shared::Gone,
    }
}

/// Takes a shared lock on the folder `dir` (a snapshot, or a whole store) for as long as the
/// result lives: `None` when the folder cannot be locked here, and an error when it is gone. A
/// snapshot exchanged by a `--force` rebuild meanwhile is locked under its new content.
pub fn hold_shared(dir: &Path) -> std::io::Result<Option<FolderLock>> {
    for _ in 0..16 {
        match share(dir) {
            Shared::Locked(lock) => return Ok(Some(lock)),
            Shared::Unsupported => return Ok(None),
            Shared::Replaced => continue,
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
/// file system cannot tell), `Err` when the folder cannot be opened.
pub fn try_exclusive(dir: &Path) -> std::io::Result<Option<FolderLock>> {
    let handle = open(dir)?;
    match handle.try_lock() {
        Ok(()) if same_folder(&handle, dir) == Some(true) => {
            Ok(Some(FolderLock { _handle: handle }))
        }
        Ok(()) => Ok(None),
        Err(_) => Ok(None),
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

        // The name now leads to another folder: a lock on the old one is not a lock on it.
        let handle = open(&dir).unwrap();
        std::fs::rename(&dir, store.path().join(".gc-commit=a.1")).unwrap();
        std::fs::create_dir(&dir).unwrap();
        assert_eq!(same_folder(&handle, &dir), Some(false));
        assert!(matches!(share(&store.path().join("missing")), Shared::Gone));
        assert!(hold_shared(&store.path().join("missing")).is_err());
    }
}
