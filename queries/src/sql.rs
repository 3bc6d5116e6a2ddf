//! SQL over snapshots in an embedded, locked-down DuckDB.
//!
//! Every written table of a snapshot becomes a view of the same name over its Parquet file; over a
//! whole store, each view spans every snapshot of every repository with the Hive partition columns
//! `repo` and `commit`. The session is then locked: only the snapshot (or store) folder may be
//! read, nothing may be written, extensions are neither installed nor loaded, and configuration
//! cannot be changed back. Only read statements are accepted. Over a store, the DuckDB variable
//! `ckb_store` holds the store folder, so the canned queries (`queries/sql/*.sql`) run unchanged.

use std::path::Path;

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use arrow::datatypes::{
    DataType, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type,
    UInt32Type, UInt64Type, UInt8Type,
};
use arrow::util::display::{ArrayFormatter, FormatOptions};
use duckdb::Connection;
use output_schema::{ErrorCode, ALL_TABLES};
use serde::Serialize;
use serde_json::Value;

use crate::{QueryError, Snapshot};

/// What the SQL runs over.
pub enum SqlSource<'a> {
    /// One snapshot.
    Snapshot(&'a Snapshot),
    /// Every snapshot in a store (Hive partitions `repo`, `commit`).
    Store(&'a Path),
}

/// A result set.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SqlResult {
    /// Column names, in order.
    pub columns: Vec<String>,
    /// Rows, each with one value per column.
    pub rows: Vec<Vec<Value>>,
}

/// Statement keywords that only read.
const READ_KEYWORDS: &[&str] = &[
    "select",
    "with",
    "from",
    "values",
    "table",
    "describe",
    "show",
    "summarize",
    "explain",
];

fn sql_err(code: ErrorCode, message: impl Into<String>, remediation: &str) -> QueryError {
    QueryError::new(code, message, remediation)
}

fn quote_literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

fn quote_ident(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// Opens a locked-down session with one view per table.
pub fn open_session(source: &SqlSource<'_>) -> Result<Connection, QueryError> {
    let internal = |e: duckdb::Error| {
        sql_err(
            ErrorCode::InternalError,
            format!("duckdb: {e}"),
            "report this as a bug",
        )
    };
    let conn = Connection::open_in_memory().map_err(internal)?;
    conn.execute_batch(
        "SET autoinstall_known_extensions = false; SET autoload_known_extensions = false;",
    )
    .map_err(internal)?;
    let mut views = Vec::new();
    let allowed = match source {
        SqlSource::Snapshot(snapshot) => {
            for entry in &snapshot.manifest.tables {
                if output_schema::table_info(&entry.name).is_none() {
                    continue;
                }
                let path = snapshot.dir.join(&entry.file);
                views.push(format!(
                    "CREATE VIEW {} AS SELECT * FROM read_parquet({});",
                    quote_ident(&entry.name),
                    quote_literal(&path.to_string_lossy())
                ));
            }
            snapshot.dir.clone()
        }
        SqlSource::Store(store) => {
            for table in ALL_TABLES {
                let pattern = format!("repo=*/commit=*/{}", table.file_name());
                let any = glob_exists(store, &table.file_name());
                if !any {
                    continue;
                }
                let glob = store.join(pattern);
                views.push(format!(
                    "CREATE VIEW {} AS SELECT * FROM read_parquet({}, hive_partitioning = true, hive_types_autocast = false, union_by_name = true);",
                    quote_ident(table.name),
                    quote_literal(&glob.to_string_lossy())
                ));
            }
            store.to_path_buf()
        }
    };
    conn.execute_batch(&views.join("\n")).map_err(|e| {
        sql_err(
            ErrorCode::SnapshotCorrupt,
            format!("cannot open the snapshot's tables: {e}"),
            "run `ckb verify <snapshot>` and rebuild damaged snapshots with `ckb snapshot --force`",
        )
    })?;
    if let SqlSource::Store(store) = source {
        // The canned queries (queries/sql/*.sql) find the store through this variable, exactly as
        // in the stock duckdb CLI (`SET VARIABLE ckb_store = '…'`).
        conn.execute_batch(&format!(
            "SET VARIABLE ckb_store = {};",
            quote_literal(store.to_string_lossy().trim_end_matches('/'))
        ))
        .map_err(internal)?;
    }
    let dir = allowed.to_string_lossy().trim_end_matches('/').to_string() + "/";
    conn.execute_batch(&format!(
        "SET allowed_directories = [{}]; SET enable_external_access = false; SET lock_configuration = true;",
        quote_literal(&dir)
    ))
    .map_err(internal)?;
    Ok(conn)
}

fn glob_exists(store: &Path, file: &str) -> bool {
    let Ok(repos) = std::fs::read_dir(store) else {
        return false;
    };
    for repo in repos.flatten() {
        if !repo.file_name().to_string_lossy().starts_with("repo=") {
            continue;
        }
        let Ok(commits) = std::fs::read_dir(repo.path()) else {
            continue;
        };
        for c in commits.flatten() {
            if c.file_name().to_string_lossy().starts_with("commit=")
                && c.path().join(file).is_file()
            {
                return true;
            }
        }
    }
    false
}

/// The first keyword of a statement, skipping whitespace, comments and opening parentheses.
fn first_keyword(sql: &str) -> String {
    let mut rest = sql;
    loop {
        let trimmed = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '(');
        if let Some(after) = trimmed.strip_prefix("--") {
            rest = after.split_once('\n').map(|(_, r)| r).unwrap_or("");
        } else if let Some(after) = trimmed.strip_prefix("/*") {
            rest = after.split_once("*/").map(|(_, r)| r).unwrap_or("");
        } else {
            return trimmed
                .chars()
                .take_while(|c| c.is_ascii_alphabetic())
                .collect::<String>()
                .to_ascii_lowercase();
        }
    }
}

/// Runs one read-only statement.
pub fn run_sql(source: &SqlSource<'_>, sql: &str) -> Result<SqlResult, QueryError> {
    let keyword = first_keyword(sql);
    if !READ_KEYWORDS.contains(&keyword.as_str()) {
        return Err(sql_err(
            ErrorCode::SqlNotAllowed,
            format!(
                "only read statements are allowed (got {:?})",
                if keyword.is_empty() {
                    "nothing"
                } else {
                    keyword.as_str()
                }
            ),
            "use SELECT / WITH / DESCRIBE / SHOW / SUMMARIZE over the snapshot's tables",
        ));
    }
    let conn = open_session(source)?;
    let mut stmt = conn.prepare(sql).map_err(|e| classify(e, source))?;
    let batches: Vec<RecordBatch> = stmt
        .query_arrow([])
        .map_err(|e| classify(e, source))?
        .collect();
    let schema = batches
        .first()
        .map(|b| b.schema())
        .unwrap_or_else(|| stmt.schema());
    let columns = schema.fields().iter().map(|f| f.name().clone()).collect();
    let mut rows = Vec::new();
    for batch in &batches {
        let cols: Vec<&ArrayRef> = batch.columns().iter().collect();
        for i in 0..batch.num_rows() {
            rows.push(cols.iter().map(|c| to_json(c.as_ref(), i)).collect());
        }
    }
    Ok(SqlResult { columns, rows })
}

fn classify(e: duckdb::Error, source: &SqlSource<'_>) -> QueryError {
    let text = e.to_string();
    if text.contains("Permission Error")
        || text.contains("disabled by configuration")
        || text.contains("lock_configuration")
    {
        return sql_err(
            ErrorCode::SqlNotAllowed,
            format!("the statement tries to reach outside the snapshot or change settings: {text}"),
            "query only the snapshot's tables (files, symbols, occurrences, …); files elsewhere cannot be read",
        );
    }
    let mut err = sql_err(
        ErrorCode::SqlError,
        text.clone(),
        "check the SQL; `ckb schema` lists every table and column",
    );
    if text.contains("does not exist") {
        if let SqlSource::Snapshot(s) = source {
            let missing: Vec<&str> = ALL_TABLES
                .iter()
                .map(|t| t.name)
                .filter(|n| !s.has_table(n))
                .collect();
            if !missing.is_empty() {
                err.remediation = format!(
                    "these tables were not written in this snapshot (their stage did not run): {}; `ckb query status` shows why",
                    missing.join(", ")
                );
            }
        }
    }
    err
}

fn to_json(array: &dyn Array, i: usize) -> Value {
    if array.is_null(i) {
        return Value::Null;
    }
    macro_rules! prim {
        ($t:ty) => {
            Value::from(array.as_primitive::<$t>().value(i))
        };
    }
    match array.data_type() {
        DataType::Boolean => Value::Bool(array.as_boolean().value(i)),
        DataType::Int8 => prim!(Int8Type),
        DataType::Int16 => prim!(Int16Type),
        DataType::Int32 => prim!(Int32Type),
        DataType::Int64 => prim!(Int64Type),
        DataType::UInt8 => prim!(UInt8Type),
        DataType::UInt16 => prim!(UInt16Type),
        DataType::UInt32 => prim!(UInt32Type),
        DataType::UInt64 => prim!(UInt64Type),
        DataType::Float32 => {
            serde_json::Number::from_f64(f64::from(array.as_primitive::<Float32Type>().value(i)))
                .map(Value::Number)
                .unwrap_or(Value::Null)
        }
        DataType::Float64 => {
            serde_json::Number::from_f64(array.as_primitive::<Float64Type>().value(i))
                .map(Value::Number)
                .unwrap_or(Value::Null)
        }
        DataType::Utf8 => Value::String(array.as_string::<i32>().value(i).to_string()),
        DataType::LargeUtf8 => Value::String(array.as_string::<i64>().value(i).to_string()),
        DataType::Utf8View => Value::String(array.as_string_view().value(i).to_string()),
        DataType::List(_) => {
            let list = array.as_list::<i32>().value(i);
            Value::Array((0..list.len()).map(|j| to_json(list.as_ref(), j)).collect())
        }
        DataType::LargeList(_) => {
            let list = array.as_list::<i64>().value(i);
            Value::Array((0..list.len()).map(|j| to_json(list.as_ref(), j)).collect())
        }
        _ => {
            let options = FormatOptions::default();
            match ArrayFormatter::try_new(array, &options) {
                Ok(f) => Value::String(f.value(i).to_string()),
                Err(_) => Value::Null,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_keyword_skips_comments_and_parens() {
        assert_eq!(first_keyword("  -- hi\n /* x */ (SELECT 1)"), "select");
        assert_eq!(first_keyword("COPY t TO 'x'"), "copy");
        assert_eq!(first_keyword(""), "");
    }
}
