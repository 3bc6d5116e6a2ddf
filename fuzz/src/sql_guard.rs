//! The SQL guard under fuzzing (feature `sql`, which links DuckDB; `ci/fuzz.sh sql_guard N` only,
//! never `.ci/run`): any text given to `ckb query sql` is refused (`SQL_NOT_ALLOWED`), fails
//! (`SQL_ERROR`), stops at a limit (`SQL_LIMIT_EXCEEDED`) or answers rows, and nothing in the
//! snapshot, the store or the working folder changes.
//!
//! One locked-down session over the query tests' hand-written snapshot
//! (`queries/tests/fixture`) takes every input, through the same code as `ckb query sql`
//! (`queries::commands::sql::Session`): opening a session per input would spend the run on
//! DuckDB's start-up instead of its parser. The session's configuration is locked before the
//! first input and a read statement cannot change it, so inputs do not see each other. In an
//! input, `@S` stands for the snapshot folder and `@T` for the store, so that the fuzzer can
//! aim at real paths.
//!
//! The process works in an empty folder of the scratch tree, so that a relative path in a
//! statement lands where the check looks. Every input is checked against a fingerprint of the
//! tree (names, sizes and mtimes, summed in any order), every 1024th against the full sorted
//! listing and the bytes of the store: sorting and comparing paths on each input cost a third
//! of the run.

use std::path::{Path, PathBuf};

use output_schema::ErrorCode;
use queries::commands::sql::{Session, SqlLimitFlags, SqlLimits, SqlSource};
use queries::Snapshot;

#[path = "../../queries/tests/fixture/mod.rs"]
mod fixture;

/// The fixture store and its snapshot, which the sessions borrow for the life of the process.
struct Fixture {
    store: PathBuf,
    snapshot: Snapshot,
}

/// What every input runs against, and what must not change.
struct State {
    fixture: &'static Fixture,
    /// Sessions over the snapshot and over the whole store.
    sessions: [Session<'static>; 2],
    /// Every file below the scratch folder (the working folder included) before any input.
    listing: Vec<Entry>,
    /// [`fingerprint`] of `listing`.
    fingerprint: (usize, u64),
    /// The bytes' hash of every file of the store before any input.
    hashes: Vec<(PathBuf, blake3::Hash)>,
    runs: u64,
}

type Entry = (PathBuf, u64, Option<std::time::SystemTime>);

/// The size recorded for a folder, which has no bytes of its own to compare.
const FOLDER: u64 = u64::MAX - 1;

/// Every file below `dir` with its size and mtime, sorted; an empty folder counts as an entry.
fn listing(dir: &Path) -> Vec<Entry> {
    let mut out = walk(dir);
    out.sort();
    out
}

/// The entries below `dir` in the order the file system gives them.
fn walk(dir: &Path) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            match std::fs::symlink_metadata(&path) {
                Ok(m) if m.is_dir() => {
                    out.push((path.clone(), FOLDER, None));
                    stack.push(path);
                }
                Ok(m) => out.push((path, m.len(), m.modified().ok())),
                Err(_) => out.push((path, u64::MAX, None)),
            }
        }
    }
    out
}

/// The number of entries and the wrapping sum of their hashes: independent of the order, so
/// that the file system's order needs no sort, and made by std's (uninstrumented) SipHash.
fn fingerprint(entries: &[Entry]) -> (usize, u64) {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let sum = entries.iter().fold(0u64, |sum, entry| {
        let mut h = DefaultHasher::new();
        entry.hash(&mut h);
        sum.wrapping_add(h.finish())
    });
    (entries.len(), sum)
}

fn hashes(listing: &[Entry], store: &Path) -> Vec<(PathBuf, blake3::Hash)> {
    listing
        .iter()
        .filter(|(p, len, _)| *len != FOLDER && p.starts_with(store))
        .map(|(p, _, _)| {
            (
                p.clone(),
                blake3::hash(&std::fs::read(p).unwrap_or_default()),
            )
        })
        .collect()
}

/// Small limits, so that a statement that would run long or large stops at once.
fn limits() -> SqlLimits {
    SqlLimits::from_flags(&SqlLimitFlags {
        max_rows: Some("200"),
        memory_limit: Some("256MB"),
        timeout: Some("2"),
        threads: Some("1"),
    })
    .expect("valid limits")
}

fn open() -> State {
    let root = crate::scratch().join("sql");
    // The fixture writes its snapshot at `<root>/store/repo=…/commit=…`.
    let dir = fixture::build(&root, &fixture::Options::default());
    let store = root.join("store");
    let cwd = root.join("cwd");
    std::fs::create_dir_all(&cwd).expect("the working folder");
    std::env::set_current_dir(&cwd).expect("into the working folder");
    let snapshot = Snapshot::open(&dir).expect("the fixture snapshot opens");
    let fixture: &'static Fixture = Box::leak(Box::new(Fixture { store, snapshot }));
    let sessions = [
        Session::open(SqlSource::Snapshot(&fixture.snapshot), limits())
            .expect("a session over the snapshot"),
        Session::open(SqlSource::Store(&fixture.store), limits())
            .expect("a session over the store"),
    ];
    let listing = listing(&root);
    let hashes = hashes(&listing, &fixture.store);
    State {
        fixture,
        sessions,
        fingerprint: fingerprint(&listing),
        listing,
        hashes,
        runs: 0,
    }
}

thread_local! {
    static STATE: std::cell::RefCell<Option<State>> = const { std::cell::RefCell::new(None) };
}

/// One statement: the first byte picks the session (even: the snapshot, odd: the store), the
/// rest is the text, with `@S` and `@T` standing for the snapshot and store folders.
pub fn sql_guard(data: &[u8]) {
    let Some((&scope, text)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    STATE.with(|cell| {
        let mut cell = cell.borrow_mut();
        let state = cell.get_or_insert_with(open);
        let sql = text
            .replace("@S", &state.fixture.snapshot.dir.to_string_lossy())
            .replace("@T", &state.fixture.store.to_string_lossy());
        if let Err(e) = state.sessions[usize::from(scope % 2)].run(&sql) {
            assert!(
                matches!(
                    e.code,
                    ErrorCode::SqlNotAllowed | ErrorCode::SqlError | ErrorCode::SqlLimitExceeded
                ),
                "{sql:?} gave {}: {}",
                e.code,
                e.message
            );
        }
        let root = state.fixture.store.parent().expect("the scratch folder");
        state.runs += 1;
        let full = state.runs % 1024 == 0;
        let mut now = walk(root);
        if !full && fingerprint(&now) == state.fingerprint {
            return;
        }
        now.sort();
        assert!(
            now == state.listing,
            "{sql:?} created, removed or changed a file of the store or the working folder"
        );
        // Byte for byte now and then: a rewrite of the same size within one mtime tick.
        if full {
            assert!(
                hashes(&now, &state.fixture.store) == state.hashes,
                "a statement up to {sql:?} changed the bytes of a file in the store"
            );
        }
    });
}
