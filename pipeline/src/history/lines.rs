//! Line counts of a modification: how many lines a line diff of two texts adds and removes,
//! computed by imara-diff exactly as `Diff::compute` over the whole texts would — but without
//! splitting and hashing every line of both files.
//!
//! Why that is exact: imara-diff (like git's xdiff) strips the common leading and trailing lines
//! and diffs only the lines between them; the common lines matter only through the files' lengths
//! and how often each middle line occurs in the whole of either file (Myers prunes lines that are
//! missing from, or very frequent in, the other file). So only the middle lines are interned;
//! each middle line gets as many copies of its token among the common lines as it has equal common
//! lines, and the other common lines share one placeholder token that never occurs in the middle.
//! Both token sequences keep their lengths, their common ends (identical on both sides, so they
//! are stripped again) and the occurrence count of every middle token, so the diff — and its
//! counts — are the same; where the common tokens sit does not matter, as they are stripped.
//!
//! The common ends are found by comparing bytes; equal common lines are then counted by searching
//! the common text for each distinct middle line (few, in a typical modification), or, when the
//! middle has many distinct lines, by splitting the common text into lines and looking up those
//! that pass a small filter on (length, first, middle and last byte).

use gix::bstr::ByteSlice;
use gix::diff::blob::sources::byte_lines;
use gix::diff::blob::{Algorithm, Diff, Interner, Token};

/// Bits of the filter of middle lines (a power of two).
const FILTER_BITS: usize = 1 << 13;
/// Up to this many distinct middle lines, common lines are counted by searching for each.
const SEARCH_MAX_DISTINCT: u32 = 16;

/// (added, removed) lines between two texts; lines keep their terminators, as in git.
pub(crate) fn diff_lines(algorithm: Algorithm, old: &[u8], new: &[u8]) -> (i64, i64) {
    if old == new {
        return (0, 0);
    }
    let (head, tail) = common_ends(old, new);
    let old_middle = &old[head..old.len() - tail];
    let new_middle = &new[head..new.len() - tail];
    // Nothing can match: every remaining line is added or removed, whatever the algorithm.
    if old_middle.is_empty() || new_middle.is_empty() {
        return (line_count(new_middle), line_count(old_middle));
    }
    let common = [&old[..head], &old[old.len() - tail..]];
    let common_lines = common.iter().map(|c| line_count(c)).sum::<i64>() as usize;

    let mut interner: Interner<&[u8]> =
        Interner::new((old_middle.len() + new_middle.len()) / 32 + 16);
    let mut filter = vec![0u64; FILTER_BITS / 64];
    let old_tokens = intern_middle(old_middle, &mut interner, &mut filter);
    let new_tokens = intern_middle(new_middle, &mut interner, &mut filter);
    let distinct = interner.num_tokens();
    let mut common_tokens: Vec<Token> = Vec::with_capacity(common_lines);
    if distinct <= SEARCH_MAX_DISTINCT {
        for t in 0..distinct {
            let line = interner[Token(t)];
            let n: usize = common.iter().map(|c| occurrences(c, line)).sum();
            common_tokens.extend(std::iter::repeat_n(Token(t), n));
        }
    } else {
        for c in common {
            for line in byte_lines(c) {
                let bit = filter_bit(line);
                if filter[bit / 64] & (1 << (bit % 64)) != 0 {
                    let t = interner.intern(line);
                    if t.0 < distinct {
                        common_tokens.push(t);
                    }
                }
            }
        }
    }
    // Lines that cannot equal a middle line; they are never compared with one.
    let placeholder = Token(interner.num_tokens());
    common_tokens.resize(common_lines, placeholder);
    let sequence = |middle: &[Token]| -> Vec<Token> {
        let mut v = Vec::with_capacity(common_lines + middle.len());
        v.extend_from_slice(&common_tokens);
        v.extend_from_slice(middle);
        v
    };
    let (before, after) = (sequence(&old_tokens), sequence(&new_tokens));
    let mut diff = Diff::default();
    diff.compute_with(algorithm, &before, &after, placeholder.0 + 1);
    (
        i64::from(diff.count_additions()),
        i64::from(diff.count_removals()),
    )
}

/// Bytes of the common leading and trailing lines of two different texts, as imara-diff strips
/// them: first the leading lines, then the trailing lines of what is left.
fn common_ends(old: &[u8], new: &[u8]) -> (usize, usize) {
    let equal = common_prefix(old, new);
    // Whole lines only: up to the last newline within the equal bytes. (Equal unterminated last
    // lines would make the texts equal.)
    let head = old[..equal].rfind_byte(b'\n').map_or(0, |i| i + 1);
    let (old_rest, new_rest) = (&old[head..], &new[head..]);
    let equal = common_suffix(old_rest, new_rest);
    let (old_start, new_start) = (old_rest.len() - equal, new_rest.len() - equal);
    let at_line_start = |rest: &[u8], start: usize| start == 0 || rest[start - 1] == b'\n';
    let tail = if at_line_start(old_rest, old_start) && at_line_start(new_rest, new_start) {
        equal
    } else {
        // From the first line start inside the equal bytes (a newline there is in both texts).
        match old_rest[old_start..].find_byte(b'\n') {
            Some(i) => equal - i - 1,
            None => 0,
        }
    };
    (head, tail)
}

/// Length of the longest common prefix.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const CHUNK: usize = 64;
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + CHUNK <= n && a[i..i + CHUNK] == b[i..i + CHUNK] {
        i += CHUNK;
    }
    i + a[i..n]
        .iter()
        .zip(&b[i..n])
        .take_while(|(x, y)| x == y)
        .count()
}

/// Length of the longest common suffix.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    const CHUNK: usize = 64;
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut i = 0;
    while i + CHUNK <= n && a[n - i - CHUNK..n - i] == b[n - i - CHUNK..n - i] {
        i += CHUNK;
    }
    i + a[..n - i]
        .iter()
        .rev()
        .zip(b[..n - i].iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

/// Lines in `text`: every newline, plus an unterminated last line.
fn line_count(text: &[u8]) -> i64 {
    let newlines = text.iter().filter(|&&b| b == b'\n').count() as i64;
    newlines + i64::from(text.last().is_some_and(|&b| b != b'\n'))
}

/// How many lines of `text` (which starts at a line start) equal `line`. An unterminated
/// middle line is the last line of its file and the common text holds no unterminated line then
/// (nothing common follows it), so it equals none.
fn occurrences(text: &[u8], line: &[u8]) -> usize {
    if line.last() != Some(&b'\n') {
        return 0;
    }
    // A match that starts mid-line cannot hide one that starts a line: its only newline is its
    // last byte, so no line start lies inside it.
    text.find_iter(line)
        .filter(|&at| at == 0 || text[at - 1] == b'\n')
        .count()
}

/// Interns the lines of `text` and marks them in `filter`.
fn intern_middle<'a>(
    text: &'a [u8],
    interner: &mut Interner<&'a [u8]>,
    filter: &mut [u64],
) -> Vec<Token> {
    byte_lines(text)
        .map(|line| {
            let bit = filter_bit(line);
            filter[bit / 64] |= 1 << (bit % 64);
            interner.intern(line)
        })
        .collect()
}

/// The filter bit of a line: equal lines always get the same bit.
fn filter_bit(line: &[u8]) -> usize {
    let len = line.len();
    let (first, middle, last) = match line {
        [] => (0, 0, 0),
        _ => (line[0], line[len / 2], line[len - 1]),
    };
    let key = (len as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(u64::from(first) << 16 | u64::from(middle) << 8 | u64::from(last))
        .wrapping_mul(0xBF58_476D_1CE4_E5B9);
    (key >> 51) as usize & (FILTER_BITS - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gix::diff::blob::InternedInput;
    use test_support::random::Rng;

    /// imara-diff over the whole texts: what `diff_lines` must equal.
    fn reference(algorithm: Algorithm, old: &[u8], new: &[u8]) -> (i64, i64) {
        let input = InternedInput::new(byte_lines(old), byte_lines(new));
        let diff = Diff::compute(algorithm, &input);
        (
            i64::from(diff.count_additions()),
            i64::from(diff.count_removals()),
        )
    }

    /// Text from a small alphabet of lines (so lines repeat, as blank lines and braces do), with
    /// or without a final newline.
    fn text(rng: &mut Rng, lines: usize, alphabet: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for _ in 0..lines {
            match rng.below(alphabet) {
                0 => out.extend_from_slice(b"\n"),
                1 => out.extend_from_slice(b"}\n"),
                2 => out.extend_from_slice(b"\r\n"),
                n => out.extend_from_slice(format!("line {n}\n").as_bytes()),
            }
        }
        if rng.below(4) == 0 {
            out.pop();
        }
        out
    }

    /// `old` with a few lines replaced, inserted or deleted.
    fn edit(rng: &mut Rng, old: &[u8], alphabet: usize) -> Vec<u8> {
        let mut lines: Vec<Vec<u8>> = byte_lines(old).map(<[u8]>::to_vec).collect();
        for _ in 0..=rng.below(4) {
            let at = rng.below(lines.len() + 1);
            let new_line = text(rng, 1, alphabet);
            match rng.below(3) {
                0 if at < lines.len() => lines[at] = new_line,
                1 if at < lines.len() => {
                    lines.remove(at);
                }
                _ => lines.insert(at, new_line),
            }
        }
        lines.concat()
    }

    #[test]
    fn equals_a_diff_of_the_whole_texts() {
        let mut rng = Rng::new(0x5eed_1234_abcd_0001);
        let algorithms = [
            Algorithm::Myers,
            Algorithm::MyersMinimal,
            Algorithm::Histogram,
        ];
        let mut nontrivial = 0;
        for case in 0..3000 {
            let alphabet = [3, 6, 40, 400][case % 4];
            let len = rng.below(300);
            let old = text(&mut rng, len, alphabet);
            let new = if case % 5 == 0 {
                let len = rng.below(300);
                text(&mut rng, len, alphabet)
            } else {
                edit(&mut rng, &old, alphabet)
            };
            let algorithm = algorithms[case % 3];
            let expected = reference(algorithm, &old, &new);
            nontrivial += usize::from(expected.0 > 0 && expected.1 > 0);
            assert_eq!(
                diff_lines(algorithm, &old, &new),
                expected,
                "case {case} ({algorithm:?}):\n{:?}\n---\n{:?}",
                String::from_utf8_lossy(&old),
                String::from_utf8_lossy(&new)
            );
        }
        assert!(
            nontrivial > 1000,
            "too few cases with both additions and deletions: {nontrivial}"
        );
    }

    #[test]
    fn frequent_common_lines_still_count_for_pruning() {
        // 400 blank lines outside the changed middle make the blank line frequent ("common")
        // for Myers' pruning, so the lone blank line between eight unmatched lines is pruned as
        // changed on both sides: 9 lines added and 9 removed, not 8 and 8 with the blank line
        // matched — which is what a diff of the middle lines alone would report. The second
        // middle has few distinct lines (common lines found by searching), the first many
        // (common lines split and looked up).
        let blanks = "\n".repeat(200);
        for (old_middle, new_middle) in [
            (
                "a1\na2\na3\na4\n\nb1\nb2\nb3\nb4\nb5\nb6\nb7\nb8\n",
                "x1\nx2\nx3\nx4\n\ny1\ny2\ny3\ny4\ny5\ny6\ny7\ny8\n",
            ),
            (
                "a1\na2\na1\na2\n\na2\na1\na2\na1\n",
                "x\nx\nx\nx\n\nx\nx\nx\nx\n",
            ),
        ] {
            let old = format!("{blanks}{old_middle}{blanks}");
            let new = format!("{blanks}{new_middle}{blanks}");
            let (old, new) = (old.as_bytes(), new.as_bytes());
            let lines = old_middle.lines().count() as i64;
            assert_eq!(reference(Algorithm::Myers, old, new), (lines, lines));
            assert_eq!(diff_lines(Algorithm::Myers, old, new), (lines, lines));
            // Without the frequent context the blank line is matched.
            let (old, new) = (old_middle.as_bytes(), new_middle.as_bytes());
            assert_eq!(
                diff_lines(Algorithm::Myers, old, new),
                (lines - 1, lines - 1)
            );
        }
    }

    #[test]
    fn ends_and_final_newlines() {
        assert_eq!(diff_lines(Algorithm::Myers, b"a\nb", b"a\nb\n"), (1, 1));
        assert_eq!(diff_lines(Algorithm::Myers, b"a\n", b"a\nb\n"), (1, 0));
        assert_eq!(diff_lines(Algorithm::Myers, b"a\nb\n", b"b\n"), (0, 1));
        assert_eq!(diff_lines(Algorithm::Myers, b"", b"a\nb"), (2, 0));
        assert_eq!(diff_lines(Algorithm::Myers, b"a\na\n", b"a\n"), (0, 1));
        assert_eq!(diff_lines(Algorithm::Myers, b"same", b"same"), (0, 0));
    }
}
