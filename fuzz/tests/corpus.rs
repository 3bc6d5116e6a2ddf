//! Replays every committed input of every fuzz target — the seeds in `fuzz/corpus/<target>/` and
//! the inputs that once crashed it in `fuzz/regressions/<target>/` — through the same function the
//! fuzzer calls, so a fixed crash stays fixed under a plain `cargo test`.

use std::path::PathBuf;

fn inputs(kind: &str, target: &str) -> Vec<PathBuf> {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo test"))
        .join(kind)
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.is_file() && p.file_name().is_none_or(|n| n != "README.md"));
    files.sort();
    files
}

#[test]
fn every_seed_and_past_crash_runs_clean() {
    for (target, run) in ckb_fuzz::TARGETS {
        let seeds = inputs("corpus", target);
        assert!(
            !seeds.is_empty(),
            "fuzz/corpus/{target}/ holds no seed: run ci/fuzz-seeds.sh"
        );
        for input in seeds.iter().chain(&inputs("regressions", target)) {
            let data = std::fs::read(input).expect("read input");
            run(&data);
        }
    }
}

#[test]
fn every_target_has_an_entry_point() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("fuzz_targets");
    for (target, _) in ckb_fuzz::TARGETS {
        assert!(
            dir.join(format!("{target}.rs")).is_file(),
            "fuzz/fuzz_targets/{target}.rs is missing"
        );
    }
}

/// A seed index whose documents the stage skips would leave the mapping unfuzzed.
#[test]
fn scip_seeds_reach_the_mapping() {
    for seed in inputs("corpus", "scip_index") {
        let data = std::fs::read(&seed).expect("read seed");
        let mapped = ckb_fuzz::scip_symbols_mapped(&data);
        assert!(
            mapped.is_some_and(|n| n > 3),
            "{} maps {mapped:?} symbols",
            seed.display()
        );
    }
}
