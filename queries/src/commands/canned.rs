//! The canned analyses (`queries/sql/*.sql`), embedded so `ckb query canned NAME` runs them from
//! anywhere, exactly as the stock `duckdb` CLI runs the files.
//!
//! Convention shared by every file: the store folder is the DuckDB variable `ckb_store` (default
//! `.ckb/snapshots`), read with `getvariable('ckb_store')`; each file is one read-only statement
//! over `read_parquet(<store>/repo=*/commit=*/<table>.parquet, hive_partitioning = true, …)`.
//! The stock CLI sets it with `duckdb -c "SET VARIABLE ckb_store = '<store>'" -f <file>`; ckb sets
//! it to the store folder of the session before locking the session down (see [`crate::commands::sql`]).

use std::path::Path;

use output_schema::ErrorCode;
use serde_json::Value;

use crate::commands::sql::{run_sql, SqlLimits, SqlResult, SqlSource};
use crate::QueryError;

/// One canned analysis.
#[derive(Clone, Copy, Debug)]
pub struct Canned {
    /// Name (the file name without `.sql`).
    pub name: &'static str,
    /// The file's text.
    pub sql: &'static str,
}

/// Lists canned files by name: each is `queries/sql/<name>.sql`, embedded.
macro_rules! canned {
    ($($name:literal),* $(,)?) => {
        &[$(Canned {
            name: $name,
            sql: include_str!(concat!("../../sql/", $name, ".sql")),
        }),*]
    };
}

/// Every canned analysis, by name.
pub static CANNED: &[Canned] = canned![
    "api_changes",
    "churn_trend",
    "coupling",
    "dead_code",
    "hotspots",
    "module_fan",
];

impl Canned {
    /// The first comment line without its `-- name:` prefix.
    pub fn description(&self) -> String {
        let first = self.sql.lines().next().unwrap_or("");
        let text = first.trim_start_matches("--").trim();
        text.strip_prefix(self.name)
            .and_then(|t| t.strip_prefix(':'))
            .unwrap_or(text)
            .trim()
            .to_string()
    }

    /// The tables the file reads (its `-- Reads:` line, comma-separated table names).
    pub fn tables(&self) -> Vec<&'static str> {
        self.sql
            .lines()
            .find_map(|l| l.strip_prefix("-- Reads:"))
            .map(|r| {
                r.split(',')
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Finds a canned analysis by name.
pub fn find(name: &str) -> Option<&'static Canned> {
    CANNED.iter().find(|c| c.name == name)
}

/// The list of canned analyses as a result set (name, description, tables).
pub fn list() -> SqlResult {
    SqlResult {
        columns: vec!["name".into(), "description".into(), "tables".into()],
        rows: CANNED
            .iter()
            .map(|c| {
                vec![
                    Value::String(c.name.into()),
                    Value::String(c.description()),
                    Value::String(c.tables().join(", ")),
                ]
            })
            .collect(),
    }
}

/// Runs a canned analysis over every snapshot of a store, through the same guard and limits as
/// `ckb query sql`.
pub fn run(store: &Path, name: &str, limits: &SqlLimits) -> Result<SqlResult, QueryError> {
    let canned = find(name).ok_or_else(|| {
        QueryError::new(
            ErrorCode::InvalidParameter,
            format!("no canned query named {name:?}"),
            format!(
                "choose one of: {}",
                CANNED.iter().map(|c| c.name).collect::<Vec<_>>().join(", ")
            ),
        )
        .with_drilldown("ckb query canned", "lists every canned query")
    })?;
    if !store.is_dir() {
        return Err(QueryError::new(
            ErrorCode::SnapshotNotFound,
            format!("store {} does not exist", store.display()),
            "pass --store DIR, or create snapshots with `ckb snapshot`",
        ));
    }
    // A glob that matches nothing is an obscure DuckDB error; say which table is missing instead.
    for table in canned.tables() {
        if !store_has_table(store, table) {
            return Err(QueryError::new(
                ErrorCode::SqlError,
                format!(
                    "canned query {name} reads the {table} table, which no snapshot in {} has",
                    store.display()
                ),
                "snapshot with the stages that write it (`ckb schema` names each table's stage), then run the query again",
            ));
        }
    }
    run_sql(&SqlSource::Store(store), canned.sql, limits)
}

/// Whether any snapshot of the store wrote `table`.
fn store_has_table(store: &Path, table: &str) -> bool {
    let file = format!("{table}.parquet");
    let dirs = |p: &Path, prefix: &'static str| -> Vec<std::path::PathBuf> {
        std::fs::read_dir(p)
            .map(|it| {
                it.flatten()
                    .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
                    .map(|e| e.path())
                    .collect()
            })
            .unwrap_or_default()
    };
    dirs(store, "repo=")
        .iter()
        .flat_map(|r| dirs(r, "commit="))
        .any(|c| c.join(&file).is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_canned_file_follows_the_convention() {
        let mut names: Vec<&str> = CANNED.iter().map(|c| c.name).collect();
        let sorted = {
            let mut s = names.clone();
            s.sort_unstable();
            s
        };
        assert_eq!(names, sorted, "keep CANNED sorted by name");
        names.dedup();
        assert_eq!(names.len(), CANNED.len());
        for c in CANNED {
            assert!(
                c.sql.starts_with(&format!("-- {}: ", c.name)),
                "{}: first line names it",
                c.name
            );
            assert!(!c.description().is_empty(), "{}", c.name);
            assert!(!c.tables().is_empty(), "{}", c.name);
            for t in c.tables() {
                assert!(
                    output_schema::table_info(t).is_some(),
                    "{}: no table {t}",
                    c.name
                );
                assert!(
                    c.sql.contains(&format!("/{t}.parquet")),
                    "{}: reads {t}",
                    c.name
                );
            }
            assert!(c.sql.contains("getvariable('ckb_store')"), "{}", c.name);
            assert!(
                c.sql.contains(&format!("-f queries/sql/{}.sql", c.name)),
                "{}: documents the stock CLI command",
                c.name
            );
            assert!(
                c.sql.contains(&format!("ckb query canned {}", c.name)),
                "{}: documents the ckb command",
                c.name
            );
            // One statement: the only semicolon ends the file.
            assert_eq!(c.sql.matches(';').count(), 1, "{}", c.name);
            assert!(c.sql.trim_end().ends_with(';'), "{}", c.name);
        }
        // Every file on disk is listed (the crate is built from its own folder).
        let dir = format!(
            "{}/sql",
            std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR")
        );
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(stem) = name.strip_suffix(".sql") {
                assert!(find(stem).is_some(), "queries/sql/{name} is not in CANNED");
            }
        }
    }
}
