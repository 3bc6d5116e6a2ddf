//! `ckb query`: bounded, deterministic answers over a snapshot.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use queries::render::{self, Format};
use queries::sql::{run_sql, SqlSource};

use output_schema::ErrorCode;
use queries::QueryError;

use crate::locate::{locate, repo_root, store_for};
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
        #[arg(required_unless_present = "file")]
        sql: Option<String>,
        /// Read the statement from a file instead (e.g. one of queries/sql/*.sql, with --store).
        #[arg(long, value_name = "FILE", conflicts_with = "sql")]
        file: Option<PathBuf>,
    },
    /// Run a canned analysis over every snapshot of the store (hotspots, coupling, churn_trend,
    /// module_fan, dead_code, api_changes); without NAME, list them.
    Canned {
        /// The analysis to run.
        name: Option<String>,
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
        QueryCommand::Canned { name: None } => {
            finish_output(emit(&render::sql(&queries::canned::list(), format)))
        }
        QueryCommand::Canned { name: Some(name) } => {
            let store = match &args.store {
                Some(s) => s.clone(),
                None => store_for(&repo_root(args.repo.as_deref()), None).map_err(fail)?,
            };
            let result = queries::canned::run(&store, name).map_err(fail)?;
            finish_output(emit(&render::sql(&result, format)))
        }
        QueryCommand::Sql { sql, file } if args.store.is_some() && args.snapshot.is_none() => {
            let store = args.store.clone().unwrap_or_default();
            let sql = statement(sql.as_deref(), file.as_deref()).map_err(fail)?;
            let result = run_sql(&SqlSource::Store(&store), &sql).map_err(fail)?;
            finish_output(emit(&render::sql(&result, format)))
        }
        QueryCommand::Sql { sql, file } => {
            let sql = statement(sql.as_deref(), file.as_deref()).map_err(fail)?;
            let (snapshot, _) = locate(
                args.snapshot.as_deref(),
                args.store.as_deref(),
                args.repo.as_deref(),
            )
            .map_err(fail)?;
            let result = run_sql(&SqlSource::Snapshot(&snapshot), &sql).map_err(fail)?;
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

/// The statement of `ckb query sql`: the argument, or the text of `--file`.
fn statement(sql: Option<&str>, file: Option<&Path>) -> Result<String, QueryError> {
    match (sql, file) {
        (_, Some(f)) => std::fs::read_to_string(f).map_err(|e| {
            QueryError::new(
                ErrorCode::PathNotFound,
                format!("cannot read {}: {e}", f.display()),
                "pass a readable .sql file",
            )
        }),
        (Some(s), None) => Ok(s.to_string()),
        (None, None) => Ok(String::new()),
    }
}
