//! Errors of the snapshot pipeline, each with a stable code and a remediation.

use std::path::PathBuf;

use output_schema::{ErrorCode, FormatError};

/// An error that stops a snapshot. Problems with single input files are not errors: they are
/// counted and reported as warnings in the manifest.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// The path to snapshot does not exist.
    #[error("{path}: no such directory")]
    PathNotFound {
        /// The path given.
        path: PathBuf,
    },
    /// The path to snapshot is not a directory.
    #[error("{path}: not a directory")]
    NotADirectory {
        /// The path given.
        path: PathBuf,
    },
    /// `.ckb/config.json` is invalid.
    #[error("{path}: {message}")]
    Config {
        /// The config file.
        path: PathBuf,
        /// What is wrong, naming the key.
        message: String,
    },
    /// A parameter is out of range or malformed.
    #[error("invalid parameter {name}: {message}")]
    InvalidParameter {
        /// The parameter.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// The store cannot be written.
    #[error("cannot write the snapshot store at {path}: {source}")]
    OutputNotWritable {
        /// The folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The disk (or quota) holding the store is full; nothing was published.
    #[error("the disk holding the snapshot store is full ({path}: {source})")]
    StoreFull {
        /// What was being written.
        path: PathBuf,
        /// The cause (ENOSPC, EDQUOT).
        source: std::io::Error,
    },
    /// The store folder does not exist.
    #[error("{path}: no snapshot store there")]
    StoreNotFound {
        /// The folder.
        path: PathBuf,
    },
    /// Another process is writing the same snapshot.
    #[error("another ckb process is writing {path} (lock held since {since})")]
    Locked {
        /// The lock file.
        path: PathBuf,
        /// What the lock file says about its holder.
        since: String,
    },
    /// Readers still hold the snapshot a `--force` rebuild replaces.
    #[error("{path} is still being read (waited {waited_secs} s for its readers to finish)")]
    ReadersHold {
        /// The snapshot folder.
        path: PathBuf,
        /// How long the writer waited.
        waited_secs: u64,
    },
    /// A SCIP index cannot be used.
    #[error("SCIP index {path}: {message}")]
    Scip {
        /// The index file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The git repository cannot be read.
    #[error("git: {message}")]
    Git {
        /// What failed, naming the object or reference.
        message: String,
    },
    /// The commit or a tree checked out at HEAD cannot be read: nothing of HEAD can be described.
    /// (Objects only older history needs degrade the git stage instead.)
    #[error("git: {message}")]
    HeadUnreadable {
        /// What cannot be read, naming the object and the kind of clone.
        message: String,
        /// The fix for that kind of clone.
        remediation: String,
    },
    /// A file-system operation failed.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The snapshot given as `--previous` does not match its manifest: none of its rows is used.
    #[error("--previous {dir}: the snapshot does not match its manifest: {problem}")]
    PreviousCorrupt {
        /// The snapshot folder.
        dir: PathBuf,
        /// The failing files.
        problem: String,
    },
    /// Writing or reading snapshot data failed.
    #[error(transparent)]
    Format(#[from] FormatError),
}

impl PipelineError {
    /// The stable code.
    pub fn code(&self) -> ErrorCode {
        match self {
            PipelineError::PathNotFound { .. } | PipelineError::NotADirectory { .. } => {
                ErrorCode::PathNotFound
            }
            PipelineError::Config { .. } => ErrorCode::ConfigInvalid,
            PipelineError::InvalidParameter { .. } => ErrorCode::InvalidParameter,
            PipelineError::OutputNotWritable { .. } | PipelineError::StoreFull { .. } => {
                ErrorCode::OutputNotWritable
            }
            PipelineError::StoreNotFound { .. } => ErrorCode::PathNotFound,
            PipelineError::Locked { .. } | PipelineError::ReadersHold { .. } => {
                ErrorCode::SnapshotLocked
            }
            PipelineError::Scip { .. } => ErrorCode::ScipInvalid,
            PipelineError::Git { .. } | PipelineError::HeadUnreadable { .. } => ErrorCode::GitError,
            PipelineError::Io { .. } => ErrorCode::IoError,
            PipelineError::PreviousCorrupt { .. } => ErrorCode::SnapshotCorrupt,
            PipelineError::Format(e) => e.code(),
        }
    }

    /// What the user can do about it.
    pub fn remediation(&self) -> String {
        match self {
            PipelineError::PathNotFound { .. } | PipelineError::NotADirectory { .. } => {
                "pass the root folder of a repository: ckb snapshot PATH".into()
            }
            PipelineError::Config { .. } => {
                "fix the named key in .ckb/config.json, or run `ckb init --force` to write the defaults".into()
            }
            PipelineError::InvalidParameter { .. } => "see `ckb snapshot --help` for valid values".into(),
            PipelineError::OutputNotWritable { .. } => {
                "choose a writable store with --out DIR".into()
            }
            PipelineError::StoreFull { .. } => {
                "free space on that disk (`ckb store gc --keep-last N` prunes old snapshots) or \
                 write the snapshot to a store on another disk with --out DIR; the store is as it \
                 was, nothing half-written is left in it"
                    .into()
            }
            PipelineError::StoreNotFound { .. } => {
                "pass the store folder with --store DIR (or CKB_STORE); `ckb snapshot` makes one"
                    .into()
            }
            PipelineError::Locked { path, .. } => format!(
                "wait for the other ckb process to finish; if none is running, delete {}",
                path.display()
            ),
            PipelineError::ReadersHold { .. } => {
                "let its readers (ckb query, ckb diff, SQL sessions) finish, then run again, or \
                 wait longer with --lock-timeout SECS; the snapshot is as it was"
                    .into()
            }
            PipelineError::Scip { .. } => {
                "regenerate the index with its indexer, or leave it out (--no-scip)".into()
            }
            PipelineError::Git { .. } => {
                "run `git fsck` and repair the repository, or snapshot with --stages that exclude git".into()
            }
            PipelineError::HeadUnreadable { remediation, .. } => remediation.clone(),
            PipelineError::Io { .. } => "check that the path exists and is readable".into(),
            PipelineError::PreviousCorrupt { dir, .. } => format!(
                "`ckb verify {}` lists the damaged files; pass another --previous, rebuild that \
                 snapshot (ckb snapshot --force at its commit), or build without one \
                 (--no-previous)",
                dir.display()
            ),
            PipelineError::Format(FormatError::RepeatedKey { .. }) => {
                // A run that reused rows and met this is done again without them (the driver),
                // so the error reaches the user only from rows ckb computed itself.
                "this is a bug in ckb: report it with this message and the command you ran; \
                 nothing was written, the store is as it was"
                    .into()
            }
            PipelineError::Format(_) => {
                "the previous snapshot or an input file is damaged; rebuild with --force or --no-previous".into()
            }
        }
    }

    /// Wraps an I/O error with its path.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> PipelineError {
        PipelineError::Io {
            path: path.into(),
            source,
        }
    }

    /// The same error, as [`PipelineError::StoreFull`] when its cause is a full disk or quota:
    /// a writer's errors go through this, so that a full disk says what to do about it.
    pub fn or_store_full(self) -> PipelineError {
        let full = |source: &std::io::Error| output_schema::failpoint::is_disk_full(source);
        match self {
            PipelineError::Io { path, source }
            | PipelineError::OutputNotWritable { path, source }
                if full(&source) =>
            {
                PipelineError::StoreFull { path, source }
            }
            PipelineError::Format(FormatError::Io { path, source }) if full(&source) => {
                PipelineError::StoreFull {
                    path: path.into(),
                    source,
                }
            }
            other => other,
        }
    }
}

impl From<output_schema::config::ConfigError> for PipelineError {
    fn from(e: output_schema::config::ConfigError) -> Self {
        PipelineError::Config {
            path: e.path,
            message: e.message,
        }
    }
}
