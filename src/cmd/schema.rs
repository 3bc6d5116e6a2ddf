//! `ckb schema`: print the snapshot format from `output-schema`, as people or tools want it.

use std::process::ExitCode;

use output_schema::{TableInfo, ALL_TABLES, SCHEMA_VERSION};
use queries::envelope::render::Format;
use serde_json::json;

use crate::{emit, finish_output, Failure};

/// Arguments of `ckb schema`.
#[derive(clap::Args)]
pub struct Args {
    /// Only this table.
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
    /// JSON (one object per table).
    Json,
}

fn table_json(t: &TableInfo) -> serde_json::Value {
    json!({
        "name": t.name,
        "doc": t.doc,
        "file": t.file_name(),
        "stages": t.stages.iter().map(|s| s.name()).collect::<Vec<_>>(),
        "sortKey": t.sort_key,
        "columns": t.columns.iter().map(|c| json!({
            "name": c.name, "type": c.type_name.trim_end_matches('?'), "nullable": c.nullable, "doc": c.doc,
        })).collect::<Vec<_>>(),
    })
}

/// Runs `ckb schema`.
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let fmt = if args.format == SchemaFormat::Json {
        Format::Json
    } else {
        Format::Human
    };
    let tables: Vec<&TableInfo> = match &args.table {
        None => ALL_TABLES.to_vec(),
        Some(name) => match output_schema::table_info(name) {
            Some(t) => vec![t],
            None => {
                let names: Vec<&str> = ALL_TABLES.iter().map(|t| t.name).collect();
                return Err(super::invalid(
                    format!("no table named {name:?}"),
                    &format!("tables: {}", names.join(", ")),
                    fmt,
                ));
            }
        },
    };
    let text = match args.format {
        SchemaFormat::Json => {
            output_schema::json::to_string_pretty(&json!({
                "schemaVersion": SCHEMA_VERSION,
                "tables": tables.iter().map(|t| table_json(t)).collect::<Vec<_>>(),
            }))
            .unwrap_or_default()
                + "\n"
        }
        SchemaFormat::Human => {
            let mut s = format!("ckb snapshot schema version {SCHEMA_VERSION}\n");
            for t in tables {
                s.push_str(&format!(
                    "\n{} ({}) — {}\n  sorted by: {}   produced by: {}\n",
                    t.name,
                    t.file_name(),
                    t.doc,
                    t.sort_key.join(", "),
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
            s
        }
    };
    finish_output(emit(&text))
}
