//! Decoded tables kept in memory for the queries of a long-lived reader (`ckb mcp`).
//!
//! A one-shot `ckb query` reads only the columns and row groups it needs, straight from the
//! Parquet files (`read`). A server answering many questions about one snapshot would decompress
//! and decode the same pages on every call instead; with a [`TableCache`] attached to the
//! [`crate::Snapshot`], `read` decodes each table once, whole, and answers every later read of it
//! from memory — the same rows in the same stored order, filtered by the same predicates, so
//! answers are byte-identical either way (the MCP tests compare them with the CLI's).
//!
//! Bounded: a table whose decoded size would take the cache over its limit is not kept (reads of
//! it go to the file as without a cache). A snapshot is immutable once published, so entries
//! never go stale; a newer snapshot comes with a new cache.
//!
//! Besides tables, the cache keeps **derived** values a command builds once from cached tables
//! and looks things up in on every later call ([`TableCache::derived`]): search's ranking index
//! (usage by stable ID, types by name) instead of a scan of `usage` and `symbols` per search.
//! They are built from tables the cache holds, so they are no larger than those; they are not
//! counted against the limit.

use std::any::Any;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use arrow::array::RecordBatch;

/// Decoded tables of one snapshot, by table name.
pub struct TableCache {
    limit: usize,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    tables: BTreeMap<String, Arc<Vec<RecordBatch>>>,
    bytes: usize,
    derived: BTreeMap<&'static str, Arc<dyn Any + Send + Sync>>,
}

impl std::fmt::Debug for TableCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (tables, bytes) = self
            .state
            .lock()
            .map(|s| (s.tables.len(), s.bytes))
            .unwrap_or_default();
        f.debug_struct("TableCache")
            .field("limit", &self.limit)
            .field("tables", &tables)
            .field("bytes", &bytes)
            .finish()
    }
}

/// The default limit: decoded tables up to 1 GiB.
pub const DEFAULT_LIMIT: usize = 1 << 30;

impl TableCache {
    /// An empty cache holding at most `limit` bytes of decoded tables.
    pub fn new(limit: usize) -> TableCache {
        TableCache {
            limit,
            state: Mutex::new(State::default()),
        }
    }

    /// The decoded table, when cached.
    pub fn get(&self, table: &str) -> Option<Arc<Vec<RecordBatch>>> {
        self.state.lock().ok()?.tables.get(table).cloned()
    }

    /// Keeps a decoded table when it fits; returns it either way.
    pub fn put(&self, table: &str, batches: Vec<RecordBatch>) -> Arc<Vec<RecordBatch>> {
        let batches = Arc::new(batches);
        let size: usize = batches.iter().map(RecordBatch::get_array_memory_size).sum();
        if let Ok(mut state) = self.state.lock() {
            if state.bytes + size <= self.limit {
                state.bytes += size;
                state.tables.insert(table.to_string(), batches.clone());
            }
        }
        batches
    }

    /// The value derived under `key`, built by `build` on first use and kept. A failed build
    /// keeps nothing (the next call tries again).
    pub fn derived<T: Any + Send + Sync, E>(
        &self,
        key: &'static str,
        build: impl FnOnce() -> Result<T, E>,
    ) -> Result<Arc<T>, E> {
        let found = self
            .state
            .lock()
            .ok()
            .and_then(|s| s.derived.get(key).cloned())
            .and_then(|v| v.downcast::<T>().ok());
        if let Some(value) = found {
            return Ok(value);
        }
        // Built outside the lock: building reads tables through this cache.
        let value = Arc::new(build()?);
        if let Ok(mut state) = self.state.lock() {
            state.derived.insert(key, value.clone());
        }
        Ok(value)
    }

    /// Bytes of decoded tables held.
    pub fn bytes(&self) -> usize {
        self.state.lock().map(|s| s.bytes).unwrap_or(0)
    }
}
