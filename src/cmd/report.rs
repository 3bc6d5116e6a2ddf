//! `ckb report`: one self-contained HTML page (architecture graph, hotspots, the API changes and
//! risk of the two newest snapshots, the trend across a store's snapshots), written atomically to
//! `--output`.

use std::path::PathBuf;
use std::process::ExitCode;

use output_schema::ErrorCode;
use queries::envelope::budget::check_range;
use queries::envelope::render::Format;
use queries::report::{self, Limits, Source};
use queries::QueryError;

use crate::locate::locate;
use crate::{emit, finish_output, Failure};

/// Allowed range of `--max-hotspots`.
const HOTSPOTS_RANGE: (u64, u64) = (1, 100_000);
/// Allowed range of `--max-modules`: a layered layout of more modules takes seconds and is no
/// longer read at a glance (the module table lists them all).
const GRAPH_MODULES_RANGE: (u64, u64) = (1, 100);

/// Arguments of `ckb report`.
#[derive(clap::Args)]
pub struct Args {
    /// Report on this snapshot folder [default: the newest snapshot of the current repository].
    #[arg(long, value_name = "DIR", conflicts_with = "store")]
    snapshot: Option<PathBuf>,
    /// Report on every snapshot of one repository in this store: adds the trend across them, and
    /// compares the two newest.
    #[arg(long, value_name = "DIR")]
    store: Option<PathBuf>,
    /// With --store holding several repositories: the one to report on.
    #[arg(long, value_name = "ID", requires = "store")]
    repo_id: Option<String>,
    /// Repository whose newest snapshot to report on [default: the enclosing repository].
    #[arg(long, value_name = "PATH")]
    repo: Option<PathBuf>,
    /// The HTML file to write (replaced atomically).
    #[arg(
        long,
        short = 'o',
        value_name = "FILE",
        default_value = "ckb-report.html"
    )]
    output: PathBuf,
    /// Modules drawn in the architecture graph, with the strongest two edges per module; the rest
    /// become one node (1..=100) [default: 40].
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    max_modules: Option<String>,
    /// Rows of the hotspot table and points of its chart (1..=100000) [default: 500].
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    max_hotspots: Option<String>,
}

fn number(
    flag: &str,
    value: &Option<String>,
    range: (u64, u64),
) -> Result<Option<usize>, QueryError> {
    let Some(v) = value else {
        return Ok(None);
    };
    let n = v.trim().parse::<u64>().map_err(|_| {
        QueryError::new(
            ErrorCode::InvalidParameter,
            format!("{flag} {v:?} is not a non-negative whole number"),
            format!(
                "pass {flag} with a whole number between {} and {}",
                range.0, range.1
            ),
        )
    })?;
    check_range(flag, n, range).map(Some)
}

/// Runs `ckb report`.
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let fail = |e| Failure::new(e, Format::Human);
    let defaults = Limits::default();
    let limits = Limits {
        graph_modules: number("--max-modules", &args.max_modules, GRAPH_MODULES_RANGE)
            .map_err(fail)?
            .unwrap_or(defaults.graph_modules),
        hotspots: number("--max-hotspots", &args.max_hotspots, HOTSPOTS_RANGE)
            .map_err(fail)?
            .unwrap_or(defaults.hotspots),
    };
    let html = match &args.store {
        Some(store) => report::build(
            &Source::Store {
                store,
                repo_id: args.repo_id.as_deref(),
            },
            limits,
        ),
        None => {
            let (snapshot, _) =
                locate(args.snapshot.as_deref(), None, args.repo.as_deref()).map_err(fail)?;
            report::build(&Source::Snapshot(&snapshot.dir), limits)
        }
    }
    .map_err(fail)?;
    report::write(&args.output, &html).map_err(fail)?;
    finish_output(emit(&format!(
        "wrote {} ({} bytes)\n",
        args.output.display(),
        html.len()
    )))
}
