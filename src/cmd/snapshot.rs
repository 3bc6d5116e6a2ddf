//! `ckb snapshot`: build a snapshot of a repository and publish it in the store.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use output_schema::manifest::StageStatus;
use output_schema::Stage;
use pipeline::{PreviousChoice, SnapshotOptions, SnapshotOutcome};
use queries::envelope::render::Format;
use serde_json::json;

use crate::progress::{Bars, ProgressMode};
use crate::{emit, finish_output, Failure};

/// Arguments of `ckb snapshot`.
#[derive(clap::Args)]
pub struct Args {
    /// Repository (or plain folder) to snapshot.
    #[arg(default_value = ".")]
    path: PathBuf,
    /// Snapshot store folder [default: $CKB_STORE, else `store` in .ckb/config.json (inside the
    /// repository), else <PATH>/.ckb/snapshots].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Repository ID used in the store and in stable IDs [default: config, else origin remote name, else folder name].
    #[arg(long, value_name = "ID")]
    repo_id: Option<String>,
    /// Comma-separated stages to run: scan, syntax, scip, git, identity, modules [default: all, or config].
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    stages: Option<Vec<String>>,
    /// Worker threads [default: all cores]. Output is identical for any value.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Rebuild even if a snapshot of this exact state exists.
    #[arg(long)]
    force: bool,
    /// Skip files larger than this many bytes [default: 1048576, or config].
    #[arg(long, value_name = "BYTES")]
    max_file_size: Option<u64>,
    /// Build against this previous snapshot folder (identity, incremental reuse).
    #[arg(long, value_name = "DIR", conflicts_with = "no_previous")]
    previous: Option<PathBuf>,
    /// Build from scratch, ignoring earlier snapshots.
    #[arg(long)]
    no_previous: bool,
    /// Seconds to wait for another writer of the same snapshot.
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    lock_timeout: u64,
    /// Privacy mode: `standard`, or `anonymized` (names and paths hashed with the secret in CKB_SALT).
    #[arg(long, value_name = "MODE")]
    privacy: Option<String>,
    /// SCIP index to read (repeatable, one per language/indexer) [default: discover index.scip,
    /// .scip/*.scip and .ckb/*.scip under PATH].
    #[arg(long, value_name = "FILE")]
    scip: Vec<PathBuf>,
    /// Read no SCIP index, not even discovered ones.
    #[arg(long, conflicts_with = "scip")]
    no_scip: bool,
    /// Run `ckb index` first (every installed indexer, with its defaults; the report goes to
    /// stderr), then snapshot with the indexes it wrote.
    #[arg(long, conflicts_with_all = ["scip", "no_scip"])]
    index: bool,
    /// The commit the SCIP indexes describe [default: a `<index>.commit` sidecar file, if any].
    #[arg(long, value_name = "SHA")]
    scip_commit: Option<String>,
    /// Days of history before HEAD's committer time [default: 365, or config history.days]; 0 = no limit.
    #[arg(long, value_name = "N")]
    history_days: Option<u32>,
    /// Most commits in the history window [default: no limit, or config history.maxCommits].
    #[arg(long, value_name = "N")]
    max_commits: Option<u32>,
    /// Follow only first parents in the history walk (merges are always diffed against their first parent).
    #[arg(long)]
    first_parent: bool,
    /// In a partial clone (blobless, treeless), let your `git` fetch the trees and blobs the history
    /// window lacks from the promisor remote, in one batch, before the line counts are taken.
    /// Off by default: a snapshot never reaches the network by itself.
    #[arg(long)]
    history_fetch_missing: bool,
    /// Also write each table as zstd-compressed JSON Lines (`<table>.jsonl.zst`) for consumers without Parquet.
    #[arg(long)]
    json_tables: bool,
    /// When to show progress bars on stderr.
    #[arg(long, value_enum, default_value_t = ProgressMode::Auto)]
    progress: ProgressMode,
    /// Print a machine-readable summary on stdout instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `ckb snapshot`.
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let format = Format::json_if(args.json);
    let stages = match &args.stages {
        None => None,
        Some(names) => Some(
            names
                .iter()
                .map(|n| {
                    Stage::from_name(n.trim()).ok_or_else(|| {
                        super::invalid(
                            format!("--stages: unknown stage {n:?}"),
                            &format!("valid stages: {}", Stage::names_list()),
                            format,
                        )
                    })
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
    };
    // The caller's choice, taken as given (the config's `store` is checked by the pipeline).
    let out = args.out.clone().or_else(crate::locate::store_from_env);
    let index_report = if args.index {
        let settings =
            super::index::Settings::defaults(args.path.clone(), out.clone(), args.progress);
        let report = super::index::index(&settings, format)?;
        if report.cancelled {
            let _ = std::io::stderr().write_all(super::index::render(&report).as_bytes());
            return Ok(ExitCode::from(130));
        }
        if !args.json {
            let _ = std::io::stderr().write_all(super::index::render(&report).as_bytes());
        }
        Some(report)
    } else {
        None
    };
    let opts = SnapshotOptions {
        root: args.path.clone(),
        out,
        repo_id: args.repo_id.clone(),
        stages,
        force: args.force,
        max_file_bytes: args.max_file_size,
        threads: args.threads,
        previous: match (&args.previous, args.no_previous) {
            (Some(dir), _) => PreviousChoice::Explicit(dir.clone()),
            (None, true) => PreviousChoice::Disabled,
            (None, false) => PreviousChoice::Auto,
        },
        lock_timeout: Some(Duration::from_secs(args.lock_timeout)),
        privacy: args.privacy.clone(),
        json_tables: args.json_tables,
        history_days: args.history_days,
        max_commits: args.max_commits,
        first_parent: args.first_parent.then_some(true),
        history_fetch_missing: args.history_fetch_missing,
        scip: args.scip.clone(),
        no_scip: args.no_scip,
        scip_commit: args.scip_commit.clone(),
    };
    let bars = Bars::new(args.progress);
    let outcome =
        pipeline::snapshot(&opts, &bars).map_err(|e| super::pipeline_failure(e, format))?;
    let (status, snapshot) = match &outcome {
        SnapshotOutcome::Written { snapshot, .. } => ("written", snapshot),
        SnapshotOutcome::Existing { snapshot } => ("existing", snapshot),
    };
    let m = &snapshot.manifest;
    let path = snapshot.dir.display().to_string();
    let text = if args.json {
        let stages: serde_json::Map<String, serde_json::Value> = m
            .stages
            .iter()
            .map(|(k, r)| (k.clone(), json!(stage_status(r.status))))
            .collect();
        let tables: Vec<serde_json::Value> = m
            .tables
            .iter()
            .map(|t| json!({"name": t.name, "rows": t.rows, "bytes": t.bytes}))
            .collect();
        output_schema::json::to_string_pretty(&json!({
            "index": index_report,
            "status": status,
            "snapshot": path,
            "repoId": m.repo_id,
            "snapshotId": m.snapshot_id,
            "repoStateId": m.repo_state.repo_state_id,
            "dirty": m.repo_state.dirty,
            "stages": stages,
            "tables": tables,
        }))
        .unwrap_or_default()
            + "\n"
    } else {
        let mut s = String::new();
        if status == "existing" {
            s.push_str("snapshot of this state already exists (use --force to rebuild)\n");
        }
        s.push_str(&format!(
            "repo {}  state {}{}\n",
            m.repo_id,
            m.snapshot_id,
            if m.repo_state.dirty { " (dirty)" } else { "" }
        ));
        for (name, r) in &m.stages {
            // A partial stage says why through its completeness (`blobless-clone`, …).
            let partial_reason = r
                .completeness
                .as_ref()
                .filter(|_| r.status == StageStatus::Partial)
                .map(|c| c.reason.as_str());
            let reason = r
                .reason
                .as_deref()
                .or(partial_reason)
                .map(|x| format!(" ({x})"))
                .unwrap_or_default();
            s.push_str(&format!(
                "  {name:<9} {:<8} {} items{reason}\n",
                stage_status(r.status),
                r.items
            ));
        }
        for t in &m.tables {
            s.push_str(&format!(
                "  {:<13} {:>9} rows {:>10} bytes\n",
                t.name, t.rows, t.bytes
            ));
        }
        s.push_str(&path);
        s.push('\n');
        s
    };
    finish_output(emit(&text))
}

fn stage_status(s: StageStatus) -> &'static str {
    match s {
        StageStatus::Ok => "ok",
        StageStatus::Partial => "partial",
        StageStatus::Skipped => "skipped",
        StageStatus::NotRun => "not-run",
    }
}
