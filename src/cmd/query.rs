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
use queries::commands::sql::{run_sql, SqlLimitFlags, SqlLimits, SqlResult, SqlSource};
use queries::envelope::render::{self, Format};
use queries::pictures::arch::SizeBy;
use queries::{Budget, Ctx, Freshness, Overrides, QueryError, Snapshot};

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
    /// A Mermaid flowchart (arch only; GitHub renders it in a ```mermaid block).
    Mermaid,
    /// A Graphviz DOT graph (arch only; `dot -Tsvg` renders it).
    Dot,
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
        /// With --format mermaid or dot: size modules by `lines` or `symbols` [default: lines].
        #[arg(long, value_name = "WHAT")]
        size_by: Option<String>,
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
    /// Who calls a symbol, N levels deep: each caller once, with the edge's confidence and
    /// source (scip or by-name); cycles are cut and listed.
    Callers {
        /// Stable ID or name.
        id: String,
        /// Levels to walk (1..=10) [default: 2].
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        depth: Option<String>,
        /// Callers to return, nearest first (1..=1000) [default: --max-items].
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        limit: Option<String>,
    },
    /// What a symbol calls, N levels deep: each callee once, with the edge's confidence and
    /// source (scip or by-name); cycles are cut and listed, calls bound to nothing counted.
    Callees {
        /// Stable ID or name.
        id: String,
        /// Levels to walk (1..=10) [default: 2].
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        depth: Option<String>,
        /// Callees to return, nearest first (1..=1000) [default: --max-items].
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        limit: Option<String>,
    },
    /// Supertypes and subtypes of a type (what it implements or extends, what implements or
    /// extends it), N levels deep; for methods, the methods they implement and their
    /// implementations.
    Hierarchy {
        /// Stable ID or name.
        id: String,
        /// Levels to walk each way (1..=10) [default: 2].
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        depth: Option<String>,
        /// Supertypes and subtypes to return each, nearest first (1..=1000) [default: --max-items].
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        limit: Option<String>,
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
    // One of the two is required: a group says so in a way `ckb mcp` can read back.
    #[command(group(clap::ArgGroup::new("statement").required(true).args(["sql", "file"])))]
    Sql {
        /// Exactly one read statement (SELECT, WITH … SELECT, FROM, VALUES, TABLE, DESCRIBE,
        /// SUMMARIZE, SHOW), optionally after EXPLAIN [ANALYZE]; anything else is SQL_NOT_ALLOWED.
        sql: Option<String>,
        /// Read the statement from a file instead (e.g. one of queries/sql/*.sql, with --store).
        #[arg(long, value_name = "FILE")]
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
        // Graphs print errors as text on stderr, like markdown.
        Some(OutputFormat::Mermaid | OutputFormat::Dot) => Format::Human,
        None if std::io::stdout().is_terminal() => Format::Human,
        None => Format::Json,
    };
    let output = execute(&args, &locate).map_err(|e| Failure::new(e, format))?;
    finish_output(emit(&output.render(format)))
}

/// What a query answers.
pub enum Output {
    /// The envelope.
    Answer(Box<queries::Answer>),
    /// Text that is not an envelope (`doctor --fix`'s script).
    Text(String),
    /// Rows of `sql` or `canned`.
    Sql(SqlResult),
}

impl Output {
    /// The answer as `ckb query --format <format>` prints it.
    pub fn render(&self, format: Format) -> String {
        match self {
            Output::Answer(a) => render::answer(a, format),
            Output::Text(t) => t.clone(),
            Output::Sql(r) => render::sql(r, format),
        }
    }
}

/// How a query finds its snapshot: [`locate`] for `ckb query`; `ckb mcp` passes one that reuses
/// the snapshot it opened while the store and the working tree's HEAD stay as they were.
pub type Locator<'a> = dyn Fn(Option<&Path>, Option<&Path>, Option<&Path>) -> Result<(Snapshot, Freshness), QueryError>
    + 'a;

/// Answers a parsed `ckb query` (everything but printing), reading the snapshot `locator` finds.
pub fn execute(args: &Args, locator: &Locator<'_>) -> Result<Output, QueryError> {
    let picture = match args.format {
        Some(OutputFormat::Mermaid) => Some("mermaid"),
        Some(OutputFormat::Dot) => Some("dot"),
        _ => None,
    };
    if let (Some(picture), false) = (picture, matches!(args.command, QueryCommand::Arch { .. })) {
        return Err(QueryError::new(
            ErrorCode::InvalidParameter,
            format!("--format {picture} draws `arch` only"),
            "use --format mermaid or dot with `ckb query arch`; other commands answer in json, human or markdown",
        ));
    }
    let find = || {
        locator(
            args.snapshot.as_deref(),
            args.store.as_deref(),
            args.repo.as_deref(),
        )
    };
    match &args.command {
        QueryCommand::Canned { name: None, .. } => {
            return Ok(Output::Sql(queries::commands::canned::list()));
        }
        QueryCommand::Canned {
            name: Some(name),
            limits,
        } => {
            let limits = limits.limits()?;
            let store = match &args.store {
                Some(s) => s.clone(),
                None => store_for(&repo_root(args.repo.as_deref()), None)?,
            };
            return Ok(Output::Sql(queries::commands::canned::run(
                &store, name, &limits,
            )?));
        }
        QueryCommand::Sql { sql, file, limits } => {
            let limits = limits.limits()?;
            let sql = statement(sql.as_deref(), file.as_deref())?;
            let result = if args.store.is_some() && args.snapshot.is_none() {
                let store = args.store.clone().unwrap_or_default();
                run_sql(&SqlSource::Store(&store), &sql, &limits)?
            } else {
                let (snapshot, _) = find()?;
                run_sql(&SqlSource::Snapshot(&snapshot), &sql, &limits)?
            };
            return Ok(Output::Sql(result));
        }
        _ => {}
    }
    let budget = budget(args)?;
    let (snapshot, freshness) = find()?;
    let ctx = Ctx {
        snapshot: &snapshot,
        freshness: &freshness,
        budget,
    };
    match (answer(&ctx, &args.command)?, picture, &args.command) {
        (Output::Answer(a), Some(picture), QueryCommand::Arch { size_by, .. }) => {
            let size_by = SizeBy::parse(size_by.as_deref())?;
            let graph = queries::pictures::arch::graph(&a, size_by, picture);
            Ok(Output::Text(match picture {
                "dot" => graph.to_dot(),
                _ => graph.to_mermaid(),
            }))
        }
        (output, _, _) => Ok(output),
    }
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
            size_by,
        } => {
            SizeBy::parse(size_by.as_deref())?;
            arch::arch(
                ctx,
                &arch::ArchArgs {
                    depth: number("--depth", depth)?,
                    include_external: *include_external,
                },
            )?
        }
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
        QueryCommand::Callers { id, depth, limit } => {
            calls::callers(ctx, &calls_args(id, depth, limit)?)?
        }
        QueryCommand::Callees { id, depth, limit } => {
            calls::callees(ctx, &calls_args(id, depth, limit)?)?
        }
        QueryCommand::Hierarchy { id, depth, limit } => {
            hierarchy::hierarchy(ctx, &calls_args(id, depth, limit)?)?
        }
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

fn calls_args(
    id: &str,
    depth: &Option<String>,
    limit: &Option<String>,
) -> Result<queries::commands::calls::CallsArgs, QueryError> {
    Ok(queries::commands::calls::CallsArgs {
        input: id.to_string(),
        depth: number("--depth", depth)?,
        limit: number("--limit", limit)?,
    })
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
