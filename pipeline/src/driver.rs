//! The driver: one snapshot run, in the order it happens.
//!
//! 1. [`Plan::resolve`]: options and config, checked, before any file is read.
//! 2. [`read_state`]: the repository state (and the scan, side by side when the run cannot end
//!    early); an existing snapshot of that state ends the run.
//! 3. The lock, the previous snapshot ([`previous`]).
//! 4. [`run_stages`] (in [`stages`]): scan → syntax → scip → merge → git → identity → modules,
//!    each a function of the stage contract ([`crate::stage`]) whose output the [`ManifestDraft`]
//!    takes apart, in that order. Syntax, SCIP and git run side by side (none reads another's
//!    output), identity beside the sort of the tables final at the merge, and those tables are
//!    encoded for the write while the steps after identity run.
//! 5. Anonymization (or relative warning paths), then [`publish`].
//! 6. The lock released, what dead writers left in the repository's folder is cleared
//!    ([`leftovers::clean_repo`]).

mod stages;

use std::time::Instant;

use output_schema::manifest::{RepoState, Warning};
use output_schema::{FormatError, Stage};

use crate::cache_pack::{self, CachePack, CacheProblem, PackUpdate};
use crate::plan::Plan;
use crate::previous::{self, existing_snapshot};
use crate::publish::{self, ManifestDraft, Publication};
use crate::scan::ScanOutput;
use crate::scan_cache::{CacheUpdate, PendingCache};
use crate::stage::StageContext;
use crate::store::{self, StoredSnapshot};
use crate::table_cache::{self, TableCache};
use crate::warning_paths::RelativePaths;
use crate::{
    leftovers, privacy, repo_state, scan, scip, syntax, PipelineError, PreviousChoice, Progress,
    SnapshotOptions, SnapshotOutcome,
};
use stages::run_stages;

/// Builds and publishes one snapshot (inside the run's thread pool).
pub(crate) fn run(
    opts: &SnapshotOptions,
    progress: &dyn Progress,
) -> Result<SnapshotOutcome, PipelineError> {
    // Test hook (tests/cli_query_errors.rs): a bug on a worker thread of the run's pool, where
    // this runs, must still end in the error envelope with nothing left in the store.
    if output_schema::failpoint::flag("panic-in-worker") {
        panic!("failpoint on {:?}", std::thread::current().name());
    }
    let mut plan = Plan::resolve(opts)?;
    let outcome = match build(&plan, progress, None) {
        Ok(outcome) => Ok(outcome),
        Err(Unbuilt::Failed(e)) => Err(e),
        // Rows reused from a previous snapshot or the caches beside the store, both read only
        // when a previous snapshot is built on, are the one input that can make a key twice
        // without a bug in ckb: they are reused as they are, and a forged file can carry a
        // matching manifest or checksum. The run is done again without them, as a cold run (the
        // same tables as `--no-previous`), and says why. If that run too makes a key twice, the
        // bug is ckb's: `INTERNAL_ERROR`.
        Err(Unbuilt::ReusedRowsRefused(refusal)) => {
            plan.previous = PreviousChoice::Disabled;
            let warning = Warning {
                code: "previous-rows-refused".into(),
                path: None,
                message: format!(
                    "{refusal}, with rows reused from the previous snapshot or the caches beside \
                     the store; not reused, every stage computed from scratch (`ckb verify` on \
                     the previous snapshot says whether it is the one altered)"
                ),
            };
            build(&plan, progress, Some(warning)).map_err(Unbuilt::into_error)
        }
    };
    // Once the run has its snapshot (written or found), what writers that died left in the
    // repository's folder goes, each state once its lock shows the writer gone: a store CI writes
    // for years does not collect it. Advisory: a leftover that cannot be removed now is removed
    // by a later run or `ckb store gc`.
    if outcome.is_ok() {
        leftovers::clean_repo(&plan.store, &plan.repo_id, false);
    }
    outcome
}

/// Why [`build`] published nothing.
enum Unbuilt {
    /// The run failed: its error is the run's.
    Failed(PipelineError),
    /// The writer refused rows that repeat a table's unique key, and the run had reused rows
    /// from a previous snapshot (and the caches beside the store, which are read only then).
    ReusedRowsRefused(FormatError),
}

impl From<PipelineError> for Unbuilt {
    fn from(e: PipelineError) -> Self {
        Unbuilt::Failed(e)
    }
}

impl Unbuilt {
    fn into_error(self) -> PipelineError {
        match self {
            Unbuilt::Failed(e) => e,
            Unbuilt::ReusedRowsRefused(refusal) => PipelineError::Format(refusal),
        }
    }
}

/// Builds and publishes the snapshot the plan asks for, holding its state's lock.
/// `cold_because` is the warning that says why a run that could have built on a previous
/// snapshot did not.
fn build(
    plan: &Plan,
    progress: &dyn Progress,
    cold_because: Option<Warning>,
) -> Result<SnapshotOutcome, Unbuilt> {
    let mut draft = ManifestDraft::new(plan);
    let (mut repo_state, scanned, scan_cache, state_warnings) =
        match read_state(plan, progress, &mut draft)? {
            StateRead::Existing(snapshot) => return Ok(SnapshotOutcome::Existing { snapshot }),
            StateRead::New(state, scanned, cache, warnings) => (state, scanned, cache, warnings),
        };
    let partition = store::snapshot_partition(&repo_state);
    let _lock = plan
        .store
        .lock(&plan.repo_id, &partition, plan.lock_timeout)?;
    // A writer of this state killed before may have left its snapshot set aside (put back
    // here) and temporary files; another may have finished while we waited for the lock.
    plan.store.recover(&plan.repo_id, &partition);
    if let Some(snapshot) = existing(plan, &repo_state)? {
        return Ok(SnapshotOutcome::Existing { snapshot });
    }

    let mut previous_warnings = Vec::new();
    let clock = Instant::now();
    let previous::Trusted {
        chosen: previous,
        rejected: previous_rejected,
        _lock: _previous_lock,
    } = previous::trusted_previous(
        &plan.previous,
        plan.anonymizer.is_some(),
        &plan.store,
        &plan.repo_id,
        plan.repo.as_ref(),
        &repo_state,
        &plan.root,
        &mut previous_warnings,
    )?;
    draft.time("previous-verify", clock);
    let clock = Instant::now();
    repo_state.head_depth = head_depth(plan, &repo_state, previous.as_ref().map(|(s, _)| s));
    draft.time("head-depth", clock);
    let ctx = StageContext {
        root: &plan.root,
        repo_id: &plan.repo_id,
        config: &plan.config,
        repo_state: &repo_state,
        previous: previous.as_ref().map(|(s, _)| s),
        progress,
    };
    let builds_on_previous = ctx.previous.is_some();
    let refused = |e: PipelineError| match e {
        PipelineError::Format(refusal @ FormatError::RepeatedKey { .. }) if builds_on_previous => {
            Unbuilt::ReusedRowsRefused(refusal)
        }
        e => Unbuilt::Failed(e),
    };
    let caches = Caches::open(plan, builds_on_previous);
    let mut updates = CacheUpdates::default();
    let (tables, encoded) = run_stages(
        plan,
        &ctx,
        scanned,
        &previous_warnings,
        &caches,
        &mut updates,
        &mut draft,
    )
    .map_err(refused)?;
    for warning in (previous_rejected.into_iter())
        .chain(cold_because)
        .chain(state_warnings)
    {
        draft.add_run_warning(plan, warning);
    }

    draft
        .extras
        .settings
        .insert("privacy".into(), plan.privacy.name().into());
    let mut repo_state_written = repo_state.clone();
    let tables = match &plan.anonymizer {
        Some(anonymizer) => {
            privacy::anonymize_views(&mut draft.extras.views, anonymizer);
            privacy::anonymize_manifest_parts(
                &mut draft.reports,
                &mut draft.extras.backends,
                &mut draft.extras.settings,
                &mut repo_state_written,
                anonymizer,
            );
            privacy::anonymize(tables, anonymizer)
        }
        None => {
            // Problems are reported with the path the user gave or a library's own wording,
            // which may be absolute: the snapshot keeps paths relative to the repository or the
            // store.
            let paths = RelativePaths::new(&plan.root, &plan.store_root);
            for report in draft.reports.values_mut() {
                for w in &mut report.warnings {
                    w.message = paths.apply(&w.message);
                    w.path = w.path.as_deref().map(|p| paths.apply(p));
                }
            }
            tables
        }
    };
    let publication = Publication {
        partition: &partition,
        repo_state: repo_state_written,
        previous: &previous,
        scan_cache,
        encoded,
        table_cache: caches.tables.as_ref(),
    };
    let outcome = publish::publish(plan, tables, draft, publication).map_err(refused)?;
    // Only once the snapshot is published: a failed run leaves the caches as they were.
    updates.save(&caches);
    if let Some(tables) = caches.tables {
        tables.save();
    }
    Ok(outcome)
}

/// The content-addressed caches beside the snapshots that this run reads
/// ([`crate::cache_pack`]): none for an anonymized run (its rows are hashed, and a cache of real
/// names beside its snapshots would defeat it) or when the running program cannot be identified.
struct Caches {
    syntax: Option<CachePack>,
    scip: Option<CachePack>,
    tables: Option<TableCache>,
}

impl Caches {
    /// The caches, read only when the run builds on a previous snapshot (`builds_on_previous`);
    /// otherwise (`--no-previous`, a first snapshot, a previous snapshot passed over) they are
    /// only written, for the next run. So a run whose manifest records no previous snapshot
    /// computes everything and its manifest (stage counts included) is a cold run's.
    fn open(plan: &Plan, builds_on_previous: bool) -> Caches {
        let program = crate::scan_cache::program().filter(|_| plan.anonymizer.is_none());
        let Some(program) = program else {
            return Caches {
                syntax: None,
                scip: None,
                tables: None,
            };
        };
        let repo_dir = plan.store.repo_dir(&plan.repo_id);
        let read = builds_on_previous;
        let open = |dir: &str, identity: String| {
            let dir = repo_dir.join(dir);
            if !read {
                return CachePack::empty(&dir, &identity);
            }
            let mut pack = CachePack::open(&dir, &identity);
            // A cache committed to the repository came with its content: its blobs may be
            // forged, whatever their checksums say.
            let committed = !pack.is_empty()
                && plan.repo.as_ref().is_some_and(|repo| {
                    store::is_tracked(repo, &plan.root, &dir.join(cache_pack::INDEX_FILE))
                });
            if committed {
                pack.discard(CacheProblem {
                    code: "cache-committed",
                    message: "it is committed to the repository, so its entries may be forged; \
                              not reused (keep the store out of git)"
                        .into(),
                });
            }
            pack
        };
        let syntax_identity = syntax::cache::identity(&syntax::SyntaxConfig::default(), &program);
        let scip_identity = scip::doc_cache::identity(&program);
        Caches {
            syntax: plan
                .selected(Stage::Syntax)
                .then(|| open(syntax::cache::CACHE_DIR, syntax_identity)),
            scip: (plan.selected(Stage::Scip) && !plan.no_scip && !plan.scip_indexes.is_empty())
                .then(|| open(scip::doc_cache::CACHE_DIR, scip_identity)),
            tables: Some(TableCache::new(open(
                table_cache::CACHE_DIR,
                table_cache::identity(&program),
            ))),
        }
    }
}

/// What the stages leave in the caches, saved once the snapshot is published.
#[derive(Default)]
struct CacheUpdates {
    syntax: Option<PackUpdate>,
    scip: Option<PackUpdate>,
}

impl CacheUpdates {
    fn save(self, caches: &Caches) {
        for (update, pack) in [(self.syntax, &caches.syntax), (self.scip, &caches.scip)] {
            if let (Some(update), Some(pack)) = (update, pack) {
                update.save(pack);
            }
        }
    }
}

/// Runs `spawned` on another thread of the pool while `here` runs on this one (which, unlike
/// `rayon::join`, lets `here` use what cannot leave this thread: the repository handle, the
/// manifest draft), and returns both results once both are done.
fn beside<A: Send, B>(spawned: impl FnOnce() -> A + Send, here: impl FnOnce() -> B) -> (A, B) {
    let mut there = None;
    let here = rayon::in_place_scope(|scope| {
        scope.spawn(|_| there = Some(spawned()));
        here()
    });
    // The scope returns once its task has run (a panic in it is raised by the scope).
    let there = there.expect("a scope waits for the tasks it spawned");
    (there, here)
}

/// Commits on HEAD's first-parent chain ([`repo_state::first_parent_depth`]), counted from the
/// previous snapshot's head when that lies on the chain.
fn head_depth(plan: &Plan, state: &RepoState, previous: Option<&StoredSnapshot>) -> Option<i64> {
    let repo = plan.repo.as_ref()?;
    let head = state.head_commit.as_deref()?;
    let known = previous.and_then(|p| {
        let s = &p.manifest.repo_state;
        Some((s.head_commit.as_deref()?, s.head_depth?))
    });
    repo_state::first_parent_depth(repo, head, known, MAX_DEPTH_WALK)
}

/// The longest first-parent chain counted (Linux has about 100 000 first-parent commits).
const MAX_DEPTH_WALK: usize = 10_000_000;

/// The state to snapshot, or the snapshot of it that already exists.
enum StateRead {
    Existing(StoredSnapshot),
    /// The state, the scan, the scan cache to save, and what reading the state warned about.
    New(
        RepoState,
        Option<ScanOutput>,
        Option<PendingCache>,
        Vec<Warning>,
    ),
}

fn existing(plan: &Plan, state: &RepoState) -> Result<Option<StoredSnapshot>, PipelineError> {
    existing_snapshot(&plan.store, &plan.repo_id, state, plan.force, plan.privacy)
}

/// Reads the repository state (keyed when anonymized) and, when needed, scans the tree.
fn read_state(
    plan: &Plan,
    progress: &dyn Progress,
    draft: &mut ManifestDraft,
) -> Result<StateRead, PipelineError> {
    let clock = Instant::now();
    // The scan's own inputs only: the repository handle stays on this thread.
    let (root, scan_config) = (&plan.root, &plan.scan_config);
    let run_scan = || {
        let clock = Instant::now();
        let scanned = scan::scan(root, scan_config, progress);
        (scanned, clock.elapsed())
    };
    // The git state and the scan both walk the working tree, each mostly on one core. When the
    // git state cannot end the run (no snapshot of HEAD's commit is stored, or `--force`), they
    // run side by side; otherwise the state is read first, and an existing snapshot is found
    // without reading a single file.
    let side_by_side = plan.needs_scan()
        && plan.repo.as_ref().is_some_and(|repo| {
            plan.force
                || repo.head_id().map_or(true, |head| {
                    plan.store
                        .folders(&plan.repo_id)
                        .at_commit(&head.to_string())
                        .is_empty()
                })
        });
    let mut state_warnings = Vec::new();
    let mut read_git_state = || {
        plan.repo
            .as_ref()
            .map(|repo| {
                repo_state::read_state_noting(
                    repo,
                    &plan.root,
                    &plan.exclusions,
                    &mut state_warnings,
                )
            })
            .transpose()
    };
    let (git_state, scan_result) = if side_by_side {
        let (scanned, git_state) = beside(run_scan, read_git_state);
        (git_state, Some(scanned))
    } else {
        (read_git_state(), None)
    };
    let mut git_state = git_state?;
    if let (Some(a), Some(state)) = (&plan.anonymizer, &mut git_state) {
        a.key_repo_state(state);
    }
    draft.time("repo-state", clock);
    if let Some(state) = &git_state {
        if let Some(snapshot) = existing(plan, state)? {
            return Ok(StateRead::Existing(snapshot));
        }
    }

    let scan_result = match scan_result {
        Some(done) => Some(done),
        None if plan.needs_scan() => Some(run_scan()),
        None => None,
    };
    let mut scanned = match scan_result {
        Some((scanned, took)) => {
            draft.extras.timings.push(("scan".into(), took));
            Some(scanned?)
        }
        None => None,
    };
    // Encoded meanwhile, written only once the snapshot is published: a failed run leaves the
    // store as it was.
    let scan_cache = scanned
        .as_mut()
        .and_then(|s| s.cache_update.take())
        .map(CacheUpdate::encode_in_background);

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
            if let Some(a) = &plan.anonymizer {
                a.key_repo_state(&mut state);
            }
            if let Some(snapshot) = existing(plan, &state)? {
                return Ok(StateRead::Existing(snapshot));
            }
            state
        }
    };
    Ok(StateRead::New(
        repo_state,
        scanned,
        scan_cache,
        state_warnings,
    ))
}
