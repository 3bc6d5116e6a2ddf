//! Reading a small file that repository content controls (`.ckb/config.json`, a SCIP index's
//! `<index>.commit` sidecar): never through a symlink, never from a FIFO or device, never more
//! than a limit.
//!
//! A committed symlink could point the read at any file of the CI runner (whose text may then
//! show in an error), at `/dev/zero` (endless bytes) or at a FIFO (an open that blocks for ever).
//! So the file is opened without following a symlink and without blocking (on Unix
//! `O_NOFOLLOW | O_NONBLOCK`, so nothing can be swapped in between a check and the open), must
//! then be a regular file, and is read up to one byte past the limit.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Why a small file was not read.
#[derive(Debug, thiserror::Error)]
pub enum SmallFileError {
    /// The path is a symlink.
    #[error("is a symlink; ckb reads it only from a regular file")]
    Symlink,
    /// The path is a folder, FIFO, socket or device.
    #[error("is not a regular file")]
    NotRegular,
    /// The file holds more than the limit.
    #[error("holds more than {limit} bytes")]
    TooLarge {
        /// The limit in force.
        limit: u64,
    },
    /// The file could not be opened or read.
    #[error("cannot be read: {0}")]
    Io(std::io::Error),
}

/// Reads the regular file at `path` if it holds at most `limit` bytes; `Ok(None)` when nothing
/// is there.
pub fn read_small_file(path: &Path, limit: u64) -> Result<Option<Vec<u8>>, SmallFileError> {
    let file = match open_no_follow(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            // ELOOP: the last component is a symlink (or a loop of them).
            let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
            return Err(if is_link {
                SmallFileError::Symlink
            } else {
                SmallFileError::Io(e)
            });
        }
    };
    let meta = file.metadata().map_err(SmallFileError::Io)?;
    if !meta.is_file() {
        return Err(SmallFileError::NotRegular);
    }
    if meta.len() > limit {
        return Err(SmallFileError::TooLarge { limit });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(SmallFileError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(SmallFileError::TooLarge { limit });
    }
    Ok(Some(bytes))
}

#[cfg(unix)]
fn open_no_follow(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> std::io::Result<File> {
    // Without O_NOFOLLOW: refuse a symlink first; a swap between the check and the open needs
    // write access to the working tree during the run, which SECURITY.md leaves out of scope.
    if std::fs::symlink_metadata(path)?.file_type().is_symlink() {
        return Err(std::io::Error::other("a symlink"));
    }
    File::open(path)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn symlinks_fifos_devices_and_large_files_are_refused_without_hanging() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        assert!(read_small_file(&path, 10).unwrap().is_none());
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(read_small_file(&path, 10).unwrap().unwrap(), b"0123456789");
        assert!(matches!(
            read_small_file(&path, 9),
            Err(SmallFileError::TooLarge { limit: 9 })
        ));
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        assert!(matches!(
            read_small_file(&link, 10),
            Err(SmallFileError::Symlink)
        ));
        let zero = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert!(matches!(
            read_small_file(&zero, 10),
            Err(SmallFileError::Symlink)
        ));
        assert!(matches!(
            read_small_file(Path::new("/dev/zero"), 10),
            Err(SmallFileError::NotRegular)
        ));
        // A FIFO with no writer: a plain open would block for ever.
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        assert!(matches!(
            read_small_file(&fifo, 10),
            Err(SmallFileError::NotRegular)
        ));
        assert!(matches!(
            read_small_file(dir.path(), 10),
            Err(SmallFileError::NotRegular)
        ));
    }
}
