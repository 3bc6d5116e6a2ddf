//! SQL over snapshots in an embedded, locked-down DuckDB.
//!
//! Every written table of a snapshot becomes a view of the same name over its Parquet file; over a
//! whole store, each view spans every snapshot of every repository with the Hive partition columns
//! `repo` and `commit`. Over a store, the DuckDB variable `ckb_store` holds the store folder, so the
//! canned queries (`queries/sql/*.sql`) run unchanged.
//!
//! The guard, in the order it acts:
//! - The user's text is never handed to DuckDB as a statement. It runs only as the argument of
//!   DuckDB's `query()` table function in a statement of ours, `SELECT * FROM query('<text>') LIMIT
//!   n`: DuckDB's own parser splits the text and accepts exactly one statement that parses as a
//!   `SELECT` (which covers `WITH … SELECT`, `FROM`, `VALUES`, `TABLE`, `DESCRIBE`, `SUMMARIZE`,
//!   `SHOW`), else refuses it before anything runs. What runs is the very statement it parsed; no
//!   statement of the text runs before it is accepted. `EXPLAIN [ANALYZE]` in front is taken off
//!   and put back around our statement, so the explained statement passes the same check.
//! - The session may open only the table files of the snapshot or store (`confine`), no folder,
//!   has no temporary directory (nothing spills to disk), cannot load or install extensions, and
//!   its configuration is locked before the user's statement runs.
//! - Rows, memory, time and threads are bounded (`limits`); the row limit is a `LIMIT` one past
//!   it, so DuckDB stops reading there.

mod confine;
pub mod limits;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use arrow::datatypes::{
    DataType, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type,
    UInt32Type, UInt64Type, UInt8Type,
};
use arrow::util::display::{ArrayFormatter, FormatOptions};
use duckdb::{Connection, InterruptHandle};
use output_schema::{ErrorCode, ALL_TABLES};
use serde_json::Value;

use self::confine::Allowed;
pub use self::limits::{SqlLimitFlags, SqlLimits};
use self::limits::{MAX_ROWS_FLAG, MEMORY_LIMIT_FLAG, TIMEOUT_FLAG};
pub use crate::envelope::answer::SqlResult;
use crate::{QueryError, Snapshot};

/// What the SQL runs over.
pub enum SqlSource<'a> {
    /// One snapshot.
    Snapshot(&'a Snapshot),
    /// Every snapshot in a store (Hive partitions `repo`, `commit`).
    Store(&'a Path),
}

/// What the refusal of a statement tells the user to do.
const READ_ONLY_REMEDIATION: &str = "pass exactly one read statement: SELECT, WITH … SELECT, FROM, VALUES, TABLE, DESCRIBE, SUMMARIZE or SHOW, optionally after EXPLAIN [ANALYZE]; the session cannot write, attach, install, load, set or call anything";

fn sql_err(code: ErrorCode, message: impl Into<String>, remediation: &str) -> QueryError {
    QueryError::new(code, message, remediation)
}

fn internal(e: duckdb::Error) -> QueryError {
    sql_err(
        ErrorCode::InternalError,
        format!("duckdb: {e}"),
        "report this as a bug",
    )
}

/// A SQL string literal. DuckDB's standard strings have no backslash escapes, so doubling the
/// quote is the whole escape.
fn quote_literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

fn quote_ident(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// Which EXPLAIN the user asked for in front of the statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Explain {
    Plain,
    Analyze,
}

/// The user's text, split into an optional leading `EXPLAIN [ANALYZE]` and the statement that
/// DuckDB's `query()` must accept as one `SELECT`.
#[derive(Debug, PartialEq, Eq)]
struct UserStatement<'a> {
    explain: Option<Explain>,
    body: &'a str,
}

/// The rest of `s` after the keyword `word` (any case) and the whitespace after it.
fn after_keyword<'a>(s: &'a str, word: &str) -> Option<&'a str> {
    let head = s.get(..word.len())?;
    let rest = &s[word.len()..];
    (head.eq_ignore_ascii_case(word) && rest.starts_with(|c: char| c.is_ascii_whitespace()))
        .then(|| rest.trim_start())
}

impl<'a> UserStatement<'a> {
    fn parse(sql: &'a str) -> Result<Self, QueryError> {
        if sql.contains('\0') {
            return Err(sql_err(
                ErrorCode::SqlNotAllowed,
                "the statement holds a NUL character",
                READ_ONLY_REMEDIATION,
            ));
        }
        let trimmed = sql.trim_start();
        Ok(match after_keyword(trimmed, "explain") {
            None => UserStatement {
                explain: None,
                body: sql,
            },
            Some(rest) => match after_keyword(rest, "analyze") {
                Some(body) => UserStatement {
                    explain: Some(Explain::Analyze),
                    body,
                },
                None => UserStatement {
                    explain: Some(Explain::Plain),
                    body: rest,
                },
            },
        })
    }

    /// The one statement DuckDB runs. `query()` parses the body at bind time and refuses
    /// anything but exactly one `SELECT`; one row past the limit tells that the limit was passed.
    fn wrapped(&self, max_rows: u64) -> String {
        let select = format!("SELECT * FROM query({})", quote_literal(self.body));
        match self.explain {
            None => format!("{select} LIMIT {}", max_rows.saturating_add(1)),
            Some(Explain::Plain) => format!("EXPLAIN {select}"),
            Some(Explain::Analyze) => format!("EXPLAIN ANALYZE {select}"),
        }
    }
}

/// Interrupts the connection when the time limit passes, unless stopped first.
struct Deadline {
    stop: mpsc::Sender<()>,
    fired: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

impl Deadline {
    fn start(handle: Arc<InterruptHandle>, timeout: Duration) -> Self {
        let (stop, stopped) = mpsc::channel::<()>();
        let fired = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&fired);
        let thread = std::thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(timeout) {
                flag.store(true, Ordering::SeqCst);
                handle.interrupt();
            }
        });
        Deadline {
            stop,
            fired,
            thread,
        }
    }

    /// Stops the timer; whether it had fired.
    fn stop(self) -> bool {
        let _ = self.stop.send(());
        let _ = self.thread.join();
        self.fired.load(Ordering::SeqCst)
    }
}

/// Applies the limits and the lockdown, and makes the views. The user's statement runs later.
fn open_session(
    conn: &Connection,
    source: &SqlSource<'_>,
    limits: &SqlLimits,
) -> Result<(), QueryError> {
    let allowed = match source {
        SqlSource::Snapshot(snapshot) => confine::snapshot_files(snapshot)?,
        SqlSource::Store(store) => confine::store_files(store)?,
    };
    // No temporary directory: an in-memory database would otherwise spill to `.tmp` in the
    // current folder; a query that needs more than the memory limit fails instead.
    let mut setup = vec![
        "SET autoinstall_known_extensions = false".to_string(),
        "SET autoload_known_extensions = false".to_string(),
        "SET allow_community_extensions = false".to_string(),
        "SET allow_persistent_secrets = false".to_string(),
        "SET temp_directory = ''".to_string(),
        format!("SET memory_limit = '{}B'", limits.memory.bytes),
        format!("SET threads = {}", limits.threads),
    ];
    let mut views = Vec::new();
    // The only files the session may open: the tables (and, for a store, its globs).
    let paths: Vec<String> = match &allowed {
        Allowed::Files(files) => {
            for (name, path) in files {
                views.push(format!(
                    "CREATE VIEW {} AS SELECT * FROM read_parquet({})",
                    quote_ident(name),
                    quote_literal(&path.to_string_lossy())
                ));
            }
            files
                .iter()
                .map(|(_, p)| quote_literal(&p.to_string_lossy()))
                .collect()
        }
        Allowed::Store { dir, files, globs } => {
            for (name, glob) in globs {
                views.push(format!(
                    "CREATE VIEW {} AS SELECT * FROM read_parquet({}, hive_partitioning = true, hive_types_autocast = false, union_by_name = true)",
                    quote_ident(name),
                    quote_literal(glob)
                ));
            }
            // The canned queries (queries/sql/*.sql) find the store through this variable,
            // exactly as in the stock duckdb CLI (`SET VARIABLE ckb_store = '…'`).
            views.push(format!(
                "SET VARIABLE ckb_store = {}",
                quote_literal(dir.to_string_lossy().trim_end_matches('/'))
            ));
            globs
                .iter()
                .map(|(_, g)| quote_literal(g))
                .chain(files.iter().map(|p| quote_literal(&p.to_string_lossy())))
                .collect()
        }
    };
    if !paths.is_empty() {
        setup.push(format!("SET allowed_paths = [{}]", paths.join(", ")));
    }
    setup.push("SET enable_external_access = false".to_string());
    conn.execute_batch(&(setup.join(";\n") + ";"))
        .map_err(internal)?;
    if !views.is_empty() {
        conn.execute_batch(&(views.join(";\n") + ";"))
            .map_err(|e| {
                if is_interrupt(&e) || is_out_of_memory(&e) {
                    return classify(e, source, limits);
                }
                sql_err(
                    ErrorCode::SnapshotCorrupt,
                    format!("cannot open the snapshot's tables: {e}"),
                    "run `ckb verify <snapshot>` and rebuild damaged snapshots with `ckb snapshot --force`",
                )
            })?;
    }
    conn.execute_batch("SET lock_configuration = true;")
        .map_err(internal)?;
    Ok(())
}

/// Runs one read-only statement within the limits.
///
/// The time limit holds on the wall clock. DuckDB checks for an interrupt while it executes, but
/// not while it plans: a statement of a few kilobytes can keep its optimizer busy for seconds
/// (found by fuzzing `sql_guard`: a long chain of `+` and `%`; `tests/cli_sql.rs` has one). So the
/// statement runs on a worker thread that owns the connection, and when the limit and a short
/// grace have passed without an answer the worker is left behind, interrupted, and the answer is
/// `SQL_LIMIT_EXCEEDED`. The worker holds the store's read lock until it ends.
pub fn run_sql(
    source: &SqlSource<'_>,
    sql: &str,
    limits: &SqlLimits,
) -> Result<SqlResult, QueryError> {
    let statement = UserStatement::parse(sql)?;
    // Over a whole store, a read lock on the store folder holds `ckb store gc` off for the
    // session (one snapshot is held by its `Snapshot`).
    let store_lock = match source {
        SqlSource::Store(store) => output_schema::folder_lock::hold_shared(store)
            .ok()
            .flatten(),
        SqlSource::Snapshot(_) => None,
    };
    let conn = Connection::open_in_memory().map_err(internal)?;
    let started = Instant::now();
    within_time(conn.interrupt_handle(), limits, move || {
        open_session(&conn, source, limits)?;
        let wrapped = statement.wrapped(limits.max_rows);
        let max_rows = limits.max_rows;
        let (send, answer) = mpsc::channel();
        std::thread::Builder::new()
            .name("ckb-sql".into())
            .spawn(move || {
                let _store_lock = store_lock;
                let _ = send.send(fetch(&conn, &wrapped, max_rows));
            })
            .map_err(|e| {
                sql_err(
                    ErrorCode::InternalError,
                    format!("cannot start the SQL worker: {e}"),
                    "report this as a bug",
                )
            })?;
        let wait = limits.timeout.saturating_sub(started.elapsed()) + ABANDON_GRACE;
        match answer.recv_timeout(wait) {
            Ok(fetched) => fetched.map_err(|e| e.classify(&statement, source, limits)),
            Err(mpsc::RecvTimeoutError::Timeout) => Err(time_exceeded(limits)),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(sql_err(
                ErrorCode::InternalError,
                "the SQL worker stopped without an answer",
                "report this as a bug",
            )),
        }
    })
}

/// How long past the time limit an interrupted statement may take to stop before its answer is
/// given up (an interrupt that DuckDB sees stops it within milliseconds).
const ABANDON_GRACE: Duration = Duration::from_millis(500);

fn time_exceeded(limits: &SqlLimits) -> QueryError {
    sql_err(
        ErrorCode::SqlLimitExceeded,
        format!(
            "the query ran longer than the time limit of {} s ({TIMEOUT_FLAG})",
            limits.timeout.as_secs()
        ),
        "narrow the query, or raise --timeout (seconds, at most 86400)",
    )
}

/// A session that stays open for one statement after another: the lockdown, views and limits
/// of [`run_sql`], applied once. For callers that put many statements to the same guard (the
/// `sql_guard` fuzz target, the guard's generative test); `ckb query` opens one per statement.
pub struct Session<'s> {
    conn: Connection,
    source: SqlSource<'s>,
    limits: SqlLimits,
}

impl<'s> Session<'s> {
    /// Opens a locked-down session over `source`.
    pub fn open(source: SqlSource<'s>, limits: SqlLimits) -> Result<Session<'s>, QueryError> {
        let conn = Connection::open_in_memory().map_err(internal)?;
        within_time(conn.interrupt_handle(), &limits, || {
            open_session(&conn, &source, &limits)
        })?;
        Ok(Session {
            conn,
            source,
            limits,
        })
    }

    /// Runs one read-only statement with [`run_sql`]'s guard and limits (the time limit counts
    /// from here), on the calling thread: a statement that DuckDB does not interrupt while it
    /// plans runs to its end (the fuzz target's own timeout catches those).
    pub fn run(&self, sql: &str) -> Result<SqlResult, QueryError> {
        let statement = UserStatement::parse(sql)?;
        within_time(self.conn.interrupt_handle(), &self.limits, || {
            fetch(
                &self.conn,
                &statement.wrapped(self.limits.max_rows),
                self.limits.max_rows,
            )
            .map_err(|e| e.classify(&statement, &self.source, &self.limits))
        })
    }
}

/// Runs `work`, interrupting the connection of `handle` when the time limit passes: a failure
/// after that is `SQL_LIMIT_EXCEEDED` naming the flag. (A statement DuckDB does not interrupt
/// runs to its end unless `work` stops waiting for it, as [`run_sql`] does.)
fn within_time<R>(
    handle: Arc<InterruptHandle>,
    limits: &SqlLimits,
    work: impl FnOnce() -> Result<R, QueryError>,
) -> Result<R, QueryError> {
    let deadline = Deadline::start(handle, limits.timeout);
    let result = work();
    if deadline.stop() && result.is_err() {
        return Err(time_exceeded(limits));
    }
    result
}

/// Why fetching a statement's rows failed.
enum FetchError {
    /// DuckDB refused or failed the statement.
    Duck(duckdb::Error),
    /// The result had more rows than the limit.
    TooManyRows(u64),
}

impl FetchError {
    fn classify(
        self,
        statement: &UserStatement<'_>,
        source: &SqlSource<'_>,
        limits: &SqlLimits,
    ) -> QueryError {
        match self {
            FetchError::Duck(e) => classify_statement(e, statement, source, limits),
            FetchError::TooManyRows(max_rows) => sql_err(
                ErrorCode::SqlLimitExceeded,
                format!("the result has more than {max_rows} rows ({MAX_ROWS_FLAG})"),
                "add a LIMIT or aggregate, or raise --max-rows (at most 100000000)",
            ),
        }
    }
}

/// Runs our wrapping statement `wrapped` and reads its rows as JSON values, at most `max_rows`.
fn fetch(conn: &Connection, wrapped: &str, max_rows: u64) -> Result<SqlResult, FetchError> {
    let mut stmt = conn.prepare(wrapped).map_err(FetchError::Duck)?;
    let mut stream = stmt.stream_arrow([]).map_err(FetchError::Duck)?;
    let schema = stream.get_schema();
    let columns = schema.fields().iter().map(|f| f.name().clone()).collect();
    let mut rows: Vec<Vec<Value>> = Vec::new();
    for batch in stream.by_ref() {
        let batch: RecordBatch = batch.map_err(FetchError::Duck)?;
        let cols: Vec<&ArrayRef> = batch.columns().iter().collect();
        for i in 0..batch.num_rows() {
            if rows.len() as u64 >= max_rows {
                return Err(FetchError::TooManyRows(max_rows));
            }
            rows.push(cols.iter().map(|c| to_json(c.as_ref(), i)).collect());
        }
    }
    Ok(SqlResult { columns, rows })
}

fn is_interrupt(e: &duckdb::Error) -> bool {
    e.to_string().contains("INTERRUPT")
}

fn is_out_of_memory(e: &duckdb::Error) -> bool {
    e.to_string().contains("Out of Memory")
}

/// Characters that make a statement read differently to people than to the parser.
fn deceptive_char(sql: &str) -> Option<(usize, char)> {
    sql.char_indices().find(|&(_, c)| {
        matches!(c,
            '\u{FEFF}' | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{2064}'
            | '\u{FF01}'..='\u{FF5E}')
    })
}

/// An error of the user's statement: refusals of the guard first, then the generic ones.
fn classify_statement(
    e: duckdb::Error,
    statement: &UserStatement<'_>,
    source: &SqlSource<'_>,
    limits: &SqlLimits,
) -> QueryError {
    let text = e.to_string();
    if text.contains("Expected a single SELECT statement")
        || text.contains("PIVOT statements without explicit IN")
    {
        return sql_err(
            ErrorCode::SqlNotAllowed,
            "DuckDB's parser does not read this as exactly one read statement",
            READ_ONLY_REMEDIATION,
        );
    }
    if text.contains("Parser Error") {
        if let Some((at, c)) = deceptive_char(statement.body) {
            return sql_err(
                ErrorCode::SqlNotAllowed,
                format!(
                    "the statement does not parse, and holds the invisible or full-width character U+{:04X} at byte {at}: {text}",
                    c as u32
                ),
                "retype the statement in plain ASCII punctuation and whitespace",
            );
        }
    }
    classify(e, source, limits)
}

fn classify(e: duckdb::Error, source: &SqlSource<'_>, limits: &SqlLimits) -> QueryError {
    let text = e.to_string();
    if text.contains("Permission Error")
        || text.contains("disabled by configuration")
        || text.contains("configuration has been locked")
        || text.contains("lock_configuration")
    {
        return sql_err(
            ErrorCode::SqlNotAllowed,
            format!("the statement tries to reach outside the snapshot or change settings: {text}"),
            "query only the snapshot's tables (files, symbols, occurrences, …); files elsewhere cannot be read",
        );
    }
    if is_out_of_memory(&e) {
        return sql_err(
            ErrorCode::SqlLimitExceeded,
            format!(
                "the query needs more than the memory limit of {} ({MEMORY_LIMIT_FLAG}): {text}",
                limits.memory.text
            ),
            "narrow the query, or raise --memory-limit (e.g. 4GB); nothing spills to disk",
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
    fn explain_is_taken_off_only_in_front() {
        let p = |s| UserStatement::parse(s).unwrap();
        assert_eq!(p("select 1").explain, None);
        assert_eq!(p("  EXPLAIN select 1").explain, Some(Explain::Plain));
        assert_eq!(p("  EXPLAIN select 1").body, "select 1");
        assert_eq!(
            p("explain\n analyze\tselect 1").explain,
            Some(Explain::Analyze)
        );
        assert_eq!(p("explain\n analyze\tselect 1").body, "select 1");
        // Not a keyword followed by whitespace: the whole text goes to the parser, which refuses it.
        assert_eq!(p("/* c */ explain select 1").explain, None);
        assert_eq!(p("explainselect 1").explain, None);
        assert_eq!(p("explain(format json) select 1").explain, None);
        assert_eq!(
            UserStatement::parse("select 1\0").unwrap_err().code,
            ErrorCode::SqlNotAllowed
        );
    }

    #[test]
    fn the_wrapper_is_one_statement_whatever_the_text() {
        let s = UserStatement::parse("select 1'); copy x to 'y'; --").unwrap();
        assert_eq!(
            s.wrapped(10),
            "SELECT * FROM query('select 1''); copy x to ''y''; --') LIMIT 11"
        );
        let s = UserStatement::parse("explain analyze from files").unwrap();
        assert_eq!(
            s.wrapped(10),
            "EXPLAIN ANALYZE SELECT * FROM query('from files')"
        );
        assert_eq!(
            UserStatement::parse("select 1")
                .unwrap()
                .wrapped(100_000_000),
            "SELECT * FROM query('select 1') LIMIT 100000001"
        );
    }

    /// Defence in depth: with the statement check bypassed (statements run straight on the
    /// session), the file confinement alone refuses every write that creates, replaces through a
    /// temporary file, or deletes a file in the store.
    #[test]
    fn a_session_cannot_create_or_delete_files_even_without_the_statement_check() {
        let store = tempfile::tempdir().unwrap();
        let snap = store.path().join("repo=a/commit=b");
        std::fs::create_dir_all(&snap).unwrap();
        let files = snap.join("files.parquet");
        Connection::open_in_memory()
            .unwrap()
            .execute_batch(&format!(
                "COPY (SELECT 'src/a.rs' AS path) TO {} (FORMAT parquet)",
                quote_literal(&files.to_string_lossy())
            ))
            .unwrap();
        let before = std::fs::read(&files).unwrap();
        let conn = Connection::open_in_memory().unwrap();
        open_session(
            &conn,
            &SqlSource::Store(store.path()),
            &SqlLimits::default(),
        )
        .unwrap();
        let (s, t) = (snap.to_string_lossy(), store.path().to_string_lossy());
        for write in [
            format!("COPY (SELECT 1 AS x) TO '{s}/files.parquet' (FORMAT parquet)"),
            format!("COPY (SELECT 1 AS x) TO '{s}/new.csv'"),
            format!("COPY (SELECT 1 AS k) TO '{t}' (FORMAT parquet, PARTITION_BY (k), OVERWRITE)"),
            format!("ATTACH '{s}/evil.db' AS evil"),
            format!("EXPORT DATABASE '{s}/exported'"),
            "SET enable_external_access = true".to_string(),
            "SET allowed_directories = ['/']".to_string(),
            "SET temp_directory = '.'".to_string(),
        ] {
            let e = conn.execute_batch(&write).unwrap_err().to_string();
            assert!(
                e.contains("Permission Error") || e.contains("configuration has been locked"),
                "{write}: {e}"
            );
        }
        assert_eq!(std::fs::read(&files).unwrap(), before);
        assert_eq!(std::fs::read_dir(&snap).unwrap().count(), 1);
        // What the check is for: the session still reads its tables.
        let n: i64 = conn
            .query_row("SELECT count(*) FROM files", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
    }

    #[test]
    fn deceptive_characters_are_named() {
        assert_eq!(deceptive_char("select 1"), None);
        assert_eq!(
            deceptive_char("select 1\u{FF1B} copy"),
            Some((8, '\u{FF1B}'))
        );
        assert_eq!(deceptive_char("\u{FEFF}select"), Some((0, '\u{FEFF}')));
        assert_eq!(deceptive_char("sel\u{200B}ect"), Some((3, '\u{200B}')));
        assert_eq!(deceptive_char("select 'é'"), None);
    }
}
