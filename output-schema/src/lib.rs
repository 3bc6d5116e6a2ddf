//! The ckb snapshot format, in one place.
//!
//! Everything a reader or writer of a snapshot needs to agree on lives here and nowhere else: the
//! schema version, every table's name, columns, types, documentation and sort key
//! ([`tables`], [`ALL_TABLES`]), every view's name and typed fields ([`views`], [`ALL_VIEWS`]),
//! how rows become Parquet bytes ([`parquet_io`]), the manifest
//! ([`manifest`]), the canonical JSON encoding ([`json`]), the stable error codes ([`ErrorCode`]),
//! the shape of stable symbol IDs ([`ids`]) and how a saved ID resolves through aliases and
//! tombstones ([`redirect`]).
//!
//! Architecture invariant: this crate depends on no other ckb crate and knows nothing about how
//! facts are extracted or how they are queried. It never reads a repository.
#![deny(missing_docs)]

pub mod column;
pub mod config;
pub mod contain;
pub mod error;
pub mod failpoint;
pub mod folder_lock;
pub mod ids;
pub mod indexers;
pub mod json;
pub mod layout;
pub mod manifest;
pub mod parquet_io;
pub mod redirect;
pub mod row_codec;
pub mod row_groups;
pub mod shared_str;
pub mod small_file;
pub mod table;
pub mod table_file;
pub mod tables;
pub mod thrift_check;
pub mod verify;
pub mod views;

pub use column::{Column, Roles};
pub use error::{ErrorCode, FormatError};
pub use manifest::PrivacyMode;
pub use shared_str::SharedStr;
pub use table::{ColumnInfo, Stage, Table, TableInfo};
pub use tables::ALL_TABLES;
pub use views::{View, ViewInfo, ALL_VIEWS};

/// Version of the snapshot format. Readers refuse a snapshot whose version is newer than the one
/// they were built with (`SCHEMA_UNSUPPORTED`); a change that removes or retypes a column bumps it.
pub const SCHEMA_VERSION: u32 = 1;

/// The version of ckb that wrote a snapshot (recorded in the manifest and Parquet `created_by`).
pub const CKB_VERSION: &str = env!("CARGO_PKG_VERSION");

/// A decoding limit in bytes: the environment variable `var` when it holds a byte count, else
/// `default` (an absent, empty or malformed value keeps the default).
pub(crate) fn byte_limit(var: &str, default: u64) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// Finds a table's description by name.
pub fn table_info(name: &str) -> Option<&'static TableInfo> {
    ALL_TABLES.iter().copied().find(|t| t.name == name)
}
