//! The driver: one snapshot run, in the order it happens.
//!
//! 1. [`Plan::resolve`]: options and config, checked, before any file is read.
//! 2. [`read_state`]: the repository state (and the scan, side by side when the run cannot end
//!    early); an existing snapshot of that state ends the run.
//! 3. The lock, the previous snapshot ([`previous`]).
//! 4. [`run_stages`]: scan → syntax → scip → merge → git → identity → modules, each a function of
//!    the stage contract ([`crate::stage`]) whose output the [`ManifestDraft`] takes apart, in
//!    that order. Syntax, SCIP and git run side by side (none reads another's output), identity
//!    beside the sort of the tables final at the merge, and those tables are encoded for the
//!    write while the steps after identity run.
//! 5. Anonymization (or relative warning paths), then [`publish`].
//! 6. The lock released, what dead writers left in the repository's folder is cleared
//!    ([`leftovers::clean_repo`]).

use std::time::{Duration, Instant};

use output_schema::config::HistoryConfig;
use output_schema::manifest::{RepoState, StageReport, Warning};
use output_schema::row_groups::GroupCache;
use output_schema::table::SortedRows;
use output_schema::tables::{
    AliasRow, CallEdgeRow, FileRow, ImportRow, OccurrenceRow, SymbolRow, TombstoneRow, UsageRow,
};
use output_schema::Stage;

use crate::cache_pack::{self, CachePack, CacheProblem, PackUpdate};
use crate::history::{HistoryOutput, HistoryTables};
use crate::identity::Agreement;
use crate::merge::{self, CodeTables, SyntaxTables};
use crate::plan::Plan;
use crate::previous::{self, existing_snapshot};
use crate::progress::HeldProgress;
use crate::publish::{self, ManifestDraft, Publication};
use crate::scan::ScanOutput;
use crate::scan_cache::{CacheUpdate, PendingCache};
use crate::scip::ScipTables;
use crate::stage::{ManifestParts, StageContext, StageOutput};
use crate::store::{self, StoredSnapshot};
use crate::table_cache::{self, TableCache};
use crate::warning_paths::RelativePaths;
use crate::write::{EncodedAhead, TableSet};
use crate::{
    history, identity, leftovers, modules, privacy, repo_state, scan, scip, syntax, usage,
    PipelineError, Progress, SnapshotOptions, SnapshotOutcome,
};

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
    let plan = Plan::resolve(opts)?;
    let outcome = build(&plan, progress);
    // Once the run has its snapshot (written or found), what writers that died left in the
    // repository's folder goes, each state once its lock shows the writer gone: a store CI writes
    // for years does not collect it. Advisory: a leftover that cannot be removed now is removed
    // by a later run or `ckb store gc`.
    if outcome.is_ok() {
        leftovers::clean_repo(&plan.store, &plan.repo_id, false);
    }
    outcome
}

/// Builds and publishes the snapshot the plan asks for, holding its state's lock.
fn build(plan: &Plan, progress: &dyn Progress) -> Result<SnapshotOutcome, PipelineError> {
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
    let caches = Caches::open(plan, ctx.previous.is_some());
    let mut updates = CacheUpdates::default();
    let (tables, encoded) = run_stages(
        plan,
        &ctx,
        scanned,
        &previous_warnings,
        &caches,
        &mut updates,
        &mut draft,
    )?;
    for warning in previous_rejected.into_iter().chain(state_warnings) {
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
    let outcome = publish::publish(plan, tables, draft, publication)?;
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

/// Runs the selected stages in order and returns every table they produced, with those it could
/// encode ahead of the write.
fn run_stages(
    plan: &Plan,
    ctx: &StageContext<'_>,
    scanned: Option<ScanOutput>,
    previous_warnings: &[String],
    caches: &Caches,
    updates: &mut CacheUpdates,
    draft: &mut ManifestDraft,
) -> Result<(TableSet, EncodedAhead), PipelineError> {
    let files = match scanned {
        Some(scan) if plan.selected(Stage::Scan) => Some(draft.add(Stage::Scan, scan)),
        _ => None,
    };
    // Syntax, SCIP and git read nothing of one another (the merge brings syntax and SCIP
    // together), and each has serial steps that leave a core idle: they run side by side, and are
    // recorded in pipeline order once all are done. The display has one bar: the syntax stage's;
    // SCIP's and git's progress is held and shown when they are recorded.
    let syntax_files = syntax_files(plan, files.as_deref(), draft);
    let (held_scip, held_git) = (HeldProgress::default(), HeldProgress::default());
    let scip_ctx = StageContext {
        progress: if syntax_files.is_some() {
            &held_scip
        } else {
            ctx.progress
        },
        ..*ctx
    };
    let git_ctx = StageContext {
        progress: &held_git,
        ..*ctx
    };
    let git_input = GitInput::of(plan);
    let mut git = Ok(GitRun::NotSelected);
    let mut syntax = None;
    let (scip, scip_took) = rayon::in_place_scope(|scope| {
        scope.spawn(|_| git = git_run(&git_input, &git_ctx));
        if let Some(files) = syntax_files {
            let syntax = &mut syntax;
            scope.spawn(move |_| *syntax = Some(syntax_run(ctx, files, caches.syntax.as_ref())));
        }
        let clock = Instant::now();
        let scip = plan
            .selected(Stage::Scip)
            .then(|| scip_stage(plan, &scip_ctx, files.as_deref(), caches.scip.as_ref()));
        (scip, clock.elapsed())
    });
    // Errors in pipeline order, as when the stages ran one after the other.
    let syntax = match syntax {
        Some(ran) => Some(record_syntax(ran?, updates, draft)),
        None => None,
    };
    let scip = scip.transpose()?;
    held_scip.replay(ctx.progress);
    let (code, agreement) = merge_and_record(syntax, scip, scip_took, updates, draft);
    let git = git?;
    held_git.replay(ctx.progress);
    let history = record_git(draft, git);
    let CodeTables {
        symbols,
        mut occurrences,
        mut call_edges,
        mut relationships,
        imports,
    } = code;

    // From the merge on, the steps below only read occurrences, call edges and relationships
    // (identity and the git stage do not touch them; usage and modules read them). So they are
    // sorted while identity runs, then encoded, on the pool, while the mostly serial steps after
    // identity run, and the write only has the other tables left. Not in an anonymized run:
    // anonymization rewrites every table first.
    let mut sorted = (None, None, None);
    let identity = rayon::in_place_scope(|scope| {
        scope.spawn(|_| {
            sorted = (
                occurrences.as_deref_mut().map(SortedRows::sort),
                call_edges.as_deref_mut().map(SortedRows::sort),
                relationships.as_deref_mut().map(SortedRows::sort),
            );
        });
        identity_stage(
            plan,
            ctx,
            symbols.as_deref(),
            agreement,
            previous_warnings,
            draft,
        )
    });
    let (occurrences_sorted, call_edges_sorted, relationships_sorted) = sorted;
    let mut encoded = EncodedAhead::default();
    let mut encode_took = None;
    let later = rayon::in_place_scope(|scope| {
        if plan.anonymizer.is_none() {
            scope.spawn(|_| {
                let clock = Instant::now();
                encoded = EncodedAhead::encode(
                    occurrences_sorted,
                    call_edges_sorted,
                    relationships_sorted,
                    caches.tables.as_ref().map(|t| t as &dyn GroupCache),
                );
                encode_took = Some(clock.elapsed());
            });
        }
        let read = ReadOnlyCode {
            occurrences: occurrences_sorted.map(SortedRows::rows),
            call_edges: call_edges_sorted.map(SortedRows::rows),
        };
        later_stages(
            plan,
            ctx,
            (files, symbols, imports),
            read,
            (history, identity),
            draft,
        )
    });
    if let Some(took) = encode_took {
        draft.extras.timings.push(("encode-ahead".into(), took));
    }
    let mut tables = later?;
    tables.occurrences = occurrences;
    tables.call_edges = call_edges;
    tables.relationships = relationships;
    Ok((tables, encoded))
}

/// The code tables the steps after the merge only read.
#[derive(Clone, Copy)]
struct ReadOnlyCode<'a> {
    occurrences: Option<&'a [OccurrenceRow]>,
    call_edges: Option<&'a [CallEdgeRow]>,
}

/// The files, symbols and imports the steps after the merge change (modules fills in their
/// module IDs).
type ChangedLater = (
    Option<Vec<FileRow>>,
    Option<Vec<SymbolRow>>,
    Option<Vec<ImportRow>>,
);

/// The identity stage's rows: aliases and tombstones.
type Identified = Option<(Vec<AliasRow>, Vec<TombstoneRow>)>;

/// The steps after identity: usage, then modules. The tables they produce, and
/// `files`, `symbols` and `imports` module-assigned (occurrences, call edges and relationships
/// are left out: they stay where `code` reads them).
fn later_stages(
    plan: &Plan,
    ctx: &StageContext<'_>,
    (files, symbols, imports): ChangedLater,
    code: ReadOnlyCode<'_>,
    (history, identity): (Option<HistoryTables>, Identified),
    draft: &mut ManifestDraft,
) -> Result<TableSet, PipelineError> {
    let (aliases, tombstones) = identity.unzip();
    let usage = usage_step(symbols.as_deref(), code, draft);
    let mut tables = TableSet {
        files,
        symbols,
        imports,
        aliases,
        tombstones,
        usage,
        ..TableSet::default()
    };
    if let Some(h) = history {
        tables.commits = Some(h.commits);
        tables.file_changes = Some(h.file_changes);
        tables.churn = Some(h.churn);
        tables.cochange = Some(h.cochange);
        tables.ownership = Some(h.ownership);
    }

    // The modules stage runs last: it reads every table the other stages produced and hands
    // them back module-assigned.
    if plan.selected(Stage::Modules) {
        let clock = Instant::now();
        if tables.files.is_some() {
            let output = modules::run_reading(ctx, tables, code.occurrences);
            tables = draft.add(Stage::Modules, output);
        } else {
            draft.skip(Stage::Modules, "input stage scan did not run");
        }
        draft.time("modules", clock);
    }
    Ok(tables)
}

/// The usage step: how much each symbol is used, from the final occurrences and call edges
/// (absent when no stage wrote symbols and occurrences).
fn usage_step(
    symbols: Option<&[SymbolRow]>,
    code: ReadOnlyCode<'_>,
    draft: &mut ManifestDraft,
) -> Option<Vec<UsageRow>> {
    let clock = Instant::now();
    let (symbols, occurrences) = (symbols?, code.occurrences?);
    let call_edges = code.call_edges.unwrap_or_default();
    let rows = usage::count(symbols, occurrences, call_edges);
    draft.time("usage", clock);
    Some(rows)
}

/// The files the syntax stage reads, when it runs (`None` when it is not selected, or cannot run,
/// which is recorded).
fn syntax_files<'f>(
    plan: &Plan,
    files: Option<&'f [FileRow]>,
    draft: &mut ManifestDraft,
) -> Option<&'f [FileRow]> {
    if !plan.selected(Stage::Syntax) {
        return None;
    }
    if files.is_none() {
        draft.skip(Stage::Syntax, "input stage scan did not run");
    }
    files
}

/// The syntax stage over the scanned files, and the time it took. Records nothing: see
/// [`record_syntax`].
fn syntax_run(
    ctx: &StageContext<'_>,
    files: &[FileRow],
    cache: Option<&CachePack>,
) -> Result<(syntax::SyntaxOutput, Duration), PipelineError> {
    let clock = Instant::now();
    let out = syntax::run(ctx, files, ctx.previous, cache)?;
    Ok((out, clock.elapsed()))
}

/// Records the syntax stage in the manifest and hands back its rows.
fn record_syntax(
    (mut out, took): (syntax::SyntaxOutput, Duration),
    updates: &mut CacheUpdates,
    draft: &mut ManifestDraft,
) -> SyntaxTables {
    updates.syntax = out.cache_update.take();
    draft.took("syntax", took);
    draft.add(Stage::Syntax, out)
}

/// The SCIP stage's outcome: its rows (none when no index was read), its manifest parts and what
/// it leaves in its document cache.
type ScipRun = (Option<ScipTables>, ManifestParts, Option<PackUpdate>);

/// The merge step: tree-sitter and SCIP rows into the code tables (the merge's counts are the
/// scip stage's, and so is its time), with how often the two backends agreed. Records the SCIP
/// stage when it was selected (`scip`).
fn merge_and_record(
    syntax: Option<SyntaxTables>,
    scip: Option<ScipRun>,
    scip_took: Duration,
    updates: &mut CacheUpdates,
    draft: &mut ManifestDraft,
) -> (CodeTables, Option<Agreement>) {
    let Some((scip, mut parts, cache_update)) = scip else {
        return (merge::merge_step(syntax, None).0, None);
    };
    let clock = Instant::now();
    updates.scip = cache_update;
    // Where both backends saw a definition, do they name it the same? Measured before the
    // merge, which keeps only one of the two.
    let agreement = match (&syntax, &scip) {
        (Some(ts), Some(scip)) => Some(identity::backend_agreement(&ts.symbols, &scip.symbols)),
        _ => None,
    };
    let (code, merge_stats) = merge::merge_step(syntax, scip);
    if let Some(stats) = merge_stats {
        parts.report.counts.extend(stats.counts());
    }
    draft.record(Stage::Scip, parts);
    draft.took("scip", scip_took + clock.elapsed());
    (code, agreement)
}

/// What the git stage did, to be recorded once the code stages it ran beside are recorded.
enum GitRun {
    NotSelected,
    NoRepository(Duration),
    Ran(Box<HistoryOutput>, Duration),
}

/// What the git stage reads of the plan, in a form it can take to another thread.
struct GitInput<'a> {
    selected: bool,
    repo: Option<gix::ThreadSafeRepository>,
    config: &'a HistoryConfig,
    repo_id: &'a str,
    fetch_missing: bool,
}

impl<'a> GitInput<'a> {
    fn of(plan: &'a Plan) -> GitInput<'a> {
        GitInput {
            selected: plan.selected(Stage::Git),
            repo: plan.repo.as_ref().map(|r| r.clone().into_sync()),
            config: &plan.config.history,
            repo_id: &plan.repo_id,
            fetch_missing: plan.history_fetch_missing,
        }
    }
}

/// The git stage, when the root is a repository. Records nothing: see [`record_git`].
fn git_run(input: &GitInput<'_>, ctx: &StageContext<'_>) -> Result<GitRun, PipelineError> {
    if !input.selected {
        return Ok(GitRun::NotSelected);
    }
    let clock = Instant::now();
    let Some(repo) = input.repo.as_ref() else {
        return Ok(GitRun::NoRepository(clock.elapsed()));
    };
    let repo = repo.to_thread_local();
    let mut opts =
        history::HistoryOptions::new(input.config, input.repo_id, std::env::var("CKB_SALT").ok());
    opts.fetch_missing = input.fetch_missing;
    let out = history::run(ctx, &repo, &opts, ctx.previous)?;
    Ok(GitRun::Ran(Box::new(out), clock.elapsed()))
}

/// Records the git stage in the manifest and hands back its rows.
fn record_git(draft: &mut ManifestDraft, run: GitRun) -> Option<HistoryTables> {
    match run {
        GitRun::NotSelected => None,
        GitRun::NoRepository(took) => {
            draft.skip(Stage::Git, "not a git repository");
            draft.took("git", took);
            None
        }
        GitRun::Ran(out, took) => {
            let rows = draft.add(Stage::Git, *out);
            draft.took("git", took);
            Some(rows)
        }
    }
}

/// The identity stage, after every extraction stage, over the final merged symbols.
fn identity_stage(
    plan: &Plan,
    ctx: &StageContext<'_>,
    symbols: Option<&[SymbolRow]>,
    agreement: Option<Agreement>,
    previous_warnings: &[String],
    draft: &mut ManifestDraft,
) -> Option<(Vec<AliasRow>, Vec<TombstoneRow>)> {
    if !plan.selected(Stage::Identity) {
        return None;
    }
    let clock = Instant::now();
    let rows = match symbols {
        None => {
            let mut report = StageReport::skipped("no symbols: syntax and scip did not run");
            report.set_warnings(
                previous_warnings
                    .iter()
                    .map(|m| Warning {
                        code: "previous-snapshot".into(),
                        path: None,
                        message: m.clone(),
                    })
                    .collect(),
            );
            draft.record(Stage::Identity, ManifestParts::report(report));
            None
        }
        Some(symbols) => {
            let out = identity::identity(ctx, symbols, agreement, previous_warnings);
            Some(draft.add(Stage::Identity, out))
        }
    };
    draft.time("identity", clock);
    rows
}

/// The SCIP stage (see [`ScipRun`]).
fn scip_stage(
    plan: &Plan,
    ctx: &StageContext<'_>,
    files: Option<&[FileRow]>,
    cache: Option<&CachePack>,
) -> Result<ScipRun, PipelineError> {
    let not_run = |report| Ok((None, ManifestParts::report(report), None));
    if plan.no_scip {
        return not_run(StageReport::not_run("disabled (--no-scip)"));
    }
    if plan.scip_indexes.is_empty() {
        return not_run(StageReport::not_run("no SCIP index found"));
    }
    let Some(files) = files else {
        return not_run(StageReport::skipped(
            "needs the scan stage: SCIP documents are checked against the scanned files",
        ));
    };
    let input = scip::ScipInput {
        root: ctx.root,
        repo_id: ctx.repo_id,
        files,
        repo: plan.repo.as_ref(),
        repo_state: ctx.repo_state,
        indexed_commit: plan.scip_commit.as_deref(),
        config: scip::ScipConfig::default(),
        cache,
    };
    let mut out = scip::run(&input, &plan.scip_indexes, ctx.progress)?;
    let cache_update = out.cache_update.take();
    let (rows, parts) = out.split();
    Ok((Some(rows), parts, cache_update))
}
