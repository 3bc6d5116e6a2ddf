//! What the merge did, counted: [`MergeStats`], which the scip stage reports as `merge.*` counts,
//! summed over the parts of the merge that run side by side.

use std::collections::BTreeMap;

/// What the merge did; every field becomes a `merge.*` count in the scip stage report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergeStats {
    /// SCIP definitions with a tree-sitter counterpart.
    pub matched: i64,
    /// SCIP definitions without one.
    pub scip_only: i64,
    /// Visibility taken from tree-sitter (SCIP had none).
    pub filled_visibility: i64,
    /// Signature taken from tree-sitter.
    pub filled_signature: i64,
    /// Arity taken from tree-sitter.
    pub filled_arity: i64,
    /// Coarse SCIP kind refined by tree-sitter.
    pub filled_kind: i64,
    /// Container taken from tree-sitter.
    pub filled_container: i64,
    /// Module taken from tree-sitter.
    pub filled_module: i64,
    /// Body hash taken from tree-sitter.
    pub filled_body_hash: i64,
    /// Both stated a kind and they differ (SCIP kept).
    pub disagree_kind: i64,
    /// Both stated a signature and they differ.
    pub disagree_signature: i64,
    /// Both stated a visibility and they differ.
    pub disagree_visibility: i64,
    /// Both stated a container and they differ.
    pub disagree_container: i64,
    /// Tree-sitter definitions in SCIP-covered files that SCIP does not have (dropped).
    pub dropped_tree_sitter_symbols: i64,
    /// Tree-sitter occurrences in SCIP-covered files (dropped).
    pub dropped_tree_sitter_occurrences: i64,
    /// Tree-sitter call edges whose caller is in a SCIP-covered file (dropped).
    pub dropped_tree_sitter_call_edges: i64,
    /// Tree-sitter relationships from a SCIP-covered file whose index states relationships
    /// (dropped).
    pub dropped_tree_sitter_relationships: i64,
    /// Kept tree-sitter rows whose targets were rewritten to SCIP stable IDs.
    pub remapped_references: i64,
    /// Kept tree-sitter references to definitions that no longer exist (target set to null or
    /// row dropped when the column cannot be null).
    pub unresolved_references: i64,
    /// Tree-sitter definitions kept outside SCIP-covered files.
    pub kept_tree_sitter_symbols: i64,
    /// Tree-sitter definitions kept in SCIP-covered files because the index read them as
    /// references to an external symbol of the same name (see the module doc).
    pub definitions_read_as_external: i64,
}

impl MergeStats {
    /// Adds another part's counts to these.
    pub fn add(&mut self, other: &MergeStats) {
        // Taken apart field by field, so that a new field cannot be left out of the sum.
        let MergeStats {
            matched,
            scip_only,
            filled_visibility,
            filled_signature,
            filled_arity,
            filled_kind,
            filled_container,
            filled_module,
            filled_body_hash,
            disagree_kind,
            disagree_signature,
            disagree_visibility,
            disagree_container,
            dropped_tree_sitter_symbols,
            dropped_tree_sitter_occurrences,
            dropped_tree_sitter_call_edges,
            dropped_tree_sitter_relationships,
            remapped_references,
            unresolved_references,
            kept_tree_sitter_symbols,
            definitions_read_as_external,
        } = other;
        for (sum, part) in [
            (&mut self.matched, matched),
            (&mut self.scip_only, scip_only),
            (&mut self.filled_visibility, filled_visibility),
            (&mut self.filled_signature, filled_signature),
            (&mut self.filled_arity, filled_arity),
            (&mut self.filled_kind, filled_kind),
            (&mut self.filled_container, filled_container),
            (&mut self.filled_module, filled_module),
            (&mut self.filled_body_hash, filled_body_hash),
            (&mut self.disagree_kind, disagree_kind),
            (&mut self.disagree_signature, disagree_signature),
            (&mut self.disagree_visibility, disagree_visibility),
            (&mut self.disagree_container, disagree_container),
            (
                &mut self.dropped_tree_sitter_symbols,
                dropped_tree_sitter_symbols,
            ),
            (
                &mut self.dropped_tree_sitter_occurrences,
                dropped_tree_sitter_occurrences,
            ),
            (
                &mut self.dropped_tree_sitter_call_edges,
                dropped_tree_sitter_call_edges,
            ),
            (
                &mut self.dropped_tree_sitter_relationships,
                dropped_tree_sitter_relationships,
            ),
            (&mut self.remapped_references, remapped_references),
            (&mut self.unresolved_references, unresolved_references),
            (&mut self.kept_tree_sitter_symbols, kept_tree_sitter_symbols),
            (
                &mut self.definitions_read_as_external,
                definitions_read_as_external,
            ),
        ] {
            *sum += *part;
        }
    }

    /// The counts as they appear in the stage report.
    pub fn counts(&self) -> BTreeMap<String, i64> {
        [
            ("merge.matched", self.matched),
            ("merge.scip-only", self.scip_only),
            ("merge.filled.visibility", self.filled_visibility),
            ("merge.filled.signature", self.filled_signature),
            ("merge.filled.arity", self.filled_arity),
            ("merge.filled.kind", self.filled_kind),
            ("merge.filled.container", self.filled_container),
            ("merge.filled.module", self.filled_module),
            ("merge.filled.body-hash", self.filled_body_hash),
            ("merge.disagree.kind", self.disagree_kind),
            ("merge.disagree.signature", self.disagree_signature),
            ("merge.disagree.visibility", self.disagree_visibility),
            ("merge.disagree.container", self.disagree_container),
            (
                "merge.dropped.tree-sitter-symbols",
                self.dropped_tree_sitter_symbols,
            ),
            (
                "merge.dropped.tree-sitter-occurrences",
                self.dropped_tree_sitter_occurrences,
            ),
            (
                "merge.dropped.tree-sitter-call-edges",
                self.dropped_tree_sitter_call_edges,
            ),
            (
                "merge.dropped.tree-sitter-relationships",
                self.dropped_tree_sitter_relationships,
            ),
            ("merge.remapped-references", self.remapped_references),
            ("merge.unresolved-references", self.unresolved_references),
            (
                "merge.kept.tree-sitter-symbols",
                self.kept_tree_sitter_symbols,
            ),
            (
                "quirk.definitions-read-as-external",
                self.definitions_read_as_external,
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adding_stats_adds_every_count() {
        // Every field a different value: each count of the sum must be twice its own.
        let mut one = MergeStats::default();
        let mut n = 0;
        for (_, v) in one.clone().counts() {
            assert_eq!(v, 0);
        }
        let fields: Vec<&mut i64> = vec![
            &mut one.matched,
            &mut one.scip_only,
            &mut one.filled_visibility,
            &mut one.filled_signature,
            &mut one.filled_arity,
            &mut one.filled_kind,
            &mut one.filled_container,
            &mut one.filled_module,
            &mut one.filled_body_hash,
            &mut one.disagree_kind,
            &mut one.disagree_signature,
            &mut one.disagree_visibility,
            &mut one.disagree_container,
            &mut one.dropped_tree_sitter_symbols,
            &mut one.dropped_tree_sitter_occurrences,
            &mut one.dropped_tree_sitter_call_edges,
            &mut one.dropped_tree_sitter_relationships,
            &mut one.remapped_references,
            &mut one.unresolved_references,
            &mut one.kept_tree_sitter_symbols,
            &mut one.definitions_read_as_external,
        ];
        for f in fields {
            n += 1;
            *f = n;
        }
        let mut sum = one.clone();
        sum.add(&one);
        let (single, double) = (one.counts(), sum.counts());
        assert_eq!(single.len(), 21);
        for (key, v) in &single {
            assert_eq!(double[key], 2 * v, "{key}");
        }
    }
}
