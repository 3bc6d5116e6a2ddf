//! Progress bars on stderr (indicatif), shown only where a person is watching: one bar per
//! snapshot stage ([`Bars`]), and for `ckb index` one spinner per running indexer ([`IndexBars`]).

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

/// When to draw progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ProgressMode {
    /// Only when stderr is a terminal.
    Auto,
    /// Always (to stderr).
    Always,
    /// Never.
    Never,
}

/// Renders pipeline progress as one bar per stage.
pub struct Bars {
    bar: Mutex<Option<ProgressBar>>,
    enabled: bool,
    color: bool,
}

impl Bars {
    /// Progress for a mode.
    pub fn new(mode: ProgressMode) -> Bars {
        let enabled = match mode {
            ProgressMode::Auto => std::io::stderr().is_terminal(),
            ProgressMode::Always => true,
            ProgressMode::Never => false,
        };
        Bars {
            bar: Mutex::new(None),
            enabled,
            color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }
}

impl pipeline::Progress for Bars {
    fn stage_started(&self, stage: &str, total: Option<u64>) {
        if !self.enabled {
            return;
        }
        let bar = match total {
            Some(n) => ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr()),
            None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
        };
        let template = match (total.is_some(), self.color) {
            (true, true) => {
                "{spinner:.cyan} {prefix:>9.bold} [{bar:30.cyan/blue}] {pos}/{len} {elapsed}"
            }
            (true, false) => "{spinner} {prefix:>9} [{bar:30}] {pos}/{len} {elapsed}",
            (false, true) => "{spinner:.cyan} {prefix:>9.bold} {pos} {elapsed}",
            (false, false) => "{spinner} {prefix:>9} {pos} {elapsed}",
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix(stage.to_string());
        if let Ok(mut slot) = self.bar.lock() {
            if let Some(old) = slot.replace(bar) {
                old.finish_and_clear();
            }
        }
    }

    fn advance(&self, n: u64) {
        if let Ok(slot) = self.bar.lock() {
            if let Some(bar) = slot.as_ref() {
                bar.inc(n);
            }
        }
    }

    fn stage_finished(&self, stage: &str, summary: &str) {
        if let Ok(mut slot) = self.bar.lock() {
            if let Some(bar) = slot.take() {
                bar.finish_and_clear();
                if self.enabled {
                    eprintln!("{stage:>9} {summary}");
                }
            }
        }
    }
}

/// Renders `ckb index`: the scan as a [`Bars`] stage, then one spinner per running indexer with
/// its elapsed time and the newest line it printed, and one line per finished run.
pub struct IndexBars {
    stages: Bars,
    multi: MultiProgress,
    runs: Mutex<BTreeMap<String, ProgressBar>>,
}

impl IndexBars {
    /// Progress for a mode.
    pub fn new(mode: ProgressMode) -> IndexBars {
        let stages = Bars::new(mode);
        let multi = MultiProgress::with_draw_target(if stages.enabled {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        });
        IndexBars {
            stages,
            multi,
            runs: Mutex::new(BTreeMap::new()),
        }
    }
}

impl pipeline::Progress for IndexBars {
    fn stage_started(&self, stage: &str, total: Option<u64>) {
        self.stages.stage_started(stage, total);
    }

    fn advance(&self, n: u64) {
        self.stages.advance(n);
    }

    fn stage_finished(&self, stage: &str, summary: &str) {
        self.stages.stage_finished(stage, summary);
    }
}

impl pipeline::indexers::IndexProgress for IndexBars {
    fn run_started(&self, run: &str, project: &str) {
        if !self.stages.enabled {
            return;
        }
        let bar = self.multi.add(ProgressBar::new_spinner());
        let template = if self.stages.color {
            "{spinner:.cyan} {prefix:.bold} {elapsed:>4} {wide_msg}"
        } else {
            "{spinner} {prefix} {elapsed:>4} {wide_msg}"
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style);
        }
        bar.set_prefix(if project == "." {
            run.to_string()
        } else {
            format!("{run} [{project}]")
        });
        bar.enable_steady_tick(Duration::from_millis(120));
        if let Ok(mut runs) = self.runs.lock() {
            runs.insert(run.to_string(), bar);
        }
    }

    fn run_output(&self, run: &str, line: &str) {
        if let Ok(runs) = self.runs.lock() {
            if let Some(bar) = runs.get(run) {
                bar.set_message(line.to_string());
            }
        }
    }

    fn run_finished(&self, run: &str, summary: &str) {
        if let Ok(mut runs) = self.runs.lock() {
            if let Some(bar) = runs.remove(run) {
                bar.finish_and_clear();
                self.multi.remove(&bar);
            }
        }
        if self.stages.enabled {
            let _ = self.multi.println(format!("{run} {summary}"));
        }
    }
}
