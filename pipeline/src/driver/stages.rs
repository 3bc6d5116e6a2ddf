//! The stages of one run, from the scan's files to every table ([`run_stages`]): which run side
//! by side, in what order they are recorded in the manifest, and which tables are encoded for
//! the write while later steps still run. Each stage's work is a plain function of its input; the
//! functions here only schedule them and hand their outputs to the [`ManifestDraft`].

use std::time::{Duration, Instant};

use output_schema::config::HistoryConfig;
use output_schema::manifest::{StageReport, Warning};
use output_schema::row_groups::GroupCache;
use output_schema::table::SortedRows;
use output_schema::tables::{
    AliasRow, CallEdgeRow, FileRow, ImportRow, OccurrenceRow, SymbolRow, TombstoneRow, UsageRow,
};
use output_schema::Stage;

use crate::cache_pack::{CachePack, PackUpdate};
use crate::history::{HistoryOutput, HistoryTables};
use crate::identity::Agreement;
use crate::merge::{self, CodeTables, SyntaxTables};
use crate::plan::Plan;
use crate::progress::HeldProgress;
use crate::publish::ManifestDraft;
use crate::scan::ScanOutput;
use crate::scip::ScipTables;
use crate::stage::{ManifestParts, StageContext, StageOutput};
use crate::write::{EncodedAhead, TableSet};
use crate::{history, identity, modules, scip, syntax, usage, PipelineError};

use super::{beside, CacheUpdates, Caches};

/// Runs the selected stages (some side by side, recorded in pipeline order) and returns every
/// table they produced, with those it could encode ahead of the write.
pub(super) fn run_stages(
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
    // recorded in pipeline order once all are done. The display has one bar, so it shows them
    // in pipeline order: the syntax stage's progress live, SCIP's from when the syntax stage
    // has finished (held until then), git's from when SCIP has.
    let syntax_files = syntax_files(plan, files.as_deref(), draft);
    let held_git = HeldProgress::new();
    let held_scip = HeldProgress::then(&held_git);
    if syntax_files.is_none() {
        held_scip.release(ctx.progress);
    }
    let scip_ctx = StageContext {
        progress: &held_scip,
        ..*ctx
    };
    let git_ctx = StageContext {
        progress: &held_git,
        ..*ctx
    };
    let git_input = GitInput::of(plan);
    let (git, (syntax, (scip, scip_took))) = beside(
        || git_run(&git_input, &git_ctx),
        || {
            beside(
                || {
                    let ran =
                        syntax_files.map(|files| syntax_run(ctx, files, caches.syntax.as_ref()));
                    // After a failed syntax stage the run stops there, and shows nothing later.
                    if !matches!(ran, Some(Err(_))) {
                        held_scip.release(ctx.progress);
                    }
                    ran
                },
                || {
                    let clock = Instant::now();
                    let scip = plan.selected(Stage::Scip).then(|| {
                        scip_stage(plan, &scip_ctx, files.as_deref(), caches.scip.as_ref())
                    });
                    if !matches!(scip, Some(Err(_))) {
                        held_scip.done();
                    }
                    (scip, clock.elapsed())
                },
            )
        },
    );
    // Errors in pipeline order, as when the stages ran one after the other.
    let syntax = match syntax {
        Some(ran) => Some(record_syntax(ran?, updates, draft)),
        None => None,
    };
    let scip = scip.transpose()?;
    let (code, agreement) = merge_and_record(syntax, scip, scip_took, updates, draft);
    let git = git?;
    let history = record_git(draft, git);
    let CodeTables {
        symbols,
        mut occurrences,
        mut call_edges,
        mut relationships,
        imports,
    } = code;

    // From the merge on, the steps below only read occurrences, call edges and relationships
    // (identity does not touch them; usage and modules read them). So they are
    // sorted while identity runs, then encoded, on the pool, while the mostly serial steps after
    // identity run, and the write only has the other tables left. Not in an anonymized run:
    // anonymization rewrites every table first.
    let ((occurrences_sorted, call_edges_sorted, relationships_sorted), identity) = beside(
        || {
            (
                occurrences.as_deref_mut().map(SortedRows::sort),
                call_edges.as_deref_mut().map(SortedRows::sort),
                relationships.as_deref_mut().map(SortedRows::sort),
            )
        },
        || {
            identity_stage(
                plan,
                ctx,
                symbols.as_deref(),
                agreement,
                previous_warnings,
                draft,
            )
        },
    );
    let encode_ahead = plan.anonymizer.is_none();
    let (encoded, later) = beside(
        || {
            encode_ahead.then(|| {
                let clock = Instant::now();
                let encoded = EncodedAhead::encode(
                    occurrences_sorted,
                    call_edges_sorted,
                    relationships_sorted,
                    caches.tables.as_ref().map(|t| t as &dyn GroupCache),
                );
                (encoded, clock.elapsed())
            })
        },
        || {
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
        },
    );
    let encoded = match encoded {
        Some((encoded, took)) => {
            draft.took("encode-ahead", took);
            encoded
        }
        None => EncodedAhead::default(),
    };
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
