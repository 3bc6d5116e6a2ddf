//! Churn, co-change and ownership, computed from the window's `commits` and `file_changes` rows
//! alone — which is why an incremental snapshot (old rows reused, new rows added) aggregates to
//! exactly the same tables as a full walk.
//!
//! Which commits count: in full-graph mode a merge's diff against its first parent repeats what
//! the merged branch's own commits already changed, so merges are left out of all three tables
//! (their `file_changes` rows are still written). In first-parent mode the branch commits are not
//! in the window and the merge stands for them, so merges count.
//!
//! - churn: per path and window (30d, 90d, 365d measured back from HEAD's committer time, and
//!   `all` = the whole history window); a row exists only when the path changed in that window.
//!   Binary changes count as commits with no lines.
//! - cochange: commits with more than `max_files` changed files (the commit's `files_changed`, or
//!   its rows when there are more) are left out entirely and counted, so a commit adds at most
//!   `max_files²/2` pairs (`max_files` is at most `MAX_COCHANGE_FILES`, 1000); pairs sharing fewer than `min_shared` commits are dropped;
//!   `commits_a`/`commits_b` count the commits that were considered, so
//!   `degree = shared / min(commits_a, commits_b)` lies in 0..1.
//! - ownership: per path and author over the whole window; `share` = the author's commits / all
//!   commits touching the path. An author is a bot if any of their commits in the window is
//!   flagged.

use std::collections::HashMap;

use output_schema::tables::{ChurnRow, CochangeRow, CommitRow, FileChangeRow, OwnershipRow};

/// Churn windows: label and length in days (`None` = the whole history window).
pub(crate) const WINDOWS: [(&str, Option<i64>); 4] = [
    ("30d", Some(30)),
    ("90d", Some(90)),
    ("365d", Some(365)),
    ("all", None),
];

/// Settings of the aggregation.
pub(crate) struct AggregateSettings {
    pub head_time: i64,
    pub first_parent: bool,
    pub cochange_max_files: u32,
    pub cochange_min_shared: u32,
}

/// The derived tables plus counts for the report.
#[derive(Debug, Default)]
pub(crate) struct Aggregates {
    pub churn: Vec<ChurnRow>,
    pub cochange: Vec<CochangeRow>,
    pub ownership: Vec<OwnershipRow>,
    /// Commits left out of co-change for touching too many files.
    pub cochange_skipped_commits: i64,
    /// Commits left out of all three (merges in full-graph mode).
    pub merges_left_out: i64,
}

#[derive(Clone, Default)]
struct ChurnAcc<'a> {
    commits: i64,
    additions: i64,
    deletions: i64,
    /// One entry per commit; sorted and deduplicated at the end.
    authors: Vec<&'a str>,
    last_changed: i64,
}

/// Computes churn, co-change and ownership.
pub(crate) fn aggregate(
    commits: &[CommitRow],
    changes: &[FileChangeRow],
    settings: &AggregateSettings,
) -> Aggregates {
    let by_sha: HashMap<&str, &CommitRow> = commits.iter().map(|c| (c.sha.as_str(), c)).collect();
    let mut sorted: Vec<&FileChangeRow> = changes.iter().collect();
    sorted
        .sort_by(|a, b| (a.sha.as_str(), a.path.as_str()).cmp(&(b.sha.as_str(), b.path.as_str())));

    let mut out = Aggregates::default();
    let mut bots: HashMap<&str, bool> = HashMap::new();
    for c in commits {
        *bots.entry(c.author_id.as_str()).or_default() |= c.is_bot;
    }
    // Paths are interned: ids follow lexical order, so iterating ids gives sorted output and
    // (a < b) as ids is (path_a < path_b) as strings.
    let mut paths: Vec<&str> = changes.iter().map(|c| c.path.as_str()).collect();
    paths.sort_unstable();
    paths.dedup();
    let path_id = |p: &str| paths.binary_search(&p).unwrap_or_default();
    let mut churn: Vec<[Option<ChurnAcc<'_>>; 4]> = vec![Default::default(); paths.len()];
    let mut owners: Vec<Vec<&str>> = vec![Vec::new(); paths.len()];
    let mut per_path = vec![0i64; paths.len()];
    let mut pairs: HashMap<u64, i64> = HashMap::new();

    for group in sorted.chunk_by(|a, b| a.sha == b.sha) {
        let Some(commit) = by_sha.get(group[0].sha.as_str()) else {
            continue;
        };
        if commit.parents.len() > 1 && !settings.first_parent {
            out.merges_left_out += 1;
            continue;
        }
        let ids: Vec<usize> = group.iter().map(|r| path_id(&r.path)).collect();
        for (row, &id) in group.iter().zip(&ids) {
            for (w, (_, days)) in WINDOWS.iter().enumerate() {
                let since = |d: i64| settings.head_time.saturating_sub(d.saturating_mul(86_400));
                if days.is_some_and(|d| commit.committer_time < since(d)) {
                    continue;
                }
                let acc = churn[id][w].get_or_insert_with(|| ChurnAcc {
                    last_changed: commit.committer_time,
                    ..ChurnAcc::default()
                });
                acc.commits += 1;
                // Saturating: rows reused from a previous snapshot are data, and one that
                // claims i64::MAX lines must not overflow the sum (a panic, or a wrapped count).
                acc.additions = acc.additions.saturating_add(row.additions.unwrap_or(0));
                acc.deletions = acc.deletions.saturating_add(row.deletions.unwrap_or(0));
                acc.authors.push(commit.author_id.as_str());
                acc.last_changed = acc.last_changed.max(commit.committer_time);
            }
            owners[id].push(commit.author_id.as_str());
        }
        // The rows, not only the commit's own count, decide: rows reused from a previous
        // snapshot are data, and the pairs grow with the square of the rows.
        if commit.files_changed.max(ids.len() as i64) > i64::from(settings.cochange_max_files) {
            out.cochange_skipped_commits += 1;
            continue;
        }
        for (i, &a) in ids.iter().enumerate() {
            per_path[a] += 1;
            for &b in &ids[i + 1..] {
                let (lo, hi) = if a < b { (a, b) } else { (b, a) };
                *pairs.entry(((lo as u64) << 32) | hi as u64).or_default() += 1;
            }
        }
    }

    for (id, windows) in churn.into_iter().enumerate() {
        for (w, acc) in windows.into_iter().enumerate() {
            let Some(mut acc) = acc else { continue };
            acc.authors.sort_unstable();
            acc.authors.dedup();
            out.churn.push(ChurnRow {
                path: paths[id].to_string(),
                window: WINDOWS[w].0.to_string(),
                commits: acc.commits,
                additions: acc.additions,
                deletions: acc.deletions,
                authors: acc.authors.len() as i64,
                last_changed: acc.last_changed,
            });
        }
    }

    let mut kept: Vec<(u64, i64)> = pairs
        .into_iter()
        .filter(|&(_, shared)| shared >= i64::from(settings.cochange_min_shared.max(1)))
        .collect();
    kept.sort_unstable();
    out.cochange = kept
        .into_iter()
        .map(|(key, shared)| {
            let (a, b) = ((key >> 32) as usize, (key & 0xffff_ffff) as usize);
            let (ca, cb) = (per_path[a], per_path[b]);
            CochangeRow {
                path_a: paths[a].to_string(),
                path_b: paths[b].to_string(),
                shared_commits: shared,
                commits_a: ca,
                commits_b: cb,
                degree: shared as f64 / ca.min(cb) as f64,
            }
        })
        .collect();

    for (id, mut authors) in owners.into_iter().enumerate() {
        let total = authors.len() as i64;
        authors.sort_unstable();
        for run in authors.chunk_by(|a, b| a == b) {
            let n = run.len() as i64;
            out.ownership.push(OwnershipRow {
                path: paths[id].to_string(),
                author_id: run[0].to_string(),
                is_bot: bots.get(run[0]).copied().unwrap_or(false),
                commits: n,
                share: n as f64 / total as f64,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400;

    fn commit(sha: &str, t: i64, author: &str, parents: usize, files: i64) -> CommitRow {
        CommitRow {
            sha: sha.into(),
            parents: (0..parents).map(|i| format!("p{i}")).collect(),
            author_time: t,
            committer_time: t,
            author_id: author.into(),
            is_bot: author == "bot",
            files_changed: files,
            additions: 0,
            deletions: 0,
        }
    }

    fn change(sha: &str, path: &str, add: Option<i64>, del: Option<i64>) -> FileChangeRow {
        FileChangeRow {
            sha: sha.into(),
            path: path.into(),
            old_path: None,
            change: "M".into(),
            additions: add,
            deletions: del,
            is_binary: add.is_none(),
        }
    }

    fn settings(first_parent: bool) -> AggregateSettings {
        AggregateSettings {
            head_time: 1000 * DAY,
            first_parent,
            cochange_max_files: 3,
            cochange_min_shared: 2,
        }
    }

    /// A reused row is data: line counts no diff gives (a forged previous snapshot whose
    /// manifest matches its files) saturate rather than overflow.
    #[test]
    fn line_counts_past_i64_saturate() {
        let commits = vec![
            commit("c1", 1000 * DAY, "alice", 1, 1),
            commit("c2", 999 * DAY, "alice", 1, 1),
        ];
        let changes = vec![
            change("c1", "a", Some(i64::MAX), Some(i64::MAX - 1)),
            change("c2", "a", Some(2), Some(2)),
        ];
        let out = aggregate(&commits, &changes, &settings(true));
        assert!(!out.churn.is_empty());
        for row in &out.churn {
            assert_eq!(
                (row.additions, row.deletions),
                (i64::MAX, i64::MAX),
                "{row:?}"
            );
        }
    }

    #[test]
    fn churn_windows_cochange_and_ownership() {
        let commits = vec![
            commit("c1", 1000 * DAY, "alice", 1, 2),
            commit("c2", 950 * DAY, "bob", 1, 2),
            commit("c3", 800 * DAY, "alice", 1, 1),
            commit("m", 999 * DAY, "alice", 2, 2),
            commit("big", 990 * DAY, "bot", 1, 4),
        ];
        let changes = vec![
            change("c1", "a", Some(3), Some(1)),
            change("c1", "b", None, None),
            change("c2", "a", Some(2), Some(0)),
            change("c2", "b", Some(1), Some(1)),
            change("c3", "a", Some(10), Some(10)),
            change("m", "a", Some(100), Some(100)),
            change("m", "b", Some(100), Some(100)),
            change("big", "a", Some(1), Some(0)),
            change("big", "b", Some(1), Some(0)),
            change("big", "c", Some(1), Some(0)),
            change("big", "d", Some(1), Some(0)),
        ];
        let out = aggregate(&commits, &changes, &settings(false));
        assert_eq!(out.merges_left_out, 1);
        assert_eq!(out.cochange_skipped_commits, 1);
        let churn = |path: &str, w: &str| {
            out.churn
                .iter()
                .find(|r| r.path == path && r.window == w)
                .map(|r| {
                    (
                        r.commits,
                        r.additions,
                        r.deletions,
                        r.authors,
                        r.last_changed / DAY,
                    )
                })
        };
        // c1 and big are within 30 days; c2 within 90; c3 within 365.
        assert_eq!(churn("a", "30d"), Some((2, 4, 1, 2, 1000)));
        assert_eq!(churn("a", "90d"), Some((3, 6, 1, 3, 1000)));
        assert_eq!(churn("a", "365d"), Some((4, 16, 11, 3, 1000)));
        assert_eq!(churn("a", "all"), Some((4, 16, 11, 3, 1000)));
        assert_eq!(churn("b", "30d"), Some((2, 1, 0, 2, 1000)));
        assert_eq!(churn("d", "90d"), Some((1, 1, 0, 1, 990)));

        // a and b share c1 and c2 (m is a merge, big is too large).
        assert_eq!(out.cochange.len(), 1);
        let pair = &out.cochange[0];
        assert_eq!((pair.path_a.as_str(), pair.path_b.as_str()), ("a", "b"));
        assert_eq!(
            (pair.shared_commits, pair.commits_a, pair.commits_b),
            (2, 3, 2)
        );
        assert_eq!(pair.degree, 1.0);

        let own: Vec<(&str, &str, i64, f64, bool)> = out
            .ownership
            .iter()
            .filter(|r| r.path == "a")
            .map(|r| {
                (
                    r.path.as_str(),
                    r.author_id.as_str(),
                    r.commits,
                    r.share,
                    r.is_bot,
                )
            })
            .collect();
        assert_eq!(
            own,
            vec![
                ("a", "alice", 2, 0.5, false),
                ("a", "bob", 1, 0.25, false),
                ("a", "bot", 1, 0.25, true),
            ]
        );
    }

    #[test]
    fn first_parent_mode_counts_merges() {
        let commits = vec![commit("m", 1000 * DAY, "alice", 2, 1)];
        let changes = vec![change("m", "a", Some(1), Some(0))];
        let out = aggregate(&commits, &changes, &settings(true));
        assert_eq!(out.merges_left_out, 0);
        assert_eq!(out.churn.len(), 4);
        assert_eq!(out.ownership.len(), 1);
    }

    /// A commit whose own count is small but whose rows are many (rows reused from a
    /// previous snapshot are data) is left out of co-change by its rows: at the limit its pairs
    /// count, one row over it adds none.
    #[test]
    fn cochange_is_bounded_by_the_rows_of_a_commit_at_the_limit() {
        let files = |sha: &str, n: usize| -> Vec<FileChangeRow> {
            (0..n)
                .map(|i| change(sha, &format!("f{i:04}"), Some(1), Some(0)))
                .collect()
        };
        let s = settings(false);
        let limit = s.cochange_max_files as usize;
        let at = [
            commit("x", 1000 * DAY, "alice", 1, 1),
            commit("y", 999 * DAY, "bob", 1, 1),
        ];
        let changes: Vec<_> = [files("x", limit), files("y", limit)].concat();
        let out = aggregate(&at, &changes, &s);
        assert_eq!(out.cochange.len(), limit * (limit - 1) / 2);
        assert_eq!(out.cochange_skipped_commits, 0);
        let changes: Vec<_> = [files("x", 5000), files("y", 5000)].concat();
        let out = aggregate(&at, &changes, &s);
        assert!(out.cochange.is_empty());
        assert_eq!(out.cochange_skipped_commits, 2);
    }

    /// Commit times are whatever commits say: at the ends of `i64`, the windows saturate
    /// instead of overflowing.
    #[test]
    fn windows_saturate_at_the_ends_of_time() {
        for head_time in [i64::MIN, i64::MIN + DAY, i64::MAX] {
            let s = AggregateSettings {
                head_time,
                ..settings(false)
            };
            let commits = vec![commit("c", i64::MIN, "alice", 1, 1)];
            let changes = vec![change("c", "a", Some(1), Some(0))];
            let out = aggregate(&commits, &changes, &s);
            let windows: Vec<&str> = out.churn.iter().map(|r| r.window.as_str()).collect();
            let expected: &[&str] = if head_time == i64::MAX {
                &["all"]
            } else {
                &["30d", "90d", "365d", "all"]
            };
            assert_eq!(windows, expected, "{head_time}");
        }
    }
}
