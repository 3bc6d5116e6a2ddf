//! The ckb snapshot pipeline: from a repository folder to a snapshot in the store.
//!
//! Data flows one way through the stages — scan → syntax → scip → git → identity → modules →
//! write — each a module with a plain function from typed input to typed tables plus a
//! [`StageReport`] for the manifest. [`snapshot`] runs them, then publishes the result atomically
//! through the [`store`].
//!
//! Architecture invariant: this crate knows the snapshot format only through `output-schema`, never
//! prints (progress goes through [`Progress`]), and knows nothing about queries or the CLI.

pub mod allocator;
pub mod error;
pub mod fast_map;
pub mod fingerprint;
pub mod history;
pub mod identity;
pub mod merge;
pub mod modules;
pub mod privacy;
pub mod progress;
pub mod repo_state;
pub mod scan;
pub mod scan_cache;
pub mod scip;
pub mod signature;
pub mod store;
pub mod syntax;
pub mod write;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use output_schema::config::Config;
use output_schema::manifest::{Manifest, PreviousSnapshot, RepoState, StageReport};
use output_schema::{ids, layout, Stage, CKB_VERSION, SCHEMA_VERSION};

pub use error::PipelineError;
pub use progress::{NoProgress, Progress};
use store::{Store, StoredSnapshot};
use write::TableSet;

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

/// What every stage may read about the run.
pub struct StageContext<'a> {
    /// Repository root (absolute).
    pub root: &'a Path,
    /// Repository ID.
    pub repo_id: &'a str,
    /// Effective config.
    pub config: &'a Config,
    /// The state being snapshotted.
    pub repo_state: &'a RepoState,
    /// The previous snapshot, if one is used.
    pub previous: Option<&'a StoredSnapshot>,
    /// Progress sink.
    pub progress: &'a dyn Progress,
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
    pool.install(|| run(opts, progress))
}

fn run(opts: &SnapshotOptions, progress: &dyn Progress) -> Result<SnapshotOutcome, PipelineError> {
    let root = resolve_root(&opts.root)?;
    let mut config = Config::load(&root).map_err(|e| PipelineError::Config {
        path: e.path,
        message: e.message,
    })?;
    if let Some(n) = opts.max_file_bytes {
        if n == 0 {
            return Err(PipelineError::InvalidParameter {
                name: "--max-file-size".into(),
                message: "must be greater than 0".into(),
            });
        }
        config.max_file_bytes = n;
    }
    if let Some(p) = &opts.privacy {
        if !matches!(p.as_str(), "standard" | "anonymized") {
            return Err(PipelineError::InvalidParameter {
                name: "--privacy".into(),
                message: format!("{p:?} is not one of standard, anonymized"),
            });
        }
        config.privacy = p.clone();
    }
    // Checked before any work: an anonymized snapshot without its salt must fail fast.
    let anonymizer = (config.privacy == "anonymized")
        .then(privacy::Anonymizer::from_env)
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
    let selected = |s: Stage| stages.contains(&s);
    if let Some(sha) = &opts.scip_commit {
        if !scip::freshness::is_commit_spec(sha) {
            return Err(PipelineError::InvalidParameter {
                name: "--scip-commit".into(),
                message: format!("{sha:?} is not a hex commit ID"),
            });
        }
    }

    let repo = repo_state::open_repository(&root)?;
    let repo_id = match opts.repo_id.clone().or_else(|| config.repo_id.clone()) {
        Some(id) if ids::is_valid_repo_id(&id) => id,
        Some(id) => {
            return Err(PipelineError::InvalidParameter {
                name: "--repo-id".into(),
                message: format!("{id:?} may only use letters, digits, '.', '_' and '-'"),
            })
        }
        // The default ID is the remote's or the folder's name: a real name.
        None => match &anonymizer {
            Some(a) => a.name(&default_repo_id(&root, repo.as_ref())),
            None => default_repo_id(&root, repo.as_ref()),
        },
    };
    // `--out` (or CKB_STORE, which the CLI passes as `out`) is the caller's choice, taken as
    // given; the repository's own config may only name a folder inside it, reached without a
    // symlink, down to the repository's folder in the store.
    let store_root = match &opts.out {
        Some(out) if out.is_absolute() => out.clone(),
        Some(out) => std::env::current_dir()
            .map_err(|e| PipelineError::io(out, e))?
            .join(out),
        None => {
            let repo_dir = format!("{}{repo_id}", layout::REPO_PARTITION);
            output_schema::config::repository_store(&root, &config.store, &[&repo_dir]).map_err(
                |e| PipelineError::Config {
                    path: e.path,
                    message: e.message,
                },
            )?
        }
    };
    let store = Store::new(&store_root);
    let store_rel = store_root
        .strip_prefix(&root)
        .ok()
        .map(|p| p.to_string_lossy().replace('\\', "/"));

    // SCIP inputs: explicit files (relative to the working directory), else discovered ones.
    let scip_indexes: Vec<PathBuf> = if opts.no_scip || !selected(Stage::Scip) {
        Vec::new()
    } else if opts.scip.is_empty() {
        scip::discover(&root)
    } else {
        let cwd = std::env::current_dir().map_err(|e| PipelineError::io(&root, e))?;
        let mut out = Vec::new();
        for p in &opts.scip {
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
        out
    };

    let mut timings: Vec<(String, Duration)> = Vec::new();
    let clock = Instant::now();
    // Index files and their commit sidecars are ckb inputs: generating them must not make the
    // working tree look dirty.
    let scip_files: Vec<String> = scip_indexes
        .iter()
        .filter_map(|p| {
            p.canonicalize()
                .ok()?
                .strip_prefix(&root)
                .ok()
                .map(|r| r.to_string_lossy().replace('\\', "/"))
        })
        .flat_map(|r| [format!("{r}.commit"), r])
        .collect();
    let exclusions = repo_state::StateExclusions {
        folders: store_rel.iter().cloned().collect(),
        files: scip_files,
    };
    let scan_config = scan::ScanConfig {
        max_file_bytes: config.max_file_bytes,
        ignore_globs: config.ignore.clone(),
        excluded_folders: vec![store_root.clone()],
        // Real paths beside an anonymized store would undo the anonymization: no cache there.
        cache_file: anonymizer
            .is_none()
            .then(|| store.repo_dir(&repo_id).join(scan_cache::CACHE_FILE)),
    };
    let needs_scan = selected(Stage::Scan) || repo.is_none();
    let run_scan = || {
        let clock = Instant::now();
        let scanned = scan::scan(&root, &scan_config, progress);
        (scanned, clock.elapsed())
    };
    // The git state and the scan both walk the working tree, each mostly on one core. When the
    // git state cannot end the run (no snapshot of HEAD's commit is stored, or `--force`), they
    // run side by side; otherwise the state is read first, and an existing snapshot is found
    // without reading a single file.
    let side_by_side = needs_scan
        && repo.as_ref().is_some_and(|repo| {
            opts.force
                || repo.head_id().map_or(true, |head| {
                    store
                        .folders(&repo_id)
                        .at_commit(&head.to_string())
                        .is_empty()
                })
        });
    let read_git_state = || {
        repo.as_ref()
            .map(|repo| repo_state::read_state_of(repo, &root, &exclusions))
            .transpose()
    };
    let (git_state, scan_result) = if side_by_side {
        let mut scan_result = None;
        let git_state = rayon::in_place_scope(|scope| {
            scope.spawn(|_| scan_result = Some(run_scan()));
            read_git_state()
        });
        (git_state, scan_result)
    } else {
        (read_git_state(), None)
    };
    let mut git_state = git_state?;
    if let (Some(a), Some(state)) = (&anonymizer, &mut git_state) {
        a.key_repo_state(state);
    }
    timings.push(("repo-state".into(), clock.elapsed()));

    if let Some(state) = &git_state {
        if let Some(existing) =
            existing_snapshot(&store, &repo_id, state, opts.force, &config.privacy)?
        {
            return Ok(SnapshotOutcome::Existing { snapshot: existing });
        }
    }

    let scan_result = match scan_result {
        Some(done) => Some(done),
        None if needs_scan => Some(run_scan()),
        None => None,
    };
    let mut scanned = match scan_result {
        Some((scanned, took)) => {
            timings.push(("scan".into(), took));
            Some(scanned?)
        }
        None => None,
    };
    // Encoded meanwhile, written only once the snapshot is published: a failed run leaves the
    // store as it was.
    let scan_cache = scanned
        .as_mut()
        .and_then(|s| s.cache_update.take())
        .map(scan_cache::CacheUpdate::encode_in_background);

    let repo_state = match git_state {
        Some(s) => s,
        None => {
            let mut state = repo_state::nogit_state(
                scanned
                    .as_ref()
                    .map(|s| s.files.as_slice())
                    .unwrap_or_default()
                    .iter()
                    .map(|f| (f.path.as_str(), f.content_hash.as_str())),
            );
            if let Some(a) = &anonymizer {
                a.key_repo_state(&mut state);
            }
            state
        }
    };
    if !repo_state.is_git {
        if let Some(existing) =
            existing_snapshot(&store, &repo_id, &repo_state, opts.force, &config.privacy)?
        {
            return Ok(SnapshotOutcome::Existing { snapshot: existing });
        }
    }
    let partition = snapshot_partition(&repo_state);
    let _lock = store.lock(
        &repo_id,
        &partition,
        opts.lock_timeout.unwrap_or(Duration::from_secs(300)),
    )?;
    // Another writer may have finished the same state while we waited for the lock.
    if let Some(existing) =
        existing_snapshot(&store, &repo_id, &repo_state, opts.force, &config.privacy)?
    {
        return Ok(SnapshotOutcome::Existing { snapshot: existing });
    }

    let mut warnings_previous = Vec::new();
    let verify_clock = Instant::now();
    let (previous, previous_rejected) = trusted_previous(
        &opts.previous,
        anonymizer.is_some(),
        &store,
        &repo_id,
        repo.as_ref(),
        &repo_state,
        &root,
        &mut warnings_previous,
    )?;
    timings.push(("previous-verify".into(), verify_clock.elapsed()));
    let ctx = StageContext {
        root: &root,
        repo_id: &repo_id,
        config: &config,
        repo_state: &repo_state,
        previous: previous.as_ref().map(|(s, _)| s),
        progress,
    };

    let mut settings: BTreeMap<String, serde_json::Value> = BTreeMap::new();
    settings.insert("maxFileBytes".into(), config.max_file_bytes.into());
    settings.insert(
        "stages".into(),
        stages.iter().map(|s| s.name()).collect::<Vec<_>>().into(),
    );
    settings.insert("ignore".into(), config.ignore.clone().into());
    let mut backends = Vec::new();

    let mut tables = TableSet::default();
    let mut reports: BTreeMap<String, StageReport> = BTreeMap::new();
    for stage in Stage::ALL {
        reports.insert(
            stage.name().to_string(),
            StageReport::not_run(if selected(stage) {
                "not available in this build"
            } else {
                "not selected (--stages)"
            }),
        );
    }
    if let (true, Some(scan)) = (selected(Stage::Scan), scanned) {
        reports.insert(Stage::Scan.name().into(), scan.report);
        tables.files = Some(scan.files);
    }
    let mut views = output_schema::views::Views::default();

    if selected(Stage::Syntax) {
        match tables.files.as_deref() {
            Some(files) => {
                let clock = Instant::now();
                let out = syntax::run(&ctx, files, ctx.previous)?;
                timings.push(("syntax".into(), clock.elapsed()));
                tables.symbols = Some(out.symbols);
                tables.occurrences = Some(out.occurrences);
                tables.call_edges = Some(out.call_edges);
                tables.imports = Some(out.imports);
                reports.insert(Stage::Syntax.name().into(), out.report);
                backends.push(out.backend);
                views.syntax_files = Some(out.view);
            }
            None => {
                reports.insert(
                    Stage::Syntax.name().into(),
                    StageReport::skipped("input stage scan did not run"),
                );
            }
        }
    }

    let mut agreement = None;
    if selected(Stage::Scip) {
        let clock = Instant::now();
        let report = run_scip(
            &ctx,
            opts,
            repo.as_ref(),
            &scip_indexes,
            &mut tables,
            &mut backends,
            &mut agreement,
        )?;
        reports.insert(Stage::Scip.name().into(), report);
        timings.push(("scip".into(), clock.elapsed()));
    }

    let mut clone_damaged = false;
    if selected(Stage::Git) {
        let clock = Instant::now();
        match repo.as_ref() {
            None => {
                reports.insert(
                    Stage::Git.name().into(),
                    StageReport::skipped("not a git repository"),
                );
            }
            Some(repo) => {
                let mut history_opts = history::HistoryOptions::new(
                    &config.history,
                    &repo_id,
                    std::env::var("CKB_SALT").ok(),
                );
                history_opts.fetch_missing = opts.history_fetch_missing;
                let out = history::run(&ctx, repo, &history_opts, ctx.previous)?;
                if let Some(time) = out.fetch_time {
                    timings.push(("git.fetch-missing".into(), time));
                }
                clone_damaged = out.damaged;
                tables.commits = Some(out.commits);
                tables.file_changes = Some(out.file_changes);
                tables.churn = Some(out.churn);
                tables.cochange = Some(out.cochange);
                tables.ownership = Some(out.ownership);
                reports.insert(Stage::Git.name().into(), out.report);
                backends.push(out.backend);
                settings.extend(out.settings);
            }
        }
        timings.push(("git".into(), clock.elapsed()));
    }

    // Identity runs after every extraction stage, over the final merged symbols.
    if selected(Stage::Identity) {
        let clock = Instant::now();
        let report = match &tables.symbols {
            None => {
                let mut r = StageReport::skipped("no symbols: syntax and scip did not run");
                r.set_warnings(
                    warnings_previous
                        .iter()
                        .map(|m| output_schema::manifest::Warning {
                            code: "previous-snapshot".into(),
                            path: None,
                            message: m.clone(),
                        })
                        .collect(),
                );
                r
            }
            Some(symbols) => {
                // The SCIP/tree-sitter agreement needs both views before their merge; pass
                // `identity::backend_agreement(&tree_sitter, &scip)` here once both are wired.
                let out = identity::identity(&ctx, symbols, agreement, &warnings_previous);
                tables.aliases = Some(out.aliases);
                tables.tombstones = Some(out.tombstones);
                out.report
            }
        };
        reports.insert(Stage::Identity.name().into(), report);
        timings.push(("identity".into(), clock.elapsed()));
    }

    // The modules stage runs last: it reads every table the other stages produced.
    if selected(Stage::Modules) {
        let clock = Instant::now();
        if tables.files.is_some() {
            let out = modules::run(&ctx, &mut tables);
            reports.insert(Stage::Modules.name().into(), out.report);
            views.architecture = out.view;
        } else {
            reports.insert(
                Stage::Modules.name().into(),
                StageReport::skipped("input stage scan did not run"),
            );
        }
        timings.push(("modules".into(), clock.elapsed()));
    }

    if let Some(warning) = previous_rejected {
        let home = [Stage::Identity, Stage::Syntax, Stage::Git, Stage::Scan]
            .into_iter()
            .find(|&s| selected(s))
            .and_then(|s| reports.get_mut(s.name()));
        if let Some(report) = home {
            let total = report.warnings_total + 1;
            let mut warnings = std::mem::take(&mut report.warnings);
            warnings.push(warning);
            report.set_warnings(warnings);
            report.warnings_total = total;
        }
    }

    settings.insert("privacy".into(), config.privacy.clone().into());
    let mut repo_state_written = repo_state.clone();
    if let Some(anonymizer) = &anonymizer {
        privacy::anonymize(&mut tables, anonymizer);
        privacy::anonymize_views(&mut views, anonymizer);
        privacy::anonymize_manifest_parts(
            &mut reports,
            &mut backends,
            &mut settings,
            &mut repo_state_written,
            anonymizer,
        );
    } else {
        // Problems are reported with the path the user gave or a library's own wording, which may
        // be absolute: the snapshot keeps paths relative to the repository or the store.
        for report in reports.values_mut() {
            for w in &mut report.warnings {
                w.message = relative_paths(&w.message, &root, &store_root);
                w.path = w
                    .path
                    .as_deref()
                    .map(|p| relative_paths(p, &root, &store_root));
            }
        }
    }

    let clock = Instant::now();
    let tmp = store.temp_dir(&repo_id, &partition)?;
    let written = (|| -> Result<Manifest, PipelineError> {
        let syncs = output_schema::parquet_io::Syncs::default();
        let (table_entries, json_entries) =
            write::write_tables(&syncs, &tmp, &mut tables, opts.json_tables)?;
        let view_entries = write::write_views(&syncs, &tmp, &views)?;
        let manifest = Manifest {
            schema_version: SCHEMA_VERSION,
            ckb_version: CKB_VERSION.to_string(),
            repo_id: repo_id.clone(),
            snapshot_id: partition.clone(),
            repo_state: {
                let mut state = repo_state_written;
                // Only the git stage can tell that objects are missing without a filter.
                if let Some(clone) = state.clone_state.as_mut().filter(|_| clone_damaged) {
                    clone.kind = "damaged".into();
                }
                state
            },
            privacy: config.privacy.clone(),
            settings,
            previous: previous.as_ref().map(|(s, chosen_by)| PreviousSnapshot {
                snapshot_id: s.manifest.snapshot_id.clone(),
                repo_state_id: s.manifest.repo_state.repo_state_id.clone(),
                head_commit: s.manifest.repo_state.head_commit.clone(),
                chosen_by: chosen_by.to_string(),
            }),
            backends,
            stages: reports,
            tables: table_entries,
            views: view_entries,
            json_tables: json_entries,
        };
        syncs.write(&tmp.join(layout::MANIFEST_FILE), &manifest.encode()?)?;
        // The folders' entries, flushed with the files: the store publishes only durable folders.
        for dir in [tmp.clone(), tmp.join(layout::VIEWS_DIR)] {
            if let Some(folder) = store::open_dir(&dir) {
                syncs.flush(&dir, folder)?;
            }
        }
        syncs.wait()?;
        Ok(manifest)
    })();
    drop_in_background(tables);
    let manifest = match written {
        Ok(m) => m,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    timings.push(("write".into(), clock.elapsed()));
    write_run_file(&tmp, &timings, opts.threads);
    let dest = store.snapshot_dir(&repo_id, &partition);
    // Test hook for kill-safety: die the hardest way possible with everything written but nothing
    // published, as a crash or `kill -9` would.
    if std::env::var_os("CKB_FAILPOINT").is_some_and(|v| v == "before-publish") {
        std::process::abort();
    }
    if let Err(e) = store.publish(&tmp, &dest) {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    if let Some(cache) = scan_cache {
        cache.save();
    }
    Ok(SnapshotOutcome::Written {
        snapshot: StoredSnapshot {
            dir: dest,
            manifest,
        },
        timings,
    })
}

/// The SCIP stage and its merge with the syntax stage's rows (whatever they are when it runs).
fn run_scip(
    ctx: &StageContext<'_>,
    opts: &SnapshotOptions,
    repo: Option<&gix::Repository>,
    indexes: &[PathBuf],
    tables: &mut TableSet,
    backends: &mut Vec<output_schema::manifest::Backend>,
    agreement: &mut Option<identity::Agreement>,
) -> Result<StageReport, PipelineError> {
    if opts.no_scip {
        return Ok(StageReport::not_run("disabled (--no-scip)"));
    }
    if indexes.is_empty() {
        return Ok(StageReport::not_run("no SCIP index found"));
    }
    let Some(files) = tables.files.as_deref() else {
        return Ok(StageReport::skipped(
            "needs the scan stage: SCIP documents are checked against the scanned files",
        ));
    };
    let input = scip::ScipInput {
        root: ctx.root,
        repo_id: ctx.repo_id,
        files,
        repo,
        repo_state: ctx.repo_state,
        indexed_commit: opts.scip_commit.as_deref(),
        config: scip::ScipConfig::default(),
    };
    let out = scip::run(&input, indexes, ctx.progress)?;
    let mut report = out.report;
    backends.extend(out.backends);
    // Where both backends saw a definition, do they name it the same? Measured before the merge,
    // which keeps only one of the two.
    if let Some(ts) = &tables.symbols {
        *agreement = Some(identity::backend_agreement(ts, &out.tables.symbols));
    }
    let stats = merge::merge_into(tables, out.tables);
    report.counts.extend(stats.counts());
    Ok(report)
}

/// The `commit=` partition value of a state.
pub fn snapshot_partition(state: &RepoState) -> String {
    layout::commit_partition_value(
        state.is_git,
        state.head_commit.as_deref(),
        state.dirty,
        &state.repo_state_id,
    )
}

/// The stored snapshot of `state`, unless `--force`. A snapshot of another privacy mode in the
/// state's folder is an error: answering an anonymized request with a standard snapshot would hand
/// out real names, and replacing one with the other silently would too (the two modes record
/// different state IDs, so the folder's snapshot is not "the same state" for either).
fn existing_snapshot(
    store: &Store,
    repo_id: &str,
    state: &RepoState,
    force: bool,
    privacy: &str,
) -> Result<Option<StoredSnapshot>, PipelineError> {
    if force {
        return Ok(None);
    }
    let dir = store.snapshot_dir(repo_id, &snapshot_partition(state));
    if let Ok(stored) = output_schema::verify::read_manifest(&dir) {
        if stored.privacy != privacy {
            return Err(PipelineError::InvalidParameter {
                name: "--privacy".into(),
                message: format!(
                    "the store already holds a {} snapshot of this state; write {privacy} \
                     snapshots to a store of their own (--out DIR), or replace it with --force",
                    stored.privacy
                ),
            });
        }
    }
    Ok(store.snapshot_of(repo_id, state))
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

/// A previous snapshot and how it was chosen (`explicit`, `ancestor`, …).
type ChosenPrevious = Option<(StoredSnapshot, &'static str)>;

/// The previous snapshot whose rows this run may reuse, and the warning to record when one was
/// found but passed over. Anonymized runs build on none. No row of a snapshot is reused before its
/// files match its manifest: an explicit `--previous` that does not is an error; one chosen in the
/// store is passed over, as is one committed to the repository, and the run is a cold one (same
/// tables as `--no-previous`), with a warning saying why.
#[allow(clippy::too_many_arguments)]
fn trusted_previous(
    choice: &PreviousChoice,
    anonymized: bool,
    store: &Store,
    repo_id: &str,
    repo: Option<&gix::Repository>,
    state: &RepoState,
    root: &Path,
    warnings: &mut Vec<String>,
) -> Result<(ChosenPrevious, Option<output_schema::manifest::Warning>), PipelineError> {
    if anonymized {
        // A previous anonymized snapshot's rows are hashed already: reused rows and carried
        // tombstones would be hashed twice, and its hashed names match no real one.
        if !matches!(choice, PreviousChoice::Disabled | PreviousChoice::Auto) {
            warnings.push(
                "anonymized snapshots do not build on a previous snapshot; --previous ignored"
                    .into(),
            );
        }
        return Ok((None, None));
    }
    let Some((snapshot, chosen_by)) =
        choose_previous(choice, store, repo_id, repo, state, warnings)
    else {
        return Ok((None, None));
    };
    match trust_previous(&snapshot, chosen_by, repo, root) {
        Ok(()) => Ok((Some((snapshot, chosen_by)), None)),
        Err(problem) if chosen_by == "explicit" => Err(PipelineError::PreviousCorrupt {
            dir: snapshot.dir,
            problem,
        }),
        Err(problem) => Ok((
            None,
            Some(output_schema::manifest::Warning {
                code: "previous-unverified".into(),
                path: None,
                message: format!(
                    "snapshot {} cannot be trusted ({problem}); not used as the previous \
                     snapshot, every stage computed from scratch",
                    snapshot.manifest.snapshot_id
                ),
            }),
        )),
    }
}

/// The previous snapshot to build against, not yet verified (see [`store::verify`]).
fn choose_previous(
    choice: &PreviousChoice,
    store: &Store,
    repo_id: &str,
    repo: Option<&gix::Repository>,
    state: &RepoState,
    warnings: &mut Vec<String>,
) -> Option<(StoredSnapshot, &'static str)> {
    match choice {
        PreviousChoice::Disabled => None,
        PreviousChoice::Explicit(dir) => match output_schema::verify::read_manifest(dir) {
            Ok(manifest) if manifest.privacy != "standard" => {
                warnings.push(format!(
                    "--previous {} is an anonymized snapshot, its names are hashed; ignored",
                    dir.display()
                ));
                None
            }
            Ok(manifest) if manifest.repo_id == repo_id => Some((
                StoredSnapshot {
                    dir: dir.clone(),
                    manifest,
                },
                "explicit",
            )),
            Ok(manifest) => {
                warnings.push(format!(
                    "--previous {} is a snapshot of {}, not {repo_id}; ignored",
                    dir.display(),
                    manifest.repo_id
                ));
                None
            }
            Err(e) => {
                warnings.push(format!("--previous {}: {e}; ignored", dir.display()));
                None
            }
        },
        PreviousChoice::Auto => {
            let repo = repo?;
            let mut unreadable = |dir: &Path, e: String| {
                warnings.push(format!(
                    "{}: unreadable snapshot ({e}); ignored",
                    dir.display()
                ))
            };
            store::newest_ancestor_snapshot(
                repo,
                &store.folders(repo_id),
                &state.repo_state_id,
                10_000,
                &mut unreadable,
            )
            // An anonymized snapshot's rows are hashed: they cannot seed a standard one.
            .filter(|s| s.manifest.privacy == "standard")
            .map(|s| (s, "ancestor"))
        }
    }
}

/// Whether the rows of a chosen previous snapshot may be reused: its files match its manifest
/// and, when it was found in the store, it is not committed to the repository (ckb never commits
/// a snapshot; a committed one is content whose manifest may match forged files).
fn trust_previous(
    snapshot: &StoredSnapshot,
    chosen_by: &str,
    repo: Option<&gix::Repository>,
    root: &Path,
) -> Result<(), String> {
    store::verify(snapshot)?;
    let committed = chosen_by == "ancestor"
        && repo.is_some_and(|r| store::is_committed(r, root, &snapshot.dir));
    if committed {
        return Err(
            "it is committed to the repository, so its files and its manifest may both \
                    be forged; ckb never commits a snapshot"
                .into(),
        );
    }
    Ok(())
}

/// `text` with every absolute path made relative: paths under the repository lose its folder,
/// paths under the store become `<store>/…`, and any other absolute path (a `--previous` folder
/// elsewhere, a library's message naming a file outside) becomes `<outside>`, followed by its
/// last component only when that is a name of the store's layout (`commit=…`, a table file).
/// Warnings name what the user or a library gave, often absolute; a snapshot must not.
fn relative_paths(text: &str, root: &Path, store_root: &Path) -> String {
    let mut prefixes: Vec<(String, &str)> = Vec::new();
    for (dir, shown) in [(store_root, "<store>"), (root, ".")] {
        prefixes.push((dir.to_string_lossy().into_owned(), shown));
        if let Ok(canonical) = dir.canonicalize() {
            prefixes.push((canonical.to_string_lossy().into_owned(), shown));
        }
    }
    // Longest first: the store usually lies inside the repository.
    prefixes.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.cmp(b)));
    prefixes.dedup();
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = find_absolute_path(rest) {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        let end = tail
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | ')' | ',' | ';'))
            .unwrap_or(tail.len());
        // A trailing colon ends a path in messages such as `/a/b: permission denied`.
        let end = if tail[..end].ends_with(':') {
            end - 1
        } else {
            end
        }
        .max(1);
        let path = &tail[..end];
        let known = prefixes.iter().find_map(|(prefix, shown)| {
            let below = path.strip_prefix(prefix.as_str())?;
            match below.strip_prefix('/') {
                Some(rel) if *shown == "." => Some(rel.to_string()),
                Some(rel) => Some(format!("{shown}/{rel}")),
                None if below.is_empty() => Some(shown.to_string()),
                None => None,
            }
        });
        out.push_str(&known.unwrap_or_else(|| {
            // A name of the store's own layout says which snapshot or file; any other name is
            // the user's and stays out.
            let last = path
                .rsplit(['/', '\\'])
                .find(|c| !c.is_empty())
                .unwrap_or("");
            let layout = last.starts_with("commit=")
                || last.starts_with("repo=")
                || last.ends_with(".parquet")
                || last.ends_with(".zst");
            if layout {
                format!("<outside>/{last}")
            } else {
                "<outside>".to_string()
            }
        }));
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// Where the next absolute path in `text` starts: a `/` (or a Windows drive, `C:\`) at the start
/// or after a space, quote, parenthesis, `=` or `:`.
fn find_absolute_path(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    (0..bytes.len()).find(|&i| {
        let boundary = i == 0
            || matches!(
                bytes[i - 1],
                b' ' | b'\t' | b'\n' | b'"' | b'\'' | b'`' | b'(' | b'=' | b':'
            );
        // Not a lone `/` (`a / b`), not the `//` of a URL.
        let unix = bytes[i] == b'/'
            && bytes
                .get(i + 1)
                .is_some_and(|c| !c.is_ascii_whitespace() && *c != b'/');
        let windows = bytes[i].is_ascii_alphabetic()
            && bytes.get(i + 1) == Some(&b':')
            && matches!(bytes.get(i + 2), Some(b'\\') | Some(b'/'));
        boundary && (unix || windows)
    })
}

/// Frees the written tables on a helper thread. Dropping every row's strings costs a few percent of
/// a run and nothing waits for it: the manifest and the publish go on meanwhile, and a CLI process
/// may exit before the thread is done. If no thread can be started, they are freed here.
fn drop_in_background(tables: TableSet) {
    let _ = std::thread::Builder::new()
        .name("ckb-free-tables".into())
        .spawn(move || drop(tables));
}

fn write_run_file(dir: &Path, timings: &[(String, Duration)], threads: Option<usize>) {
    let stages: serde_json::Map<String, serde_json::Value> = timings
        .iter()
        .map(|(name, d)| (name.clone(), serde_json::json!(d.as_secs_f64() * 1000.0)))
        .collect();
    let run = serde_json::json!({
        "ckbVersion": CKB_VERSION,
        "stageMillis": stages,
        "threads": threads.unwrap_or_else(rayon::current_num_threads),
        "host": {
            "os": std::env::consts::OS,
            "arch": std::env::consts::ARCH,
            "cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        },
    });
    // run.json is informative only; failing to write it must not fail the snapshot.
    let _ = std::fs::write(
        dir.join(layout::RUN_FILE),
        output_schema::json::value_to_string(&run, true) + "\n",
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_name_paths_relative_to_the_repository_or_the_store() {
        let root = Path::new("/work/repo");
        let store = Path::new("/work/repo/.ckb/snapshots");
        let rel = |s: &str| relative_paths(s, root, store);
        assert_eq!(
            rel("IO error for operation on /work/repo/src/a.rs: Permission denied"),
            "IO error for operation on src/a.rs: Permission denied"
        );
        assert_eq!(
            rel("--previous /work/repo/.ckb/snapshots/repo=r/commit=c: no manifest; ignored"),
            "--previous <store>/repo=r/commit=c: no manifest; ignored"
        );
        assert_eq!(
            rel("--previous /home/me/secret/snap is a snapshot of x"),
            "--previous <outside> is a snapshot of x"
        );
        assert_eq!(
            rel("/elsewhere/repo=r/commit=c/manifest.json.zst: bad"),
            "<outside>/manifest.json.zst: bad"
        );
        assert_eq!(
            rel("--previous /elsewhere/repo=r/commit=c"),
            "--previous <outside>/commit=c"
        );
        assert_eq!(rel("error at (/work/repo)"), "error at (.)");
        assert_eq!(
            rel("a / b and src/x.rs, https://e.org/x"),
            "a / b and src/x.rs, https://e.org/x"
        );
        assert_eq!(rel("C:\\Users\\me\\x failed"), "<outside> failed");
    }
}
