//! History objects the repository does not hold: what a blobless, treeless or damaged clone costs
//! the git stage, how the stage says so, and `--history-fetch-missing`.
//!
//! Commits, authorship and the files a commit touched come from commits and trees; only line
//! counts need blobs. So a blobless clone gives every row with null line counts where a blob is
//! missing, a treeless clone gives commits without file changes, and a damaged repository gives
//! the same per object it lost. The stage reports the counts, warnings and a completeness reason
//! named after the kind of clone (`blobless-clone`, `treeless-clone`, `partial-clone`, or
//! `missing-objects` when no filter explains the gap — the clone is then `damaged`).
//! Warnings never quote git's error text (it can hold absolute paths); they name commits and
//! object ids.
//!
//! `--history-fetch-missing` runs the user's own `git` (with its configuration and credentials)
//! against the promisor remote, never by default: after a first pass has found exactly which
//! trees and blobs the window's diffs lack, one `git fetch --stdin` brings them all, and the
//! commits that lacked something are diffed again. A treeless clone needs a second round (its
//! trees come without blobs); there are at most [`MAX_ROUNDS`]. Only the counts reach the
//! snapshot; the time goes to `run.json`.

use std::collections::BTreeSet;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use gix::ObjectId;
use output_schema::manifest::{Completeness, Warning};

use super::diff::{self, DiffInput, DiffOutput};
use crate::repo_state::promisor_remote;
use crate::{NoProgress, PipelineError};

/// Fetch rounds at most: trees (a treeless clone), then their blobs, then anything left.
const MAX_ROUNDS: usize = 3;

/// What `--history-fetch-missing` did.
#[derive(Debug, Default)]
pub(crate) struct Fetched {
    /// Object ids asked for.
    pub requested: i64,
    /// Of those, the ones the repository holds afterwards.
    pub fetched: i64,
    /// Wall time of the `git fetch` runs (for `run.json` only).
    pub time: Option<Duration>,
}

/// Fetches the trees and blobs the diffs in `outputs` lacked and diffs those commits again.
pub(crate) fn fetch_and_rediff(
    repo: &gix::Repository,
    inputs: &[DiffInput],
    outputs: &mut [DiffOutput],
    warnings: &mut Vec<Warning>,
) -> Result<Fetched, PipelineError> {
    let mut report = Fetched::default();
    // A missing parent commit is not fetched: with its trees would come its history.
    let parents: BTreeSet<ObjectId> = inputs
        .iter()
        .filter_map(|i| i.first_parent.map(|p| p.0))
        .collect();
    let wanted = |outputs: &[DiffOutput]| -> BTreeSet<ObjectId> {
        outputs
            .iter()
            .flat_map(|o| o.gaps.missing.iter().copied())
            .filter(|id| !parents.contains(id))
            .collect()
    };
    if wanted(outputs).is_empty() {
        return Ok(report);
    }
    let Some(remote) = promisor_remote(repo) else {
        warnings.push(Warning {
            code: "fetch-missing-skipped".into(),
            path: None,
            message: "--history-fetch-missing: no promisor remote to fetch from (this is not a \
                      partial clone); nothing was fetched"
                .into(),
        });
        return Ok(report);
    };
    let mut requested: BTreeSet<ObjectId> = BTreeSet::new();
    let mut time = Duration::ZERO;
    for _ in 0..MAX_ROUNDS {
        let ids: Vec<ObjectId> = wanted(outputs)
            .into_iter()
            .filter(|id| !requested.contains(id))
            .collect();
        if ids.is_empty() {
            break;
        }
        requested.extend(ids.iter().copied());
        let clock = Instant::now();
        let result = run_git_fetch(repo, &remote.name, &ids);
        time += clock.elapsed();
        if let Err(why) = result {
            warnings.push(Warning {
                code: "fetch-missing-failed".into(),
                path: None,
                message: format!(
                    "--history-fetch-missing: `git fetch {}` of {} object(s) failed ({why}); run \
                     it yourself to see why; the history is built from what the clone holds",
                    remote.name,
                    ids.len()
                ),
            });
            break;
        }
        let again: Vec<usize> = (0..outputs.len())
            .filter(|&i| outputs[i].gaps.any())
            .collect();
        let redo: Vec<DiffInput> = again.iter().map(|&i| inputs[i].clone()).collect();
        let redone = diff::diff_commits(repo, &redo, &NoProgress)?;
        for (i, out) in again.into_iter().zip(redone) {
            outputs[i] = out;
        }
    }
    let still_missing: BTreeSet<ObjectId> = outputs
        .iter()
        .flat_map(|o| o.gaps.missing.iter().copied())
        .collect();
    report.requested = requested.len() as i64;
    report.fetched = requested.difference(&still_missing).count() as i64;
    report.time = Some(time);
    Ok(report)
}

/// `git fetch <remote> --stdin` of exact object ids, as git itself fetches a partial clone's
/// missing objects (no tags, no refs or FETCH_HEAD written, no negotiation, trees without blobs).
fn run_git_fetch(repo: &gix::Repository, remote: &str, ids: &[ObjectId]) -> Result<(), String> {
    let mut child = Command::new("git")
        .arg("--git-dir")
        .arg(repo.git_dir())
        .args([
            "-c",
            "fetch.negotiationAlgorithm=noop",
            "fetch",
            "--quiet",
            "--no-tags",
            "--no-write-fetch-head",
            "--recurse-submodules=no",
            "--filter=blob:none",
            "--stdin",
            // The remote name comes from the repository's configuration: never an option.
            "--",
            remote,
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    let mut list = String::with_capacity(ids.len() * 41);
    for id in ids {
        list.push_str(&id.to_string());
        list.push('\n');
    }
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(list.as_bytes())
            .map_err(|e| format!("cannot pass the object ids to git: {e}"))?;
    }
    let status = child
        .wait()
        .map_err(|e| format!("git did not finish: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(match status.code() {
            Some(code) => format!("git exited with status {code}"),
            None => "git was killed by a signal".into(),
        })
    }
}

/// What the window lacked, over all commits diffed now.
#[derive(Debug, Default)]
pub(crate) struct Summary {
    /// Changes without line counts because a blob is unavailable.
    pub changes_without_lines: i64,
    /// Commits with at least one such change.
    pub commits_without_lines: i64,
    /// Commits whose file changes are unknown (a tree or the parent cannot be read).
    pub commits_changes_unknown: i64,
    /// Commits whose rename detection lacked a blob.
    pub commits_renames_unscored: i64,
    /// Distinct objects not in the repository.
    pub objects_missing: i64,
    /// Distinct objects present but unreadable.
    pub objects_unreadable: i64,
    /// Commits the walk reached but could not read.
    pub commits_unreadable: i64,
}

impl Summary {
    /// Whether the history lacks anything.
    pub fn any(&self) -> bool {
        self.changes_without_lines > 0
            || self.commits_changes_unknown > 0
            || self.commits_renames_unscored > 0
            || self.objects_missing > 0
            || self.objects_unreadable > 0
            || self.commits_unreadable > 0
    }
}

/// Summarises the gaps of the commits diffed now (`diffed`: commit and output) and of the walk,
/// and adds the warnings. `kind` is the clone's kind (`repoState.cloneState.kind`).
pub(crate) fn summarize(
    diffed: &[(ObjectId, &DiffOutput)],
    unreadable_commits: &[(ObjectId, String)],
    kind: &str,
    warnings: &mut Vec<Warning>,
) -> Summary {
    let partial = is_partial(kind);
    let mut s = Summary {
        commits_unreadable: unreadable_commits.len() as i64,
        ..Summary::default()
    };
    let (mut missing, mut unreadable) = (BTreeSet::new(), BTreeSet::new());
    for (sha, out) in diffed {
        let gaps = &out.gaps;
        s.changes_without_lines += gaps.changes_without_lines;
        s.commits_without_lines += i64::from(gaps.changes_without_lines > 0);
        s.commits_changes_unknown += i64::from(gaps.changes_unknown);
        s.commits_renames_unscored += i64::from(gaps.renames_unscored);
        missing.extend(gaps.missing.iter().copied());
        unreadable.extend(gaps.unreadable.iter().map(|u| u.0));
        // A partial clone lacks objects by design: one summary says it. Elsewhere each commit
        // that lost something is named.
        if partial || !gaps.any() {
            continue;
        }
        let objects = gaps
            .missing
            .iter()
            .map(|id| format!("{id} (missing)"))
            .chain(
                gaps.unreadable
                    .iter()
                    .map(|u| format!("{} (unreadable)", u.0)),
            )
            .collect::<Vec<_>>()
            .join(", ");
        let effect = if gaps.changes_unknown {
            "its file changes are unknown".to_string()
        } else {
            format!(
                "{} change(s) without line counts",
                gaps.changes_without_lines
            )
        };
        warnings.push(Warning {
            code: "missing-object".into(),
            path: None,
            message: format!("commit {sha}: object {objects}: {effect}"),
        });
    }
    s.objects_missing = missing.len() as i64;
    s.objects_unreadable = unreadable.len() as i64;
    for (id, why) in unreadable_commits {
        let why = if why == "is missing" {
            "is missing"
        } else {
            "cannot be read"
        };
        warnings.push(Warning {
            code: "missing-commit".into(),
            path: None,
            message: format!(
                "commit {id} {why}: it and the history behind it are not in the window"
            ),
        });
    }
    let why = if partial {
        format!("they are not in this {kind} partial clone (`ckb snapshot --history-fetch-missing` fetches them)")
    } else {
        "they are missing or unreadable although the repository is not a partial clone (`git fsck --full` lists the damage)".to_string()
    };
    if s.changes_without_lines > 0 {
        warnings.push(Warning {
            code: "lines-unavailable".into(),
            path: None,
            message: format!(
                "{} file change(s) in {} commit(s) have no line counts: their blobs are \
                 unavailable; {why}",
                s.changes_without_lines, s.commits_without_lines
            ),
        });
    }
    if s.commits_changes_unknown > 0 {
        warnings.push(Warning {
            code: "changes-unavailable".into(),
            path: None,
            message: format!(
                "{} commit(s) have no file changes: their trees are unavailable; {why}",
                s.commits_changes_unknown
            ),
        });
    }
    s
}

/// Whether a clone kind is a partial clone.
pub(crate) fn is_partial(kind: &str) -> bool {
    matches!(kind, "blobless" | "treeless" | "partial")
}

/// The completeness the gaps leave, if any: lines are half of what a change says, so changes
/// without them cost up to 0.5; commits without file changes cost up to 0.75.
pub(crate) fn completeness(
    s: &Summary,
    kind: &str,
    changes: usize,
    commits: usize,
) -> Option<Completeness> {
    if !s.any() {
        return None;
    }
    let share = |n: i64, of: usize| n as f64 / of.max(1) as f64;
    let score = 1.0
        - 0.5 * share(s.changes_without_lines, changes)
        - 0.75 * share(s.commits_changes_unknown, commits);
    let reason = match kind {
        "blobless" | "treeless" | "partial" => format!("{kind}-clone"),
        _ => "missing-objects".into(),
    };
    Some(Completeness {
        score: score.clamp(0.0, 1.0),
        reason,
    })
}
