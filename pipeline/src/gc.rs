//! `ckb store gc`: keeps a store that gains a snapshot per commit for years within bounds.
//!
//! Two jobs, in this order for each repository of the store:
//!
//! 1. **Leftovers** of writers that died ([`crate::leftovers`]): removed (a set-aside snapshot put
//!    back) once their state's lock shows the writer is gone.
//! 2. **Retention**, only when a rule is given. A snapshot is kept when any rule keeps it:
//!    - `keep_last N`: the N newest of its branch head (the manifest's `headRef`; detached
//!      checkouts and plain folders form one group of their own);
//!    - `keep_every N`: the oldest snapshot of each run of N commits on the first-parent history
//!      (`headDepth` 1‥N, N+1‥2N, …, per branch head): a commit's depth never changes, so a later
//!      gc keeps the same snapshots (a rule counting snapshots would thin the kept ones again
//!      on every run). Snapshots without a depth (shallow clones) are not kept by it;
//!    - `keep_days D`: those whose head commit is younger than D days;
//!    - and always the repository's newest snapshot, unless `keep_newest` is off.
//!
//!    "Newest" and "age" use the head commit's committer time (`headTime`; for older snapshots the
//!    `commits` table, else the folder's modification time), so a store that travels as a CI
//!    artifact, whose files get new times, is pruned as the commits are dated.
//!
//! Nothing another process is using is removed: a snapshot whose state a writer holds (a `--force`
//! rebuild), one a reader holds ([`output_schema::folder_lock`]), and none while a SQL session
//! reads the whole store; such a snapshot is kept and the report says why. A snapshot is renamed
//! out of sight (`.gc-commit=…`) before it is deleted, so a reader never sees half of one. A dry
//! run changes nothing and reports the same decisions.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use output_schema::failpoint;
use output_schema::folder_lock::{self, FolderLock};
use output_schema::layout::{Leftover, LeftoverKind, COMMIT_PARTITION};
use output_schema::manifest::Manifest;
use output_schema::tables::CommitRow;
use output_schema::verify::read_manifest;
use serde::Serialize;

use crate::leftovers::{self, LeftoverAction, LeftoverReport};
use crate::store::{self, Store};
use crate::PipelineError;

/// Seconds in a day.
const DAY: i64 = 86_400;

/// The retention rules; a snapshot any rule keeps is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Retention {
    /// Keep the N newest snapshots of each branch head.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keep_last: Option<u64>,
    /// Keep one snapshot per N commits of first-parent history.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keep_every: Option<u64>,
    /// Keep snapshots whose head commit is younger than N days.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keep_days: Option<u64>,
    /// Keep each repository's newest snapshot whatever the rules say.
    pub keep_newest: bool,
}

impl Default for Retention {
    fn default() -> Self {
        Retention {
            keep_last: None,
            keep_every: None,
            keep_days: None,
            keep_newest: true,
        }
    }
}

impl Retention {
    /// Whether any rule is given (without one, gc removes no snapshot).
    pub fn prunes(&self) -> bool {
        self.keep_last.is_some() || self.keep_every.is_some() || self.keep_days.is_some()
    }
}

/// What `ckb store gc` is asked to do.
#[derive(Clone, Debug)]
pub struct GcOptions {
    /// Repositories to look at (`repo=<id>`); empty means every one in the store.
    pub repos: Vec<String>,
    /// The retention rules.
    pub retention: Retention,
    /// Report only; change nothing.
    pub dry_run: bool,
    /// The time ages are measured from (Unix seconds): the caller's clock.
    pub now: i64,
    /// How long to wait for SQL sessions over the whole store to end before keeping everything.
    pub lock_timeout: Duration,
}

/// What gc did (or would do), in a deterministic order: repositories by name, snapshots newest
/// first, leftovers by path.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GcReport {
    /// Whether nothing was changed.
    pub dry_run: bool,
    /// The rules applied.
    pub retention: Retention,
    /// The time ages were measured from.
    pub now: i64,
    /// Every snapshot of the repositories looked at, and its fate.
    pub snapshots: Vec<SnapshotVerdict>,
    /// Every leftover found, and its fate.
    pub leftovers: Vec<LeftoverReport>,
    /// Sums.
    pub totals: Totals,
}

/// Sums of a [`GcReport`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    /// Snapshots kept.
    pub snapshots_kept: u64,
    /// Snapshots removed (or that a dry run would remove).
    pub snapshots_removed: u64,
    /// Leftovers removed (or that a dry run would remove).
    pub leftovers_removed: u64,
    /// Set-aside snapshots put back.
    pub leftovers_restored: u64,
    /// Leftovers kept (their writer is at work) or that could not be removed.
    pub leftovers_kept: u64,
    /// Bytes of the files removed (or that a dry run would remove).
    pub bytes_freed: u64,
}

/// What became of one snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SnapshotAction {
    /// Kept (see the reasons).
    Kept,
    /// Removed.
    Removed,
    /// A dry run would remove it.
    WouldRemove,
}

/// One snapshot, what is known of it, and its fate.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotVerdict {
    /// Its repository ID.
    pub repo: String,
    /// Its folder relative to the store (`repo=<id>/commit=<state>`).
    pub path: String,
    /// The branch HEAD pointed to (`refs/heads/main`); absent when detached or outside git.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head_ref: Option<String>,
    /// The head commit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head_commit: Option<String>,
    /// Whether the snapshot is of a dirty working tree.
    pub dirty: bool,
    /// The time it is dated by (Unix seconds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<i64>,
    /// Where that time comes from: `commit` (the head commit's committer time) or `folder` (the
    /// folder's modification time, for snapshots that record no commit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_from: Option<&'static str>,
    /// Whole days between that time and `now`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub age_days: Option<i64>,
    /// Commits on the head's first-parent chain (`headDepth`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<i64>,
    /// Bytes of its files.
    pub bytes: u64,
    /// What was done.
    pub action: SnapshotAction,
    /// Why, as codes: `keep-last`, `keep-every`, `keep-days`, `newest`, `no-rule`, `unreadable`,
    /// `writing`, `reading`, `store-reading`, `remove-failed` when kept; `not-kept` when removed.
    pub reasons: Vec<&'static str>,
    /// What went wrong, for `unreadable` and `remove-failed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// Runs gc over the store at `store` (see the module doc).
pub fn gc(store: &Store, opts: &GcOptions) -> Result<GcReport, PipelineError> {
    if !std::fs::metadata(store.root()).is_ok_and(|m| m.is_dir()) {
        return Err(PipelineError::StoreNotFound {
            path: store.root().to_path_buf(),
        });
    }
    let present = leftovers::repositories(store);
    let repos: Vec<String> = if opts.repos.is_empty() {
        present.clone()
    } else {
        let mut asked = opts.repos.clone();
        asked.sort();
        asked.dedup();
        if let Some(missing) = asked.iter().find(|r| !present.contains(r)) {
            return Err(PipelineError::InvalidParameter {
                name: "--repo".into(),
                message: format!(
                    "the store holds no repository {missing:?} (it holds: {})",
                    if present.is_empty() {
                        "none".to_string()
                    } else {
                        present.join(", ")
                    }
                ),
            });
        }
        asked
    };
    let mut leftovers = Vec::new();
    let mut snapshots = Vec::new();
    for repo in &repos {
        leftovers.extend(leftovers::clean_repo(store, repo, opts.dry_run));
        let entries = entries(store, repo);
        let reasons = decide(&entries, &opts.retention, opts.now);
        snapshots.extend(
            entries
                .into_iter()
                .zip(reasons)
                .map(|(entry, reasons)| entry.into_verdict(reasons, opts)),
        );
    }
    if !opts.dry_run {
        remove_condemned(store, &mut snapshots, opts.lock_timeout)?;
    }
    let totals = totals(&snapshots, &leftovers);
    Ok(GcReport {
        dry_run: opts.dry_run,
        retention: opts.retention,
        now: opts.now,
        snapshots,
        leftovers,
        totals,
    })
}

/// A snapshot folder and what gc knows of it.
#[derive(Clone, Debug)]
struct Entry {
    repo: String,
    /// The commit partition value.
    state: String,
    path: String,
    manifest: Result<Manifest, String>,
    time: Option<(i64, &'static str)>,
    bytes: u64,
}

impl Entry {
    fn head_ref(&self) -> Option<&str> {
        self.manifest
            .as_ref()
            .ok()
            .and_then(|m| m.repo_state.head_ref.as_deref())
    }

    fn depth(&self) -> Option<i64> {
        self.manifest
            .as_ref()
            .ok()
            .and_then(|m| m.repo_state.head_depth)
            .filter(|d| *d >= 1)
    }

    fn dirty(&self) -> bool {
        self.manifest.as_ref().is_ok_and(|m| m.repo_state.dirty)
    }

    /// Newer sorts later: time, then depth, then clean over dirty, then name.
    fn age_key(&self) -> (Option<i64>, Option<i64>, bool, &str) {
        (
            self.time.map(|(t, _)| t),
            self.depth(),
            !self.dirty(),
            &self.state,
        )
    }

    fn into_verdict(self, reasons: Vec<&'static str>, opts: &GcOptions) -> SnapshotVerdict {
        let action = match (reasons.is_empty(), opts.dry_run) {
            (false, _) => SnapshotAction::Kept,
            (true, true) => SnapshotAction::WouldRemove,
            (true, false) => SnapshotAction::Removed,
        };
        let (head_ref, head_commit, dirty, depth, problem) = match &self.manifest {
            Ok(m) => (
                m.repo_state.head_ref.clone(),
                m.repo_state.head_commit.clone(),
                m.repo_state.dirty,
                m.repo_state.head_depth,
                None,
            ),
            Err(e) => (None, None, false, None, Some(e.clone())),
        };
        SnapshotVerdict {
            repo: self.repo,
            path: self.path,
            head_ref,
            head_commit,
            dirty,
            time: self.time.map(|(t, _)| t),
            time_from: self.time.map(|(_, from)| from),
            age_days: self
                .time
                .map(|(t, _)| opts.now.saturating_sub(t).div_euclid(DAY)),
            depth,
            bytes: self.bytes,
            action,
            reasons: if reasons.is_empty() {
                vec!["not-kept"]
            } else {
                reasons
            },
            problem,
        }
    }
}

/// The snapshots of a repository, newest first.
fn entries(store: &Store, repo: &str) -> Vec<Entry> {
    let mut entries: Vec<Entry> = store
        .folders(repo)
        .all()
        .iter()
        .filter_map(|dir| {
            let name = dir.file_name()?.to_str()?;
            let state = name.strip_prefix(COMMIT_PARTITION)?.to_string();
            let manifest = read_manifest(dir).map_err(|e| e.to_string());
            let time = manifest.as_ref().ok().and_then(|m| dated(dir, m));
            Some(Entry {
                repo: repo.to_string(),
                state,
                path: leftovers::relative(store, dir),
                manifest,
                time,
                bytes: leftovers::size_of(dir),
            })
        })
        .collect();
    entries.sort_by(|a, b| b.age_key().cmp(&a.age_key()));
    entries
}

/// The time a snapshot is dated by: its head commit's committer time (from the manifest, or for
/// snapshots written before it was recorded, from the `commits` table), else its folder's
/// modification time.
fn dated(dir: &Path, manifest: &Manifest) -> Option<(i64, &'static str)> {
    if let Some(t) = manifest.repo_state.head_time {
        return Some((t, "commit"));
    }
    let from_commits = manifest
        .repo_state
        .head_commit
        .as_deref()
        .zip(manifest.table("commits"))
        .and_then(|(head, table)| {
            let rows = output_schema::parquet_io::read_table::<CommitRow>(&dir.join(&table.file));
            rows.ok()?
                .into_iter()
                .find(|c| c.sha == head)
                .map(|c| c.committer_time)
        });
    if let Some(t) = from_commits {
        return Some((t, "commit"));
    }
    let modified = std::fs::symlink_metadata(dir).ok()?.modified().ok()?;
    let secs = match modified.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).ok()?,
        Err(e) => i64::try_from(e.duration().as_secs()).ok()?.checked_neg()?,
    };
    Some((secs, "folder"))
}

/// The reasons each entry (newest first, one repository) is kept; an empty list condemns it.
fn decide(entries: &[Entry], rules: &Retention, now: i64) -> Vec<Vec<&'static str>> {
    let mut reasons: Vec<Vec<&'static str>> = vec![Vec::new(); entries.len()];
    for (i, e) in entries.iter().enumerate() {
        if e.manifest.is_err() {
            reasons[i].push("unreadable");
        } else if !rules.prunes() {
            reasons[i].push("no-rule");
        }
    }
    if !rules.prunes() {
        return reasons;
    }
    let readable: Vec<usize> = (0..entries.len())
        .filter(|&i| entries[i].manifest.is_ok())
        .collect();
    // Groups by branch head, each newest first (the entries' order).
    let mut groups: BTreeMap<Option<&str>, Vec<usize>> = BTreeMap::new();
    for &i in &readable {
        groups.entry(entries[i].head_ref()).or_default().push(i);
    }
    if let Some(n) = rules.keep_last {
        for members in groups.values() {
            for &i in members
                .iter()
                .take(usize::try_from(n).unwrap_or(usize::MAX))
            {
                reasons[i].push("keep-last");
            }
        }
    }
    if let Some(n) = rules.keep_every.filter(|n| *n >= 1) {
        for members in groups.values() {
            // The oldest of each run of `n` commits: smallest depth, then clean, then name.
            let mut firsts: BTreeMap<i64, usize> = BTreeMap::new();
            for &i in members {
                let Some(depth) = entries[i].depth() else {
                    continue;
                };
                let run = (depth - 1) / i64::try_from(n).unwrap_or(i64::MAX);
                let key = |j: usize| (entries[j].depth(), entries[j].dirty(), &entries[j].state);
                firsts
                    .entry(run)
                    .and_modify(|k| {
                        if key(i) < key(*k) {
                            *k = i;
                        }
                    })
                    .or_insert(i);
            }
            for i in firsts.into_values() {
                reasons[i].push("keep-every");
            }
        }
    }
    if let Some(days) = rules.keep_days {
        let window = i64::try_from(days).unwrap_or(i64::MAX).saturating_mul(DAY);
        for &i in &readable {
            if entries[i]
                .time
                .is_some_and(|(t, _)| now.saturating_sub(t) < window)
            {
                reasons[i].push("keep-days");
            }
        }
    }
    if rules.keep_newest {
        if let Some(&newest) = readable.first() {
            reasons[newest].push("newest");
        }
    }
    reasons
}

/// Removes the snapshots condemned in `verdicts`, skipping (and keeping, with the reason) those a
/// writer or a reader holds. First every one is renamed out of sight while SQL sessions over the
/// whole store are held off; then the renamed folders are deleted.
fn remove_condemned(
    store: &Store,
    verdicts: &mut [SnapshotVerdict],
    lock_timeout: Duration,
) -> Result<(), PipelineError> {
    if !verdicts.iter().any(|v| v.action == SnapshotAction::Removed) {
        return Ok(());
    }
    let keep = |v: &mut SnapshotVerdict, reason: &'static str, problem: Option<String>| {
        v.action = SnapshotAction::Kept;
        v.reasons = vec![reason];
        v.problem = problem;
    };
    let Some(store_lock) = wait_for_store(store, lock_timeout)? else {
        for v in verdicts
            .iter_mut()
            .filter(|v| v.action == SnapshotAction::Removed)
        {
            keep(v, "store-reading", None);
        }
        return Ok(());
    };
    let mut trash = Vec::new();
    for v in verdicts
        .iter_mut()
        .filter(|v| v.action == SnapshotAction::Removed)
    {
        let state = v
            .path
            .rsplit_once(COMMIT_PARTITION)
            .map(|(_, s)| s.to_string())
            .unwrap_or_default();
        match hide(store, &v.repo, &state) {
            Ok(Hidden::Renamed(path)) => trash.push(path),
            Ok(Hidden::Writing) => keep(v, "writing", None),
            Ok(Hidden::Reading) => keep(v, "reading", None),
            Err(e) => keep(v, "remove-failed", Some(e.to_string())),
        }
    }
    drop(store_lock);
    for path in trash {
        failpoint::hit("gc-renamed").map_err(|e| PipelineError::io(&path, e))?;
        // A folder someone else's clean-up removed meanwhile is gone all the same.
        if let Err(e) = std::fs::remove_dir_all(&path) {
            if path.exists() {
                return Err(PipelineError::io(&path, e));
            }
        }
    }
    Ok(())
}

/// The outcome of hiding one snapshot.
enum Hidden {
    /// Renamed to this trash folder.
    Renamed(std::path::PathBuf),
    /// A writer holds its state (a `--force` rebuild).
    Writing,
    /// A reader holds it.
    Reading,
}

/// Renames the snapshot of `state` out of sight, unless a writer or a reader holds it.
fn hide(store: &Store, repo: &str, state: &str) -> std::io::Result<Hidden> {
    let dir = store.snapshot_dir(repo, state);
    let Some(writer) = store.try_lock(repo, state).map_err(std::io::Error::other)? else {
        return Ok(Hidden::Writing);
    };
    // A folder that cannot be locked here cannot be told unread: kept (the error says why).
    let Some(readers) = folder_lock::try_exclusive(&dir)? else {
        return Ok(Hidden::Reading);
    };
    let repo_dir = store.repo_dir(repo);
    let trash = repo_dir.join(Leftover::name(
        LeftoverKind::Trash,
        state,
        std::process::id(),
    ));
    std::fs::rename(&dir, &trash)?;
    let _ = store::sync_dir(&repo_dir);
    drop((readers, writer));
    Ok(Hidden::Renamed(trash))
}

/// The store's lock, exclusive: `None` when SQL sessions over the whole store kept it past
/// `timeout`.
fn wait_for_store(store: &Store, timeout: Duration) -> Result<Option<FolderLock>, PipelineError> {
    let start = Instant::now();
    loop {
        match folder_lock::try_exclusive(store.root()) {
            Ok(Some(lock)) => return Ok(Some(lock)),
            Ok(None) if start.elapsed() < timeout => std::thread::sleep(Duration::from_millis(100)),
            Ok(None) => return Ok(None),
            Err(e) => return Err(PipelineError::io(store.root(), e)),
        }
    }
}

fn totals(snapshots: &[SnapshotVerdict], leftovers: &[LeftoverReport]) -> Totals {
    let mut t = Totals::default();
    for s in snapshots {
        if s.action == SnapshotAction::Kept {
            t.snapshots_kept += 1;
        } else {
            t.snapshots_removed += 1;
            t.bytes_freed += s.bytes;
        }
    }
    for l in leftovers {
        match l.action {
            LeftoverAction::Removed | LeftoverAction::WouldRemove => {
                t.leftovers_removed += 1;
                t.bytes_freed += l.bytes;
            }
            LeftoverAction::Restored | LeftoverAction::WouldRestore => t.leftovers_restored += 1,
            LeftoverAction::Kept | LeftoverAction::Failed => t.leftovers_kept += 1,
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use output_schema::manifest::RepoState;

    /// A readable entry of `head_ref` at day `day`, first-parent depth `depth`.
    fn entry(name: &str, head_ref: Option<&str>, day: i64, depth: Option<i64>) -> Entry {
        let repo_state = RepoState {
            is_git: true,
            head_ref: head_ref.map(str::to_string),
            head_time: Some(day * DAY),
            head_depth: depth,
            ..RepoState::default()
        };
        let manifest = Manifest::new("r", name, repo_state);
        Entry {
            repo: "r".into(),
            state: name.into(),
            path: format!("repo=r/commit={name}"),
            manifest: Ok(manifest),
            time: Some((day * DAY, "commit")),
            bytes: 1,
        }
    }

    fn kept(entries: &[Entry], rules: Retention, now_day: i64) -> Vec<(String, Vec<&'static str>)> {
        let mut sorted = entries.to_vec();
        sorted.sort_by(|a, b| b.age_key().cmp(&a.age_key()));
        let reasons = decide(&sorted, &rules, now_day * DAY);
        sorted
            .into_iter()
            .zip(reasons)
            .map(|(e, r)| (e.state, r))
            .collect()
    }

    const MAIN: Option<&str> = Some("refs/heads/main");

    #[test]
    fn without_a_rule_nothing_is_condemned() {
        let entries = [entry("a", MAIN, 1, Some(1)), entry("b", MAIN, 2, Some(2))];
        for (_, reasons) in kept(&entries, Retention::default(), 100) {
            assert!(reasons.contains(&"no-rule"), "{reasons:?}");
        }
    }

    #[test]
    fn keep_last_counts_per_branch_head_and_the_newest_is_kept() {
        let entries = [
            entry("m1", MAIN, 1, Some(1)),
            entry("m2", MAIN, 2, Some(2)),
            entry("m3", MAIN, 3, Some(3)),
            entry("f1", Some("refs/heads/feature"), 4, Some(3)),
            entry("d1", None, 5, Some(2)),
        ];
        let rules = Retention {
            keep_last: Some(1),
            keep_newest: false,
            ..Retention::default()
        };
        let got = kept(&entries, rules, 10);
        let by_name: BTreeMap<_, _> = got.into_iter().collect();
        assert_eq!(by_name["m3"], vec!["keep-last"]);
        assert_eq!(by_name["f1"], vec!["keep-last"]);
        assert_eq!(by_name["d1"], vec!["keep-last"]);
        assert!(by_name["m1"].is_empty() && by_name["m2"].is_empty());
        // The newest of the repository survives a rule that keeps nothing of its group.
        let rules = Retention {
            keep_days: Some(1),
            ..Retention::default()
        };
        let by_name: BTreeMap<_, _> = kept(&entries, rules, 100).into_iter().collect();
        assert_eq!(by_name["d1"], vec!["newest"]);
        assert!(by_name["m3"].is_empty());
    }

    #[test]
    fn keep_every_is_stable_when_run_again_over_what_it_kept() {
        // One snapshot per commit, depths 1..=35, newest on day 35.
        let all: Vec<Entry> = (1..=35)
            .map(|d| entry(&format!("c{d:02}"), MAIN, d, Some(d)))
            .collect();
        let rules = Retention {
            keep_every: Some(10),
            keep_last: Some(2),
            keep_newest: false,
            ..Retention::default()
        };
        let survivors = |entries: &[Entry]| -> Vec<Entry> {
            let kept: BTreeMap<String, Vec<&str>> = kept(entries, rules, 40).into_iter().collect();
            entries
                .iter()
                .filter(|e| !kept[&e.state].is_empty())
                .cloned()
                .collect()
        };
        let first = survivors(&all);
        let names = |v: &[Entry]| v.iter().map(|e| e.state.clone()).collect::<Vec<_>>();
        assert_eq!(names(&first), ["c01", "c11", "c21", "c31", "c34", "c35"]);
        // Two more commits, then gc again: the ones kept by keep-every stay.
        let mut next = first.clone();
        next.extend([
            entry("c36", MAIN, 36, Some(36)),
            entry("c37", MAIN, 37, Some(37)),
        ]);
        assert_eq!(
            names(&survivors(&next)),
            ["c01", "c11", "c21", "c31", "c36", "c37"]
        );
        // Without depths (a shallow clone), keep-every keeps nothing.
        let shallow = [entry("s", MAIN, 1, None), entry("t", MAIN, 2, None)];
        let only_every = Retention {
            keep_every: Some(1),
            keep_newest: false,
            ..Retention::default()
        };
        assert!(kept(&shallow, only_every, 3)
            .iter()
            .all(|(_, r)| r.is_empty()));
    }

    #[test]
    fn keep_days_measures_from_now_and_unreadable_snapshots_are_kept() {
        let mut broken = entry("x", MAIN, 0, None);
        broken.manifest = Err("damaged".into());
        broken.time = None;
        let entries = [
            entry("old", MAIN, 1, Some(1)),
            entry("new", MAIN, 95, Some(2)),
            broken,
        ];
        let rules = Retention {
            keep_days: Some(10),
            keep_newest: false,
            ..Retention::default()
        };
        let by_name: BTreeMap<_, _> = kept(&entries, rules, 100).into_iter().collect();
        assert_eq!(by_name["new"], vec!["keep-days"]);
        assert!(by_name["old"].is_empty());
        assert_eq!(by_name["x"], vec!["unreadable"]);
    }
}
