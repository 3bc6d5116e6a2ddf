//! `ckb store …`: looking after a snapshot store. `ckb store gc` removes what writers that died
//! left behind and prunes snapshots by retention rules; the logic is `pipeline::gc`, this file
//! parses the flags and renders the report (text, or canonical JSON with `--json`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use pipeline::gc::{GcOptions, GcReport, Retention, SnapshotAction};
use pipeline::leftovers::LeftoverAction;
use pipeline::store::Store;
use queries::envelope::render::{self, Format};

use crate::locate::{repo_root, store_for, store_from_env};
use crate::{emit, finish_output, Failure};

/// Arguments of `ckb store`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: StoreCommand,
}

#[derive(clap::Subcommand)]
enum StoreCommand {
    /// Remove what killed writers left (temporary folders, stale locks, half-written caches) and,
    /// given a retention rule, prune old snapshots. Rules combine: a snapshot any rule keeps stays.
    Gc(GcArgs),
}

#[derive(clap::Args)]
struct GcArgs {
    /// Snapshot store [default: $CKB_STORE, else `store` in .ckb/config.json (inside the
    /// repository), else <repo>/.ckb/snapshots].
    #[arg(long, value_name = "DIR")]
    store: Option<PathBuf>,
    /// Only this repository of the store (repeatable) [default: every repository].
    #[arg(long = "repo-id", value_name = "ID")]
    repo_ids: Vec<String>,
    /// Keep the N newest snapshots of each branch head (detached checkouts count as one head).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    keep_last: Option<u64>,
    /// Keep one snapshot per N commits of first-parent history: the oldest of commits 1..N,
    /// N+1..2N, … (stable: a later gc keeps the same ones).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    keep_every: Option<u64>,
    /// Keep snapshots whose head commit is younger than D days.
    #[arg(long, value_name = "D", value_parser = clap::value_parser!(u64).range(1..))]
    keep_days: Option<u64>,
    /// Also remove a repository's newest snapshot when no rule keeps it (kept by default).
    #[arg(long)]
    no_keep_newest: bool,
    /// Report what would be removed; change nothing.
    #[arg(long)]
    dry_run: bool,
    /// Seconds to wait for SQL sessions over the whole store to end before keeping every
    /// snapshot this time.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    lock_timeout: u64,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    json: bool,
}

/// Runs `ckb store …`.
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    match args.command {
        StoreCommand::Gc(gc) => run_gc(gc),
    }
}

fn run_gc(args: GcArgs) -> Result<ExitCode, Failure> {
    let format = Format::json_if(args.json);
    let dir = match args.store.clone().or_else(store_from_env) {
        Some(dir) => dir,
        None => store_for(&repo_root(None), None).map_err(|e| Failure::new(e, format))?,
    };
    // The clock is the caller's: gc measures ages from now, and only the report shows them.
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    let opts = GcOptions {
        repos: args.repo_ids.clone(),
        retention: Retention {
            keep_last: args.keep_last,
            keep_every: args.keep_every,
            keep_days: args.keep_days,
            keep_newest: !args.no_keep_newest,
        },
        dry_run: args.dry_run,
        now,
        lock_timeout: Duration::from_secs(args.lock_timeout),
    };
    let report = pipeline::gc::gc(&Store::new(&dir), &opts)
        .map_err(|e| super::pipeline_failure(e, format))?;
    let text = if args.json {
        let mut value = serde_json::to_value(&report).unwrap_or_default();
        value["store"] = serde_json::Value::String(dir.display().to_string());
        output_schema::json::to_string_pretty(&value).unwrap_or_default() + "\n"
    } else {
        human(&dir, &report)
    };
    let failed = report
        .snapshots
        .iter()
        .any(|s| s.reasons.contains(&"remove-failed"))
        || report
            .leftovers
            .iter()
            .any(|l| l.action == LeftoverAction::Failed);
    match finish_output(emit(&text)) {
        // What could not be removed is in the report; the exit code tells CI.
        Ok(_) if failed => Ok(ExitCode::from(1)),
        other => other,
    }
}

/// The report for a person: one line per snapshot and leftover, then the sums.
fn human(store: &std::path::Path, report: &GcReport) -> String {
    let mut s = format!(
        "store {}{}\n",
        store.display(),
        if report.dry_run {
            " (dry run: nothing changed)"
        } else {
            ""
        }
    );
    if !report.retention.prunes() {
        s.push_str(
            "no retention rule (--keep-last, --keep-every, --keep-days): no snapshot is removed\n",
        );
    }
    let mut repo = "";
    for v in &report.snapshots {
        if v.repo != repo {
            repo = &v.repo;
            s.push_str(&format!("repo={repo}\n"));
        }
        let action = match v.action {
            SnapshotAction::Kept => "keep",
            SnapshotAction::Removed => "removed",
            SnapshotAction::WouldRemove => "would remove",
        };
        let date = v.time.map(render::utc_date).unwrap_or_else(|| "?".into());
        let age = v.age_days.map(|d| format!(" ({d} d)")).unwrap_or_default();
        let head = v.head_ref.as_deref().unwrap_or("(detached)");
        let name = v.path.rsplit('/').next().unwrap_or(&v.path);
        s.push_str(&format!(
            "  {action:<12} {name}  {date}{age}  {head}  {}{}\n",
            v.reasons.join(", "),
            v.problem
                .as_deref()
                .map(|p| format!(": {p}"))
                .unwrap_or_default()
        ));
    }
    if !report.leftovers.is_empty() {
        s.push_str("leftovers of writers\n");
    }
    for l in &report.leftovers {
        let action = match l.action {
            LeftoverAction::Kept => "keep",
            LeftoverAction::Removed => "removed",
            LeftoverAction::Restored => "restored",
            LeftoverAction::WouldRemove => "would remove",
            LeftoverAction::WouldRestore => "would restore",
            LeftoverAction::Failed => "FAILED",
        };
        s.push_str(&format!(
            "  {action:<12} {}  {}  {}: {}\n",
            l.path,
            l.kind,
            bytes(l.bytes),
            l.reason
        ));
    }
    let t = &report.totals;
    s.push_str(&format!(
        "snapshots: {} kept, {} {}; leftovers: {} {}, {} restored, {} kept; {} {}\n",
        t.snapshots_kept,
        t.snapshots_removed,
        if report.dry_run {
            "to remove"
        } else {
            "removed"
        },
        t.leftovers_removed,
        if report.dry_run {
            "to remove"
        } else {
            "removed"
        },
        t.leftovers_restored,
        t.leftovers_kept,
        bytes(t.bytes_freed),
        if report.dry_run { "to free" } else { "freed" },
    ));
    s
}

/// A byte count for people (`4.0 KiB`).
fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        for (n, written) in [(12, "12 B"), (4096, "4.0 KiB"), (3 << 20, "3.0 MiB")] {
            assert_eq!(bytes(n), written);
        }
    }
}
