//! `ckb index`: runs the installed SCIP indexers over a repository and writes their indexes where
//! `ckb snapshot` finds them (`.ckb/<tool>.scip`, with the `<index>.commit` sidecar naming HEAD).
//!
//! The run: the scan stage lists the repository's files and their languages (the same walk, the
//! same ignores as a snapshot); each language with an indexer in
//! [`output_schema::indexers::INDEXERS`] selects it; each selected indexer is looked up on `PATH`
//! and asked for its version; its driver (one file per indexer: [`rust_analyzer`], [`typescript`],
//! [`python`], [`go`], [`java`], [`clang`]) plans its runs from the scan (which projects, which
//! flags); each run writes into a temporary file beside its index, and only an index that exited
//! 0, decodes, and describes files of the repository replaces the old one ([`output`]). An
//! indexer that is missing, crashes or times out is reported, never fatal: its partial output is
//! deleted and tree-sitter covers its languages at snapshot time. Indexers run `jobs` at a time,
//! each in its own process group ([`process`]).
//!
//! Nothing here prints: progress goes through [`IndexProgress`], the outcome is an
//! [`IndexReport`] the binary renders.

mod clang;
mod go;
mod java;
mod job;
mod output;
pub mod process;
mod projects;
mod python;
mod report;
mod rust_analyzer;
mod typescript;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use output_schema::indexers::{IndexerInfo, INDEXERS, INDEX_DIR};
use output_schema::tables::FileRow;
use output_schema::Stage;

use crate::plan::Plan;
use crate::repo_state;
use crate::syntax::lang::Lang;
use crate::{scan, PipelineError, Progress, SnapshotOptions};
use job::run_jobs;
use projects::Context;
pub use report::{count, status_word, IndexReport, LanguageEntry, Notice, RunReport, RunStatus};

/// What `ckb index` is asked to do.
#[derive(Clone, Debug)]
pub struct IndexOptions {
    /// The repository (or folder).
    pub root: PathBuf,
    /// The snapshot store (`--out`, `CKB_STORE`), kept out of the scan like a snapshot does.
    pub out: Option<PathBuf>,
    /// Only the indexers of these scan languages (`--languages`); `None`: every language found.
    pub languages: Option<Vec<String>>,
    /// How long one indexer run may take before its process group is killed.
    pub timeout: Duration,
    /// Indexers run at once.
    pub jobs: usize,
    /// Run indexers whose index already describes HEAD of a clean checkout.
    pub force: bool,
    /// Where ckb may keep caches between runs (rust-analyzer's cargo target folder); `None`: the
    /// indexers' own defaults.
    pub cache_dir: Option<PathBuf>,
    /// Set from elsewhere (Ctrl-C) to stop every running indexer.
    pub cancel: Arc<AtomicBool>,
}

/// Receives progress events from the indexer runs (besides the scan's, through [`Progress`]).
/// Called from the worker threads that run the indexers.
pub trait IndexProgress: Progress {
    /// A run starts (`run` is `tool` or `tool@label`).
    fn run_started(&self, run: &str, project: &str);
    /// The newest line a running indexer printed.
    fn run_output(&self, run: &str, line: &str);
    /// A run ended, with a one-line summary.
    fn run_finished(&self, run: &str, summary: &str);
}

impl IndexProgress for crate::NoProgress {
    fn run_started(&self, _: &str, _: &str) {}
    fn run_output(&self, _: &str, _: &str) {}
    fn run_finished(&self, _: &str, _: &str) {}
}

/// Every scan language a user may name with `--languages`: the code languages the scan knows
/// (with an indexer, a tree-sitter grammar, or neither).
pub fn known_languages() -> Vec<&'static str> {
    let mut names: BTreeSet<&'static str> = INDEXERS
        .iter()
        .flat_map(|i| i.languages.iter().copied())
        .collect();
    names.extend(Lang::ALL.iter().map(|l| l.name()));
    names.extend(OTHER_CODE.iter().copied());
    names.into_iter().collect()
}

/// Scan languages that are code (a language with neither an indexer nor a grammar but a
/// programming language all the same is reported as uncovered; data and markup are not).
const OTHER_CODE: &[&str] = &[
    "csharp", "swift", "ruby", "php", "dart", "lua", "shell", "perl", "kotlin", "scala",
];

/// Runs the indexers over `opts.root` and writes their indexes.
pub fn run(
    opts: &IndexOptions,
    progress: &dyn IndexProgress,
) -> Result<IndexReport, PipelineError> {
    if opts.jobs == 0 {
        return Err(PipelineError::InvalidParameter {
            name: "--jobs".into(),
            message: "must be at least 1".into(),
        });
    }
    if opts.timeout.is_zero() {
        return Err(PipelineError::InvalidParameter {
            name: "--timeout".into(),
            message: "must be at least 1 second".into(),
        });
    }
    let asked = check_languages(opts.languages.as_deref())?;
    // The snapshot's own plan, for its root, config, store and scan settings; standard privacy,
    // since indexing stores nothing (an anonymized config needs no salt here).
    let plan = Plan::resolve(&SnapshotOptions {
        root: opts.root.clone(),
        out: opts.out.clone(),
        privacy: Some("standard".into()),
        stages: Some(vec![Stage::Scan]),
        ..SnapshotOptions::default()
    })?;
    let root = plan.root.clone();
    let before = plan
        .repo
        .as_ref()
        .map(|repo| repo_state::status_of(repo, &root, &plan.exclusions))
        .transpose()?;
    let scanned = scan::scan(&root, &plan.scan_config, progress)?;
    let mut report = IndexReport {
        head_commit: before.as_ref().and_then(|s| s.state.head_commit.clone()),
        dirty: before.as_ref().is_some_and(|s| s.state.dirty),
        languages: languages_of(&scanned.files, asked.as_ref()),
        runs: Vec::new(),
        notices: Vec::new(),
        worktree_changed: Vec::new(),
        removed: Vec::new(),
        cancelled: false,
    };
    report.notices = run_notices(&report, plan.repo.is_some(), asked.as_ref());

    let selected: Vec<&'static IndexerInfo> = INDEXERS
        .iter()
        .filter(|i| {
            report
                .languages
                .iter()
                .any(|l| l.selected && i.languages.contains(&l.language.as_str()))
        })
        .collect();
    let scratch = tempfile::Builder::new()
        .prefix("ckb-index-")
        .tempdir()
        .map_err(|e| PipelineError::io(std::env::temp_dir(), e))?;
    let index_dir = root.join(INDEX_DIR);
    let ctx = Context::new(
        &root,
        &scanned.files,
        scratch.path(),
        opts.cache_dir.as_deref(),
    );
    let head = Head {
        commit: report.head_commit.as_deref(),
        state: before.as_ref().map(|s| s.state.repo_state_id.as_str()),
    };
    let jobs = run_jobs(
        &selected,
        opts,
        &ctx,
        &index_dir,
        &head,
        &report.languages,
        progress,
    );
    for job in jobs {
        report.removed.extend(job.removed);
        report.runs.extend(job.runs);
    }
    report.cancelled = opts.cancel.load(Ordering::Relaxed);

    if let (Some(repo), Some(before)) = (plan.repo.as_ref(), before.as_ref()) {
        let after = repo_state::status_of(repo, &root, &plan.exclusions)?;
        report.worktree_changed = before.changed_since(&after);
        if !report.worktree_changed.is_empty() {
            report.notices.push(Notice {
                code: "worktree-changed".into(),
                message: format!(
                    "the indexers added or changed {} path(s) in the working tree ({}): a \
                     snapshot now describes a dirty state and marks these indexes current-dirty \
                     (INDEX_STALE); ignore them in .gitignore",
                    report.worktree_changed.len(),
                    preview(&report.worktree_changed)
                ),
            });
        }
    }
    Ok(report)
}

/// `--languages`, checked: every name must be a language ckb knows.
fn check_languages(asked: Option<&[String]>) -> Result<Option<BTreeSet<String>>, PipelineError> {
    let Some(asked) = asked else {
        return Ok(None);
    };
    let known = known_languages();
    let mut out = BTreeSet::new();
    for name in asked {
        let name = name.trim().to_ascii_lowercase();
        if !known.contains(&name.as_str()) {
            return Err(PipelineError::InvalidParameter {
                name: "--languages".into(),
                message: format!("unknown language {name:?}; known: {}", known.join(", ")),
            });
        }
        out.insert(name);
    }
    Ok(Some(out))
}

/// The code languages of the scan, most files first (then by name).
fn languages_of(files: &[FileRow], asked: Option<&BTreeSet<String>>) -> Vec<LanguageEntry> {
    let mut counts: BTreeMap<&str, i64> = BTreeMap::new();
    for f in files {
        if let Some(l) = f.language.as_deref() {
            *counts.entry(l).or_default() += 1;
        }
    }
    let mut out: Vec<LanguageEntry> = counts
        .into_iter()
        .filter_map(|(language, files)| {
            let indexer = output_schema::indexers::for_language(language).map(|i| i.tool);
            let tree_sitter = Lang::from_name(language).is_some();
            let code = indexer.is_some() || tree_sitter || OTHER_CODE.contains(&language);
            code.then(|| LanguageEntry {
                language: language.to_string(),
                files,
                indexer: indexer.map(str::to_string),
                tree_sitter,
                selected: asked.is_none_or(|a| a.contains(language)),
            })
        })
        .collect();
    out.sort_by(|a, b| b.files.cmp(&a.files).then(a.language.cmp(&b.language)));
    out
}

/// Notices known before any indexer runs.
fn run_notices(report: &IndexReport, git: bool, asked: Option<&BTreeSet<String>>) -> Vec<Notice> {
    let mut notices = Vec::new();
    for l in report
        .languages
        .iter()
        .filter(|l| l.selected && l.indexer.is_none())
    {
        notices.push(Notice {
            code: "no-indexer".into(),
            message: if l.tree_sitter {
                format!(
                    "{} ({}): no SCIP indexer; tree-sitter will cover it",
                    l.language,
                    count(l.files, "file")
                )
            } else {
                format!(
                    "{} ({}): no SCIP indexer and no tree-sitter grammar; ckb records its \
                     files and history only",
                    l.language,
                    count(l.files, "file")
                )
            },
        });
    }
    for name in asked.into_iter().flatten() {
        if !report.languages.iter().any(|l| &l.language == name) {
            notices.push(Notice {
                code: "language-absent".into(),
                message: format!("--languages {name}: the scan found no {name} file"),
            });
        }
    }
    if !git {
        notices.push(Notice {
            code: "no-commit".into(),
            message: "not a git repository: the indexes get no `.commit` sidecar, and a \
                      snapshot records their freshness as unknown"
                .into(),
        });
    } else if report.head_commit.is_none() {
        notices.push(Notice {
            code: "no-commit".into(),
            message: "the repository has no commit yet: the indexes get no `.commit` sidecar"
                .into(),
        });
    } else if report.dirty {
        notices.push(Notice {
            code: "dirty-worktree".into(),
            message: "the working tree has uncommitted changes: the indexes describe them, and a \
                      snapshot marks them current-dirty (INDEX_STALE) until the changes are \
                      committed and `ckb index` runs again"
                .into(),
        });
    }
    notices
}

/// At most three paths, then how many more.
fn preview(paths: &[String]) -> String {
    let mut s = paths.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
    if paths.len() > 3 {
        s.push_str(&format!(", … {} more", paths.len() - 3));
    }
    s
}

/// The state the indexes describe.
pub(crate) struct Head<'a> {
    /// HEAD's commit, if any (the sidecar's first line).
    pub commit: Option<&'a str>,
    /// The `repoStateId` of the working tree (the sidecar's `state` line): an index is up to date
    /// only for exactly the state it was built from.
    pub state: Option<&'a str>,
}
