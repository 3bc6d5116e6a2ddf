//! The diff as a pull-request comment that always fits a character budget.
//!
//! Layout: the [`MARKER`](super::MARKER) line (bots find their earlier comment by it), a title,
//! the risk line, change counts and warnings (the header, always shown), then sections in order
//! of importance — breaking API changes and call sites that may break open, then the impact
//! graph (a Mermaid block, `pictures::impact`; [`Options::graph`] false leaves it out),
//! everything else in collapsed `<details>` — and a footer with completeness and the command for
//! the full facts.
//!
//! Budget: characters are Unicode scalar values (what GitHub's 65536-character comment limit
//! counts). When everything fits, everything is shown. Otherwise sections are filled in order,
//! item by item; a section that is cut ends with "… N more", a section with no room for even one
//! item is left out, and a truncation note under the header says how many items are shown. The
//! graph is one item, shown whole or left out, and left out whenever a must-read section was
//! cut, so it never takes room the breaking changes and call sites need. When
//! the budget cannot hold the header, footer and note, rendering fails with `BUDGET_EXCEEDED`
//! naming the minimum.

use output_schema::json::format_float;
use output_schema::ErrorCode;

use super::api::ApiChangeKind;
use super::compare::{CallChange, Sym};
use super::{DiffReport, MARKER};
use crate::analysis::risk::RiskLevel;
use crate::QueryError;

/// Longest declaration shown inline; longer ones are cut with `…` (the JSON has them whole).
const MAX_SIGNATURE_CHARS: usize = 100;

struct Section {
    title: String,
    /// Open, and filled before anything else: breaking API changes and call sites that may break.
    open: bool,
    /// The impact graph: shown whole or not at all, and only when every must-read section is.
    graph: bool,
    /// Table header lines (empty for a bullet list).
    table: String,
    items: Vec<String>,
}

impl Section {
    /// A closed section titled `<name> (<count>)` listing one bullet per element of `list`.
    fn of<T>(name: &str, list: &[T], item: impl Fn(&T) -> String) -> Section {
        Section::list(
            format!("{name} ({})", list.len()),
            list.iter().map(item).collect(),
        )
    }

    /// A closed section listing `items` as bullets (no table header, no graph).
    fn list(title: String, items: Vec<String>) -> Section {
        Section {
            title,
            open: false,
            graph: false,
            table: String::new(),
            items,
        }
    }
}

fn chars(s: &str) -> usize {
    s.chars().count()
}

/// Inline code that survives backticks in the text.
fn code(s: &str) -> String {
    let s = s.replace(['\n', '\r'], " ");
    if s.contains('`') {
        format!("`` {s} ``")
    } else {
        format!("`{s}`")
    }
}

/// Escapes what would end a table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

fn short_sig(s: &str) -> String {
    let s = s.replace(['\n', '\r'], " ");
    if chars(&s) > MAX_SIGNATURE_CHARS {
        s.chars().take(MAX_SIGNATURE_CHARS - 1).collect::<String>() + "…"
    } else {
        s
    }
}

fn at(s: &Sym) -> String {
    code(&format!("{}:{}", s.path, s.line))
}

/// `- <symbol> at <place>: <before> → <after>`, the line of a symbol whose declaration changed.
fn changed(s: &Sym, before: &str, after: &str) -> String {
    format!(
        "- {} at {}: {before} → {after}",
        code(&s.qualified()),
        at(s)
    )
}

fn pct(f: f64) -> String {
    format!("{}%", (f * 100.0).round() as i64)
}

fn risk_icon(level: RiskLevel) -> &'static str {
    match level {
        RiskLevel::High => "🔴",
        RiskLevel::Medium => "🟠",
        RiskLevel::Low => "🟢",
    }
}

/// A 0..=1 score or contribution as points out of 100, as the comment prints them.
fn points(x: f64) -> u64 {
    (x * 100.0).round() as u64
}

fn header(r: &DiffReport) -> String {
    let mut h = format!(
        "{MARKER}\n### ckb diff · {} · {} → {}\n\n",
        code(&r.head.repo_id),
        code(&r.base.short()),
        code(&r.head.short())
    );
    let f = &r.files;
    let s = &r.symbols;
    if f.count() == 0 && s.count() == 0 {
        h.push_str(&format!(
            "{} **Risk: {}** (score {}/100) · no changes between the snapshots\n",
            risk_icon(r.risk.level),
            r.risk.level,
            points(r.risk.score)
        ));
    } else {
        h.push_str(&format!(
            "{} **Risk: {}** (score {}/100) · **{} breaking** API change{} · {} dependent{} in {} module{} · {} test file{} affected\n\n",
            risk_icon(r.risk.level),
            r.risk.level,
            points(r.risk.score),
            r.api.breaking.len(),
            if r.api.breaking.len() == 1 { "" } else { "s" },
            r.impact.callers,
            if r.impact.callers == 1 { "" } else { "s" },
            r.impact.modules.len(),
            if r.impact.modules.len() == 1 { "" } else { "s" },
            r.impact.tests.len(),
            if r.impact.tests.len() == 1 { "" } else { "s" },
        ));
        h.push_str(&format!(
            "Files: {} added · {} removed · {} modified · {} renamed — Symbols: {} added · {} removed · {} renamed/moved · {} signature · {} body · {} visibility\n",
            f.added.len(),
            f.removed.len(),
            f.modified.len(),
            f.renamed.len(),
            s.added.len(),
            s.removed.len(),
            s.renamed.len(),
            s.signature_changed.len(),
            s.body_changed.len(),
            s.visibility_changed.len(),
        ));
    }
    if !r.warnings.is_empty() {
        h.push('\n');
        for w in &r.warnings {
            h.push_str(&format!("> ⚠️ {w}\n"));
        }
    }
    h
}

fn footer(r: &DiffReport) -> String {
    format!(
        "\n<sub>ckb {} · completeness {} ({}) · base {} · head {} · full facts: <code>ckb diff BASE HEAD --format json</code></sub>\n",
        r.head.ckb_version,
        format_float(r.completeness.score).unwrap_or_default(),
        r.completeness.reason,
        code(&r.base.snapshot_id),
        code(&r.head.snapshot_id),
    )
}

fn note(shown: usize, total: usize, sections_left_out: usize, max_chars: usize) -> String {
    format!(
        "\n> ✂️ **Truncated** to fit {max_chars} characters: {shown} of {total} items shown, {sections_left_out} section(s) left out. The JSON (`--format json`) has everything.\n"
    )
}

fn more(n: usize) -> String {
    format!("\n_… {n} more not shown_\n")
}

fn open_of(s: &Section) -> String {
    format!(
        "\n<details{}><summary><b>{}</b></summary>\n\n{}",
        if s.open || s.graph { " open" } else { "" },
        s.title,
        s.table
    )
}

/// Call edges, calls into the repository's own symbols first; a by-name call that resolves to no
/// symbol is marked (an external, or a call the change broke).
fn call_items(calls: &[CallChange]) -> Vec<String> {
    let mut sorted: Vec<&CallChange> = calls.iter().collect();
    sorted.sort_by_key(|c| (c.callee.path.is_none(), *c));
    sorted
        .into_iter()
        .map(|c| {
            format!(
                "- {}{} → {}{}\n",
                code(&c.caller.name),
                c.caller
                    .path
                    .as_deref()
                    .map(|p| format!(" in {}", code(p)))
                    .unwrap_or_default(),
                code(&c.callee.name),
                if c.callee.id.is_none() {
                    " (resolves to no symbol in the repository)"
                } else {
                    ""
                }
            )
        })
        .collect()
}

const CLOSE: &str = "\n</details>\n";

/// What the markdown holds and how long it may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Most characters (Unicode scalar values).
    pub max_chars: usize,
    /// Whether to draw the impact graph (`--no-graph` leaves it out).
    pub graph: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_chars: super::DEFAULT_MAX_CHARS,
            graph: true,
        }
    }
}

/// The sections in print order, empty ones left out.
fn sections(r: &DiffReport, graph: bool) -> Vec<Section> {
    let mut out = Vec::new();
    review_sections(r, &mut out);
    if graph {
        out.extend(graph_section(r));
    }
    risk_section(r, &mut out);
    impact_sections(r, &mut out);
    symbol_sections(r, &mut out);
    file_sections(r, &mut out);
    out.retain(|s| !s.items.is_empty());
    out
}

/// What a reviewer needs first: breaking API changes, call sites that may break, risk factors.
fn review_sections(r: &DiffReport, out: &mut Vec<Section>) {
    let api = &r.api;
    out.push(Section {
        graph: false,
        title: format!("Breaking API changes ({})", api.breaking.len()),
        open: true,
        table: "| Severity | Change | Symbol | Details | Dependents |\n|---|---|---|---|---|\n"
            .into(),
        items: api
            .breaking
            .iter()
            .map(|c| {
                let mut detail = c.detail.clone();
                if c.kind == ApiChangeKind::SignatureChanged {
                    if let (Some(b), Some(a)) = (&c.before, &c.after) {
                        detail.push_str(&format!(
                            ": {} → {}",
                            code(&short_sig(b)),
                            code(&short_sig(a))
                        ));
                    }
                }
                format!(
                    "| {} | {} | {} {} | {} | {} |\n",
                    c.severity,
                    c.kind,
                    cell(&code(&c.symbol.qualified())),
                    cell(&at(&c.symbol)),
                    cell(&detail),
                    c.callers
                )
            })
            .collect(),
    });

    let mut may_break = Vec::new();
    for c in r.impact.changed.iter().filter(|c| c.interface) {
        for caller in c.callers.iter().filter(|x| !x.touched) {
            may_break.push(format!(
                "- {} in {} uses {} ({}), {} site{}\n",
                code(&caller.name),
                code(&caller.path),
                code(&c.symbol.qualified()),
                c.change,
                caller.count,
                if caller.count == 1 { "" } else { "s" }
            ));
        }
    }
    out.push(Section {
        graph: false,
        title: format!(
            "Call sites that may break, in files this change does not touch ({})",
            may_break.len()
        ),
        open: true,
        table: String::new(),
        items: may_break,
    });
}

/// The impact graph as a Mermaid block GitHub draws, with a line saying how to read it.
fn graph_section(r: &DiffReport) -> Option<Section> {
    let g = crate::pictures::impact::graph(
        &r.impact,
        &format!(
            "ckb diff impact · {} · {} → {}",
            r.head.repo_id,
            r.base.short(),
            r.head.short()
        ),
    )?;
    Some(Section {
        title: format!("Impact graph ({} module(s))", r.impact.modules.len()),
        open: false,
        graph: true,
        table: String::new(),
        items: vec![format!(
            "```mermaid\n{}```\n\n_Orange: modules the change touches; blue: modules where their dependents live. An arrow's label counts the dependents it leads to (callers and referencing definitions, to depth 3)._\n",
            g.to_mermaid()
        )],
    })
}

/// How the risk score was made.
fn risk_section(r: &DiffReport, out: &mut Vec<Section>) {
    out.push(Section::list(
        format!("Risk factors: {} ({})", r.risk.level, points(r.risk.score)),
        r.risk
            .factors
            .iter()
            .filter(|f| f.contribution.is_some_and(|c| c > 0.0))
            .map(|f| {
                let p = points(f.contribution.unwrap_or(0.0));
                format!("- **{}** +{p}: {}\n", f.factor, f.detail)
            })
            .collect(),
    ));
}

/// Who the change affects: each changed symbol's impact, the affected tests and modules, and the
/// new calls.
fn impact_sections(r: &DiffReport, out: &mut Vec<Section>) {
    out.push(Section {
        graph: false,
        title: format!("Impact of {} changed symbol(s)", r.impact.changed.len()),
        open: false,
        table: "| Symbol | Change | Dependents | Untouched | Transitive | Tests | Modules |\n|---|---|---|---|---|---|---|\n".into(),
        items: r
            .impact
            .changed
            .iter()
            .map(|c| {
                format!(
                    "| {} {} | {} | {} | {} | {} | {} | {} |\n",
                    cell(&code(&c.symbol.qualified())),
                    cell(&at(&c.symbol)),
                    c.change,
                    c.callers.len(),
                    c.untouched_callers,
                    c.transitive_callers,
                    c.tests.len(),
                    c.modules.len()
                )
            })
            .collect(),
    });

    out.push(Section::of("Affected tests", &r.impact.tests, |t| {
        format!(
            "- {} reaches {} (depth {})\n",
            code(&t.path),
            t.symbols
                .iter()
                .map(|s| code(s))
                .collect::<Vec<_>>()
                .join(", "),
            t.depth
        )
    }));

    out.push(Section::of(
        "Usually changed together, not touched",
        &r.impact.cochange,
        |c| {
            format!(
                "- {} changed with {} in {} of their commits ({} shared)\n",
                code(&c.path),
                code(&c.changed_with),
                pct(c.degree),
                c.shared_commits
            )
        },
    ));

    out.push(Section::of("Modules affected", &r.impact.modules, |m| {
        format!(
            "- {}: {} changed symbol(s), {} dependent(s)\n",
            code(&m.module_id),
            m.changed_symbols,
            m.callers
        )
    }));

    out.push(Section::list(
        format!("New calls ({})", r.calls.added.len()),
        call_items(&r.calls.added),
    ));
}

/// The symbol sections: renames and moves, signature, body and visibility changes, additions,
/// removals and compatible API changes.
fn symbol_sections(r: &DiffReport, out: &mut Vec<Section>) {
    let api = &r.api;
    let s = &r.symbols;
    out.push(Section::of("Renamed or moved symbols", &s.renamed, |x| {
        format!(
            "- {} → {}: {} ({}, confidence {}){}\n",
            code(&x.from.qualified()),
            code(&x.to.qualified()),
            x.change,
            if x.source == "aliases" {
                format!("alias: {}", x.reason)
            } else {
                "matched by body".to_string()
            },
            format_float(x.confidence).unwrap_or_default(),
            if x.from.path == x.to.path {
                format!(" in {}", code(&x.to.path))
            } else {
                format!(": {} → {}", code(&x.from.path), code(&x.to.path))
            }
        )
    }));
    out.push(Section::of("Removed symbols", &s.removed, |x| {
        format!(
            "- {} {} at {}\n",
            x.symbol.kind,
            code(&x.symbol.qualified()),
            at(&x.symbol)
        )
    }));
    out.push(Section::of(
        "Signature changes",
        &s.signature_changed,
        |x| {
            let sig = |s: &Option<String>| code(&short_sig(s.as_deref().unwrap_or("?")));
            format!("{}\n", changed(&x.symbol, &sig(&x.before), &sig(&x.after)))
        },
    ));
    out.push(Section::of("Added symbols", &s.added, |x| {
        format!(
            "- {} {} ({}) at {}\n",
            x.kind,
            code(&x.qualified()),
            x.visibility,
            at(x)
        )
    }));
    out.push(Section::of("Body changes", &s.body_changed, |x| {
        format!("- {} {} at {}\n", x.kind, code(&x.qualified()), at(x))
    }));
    out.push(Section::of(
        "Visibility changes",
        &s.visibility_changed,
        |x| {
            let line = changed(&x.symbol, &x.before, &x.after);
            format!("{line} ({})\n", x.direction)
        },
    ));
    out.push(Section::of(
        "Non-breaking API changes",
        &api.non_breaking,
        |c| format!("- {} ({}): {}\n", c.kind, c.severity, c.detail),
    ));
}

/// The file list and the removed calls.
fn file_sections(r: &DiffReport, out: &mut Vec<Section>) {
    let f = &r.files;
    let mut files: Vec<String> = Vec::new();
    files.extend(
        f.removed
            .iter()
            .map(|x| format!("- removed {}\n", code(&x.path))),
    );
    files.extend(
        f.renamed
            .iter()
            .map(|x| format!("- renamed {} → {}\n", code(&x.from), code(&x.to))),
    );
    files.extend(f.modified.iter().map(|x| {
        format!(
            "- modified {} ({} → {} lines)\n",
            code(&x.path),
            x.lines_before,
            x.lines_after
        )
    }));
    files.extend(
        f.added
            .iter()
            .map(|x| format!("- added {}\n", code(&x.path))),
    );
    out.push(Section::list(format!("Files ({})", files.len()), files));
    out.push(Section::list(
        format!("Removed calls ({})", r.calls.removed.len()),
        call_items(&r.calls.removed),
    ));
}

/// Renders the diff as markdown of at most `options.max_chars` characters.
pub fn render(report: &DiffReport, options: &Options) -> Result<String, QueryError> {
    let max_chars = options.max_chars;
    let head = header(report);
    let foot = footer(report);
    let sections = sections(report, options.graph);
    let total: usize = sections.iter().map(|s| s.items.len()).sum();

    // Everything, when it fits.
    let mut full = head.clone();
    for s in &sections {
        full.push_str(&open_of(s));
        for i in &s.items {
            full.push_str(i);
        }
        full.push_str(CLOSE);
    }
    full.push_str(&foot);
    if chars(&full) <= max_chars {
        return Ok(full);
    }

    let worst_note = note(total, total, sections.len(), max_chars);
    let fixed = chars(&head) + chars(&foot) + chars(&worst_note);
    if fixed > max_chars {
        return Err(QueryError::new(
            ErrorCode::BudgetExceeded,
            format!(
                "--max-chars {max_chars} cannot hold the diff's header, footer and truncation note ({fixed} characters)"
            ),
            format!("pass --max-chars {fixed} or more (the default is {})", super::DEFAULT_MAX_CHARS),
        ));
    }
    let mut left = max_chars - fixed;
    let mut body = String::new();
    let mut shown = 0;
    let mut left_out = 0;
    let mut must_read_cut = false;
    for s in &sections {
        if s.graph && must_read_cut {
            left_out += 1;
            continue;
        }
        let shell = chars(&open_of(s)) + chars(CLOSE);
        let n = s.items.len();
        let mut part = String::new();
        let mut used = shell;
        let mut taken = 0;
        for (i, item) in s.items.iter().enumerate() {
            let reserve = if i + 1 < n {
                chars(&more(n - i - 1))
            } else {
                0
            };
            let len = chars(item);
            if used + len + reserve > left {
                break;
            }
            part.push_str(item);
            used += len;
            taken += 1;
        }
        if s.open && taken < n {
            must_read_cut = true;
        }
        if taken == 0 {
            left_out += 1;
            continue;
        }
        body.push_str(&open_of(s));
        body.push_str(&part);
        if taken < n {
            let m = more(n - taken);
            used += chars(&m);
            body.push_str(&m);
        }
        body.push_str(CLOSE);
        left -= used;
        shown += taken;
    }
    Ok(format!(
        "{head}{}{body}{foot}",
        note(shown, total, left_out, max_chars)
    ))
}
