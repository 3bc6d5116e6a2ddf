//! The SQL guard against statements generated from real attacks: every seed of the `sql_guard`
//! fuzz target (`fuzz/corpus/sql_guard/`: the write and escape attacks of `tests/cli_sql.rs`,
//! malformed quoting, and ordinary reads) is mutated the ways an attacker varies a statement —
//! case, whitespace and comments, look-alike characters, quotes, chained and spliced
//! statements, `EXPLAIN`, nesting in `query()` — by a fixed pseudo-random sequence, so every run
//! puts the same few thousand statements to the guard.
//!
//! What must hold for each, over a snapshot and over a store: the answer is rows,
//! `SQL_NOT_ALLOWED`, `SQL_ERROR` or `SQL_LIMIT_EXCEEDED` (never another code, never a panic), no
//! file of the store or the working folder appears, disappears or changes, and at the end every
//! byte of the store is as before. The coverage-guided form of this test is the opt-in fuzz
//! target (`ci/fuzz.sh sql_guard SECONDS`), which links DuckDB and so stays out of `.ci/run`.

mod fixture;

use std::path::{Path, PathBuf};

use output_schema::ErrorCode;
use queries::commands::sql::{Session, SqlLimitFlags, SqlLimits, SqlSource};
use queries::Snapshot;

/// Mutants generated from each seed.
const MUTANTS_PER_SEED: usize = 16;

/// xorshift64*: the same sequence on every run and platform.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// A char boundary of `s`, uniformly among them.
fn boundary(rng: &mut Rng, s: &str) -> usize {
    let bounds: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
    bounds[rng.below(bounds.len())]
}

const INSERTS: &[&str] = &[
    " ", "\n", "\t", "/**/", "-- x\n", ";", "; ", "\u{FF1B}", "\u{200B}", "\u{FEFF}", "\u{2028}",
    "'", "''", "\"", "(", ")", "$$", "\\", "E'", "'; --", "*/", "/*",
];
const PREFIXES: &[&str] = &[
    "explain ",
    "explain analyze ",
    "EXPLAIN\tANALYZE\n",
    "select 1; ",
    "/* c */ ",
    "(",
    "with x as (select 1) ",
    "from files; ",
];
const SUFFIXES: &[&str] = &[
    ";",
    "; select 1",
    ";\ncopy (select 1) to '@S/m.csv'",
    "; attach '@S/m.db' as m",
    ")",
    " --",
    "'",
    " limit 1",
    "; set threads = 1",
];

/// One mutation of `sql`; `other` is another seed to splice with.
fn mutate(rng: &mut Rng, sql: &str, other: &str) -> String {
    match rng.below(8) {
        0 => sql
            .chars()
            .map(|c| {
                if rng.below(4) == 0 {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            })
            .collect(),
        1 => {
            let at = boundary(rng, sql);
            format!("{}{}{}", &sql[..at], rng.pick(INSERTS), &sql[at..])
        }
        2 => format!("{}{sql}", rng.pick(PREFIXES)),
        3 => format!("{sql}{}", rng.pick(SUFFIXES)),
        4 => {
            let (a, b) = (boundary(rng, sql), boundary(rng, other));
            format!("{}{}", &sql[..a], &other[b..])
        }
        5 => format!("select * from query('{}')", sql.replace('\'', "''")),
        6 => {
            let (a, b) = (boundary(rng, sql), boundary(rng, sql));
            let (a, b) = (a.min(b), a.max(b));
            format!("{}{}", &sql[..a], &sql[b..])
        }
        _ => format!("{sql};{other}"),
    }
}

/// The seeds: the scope byte (even: the snapshot, odd: the store) and the text.
fn seeds() -> Vec<(u8, String)> {
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo test");
    let dir = Path::new(&manifest_dir).join("../fuzz/corpus/sql_guard");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .iter()
        .filter_map(|p| {
            let bytes = std::fs::read(p).unwrap();
            let (&scope, text) = bytes.split_first()?;
            Some((scope, String::from_utf8(text.to_vec()).ok()?))
        })
        .collect()
}

type Entry = (PathBuf, u64, Option<std::time::SystemTime>);

/// Every file below `dirs` with size and modification time, sorted.
fn listing(dirs: &[&Path]) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut stack: Vec<PathBuf> = dirs.iter().map(|d| d.to_path_buf()).collect();
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let meta = std::fs::symlink_metadata(entry.path()).unwrap();
            if meta.is_dir() {
                stack.push(entry.path());
            } else {
                out.push((entry.path(), meta.len(), meta.modified().ok()));
            }
        }
    }
    out.sort();
    out
}

fn bytes_of(files: &[Entry]) -> Vec<(PathBuf, blake3::Hash)> {
    files
        .iter()
        .map(|(p, _, _)| (p.clone(), blake3::hash(&std::fs::read(p).unwrap())))
        .collect()
}

#[test]
fn mutated_attacks_are_refused_fail_or_read_and_nothing_changes() {
    let root = tempfile::tempdir().unwrap();
    // The fixture writes its snapshot at `<root>/store/repo=…/commit=…`.
    let dir = fixture::build(root.path(), &fixture::Options::default());
    let store = root.path().join("store");
    let snapshot = Snapshot::open(&dir).unwrap();
    let limits = SqlLimits::from_flags(&SqlLimitFlags {
        max_rows: Some("200"),
        memory_limit: Some("256MB"),
        timeout: Some("5"),
        threads: Some("1"),
    })
    .unwrap();
    let sessions = [
        Session::open(SqlSource::Snapshot(&snapshot), limits.clone()).unwrap(),
        Session::open(SqlSource::Store(&store), limits).unwrap(),
    ];
    let cwd = std::env::current_dir().unwrap();
    let watched = [store.as_path(), root.path()];
    let before = listing(&watched);
    let cwd_before: Vec<PathBuf> = listing_top(&cwd);
    let bytes_before = bytes_of(&before);

    let seeds = seeds();
    assert!(seeds.len() > 100, "{} seeds", seeds.len());
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut rows, mut refused, mut failed, mut limited) = (0, 0, 0, 0);
    let mut wrong = Vec::new();
    for (scope, seed) in &seeds {
        // The seed as it is (an attack must be refused as written, a read answered), then its
        // mutants.
        for mutant in 0..=MUTANTS_PER_SEED {
            let mut sql = seed.clone();
            let mutations = if mutant == 0 { 0 } else { 1 + rng.below(3) };
            for _ in 0..mutations {
                let other = &seeds[rng.below(seeds.len())].1;
                sql = mutate(&mut rng, &sql, other);
            }
            let sql = sql
                .replace("@S", &dir.to_string_lossy())
                .replace("@T", &store.to_string_lossy());
            let session = &sessions[usize::from(scope % 2)];
            match session.run(&sql) {
                Ok(_) => rows += 1,
                Err(e) => match e.code {
                    ErrorCode::SqlNotAllowed => refused += 1,
                    ErrorCode::SqlError => failed += 1,
                    ErrorCode::SqlLimitExceeded => limited += 1,
                    other => wrong.push(format!("{sql:?}: {other}: {}", e.message)),
                },
            }
            assert!(
                listing(&watched) == before,
                "{sql:?} created, removed or changed a file of the store"
            );
        }
    }
    assert!(
        wrong.is_empty(),
        "codes a statement may not get:\n{}",
        wrong.join("\n")
    );
    assert_eq!(bytes_of(&listing(&watched)), bytes_before);
    assert_eq!(
        listing_top(&cwd),
        cwd_before,
        "wrote into the working folder"
    );
    // The generator reaches every kind of outcome.
    assert!(
        rows > 100 && refused > 100 && failed > 100,
        "{rows} answered, {refused} refused, {failed} failed, {limited} over a limit"
    );
}

/// The entries directly in `dir`.
fn listing_top(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    out.sort();
    out
}
