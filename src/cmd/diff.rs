//! `ckb diff`: compare two snapshots of one repository (files, symbols, public API, impact, risk)
//! and print a PR comment (markdown, bounded by `--max-chars`) or the full facts (JSON).

use std::path::PathBuf;
use std::process::ExitCode;

use queries::diff::{self, DEFAULT_MAX_CHARS};
use queries::envelope::render::{self, Format};
use queries::{Answer, QueryError, Snapshot};

use crate::{emit, finish_output, Failure};

/// Arguments of `ckb diff`.
#[derive(clap::Args)]
pub struct Args {
    /// The older snapshot folder (…/repo=<id>/commit=<sha>), usually the PR's merge base.
    base: PathBuf,
    /// The newer snapshot folder, usually the PR's head.
    head: PathBuf,
    /// Output: a PR comment (markdown, bounded by --max-chars) or the full facts (json, never truncated).
    #[arg(long, value_enum, default_value_t = DiffFormat::Markdown)]
    format: DiffFormat,
    /// Most characters (Unicode scalar values) of the markdown output; ignored for JSON.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CHARS)]
    max_chars: usize,
    /// Leave the impact graph (a Mermaid block) out of the markdown.
    #[arg(long)]
    no_graph: bool,
}

/// Output formats of `ckb diff`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    /// A pull-request comment.
    Markdown,
    /// Canonical JSON with every fact.
    Json,
}

/// Runs `ckb diff`.
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let format = match args.format {
        DiffFormat::Markdown => Format::Markdown,
        DiffFormat::Json => Format::Json,
    };
    let fail = |e| Failure::new(e, format);
    let text = match args.format {
        DiffFormat::Json => render::answer(&answer(&args).map_err(fail)?, Format::Json),
        DiffFormat::Markdown => {
            let (base, head) = open(&args).map_err(fail)?;
            let report = diff::diff(&base, &head).map_err(fail)?;
            diff::markdown::render(
                &report,
                &diff::markdown::Options {
                    max_chars: args.max_chars,
                    graph: !args.no_graph,
                },
            )
            .map_err(fail)?
        }
    };
    finish_output(emit(&text))
}

fn open(args: &Args) -> Result<(Snapshot, Snapshot), QueryError> {
    Ok((Snapshot::open(&args.base)?, Snapshot::open(&args.head)?))
}

/// The diff's facts as the JSON envelope (what `--format json` prints; `ckb mcp`'s `diff` tool).
pub fn answer(args: &Args) -> Result<Answer, QueryError> {
    let (base, head) = open(args)?;
    let report = diff::diff(&base, &head)?;
    Ok(diff::answer(&report, &base, &head))
}
