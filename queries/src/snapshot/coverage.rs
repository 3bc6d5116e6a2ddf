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

use output_schema::indexers::{self, IndexerInfo};
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

/// A language of the scan that a SCIP indexer covers.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexableLanguage {
    /// The scan's language name.
    pub language: String,
    /// Its files.
    pub files: i64,
    /// Its indexer.
    pub indexer: &'static IndexerInfo,
}

/// The scan's languages that have a SCIP indexer, most files first (then by name), leaving out a
/// language with a handful of files next to a main one (fixtures, scripts): those with fewer than
/// a tenth of the main language's files are not worth an indexer run.
pub fn indexable_languages(snapshot: &Snapshot) -> Vec<IndexableLanguage> {
    let mut langs: Vec<IndexableLanguage> = stage(snapshot, "scan")
        .map(|r| {
            r.breakdown
                .iter()
                .filter_map(|(l, c)| {
                    Some(IndexableLanguage {
                        indexer: indexers::for_language(l)?,
                        language: l.clone(),
                        files: c.get("files").copied().unwrap_or(0),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    langs.sort_by(|a, b| b.files.cmp(&a.files).then(a.language.cmp(&b.language)));
    let floor = langs.first().map_or(0, |l| (l.files + 9) / 10);
    langs.retain(|l| l.files >= floor && l.files > 0);
    langs
}

/// The indexable languages ([`indexable_languages`]) whose indexer wrote no index this snapshot
/// read.
pub fn languages_without_index(snapshot: &Snapshot) -> Vec<IndexableLanguage> {
    let mut out = indexable_languages(snapshot);
    out.retain(|l| {
        !snapshot
            .manifest
            .backends
            .iter()
            .any(|b| b.kind == "scip" && b.tool == l.indexer.tool)
    });
    out
}

/// The shell commands that (re)generate SCIP indexes for this snapshot, then re-snapshot:
/// `ckb index --languages …` over the languages of the indexers the snapshot read (to refresh
/// them) and of the indexable languages it has no index for ([`languages_without_index`]), in
/// catalog order; only `ckb snapshot --force` when no language of the scan has an indexer.
pub fn scip_index_commands(snapshot: &Snapshot) -> Vec<String> {
    let recorded: Vec<&str> = snapshot
        .manifest
        .backends
        .iter()
        .filter(|b| b.kind == "scip")
        .map(|b| b.tool.as_str())
        .collect();
    let scanned: Vec<&String> = stage(snapshot, "scan")
        .map(|r| r.breakdown.keys().collect())
        .unwrap_or_default();
    let mut languages: Vec<&str> = Vec::new();
    for indexer in indexers::INDEXERS {
        let wanted = recorded.contains(&indexer.tool)
            || languages_without_index(snapshot)
                .iter()
                .any(|l| l.indexer.tool == indexer.tool);
        if wanted {
            let present: Vec<&str> = indexer
                .languages
                .iter()
                .copied()
                .filter(|l| scanned.iter().any(|s| s.as_str() == *l))
                .collect();
            // A recorded index whose languages the scan did not break down: its main language.
            match present.as_slice() {
                [] => languages.extend(indexer.languages.first()),
                _ => languages.extend(present),
            }
        }
    }
    let mut commands = Vec::new();
    if !languages.is_empty() {
        commands.push(format!("ckb index --languages {}", languages.join(",")));
    }
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
