//! What a SQL session may read: the files DuckDB is allowed to open, resolved before the session
//! starts. DuckDB's `allowed_paths` / `allowed_directories` compare path text (after folding `..`)
//! and then follow symlinks, and allow writing as much as reading; so no folder is ever allowed
//! (nothing can be created, replaced through a temporary file, or deleted beside the tables),
//! only canonical paths of existing table files, and a symlink where a table file should be, or
//! anywhere in a store, refuses the session. Over a store, the glob pattern of each table
//! (`<store>/repo=*/commit=*/<table>.parquet`, what the views and the canned queries read) is
//! allowed too, and each file it expands to is checked again when DuckDB opens it.

use std::path::{Path, PathBuf};

use output_schema::ErrorCode;

use crate::{QueryError, Snapshot};

/// The canonical files a session may read.
#[derive(Debug)]
pub enum Allowed {
    /// One snapshot: exactly these table files, by table name.
    Files(Vec<(String, PathBuf)>),
    /// A store: its canonical folder, every table file of every snapshot in it, and each table's
    /// glob pattern.
    Store {
        /// The store folder.
        dir: PathBuf,
        /// Table files, `<dir>/repo=*/commit=*/<table>.parquet`, sorted.
        files: Vec<PathBuf>,
        /// Glob patterns of the tables some snapshot has, by table name.
        globs: Vec<(&'static str, String)>,
    },
}

fn not_allowed(message: String, remediation: &str) -> QueryError {
    QueryError::new(ErrorCode::SqlNotAllowed, message, remediation)
}

fn canonical(path: &Path, what: &str) -> Result<PathBuf, QueryError> {
    std::fs::canonicalize(path).map_err(|e| {
        QueryError::new(
            ErrorCode::SnapshotNotFound,
            format!("cannot open the {what} {}: {e}", path.display()),
            "pass an existing snapshot folder (--snapshot) or store (--store)",
        )
    })
}

/// The table files of a snapshot: each a regular file directly in the snapshot's canonical folder.
pub fn snapshot_files(snapshot: &Snapshot) -> Result<Allowed, QueryError> {
    let dir = canonical(&snapshot.dir, "snapshot")?;
    let mut files = Vec::new();
    for entry in &snapshot.manifest.tables {
        if output_schema::table_info(&entry.name).is_none() {
            continue;
        }
        let path = dir.join(&entry.file);
        // The manifest is data from the snapshot: its file name must name a plain file right in
        // the folder, not a path elsewhere, and not a symlink that DuckDB would follow out.
        let plain = Path::new(&entry.file).components().count() == 1
            && std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file());
        if !plain {
            return Err(not_allowed(
                format!(
                    "the snapshot's {} table is not a plain file inside the snapshot ({:?})",
                    entry.name, entry.file
                ),
                "SQL reads only the snapshot's own files; check the snapshot with `ckb verify <snapshot>` and rebuild it with `ckb snapshot --force`",
            ));
        }
        files.push((entry.name.clone(), path));
    }
    Ok(Allowed::Files(files))
}

/// A store's table files and glob patterns, refused when any symlink lies below its folder.
pub fn store_files(store: &Path) -> Result<Allowed, QueryError> {
    let dir = canonical(store, "store")?;
    if let Some(link) = first_symlink(&dir) {
        let shown = link.strip_prefix(&dir).unwrap_or(&link);
        return Err(not_allowed(
            format!(
                "the store holds a symlink ({}); SQL over a store reads only files inside it",
                shown.display()
            ),
            "remove the symlink from the store, or query one snapshot with --snapshot",
        ));
    }
    let mut files = Vec::new();
    let mut globs = Vec::new();
    for table in output_schema::ALL_TABLES {
        let name = table.file_name();
        let before = files.len();
        for repo in children(&dir, "repo=") {
            for commit in children(&repo, "commit=") {
                let file = commit.join(&name);
                if std::fs::symlink_metadata(&file).is_ok_and(|m| m.file_type().is_file()) {
                    files.push(file);
                }
            }
        }
        if files.len() > before {
            let glob = dir.join(format!("repo=*/commit=*/{name}"));
            globs.push((table.name, glob.to_string_lossy().into_owned()));
        }
    }
    files.sort();
    Ok(Allowed::Store { dir, files, globs })
}

/// Sub-folders of `dir` whose name starts with `prefix`.
fn children(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|it| {
            it.flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default()
}

/// The first symlink below `dir` (depth first, sorted, so the message is stable); unreadable
/// folders are skipped: DuckDB cannot list them either.
fn first_symlink(dir: &Path) -> Option<PathBuf> {
    let mut entries: Vec<_> = std::fs::read_dir(dir).ok()?.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() {
            return Some(entry.path());
        }
        if kind.is_dir() {
            if let Some(link) = first_symlink(&entry.path()) {
                return Some(link);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symlink_anywhere_in_a_store_is_found() {
        let store = tempfile::tempdir().unwrap();
        let deep = store.path().join("repo=a/commit=b/views");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(deep.join("x.json.zst"), b"x").unwrap();
        assert!(matches!(
            store_files(store.path()),
            Ok(Allowed::Store { .. })
        ));
        let outside = tempfile::tempdir().unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path(), deep.join("out")).unwrap();
        #[cfg(unix)]
        {
            let e = store_files(store.path()).unwrap_err();
            assert_eq!(e.code, ErrorCode::SqlNotAllowed);
            assert!(
                e.message.contains("repo=a/commit=b/views/out"),
                "{}",
                e.message
            );
        }
    }
}
