//! What the merge did, counted: [`MergeStats`], which the scip stage reports as `merge.*` counts,
//! summed over the parts of the merge that run side by side.
//!
//! The counts are declared once, each field with its report key, and the struct, the sum and the
//! report are generated from that list: a count cannot be left out of one of them.

use std::collections::BTreeMap;

/// Declares [`MergeStats`]: `field => "report key"` per count.
macro_rules! merge_stats {
    ($($(#[$doc:meta])* $field:ident => $key:literal,)*) => {
        /// What the merge did; every field becomes a count in the scip stage report.
        #[derive(Clone, Debug, Default, PartialEq, Eq)]
        pub struct MergeStats {
            $($(#[$doc])* pub $field: i64,)*
        }

        impl MergeStats {
            /// Adds another part's counts to these.
            pub fn add(&mut self, other: &MergeStats) {
                $(self.$field += other.$field;)*
            }

            /// The counts as they appear in the stage report.
            pub fn counts(&self) -> BTreeMap<String, i64> {
                [$(($key, self.$field)),*]
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect()
            }
        }
    };
}

merge_stats! {
    /// SCIP definitions with a tree-sitter counterpart.
    matched => "merge.matched",
    /// SCIP definitions without one.
    scip_only => "merge.scip-only",
    /// Visibility taken from tree-sitter (SCIP had none).
    filled_visibility => "merge.filled.visibility",
    /// Signature taken from tree-sitter.
    filled_signature => "merge.filled.signature",
    /// Arity taken from tree-sitter.
    filled_arity => "merge.filled.arity",
    /// Coarse SCIP kind refined by tree-sitter.
    filled_kind => "merge.filled.kind",
    /// Container taken from tree-sitter.
    filled_container => "merge.filled.container",
    /// Module taken from tree-sitter.
    filled_module => "merge.filled.module",
    /// Body hash taken from tree-sitter.
    filled_body_hash => "merge.filled.body-hash",
    /// Both stated a kind and they differ (SCIP kept).
    disagree_kind => "merge.disagree.kind",
    /// Both stated a signature and they differ.
    disagree_signature => "merge.disagree.signature",
    /// Both stated a visibility and they differ.
    disagree_visibility => "merge.disagree.visibility",
    /// Both stated a container and they differ.
    disagree_container => "merge.disagree.container",
    /// Tree-sitter definitions in SCIP-covered files that SCIP does not have (dropped).
    dropped_tree_sitter_symbols => "merge.dropped.tree-sitter-symbols",
    /// Tree-sitter occurrences in SCIP-covered files (dropped).
    dropped_tree_sitter_occurrences => "merge.dropped.tree-sitter-occurrences",
    /// Tree-sitter call edges whose caller is in a SCIP-covered file (dropped).
    dropped_tree_sitter_call_edges => "merge.dropped.tree-sitter-call-edges",
    /// Tree-sitter relationships from a SCIP-covered file whose index states relationships
    /// (dropped).
    dropped_tree_sitter_relationships => "merge.dropped.tree-sitter-relationships",
    /// Kept tree-sitter rows whose targets were rewritten to SCIP stable IDs.
    remapped_references => "merge.remapped-references",
    /// Kept tree-sitter references to definitions that no longer exist (target set to null or
    /// row dropped when the column cannot be null).
    unresolved_references => "merge.unresolved-references",
    /// Tree-sitter definitions kept outside SCIP-covered files.
    kept_tree_sitter_symbols => "merge.kept.tree-sitter-symbols",
    /// Tree-sitter definitions kept in SCIP-covered files because the index read them as
    /// references to an external symbol of the same name (see the merge's module doc).
    definitions_read_as_external => "quirk.definitions-read-as-external",
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_names_every_count_once_and_the_sum_adds_each() {
        let zero = MergeStats::default().counts();
        assert_eq!(zero.len(), 21, "a report key given twice");
        assert!(zero.values().all(|&v| v == 0));
        // Each count a different value: every key of the sum must be twice its own.
        let mut one = MergeStats {
            matched: 1,
            scip_only: 2,
            filled_visibility: 3,
            filled_signature: 4,
            filled_arity: 5,
            filled_kind: 6,
            filled_container: 7,
            filled_module: 8,
            filled_body_hash: 9,
            disagree_kind: 10,
            disagree_signature: 11,
            disagree_visibility: 12,
            disagree_container: 13,
            dropped_tree_sitter_symbols: 14,
            dropped_tree_sitter_occurrences: 15,
            dropped_tree_sitter_call_edges: 16,
            dropped_tree_sitter_relationships: 17,
            remapped_references: 18,
            unresolved_references: 19,
            kept_tree_sitter_symbols: 20,
            definitions_read_as_external: 21,
        };
        let single = one.counts();
        let mut values: Vec<i64> = single.values().copied().collect();
        values.sort_unstable();
        assert_eq!(values, (1..=21).collect::<Vec<i64>>());
        one.add(&one.clone());
        for (key, v) in &single {
            assert_eq!(one.counts()[key], 2 * v, "{key}");
        }
    }
}
