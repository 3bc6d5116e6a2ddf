//! `ckb query status`: what a snapshot holds, how healthy each backend is, and what to do next.
//!
//! Like every answer it goes through [`finish`], so `--max-tokens` trims its `tables` list (then
//! `backends`) and `--max-drilldowns` caps its next steps. Its own next steps: each unavailable or
//! degraded backend's remediation, then `ckb verify`; `finish` puts "take a new snapshot" first
//! when the snapshot is behind, dirty or diverged.

use serde_json::{json, Value};

use output_schema::manifest::{StageReport, StageStatus};

use crate::envelope::answer::{Answer, CompletenessInfo};
use crate::envelope::respond::{finish, Ctx, Draft, Trim};
use crate::snapshot::Snapshot;
use crate::QueryError;

/// Health of one backend.
struct Health {
    backend: &'static str,
    tier: &'static str,
    reason: String,
    remediation: Option<&'static str>,
}

fn stage<'a>(snapshot: &'a Snapshot, name: &str) -> Option<&'a StageReport> {
    snapshot.manifest.stages.get(name)
}

fn reason_of(report: Option<&StageReport>) -> String {
    match report {
        None => "stage not recorded".into(),
        Some(r) => r
            .completeness
            .as_ref()
            .map(|c| c.reason.clone())
            .or_else(|| r.reason.clone())
            .unwrap_or_else(|| status_name(r.status).into()),
    }
}

fn status_name(s: StageStatus) -> &'static str {
    match s {
        StageStatus::Ok => "ok",
        StageStatus::Partial => "partial",
        StageStatus::Skipped => "skipped",
        StageStatus::NotRun => "not-run",
    }
}

fn health(snapshot: &Snapshot) -> Vec<Health> {
    let tier = |r: Option<&StageReport>, degraded_reasons: &[&str]| match r.map(|r| r.status) {
        Some(StageStatus::Ok) => {
            let reason = reason_of(r);
            if degraded_reasons.contains(&reason.as_str()) {
                "degraded"
            } else {
                "available"
            }
        }
        Some(StageStatus::Partial) => "degraded",
        _ => "unavailable",
    };
    let syntax = stage(snapshot, "syntax");
    let scip = stage(snapshot, "scip");
    let git = stage(snapshot, "git");
    vec![
        Health {
            backend: "tree-sitter",
            tier: tier(syntax, &[]),
            reason: reason_of(syntax),
            remediation: Some("run `ckb snapshot --force` with the syntax stage selected"),
        },
        Health {
            backend: "scip",
            tier: tier(scip, &["index-stale", "partial-backend"]),
            reason: reason_of(scip),
            remediation: Some(
                "run `ckb index` (the installed SCIP indexers, into .ckb/), then `ckb snapshot --force`; or both at once: `ckb snapshot --force --index`",
            ),
        },
        Health {
            backend: "git",
            tier: tier(git, &["shallow-history", "no-commits"]),
            reason: reason_of(git),
            remediation: Some(match reason_of(git).as_str() {
                "blobless-clone" | "treeless-clone" | "partial-clone" => {
                    "snapshot with --history-fetch-missing (git fetches the history's missing objects), or a clone without --filter"
                }
                "missing-objects" => {
                    "repair the repository's lost objects (git fsck --full lists them), then re-snapshot"
                }
                _ => "snapshot a git clone with full history (git fetch --unshallow)",
            }),
        },
    ]
}

/// Builds the status answer.
pub fn status(ctx: &Ctx<'_>) -> Result<Answer, QueryError> {
    let (snapshot, freshness) = (ctx.snapshot, ctx.freshness);
    let m = &snapshot.manifest;
    let healths = health(snapshot);
    let backends: Vec<Value> = healths
        .iter()
        .map(|h| {
            let mut v = json!({"backend": h.backend, "tier": h.tier, "reason": h.reason});
            if h.tier != "available" {
                v["remediation"] = json!(h.remediation);
            }
            v
        })
        .collect();
    let tables: Vec<Value> = m
        .tables
        .iter()
        .map(|t| json!({"name": t.name, "rows": t.rows, "bytes": t.bytes}))
        .collect();
    let stages: serde_json::Map<String, Value> = m
        .stages
        .iter()
        .map(|(name, r)| {
            let mut v = json!({
                "status": status_name(r.status),
                "items": r.items,
                "warnings": r.warnings_total,
            });
            if let Some(c) = &r.completeness {
                v["completeness"] = json!({"score": c.score, "reason": c.reason});
            }
            if let Some(reason) = &r.reason {
                v["reason"] = json!(reason);
            }
            (name.clone(), v)
        })
        .collect();
    let languages: serde_json::Map<String, Value> = stage(snapshot, "scan")
        .map(|r| {
            r.breakdown
                .iter()
                .map(|(lang, counts)| {
                    (
                        lang.clone(),
                        json!(counts.get("files").copied().unwrap_or(0)),
                    )
                })
                .collect()
        })
        .unwrap_or_default();

    let available = healths.iter().filter(|h| h.tier == "available").count();
    let score = healths
        .iter()
        .map(|h| match h.tier {
            "available" => 1.0,
            "degraded" => 0.5,
            _ => 0.0,
        })
        .sum::<f64>()
        / healths.len() as f64;
    let files = m.table("files").map(|t| t.rows).unwrap_or(0);
    let symbols = m.table("symbols").map(|t| t.rows).unwrap_or(0);
    let explanation = format!(
        "Snapshot {} of {} (schema v{}, ckb {}): {} files, {} symbols; {} of {} backends available; freshness: {}.",
        m.snapshot_id,
        m.repo_id,
        m.schema_version,
        m.ckb_version,
        files,
        symbols,
        available,
        healths.len(),
        freshness.state
    );
    let facts = json!({
        "snapshot": {
            "repoId": m.repo_id,
            "snapshotId": m.snapshot_id,
            "schemaVersion": m.schema_version,
            "ckbVersion": m.ckb_version,
            "privacy": m.privacy,
            "repoState": m.repo_state,
        },
        "backends": backends,
        "tables": tables,
        "stages": stages,
        "languages": languages,
        "freshness": freshness,
    });
    let n = tables.len() as u64;
    let mut draft = Draft::new("status", "ckb query status".into(), facts, explanation);
    draft.completeness = CompletenessInfo {
        score,
        reason: if available == healths.len() {
            "all-backends".into()
        } else {
            "some-backends-unavailable".into()
        },
    };
    for h in &healths {
        if h.tier != "available" {
            if let Some(r) = h.remediation {
                draft.suggest(r, format!("{} is {} ({})", h.backend, h.tier, h.reason));
            }
        }
    }
    draft.suggest(
        format!("ckb verify {}", snapshot.dir.display()),
        "check every table against the manifest",
    );
    draft.trims = vec![
        Trim::new("/tables", "tables"),
        Trim::summary("/backends", "backends"),
    ];
    draft.items_in = n;
    draft.items_out = n;
    finish(ctx, draft)
}
