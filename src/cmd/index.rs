//! `ckb index`: run the installed SCIP indexers and write their indexes where `ckb snapshot`
//! finds them (`.ckb/<tool>.scip` and its `.commit` sidecar).
//!
//! Exit codes: 0 when the run finished, whatever the indexers did (a missing or failed indexer
//! leaves its languages to tree-sitter); 1 with `--strict` when an indexer failed or timed out
//! (`INDEXER_FAILED`) or one asked for with `--languages` is missing (`INDEXER_MISSING`), and
//! for errors before any indexer runs; 130 after Ctrl-C (every running indexer is stopped
//! first, and nothing it wrote is used).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use output_schema::ErrorCode;
use pipeline::indexers::{self, IndexOptions, IndexReport, RunReport, RunStatus};
use queries::envelope::render::Format;
use queries::QueryError;

use crate::progress::{IndexBars, ProgressMode};
use crate::{emit, finish_output, Failure};

/// The default of `--timeout`, in seconds.
const DEFAULT_TIMEOUT: u64 = 1800;

/// Arguments of `ckb index`.
#[derive(clap::Args)]
pub struct Args {
    /// Repository (or plain folder) to index.
    #[arg(default_value = ".")]
    path: PathBuf,
    /// Comma-separated scan languages whose indexers run (rust, typescript, tsx, javascript,
    /// python, go, java, c, cpp, …) [default: every language found].
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    languages: Option<Vec<String>>,
    /// Seconds one indexer run may take; then its whole process group is killed and its output
    /// is not used.
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_TIMEOUT)]
    timeout: u64,
    /// Indexers run at once (each is multi-threaded and memory-hungry on its own).
    #[arg(long, value_name = "N", default_value_t = 1)]
    jobs: usize,
    /// Fail (exit 1) when an indexer fails or times out, or one named in --languages is missing.
    #[arg(long)]
    strict: bool,
    /// Run every indexer, even those whose index already describes HEAD of a clean checkout.
    #[arg(long)]
    force: bool,
    /// When to show progress on stderr.
    #[arg(long, value_enum, default_value_t = ProgressMode::Auto)]
    progress: ProgressMode,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    json: bool,
}

/// What `ckb snapshot --index` and `ckb index` share: the run's settings.
pub struct Settings {
    /// What to index and how, as asked: [`index`] checks the values and sets `cancel` to the
    /// Ctrl-C flag.
    pub options: IndexOptions,
    /// Progress display.
    pub progress: ProgressMode,
}

impl Settings {
    /// The defaults of `ckb index` for `path` (what `ckb snapshot --index` runs).
    pub fn defaults(path: PathBuf, out: Option<PathBuf>, progress: ProgressMode) -> Settings {
        let options = IndexOptions {
            root: path,
            out,
            languages: None,
            timeout: Duration::from_secs(DEFAULT_TIMEOUT),
            jobs: 1,
            force: false,
            cache_dir: cache_dir(),
            cancel: Arc::default(),
        };
        Settings { options, progress }
    }
}

/// Runs `ckb index`.
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let format = Format::json_if(args.json);
    let out = crate::locate::store_from_env();
    let mut settings = Settings::defaults(args.path, out, args.progress);
    settings.options.languages = args.languages.clone();
    settings.options.timeout = Duration::from_secs(args.timeout);
    settings.options.jobs = args.jobs;
    settings.options.force = args.force;
    let report = index(&settings, format)?;
    let text = if args.json {
        output_schema::json::to_string_pretty(&report).unwrap_or_default() + "\n"
    } else {
        render(&report)
    };
    if report.cancelled {
        let _ = emit(&text);
        return Ok(ExitCode::from(130));
    }
    let strict = if args.strict {
        strict_error(&report, args.languages.as_deref().unwrap_or(&[]))
    } else {
        None
    };
    match strict {
        // One JSON document on stdout: the error, with the report as its details.
        Some(error) if args.json => Err(Failure::new(
            error.with_details(serde_json::to_value(&report).unwrap_or_default()),
            format,
        )),
        Some(error) => {
            finish_output(emit(&text))?;
            Err(Failure::new(error, format))
        }
        None => finish_output(emit(&text)),
    }
}

/// Runs the indexers with `settings`, Ctrl-C stopping them.
pub fn index(settings: &Settings, format: Format) -> Result<IndexReport, Failure> {
    let asked = &settings.options;
    if asked.timeout.is_zero() {
        return Err(super::invalid(
            "--timeout must be at least 1 second",
            "give the seconds one indexer run may take, e.g. --timeout 1800",
            format,
        ));
    }
    if asked.jobs == 0 {
        return Err(super::invalid(
            "--jobs must be at least 1",
            "give how many indexers may run at once, e.g. --jobs 2",
            format,
        ));
    }
    let known = indexers::known_languages();
    for name in asked.languages.iter().flatten() {
        if !known.contains(&name.trim().to_ascii_lowercase().as_str()) {
            return Err(super::invalid(
                format!("--languages: unknown language {name:?}"),
                &format!("name scan languages: {}", known.join(", ")),
                format,
            ));
        }
    }
    let opts = IndexOptions {
        cancel: interrupt_flag(),
        ..asked.clone()
    };
    let bars = IndexBars::new(settings.progress);
    INDEXING.store(true, Ordering::SeqCst);
    let report = indexers::run(&opts, &bars);
    INDEXING.store(false, Ordering::SeqCst);
    report.map_err(|e| super::pipeline_failure(e, format))
}

/// With `--strict`: an indexer that failed or timed out, or one asked for that is missing, is an
/// error.
fn strict_error(report: &IndexReport, asked: &[String]) -> Option<QueryError> {
    let failed: Vec<&RunReport> = report.failures().collect();
    if !failed.is_empty() {
        let names: Vec<String> = failed
            .iter()
            .map(|r| {
                format!(
                    "{} ({}: {})",
                    r.tool,
                    r.project,
                    indexers::status_word(r.status)
                )
            })
            .collect();
        return Some(QueryError::new(
            ErrorCode::IndexerFailed,
            format!(
                "--strict: {} indexer run(s) failed: {}",
                failed.len(),
                names.join(", ")
            ),
            "the report gives each failure's last output lines; fix the project (or raise \
             --timeout), or run without --strict to let tree-sitter cover those languages",
        ));
    }
    let missing: Vec<&RunReport> = report.missing_asked(asked).collect();
    if !missing.is_empty() {
        let installs: Vec<String> = missing.iter().filter_map(|r| r.install.clone()).collect();
        return Some(QueryError::new(
            ErrorCode::IndexerMissing,
            format!(
                "--strict: the indexer of a language named in --languages is not installed: {}",
                missing
                    .iter()
                    .map(|r| r.tool.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            format!("install it: {}", installs.join("; ")),
        ));
    }
    None
}

/// Set while indexers run: the first Ctrl-C then stops them (and the run reports what it did);
/// otherwise, or on a second Ctrl-C, ckb exits at once with 130 as it would without a handler.
static INDEXING: AtomicBool = AtomicBool::new(false);

/// The flag Ctrl-C sets, with the handler installed on first use.
fn interrupt_flag() -> Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    Arc::clone(FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let seen = Arc::clone(&flag);
        // Without a handler (it cannot be installed twice), Ctrl-C ends ckb the default way and
        // the indexers, in their own process groups, run on: worth trying, not worth failing.
        let _ = ctrlc::set_handler(move || {
            if !INDEXING.load(Ordering::SeqCst) || seen.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
        });
        flag
    }))
}

/// ckb's cache folder: `$XDG_CACHE_HOME/ckb`, else `~/.cache/ckb`.
fn cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })?;
    Some(base.join("ckb"))
}

/// The report for a person.
pub fn render(report: &IndexReport) -> String {
    let mut s = String::new();
    for r in &report.runs {
        render_run(&mut s, r);
    }
    for n in &report.notices {
        s.push_str(&format!("note: {}\n", n.message));
    }
    for removed in &report.removed {
        s.push_str(&format!(
            "removed {removed}: its indexer no longer writes it\n"
        ));
    }
    let written: Vec<&str> = report
        .runs
        .iter()
        .filter(|r| matches!(r.status, RunStatus::Indexed | RunStatus::UpToDate))
        .filter_map(|r| r.index.as_deref())
        .collect();
    let commit = report
        .head_commit
        .as_deref()
        .map(|c| format!(" of commit {}", &c[..c.len().min(12)]))
        .unwrap_or_default();
    s.push_str(&match (report.cancelled, written.len()) {
        (true, _) => "cancelled: the indexers that were running were stopped and their output \
                      removed\n"
            .to_string(),
        (false, 0) => {
            "no index written: ckb snapshot covers these languages with tree-sitter\n".to_string()
        }
        (false, n) => format!(
            "{n} index(es){commit} in .ckb/: `ckb snapshot` reads them ({})\n",
            written.join(", ")
        ),
    });
    s
}

fn render_run(s: &mut String, r: &RunReport) {
    let version = r
        .version
        .as_deref()
        .map(|v| format!(" {v}"))
        .unwrap_or_default();
    let project = if r.project == "." {
        String::new()
    } else {
        format!(" [{}]", r.project)
    };
    let status = indexers::status_word(r.status);
    match r.status {
        RunStatus::Indexed | RunStatus::UpToDate => s.push_str(&format!(
            "{}{version}{project}: {status}, {}{} → {}\n",
            r.tool,
            indexers::count(r.documents.unwrap_or(0), "document"),
            if r.status == RunStatus::Indexed {
                format!(" in {:.1} s", r.seconds)
            } else {
                String::new()
            },
            r.index.as_deref().unwrap_or("")
        )),
        _ => s.push_str(&format!(
            "{}{version}{project}: {status}{}{}\n",
            r.tool,
            if r.seconds > 0.0 {
                format!(" after {:.1} s", r.seconds)
            } else {
                String::new()
            },
            r.reason
                .as_deref()
                .map(|x| format!(" — {x}"))
                .unwrap_or_default()
        )),
    }
    if let Some(install) = &r.install {
        s.push_str(&format!("    install: {install}\n"));
    }
    if let Some(command) = r.command.as_deref().filter(|_| r.status.is_failure()) {
        s.push_str(&format!("    command: {command}\n"));
    }
    for line in &r.output_tail {
        s.push_str(&format!("    | {line}\n"));
    }
    for note in &r.notes {
        s.push_str(&format!("    {note}\n"));
    }
}
