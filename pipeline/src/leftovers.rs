//! What writers that died (a crash, `kill -9`, a full disk) leave in a repository's folder of
//! the store, and clearing it: lock files, snapshots half built, a snapshot set aside by a
//! `--force` rebuild, a snapshot `ckb store gc` was deleting, a scan cache half written
//! ([`output_schema::layout::Leftover`] names them).
//!
//! Every such name carries the state whose writer made it, and that writer holds the state's lock
//! for as long as it lives. So whoever takes the lock knows the writer is gone, and may clear what
//! it left: first a snapshot set aside is put back when the state has no snapshot (it is the only
//! whole copy, having been published before), then everything else is removed. Each writer clears
//! its own state's leftovers before it builds and every dead writer's after it publishes;
//! `ckb store gc` does the same and reports it.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use output_schema::layout::{Leftover, LeftoverKind, REPO_PARTITION};
use output_schema::verify::read_manifest;
use serde::Serialize;

use crate::store::{self, Store, StoredSnapshot};

/// Scan cache files written by earlier builds of ckb (`scan-cache.json.tmp<pid>`) carry no state:
/// they are taken as abandoned once older than this (a cache is written in milliseconds).
pub const LEGACY_CACHE_TEMP_AGE: Duration = Duration::from_secs(3600);

/// What was (or, in a dry run, would be) done with one leftover.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LeftoverAction {
    /// Deleted.
    Removed,
    /// A set-aside snapshot put back in its place.
    Restored,
    /// Left alone (its writer is at work, or it could not be removed).
    Kept,
    /// A dry run would delete it.
    WouldRemove,
    /// A dry run would put it back.
    WouldRestore,
    /// It should have gone but could not be removed (the reason says why).
    Failed,
}

impl LeftoverAction {
    /// `Removed` or `WouldRemove`, as the run is real or dry.
    fn removed(dry_run: bool) -> LeftoverAction {
        if dry_run {
            LeftoverAction::WouldRemove
        } else {
            LeftoverAction::Removed
        }
    }
}

/// One leftover and what became of it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LeftoverReport {
    /// Its path relative to the store (`repo=<id>/.tmp-commit=<state>.<pid>`).
    pub path: String,
    /// What it is (`lock`, `temporary-folder`, `set-aside-snapshot`, `gc-trash`,
    /// `scan-cache-temporary`).
    pub kind: &'static str,
    /// The state whose writer left it; `None` for a scan cache temporary of an earlier ckb.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// Its size on disk (files' lengths).
    pub bytes: u64,
    /// What was done.
    pub action: LeftoverAction,
    /// Why.
    pub reason: String,
}

/// The leftovers in a repository's folder, grouped by state (sorted), each group sorted by name.
fn leftovers_by_state(repo_dir: &Path) -> Vec<(String, Vec<(String, LeftoverKind)>)> {
    let mut found: Vec<(String, String, LeftoverKind)> = std::fs::read_dir(repo_dir)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .filter_map(|name| Leftover::parse(&name).map(|l| (l.state, name, l.kind)))
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    let mut groups: Vec<(String, Vec<(String, LeftoverKind)>)> = Vec::new();
    for (state, name, kind) in found {
        match groups.last_mut() {
            Some((s, names)) if *s == state => names.push((name, kind)),
            _ => groups.push((state, vec![(name, kind)])),
        }
    }
    groups
}

/// Clears what dead writers left in `repo_id`'s folder: every state whose lock can be taken now
/// (so no writer of it lives) is recovered ([`recover_state`]) and its lock file removed. A dry run
/// changes nothing and reports what would be done.
pub fn clean_repo(store: &Store, repo_id: &str, dry_run: bool) -> Vec<LeftoverReport> {
    let repo_dir = store.repo_dir(repo_id);
    let mut reports = Vec::new();
    for (state, names) in leftovers_by_state(&repo_dir) {
        let lock_name = names
            .iter()
            .find(|(_, k)| *k == LeftoverKind::Lock)
            .map(|(n, _)| n.clone());
        let kept = |reports: &mut Vec<LeftoverReport>, reason: &str| {
            for (name, kind) in &names {
                reports.push(report(
                    store,
                    &repo_dir.join(name),
                    *kind,
                    Some(&state),
                    LeftoverAction::Kept,
                    reason.to_string(),
                ));
            }
        };
        if dry_run {
            if store.writer_alive(repo_id, &state) {
                kept(
                    &mut reports,
                    "a writer of this state is at work (it holds the lock)",
                );
                continue;
            }
            reports.extend(recover_state(store, repo_id, &state, true));
        } else {
            match store.try_lock(repo_id, &state) {
                Ok(Some(lock)) => {
                    reports.extend(recover_state(store, repo_id, &state, false));
                    // Released by removing the file (see `SnapshotLock`).
                    drop(lock);
                }
                Ok(None) => {
                    kept(
                        &mut reports,
                        "a writer of this state is at work (it holds the lock)",
                    );
                    continue;
                }
                Err(e) => {
                    kept(&mut reports, &format!("the lock cannot be taken: {e}"));
                    continue;
                }
            }
        }
        if let Some(name) = lock_name {
            let path = repo_dir.join(&name);
            reports.push(LeftoverReport {
                path: relative(store, &path),
                kind: LeftoverKind::Lock.name(),
                state: Some(state.clone()),
                bytes: 0,
                action: LeftoverAction::removed(dry_run),
                reason: "the lock file of a writer that is gone".into(),
            });
        }
    }
    reports.extend(legacy_cache_temps(store, &repo_dir, dry_run));
    reports.sort_by(|a, b| a.path.cmp(&b.path));
    reports
}

/// Clears the leftovers of one state, other than its lock: a set-aside snapshot is put back when
/// the state has no snapshot (and it verifies), anything else is removed. The caller holds the
/// state's lock (or, for a dry run, knows no writer holds it).
pub(crate) fn recover_state(
    store: &Store,
    repo_id: &str,
    state: &str,
    dry_run: bool,
) -> Vec<LeftoverReport> {
    let repo_dir = store.repo_dir(repo_id);
    let dest = store.snapshot_dir(repo_id, state);
    let names: Vec<(String, LeftoverKind)> = leftovers_by_state(&repo_dir)
        .into_iter()
        .find(|(s, _)| s == state)
        .map(|(_, names)| names)
        .unwrap_or_default();
    let mut whole = store::is_real_dir(&dest);
    let mut reports = Vec::new();
    // Put back first: with no snapshot in place, a set-aside one is the only whole copy.
    let mut restored = None;
    if !whole {
        for (name, _) in names.iter().filter(|(_, k)| *k == LeftoverKind::SetAside) {
            let path = repo_dir.join(name);
            if !restorable(&path, state) {
                continue;
            }
            let bytes = size_of(&path);
            if !dry_run {
                if std::fs::rename(&path, &dest).is_err() {
                    continue;
                }
                let _ = store::sync_dir(&repo_dir);
            }
            reports.push(LeftoverReport {
                path: relative(store, &path),
                kind: LeftoverKind::SetAside.name(),
                state: Some(state.to_string()),
                bytes,
                action: if dry_run {
                    LeftoverAction::WouldRestore
                } else {
                    LeftoverAction::Restored
                },
                reason: format!(
                    "a --force rebuild set it aside and died before its successor was in; put \
                     back as {}",
                    relative(store, &dest)
                ),
            });
            whole = true;
            restored = Some(name.clone());
            break;
        }
    }
    for (name, kind) in &names {
        if *kind == LeftoverKind::Lock || restored.as_ref() == Some(name) {
            continue;
        }
        let path = repo_dir.join(name);
        let reason = match kind {
            LeftoverKind::Build if whole => {
                "a build (or, after a --force exchange, the replaced snapshot) of a writer that is gone"
            }
            LeftoverKind::Build => "a snapshot half built by a writer that is gone",
            LeftoverKind::SetAside if whole => "a replaced snapshot whose successor is in place",
            LeftoverKind::SetAside => "a set-aside snapshot that does not verify against its manifest",
            LeftoverKind::Trash => "a snapshot `ckb store gc` was deleting",
            LeftoverKind::CacheTemp => "a scan cache half written by a writer that is gone",
            LeftoverKind::Lock => continue,
        };
        let bytes = size_of(&path);
        let (action, reason) = removal(&path, reason, dry_run);
        reports.push(LeftoverReport {
            path: relative(store, &path),
            kind: kind.name(),
            state: Some(state.to_string()),
            bytes,
            action,
            reason,
        });
    }
    reports
}

/// Whether a set-aside folder is a whole snapshot of `state`: its manifest names the state and
/// every file matches it.
fn restorable(path: &Path, state: &str) -> bool {
    match read_manifest(path) {
        Ok(manifest) if manifest.snapshot_id == state => store::verify(&StoredSnapshot {
            dir: path.to_path_buf(),
            manifest,
        })
        .is_ok(),
        _ => false,
    }
}

/// `scan-cache.json.tmp<pid>` files of earlier builds, older than [`LEGACY_CACHE_TEMP_AGE`].
fn legacy_cache_temps(store: &Store, repo_dir: &Path, dry_run: bool) -> Vec<LeftoverReport> {
    let prefix = format!(
        "{}.tmp",
        crate::scan_cache::CACHE_FILE.trim_end_matches(".zst")
    );
    let Ok(entries) = std::fs::read_dir(repo_dir) else {
        return Vec::new();
    };
    let mut reports = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_legacy = name
            .strip_prefix(&prefix)
            .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()));
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        let old = meta
            .modified()
            .ok()
            .and_then(|t| SystemTime::now().duration_since(t).ok())
            .is_some_and(|age| age > LEGACY_CACHE_TEMP_AGE);
        if !is_legacy || !meta.is_file() || !old {
            continue;
        }
        let path = entry.path();
        let reason = "a scan cache half written by an earlier ckb, untouched for an hour";
        let (action, reason) = removal(&path, reason, dry_run);
        reports.push(LeftoverReport {
            path: relative(store, &path),
            kind: LeftoverKind::CacheTemp.name(),
            state: None,
            bytes: meta.len(),
            action,
            reason,
        });
    }
    reports
}

fn report(
    store: &Store,
    path: &Path,
    kind: LeftoverKind,
    state: Option<&str>,
    action: LeftoverAction,
    reason: String,
) -> LeftoverReport {
    LeftoverReport {
        path: relative(store, path),
        kind: kind.name(),
        state: state.map(str::to_string),
        bytes: size_of(path),
        action,
        reason,
    }
}

/// `path` relative to the store, with `/` separators.
pub(crate) fn relative(store: &Store, path: &Path) -> String {
    path.strip_prefix(store.root())
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Removes `path` (unless `dry_run`): what was done and why, the error included when it failed.
fn removal(path: &Path, reason: &str, dry_run: bool) -> (LeftoverAction, String) {
    let removed = if dry_run { Ok(()) } else { remove(path) };
    match removed {
        Ok(()) => (LeftoverAction::removed(dry_run), reason.to_string()),
        Err(e) => (
            LeftoverAction::Failed,
            format!("{reason}; it cannot be removed: {e}"),
        ),
    }
}

/// Removes a file or a folder (never following a symlink).
fn remove(path: &Path) -> std::io::Result<()> {
    let meta = std::fs::symlink_metadata(path)?;
    if meta.is_dir() {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    }
}

/// The lengths of the files below `path` (or of `path` itself), symlinks not followed.
pub(crate) fn size_of(path: &Path) -> u64 {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    if !meta.is_dir() {
        return meta.len();
    }
    let mut total = 0u64;
    let mut stack: Vec<PathBuf> = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(entry.path()),
                Ok(_) => total += entry.metadata().map_or(0, |m| m.len()),
                Err(_) => {}
            }
        }
    }
    total
}

/// The repositories of a store (`repo=<id>` folders, not symlinks), sorted.
pub fn repositories(store: &Store) -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(store.root())
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .filter_map(|e| e.file_name().into_string().ok())
                .filter_map(|n| n.strip_prefix(REPO_PARTITION).map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    ids.sort();
    ids
}
