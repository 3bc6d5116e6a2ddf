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

use crate::answer::CompletenessInfo;
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

/// The indexer command for a tool or language: (language key, command writing `output`).
fn indexer_for(key: &str, output: &str) -> Option<String> {
    Some(match key {
        "rust-analyzer" | "rust" => format!("rust-analyzer scip . --output {output}"),
        "scip-typescript" | "typescript" | "tsx" | "javascript" => {
            format!("npx @sourcegraph/scip-typescript index --output {output}")
        }
        "scip-python" | "python" => {
            format!("npx @sourcegraph/scip-python index . --output {output}")
        }
        "scip-java" | "java" => format!("scip-java index --output {output}"),
        "scip-go" | "go" => format!("scip-go --output {output}"),
        _ => return None,
    })
}

/// The shell commands that (re)generate SCIP indexes for this snapshot, then re-snapshot.
///
/// With a SCIP backend recorded, its tool is rerun; otherwise one indexer per indexable language
/// of the scan with at least a tenth of the main language's files (most files first): a single
/// index goes to `index.scip`, several to
/// `.ckb/<language>.scip` — both places `ckb snapshot` discovers on its own. Languages without a
/// known indexer get none (their facts stay tree-sitter's).
pub fn scip_index_commands(snapshot: &Snapshot) -> Vec<String> {
    let tools: Vec<&str> = {
        let mut t: Vec<&str> = snapshot
            .manifest
            .backends
            .iter()
            .filter(|b| b.kind == "scip")
            .map(|b| b.tool.as_str())
            .collect();
        t.sort();
        t.dedup();
        t
    };
    let keys: Vec<String> = if tools.iter().any(|t| indexer_for(t, "").is_some()) {
        tools.iter().map(|t| t.to_string()).collect()
    } else {
        // Languages by files (most first, then name), one indexer each.
        let mut langs: Vec<(String, i64)> = stage(snapshot, "scan")
            .map(|r| {
                r.breakdown
                    .iter()
                    .map(|(l, c)| (l.clone(), c.get("files").copied().unwrap_or(0)))
                    .collect()
            })
            .unwrap_or_default();
        langs.retain(|(l, _)| indexer_for(l, "").is_some());
        langs.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        // A language with a handful of files next to a main one (fixtures, scripts) is not
        // worth an indexer run: keep those with at least a tenth of the main language's files.
        let floor = langs.first().map_or(0, |l| (l.1 + 9) / 10);
        langs.retain(|l| l.1 >= floor);
        let mut seen: Vec<String> = Vec::new();
        let mut keys = Vec::new();
        for (l, _) in langs {
            if let Some(cmd) = indexer_for(&l, "") {
                if !seen.contains(&cmd) {
                    seen.push(cmd);
                    keys.push(l);
                }
            }
        }
        keys
    };
    let mut commands: Vec<String> = if keys.len() == 1 {
        indexer_for(&keys[0], "index.scip").into_iter().collect()
    } else {
        std::iter::once("mkdir -p .ckb".to_string())
            .filter(|_| !keys.is_empty())
            .chain(keys.iter().filter_map(|k| {
                let lang = match k.as_str() {
                    "rust-analyzer" => "rust",
                    "scip-typescript" | "tsx" | "javascript" => "typescript",
                    "scip-python" => "python",
                    "scip-java" => "java",
                    "scip-go" => "go",
                    other => other,
                };
                indexer_for(k, &format!(".ckb/{lang}.scip"))
            }))
            .collect()
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
