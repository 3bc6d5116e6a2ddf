//! The answer envelope every query returns (DESIGN.md "Query contract").

use serde::Serialize;
use serde_json::Value;

use crate::snapshot::{Freshness, FreshnessState, Snapshot};

/// A suggested next command.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Drilldown {
    /// The command to run.
    pub command: String,
    /// Why it helps.
    pub reason: String,
}

/// Where an answer came from and how far to trust it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Provenance {
    /// The snapshot folder.
    pub snapshot: String,
    /// Its repository.
    pub repo_id: String,
    /// Its `commit=` value.
    pub snapshot_id: String,
    /// Its repoStateId.
    pub repo_state_id: String,
    /// Backends that contributed (`tree-sitter`, `scip:<tool>`, `git`).
    pub backends: Vec<String>,
    /// How complete the facts behind this answer are.
    pub completeness: CompletenessInfo,
    /// The snapshot against the working tree.
    pub freshness: Freshness,
    /// Caveats.
    pub warnings: Vec<String>,
    /// What the budget cut.
    pub truncations: Vec<Truncation>,
}

/// Completeness of an answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CompletenessInfo {
    /// 0..1.
    pub score: f64,
    /// Why.
    pub reason: String,
}

/// One cut made to fit the budget.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Truncation {
    /// What was cut: the name of the list in `facts` (`results`, `modules`, `callers`, …).
    pub what: String,
    /// The budget that made the cut: `max-modules`, `max-items` (or `--limit`),
    /// `max-per-module`, `max-tokens`, or a command's own bound (`depth`).
    pub budget: String,
    /// Items before the cut.
    pub total: u64,
    /// Items kept.
    pub shown: u64,
}

/// Size of an answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Compression {
    /// Items considered.
    pub items_in: u64,
    /// Items returned.
    pub items_out: u64,
    /// Estimated tokens of the JSON answer (bytes / 4).
    pub estimated_tokens: u64,
}

/// A complete answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    /// The command that produced it.
    pub command: String,
    /// Structured facts.
    pub facts: Value,
    /// Derived, human-readable text.
    pub explanation: String,
    /// Provenance.
    pub provenance: Provenance,
    /// Next commands.
    pub drilldowns: Vec<Drilldown>,
    /// Size.
    pub compression: Compression,
}

impl Provenance {
    /// Provenance of an answer from one snapshot.
    pub fn of(snapshot: &Snapshot, freshness: &Freshness, completeness: CompletenessInfo) -> Self {
        let m = &snapshot.manifest;
        let mut backends: Vec<String> = m
            .backends
            .iter()
            .map(|b| {
                if b.kind == b.tool {
                    b.kind.clone()
                } else {
                    format!("{}:{}", b.kind, b.tool)
                }
            })
            .collect();
        backends.sort();
        backends.dedup();
        let mut warnings = Vec::new();
        if freshness.state == FreshnessState::Behind {
            warnings.push(format!(
                "snapshot is {} commit(s) behind HEAD",
                freshness.commits_behind.unwrap_or(0)
            ));
        } else if freshness.state == FreshnessState::Dirty {
            warnings.push("working tree has changes the snapshot does not include".into());
        } else if freshness.state == FreshnessState::Diverged {
            warnings.push("snapshot's commit is not an ancestor of HEAD".into());
        }
        Provenance {
            snapshot: snapshot.dir.display().to_string(),
            repo_id: m.repo_id.clone(),
            snapshot_id: m.snapshot_id.clone(),
            repo_state_id: m.repo_state.repo_state_id.clone(),
            backends,
            completeness,
            freshness: freshness.clone(),
            warnings,
            truncations: Vec::new(),
        }
    }
}

impl Answer {
    /// Builds an answer and fills its compression metrics from its own encoded size.
    pub fn new(
        command: &str,
        facts: Value,
        explanation: String,
        provenance: Provenance,
        drilldowns: Vec<Drilldown>,
        items_in: u64,
        items_out: u64,
    ) -> Answer {
        let mut answer = Answer {
            command: command.to_string(),
            facts,
            explanation,
            provenance,
            drilldowns,
            compression: Compression {
                items_in,
                items_out,
                estimated_tokens: 0,
            },
        };
        let bytes = output_schema::json::to_string(&answer)
            .map(|s| s.len())
            .unwrap_or(0);
        answer.compression.estimated_tokens = (bytes as u64).div_ceil(4);
        answer
    }
}

/// The rows of a SQL statement (`ckb query sql`, `canned`): not an envelope, bounded by the
/// session's `--max-rows` instead of the answer budgets.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SqlResult {
    /// Column names, in order.
    pub columns: Vec<String>,
    /// Rows, each with one value per column.
    pub rows: Vec<Vec<Value>>,
}
