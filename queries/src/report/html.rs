//! The report as one self-contained HTML page: the template (`template.html`), stylesheet
//! (`page.css`) and script (`page.js`) are compiled in and inlined; the page's Content Security
//! Policy forbids every fetch, so it works offline and cannot reach the network.
//!
//! Sections, in order: the header (repository, snapshots, completeness of each stage of the
//! newest snapshot), summary cards (each a link to the table its number comes from), the
//! architecture (graph laid out as SVG, modules table, cycles), hotspots (scatter and table),
//! changes between the two newest snapshots (risk, breaking and compatible API changes, modules
//! affected and the impact graph), the trend across snapshots (one small chart per measure and the
//! table behind them), and the sources (which table each section reads, the command that answers
//! the same). Long tables page in the browser (25 rows at a time, with a filter); without
//! JavaScript every row shows. Every value from a snapshot is escaped.

use output_schema::json::format_float;

use super::charts::{self, thousands, LinePoint, ScatterPoint};
use super::facts::ReportFacts;
use crate::envelope::render::utc_day;
use crate::pictures::graph::{count, Edge, Graph, Node, NodeKind};
use crate::pictures::svg::{escape, to_svg};
use crate::pictures::{self, arch::SizeBy};

const TEMPLATE: &str = include_str!("template.html");
const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");

/// Fills `{{name}}` placeholders of the template in one pass: text put in is never scanned
/// again, so a value from a snapshot cannot fill another placeholder.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out =
        String::with_capacity(template.len() + values.iter().map(|v| v.1.len()).sum::<usize>());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find("}}") {
            Some(end) => {
                let name = &after[..end];
                match values.iter().find(|(k, _)| *k == name) {
                    Some((_, v)) => out.push_str(v),
                    None => out.push_str(&rest[start..start + 2 + end + 2]),
                }
                rest = &after[end + 2..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

fn short(id: &str) -> String {
    id.chars().take(12).collect()
}

fn opt(n: Option<i64>) -> String {
    n.map(thousands).unwrap_or_else(|| "—".into())
}

fn code(s: &str) -> String {
    format!("<code>{}</code>", escape(s))
}

/// A table with a caption naming its source; `rows` are `<tr>` strings.
fn table(id: &str, caption: &str, head: &[(&str, bool)], rows: &[String]) -> String {
    let mut t = format!(
        "<table class=\"data\" id=\"{id}\" data-page-size=\"25\"><caption>{caption}</caption><thead><tr>"
    );
    for (h, numeric) in head {
        t.push_str(&format!(
            "<th{}>{}</th>",
            if *numeric { " class=\"num\"" } else { "" },
            escape(h)
        ));
    }
    t.push_str("</tr></thead><tbody>\n");
    for r in rows {
        t.push_str(r);
        t.push('\n');
    }
    if rows.is_empty() {
        t.push_str(&format!(
            "<tr class=\"none\"><td colspan=\"{}\">none</td></tr>\n",
            head.len()
        ));
    }
    t.push_str("</tbody></table>");
    t
}

fn td(s: &str) -> String {
    format!("<td>{s}</td>")
}

fn num_cell(s: &str) -> String {
    format!("<td class=\"num\">{s}</td>")
}

fn num(n: i64) -> String {
    num_cell(&thousands(n))
}

/// Renders the page.
pub fn render(f: &ReportFacts) -> String {
    let mut body = header(f);
    body.push_str("<main>\n");
    body.push_str(&cards(f));
    body.push_str(&architecture(f));
    body.push_str(&hotspots(f));
    body.push_str(&changes(f));
    body.push_str(&trend(f));
    body.push_str(&sources(f));
    body.push_str("</main>\n");
    body.push_str(&format!(
        "<footer class=\"page\">Written by ckb {} from snapshot schema v{}. Facts only: no source text, comments or commit messages are stored in a snapshot or shown here.</footer>",
        escape(output_schema::CKB_VERSION),
        f.newest.manifest.schema_version
    ));
    let title = format!("ckb report · {}", f.repo_id);
    fill(
        TEMPLATE,
        &[
            ("version", &escape(output_schema::CKB_VERSION)),
            ("title", &escape(&title)),
            ("style", STYLE),
            ("body", &body),
            ("script", SCRIPT),
        ],
    )
}

fn header(f: &ReportFacts) -> String {
    let m = &f.newest.manifest;
    let newest = f.trend.last();
    let when = newest
        .and_then(|p| p.time)
        .map(|t| format!(", committed {}", utc_day(t)))
        .unwrap_or_default();
    let mut h = format!(
        "<header class=\"page\"><h1>ckb report · {}</h1><p>Newest snapshot {} (commit {}{when}) · privacy {} · written by ckb {}</p>",
        escape(&f.repo_id),
        code(&m.snapshot_id),
        code(&m.repo_state.head_commit.as_deref().map(short).unwrap_or_else(|| "none".into())),
        escape(&m.privacy),
        escape(&m.ckb_version)
    );
    if f.store {
        let oldest = f
            .trend
            .first()
            .map(|p| p.snapshot_id.as_str())
            .unwrap_or("");
        h.push_str(&format!(
            "<p><a href=\"#trend-table\">{} snapshot(s)</a> of this repository in the store, oldest {}.</p>",
            f.trend.len(),
            code(&short(oldest))
        ));
    } else {
        h.push_str("<p>One snapshot (pass <code>--store</code> for the trend across a store's snapshots).</p>");
    }
    let rows: Vec<String> = m
        .stages
        .iter()
        .map(|(name, r)| {
            let score = r
                .completeness
                .as_ref()
                .map(|c| {
                    format!(
                        "{} ({})",
                        format_float(c.score).unwrap_or_default(),
                        escape(&c.reason)
                    )
                })
                .unwrap_or_else(|| "—".into());
            format!(
                "<tr id=\"stage-{name}\">{}{}{}{}{}</tr>",
                td(&code(name)),
                td(&escape(
                    serde_json::to_value(r.status)
                        .ok()
                        .and_then(|v| v.as_str().map(String::from))
                        .as_deref()
                        .unwrap_or(""),
                )),
                td(&score),
                num(r.items),
                td(&escape(r.reason.as_deref().unwrap_or("")))
            )
        })
        .collect();
    h.push_str("<details><summary>Completeness of each stage of the newest snapshot</summary>");
    h.push_str(&table(
        "stages",
        "From the newest snapshot's manifest (<code>ckb query status</code> says the same).",
        &[
            ("stage", false),
            ("status", false),
            ("completeness", false),
            ("items", true),
            ("reason", false),
        ],
        &rows,
    ));
    h.push_str("</details></header>\n<nav class=\"toc\"><a href=\"#architecture\">Architecture</a><a href=\"#hotspots\">Hotspots</a><a href=\"#changes\">Changes</a><a href=\"#trend\">Trend</a><a href=\"#sources\">Sources</a></nav>\n");
    h
}

fn cards(f: &ReportFacts) -> String {
    let p = f.trend.last();
    let mut c = String::from("<div class=\"cards\" id=\"summary\">");
    let card = |href: &str, value: String, what: &str, class: &str| {
        format!(
            "<a class=\"card\" href=\"#{href}\"><div class=\"value {class}\">{value}</div><div class=\"what\">{what}</div></a>"
        )
    };
    let last = f.trend.len().saturating_sub(1);
    c.push_str(&card(
        &format!("trend-{last}"),
        opt(p.and_then(|p| p.files)),
        "files",
        "",
    ));
    c.push_str(&card(
        &format!("trend-{last}"),
        opt(p.and_then(|p| p.lines)),
        "lines",
        "",
    ));
    c.push_str(&card(
        &format!("trend-{last}"),
        opt(p.and_then(|p| p.symbols)),
        "symbols",
        "",
    ));
    c.push_str(&card(
        "modules",
        opt(p.and_then(|p| p.modules)),
        "modules",
        "",
    ));
    let cycles = f.arch.facts["cycles"].as_array().map(Vec::len).unwrap_or(0);
    c.push_str(&card(
        "cycles",
        thousands(cycles as i64),
        "dependency cycles",
        "",
    ));
    c.push_str(&card(
        "hotspot-table",
        match &f.hotspots {
            Some(_) => thousands(f.hotspots_total as i64),
            None => "—".into(),
        },
        "files changed in 90 days",
        "",
    ));
    match &f.diff {
        Ok(d) => c.push_str(&card(
            "risk-factors",
            format!(
                "{} {}",
                d.report.risk.level,
                (d.report.risk.score * 100.0).round() as i64
            ),
            "risk of the newest change",
            &format!("risk-{}", d.report.risk.level),
        )),
        Err(_) => c.push_str(&card("changes", "—".into(), "no earlier snapshot", "")),
    }
    c.push_str("</div>\n");
    c
}

/// The architecture graph: the modules the `arch` answer shows, plus one node for the modules
/// left out, with their edges to the shown ones added up.
fn architecture_graph(f: &ReportFacts) -> Graph {
    let mut g = pictures::arch::graph(&f.arch, SizeBy::Lines, "mermaid");
    let Some(view) = &f.view else {
        return g;
    };
    let shown: std::collections::BTreeSet<String> = g.nodes.iter().map(|n| n.key.clone()).collect();
    let hidden = usize::try_from(view.totals.modules)
        .unwrap_or(0)
        .saturating_sub(shown.len());
    if hidden == 0 {
        return g;
    }
    let others = g.nodes.len();
    g.nodes.push(Node {
        key: "others".into(),
        label: vec![
            format!("{} other modules", thousands(hidden as i64)),
            "the modules table lists them".into(),
        ],
        size: 2,
        kind: NodeKind::Others,
        in_cycle: false,
    });
    let mut out_of: std::collections::BTreeMap<usize, i64> = std::collections::BTreeMap::new();
    let mut into: std::collections::BTreeMap<usize, i64> = std::collections::BTreeMap::new();
    let index = |key: &str| g.nodes.iter().position(|n| n.key == key);
    for e in &view.edges {
        let weight = e.imports.max(0) + e.references.max(0);
        match (shown.contains(&e.from), shown.contains(&e.to)) {
            (true, false) => *out_of.entry(index(&e.from).unwrap_or(others)).or_default() += weight,
            (false, true) => *into.entry(index(&e.to).unwrap_or(others)).or_default() += weight,
            _ => {}
        }
    }
    for (from, w) in out_of {
        g.edges.push(Edge {
            from,
            to: others,
            label: w.to_string(),
            weight: 1,
            in_cycle: false,
            dashed: true,
        });
    }
    for (to, w) in into {
        g.edges.push(Edge {
            from: others,
            to,
            label: w.to_string(),
            weight: 1,
            in_cycle: false,
            dashed: true,
        });
    }
    g
}

fn architecture(f: &ReportFacts) -> String {
    let mut s =
        String::from("<section class=\"report\" id=\"architecture\"><h2>Architecture</h2>\n");
    let Some(view) = &f.view else {
        s.push_str(&format!(
            "<p class=\"note\">{} The other sections show what the snapshot has.</p></section>\n<section class=\"report\" id=\"modules\"></section><section class=\"report\" id=\"cycles\"></section>\n",
            escape(&f.arch.explanation)
        ));
        return s;
    };
    let g = architecture_graph(f);
    s.push_str(&format!(
        "<p class=\"source\">{} Laid out by the layout-rs crate; the same graph as text: {} or {}.</p>",
        escape(&f.arch.explanation),
        code("ckb query arch --format mermaid"),
        code("ckb query arch --format dot")
    ));
    s.push_str("<p class=\"legend\">Boxes are modules, larger for more lines; a double border marks an entry point<span class=\"swatch\" style=\"border-color:#d9480f;border-width:2px\"></span>red: on a dependency cycle<span class=\"swatch\" style=\"border-style:dashed\"></span>dashed: the modules not drawn. Arrows point to the module depended on, labelled imports + references. Click a module for its row.</p>");
    match to_svg(&g, "architecture graph") {
        Ok(svg) => s.push_str(&format!(
            "<div class=\"figure\">{}</div>",
            svg.replacen("<svg class=\"graph\"", "<svg class=\"graph\" id=\"architecture-graph\" data-rows=\"modules\"", 1)
        )),
        Err(e) => s.push_str(&format!("<p class=\"note\">The graph could not be laid out ({}); the table below has every module.</p>", escape(&e))),
    }
    for n in &g.notes {
        s.push_str(&format!("<p class=\"note\">{}</p>", escape(n)));
    }
    let all_cycles = crate::analysis::cycles::cycles(
        view.edges.iter().map(|e| (e.from.as_str(), e.to.as_str())),
    );
    let cycle_of = crate::analysis::cycles::cycle_of(&all_cycles);
    let rows = module_rows(
        "module",
        "modules",
        &view.modules,
        |m| &m.id,
        |m| {
            [
                num(m.rank),
                td(&code(&m.id)),
                td(&escape(&m.name)),
                num(m.files),
                num(m.lines),
                num(m.symbols),
                num(m.fan_in),
                num(m.fan_out),
                td(if m.is_entrypoint { "yes" } else { "" }),
                td(&cycle_of
                    .get(m.id.as_str())
                    .map(|c| format!("<a href=\"#cycle-{c}\">cycle {}</a>", c + 1))
                    .unwrap_or_default()),
            ]
            .concat()
        },
    );
    s.push_str("</section>\n<section class=\"report\" id=\"modules\"><h2>Modules</h2>");
    let hidden = view.truncated.modules.max(0);
    s.push_str(&table(
        "module-table",
        &format!(
            "From the architecture view of the newest snapshot (<code>views/architecture.json.zst</code>, built from the <code>modules</code> and <code>module_edges</code> tables): {} of {} modules, most important first{}. Fan-in and fan-out count internal edges.",
            thousands(view.modules.len() as i64),
            thousands(view.totals.modules),
            if hidden > 0 { "; the view keeps the most important" } else { "" }
        ),
        &[("rank", true), ("module", false), ("name", false), ("files", true), ("lines", true), ("symbols", true), ("fan-in", true), ("fan-out", true), ("entry point", false), ("cycle", false)],
        &rows,
    ));
    s.push_str("</section>\n");
    s.push_str(&cycles(f));
    s
}

/// One table row per item, `<tr id="<anchor>-<i>">` (the row's anchor) around the cells `cells`
/// writes for the `i`-th item.
fn numbered_rows<T>(anchor: &str, items: &[T], cells: impl Fn(usize, &T) -> String) -> Vec<String> {
    items
        .iter()
        .enumerate()
        .map(|(i, x)| format!("<tr id=\"{anchor}-{i}\">{}</tr>", cells(i, x)))
        .collect()
}

/// One table row per item of a module list, `<tr id="<anchor>-<i>" data-rows="<rows>"
/// data-module="<module>">` (the page's script filters rows by module) around `cells`.
fn module_rows<T>(
    anchor: &str,
    rows: &str,
    items: &[T],
    module: impl Fn(&T) -> &str,
    cells: impl Fn(&T) -> String,
) -> Vec<String> {
    items
        .iter()
        .enumerate()
        .map(|(i, x)| {
            format!(
                "<tr id=\"{anchor}-{i}\" data-rows=\"{rows}\" data-module=\"{}\">{}</tr>",
                escape(module(x)),
                cells(x)
            )
        })
        .collect()
}

fn cycles(f: &ReportFacts) -> String {
    let mut s = String::from("<section class=\"report\" id=\"cycles\"><h2>Dependency cycles</h2>");
    let all = f.view.as_ref().map(|v| {
        crate::analysis::cycles::cycles(v.edges.iter().map(|e| (e.from.as_str(), e.to.as_str())))
    });
    match all {
        Some(all) if !all.is_empty() => {
            let rows: Vec<String> = numbered_rows("cycle", &all, |i, c| {
                let members: Vec<String> = c.iter().map(|m| code(m)).collect();
                [num(i as i64 + 1), num(c.len() as i64), td(&members.join(" "))].concat()
            });
            s.push_str(&table(
                "cycle-table",
                "Modules that depend on each other in a circle (strongly connected components of the view's edges; the same as <code>cycles</code> in <code>ckb query arch</code>).",
                &[("cycle", true), ("modules", true), ("members", false)],
                &rows,
            ));
        }
        Some(_) => s.push_str("<p class=\"source\">No module depends on itself through others: the module graph has no cycle.</p>"),
        None => s.push_str("<p class=\"note\">No architecture view: cycles are not known.</p>"),
    }
    s.push_str("</section>\n");
    s
}

fn hotspots(f: &ReportFacts) -> String {
    let mut s =
        String::from("<section class=\"report\" id=\"hotspots\"><h2>Hotspots: churn × size</h2>");
    let Some(rows) = &f.hotspots else {
        let why = crate::snapshot::coverage::stage(&f.newest, "git")
            .and_then(|r| r.reason.clone())
            .unwrap_or_else(|| "not recorded".into());
        s.push_str(&format!(
            "<p class=\"note\">The newest snapshot has no churn table: the git stage did not run ({}). Snapshot a git checkout with the git stage for hotspots.</p></section>\n<span id=\"hotspot-table\"></span>",
            escape(&why)
        ));
        return s;
    };
    if rows.is_empty() {
        s.push_str("<p class=\"source\">No file changed in the 90 days before the newest snapshot's head commit.</p><span id=\"hotspot-table\"></span></section>\n");
        return s;
    }
    let points: Vec<ScatterPoint> = rows
        .iter()
        .enumerate()
        .map(|(i, h)| ScatterPoint {
            lines: h.lines,
            commits: h.churn.commits,
            path: h.churn.path.clone(),
            score: h.score,
            anchor: format!("hotspot-{i}"),
        })
        .collect();
    s.push_str("<p class=\"source\">Each point is a file changed in the 90 days before the newest snapshot's head commit; the hottest (score = commits × ln(1 + lines)) are orange and named. Click a point for its row.</p>");
    s.push_str(&format!(
        "<div class=\"figure\">{}</div>",
        charts::scatter(&points, 10)
    ));
    let table_rows: Vec<String> = numbered_rows("hotspot", rows, |i, h| {
        [
            num(i as i64 + 1),
            td(&code(&h.churn.path)),
            td(&code(&h.module)),
            num_cell(&format_float(h.score).unwrap_or_default()),
            num(h.churn.commits),
            num(h.lines),
            num(h.churn.additions),
            num(h.churn.deletions),
            num(h.churn.authors),
        ]
        .concat()
    });
    s.push_str(&table(
        "hotspot-table",
        &format!(
            "From the newest snapshot's <code>churn</code> (window 90d) and <code>files</code> tables, best first: {} of {} files{} (<code>ckb query hotspots --limit N</code> and <code>queries/sql/hotspots.sql</code> rank the same).",
            thousands(rows.len() as i64),
            thousands(f.hotspots_total as i64),
            if rows.len() < f.hotspots_total { ", the rest left out to keep the page small" } else { "" }
        ),
        &[("#", true), ("file", false), ("module", false), ("score", true), ("commits", true), ("lines", true), ("added", true), ("deleted", true), ("authors", true)],
        &table_rows,
    ));
    s.push_str("</section>\n");
    s
}

fn changes(f: &ReportFacts) -> String {
    let mut s = String::from("<section class=\"report\" id=\"changes\"><h2>Changes between the two newest snapshots</h2>");
    let d = match &f.diff {
        Ok(d) => d,
        Err(why) => {
            s.push_str(&format!("<p class=\"note\">No API changes or risk to show: {}.</p><span id=\"risk-factors\"></span></section>\n", escape(why)));
            return s;
        }
    };
    let r = &d.report;
    s.push_str(&format!(
        "<p class=\"source\">{} → {}: <b class=\"risk-{}\">risk {} ({}/100)</b>. {} The same facts as <code>ckb diff BASE HEAD</code>; completeness {} ({}).</p>",
        code(&short(&d.base)),
        code(&short(&d.head)),
        r.risk.level,
        r.risk.level,
        (r.risk.score * 100.0).round() as i64,
        escape(&crate::diff::summary(r)),
        format_float(r.completeness.score).unwrap_or_default(),
        escape(&r.completeness.reason)
    ));
    for w in &r.warnings {
        s.push_str(&format!("<p class=\"note\">{}</p>", escape(w)));
    }
    let factors: Vec<String> = r
        .risk
        .factors
        .iter()
        .map(|x| {
            format!(
                "<tr>{}{}{}{}{}</tr>",
                td(&code(&x.factor)),
                num_cell(&format_float(x.value).unwrap_or_default()),
                num_cell(
                    &x.weight
                        .and_then(format_float)
                        .unwrap_or_else(|| "×".into())
                ),
                num_cell(
                    &x.contribution
                        .map(|c| ((c * 100.0).round() as i64).to_string())
                        .unwrap_or_else(|| "—".into())
                ),
                td(&escape(&x.detail))
            )
        })
        .collect();
    s.push_str(&table(
        "risk-factors",
        "How the risk score was made (the risk model of <code>ckb diff</code> and <code>ckb query impact</code>): each factor's value (0–1), weight and points.",
        &[("factor", false), ("value", true), ("weight", true), ("points", true), ("why", false)],
        &factors,
    ));
    let api_rows = |changes: &[crate::diff::ApiChange]| -> Vec<String> {
        changes
            .iter()
            .map(|c| {
                format!(
                    "<tr>{}{}{}{}{}</tr>",
                    td(&escape(&c.severity.to_string())),
                    td(&escape(&c.kind.to_string())),
                    td(&format!(
                        "{} {}",
                        code(&c.symbol.qualified()),
                        code(&format!("{}:{}", c.symbol.path, c.symbol.line))
                    )),
                    td(&escape(&c.detail)),
                    num(c.callers as i64)
                )
            })
            .collect()
    };
    let head = [
        ("severity", false),
        ("change", false),
        ("symbol", false),
        ("details", false),
        ("dependents", true),
    ];
    s.push_str(&table(
        "api-breaking",
        &format!("Breaking changes of the public API ({}), from compareAPI over both snapshots' <code>symbols</code> and the head's <code>aliases</code>.", r.api.breaking.len()),
        &head,
        &api_rows(&r.api.breaking),
    ));
    s.push_str("<details><summary>Compatible API changes</summary>");
    s.push_str(&table(
        "api-compatible",
        &format!(
            "Non-breaking changes of the public API ({}).",
            r.api.non_breaking.len()
        ),
        &head,
        &api_rows(&r.api.non_breaking),
    ));
    s.push_str("</details>");
    if let Some(g) = pictures::impact::graph(&r.impact, "impact") {
        if let Ok(svg) = to_svg(&g, "impact graph") {
            s.push_str("<p class=\"legend\">Impact: orange modules hold changed symbols, blue ones their dependents; an arrow's label counts the dependents it leads to (to depth 3).</p>");
            s.push_str(&format!(
                "<div class=\"figure\">{}</div>",
                svg.replacen(
                    "<svg class=\"graph\"",
                    "<svg class=\"graph\" id=\"impact-graph\" data-rows=\"impact\"",
                    1
                )
            ));
        }
    }
    let module_rows = module_rows(
        "impact",
        "impact",
        &r.impact.modules,
        |m| &m.module_id,
        |m| {
            [
                td(&code(&m.module_id)),
                num(m.changed_symbols as i64),
                num(m.callers as i64),
            ]
            .concat()
        },
    );
    s.push_str(&table(
        "impact-modules",
        "Modules the change reaches, measured on the base snapshot's <code>call_edges</code> and <code>occurrences</code>.",
        &[("module", false), ("changed symbols", true), ("dependents", true)],
        &module_rows,
    ));
    s.push_str("</section>\n");
    s
}

fn trend(f: &ReportFacts) -> String {
    let mut s =
        String::from("<section class=\"report\" id=\"trend\"><h2>Trend across snapshots</h2>");
    if f.trend.len() < 2 {
        s.push_str(&format!(
            "<p class=\"note\">{}: no trend to draw. Snapshot more commits into one store (for example with <code>examples/github/ckb/snapshot-commits.sh</code>) and run <code>ckb report --store DIR</code>.</p>",
            if f.store { "The store holds one snapshot of this repository" } else { "This report covers one snapshot" }
        ));
    } else {
        let label = |i: usize| {
            let p = &f.trend[i];
            format!(
                "{}{}",
                short(&p.snapshot_id),
                p.time
                    .map(|t| format!(" ({})", utc_day(t)))
                    .unwrap_or_default()
            )
        };
        let series = |get: fn(&super::facts::TrendPoint) -> Option<i64>| -> Vec<LinePoint> {
            (0..f.trend.len())
                .map(|i| LinePoint {
                    value: get(&f.trend[i]),
                    label: label(i),
                    anchor: format!("trend-{i}"),
                })
                .collect()
        };
        s.push_str(&format!(
            "<p class=\"source\">{} snapshots, oldest left. Click a point for its row.</p><div class=\"charts\">",
            f.trend.len()
        ));
        s.push_str(&charts::line_chart("files", &series(|p| p.files)));
        s.push_str(&charts::line_chart("lines", &series(|p| p.lines)));
        s.push_str(&charts::line_chart("symbols", &series(|p| p.symbols)));
        s.push_str(&charts::line_chart("modules", &series(|p| p.modules)));
        s.push_str(&charts::line_chart(
            "files changed in 30 days",
            &series(|p| p.churn_files),
        ));
        s.push_str(&charts::line_chart(
            "lines changed in 30 days",
            &series(|p| p.churn_lines),
        ));
        s.push_str("</div>");
    }
    let rows: Vec<String> = numbered_rows("trend", &f.trend, |_, p| {
        [
            td(&code(&short(&p.snapshot_id))),
            td(&p.time.map(utc_day).unwrap_or_else(|| "—".into())),
            num_cell(&opt(p.files)),
            num_cell(&opt(p.lines)),
            num_cell(&opt(p.symbols)),
            num_cell(&opt(p.modules)),
            num_cell(&opt(p.churn_files)),
            num_cell(&opt(p.churn_lines)),
            td(&escape(p.head_commit.as_deref().unwrap_or(""))),
        ]
        .concat()
    });
    s.push_str(&table(
        "trend-table",
        "Per snapshot: row counts of <code>files</code>, <code>symbols</code> and <code>modules</code> from each manifest, lines summed over <code>files.line_count</code>, and the 30-day window of <code>churn</code> (<code>queries/sql/churn_trend.sql</code> counts the same).",
        &[("snapshot", false), ("committed", false), ("files", true), ("lines", true), ("symbols", true), ("modules", true), ("files changed 30d", true), ("lines changed 30d", true), ("head commit", false)],
        &rows,
    ));
    s.push_str("</section>\n");
    s
}

fn sources(f: &ReportFacts) -> String {
    let mut s = String::from("<section class=\"report\" id=\"sources\"><h2>Sources</h2><p class=\"source\">Every number above is read from the snapshots' Parquet tables, views and manifests; each table's caption names its source. The same answers from the command line:</p><ul>");
    for (cmd, what) in [
        (
            "ckb query arch --format mermaid",
            "the architecture graph as text",
        ),
        ("ckb query hotspots --limit 50", "hotspots"),
        (
            "ckb diff BASE HEAD",
            "the changes, as a pull-request comment",
        ),
        (
            "ckb query --store DIR canned churn_trend",
            "the trend, as SQL rows",
        ),
    ] {
        s.push_str(&format!("<li>{} — {}</li>", code(cmd), escape(what)));
    }
    s.push_str("</ul>");
    for n in &f.notes {
        s.push_str(&format!("<p class=\"note\">{}</p>", escape(n)));
    }
    let limits = f.limits;
    s.push_str(&format!(
        "<p class=\"source\">Bounds of this page: at most {} modules drawn (the rest as one node), {} hotspot rows. {}</p></section>\n",
        limits.graph_modules,
        limits.hotspots,
        escape(&count(f.trend.len() as i64, "snapshot", "snapshots"))
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_filled_once() {
        let out = fill("a {{x}} b {{y}} {{z}} {{", &[("x", "{{y}}"), ("y", "Y")]);
        assert_eq!(out, "a {{y}} b Y {{z}} {{");
    }
}
