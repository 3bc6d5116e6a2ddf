//! The usage step: how much each symbol is used, counted once per snapshot from the final
//! `occurrences` and `call_edges` (stable IDs settled), so that readers rank by it without
//! scanning those tables (`ckb query search` reads the `usage` rows of its matches only).
//!
//! A symbol's reference sites are the occurrences that resolve to its stable ID without the
//! definition role (imports and calls included; tree-sitter's by-name sites count where the
//! syntax stage resolved them); its files are the distinct paths of those sites; its callers the
//! distinct other definitions that call it. Symbols nothing uses get no row. The counts are
//! integers of facts already in the snapshot, so anonymization only keys the stable ID.

use output_schema::tables::{CallEdgeRow, OccurrenceRow, SymbolRow, UsageRow};
use output_schema::{Roles, SharedStr};

use crate::fast_map::FastMap;

/// The `usage` rows of a snapshot's symbols (unsorted: the writer sorts every table).
pub fn count(
    symbols: &[SymbolRow],
    occurrences: &[OccurrenceRow],
    call_edges: &[CallEdgeRow],
) -> Vec<UsageRow> {
    let mut index: FastMap<&str, u32> =
        FastMap::with_capacity_and_hasher(symbols.len(), Default::default());
    for (i, s) in symbols.iter().enumerate() {
        index.insert(s.stable_id.as_str(), i as u32);
    }
    let mut references = vec![0i64; symbols.len()];
    // (symbol, file) of every reference site as one number, to count distinct files without a
    // set per symbol and to sort numbers rather than paths. Rows of one file mostly come
    // together, so a path is looked up once per run of it.
    let mut file_ids: FastMap<&str, u32> = FastMap::default();
    let mut last_file: Option<(&SharedStr, u32)> = None;
    let mut sites: Vec<u64> = Vec::new();
    for o in occurrences {
        if o.roles.contains(Roles::DEFINITION) || o.roles.contains(Roles::FORWARD_DEFINITION) {
            continue;
        }
        let Some(&i) = o.symbol_id.as_deref().and_then(|id| index.get(id)) else {
            continue;
        };
        references[i as usize] += 1;
        let file = match last_file {
            Some((path, id)) if *path == o.path => id,
            _ => {
                let next = file_ids.len() as u32;
                let id = *file_ids.entry(o.path.as_str()).or_insert(next);
                last_file = Some((&o.path, id));
                id
            }
        };
        sites.push(u64::from(i) << 32 | u64::from(file));
    }
    sites.sort_unstable();
    sites.dedup();
    let mut files = vec![0i64; symbols.len()];
    for site in &sites {
        files[(site >> 32) as usize] += 1;
    }
    drop(sites);
    let mut callers = vec![0i64; symbols.len()];
    for e in call_edges {
        let Some(&i) = e.callee_id.as_deref().and_then(|id| index.get(id)) else {
            continue;
        };
        // Edges are unique per (caller, callee); recursion is no use by another definition.
        if e.caller_id.as_str() != symbols[i as usize].stable_id.as_str() {
            callers[i as usize] += 1;
        }
    }
    symbols
        .iter()
        .enumerate()
        .filter(|(i, _)| references[*i] > 0 || callers[*i] > 0)
        .map(|(i, s)| UsageRow {
            stable_id: s.stable_id.clone(),
            references: references[i],
            files: files[i],
            callers: callers[i],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn occ(id: Option<&str>, path: &str, line: i32, roles: Roles) -> OccurrenceRow {
        OccurrenceRow {
            roles,
            ..test_support::rows::reference(id, "n", path, line, "scip")
        }
    }

    fn edge(caller: &str, callee: Option<&str>) -> CallEdgeRow {
        CallEdgeRow {
            caller_id: caller.into(),
            callee_id: callee.map(SharedStr::from),
            callee_name: "n".into(),
            count: 3,
            source: "scip".into(),
            confidence: 1.0,
        }
    }

    #[test]
    fn references_files_and_callers_are_counted_per_symbol() {
        let symbols = vec![
            test_support::rows::symbol("a", "src/a.rs", "a"),
            test_support::rows::symbol("b", "src/b.rs", "b"),
            test_support::rows::symbol("unused", "src/b.rs", "unused"),
        ];
        let occurrences = vec![
            occ(Some("a"), "src/a.rs", 1, Roles::DEFINITION),
            occ(Some("a"), "src/b.rs", 3, Roles::REFERENCE | Roles::CALL),
            occ(Some("a"), "src/b.rs", 9, Roles::REFERENCE),
            occ(Some("a"), "tests/t.rs", 2, Roles::REFERENCE | Roles::IMPORT),
            occ(Some("b"), "src/a.rs", 4, Roles::REFERENCE),
            occ(Some("b"), "src/b.rs", 1, Roles::FORWARD_DEFINITION),
            // External and unresolved targets have no symbol row.
            occ(Some("std::fmt"), "src/a.rs", 5, Roles::REFERENCE),
            occ(None, "src/a.rs", 6, Roles::REFERENCE),
        ];
        let call_edges = vec![
            edge("b", Some("a")),
            edge("unused", Some("a")),
            edge("a", Some("a")),
            edge("a", Some("std::fmt")),
            edge("a", None),
        ];
        let mut rows = count(&symbols, &occurrences, &call_edges);
        rows.sort_by(|x, y| x.stable_id.cmp(&y.stable_id));
        let got: Vec<(&str, i64, i64, i64)> = rows
            .iter()
            .map(|r| (r.stable_id.as_str(), r.references, r.files, r.callers))
            .collect();
        assert_eq!(got, [("a", 3, 2, 2), ("b", 1, 1, 0)]);
    }
}
