//! A content-addressed cache of blobs beside the snapshots, in packs: what a stage derived from
//! one input (a file's tree-sitter rows, a SCIP document's facts), found again by a key that hashes
//! everything the derivation read, so it is reused whatever snapshot, branch or clone comes next.
//!
//! On disk, one folder per cache (`<store>/repo=<id>/<name>/`): segment files (`seg-<hash>.bin`,
//! blobs end to end, never changed once written) and `index.bin`, which lists each live blob's key,
//! place and checksum, the identity of the program that wrote them, and its own checksum. A run
//! reads the index, takes the blobs it needs ([`CachePack::get`]: each one checked against its
//! checksum), and leaves an update ([`PackUpdate`]) that the driver saves once the snapshot is
//! published: one new segment with the blobs derived this run, and a new index holding exactly the
//! blobs this run used (so the cache never outgrows one run's inputs by more than the dead space of
//! its segments, which a compaction rewrites once it exceeds the live bytes). Segments no index
//! names are removed.
//!
//! Trust: the folder may come from an artifact store or a cache restore, or be committed to the
//! repository, so it is read like any file read back. Symlinks are never followed; sizes are
//! checked before reading; the index must hash to its checksum and every blob to its own; an index
//! written by another build of ckb, or for other settings, is ignored (the rules that derived its
//! blobs may differ), as is a cache committed to the repository (its blobs may be forged). Each of
//! these is a [`CacheProblem`] the stage reports as a coded warning, and the stage derives what it
//! needs afresh: the snapshot is the same either way. Writes are atomic (a temporary file renamed),
//! and a cache that cannot be written costs the next run its speed, nothing else. Two runs writing
//! one cache at once lose at most one run's blobs. Blobs hold what snapshots hold (names, paths,
//! positions), never source text.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use output_schema::manifest::Warning;

/// A blob's key: the first 16 bytes of a BLAKE3 hash of everything its derivation read.
pub type Key = [u8; 16];

/// File name of a pack's index.
pub const INDEX_FILE: &str = "index.bin";
const MAGIC: &[u8; 8] = b"CKBPACK1";
/// Largest index or segment file read, whatever its index claims.
const MAX_FILE_BYTES: u64 = 4 << 30;
/// Segments are rewritten into one when they hold more than this many dead bytes per live byte,
/// or there are more of them than [`MAX_SEGMENTS`].
const MAX_DEAD_PER_LIVE: u64 = 1;
const MAX_SEGMENTS: usize = 16;

/// The key of a blob: a BLAKE3 hash of `domain` and `fields`, each length-prefixed.
pub fn key(domain: &str, fields: &[&[u8]]) -> Key {
    let mut h = blake3::Hasher::new();
    for f in std::iter::once(domain.as_bytes()).chain(fields.iter().copied()) {
        h.update(&(f.len() as u64).to_le_bytes());
        h.update(f);
    }
    let mut k = [0u8; 16];
    k.copy_from_slice(&h.finalize().as_bytes()[..16]);
    k
}

fn checksum(bytes: &[u8]) -> [u8; 16] {
    let mut c = [0u8; 16];
    c.copy_from_slice(&blake3::hash(bytes).as_bytes()[..16]);
    c
}

/// Why a cache could not be used, or not all of it: the stage's warning code and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheProblem {
    /// `cache-unreadable`, `cache-other-build` or `cache-committed`.
    pub code: &'static str,
    /// What was wrong.
    pub message: String,
}

/// Where a blob lies.
#[derive(Clone, Copy, Debug)]
struct Place {
    segment: u32,
    offset: u64,
    len: u32,
    checksum: [u8; 16],
}

#[derive(Debug)]
struct Segment {
    name: String,
    size: u64,
    bytes: OnceLock<Option<Vec<u8>>>,
}

/// A cache as this run found it.
#[derive(Debug)]
pub struct CachePack {
    dir: PathBuf,
    identity: String,
    places: HashMap<Key, Place>,
    segments: Vec<Segment>,
    /// Problems met so far (a damaged blob is found only when read).
    problems: Mutex<Vec<CacheProblem>>,
}

impl CachePack {
    /// A cache that holds nothing (no folder, or none wanted), to be filled by this run.
    pub fn empty(dir: &Path, identity: &str) -> CachePack {
        CachePack {
            dir: dir.to_path_buf(),
            identity: identity.to_string(),
            places: HashMap::new(),
            segments: Vec::new(),
            problems: Mutex::new(Vec::new()),
        }
    }

    /// Opens the cache in `dir`, written for `identity` (the program and the settings that shape
    /// its blobs). A missing folder is an empty cache; an unusable one is an empty cache with a
    /// problem.
    pub fn open(dir: &Path, identity: &str) -> CachePack {
        let mut pack = CachePack::empty(dir, identity);
        let index = dir.join(INDEX_FILE);
        let Ok(meta) = std::fs::symlink_metadata(&index) else {
            return pack;
        };
        match read_regular(&index, &meta, None).and_then(|bytes| parse_index(&bytes, identity)) {
            Ok((places, segments)) => {
                pack.places = places;
                pack.segments = segments;
            }
            Err(problem) => pack.problem(problem),
        }
        pack
    }

    /// Records a problem: the stage reports it.
    pub fn problem(&self, problem: CacheProblem) {
        if let Ok(mut list) = self.problems.lock() {
            if !list.contains(&problem) {
                list.push(problem);
            }
        }
    }

    /// The problems met, in the order they were met (each once).
    pub fn problems(&self) -> Vec<CacheProblem> {
        self.problems.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// The problems met as a stage's warnings: `<name>: <problem>; <instead>`, where `name` is the
    /// cache's folder and `instead` says what the stage did in its place.
    pub fn warnings(pack: Option<&CachePack>, name: &str, instead: &str) -> Vec<Warning> {
        pack.into_iter()
            .flat_map(|c| c.problems())
            .map(|p| Warning {
                code: p.code.into(),
                path: None,
                message: format!("{name}: {}; {instead}", p.message),
            })
            .collect()
    }

    /// How many blobs the cache holds.
    pub fn len(&self) -> usize {
        self.places.len()
    }

    /// Whether the cache holds no blob.
    pub fn is_empty(&self) -> bool {
        self.places.is_empty()
    }

    /// Ignores everything the cache holds, with `problem` as the reason (a cache committed to the
    /// repository, say).
    pub fn discard(&mut self, problem: CacheProblem) {
        self.places.clear();
        self.segments.clear();
        self.problem(problem);
    }

    /// Whether the pack records a blob under `key` (which [`CachePack::get`] may still find
    /// damaged).
    pub fn has(&self, key: &Key) -> bool {
        self.places.contains_key(key)
    }

    /// The blob stored under `key`, checked against its checksum. A blob that fails the check, or
    /// whose segment cannot be read, is `None` and a problem.
    pub fn get(&self, key: &Key) -> Option<&[u8]> {
        let place = self.places.get(key)?;
        let segment = self.segments.get(place.segment as usize)?;
        let bytes = segment
            .bytes
            .get_or_init(|| self.load(segment))
            .as_deref()?;
        let blob = usize::try_from(place.offset)
            .ok()
            .and_then(|start| Some(start..start.checked_add(place.len as usize)?))
            .and_then(|range| bytes.get(range));
        match blob {
            Some(blob) if checksum(blob) == place.checksum => Some(blob),
            _ => {
                self.problem(unreadable(format!(
                    "a blob of {} does not match its checksum",
                    segment.name
                )));
                None
            }
        }
    }

    fn load(&self, segment: &Segment) -> Option<Vec<u8>> {
        let path = self.dir.join(&segment.name);
        let read = std::fs::symlink_metadata(&path)
            .map_err(|e| unreadable(format!("{}: {e}", segment.name)))
            .and_then(|meta| read_regular(&path, &meta, Some(segment.size)));
        match read {
            Ok(bytes) => Some(bytes),
            Err(problem) => {
                self.problem(problem);
                None
            }
        }
    }

    /// The update this run leaves: starts with nothing used.
    pub fn update(&self) -> PackUpdate {
        PackUpdate {
            dir: self.dir.clone(),
            identity: self.identity.clone(),
            used: BTreeSet::new(),
            new: Vec::new(),
        }
    }
}

fn unreadable(message: String) -> CacheProblem {
    CacheProblem {
        code: "cache-unreadable",
        message,
    }
}

/// Reads a regular file (never through a symlink) whose size is `expected` when given, and at
/// most [`MAX_FILE_BYTES`].
fn read_regular(
    path: &Path,
    meta: &std::fs::Metadata,
    expected: Option<u64>,
) -> Result<Vec<u8>, CacheProblem> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if !meta.is_file() {
        return Err(unreadable(format!("{name} is not a regular file")));
    }
    if meta.len() > MAX_FILE_BYTES || expected.is_some_and(|e| e != meta.len()) {
        return Err(unreadable(format!(
            "{name} has {} bytes, not the size its index records",
            meta.len()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| unreadable(format!("{name}: {e}")))?;
    if expected.is_some_and(|e| e != bytes.len() as u64) {
        return Err(unreadable(format!("{name} changed while it was read")));
    }
    Ok(bytes)
}

/// The index's parts: `(places, segments)`.
type Parsed = (HashMap<Key, Place>, Vec<Segment>);

fn parse_index(bytes: &[u8], identity: &str) -> Result<Parsed, CacheProblem> {
    let bad = |why: &str| unreadable(format!("{INDEX_FILE} is damaged ({why})"));
    if bytes.len() < MAGIC.len() + 16 || &bytes[..MAGIC.len()] != MAGIC {
        return Err(bad("not a cache index"));
    }
    let (body, sum) = bytes.split_at(bytes.len() - 16);
    if checksum(body) != sum {
        return Err(bad("checksum"));
    }
    let mut r = Reader(&body[MAGIC.len()..]);
    let written_by = r.string().ok_or_else(|| bad("identity"))?;
    if written_by != identity {
        return Err(CacheProblem {
            code: "cache-other-build",
            message: "written by another build of ckb or for other settings; not reused".into(),
        });
    }
    let n = r.count(10).ok_or_else(|| bad("segment count"))?;
    let mut segments = Vec::with_capacity(n);
    for _ in 0..n {
        let name = r.string().ok_or_else(|| bad("segment name"))?;
        let size = r.varint().ok_or_else(|| bad("segment size"))?;
        if !is_segment_name(&name) {
            return Err(bad("segment name"));
        }
        segments.push(Segment {
            name,
            size,
            bytes: OnceLock::new(),
        });
    }
    let n = r.count(35).ok_or_else(|| bad("entry count"))?;
    let mut places = HashMap::with_capacity(n);
    for _ in 0..n {
        let key: Key = r.array().ok_or_else(|| bad("key"))?;
        let segment = r.varint().ok_or_else(|| bad("segment"))?;
        let offset = r.varint().ok_or_else(|| bad("offset"))?;
        let len = r.varint().ok_or_else(|| bad("length"))?;
        let checksum: [u8; 16] = r.array().ok_or_else(|| bad("checksum"))?;
        let (Ok(segment), Ok(len)) = (u32::try_from(segment), u32::try_from(len)) else {
            return Err(bad("place"));
        };
        let fits = segments.get(segment as usize).is_some_and(|s| {
            offset
                .checked_add(u64::from(len))
                .is_some_and(|e| e <= s.size)
        });
        if !fits {
            return Err(bad("a blob lies outside its segment"));
        }
        places.insert(
            key,
            Place {
                segment,
                offset,
                len,
                checksum,
            },
        );
    }
    if !r.0.is_empty() {
        return Err(bad("trailing bytes"));
    }
    Ok((places, segments))
}

fn is_segment_name(name: &str) -> bool {
    name.strip_prefix("seg-")
        .and_then(|n| n.strip_suffix(".bin"))
        .is_some_and(|h| h.len() == 32 && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// A bounds-checked reader of the index.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for (i, &b) in self.0.iter().enumerate().take(10) {
            v |= u64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                self.0 = &self.0[i + 1..];
                return Some(v);
            }
        }
        None
    }
    /// A count of items of at least `min_bytes` each, no more than the bytes left can hold.
    fn count(&mut self, min_bytes: usize) -> Option<usize> {
        let n = usize::try_from(self.varint()?).ok()?;
        (n.saturating_mul(min_bytes) <= self.0.len()).then_some(n)
    }
    fn bytes(&mut self, n: usize) -> Option<&[u8]> {
        (n <= self.0.len()).then(|| {
            let (head, rest) = self.0.split_at(n);
            self.0 = rest;
            head
        })
    }
    fn string(&mut self) -> Option<String> {
        let n = self.count(1)?;
        String::from_utf8(self.bytes(n)?.to_vec()).ok()
    }
    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.bytes(N)?.try_into().ok()
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_string(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// What a run leaves in a cache: the keys of the blobs it used (found or derived) and the blobs
/// it derived. Saved once the snapshot is published ([`PackUpdate::save`]).
#[derive(Debug)]
pub struct PackUpdate {
    dir: PathBuf,
    identity: String,
    used: BTreeSet<Key>,
    new: Vec<(Key, Vec<u8>)>,
}

impl PackUpdate {
    /// This run used the blob stored under `key` (it stays).
    pub fn keep(&mut self, key: Key) {
        self.used.insert(key);
    }

    /// This run derived `blob` for `key`.
    pub fn add(&mut self, key: Key, blob: Vec<u8>) {
        if self.used.insert(key) {
            self.new.push((key, blob));
        }
    }

    /// Whether the update adds nothing to `pack` and drops nothing from it (then saving it would
    /// write the same cache again).
    fn changes_nothing(&self, pack: &CachePack) -> bool {
        self.new.is_empty()
            && self.used.len() == pack.places.len()
            && self.used.iter().all(|k| pack.places.contains_key(k))
            && pack.problems().is_empty()
    }

    /// Writes the cache: the new blobs as one segment, then an index of exactly the blobs this
    /// run used (compacting when the segments hold more dead bytes than live ones), then removes
    /// the segments no longer named. `pack` is the cache this run read (its segments are copied
    /// from when compacting). Errors are ignored: the cache is advisory.
    pub fn save(self, pack: &CachePack) {
        if self.changes_nothing(pack) {
            return;
        }
        let _ = std::fs::create_dir_all(&self.dir);
        // Only a real folder: never write through a symlink.
        if !std::fs::symlink_metadata(&self.dir).is_ok_and(|m| m.is_dir()) {
            return;
        }
        let mut segments: Vec<(String, u64)> = Vec::new();
        let mut index: Vec<(Key, u32, u64, u32, [u8; 16])> = Vec::new();
        // Blobs found in the old segments, by segment.
        let mut kept_live: HashMap<u32, u64> = HashMap::new();
        let mut old: Vec<(Key, Place)> = Vec::new();
        let new_keys: BTreeSet<Key> = self.new.iter().map(|(k, _)| *k).collect();
        for key in &self.used {
            if new_keys.contains(key) {
                continue;
            }
            if let Some(place) = pack.places.get(key) {
                *kept_live.entry(place.segment).or_default() += u64::from(place.len);
                old.push((*key, *place));
            }
        }
        let live: u64 = kept_live.values().sum();
        let total: u64 = kept_live
            .keys()
            .filter_map(|s| pack.segments.get(*s as usize))
            .map(|s| s.size)
            .sum();
        let compact = total.saturating_sub(live) > MAX_DEAD_PER_LIVE * live
            || kept_live.len() + 1 > MAX_SEGMENTS;
        let mut fresh: Vec<(Key, &[u8])> = self
            .new
            .iter()
            .map(|(k, blob)| (*k, blob.as_slice()))
            .collect();
        if compact {
            for (key, _) in &old {
                match pack.get(key) {
                    Some(blob) => fresh.push((*key, blob)),
                    None => continue,
                }
            }
        } else {
            let mut renumber: HashMap<u32, u32> = HashMap::new();
            for (key, place) in &old {
                let n = segments.len() as u32;
                let seg = *renumber.entry(place.segment).or_insert_with(|| {
                    let s = &pack.segments[place.segment as usize];
                    segments.push((s.name.clone(), s.size));
                    n
                });
                index.push((*key, seg, place.offset, place.len, place.checksum));
            }
        }
        if !fresh.is_empty() {
            fresh.sort_by_key(|(k, _)| *k);
            let mut bytes = Vec::with_capacity(fresh.iter().map(|(_, b)| b.len()).sum());
            let seg = segments.len() as u32;
            for (key, blob) in &fresh {
                index.push((
                    *key,
                    seg,
                    bytes.len() as u64,
                    blob.len() as u32,
                    checksum(blob),
                ));
                bytes.extend_from_slice(blob);
            }
            let name = format!("seg-{}.bin", &blake3::hash(&bytes).to_hex()[..32]);
            if write_atomically(&self.dir.join(&name), &bytes).is_err() {
                return;
            }
            segments.push((name, bytes.len() as u64));
        }
        index.sort_by_key(|e| e.0);
        let mut out = MAGIC.to_vec();
        put_string(&mut out, &self.identity);
        put_varint(&mut out, segments.len() as u64);
        for (name, size) in &segments {
            put_string(&mut out, name);
            put_varint(&mut out, *size);
        }
        put_varint(&mut out, index.len() as u64);
        for (key, seg, offset, len, sum) in &index {
            out.extend_from_slice(key);
            put_varint(&mut out, u64::from(*seg));
            put_varint(&mut out, *offset);
            put_varint(&mut out, u64::from(*len));
            out.extend_from_slice(sum);
        }
        let sum = checksum(&out);
        out.extend_from_slice(&sum);
        if write_atomically(&self.dir.join(INDEX_FILE), &out).is_err() {
            return;
        }
        remove_unnamed_segments(&self.dir, &segments);
    }
}

/// Removes the segment files (and leftover temporary files) the index does not name.
fn remove_unnamed_segments(dir: &Path, named: &[(String, u64)]) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let named: BTreeSet<&str> = named.iter().map(|(n, _)| n.as_str()).collect();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let stale_segment = is_segment_name(name) && !named.contains(name);
        let leftover = name.contains(".tmp");
        if stale_segment || leftover {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Writes `bytes` to `path` through a temporary file created anew (never through a symlink that
/// happens to have its name) and renamed into place.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut f| std::io::Write::write_all(&mut f, bytes))
        .and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    fn save(dir: &Path, id: &str, pack: &CachePack, keep: &[Key], add: &[(Key, &[u8])]) {
        let mut u = pack.update();
        for k in keep {
            u.keep(*k);
        }
        for (k, b) in add {
            u.add(*k, b.to_vec());
        }
        u.save(pack);
        let _ = (dir, id);
    }

    fn segments_in(dir: &Path) -> usize {
        std::fs::read_dir(dir)
            .unwrap()
            .filter(|e| is_segment_name(e.as_ref().unwrap().file_name().to_str().unwrap()))
            .count()
    }

    #[test]
    fn blobs_come_back_and_the_cache_keeps_only_what_the_last_run_used() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("cache");
        let (a, b, c) = (key("t", &[b"a"]), key("t", &[b"b"]), key("t", &[b"c"]));
        let first = CachePack::open(&dir, "id");
        assert!(first.is_empty() && first.problems().is_empty());
        save(&dir, "id", &first, &[], &[(a, b"alpha"), (b, b"beta")]);
        let second = CachePack::open(&dir, "id");
        assert_eq!(second.get(&a), Some(&b"alpha"[..]));
        assert_eq!(second.get(&b), Some(&b"beta"[..]));
        assert_eq!(second.get(&c), None);
        // The next run used a and derived c: b is gone.
        save(&dir, "id", &second, &[a], &[(c, b"gamma")]);
        let third = CachePack::open(&dir, "id");
        assert_eq!(third.len(), 2);
        assert_eq!(third.get(&a), Some(&b"alpha"[..]));
        assert_eq!(third.get(&c), Some(&b"gamma"[..]));
        assert!(third.problems().is_empty());
        // Dead bytes outgrew the live ones: one segment again.
        save(&dir, "id", &third, &[c], &[]);
        let fourth = CachePack::open(&dir, "id");
        assert_eq!((fourth.len(), segments_in(&dir)), (1, 1));
        assert_eq!(fourth.get(&c), Some(&b"gamma"[..]));
        // Another build's cache is not read.
        let other = CachePack::open(&dir, "other");
        assert!(other.is_empty());
        assert_eq!(other.problems()[0].code, "cache-other-build");
    }

    #[test]
    fn damage_is_a_problem_and_a_miss_never_a_wrong_blob() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("cache");
        let (a, b) = (key("t", &[b"a"]), key("t", &[b"b"]));
        save(
            &dir,
            "id",
            &CachePack::open(&dir, "id"),
            &[],
            &[(a, b"alpha"), (b, b"beta")],
        );
        let seg = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| is_segment_name(p.file_name().unwrap().to_str().unwrap()))
            .unwrap();
        let mut bytes = std::fs::read(&seg).unwrap();
        let at = bytes.windows(4).position(|w| w == b"beta").unwrap();
        bytes[at] = b'B';
        std::fs::write(&seg, &bytes).unwrap();
        let pack = CachePack::open(&dir, "id");
        assert_eq!(pack.get(&a), Some(&b"alpha"[..]));
        assert_eq!(pack.get(&b), None);
        assert_eq!(pack.problems()[0].code, "cache-unreadable");
        // A damaged index: nothing is used.
        let index = dir.join(INDEX_FILE);
        let mut bytes = std::fs::read(&index).unwrap();
        let last = bytes.len() - 20;
        bytes[last] ^= 1;
        std::fs::write(&index, &bytes).unwrap();
        let pack = CachePack::open(&dir, "id");
        assert!(pack.is_empty());
        assert_eq!(pack.problems()[0].code, "cache-unreadable");
        for cut in 0..bytes.len() {
            let _ = parse_index(&bytes[..cut], "id");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_index_or_segment_is_not_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("cache");
        let a = key("t", &[b"a"]);
        save(
            &dir,
            "id",
            &CachePack::open(&dir, "id"),
            &[],
            &[(a, b"alpha")],
        );
        let index = dir.join(INDEX_FILE);
        let moved = tmp.path().join("elsewhere");
        std::fs::rename(&index, &moved).unwrap();
        std::os::unix::fs::symlink(&moved, &index).unwrap();
        let pack = CachePack::open(&dir, "id");
        assert!(pack.is_empty());
        assert_eq!(pack.problems()[0].code, "cache-unreadable");
    }
}
