//! Resolving a stable ID that someone saved earlier: to the active symbol, through the aliases
//! written by the identity stage (renamed, moved, merged, fuzzy-match), or to the tombstone that
//! says when and where it was deleted.
//!
//! This is the pure algorithm over `aliases` and `tombstones` rows and a test for "is this ID
//! active"; it lives in the format crate so that every reader (queries, diff, bots) resolves IDs
//! the same way without depending on the pipeline.
//!
//! Rules:
//! - An active ID resolves to itself, even if an old alias still names it.
//! - Otherwise its alias is followed; when several rows share an `old_id` (only possible in
//!   hand-edited or merged data), the highest confidence wins, then the smallest `new_id`.
//! - At most [`MAX_ALIAS_HOPS`] hops are followed: a fourth needed hop is `ALIAS_CHAIN_TOO_DEEP`;
//!   reaching an ID already visited is `ALIAS_CYCLE` (checked first).
//! - The end of the chain is active (redirected), tombstoned (deleted, possibly after hops), or
//!   neither (`SYMBOL_NOT_FOUND`, naming the last ID reached).
//! - A redirect's confidence is the product of its hops' confidences; its reason is the hops'
//!   reason when they agree, else their reasons joined with `+` in hop order (`renamed+moved`).

use std::collections::BTreeMap;

use crate::tables::{AliasRow, TombstoneRow};
use crate::ErrorCode;

/// Most alias hops a resolution follows.
pub const MAX_ALIAS_HOPS: usize = 3;

/// One followed alias.
#[derive(Clone, Debug, PartialEq)]
pub struct Hop {
    /// ID the hop leaves.
    pub from: String,
    /// ID the hop reaches.
    pub to: String,
    /// renamed, moved, merged or fuzzy-match.
    pub reason: String,
    /// Confidence of this alias.
    pub confidence: f64,
    /// Commit of the snapshot that created the alias.
    pub created_commit: String,
}

/// Where a deleted symbol went.
#[derive(Clone, Debug, PartialEq)]
pub struct Deletion {
    /// Name when last seen.
    pub name: String,
    /// Kind when last seen.
    pub kind: String,
    /// Container when last seen.
    pub container: Option<String>,
    /// Path of its last definition.
    pub last_path: String,
    /// repoStateId of the first snapshot without it.
    pub deleted_in_state_id: String,
    /// Commit of the first snapshot without it.
    pub deleted_in_commit: String,
}

/// The outcome of resolving an ID.
#[derive(Clone, Debug, PartialEq)]
pub enum Resolution {
    /// The ID is active.
    Active {
        /// The ID.
        id: String,
    },
    /// The ID was replaced; `id` is active.
    Redirected {
        /// The active ID reached.
        id: String,
        /// The ID asked for.
        redirected_from: String,
        /// Reason (see the module doc).
        reason: String,
        /// Product of the hops' confidences.
        confidence: f64,
        /// The hops in order.
        hops: Vec<Hop>,
    },
    /// The ID (or the ID its aliases reach) was deleted.
    Deleted {
        /// The tombstoned ID.
        id: String,
        /// The ID asked for when aliases were followed to reach the tombstone.
        redirected_from: Option<String>,
        /// The hops followed (empty when the ID itself is tombstoned).
        hops: Vec<Hop>,
        /// When and where.
        deletion: Deletion,
    },
}

/// Why an ID cannot be resolved.
#[derive(Clone, Debug, PartialEq)]
pub enum ResolveError {
    /// Neither active, aliased nor tombstoned (`last` is the ID where the chain ended).
    NotFound {
        /// The ID asked for.
        id: String,
        /// The last ID reached.
        last: String,
    },
    /// The aliases loop back.
    Cycle {
        /// The IDs visited, starting with the one asked for, ending with the repeated one.
        chain: Vec<String>,
    },
    /// More than [`MAX_ALIAS_HOPS`] hops would be needed.
    ChainTooDeep {
        /// The IDs visited so far.
        chain: Vec<String>,
    },
}

impl ResolveError {
    /// The stable error code.
    pub fn code(&self) -> ErrorCode {
        match self {
            ResolveError::NotFound { .. } => ErrorCode::SymbolNotFound,
            ResolveError::Cycle { .. } => ErrorCode::AliasCycle,
            ResolveError::ChainTooDeep { .. } => ErrorCode::AliasChainTooDeep,
        }
    }
}

impl std::fmt::Display for ResolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ResolveError::NotFound { id, last } if id == last => write!(f, "no symbol {id}"),
            ResolveError::NotFound { id, last } => {
                write!(
                    f,
                    "{id} redirects to {last}, which is neither active nor deleted"
                )
            }
            ResolveError::Cycle { chain } => {
                write!(f, "aliases form a cycle: {}", chain.join(" -> "))
            }
            ResolveError::ChainTooDeep { chain } => write!(
                f,
                "more than {MAX_ALIAS_HOPS} alias hops from {}: {}",
                chain.first().map(String::as_str).unwrap_or(""),
                chain.join(" -> ")
            ),
        }
    }
}

impl std::error::Error for ResolveError {}

/// Aliases and tombstones indexed for resolution.
#[derive(Debug, Default)]
pub struct Resolver<'a> {
    aliases: BTreeMap<&'a str, &'a AliasRow>,
    tombstones: BTreeMap<&'a str, &'a TombstoneRow>,
}

impl<'a> Resolver<'a> {
    /// Indexes the rows of one snapshot's `aliases` and `tombstones` tables.
    pub fn new(aliases: &'a [AliasRow], tombstones: &'a [TombstoneRow]) -> Resolver<'a> {
        let mut by_old: BTreeMap<&'a str, &'a AliasRow> = BTreeMap::new();
        for a in aliases {
            by_old
                .entry(a.old_id.as_str())
                .and_modify(|cur| {
                    let better = a.confidence > cur.confidence
                        || (a.confidence == cur.confidence && a.new_id < cur.new_id);
                    if better {
                        *cur = a;
                    }
                })
                .or_insert(a);
        }
        Resolver {
            aliases: by_old,
            tombstones: tombstones
                .iter()
                .map(|t| (t.stable_id.as_str(), t))
                .collect(),
        }
    }

    /// Resolves `id`; `is_active` says whether an ID is a symbol of the snapshot.
    pub fn resolve(
        &self,
        id: &str,
        is_active: impl Fn(&str) -> bool,
    ) -> Result<Resolution, ResolveError> {
        let mut chain = vec![id.to_string()];
        let mut hops: Vec<Hop> = Vec::new();
        let mut cur = id.to_string();
        loop {
            if is_active(&cur) {
                if hops.is_empty() {
                    return Ok(Resolution::Active { id: cur });
                }
                let confidence = hops.iter().map(|h| h.confidence).product();
                let reason = combined_reason(&hops);
                return Ok(Resolution::Redirected {
                    id: cur,
                    redirected_from: id.to_string(),
                    reason,
                    confidence,
                    hops,
                });
            }
            match self.aliases.get(cur.as_str()) {
                Some(alias) => {
                    if chain.iter().any(|c| c == &alias.new_id) {
                        chain.push(alias.new_id.clone());
                        return Err(ResolveError::Cycle { chain });
                    }
                    if hops.len() == MAX_ALIAS_HOPS {
                        return Err(ResolveError::ChainTooDeep { chain });
                    }
                    hops.push(Hop {
                        from: cur.clone(),
                        to: alias.new_id.clone(),
                        reason: alias.reason.clone(),
                        confidence: alias.confidence,
                        created_commit: alias.created_commit.clone(),
                    });
                    cur = alias.new_id.clone();
                    chain.push(cur.clone());
                }
                None => {
                    return match self.tombstones.get(cur.as_str()) {
                        Some(t) => Ok(Resolution::Deleted {
                            id: cur,
                            redirected_from: (!hops.is_empty()).then(|| id.to_string()),
                            hops,
                            deletion: Deletion {
                                name: t.name.clone(),
                                kind: t.kind.clone(),
                                container: t.container.clone(),
                                last_path: t.last_path.clone(),
                                deleted_in_state_id: t.deleted_in_state_id.clone(),
                                deleted_in_commit: t.deleted_in_commit.clone(),
                            },
                        }),
                        None => Err(ResolveError::NotFound {
                            id: id.to_string(),
                            last: cur,
                        }),
                    };
                }
            }
        }
    }
}

fn combined_reason(hops: &[Hop]) -> String {
    let first = &hops[0].reason;
    if hops.iter().all(|h| &h.reason == first) {
        first.clone()
    } else {
        hops.iter()
            .map(|h| h.reason.as_str())
            .collect::<Vec<_>>()
            .join("+")
    }
}

/// Resolves one ID against alias and tombstone rows (builds a [`Resolver`] each call; build one
/// yourself to resolve many).
pub fn resolve(
    id: &str,
    aliases: &[AliasRow],
    tombstones: &[TombstoneRow],
    is_active: impl Fn(&str) -> bool,
) -> Result<Resolution, ResolveError> {
    Resolver::new(aliases, tombstones).resolve(id, is_active)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn alias(old: &str, new: &str, reason: &str, confidence: f64) -> AliasRow {
        AliasRow {
            old_id: old.into(),
            new_id: new.into(),
            reason: reason.into(),
            confidence,
            created_state_id: format!("state-{new}"),
            created_commit: format!("commit-{new}"),
        }
    }

    fn tomb(id: &str) -> TombstoneRow {
        TombstoneRow {
            stable_id: id.into(),
            name: "gone".into(),
            kind: "function".into(),
            container: None,
            last_path: "src/a.rs".into(),
            deleted_in_state_id: "s9".into(),
            deleted_in_commit: "c9".into(),
        }
    }

    fn active(ids: &[&str]) -> BTreeSet<String> {
        ids.iter().map(|s| s.to_string()).collect()
    }

    /// Aliases `ids[0]` → `ids[1]` → …, each a rename of confidence 1.
    fn chain(ids: &[&str]) -> Vec<AliasRow> {
        ids.windows(2)
            .map(|w| alias(w[0], w[1], "renamed", 1.0))
            .collect()
    }

    /// The ID `id` is redirected to, where `active_ids` are the snapshot's symbols.
    fn redirected_id(id: &str, aliases: &[AliasRow], active_ids: &[&str]) -> String {
        let set = active(active_ids);
        match resolve(id, aliases, &[], |x| set.contains(x)).unwrap() {
            Resolution::Redirected { id, .. } => id,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn active_ids_resolve_to_themselves() {
        let set = active(&["a"]);
        // A stale alias from an active ID is ignored.
        let aliases = [alias("a", "b", "renamed", 0.9)];
        let r = resolve("a", &aliases, &[], |x| set.contains(x)).unwrap();
        assert_eq!(r, Resolution::Active { id: "a".into() });
    }

    #[test]
    fn chains_of_three_hops_resolve() {
        let set = active(&["d"]);
        let aliases = [
            alias("a", "b", "renamed", 0.95),
            alias("b", "c", "renamed", 0.9),
            alias("c", "d", "moved", 0.5),
        ];
        match resolve("a", &aliases, &[], |x| set.contains(x)).unwrap() {
            Resolution::Redirected {
                id,
                redirected_from,
                reason,
                confidence,
                hops,
            } => {
                assert_eq!(id, "d");
                assert_eq!(redirected_from, "a");
                assert_eq!(reason, "renamed+renamed+moved");
                assert!((confidence - 0.95 * 0.9 * 0.5).abs() < 1e-12);
                assert_eq!(hops.len(), 3);
                assert_eq!(hops[2].created_commit, "commit-d");
            }
            other => panic!("{other:?}"),
        }
        // One hop keeps its own reason.
        match resolve("c", &aliases, &[], |x| set.contains(x)).unwrap() {
            Resolution::Redirected {
                reason, confidence, ..
            } => {
                assert_eq!(reason, "moved");
                assert_eq!(confidence, 0.5);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_fourth_hop_is_too_deep() {
        let set = active(&["e"]);
        let aliases = chain(&["a", "b", "c", "d", "e"]);
        let err = resolve("a", &aliases, &[], |x| set.contains(x)).unwrap_err();
        assert_eq!(err.code(), ErrorCode::AliasChainTooDeep);
        assert_eq!(
            err,
            ResolveError::ChainTooDeep {
                chain: vec!["a".into(), "b".into(), "c".into(), "d".into()]
            }
        );
        // From the second ID it is three hops.
        assert!(matches!(
            resolve("b", &aliases, &[], |x| set.contains(x)),
            Ok(Resolution::Redirected { .. })
        ));
    }

    #[test]
    fn cycles_are_detected_before_depth() {
        let aliases = chain(&["a", "b", "a"]);
        let err = resolve("a", &aliases, &[], |_| false).unwrap_err();
        assert_eq!(err.code(), ErrorCode::AliasCycle);
        assert_eq!(
            err,
            ResolveError::Cycle {
                chain: vec!["a".into(), "b".into(), "a".into()]
            }
        );
        let self_loop = chain(&["x", "x"]);
        assert_eq!(
            resolve("x", &self_loop, &[], |_| false).unwrap_err().code(),
            ErrorCode::AliasCycle
        );
        let long = chain(&["a", "b", "c", "a"]);
        assert_eq!(
            resolve("a", &long, &[], |_| false).unwrap_err().code(),
            ErrorCode::AliasCycle
        );
    }

    #[test]
    fn tombstones_say_when_and_where() {
        let tombs = [tomb("t")];
        match resolve("t", &[], &tombs, |_| false).unwrap() {
            Resolution::Deleted {
                id,
                redirected_from,
                hops,
                deletion,
            } => {
                assert_eq!(id, "t");
                assert_eq!(redirected_from, None);
                assert!(hops.is_empty());
                assert_eq!(deletion.deleted_in_commit, "c9");
                assert_eq!(deletion.last_path, "src/a.rs");
            }
            other => panic!("{other:?}"),
        }
        // Renamed, then deleted.
        let aliases = [alias("a", "t", "renamed", 0.9)];
        match resolve("a", &aliases, &tombs, |_| false).unwrap() {
            Resolution::Deleted {
                id,
                redirected_from,
                hops,
                ..
            } => {
                assert_eq!(id, "t");
                assert_eq!(redirected_from.as_deref(), Some("a"));
                assert_eq!(hops.len(), 1);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn unknown_and_dangling_ids_are_not_found() {
        let err = resolve("zzz", &[], &[], |_| false).unwrap_err();
        assert_eq!(err.code(), ErrorCode::SymbolNotFound);
        assert_eq!(err.to_string(), "no symbol zzz");
        let aliases = [alias("a", "b", "renamed", 0.9)];
        let err = resolve("a", &aliases, &[], |_| false).unwrap_err();
        assert_eq!(
            err,
            ResolveError::NotFound {
                id: "a".into(),
                last: "b".into()
            }
        );
    }

    #[test]
    fn the_most_confident_alias_wins() {
        let aliases = [
            alias("a", "b", "fuzzy-match", 0.6),
            alias("a", "c", "renamed", 0.95),
        ];
        assert_eq!(redirected_id("a", &aliases, &["b", "c"]), "c");
        let tie = [
            alias("a", "c", "renamed", 0.9),
            alias("a", "b", "renamed", 0.9),
        ];
        assert_eq!(redirected_id("a", &tie, &["b", "c"]), "b");
    }
}
