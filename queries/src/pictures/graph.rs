//! A drawn graph of modules, independent of where it is drawn: [`Graph`] holds nodes (label
//! lines, a size class, a kind), edges (label, weight class, cycle, dashed) and visible notes,
//! and writes itself as Mermaid ([`Graph::to_mermaid`], what GitHub renders in a fenced
//! `mermaid` block) or Graphviz DOT ([`Graph::to_dot`], what `dot -Tsvg` renders); `svg.rs` lays
//! the same graph out as SVG.
//!
//! Text from a snapshot (module IDs, names) may hold anything a repository's authors chose, so
//! every label is escaped for its format: Mermaid labels are quoted with `"`, `#`, `<`, `>` and
//! `&` as Mermaid entity codes; DOT IDs and labels are quoted with `"` and `\` escaped. Node IDs
//! in Mermaid are generated (`n0`, `n1`, …), never taken from the data. Output is a pure
//! function of the graph: the same graph gives the same bytes.

/// What a node stands for; decides its shape and colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// A module of the repository.
    Module,
    /// A module with an entry point (`main`, a bin target, …).
    Entry,
    /// An external package.
    External,
    /// Modules left out, drawn as one node.
    Others,
    /// A module the change touches (impact graphs).
    Changed,
    /// A module where dependents of the change live (impact graphs).
    Dependent,
}

/// One node.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Stable key (the module ID, `external:<package>`, `others`): DOT's node ID.
    pub key: String,
    /// Label lines; the first is the name.
    pub label: Vec<String>,
    /// Size class 1..=5 (1 smallest).
    pub size: u8,
    /// What it is.
    pub kind: NodeKind,
    /// Whether it lies on a dependency cycle.
    pub in_cycle: bool,
}

/// One edge between two nodes (indexes into [`Graph::nodes`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Edge {
    /// Depending node.
    pub from: usize,
    /// Node depended on.
    pub to: usize,
    /// Label (a count).
    pub label: String,
    /// Weight class 1..=5 (line width).
    pub weight: u8,
    /// Whether it lies on a dependency cycle.
    pub in_cycle: bool,
    /// Drawn dashed (an external dependency).
    pub dashed: bool,
}

/// A graph ready to draw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Graph {
    /// Comment lines at the top (what the graph shows, from which snapshot).
    pub comments: Vec<String>,
    /// Nodes, in drawing order.
    pub nodes: Vec<Node>,
    /// Edges, in drawing order.
    pub edges: Vec<Edge>,
    /// Visible notes (what was left out and how to see it, what is missing).
    pub notes: Vec<String>,
}

/// Colours shared by every format (and the report's stylesheet).
pub mod colour {
    /// Fill of a module.
    pub const MODULE: &str = "#e7f0fd";
    /// Border of a module.
    pub const BORDER: &str = "#4a6fa5";
    /// Fill of an external package.
    pub const EXTERNAL: &str = "#f1f3f5";
    /// Fill of the node standing for modules left out.
    pub const OTHERS: &str = "#f8f9fa";
    /// Edges and nodes on a dependency cycle.
    pub const CYCLE: &str = "#d9480f";
    /// Ordinary edges.
    pub const EDGE: &str = "#7a869a";
    /// Fill of a module the change touches.
    pub const CHANGED: &str = "#ffe8cc";
    /// Fill of a module where dependents live.
    pub const DEPENDENT: &str = "#e7f5ff";
    /// Fill of a note.
    pub const NOTE: &str = "#fff9db";
    /// Border of a note.
    pub const NOTE_BORDER: &str = "#f08c00";
}

/// The size class (1..=5) of `value` against the largest value shown, on a log scale, so that
/// a module ten times larger is visibly larger without dwarfing the rest.
pub fn size_class(value: i64, max: i64) -> u8 {
    if value <= 0 || max <= 0 {
        return 1;
    }
    let ratio = (1.0 + value as f64).ln() / (1.0 + max as f64).ln();
    (1.0 + (ratio * 4.0).round()).clamp(1.0, 5.0) as u8
}

/// `1 file`, `3 files`; `12.3k lines`.
pub fn count(n: i64, one: &str, many: &str) -> String {
    let word = if n == 1 { one } else { many };
    if n >= 10_000 {
        format!("{:.1}k {word}", n as f64 / 1000.0)
    } else {
        format!("{n} {word}")
    }
}

/// A Mermaid label: quoted by the caller, so `"`, `|` (which ends an edge label) and what
/// Mermaid or GitHub's HTML would read become entity codes; line breaks become spaces.
pub fn mermaid_text(s: &str) -> String {
    escape_chars(s, |c| match c {
        '"' => Some("#quot;"),
        '#' => Some("#35;"),
        '<' => Some("#lt;"),
        '>' => Some("#gt;"),
        '&' => Some("#amp;"),
        '|' => Some("#124;"),
        '\n' | '\r' | '\t' => Some(" "),
        _ => None,
    })
}

/// A DOT quoted string's content: `"` and `\` escaped (a backslash would otherwise start one of
/// DOT's label escapes such as `\N`), line breaks become spaces.
pub fn dot_text(s: &str) -> String {
    escape_chars(s, |c| match c {
        '"' => Some("\\\""),
        '\\' => Some("\\\\"),
        '\n' | '\r' | '\t' => Some(" "),
        _ => None,
    })
}

/// `s` with every character `replace` maps replaced by its text, other control characters
/// dropped, and everything else kept: the one loop behind the Mermaid, DOT and SVG escapers.
pub fn escape_chars(s: &str, replace: impl Fn(char) -> Option<&'static str>) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match replace(c) {
            Some(text) => out.push_str(text),
            None if c.is_control() => {}
            None => out.push(c),
        }
    }
    out
}

/// Font size of a size class (Mermaid, SVG).
pub fn font_px(size: u8) -> u32 {
    11 + 2 * u32::from(size.clamp(1, 5))
}

impl Graph {
    /// The graph as a Mermaid flowchart (left to right), without the markdown fence.
    pub fn to_mermaid(&self) -> String {
        let mut out = String::new();
        for c in &self.comments {
            out.push_str(&format!("%% {}\n", c.replace(['\n', '\r'], " ")));
        }
        out.push_str("flowchart LR\n");
        for (i, n) in self.nodes.iter().enumerate() {
            let label = n
                .label
                .iter()
                .map(|l| mermaid_text(l))
                .collect::<Vec<_>>()
                .join("<br/>");
            let (open, close) = match n.kind {
                NodeKind::Entry => ("[[\"", "\"]]"),
                NodeKind::External => ("([\"", "\"])"),
                NodeKind::Others => ("[/\"", "\"/]"),
                _ => ("[\"", "\"]"),
            };
            out.push_str(&format!("  n{i}{open}{label}{close}\n"));
        }
        for (i, note) in self.notes.iter().enumerate() {
            out.push_str(&format!("  note{i}[\"{}\"]\n", mermaid_text(note)));
        }
        for e in &self.edges {
            let arrow = if e.dashed { "-.->" } else { "-->" };
            if e.label.is_empty() {
                out.push_str(&format!("  n{} {arrow} n{}\n", e.from, e.to));
            } else {
                out.push_str(&format!(
                    "  n{} {arrow}|\"{}\"| n{}\n",
                    e.from,
                    mermaid_text(&e.label),
                    e.to
                ));
            }
        }
        self.mermaid_styles(&mut out);
        out
    }

    fn mermaid_styles(&self, out: &mut String) {
        let mut classes: Vec<(String, String, Vec<String>)> = Vec::new();
        let mut add = |class: &str, style: String, member: String| match classes
            .iter_mut()
            .find(|(c, _, _)| c == class)
        {
            Some((_, _, members)) => members.push(member),
            None => classes.push((class.into(), style, vec![member])),
        };
        for (i, n) in self.nodes.iter().enumerate() {
            let id = format!("n{i}");
            let (class, fill, dash) = match n.kind {
                NodeKind::Module | NodeKind::Entry => ("module", colour::MODULE, ""),
                NodeKind::External => ("external", colour::EXTERNAL, ",stroke-dasharray:4 3"),
                NodeKind::Others => ("others", colour::OTHERS, ",stroke-dasharray:4 3"),
                NodeKind::Changed => ("changed", colour::CHANGED, ""),
                NodeKind::Dependent => ("dependent", colour::DEPENDENT, ""),
            };
            add(
                class,
                format!("fill:{fill},stroke:{}{dash}", colour::BORDER),
                id.clone(),
            );
            add(
                &format!("s{}", n.size),
                format!("font-size:{}px", font_px(n.size)),
                id.clone(),
            );
            if n.kind == NodeKind::Entry {
                add("entry", "stroke-width:3px".into(), id.clone());
            }
            if n.in_cycle {
                add(
                    "cycle",
                    format!("stroke:{},stroke-width:2px", colour::CYCLE),
                    id,
                );
            }
        }
        for i in 0..self.notes.len() {
            add(
                "note",
                format!(
                    "fill:{},stroke:{},stroke-dasharray:4 3",
                    colour::NOTE,
                    colour::NOTE_BORDER
                ),
                format!("note{i}"),
            );
        }
        for (class, style, _) in &classes {
            out.push_str(&format!("  classDef {class} {style}\n"));
        }
        for (class, _, members) in &classes {
            out.push_str(&format!("  class {} {class}\n", members.join(",")));
        }
        let mut links: Vec<(String, Vec<String>)> = Vec::new();
        for (i, e) in self.edges.iter().enumerate() {
            let colour = if e.in_cycle {
                colour::CYCLE
            } else {
                colour::EDGE
            };
            let style = format!("stroke:{colour},stroke-width:{}px", e.weight.clamp(1, 5));
            match links.iter_mut().find(|(s, _)| *s == style) {
                Some((_, members)) => members.push(i.to_string()),
                None => links.push((style, vec![i.to_string()])),
            }
        }
        for (style, members) in &links {
            out.push_str(&format!("  linkStyle {} {style}\n", members.join(",")));
        }
    }

    /// The graph as Graphviz DOT (left to right); notes form the graph's label.
    pub fn to_dot(&self) -> String {
        const FONT: &str = "Helvetica,Arial,sans-serif";
        let mut out = String::new();
        for c in &self.comments {
            out.push_str(&format!("// {}\n", c.replace(['\n', '\r'], " ")));
        }
        out.push_str("digraph ckb {\n");
        let mut graph = format!("rankdir=LR, fontname=\"{FONT}\", fontsize=11");
        if !self.notes.is_empty() {
            let notes: Vec<String> = self.notes.iter().map(|n| dot_text(n)).collect();
            graph.push_str(&format!(
                ", labelloc=b, labeljust=l, label=\"{}\\l\"",
                notes.join("\\l")
            ));
        }
        out.push_str(&format!("  graph [{graph}];\n"));
        out.push_str(&format!(
            "  node [shape=box, style=\"rounded,filled\", fillcolor=\"{}\", color=\"{}\", fontname=\"{FONT}\"];\n",
            colour::MODULE,
            colour::BORDER
        ));
        out.push_str(&format!(
            "  edge [color=\"{}\", fontname=\"{FONT}\", fontsize=10];\n",
            colour::EDGE
        ));
        for n in &self.nodes {
            let label: Vec<String> = n.label.iter().map(|l| dot_text(l)).collect();
            let mut attrs = vec![
                format!("label=\"{}\"", label.join("\\n")),
                format!("fontsize={}", 8 + 2 * u32::from(n.size.clamp(1, 5))),
            ];
            match n.kind {
                NodeKind::Module => {}
                NodeKind::Entry => attrs.push("peripheries=2".into()),
                NodeKind::External => {
                    attrs.push("shape=ellipse".into());
                    attrs.push("style=\"dashed,filled\"".into());
                    attrs.push(format!("fillcolor=\"{}\"", colour::EXTERNAL));
                }
                NodeKind::Others => {
                    attrs.push("shape=folder".into());
                    attrs.push("style=\"dashed,filled\"".into());
                    attrs.push(format!("fillcolor=\"{}\"", colour::OTHERS));
                }
                NodeKind::Changed => attrs.push(format!("fillcolor=\"{}\"", colour::CHANGED)),
                NodeKind::Dependent => attrs.push(format!("fillcolor=\"{}\"", colour::DEPENDENT)),
            }
            if n.in_cycle {
                attrs.push(format!("color=\"{}\"", colour::CYCLE));
                attrs.push("penwidth=2".into());
            }
            out.push_str(&format!(
                "  \"{}\" [{}];\n",
                dot_text(&n.key),
                attrs.join(", ")
            ));
        }
        for e in &self.edges {
            let mut attrs = Vec::new();
            if !e.label.is_empty() {
                attrs.push(format!("label=\"{}\"", dot_text(&e.label)));
            }
            attrs.push(format!("penwidth={}", e.weight.clamp(1, 5)));
            attrs.push(format!("weight={}", e.weight.clamp(1, 5)));
            if e.in_cycle {
                attrs.push(format!("color=\"{0}\", fontcolor=\"{0}\"", colour::CYCLE));
            }
            if e.dashed {
                attrs.push("style=dashed".into());
            }
            out.push_str(&format!(
                "  \"{}\" -> \"{}\" [{}];\n",
                dot_text(&self.nodes[e.from].key),
                dot_text(&self.nodes[e.to].key),
                attrs.join(", ")
            ));
        }
        out.push_str("}\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(key: &str, kind: NodeKind) -> Node {
        Node {
            key: key.into(),
            label: vec![key.into(), "3 files".into()],
            size: 2,
            kind,
            in_cycle: false,
        }
    }

    #[test]
    fn hostile_names_cannot_break_out_of_a_label() {
        let g = Graph {
            comments: vec!["line\nbreak".into()],
            nodes: vec![
                node("a\"]; click n0 call x(); %% <b>", NodeKind::Module),
                node("b\\N\"", NodeKind::Entry),
            ],
            edges: vec![Edge {
                from: 0,
                to: 1,
                label: "2|x".into(),
                weight: 9,
                in_cycle: true,
                dashed: false,
            }],
            notes: vec!["note \"quoted\"".into()],
        };
        let m = g.to_mermaid();
        assert!(m.starts_with("%% line break\nflowchart LR\n"), "{m}");
        assert!(m.contains("n0[\"a#quot;]; click n0 call x(); %% #lt;b#gt;<br/>3 files\"]"));
        assert!(m.contains("n0 -->|\"2#124;x\"| n1"), "{m}");
        assert!(
            m.contains("linkStyle 0 stroke:#d9480f,stroke-width:5px"),
            "{m}"
        );
        let d = g.to_dot();
        assert!(
            d.contains("\"b\\\\N\\\"\" [label=\"b\\\\N\\\"\\n3 files\""),
            "{d}"
        );
        assert!(d.contains("label=\"note \\\"quoted\\\"\\l\""), "{d}");
        assert!(d.ends_with("}\n"));
    }

    #[test]
    fn sizes_grow_with_the_value_on_a_log_scale() {
        assert_eq!(size_class(0, 1000), 1);
        assert_eq!(size_class(1000, 1000), 5);
        assert_eq!(size_class(30, 1000), 3);
        assert_eq!(size_class(5, 0), 1);
        assert_eq!(count(1, "file", "files"), "1 file");
        assert_eq!(count(12_345, "line", "lines"), "12.3k lines");
    }
}
