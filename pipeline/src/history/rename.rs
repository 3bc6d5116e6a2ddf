//! Rename detection as `git diff -M` does it (git's `diffcore-rename.c` and `diffcore-delta.c`),
//! so that renames — and with them every `file_changes` row — pair up exactly as in
//! `git log --numstat -M`.
//!
//! The steps, all in path order:
//! 1. exact: each added path takes a deleted path with the same blob (and, for symlinks and
//!    submodules, the same mode), preferring one with the same file name;
//! 2. same file name: when a file name is unique among the remaining deleted and among the
//!    remaining added paths, the pair is taken if at least 75 % similar;
//! 3. similarity matrix (skipped when remaining added × deleted > 1000², git's default
//!    `diff.renameLimit`): each added path keeps its 4 best candidates of at least 50 %, and pairs
//!    are assigned best first.
//!
//! Similarity is git's estimate: content is cut into chunks ending at a newline or after 64 bytes
//! (a CR before LF ignored in text), chunks are hashed into buckets, and the bytes the destination
//! shares with the source, divided by the larger size, give the score (0..60000). Only regular
//! files get inexact matches. One deviation: git also decides "text" (for the CR rule) from the
//! `binary`/`-diff` attributes; here only the NUL-byte test is used.
//!
//! A blob that is not available (left out of a partial clone, or unreadable) gives its pairs no
//! score: exact renames still pair (they need only the trees), inexact ones with that blob stay
//! an addition and a deletion.

use std::collections::HashMap;

use gix::bstr::{BStr, BString, ByteSlice};
use gix::objs::tree::{EntryKind, EntryMode};
use gix::ObjectId;

/// Scores run from 0 to this (100 %).
const MAX_SCORE: u64 = 60_000;
/// `-M` without a number: 50 %.
const MIN_SCORE: u64 = 30_000;
/// Same-file-name pairs need 75 % (git's basename factor of 0.5 between MIN and MAX).
const BASENAME_MIN_SCORE: u64 = MIN_SCORE + (MAX_SCORE - MIN_SCORE) / 2;
/// Candidates kept per destination in the matrix.
const CANDIDATES_PER_DST: usize = 4;
/// git's default `diff.renameLimit`.
const RENAME_LIMIT: usize = 1000;
/// Bucket count of git's chunk hash.
const HASHBASE: u32 = 107_927;

/// One side of an added or deleted path.
#[derive(Clone, Debug)]
pub(crate) struct Side {
    pub path: BString,
    pub id: ObjectId,
    pub mode: EntryMode,
}

/// Access to blob sizes and contents; `Ok(None)` for a blob that is not available.
pub(crate) trait Blobs {
    /// The size of a blob.
    fn size(&mut self, id: ObjectId) -> Result<Option<u64>, String>;
    /// The content of a blob.
    fn data(&mut self, id: ObjectId) -> Result<Option<Vec<u8>>, String>;
}

/// Pairs deleted paths (`srcs`) with added paths (`dsts`); both must be sorted by path. Returns
/// `(src index, dst index)` pairs.
pub(crate) fn detect(
    srcs: &[Side],
    dsts: &[Side],
    blobs: &mut dyn Blobs,
) -> Result<Vec<(usize, usize)>, String> {
    let mut pairs = Vec::new();
    if srcs.is_empty() || dsts.is_empty() {
        return Ok(pairs);
    }
    let mut src_used = vec![false; srcs.len()];
    let mut dst_done = vec![false; dsts.len()];

    // 1. Exact matches.
    let mut by_id: HashMap<ObjectId, Vec<usize>> = HashMap::new();
    for (i, s) in srcs.iter().enumerate() {
        by_id.entry(s.id).or_default().push(i);
    }
    for (d, dst) in dsts.iter().enumerate() {
        let Some(candidates) = by_id.get(&dst.id) else {
            continue;
        };
        let mut best: Option<(usize, u8)> = None;
        let mut budget = 100;
        for &s in candidates {
            let src = &srcs[s];
            if (!is_regular(src.mode) || !is_regular(dst.mode)) && src.mode != dst.mode {
                continue;
            }
            if src_used[s] {
                continue;
            }
            let score = 1 + u8::from(basename_same(src.path.as_ref(), dst.path.as_ref()));
            if best.is_none_or(|(_, b)| score > b) {
                best = Some((s, score));
                if score == 2 {
                    break;
                }
            }
            budget -= 1;
            if budget == 0 {
                break;
            }
        }
        if let Some((s, _)) = best {
            src_used[s] = true;
            dst_done[d] = true;
            pairs.push((s, d));
        }
    }

    let mut sim = Similarity::default();

    // 2. Unique file names.
    let remaining_srcs: Vec<usize> = (0..srcs.len()).filter(|&s| !src_used[s]).collect();
    let mut src_names: HashMap<&BStr, Option<usize>> = HashMap::new();
    for &s in &remaining_srcs {
        let name = basename(srcs[s].path.as_ref());
        src_names
            .entry(name)
            .and_modify(|v| *v = None)
            .or_insert(Some(s));
    }
    let mut dst_names: HashMap<&BStr, Option<usize>> = HashMap::new();
    for (d, dst) in dsts.iter().enumerate() {
        if dst_done[d] {
            continue;
        }
        dst_names
            .entry(basename(dst.path.as_ref()))
            .and_modify(|v| *v = None)
            .or_insert(Some(d));
    }
    for &s in &remaining_srcs {
        let name = basename(srcs[s].path.as_ref());
        let (Some(Some(src_index)), Some(&Some(d))) = (src_names.get(name), dst_names.get(name))
        else {
            continue;
        };
        debug_assert_eq!(*src_index, s);
        if dst_done[d] {
            continue;
        }
        let score = sim.estimate(&srcs[s], &dsts[d], BASENAME_MIN_SCORE, blobs)?;
        if score < BASENAME_MIN_SCORE {
            continue;
        }
        src_used[s] = true;
        dst_done[d] = true;
        pairs.push((s, d));
    }

    // 3. The similarity matrix.
    let remaining_srcs: Vec<usize> = (0..srcs.len()).filter(|&s| !src_used[s]).collect();
    let remaining_dsts: Vec<usize> = (0..dsts.len()).filter(|&d| !dst_done[d]).collect();
    if remaining_srcs.is_empty() || remaining_dsts.is_empty() {
        return Ok(pairs);
    }
    if (remaining_srcs.len() as u128) * (remaining_dsts.len() as u128)
        > (RENAME_LIMIT as u128) * (RENAME_LIMIT as u128)
    {
        return Ok(pairs);
    }
    let mut matrix: Vec<Candidate> = Vec::with_capacity(remaining_dsts.len() * CANDIDATES_PER_DST);
    for &d in &remaining_dsts {
        let mut best = [Candidate::EMPTY; CANDIDATES_PER_DST];
        for &s in &remaining_srcs {
            let candidate = Candidate {
                dst: Some(d),
                src: s,
                score: sim.estimate(&srcs[s], &dsts[d], MIN_SCORE, blobs)?,
                name_score: u8::from(basename_same(srcs[s].path.as_ref(), dsts[d].path.as_ref())),
            };
            // Replace the worst kept candidate if the new one is strictly better.
            let mut worst = 0;
            for i in 1..CANDIDATES_PER_DST {
                if best[i].is_worse_than(&best[worst]) {
                    worst = i;
                }
            }
            if best[worst].is_worse_than(&candidate) {
                best[worst] = candidate;
            }
        }
        matrix.extend(best);
    }
    // Best first; the sort is stable, as git's, so ties keep destination order.
    matrix.sort_by(|a, b| a.order(b));
    for c in matrix {
        let Some(d) = c.dst else { break };
        if c.score < MIN_SCORE {
            break;
        }
        if dst_done[d] || src_used[c.src] {
            continue;
        }
        src_used[c.src] = true;
        dst_done[d] = true;
        pairs.push((c.src, d));
    }
    Ok(pairs)
}

#[derive(Clone, Copy, Debug)]
struct Candidate {
    dst: Option<usize>,
    src: usize,
    score: u64,
    name_score: u8,
}

impl Candidate {
    const EMPTY: Candidate = Candidate {
        dst: None,
        src: 0,
        score: 0,
        name_score: 0,
    };

    /// git's `score_compare`: unused slots last, then higher score, then same file name.
    fn order(&self, other: &Candidate) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        match (self.dst, other.dst) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Greater,
            (Some(_), None) => Ordering::Less,
            _ => other
                .score
                .cmp(&self.score)
                .then_with(|| other.name_score.cmp(&self.name_score)),
        }
    }

    fn is_worse_than(&self, other: &Candidate) -> bool {
        self.order(other) == std::cmp::Ordering::Greater
    }
}

/// Per-commit cache of blob sizes and chunk-hash counts.
#[derive(Default)]
struct Similarity {
    sizes: HashMap<ObjectId, Option<u64>>,
    spans: HashMap<ObjectId, Option<Vec<(u32, u32)>>>,
}

impl Similarity {
    /// git's `estimate_similarity`: 0..MAX_SCORE.
    fn estimate(
        &mut self,
        src: &Side,
        dst: &Side,
        minimum: u64,
        blobs: &mut dyn Blobs,
    ) -> Result<u64, String> {
        if !is_regular(src.mode) || !is_regular(dst.mode) {
            return Ok(0);
        }
        let (Some(src_size), Some(dst_size)) =
            (self.size(src.id, blobs)?, self.size(dst.id, blobs)?)
        else {
            return Ok(0);
        };
        let max_size = src_size.max(dst_size);
        let delta = max_size - src_size.min(dst_size);
        // Sizes too different to reach the minimum (also rules out empty vs non-empty).
        if max_size * (MAX_SCORE - minimum) < delta * MAX_SCORE {
            return Ok(0);
        }
        if dst_size == 0 {
            return Ok(0);
        }
        self.load_spans(src.id, blobs)?;
        self.load_spans(dst.id, blobs)?;
        let (Some(a), Some(b)) = (&self.spans[&src.id], &self.spans[&dst.id]) else {
            return Ok(0);
        };
        let copied = shared_bytes(a, b);
        Ok(copied * MAX_SCORE / max_size)
    }

    fn size(&mut self, id: ObjectId, blobs: &mut dyn Blobs) -> Result<Option<u64>, String> {
        if let Some(&s) = self.sizes.get(&id) {
            return Ok(s);
        }
        let s = blobs.size(id)?;
        self.sizes.insert(id, s);
        Ok(s)
    }

    fn load_spans(&mut self, id: ObjectId, blobs: &mut dyn Blobs) -> Result<(), String> {
        if let std::collections::hash_map::Entry::Vacant(slot) = self.spans.entry(id) {
            slot.insert(blobs.data(id)?.map(|data| spans(&data)));
        }
        Ok(())
    }
}

/// git's `hash_chars`: (bucket, bytes) sorted by bucket.
fn spans(data: &[u8]) -> Vec<(u32, u32)> {
    let is_text = !data[..data.len().min(8000)].contains(&0);
    let mut counts: HashMap<u32, u32> = HashMap::new();
    let (mut accum1, mut accum2, mut n) = (0u32, 0u32, 0u32);
    let mut i = 0;
    while i < data.len() {
        let c = u32::from(data[i]);
        i += 1;
        let old1 = accum1;
        if is_text && c == u32::from(b'\r') && i < data.len() && data[i] == b'\n' {
            continue;
        }
        accum1 = (accum1 << 7) ^ (accum2 >> 25);
        accum2 = (accum2 << 7) ^ (old1 >> 25);
        accum1 = accum1.wrapping_add(c);
        n += 1;
        if n < 64 && c != u32::from(b'\n') {
            continue;
        }
        let hash = accum1.wrapping_add(accum2.wrapping_mul(0x61)) % HASHBASE;
        *counts.entry(hash).or_default() += n;
        (accum1, accum2, n) = (0, 0, 0);
    }
    if n > 0 {
        let hash = accum1.wrapping_add(accum2.wrapping_mul(0x61)) % HASHBASE;
        *counts.entry(hash).or_default() += n;
    }
    let mut v: Vec<(u32, u32)> = counts.into_iter().collect();
    v.sort_unstable();
    v
}

/// Bytes of `dst` found in `src`: the sum over buckets of the smaller count.
fn shared_bytes(src: &[(u32, u32)], dst: &[(u32, u32)]) -> u64 {
    let (mut i, mut j, mut shared) = (0, 0, 0u64);
    while i < src.len() && j < dst.len() {
        match src[i].0.cmp(&dst[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += u64::from(src[i].1.min(dst[j].1));
                i += 1;
                j += 1;
            }
        }
    }
    shared
}

fn is_regular(mode: EntryMode) -> bool {
    matches!(mode.kind(), EntryKind::Blob | EntryKind::BlobExecutable)
}

fn basename(path: &BStr) -> &BStr {
    path.rfind_byte(b'/')
        .map_or(path, |i| path[i + 1..].as_bstr())
}

/// git's `basename_same`.
fn basename_same(a: &BStr, b: &BStr) -> bool {
    basename(a) == basename(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Mem(HashMap<ObjectId, Vec<u8>>);
    impl Blobs for Mem {
        fn size(&mut self, id: ObjectId) -> Result<Option<u64>, String> {
            Ok(self.0.get(&id).map(|b| b.len() as u64))
        }
        fn data(&mut self, id: ObjectId) -> Result<Option<Vec<u8>>, String> {
            Ok(self.0.get(&id).cloned())
        }
    }

    fn blob(mem: &mut Mem, content: &str) -> ObjectId {
        let id = gix::objs::compute_hash(
            gix::hash::Kind::Sha1,
            gix::objs::Kind::Blob,
            content.as_bytes(),
        )
        .expect("sha1 works");
        mem.0.insert(id, content.as_bytes().to_vec());
        id
    }

    fn side(path: &str, id: ObjectId) -> Side {
        Side {
            path: path.into(),
            id,
            mode: EntryKind::Blob.into(),
        }
    }

    fn lines(n: usize, tag: &str) -> String {
        (0..n).map(|i| format!("{tag} {i}\n")).collect()
    }

    #[test]
    fn exact_prefers_the_same_file_name() {
        let mut mem = Mem(HashMap::new());
        let same = blob(&mut mem, "same\n");
        let srcs = vec![side("a/x.txt", same), side("b/y.txt", same)];
        let dsts = vec![side("c/y.txt", same)];
        assert_eq!(detect(&srcs, &dsts, &mut mem).unwrap(), vec![(1, 0)]);
    }

    #[test]
    fn similar_files_pair_and_dissimilar_do_not() {
        let mut mem = Mem(HashMap::new());
        let base = lines(40, "line");
        let edited = base.replacen("line 3\n", "changed 3\n", 1);
        let other = lines(40, "unrelated content that shares nothing");
        let (b, e, o) = (
            blob(&mut mem, &base),
            blob(&mut mem, &edited),
            blob(&mut mem, &other),
        );
        let srcs = vec![side("old.txt", b), side("gone.txt", o)];
        let dsts = vec![side("new.txt", e)];
        assert_eq!(detect(&srcs, &dsts, &mut mem).unwrap(), vec![(0, 0)]);
        let mut sim = Similarity::default();
        let score = sim
            .estimate(&srcs[0], &dsts[0], MIN_SCORE, &mut mem)
            .unwrap();
        assert!(score > 55_000 && score < MAX_SCORE, "{score}");
        assert_eq!(
            sim.estimate(&srcs[1], &dsts[0], MIN_SCORE, &mut mem)
                .unwrap(),
            0
        );
    }

    #[test]
    fn a_missing_blob_keeps_exact_renames_but_scores_no_inexact_one() {
        let mut mem = Mem(HashMap::new());
        let base = lines(40, "line");
        let edited = base.replacen("line 3\n", "changed 3\n", 1);
        let (b, e) = (blob(&mut mem, &base), blob(&mut mem, &edited));
        let same = blob(&mut mem, "same\n");
        let srcs = vec![side("moved.txt", same), side("old.txt", b)];
        let dsts = vec![side("new.txt", e), side("sub/moved.txt", same)];
        assert_eq!(
            detect(&srcs, &dsts, &mut mem).unwrap(),
            vec![(0, 1), (1, 0)]
        );
        // As in a blobless clone: the old content of the edited file is not there.
        mem.0.remove(&b);
        mem.0.remove(&same);
        assert_eq!(detect(&srcs, &dsts, &mut mem).unwrap(), vec![(0, 1)]);
    }

    #[test]
    fn chunk_hash_ignores_cr_before_lf_in_text_only() {
        assert_eq!(spans(b"a\r\nb\r\n"), spans(b"a\nb\n"));
        assert_ne!(spans(b"\0a\r\n"), spans(b"\0a\n"));
        let long = "x".repeat(130);
        let s = spans(long.as_bytes());
        assert_eq!(
            s.iter().map(|c| c.1).sum::<u32>(),
            130,
            "64-byte chunks cover every byte"
        );
    }

    #[test]
    fn basenames_compare_like_git() {
        assert!(basename_same("a/b/c.rs".into(), "c.rs".into()));
        assert!(!basename_same("a/bc.rs".into(), "x/c.rs".into()));
    }
}
