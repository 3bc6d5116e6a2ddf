//! Progress bars on stderr (indicatif), shown only where a person is watching.

use std::io::IsTerminal;
use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

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
