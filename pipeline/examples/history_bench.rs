//! Driver for `ci/bench-history.sh`: snapshots a repository with only the git history stage and
//! prints one JSON line (commits, reused, diffed, stage milliseconds). With `--dump FILE` it also
//! writes the `file_changes` rows as `sha<TAB>additions<TAB>deletions<TAB>path` (`-` for binary
//! files), the shape of `git log --numstat`, and the window's commits to `FILE.commits`, so the
//! script can compare the two. `--fetch-missing` is `ckb snapshot --history-fetch-missing`
//! (`ci/bench-history-partial.sh`); the line then also gives the fetch's milliseconds.
//!
//! Usage: history_bench --repo DIR --store DIR [--days N] [--max-commits N] [--first-parent]
//!        [--no-previous] [--fetch-missing] [--dump FILE]

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use output_schema::tables::{CommitRow, FileChangeRow};
use output_schema::Stage;
use pipeline::{NoProgress, PreviousChoice, SnapshotOptions, SnapshotOutcome};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("history_bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let mut opts = SnapshotOptions {
        stages: Some(vec![Stage::Git]),
        force: true,
        repo_id: Some("bench".into()),
        ..SnapshotOptions::default()
    };
    let mut dump: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--repo" => opts.root = PathBuf::from(value()?),
            "--store" => opts.out = Some(PathBuf::from(value()?)),
            "--days" => {
                opts.history_days = Some(value()?.parse().map_err(|e| format!("--days: {e}"))?)
            }
            "--max-commits" => {
                opts.max_commits = Some(
                    value()?
                        .parse()
                        .map_err(|e| format!("--max-commits: {e}"))?,
                )
            }
            "--first-parent" => opts.first_parent = Some(true),
            "--no-previous" => opts.previous = PreviousChoice::Disabled,
            "--fetch-missing" => opts.history_fetch_missing = true,
            "--dump" => dump = Some(PathBuf::from(value()?)),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    let outcome = pipeline::snapshot(&opts, &NoProgress).map_err(|e| e.to_string())?;
    let SnapshotOutcome::Written { snapshot, timings } = outcome else {
        return Err("snapshot already existed".into());
    };
    let report = &snapshot.manifest.stages["git"];
    let millis = |stage: &str| {
        timings
            .iter()
            .find(|(name, _)| name == stage)
            .map(|(_, d)| d.as_secs_f64() * 1000.0)
            .unwrap_or_default()
    };
    let count = |k: &str| report.counts.get(k).copied().unwrap_or(0);
    println!(
        "{{\"commits\":{},\"reused\":{},\"diffed\":{},\"fileChanges\":{},\"withoutLineCounts\":{},\"objectsFetched\":{},\"gitStageMillis\":{:.1},\"fetchMillis\":{:.1}}}",
        count("commits"),
        count("commits.reused"),
        count("commits.diffed"),
        count("file-changes"),
        count("file-changes.without-line-counts"),
        count("objects.fetched"),
        millis("git"),
        millis("git.fetch-missing"),
    );
    if let Some(path) = dump {
        let commits: Vec<CommitRow> =
            output_schema::parquet_io::read_table(&snapshot.dir.join("commits.parquet"))
                .map_err(|e| e.to_string())?;
        let list: String = commits.iter().map(|c| format!("{}\n", c.sha)).collect();
        let list_path = PathBuf::from(format!("{}.commits", path.display()));
        std::fs::write(&list_path, list).map_err(|e| format!("{}: {e}", list_path.display()))?;
        let rows: Vec<FileChangeRow> =
            output_schema::parquet_io::read_table(&snapshot.dir.join("file_changes.parquet"))
                .map_err(|e| e.to_string())?;
        let mut out = std::io::BufWriter::new(
            std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?,
        );
        let num = |n: Option<i64>| n.map_or_else(|| "-".to_string(), |n| n.to_string());
        for r in rows {
            writeln!(
                out,
                "{}\t{}\t{}\t{}",
                r.sha,
                num(r.additions),
                num(r.deletions),
                r.path
            )
            .map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}
