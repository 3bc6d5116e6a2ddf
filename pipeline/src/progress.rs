//! Progress reporting: the pipeline says what it is doing; the binary decides how to show it.
//!
//! Library code never prints. Stages call a [`Progress`] they are given; the `ckb` binary renders
//! it with indicatif on a terminal, and tests pass [`NoProgress`].

/// Receives progress events. Implementations must be cheap and thread-safe: stages call `advance`
/// from rayon workers.
pub trait Progress: Sync {
    /// A stage starts; `total` items are expected when known.
    fn stage_started(&self, stage: &str, total: Option<u64>);
    /// `n` more items of the current stage are done.
    fn advance(&self, n: u64);
    /// The current stage finished with a one-line summary.
    fn stage_finished(&self, stage: &str, summary: &str);
}

/// Discards all progress.
pub struct NoProgress;

impl Progress for NoProgress {
    fn stage_started(&self, _: &str, _: Option<u64>) {}
    fn advance(&self, _: u64) {}
    fn stage_finished(&self, _: &str, _: &str) {}
}

/// The progress of a stage that runs beside another: nothing is shown while it runs (the display
/// has one bar, the other stage's), and its summary is handed on by [`HeldProgress::replay`] once
/// the other stage is done.
#[derive(Default)]
pub(crate) struct HeldProgress {
    finished: std::sync::Mutex<Option<(String, String)>>,
}

impl Progress for HeldProgress {
    fn stage_started(&self, _: &str, _: Option<u64>) {}
    fn advance(&self, _: u64) {}
    fn stage_finished(&self, stage: &str, summary: &str) {
        if let Ok(mut slot) = self.finished.lock() {
            *slot = Some((stage.to_string(), summary.to_string()));
        }
    }
}

impl HeldProgress {
    /// Shows the held stage, if it finished, on `to`.
    pub(crate) fn replay(self, to: &dyn Progress) {
        if let Some((stage, summary)) = self.finished.into_inner().ok().flatten() {
            to.stage_started(&stage, None);
            to.stage_finished(&stage, &summary);
        }
    }
}
