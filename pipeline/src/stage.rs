//! The stage contract: what every stage reads, and the one shape every stage hands back.
//!
//! A stage is a plain function `run(ctx: &StageContext, input) -> Result<Output, PipelineError>`
//! (or without the `Result` when it cannot fail): `input` is the typed rows it reads, by
//! reference (or by value when it hands them back rewritten, as module assignment does), and
//! `Output` implements [`StageOutput`], which splits it into the typed rows it produced and the
//! [`ManifestParts`] it contributes — its [`StageReport`], backends, views, settings and extra
//! timings. The driver ([`crate::driver`]) runs the stages in order, keeps the rows, and folds the
//! parts into the manifest; no stage reads or rewrites another stage's tables, and no stage
//! imports the driver.
//!
//! Why plain functions and not a `trait Stage { fn run(..) }`: the stages' inputs differ in kind
//! (the scan reads the working tree, the git stage a repository handle, identity the merged
//! symbols, modules every table), so a trait's `run` would need an associated input type per
//! stage and a generic driver loop could not call them in a row anyway. What the driver does
//! uniformly is take outputs apart, so that is the trait.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use output_schema::config::Config;
use output_schema::manifest::{Backend, RepoState, StageReport};
use output_schema::views::Views;

use crate::progress::Progress;
use crate::store::StoredSnapshot;

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

/// What a stage contributes to the manifest (and to `run.json`) besides its rows.
#[derive(Debug)]
pub struct ManifestParts {
    /// The stage's report (`stages.<name>`).
    pub report: StageReport,
    /// Everything else it adds.
    pub extras: ManifestExtras,
}

impl ManifestParts {
    /// Parts made of a report alone (a stage that did not run, or one with nothing else to say).
    pub fn report(report: StageReport) -> ManifestParts {
        ManifestParts {
            report,
            extras: ManifestExtras::default(),
        }
    }
}

/// What stages add to the manifest besides their reports: one stage's in its [`ManifestParts`],
/// every stage's so far in the run's draft ([`crate::publish::ManifestDraft`]).
#[derive(Debug, Default)]
pub struct ManifestExtras {
    /// Backend provenance entries, in the order the stages used them.
    pub backends: Vec<Backend>,
    /// The views made (`views/<name>.json.zst`), typed.
    pub views: Views,
    /// Settings that decide whether a later snapshot may reuse rows.
    pub settings: BTreeMap<String, serde_json::Value>,
    /// Timings of steps worth their own line in `run.json`.
    pub timings: Vec<(String, Duration)>,
    /// Objects were missing or unreadable although the clone is not partial (only the git stage
    /// can tell): the manifest's clone state becomes `damaged`.
    pub clone_damaged: bool,
}

impl ManifestExtras {
    /// Adds a later stage's extras after these.
    pub fn absorb(&mut self, later: ManifestExtras) {
        self.backends.extend(later.backends);
        self.views.absorb(later.views);
        self.settings.extend(later.settings);
        self.timings.extend(later.timings);
        self.clone_damaged |= later.clone_damaged;
    }
}

/// The one shape of a stage's output: typed rows plus the parts of the manifest it fills.
pub trait StageOutput {
    /// The rows the stage produced.
    type Rows;
    /// Splits the output into its rows and its manifest parts.
    fn split(self) -> (Self::Rows, ManifestParts);
}
