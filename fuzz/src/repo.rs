//! The small repositories the `modules`, `syntax`, `snapshot` and `scip_snapshot` targets take as
//! input, written to a scratch folder and scanned for real.
//!
//! An input is records separated by a NUL byte, each a path, a newline and the file's bytes.
//! Paths are kept only when they are plain relative paths (at most six components of letters,
//! digits, `.`, `_`, `-` and `@`, no `.` or `..`), at most [`MAX_FILES`] of them; a later
//! record for a path already written, or one that cannot be there (a file where a folder of its
//! path is), is left out.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use output_schema::tables::FileRow;
use pipeline::NoProgress;

/// At most this many files in one input (libFuzzer's inputs are small anyway).
const MAX_FILES: usize = 32;

/// Writes the repository `data` describes to the folder `name` of this thread's scratch folder
/// (emptied first) and scans it; `None` when the scan fails.
pub fn materialize(data: &[u8], name: &str) -> Option<(PathBuf, Vec<FileRow>)> {
    let root = write_repo(data, name);
    let files = scan(&root)?;
    Some((root, files))
}

/// The files the scan keeps of the folder at `root`, in path order; `None` when the scan fails.
pub fn scan(root: &Path) -> Option<Vec<FileRow>> {
    let scan_config = pipeline::scan::ScanConfig {
        max_file_bytes: 1 << 20,
        ignore_globs: Vec::new(),
        excluded_folders: Vec::new(),
        cache_file: None,
    };
    let scan = pipeline::scan::scan(root, &scan_config, &NoProgress).ok()?;
    Some(scan.files)
}

/// Writes the repository `data` describes to the folder `name` of this thread's scratch folder
/// (emptied first) and returns the folder.
pub fn write_repo(data: &[u8], name: &str) -> PathBuf {
    let root = crate::thread_scratch().join(name);
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).expect("the scratch repository");
    let mut written = BTreeSet::new();
    for (path, bytes) in decode_repo(data) {
        if written.contains(&path) || !write_file(&root, &path, bytes) {
            continue;
        }
        written.insert(path);
    }
    root
}

/// Changes the repository at `root` as `data` says, in the records' form: a record with a
/// newline writes its file (replacing what was at that path), a plain path alone removes it.
pub fn change_repo(root: &Path, data: &[u8]) {
    for record in data.split(|&b| b == 0).take(MAX_FILES) {
        let (path, bytes) = match record.iter().position(|&b| b == b'\n') {
            Some(newline) => (&record[..newline], Some(&record[newline + 1..])),
            None => (record, None),
        };
        let Some(path) = std::str::from_utf8(path).ok().filter(|p| plain_path(p)) else {
            continue;
        };
        let at = root.join(path);
        let _ = std::fs::remove_file(&at).or_else(|_| std::fs::remove_dir_all(&at));
        if let Some(bytes) = bytes {
            write_file(root, path, bytes);
        }
    }
}

/// The files of an input: records separated by NUL, each `path\nbytes`; records whose path is
/// not a plain relative path are left out.
pub fn decode_repo(data: &[u8]) -> Vec<(String, &[u8])> {
    data.split(|&b| b == 0)
        .filter_map(|record| {
            let newline = record.iter().position(|&b| b == b'\n')?;
            let path = std::str::from_utf8(&record[..newline]).ok()?;
            plain_path(path).then(|| (path.to_string(), &record[newline + 1..]))
        })
        .take(MAX_FILES)
        .collect()
}

/// [`decode_repo`]'s input for these files: how the seeds are written.
pub fn encode_repo(files: &[(&str, &str)]) -> Vec<u8> {
    let records: Vec<Vec<u8>> = files
        .iter()
        .map(|(path, text)| [path.as_bytes(), b"\n", text.as_bytes()].concat())
        .collect();
    records.join(&0u8)
}

fn plain_path(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    path.len() <= 200
        && parts.len() <= 6
        && parts.iter().all(|p| {
            !p.is_empty()
                && *p != "."
                && *p != ".."
                && p.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"._-@".contains(&b))
        })
}

/// Writes one file of the input below `root`; false when it cannot be there (a file where a
/// folder of its path is, or the other way round).
fn write_file(root: &Path, rel: &str, bytes: &[u8]) -> bool {
    let path = root.join(rel);
    let Some(parent) = path.parent() else {
        return false;
    };
    std::fs::create_dir_all(parent).is_ok() && std::fs::write(&path, bytes).is_ok()
}
