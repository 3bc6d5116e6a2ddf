//! The end of a run: what the manifest will say, gathered from the stages ([`ManifestDraft`]),
//! then every table, view and the manifest written into a temporary folder and published in one
//! rename ([`publish`]). A failed write (a full disk included) leaves the store as it was.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use output_schema::manifest::{Manifest, PreviousSnapshot, RepoState, StageReport, Warning};
use output_schema::row_groups::GroupCache;
use output_schema::{layout, Stage, CKB_VERSION, SCHEMA_VERSION};

use crate::plan::Plan;
use crate::previous::ChosenPrevious;
use crate::scan_cache::PendingCache;
use crate::stage::{ManifestExtras, ManifestParts, StageOutput};
use crate::store::{self, StoredSnapshot};
use crate::table_cache::TableCache;
use crate::write::{self, EncodedAhead, TableSet};
use crate::{PipelineError, SnapshotOutcome};

/// The manifest's parts as the stages fill them in, and the run's timings.
#[derive(Debug)]
pub struct ManifestDraft {
    /// One report per stage, by name; a stage that did not run says why.
    pub reports: BTreeMap<String, StageReport>,
    /// Backends, views, settings and timings, in run order (`timings`: `run.json`).
    pub extras: ManifestExtras,
}

impl ManifestDraft {
    /// A draft where every stage has not run (yet), with the plan's own settings.
    pub fn new(plan: &Plan) -> ManifestDraft {
        let reports = Stage::ALL
            .into_iter()
            .map(|stage| {
                let reason = if plan.selected(stage) {
                    "not available in this build"
                } else {
                    "not selected (--stages)"
                };
                (stage.name().to_string(), StageReport::not_run(reason))
            })
            .collect();
        let mut settings: BTreeMap<String, serde_json::Value> = BTreeMap::new();
        settings.insert("maxFileBytes".into(), plan.config.max_file_bytes.into());
        settings.insert(
            "stages".into(),
            plan.stages
                .iter()
                .map(|s| s.name())
                .collect::<Vec<_>>()
                .into(),
        );
        settings.insert("ignore".into(), plan.config.ignore.clone().into());
        ManifestDraft {
            reports,
            extras: ManifestExtras {
                settings,
                ..ManifestExtras::default()
            },
        }
    }

    /// Records a stage's output and hands back its rows.
    pub fn add<O: StageOutput>(&mut self, stage: Stage, output: O) -> O::Rows {
        let (rows, parts) = output.split();
        self.record(stage, parts);
        rows
    }

    /// Records a stage's manifest parts.
    pub fn record(&mut self, stage: Stage, parts: ManifestParts) {
        self.reports.insert(stage.name().into(), parts.report);
        self.extras.absorb(parts.extras);
    }

    /// Records that a selected stage could not run, and why.
    pub fn skip(&mut self, stage: Stage, reason: &str) {
        self.record(stage, ManifestParts::report(StageReport::skipped(reason)));
    }

    /// Records the time a step took since `start`.
    pub fn time(&mut self, step: &str, start: Instant) {
        self.took(step, start.elapsed());
    }

    /// Records the time a step took.
    pub fn took(&mut self, step: &str, took: Duration) {
        self.extras.timings.push((step.into(), took));
    }

    /// Adds a run-wide warning to the report of the first selected stage among those that build
    /// on a previous snapshot.
    pub fn add_run_warning(&mut self, plan: &Plan, warning: Warning) {
        let home = [Stage::Identity, Stage::Syntax, Stage::Git, Stage::Scan]
            .into_iter()
            .find(|&s| plan.selected(s))
            .and_then(|s| self.reports.get_mut(s.name()));
        if let Some(report) = home {
            let total = report.warnings_total + 1;
            let mut warnings = std::mem::take(&mut report.warnings);
            warnings.push(warning);
            report.set_warnings(warnings);
            report.warnings_total = total;
        }
    }
}

/// What [`publish`] writes besides the tables and the draft.
pub struct Publication<'a> {
    /// The `commit=` partition value.
    pub partition: &'a str,
    /// The state as the manifest records it.
    pub repo_state: RepoState,
    /// The previous snapshot built on.
    pub previous: &'a ChosenPrevious,
    /// The scan cache to save once the snapshot is visible.
    pub scan_cache: Option<PendingCache>,
    /// The tables encoded before the write.
    pub encoded: EncodedAhead,
    /// The row groups the write may copy instead of encoding them.
    pub table_cache: Option<&'a TableCache>,
}

/// Writes the snapshot into a temporary folder and publishes it atomically.
pub fn publish(
    plan: &Plan,
    mut tables: TableSet,
    mut draft: ManifestDraft,
    publication: Publication<'_>,
) -> Result<SnapshotOutcome, PipelineError> {
    let Publication {
        partition,
        repo_state,
        previous,
        scan_cache,
        encoded,
        table_cache,
    } = publication;
    let clock = Instant::now();
    let tmp = plan
        .store
        .temp_dir(&plan.repo_id, partition)
        .map_err(PipelineError::or_store_full)?;
    let written = (|| -> Result<Manifest, PipelineError> {
        let syncs = output_schema::parquet_io::Syncs::default();
        let cache = table_cache.map(|t| t as &dyn GroupCache);
        let (table_entries, json_entries) = write::write_tables(
            (&syncs, &tmp, cache),
            &mut tables,
            encoded,
            plan.json_tables,
        )?;
        for warning in table_cache.map(TableCache::warnings).unwrap_or_default() {
            draft.add_run_warning(plan, warning);
        }
        let view_entries = write::write_views(&syncs, &tmp, &draft.extras.views)?;
        let mut repo_state = repo_state;
        // Only the git stage can tell that objects are missing without a filter.
        if let Some(clone) = repo_state
            .clone_state
            .as_mut()
            .filter(|_| draft.extras.clone_damaged)
        {
            clone.kind = "damaged".into();
        }
        let manifest = Manifest {
            schema_version: SCHEMA_VERSION,
            ckb_version: CKB_VERSION.to_string(),
            repo_id: plan.repo_id.clone(),
            snapshot_id: partition.to_string(),
            repo_state,
            privacy: plan.privacy.name().to_string(),
            settings: std::mem::take(&mut draft.extras.settings),
            previous: previous.as_ref().map(|(s, chosen_by)| PreviousSnapshot {
                snapshot_id: s.manifest.snapshot_id.clone(),
                repo_state_id: s.manifest.repo_state.repo_state_id.clone(),
                head_commit: s.manifest.repo_state.head_commit.clone(),
                chosen_by: chosen_by.to_string(),
            }),
            backends: std::mem::take(&mut draft.extras.backends),
            stages: std::mem::take(&mut draft.reports),
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
            return Err(e.or_store_full());
        }
    };
    draft.time("write", clock);
    write_run_file(&tmp, &draft.extras.timings, plan.threads);
    let dest = plan.store.snapshot_dir(&plan.repo_id, partition);
    if let Err(e) = plan.store.publish(&tmp, &dest, plan.lock_timeout) {
        // The temporary folder holds the new snapshot, or, should a `--force` exchange have
        // happened before the error, the old one: either way not the visible one.
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e.or_store_full());
    }
    if let Some(cache) = scan_cache {
        cache.save(&plan.store.cache_temp(&plan.repo_id, partition));
    }
    Ok(SnapshotOutcome::Written {
        snapshot: StoredSnapshot {
            dir: dest,
            manifest,
        },
        timings: draft.extras.timings,
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
