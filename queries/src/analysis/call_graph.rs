//! The call graph of a snapshot (`call_edges`), for impact, understand, prepare-change,
//! affected-tests and `ckb diff` (which reads it from the base snapshot's rows): who calls a
//! symbol, directly and transitively, and what it calls.
//!
//! Walks go breadth first up to a depth, in either direction ([`Direction`]); a symbol reached at
//! depth `d` gets the best product of edge confidences over the shortest paths, times
//! [`DECAY`]^(d-1): a caller two hops away is less certain to be affected than a direct one, even
//! when every edge is certain (ties go to the smaller stable ID one hop closer). Results are
//! ordered by depth, then confidence (highest first), then stable ID. An edge back to a symbol on
//! the path that reached it (the start included, recursion too) closes a cycle: the walk does not
//! follow it and reports it ([`Cycle`]). [`walk`] is the same walk over any edge map
//! (`ckb query hierarchy` walks type relationships with it).

use std::collections::{BTreeMap, BTreeSet};

use output_schema::tables::CallEdgeRow;

use crate::envelope::respond::Ctx;
use crate::snapshot::read;
use crate::QueryError;

/// Confidence kept per extra hop.
pub const DECAY: f64 = 0.8;

/// One edge as the graph holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct Edge {
    /// The other end (caller for reverse edges, callee for forward ones).
    pub other: String,
    /// The callee's name at the call sites.
    pub name: String,
    /// Call sites.
    pub count: i64,
    /// Confidence of the edge.
    pub confidence: f64,
    /// Backend.
    pub source: String,
}

/// A callee that by-name resolution could not tie to a symbol.
#[derive(Clone, Debug, PartialEq)]
pub struct Unresolved {
    /// Name at the call sites.
    pub name: String,
    /// Call sites.
    pub count: i64,
}

/// The call graph, both directions.
#[derive(Clone, Debug, Default)]
pub struct CallGraph {
    callers: BTreeMap<String, Vec<Edge>>,
    callees: BTreeMap<String, Vec<Edge>>,
    unresolved: BTreeMap<String, Vec<Unresolved>>,
    /// Whether the `call_edges` table was written.
    pub present: bool,
}

/// A symbol reached from another.
#[derive(Clone, Debug, PartialEq)]
pub struct Reached {
    /// The symbol reached.
    pub id: String,
    /// Hops from the start (1 = direct).
    pub depth: usize,
    /// Confidence of the whole path (edge confidences times [`DECAY`] per extra hop).
    pub confidence: f64,
    /// The symbol one hop closer through which it was reached.
    pub via: String,
    /// Call sites on that hop.
    pub calls: i64,
    /// The last hop's edge: its confidence, backend and the callee's name.
    pub edge: Edge,
}

/// Which way a walk follows the call graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From a symbol to those that call it.
    Callers,
    /// From a symbol to those it calls.
    Callees,
}

/// An edge a walk did not follow because it leads back to a symbol on the path that reached it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cycle {
    /// Symbols on the cycle.
    pub length: usize,
    /// Where the edge starts (the deepest symbol of the path).
    pub from: String,
    /// The symbol on the path it leads back to (the start, or `from` itself for recursion).
    pub to: String,
}

/// What a walk found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Walk {
    /// Symbols reached, by depth, confidence (highest first), stable ID.
    pub reached: Vec<Reached>,
    /// Cycles cut, by length, then the ends' IDs.
    pub cycles: Vec<Cycle>,
    /// Symbols one hop beyond the depth (not explored).
    pub beyond: usize,
}

/// The cycle an edge from `node` to the already reached `other` closes, when `other` lies on the
/// path that reached `node` (`node` itself included); `best` holds each reached symbol's hop.
fn cycle_back(best: &BTreeMap<String, Reached>, node: &str, other: &str) -> Option<Cycle> {
    let mut at = node;
    let mut length = 1;
    loop {
        if at == other {
            return Some(Cycle {
                length,
                from: node.to_string(),
                to: other.to_string(),
            });
        }
        at = &best.get(at)?.via;
        length += 1;
    }
}

/// The breadth-first walk from `start` over `edges` (a symbol → its neighbours in the walk's
/// direction) up to `depth` hops; see the module doc.
pub fn walk(edges: &BTreeMap<String, Vec<Edge>>, start: &str, depth: usize) -> Walk {
    let out_of = |id: &str| edges.get(id).map(Vec::as_slice).unwrap_or(&[]);
    let mut best: BTreeMap<String, Reached> = BTreeMap::new();
    let mut seen: BTreeSet<String> = BTreeSet::from([start.to_string()]);
    let mut cycles: BTreeSet<Cycle> = BTreeSet::new();
    let mut frontier: Vec<(String, f64)> = vec![(start.to_string(), 1.0)];
    for d in 1..=depth {
        let mut level: BTreeMap<String, Reached> = BTreeMap::new();
        for (node, conf) in &frontier {
            for e in out_of(node) {
                if seen.contains(&e.other) {
                    cycles.extend(cycle_back(&best, node, &e.other));
                    continue;
                }
                let c = conf * e.confidence * if d > 1 { DECAY } else { 1.0 };
                let better = level
                    .get(&e.other)
                    .is_none_or(|r| c > r.confidence || (c == r.confidence && node < &r.via));
                if better {
                    level.insert(
                        e.other.clone(),
                        Reached {
                            id: e.other.clone(),
                            depth: d,
                            confidence: (c * 1_000_000.0).round() / 1_000_000.0,
                            via: node.clone(),
                            calls: e.count,
                            edge: e.clone(),
                        },
                    );
                }
            }
        }
        frontier = level
            .values()
            .map(|r| (r.id.clone(), r.confidence))
            .collect();
        for (k, r) in level {
            seen.insert(k.clone());
            best.insert(k, r);
        }
        if frontier.is_empty() {
            break;
        }
    }
    // Cycles closed by the last level's own edges, which the loop above did not look at.
    let mut beyond: BTreeSet<&str> = BTreeSet::new();
    for (node, _) in &frontier {
        for e in out_of(node) {
            if seen.contains(&e.other) {
                cycles.extend(cycle_back(&best, node, &e.other));
            } else {
                beyond.insert(e.other.as_str());
            }
        }
    }
    let mut reached: Vec<Reached> = best.into_values().collect();
    reached.sort_by(|a, b| {
        a.depth
            .cmp(&b.depth)
            .then(b.confidence.total_cmp(&a.confidence))
            .then(a.id.cmp(&b.id))
    });
    Walk {
        reached,
        cycles: cycles.into_iter().collect(),
        beyond: beyond.len(),
    }
}

impl CallGraph {
    /// Reads `call_edges` (only the columns it needs).
    pub fn load(ctx: &Ctx<'_>) -> Result<CallGraph, QueryError> {
        let Some(cols) = read::read_columns(
            ctx.snapshot,
            "call_edges",
            &[
                "caller_id",
                "callee_id",
                "callee_name",
                "count",
                "confidence",
                "source",
            ],
            None,
        )?
        else {
            return Ok(CallGraph::default());
        };
        let caller: Vec<String> = cols.get("caller_id")?;
        let callee: Vec<Option<String>> = cols.get("callee_id")?;
        let name: Vec<String> = cols.get("callee_name")?;
        let count: Vec<i64> = cols.get("count")?;
        let conf: Vec<f64> = cols.get("confidence")?;
        let source: Vec<String> = cols.get("source")?;
        let mut g = CallGraph {
            present: true,
            ..CallGraph::default()
        };
        for i in 0..caller.len() {
            g.add(
                &caller[i],
                callee[i].as_deref(),
                &name[i],
                count[i],
                conf[i],
                &source[i],
            );
        }
        Ok(g)
    }

    /// The graph of `call_edges` rows already read; `None` when the table was not written.
    pub fn from_rows(rows: Option<&[CallEdgeRow]>) -> CallGraph {
        let Some(rows) = rows else {
            return CallGraph::default();
        };
        let mut g = CallGraph {
            present: true,
            ..CallGraph::default()
        };
        for e in rows {
            g.add(
                &e.caller_id,
                e.callee_id.as_deref(),
                &e.callee_name,
                e.count,
                e.confidence,
                &e.source,
            );
        }
        g
    }

    fn add(
        &mut self,
        caller: &str,
        callee: Option<&str>,
        name: &str,
        count: i64,
        confidence: f64,
        source: &str,
    ) {
        let edge = |other: &str| Edge {
            other: other.to_string(),
            name: name.to_string(),
            count,
            confidence,
            source: source.to_string(),
        };
        match callee {
            Some(c) => {
                self.callers
                    .entry(c.to_string())
                    .or_default()
                    .push(edge(caller));
                self.callees
                    .entry(caller.to_string())
                    .or_default()
                    .push(edge(c));
            }
            None => self
                .unresolved
                .entry(caller.to_string())
                .or_default()
                .push(Unresolved {
                    name: name.to_string(),
                    count,
                }),
        }
    }

    /// Callers of a symbol other than itself, each with its call sites summed over its edges.
    pub fn caller_counts(&self, id: &str) -> BTreeMap<&str, i64> {
        let mut out: BTreeMap<&str, i64> = BTreeMap::new();
        for e in self.callers_of(id) {
            if e.other != id {
                // Saturating: the counts are a snapshot's data, which `ckb query` reads as is.
                let sum = out.entry(e.other.as_str()).or_default();
                *sum = sum.saturating_add(e.count);
            }
        }
        out
    }

    /// Direct callers of a symbol.
    pub fn callers_of(&self, id: &str) -> &[Edge] {
        self.callers.get(id).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Direct callees of a symbol.
    pub fn callees_of(&self, id: &str) -> &[Edge] {
        self.callees.get(id).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Calls from a symbol that were not resolved to a symbol.
    pub fn unresolved_of(&self, id: &str) -> &[Unresolved] {
        self.unresolved.get(id).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Callers up to `depth` hops away (the symbol itself excluded), and how many callers lie
    /// just beyond `depth` (not explored).
    pub fn callers_within(&self, id: &str, depth: usize) -> (Vec<Reached>, usize) {
        let w = self.walk(id, depth, Direction::Callers);
        (w.reached, w.beyond)
    }

    /// The walk from a symbol in one direction, up to `depth` hops.
    pub fn walk(&self, id: &str, depth: usize, direction: Direction) -> Walk {
        match direction {
            Direction::Callers => walk(&self.callers, id, depth),
            Direction::Callees => walk(&self.callees, id, depth),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(edges: &[(&str, &str, f64)]) -> CallGraph {
        let mut g = CallGraph {
            present: true,
            ..CallGraph::default()
        };
        for (caller, callee, c) in edges {
            g.callers.entry(callee.to_string()).or_default().push(Edge {
                other: caller.to_string(),
                name: callee.to_string(),
                count: 1,
                confidence: *c,
                source: "scip".into(),
            });
        }
        g
    }

    #[test]
    fn caller_counts_saturate() {
        // Two edges of one caller (from two call-edge rows of a snapshot) whose counts overflow.
        let mut g = graph(&[("b", "a", 1.0), ("b", "a", 1.0), ("a", "a", 1.0)]);
        for e in g.callers.get_mut("a").unwrap() {
            e.count = i64::MAX;
        }
        assert_eq!(g.caller_counts("a"), BTreeMap::from([("b", i64::MAX)]));
    }

    #[test]
    fn transitive_callers_decay_and_stop_at_depth() {
        // a <- b <- c <- d, and a <- c directly with low confidence.
        let g = graph(&[
            ("b", "a", 1.0),
            ("c", "b", 1.0),
            ("d", "c", 0.5),
            ("c", "a", 0.4),
        ]);
        let (r, beyond) = g.callers_within("a", 2);
        let got: Vec<(&str, usize, f64)> = r
            .iter()
            .map(|x| (x.id.as_str(), x.depth, x.confidence))
            .collect();
        assert_eq!(got, vec![("b", 1, 1.0), ("c", 1, 0.4), ("d", 2, 0.16)]);
        assert_eq!(beyond, 0);
        let (r, beyond) = g.callers_within("a", 1);
        assert_eq!(r.len(), 2);
        assert_eq!(beyond, 1);
        // Cycles end.
        let g = graph(&[("b", "a", 1.0), ("a", "b", 1.0)]);
        let (r, _) = g.callers_within("a", 5);
        assert_eq!(r.len(), 1);
    }

    fn cycles(w: &Walk) -> Vec<(&str, &str, usize)> {
        w.cycles
            .iter()
            .map(|c| (c.from.as_str(), c.to.as_str(), c.length))
            .collect()
    }

    #[test]
    fn walks_go_both_ways_and_cut_cycles_at_any_depth() {
        let mut g = CallGraph::default();
        // a -> b -> c -> a (a cycle of 3), c -> c (recursion), c -> d, and an unresolved call.
        for (from, to) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "c"), ("c", "d")] {
            g.add(from, Some(to), to, 1, 1.0, "scip");
        }
        g.add("a", None, "println", 2, 0.3, "tree-sitter");
        let w = g.walk("a", 3, Direction::Callees);
        let got: Vec<(&str, usize, &str)> = w
            .reached
            .iter()
            .map(|r| (r.id.as_str(), r.depth, r.via.as_str()))
            .collect();
        assert_eq!(got, vec![("b", 1, "a"), ("c", 2, "b"), ("d", 3, "c")]);
        assert_eq!(cycles(&w), vec![("c", "c", 1), ("c", "a", 3)]);
        assert_eq!(w.beyond, 0);
        // One level less: the cycles closed from the last level are still seen, d lies beyond.
        let w = g.walk("a", 2, Direction::Callees);
        assert_eq!(cycles(&w), vec![("c", "c", 1), ("c", "a", 3)]);
        assert_eq!(w.beyond, 1);
        // Backwards, from d: c, then b (and c's own recursion), then a.
        let w = g.walk("d", 3, Direction::Callers);
        let got: Vec<&str> = w.reached.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(got, vec!["c", "b", "a"]);
        assert_eq!(cycles(&w), vec![("c", "c", 1), ("a", "c", 3)]);
        assert_eq!(g.unresolved_of("a")[0].name, "println");
    }
}
