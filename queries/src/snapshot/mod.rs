//! Reading snapshots: opening a snapshot folder ([`Snapshot`], how fresh it is against the working
//! tree: [`Freshness`]) and, below, reading only what a query needs from its Parquet files
//! (`read`), finding what an argument names (`lookup`: a symbol ID or name; `target`: a
//! symbol, file, folder or module), and how complete its stages are (`coverage`).

pub mod cache;
pub mod coverage;
pub mod lookup;
mod passes;
pub mod read;
pub mod target;

use std::path::{Path, PathBuf};

use output_schema::folder_lock::{self, FolderLock};
use output_schema::manifest::Manifest;
use output_schema::parquet_io::read_table;
use output_schema::verify::read_manifest;
use output_schema::{ErrorCode, Table};
use serde::Serialize;

use crate::QueryError;

/// An opened snapshot. While any clone of it lives, it holds a read lock on its folder, so
/// `ckb store gc` keeps it ([`output_schema::folder_lock`]).
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// Its folder.
    pub dir: PathBuf,
    /// Its manifest.
    pub manifest: Manifest,
    _lock: Option<std::sync::Arc<FolderLock>>,
    /// Decoded tables kept across queries (`ckb mcp`); `None` reads only what each query needs.
    pub cache: Option<std::sync::Arc<cache::TableCache>>,
}

named_enum! {
    /// Where the snapshot stands against the working tree.
    #[derive(Default)]
    pub enum FreshnessState {
        /// The snapshot describes the working tree.
        Current => "current",
        /// The snapshot's commit is an ancestor of HEAD.
        Behind => "behind",
        /// HEAD is the snapshot's commit but the working tree has other changes.
        Dirty => "dirty",
        /// The snapshot's commit is not an ancestor of HEAD.
        Diverged => "diverged",
        /// Nothing is known about the working tree.
        #[default]
        Unknown => "unknown",
    }
}

impl FreshnessState {
    /// Whether taking a new snapshot would describe the working tree better.
    pub fn is_outdated(self) -> bool {
        matches!(
            self,
            FreshnessState::Behind | FreshnessState::Dirty | FreshnessState::Diverged
        )
    }
}

/// How the snapshot relates to the working tree it is queried from (computed by the caller).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Freshness {
    /// Where the snapshot stands against the working tree.
    pub state: FreshnessState,
    /// The working tree's HEAD.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head_commit: Option<String>,
    /// Commits from the snapshot's head to HEAD, when the snapshot's head is an ancestor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commits_behind: Option<u64>,
    /// Whether the working tree has uncommitted changes.
    pub worktree_dirty: bool,
}

impl Freshness {
    /// Freshness when nothing is known about the working tree (an explicit --snapshot).
    pub fn unknown() -> Freshness {
        Freshness {
            state: FreshnessState::Unknown,
            ..Freshness::default()
        }
    }

    /// Whether locations in the snapshot may not match the working tree.
    pub fn may_be_stale(&self) -> bool {
        self.state != FreshnessState::Current
    }
}

impl Snapshot {
    /// Opens a snapshot folder: the manifest must exist, decode and not be newer than this build.
    /// The folder is locked for reading first, so the manifest and the tables read later are of
    /// the same snapshot even when `ckb store gc` runs meanwhile.
    pub fn open(dir: &Path) -> Result<Snapshot, QueryError> {
        let not_a_snapshot = || {
            QueryError::new(
                ErrorCode::SnapshotNotFound,
                format!("{} is not a snapshot (no {})", dir.display(), output_schema::layout::MANIFEST_FILE),
                "pass a snapshot folder (…/repo=<id>/commit=<sha>) or create one with `ckb snapshot`",
            )
        };
        let lock = folder_lock::hold_snapshot(dir).map_err(|_| not_a_snapshot())?;
        if !dir.join(output_schema::layout::MANIFEST_FILE).is_file() {
            return Err(not_a_snapshot());
        }
        let manifest = read_manifest(dir).map_err(|e| QueryError::from_format("manifest", e))?;
        Ok(Snapshot {
            dir: dir.to_path_buf(),
            manifest,
            _lock: lock.map(std::sync::Arc::new),
            cache: None,
        })
    }

    /// A snapshot folder described by a manifest the caller already holds, read without the
    /// reader's folder lock: for a folder no other process writes or collects (the fuzz targets'
    /// scratch folder, which holds a lone table file and no manifest).
    pub fn with_manifest(dir: &Path, manifest: Manifest) -> Snapshot {
        Snapshot {
            dir: dir.to_path_buf(),
            manifest,
            _lock: None,
            cache: None,
        }
    }

    /// Whether a table was written.
    pub fn has_table(&self, name: &str) -> bool {
        self.manifest.table(name).is_some()
    }

    /// Path of a written table's file.
    pub fn table_path(&self, name: &str) -> Option<PathBuf> {
        self.manifest.table(name).map(|t| self.dir.join(&t.file))
    }

    /// The snapshot with a cache of decoded tables of at most `limit` bytes (see `cache`).
    pub fn with_cache(mut self, limit: usize) -> Snapshot {
        self.cache = Some(std::sync::Arc::new(cache::TableCache::new(limit)));
        self
    }

    /// Reads every row of a table; `Ok(None)` when the table was not written.
    pub fn read<T: Table>(&self) -> Result<Option<Vec<T>>, QueryError> {
        match self.table_path(T::INFO.name) {
            None => Ok(None),
            Some(p) => read_table::<T>(&p)
                .map(Some)
                .map_err(|e| QueryError::from_format(T::INFO.name, e)),
        }
    }
}
