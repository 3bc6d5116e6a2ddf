//! `ckb`: the command-line porcelain over the `pipeline` and `queries` crates.
//!
//! Parses arguments (clap), dispatches to one module per subcommand, prints results on stdout and
//! progress/errors on stderr, and maps outcomes to exit codes:
//! 0 success · 1 failure with a stable error code · 2 command-line usage error.
//! A closed stdout (e.g. `ckb … | head`) ends the program quietly with 0.
//! A panic is still an answer: `INTERNAL_ERROR` in the same envelope as every other error, exit 1.

mod cmd;
mod locate;
mod progress;

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use queries::envelope::render::Format;
use queries::QueryError;

/// Code Knowledge Backend: deterministic, versioned snapshots of code knowledge.
#[derive(Parser)]
#[command(name = "ckb", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the installed SCIP indexers (rust-analyzer, scip-typescript, scip-python, …) into .ckb/.
    Index(cmd::index::Args),
    /// Snapshot a repository into the store (Parquet tables + compressed JSON).
    Snapshot(cmd::snapshot::Args),
    /// Ask a snapshot: symbol, search, refs, arch, impact, explore, understand, sql, …
    Query(cmd::query::Args),
    /// Compare two snapshots: files, symbols, public API, impact and risk (markdown for PR comments, or JSON).
    Diff(cmd::diff::Args),
    /// Write one self-contained HTML report: architecture graph, hotspots, API changes and risk,
    /// and (with --store) the trend across snapshots.
    Report(cmd::report::Args),
    /// Print the snapshot format: every table, column, type and sort key.
    Schema(cmd::schema::Args),
    /// Check a snapshot's files against its manifest and the schema.
    Verify(cmd::verify::Args),
    /// Look after a snapshot store: `ckb store gc` removes leftovers and prunes old snapshots.
    Store(cmd::store::Args),
    /// Write .ckb/config.json with every default spelled out.
    Init(cmd::init::Args),
    /// Serve the query commands to coding agents over the Model Context Protocol (stdio).
    Mcp(cmd::mcp::Args),
}

/// What a subcommand hands back to `main`.
pub struct Failure {
    error: QueryError,
    format: Format,
}

impl Failure {
    fn new(error: QueryError, format: Format) -> Failure {
        Failure { error, format }
    }
}

/// Writes to stdout; a closed pipe is not an error worth reporting.
pub fn emit(text: &str) -> Result<(), std::io::Error> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Whether the command line asks for JSON (`--json`, `--format json`, `--format=json`): errors
/// are then printed as JSON on stdout, a panic included.
fn wants_json(args: &[std::ffi::OsString]) -> bool {
    args.iter().enumerate().any(|(i, a)| {
        a == "--json"
            || a == "--format=json"
            || (a == "--format" && args.get(i + 1).is_some_and(|v| v == "json"))
    })
}

/// Replaces Rust's panic message and backtrace with ckb's error envelope: scripts that parse
/// `--format json` get `INTERNAL_ERROR` like any other error, people get a line saying what to
/// report, and the process exits 1 (not 101) at once, from whichever thread panicked.
fn install_panic_hook(json: bool) {
    std::panic::set_hook(Box::new(move |info| {
        // A decoder's panic on a damaged file becomes an error where it is caught.
        if output_schema::contain::is_containing() {
            return;
        }
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".into());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let error = QueryError::new(
            output_schema::ErrorCode::InternalError,
            format!("ckb {} hit a bug: {what}{at}", env!("CARGO_PKG_VERSION")),
            "this is a bug in ckb: report it with this message and the command you ran; nothing \
             already in the store was changed (a snapshot is published whole or not at all)",
        );
        if json {
            let _ = emit(&queries::envelope::render::error(&error, Format::Json));
        } else {
            let _ = std::io::stderr()
                .write_all(queries::envelope::render::error(&error, Format::Human).as_bytes());
        }
        std::process::exit(1);
    }));
}

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    install_panic_hook(wants_json(&args));
    // Test hook: a bug anywhere must still end in the error envelope (tests/cli_query_errors.rs).
    if output_schema::failpoint::flag("panic") {
        panic!("failpoint");
    }
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let result = match cli.command {
        Command::Index(args) => cmd::index::run(args),
        Command::Snapshot(args) => {
            pipeline::allocator::keep_freed_memory();
            cmd::snapshot::run(args)
        }
        Command::Query(args) => {
            // One query, then exit: each Parquet column reader's zstd context and page buffers
            // are fresh allocations above glibc's mmap threshold, faulted in page by page;
            // reused from the heap they are not (tokio's `refs`: 3 600 -> 2 500 page faults).
            pipeline::allocator::keep_freed_memory();
            cmd::query::run(args)
        }
        Command::Diff(args) => cmd::diff::run(args),
        Command::Report(args) => cmd::report::run(args),
        Command::Schema(args) => cmd::schema::run(args),
        Command::Verify(args) => cmd::verify::run(args),
        Command::Store(args) => cmd::store::run(args),
        Command::Init(args) => cmd::init::run(args),
        Command::Mcp(args) => cmd::mcp::run(args),
    };
    match result {
        Ok(code) => code,
        Err(f) => {
            let text = queries::envelope::render::error(&f.error, f.format);
            if matches!(f.format, Format::Json | Format::Csv) {
                let _ = emit(&text);
            } else {
                let _ = std::io::stderr().write_all(text.as_bytes());
            }
            ExitCode::from(1)
        }
    }
}

/// Maps a write error on stdout: a broken pipe ends quietly with success.
pub fn finish_output(result: std::io::Result<()>) -> Result<ExitCode, Failure> {
    match result {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(Failure::new(
            QueryError::new(
                output_schema::ErrorCode::IoError,
                format!("cannot write output: {e}"),
                "check the output stream",
            ),
            Format::Human,
        )),
    }
}
