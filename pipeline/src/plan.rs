//! The plan of a snapshot run: [`SnapshotOptions`], `.ckb/config.json` and the defaults resolved
//! once, and checked, into one typed [`Plan`] before any file is read.
//!
//! Every refusal a run can make from its options alone (a bad `--threads`-independent value, an
//! unknown privacy mode, an anonymized run without its salt, a malformed `--scip-commit`, a missing
//! `--scip` file) happens here, in the order the options are documented; the stages read the plan
//! and never the raw options again.

use std::path::{Path, PathBuf};
use std::time::Duration;

use output_schema::config::Config;
use output_schema::{ids, layout, PrivacyMode, Stage};

use crate::privacy::Anonymizer;
use crate::repo_state::{self, StateExclusions};
use crate::store::Store;
use crate::{scan, scan_cache, scip, PipelineError, PreviousChoice, SnapshotOptions};

/// A snapshot run, decided: where, what, and under which privacy mode.
pub struct Plan {
    /// Repository root (absolute, canonical).
    pub root: PathBuf,
    /// Effective config (file, then options on top).
    pub config: Config,
    /// The privacy mode (`config.privacy`, typed).
    pub privacy: PrivacyMode,
    /// The anonymizer of an anonymized run, keyed by `CKB_SALT`.
    pub anonymizer: Option<Anonymizer>,
    /// Stages to run, in the order given.
    pub stages: Vec<Stage>,
    /// The git repository whose work tree is `root`, if any.
    pub repo: Option<gix::Repository>,
    /// Repository ID.
    pub repo_id: String,
    /// The store's folder (absolute).
    pub store_root: PathBuf,
    /// The store.
    pub store: Store,
    /// SCIP indexes to read, absolute, in precedence order.
    pub scip_indexes: Vec<PathBuf>,
    /// Paths that never make the working tree dirty (the store, SCIP indexes and sidecars).
    pub exclusions: StateExclusions,
    /// The scan's settings.
    pub scan_config: scan::ScanConfig,
    /// Rebuild even if a snapshot of this state exists.
    pub force: bool,
    /// How long to wait for another writer of the same snapshot.
    pub lock_timeout: Duration,
    /// Also write each table as JSON Lines.
    pub json_tables: bool,
    /// Worker threads asked for (`None`: all cores).
    pub threads: Option<usize>,
    /// Which previous snapshot to build against.
    pub previous: PreviousChoice,
    /// `--no-scip`.
    pub no_scip: bool,
    /// `--scip-commit`.
    pub scip_commit: Option<String>,
    /// `--history-fetch-missing`.
    pub history_fetch_missing: bool,
}

impl Plan {
    /// Resolves and checks `opts` against the repository's config.
    pub fn resolve(opts: &SnapshotOptions) -> Result<Plan, PipelineError> {
        let root = resolve_root(&opts.root)?;
        let mut config = Config::load(&root)?;
        if let Some(n) = opts.max_file_bytes {
            if n == 0 {
                return Err(invalid("--max-file-size", "must be greater than 0".into()));
            }
            config.max_file_bytes = n;
        }
        if let Some(p) = &opts.privacy {
            if PrivacyMode::from_name(p).is_none() {
                return Err(invalid(
                    "--privacy",
                    format!("{p:?} is not one of standard, anonymized"),
                ));
            }
            config.privacy = p.clone();
        }
        let privacy = PrivacyMode::from_name(&config.privacy).ok_or_else(|| {
            invalid(
                "privacy",
                format!("{:?} is not one of standard, anonymized", config.privacy),
            )
        })?;
        // Checked before any work: an anonymized snapshot without its salt must fail fast.
        let anonymizer = (privacy == PrivacyMode::Anonymized)
            .then(Anonymizer::from_env)
            .transpose()?;
        if let Some(days) = opts.history_days {
            config.history.days = days;
        }
        if let Some(n) = opts.max_commits {
            config.history.max_commits = n;
        }
        if let Some(fp) = opts.first_parent {
            config.history.first_parent = fp;
        }
        let stages: Vec<Stage> = match &opts.stages {
            Some(s) => s.clone(),
            None => config
                .stages
                .iter()
                .filter_map(|s| Stage::from_name(s))
                .collect(),
        };
        if let Some(sha) = &opts.scip_commit {
            if !scip::freshness::is_commit_spec(sha) {
                return Err(invalid(
                    "--scip-commit",
                    format!("{sha:?} is not a hex commit ID"),
                ));
            }
        }

        let repo = repo_state::open_repository(&root)?;
        let repo_id = repo_id(opts, &config, &root, repo.as_ref(), anonymizer.as_ref())?;
        let store_root = store_root(opts, &config, &root, &repo_id)?;
        let store = Store::new(&store_root);
        let scip_indexes = if opts.no_scip || !stages.contains(&Stage::Scip) {
            Vec::new()
        } else {
            scip_indexes(&opts.scip, &root)?
        };
        let exclusions = StateExclusions::store_and_files(
            &root,
            &store_root,
            scip_input_files(&scip_indexes, &root),
        );
        let scan_config = scan::ScanConfig {
            max_file_bytes: config.max_file_bytes,
            ignore_globs: config.ignore.clone(),
            excluded_folders: vec![store_root.clone()],
            // Real paths beside an anonymized store would undo the anonymization: no cache there.
            cache_file: anonymizer
                .is_none()
                .then(|| store.repo_dir(&repo_id).join(scan_cache::CACHE_FILE)),
        };
        Ok(Plan {
            root,
            config,
            privacy,
            anonymizer,
            stages,
            repo,
            repo_id,
            store_root,
            store,
            scip_indexes,
            exclusions,
            scan_config,
            force: opts.force,
            lock_timeout: opts.lock_timeout.unwrap_or(Duration::from_secs(300)),
            json_tables: opts.json_tables,
            threads: opts.threads,
            previous: opts.previous.clone(),
            no_scip: opts.no_scip,
            scip_commit: opts.scip_commit.clone(),
            history_fetch_missing: opts.history_fetch_missing,
        })
    }

    /// Whether `stage` was asked for.
    pub fn selected(&self, stage: Stage) -> bool {
        self.stages.contains(&stage)
    }

    /// Whether the working tree is scanned: for the scan stage, or to describe a folder outside
    /// git (its state is the hash of its files).
    pub fn needs_scan(&self) -> bool {
        self.selected(Stage::Scan) || self.repo.is_none()
    }
}

fn invalid(name: &str, message: String) -> PipelineError {
    PipelineError::InvalidParameter {
        name: name.into(),
        message,
    }
}

/// The repository ID: `--repo-id`, else the config's, else the remote's or the folder's name —
/// a real name, hashed in an anonymized run.
fn repo_id(
    opts: &SnapshotOptions,
    config: &Config,
    root: &Path,
    repo: Option<&gix::Repository>,
    anonymizer: Option<&Anonymizer>,
) -> Result<String, PipelineError> {
    match opts.repo_id.clone().or_else(|| config.repo_id.clone()) {
        Some(id) if ids::is_valid_repo_id(&id) => Ok(id),
        Some(id) => Err(invalid(
            "--repo-id",
            format!("{id:?} may only use letters, digits, '.', '_' and '-'"),
        )),
        None => Ok(match anonymizer {
            Some(a) => a.name(&default_repo_id(root, repo)),
            None => default_repo_id(root, repo),
        }),
    }
}

/// `--out` (or CKB_STORE, which the CLI passes as `out`) is the caller's choice, taken as given;
/// the repository's own config may only name a folder inside it, reached without a symlink, down
/// to the repository's folder in the store.
fn store_root(
    opts: &SnapshotOptions,
    config: &Config,
    root: &Path,
    repo_id: &str,
) -> Result<PathBuf, PipelineError> {
    Ok(match &opts.out {
        Some(out) if out.is_absolute() => out.clone(),
        Some(out) => std::env::current_dir()
            .map_err(|e| PipelineError::io(out, e))?
            .join(out),
        None => {
            let repo_dir = format!("{}{repo_id}", layout::REPO_PARTITION);
            output_schema::config::repository_store(root, &config.store, &[&repo_dir])?
        }
    })
}

/// SCIP inputs: explicit files (relative to the working directory), else discovered ones.
fn scip_indexes(explicit: &[PathBuf], root: &Path) -> Result<Vec<PathBuf>, PipelineError> {
    if explicit.is_empty() {
        return Ok(scip::discover(root));
    }
    let cwd = std::env::current_dir().map_err(|e| PipelineError::io(root, e))?;
    let mut out = Vec::new();
    for p in explicit {
        let abs = if p.is_absolute() {
            p.clone()
        } else {
            cwd.join(p)
        };
        if !abs.is_file() {
            return Err(PipelineError::Scip {
                path: p.clone(),
                message: "no such file".into(),
            });
        }
        out.push(abs);
    }
    Ok(out)
}

/// Index files and their commit sidecars are ckb inputs: generating them must not make the
/// working tree look dirty.
fn scip_input_files(indexes: &[PathBuf], root: &Path) -> Vec<String> {
    indexes
        .iter()
        .filter_map(|p| {
            p.canonicalize()
                .ok()?
                .strip_prefix(root)
                .ok()
                .map(|r| r.to_string_lossy().replace('\\', "/"))
        })
        .flat_map(|r| [format!("{r}.commit"), r])
        .collect()
}

fn resolve_root(path: &Path) -> Result<PathBuf, PipelineError> {
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => PipelineError::PathNotFound {
            path: path.to_path_buf(),
        },
        _ => PipelineError::io(path, e),
    })?;
    if !meta.is_dir() {
        return Err(PipelineError::NotADirectory {
            path: path.to_path_buf(),
        });
    }
    path.canonicalize().map_err(|e| PipelineError::io(path, e))
}

/// The default repository ID: the `origin` remote's repository name, else the folder name.
pub fn default_repo_id(root: &Path, repo: Option<&gix::Repository>) -> String {
    let from_remote = repo.and_then(|r| {
        let remote = r.find_remote("origin").ok()?;
        let url = remote.url(gix::remote::Direction::Fetch)?;
        let path = url.path.to_string();
        let name = path
            .trim_end_matches('/')
            .rsplit(['/', ':'])
            .next()?
            .to_string();
        let name = name.strip_suffix(".git").unwrap_or(&name).to_string();
        (!name.is_empty()).then_some(name)
    });
    let name = from_remote.unwrap_or_else(|| {
        root.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "repo".into())
    });
    ids::sanitize_repo_id(&name)
}
