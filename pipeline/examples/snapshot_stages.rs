//! Runs `pipeline::snapshot` with chosen stages, for benchmarks that must not wait for the `ckb`
//! binary (which links DuckDB). Prints the snapshot folder and the per-stage timings on stderr.
//!
//! Usage: `snapshot_stages <repo> --out <store> [--stages scan,syntax] [--no-previous |
//! --previous <snapshot dir>] [--repo-id ID] [--threads N] [--force] [--scip FILE]...
//! [--scip-commit SHA] [--no-scip]`

use std::path::PathBuf;

use output_schema::Stage;
use pipeline::{snapshot, NoProgress, PreviousChoice, SnapshotOptions};

fn main() {
    // As `ckb snapshot` does.
    pipeline::allocator::keep_freed_memory();
    let mut opts = SnapshotOptions::default();
    let mut args = std::env::args().skip(1);
    let mut root = None;
    while let Some(a) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| usage(&format!("{a} needs a value")))
        };
        match a.as_str() {
            "--out" => opts.out = Some(PathBuf::from(value())),
            "--stages" => {
                let list = value();
                opts.stages = Some(
                    list.split(',')
                        .map(|s| {
                            Stage::from_name(s)
                                .unwrap_or_else(|| usage(&format!("unknown stage {s}")))
                        })
                        .collect(),
                );
            }
            "--previous" => opts.previous = PreviousChoice::Explicit(PathBuf::from(value())),
            "--no-previous" => opts.previous = PreviousChoice::Disabled,
            "--repo-id" => opts.repo_id = Some(value()),
            "--threads" => opts.threads = value().parse().ok(),
            "--force" => opts.force = true,
            "--scip" => opts.scip.push(PathBuf::from(value())),
            "--scip-commit" => opts.scip_commit = Some(value()),
            "--no-scip" => opts.no_scip = true,
            _ if root.is_none() && !a.starts_with("--") => root = Some(PathBuf::from(&a)),
            _ => usage(&format!("unexpected argument {a}")),
        }
    }
    opts.root = root.unwrap_or_else(|| usage("missing repository path"));
    match snapshot(&opts, &NoProgress) {
        Ok(outcome) => {
            println!("{}", outcome.snapshot().dir.display());
            if let pipeline::SnapshotOutcome::Written { timings, .. } = outcome {
                for (stage, d) in timings {
                    eprintln!("{stage}: {} ms", d.as_millis());
                }
            }
        }
        Err(e) => {
            eprintln!("error [{:?}]: {e}\n{}", e.code(), e.remediation());
            std::process::exit(1);
        }
    }
}

fn usage(message: &str) -> ! {
    eprintln!("{message}\nusage: snapshot_stages <repo> --out <store> [--stages scan,syntax] [--no-previous | --previous DIR] [--repo-id ID] [--threads N] [--force] [--scip FILE]... [--scip-commit SHA] [--no-scip]");
    std::process::exit(2);
}
