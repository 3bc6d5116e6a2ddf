//! The SCIP stage's occurrences in compact form: one fixed-size record per occurrence pointing into
//! tables of targets and paths that hold each string once.
//!
//! An index has millions of occurrences but only thousands of distinct targets and files. The row
//! form (`OccurrenceRow`: ten fields, five of them strings) costs some 100 bytes a row even with
//! its strings shared, against 32 here, and would dominate the stage's memory. The stage keeps this
//! form instead and rows are built only where a consumer needs them
//! ([`ScipOccurrences::into_rows`], at the merge with tree-sitter); their strings are clones of the
//! [`SharedStr`]s held here, so building them allocates nothing per row but the row.

use output_schema::tables::OccurrenceRow;
use output_schema::{Roles, SharedStr};
use rayon::prelude::*;
use std::collections::HashMap;

use super::mapping::Span;
use super::SOURCE;

/// "No enclosing definition" in [`Record::enclosing`].
pub const NO_TARGET: u32 = u32::MAX;

/// What an occurrence points at: its `symbol_id` and the `name` written with it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Target {
    /// Stable ID of a defined symbol, or the SCIP symbol string of an external one.
    pub id: Option<SharedStr>,
    /// The symbol's name.
    pub name: SharedStr,
}

/// One occurrence: indexes into the target and path tables, and its position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// Index into the targets.
    pub target: u32,
    /// Index into the targets of the innermost enclosing definition, or [`NO_TARGET`].
    pub enclosing: u32,
    /// Index into the paths.
    pub path: u32,
    /// Where.
    pub span: Span,
    /// `Roles` bits.
    pub roles: u16,
}

/// The occurrences of one or more SCIP indexes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScipOccurrences {
    targets: Vec<Target>,
    paths: Vec<SharedStr>,
    records: Vec<Record>,
}

impl ScipOccurrences {
    /// Builds the table from its parts. Every index in `records` must point into `targets` and
    /// `paths` (enclosing may be [`NO_TARGET`]).
    pub(crate) fn from_parts(
        targets: Vec<Target>,
        paths: Vec<SharedStr>,
        records: Vec<Record>,
    ) -> Self {
        debug_assert!(records.iter().all(|r| (r.target as usize) < targets.len()
            && (r.enclosing == NO_TARGET || (r.enclosing as usize) < targets.len())
            && (r.path as usize) < paths.len()));
        ScipOccurrences {
            targets,
            paths,
            records,
        }
    }

    /// Number of occurrences.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The row form of one record (`source` is shared by every row).
    fn row(&self, r: &Record, source: &SharedStr) -> OccurrenceRow {
        let target = &self.targets[r.target as usize];
        OccurrenceRow {
            symbol_id: target.id.clone(),
            name: target.name.clone(),
            path: self.paths[r.path as usize].clone(),
            line: r.span.line,
            col: r.span.col,
            end_line: r.span.end_line,
            end_col: r.span.end_col,
            roles: Roles(r.roles),
            enclosing_symbol_id: (r.enclosing != NO_TARGET)
                .then(|| self.targets[r.enclosing as usize].id.clone())
                .flatten(),
            source: source.clone(),
        }
    }

    /// The rows, in order, built one at a time.
    pub fn rows(&self) -> impl Iterator<Item = OccurrenceRow> + '_ {
        let source = SharedStr::from(SOURCE);
        self.records.iter().map(move |r| self.row(r, &source))
    }

    /// Every row, in order (built in parallel).
    pub fn into_rows(self) -> Vec<OccurrenceRow> {
        let source = SharedStr::from(SOURCE);
        self.records
            .par_iter()
            .map(|r| self.row(r, &source))
            .collect()
    }

    /// Appends the occurrences of another index after these.
    pub fn append(&mut self, other: ScipOccurrences) {
        if self.records.is_empty() && self.targets.is_empty() && self.paths.is_empty() {
            // The first (often the only) index: taken as it is, not copied record by record.
            *self = other;
            return;
        }
        let t = self.targets.len() as u32;
        let p = self.paths.len() as u32;
        self.targets.extend(other.targets);
        self.paths.extend(other.paths);
        self.records
            .extend(other.records.into_iter().map(|r| Record {
                target: r.target + t,
                enclosing: if r.enclosing == NO_TARGET {
                    NO_TARGET
                } else {
                    r.enclosing + t
                },
                path: r.path + p,
                ..r
            }));
    }
}

/// Rows built elsewhere (tests, fixtures): each distinct target, enclosing ID and path is stored
/// once. `source` is not kept: every row of this table is a SCIP row.
impl From<Vec<OccurrenceRow>> for ScipOccurrences {
    fn from(rows: Vec<OccurrenceRow>) -> Self {
        let mut targets: Vec<Target> = Vec::new();
        let mut target_ids: HashMap<Target, u32> = HashMap::new();
        let mut paths: Vec<SharedStr> = Vec::new();
        let mut path_ids: HashMap<SharedStr, u32> = HashMap::new();
        let mut intern = |t: Target| {
            *target_ids.entry(t.clone()).or_insert_with(|| {
                targets.push(t);
                (targets.len() - 1) as u32
            })
        };
        let mut records = Vec::with_capacity(rows.len());
        for row in rows {
            let target = intern(Target {
                id: row.symbol_id,
                name: row.name,
            });
            let enclosing = match row.enclosing_symbol_id {
                Some(id) => intern(Target {
                    id: Some(id),
                    name: SharedStr::default(),
                }),
                None => NO_TARGET,
            };
            let path = *path_ids.entry(row.path).or_insert_with_key(|p| {
                paths.push(p.clone());
                (paths.len() - 1) as u32
            });
            records.push(Record {
                target,
                enclosing,
                path,
                span: Span {
                    line: row.line,
                    col: row.col,
                    end_line: row.end_line,
                    end_col: row.end_col,
                },
                roles: row.roles.0,
            });
        }
        ScipOccurrences::from_parts(targets, paths, records)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(path: &str, line: i32, id: &str, enclosing: Option<&str>) -> OccurrenceRow {
        OccurrenceRow {
            symbol_id: Some(id.into()),
            name: format!("n{id}").into(),
            path: path.into(),
            line,
            col: 1,
            end_line: line,
            end_col: 4,
            roles: Roles::REFERENCE,
            enclosing_symbol_id: enclosing.map(SharedStr::from),
            source: SOURCE.into(),
        }
    }

    #[test]
    fn rows_round_trip_and_append_keeps_order() {
        let a = vec![
            row("a.rs", 1, "X", None),
            row("a.rs", 2, "Y", Some("X")),
            row("b.rs", 1, "X", Some("Y")),
        ];
        let b = vec![row("c.rs", 3, "Z", Some("X")), row("a.rs", 9, "X", None)];
        let mut occ = ScipOccurrences::default();
        occ.append(ScipOccurrences::from(a.clone()));
        assert_eq!(occ.len(), 3);
        assert_eq!(occ.rows().collect::<Vec<_>>(), a);
        occ.append(ScipOccurrences::from(b.clone()));
        let all: Vec<OccurrenceRow> = a.into_iter().chain(b).collect();
        assert_eq!(occ.rows().collect::<Vec<_>>(), all);
        assert_eq!(occ.into_rows(), all);
        assert!(ScipOccurrences::default().is_empty());
    }
}
