//! Printing answers, errors and SQL results as JSON, human text, markdown or CSV.
//!
//! JSON is canonical (`output_schema::json`): the same answer always gives the same bytes. Human
//! and markdown output are derived from the same values, never from separate code paths that could
//! disagree with the JSON.

use serde_json::Value;

use output_schema::json::{format_float, to_string_pretty, value_to_string};

use crate::envelope::answer::{Provenance, SqlResult};
use crate::{Answer, QueryError};

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Canonical JSON.
    Json,
    /// Text for a terminal.
    Human,
    /// Markdown (PR comments, chat).
    Markdown,
    /// CSV (SQL results only; other answers fall back to JSON).
    Csv,
}

impl Format {
    /// JSON when a command's `--json` flag is set, else human text.
    pub fn json_if(json: bool) -> Format {
        if json {
            Format::Json
        } else {
            Format::Human
        }
    }
}

/// Renders an answer.
pub fn answer(answer: &Answer, format: Format) -> String {
    match format {
        Format::Json | Format::Csv => to_string_pretty(answer).unwrap_or_default() + "\n",
        Format::Human => human_answer(answer),
        Format::Markdown => markdown_answer(answer),
    }
}

/// Renders an error.
pub fn error(error: &QueryError, format: Format) -> String {
    match format {
        Format::Json | Format::Csv => {
            to_string_pretty(&serde_json::json!({ "error": error })).unwrap_or_default() + "\n"
        }
        Format::Human | Format::Markdown => {
            let mut s = format!(
                "error[{}]: {}\n  fix: {}\n",
                error.code, error.message, error.remediation
            );
            if let Some(details) = &error.details {
                s.push_str("  details:\n");
                tree(&mut s, details, 2);
            }
            for d in &error.drilldowns {
                s.push_str(&format!("  try: {}  ({})\n", d.command, d.reason));
            }
            s
        }
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (_, Some(u), _) => u.to_string(),
            (_, _, Some(f)) => format_float(f).unwrap_or_default(),
            _ => n.to_string(),
        },
        Value::String(s) => s.clone(),
        other => value_to_string(other, false),
    }
}

/// Keys whose integer values are Unix times (seconds): shown as UTC dates to people; JSON keeps
/// the numbers.
const TIME_KEYS: &[&str] = &["time", "lastChanged"];

/// A scalar under `key`, with times as dates.
fn keyed_scalar(key: &str, v: &Value) -> String {
    match v.as_i64() {
        Some(t) if TIME_KEYS.contains(&key) => utc_date(t),
        _ => scalar(v),
    }
}

/// `YYYY-MM-DD HH:MM UTC` of a Unix time.
pub fn utc_date(t: i64) -> String {
    let secs = t.rem_euclid(86_400);
    format!(
        "{} {:02}:{:02} UTC",
        utc_day(t),
        secs / 3600,
        secs % 3600 / 60
    )
}

/// `YYYY-MM-DD` of a Unix time in UTC (proleptic Gregorian; Howard Hinnant's civil-from-days).
pub fn utc_day(t: i64) -> String {
    let days = t.div_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

fn tree(out: &mut String, v: &Value, indent: usize) {
    let pad = "  ".repeat(indent);
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            for k in keys {
                let child = &map[k];
                match child {
                    Value::Null => {}
                    Value::Object(m) if !m.is_empty() => {
                        out.push_str(&format!("{pad}{k}:\n"));
                        tree(out, child, indent + 1);
                    }
                    Value::Array(a) if !a.is_empty() && !a.iter().all(is_scalar) => {
                        out.push_str(&format!("{pad}{k}:\n"));
                        tree(out, child, indent + 1);
                    }
                    _ if is_scalar(child) => {
                        out.push_str(&format!("{pad}{k}: {}\n", keyed_scalar(k, child)))
                    }
                    _ => out.push_str(&format!("{pad}{k}: {}\n", inline(child))),
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                if is_scalar(item) {
                    out.push_str(&format!("{pad}- {}\n", scalar(item)));
                } else if let Some(line) = flat_object(item) {
                    out.push_str(&format!("{pad}- {line}\n"));
                } else {
                    out.push_str(&format!("{pad}-\n"));
                    tree(out, item, indent + 1);
                }
            }
        }
        other => out.push_str(&format!("{pad}{}\n", scalar(other))),
    }
}

/// An object of scalars as one `key: value, …` line (keys sorted), for compact lists.
fn flat_object(v: &Value) -> Option<String> {
    let map = v.as_object()?;
    if map.values().any(|x| !is_scalar(x)) {
        return None;
    }
    let mut keys: Vec<&String> = map.keys().filter(|k| !map[*k].is_null()).collect();
    keys.sort();
    Some(
        keys.iter()
            .map(|k| format!("{k}: {}", keyed_scalar(k, &map[*k])))
            .collect::<Vec<_>>()
            .join(", "),
    )
}

fn is_scalar(v: &Value) -> bool {
    !matches!(v, Value::Object(_) | Value::Array(_))
}

fn inline(v: &Value) -> String {
    match v {
        Value::Array(a) => format!("[{}]", a.iter().map(scalar).collect::<Vec<_>>().join(", ")),
        Value::Object(m) if m.is_empty() => "{}".into(),
        other => scalar(other),
    }
}

fn human_answer(a: &Answer) -> String {
    let mut out = format!("{}\n\n", a.explanation);
    tree(&mut out, &a.facts, 0);
    let p = &a.provenance;
    out.push_str(&snapshot_line(p, Format::Human));
    for w in &p.warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    for t in &p.truncations {
        out.push_str(&format!(
            "truncated: {} ({} of {} shown)\n",
            t.what, t.shown, t.total
        ));
    }
    if !a.drilldowns.is_empty() {
        out.push_str("next:\n");
        for d in &a.drilldowns {
            out.push_str(&format!("  {}  # {}\n", d.command, d.reason));
        }
    }
    out
}

/// The provenance line: which snapshot, how complete, how fresh (human text or markdown).
fn snapshot_line(p: &Provenance, format: Format) -> String {
    let (id, repo) = (&p.snapshot_id, &p.repo_id);
    let score = format_float(p.completeness.score).unwrap_or_default();
    let (reason, fresh) = (&p.completeness.reason, p.freshness.state);
    if format == Format::Markdown {
        format!(
            "_Snapshot `{id}` of `{repo}` · completeness {score} ({reason}) · freshness {fresh}_\n"
        )
    } else {
        format!("\nsnapshot: {id} ({repo})  completeness: {score} ({reason})  freshness: {fresh}\n")
    }
}

fn markdown_answer(a: &Answer) -> String {
    let mut out = format!("### ckb {}\n\n{}\n\n", a.command, a.explanation);
    let mut facts = String::new();
    tree(&mut facts, &a.facts, 0);
    out.push_str(&format!("```yaml\n{facts}```\n\n"));
    out.push_str(&snapshot_line(&a.provenance, Format::Markdown));
    if !a.drilldowns.is_empty() {
        out.push_str("\n**Next**\n");
        for d in &a.drilldowns {
            out.push_str(&format!("- `{}` — {}\n", d.command, d.reason));
        }
    }
    out
}

/// Renders a SQL result.
pub fn sql(result: &SqlResult, format: Format) -> String {
    match format {
        Format::Json => to_string_pretty(result).unwrap_or_default() + "\n",
        Format::Csv => {
            let mut out = csv_line(result.columns.iter().map(String::as_str));
            for row in &result.rows {
                let cells: Vec<String> = row.iter().map(scalar).collect();
                out.push_str(&csv_line(cells.iter().map(String::as_str)));
            }
            out
        }
        Format::Human | Format::Markdown => table(result, format == Format::Markdown),
    }
}

fn csv_line<'a>(cells: impl Iterator<Item = &'a str>) -> String {
    let cells: Vec<String> = cells
        .map(|c| {
            if c.contains([',', '"', '\n', '\r']) {
                format!("\"{}\"", c.replace('"', "\"\""))
            } else {
                c.to_string()
            }
        })
        .collect();
    cells.join(",") + "\n"
}

fn table(result: &SqlResult, markdown: bool) -> String {
    let cells: Vec<Vec<String>> = result
        .rows
        .iter()
        .map(|r| r.iter().map(|v| scalar(v).replace('\n', " ")).collect())
        .collect();
    let mut widths: Vec<usize> = result.columns.iter().map(|c| c.chars().count()).collect();
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |row: &[String]| -> String {
        let parts: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}", w = *w))
            .collect();
        if markdown {
            format!("| {} |\n", parts.join(" | "))
        } else {
            format!("{}\n", parts.join("  ").trim_end())
        }
    };
    let mut out = line(&result.columns);
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat((*w).max(3))).collect();
    out.push_str(&if markdown {
        format!("| {} |\n", rule.join(" | "))
    } else {
        format!("{}\n", rule.join("  "))
    });
    for row in &cells {
        out.push_str(&line(row));
    }
    if !markdown {
        out.push_str(&format!(
            "({} row{})\n",
            cells.len(),
            if cells.len() == 1 { "" } else { "s" }
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn times_read_as_utc_dates() {
        for (seconds, date) in [
            (0, "1970-01-01 00:00 UTC"),
            (951_782_400, "2000-02-29 00:00 UTC"),
            (1_795_340_057, "2026-11-22 09:34 UTC"),
            (-1, "1969-12-31 23:59 UTC"),
        ] {
            assert_eq!(utc_date(seconds), date);
        }
        let v = serde_json::json!({"lastChanged": 86_400, "lines": 86_400});
        let mut out = String::new();
        tree(&mut out, &v, 0);
        assert_eq!(out, "lastChanged: 1970-01-02 00:00 UTC\nlines: 86400\n");
    }

    #[test]
    fn csv_quotes_what_needs_quoting() {
        let r = SqlResult {
            columns: vec!["a".into(), "b".into()],
            rows: vec![
                vec![json!("x,y"), json!(1.5)],
                vec![json!(null), json!("q\"")],
            ],
        };
        assert_eq!(sql(&r, Format::Csv), "a,b\n\"x,y\",1.5\n,\"q\"\"\"\n");
    }

    #[test]
    fn human_table_aligns_columns() {
        let r = SqlResult {
            columns: vec!["language".into(), "n".into()],
            rows: vec![vec![json!("rust"), json!(12)]],
        };
        assert_eq!(
            sql(&r, Format::Human),
            "language  n\n--------  ---\nrust      12\n(1 row)\n"
        );
    }
}
