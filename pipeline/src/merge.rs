//! Merge of tree-sitter and SCIP facts by backend precedence (DESIGN.md "Backend precedence").
//!
//! Prefer-first: for every file a SCIP index covers, SCIP's definitions, references, call edges
//! and relationships stand, and the tree-sitter rows of that file are dropped — except the
//! relationships of a file whose index states none at all (rust-analyzer writes none): there the
//! tree-sitter ones (supertype clauses bound by name) are kept, their ends rewritten to the SCIP
//! definitions they matched. Tree-sitter may only
//! fill the metadata gaps SCIP leaves — visibility, signature (with arity), a coarse kind
//! (`type` → `class`), container, module — on the SCIP definition it matches, and always
//! contributes `body_hash`, which SCIP does not have. Where both backends state a fact and
//! disagree, SCIP's value stays and the disagreement is counted ([`MergeStats`], reported under
//! the scip stage). Files SCIP does not cover keep their tree-sitter rows (`source` =
//! `tree-sitter`); their references to tree-sitter definitions that SCIP replaced are rewritten to
//! the SCIP stable IDs. Imports are never touched.
//!
//! One indexer quirk is mended here, where both backends meet: scip-python reads a class that
//! shadows a builtin (`class ConnectionError(RequestException)` in requests) as a reference to
//! the builtin, so the index has no definition for it. Where a tree-sitter type or callable
//! definition that SCIP did not match names the very position of a SCIP reference to an external
//! symbol of the same name, the tree-sitter definition is kept and that occurrence becomes its
//! definition (`quirk.definitions-read-as-external`).
//!
//! The merge is a plain function over row vectors so it does not depend on how the stages are
//! wired; [`merge_step`] is the driver's step from the two stages' rows to the written tables.

use std::collections::BTreeMap;

use output_schema::tables::{CallEdgeRow, ImportRow, OccurrenceRow, RelationshipRow, SymbolRow};
use output_schema::{Roles, SharedStr, Table};
use rayon::prelude::*;

use crate::fast_map::{FastMap, FastSet};
use crate::fingerprint;
use crate::scip::ScipTables;

mod stats;
pub use stats::MergeStats;

/// The rows the syntax stage produced (`source` = `tree-sitter`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SyntaxTables {
    /// `symbols`.
    pub symbols: Vec<SymbolRow>,
    /// `occurrences`.
    pub occurrences: Vec<OccurrenceRow>,
    /// `call_edges`.
    pub call_edges: Vec<CallEdgeRow>,
    /// `relationships`.
    pub relationships: Vec<RelationshipRow>,
    /// `imports` (passed through unchanged).
    pub imports: Vec<ImportRow>,
}

/// The merged rows.
pub type Merged = SyntaxTables;

/// Kinds SCIP states only coarsely (from a descriptor suffix), which tree-sitter may refine within
/// the same family.
const COARSE_KINDS: &[&str] = &["type", "variable", "meta", "other", "unknown"];

/// The family a kind belongs to, for deciding whether two backends describe the same definition.
fn family(kind: &str) -> &str {
    match kind {
        "function" | "method" | "constructor" | "static_method" | "trait_method"
        | "abstract_method" | "getter" | "setter" | "accessor" | "delegate" => "callable",
        "class" | "struct" | "enum" | "interface" | "trait" | "type_alias" | "union" | "type"
        | "protocol" | "record" | "object" | "associated_type" | "typedef" => "type",
        "constant" | "variable" | "field" | "property" | "static" | "enum_member" | "variant"
        | "const" => "value",
        "module" | "namespace" | "package" | "meta" => "module",
        other => other,
    }
}

fn compatible(scip: &str, ts: &str) -> bool {
    scip == ts || family(scip) == family(ts) || matches!(scip, "other" | "unknown")
}

fn overlaps(a: &SymbolRow, b: &SymbolRow) -> bool {
    a.start_line <= b.end_line && b.start_line <= a.end_line
}

/// Merges tree-sitter and SCIP rows (see the module doc).
pub fn merge(syntax: SyntaxTables, scip: ScipTables) -> (Merged, MergeStats) {
    let mut stats = MergeStats::default();
    // Looked up for every tree-sitter row: hashed once here rather than searched as a tree of
    // long, mostly equal paths each time.
    let covered: FastSet<&str> = scip.covered_paths.iter().map(String::as_str).collect();
    let covered = &covered;
    let SyntaxTables {
        symbols: ts_symbols,
        occurrences: ts_occurrences,
        call_edges: ts_call_edges,
        relationships: ts_relationships,
        imports,
    } = syntax;
    // Up to the assembly of the symbols, the steps read what they need side by side: the
    // occurrence rows are built while the tree-sitter definition sites and the SCIP IDs are
    // indexed, and the definitions are matched while the SCIP references are looked up in those
    // sites (a serial merge of tokio left one core idle for about 20 ms).
    let (mut scip_occurrences, (definition_sites, scip_ids)) = rayon::join(
        || scip.occurrences.into_rows_with_room(ts_occurrences.len()),
        || {
            rayon::join(
                || covered_definition_sites(&ts_symbols, &ts_occurrences, covered),
                || ids(&scip.symbols),
            )
        },
    );
    let (read_as_external, (matches, ts_path)) = rayon::join(
        || definitions_read_as_external(&definition_sites, &scip_ids, &scip_occurrences),
        || {
            rayon::join(
                || match_symbols(&ts_symbols, &scip.symbols, covered),
                || paths_by_id(&ts_symbols),
            )
        },
    );
    drop(definition_sites);
    let lookups = SymbolLookups {
        matches,
        scip_ids,
        ts_path,
    };
    let (symbols, rewrites, kept) = merge_symbols(
        ts_symbols,
        scip.symbols,
        lookups,
        covered,
        &read_as_external,
        &mut stats,
    );
    if !kept.is_empty() {
        redefine(&mut scip_occurrences, &read_as_external, &kept);
    }

    // The occurrences and the call edges are filtered side by side: both only read the
    // rewrites, and each counts into stats of its own, added after.
    let rewrites = &rewrites;
    let ((occurrences, occurrence_stats), (call_edges, edge_stats)) = rayon::join(
        move || {
            let mut stats = MergeStats::default();
            // Tree-sitter occurrences come sorted by path: each file's coverage is looked up
            // once.
            let mut last_file: Option<(SharedStr, bool)> = None;
            let rows = scip_merged_with_kept(scip_occurrences, ts_occurrences, |o| {
                let in_covered = match &last_file {
                    Some((path, is_covered)) if *path == o.path => *is_covered,
                    _ => {
                        let is_covered = covered.contains(o.path.as_str());
                        last_file = Some((o.path.clone(), is_covered));
                        is_covered
                    }
                };
                if in_covered {
                    stats.dropped_tree_sitter_occurrences += 1;
                    return false;
                }
                rewrites.rewrite_optional(&mut o.symbol_id, &mut stats);
                rewrites.rewrite_optional(&mut o.enclosing_symbol_id, &mut stats);
                true
            });
            (rows, stats)
        },
        move || {
            let mut stats = MergeStats::default();
            let rows = scip_then_kept(scip.call_edges, ts_call_edges, |e| {
                if rewrites.in_covered(&e.caller_id) {
                    stats.dropped_tree_sitter_call_edges += 1;
                    return false;
                }
                if !rewrites.rewrite_required(&mut e.caller_id, &mut stats) {
                    stats.unresolved_references += 1;
                    return false;
                }
                rewrites.rewrite_optional(&mut e.callee_id, &mut stats);
                true
            });
            (rows, stats)
        },
    );
    stats.add(&occurrence_stats);
    stats.add(&edge_stats);
    let relationless: FastSet<&str> = scip.relationless_paths.iter().map(String::as_str).collect();
    let relationships = scip_then_kept(scip.relationships, ts_relationships, |r| {
        if rewrites.in_covered(&r.from_id) && !rewrites.in_paths(&r.from_id, &relationless) {
            stats.dropped_tree_sitter_relationships += 1;
            return false;
        }
        let from = rewrites.rewrite_required(&mut r.from_id, &mut stats);
        let to = rewrites.rewrite_required(&mut r.to_id, &mut stats);
        if !(from && to) {
            stats.unresolved_references += 1;
            return false;
        }
        true
    });

    (
        Merged {
            symbols,
            occurrences,
            call_edges,
            relationships,
            imports,
        },
        stats,
    )
}

/// SCIP's rows, then the tree-sitter rows `keep` accepts, in order (`keep` may rewrite a row's
/// references in place before accepting it).
fn scip_then_kept<T>(
    mut scip: Vec<T>,
    tree_sitter: Vec<T>,
    mut keep: impl FnMut(&mut T) -> bool,
) -> Vec<T> {
    scip.extend(
        tree_sitter
            .into_iter()
            .filter_map(|mut row| keep(&mut row).then_some(row)),
    );
    scip
}

/// Makes the SCIP references that sit on a kept definition the index read as external
/// ([`definitions_read_as_external`]) definitions of it. The rows come in table order
/// ([`crate::scip::ScipOccurrences::into_rows`]) and stay so: a changed target or role can only
/// reorder the rows of its own site, which are sorted again.
fn redefine(
    rows: &mut [OccurrenceRow],
    read_as_external: &BTreeMap<(SharedStr, i32, i32), SharedStr>,
    kept: &FastSet<SharedStr>,
) {
    let mut changed = Vec::new();
    for (i, o) in rows.iter_mut().enumerate() {
        let at = (o.path.clone(), o.line, o.col);
        if let Some(id) = read_as_external.get(&at).filter(|id| kept.contains(*id)) {
            o.symbol_id = Some(id.clone());
            o.roles = Roles::DEFINITION;
            changed.push(i);
        }
    }
    let same_site = |a: &OccurrenceRow, b: &OccurrenceRow| {
        a.path == b.path && a.line == b.line && a.col == b.col
    };
    for i in changed {
        let start = rows[..i]
            .iter()
            .rposition(|o| !same_site(o, &rows[i]))
            .map_or(0, |p| p + 1);
        let end = rows[i..]
            .iter()
            .position(|o| !same_site(o, &rows[i]))
            .map_or(rows.len(), |p| i + p);
        rows[start..end].sort_by(OccurrenceRow::compare);
    }
}

/// SCIP's occurrences and the tree-sitter ones `keep` accepts (see [`scip_then_kept`]), merged
/// into table order a file at a time, in place. Both come in that order and name different files
/// (the tree-sitter rows of the files SCIP covers are not kept), so from the last kept file to
/// the first, the SCIP rows that sort after it move back once and its rows go in behind them.
/// The write sorts what is not in order all the same.
fn scip_merged_with_kept(
    mut scip: Vec<OccurrenceRow>,
    tree_sitter: Vec<OccurrenceRow>,
    keep: impl FnMut(&mut OccurrenceRow) -> bool,
) -> Vec<OccurrenceRow> {
    let mut kept = scip_then_kept(Vec::new(), tree_sitter, keep);
    let Some(filler) = kept.first().cloned() else {
        return scip;
    };
    // SCIP's rows not yet placed are `scip[..unplaced]`; the placed rows are `scip[placed..]`.
    let mut unplaced = scip.len();
    scip.reserve_exact(kept.len());
    scip.resize(scip.len() + kept.len(), filler);
    let mut placed = scip.len();
    while let Some(last) = kept.last() {
        let file = kept.len()
            - kept
                .iter()
                .rev()
                .take_while(|r| r.path == last.path)
                .count();
        let after = scip[..unplaced].partition_point(|r| r.compare(&kept[file]).is_le());
        // One swap a row: a rotation would move the gap's filler rows again for every file.
        for row in (after..unplaced).rev() {
            placed -= 1;
            scip.swap(row, placed);
        }
        unplaced = after;
        for row in kept.drain(file..).rev() {
            placed -= 1;
            scip[placed] = row;
        }
    }
    scip
}

/// The sites of the covered files' tree-sitter type and callable definitions: (path, line, col)
/// → (name, stable ID). Where one of them sits, a SCIP reference to an external symbol of the
/// same name is a definition the index read as external ([`definitions_read_as_external`]).
type DefinitionSites<'t> = FastMap<(&'t str, i32, i32), (&'t str, &'t SharedStr)>;

/// The [`DefinitionSites`] of the tree-sitter rows.
fn covered_definition_sites<'t>(
    ts_symbols: &'t [SymbolRow],
    ts_occurrences: &'t [OccurrenceRow],
    covered: &FastSet<&str>,
) -> DefinitionSites<'t> {
    let candidates: FastSet<&str> = ts_symbols
        .iter()
        .filter(|s| covered.contains(s.path.as_str()))
        .filter(|s| matches!(family(&s.kind), "type" | "callable"))
        .map(|s| s.stable_id.as_str())
        .collect();
    let mut definitions: DefinitionSites<'t> = FastMap::default();
    for o in ts_occurrences {
        let Some(id) = o.symbol_id.as_ref() else {
            continue;
        };
        if o.roles.contains(Roles::DEFINITION) && candidates.contains(id.as_str()) {
            definitions.insert((o.path.as_str(), o.line, o.col), (o.name.as_str(), id));
        }
    }
    definitions
}

/// Where a covered file's tree-sitter type or callable definition sits at the position of a
/// SCIP reference to an external symbol of the same name (the index has no definition of its
/// own there): (path, line, col) → the tree-sitter stable ID. Candidates only: the merge keeps
/// those SCIP did not match.
fn definitions_read_as_external(
    definitions: &DefinitionSites<'_>,
    defined: &FastSet<SharedStr>,
    scip_occurrences: &[OccurrenceRow],
) -> BTreeMap<(SharedStr, i32, i32), SharedStr> {
    if definitions.is_empty() {
        return BTreeMap::new();
    }
    // The position first: few references sit where a tree-sitter definition does.
    scip_occurrences
        .iter()
        .filter(|o| !o.roles.contains(Roles::DEFINITION))
        .filter_map(|o| {
            let &(name, id) = definitions.get(&(o.path.as_str(), o.line, o.col))?;
            let external = o.symbol_id.as_deref().is_some_and(|t| !defined.contains(t));
            (external && name == o.name.as_str())
                .then(|| ((o.path.clone(), o.line, o.col), id.clone()))
        })
        .collect()
}

/// For each SCIP definition, in order, the tree-sitter definition it matches: the one of the
/// same covered file and name, not taken by an earlier SCIP definition, whose lines overlap and
/// whose kind is compatible, preferring the same kind, then the nearest start line.
fn match_symbols(
    ts_symbols: &[SymbolRow],
    scip_symbols: &[SymbolRow],
    covered: &FastSet<&str>,
) -> Vec<Option<usize>> {
    // Tree-sitter definitions of covered files, by (path, name).
    let mut by_name: FastMap<(&str, &str), Vec<usize>> = FastMap::default();
    for (i, s) in ts_symbols.iter().enumerate() {
        if covered.contains(s.path.as_str()) {
            by_name
                .entry((s.path.as_str(), s.name.as_str()))
                .or_default()
                .push(i);
        }
    }
    let mut taken = vec![false; ts_symbols.len()];
    scip_symbols
        .iter()
        .map(|row| {
            let best = by_name
                .get(&(row.path.as_str(), row.name.as_str()))
                .into_iter()
                .flatten()
                .copied()
                .filter(|&i| !taken[i])
                .filter(|&i| {
                    overlaps(row, &ts_symbols[i]) && compatible(&row.kind, &ts_symbols[i].kind)
                })
                .min_by_key(|&i| {
                    let t = &ts_symbols[i];
                    // In i64: the lines may come from a cache or a previous snapshot.
                    let distance = (i64::from(t.start_line) - i64::from(row.start_line)).abs();
                    (t.kind != row.kind, distance, i)
                });
            if let Some(i) = best {
                taken[i] = true;
            }
            best
        })
        .collect()
}

/// Every row's stable ID.
fn ids(rows: &[SymbolRow]) -> FastSet<SharedStr> {
    rows.iter().map(|s| s.stable_id.clone()).collect()
}

/// Every row's file, by stable ID.
fn paths_by_id(rows: &[SymbolRow]) -> FastMap<SharedStr, SharedStr> {
    rows.iter()
        .map(|s| (s.stable_id.clone(), s.path.clone()))
        .collect()
}

/// What [`merge_symbols`] looks up, computed beforehand from the rows it then consumes.
struct SymbolLookups {
    /// Each SCIP definition's tree-sitter match ([`match_symbols`]).
    matches: Vec<Option<usize>>,
    /// The SCIP definitions' stable IDs.
    scip_ids: FastSet<SharedStr>,
    /// The file of every tree-sitter definition, by stable ID.
    ts_path: FastMap<SharedStr, SharedStr>,
}

/// The merged definitions: every SCIP definition (gaps filled from its tree-sitter match), and
/// the tree-sitter definitions of files SCIP does not cover or that the index read as external
/// references (`read_as_external`); plus how the references of kept tree-sitter rows are to be
/// rewritten, and the stable IDs of the tree-sitter definitions kept in covered files.
fn merge_symbols<'c>(
    ts_symbols: Vec<SymbolRow>,
    scip_symbols: Vec<SymbolRow>,
    lookups: SymbolLookups,
    covered: &'c FastSet<&'c str>,
    read_as_external: &BTreeMap<(SharedStr, i32, i32), SharedStr>,
    stats: &mut MergeStats,
) -> (Vec<SymbolRow>, Rewrites<'c>, FastSet<SharedStr>) {
    let shadowing: FastSet<&SharedStr> = read_as_external.values().collect();
    let SymbolLookups {
        matches,
        scip_ids,
        ts_path,
    } = lookups;
    // The SCIP rows stay where they are (the tree-sitter rows kept are appended after them), and
    // each is filled from its match independently of the others: on the pool, counting apart.
    let mut symbols = scip_symbols;
    let filled = symbols
        .par_iter_mut()
        .zip(matches.par_iter())
        .fold(MergeStats::default, |mut part, (row, best)| {
            if let Some(i) = *best {
                fill(row, &ts_symbols[i], &mut part);
            }
            part
        })
        .reduce(MergeStats::default, |mut a, b| {
            a.add(&b);
            a
        });
    stats.add(&filled);
    let mut taken = vec![false; ts_symbols.len()];
    let mut remap: FastMap<SharedStr, SharedStr> = FastMap::default();
    for (row, best) in symbols.iter().zip(&matches) {
        let Some(i) = *best else {
            stats.scip_only += 1;
            continue;
        };
        taken[i] = true;
        stats.matched += 1;
        let ts = &ts_symbols[i];
        if ts.stable_id != row.stable_id {
            remap.insert(ts.stable_id.clone(), row.stable_id.clone());
        }
    }

    // Tree-sitter definitions: kept outside covered files, dropped inside (unless the index read
    // them as external references).
    let mut dropped_ids: FastSet<SharedStr> = FastSet::default();
    let mut kept: FastSet<SharedStr> = FastSet::default();
    for (i, s) in ts_symbols.into_iter().enumerate() {
        if covered.contains(s.path.as_str()) {
            let unmatched = !taken[i];
            if unmatched && shadowing.contains(&s.stable_id) && !scip_ids.contains(&s.stable_id) {
                stats.definitions_read_as_external += 1;
                kept.insert(s.stable_id.clone());
                symbols.push(s);
            } else if unmatched {
                stats.dropped_tree_sitter_symbols += 1;
                if !remap.contains_key(&s.stable_id) && !scip_ids.contains(&s.stable_id) {
                    dropped_ids.insert(s.stable_id);
                }
            }
        } else if scip_ids.contains(&s.stable_id) {
            // Same ID as a SCIP definition: SCIP stands.
            stats.dropped_tree_sitter_symbols += 1;
        } else {
            stats.kept_tree_sitter_symbols += 1;
            symbols.push(s);
        }
    }
    let rewrites = Rewrites {
        remap,
        dropped_ids,
        ts_path,
        covered,
    };
    (symbols, rewrites, kept)
}

/// A reference held by a kept tree-sitter row: rewritten, kept, or unresolved.
enum Target {
    Same,
    Rewritten(SharedStr),
    Gone,
}

/// How the references of kept tree-sitter rows change with the merge.
struct Rewrites<'c> {
    /// Tree-sitter IDs whose definition SCIP matched, to the SCIP ID.
    remap: FastMap<SharedStr, SharedStr>,
    /// Tree-sitter IDs whose definition was dropped without a match.
    dropped_ids: FastSet<SharedStr>,
    /// The file of every tree-sitter definition.
    ts_path: FastMap<SharedStr, SharedStr>,
    covered: &'c FastSet<&'c str>,
}

impl Rewrites<'_> {
    fn target(&self, id: &str) -> Target {
        if let Some(new) = self.remap.get(id) {
            Target::Rewritten(new.clone())
        } else if self.dropped_ids.contains(id) {
            Target::Gone
        } else {
            Target::Same
        }
    }

    /// Whether a tree-sitter definition lies in a file SCIP covers.
    fn in_covered(&self, id: &str) -> bool {
        self.in_paths(id, self.covered)
    }

    /// Whether a tree-sitter definition lies in one of `paths`.
    fn in_paths(&self, id: &str, paths: &FastSet<&str>) -> bool {
        self.ts_path
            .get(id)
            .is_some_and(|p| paths.contains(p.as_str()))
    }

    /// Rewrites a required reference (counted); `false` when its definition is gone, which the
    /// caller counts once for the row it drops.
    fn rewrite_required<S>(&self, slot: &mut S, stats: &mut MergeStats) -> bool
    where
        S: std::ops::Deref<Target = str> + From<SharedStr>,
    {
        match self.target(slot) {
            Target::Same => true,
            Target::Rewritten(new) => {
                stats.remapped_references += 1;
                *slot = new.into();
                true
            }
            Target::Gone => false,
        }
    }

    /// Rewrites an optional reference, or clears it when its definition is gone; counted.
    fn rewrite_optional(&self, slot: &mut Option<SharedStr>, stats: &mut MergeStats) {
        let Some(id) = slot.as_deref() else { return };
        match self.target(id) {
            Target::Same => {}
            Target::Rewritten(new) => {
                stats.remapped_references += 1;
                *slot = Some(new);
            }
            Target::Gone => {
                stats.unresolved_references += 1;
                *slot = None;
            }
        }
    }
}

/// Fills the gaps of a SCIP definition from its tree-sitter counterpart and counts disagreements.
fn fill(row: &mut SymbolRow, ts: &SymbolRow, stats: &mut MergeStats) {
    if row.kind != ts.kind {
        let refinable = COARSE_KINDS.contains(&row.kind.as_str())
            && (family(&row.kind) == family(&ts.kind)
                || matches!(row.kind.as_str(), "other" | "unknown" | "meta"));
        if refinable {
            row.kind = ts.kind.clone();
            stats.filled_kind += 1;
        } else {
            stats.disagree_kind += 1;
        }
    }
    match (&row.signature, &ts.signature) {
        (None, Some(sig)) => {
            row.signature = Some(sig.clone());
            row.definition_version_id = fingerprint::definition_version_id(Some(sig));
            stats.filled_signature += 1;
        }
        (Some(a), Some(b)) if a != b => stats.disagree_signature += 1,
        _ => {}
    }
    if row.arity.is_none() && ts.arity.is_some() {
        row.arity = ts.arity;
        stats.filled_arity += 1;
    }
    let known = |v: &str| v != "unknown";
    if !known(&row.visibility) && known(&ts.visibility) {
        row.visibility = ts.visibility.clone();
        row.visibility_confidence = ts.visibility_confidence;
        row.visibility_source = ts.visibility_source.clone();
        stats.filled_visibility += 1;
    } else if known(&row.visibility) && known(&ts.visibility) && row.visibility != ts.visibility {
        stats.disagree_visibility += 1;
    }
    match (&row.container, &ts.container) {
        (None, Some(c)) => {
            row.container = Some(c.clone());
            stats.filled_container += 1;
        }
        (Some(a), Some(b)) if a != b => stats.disagree_container += 1,
        _ => {}
    }
    if row.module_id.is_none() && ts.module_id.is_some() {
        row.module_id = ts.module_id.clone();
        stats.filled_module += 1;
    }
    if row.language.is_none() {
        row.language = ts.language.clone();
    }
    if row.body_hash.is_none() && ts.body_hash.is_some() {
        row.body_hash = ts.body_hash.clone();
        stats.filled_body_hash += 1;
    }
}

/// The code tables as the snapshot writes them; `None`: no stage produced that table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CodeTables {
    /// `symbols`.
    pub symbols: Option<Vec<SymbolRow>>,
    /// `occurrences`.
    pub occurrences: Option<Vec<OccurrenceRow>>,
    /// `call_edges`.
    pub call_edges: Option<Vec<CallEdgeRow>>,
    /// `relationships`.
    pub relationships: Option<Vec<RelationshipRow>>,
    /// `imports` (only the syntax stage reads them).
    pub imports: Option<Vec<ImportRow>>,
}

/// The merge step, from the syntax stage's rows (when it ran) and SCIP's (when an index was read)
/// to the code tables. With SCIP rows, [`merge`] decides every table but `imports`; without, the
/// syntax rows stand as they are. `imports` is always the syntax
/// stage's (absent when it did not run). The stats exist when a merge happened.
pub fn merge_step(
    syntax: Option<SyntaxTables>,
    scip: Option<ScipTables>,
) -> (CodeTables, Option<MergeStats>) {
    let Some(scip) = scip else {
        let tables = match syntax {
            None => CodeTables::default(),
            Some(s) => CodeTables {
                symbols: Some(s.symbols),
                occurrences: Some(s.occurrences),
                call_edges: Some(s.call_edges),
                relationships: Some(s.relationships),
                imports: Some(s.imports),
            },
        };
        return (tables, None);
    };
    let (syntax, imports) = match syntax {
        Some(s) => (
            SyntaxTables {
                imports: Vec::new(),
                ..s
            },
            Some(s.imports),
        ),
        None => (SyntaxTables::default(), None),
    };
    let (merged, stats) = merge(syntax, scip);
    let tables = CodeTables {
        symbols: Some(merged.symbols),
        occurrences: Some(merged.occurrences),
        call_edges: Some(merged.call_edges),
        relationships: Some(merged.relationships),
        imports,
    };
    (tables, Some(stats))
}
