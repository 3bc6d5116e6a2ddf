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

/// Asserts that the committed seed `fuzz/corpus/<target>/<name>` is `seed`, the bytes a target's
/// own function writes (`CKB_UPDATE_GOLDEN=1` writes them there first).
fn assert_seed_is_current(target: &str, name: &str, seed: &[u8]) {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo test"))
        .join("corpus")
        .join(target);
    let path = dir.join(name);
    if std::env::var_os("CKB_UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(&dir).expect("the seed folder");
        std::fs::write(&path, seed).expect("write the seed");
    }
    assert_eq!(
        std::fs::read(&path).ok().as_deref(),
        Some(seed),
        "{} is stale: CKB_UPDATE_GOLDEN=1 cargo test -p ckb-fuzz",
        path.display()
    );
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

/// The table seeds are files ckb wrote: every reader's checks (footer, chunks, page headers,
/// page sizes, rows, and `ckb verify`'s order and unique key) must let them through and every
/// row the footer declares decode, or the checks refuse ckb's own output. (Some seeds are tables
/// the fixture leaves empty.)
#[test]
fn table_seeds_pass_the_checks_and_decode() {
    let scratch = tempfile::tempdir().expect("scratch folder");
    let mut total = 0;
    for seed in inputs("corpus", "table_parquet") {
        let data = std::fs::read(&seed).expect("read seed");
        let rows = ckb_fuzz::table_rows(&data);
        let file = scratch.path().join("seed.parquet");
        std::fs::write(&file, &data[1..]).expect("write seed");
        let footer = output_schema::parquet_io::load_metadata(&std::fs::File::open(&file).unwrap())
            .map(|m| m.metadata().file_metadata().num_rows() as usize);
        assert_eq!(
            rows.as_ref().ok(),
            footer.as_ref().ok(),
            "{}: {rows:?}",
            seed.display()
        );
        total += rows.unwrap_or(0);
    }
    assert!(total > 0, "the table seeds hold no rows");
}

/// The cache seeds are caches ckb wrote: each reader accepts them (a seed it refused would leave
/// the reader past its checks unfuzzed) and finds something in them.
#[test]
fn cache_seeds_are_accepted() {
    let seeds = inputs("corpus", "cache_entry");
    let kinds: std::collections::BTreeSet<u8> = seeds
        .iter()
        .map(|s| std::fs::read(s).expect("read seed")[0])
        .collect();
    assert_eq!(kinds, [0, 1, 2].into(), "a seed of every kind");
    for seed in seeds {
        let data = std::fs::read(&seed).expect("read seed");
        let accepted = ckb_fuzz::cache_entry_read(&data);
        assert!(
            accepted.as_ref().is_ok_and(|&n| n > 0),
            "{}: {accepted:?}",
            seed.display()
        );
    }
}

/// The table cache seed is the writer's own file of the rows the target encodes, so that the
/// copying path is what the fuzzer starts from (`CKB_UPDATE_GOLDEN=1` rewrites it); it is copied
/// into the table written around it, which decodes to those rows.
#[test]
fn the_table_cache_seed_is_the_writers_own_file_and_copied() {
    let seed = ckb_fuzz::table_cache_seed();
    assert_seed_is_current("table_cache", "files", &seed);
    assert_eq!(ckb_fuzz::table_cache_read(&seed), Ok(3));
    // A file of other rows (one row more) is not copied: the writer encodes afresh.
    let mut other = ckb_fuzz::cached_group_rows();
    other.push(other[0].clone());
    other[3].path = "src/g.rs".into();
    let other = output_schema::parquet_io::encode_table(&mut other).unwrap();
    assert_eq!(
        ckb_fuzz::table_cache_read(&other),
        Err("encoded afresh".into())
    );
}

/// The modules seeds are small repositories of every ecosystem the stage reads, written by
/// `ckb_fuzz::modules_seeds` (`CKB_UPDATE_GOLDEN=1` rewrites them): each manifest in them parses,
/// modules come from manifests (or the config's roots), and imports resolve, so the fuzzer
/// starts past every reader.
#[test]
fn the_modules_seeds_are_current_and_reach_every_reader() {
    for (name, seed) in ckb_fuzz::modules_seeds() {
        assert_seed_is_current("modules", name, &seed);
        let run = ckb_fuzz::modules_run(&seed);
        assert_eq!(
            run.files,
            ckb_fuzz::decode_repo(&seed).len(),
            "{name}: every file is scanned"
        );
        assert!(run.manifests_read > 0, "{name}: {run:?}");
        assert_eq!(run.manifests_malformed, 0, "{name}: {run:?}");
        // Config roots win over manifests: that seed's modules are the config's.
        let declared = if name == "config-roots" {
            run.config_modules
        } else {
            run.manifest_modules
        };
        assert!(declared > 1, "{name}: {run:?}");
        assert!(run.imports_resolved > 2, "{name}: {run:?}");
    }
}

/// The syntax seeds are each language's golden sample alone and all of them in one repository
/// with files that use one another, written by `ckb_fuzz::syntax_seeds` (`CKB_UPDATE_GOLDEN=1`
/// rewrites them): every file parses into definitions, and the shared one resolves references
/// and calls across files, so the fuzzer starts past the extraction and the resolution.
#[test]
fn the_syntax_seeds_are_current_and_reach_the_resolution() {
    let seeds = ckb_fuzz::syntax_seeds();
    assert_eq!(seeds.len(), 10, "nine languages and the repository of all");
    for (name, seed) in seeds {
        assert_seed_is_current("syntax", name, &seed);
        let written = ckb_fuzz::decode_repo(&seed).len();
        let run = ckb_fuzz::syntax_run(&seed);
        assert_eq!(
            run.parsed_files, written,
            "{name}: every file parsed: {run:?}"
        );
        assert!(run.symbols > 3, "{name}: {run:?}");
        if name == "all-languages" {
            assert!(run.cross_file_references > 5, "{name}: {run:?}");
            assert!(run.resolved_calls > 5, "{name}: {run:?}");
        }
    }
}

/// The seeds of `snapshot` and `scip_snapshot` are small repositories with a change that edits,
/// adds or removes files (and, for `scip_snapshot`, an index recipe), written by their targets'
/// functions (`CKB_UPDATE_GOLDEN=1` rewrites them). Each is snapshotted and the warm run of its
/// change reuses files, so the fuzzer starts at the reuse; with SCIP, the first snapshot also
/// reads the index's documents (one seed's two indexes', the second's reference linked to the
/// first's definition), the merge matches definitions with tree-sitter's, and the warm run takes
/// documents from the SCIP document cache.
#[test]
fn the_snapshot_seeds_are_current_and_reach_the_reuse_and_the_merge() {
    let targets = [
        (
            "snapshot",
            ckb_fuzz::snapshot_seeds(),
            ckb_fuzz::snapshot_run as fn(&[u8]) -> _,
        ),
        (
            "scip_snapshot",
            ckb_fuzz::scip_snapshot_seeds(),
            ckb_fuzz::scip_snapshot_run,
        ),
    ];
    for (target, seeds, run) in targets {
        for (name, seed) in seeds {
            assert_seed_is_current(target, name, &seed);
            let run = run(&seed);
            assert!(run.written && run.tables > 10, "{name}: {run:?}");
            assert!(run.reused_files > 0, "{name}: {run:?}");
            if target == "scip_snapshot" {
                let merged = run.scip_documents > 1 && run.scip_matched > 2;
                assert!(merged && run.scip_documents_reused > 0, "{name}: {run:?}");
                let two = name.contains("two-indexes");
                assert_eq!(run.scip_indexes, if two { 2 } else { 1 }, "{name}: {run:?}");
                assert_eq!(run.scip_linked > 0, two, "{name}: {run:?}");
            }
        }
    }
}
