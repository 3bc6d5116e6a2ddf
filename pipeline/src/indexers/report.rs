//! What `ckb index` reports: per indexer run its version, time, documents and what it could
//! not do; per language whether an indexer or tree-sitter covers it; and notes about the run.

use std::collections::BTreeSet;

use serde::Serialize;

/// How one indexer run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunStatus {
    /// A new index was written.
    Indexed,
    /// The index already describes HEAD of a clean checkout; not run again (`--force` reruns).
    UpToDate,
    /// The indexer is not installed (or does not run); tree-sitter covers its languages.
    Missing,
    /// The indexer has nothing it can index here (no project file, no compilation database).
    Skipped,
    /// It exited with an error, or wrote no usable index; its output was not used.
    Failed,
    /// It ran past the timeout and was killed; its output was not used.
    TimedOut,
    /// The run was cancelled (Ctrl-C) while it ran.
    Cancelled,
}

impl RunStatus {
    /// Whether this run counts as a failure for `--strict`.
    pub fn is_failure(self) -> bool {
        matches!(self, RunStatus::Failed | RunStatus::TimedOut)
    }
}

/// One indexer run (or one indexer that could not run).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunReport {
    /// The indexer.
    pub tool: String,
    /// Its version (`<tool> --version`), when it runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The folder it indexed, relative to the repository (`.` for the root).
    pub project: String,
    /// The languages it covers that the scan found.
    pub languages: Vec<String>,
    /// How it ended.
    pub status: RunStatus,
    /// Wall time of the run.
    pub seconds: f64,
    /// Documents in the index it wrote.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub documents: Option<i64>,
    /// The index, relative to the repository.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<String>,
    /// The command run (its working folder relative to the repository, then the command line).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The command that installs it (a missing indexer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub install: Option<String>,
    /// Why it failed, was skipped or is missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The last lines it printed on stderr (stdout when stderr was empty), for a failure.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub output_tail: Vec<String>,
    /// What the user should know about this run (its quirks, what the index lacks).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// A language the scan found.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LanguageEntry {
    /// The scan's language name.
    pub language: String,
    /// Its files.
    pub files: i64,
    /// Its SCIP indexer, if ckb knows one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indexer: Option<String>,
    /// Whether tree-sitter extracts its symbols when no index covers it.
    pub tree_sitter: bool,
    /// Whether `--languages` selected it (always, without `--languages`).
    pub selected: bool,
}

/// Something about the whole run.
#[derive(Clone, Debug, Serialize)]
pub struct Notice {
    /// A stable code: `no-indexer`, `worktree-changed`, `dirty-worktree`, `no-commit`,
    /// `language-absent`.
    pub code: String,
    /// What it means and what to do.
    pub message: String,
}

/// What `ckb index` did.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexReport {
    /// The commit the indexes describe (written to each `<index>.commit`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head_commit: Option<String>,
    /// Whether the working tree had changes when the indexers read it.
    pub dirty: bool,
    /// Every code language the scan found, most files first.
    pub languages: Vec<LanguageEntry>,
    /// Every indexer run, in catalog order, then run order.
    pub runs: Vec<RunReport>,
    /// Notes about the whole run.
    pub notices: Vec<Notice>,
    /// Paths the indexers added or changed in the working tree (a snapshot will be dirty).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub worktree_changed: Vec<String>,
    /// Indexes of earlier runs removed because their indexer ran and no longer writes them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<String>,
    /// Whether the run was cancelled.
    pub cancelled: bool,
}

impl IndexReport {
    /// Runs that failed or timed out.
    pub fn failures(&self) -> impl Iterator<Item = &RunReport> {
        self.runs.iter().filter(|r| r.status.is_failure())
    }

    /// Indexers of languages named with `--languages` that are not installed.
    pub fn missing_asked(&self, asked: &[String]) -> impl Iterator<Item = &RunReport> {
        let asked: BTreeSet<String> = asked.iter().cloned().collect();
        self.runs.iter().filter(move |r| {
            r.status == RunStatus::Missing && r.languages.iter().any(|l| asked.contains(l))
        })
    }
}

/// One word for a status.
pub fn status_word(status: RunStatus) -> &'static str {
    match status {
        RunStatus::Indexed => "indexed",
        RunStatus::UpToDate => "up to date",
        RunStatus::Missing => "not installed",
        RunStatus::Skipped => "skipped",
        RunStatus::Failed => "failed",
        RunStatus::TimedOut => "timed out",
        RunStatus::Cancelled => "cancelled",
    }
}

/// `n` and a noun, plural unless `n` is 1 (`1 document`, `2 documents`).
pub fn count(n: i64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// A one-line summary of a run for the progress display.
pub fn summary(r: &RunReport) -> String {
    match (r.status, r.documents) {
        (RunStatus::Indexed, Some(d)) => {
            format!("indexed {} in {:.1} s", count(d, "document"), r.seconds)
        }
        _ => format!(
            "{}{}",
            status_word(r.status),
            r.reason
                .as_deref()
                .map(|x| format!(": {x}"))
                .unwrap_or_default()
        ),
    }
}
