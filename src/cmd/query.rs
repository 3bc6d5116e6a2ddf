//! `ckb query`: bounded, deterministic answers over a snapshot.
//!
//! Options before or after the command: where the snapshot is (`--snapshot`, `--store`,
//! `--repo`), the output format, and per-call budgets (`--max-modules`, `--max-per-module`,
//! `--max-items`, `--max-tokens`, `--max-drilldowns`) over `.ckb/config.json`'s `budgets`. Numbers are parsed
//! here, not by clap, so that a bad value is the stable `INVALID_PARAMETER` error (exit 1) an
//! agent can act on, like every other bad input of a query.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use output_schema::config::Config;
use output_schema::ErrorCode;
use queries::commands::sql::{run_sql, SqlLimitFlags, SqlLimits, SqlSource};
use queries::envelope::render::{self, Format};
use queries::{Budget, Ctx, Overrides, QueryError};

use crate::locate::{locate, repo_root, store_for};
use crate::{emit, finish_output, Failure};

/// Arguments of `ckb query`.
#[derive(clap::Args)]
pub struct Args {
    /// Snapshot folder to read [default: the newest snapshot of the current repository].
    #[arg(long, value_name = "DIR", global = true, conflicts_with = "store")]
    snapshot: Option<PathBuf>,
    /// Snapshot store to read [default: $CKB_STORE, else `store` in .ckb/config.json (inside the
    /// repository), else <repo>/.ckb/snapshots].
    #[arg(long, value_name = "DIR", global = true)]
    store: Option<PathBuf>,
    /// Repository the query is about [default: the enclosing repository of the current folder].
    #[arg(long, value_name = "PATH", global = true)]
    repo: Option<PathBuf>,
    /// Output format [default: human on a terminal, json otherwise].
    #[arg(long, value_enum, global = true)]
    format: Option<OutputFormat>,
    /// Modules per answer (1..=500) [default: budgets.modules, 10].
    #[arg(long, value_name = "N", global = true, allow_hyphen_values = true)]
    max_modules: Option<String>,
    /// Files or symbols per module (1..=100) [default: budgets.symbolsPerModule, 5].
    #[arg(long, value_name = "N", global = true, allow_hyphen_values = true)]
    max_per_module: Option<String>,
    /// Items per list (1..=1000) [default: budgets.impactItems, 20].
    #[arg(long, value_name = "N", global = true, allow_hyphen_values = true)]
    max_items: Option<String>,
    /// Approximate tokens per answer (500..=1000000) [default: budgets.tokens, 4000].
    #[arg(long, value_name = "N", global = true, allow_hyphen_values = true)]
    max_tokens: Option<String>,
    /// Drilldowns per answer (0..=20) [default: budgets.drilldowns, 5].
    #[arg(long, value_name = "N", global = true, allow_hyphen_values = true)]
    max_drilldowns: Option<String>,
    #[command(subcommand)]
    command: QueryCommand,
}

/// Limits of a SQL session (`sql`, `canned`). Parsed by `queries::commands::sql::SqlLimits`, so a bad value
/// is `INVALID_PARAMETER` and going over one is `SQL_LIMIT_EXCEEDED`, naming the flag.
#[derive(clap::Args)]
struct SqlLimitArgs {
    /// Rows the result may have; more is SQL_LIMIT_EXCEEDED, and the query stops reading there
    /// (1..=100000000) [default: 100000].
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    max_rows: Option<String>,
    /// DuckDB's memory limit: a whole number with KB, MB, GB, TB or KiB, MiB, GiB, TiB
    /// (32MB..=1TiB); nothing spills to disk [default: 2GB].
    #[arg(long, value_name = "SIZE", allow_hyphen_values = true)]
    memory_limit: Option<String>,
    /// Seconds the session may take, opening included (1..=86400) [default: 120].
    #[arg(long, value_name = "SECONDS", allow_hyphen_values = true)]
    timeout: Option<String>,
    /// DuckDB worker threads (1..=256) [default: the cores, at most 4].
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    sql_threads: Option<String>,
}

impl SqlLimitArgs {
    fn limits(&self) -> Result<SqlLimits, QueryError> {
        SqlLimits::from_flags(&SqlLimitFlags {
            max_rows: self.max_rows.as_deref(),
            memory_limit: self.memory_limit.as_deref(),
            timeout: self.timeout.as_deref(),
            threads: self.sql_threads.as_deref(),
        })
    }
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

/// Which symbols a listing keeps and how many it returns (`search`, `dead-code`).
#[derive(clap::Args)]
pub struct SymbolFilter {
    /// Keep only this kind (repeatable).
    #[arg(long = "kind", value_name = "KIND")]
    kinds: Vec<String>,
    /// Keep only this module (module ID) or path.
    #[arg(long, value_name = "MODULE")]
    scope: Option<String>,
    /// Results to return (1..=1000) [default: --max-items].
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    limit: Option<String>,
}

#[derive(clap::Subcommand)]
enum QueryCommand {
    /// Snapshot summary: schema, backends and their health, counts, completeness, freshness.
    Status,
    /// Checks (snapshot intact, fresh, SCIP, history depth, coverage) with fixes; --fix prints
    /// them as a shell script (never run).
    Doctor {
        /// Print the fixes as a POSIX shell script instead of the answer.
        #[arg(long)]
        fix: bool,
    },
    /// One symbol's metadata and location (follows aliases; reports deletions).
    Symbol {
        /// Stable ID (ckb:<repo>:sym:<hex>) or name (optionally Container::name).
        id: String,
    },
    /// Symbols whose name contains QUERY (case-insensitive), best first.
    Search {
        /// Part of a symbol name.
        query: String,
        #[command(flatten)]
        filter: SymbolFilter,
    },
    /// References to a symbol, grouped by module and file.
    Refs {
        /// Stable ID or name.
        id: String,
        /// Keep only references in this module or path.
        #[arg(long, value_name = "MODULE")]
        scope: Option<String>,
        /// Reference sites to return (1..=1000) [default: --max-items].
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        limit: Option<String>,
    },
    /// Modules, classified dependency edges and entry points (from the architecture view).
    Arch {
        /// Keep modules at most N folders deep (0..=32).
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        depth: Option<String>,
        /// Also list edges to external packages.
        #[arg(long)]
        include_external: bool,
    },
    /// What changing a symbol affects: callers, type and test dependencies, modules, risk.
    Impact {
        /// Stable ID or name.
        id: String,
        /// Transitive caller depth (1..=10) [default: 3].
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        depth: Option<String>,
    },
    /// Overview of a module, folder or file: key symbols, dependencies, changes, hotspots.
    Explore {
        /// Module ID or repository-relative path.
        target: String,
    },
    /// A symbol with its references, callers, callees and tests (or the ambiguity).
    Understand {
        /// Stable ID or name.
        query: String,
    },
    /// A change plan: dependents, transitive impact, tests, co-change partners, risk.
    PrepareChange {
        /// Stable ID, name or repository-relative path.
        target: String,
        /// modify, rename, delete or extract [default: modify].
        #[arg(long, value_name = "TYPE")]
        change_type: Option<String>,
        /// Transitive caller depth (1..=10) [default: 3].
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        depth: Option<String>,
    },
    /// Several symbols at once (at most 50), each with its result or error.
    BatchGet {
        /// Stable IDs or names.
        #[arg(required = true)]
        ids: Vec<String>,
    },
    /// Several searches at once (at most 10), each with its results or error.
    BatchSearch {
        /// Queries.
        #[arg(required = true)]
        queries: Vec<String>,
        /// Keep only this kind (repeatable).
        #[arg(long = "kind", value_name = "KIND")]
        kinds: Vec<String>,
        /// Results per query (1..=1000) [default: budgets.symbolsPerModule].
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        limit: Option<String>,
    },
    /// Files ranked by churn × size.
    Hotspots {
        /// History window: 30d, 90d, 365d or all [default: 90d].
        #[arg(long, value_name = "WINDOW")]
        window: Option<String>,
        /// Keep only files below this path.
        #[arg(long, value_name = "PATH")]
        scope: Option<String>,
        /// Files to return (1..=1000) [default: --max-items].
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        limit: Option<String>,
    },
    /// Files that change together with PATH.
    Coupling {
        /// Repository-relative file path.
        path: String,
        /// Partners to return (1..=1000) [default: --max-items].
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        limit: Option<String>,
    },
    /// Who changes PATH (salted author hashes).
    Ownership {
        /// Repository-relative file or folder.
        path: String,
        /// Authors to return (1..=1000) [default: --max-items].
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        limit: Option<String>,
    },
    /// Definitions with no references, only self-references, or only test references.
    DeadCode {
        #[command(flatten)]
        filter: SymbolFilter,
    },
    /// Tests to run after changing a symbol, file or folder.
    AffectedTests {
        /// Stable ID, name or repository-relative path.
        target: String,
        /// Transitive caller depth (1..=10) [default: 3].
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        depth: Option<String>,
        /// Test files to return (1..=1000) [default: --max-items].
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        limit: Option<String>,
    },
    /// Run read-only SQL over the snapshot's tables (with --store: over every snapshot, with
    /// the partition columns `repo` and `commit`).
    Sql {
        /// Exactly one read statement (SELECT, WITH … SELECT, FROM, VALUES, TABLE, DESCRIBE,
        /// SUMMARIZE, SHOW), optionally after EXPLAIN [ANALYZE]; anything else is SQL_NOT_ALLOWED.
        #[arg(required_unless_present = "file")]
        sql: Option<String>,
        /// Read the statement from a file instead (e.g. one of queries/sql/*.sql, with --store).
        #[arg(long, value_name = "FILE", conflicts_with = "sql")]
        file: Option<PathBuf>,
        #[command(flatten)]
        limits: SqlLimitArgs,
    },
    /// Run a canned analysis over every snapshot of the store (hotspots, coupling, churn_trend,
    /// module_fan, dead_code, api_changes); without NAME, list them.
    Canned {
        /// The analysis to run.
        name: Option<String>,
        #[command(flatten)]
        limits: SqlLimitArgs,
    },
}

/// Parses a numeric flag; anything but a non-negative integer is `INVALID_PARAMETER`.
fn number(flag: &str, value: &Option<String>) -> Result<Option<u64>, QueryError> {
    match value {
        None => Ok(None),
        Some(v) => v.trim().parse::<u64>().map(Some).map_err(|_| {
            QueryError::new(
                ErrorCode::InvalidParameter,
                format!("{flag} {v:?} is not a non-negative whole number"),
                format!("pass {flag} with a whole number (see `ckb query --help`)"),
            )
        }),
    }
}

fn budget(args: &Args) -> Result<Budget, QueryError> {
    let root = repo_root(args.repo.as_deref());
    let config = Config::load(&root).map_err(|e| {
        QueryError::new(
            ErrorCode::ConfigInvalid,
            e.to_string(),
            "fix the named key in .ckb/config.json",
        )
    })?;
    Budget::from_config(&config.budgets)?.with_overrides(&Overrides {
        modules: number("--max-modules", &args.max_modules)?,
        per_module: number("--max-per-module", &args.max_per_module)?,
        items: number("--max-items", &args.max_items)?,
        tokens: number("--max-tokens", &args.max_tokens)?,
        drilldowns: number("--max-drilldowns", &args.max_drilldowns)?,
    })
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
        QueryCommand::Canned { name: None, .. } => {
            return finish_output(emit(&render::sql(
                &queries::commands::canned::list(),
                format,
            )));
        }
        QueryCommand::Canned {
            name: Some(name),
            limits,
        } => {
            let limits = limits.limits().map_err(fail)?;
            let store = match &args.store {
                Some(s) => s.clone(),
                None => store_for(&repo_root(args.repo.as_deref()), None).map_err(fail)?,
            };
            let result = queries::commands::canned::run(&store, name, &limits).map_err(fail)?;
            return finish_output(emit(&render::sql(&result, format)));
        }
        QueryCommand::Sql { sql, file, limits } => {
            let limits = limits.limits().map_err(fail)?;
            let sql = statement(sql.as_deref(), file.as_deref()).map_err(fail)?;
            let result = if args.store.is_some() && args.snapshot.is_none() {
                let store = args.store.clone().unwrap_or_default();
                run_sql(&SqlSource::Store(&store), &sql, &limits).map_err(fail)?
            } else {
                let (snapshot, _) = locate(
                    args.snapshot.as_deref(),
                    args.store.as_deref(),
                    args.repo.as_deref(),
                )
                .map_err(fail)?;
                run_sql(&SqlSource::Snapshot(&snapshot), &sql, &limits).map_err(fail)?
            };
            return finish_output(emit(&render::sql(&result, format)));
        }
        _ => {}
    }
    let budget = budget(&args).map_err(fail)?;
    let (snapshot, freshness) = locate(
        args.snapshot.as_deref(),
        args.store.as_deref(),
        args.repo.as_deref(),
    )
    .map_err(fail)?;
    let ctx = Ctx {
        snapshot: &snapshot,
        freshness: &freshness,
        budget,
    };
    let answer = answer(&ctx, &args.command).map_err(fail)?;
    match answer {
        Output::Answer(a) => finish_output(emit(&render::answer(&a, format))),
        Output::Text(t) => finish_output(emit(&t)),
    }
}

enum Output {
    Answer(Box<queries::Answer>),
    Text(String),
}

fn answer(ctx: &Ctx<'_>, command: &QueryCommand) -> Result<Output, QueryError> {
    use queries::commands::*;
    let a = match command {
        QueryCommand::Status => status::status(ctx)?,
        QueryCommand::Doctor { fix: true } => {
            return Ok(Output::Text(doctor::fix_script(ctx, &doctor::checks(ctx))))
        }
        QueryCommand::Doctor { fix: false } => doctor::doctor(ctx)?,
        QueryCommand::Symbol { id } => symbol::symbol(ctx, id)?,
        QueryCommand::Search { query, filter } => search::search(
            ctx,
            &search::SearchArgs {
                query: query.clone(),
                kinds: filter.kinds.clone(),
                scope: filter.scope.clone(),
                limit: number("--limit", &filter.limit)?,
            },
        )?,
        QueryCommand::Refs { id, scope, limit } => refs::refs(
            ctx,
            &refs::RefsArgs {
                input: id.clone(),
                scope: scope.clone(),
                limit: number("--limit", limit)?,
            },
        )?,
        QueryCommand::Arch {
            depth,
            include_external,
        } => arch::arch(
            ctx,
            &arch::ArchArgs {
                depth: number("--depth", depth)?,
                include_external: *include_external,
            },
        )?,
        QueryCommand::Impact { id, depth } => impact::impact(ctx, id, number("--depth", depth)?)?,
        QueryCommand::Explore { target } => explore::explore(ctx, target)?,
        QueryCommand::Understand { query } => understand::understand(ctx, query)?,
        QueryCommand::PrepareChange {
            target,
            change_type,
            depth,
        } => prepare_change::prepare_change(
            ctx,
            target,
            change_type.as_deref(),
            number("--depth", depth)?,
        )?,
        QueryCommand::BatchGet { ids } => batch::batch_get(ctx, ids)?,
        QueryCommand::BatchSearch {
            queries,
            kinds,
            limit,
        } => batch::batch_search(ctx, queries, kinds, number("--limit", limit)?)?,
        QueryCommand::Hotspots {
            window,
            scope,
            limit,
        } => hotspots::hotspots(
            ctx,
            window.as_deref(),
            scope.as_deref(),
            number("--limit", limit)?,
        )?,
        QueryCommand::Coupling { path, limit } => {
            hotspots::coupling(ctx, path, number("--limit", limit)?)?
        }
        QueryCommand::Ownership { path, limit } => {
            hotspots::ownership(ctx, path, number("--limit", limit)?)?
        }
        QueryCommand::DeadCode { filter } => dead_code::dead_code(
            ctx,
            &dead_code::DeadCodeArgs {
                kinds: filter.kinds.clone(),
                scope: filter.scope.clone(),
                limit: number("--limit", &filter.limit)?,
            },
        )?,
        QueryCommand::AffectedTests {
            target,
            depth,
            limit,
        } => affected_tests::affected_tests(
            ctx,
            target,
            number("--depth", depth)?,
            number("--limit", limit)?,
        )?,
        QueryCommand::Sql { .. } | QueryCommand::Canned { .. } => {
            return Err(QueryError::new(
                ErrorCode::InternalError,
                "sql and canned are answered before budgets are read",
                "report this as a bug",
            ))
        }
    };
    Ok(Output::Answer(Box::new(a)))
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
