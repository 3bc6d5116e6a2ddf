//! The ckb snapshot pipeline: from a repository folder to a snapshot in the store.
//!
//! A run is a [`plan::Plan`] (options resolved once) followed by stages — scan → syntax → scip →
//! git → identity → modules — each a module with a plain function from typed input to typed rows
//! plus a `StageReport` for the manifest (the contract: [`stage`]). Merge ([`merge`]) and
//! anonymization ([`privacy`]) are steps of their own between them. [`snapshot`] hands the run to
//! the driver (`driver.rs`), which publishes the result atomically through the [`store`].
//!
//! Architecture invariant: this crate knows the snapshot format only through `output-schema`, never
//! prints (progress goes through [`Progress`]), and knows nothing about queries or the CLI.

pub mod allocator;
pub mod cache_pack;
mod driver;
pub mod error;
pub mod fast_map;
pub mod fingerprint;
pub mod gc;
pub mod hashing;
pub mod history;
pub mod identity;
pub mod indexers;
pub mod leftovers;
pub mod merge;
pub mod modules;
pub mod plan;
mod previous;
pub mod privacy;
pub mod progress;
mod publish;
pub mod repo_state;
pub mod scan;
pub mod scan_cache;
pub mod scip;
pub mod signature;
pub mod stage;
pub mod store;
pub mod syntax;
pub mod table_cache;
pub mod usage;
mod warning_paths;
pub mod write;

use std::path::PathBuf;
use std::time::Duration;

use output_schema::Stage;

pub use error::PipelineError;
pub use plan::default_repo_id;
pub use progress::{NoProgress, Progress};
pub use stage::StageContext;
pub use store::snapshot_partition;
use store::StoredSnapshot;

/// Which previous snapshot to build against (identity, incremental reuse).
#[derive(Clone, Debug, Default, PartialEq)]
pub enum PreviousChoice {
    /// The newest snapshot in the store whose commit is an ancestor of HEAD.
    #[default]
    Auto,
    /// This snapshot folder.
    Explicit(PathBuf),
    /// None: compute everything from scratch.
    Disabled,
}

/// Everything `ckb snapshot` can be asked to do. `None` fields fall back to `.ckb/config.json`,
/// then to the documented defaults.
#[derive(Clone, Debug, Default)]
pub struct SnapshotOptions {
    /// Repository root.
    pub root: PathBuf,
    /// Store folder (default: `<root>/.ckb/snapshots`).
    pub out: Option<PathBuf>,
    /// Repository ID.
    pub repo_id: Option<String>,
    /// Stages to run.
    pub stages: Option<Vec<Stage>>,
    /// Rebuild even if a snapshot of this state exists.
    pub force: bool,
    /// Size limit for scanned files.
    pub max_file_bytes: Option<u64>,
    /// Worker threads (default: all cores).
    pub threads: Option<usize>,
    /// Previous snapshot choice.
    pub previous: PreviousChoice,
    /// How long to wait for another writer of the same snapshot.
    pub lock_timeout: Option<Duration>,
    /// Privacy mode: `standard` or `anonymized`.
    pub privacy: Option<String>,
    /// Also write each table as zstd-compressed JSON Lines.
    pub json_tables: bool,
    /// Days of history before HEAD's committer time (`--history-days N`; 0 = no time limit).
    pub history_days: Option<u32>,
    /// Most commits in the history window (`--max-commits N`; 0 = no limit).
    pub max_commits: Option<u32>,
    /// Follow only first parents in the history walk (`--first-parent`).
    pub first_parent: Option<bool>,
    /// Let the user's `git` fetch the trees and blobs the history window lacks from a partial
    /// clone's promisor remote (`--history-fetch-missing`); never by default.
    pub history_fetch_missing: bool,
    /// `--scip FILE` (repeatable): SCIP indexes to read, in order (an earlier one wins a file both
    /// cover). Empty: auto-discovery (`index.scip`, `.scip/*.scip`, `.ckb/*.scip`).
    pub scip: Vec<PathBuf>,
    /// `--no-scip`: read no SCIP index, not even discovered ones.
    pub no_scip: bool,
    /// `--scip-commit SHA`: the commit the SCIP indexes describe (else `<index>.commit` sidecars).
    pub scip_commit: Option<String>,
}

/// What [`snapshot`] did.
#[derive(Debug)]
pub enum SnapshotOutcome {
    /// A new snapshot was written.
    Written {
        /// The snapshot.
        snapshot: StoredSnapshot,
        /// Wall time per stage, in run order (also in `run.json`).
        timings: Vec<(String, Duration)>,
    },
    /// A snapshot of this exact state already existed and was left alone.
    Existing {
        /// The snapshot.
        snapshot: StoredSnapshot,
    },
}

impl SnapshotOutcome {
    /// The snapshot either way.
    pub fn snapshot(&self) -> &StoredSnapshot {
        match self {
            SnapshotOutcome::Written { snapshot, .. } | SnapshotOutcome::Existing { snapshot } => {
                snapshot
            }
        }
    }
}

/// Builds a snapshot of `opts.root` and publishes it in the store.
pub fn snapshot(
    opts: &SnapshotOptions,
    progress: &dyn Progress,
) -> Result<SnapshotOutcome, PipelineError> {
    let threads = opts.threads.unwrap_or(0);
    if opts.threads == Some(0) {
        return Err(PipelineError::InvalidParameter {
            name: "--threads".into(),
            message: "must be at least 1".into(),
        });
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| PipelineError::InvalidParameter {
            name: "--threads".into(),
            message: e.to_string(),
        })?;
    pool.install(|| driver::run(opts, progress))
}
