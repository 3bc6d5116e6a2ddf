//! `ckb schema`: print the snapshot format from `output-schema` (every table, then every view),
//! as people or tools want it.

use std::process::ExitCode;

use output_schema::{Stage, TableInfo, ViewInfo, ALL_TABLES, ALL_VIEWS, SCHEMA_VERSION};
use queries::envelope::render::Format;
use serde_json::{json, Value};

use crate::{emit, finish_output, Failure};

/// Arguments of `ckb schema`.
#[derive(clap::Args)]
pub struct Args {
    /// Only this table or view.
    table: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SchemaFormat::Human)]
    format: SchemaFormat,
}

/// Formats of `ckb schema`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SchemaFormat {
    /// Aligned text.
    Human,
    /// JSON (one object per table and per view).
    Json,
}

/// What a table and a view both state: name, doc, file and the stages that write it; then
/// `rest`, its own keys.
fn described(name: &str, doc: &str, file: String, stages: &[Stage], rest: Value) -> Value {
    let mut entry = json!({
        "name": name,
        "doc": doc,
        "file": file,
        "stages": stages.iter().map(|s| s.name()).collect::<Vec<_>>(),
    });
    if let (Value::Object(entry), Value::Object(rest)) = (&mut entry, rest) {
        entry.extend(rest);
    }
    entry
}

fn table_json(t: &TableInfo) -> Value {
    let columns = t.columns.iter().map(|c| json!({
        "name": c.name, "type": c.type_name.trim_end_matches('?'), "nullable": c.nullable, "doc": c.doc,
    }));
    let rest = json!({
        "sortKey": t.sort_key,
        "uniqueKey": t.unique_key,
        "columns": columns.collect::<Vec<_>>(),
    });
    described(t.name, t.doc, t.file_name(), t.stages, rest)
}

fn view_json(v: &ViewInfo) -> Value {
    let fields = (v.fields)()
        .iter()
        .map(|f| {
            json!({
                "name": f.path, "type": f.type_name.trim_end_matches('?'),
                "nullable": f.type_name.ends_with('?'), "doc": f.doc,
            })
        })
        .collect::<Vec<_>>();
    described(
        v.name,
        v.doc,
        v.file_name(),
        v.stages,
        json!({ "fields": fields }),
    )
}

fn view_human(v: &ViewInfo) -> String {
    let stages: Vec<&str> = v.stages.iter().map(|s| s.name()).collect();
    let mut s = format!(
        "\nview {} ({}) — {}\n  produced by: {}\n",
        v.name,
        v.file_name(),
        v.doc,
        stages.join(", ")
    );
    let fields = (v.fields)();
    let w = fields.iter().map(|f| f.path.len()).max().unwrap_or(0);
    let tw = fields.iter().map(|f| f.type_name.len()).max().unwrap_or(0);
    for f in &fields {
        s.push_str(&format!(
            "  {:<w$}  {:<tw$}  {}\n",
            f.path, f.type_name, f.doc
        ));
    }
    s
}

fn json_text(tables: &[&TableInfo], views: &[&ViewInfo]) -> String {
    output_schema::json::to_string_pretty(&json!({
        "schemaVersion": SCHEMA_VERSION,
        "tables": tables.iter().map(|t| table_json(t)).collect::<Vec<_>>(),
        // Absent (null is omitted) when one table was asked for: its output is as before.
        "views": (!views.is_empty())
            .then(|| views.iter().map(|v| view_json(v)).collect::<Vec<_>>()),
    }))
    .unwrap_or_default()
        + "\n"
}

/// What `ckb schema --format json` prints: every table and view (`ckb mcp`'s schema resource).
pub fn all_json() -> String {
    json_text(ALL_TABLES, ALL_VIEWS)
}

/// Runs `ckb schema`.
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let fmt = if args.format == SchemaFormat::Json {
        Format::Json
    } else {
        Format::Human
    };
    let (tables, views): (Vec<&TableInfo>, Vec<&ViewInfo>) = match &args.table {
        None => (ALL_TABLES.to_vec(), ALL_VIEWS.to_vec()),
        Some(name) => match (
            output_schema::table_info(name),
            output_schema::views::view_info(name),
        ) {
            (Some(t), _) => (vec![t], Vec::new()),
            (None, Some(v)) => (Vec::new(), vec![v]),
            (None, None) => {
                let names: Vec<&str> = ALL_TABLES.iter().map(|t| t.name).collect();
                let views: Vec<&str> = ALL_VIEWS.iter().map(|v| v.name).collect();
                return Err(super::invalid(
                    format!("no table or view named {name:?}"),
                    &format!("tables: {}; views: {}", names.join(", "), views.join(", ")),
                    fmt,
                ));
            }
        },
    };
    let text = match args.format {
        SchemaFormat::Json => json_text(&tables, &views),
        SchemaFormat::Human => {
            let mut s = format!("ckb snapshot schema version {SCHEMA_VERSION}\n");
            for t in tables {
                let unique = match t.unique_key {
                    [] => "none (rows may repeat their key)".to_string(),
                    key => key.join(", "),
                };
                s.push_str(&format!(
                    "\n{} ({}) — {}\n  sorted by: {}   one row per: {}   produced by: {}\n",
                    t.name,
                    t.file_name(),
                    t.doc,
                    t.sort_key.join(", "),
                    unique,
                    t.stages
                        .iter()
                        .map(|s| s.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
                let w = t.columns.iter().map(|c| c.name.len()).max().unwrap_or(0);
                let tw = t
                    .columns
                    .iter()
                    .map(|c| c.type_name.len())
                    .max()
                    .unwrap_or(0);
                for c in t.columns {
                    s.push_str(&format!(
                        "  {:<w$}  {:<tw$}  {}\n",
                        c.name, c.type_name, c.doc
                    ));
                }
            }
            for v in views {
                s.push_str(&view_human(v));
            }
            s
        }
    };
    finish_output(emit(&text))
}
