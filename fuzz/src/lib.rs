//! What each fuzz target feeds its bytes to, and what must hold whatever the bytes are.
//!
//! Every reader of untrusted input gets one function here: SCIP index files and SCIP symbol
//! strings (written by any indexer version), a previous snapshot's manifest and Parquet tables
//! (pulled from an artifact store), `.ckb/config.json` (part of the repository, so of any pull
//! request), a repository's source files, build manifests and import strings (the same), a whole
//! snapshot of one before and after a change (with a SCIP index of it, too), the scan cache and
//! the syntax, SCIP document and table caches. Each function must return normally for every
//! input: a panic, an abort, an out-of-memory or a hang is a finding.
//! Where a reader accepts the input, the function also checks what acceptance promises (a
//! decoded manifest encodes and decodes to itself; SCIP rows only name files of the scan; a
//! cached SCIP document names its own file).
//!
//! The binaries in `fuzz_targets/` are libFuzzer entry points around these functions, built
//! with coverage instrumentation by `ci/fuzz.sh` on the stable toolchain; `tests/corpus.rs`
//! replays every committed seed and every past crash through them under `cargo test`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use output_schema::manifest::{Manifest, RepoState};
use output_schema::parquet_io::read_table;
use output_schema::tables::*;
use output_schema::Table;

mod modules;
mod repo;
mod scip_snapshot;
mod snapshot;
#[cfg(feature = "sql")]
pub mod sql_guard;
mod syntax;

pub use modules::{modules, modules_run, modules_seeds, ModulesRun};
pub use repo::{decode_repo, encode_repo};
pub use scip_snapshot::{scip_snapshot, scip_snapshot_run, scip_snapshot_seeds};
pub use snapshot::{snapshot, snapshot_run, snapshot_seeds, SnapshotRun};
pub use syntax::{syntax, syntax_run, syntax_seeds, SyntaxRun};

/// A scratch folder for the files a reader insists on opening by path, made once per process
/// (in memory where the system has `/dev/shm`) and kept until the process ends.
fn scratch() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let shm = Path::new("/dev/shm");
        let dir = if shm.is_dir() {
            tempfile::Builder::new().prefix("ckb-fuzz-").tempdir_in(shm)
        } else {
            tempfile::Builder::new().prefix("ckb-fuzz-").tempdir()
        };
        dir.expect("a scratch folder for the fuzz inputs")
    })
    .path()
}

/// This thread's folder inside [`scratch`], for the input files: libFuzzer runs one thread,
/// `cargo test` several, and two tests writing one scratch file would read each other's bytes.
fn thread_scratch() -> PathBuf {
    thread_local! {
        static DIR: PathBuf = {
            let dir = scratch().join(format!("{:?}", std::thread::current().id()).replace(|c: char| !c.is_ascii_alphanumeric(), ""));
            std::fs::create_dir_all(&dir).expect("a thread's scratch folder");
            dir
        };
    }
    DIR.with(PathBuf::clone)
}

/// Writes `data` to `name` in the scratch folder and returns its path.
fn scratch_file(name: &str, data: &[u8]) -> PathBuf {
    let path = thread_scratch().join(name);
    let mut file = std::fs::File::create(&path).expect("scratch file");
    file.write_all(data).expect("scratch write");
    path
}

/// The source files of the real-indexer fixtures (`tests/fixtures/scip/`), at the paths their
/// indexes (the `scip_index` seeds) name, so that seeded inputs reach the mapping, not only the
/// reader: a document for a path outside the scan is skipped.
const SCIP_REPO: &[(&str, &str, &str)] = &[
    (
        "main.py",
        "python",
        include_str!("../../tests/fixtures/scip/py/main.py"),
    ),
    (
        "shapes/__init__.py",
        "python",
        include_str!("../../tests/fixtures/scip/py/shapes/__init__.py"),
    ),
    (
        "shapes/geometry.py",
        "python",
        include_str!("../../tests/fixtures/scip/py/shapes/geometry.py"),
    ),
    (
        "src/lib.rs",
        "rust",
        include_str!("../../tests/fixtures/scip/rust/src/lib.rs"),
    ),
    (
        "src/shapes.rs",
        "rust",
        include_str!("../../tests/fixtures/scip/rust/src/shapes.rs"),
    ),
    (
        "src/main.ts",
        "typescript",
        include_str!("../../tests/fixtures/scip/ts/src/main.ts"),
    ),
    (
        "src/shapes.ts",
        "typescript",
        include_str!("../../tests/fixtures/scip/ts/src/shapes.ts"),
    ),
];

/// A SCIP index file as the `scip` stage reads it: over the fixtures' files, the stage either
/// maps the index or refuses it with `SCIP_INVALID`; every row it returns names a file of the
/// scan.
pub fn scip_index(data: &[u8]) {
    let _ = scip_symbols_mapped(data);
}

/// [`scip_index`], returning how many symbols the stage mapped (`None` when it refused the
/// index): the corpus test checks the seeds reach the mapping.
pub fn scip_symbols_mapped(data: &[u8]) -> Option<usize> {
    static REPO: OnceLock<(PathBuf, Vec<FileRow>, RepoState)> = OnceLock::new();
    let (root, files, state) = REPO.get_or_init(|| {
        let root = scratch().join("repo");
        let files = SCIP_REPO
            .iter()
            .map(|(path, language, text)| {
                let file = root.join(path);
                std::fs::create_dir_all(file.parent().expect("a parent")).expect("repo folder");
                std::fs::write(file, text).expect("repo file");
                FileRow {
                    path: (*path).into(),
                    language: Some((*language).into()),
                    size_bytes: text.len() as i64,
                    line_count: text.lines().count() as i64,
                    content_hash: output_schema::manifest::file_hash(text.as_bytes()),
                    module_id: None,
                    is_test: false,
                    is_generated: false,
                }
            })
            .collect();
        // Canonical, as the stage expects its root.
        (
            root.canonicalize().expect("root"),
            files,
            RepoState::default(),
        )
    });
    let index = scratch_file("index.scip", data);
    let input = pipeline::scip::ScipInput {
        root,
        repo_id: "fuzz",
        files,
        repo: None,
        repo_state: state,
        indexed_commit: None,
        config: pipeline::scip::ScipConfig::default(),
        cache: None,
    };
    match pipeline::scip::run(&input, &[index], &pipeline::NoProgress) {
        Ok(out) => {
            let known = |p: &str| files.iter().any(|f| f.path.as_str() == p);
            for s in &out.tables.symbols {
                assert!(
                    known(&s.path),
                    "a SCIP symbol names a file outside the scan"
                );
            }
            for p in &out.tables.covered_paths {
                assert!(known(p), "SCIP covers a file outside the scan");
            }
            Some(out.tables.symbols.len())
        }
        Err(e) => {
            assert_eq!(
                e.code(),
                output_schema::ErrorCode::ScipInvalid,
                "an unusable index is SCIP_INVALID: {e}"
            );
            None
        }
    }
}

/// A SCIP symbol string: the pipeline's parser and the vendored crate's two parsers never panic,
/// and the borrowing parser agrees with the copying one.
pub fn scip_symbol(data: &[u8]) {
    let Ok(symbol) = std::str::from_utf8(data) else {
        return;
    };
    let _ = pipeline::scip::symbols::parse(symbol);
    let owned = scip::symbol::parse_symbol(symbol);
    let borrowed = scip::symbol::parse_symbol_ref(symbol);
    assert_eq!(
        owned.is_ok(),
        borrowed.is_ok(),
        "parse_symbol and parse_symbol_ref disagree on {symbol:?}"
    );
}

/// `manifest.json.zst` of a snapshot: decoding never panics, and a decoded manifest encodes to
/// bytes that decode to the same manifest.
pub fn manifest(data: &[u8]) {
    if let Ok(manifest) = Manifest::decode(data) {
        let again = manifest.encode().expect("a decoded manifest encodes");
        assert_eq!(
            Manifest::decode(&again).expect("an encoded manifest decodes"),
            manifest
        );
    }
}

/// `.ckb/config.json`: parsed, or refused with a message; never a panic.
pub fn config(data: &[u8]) {
    let _ = output_schema::config::Config::parse(data, Path::new(".ckb/config.json"));
}

/// The scan cache beside a store's snapshots: any bytes open as a cache (an unreadable one is
/// empty) that answers lookups.
pub fn scan_cache(data: &[u8]) {
    let file = scratch_file("scan-cache.json.zst", data);
    let cache = pipeline::scan_cache::ScanCache::open(&file, std::time::Duration::from_secs(2));
    let _ = cache.lookup("src/lib.rs", None);
}

/// An entry of the caches beside a store's snapshots (`syntax-cache/`, `scip-cache/`), which may
/// come from an artifact store or a cache restore. The first byte picks what the rest is: `0` a
/// syntax cache blob (the rows of `src/lib.rs`), `1` a SCIP document cache blob, `2` a cache's
/// `index.bin` without its trailing checksum (appended here, so the parser past it is reached,
/// and opened for the identity it names, so the parser past that is too; the table cache's
/// index is such a file as well, its entries are [`table_cache`]'s). Each reader returns what it
/// decoded or an error, never a panic; a SCIP blob that decodes is also checked against the
/// document it would be found for, and a syntax blob's rows must all be rows of its file.
pub fn cache_entry(data: &[u8]) {
    let _ = cache_entry_read(data);
}

/// [`cache_entry`], returning how many rows, facts or index entries the reader accepted, or why
/// it refused the input: the corpus test checks that every seed (a cache ckb wrote) is accepted.
pub fn cache_entry_read(data: &[u8]) -> Result<usize, String> {
    let Some((&kind, rest)) = data.split_first() else {
        return Err("empty".into());
    };
    match kind % 3 {
        0 => {
            let (_, facts) =
                pipeline::syntax::cache::decode(rest, "src/lib.rs").map_err(|e| e.to_string())?;
            assert!(facts.symbols.iter().all(|s| s.path == "src/lib.rs"));
            assert!(facts
                .occurrences
                .iter()
                .all(|o| o.path.as_str() == "src/lib.rs"));
            assert!(facts.imports.iter().all(|i| i.path == "src/lib.rs"));
            Ok(facts.symbols.len() + facts.occurrences.len() + facts.imports.len())
        }
        1 => {
            use pipeline::scip::doc_cache;
            use pipeline::scip::mapping::{self, DocEnv, DocOutcome};
            let (_, outcome) = doc_cache::decode(rest).map_err(|e| e.to_string())?;
            // A document with only `relative_path` (field 1) set.
            let path = b"src/lib.rs";
            let document = [&[0x0a, path.len() as u8][..], path].concat();
            let header = mapping::read_header(&document).expect("its header reads");
            let files = std::collections::HashMap::from([("src/lib.rs".into(), "rust".into())]);
            let covered = std::collections::HashSet::new();
            let env = DocEnv {
                max_occurrences: 5_000_000,
                ..DocEnv::detached(&files, &covered)
            };
            doc_cache::check_place(&outcome, &header, &env).map_err(|e| e.to_string())?;
            match outcome {
                DocOutcome::Facts(facts) => {
                    assert_eq!(facts.path, "src/lib.rs");
                    Ok(facts.symbols.len() + facts.occurrences.len())
                }
                DocOutcome::Skipped(_) => Ok(0),
            }
        }
        _ => {
            // The identity the index names (length-prefixed after the 8-byte magic), when it
            // names one, so that a seed of any build opens past the identity check.
            let identity = rest
                .get(8..)
                .and_then(|after| {
                    // A varint of at most two bytes: identities are short.
                    let (len, after) = match *after {
                        [a, ref after @ ..] if a < 0x80 => (usize::from(a), after),
                        [a, b, ref after @ ..] => {
                            (usize::from(a & 0x7f) | usize::from(b) << 7, after)
                        }
                        _ => return None,
                    };
                    after.get(..len)
                })
                .map(|name| String::from_utf8_lossy(name).into_owned())
                .unwrap_or_default();
            let dir = thread_scratch().join("cache");
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).expect("a scratch cache folder");
            let mut index = rest.to_vec();
            index.extend_from_slice(&blake3::hash(rest).as_bytes()[..16]);
            std::fs::write(dir.join(pipeline::cache_pack::INDEX_FILE), index)
                .expect("scratch write");
            let pack = pipeline::cache_pack::CachePack::open(&dir, &identity);
            // A refused index leaves nothing listed; a listed blob whose segment is missing is a
            // problem, never a panic.
            let problems = pack.problems();
            assert!(problems.is_empty() || pack.is_empty());
            let _ = pack.get(&[0; 16]);
            match problems.first() {
                Some(p) => Err(format!("{}: {}", p.code, p.message)),
                None => Ok(pack.len()),
            }
        }
    }
}

/// A table cache entry (`table-cache/`): the Parquet file of one row group, here of
/// [`cached_group_rows`], which the writer copies into the table it writes when the file's footer
/// passes its checks and encodes afresh otherwise. Never a panic; a fresh encoding is the cold
/// run's, and a table written around a copied group is still one the readers' checks take apart
/// without a panic.
pub fn table_cache(data: &[u8]) {
    let _ = table_cache_read(data);
}

/// The `files` rows whose one row group the [`table_cache`] entries hold.
pub fn cached_group_rows() -> Vec<FileRow> {
    (0..3)
        .map(|i| FileRow {
            path: format!("src/f{i}.rs"),
            language: Some("rust".into()),
            size_bytes: 10 + i,
            line_count: 1 + i,
            content_hash: format!("{i:032x}"),
            module_id: None,
            is_test: i == 2,
            is_generated: false,
        })
        .collect()
}

/// The table cache entry an honest cache holds for [`cached_group_rows`] (the `table_cache`
/// seed): the file of their one row group, as the writer encodes it.
pub fn table_cache_seed() -> Vec<u8> {
    let mut rows = cached_group_rows();
    output_schema::parquet_io::encode_table(&mut rows).expect("the rows encode")
}

/// A table cache that holds one file for every key, and notes whether the writer copied it.
struct OneGroupFile<'a> {
    file: &'a [u8],
    copied: std::sync::atomic::AtomicBool,
}

impl output_schema::row_groups::GroupCache for OneGroupFile<'_> {
    fn get(&self, _: &output_schema::row_groups::GroupKey) -> Option<&[u8]> {
        Some(self.file)
    }
    fn used(&self, _: output_schema::row_groups::GroupKey, encoded: Option<Vec<u8>>) {
        if encoded.is_none() {
            self.copied
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// [`table_cache`], returning how many rows the table written around a copied group holds, or
/// why the group was not copied: the corpus test checks that the seed is copied and decodes.
pub fn table_cache_read(file: &[u8]) -> Result<usize, String> {
    let cache = OneGroupFile {
        file,
        copied: false.into(),
    };
    let mut rows = cached_group_rows();
    let sorted = output_schema::table::SortedRows::sort(&mut rows);
    let written = output_schema::parquet_io::encode_sorted_with(sorted, Some(&cache))
        .map_err(|e| e.to_string())?;
    // Whatever the pages hold, the file around them is one the readers' checks take apart
    // (footer, chunk ranges, page headers) without a panic.
    let path = scratch_file("table-cache.parquet", &written);
    let decoded = read_table::<FileRow>(&path);
    if !cache.copied.load(std::sync::atomic::Ordering::Relaxed) {
        // Encoded afresh: the cold run's rows, whatever the cache held.
        assert_eq!(
            decoded.expect("a fresh encoding decodes"),
            cached_group_rows()
        );
        return Err("encoded afresh".into());
    }
    match decoded {
        Ok(rows) => Ok(rows.len()),
        Err(e) => Err(format!("copied, then unreadable: {e}")),
    }
}

/// One table file, as every reader of table files decodes it: the first byte picks the table,
/// the rest is the file. `output_schema`'s readers (a previous snapshot's rows, serial and
/// parallel) and `queries`' (what `ckb query` reads: rows matching a key, with row groups pruned
/// by statistics or filtered row by row, two-column filters, projections decoded column by
/// column) each return rows or an error, never a panic, a hang or an allocation the file did not
/// pay for.
pub fn table_parquet(data: &[u8]) {
    let _ = table_rows(data);
}

/// [`table_parquet`], returning the rows `read_table` decoded or its error: the corpus test
/// checks that every seed (a table ckb wrote) passes the readers' checks and decodes.
pub fn table_rows(data: &[u8]) -> Result<usize, String> {
    let Some((&pick, file)) = data.split_first() else {
        return Err("empty".into());
    };
    let path = scratch_file("table.parquet", file);
    fn decode<T: Table>(path: &Path) -> Result<usize, String> {
        let read = read_table::<T>(path);
        let rows = read.as_ref().map(Vec::len).map_err(|e| e.to_string());
        let parallel = output_schema::parquet_io::read_table_parallel::<T>(path);
        assert_eq!(
            rows.as_ref().ok(),
            parallel.as_ref().ok().map(Vec::len).as_ref(),
            "the serial and the parallel reader disagree: {rows:?} against {:?}",
            parallel.as_ref().map(Vec::len).map_err(ToString::to_string)
        );
        query_reads::<T>(path);
        // `ckb verify`'s row check reads batch by batch what `read_table` reads whole, and
        // passes exactly when those rows are in order with no key twice.
        let checked = (T::INFO.check_rows)(path);
        match &read {
            Ok(all) => {
                let sound = all
                    .windows(2)
                    .all(|w| w[0].compare(&w[1]).is_le() && !w[0].shares_key(&w[1]));
                assert_eq!(checked.is_ok(), sound, "the row check says {checked:?}");
            }
            Err(e) => assert!(
                checked.is_err(),
                "read_table failed ({e}), the row check passed"
            ),
        }
        checked.map_err(|e| e.to_string())?;
        rows
    }
    match pick as usize % output_schema::tables::ALL_TABLES.len() {
        0 => decode::<FileRow>(&path),
        1 => decode::<SymbolRow>(&path),
        2 => decode::<OccurrenceRow>(&path),
        3 => decode::<CallEdgeRow>(&path),
        4 => decode::<RelationshipRow>(&path),
        5 => decode::<ImportRow>(&path),
        6 => decode::<ModuleRow>(&path),
        7 => decode::<ModuleEdgeRow>(&path),
        8 => decode::<AliasRow>(&path),
        9 => decode::<TombstoneRow>(&path),
        10 => decode::<CommitRow>(&path),
        11 => decode::<FileChangeRow>(&path),
        12 => decode::<ChurnRow>(&path),
        13 => decode::<CochangeRow>(&path),
        14 => decode::<OwnershipRow>(&path),
        _ => decode::<UsageRow>(&path),
    }
}

/// The table file at `path` read the ways `ckb query`'s commands read tables
/// (`queries::snapshot::read`), keyed on the table's first string column.
fn query_reads<T: Table>(path: &Path) {
    use queries::snapshot::read::{read_columns, rows_where, rows_where_or_unset, Pred};
    let info = T::INFO;
    let snapshot = queries::Snapshot::with_manifest(
        path.parent().expect("a scratch folder"),
        one_table_manifest(info.name, "table.parquet"),
    );
    let Some(key) = info
        .columns
        .iter()
        .find(|c| c.type_name == "string")
        .map(|c| c.name)
    else {
        return;
    };
    // A key inside the range of ckb's IDs and paths: row groups are pruned by their statistics.
    let _ = rows_where::<T>(&snapshot, key, &Pred::Eq("m".into()));
    let _ = rows_where::<T>(&snapshot, key, &Pred::PathOrBelow("src".into()));
    let _ = rows_where::<T>(&snapshot, key, &Pred::contains_ci("A"));
    let _ = rows_where_or_unset::<T>(
        &snapshot,
        (key, &Pred::Eq("m".into())),
        (key, &Pred::contains_ci("")),
    );
    let columns: Vec<&str> = info.columns.iter().map(|c| c.name).collect();
    if let Ok(Some(read)) = read_columns(
        &snapshot,
        info.name,
        &columns,
        Some((key, &Pred::contains_ci(""))),
    ) {
        let _ = read.get::<String>(key);
        let _ = read.get::<Option<i64>>(columns[columns.len() - 1]);
    }
}

/// A manifest listing one table file, for a reader that finds tables through the manifest.
fn one_table_manifest(table: &str, file: &str) -> Manifest {
    Manifest {
        schema_version: output_schema::SCHEMA_VERSION,
        ckb_version: output_schema::CKB_VERSION.into(),
        repo_id: "fuzz".into(),
        snapshot_id: "fuzz".into(),
        repo_state: RepoState::default(),
        privacy: "standard".into(),
        settings: Default::default(),
        previous: None,
        backends: Vec::new(),
        stages: Default::default(),
        tables: vec![output_schema::manifest::FileEntry {
            name: table.into(),
            file: file.into(),
            rows: 0,
            bytes: 0,
            hash: String::new(),
        }],
        views: Vec::new(),
        json_tables: Vec::new(),
    }
}

/// Lets a panic that ckb contains (a decoder's, turned into an error by
/// `output_schema::contain`) unwind to where it is caught, as the `ckb` binary's hook does;
/// every other panic still aborts, which libFuzzer reports as a crash.
pub fn contain_decoder_panics() {
    let abort = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !output_schema::contain::is_containing() {
            abort(info);
        }
    }));
}

/// What a target does with one input.
pub type Target = fn(&[u8]);

/// Every target by name, as `ci/fuzz.sh` and the corpus test name them.
pub const TARGETS: &[(&str, Target)] = &[
    ("cache_entry", cache_entry),
    ("config", config),
    ("manifest", manifest),
    ("modules", modules),
    ("scan_cache", scan_cache),
    ("scip_index", scip_index),
    ("scip_snapshot", scip_snapshot),
    ("scip_symbol", scip_symbol),
    ("snapshot", snapshot),
    ("syntax", syntax),
    ("table_cache", table_cache),
    ("table_parquet", table_parquet),
    #[cfg(feature = "sql")]
    ("sql_guard", sql_guard::sql_guard),
];
