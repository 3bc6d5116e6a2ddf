//! `ckb query arch --format mermaid|dot`: the `arch` answer drawn as a graph.
//!
//! The graph is drawn from the finished answer (`commands::arch` through `respond::finish`), so
//! it shows exactly the modules, edges and external edges the JSON shows, within the same
//! budgets: modules are nodes sized by lines or symbols (`--size-by`, log scale, the label says
//! the numbers), entry points have a double border, edges are labelled and weighted by imports
//! plus references, edges and modules on a dependency cycle are red, external packages
//! (`--include-external`) are dashed. Every cut the answer made becomes a visible note naming what
//! was left out and the command that shows more; a snapshot without the architecture view gives a
//! graph whose one note says so.

use serde_json::Value;

use super::graph::{count, size_class, Edge, Graph, Node, NodeKind};
use crate::envelope::answer::Answer;
use crate::QueryError;
use output_schema::ErrorCode;

/// What sets a module's size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SizeBy {
    /// Lines in its files.
    #[default]
    Lines,
    /// Symbols defined in it.
    Symbols,
}

impl SizeBy {
    /// Parses `--size-by`; anything but `lines` or `symbols` is `INVALID_PARAMETER`.
    pub fn parse(value: Option<&str>) -> Result<SizeBy, QueryError> {
        match value {
            None | Some("lines") => Ok(SizeBy::Lines),
            Some("symbols") => Ok(SizeBy::Symbols),
            Some(other) => Err(QueryError::new(
                ErrorCode::InvalidParameter,
                format!("--size-by {other:?} is not lines or symbols"),
                "pass --size-by lines or --size-by symbols",
            )),
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            SizeBy::Lines => "lines",
            SizeBy::Symbols => "symbols",
        }
    }
}

fn int(v: &Value, key: &str) -> i64 {
    v.get(key).and_then(Value::as_i64).unwrap_or(0)
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn list<'a>(facts: &'a Value, key: &str) -> &'a [Value] {
    facts
        .get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// The answer of `arch` as a graph; `format` (`mermaid`, `dot`) goes into the commands the notes
/// suggest.
pub fn graph(answer: &Answer, size_by: SizeBy, format: &str) -> Graph {
    let facts = &answer.facts;
    let p = &answer.provenance;
    let mut g = Graph {
        comments: vec![
            format!(
                "ckb query arch · {} · snapshot {} · completeness {} ({})",
                p.repo_id,
                p.snapshot_id,
                output_schema::json::format_float(p.completeness.score).unwrap_or_default(),
                p.completeness.reason
            ),
            format!(
                "modules sized by {} (log scale) · double border: entry point · edge label: imports + references · red: dependency cycle",
                size_by.as_str()
            ),
        ],
        ..Graph::default()
    };
    let modules = list(facts, "modules");
    let size_of = |m: &Value| match size_by {
        SizeBy::Lines => int(m, "lines"),
        SizeBy::Symbols => int(m, "symbols"),
    };
    let max = modules.iter().map(size_of).max().unwrap_or(0);
    let in_cycle: std::collections::BTreeSet<&str> = list(facts, "cycles")
        .iter()
        .flat_map(|c| c.as_array().into_iter().flatten())
        .filter_map(Value::as_str)
        .collect();
    for m in modules {
        let id = text(m, "id");
        let size = match size_by {
            SizeBy::Lines => count(int(m, "lines"), "line", "lines"),
            SizeBy::Symbols => count(int(m, "symbols"), "symbol", "symbols"),
        };
        g.nodes.push(Node {
            key: id.to_string(),
            label: vec![
                if id == "." {
                    ". (repository root)".to_string()
                } else {
                    id.to_string()
                },
                format!("{size} · {}", count(int(m, "files"), "file", "files")),
            ],
            size: size_class(size_of(m), max),
            kind: if m.get("isEntrypoint").and_then(Value::as_bool) == Some(true) {
                NodeKind::Entry
            } else {
                NodeKind::Module
            },
            in_cycle: in_cycle.contains(id),
        });
    }
    let weight = |e: &Value| int(e, "imports") + int(e, "references");
    let internal = list(facts, "edges");
    let external = list(facts, "externalEdges");
    let max_weight = internal
        .iter()
        .chain(external)
        .map(weight)
        .max()
        .unwrap_or(0);
    let index = |g: &Graph, key: &str| g.nodes.iter().position(|n| n.key == key);
    for e in internal {
        let (Some(from), Some(to)) = (index(&g, text(e, "from")), index(&g, text(e, "to"))) else {
            continue;
        };
        g.edges.push(Edge {
            from,
            to,
            label: weight(e).to_string(),
            weight: size_class(weight(e), max_weight),
            in_cycle: e.get("inCycle").and_then(Value::as_bool) == Some(true),
            dashed: false,
        });
    }
    for e in external {
        let Some(from) = index(&g, text(e, "from")) else {
            continue;
        };
        let key = text(e, "to");
        let to = index(&g, key).unwrap_or_else(|| {
            g.nodes.push(Node {
                key: key.to_string(),
                label: vec![key.strip_prefix("external:").unwrap_or(key).to_string()],
                size: 1,
                kind: NodeKind::External,
                in_cycle: false,
            });
            g.nodes.len() - 1
        });
        g.edges.push(Edge {
            from,
            to,
            label: weight(e).to_string(),
            weight: size_class(weight(e), max_weight),
            in_cycle: false,
            dashed: true,
        });
    }
    g.notes = notes(answer, format);
    g
}

/// One note per cut (what, how many, the command that shows more), per view warning, and for a
/// snapshot without the architecture view.
fn notes(answer: &Answer, format: &str) -> Vec<String> {
    let mut notes = Vec::new();
    if answer.facts.get("viewPresent").and_then(Value::as_bool) != Some(true) {
        notes.push(answer.explanation.clone());
        for d in &answer.drilldowns {
            notes.push(format!("{}: {}", d.reason, d.command));
        }
        return notes;
    }
    for t in &answer.provenance.truncations {
        let mut note = format!(
            "✂ {} of {} {} shown ({})",
            t.shown, t.total, t.what, t.budget
        );
        let raise = answer.drilldowns.iter().find(|d| {
            d.reason
                .ends_with(&format!("more {} not shown ({})", t.what, t.budget))
                || (t.budget == "max-tokens" && d.command.contains("--max-tokens"))
        });
        if let Some(d) = raise {
            note.push_str(&format!(" · more: {} --format {format}", d.command));
        }
        notes.push(note);
    }
    for w in &answer.provenance.warnings {
        notes.push(format!("⚠ {w}"));
    }
    notes
}
