//! The impact graph of a diff: the modules a change touches and the modules its dependents live
//! in, with an arrow from each module of changed symbols to each module of their dependents
//! (labelled with how many dependents, to the impact's depth). Drawn as Mermaid in `ckb diff`'s
//! markdown and as SVG in `ckb report`.
//!
//! At most [`MAX_MODULES`] modules are drawn, in the impact's order (most changed symbols plus
//! dependents first); a note says how many were left out. Dependents inside the module of the
//! change count in the node's label, not as an arrow to itself.

use super::graph::{size_class, Edge, Graph, Node, NodeKind};
use crate::diff::Impact;

/// Modules drawn at most.
pub const MAX_MODULES: usize = 15;

/// The impact as a graph; `None` when the change stays within one module (or reaches none):
/// a single box says nothing the module list does not.
pub fn graph(impact: &Impact, title: &str) -> Option<Graph> {
    if impact.modules.len() < 2 {
        return None;
    }
    let shown = &impact.modules[..impact.modules.len().min(MAX_MODULES)];
    let max = shown
        .iter()
        .map(|m| (m.changed_symbols + m.callers) as i64)
        .max()
        .unwrap_or(0);
    let mut g = Graph {
        comments: vec![
            title.to_string(),
            "orange: modules the change touches · blue: modules of their dependents · arrow label: dependents reached (to depth 3)".into(),
        ],
        ..Graph::default()
    };
    for m in shown {
        g.nodes.push(Node {
            key: m.module_id.clone(),
            label: vec![
                m.module_id.clone(),
                format!(
                    "{} changed · {} dependent{}",
                    m.changed_symbols,
                    m.callers,
                    if m.callers == 1 { "" } else { "s" }
                ),
            ],
            size: size_class((m.changed_symbols + m.callers) as i64, max),
            kind: if m.changed_symbols > 0 {
                NodeKind::Changed
            } else {
                NodeKind::Dependent
            },
            in_cycle: false,
        });
    }
    let index = |key: &str| shown.iter().position(|m| m.module_id == key);
    let arrows: Vec<_> = impact
        .module_reach
        .iter()
        .filter(|r| r.from != r.to)
        .filter_map(|r| Some((index(&r.from)?, index(&r.to)?, r.dependents)))
        .collect();
    let max_arrow = arrows.iter().map(|a| a.2 as i64).max().unwrap_or(0);
    for (from, to, dependents) in arrows {
        g.edges.push(Edge {
            from,
            to,
            label: dependents.to_string(),
            weight: size_class(dependents as i64, max_arrow),
            in_cycle: false,
            dashed: false,
        });
    }
    if shown.len() < impact.modules.len() {
        g.notes.push(format!(
            "✂ {} of {} modules shown; the JSON (--format json) lists every one",
            shown.len(),
            impact.modules.len()
        ));
    }
    Some(g)
}
