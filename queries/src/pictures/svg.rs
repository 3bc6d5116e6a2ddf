//! A [`Graph`] laid out and drawn as SVG for `ckb report`.
//!
//! The layout — ranks, crossing reduction, node placement, edge routing and edge-label placement —
//! is the `layout-rs` crate's (a Sugiyama-style layered layout in pure Rust, so a fresh machine
//! with only the Rust toolchain draws it; nothing is placed by hand here). This file gives the
//! library each node's box size, lets it place nodes and route edges, and writes what it draws
//! through its `RenderBackend` trait as SVG of its own: every module is one
//! `<g class="node" data-module="…">` (with a `<title>` and a link target), every edge one
//! `<path class="edge">` (red on a dependency cycle), so the page's script and tests can find
//! them. Text is escaped; coordinates are written with one decimal, so the same graph gives the
//! same bytes.
//!
//! The library asserts its own invariants; a panic inside it (a graph it cannot lay out) is
//! contained and becomes an error the report shows instead of the picture.

use layout::core::base::Orientation;
use layout::core::color::Color;
use layout::core::format::{ClipHandle, RenderBackend};
use layout::core::geometry::Point;
use layout::core::style::{LineStyleKind, StyleAttr};
use layout::std_shapes::shapes::{Arrow, Element, LineEndKind, ShapeKind};
use layout::topo::layout::VisualGraph;

use super::graph::{colour, escape_chars, font_px, Graph, NodeKind};

/// Escapes text for SVG/HTML content and attribute values.
pub fn escape(s: &str) -> String {
    escape_chars(s, |c| match c {
        '&' => Some("&amp;"),
        '<' => Some("&lt;"),
        '>' => Some("&gt;"),
        '"' => Some("&quot;"),
        '\'' => Some("&#39;"),
        '\n' => Some("\n"),
        _ => None,
    })
}

/// Font size of edge labels.
const LABEL_PX: f64 = 11.0;
/// Width of one character, as a share of the font size (a sans-serif average).
const CHAR_WIDTH: f64 = 0.62;
/// The font size the library sizes edge labels with (it counts a character as one font size
/// wide, so a smaller value gives boxes the width of the drawn text).
const LAYOUT_LABEL_FONT: usize = 7;

/// The box of a node: wide enough for its longest label line at its font size.
fn node_size(label: &[String], size: u8) -> (f64, f64) {
    let px = f64::from(font_px(size));
    let longest = label.iter().map(|l| l.chars().count()).max().unwrap_or(1) as f64;
    let width = (longest * px * CHAR_WIDTH + 24.0).max(60.0);
    let height = label.len().max(1) as f64 * px * 1.3 + 14.0;
    (width, height)
}

/// Lays `graph` out and writes it as an `<svg>` element; `Err` names why the layout failed.
pub fn to_svg(graph: &Graph, title: &str) -> Result<String, String> {
    if graph.nodes.is_empty() {
        return Err("nothing to draw".into());
    }
    output_schema::contain::decoding("the graph layout", || Ok(layout(graph, title)))
        .map_err(|e| e.to_string())
}

fn layout(graph: &Graph, title: &str) -> String {
    let mut vg = VisualGraph::new(Orientation::LeftToRight);
    let handles: Vec<_> = graph
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let (w, h) = node_size(&n.label, n.size);
            let element = Element::create_with_properties(
                ShapeKind::new_box(""),
                StyleAttr::simple(),
                Orientation::LeftToRight,
                Point::new(w, h),
                format!("n{i}"),
            );
            vg.add_node(element)
        })
        .collect();
    for (i, e) in graph.edges.iter().enumerate() {
        let line = if e.in_cycle {
            colour::CYCLE
        } else {
            colour::EDGE
        };
        let look = StyleAttr::new(
            Color::fast(line),
            usize::from(e.weight.clamp(1, 5)),
            None,
            0,
            LAYOUT_LABEL_FONT,
        );
        let style = if e.dashed {
            LineStyleKind::Dashed
        } else {
            LineStyleKind::Normal
        };
        let arrow = Arrow::with_properties(
            LineEndKind::None,
            LineEndKind::Arrow,
            style,
            &e.label,
            &look,
            format!("e{i}"),
            &None,
            &None,
        );
        vg.add_edge(arrow, handles[e.from], handles[e.to]);
    }
    let mut canvas = Canvas {
        graph,
        nodes: String::new(),
        edges: String::new(),
        labels: String::new(),
        low: (f64::MAX, f64::MAX),
        high: (f64::MIN, f64::MIN),
        skip_text: false,
    };
    vg.do_it(false, false, false, &mut canvas);
    canvas.finish(title)
}

/// Collects what the library draws.
struct Canvas<'g> {
    graph: &'g Graph,
    nodes: String,
    edges: String,
    labels: String,
    low: (f64, f64),
    high: (f64, f64),
    /// The library draws a box's text right after the box; the node group already holds it.
    skip_text: bool,
}

/// A coordinate with at most one decimal (`12`, `12.5`): short, and the same bytes every run.
pub fn coord(x: f64) -> String {
    let r = (x * 10.0).round() / 10.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

impl Canvas<'_> {
    fn grow(&mut self, p: Point) {
        self.low = (self.low.0.min(p.x), self.low.1.min(p.y));
        self.high = (self.high.0.max(p.x), self.high.1.max(p.y));
    }

    fn node(&mut self, index: usize, xy: Point, size: Point) {
        let Some(n) = self.graph.nodes.get(index) else {
            return;
        };
        self.grow(xy);
        self.grow(xy.add(size));
        let kind = match n.kind {
            NodeKind::Module => "module",
            NodeKind::Entry => "module entry",
            NodeKind::External => "external",
            NodeKind::Others => "others",
            NodeKind::Changed => "changed",
            NodeKind::Dependent => "dependent",
        };
        let cycle = if n.in_cycle { " cycle" } else { "" };
        let px = f64::from(font_px(n.size));
        let key = escape(&n.key);
        let mut g = format!(
            "<g class=\"node {kind}{cycle}\" data-module=\"{key}\" tabindex=\"0\"><title>{}</title>",
            escape(&n.label.join(" · "))
        );
        g.push_str(&format!(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"6\"/>",
            coord(xy.x),
            coord(xy.y),
            coord(size.x),
            coord(size.y)
        ));
        if n.kind == NodeKind::Entry {
            g.push_str(&format!(
                "<rect class=\"inner\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"4\"/>",
                coord(xy.x + 3.0),
                coord(xy.y + 3.0),
                coord(size.x - 6.0),
                coord(size.y - 6.0)
            ));
        }
        let lines = n.label.len().max(1) as f64;
        let centre_x = xy.x + size.x / 2.0;
        let first = xy.y + size.y / 2.0 - (lines - 1.0) * px * 0.65 + px * 0.35;
        g.push_str(&format!(
            "<text x=\"{}\" text-anchor=\"middle\" font-size=\"{}\">",
            coord(centre_x),
            coord(px)
        ));
        for (i, line) in n.label.iter().enumerate() {
            let class = if i == 0 { "name" } else { "facts" };
            g.push_str(&format!(
                "<tspan class=\"{class}\" x=\"{}\" y=\"{}\">{}</tspan>",
                coord(centre_x),
                coord(first + i as f64 * px * 1.3),
                escape(line)
            ));
        }
        g.push_str("</text></g>\n");
        self.nodes.push_str(&g);
    }
}

impl RenderBackend for Canvas<'_> {
    fn draw_rect(
        &mut self,
        xy: Point,
        size: Point,
        _look: &StyleAttr,
        properties: Option<String>,
        _clip: Option<ClipHandle>,
    ) {
        if let Some(index) = properties
            .as_deref()
            .and_then(|p| p.strip_prefix('n'))
            .and_then(|i| i.parse::<usize>().ok())
        {
            self.node(index, xy, size);
            self.skip_text = true;
        }
    }

    fn draw_line(&mut self, _: Point, _: Point, _: &StyleAttr, _: Option<String>) {}

    fn draw_circle(&mut self, _: Point, _: Point, _: &StyleAttr, _: Option<String>) {}

    fn draw_text(&mut self, xy: Point, text: &str, look: &StyleAttr) {
        if std::mem::take(&mut self.skip_text) || text.is_empty() {
            return;
        }
        self.grow(xy);
        let cycle = look.line_color.to_web_color() == Color::fast(colour::CYCLE).to_web_color();
        self.labels.push_str(&format!(
            "<text class=\"edge-label{}\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"{}\">{}</text>\n",
            if cycle { " cycle" } else { "" },
            coord(xy.x),
            coord(xy.y + LABEL_PX * 0.35),
            coord(LABEL_PX),
            escape(text)
        ));
    }

    fn draw_arrow(
        &mut self,
        path: &[(Point, Point)],
        dashed: bool,
        head: (bool, bool),
        look: &StyleAttr,
        properties: Option<String>,
        _text: &str,
    ) {
        if path.len() < 2 {
            return;
        }
        for (a, b) in path {
            self.grow(*a);
            self.grow(*b);
        }
        let mut d = format!(
            "M{} {} C{} {}, {} {}, {} {}",
            coord(path[0].0.x),
            coord(path[0].0.y),
            coord(path[0].1.x),
            coord(path[0].1.y),
            coord(path[1].0.x),
            coord(path[1].0.y),
            coord(path[1].1.x),
            coord(path[1].1.y)
        );
        for (a, b) in &path[2..] {
            d.push_str(&format!(
                " S{} {}, {} {}",
                coord(a.x),
                coord(a.y),
                coord(b.x),
                coord(b.y)
            ));
        }
        let index = properties
            .as_deref()
            .and_then(|p| p.strip_prefix('e'))
            .and_then(|i| i.parse::<usize>().ok());
        let edge = index.and_then(|i| self.graph.edges.get(i));
        let cycle = edge.is_some_and(|e| e.in_cycle);
        let ends = edge
            .map(|e| {
                format!(
                    " data-from=\"{}\" data-to=\"{}\"",
                    escape(&self.graph.nodes[e.from].key),
                    escape(&self.graph.nodes[e.to].key)
                )
            })
            .unwrap_or_default();
        let mut markers = String::new();
        if head.0 {
            markers.push_str(if cycle {
                " marker-start=\"url(#arrow-start-cycle)\""
            } else {
                " marker-start=\"url(#arrow-start)\""
            });
        }
        if head.1 {
            markers.push_str(if cycle {
                " marker-end=\"url(#arrow-end-cycle)\""
            } else {
                " marker-end=\"url(#arrow-end)\""
            });
        }
        self.edges.push_str(&format!(
            "<path class=\"edge{}{}\"{ends} d=\"{d}\" stroke-width=\"{}\"{markers}/>\n",
            if cycle { " cycle" } else { "" },
            if dashed { " dashed" } else { "" },
            look.line_width.clamp(1, 5),
        ));
    }

    fn create_clip(&mut self, _: Point, _: Point, _: usize) -> ClipHandle {
        0
    }
}

impl Canvas<'_> {
    fn finish(self, title: &str) -> String {
        let margin = 16.0;
        let (x, y) = (self.low.0 - margin, self.low.1 - margin);
        let (w, h) = (
            self.high.0 - self.low.0 + 2.0 * margin,
            self.high.1 - self.low.1 + 2.0 * margin,
        );
        let marker = |id: &str, colour: &str, start: bool| {
            let points = if start {
                "10 0, 10 7, 0 3.5"
            } else {
                "0 0, 10 3.5, 0 7"
            };
            let refx = if start { 0 } else { 10 };
            format!(
                "<marker id=\"{id}\" markerWidth=\"10\" markerHeight=\"7\" refX=\"{refx}\" refY=\"3.5\" orient=\"auto\" markerUnits=\"userSpaceOnUse\"><polygon points=\"{points}\" fill=\"{colour}\"/></marker>"
            )
        };
        format!(
            "<svg class=\"graph\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"{} {} {} {}\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"{}\"><defs>{}{}{}{}</defs>\n<g class=\"edges\">\n{}</g>\n<g class=\"edge-labels\">\n{}</g>\n<g class=\"nodes\">\n{}</g>\n</svg>",
            coord(x),
            coord(y),
            coord(w),
            coord(h),
            coord(w),
            coord(h),
            escape(title),
            marker("arrow-end", colour::EDGE, false),
            marker("arrow-start", colour::EDGE, true),
            marker("arrow-end-cycle", colour::CYCLE, false),
            marker("arrow-start-cycle", colour::CYCLE, true),
            self.edges,
            self.labels,
            self.nodes
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::graph::{Edge, Node};
    use super::*;

    fn graph(n: usize) -> Graph {
        let nodes = (0..n)
            .map(|i| Node {
                key: format!("m{i}<&>"),
                label: vec![format!("m{i}"), "3 files".into()],
                size: (i % 5 + 1) as u8,
                kind: if i == 0 {
                    NodeKind::Entry
                } else {
                    NodeKind::Module
                },
                in_cycle: i < 2,
            })
            .collect();
        let mut edges: Vec<Edge> = (1..n)
            .map(|i| Edge {
                from: i,
                to: (i * 7) % i.max(1),
                label: i.to_string(),
                weight: 2,
                in_cycle: false,
                dashed: i % 4 == 0,
            })
            .collect();
        edges.push(Edge {
            from: 0,
            to: 1,
            label: "9".into(),
            weight: 5,
            in_cycle: true,
            dashed: false,
        });
        edges.push(Edge {
            from: 1,
            to: 0,
            label: "3".into(),
            weight: 1,
            in_cycle: true,
            dashed: false,
        });
        Graph {
            nodes,
            edges,
            ..Graph::default()
        }
    }

    #[test]
    fn every_node_is_one_group_and_the_bytes_are_stable() {
        let g = graph(30);
        let svg = to_svg(&g, "t").unwrap();
        assert_eq!(svg.matches("<g class=\"node ").count(), 30);
        assert_eq!(svg.matches("<path class=\"edge").count(), g.edges.len());
        assert!(
            svg.contains("data-module=\"m3&lt;&amp;&gt;\""),
            "escaped keys"
        );
        assert!(svg.contains("class=\"edge cycle\""));
        assert!(!svg.contains("NaN") && !svg.contains("inf"));
        assert_eq!(svg, to_svg(&g, "t").unwrap(), "deterministic");
        assert!(to_svg(&Graph::default(), "t").is_err());
    }
}
