//! The identity algorithm proper: given the previous snapshot's symbols, aliases and tombstones
//! and the current symbols, decide where each vanished symbol went.
//!
//! A symbol *vanished* when its stable ID was active in the previous snapshot and is not now. It
//! may only be matched to a *new* symbol (an ID active now that was not active before): pointing an
//! old ID at a symbol that already existed would be a false redirect. In order:
//! 1. **Backend ID** — the SCIP symbol strings agree once the package version is blanked
//!    ([`version_blind`]): `moved` when the path or container changed, else `renamed`; 0.95.
//! 2. **Body** — equal `body_hash` and kind family, the hash held by exactly one vanished and one
//!    new symbol (a hash shared more widely is usually a trivial body, no evidence), and some
//!    corroboration (same name, path or non-empty container, a similar name, or an equal anonymized
//!    signature): `moved`/`renamed` as above; 0.9. When two or more vanished symbols share the
//!    body hash of exactly one new symbol in the same file, each with a name similar to it (≥ 0.5),
//!    they are `merged` into it (duplicates consolidated); 0.9.
//! 3. **Fuzzy** — [`similarity::score`] ≥ 0.6 over pairs sharing the kind family and the path, the
//!    name or the container (blocks over [`MAX_FUZZY_BLOCK`] candidates are skipped), with name
//!    evidence ([`similarity::name_evidence`]); assigned greedily one to one, best score first
//!    (ties by IDs): `fuzzy-match` with the score rounded to 3 decimals. A fuzzy match is never a
//!    merge: a second vanished symbol resembling an already matched one is far more often an
//!    unrelated deletion than half of a merge.
//! 4. **Merge** — besides the body rule above, several vanished symbols whose version-blind
//!    backend IDs name one new symbol are `merged` (0.95).
//! 5. Otherwise a tombstone.
//!
//! Carried forward from the previous snapshot: its aliases, except those whose `old_id` is active
//! again (dropped), and its tombstones, except those whose ID is active again (reactivated).

use std::collections::{BTreeMap, BTreeSet};

use output_schema::tables::{AliasRow, SymbolRow, TombstoneRow};
use output_schema::SharedStr;

use super::similarity::{self, FUZZY_THRESHOLD};
use crate::fingerprint::kind_family;

/// Confidence of a backend-ID match.
pub const BACKEND_CONFIDENCE: f64 = 0.95;
/// Confidence of a body-hash match.
pub const BODY_CONFIDENCE: f64 = 0.9;
/// Largest candidate block (same path, name or container) compared pairwise in the fuzzy step.
pub const MAX_FUZZY_BLOCK: usize = 256;

/// What the previous snapshot says.
#[derive(Debug, Default)]
pub struct Previous {
    /// The stable IDs of its active symbols (in any order, repeats allowed). [`compute`] takes
    /// those of `symbols` too, so a caller holding every row may leave this empty.
    pub ids: Vec<SharedStr>,
    /// Its active symbols: at least every row whose ID is not active now (the rows of IDs still
    /// active decide nothing, so a reader may leave them out).
    pub symbols: Vec<SymbolRow>,
    /// Its aliases.
    pub aliases: Vec<AliasRow>,
    /// Its tombstones.
    pub tombstones: Vec<TombstoneRow>,
}

/// Which snapshot creates the new rows.
#[derive(Clone, Copy, Debug)]
pub struct Stamp<'a> {
    /// repoStateId of the snapshot being built.
    pub state_id: &'a str,
    /// Its head commit, or its partition value outside git.
    pub commit: &'a str,
}

/// Counts for the stage report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Symbols active now.
    pub symbols: usize,
    /// Symbols active in the previous snapshot.
    pub previous_symbols: usize,
    /// Previous symbols absent now.
    pub vanished: usize,
    /// New aliases by reason.
    pub renamed: usize,
    /// New `moved` aliases.
    pub moved: usize,
    /// New `merged` aliases.
    pub merged: usize,
    /// New `fuzzy-match` aliases.
    pub fuzzy: usize,
    /// New tombstones.
    pub tombstoned: usize,
    /// Aliases carried forward.
    pub aliases_carried: usize,
    /// Aliases dropped because their old ID is active again.
    pub aliases_dropped: usize,
    /// Tombstones carried forward.
    pub tombstones_carried: usize,
    /// Tombstoned IDs active again.
    pub reactivated: usize,
    /// Fuzzy candidate blocks skipped for size ([`MAX_FUZZY_BLOCK`]).
    pub fuzzy_blocks_skipped: usize,
}

/// The stage's tables and counts.
#[derive(Debug, Default)]
pub struct Computed {
    /// All aliases: carried forward and new.
    pub aliases: Vec<AliasRow>,
    /// All tombstones: carried forward and new.
    pub tombstones: Vec<TombstoneRow>,
    /// Counts.
    pub stats: Stats,
}

/// A SCIP symbol string with its package version blanked; `None` for locals and strings that do
/// not parse as SCIP symbols (tree-sitter rows carry none).
pub fn version_blind(backend_id: &str) -> Option<String> {
    if scip::symbol::is_local_symbol(backend_id) {
        return None;
    }
    let symbol = scip::symbol::parse_symbol(backend_id).ok()?;
    Some(scip::symbol::format_symbol_with(
        symbol,
        scip::symbol::SymbolFormatOptions {
            include_scheme: true,
            include_package_manager: true,
            include_package_name: true,
            include_package_version: false,
            include_descriptor: true,
        },
    ))
}

/// Whether two backend IDs name the same symbol regardless of the package version.
pub fn same_backend_symbol(a: &str, b: &str) -> bool {
    matches!((version_blind(a), version_blind(b)), (Some(x), Some(y)) if x == y)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum How {
    Backend,
    Body,
    Fuzzy(f64),
}

fn strong_reason(old: &SymbolRow, new: &SymbolRow) -> &'static str {
    if old.path != new.path || old.container != new.container {
        "moved"
    } else {
        "renamed"
    }
}

/// Keeps the first row of each stable ID (rows are compared in sorted order, so "first" is
/// deterministic whatever order the caller had).
fn unique_by_id(rows: &[SymbolRow]) -> Vec<&SymbolRow> {
    let mut sorted: Vec<&SymbolRow> = rows.iter().collect();
    sorted.sort_by(|a, b| output_schema::Table::compare(*a, *b));
    sorted.dedup_by(|a, b| a.stable_id == b.stable_id);
    sorted
}

fn corroborated(old: &SymbolRow, new: &SymbolRow) -> bool {
    old.name == new.name
        || old.path == new.path
        || (old.container.is_some() && old.container == new.container)
        || similarity::name_similarity(&old.name, &new.name) >= 0.5
        || (old.signature.is_some() && similarity::signature_similarity(old, new) == 1.0)
}

/// Computes aliases and tombstones of the current snapshot.
pub fn compute(previous: &Previous, current: &[SymbolRow], stamp: Stamp<'_>) -> Computed {
    let current = unique_by_id(current);
    let prev = unique_by_id(&previous.symbols);
    let cur_ids: BTreeSet<&str> = current.iter().map(|s| s.stable_id.as_str()).collect();
    let prev_ids: BTreeSet<&str> = previous
        .ids
        .iter()
        .map(SharedStr::as_str)
        .chain(prev.iter().map(|s| s.stable_id.as_str()))
        .collect();
    let vanished: Vec<&SymbolRow> = prev
        .iter()
        .copied()
        .filter(|s| !cur_ids.contains(s.stable_id.as_str()))
        .collect();
    let fresh: Vec<&SymbolRow> = current
        .iter()
        .copied()
        .filter(|s| !prev_ids.contains(s.stable_id.as_str()))
        .collect();

    let mut stats = Stats {
        symbols: current.len(),
        previous_symbols: prev_ids.len(),
        vanished: vanished.len(),
        ..Stats::default()
    };
    let mut matching = Matching {
        matched: vec![None; vanished.len()],
        taken: vec![false; fresh.len()],
        merged_into: BTreeSet::new(),
        vanished,
        fresh,
    };
    matching.by_backend_id();
    matching.by_body_hash();
    matching.fuzzy(&mut stats);
    let (mut aliases, mut tombstones) = matching.rows(stamp, &mut stats);
    let vanished = matching.vanished;

    // Carry forward what earlier snapshots said, unless the ID is active again or was decided
    // anew just now (defensive: an ID decided now was active before, so it should have nothing).
    let decided: BTreeSet<&str> = vanished.iter().map(|v| v.stable_id.as_str()).collect();
    let skip = (&cur_ids, &decided);
    let (dropped, carried) = carry_forward(&previous.aliases, |a| &a.old_id, skip, &mut aliases);
    stats.aliases_dropped += dropped;
    stats.aliases_carried += carried;
    let (again, carried) = carry_forward(
        &previous.tombstones,
        |t| &t.stable_id,
        skip,
        &mut tombstones,
    );
    stats.reactivated += again;
    stats.tombstones_carried += carried;
    Computed {
        aliases,
        tombstones,
        stats,
    }
}

/// The pairing of vanished symbols with fresh ones, step by step (see the module doc).
struct Matching<'a> {
    vanished: Vec<&'a SymbolRow>,
    fresh: Vec<&'a SymbolRow>,
    /// `matched[v]`: the index into `fresh` and how.
    matched: Vec<Option<(usize, How)>>,
    /// Fresh symbols already paired.
    taken: Vec<bool>,
    /// Fresh symbols several vanished ones were merged into.
    merged_into: BTreeSet<usize>,
}

type MatchingParts<'m, 'a> = (
    &'m [&'a SymbolRow],
    &'m [&'a SymbolRow],
    &'m mut Vec<Option<(usize, How)>>,
    &'m mut Vec<bool>,
    &'m mut BTreeSet<usize>,
);

impl<'a> Matching<'a> {
    /// The fields, borrowed apart.
    fn parts(&mut self) -> MatchingParts<'_, 'a> {
        (
            &self.vanished,
            &self.fresh,
            &mut self.matched,
            &mut self.taken,
            &mut self.merged_into,
        )
    }

    /// 1. Backend ID, version-blind.
    fn by_backend_id(&mut self) {
        let (vanished, fresh, matched, taken, merged_into) = self.parts();
        let mut by_backend: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (j, s) in fresh.iter().enumerate() {
            if let Some(key) = s.backend_id.as_deref().and_then(version_blind) {
                by_backend.entry(key).or_default().push(j);
            }
        }
        let mut old_by_backend: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, v) in vanished.iter().enumerate() {
            if let Some(key) = v.backend_id.as_deref().and_then(version_blind) {
                old_by_backend.entry(key).or_default().push(i);
            }
        }
        for (key, olds) in &old_by_backend {
            if let Some(&[j]) = by_backend.get(key).map(Vec::as_slice) {
                for &i in olds {
                    matched[i] = Some((j, How::Backend));
                }
                taken[j] = true;
                if olds.len() > 1 {
                    merged_into.insert(j);
                }
            }
        }
    }

    /// 2. Body hash, unique on both sides.
    fn by_body_hash(&mut self) {
        let (vanished, fresh, matched, taken, merged_into) = self.parts();
        let body_key = |s: &SymbolRow| {
            s.body_hash
                .as_ref()
                .map(|h| (h.clone(), kind_family(&s.kind).to_string()))
        };
        let mut old_by_body: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
        for (i, v) in vanished.iter().enumerate() {
            if let (None, Some(k)) = (matched[i], body_key(v)) {
                old_by_body.entry(k).or_default().push(i);
            }
        }
        let mut new_by_body: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
        for (j, s) in fresh.iter().enumerate() {
            if let (false, Some(k)) = (taken[j], body_key(s)) {
                new_by_body.entry(k).or_default().push(j);
            }
        }
        for (k, olds) in &old_by_body {
            let Some(&[j]) = new_by_body.get(k).map(Vec::as_slice) else {
                continue;
            };
            if let &[i] = olds.as_slice() {
                if corroborated(vanished[i], fresh[j]) {
                    matched[i] = Some((j, How::Body));
                    taken[j] = true;
                }
                continue;
            }
            let parts: Vec<usize> = olds
                .iter()
                .copied()
                .filter(|&i| {
                    vanished[i].path == fresh[j].path
                        && similarity::name_similarity(&vanished[i].name, &fresh[j].name) >= 0.5
                })
                .collect();
            if parts.len() >= 2 {
                for i in parts {
                    matched[i] = Some((j, How::Body));
                }
                taken[j] = true;
                merged_into.insert(j);
            }
        }
    }

    /// 3. Fuzzy, over blocked pairs.
    fn fuzzy(&mut self, stats: &mut Stats) {
        let (vanished, fresh, matched, taken, _) = self.parts();
        let mut by_path: BTreeMap<(&str, &str), Vec<usize>> = BTreeMap::new();
        let mut by_name: BTreeMap<(&str, &str), Vec<usize>> = BTreeMap::new();
        let mut by_container: BTreeMap<(&str, &str), Vec<usize>> = BTreeMap::new();
        for (j, s) in fresh.iter().enumerate() {
            let fam = kind_family(&s.kind);
            by_path.entry((fam, s.path.as_str())).or_default().push(j);
            by_name.entry((fam, s.name.as_str())).or_default().push(j);
            if let Some(c) = s.container.as_deref() {
                by_container.entry((fam, c)).or_default().push(j);
            }
        }
        let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
        for (i, v) in vanished.iter().enumerate() {
            if matched[i].is_some() {
                continue;
            }
            let fam = kind_family(&v.kind);
            let mut cands: BTreeSet<usize> = BTreeSet::new();
            for block in [
                by_path.get(&(fam, v.path.as_str())),
                by_name.get(&(fam, v.name.as_str())),
                v.container
                    .as_deref()
                    .and_then(|c| by_container.get(&(fam, c))),
            ]
            .into_iter()
            .flatten()
            {
                // A block this large (hundreds of new `new` or `fmt`) gives no evidence for one
                // pairing and would cost quadratic time; the other blocks may still decide.
                if block.len() > MAX_FUZZY_BLOCK {
                    stats.fuzzy_blocks_skipped += 1;
                    continue;
                }
                cands.extend(block.iter().copied());
            }
            for j in cands {
                if taken[j] || !similarity::name_evidence(v, fresh[j]) {
                    continue;
                }
                let s = similarity::score(v, fresh[j]);
                if s >= FUZZY_THRESHOLD {
                    pairs.push((s, i, j));
                }
            }
        }
        pairs.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then_with(|| vanished[a.1].stable_id.cmp(&vanished[b.1].stable_id))
                .then_with(|| fresh[a.2].stable_id.cmp(&fresh[b.2].stable_id))
        });
        for (s, i, j) in pairs {
            if matched[i].is_none() && !taken[j] {
                matched[i] = Some((j, How::Fuzzy(s)));
                taken[j] = true;
            }
        }
    }

    /// 4. Rows: an alias for every paired symbol, a tombstone for every other.
    fn rows(&self, stamp: Stamp<'_>, stats: &mut Stats) -> (Vec<AliasRow>, Vec<TombstoneRow>) {
        let Matching {
            vanished,
            fresh,
            matched,
            merged_into,
            ..
        } = self;
        let mut aliases: Vec<AliasRow> = Vec::new();
        let mut tombstones: Vec<TombstoneRow> = Vec::new();
        for (i, v) in vanished.iter().enumerate() {
            match matched[i] {
                Some((j, how)) => {
                    let target = fresh[j];
                    let (reason, confidence) = if merged_into.contains(&j) {
                        let c = match how {
                            How::Backend => BACKEND_CONFIDENCE,
                            How::Body => BODY_CONFIDENCE,
                            How::Fuzzy(s) => round3(s),
                        };
                        ("merged", c)
                    } else {
                        match how {
                            How::Backend => (strong_reason(v, target), BACKEND_CONFIDENCE),
                            How::Body => (strong_reason(v, target), BODY_CONFIDENCE),
                            How::Fuzzy(s) => ("fuzzy-match", round3(s)),
                        }
                    };
                    match reason {
                        "renamed" => stats.renamed += 1,
                        "moved" => stats.moved += 1,
                        "merged" => stats.merged += 1,
                        _ => stats.fuzzy += 1,
                    }
                    aliases.push(AliasRow {
                        old_id: v.stable_id.to_string(),
                        new_id: target.stable_id.to_string(),
                        reason: reason.to_string(),
                        confidence,
                        created_state_id: stamp.state_id.to_string(),
                        created_commit: stamp.commit.to_string(),
                    });
                }
                None => {
                    stats.tombstoned += 1;
                    tombstones.push(TombstoneRow {
                        stable_id: v.stable_id.to_string(),
                        name: v.name.clone(),
                        kind: v.kind.to_string(),
                        container: v.container.as_deref().map(str::to_string),
                        last_path: v.path.to_string(),
                        deleted_in_state_id: stamp.state_id.to_string(),
                        deleted_in_commit: stamp.commit.to_string(),
                    });
                }
            }
        }
        (aliases, tombstones)
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Carries rows of the previous snapshot forward into `out`, in order, except those whose ID
/// (`id_of`) is active again (the first set of `skip`) or was decided anew (the second); returns
/// how many were active again and how many were carried.
fn carry_forward<T: Clone>(
    rows: &[T],
    id_of: impl Fn(&T) -> &str,
    (active, decided): (&BTreeSet<&str>, &BTreeSet<&str>),
    out: &mut Vec<T>,
) -> (usize, usize) {
    let (mut again, mut carried) = (0, 0);
    for row in rows {
        let id = id_of(row);
        if active.contains(id) {
            again += 1;
        } else if !decided.contains(id) {
            carried += 1;
            out.push(row.clone());
        }
    }
    (again, carried)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_blind_ignores_only_the_version() {
        let a = "rust-analyzer cargo foo 0.1.0 net/connect().";
        assert!(same_backend_symbol(
            a,
            "rust-analyzer cargo foo 0.2.0 net/connect()."
        ));
        assert!(!same_backend_symbol(
            a,
            "rust-analyzer cargo bar 0.1.0 net/connect()."
        ));
        assert!(!same_backend_symbol(
            a,
            "rust-analyzer cargo foo 0.1.0 net/dial()."
        ));
        assert!(!same_backend_symbol("local 1", "local 1"));
        assert_eq!(version_blind("not a symbol"), None);
    }
}
