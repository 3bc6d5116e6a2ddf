//! Stable IDs that two files give alike, told apart.
//!
//! A file's definitions get their IDs from that file alone ([`super::definitions`]), which is
//! what lets a file's rows be cached and reused; but an ID names a definition's unit (see
//! [`crate::fingerprint`]), and a unit can span files: the files of one Go package
//! (`open_linux.go` and `open_windows.go` each defining `open`, or two `init`s), `a.ts` beside
//! the `a.js` built from it, `m.py` beside `m/__init__.py`. In the stage's output every ID is one
//! definition's: of the files that define an ID, the first in path order keeps it and each other
//! one adds `f<8 hex of its path's hash>` to its discriminator (`~f1a2b3c4d`, or `~n1.f1a2b3c4d`
//! after a per-file one). An ID so depends on its own file's path and on which file comes first,
//! not on how many there are: adding or removing a file changes at most one other definition's
//! ID (the first's, when the new file sorts before it or the first goes).
//!
//! Per-file rows keep their own IDs (the syntax cache stores them so); rows reused from a
//! previous snapshot lose the suffix first ([`per_file_id`]) and are told apart again with this
//! run's files, so the output is what a cold run gives.

use std::collections::HashMap;

use output_schema::ids;
use output_schema::tables::{OccurrenceRow, SymbolRow};
use output_schema::SharedStr;
use rayon::prelude::*;

/// The new ID of each definition that had to give its ID up: by its per-file ID, the (path, new
/// ID) of each file that gave it up (looked up by the ID an occurrence holds, without a copy).
#[derive(Debug, Default)]
pub(crate) struct Separated(HashMap<SharedStr, Vec<(SharedStr, SharedStr)>>);

impl Separated {
    /// Whether no ID was shared.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The new ID of the definition `path` gave the ID `old`, when it had to give it up.
    fn new_id(&self, path: &str, old: &str) -> Option<&SharedStr> {
        let files = self.0.get(old)?;
        files
            .iter()
            .find(|(p, _)| p.as_str() == path)
            .map(|(_, new)| new)
    }
}

/// Gives every definition of `symbols` (in table order: sorted by stable ID) an ID of its own, as
/// the module doc says, and keeps the table order. Costs one comparison per row when no ID is
/// shared, which is nearly always.
pub(crate) fn separate(symbols: &mut [SymbolRow]) -> Separated {
    let mut separated = Separated::default();
    let mut start = 0;
    while start < symbols.len() {
        let id = &symbols[start].stable_id;
        let end = start
            + symbols[start..]
                .iter()
                .take_while(|s| s.stable_id == *id)
                .count();
        if end - start > 1 {
            let group = &mut symbols[start..end];
            group.sort_by(|a, b| {
                (a.path.as_str(), a.start_line, a.start_col).cmp(&(
                    b.path.as_str(),
                    b.start_line,
                    b.start_col,
                ))
            });
            let mut suffixes: Vec<String> = group.iter().map(|s| file_suffix(&s.path)).collect();
            let mut distinct = suffixes.clone();
            distinct.sort();
            distinct.dedup();
            // Two paths of one group with one 32-bit hash: their ranks tell them apart instead.
            if distinct.len() < group.len() {
                suffixes = (1..=group.len()).map(|k| format!("r{k}")).collect();
            }
            let files = separated.0.entry(group[0].stable_id.clone()).or_default();
            for (s, suffix) in group.iter_mut().zip(&suffixes).skip(1) {
                let new = ids::with_discriminator_part(&s.stable_id, suffix);
                s.stable_id = new.clone();
                files.push((s.path.clone(), new));
            }
        }
        start = end;
    }
    if !separated.is_empty() {
        output_schema::table::sort_rows(symbols);
    }
    separated
}

/// Points the occurrences of the definitions [`separate`] gave new IDs (their own definition
/// sites, and every site they enclose) at those IDs. Before by-name resolution, an occurrence
/// names a definition only of its own file.
pub(crate) fn rename_occurrences(occurrences: &mut [OccurrenceRow], separated: &Separated) {
    if separated.is_empty() {
        return;
    }
    let renamed = |path: &str, id: &mut Option<SharedStr>| {
        if let Some(new) = id.as_deref().and_then(|old| separated.new_id(path, old)) {
            *id = Some(new.clone());
        }
    };
    occurrences.par_iter_mut().for_each(|o| {
        renamed(&o.path, &mut o.symbol_id);
        renamed(&o.path, &mut o.enclosing_symbol_id);
    });
}

/// A file's discriminator suffix: `f` and 8 hex digits of its path's hash.
fn file_suffix(path: &str) -> String {
    let hex = crate::hashing::field_hash_hex("ckb.file-discriminator.v1", &[path.as_bytes()], 8);
    format!("f{hex}")
}

/// The ID a file gave a definition, when `id` is one [`separate`] changed: without its suffix
/// (`f` and 8 hex digits, or `r` and a rank). Per-file discriminators (`a<arity>`, `s<hex>`,
/// `n<ordinal>`) and SCIP's never take those forms. Looks only at the end of the ID: it runs on
/// every reused row.
pub(crate) fn per_file_id(id: &str) -> Option<SharedStr> {
    let (own, part) = ids::split_last_discriminator_part(id)?;
    let hex_digit = |c: u8| matches!(c, b'0'..=b'9' | b'a'..=b'f');
    let ours = match part.as_bytes() {
        [b'f', hex @ ..] => hex.len() == 8 && hex.iter().all(|&c| hex_digit(c)),
        [b'r', rank @ ..] => !rank.is_empty() && rank.iter().all(u8::is_ascii_digit),
        _ => false,
    };
    ours.then(|| SharedStr::from(own))
}

/// [`per_file_id`] over rows reused from a previous snapshot: their definitions' IDs and the
/// occurrences naming them, back to what their files give. Returns whether any changed (the
/// symbols are then no longer in table order). When no definition's ID changed, no occurrence
/// names a changed one (a reused file's occurrences name its own definitions), so they are not
/// looked at: the usual case costs one look at the end of each symbol's ID.
pub(crate) fn restore_per_file_ids(
    symbols: &mut [SymbolRow],
    occurrences: &mut [OccurrenceRow],
) -> bool {
    let restore = |id: &mut SharedStr| match per_file_id(id) {
        Some(own) => {
            *id = own;
            true
        }
        None => false,
    };
    let changed = symbols
        .par_iter_mut()
        .map(|s| restore(&mut s.stable_id))
        .filter(|&c| c)
        .count();
    if changed == 0 {
        return false;
    }
    occurrences.par_iter_mut().for_each(|o| {
        for id in [&mut o.symbol_id, &mut o.enclosing_symbol_id]
            .into_iter()
            .flatten()
        {
            restore(id);
        }
    });
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(id: &str, path: &str, line: i32) -> SymbolRow {
        SymbolRow {
            start_line: line,
            end_line: line + 2,
            ..test_support::rows::symbol(id, path, "open")
        }
    }

    fn ids(symbols: &[SymbolRow]) -> Vec<(String, String)> {
        let mut ids: Vec<(String, String)> = symbols
            .iter()
            .map(|s| (s.path.to_string(), s.stable_id.to_string()))
            .collect();
        ids.sort();
        ids
    }

    const A: &str = "ckb:r:sym:0123456789abcdef0123";
    const N1: &str = "ckb:r:sym:0123456789abcdef0123~n1";

    #[test]
    fn the_first_file_keeps_a_shared_id_and_the_others_add_their_path() {
        let mut symbols = vec![
            def(A, "f_windows.go", 3),
            def(A, "f_linux.go", 3),
            def(N1, "g.go", 1),
            def(N1, "f.go", 1),
            def("ckb:r:sym:ffffffffffffffffffff", "h.go", 1),
        ];
        output_schema::table::sort_rows(&mut symbols);
        let separated = separate(&mut symbols);
        let (linux, windows, g) = (
            format!("{A}~{}", file_suffix("f_linux.go")),
            format!("{A}~{}", file_suffix("f_windows.go")),
            format!("{N1}.{}", file_suffix("g.go")),
        );
        let want = [
            ("f.go", N1),
            ("f_linux.go", A),
            ("f_windows.go", windows.as_str()),
            ("g.go", g.as_str()),
            ("h.go", "ckb:r:sym:ffffffffffffffffffff"),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(p, i)| (p.to_string(), i.to_string()))
            .collect();
        assert_eq!(ids(&symbols), want);
        assert!(symbols.is_sorted_by(|a, b| a.stable_id <= b.stable_id));
        for (_, id) in &want {
            assert!(output_schema::ids::parse_stable_id(id).is_some(), "{id}");
        }

        // A file that sorts first takes the plain ID; the others keep theirs but the old first.
        let mut more = symbols.clone();
        assert!(restore_per_file_ids(&mut more, &mut []));
        more.push(def(A, "f_darwin.go", 9));
        output_schema::table::sort_rows(&mut more);
        separate(&mut more);
        let more = ids(&more);
        assert!(more.contains(&("f_darwin.go".into(), A.into())));
        assert!(more.contains(&("f_linux.go".into(), linux.clone())));
        assert!(more.contains(&("f_windows.go".into(), windows.clone())));

        let mut occurrences = vec![
            test_support::rows::reference(Some(A), "open", "f_windows.go", 3, "tree-sitter"),
            test_support::rows::reference(Some(A), "open", "f_linux.go", 3, "tree-sitter"),
            test_support::rows::reference(None, "x", "g.go", 2, "tree-sitter"),
        ];
        occurrences[2].enclosing_symbol_id = Some(N1.into());
        rename_occurrences(&mut occurrences, &separated);
        assert_eq!(occurrences[0].symbol_id.as_deref(), Some(windows.as_str()));
        assert_eq!(
            occurrences[1].symbol_id.as_deref(),
            Some(A),
            "the first keeps it"
        );
        assert_eq!(
            occurrences[2].enclosing_symbol_id.as_deref(),
            Some(g.as_str())
        );

        // Reused from a snapshot, the rows go back to what their files give.
        assert!(restore_per_file_ids(&mut symbols, &mut occurrences));
        assert!(symbols
            .iter()
            .all(|s| s.stable_id.as_str() == A || s.stable_id.as_str() == N1 || s.path == "h.go"));
        assert_eq!(occurrences[0].symbol_id.as_deref(), Some(A));
        assert_eq!(occurrences[2].enclosing_symbol_id.as_deref(), Some(N1));
    }

    #[test]
    fn only_the_file_suffix_is_taken_off() {
        let base = "ckb:r:sym:0123456789abcdef0123";
        for ours in ["~f0a1b2c3d", "~r2", "~a1.fdeadbeef", "~n2.r13"] {
            let (own, _) = ours.rsplit_once(['~', '.']).unwrap();
            assert_eq!(
                per_file_id(&format!("{base}{ours}")).as_deref(),
                Some(format!("{base}{own}").as_str()),
                "{ours}"
            );
        }
        for own in [
            "",
            "~n1",
            "~a2",
            "~sfeedface",
            "~f",
            "~f2",
            "~fdeadbee",
            "~fDEADBEEF",
            "~r",
            "~d1",
        ] {
            assert_eq!(per_file_id(&format!("{base}{own}")), None, "{own}");
        }
    }

    #[test]
    fn a_dot_outside_a_discriminator_is_no_suffix() {
        // Repository IDs may hold dots; only a discriminator's suffix is taken off.
        assert_eq!(per_file_id("ckb:a.r2"), None);
        assert_eq!(per_file_id("ckb:my.fdeadbeef"), None);
    }
}
