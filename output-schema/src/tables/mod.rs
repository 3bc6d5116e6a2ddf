//! Every table of the snapshot format (schema version 1), one module each.
//!
//! Conventions shared by all tables: paths are repo-relative with `/` separators and never absolute;
//! lines are 1-based; columns are 1-based and counted in UTF-8 bytes; times are Unix seconds (UTC);
//! hashes are lowercase hex; IDs of symbols are stable IDs (`ckb:<repo>:sym:<fingerprint>`, see
//! [`crate::ids`]) or, for symbols defined outside the repository, the backend's own symbol string.

mod aliases;
mod call_edges;
mod churn;
mod cochange;
mod commits;
mod file_changes;
mod files;
mod imports;
mod module_edges;
mod modules;
mod occurrences;
mod ownership;
mod relationships;
mod symbols;
mod tombstones;
mod usage;

pub use aliases::AliasRow;
pub use call_edges::CallEdgeRow;
pub use churn::ChurnRow;
pub use cochange::CochangeRow;
pub use commits::CommitRow;
pub use file_changes::FileChangeRow;
pub use files::{language_family, FileRow};
pub use imports::ImportRow;
pub use module_edges::ModuleEdgeRow;
pub use modules::ModuleRow;
pub use occurrences::OccurrenceRow;
pub use ownership::OwnershipRow;
pub use relationships::RelationshipRow;
pub use symbols::SymbolRow;
pub use tombstones::TombstoneRow;
pub use usage::UsageRow;

use crate::TableInfo;

/// Every table, in the order `ckb schema` lists them and the writer writes them.
pub static ALL_TABLES: &[&TableInfo] = &[
    &FileRow::INFO,
    &SymbolRow::INFO,
    &OccurrenceRow::INFO,
    &CallEdgeRow::INFO,
    &RelationshipRow::INFO,
    &ImportRow::INFO,
    &ModuleRow::INFO,
    &ModuleEdgeRow::INFO,
    &AliasRow::INFO,
    &TombstoneRow::INFO,
    &CommitRow::INFO,
    &FileChangeRow::INFO,
    &ChurnRow::INFO,
    &CochangeRow::INFO,
    &OwnershipRow::INFO,
    &UsageRow::INFO,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{sort_rows, to_record_batch};
    use crate::Table;

    #[test]
    fn table_names_are_unique_and_sort_keys_are_columns() {
        let mut names: Vec<_> = ALL_TABLES.iter().map(|t| t.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ALL_TABLES.len());
        for t in ALL_TABLES {
            for k in t.sort_key {
                assert!(
                    t.columns.iter().any(|c| c.name == *k),
                    "{}: sort key {k} is not a column",
                    t.name
                );
            }
            // Rows that share the unique key must be neighbours once sorted: the key is a
            // leading part of the order (sort key, then the other columns in order).
            let mut order: Vec<&str> = t.sort_key.to_vec();
            order.extend(
                t.columns
                    .iter()
                    .map(|c| c.name)
                    .filter(|c| !t.sort_key.contains(c)),
            );
            let mut unique = t.unique_key.to_vec();
            let mut leading = order[..unique.len().min(order.len())].to_vec();
            unique.sort_unstable();
            leading.sort_unstable();
            assert_eq!(
                unique, leading,
                "{}: unique key does not lead the order",
                t.name
            );
            assert_eq!((t.schema)().fields().len(), t.columns.len());
            for c in t.columns {
                assert!(
                    !c.doc.trim().is_empty(),
                    "{}.{} lacks a doc",
                    t.name,
                    c.name
                );
            }
        }
    }

    fn file(path: &str, hash: &str) -> FileRow {
        FileRow {
            path: path.into(),
            language: Some("rust".into()),
            size_bytes: 1,
            line_count: 1,
            content_hash: hash.into(),
            module_id: None,
            is_test: false,
            is_generated: false,
        }
    }

    #[test]
    fn rows_sort_by_key_then_all_columns() {
        let mut rows = vec![file("b.rs", "1"), file("a.rs", "2"), file("a.rs", "1")];
        sort_rows(&mut rows);
        let order: Vec<_> = rows
            .iter()
            .map(|r| (r.path.as_str(), r.content_hash.as_str()))
            .collect();
        assert_eq!(order, vec![("a.rs", "1"), ("a.rs", "2"), ("b.rs", "1")]);
    }

    #[test]
    fn record_batch_round_trips() {
        let mut rows = vec![file("z.rs", "9"), file("a.rs", "1")];
        let batch = to_record_batch(&mut rows);
        assert_eq!(FileRow::from_batch(&batch).unwrap(), rows);
        assert_eq!(rows[0].path, "a.rs");
    }

    #[test]
    fn occurrences_sort_by_path_line_col() {
        use crate::Roles;
        let occ = |path: &str, line: i32, col: i32| OccurrenceRow {
            symbol_id: Some("s".into()),
            name: "n".into(),
            path: path.into(),
            line,
            col,
            end_line: line,
            end_col: col + 1,
            roles: Roles::REFERENCE,
            enclosing_symbol_id: None,
            source: "scip".into(),
        };
        let mut rows = vec![
            occ("b", 1, 1),
            occ("a", 2, 1),
            occ("a", 1, 9),
            occ("a", 1, 2),
        ];
        sort_rows(&mut rows);
        let keys: Vec<_> = rows
            .iter()
            .map(|r| (r.path.clone(), r.line, r.col))
            .collect();
        assert_eq!(
            keys,
            vec![
                ("a".into(), 1, 2),
                ("a".into(), 1, 9),
                ("a".into(), 2, 1),
                ("b".into(), 1, 1)
            ]
        );
    }
}
