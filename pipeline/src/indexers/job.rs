//! One indexer's job: find it, plan its runs through its driver, run each into a temporary file,
//! keep only an index that is good, and clear away its indexes that no run writes any more.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Mutex;
use std::time::Instant;

use output_schema::indexers::{IndexerInfo, INDEX_DIR};

use super::process::{self, Ending, Spawn};
use super::report::{status_word, summary, LanguageEntry, RunReport, RunStatus};
use super::{
    clang, go, java, output, projects, python, rust_analyzer, typescript, Context, Head,
    IndexOptions, IndexProgress,
};
use crate::syntax::lang::Lang;

/// What one indexer's job produced.
pub(super) struct JobOutcome {
    pub(super) runs: Vec<RunReport>,
    pub(super) removed: Vec<String>,
}

/// Runs each selected indexer's job, `opts.jobs` at a time; outcomes come back in catalog order.
pub(super) fn run_jobs(
    selected: &[&'static IndexerInfo],
    opts: &IndexOptions,
    ctx: &Context<'_>,
    index_dir: &Path,
    head: &Head<'_>,
    languages: &[LanguageEntry],
    progress: &dyn IndexProgress,
) -> Vec<JobOutcome> {
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<Option<JobOutcome>>> =
        Mutex::new((0..selected.len()).map(|_| None).collect());
    let workers = opts.jobs.min(selected.len()).max(1);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = {
                    let Ok(mut n) = next.lock() else { return };
                    let i = *n;
                    *n += 1;
                    i
                };
                let Some(info) = selected.get(i) else { return };
                let job = Job {
                    info,
                    opts,
                    ctx,
                    index_dir,
                    head,
                    languages: languages
                        .iter()
                        .filter(|l| info.languages.contains(&l.language.as_str()))
                        .map(|l| l.language.clone())
                        .collect(),
                    progress,
                };
                let outcome = job.run();
                if let Ok(mut r) = results.lock() {
                    r[i] = Some(outcome);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}

/// One indexer over the repository: its probe, its runs in order, then the cleanup of its old
/// indexes.
struct Job<'a> {
    info: &'static IndexerInfo,
    opts: &'a IndexOptions,
    ctx: &'a Context<'a>,
    index_dir: &'a Path,
    head: &'a Head<'a>,
    languages: Vec<String>,
    progress: &'a dyn IndexProgress,
}

/// A run an indexer's driver planned.
pub(super) struct RunSpec {
    /// `None` for the indexer's main index; else the label in its file name.
    pub label: Option<String>,
    /// The folder it runs in and indexes, relative to the repository (`.`: the root).
    pub project: String,
    /// Its arguments; [`Arg::Output`] stands for the path the index is written to.
    pub args: Vec<Arg>,
    /// Variables set on top of ckb's environment.
    pub env: Vec<(OsString, OsString)>,
    /// What the report says about this run.
    pub notes: Vec<String>,
}

/// One argument of an indexer command.
pub(super) enum Arg {
    /// As it is.
    Plain(OsString),
    /// The path the index is written to.
    Output,
    /// The path the index is written to, after a prefix (`--index-output-path=`).
    OutputAfter(&'static str),
}

impl Arg {
    pub(super) fn plain(s: impl Into<OsString>) -> Arg {
        Arg::Plain(s.into())
    }
}

/// What a driver plans for the repository.
pub(super) enum Steps {
    /// These runs, in order.
    Run(Vec<RunSpec>),
    /// Nothing the indexer can do here, and why.
    Cannot(String),
}

impl Job<'_> {
    fn run(&self) -> JobOutcome {
        let tool = self.info.tool;
        let probe = projects::probe(tool);
        let (program, version) = match probe {
            Ok(found) => found,
            Err(why) => {
                return JobOutcome {
                    runs: vec![self.not_run(RunStatus::Missing, why, true)],
                    removed: Vec::new(),
                }
            }
        };
        let specs = match plan(tool, self.ctx) {
            Steps::Run(specs) => specs,
            Steps::Cannot(why) => {
                let mut r = self.not_run(RunStatus::Skipped, why, false);
                r.version = Some(version);
                return JobOutcome {
                    runs: vec![r],
                    removed: Vec::new(),
                };
            }
        };
        let mut runs = Vec::new();
        let mut written = Vec::new();
        let mut indexed = BTreeSet::new();
        for spec in specs {
            let (report, produced) = self.one(&program, &version, spec);
            if let Some(p) = produced {
                indexed.extend(p.paths);
                written.push(p.file_name);
            }
            runs.push(report);
        }
        if !self.opts.cancel.load(Ordering::Relaxed) {
            let failed: Vec<String> = runs
                .iter()
                .filter(|r| r.status.is_failure())
                .map(|r| r.project.clone())
                .collect();
            match follow_up(tool, self.ctx, &indexed, &failed) {
                Ok(Some(spec)) => {
                    let (report, produced) = self.one(&program, &version, spec);
                    if let Some(p) = produced {
                        written.push(p.file_name);
                    }
                    runs.push(report);
                }
                Ok(None) => {}
                Err(why) => {
                    if let Some(last) = runs.last_mut() {
                        last.notes.push(why);
                    }
                }
            }
        }
        // Old indexes of this indexer that this run no longer writes (a project that moved, a
        // second pass no longer needed) would be read as stale; they go once every run worked.
        let removed = if runs
            .iter()
            .all(|r| matches!(r.status, RunStatus::Indexed | RunStatus::UpToDate))
        {
            output::prune(self.index_dir, tool, &written)
        } else {
            Vec::new()
        };
        JobOutcome { runs, removed }
    }

    /// The report of an indexer that does not run at all.
    fn not_run(&self, status: RunStatus, reason: String, install: bool) -> RunReport {
        let info = self.info;
        let covered: Vec<String> = self
            .languages
            .iter()
            .map(|l| {
                if Lang::from_name(l).is_some() {
                    format!("tree-sitter will cover {l}")
                } else {
                    format!("no tree-sitter grammar for {l}: ckb records its files only")
                }
            })
            .collect();
        self.progress
            .run_finished(info.tool, &format!("{}: {reason}", status_word(status)));
        RunReport {
            tool: info.tool.into(),
            version: None,
            project: ".".into(),
            languages: self.languages.clone(),
            status,
            seconds: 0.0,
            documents: None,
            index: None,
            command: None,
            install: install.then(|| info.install.to_string()),
            reason: Some(reason),
            output_tail: Vec::new(),
            notes: covered,
        }
    }

    /// One planned run: up to date, or run into a temporary file that replaces the index only
    /// when it is good.
    fn one(
        &self,
        program: &Path,
        version: &str,
        spec: RunSpec,
    ) -> (RunReport, Option<output::Produced>) {
        let tool = self.info.tool;
        let file_name = output_schema::indexers::index_file_name(tool, spec.label.as_deref());
        let run_name = file_name.trim_end_matches(".scip").to_string();
        let final_path = self.index_dir.join(&file_name);
        let cwd = if spec.project == "." {
            self.ctx.root.to_path_buf()
        } else {
            self.ctx.root.join(&spec.project)
        };
        let mut report = RunReport {
            tool: tool.into(),
            version: Some(version.to_string()),
            project: spec.project.clone(),
            languages: self.languages.clone(),
            status: RunStatus::Failed,
            seconds: 0.0,
            documents: None,
            index: Some(format!("{INDEX_DIR}/{file_name}")),
            command: Some(display_command(&spec, program, &file_name)),
            install: None,
            reason: None,
            output_tail: Vec::new(),
            notes: spec.notes.clone(),
        };
        if self.opts.cancel.load(Ordering::Relaxed) {
            report.status = RunStatus::Cancelled;
            report.index = None;
            return (report, None);
        }
        if !self.opts.force && output::is_current(&final_path, self.head) {
            if let Ok(produced) = output::inspect(&final_path, &spec.project, self.ctx, &file_name)
            {
                report.status = RunStatus::UpToDate;
                report.documents = Some(produced.documents);
                self.progress.run_finished(
                    &run_name,
                    &format!("up to date: {}", report.index.as_deref().unwrap_or("")),
                );
                return (report, Some(produced));
            }
        }
        self.progress.run_started(&run_name, &spec.project);
        let outcome = self.execute(program, &spec, &cwd, &final_path, &file_name, &run_name);
        report.seconds = (outcome.seconds * 1000.0).round() / 1000.0;
        report.status = outcome.status;
        report.reason = outcome.reason;
        report.output_tail = outcome.tail;
        report.documents = outcome.produced.as_ref().map(|p| p.documents);
        if outcome.produced.is_none() {
            report.index = None;
        }
        self.progress.run_finished(&run_name, &summary(&report));
        (report, outcome.produced)
    }

    fn execute(
        &self,
        program: &Path,
        spec: &RunSpec,
        cwd: &Path,
        final_path: &Path,
        file_name: &str,
        run_name: &str,
    ) -> Executed {
        let started = Instant::now();
        let failed = |status, reason: String, tail: Vec<String>| Executed {
            status,
            reason: Some(reason),
            tail,
            produced: None,
            seconds: started.elapsed().as_secs_f64(),
        };
        let made = std::fs::create_dir_all(self.index_dir);
        let temp = match made.and_then(|()| output::temp_beside(final_path)) {
            Ok(t) => t,
            Err(e) => {
                return failed(
                    RunStatus::Failed,
                    format!("cannot create a temporary file in {INDEX_DIR}/: {e}"),
                    Vec::new(),
                )
            }
        };
        let spawn = Spawn {
            program: program.to_path_buf(),
            args: spec
                .args
                .iter()
                .map(|a| match a {
                    Arg::Plain(s) => s.clone(),
                    Arg::Output => temp.path().as_os_str().to_owned(),
                    Arg::OutputAfter(prefix) => {
                        let mut s = OsString::from(prefix);
                        s.push(temp.path().as_os_str());
                        s
                    }
                })
                .collect(),
            cwd: cwd.to_path_buf(),
            env: spec.env.clone(),
        };
        let finished = process::run(&spawn, self.opts.timeout, &self.opts.cancel, &|line| {
            self.progress.run_output(run_name, line)
        });
        let seconds = finished.elapsed.as_secs_f64();
        let with_time = |mut e: Executed| {
            e.seconds = seconds;
            e
        };
        match finished.ending {
            Ending::Success => {}
            Ending::Failed(code) => {
                return with_time(failed(
                    RunStatus::Failed,
                    match code {
                        Some(c) => format!("exited with status {c}"),
                        None => "killed by a signal".into(),
                    },
                    finished.tail(),
                ))
            }
            Ending::TimedOut => {
                return with_time(failed(
                    RunStatus::TimedOut,
                    format!(
                        "still running after {} s (--timeout): its process group was killed",
                        self.opts.timeout.as_secs()
                    ),
                    finished.tail(),
                ))
            }
            Ending::Cancelled => {
                return with_time(failed(
                    RunStatus::Cancelled,
                    "cancelled: its process group was killed".into(),
                    finished.tail(),
                ))
            }
            Ending::NotStarted(why) => {
                return with_time(failed(
                    RunStatus::Failed,
                    format!("could not be started: {why}"),
                    Vec::new(),
                ))
            }
        }
        let produced = match output::inspect(temp.path(), &spec.project, self.ctx, file_name) {
            Ok(p) => p,
            Err(why) => {
                return with_time(failed(RunStatus::Failed, why, finished.tail()));
            }
        };
        if let Err(e) = output::install(temp, final_path, self.head) {
            return with_time(failed(
                RunStatus::Failed,
                format!("cannot put the index in place: {e}"),
                Vec::new(),
            ));
        }
        Executed {
            status: RunStatus::Indexed,
            reason: None,
            tail: Vec::new(),
            produced: Some(produced),
            seconds,
        }
    }
}

/// What running one planned run gave.
struct Executed {
    status: RunStatus,
    reason: Option<String>,
    tail: Vec<String>,
    produced: Option<output::Produced>,
    seconds: f64,
}

/// The runs an indexer's driver plans.
fn plan(tool: &str, ctx: &Context<'_>) -> Steps {
    match tool {
        "rust-analyzer" => rust_analyzer::plan(ctx),
        "scip-typescript" => typescript::plan(ctx),
        "scip-python" => python::plan(ctx),
        "scip-go" => go::plan(ctx),
        "scip-java" => java::plan(ctx),
        "scip-clang" => clang::plan(ctx),
        other => Steps::Cannot(format!("ckb has no driver for {other}")),
    }
}

/// A run after the planned ones, from what they indexed (`indexed`: repository paths) and which
/// projects failed.
fn follow_up(
    tool: &str,
    ctx: &Context<'_>,
    indexed: &BTreeSet<String>,
    failed: &[String],
) -> Result<Option<RunSpec>, String> {
    match tool {
        "scip-typescript" => typescript::follow_up(ctx, indexed, failed),
        _ => Ok(None),
    }
}

/// The command line as the report shows it, to be run from the repository's root: the variables
/// ckb sets, the command, and the index path where ckb puts it (relative to the folder the command
/// runs in).
fn display_command(spec: &RunSpec, program: &Path, file_name: &str) -> String {
    let up = if spec.project == "." {
        String::new()
    } else {
        "../".repeat(spec.project.split('/').count())
    };
    let index = format!("{up}{INDEX_DIR}/{file_name}");
    let mut parts: Vec<String> = spec
        .env
        .iter()
        .map(|(k, v)| {
            format!(
                "{}={}",
                k.to_string_lossy(),
                projects::shell_word(&v.to_string_lossy())
            )
        })
        .collect();
    let mut words = vec![program
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()];
    for a in &spec.args {
        words.push(match a {
            Arg::Plain(s) => s.to_string_lossy().into_owned(),
            Arg::Output => index.clone(),
            Arg::OutputAfter(prefix) => format!("{prefix}{index}"),
        });
    }
    parts.extend(words.iter().map(|w| projects::shell_word(w)));
    let line = parts.join(" ");
    if spec.project == "." {
        line
    } else {
        format!("(cd {} && {line})", projects::shell_word(&spec.project))
    }
}
