//! How much of the truth a snapshot holds: stage completeness turned into answer completeness,
//! and whether the SCIP index behind an answer is stale.
//!
//! Scores and reasons (documented here because answers carry them):
//! - symbols (`symbol`, `search`): SCIP `full-backend` → the SCIP score, reason `scip`; SCIP
//!   present but partial or stale → the lower of the SCIP and syntax scores, `scip-partial`;
//!   tree-sitter only → 0.8 × the syntax score, `tree-sitter-only` (definitions are found reliably
//!   by syntax; kinds and visibility are less certain); no symbols table → 0, `no-symbols`. An
//!   answer whose symbols all come from tree-sitter uses the tree-sitter score (`tree-sitter`).
//! - references (`refs`, `impact`, `dead-code`, …): sites from SCIP → the SCIP score, `scip`;
//!   only tree-sitter sites → 0.6 × the syntax score, `by-name` (by-name resolution misses
//!   references through aliases and re-exports and may include same-name sites); none → 0.
//! - history: the git stage's own completeness (`full-history`, `shallow-history`, …).
//! - An answer that depends on a stale SCIP index keeps its score but warns `INDEX_STALE` and
//!   offers the command that regenerates the index (see `respond`). INDEX_STALE is a warning, not
//!   an error: stale facts are still the best the snapshot has.

use output_schema::manifest::{StageReport, StageStatus};

use crate::envelope::answer::CompletenessInfo;
use crate::Snapshot;

/// A stage's report, when recorded.
pub fn stage<'a>(snapshot: &'a Snapshot, name: &str) -> Option<&'a StageReport> {
    snapshot.manifest.stages.get(name)
}

/// Whether a stage ran (ok or partial).
pub fn ran(snapshot: &Snapshot, name: &str) -> bool {
    stage(snapshot, name)
        .is_some_and(|r| matches!(r.status, StageStatus::Ok | StageStatus::Partial))
}

fn score_of(r: Option<&StageReport>) -> Option<(f64, String)> {
    let r = r?;
    if !matches!(r.status, StageStatus::Ok | StageStatus::Partial) {
        return None;
    }
    Some(match &r.completeness {
        Some(c) => (c.score, c.reason.clone()),
        None => (
            if r.status == StageStatus::Ok {
                1.0
            } else {
                0.5
            },
            String::new(),
        ),
    })
}

fn round(x: f64) -> f64 {
    (x * 1_000_000.0).round() / 1_000_000.0
}

fn info(score: f64, reason: &str) -> CompletenessInfo {
    CompletenessInfo {
        score: round(score.clamp(0.0, 1.0)),
        reason: reason.into(),
    }
}

/// Completeness of the symbol table.
pub fn symbols(snapshot: &Snapshot) -> CompletenessInfo {
    if !snapshot.has_table("symbols") {
        return info(0.0, "no-symbols");
    }
    let scip = score_of(stage(snapshot, "scip"));
    let syntax = score_of(stage(snapshot, "syntax"));
    match (scip, syntax) {
        (Some((s, r)), _) if r == "full-backend" => info(s, "scip"),
        (Some((s, _)), Some((t, _))) => info(s.min(t), "scip-partial"),
        (Some((s, _)), None) => info(s, "scip-partial"),
        (None, Some((t, _))) => info(0.8 * t, "tree-sitter-only"),
        (None, None) => info(0.5, "unknown-stages"),
    }
}

/// Completeness of an answer about particular symbols: the symbol table's, except when none of
/// them came from SCIP — then the tree-sitter score (`tree-sitter`), since SCIP's coverage says
/// nothing about files it did not index.
pub fn symbols_of(snapshot: &Snapshot, any_scip: bool) -> CompletenessInfo {
    if any_scip {
        return symbols(snapshot);
    }
    match score_of(stage(snapshot, "syntax")) {
        Some((t, _)) => info(0.8 * t, "tree-sitter"),
        None => symbols(snapshot),
    }
}

/// Completeness of references, given the backends of the sites found (`scip`, `tree-sitter`)
/// and of the symbol they point to.
pub fn references(snapshot: &Snapshot, scip_backed: bool) -> CompletenessInfo {
    if !snapshot.has_table("occurrences") {
        return info(0.0, "no-occurrences");
    }
    if scip_backed {
        if let Some((s, _)) = score_of(stage(snapshot, "scip")) {
            return info(s, "scip");
        }
    }
    match score_of(stage(snapshot, "syntax")) {
        Some((t, _)) => info(0.6 * t, "by-name"),
        None => info(0.3, "by-name"),
    }
}

/// Completeness of history facts.
pub fn history(snapshot: &Snapshot) -> CompletenessInfo {
    match score_of(stage(snapshot, "git")) {
        Some((s, r)) => info(s, if r.is_empty() { "git" } else { &r }),
        None => info(0.0, "history-not-recorded"),
    }
}

/// Completeness of module facts.
pub fn modules(snapshot: &Snapshot) -> CompletenessInfo {
    match score_of(stage(snapshot, "modules")) {
        Some((s, r)) => info(s, if r.is_empty() { "modules" } else { &r }),
        None => info(0.0, "modules-stage-not-run"),
    }
}

/// Why the SCIP data in this snapshot is stale, when it is.
pub fn scip_stale(snapshot: &Snapshot) -> Option<String> {
    for b in &snapshot.manifest.backends {
        if b.kind != "scip" {
            continue;
        }
        let state = b.facts.get("freshness").map(String::as_str).unwrap_or("");
        match state {
            "behind" => {
                let n = b
                    .facts
                    .get("commitsBehind")
                    .cloned()
                    .unwrap_or_else(|| "some".into());
                return Some(format!(
                    "{} was built {n} commit(s) behind the snapshot's HEAD",
                    b.input.as_deref().unwrap_or("the index")
                ));
            }
            "diverged" => {
                return Some(format!(
                    "{} describes a commit that is not an ancestor of the snapshot's HEAD",
                    b.input.as_deref().unwrap_or("the index")
                ))
            }
            "current-dirty" => {
                return Some(format!(
                    "{} describes HEAD but the working tree had changed",
                    b.input.as_deref().unwrap_or("the index")
                ))
            }
            _ => {}
        }
    }
    let r = stage(snapshot, "scip")?;
    let c = r.completeness.as_ref()?;
    (c.reason == "index-stale").then(|| "the scip stage reports index-stale".to_string())
}

/// A SCIP indexer ckb can name in a fix.
struct Indexer {
    /// Name of its index under `.ckb/` when there are several.
    name: &'static str,
    /// The tool as the manifest's SCIP backend records it.
    tool: &'static str,
    /// Scan languages it indexes.
    languages: &'static [&'static str],
    /// The command, before `--output PATH`.
    command: &'static str,
}

const INDEXERS: &[Indexer] = &[
    Indexer {
        name: "rust",
        tool: "rust-analyzer",
        languages: &["rust"],
        command: "rust-analyzer scip .",
    },
    Indexer {
        name: "typescript",
        tool: "scip-typescript",
        languages: &["typescript", "tsx", "javascript"],
        command: "npx @sourcegraph/scip-typescript index",
    },
    Indexer {
        name: "python",
        tool: "scip-python",
        languages: &["python"],
        command: "npx @sourcegraph/scip-python index .",
    },
    Indexer {
        name: "java",
        tool: "scip-java",
        languages: &["java"],
        command: "scip-java index",
    },
    Indexer {
        name: "go",
        tool: "scip-go",
        languages: &["go"],
        command: "scip-go",
    },
];

/// The shell commands that (re)generate SCIP indexes for this snapshot, then re-snapshot.
///
/// With a SCIP backend recorded, its tool is rerun; otherwise one indexer per indexable language
/// of the scan with at least a tenth of the main language's files (most files first): a single
/// index goes to `index.scip`, several to `.ckb/<language>.scip` — both places `ckb snapshot`
/// discovers on its own. Languages without a known indexer get none (their facts stay
/// tree-sitter's).
pub fn scip_index_commands(snapshot: &Snapshot) -> Vec<String> {
    let mut chosen: Vec<&Indexer> = INDEXERS
        .iter()
        .filter(|i| {
            snapshot
                .manifest
                .backends
                .iter()
                .any(|b| b.kind == "scip" && b.tool == i.tool)
        })
        .collect();
    chosen.sort_by_key(|i| i.tool);
    if chosen.is_empty() {
        // Indexable languages by files (most first, then name).
        let mut langs: Vec<(&Indexer, &String, i64)> = stage(snapshot, "scan")
            .map(|r| {
                r.breakdown
                    .iter()
                    .filter_map(|(l, c)| {
                        let indexer = INDEXERS
                            .iter()
                            .find(|i| i.languages.contains(&l.as_str()))?;
                        Some((indexer, l, c.get("files").copied().unwrap_or(0)))
                    })
                    .collect()
            })
            .unwrap_or_default();
        langs.sort_by(|a, b| b.2.cmp(&a.2).then(a.1.cmp(b.1)));
        // A language with a handful of files next to a main one (fixtures, scripts) is not
        // worth an indexer run: keep those with at least a tenth of the main language's files.
        let floor = langs.first().map_or(0, |l| (l.2 + 9) / 10);
        for (indexer, _, files) in langs {
            if files >= floor && !chosen.iter().any(|c| c.name == indexer.name) {
                chosen.push(indexer);
            }
        }
    }
    let mut commands: Vec<String> = match chosen.as_slice() {
        [] => Vec::new(),
        [one] => vec![format!("{} --output index.scip", one.command)],
        several => std::iter::once("mkdir -p .ckb".to_string())
            .chain(
                several
                    .iter()
                    .map(|i| format!("{} --output .ckb/{}.scip", i.command, i.name)),
            )
            .collect(),
    };
    commands.push("ckb snapshot --force".into());
    commands
}

/// The commands of `scip_index_commands` as one line joined with `&&`.
pub fn scip_refresh_command(snapshot: &Snapshot) -> String {
    scip_index_commands(snapshot).join(" && ")
}

/// Whether any SCIP backend contributed.
pub fn has_scip(snapshot: &Snapshot) -> bool {
    ran(snapshot, "scip") || snapshot.manifest.backends.iter().any(|b| b.kind == "scip")
}
