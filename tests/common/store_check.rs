//! What the store tests check after every fault: each snapshot a reader can see verifies, the
//! snapshots that were there before are byte for byte as they were, and what a writer left
//! behind is recognised (and, after the next run, gone).

use std::path::{Path, PathBuf};
use std::process::Output;

use super::{ckb, ckb_command, files_of};

/// Runs `ckb` with `CKB_FAILPOINT` set.
pub fn ckb_failpoint(dir: &Path, args: &[&str], failpoint: &str) -> Output {
    ckb_command(dir, args)
        .env("CKB_FAILPOINT", failpoint)
        .output()
        .unwrap()
}

/// Whether a process was ended by SIGKILL.
pub fn was_killed(out: &Output) -> bool {
    use std::os::unix::process::ExitStatusExt;
    out.status.signal() == Some(9)
}

/// The `repo=*/commit=*` folders of a store, sorted: what every reader can see.
pub fn visible_snapshots(store: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for repo in children(store) {
        if !name_of(&repo).starts_with("repo=") || !repo.is_dir() {
            continue;
        }
        for snap in children(&repo) {
            if name_of(&snap).starts_with("commit=") {
                found.push(snap);
            }
        }
    }
    found.sort();
    found
}

/// Names in the repositories' folders that are neither a snapshot, the scan cache nor a file of
/// the syntax, SCIP document and table caches: what writers leave behind while at work, or when
/// they die (a cache's half-written `.tmp` files included).
pub fn leftovers(store: &Path) -> Vec<String> {
    let caches = [
        pipeline::syntax::cache::CACHE_DIR,
        pipeline::scip::doc_cache::CACHE_DIR,
        pipeline::table_cache::CACHE_DIR,
    ];
    let mut found = Vec::new();
    for repo in children(store) {
        for entry in children(&repo) {
            let name = name_of(&entry);
            if caches.contains(&name.as_str()) && entry.is_dir() {
                for file in children(&entry) {
                    let file_name = name_of(&file);
                    if file_name.contains(".tmp") {
                        found.push(format!("{}/{name}/{file_name}", name_of(&repo)));
                    }
                }
            } else if !name.starts_with("commit=") && name != "scan-cache.json.zst" {
                found.push(format!("{}/{name}", name_of(&repo)));
            }
        }
    }
    found.sort();
    found
}

/// Every visible snapshot verifies (`ckb verify`, exit 0).
pub fn assert_all_verify(store: &Path, why: &str) {
    assert_all_verify_but(store, &[], why);
}

/// Every visible snapshot but those in `except` (damaged by the test) verifies.
pub fn assert_all_verify_but(store: &Path, except: &[&Path], why: &str) {
    for snap in visible_snapshots(store)
        .into_iter()
        .filter(|s| !except.contains(&s.as_path()))
    {
        let out = ckb(store, &["verify", snap.to_str().unwrap()]);
        assert!(
            out.status.success(),
            "{why}: {} does not verify: {}{}",
            snap.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Every file of every visible snapshot, by path relative to the store: what "the store is as it
/// was" compares (leftovers of a writer are outside it).
pub fn snapshot_files(store: &Path) -> Vec<(String, Vec<u8>)> {
    let mut all = Vec::new();
    for snap in visible_snapshots(store) {
        let rel = snap
            .strip_prefix(store)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        for (file, bytes) in files_of(&snap) {
            all.push((format!("{rel}/{file}"), bytes));
        }
    }
    all
}

/// The table files (Parquet and views) of one snapshot: what a rebuild of the same state
/// reproduces byte for byte (the manifest and `run.json` are compared apart).
pub fn table_files(snapshot: &Path) -> Vec<(String, Vec<u8>)> {
    files_of(snapshot)
        .into_iter()
        .filter(|(name, _)| name.ends_with(".parquet") || name.starts_with("views"))
        .collect()
}

fn children(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|it| it.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

fn name_of(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}
