//! What `ckb report` shows, gathered from snapshots through the readers every query uses: the
//! snapshots of one repository in a store (or one snapshot), the trend across them, the newest
//! snapshot's stages, architecture (the `arch` answer and the architecture view) and hotspots
//! (`commands::hotspots`), and the diff of the two newest (`diff::diff`, the facts `ckb diff`
//! reports). No DuckDB: every number is read from the Parquet tables and manifests directly.
//!
//! A store is read without following symlinks: `repo=<id>/commit=<state>/` folders that are real
//! folders holding a manifest. A snapshot whose manifest cannot be read is left out with a note;
//! snapshots of another privacy mode than the newest are left out too (their names and hashes do
//! not compare).

use std::path::{Path, PathBuf};

use output_schema::layout::MANIFEST_FILE;
use output_schema::tables::{ChurnRow, CommitRow};
use output_schema::views::ArchitectureView;
use output_schema::ErrorCode;

use crate::commands::arch::{self, ArchArgs};
use crate::commands::hotspots;
use crate::diff::{self, DiffReport};
use crate::envelope::answer::Answer;
use crate::envelope::facts::FileIndex;
use crate::envelope::respond::Ctx;
use crate::snapshot::read::{self, Pred};
use crate::{Budget, Freshness, QueryError, Snapshot};

/// What the report covers.
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    /// One snapshot folder.
    Snapshot(&'a Path),
    /// Every snapshot of one repository in a store (`repo_id` picks one when it holds several).
    Store {
        /// The store folder.
        store: &'a Path,
        /// The repository, when the store holds several.
        repo_id: Option<&'a str>,
    },
}

/// Bounds that keep a report of a large repository readable and small.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Modules drawn in the architecture graph (the rest become one node); the strongest
    /// `2 × graph_modules` edges among them are drawn.
    pub graph_modules: usize,
    /// Rows of the hotspot table (the chart shows the same files).
    pub hotspots: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            graph_modules: 40,
            hotspots: 500,
        }
    }
}

/// One snapshot in the trend.
#[derive(Clone, Debug, PartialEq)]
pub struct TrendPoint {
    /// The `commit=` value.
    pub snapshot_id: String,
    /// Head commit.
    pub head_commit: Option<String>,
    /// Committer time of the head commit (from the snapshot's `commits` table).
    pub time: Option<i64>,
    /// Files (`files` rows).
    pub files: Option<i64>,
    /// Lines in those files.
    pub lines: Option<i64>,
    /// Symbols (`symbols` rows).
    pub symbols: Option<i64>,
    /// Modules (`modules` rows).
    pub modules: Option<i64>,
    /// Files changed in the 30 days before the head commit (`churn`, window 30d).
    pub churn_files: Option<i64>,
    /// Lines added plus deleted in those 30 days.
    pub churn_lines: Option<i64>,
}

/// One hotspot row.
#[derive(Clone, Debug, PartialEq)]
pub struct Hotspot {
    /// commits × ln(1 + lines).
    pub score: f64,
    /// The churn row (90d).
    pub churn: ChurnRow,
    /// Lines of the file.
    pub lines: i64,
    /// Its module.
    pub module: String,
}

/// The diff of the two newest snapshots.
#[derive(Clone, Debug)]
pub struct DiffFacts {
    /// Base snapshot ID.
    pub base: String,
    /// Head snapshot ID.
    pub head: String,
    /// What `ckb diff` reports.
    pub report: DiffReport,
}

/// Everything the report shows.
#[derive(Debug)]
pub struct ReportFacts {
    /// Repository ID.
    pub repo_id: String,
    /// Whether a store (several snapshots) is reported.
    pub store: bool,
    /// The newest snapshot.
    pub newest: Snapshot,
    /// Snapshots in the trend, oldest first.
    pub trend: Vec<TrendPoint>,
    /// The `arch` answer over the newest snapshot (all modules the graph shows).
    pub arch: Answer,
    /// The architecture view, when the modules stage ran.
    pub view: Option<ArchitectureView>,
    /// Hotspots of the newest snapshot (90 days), best first; `None` without a churn table.
    pub hotspots: Option<Vec<Hotspot>>,
    /// Hotspots before the limit.
    pub hotspots_total: usize,
    /// The diff of the two newest snapshots, or why there is none.
    pub diff: Result<DiffFacts, String>,
    /// Snapshots left out, and why.
    pub notes: Vec<String>,
    /// The limits applied.
    pub limits: Limits,
}

fn snapshot_dirs(store: &Path) -> Result<Vec<(String, PathBuf)>, QueryError> {
    let not_found = |why: String| {
        QueryError::new(
            ErrorCode::SnapshotNotFound,
            format!("{} is not a snapshot store: {why}", store.display()),
            "pass the store folder (the one holding repo=<id>/ folders) with --store, or a snapshot with --snapshot",
        )
    };
    let real_dirs = |dir: &Path, prefix: &str| -> Result<Vec<(String, PathBuf)>, String> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(|e| e.to_string())? {
            let entry = entry.map_err(|e| e.to_string())?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(value) = name.strip_prefix(prefix) else {
                continue;
            };
            // Never follow a symlink in the store.
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                out.push((value.to_string(), entry.path()));
            }
        }
        out.sort();
        Ok(out)
    };
    let mut out = Vec::new();
    for (repo, repo_dir) in real_dirs(store, "repo=").map_err(not_found)? {
        for (_, dir) in real_dirs(&repo_dir, "commit=").map_err(not_found)? {
            let manifest = dir.join(MANIFEST_FILE);
            if std::fs::symlink_metadata(&manifest).is_ok_and(|m| m.is_file()) {
                out.push((repo.clone(), dir));
            }
        }
    }
    Ok(out)
}

/// The committer time of a snapshot's head commit, from its own `commits` table.
fn head_time(s: &Snapshot) -> Result<Option<i64>, QueryError> {
    let Some(head) = s.manifest.repo_state.head_commit.clone() else {
        return Ok(None);
    };
    let rows: Vec<CommitRow> = read::rows_where(s, "sha", &Pred::Eq(head))?.unwrap_or_default();
    Ok(rows.first().map(|c| c.committer_time))
}

fn rows_of(s: &Snapshot, table: &str) -> Option<i64> {
    s.manifest.table(table).map(|t| t.rows)
}

/// The sum of counts read from a store's tables, negative ones as 0, saturating at `i64::MAX`:
/// the files are data (the pipeline's own churn sums saturate too), so no value may overflow it.
fn saturating_total(counts: impl Iterator<Item = i64>) -> i64 {
    counts.fold(0i64, |sum, n| sum.saturating_add(n.max(0)))
}

/// One trend point: counts from the manifest, lines and churn from their tables.
fn trend_point(s: &Snapshot, time: Option<i64>) -> Result<TrendPoint, QueryError> {
    let lines = match read::read_columns(s, "files", &["line_count"], None)? {
        Some(c) => Some(saturating_total(
            c.get::<i64>("line_count")?.iter().copied(),
        )),
        None => None,
    };
    let churn: Option<Vec<ChurnRow>> = read::rows_where(s, "window", &Pred::Eq("30d".into()))?;
    let churn_files = churn
        .as_ref()
        .map(|rows| rows.iter().filter(|r| r.commits > 0).count() as i64);
    let churn_lines = churn
        .as_ref()
        .map(|rows| saturating_total(rows.iter().flat_map(|r| [r.additions, r.deletions])));
    Ok(TrendPoint {
        snapshot_id: s.manifest.snapshot_id.clone(),
        head_commit: s.manifest.repo_state.head_commit.clone(),
        time,
        files: rows_of(s, "files"),
        lines,
        symbols: rows_of(s, "symbols"),
        modules: rows_of(s, "modules"),
        churn_files,
        churn_lines,
    })
}

/// A snapshot with the committer time of its head commit.
type Dated = (Snapshot, Option<i64>);

/// The snapshots of the report, oldest first, with their head commit times; notes for those
/// left out.
fn snapshots(source: &Source<'_>) -> Result<(Vec<Dated>, Vec<String>), QueryError> {
    let mut notes = Vec::new();
    let (store, repo_id) = match *source {
        Source::Snapshot(dir) => {
            let s = Snapshot::open(dir)?;
            let t = head_time(&s)?;
            return Ok((vec![(s, t)], notes));
        }
        Source::Store { store, repo_id } => (store, repo_id),
    };
    let dirs = snapshot_dirs(store)?;
    let mut repos: Vec<&str> = dirs.iter().map(|(r, _)| r.as_str()).collect();
    repos.dedup();
    let repo = match (repo_id, repos.as_slice()) {
        (Some(r), _) if repos.contains(&r) => r.to_string(),
        (None, [one]) => one.to_string(),
        (_, []) => {
            return Err(QueryError::new(
                ErrorCode::SnapshotNotFound,
                format!("the store {} holds no snapshot", store.display()),
                "snapshot a repository into it first: ckb snapshot --out <store>",
            ))
        }
        (Some(r), _) => {
            return Err(QueryError::new(
                ErrorCode::SnapshotNotFound,
                format!(
                    "the store {} holds no snapshot of {r:?}; it holds {}",
                    store.display(),
                    repos.join(", ")
                ),
                "pass --repo-id with one of the repositories the store holds",
            ))
        }
        (None, many) => {
            return Err(QueryError::new(
                ErrorCode::InvalidParameter,
                format!(
                    "the store {} holds {} repositories ({}): a report covers one",
                    store.display(),
                    many.len(),
                    many.join(", ")
                ),
                "pass --repo-id with the repository to report on",
            ))
        }
    };
    let mut out = Vec::new();
    for (_, dir) in dirs.iter().filter(|(r, _)| *r == repo) {
        match Snapshot::open(dir).and_then(|s| Ok((head_time(&s)?, s))) {
            Ok((t, s)) => out.push((s, t)),
            Err(e) => notes.push(format!(
                "snapshot {} left out: {} ({})",
                dir.file_name().unwrap_or_default().to_string_lossy(),
                e.message,
                e.code
            )),
        }
    }
    // Oldest first: by head commit time (snapshots without one first), then ID (a dirty
    // snapshot sorts after the clean one of its commit).
    out.sort_by(|(a, ta), (b, tb)| {
        (ta.is_some(), ta, &a.manifest.snapshot_id).cmp(&(
            tb.is_some(),
            tb,
            &b.manifest.snapshot_id,
        ))
    });
    if let Some(privacy) = out.last().map(|(s, _)| s.manifest.privacy.clone()) {
        let before = out.len();
        out.retain(|(s, _)| s.manifest.privacy == privacy);
        if out.len() < before {
            notes.push(format!(
                "{} snapshot(s) of another privacy mode than the newest ({privacy}) left out",
                before - out.len()
            ));
        }
    }
    if out.is_empty() {
        return Err(QueryError::new(
            ErrorCode::SnapshotCorrupt,
            format!("no snapshot of {repo:?} in {} can be read", store.display()),
            "run `ckb verify <snapshot>` on them, or snapshot again with `ckb snapshot --force`",
        ));
    }
    Ok((out, notes))
}

/// The snapshot the newest one was built against (`previous` in its manifest), beside it in its
/// store, when it is there.
fn previous_of(newest: &Snapshot) -> Option<Snapshot> {
    let previous = newest.manifest.previous.as_ref()?;
    let dir = newest
        .dir
        .parent()?
        .join(format!("commit={}", previous.snapshot_id));
    Snapshot::open(&dir).ok()
}

/// Gathers the report's facts.
pub fn gather(source: &Source<'_>, limits: Limits) -> Result<ReportFacts, QueryError> {
    let (snapshots, mut notes) = snapshots(source)?;
    let mut trend = Vec::with_capacity(snapshots.len());
    for (s, t) in &snapshots {
        trend.push(trend_point(s, *t)?);
    }
    let store = matches!(source, Source::Store { .. });
    let mut snapshots: Vec<Snapshot> = snapshots.into_iter().map(|(s, _)| s).collect();
    let newest = snapshots.pop().ok_or_else(|| {
        QueryError::new(ErrorCode::SnapshotNotFound, "no snapshot", "snapshot first")
    })?;
    let base = if store {
        snapshots.pop()
    } else {
        previous_of(&newest)
    };
    let diff = match &base {
        Some(base) => diff::diff(base, &newest).map(|report| DiffFacts {
            base: base.manifest.snapshot_id.clone(),
            head: newest.manifest.snapshot_id.clone(),
            report,
        }),
        None => Err(QueryError::new(
            ErrorCode::SnapshotNotFound,
            if store {
                "the store holds one snapshot of this repository: there is nothing to compare it with"
            } else {
                "the snapshot names no previous snapshot beside it: there is nothing to compare it with"
            },
            "",
        )),
    }
    .map_err(|e| e.message);

    let freshness = Freshness::unknown();
    let wide = Budget {
        modules: limits.graph_modules,
        per_module: Budget::default().per_module,
        // Edges drawn: the strongest, twice as many as modules. The layout's crossing reduction
        // grows fast with edges (40 modules: ~40 ms with 40 edges, ~380 ms with 120).
        items: (2 * limits.graph_modules).clamp(1, crate::envelope::budget::ITEMS_RANGE.1 as usize),
        drilldowns: Budget::default().drilldowns,
        tokens: crate::envelope::budget::TOKENS_RANGE.1 as usize,
    };
    let ctx = Ctx {
        snapshot: &newest,
        freshness: &freshness,
        budget: wide,
    };
    let arch = arch::arch(&ctx, &ArchArgs::default())?;
    let view = arch::read_view::<ArchitectureView>(&ctx)?;
    let (hotspots, hotspots_total) = if newest.has_table("churn") {
        let files = FileIndex::load(&newest)?;
        let rows = hotspots::hotspot_rows(&ctx, "90d", None, &files)?;
        let total = rows.len();
        let shown = rows
            .into_iter()
            .take(limits.hotspots)
            .map(|(score, churn)| Hotspot {
                score,
                lines: files.get(&churn.path).map(|f| f.lines).unwrap_or(0),
                module: files.module_of(&churn.path),
                churn,
            })
            .collect();
        (Some(shown), total)
    } else {
        (None, 0)
    };
    if let Source::Store { .. } = source {
        if trend.iter().any(|p| p.time.is_none()) {
            notes.push(
                "snapshots without a commits table (the git stage did not run) have no time; they come first in the trend".into(),
            );
        }
    }
    Ok(ReportFacts {
        repo_id: newest.manifest.repo_id.clone(),
        store,
        newest,
        trend,
        arch,
        view,
        hotspots,
        hotspots_total,
        diff,
        notes,
        limits,
    })
}

#[cfg(test)]
mod tests {
    use super::saturating_total;

    #[test]
    fn totals_of_stored_counts_saturate_and_ignore_negatives() {
        assert_eq!(saturating_total([3, -5, 4].into_iter()), 7);
        assert_eq!(
            saturating_total([i64::MAX, i64::MAX, 1].into_iter()),
            i64::MAX
        );
        assert_eq!(saturating_total(std::iter::empty()), 0);
    }
}
