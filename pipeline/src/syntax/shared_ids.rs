//! Stable IDs that two files give alike, told apart.
//!
//! A file's definitions get their IDs from that file alone ([`super::definitions`]), which is
//! what lets a file's rows be cached and reused; but an ID names a definition's unit (see
//! [`crate::fingerprint`]), and a unit can span files: the files of one Go package
//! (`open_linux.go` and `open_windows.go` each defining `open`, or two `init`s), `a.ts` beside
//! the `a.js` built from it, `m.py` beside `m/__init__.py`. In the stage's output every ID is one
//! definition's: of the files that define an ID, the first in path order keeps it and the k-th
//! (k ≥ 2) adds `f<k>` to its discriminator (`~f2`, or `~n1.f2` after a per-file one). Per-file
//! rows keep their own IDs (the syntax cache stores them so); rows reused from a previous
//! snapshot lose the suffix first ([`per_file_id`]) and are told apart again with this run's
//! files, so the output is what a cold run gives.

use std::collections::HashMap;

use output_schema::tables::{OccurrenceRow, SymbolRow};
use output_schema::SharedStr;
use rayon::prelude::*;

/// The new ID of each definition that had to give its ID up, by (path, per-file ID).
#[derive(Debug, Default)]
pub(crate) struct Separated(HashMap<(SharedStr, SharedStr), SharedStr>);

impl Separated {
    /// Whether no ID was shared.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
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
            for (k, s) in group.iter_mut().enumerate().skip(1) {
                let new = with_file_suffix(&s.stable_id, k + 1);
                let old = std::mem::replace(&mut s.stable_id, new.clone());
                separated.0.insert((s.path.clone(), old), new);
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
    let renamed = |path: &SharedStr, id: &mut Option<SharedStr>| {
        if let Some(old) = id.as_ref() {
            if let Some(new) = separated.0.get(&(path.clone(), old.clone())) {
                *id = Some(new.clone());
            }
        }
    };
    occurrences.par_iter_mut().for_each(|o| {
        renamed(&o.path, &mut o.symbol_id);
        renamed(&o.path, &mut o.enclosing_symbol_id);
    });
}

/// `id` with `f<k>` added to its discriminator.
fn with_file_suffix(id: &str, k: usize) -> SharedStr {
    let separator = if id.contains('~') { '.' } else { '~' };
    SharedStr::from(format!("{id}{separator}f{k}"))
}

/// The ID a file gave a definition, when `id` is one [`separate`] changed: without its `f<k>`.
/// Per-file discriminators (`a<arity>`, `s<hex>`, `n<ordinal>`) never take that form.
pub(crate) fn per_file_id(id: &str) -> Option<SharedStr> {
    let (_, discriminator) = id.rsplit_once('~')?;
    let suffix = discriminator.rsplit('.').next()?;
    let digits = suffix.strip_prefix('f')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let cut = id.len() - suffix.len() - 1;
    Some(SharedStr::from(&id[..cut]))
}

/// [`per_file_id`] over rows reused from a previous snapshot: their definitions' IDs and the
/// occurrences naming them, back to what their files give. Returns whether any changed (the
/// symbols are then no longer in table order).
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
    occurrences.par_iter_mut().for_each(|o| {
        for id in [&mut o.symbol_id, &mut o.enclosing_symbol_id]
            .into_iter()
            .flatten()
        {
            restore(id);
        }
    });
    changed > 0
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

    #[test]
    fn the_first_file_keeps_a_shared_id_and_the_others_add_their_rank() {
        let a = "ckb:r:sym:0123456789abcdef0123";
        let n1 = "ckb:r:sym:0123456789abcdef0123~n1";
        let mut symbols = vec![
            def(a, "f_windows.go", 3),
            def(a, "f_linux.go", 3),
            def(a, "f_darwin.go", 9),
            def(n1, "g.go", 1),
            def(n1, "f.go", 1),
            def("ckb:r:sym:ffffffffffffffffffff", "h.go", 1),
        ];
        output_schema::table::sort_rows(&mut symbols);
        let separated = separate(&mut symbols);
        let ids: Vec<(&str, &str)> = symbols
            .iter()
            .map(|s| (s.path.as_str(), s.stable_id.as_str()))
            .collect();
        assert_eq!(
            ids,
            [
                ("f_darwin.go", a),
                ("f_linux.go", "ckb:r:sym:0123456789abcdef0123~f2"),
                ("f_windows.go", "ckb:r:sym:0123456789abcdef0123~f3"),
                ("f.go", n1),
                ("g.go", "ckb:r:sym:0123456789abcdef0123~n1.f2"),
                ("h.go", "ckb:r:sym:ffffffffffffffffffff"),
            ]
        );
        for (_, id) in &ids {
            assert!(output_schema::ids::parse_stable_id(id).is_some(), "{id}");
        }

        let mut occurrences = vec![
            test_support::rows::reference(Some(a), "open", "f_linux.go", 3, "tree-sitter"),
            test_support::rows::reference(Some(a), "open", "f_darwin.go", 9, "tree-sitter"),
            test_support::rows::reference(None, "x", "g.go", 2, "tree-sitter"),
        ];
        occurrences[2].enclosing_symbol_id = Some(n1.into());
        rename_occurrences(&mut occurrences, &separated);
        assert_eq!(
            occurrences[0].symbol_id.as_deref(),
            Some("ckb:r:sym:0123456789abcdef0123~f2")
        );
        assert_eq!(
            occurrences[1].symbol_id.as_deref(),
            Some(a),
            "the first keeps it"
        );
        assert_eq!(
            occurrences[2].enclosing_symbol_id.as_deref(),
            Some("ckb:r:sym:0123456789abcdef0123~n1.f2")
        );

        // Reused from a snapshot, the rows go back to what their files give.
        assert!(restore_per_file_ids(&mut symbols, &mut occurrences));
        assert!(symbols
            .iter()
            .all(|s| s.stable_id.as_str() == a || s.stable_id.as_str() == n1 || s.path == "h.go"));
        assert_eq!(occurrences[0].symbol_id.as_deref(), Some(a));
        assert_eq!(occurrences[2].enclosing_symbol_id.as_deref(), Some(n1));
    }

    #[test]
    fn only_the_file_suffix_is_taken_off() {
        let base = "ckb:r:sym:0123456789abcdef0123";
        assert_eq!(per_file_id(&format!("{base}~f2")).as_deref(), Some(base));
        assert_eq!(
            per_file_id(&format!("{base}~a1.f12")).as_deref(),
            Some(format!("{base}~a1").as_str())
        );
        for own in ["", "~n1", "~a2", "~sfeedface", "~f", "~fx", "~d1", "~n1.fa"] {
            assert_eq!(per_file_id(&format!("{base}{own}")), None, "{own}");
        }
    }
}
