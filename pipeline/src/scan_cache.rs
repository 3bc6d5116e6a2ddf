//! What the scan learned of each file last time, found again by the file's status (`stat`), so
//! that unchanged files are not read and hashed again.
//!
//! A snapshot of an unchanged tree, or of one commit after another, reads every file only to
//! find most of them as they were. Like git's index, the scan keeps, per path, the file's size,
//! modification and change times and inode with the facts it derived from the bytes (content
//! hash, lines, language, generated flag). When all four are the same the facts are reused.
//!
//! Soundness rests on the change time, which only the kernel sets (to the current time, on every
//! write, rename, chmod or `touch`): an entry is recorded only for a file whose times are older
//! than the scan's start by a margin ([`SETTLE`]). Any change made after the file was read then
//! gets a later change time, so it never matches. A file changed within the margin is simply
//! read again next time. The margin covers the coarse clock that stamps files and file systems
//! with coarse timestamps (FAT's two seconds); it assumes the file system's clock is the
//! machine's, give or take the margin.
//!
//! The cache lives beside the snapshots (`<store>/repo=<id>/scan-cache.json.zst`), is not part of
//! any snapshot, and is written only once a snapshot is published: a failed run leaves the store
//! as it was. It is advisory: unreadable, from another build, or missing, it is ignored and
//! rebuilt; failing to write it costs the next run its speed, nothing else. It holds
//! repo-relative paths and file-system numbers, never content.

use std::collections::HashMap;
use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use output_schema::tables::FileRow;
use serde::{Deserialize, Serialize};

/// File name of the cache in a repository's folder of the store.
pub const CACHE_FILE: &str = "scan-cache.json.zst";

/// How much older than the scan a file's times must be for its facts to be kept.
pub const SETTLE: Duration = Duration::from_secs(2);

/// Format version: a file of another version is ignored.
const VERSION: u32 = 1;

/// zstd level of the cache file. Lower than the snapshot's JSON (`layout::JSON_ZSTD_LEVEL`): the
/// cache is written on every run, beside the snapshot's own writes, and read back only by the
/// next run; on cargo (3 072 files, 796 KB of JSON) level 1 compresses in about a seventh of
/// level 9's time into 105 KB instead of 92.
const CACHE_ZSTD_LEVEL: i32 = 1;

/// A file's status as the cache compares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stat {
    size: u64,
    /// Modification and change times, nanoseconds since the epoch.
    mtime: i128,
    ctime: i128,
    inode: u64,
}

impl Stat {
    /// The status of `meta`; `None` where the platform does not give change times and inodes.
    pub fn of(meta: &Metadata) -> Option<Stat> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let nanos = |secs: i64, nsec: i64| i128::from(secs) * 1_000_000_000 + i128::from(nsec);
            Some(Stat {
                size: meta.len(),
                mtime: nanos(meta.mtime(), meta.mtime_nsec()),
                ctime: nanos(meta.ctime(), meta.ctime_nsec()),
                inode: meta.ino(),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            None
        }
    }
}

/// The facts of one file, as the `files` table holds them, minus the path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Facts {
    language: Option<String>,
    size_bytes: i64,
    line_count: i64,
    content_hash: String,
    is_test: bool,
    is_generated: bool,
}

#[derive(Debug, Serialize, Deserialize)]
struct CacheFile {
    version: u32,
    /// The program that wrote it ([`program`]): facts derived by other rules are not reused.
    program: String,
    /// (path, status, facts), in scan order.
    entries: Vec<(String, Stat, Facts)>,
}

/// The previous scan's entries, and the time before which files count as settled in this one.
pub struct ScanCache {
    file: PathBuf,
    /// The running program ([`program`]); `None` when unknown (nothing is read or kept).
    program: Option<String>,
    previous: HashMap<String, (Stat, Facts)>,
    /// Nanoseconds since the epoch; `None` when the clock is unusable (nothing is kept).
    settled_before: Option<i128>,
}

impl ScanCache {
    /// Loads the cache at `file`; this scan starts now, and files changed less than `settle`
    /// before it will not be kept (the scan uses [`SETTLE`]).
    pub fn open(file: &Path, settle: Duration) -> ScanCache {
        let program = program();
        // Only a regular file: a symlink (never written by ckb) could point at `/dev/zero`.
        let regular = std::fs::symlink_metadata(file).is_ok_and(|m| m.is_file());
        let previous = regular
            .then(|| std::fs::read(file).ok())
            .flatten()
            .and_then(|bytes| output_schema::manifest::decompress(&bytes).ok())
            .and_then(|text| serde_json::from_slice::<CacheFile>(&text).ok())
            .filter(|c| c.version == VERSION && Some(&c.program) == program.as_ref())
            .map(|c| {
                c.entries
                    .into_iter()
                    .map(|(path, stat, facts)| (path, (stat, facts)))
                    .collect()
            })
            .unwrap_or_default();
        ScanCache {
            file: file.to_path_buf(),
            program,
            previous,
            settled_before: SystemTime::now()
                .checked_sub(settle)
                .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
                .map(|d| d.as_nanos() as i128),
        }
    }

    /// The facts recorded for `path` when its status is still `stat`, and they are facts such a
    /// file can have: its size is the status's, and it has no more lines than bytes and one.
    /// (The cache is read back like any file: a forged entry must not bring a count that
    /// overflows the sums the scan and the modules make of them.)
    pub fn lookup(&self, path: &str, stat: Option<Stat>) -> Option<FileRow> {
        let (known, facts) = self.previous.get(path)?;
        let size = i64::try_from(known.size).ok()?;
        let plausible =
            facts.size_bytes == size && (0..=size.saturating_add(1)).contains(&facts.line_count);
        (Some(*known) == stat && plausible).then(|| FileRow {
            path: path.to_string(),
            language: facts.language.clone(),
            size_bytes: facts.size_bytes,
            line_count: facts.line_count,
            content_hash: facts.content_hash.clone(),
            module_id: None,
            is_test: facts.is_test,
            is_generated: facts.is_generated,
        })
    }

    /// The update for this scan's kept files: the entries of those whose status is settled
    /// (see the module doc), to be written once the snapshot is published.
    pub fn update<'a>(
        &self,
        files: impl Iterator<Item = (&'a FileRow, Option<Stat>)>,
    ) -> CacheUpdate {
        let (Some(settled_before), Some(program)) = (self.settled_before, &self.program) else {
            return CacheUpdate {
                file: self.file.clone(),
                cache: None,
            };
        };
        let entries: Vec<(String, Stat, Facts)> = files
            .filter_map(|(row, stat)| {
                let stat = stat?;
                (stat.mtime < settled_before && stat.ctime < settled_before).then(|| {
                    (
                        row.path.clone(),
                        stat,
                        Facts {
                            language: row.language.clone(),
                            size_bytes: row.size_bytes,
                            line_count: row.line_count,
                            content_hash: row.content_hash.clone(),
                            is_test: row.is_test,
                            is_generated: row.is_generated,
                        },
                    )
                })
            })
            .collect();
        CacheUpdate {
            file: self.file.clone(),
            cache: Some(CacheFile {
                version: VERSION,
                program: program.clone(),
                entries,
            }),
        }
    }

    /// Writes [`ScanCache::update`] at once.
    #[cfg(test)]
    fn save(&self, files: &[(FileRow, Option<Stat>)]) {
        let tmp = self.file.with_extension("tmp-test");
        self.update(files.iter().map(|(row, stat)| (row, *stat)))
            .save(&tmp);
    }
}

/// The entries a scan leaves for the next one.
#[derive(Debug)]
pub struct CacheUpdate {
    file: PathBuf,
    /// `None` when the program or the start time was unknown: nothing is written.
    cache: Option<CacheFile>,
}

impl CacheUpdate {
    /// Writes the cache (atomically: the temporary file `tmp`, renamed). Errors are ignored: the
    /// cache is advisory.
    pub fn save(self, tmp: &Path) {
        self.encode().save(tmp);
    }

    /// Encodes the cache on a thread of its own while the caller goes on, for
    /// [`PendingCache::save`] to write once the snapshot is published. Encoding (JSON, then zstd)
    /// took 1.5 to 3 ms of a one-file snapshot of ripgrep, all of it after the publish.
    ///
    /// Not a task of the thread pool: the snapshot runs on the pool, and a worker waiting for a
    /// task queued behind it would wait forever with one thread. Should no thread start, nothing
    /// is written this time (the cache is advisory).
    pub fn encode_in_background(self) -> PendingCache {
        let encoding = std::thread::Builder::new()
            .name("ckb-scan-cache".into())
            .spawn(move || self.encode())
            .ok();
        PendingCache(encoding)
    }

    fn encode(self) -> EncodedCache {
        let bytes = self.cache.and_then(|cache| {
            let text = serde_json::to_string(&cache).ok()?;
            output_schema::manifest::compress_json_at(&text, CACHE_ZSTD_LEVEL).ok()
        });
        EncodedCache {
            file: self.file,
            bytes,
        }
    }
}

/// A cache being encoded by [`CacheUpdate::encode_in_background`]. Dropped unsaved (a failed
/// snapshot), it writes nothing.
#[derive(Debug)]
pub struct PendingCache(Option<std::thread::JoinHandle<EncodedCache>>);

impl PendingCache {
    /// Waits for the encoding and writes the cache through the temporary file `tmp` (see
    /// [`EncodedCache::save`]).
    pub fn save(self, tmp: &Path) {
        if let Some(Ok(encoded)) = self.0.map(std::thread::JoinHandle::join) {
            encoded.save(tmp);
        }
    }
}

/// A cache file's bytes, ready to be written.
#[derive(Debug)]
struct EncodedCache {
    file: PathBuf,
    /// `None` when there is nothing to write (see [`CacheUpdate`]) or it could not be encoded.
    bytes: Option<Vec<u8>>,
}

impl EncodedCache {
    /// Writes the cache atomically: the temporary file `tmp` (the store names it after the
    /// writer's state, [`crate::store::Store::cache_temp`], so that a leftover of a killed writer
    /// is recognised and removed), renamed over the cache. Errors are ignored: the cache is
    /// advisory.
    fn save(self, tmp: &Path) {
        let Some(bytes) = self.bytes else {
            return;
        };
        if let Some(dir) = self.file.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        // Created anew, never opened: a leftover of a killed run is removed first, and a symlink
        // by that name (a store inside a repository may hold committed ones) is removed, not
        // written through.
        let _ = std::fs::remove_file(tmp);
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(tmp)
            .and_then(|mut f| std::io::Write::write_all(&mut f, &bytes))
            .and_then(|()| output_schema::failpoint::hit("scan-cache-write"));
        if written
            .and_then(|()| std::fs::rename(tmp, &self.file))
            .is_err()
        {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// The running program: ckb's version and its executable's size and modification time, so that
/// a rebuilt binary (whose language or generated-file rules may differ) starts afresh.
pub(crate) fn program() -> Option<String> {
    let exe = std::fs::metadata(std::env::current_exe().ok()?).ok()?;
    let stat = Stat::of(&exe)?;
    Some(format!(
        "{} {} {}",
        output_schema::CKB_VERSION,
        stat.size,
        stat.mtime
    ))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn row(path: &str, hash: &str) -> FileRow {
        FileRow {
            content_hash: hash.into(),
            is_generated: true,
            ..test_support::rows::file(path, "rust", 3)
        }
    }

    fn stat_of(path: &Path) -> Option<Stat> {
        Stat::of(&std::fs::metadata(path).unwrap())
    }

    /// `a.rs` holding "one" in a fresh folder, older than the next scan's start whatever the
    /// clock's granularity.
    fn settled_file() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.rs");
        std::fs::write(&a, "one").unwrap();
        std::thread::sleep(Duration::from_millis(30));
        (dir, a)
    }

    #[test]
    fn settled_files_are_found_again_by_their_status_only() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.rs"), dir.path().join("b.rs"));
        std::fs::write(&a, "one").unwrap();
        std::fs::write(&b, "two").unwrap();
        // Older than the next scan's start, whatever the clock's granularity.
        std::thread::sleep(Duration::from_millis(30));
        let cache_file = dir.path().join("store").join(CACHE_FILE);
        let first = ScanCache::open(&cache_file, Duration::ZERO);
        assert!(
            first.lookup("a.rs", stat_of(&a)).is_none(),
            "empty at first"
        );
        first.save(&[
            (row("a.rs", "h1"), stat_of(&a)),
            (row("b.rs", "h2"), stat_of(&b)),
        ]);

        let second = ScanCache::open(&cache_file, Duration::ZERO);
        assert_eq!(second.lookup("a.rs", stat_of(&a)), Some(row("a.rs", "h1")));
        assert_eq!(second.lookup("b.rs", stat_of(&b)), Some(row("b.rs", "h2")));
        assert!(second.lookup("c.rs", stat_of(&a)).is_none());
        // Same size, modification time put back: the change time still tells.
        let mtime = std::fs::metadata(&b).unwrap().modified().unwrap();
        std::thread::sleep(Duration::from_millis(30));
        std::fs::write(&b, "TWO").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&b)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
        assert_eq!(stat_of(&b).unwrap().mtime, second.previous["b.rs"].0.mtime);
        assert!(second.lookup("b.rs", stat_of(&b)).is_none());
        assert!(second.lookup("b.rs", None).is_none());
    }

    #[test]
    fn facts_no_such_file_can_have_are_a_miss() {
        let (dir, a) = settled_file();
        let cache_file = dir.path().join("store").join(CACHE_FILE);
        let cache = ScanCache::open(&cache_file, Duration::ZERO);
        for (size_bytes, line_count) in [(3, i64::MAX), (3, -1), (99, 1), (3, 4)] {
            let forged = FileRow {
                size_bytes,
                line_count,
                ..row("a.rs", "h1")
            };
            cache.save(&[(forged, stat_of(&a))]);
            let found = ScanCache::open(&cache_file, Duration::ZERO).lookup("a.rs", stat_of(&a));
            // Three bytes hold at most four lines ("\n\n\n" and the empty last one).
            assert_eq!(
                found.is_some(),
                (size_bytes, line_count) == (3, 4),
                "{size_bytes} {line_count}"
            );
        }
    }

    #[test]
    fn files_changed_since_the_scan_started_are_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.rs");
        std::fs::write(&a, "one").unwrap();
        let cache_file = dir.path().join(CACHE_FILE);
        // With the scan's margin, a file written just now is not settled.
        ScanCache::open(&cache_file, SETTLE).save(&[(row("a.rs", "h1"), stat_of(&a))]);
        let next = ScanCache::open(&cache_file, SETTLE);
        assert!(next.previous.is_empty());
        assert!(next.lookup("a.rs", stat_of(&a)).is_none());
    }

    #[test]
    fn a_damaged_or_foreign_cache_is_ignored() {
        let (dir, a) = settled_file();
        let cache_file = dir.path().join(CACHE_FILE);
        std::fs::write(&cache_file, b"not zstd").unwrap();
        let damaged = ScanCache::open(&cache_file, Duration::ZERO);
        assert!(damaged.previous.is_empty());
        damaged.save(&[(row("a.rs", "h1"), stat_of(&a))]);
        assert!(!ScanCache::open(&cache_file, Duration::ZERO)
            .previous
            .is_empty());
        // Written by another build: its rules may differ.
        let text =
            output_schema::manifest::decompress(&std::fs::read(&cache_file).unwrap()).unwrap();
        let mut cache: CacheFile = serde_json::from_slice(&text).unwrap();
        cache.program.push_str(" (another build)");
        let other = serde_json::to_string(&cache).unwrap();
        let bytes = output_schema::manifest::compress_json(&other).unwrap();
        std::fs::write(&cache_file, bytes).unwrap();
        assert!(ScanCache::open(&cache_file, Duration::ZERO)
            .previous
            .is_empty());
    }
}
