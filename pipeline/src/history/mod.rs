//! The git history stage: `commits`, `file_changes`, `churn`, `cochange` and `ownership` from one
//! walk of history with gix (no `git` process).
//!
//! Flow: choose the window (`walk`: reachable from HEAD, bounded by HEAD's committer time minus
//! `days` and by `max_commits`), diff every window commit against its first parent (`diff`,
//! with git's own rename pairing in `rename` and line counts in `lines`: rows equal to
//! `git log --numstat -M`, merges included and diffed against their first parent; commits are
//! diffed in parallel and kept in window order), then derive churn, co-change and ownership
//! from those rows (`aggregate`). Author emails become salted hashes (`author`; set
//! `CKB_SALT` to keep IDs unlinkable across organisations); names, emails and messages are never
//! stored.
//!
//! Incremental: a commit's `commits` and `file_changes` rows depend only on the commit and on the
//! settings recorded in the manifest (`historyDays`, `maxCommits`, `firstParent`,
//! `cochangeMaxFiles`, `cochangeMinShared`, `historyAuthorKey`, `historyInputs` — the last a
//! fingerprint of the row format, diff algorithm, mailmap and `.gitattributes`). When the previous
//! snapshot recorded the same settings and neither it nor this repository is shallow, its rows are
//! reused for every window commit they cover and only the other commits are read and diffed. The
//! window itself is computed the same way either way and the derived tables come from the combined
//! rows, so the output is identical to a full walk. A previous snapshot whose head is not an
//! ancestor of HEAD (force-push) is still safe to use: only commits in the new window are taken.
//! Previous rows that may lack something (a change without line counts that is not binary, a
//! commit without file changes) are not reused but diffed again, so a snapshot of a partial
//! clone never passes on a gap the repository can now fill (`missing`).
//!
//! Objects the window needs but the clone lacks (blobless, treeless, damaged) degrade the rows
//! instead of failing the stage; HEAD's own commit and tree are checked by `repo_state` first.

mod aggregate;
mod author;
mod diff;
mod lines;
mod missing;
mod rename;
mod walk;

use std::collections::{BTreeMap, HashMap};

use gix::bstr::ByteSlice;
use gix::ObjectId;
use output_schema::config::HistoryConfig;
use output_schema::manifest::{Backend, Completeness, StageReport, StageStatus, Warning};
use output_schema::tables::{ChurnRow, CochangeRow, CommitRow, FileChangeRow, OwnershipRow};
use output_schema::Table;

pub use author::default_salt;

use crate::stage::{ManifestParts, StageContext, StageOutput};
use crate::store::StoredSnapshot;
use crate::PipelineError;

/// Version of the per-commit row logic; bump it when rows of the same commit would change, so
/// that older snapshots are not reused.
const ROW_FORMAT: &str = "ckb-history-rows-v1";

/// The gix release this stage is built with (checked against Cargo.lock by a test).
pub const GIX_VERSION: &str = "0.90.0";

/// Settings of the history stage.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryOptions {
    /// Days of history before HEAD's committer time; 0 = no time limit.
    pub days: u32,
    /// Most commits in the window (the newest); 0 = no limit.
    pub max_commits: u32,
    /// Follow only first parents.
    pub first_parent: bool,
    /// Commits changing more files than this are left out of co-change.
    pub cochange_max_files: u32,
    /// Pairs sharing fewer commits than this are left out of co-change.
    pub cochange_min_shared: u32,
    /// Salt of the author hashes (`CKB_SALT`, else [`default_salt`]).
    pub salt: String,
    /// Let `git` fetch the trees and blobs the window lacks from the promisor remote
    /// (`--history-fetch-missing`).
    pub fetch_missing: bool,
}

impl HistoryOptions {
    /// Options from the effective config; `salt` is `CKB_SALT` if set and not empty.
    pub fn new(config: &HistoryConfig, repo_id: &str, salt: Option<String>) -> HistoryOptions {
        HistoryOptions {
            days: config.days,
            max_commits: config.max_commits,
            first_parent: config.first_parent,
            cochange_max_files: config.cochange_max_files,
            cochange_min_shared: config.cochange_min_shared,
            salt: salt
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| default_salt(repo_id)),
            fetch_missing: false,
        }
    }
}

/// The git stage's rows.
#[derive(Debug, Default)]
pub struct HistoryTables {
    /// `commits` rows.
    pub commits: Vec<CommitRow>,
    /// `file_changes` rows.
    pub file_changes: Vec<FileChangeRow>,
    /// `churn` rows.
    pub churn: Vec<ChurnRow>,
    /// `cochange` rows.
    pub cochange: Vec<CochangeRow>,
    /// `ownership` rows.
    pub ownership: Vec<OwnershipRow>,
}

/// What the history stage produced.
#[derive(Debug)]
pub struct HistoryOutput {
    /// The rows.
    pub tables: HistoryTables,
    /// The stage report (`reports["git"]`).
    pub report: StageReport,
    /// Provenance for the manifest's backends.
    pub backend: Backend,
    /// Settings to record in the manifest (they decide whether a later snapshot may reuse rows).
    pub settings: BTreeMap<String, serde_json::Value>,
    /// Objects were missing or unreadable although the clone is not partial.
    pub damaged: bool,
    /// Time `--history-fetch-missing` spent in `git fetch` (for `run.json`).
    pub fetch_time: Option<std::time::Duration>,
}

/// Runs the history stage on `repo`, reusing the rows of `previous` where its settings allow.
pub fn run(
    ctx: &StageContext<'_>,
    repo: &gix::Repository,
    opts: &HistoryOptions,
    previous: Option<&StoredSnapshot>,
) -> Result<HistoryOutput, PipelineError> {
    let mut repo = repo.clone();
    repo.object_cache_size_if_unset(16 * 1024 * 1024);
    let git_err = |what: &str, e: &dyn std::fmt::Display| PipelineError::Git {
        message: format!("{what}: {e}"),
    };
    let hasher = author::AuthorHasher::new(&opts.salt);
    let mailmap = repo.open_mailmap();
    let settings = settings(&repo, opts, &hasher, &mailmap)?;
    let shallow = shallow_boundary(&repo)?;
    let mut backend = Backend {
        kind: "git".into(),
        tool: "gix".into(),
        version: Some(GIX_VERSION.into()),
        input: None,
        counts: BTreeMap::new(),
        facts: BTreeMap::from([
            ("firstParent".to_string(), opts.first_parent.to_string()),
            ("shallow".to_string(), (!shallow.is_empty()).to_string()),
        ]),
    };

    let head = repo.head().map_err(|e| git_err("cannot read HEAD", &e))?;
    if head.is_unborn() {
        return Ok(unborn(backend, settings));
    }
    let head_id = repo
        .head_id()
        .map_err(|e| git_err("cannot resolve HEAD", &e))?
        .detach();
    let head_time = committer_time(&repo, head_id)?;
    // A commit time is whatever the commit says (near i64::MIN in a crafted one): saturate.
    let cutoff = (opts.days > 0).then(|| head_time.saturating_sub(i64::from(opts.days) * 86_400));

    let mut warnings: Vec<Warning> = Vec::new();
    let (prev, reuse) = load_previous(previous, &settings, !shallow.is_empty(), &mut warnings);
    let (prev_commits, mut prev_changes) = prev.unwrap_or_default();
    let prev_rows =
        (!prev_commits.is_empty()).then(|| index_previous(&prev_commits, &prev_changes));

    let authors = walk::Authors { hasher, mailmap };
    let window = walk::walk(
        &repo,
        head_id,
        &walk::WalkSettings {
            cutoff,
            first_parent: opts.first_parent,
            max_commits: opts.max_commits as usize,
        },
        prev_rows.as_ref(),
        &shallow,
        &authors,
    )?;

    let inputs = diff_inputs(&window);
    ctx.progress.stage_started("git", Some(inputs.len() as u64));
    let mut diffed = diff::diff_commits(&repo, &inputs, ctx.progress)?;
    let fetched = if opts.fetch_missing {
        missing::fetch_and_rediff(&repo, &inputs, &mut diffed, &mut warnings)?
    } else {
        missing::Fetched::default()
    };
    let kind = ctx
        .repo_state
        .clone_state
        .as_ref()
        .map_or("full", |c| c.kind.as_str());
    let gaps = {
        let by_commit: Vec<(ObjectId, &diff::DiffOutput)> =
            inputs.iter().map(|i| i.id).zip(diffed.iter()).collect();
        missing::summarize(&by_commit, &window.unreadable, kind, &mut warnings)
    };

    let (commits, file_changes, (reused, walked)) =
        commit_rows(&window, diffed, &prev_commits, &mut prev_changes);

    let agg = aggregate::aggregate(
        &commits,
        &file_changes,
        &aggregate::AggregateSettings {
            head_time,
            first_parent: opts.first_parent,
            cochange_max_files: opts.cochange_max_files,
            cochange_min_shared: opts.cochange_min_shared,
        },
    );

    let mut report = report(
        &window,
        &commits,
        &file_changes,
        &agg,
        head_time,
        (reused, walked),
        warnings,
    );
    if let Some(c) = missing::completeness(&gaps, kind, file_changes.len(), commits.len()) {
        // A gap says more than a shallow boundary or the commit cap: name it, keep the lower score.
        let score = report.completeness.as_ref().map_or(1.0, |r| r.score);
        report.status = StageStatus::Partial;
        report.completeness = Some(Completeness {
            score: score.min(c.score),
            reason: c.reason,
        });
    }
    report.counts.extend(gap_counts(&gaps, &fetched));
    let damaged = !missing::is_partial(kind) && gaps.any();
    describe_run(
        &mut backend,
        &commits,
        &file_changes,
        (reused, walked),
        head_id,
        cutoff,
        reuse,
    );
    ctx.progress.stage_finished(
        "git",
        &format!(
            "{} commits ({} reused, {} diffed), {} file changes",
            commits.len(),
            reused,
            walked,
            file_changes.len()
        ),
    );
    Ok(HistoryOutput {
        tables: HistoryTables {
            commits,
            file_changes,
            churn: agg.churn,
            cochange: agg.cochange,
            ownership: agg.ownership,
        },
        report,
        backend,
        settings,
        damaged,
        fetch_time: fetched.time,
    })
}

/// The committer time of HEAD's commit: the history window ends there.
fn committer_time(repo: &gix::Repository, head_id: ObjectId) -> Result<i64, PipelineError> {
    repo.find_commit(head_id)
        .and_then(|c| c.committer().map(|s| s.seconds()))
        .map_err(|e| PipelineError::Git {
            message: format!("cannot read the HEAD commit {head_id}: {}", diff::chain(&e)),
        })
}

/// The shallow boundary's commits, sorted (empty in a full clone).
fn shallow_boundary(repo: &gix::Repository) -> Result<Vec<ObjectId>, PipelineError> {
    let commits = repo.shallow_commits().map_err(|e| PipelineError::Git {
        message: format!("cannot read the shallow file: {e}"),
    })?;
    let mut v: Vec<ObjectId> = commits
        .map(|c| c.iter().copied().collect())
        .unwrap_or_default();
    v.sort_unstable();
    Ok(v)
}

/// What the diff needs of each commit the walk read anew.
fn diff_inputs(window: &walk::Window) -> Vec<diff::DiffInput> {
    // Trees of the commits just read, so a parent in the window need not be read again.
    let trees: HashMap<ObjectId, ObjectId> = window
        .commits
        .iter()
        .filter_map(|c| match &c.origin {
            walk::Origin::New(n) => Some((c.id, n.tree)),
            walk::Origin::Reused(_) => None,
        })
        .collect();
    window
        .commits
        .iter()
        .filter_map(|c| match &c.origin {
            walk::Origin::New(n) => Some(diff::DiffInput {
                id: c.id,
                tree: n.tree,
                first_parent: c.parents.first().map(|&p| (p, trees.get(&p).copied())),
                shallow_boundary: c.shallow_boundary,
            }),
            walk::Origin::Reused(_) => None,
        })
        .collect()
}

/// The window's `commits` and `file_changes` rows, in walk order: reused ones from the previous
/// snapshot, new ones from their diffs. Also returns how many were reused and how many diffed.
fn commit_rows(
    window: &walk::Window,
    diffed: Vec<diff::DiffOutput>,
    prev_commits: &[CommitRow],
    prev_changes: &mut HashMap<String, Vec<FileChangeRow>>,
) -> (Vec<CommitRow>, Vec<FileChangeRow>, (i64, i64)) {
    let mut commits: Vec<CommitRow> = Vec::with_capacity(window.commits.len());
    let mut file_changes: Vec<FileChangeRow> = Vec::new();
    let mut diffed = diffed.into_iter();
    let (mut reused, mut walked) = (0i64, 0i64);
    for c in &window.commits {
        let sha = c.id.to_string();
        match &c.origin {
            walk::Origin::Reused(i) => {
                reused += 1;
                commits.push(prev_commits[*i].clone());
                file_changes.extend(prev_changes.remove(&sha).unwrap_or_default());
            }
            walk::Origin::New(n) => {
                walked += 1;
                let d = diffed.next().unwrap_or_default();
                commits.push(CommitRow {
                    sha,
                    parents: c.parents.iter().map(|p| p.to_string()).collect(),
                    author_time: n.author_time,
                    committer_time: c.committer_time,
                    author_id: n.author_id.clone(),
                    is_bot: n.is_bot,
                    files_changed: d.files_changed,
                    additions: d.additions,
                    deletions: d.deletions,
                });
                file_changes.extend(d.rows);
            }
        }
    }
    (commits, file_changes, (reused, walked))
}

/// The report's counts of what the history could not read or fetched.
fn gap_counts(
    gaps: &missing::Summary,
    fetched: &missing::Fetched,
) -> impl Iterator<Item = (String, i64)> {
    [
        (
            "file-changes.without-line-counts",
            gaps.changes_without_lines,
        ),
        ("commits.without-line-counts", gaps.commits_without_lines),
        ("commits.file-changes-unknown", gaps.commits_changes_unknown),
        ("commits.renames-unscored", gaps.commits_renames_unscored),
        ("commits.unreadable", gaps.commits_unreadable),
        ("objects.missing", gaps.objects_missing),
        ("objects.unreadable", gaps.objects_unreadable),
        ("objects.fetch-requested", fetched.requested),
        ("objects.fetched", fetched.fetched),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
}

/// The output of a repository without commits: empty tables, a complete report.
fn unborn(mut backend: Backend, settings: BTreeMap<String, serde_json::Value>) -> HistoryOutput {
    let mut report = StageReport::ran(false);
    report.completeness = Some(Completeness {
        score: 1.0,
        reason: "no-commits".into(),
    });
    report.counts.insert("commits".into(), 0);
    backend.counts.insert("commits".into(), 0);
    backend.facts.insert("unborn".into(), "true".into());
    HistoryOutput {
        tables: HistoryTables::default(),
        report,
        backend,
        settings,
        damaged: false,
        fetch_time: None,
    }
}

/// The backend's counts and facts about this run: what was reused, what diffed, the window.
fn describe_run(
    backend: &mut Backend,
    commits: &[CommitRow],
    file_changes: &[FileChangeRow],
    (reused, walked): (i64, i64),
    head_id: ObjectId,
    cutoff: Option<i64>,
    reuse: &str,
) {
    let incremental = reused > 0;
    backend.counts = BTreeMap::from([
        ("commits".to_string(), commits.len() as i64),
        ("fileChanges".to_string(), file_changes.len() as i64),
        ("commitsReused".to_string(), reused),
        ("commitsDiffed".to_string(), walked),
    ]);
    backend.facts.insert("head".into(), head_id.to_string());
    backend.facts.insert(
        "mode".into(),
        if incremental { "incremental" } else { "full" }.into(),
    );
    backend.facts.insert("reuse".into(), reuse.into());
    backend.facts.insert(
        "windowStart".into(),
        cutoff.map_or_else(|| "none".to_string(), |c| c.to_string()),
    );
}

/// The manifest settings of this stage. Row reuse requires all of them to be equal.
fn settings(
    repo: &gix::Repository,
    opts: &HistoryOptions,
    hasher: &author::AuthorHasher,
    mailmap: &gix::mailmap::Snapshot,
) -> Result<BTreeMap<String, serde_json::Value>, PipelineError> {
    let mut inputs = crate::hashing::FieldHasher::new("ckb.history-inputs.v1");
    inputs.field(ROW_FORMAT.as_bytes());
    let config = repo.config_snapshot();
    for key in ["diff.algorithm", "core.bigFileThreshold"] {
        let value = config
            .string(key)
            .map(|v| v.to_string())
            .unwrap_or_default();
        inputs.field(key.as_bytes()).field(value.as_bytes());
    }
    for entry in mailmap.entries() {
        inputs
            .field(entry.old_email())
            .field(entry.old_name().map(|n| n.as_bytes()).unwrap_or(b"\0"))
            .field(entry.new_email().map(|n| n.as_bytes()).unwrap_or(b"\0"))
            .field(entry.new_name().map(|n| n.as_bytes()).unwrap_or(b"\0"));
    }
    // Binary detection follows the `.gitattributes` of the current index, as `git log` does.
    let index = repo
        .index_or_load_from_head_or_empty()
        .map_err(|e| PipelineError::Git {
            message: format!("cannot read the index: {e}"),
        })?;
    for entry in index.entries() {
        let path = entry.path(&index);
        if path == ".gitattributes" || path.ends_with(b"/.gitattributes") {
            inputs.field(path).field(entry.id.as_bytes());
        }
    }
    let info = std::fs::read(repo.git_dir().join("info").join("attributes")).unwrap_or_default();
    inputs.field(&info);

    Ok(BTreeMap::from([
        ("historyDays".to_string(), opts.days.into()),
        ("maxCommits".to_string(), opts.max_commits.into()),
        ("firstParent".to_string(), opts.first_parent.into()),
        (
            "cochangeMaxFiles".to_string(),
            opts.cochange_max_files.into(),
        ),
        (
            "cochangeMinShared".to_string(),
            opts.cochange_min_shared.into(),
        ),
        ("historyAuthorKey".to_string(), hasher.fingerprint().into()),
        ("historyInputs".to_string(), inputs.hex(32).into()),
    ]))
}

type PreviousTables = (Vec<CommitRow>, HashMap<String, Vec<FileChangeRow>>);

/// Loads the previous snapshot's history rows if they may be reused; says why not otherwise.
fn load_previous(
    previous: Option<&StoredSnapshot>,
    settings: &BTreeMap<String, serde_json::Value>,
    shallow_now: bool,
    warnings: &mut Vec<Warning>,
) -> (Option<PreviousTables>, &'static str) {
    let Some(prev) = previous else {
        return (None, "no-previous");
    };
    let m = &prev.manifest;
    let ran = m
        .stages
        .get("git")
        .is_some_and(|r| matches!(r.status, StageStatus::Ok | StageStatus::Partial));
    if !ran {
        return (None, "previous-without-history");
    }
    if settings.iter().any(|(k, v)| m.settings.get(k) != Some(v)) {
        return (None, "settings-changed");
    }
    if shallow_now || m.repo_state.shallow {
        return (None, "shallow");
    }
    let read = || -> Result<PreviousTables, String> {
        let commits: Vec<CommitRow> = read_verified(prev, CommitRow::INFO.name)?;
        let changes: Vec<FileChangeRow> = read_verified(prev, FileChangeRow::INFO.name)?;
        let mut by_sha: HashMap<String, Vec<FileChangeRow>> = HashMap::new();
        for row in changes {
            by_sha.entry(row.sha.clone()).or_default().push(row);
        }
        Ok((commits, by_sha))
    };
    match read() {
        Ok(tables) => (Some(tables), "previous-rows"),
        Err(message) => {
            warnings.push(Warning {
                code: "previous-unusable".into(),
                path: None,
                message: format!(
                    "previous snapshot {}: {message}; history rebuilt from scratch",
                    m.snapshot_id
                ),
            });
            (None, "previous-unreadable")
        }
    }
}

/// Reads a table of a previous snapshot after checking its bytes against the manifest's hash.
fn read_verified<T: Table>(prev: &StoredSnapshot, name: &str) -> Result<Vec<T>, String> {
    let entry = prev
        .manifest
        .table(name)
        .ok_or_else(|| format!("no {name} table"))?;
    let path = prev.dir.join(&entry.file);
    let bytes = std::fs::read(&path).map_err(|e| format!("{name}: {e}"))?;
    if output_schema::manifest::file_hash(&bytes) != entry.hash {
        return Err(format!("{name}: content does not match the manifest"));
    }
    output_schema::parquet_io::read_table::<T>(&path).map_err(|e| format!("{name}: {e}"))
}

/// Indexes previous commit rows by id; rows with unparsable ids are left out (and recomputed),
/// and so are commits whose rows may lack something the repository can now give: no file
/// changes, or a change without line counts that is not binary (a missing blob — or a
/// submodule, diffed again for nothing).
fn index_previous<'a>(
    commits: &'a [CommitRow],
    changes: &HashMap<String, Vec<FileChangeRow>>,
) -> walk::PreviousRows<'a> {
    let may_lack = |c: &CommitRow| match changes.get(&c.sha) {
        None => true,
        Some(rows) => rows.iter().any(|r| r.additions.is_none() && !r.is_binary),
    };
    let mut by_id = HashMap::with_capacity(commits.len());
    let mut parents = Vec::with_capacity(commits.len());
    for (i, c) in commits.iter().enumerate() {
        if may_lack(c) {
            parents.push(Vec::new());
            continue;
        }
        let parsed: Option<Vec<ObjectId>> = c
            .parents
            .iter()
            .map(|p| ObjectId::from_hex(p.as_bytes()).ok())
            .collect();
        match (ObjectId::from_hex(c.sha.as_bytes()), parsed) {
            (Ok(id), Some(ps)) => {
                by_id.insert(id, i);
                parents.push(ps);
            }
            _ => parents.push(Vec::new()),
        }
    }
    walk::PreviousRows {
        commits,
        by_id,
        parents,
    }
}

/// The stage report. Everything in it except the reuse counts is derived from the rows, so it
/// reads the same after an incremental or a full walk.
fn report(
    window: &walk::Window,
    commits: &[CommitRow],
    changes: &[FileChangeRow],
    agg: &aggregate::Aggregates,
    head_time: i64,
    (reused, walked): (i64, i64),
    mut warnings: Vec<Warning>,
) -> StageReport {
    let mut rows_per_commit: HashMap<&str, i64> = HashMap::new();
    for c in changes {
        *rows_per_commit.entry(c.sha.as_str()).or_default() += 1;
    }
    let time_of: HashMap<&str, i64> = commits
        .iter()
        .map(|c| (c.sha.as_str(), c.committer_time))
        .collect();
    let (mut skipped_paths, mut skew, mut future, mut merges) = (0i64, 0i64, 0i64, 0i64);
    for c in commits {
        let rows = rows_per_commit.get(c.sha.as_str()).copied().unwrap_or(0);
        if c.files_changed > rows {
            skipped_paths += c.files_changed - rows;
            warnings.push(Warning {
                code: "invalid-path".into(),
                path: None,
                message: format!(
                    "commit {}: {} changed path(s) skipped (not valid UTF-8, or leaving the repository)",
                    c.sha,
                    c.files_changed - rows
                ),
            });
        }
        if c.parents.len() > 1 {
            merges += 1;
        }
        if c.committer_time > head_time {
            future += 1;
        }
        let newest_parent = c
            .parents
            .iter()
            .filter_map(|p| time_of.get(p.as_str()))
            .max();
        if let Some(&pt) = newest_parent.filter(|&&pt| pt > c.committer_time) {
            skew += 1;
            warnings.push(Warning {
                code: "clock-skew".into(),
                path: None,
                message: format!(
                    "commit {}: committed {} s before its parent",
                    c.sha,
                    pt.saturating_sub(c.committer_time)
                ),
            });
        }
    }
    let boundary: Vec<&walk::WindowCommit> = window
        .commits
        .iter()
        .filter(|c| c.shallow_boundary)
        .collect();
    for b in &boundary {
        warnings.push(Warning {
            code: "shallow-history".into(),
            path: None,
            message: format!(
                "commit {}: shallow clone boundary; its parents and older history are not available",
                b.id
            ),
        });
    }
    let binary = changes.iter().filter(|c| c.is_binary).count() as i64;
    let renames = changes.iter().filter(|c| c.change == "R").count() as i64;
    let mut authors: Vec<(&str, bool)> = commits
        .iter()
        .map(|c| (c.author_id.as_str(), c.is_bot))
        .collect();
    authors.sort_unstable();
    authors.dedup();
    let mut author_ids: Vec<&str> = authors.iter().map(|a| a.0).collect();
    author_ids.dedup();
    let bots = {
        let mut b: Vec<&str> = authors.iter().filter(|a| a.1).map(|a| a.0).collect();
        b.dedup();
        b.len() as i64
    };
    let beyond = (window.total - window.commits.len()) as i64;

    let degraded = !boundary.is_empty() || skipped_paths > 0;
    let mut report = StageReport::ran(degraded);
    report.items = commits.len() as i64;
    report.completeness = Some(if !boundary.is_empty() {
        Completeness {
            score: 0.5,
            reason: "shallow-history".into(),
        }
    } else if beyond > 0 {
        Completeness {
            score: commits.len() as f64 / window.total as f64,
            reason: "max-commits".into(),
        }
    } else {
        Completeness {
            score: 1.0,
            reason: "full-history".into(),
        }
    });
    let counts = [
        ("commits", commits.len() as i64),
        ("commits.reused", reused),
        ("commits.diffed", walked),
        ("commits.merges", merges),
        ("commits.merges-left-out-of-aggregates", agg.merges_left_out),
        ("commits.shallow-boundary", boundary.len() as i64),
        ("commits.clock-skew", skew),
        ("commits.future", future),
        ("commits.beyond-max-commits", beyond),
        ("file-changes", changes.len() as i64),
        ("file-changes.binary", binary),
        ("file-changes.renames", renames),
        ("paths.skipped-invalid", skipped_paths),
        (
            "cochange.skipped-large-commits",
            agg.cochange_skipped_commits,
        ),
        ("cochange.pairs", agg.cochange.len() as i64),
        ("authors", author_ids.len() as i64),
        ("authors.bots", bots),
    ];
    report.counts = counts.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    report.set_warnings(warnings);
    report
}

impl StageOutput for HistoryOutput {
    type Rows = HistoryTables;
    fn split(self) -> (HistoryTables, ManifestParts) {
        let mut parts = ManifestParts::report(self.report);
        parts.extras.backends.push(self.backend);
        parts.extras.settings = self.settings;
        parts.extras.clone_damaged = self.damaged;
        if let Some(time) = self.fetch_time {
            parts
                .extras
                .timings
                .push(("git.fetch-missing".into(), time));
        }
        (self.tables, parts)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn gix_version_matches_the_lock_file() {
        // Compiled in, so the check follows the lock file this build used even when the
        // target dir outlives the checkout it was built from.
        let lock = include_str!("../../../Cargo.lock");
        let needle = format!("name = \"gix\"\nversion = \"{}\"", super::GIX_VERSION);
        assert!(
            lock.contains(&needle),
            "update GIX_VERSION to the gix version in Cargo.lock"
        );
    }
}
