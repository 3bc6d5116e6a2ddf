//! The table cache: every row group of every table as this program encoded it, kept beside the
//! snapshots in a [`CachePack`] and found again by the group's rows ([`GroupCache`]).
//!
//! Row groups are cut by content ([`output_schema::row_groups`]), so a commit changes the groups
//! that hold the rows it changed and leaves the others' rows as they were. Their column chunks are
//! copied from here instead of encoded again, which leaves the file's bytes as a cold run writes
//! them (`output_schema::parquet_io` tests it). A blob is the Parquet file of one row group; its
//! key hashes the table, the schema version and the rows. The identity holds the program, whose
//! writer settings and Parquet library shape the bytes: a cache written by another build is not
//! read. Blobs hold what the snapshot's tables hold, never more.

use std::sync::{Mutex, PoisonError};

use output_schema::manifest::Warning;
use output_schema::row_groups::{GroupCache, GroupKey};

use crate::cache_pack::{CachePack, PackUpdate};

/// Folder of the table cache in a repository's folder of the store.
pub const CACHE_DIR: &str = "table-cache";

/// The identity a table cache is written for: the program (its writer settings and Parquet
/// library decide the bytes of every chunk).
pub fn identity(program: &str) -> String {
    format!("tables v1; {program}")
}

/// The table cache a run reads, and what it leaves for the next run.
pub struct TableCache {
    pack: CachePack,
    update: Mutex<PackUpdate>,
}

impl TableCache {
    /// The cache `pack` holds, with an update that keeps what this run uses.
    pub fn new(pack: CachePack) -> TableCache {
        let update = Mutex::new(pack.update());
        TableCache { pack, update }
    }

    /// What went wrong reading the cache, as the run's warnings.
    pub fn warnings(&self) -> Vec<Warning> {
        CachePack::warnings(
            Some(&self.pack),
            CACHE_DIR,
            "its row groups were encoded afresh",
        )
    }

    /// Saves the row groups this run's tables hold, for the next run (once the snapshot is
    /// published).
    pub fn save(self) {
        let update = self
            .update
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        update.save(&self.pack);
    }
}

impl GroupCache for TableCache {
    fn get(&self, key: &GroupKey) -> Option<&[u8]> {
        self.pack.get(key)
    }

    fn used(&self, key: GroupKey, encoded: Option<Vec<u8>>) {
        let mut update = self.update.lock().unwrap_or_else(PoisonError::into_inner);
        match encoded {
            Some(blob) => update.add(key, blob),
            None => update.keep(key),
        }
    }
}
