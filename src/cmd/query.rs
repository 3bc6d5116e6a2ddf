//! `ckb query`: bounded, deterministic answers over a snapshot.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use queries::render::{self, Format};
use queries::sql::{run_sql, SqlSource};

use crate::locate::locate;
use crate::{emit, finish_output, Failure};

/// Arguments of `ckb query` (options come before the command).
#[derive(clap::Args)]
pub struct Args {
    /// Snapshot folder to read [default: the newest snapshot of the current repository].
    #[arg(long, value_name = "DIR", global = true, conflicts_with = "store")]
    snapshot: Option<PathBuf>,
    /// Snapshot store to read [default: <repo>/.ckb/snapshots].
    #[arg(long, value_name = "DIR", global = true)]
    store: Option<PathBuf>,
    /// Repository the query is about [default: the enclosing repository of the current folder].
    #[arg(long, value_name = "PATH", global = true)]
    repo: Option<PathBuf>,
    /// Output format [default: human on a terminal, json otherwise].
    #[arg(long, value_enum, global = true)]
    format: Option<OutputFormat>,
    #[command(subcommand)]
    command: QueryCommand,
}

/// Output formats.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Text for people.
    Human,
    /// Canonical JSON (byte-deterministic).
    Json,
    /// Markdown.
    Markdown,
    /// CSV (sql only).
    Csv,
}

#[derive(clap::Subcommand)]
enum QueryCommand {
    /// Snapshot summary: schema, backends and their health, counts, completeness, freshness.
    Status,
    /// Run read-only SQL over the snapshot's tables (with --store: over every snapshot, with
    /// the partition columns `repo` and `commit`).
    Sql {
        /// One read-only statement (SELECT, WITH, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN).
        sql: String,
    },
}

/// Runs `ckb query`.
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let format = match args.format {
        Some(OutputFormat::Human) => Format::Human,
        Some(OutputFormat::Json) => Format::Json,
        Some(OutputFormat::Markdown) => Format::Markdown,
        Some(OutputFormat::Csv) => Format::Csv,
        None if std::io::stdout().is_terminal() => Format::Human,
        None => Format::Json,
    };
    let fail = |e| Failure::new(e, format);
    match &args.command {
        QueryCommand::Sql { sql } if args.store.is_some() && args.snapshot.is_none() => {
            let store = args.store.clone().unwrap_or_default();
            let result = run_sql(&SqlSource::Store(&store), sql).map_err(fail)?;
            finish_output(emit(&render::sql(&result, format)))
        }
        QueryCommand::Sql { sql } => {
            let (snapshot, _) = locate(
                args.snapshot.as_deref(),
                args.store.as_deref(),
                args.repo.as_deref(),
            )
            .map_err(fail)?;
            let result = run_sql(&SqlSource::Snapshot(&snapshot), sql).map_err(fail)?;
            finish_output(emit(&render::sql(&result, format)))
        }
        QueryCommand::Status => {
            let (snapshot, freshness) = locate(
                args.snapshot.as_deref(),
                args.store.as_deref(),
                args.repo.as_deref(),
            )
            .map_err(fail)?;
            let answer = queries::status::status(&snapshot, &freshness);
            finish_output(emit(&render::answer(&answer, format)))
        }
    }
}
