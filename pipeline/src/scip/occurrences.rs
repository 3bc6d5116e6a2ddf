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

    /// Every row, in the table's order (built in parallel).
    ///
    /// The records come a document at a time, in the index's order, and most indexers list a
    /// document's occurrences by position already. So the records are bucketed by path (the
    /// paths sorted once, not compared per row), and only a file whose rows are out of order is
    /// sorted: the rows reach the merge in order instead of being sorted all together after it.
    pub fn into_rows(self) -> Vec<OccurrenceRow> {
        self.into_rows_with_room(0)
    }

    /// [`ScipOccurrences::into_rows`], in a list with room for `room` more rows, so that rows
    /// merged in later (the kept tree-sitter rows) do not move these to a larger list. Room that
    /// is never written adds no resident memory: the kernel backs a page only once it is touched.
    pub fn into_rows_with_room(self, room: usize) -> Vec<OccurrenceRow> {
        let source = SharedStr::from(SOURCE);
        // Each path's rank among the distinct path strings (two indexes may name one file).
        let mut by_name: Vec<usize> = (0..self.paths.len()).collect();
        by_name.sort_unstable_by(|&a, &b| self.paths[a].cmp(&self.paths[b]).then(a.cmp(&b)));
        let mut rank = vec![0usize; self.paths.len()];
        let mut ranks = 0;
        for (i, &p) in by_name.iter().enumerate() {
            if i > 0 && self.paths[by_name[i - 1]] != self.paths[p] {
                ranks += 1;
            }
            rank[p] = ranks;
        }
        // Where each file's rows start: a counting sort of the records by rank.
        let mut starts = vec![0usize; self.paths.len() + 1];
        for r in &self.records {
            starts[rank[r.path as usize] + 1] += 1;
        }
        for k in 1..starts.len() {
            starts[k] += starts[k - 1];
        }
        let mut next = starts.clone();
        let mut order = vec![0usize; self.records.len()];
        for (i, r) in self.records.iter().enumerate() {
            let k = rank[r.path as usize];
            order[next[k]] = i;
            next[k] += 1;
        }
        let mut rows: Vec<OccurrenceRow> = Vec::with_capacity(order.len() + room);
        rows.par_extend(
            order
                .par_iter()
                .map(|&i| self.row(&self.records[i], &source)),
        );
        let mut files: Vec<&mut [OccurrenceRow]> = Vec::with_capacity(starts.len());
        let mut rest = rows.as_mut_slice();
        for w in starts.windows(2) {
            let (file, tail) = rest.split_at_mut(w[1] - w[0]);
            files.push(file);
            rest = tail;
        }
        files
            .into_par_iter()
            .for_each(output_schema::table::sort_rows);
        rows
    }

    /// Points every target whose ID `link` maps (the SCIP symbol string of a symbol that another
    /// index defines) at what it maps to, and returns how many occurrences now point at one. The
    /// targets are few beside the records: they are rewritten, the records only counted.
    pub fn link_targets(&mut self, link: impl Fn(&str) -> Option<SharedStr>) -> usize {
        let linked: Vec<bool> = (self.targets.iter_mut())
            .map(|t| match t.id.as_deref().and_then(&link) {
                Some(id) => {
                    t.id = Some(id);
                    true
                }
                None => false,
            })
            .collect();
        if !linked.contains(&true) {
            return 0;
        }
        (self.records.iter())
            .filter(|r| linked[r.target as usize])
            .count()
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
        let mut sorted = all.clone();
        output_schema::table::sort_rows(&mut sorted);
        assert_eq!(occ.into_rows(), sorted);
        assert!(ScipOccurrences::default().is_empty());
    }

    #[test]
    fn into_rows_gives_the_table_order() {
        // Documents out of path order, a file named by two indexes, rows out of position order
        // within a document, and two rows at one site that only later columns order.
        let first = vec![
            row("src/z.rs", 5, "A", None),
            row("src/z.rs", 2, "B", Some("A")),
            row("src/a.rs", 1, "C", None),
            row("src/m.rs", 3, "D", None),
            row("src/m.rs", 3, "C", None),
        ];
        let second = vec![
            row("src/b.rs", 7, "E", None),
            row("src/a.rs", 4, "F", Some("C")),
            row("src/a.rs", 2, "G", None),
        ];
        let mut occ = ScipOccurrences::from(first.clone());
        occ.append(ScipOccurrences::from(second.clone()));
        let mut expected: Vec<OccurrenceRow> = first.into_iter().chain(second).collect();
        expected.sort_by(output_schema::Table::compare);
        let rows = occ.into_rows();
        assert_eq!(rows, expected);
        let sites: Vec<String> = rows
            .iter()
            .map(|r| format!("{}:{}", r.path, r.line))
            .collect();
        let want = "src/a.rs:1 src/a.rs:2 src/a.rs:4 src/b.rs:7 src/m.rs:3 src/m.rs:3 src/z.rs:2 src/z.rs:5";
        assert_eq!(sites.join(" "), want);
        assert_eq!(rows[4].symbol_id.as_deref(), Some("C"));
        assert!(ScipOccurrences::default().into_rows().is_empty());
    }
}
