//! Stable error codes shared by every ckb command, and errors of the format itself.

use std::fmt;

/// A stable, documented error code. Scripts and bots match on these strings; they never change
/// meaning once released.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ErrorCode {
    /// No snapshot where one was expected.
    SnapshotNotFound,
    /// A snapshot's files disagree with its manifest, or cannot be decoded.
    SnapshotCorrupt,
    /// A snapshot of a newer schema version than this ckb understands.
    SchemaUnsupported,
    /// Another ckb process holds the store's lock for this snapshot.
    SnapshotLocked,
    /// The path to snapshot is missing or not a directory.
    PathNotFound,
    /// The output folder cannot be written.
    OutputNotWritable,
    /// `.ckb/config.json` is invalid.
    ConfigInvalid,
    /// A command-line value is out of range or malformed.
    InvalidParameter,
    /// A SCIP index cannot be used.
    ScipInvalid,
    /// The git repository cannot be read (corrupt or missing objects, …).
    GitError,
    /// A file-system operation failed.
    IoError,
    /// No symbol with that ID or name.
    SymbolNotFound,
    /// The symbol was deleted (a tombstone exists).
    SymbolDeleted,
    /// Several symbols match; the answer lists them.
    AmbiguousQuery,
    /// Aliases form a cycle.
    AliasCycle,
    /// More alias hops than allowed.
    AliasChainTooDeep,
    /// An index is too old to answer reliably.
    IndexStale,
    /// The answer cannot fit the budget.
    BudgetExceeded,
    /// SQL that would write or read outside the snapshots.
    SqlNotAllowed,
    /// SQL that failed to run.
    SqlError,
    /// SQL that went over a session limit (rows, memory, time); the message names the flag.
    SqlLimitExceeded,
    /// Two snapshots that cannot be compared.
    SnapshotMismatch,
    /// A SCIP indexer crashed, timed out or wrote no usable index (`ckb index --strict`).
    IndexerFailed,
    /// A SCIP indexer asked for with `--languages` is not installed (`ckb index --strict`).
    IndexerMissing,
    /// A bug in ckb.
    InternalError,
}

impl ErrorCode {
    /// Every code, for documentation and tests.
    pub const ALL: [ErrorCode; 25] = [
        ErrorCode::SnapshotNotFound,
        ErrorCode::SnapshotCorrupt,
        ErrorCode::SchemaUnsupported,
        ErrorCode::SnapshotLocked,
        ErrorCode::PathNotFound,
        ErrorCode::OutputNotWritable,
        ErrorCode::ConfigInvalid,
        ErrorCode::InvalidParameter,
        ErrorCode::ScipInvalid,
        ErrorCode::GitError,
        ErrorCode::IoError,
        ErrorCode::SymbolNotFound,
        ErrorCode::SymbolDeleted,
        ErrorCode::AmbiguousQuery,
        ErrorCode::AliasCycle,
        ErrorCode::AliasChainTooDeep,
        ErrorCode::IndexStale,
        ErrorCode::BudgetExceeded,
        ErrorCode::SqlNotAllowed,
        ErrorCode::SqlError,
        ErrorCode::SqlLimitExceeded,
        ErrorCode::SnapshotMismatch,
        ErrorCode::IndexerFailed,
        ErrorCode::IndexerMissing,
        ErrorCode::InternalError,
    ];

    /// The code as printed and matched on (`SNAPSHOT_NOT_FOUND`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::SnapshotNotFound => "SNAPSHOT_NOT_FOUND",
            ErrorCode::SnapshotCorrupt => "SNAPSHOT_CORRUPT",
            ErrorCode::SchemaUnsupported => "SCHEMA_UNSUPPORTED",
            ErrorCode::SnapshotLocked => "SNAPSHOT_LOCKED",
            ErrorCode::PathNotFound => "PATH_NOT_FOUND",
            ErrorCode::OutputNotWritable => "OUTPUT_NOT_WRITABLE",
            ErrorCode::ConfigInvalid => "CONFIG_INVALID",
            ErrorCode::InvalidParameter => "INVALID_PARAMETER",
            ErrorCode::ScipInvalid => "SCIP_INVALID",
            ErrorCode::GitError => "GIT_ERROR",
            ErrorCode::IoError => "IO_ERROR",
            ErrorCode::SymbolNotFound => "SYMBOL_NOT_FOUND",
            ErrorCode::SymbolDeleted => "SYMBOL_DELETED",
            ErrorCode::AmbiguousQuery => "AMBIGUOUS_QUERY",
            ErrorCode::AliasCycle => "ALIAS_CYCLE",
            ErrorCode::AliasChainTooDeep => "ALIAS_CHAIN_TOO_DEEP",
            ErrorCode::IndexStale => "INDEX_STALE",
            ErrorCode::BudgetExceeded => "BUDGET_EXCEEDED",
            ErrorCode::SqlNotAllowed => "SQL_NOT_ALLOWED",
            ErrorCode::SqlError => "SQL_ERROR",
            ErrorCode::SqlLimitExceeded => "SQL_LIMIT_EXCEEDED",
            ErrorCode::SnapshotMismatch => "SNAPSHOT_MISMATCH",
            ErrorCode::IndexerFailed => "INDEXER_FAILED",
            ErrorCode::IndexerMissing => "INDEXER_MISSING",
            ErrorCode::InternalError => "INTERNAL_ERROR",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error decoding or encoding snapshot data.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// A required column is absent.
    #[error("table {table} has no column {column}")]
    MissingColumn {
        /// Table name.
        table: String,
        /// Column name.
        column: String,
    },
    /// A column has an unexpected Arrow type.
    #[error("column {column} has unexpected type {found}")]
    ColumnType {
        /// Column name.
        column: String,
        /// The type found.
        found: String,
    },
    /// A required column holds a null.
    #[error("column {column} holds a null where none is allowed")]
    UnexpectedNull {
        /// Column name.
        column: String,
    },
    /// A column holds a value outside its domain.
    #[error("column {column} holds an invalid value {value:?}")]
    InvalidValue {
        /// Column name.
        column: String,
        /// The value.
        value: String,
    },
    /// A column is shorter than the batch.
    #[error("column {column} is shorter than its batch")]
    ShortColumn {
        /// Column name.
        column: String,
    },
    /// Parquet encoding or decoding failed.
    #[error("parquet: {0}")]
    Parquet(#[from] parquet::errors::ParquetError),
    /// A decoder gave up on a damaged file by panicking (see [`crate::contain`]).
    #[error("{what} is damaged: {why}")]
    Damaged {
        /// The file.
        what: String,
        /// The decoder's message.
        why: String,
    },
    /// Arrow failed.
    #[error("arrow: {0}")]
    Arrow(#[from] arrow::error::ArrowError),
    /// JSON failed.
    #[error("json: {0}")]
    Json(#[from] serde_json::Error),
    /// A compressed JSON file would decompress past the limit (a zstd bomb, or a damaged file).
    #[error(
        "compressed JSON decompresses to more than {limit} bytes; a snapshot written by ckb stays \
         far below that (set {env} to a larger byte count if this one really is that large)"
    )]
    DecompressedTooLarge {
        /// The limit in force.
        limit: u64,
        /// The environment variable that raises it.
        env: &'static str,
    },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A table's rows are not in its declared order (sort key, then every other column).
    #[error(
        "table {table}: row {row} comes before the row above it in the table's declared order"
    )]
    OutOfOrder {
        /// Table name.
        table: &'static str,
        /// The row (from 0) that is out of place.
        row: u64,
    },
    /// Two rows of a table share its unique key ([`crate::TableInfo::unique_key`]). From the
    /// writer, a defect in the stage that made the rows; from a reader, a damaged snapshot.
    #[error("table {table}: row {row} repeats the key of the row above it ({key})")]
    RepeatedKey {
        /// Table name.
        table: &'static str,
        /// The second of the two rows (from 0), in the table's order.
        row: u64,
        /// The key, as `column = value` pairs.
        key: String,
    },
    /// The manifest's schema version is newer than this build supports.
    #[error("snapshot has schema version {found}; this ckb reads up to {supported}")]
    SchemaUnsupported {
        /// Version in the manifest.
        found: u32,
        /// Newest supported version.
        supported: u32,
    },
}

impl FormatError {
    /// The stable code for this error. Every variant is named, so a new one has to choose.
    pub fn code(&self) -> ErrorCode {
        use FormatError::*;
        match self {
            SchemaUnsupported { .. } => ErrorCode::SchemaUnsupported,
            Io { .. } => ErrorCode::IoError,
            // Only the writer raises it as an error (`ckb verify` reports it as a problem of the
            // file): the stages made two rows of one key.
            RepeatedKey { .. } => ErrorCode::InternalError,
            MissingColumn { .. }
            | ColumnType { .. }
            | UnexpectedNull { .. }
            | InvalidValue { .. }
            | ShortColumn { .. }
            | Parquet(_)
            | Damaged { .. }
            | Arrow(_)
            | Json(_)
            | DecompressedTooLarge { .. }
            | OutOfOrder { .. } => ErrorCode::SnapshotCorrupt,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_screaming_snake_case() {
        let mut seen = std::collections::BTreeSet::new();
        for c in ErrorCode::ALL {
            let s = c.as_str();
            assert!(
                s.chars().all(|ch| ch.is_ascii_uppercase() || ch == '_'),
                "{s}"
            );
            assert!(seen.insert(s), "duplicate {s}");
        }
    }
}
