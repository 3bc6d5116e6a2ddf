//! Where a table's rows are cut into Parquet row groups, and how a row group encoded before is
//! found again by its rows.
//!
//! The cuts depend only on the rows around them (content-defined, like the chunk boundaries of a
//! deduplicating backup): a row group holds whole runs of rows that share the leading sort key (a
//! file's rows, in the tables sorted by path), and a run ends its group when a hash of its key,
//! weighed by the run's length, falls under a threshold, so that about one row in a table's
//! [`GroupRows::target`] ends a group. A commit that changes one file's rows therefore changes the
//! row groups that hold them and leaves the rows of every other group, and so their encoded
//! bytes, as they were. Given a [`GroupCache`], the writer ([`crate::parquet_io`]) copies the
//! column chunks of such groups from where it encoded them before instead of encoding them again.
//! The cuts are the same with a cache or without one, so a file's bytes never depend on what a
//! cache held.

use std::ops::Range;

use crate::Table;

/// How many rows a table's row groups hold: about `min + target`, at least `min` (but the last),
/// at most `max`. A `target` small beside `min` makes the sizes regular (a group ends at the
/// first cut after `min` rows), one large beside it makes them vary more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupRows {
    /// One run of the leading key in this many rows, weighed by its length, ends its group.
    pub target: u64,
    /// Fewest rows a group holds before a run may end it.
    pub min: usize,
    /// Most rows a group holds (a longer run is cut inside).
    pub max: usize,
}

/// The [`GroupRows::target`] of most tables (`crate::parquet_io::group_rows`): one run of the
/// leading key in this many rows, weighed by its length, ends its group, so groups hold about
/// this many rows plus [`GROUP_MIN_ROWS`]. Small enough that a one-file commit leaves most of `occurrences` (about
/// 100 000 rows on tokio) in groups it can copy; large enough that each chunk's dictionary is not
/// repeated too often. Measured on tokio's tree-sitter snapshot against one group per 131 072
/// rows: 4 096 made the files 3.3% larger (`call_edges` 15%), 8 192 made them 1.9% larger
/// (`call_edges` 11%), and a one-file commit took the same time with either.
pub const GROUP_TARGET_ROWS: u64 = 8192;

/// The [`GroupRows::min`] of most tables: fewest rows a row group holds before a run may end it
/// (the last group of a table may hold fewer).
pub const GROUP_MIN_ROWS: usize = 2048;

/// The row groups of rows in their canonical order, as ranges of `rows`: whole runs of the
/// leading sort key, a group ending after a run where [`ends_group`] says once it holds
/// `size.min` rows, or where it reaches `size.max` (inside a run longer than that). A table whose
/// leading column has no byte form (a number) is cut every `size.max` rows.
pub fn row_groups<T: Table>(rows: &[T], size: GroupRows) -> Vec<Range<usize>> {
    let max_rows = size.max.max(1);
    let mut groups = Vec::new();
    let mut start = 0;
    let mut run_start = 0;
    while run_start < rows.len() {
        let key = rows[run_start].leading_key_bytes();
        let run_end = match key {
            Some(key) => {
                let same = rows[run_start + 1..]
                    .iter()
                    .position(|r| r.leading_key_bytes() != Some(key));
                same.map_or(rows.len(), |n| run_start + 1 + n)
            }
            None => rows.len(),
        };
        // A group full before the run ends is cut inside it.
        while run_end - start > max_rows {
            groups.push(start..start + max_rows);
            start += max_rows;
        }
        let ends = key.is_some_and(|key| {
            run_end - start >= size.min && ends_group(key, run_end - run_start, size.target)
        });
        if ends {
            groups.push(start..run_end);
            start = run_end;
        }
        run_start = run_end;
    }
    if start < rows.len() {
        groups.push(start..rows.len());
    }
    groups
}

/// Whether a run of `len` rows sharing the leading key `key` ends its row group: with probability
/// `len / target` over keys (always, for a run that long), decided by the key alone so that the
/// same run ends a group in every snapshot that has it.
pub fn ends_group(key: &[u8], len: usize, target: u64) -> bool {
    key_hash(key) % target.max(1) < len as u64
}

/// A fixed 64-bit hash of a key: FNV-1a, then the SplitMix64 finalizer to spread its low bits.
/// Written out here rather than taken from a hashing library, whose output may change with its
/// version: the cuts, and so the bytes of every table file, depend on it.
fn key_hash(key: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in key {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// A row group's key in a [`GroupCache`]: the first 16 bytes of a BLAKE3 hash of the table's name
/// and schema version and of the group's rows in their digest form ([`Table::put_digest_row`]).
pub type GroupKey = [u8; 16];

/// The key of a row group holding `rows` of table `T`.
pub fn group_key<T: Table>(rows: &[T]) -> GroupKey {
    let mut bytes = Vec::with_capacity(rows.len() * 64 + 64);
    let version = crate::SCHEMA_VERSION.to_le_bytes();
    for part in [
        "ckb.row-group.v1".as_bytes(),
        T::INFO.name.as_bytes(),
        &version,
    ] {
        bytes.extend_from_slice(&(part.len() as u64).to_le_bytes());
        bytes.extend_from_slice(part);
    }
    bytes.extend_from_slice(&(rows.len() as u64).to_le_bytes());
    for row in rows {
        row.put_digest_row(&mut bytes);
    }
    let mut key = [0u8; 16];
    key.copy_from_slice(&blake3::hash(&bytes).as_bytes()[..16]);
    key
}

/// Row groups encoded before, each kept as a Parquet file of that one group (what
/// [`crate::parquet_io`] writes for it alone), found again by its [`GroupKey`].
///
/// The writer reads a group's file only through the Parquet footer it checks (one row group of
/// the expected rows and columns, every chunk inside the file); a file that fails the checks is
/// encoded afresh. What it cannot check is that the chunks hold the rows the key names: a cache
/// must be trusted as much as the snapshots beside it (the pipeline's caches are checksummed,
/// tied to the program that wrote them and refused when committed to the repository).
pub trait GroupCache: Sync {
    /// The file of the row group stored under `key`, if the cache holds it.
    fn get(&self, key: &GroupKey) -> Option<&[u8]>;
    /// Records that the table just encoded holds the row group under `key`: `encoded` is its file
    /// when this run encoded it (the cache did not hold it, or held a damaged one), `None` when it
    /// was copied from [`GroupCache::get`]'s file.
    fn used(&self, key: GroupKey, encoded: Option<Vec<u8>>);
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Mutex;

    use super::*;
    use crate::parquet_io::{encode_sorted, encode_sorted_with, group_rows, ROW_GROUP_ROWS};
    use crate::table::SortedRows;
    use crate::tables::{CommitRow, OccurrenceRow};
    use crate::Roles;

    /// `n` occurrences in file `path`, on lines `first..`.
    fn file_rows(path: &str, n: usize, first: usize) -> Vec<OccurrenceRow> {
        (0..n)
            .map(|i| OccurrenceRow {
                symbol_id: Some(format!("sym{}", (first + i) % 97).into()),
                name: format!("n{}", i % 13).into(),
                path: path.into(),
                line: (first + i) as i32,
                col: 1,
                end_line: (first + i) as i32,
                end_col: 5,
                roles: Roles::REFERENCE,
                enclosing_symbol_id: None,
                source: "tree-sitter".into(),
            })
            .collect()
    }

    /// `rows` with the rows of file `path` replaced by `n` rows from line `first`, in order.
    fn with_file(rows: &[OccurrenceRow], path: &str, n: usize, first: usize) -> Vec<OccurrenceRow> {
        let mut out: Vec<OccurrenceRow> = rows
            .iter()
            .filter(|r| r.path.as_str() != path)
            .cloned()
            .collect();
        out.extend(file_rows(path, n, first));
        SortedRows::sort(&mut out);
        out
    }

    /// 800 files of 1 to 300 rows each.
    fn tree() -> Vec<OccurrenceRow> {
        let mut rows: Vec<OccurrenceRow> = (0..800)
            .flat_map(|f| file_rows(&format!("src/m{f:03}.rs"), 1 + (f * 37) % 300, 1))
            .collect();
        SortedRows::sort(&mut rows);
        rows
    }

    /// The rows of each group.
    fn contents<'a, T: Table>(rows: &'a [T], groups: &[Range<usize>]) -> Vec<&'a [T]> {
        groups.iter().map(|g| &rows[g.clone()]).collect()
    }

    /// The sizes of most tables, with `max` rows at most.
    fn at_most(max: usize) -> GroupRows {
        GroupRows {
            target: GROUP_TARGET_ROWS,
            min: GROUP_MIN_ROWS,
            max,
        }
    }

    #[test]
    fn groups_hold_whole_runs_and_stay_within_their_bounds() {
        let rows = tree();
        let groups = row_groups(&rows, at_most(ROW_GROUP_ROWS));
        assert!(groups.len() >= 8, "{groups:?}");
        assert_eq!(groups.first().map(|g| g.start), Some(0));
        assert_eq!(groups.last().map(|g| g.end), Some(rows.len()));
        for pair in groups.windows(2) {
            assert_eq!(pair[0].end, pair[1].start);
            // A cut never splits a file's rows.
            assert_ne!(rows[pair[0].end - 1].path, rows[pair[1].start].path);
        }
        for g in &groups[..groups.len() - 1] {
            assert!(g.len() >= GROUP_MIN_ROWS, "{g:?}");
        }

        // A run longer than a group may hold is cut inside, every `max` rows.
        let mut long = file_rows("a.rs", 10, 1);
        long.extend(file_rows("b.rs", 2500, 1));
        SortedRows::sort(&mut long);
        let lens: Vec<usize> = row_groups(&long, at_most(1000))
            .iter()
            .map(|g| g.len())
            .collect();
        assert_eq!(lens.iter().sum::<usize>(), 2510);
        assert!(lens.iter().all(|&n| n <= 1000), "{lens:?}");
        assert_eq!(lens[..2], [1000, 1000], "{lens:?}");

        // A table led by a number is cut every `max` rows.
        let mut commits: Vec<CommitRow> = (0..25)
            .map(|i| CommitRow {
                sha: format!("{i:040}"),
                parents: vec![],
                author_id: "a".into(),
                committer_time: i,
                author_time: i,
                additions: 0,
                deletions: 0,
                files_changed: 0,
                is_bot: false,
            })
            .collect();
        SortedRows::sort(&mut commits);
        let lens: Vec<usize> = row_groups(&commits, at_most(10))
            .iter()
            .map(|g| g.len())
            .collect();
        assert_eq!(lens, [10, 10, 5]);
        assert!(row_groups::<CommitRow>(&[], at_most(10)).is_empty());
    }

    /// Rows of unique keys (as `symbols`' stable IDs) in the sizes of `symbols`: every group but
    /// the last holds `min` rows or a few hundred more, not several times the target.
    #[test]
    fn unique_keys_in_small_groups_are_cut_regularly() {
        let size = group_rows(&crate::tables::SymbolRow::INFO);
        assert!(size.target < size.min as u64, "{size:?}");
        let mut rows: Vec<OccurrenceRow> = (0..12_000)
            .flat_map(|i| file_rows(&format!("ckb:fx:sym:{:016x}", i * 7919), 1, 1))
            .collect();
        SortedRows::sort(&mut rows);
        let lens: Vec<usize> = row_groups(&rows, size).iter().map(|g| g.len()).collect();
        assert_eq!(lens.iter().sum::<usize>(), 12_000);
        assert!(lens.len() >= 3, "{lens:?}");
        for &n in &lens[..lens.len() - 1] {
            assert!(
                (size.min..size.min + 6 * size.target as usize).contains(&n),
                "{lens:?}"
            );
        }
    }

    #[test]
    fn a_change_to_one_file_changes_only_the_groups_around_it() {
        let before = tree();
        let after = with_file(&before, "src/m200.rs", 333, 7);
        let (old, new) = (
            row_groups(&before, at_most(ROW_GROUP_ROWS)),
            row_groups(&after, at_most(ROW_GROUP_ROWS)),
        );
        let old = contents(&before, &old);
        let new = contents(&after, &new);
        let kept = new.iter().filter(|g| old.contains(g)).count();
        assert!(
            new.len() >= 8 && kept + 2 >= new.len(),
            "{kept} of {}",
            new.len()
        );
    }

    /// The cut rule is part of the file format: a different hash would move every cut.
    #[test]
    fn the_key_hash_is_fixed() {
        // Computed apart from this code (FNV-1a 64, then SplitMix64's finalizer).
        assert_eq!(key_hash(b""), 0xf52a_15e9_a9b5_e89b);
        assert_eq!(key_hash(b"src/lib.rs"), 0x3f97_8cad_ebbe_4480);
        // Its remainder by 8 192 is 1 152: a run of more rows than that ends its group.
        assert!(!ends_group(b"src/lib.rs", 1152, 8192));
        assert!(ends_group(b"src/lib.rs", 1153, 8192));
    }

    /// A cache in memory: what it held before the write, and what the write told it.
    #[derive(Default)]
    struct Memory {
        held: HashMap<GroupKey, Vec<u8>>,
        told: Mutex<Vec<(GroupKey, Option<Vec<u8>>)>>,
    }

    impl GroupCache for Memory {
        fn get(&self, key: &GroupKey) -> Option<&[u8]> {
            self.held.get(key).map(Vec::as_slice)
        }
        fn used(&self, key: GroupKey, encoded: Option<Vec<u8>>) {
            self.told.lock().unwrap().push((key, encoded));
        }
    }

    impl Memory {
        /// The cache the next run finds: every group this one used.
        fn next(self) -> Memory {
            let mut held = self.held;
            let told = self.told.into_inner().unwrap();
            let mut kept = HashMap::new();
            for (key, encoded) in told {
                let blob = encoded.or_else(|| held.remove(&key)).unwrap();
                kept.insert(key, blob);
            }
            Memory {
                held: kept,
                told: Mutex::default(),
            }
        }

        fn encoded(&self) -> usize {
            let told = self.told.lock().unwrap();
            told.iter().filter(|(_, e)| e.is_some()).count()
        }
    }

    fn cold(rows: &mut [OccurrenceRow]) -> Vec<u8> {
        encode_sorted(SortedRows::sort(rows)).unwrap()
    }

    fn cached(rows: &mut [OccurrenceRow], cache: &Memory) -> Vec<u8> {
        encode_sorted_with(SortedRows::sort(rows), Some(cache)).unwrap()
    }

    /// Asserts two files are the same bytes, saying where they first differ.
    fn same_bytes(a: &[u8], b: &[u8]) {
        let first = a.iter().zip(b).position(|(x, y)| x != y);
        assert!(
            a == b,
            "{} and {} bytes, first difference at {first:?} of {:?} and {:?}",
            a.len(),
            b.len(),
            first.map(|i| &a[i.saturating_sub(8)..(i + 24).min(a.len())]),
            first.map(|i| &b[i.saturating_sub(8)..(i + 24).min(b.len())]),
        );
    }

    #[test]
    fn a_cache_gives_the_bytes_of_a_cold_write_and_encodes_only_new_groups() {
        let mut rows = tree();
        let groups = row_groups(&rows, group_rows(&OccurrenceRow::INFO)).len();
        let first = Memory::default();
        same_bytes(&cached(&mut rows, &first), &cold(&mut rows));
        assert_eq!(first.encoded(), groups);

        let again = first.next();
        same_bytes(&cached(&mut rows, &again), &cold(&mut rows));
        assert_eq!(again.encoded(), 0, "every group came from the cache");

        let mut changed = with_file(&with_file(&rows, "src/m123.rs", 50, 3), "src/new.rs", 20, 1);
        let next = again.next();
        same_bytes(&cached(&mut changed, &next), &cold(&mut changed));
        let encoded = next.encoded();
        assert!(
            (1..=4).contains(&encoded),
            "{encoded} of {groups} groups encoded"
        );
    }

    #[test]
    fn a_damaged_or_foreign_cache_entry_is_encoded_afresh() {
        let mut rows = tree();
        let filled = Memory::default();
        cached(&mut rows, &filled);
        let mut cache = filled.next();
        let keys: Vec<GroupKey> = cache.held.keys().copied().collect();
        let other = cache.held[&keys[1]].clone();
        // Garbage, a cut-off file, and another group's file under a key.
        cache
            .held
            .insert(keys[0], b"PAR1 not a parquet file PAR1".to_vec());
        cache.held.insert(keys[1], cache.held[&keys[2]].clone());
        let short = &other[..other.len() / 2];
        cache.held.insert(keys[2], short.to_vec());
        // A file of the right group with its footer's offsets bent out of the file.
        let mut commits_file = Vec::new();
        let mut commits = vec![CommitRow {
            sha: "a".repeat(40),
            parents: vec![],
            author_id: "x".into(),
            committer_time: 1,
            author_time: 1,
            additions: 0,
            deletions: 0,
            files_changed: 0,
            is_bot: false,
        }];
        commits_file.extend(encode_sorted(SortedRows::sort(&mut commits)).unwrap());
        cache.held.insert(keys[3], commits_file);
        same_bytes(&cached(&mut rows, &cache), &cold(&mut rows));
        assert_eq!(cache.encoded(), 4);
    }
}
