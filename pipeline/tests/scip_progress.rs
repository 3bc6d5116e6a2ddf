//! The SCIP stage's progress while it runs beside the syntax stage: the display has one bar, so
//! SCIP's events wait until the syntax stage has finished, and from then on are shown as they
//! come — a long index does not leave the display silent until the whole stage is over.

mod scip_support;

use std::sync::Mutex;

use pipeline::{Progress, SnapshotOutcome};
use scip_support::*;

/// Every event the pipeline hands the display, in the order it arrives.
#[derive(Default)]
struct Recorder {
    events: Mutex<Vec<(String, String)>>,
}

impl Recorder {
    fn push(&self, kind: &str, what: String) {
        self.events.lock().unwrap().push((kind.to_string(), what));
    }
}

impl Progress for Recorder {
    fn stage_started(&self, stage: &str, _: Option<u64>) {
        self.push("started", stage.to_string());
    }
    fn advance(&self, n: u64) {
        self.push("advance", n.to_string());
    }
    fn stage_finished(&self, stage: &str, _: &str) {
        self.push("finished", stage.to_string());
    }
}

/// Documents in the index: each carries 24 KiB of documentation (read, never stored), so the
/// index holds several of the stage's 4 MiB batches while the work per document stays small.
const DOCUMENTS: usize = 800;

#[test]
fn scip_progress_is_shown_live_once_the_syntax_stage_has_finished() {
    // Kotlin has no tree-sitter grammar in ckb: the syntax stage has nothing to parse and is done
    // at once, while the SCIP stage reads an index of several batches.
    let files: Vec<(String, String)> = (0..DOCUMENTS)
        .map(|i| (format!("src/k{i}.kt"), "fun f() {}\n".to_string()))
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let repo = repo_with(&refs);
    let mut idx = index("scip-java", "0.10.0", "");
    for (i, (path, _)) in files.iter().enumerate() {
        let mut d = doc(path);
        d.language = "kotlin".into();
        let symbol = format!("scip-java maven fx 1 k{i}/f().");
        d.occurrences.push(def(&symbol, &[0, 4, 5], &[0, 0, 10]));
        let mut information = info(&symbol, None, None);
        information.documentation = vec!["d".repeat(24 << 10)];
        d.symbols.push(information);
        idx.documents.push(d);
    }
    write_index(&repo.path().join("index.scip"), &idx);

    let store = tempfile::tempdir().expect("store");
    let mut opts = options(repo.path(), store.path());
    opts.stages = None;
    opts.threads = Some(4);
    let recorder = Recorder::default();
    let outcome = pipeline::snapshot(&opts, &recorder).expect("snapshot");
    assert!(matches!(outcome, SnapshotOutcome::Written { .. }));

    let events = recorder.events.into_inner().unwrap();
    // For failure messages: the stage boundaries, without the scan's thousand advances.
    let boundaries: Vec<&(String, String)> =
        events.iter().filter(|(k, _)| k != "advance").collect();
    let at = |kind: &str, stage: &str| {
        events
            .iter()
            .position(|(k, s)| k == kind && s == stage)
            .unwrap_or_else(|| panic!("no {kind} {stage} in {boundaries:?}"))
    };
    // One bar: each stage's events come after the one before it has finished.
    let order = [
        at("finished", "syntax"),
        at("started", "scip"),
        at("finished", "scip"),
        at("started", "git"),
        at("finished", "git"),
        at("started", "modules"),
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{boundaries:?}");
    // SCIP's advances arrive between its start and its end, none lost or repeated.
    let scip_advances: Vec<u64> = events[order[1]..order[2]]
        .iter()
        .filter(|(k, _)| k == "advance")
        .map(|(_, n)| n.parse().unwrap())
        .collect();
    assert_eq!(
        scip_advances.iter().sum::<u64>(),
        DOCUMENTS as u64,
        "SCIP advances {scip_advances:?}"
    );
    // Live, not replayed at the end: held events are handed on as one advance, so more than one
    // means the batches were shown as the stage absorbed them.
    assert!(
        scip_advances.len() >= 2,
        "SCIP's progress was held until the stage ended: {scip_advances:?}"
    );
}
