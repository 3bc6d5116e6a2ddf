//! `ckb verify`: check a snapshot's files against its manifest and the declared schema, and
//! every table's rows against its declared order and unique key.

use std::path::PathBuf;
use std::process::ExitCode;

use output_schema::verify::{verify_snapshot, Depth};
use output_schema::ErrorCode;
use queries::envelope::render::Format;
use queries::QueryError;

use crate::{emit, finish_output, Failure};

/// Arguments of `ckb verify`.
#[derive(clap::Args)]
pub struct Args {
    /// Snapshot folder (…/repo=<id>/commit=<state>).
    snapshot: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `ckb verify`; exits 1 with SNAPSHOT_CORRUPT when any file is wrong.
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let format = Format::json_if(args.json);
    // Held while the files are checked: `ckb store gc` keeps a snapshot being read.
    let _snapshot = queries::Snapshot::open(&args.snapshot).map_err(|e| Failure::new(e, format))?;
    let report = verify_snapshot(&args.snapshot, Depth::Rows)
        .map_err(|e| Failure::new(QueryError::from_format("manifest", e), format))?;
    let bad: Vec<String> = report
        .files
        .iter()
        .filter(|f| !f.ok)
        .map(|f| {
            format!(
                "{} ({}): {}",
                f.name,
                f.file,
                f.problem.as_deref().unwrap_or("?")
            )
        })
        .collect();
    let text = if args.json {
        output_schema::json::to_string_pretty(&report).unwrap_or_default() + "\n"
    } else {
        let mut s = String::new();
        for f in &report.files {
            s.push_str(&format!(
                "{} {:<13} {}\n",
                if f.ok { "ok  " } else { "FAIL" },
                f.name,
                f.problem.as_deref().unwrap_or(&f.file)
            ));
        }
        s
    };
    if bad.is_empty() {
        return finish_output(emit(&text));
    }
    if args.json {
        let _ = emit(&text);
    } else {
        eprint!("{text}");
    }
    Err(Failure::new(
        QueryError::new(
            ErrorCode::SnapshotCorrupt,
            format!(
                "{} file(s) do not match the manifest: {}",
                bad.len(),
                bad.join("; ")
            ),
            "rebuild the snapshot with `ckb snapshot --force`",
        ),
        Format::Human,
    ))
}
