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

/// The progress of a stage that runs beside another. The display has one bar, so nothing of it
/// is shown while an earlier stage still draws (the order on screen is the pipeline's): its events
/// wait here until [`HeldProgress::release`] hands them on, and from then on they go straight
/// through, live. Once the stage is [`HeldProgress::done`] and released, the next stage in the
/// chain ([`HeldProgress::then`]) is released too. So when the syntax stage finishes first, a long
/// SCIP stage shows its progress as it runs, and the git stage after it.
pub(crate) struct HeldProgress<'p> {
    state: std::sync::Mutex<Held<'p>>,
    next: Option<&'p HeldProgress<'p>>,
}

/// What a [`HeldProgress`] holds.
#[derive(Default)]
struct Held<'p> {
    /// Where events go once released.
    to: Option<&'p dyn Progress>,
    /// Events before the release, in order (consecutive advances added up).
    events: Vec<Event>,
    /// The stage sends no more events.
    done: bool,
}

/// One held progress event.
enum Event {
    Started(String, Option<u64>),
    Advanced(u64),
    Finished(String, String),
}

impl Event {
    fn send(&self, to: &dyn Progress) {
        match self {
            Event::Started(stage, total) => to.stage_started(stage, *total),
            Event::Advanced(n) => to.advance(*n),
            Event::Finished(stage, summary) => to.stage_finished(stage, summary),
        }
    }
}

impl Progress for HeldProgress<'_> {
    fn stage_started(&self, stage: &str, total: Option<u64>) {
        self.event(Event::Started(stage.to_string(), total));
    }
    fn advance(&self, n: u64) {
        self.event(Event::Advanced(n));
    }
    fn stage_finished(&self, stage: &str, summary: &str) {
        self.event(Event::Finished(stage.to_string(), summary.to_string()));
    }
}

impl<'p> HeldProgress<'p> {
    /// Holds a stage's progress; nothing is released after it.
    pub(crate) fn new() -> HeldProgress<'p> {
        HeldProgress {
            state: std::sync::Mutex::new(Held::default()),
            next: None,
        }
    }

    /// Holds a stage's progress; `next` is released once this one is released and done.
    pub(crate) fn then(next: &'p HeldProgress<'p>) -> HeldProgress<'p> {
        HeldProgress {
            next: Some(next),
            ..HeldProgress::new()
        }
    }

    /// Hands the held events on to `to`, and every later one as it comes. Releasing again does
    /// nothing: each event is shown once.
    pub(crate) fn release(&self, to: &'p dyn Progress) {
        let release_next = {
            let Ok(mut held) = self.state.lock() else {
                return;
            };
            if held.to.is_some() {
                return;
            }
            held.to = Some(to);
            for event in std::mem::take(&mut held.events) {
                event.send(to);
            }
            held.done
        };
        if release_next {
            self.release_next(to);
        }
    }

    /// The stage sends no more events: once released, the next stage's are shown.
    pub(crate) fn done(&self) {
        let released = {
            let Ok(mut held) = self.state.lock() else {
                return;
            };
            held.done = true;
            held.to
        };
        if let Some(to) = released {
            self.release_next(to);
        }
    }

    fn release_next(&self, to: &'p dyn Progress) {
        if let Some(next) = self.next {
            next.release(to);
        }
    }

    fn event(&self, event: Event) {
        let Ok(mut held) = self.state.lock() else {
            return;
        };
        // Sent under the lock, so that a release replaying the held events cannot be overtaken.
        if let Some(to) = held.to {
            event.send(to);
            return;
        }
        match (held.events.last_mut(), event) {
            (Some(Event::Advanced(sum)), Event::Advanced(n)) => *sum += n,
            (_, event) => held.events.push(event),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// The events a display receives, as text.
    #[derive(Default)]
    struct Shown(Mutex<Vec<String>>);

    impl Progress for Shown {
        fn stage_started(&self, stage: &str, total: Option<u64>) {
            self.0
                .lock()
                .unwrap()
                .push(format!("start {stage} {total:?}"));
        }
        fn advance(&self, n: u64) {
            self.0.lock().unwrap().push(format!("+{n}"));
        }
        fn stage_finished(&self, stage: &str, summary: &str) {
            self.0
                .lock()
                .unwrap()
                .push(format!("end {stage}: {summary}"));
        }
    }

    impl Shown {
        fn take(&self) -> Vec<String> {
            std::mem::take(&mut self.0.lock().unwrap())
        }
    }

    #[test]
    fn held_events_are_shown_on_release_in_order_and_later_ones_as_they_come() {
        let shown = Shown::default();
        let held = HeldProgress::new();
        held.stage_started("scip", Some(9));
        held.advance(2);
        held.advance(3);
        assert!(shown.take().is_empty());
        held.release(&shown);
        assert_eq!(shown.take(), ["start scip Some(9)", "+5"]);
        held.advance(4);
        held.stage_finished("scip", "9 documents");
        assert_eq!(shown.take(), ["+4", "end scip: 9 documents"]);
        // A second release shows nothing twice.
        held.release(&shown);
        assert!(shown.take().is_empty());
    }

    #[test]
    fn the_next_stage_is_released_once_this_one_is_released_and_done_in_either_order() {
        for done_first in [false, true] {
            let shown = Shown::default();
            let git = HeldProgress::new();
            let scip = HeldProgress::then(&git);
            git.stage_started("git", None);
            scip.stage_started("scip", None);
            scip.stage_finished("scip", "s");
            if done_first {
                scip.done();
                assert!(shown.take().is_empty(), "nothing shown before a release");
                scip.release(&shown);
            } else {
                scip.release(&shown);
                assert_eq!(shown.take(), ["start scip None", "end scip: s"]);
                git.stage_finished("git", "g");
                assert!(shown.take().is_empty(), "git waits until SCIP is done");
                scip.done();
            }
            let expected: &[&str] = if done_first {
                &["start scip None", "end scip: s", "start git None"]
            } else {
                &["start git None", "end git: g"]
            };
            assert_eq!(shown.take(), expected, "done first: {done_first}");
        }
    }
}
