//! `ckb query doctor [--fix]`: is this snapshot good enough to answer from, and what would make
//! it better.
//!
//! Checks, in this order, each `pass`, `warn` or `fail` with a message and, unless it passes, a
//! fix: `snapshot` (every file matches the manifest: `ckb verify`), `freshness` (against the
//! working tree), `syntax` (tree-sitter coverage), `scip` (an index present and fresh for every
//! main language with an indexer; the fix is `ckb index`),
//! `history` (git depth: full, shallow, capped; partial or damaged clones), `identity` (aliases
//! and tombstones), `modules` (module graph and architecture view), `languages` (languages of
//! the scan without any symbol coverage). `--fix` turns the fixes of failing and warning checks
//! into a POSIX shell script that is printed, never run.

use std::collections::BTreeSet;

use output_schema::manifest::StageStatus;
use output_schema::verify::{verify_snapshot, Depth};
use serde_json::{json, Value};

use crate::envelope::answer::{Answer, CompletenessInfo};
use crate::envelope::respond::{finish, shell_quote, Ctx, Draft};
use crate::snapshot::coverage::{self, stage};
use crate::snapshot::FreshnessState;
use crate::QueryError;

/// One check.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    /// Stable ID of the check.
    pub id: &'static str,
    /// `pass`, `warn` or `fail`.
    pub status: &'static str,
    /// What was found.
    pub message: String,
    /// Shell commands that fix it (empty when it passes or nothing can be done automatically).
    pub fix: Vec<String>,
    /// What the fix does.
    pub fix_note: Option<String>,
}

fn check(id: &'static str, status: &'static str, message: String) -> Check {
    Check {
        id,
        status,
        message,
        fix: Vec::new(),
        fix_note: None,
    }
}

fn with_fix(mut c: Check, note: &str, cmds: &[String]) -> Check {
    c.fix_note = Some(note.into());
    c.fix = cmds.to_vec();
    c
}

fn reason(ctx: &Ctx<'_>, name: &str) -> String {
    stage(ctx.snapshot, name)
        .map(|r| {
            r.completeness
                .as_ref()
                .map(|c| c.reason.clone())
                .or_else(|| r.reason.clone())
                .unwrap_or_default()
        })
        .unwrap_or_else(|| "not recorded".into())
}

/// Runs every check.
pub fn checks(ctx: &Ctx<'_>) -> Vec<Check> {
    let mut out = Vec::new();
    snapshot_checks(ctx, &mut out);
    backend_checks(ctx, &mut out);
    graph_checks(ctx, &mut out);
    out
}

/// The snapshot itself: its files against the manifest, its freshness, tree-sitter coverage.
fn snapshot_checks(ctx: &Ctx<'_>, out: &mut Vec<Check>) {
    let snap = ctx.snapshot;
    let resnapshot = "ckb snapshot --force".to_string();
    // The files only: reading every row is `ckb verify`'s, too slow for a health check.
    let verified = verify_snapshot(&snap.dir, Depth::Files);
    out.push(match verified {
        Ok(r) if r.ok() => check(
            "snapshot",
            "pass",
            format!("{} file(s) match the manifest", r.files.len()),
        ),
        Ok(r) => {
            let bad: Vec<String> = r
                .files
                .iter()
                .filter(|f| !f.ok)
                .map(|f| format!("{} ({})", f.file, f.problem.clone().unwrap_or_default()))
                .collect();
            with_fix(
                check("snapshot", "fail", format!("damaged: {}", bad.join("; "))),
                "rebuild the snapshot",
                std::slice::from_ref(&resnapshot),
            )
        }
        Err(e) => with_fix(
            check(
                "snapshot",
                "fail",
                format!("the manifest cannot be read: {e}"),
            ),
            "rebuild the snapshot",
            std::slice::from_ref(&resnapshot),
        ),
    });

    let f = ctx.freshness;
    out.push(match f.state {
        FreshnessState::Current => check("freshness", "pass", "the snapshot describes the working tree".into()),
        FreshnessState::Unknown => check(
            "freshness",
            "warn",
            "freshness is unknown (the snapshot was given explicitly or its repository is not at hand)".into(),
        ),
        s => with_fix(
            check(
                "freshness",
                "warn",
                match f.commits_behind {
                    Some(n) if s == FreshnessState::Behind => format!("the snapshot is {n} commit(s) behind HEAD"),
                    _ => format!("the snapshot is {s} relative to the working tree"),
                },
            ),
            "snapshot the current state",
            &["ckb snapshot".into()],
        ),
    });

    let syntax = stage(snap, "syntax");
    out.push(match syntax.map(|r| r.status) {
        Some(StageStatus::Ok) => check(
            "syntax",
            "pass",
            format!("tree-sitter: {}", reason(ctx, "syntax")),
        ),
        Some(StageStatus::Partial) => check(
            "syntax",
            "warn",
            format!(
                "tree-sitter skipped some files ({}; {} warning(s)): `ckb query status` lists them",
                reason(ctx, "syntax"),
                syntax.map(|r| r.warnings_total).unwrap_or(0)
            ),
        ),
        _ => with_fix(
            check(
                "syntax",
                "fail",
                format!(
                    "the syntax stage did not run ({}): no symbols or references",
                    reason(ctx, "syntax")
                ),
            ),
            "snapshot with the syntax stage",
            &["ckb snapshot --force --stages scan,syntax,scip,git,identity,modules".into()],
        ),
    });
}

/// The SCIP index and the git history.
fn backend_checks(ctx: &Ctx<'_>, out: &mut Vec<Check>) {
    let snap = ctx.snapshot;
    let resnapshot = "ckb snapshot --force".to_string();
    let refresh = coverage::scip_index_commands(snap);
    // Only `ckb snapshot --force` left: no indexer is known for these languages.
    let indexable = refresh.len() > 1;
    let without = coverage::languages_without_index(snap);
    let scip_ran = matches!(
        stage(snap, "scip").map(|r| r.status),
        Some(StageStatus::Ok | StageStatus::Partial)
    );
    out.push(if let Some(why) = coverage::scip_stale(snap) {
        with_fix(
            check("scip", "warn", format!("INDEX_STALE: {why}")),
            "regenerate the SCIP indexes with `ckb index`, then re-snapshot",
            &refresh,
        )
    } else if scip_ran && !without.is_empty() {
        with_fix(
            check(
                "scip",
                "warn",
                format!(
                    "no SCIP index for {}: references there are by name, with lower confidence",
                    without
                        .iter()
                        .map(|l| {
                            let files = if l.files == 1 { "file" } else { "files" };
                            format!("{} ({} {files}, {})", l.language, l.files, l.indexer.tool)
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            "run the missing indexers with `ckb index`, then re-snapshot",
            &refresh,
        )
    } else {
        match stage(snap, "scip").map(|r| r.status) {
            Some(StageStatus::Ok) => {
                check("scip", "pass", format!("SCIP: {}", reason(ctx, "scip")))
            }
            Some(StageStatus::Partial) => with_fix(
                check(
                    "scip",
                    "warn",
                    format!(
                        "SCIP covers part of the repository ({})",
                        reason(ctx, "scip")
                    ),
                ),
                "index the uncovered languages with `ckb index`, then re-snapshot",
                &refresh,
            ),
            _ if indexable => with_fix(
                check(
                    "scip",
                    "warn",
                    format!(
                        "no SCIP index ({}): references are by name, with lower confidence",
                        reason(ctx, "scip")
                    ),
                ),
                "run the installed SCIP indexers with `ckb index` (it writes .ckb/<indexer>.scip, where ckb snapshot finds them), then re-snapshot",
                &refresh,
            ),
            _ => check(
                "scip",
                "warn",
                format!(
                    "no SCIP index ({}) and no known SCIP indexer for the languages here: references are by name, with lower confidence",
                    reason(ctx, "scip")
                ),
            ),
        }
    });

    out.push(match stage(snap, "git").map(|r| r.status) {
        Some(StageStatus::Ok) | Some(StageStatus::Partial) => match reason(ctx, "git").as_str() {
            "shallow-history" => with_fix(
                check(
                    "history",
                    "warn",
                    "the clone is shallow: churn and co-change are incomplete".into(),
                ),
                "fetch the full history, then re-snapshot",
                &["git fetch --unshallow".into(), resnapshot.clone()],
            ),
            "max-commits" => check(
                "history",
                "warn",
                "history.maxCommits cut the history window (raise it in .ckb/config.json)".into(),
            ),
            partial @ ("blobless-clone" | "treeless-clone" | "partial-clone") => with_fix(
                check(
                    "history",
                    "warn",
                    format!(
                        "the clone is partial ({partial}): changes without line counts or commits without file changes"
                    ),
                ),
                "let git fetch the history's missing objects from the promisor remote while snapshotting",
                &["ckb snapshot --force --history-fetch-missing".into()],
            ),
            "missing-objects" => with_fix(
                check(
                    "history",
                    "warn",
                    "objects the history needs are missing or damaged (not a partial clone)".into(),
                ),
                "find and repair the damage, then re-snapshot",
                &["git fsck --full".into(), resnapshot.clone()],
            ),
            r => check("history", "pass", format!("git history: {r}")),
        },
        _ => with_fix(
            check(
                "history",
                "warn",
                format!("no history ({})", reason(ctx, "git")),
            ),
            "snapshot a git checkout with the git stage",
            std::slice::from_ref(&resnapshot),
        ),
    });
}

/// Identity, the module graph and languages no symbol backend covers.
fn graph_checks(ctx: &Ctx<'_>, out: &mut Vec<Check>) {
    let snap = ctx.snapshot;
    out.push(if coverage::ran(snap, "identity") {
        check("identity", "pass", "aliases and tombstones are tracked".into())
    } else {
        check(
            "identity",
            "warn",
            format!(
                "no identity stage ({}): renamed or deleted IDs cannot be followed; it runs when a previous snapshot exists",
                reason(ctx, "identity")
            ),
        )
    });

    out.push(
        if snap
            .manifest
            .views
            .iter()
            .any(|v| v.name == crate::commands::arch::VIEW)
        {
            check(
                "modules",
                "pass",
                "module graph and architecture view present".into(),
            )
        } else {
            with_fix(
                check(
                    "modules",
                    "warn",
                    format!("no architecture view ({})", reason(ctx, "modules")),
                ),
                "snapshot with the modules stage",
                &["ckb snapshot --force --stages scan,syntax,scip,git,identity,modules".into()],
            )
        },
    );

    let scanned: BTreeSet<String> = stage(snap, "scan")
        .map(|r| r.breakdown.keys().cloned().collect())
        .unwrap_or_default();
    let mut covered: BTreeSet<String> = BTreeSet::new();
    for name in ["syntax", "scip"] {
        if let Some(r) = stage(snap, name) {
            for (lang, counts) in &r.breakdown {
                if counts.values().any(|v| *v > 0) {
                    covered.insert(lang.clone());
                }
            }
        }
    }
    let uncovered: Vec<&String> = scanned
        .iter()
        .filter(|l| !covered.contains(*l) && l.as_str() != "unknown" && !l.is_empty())
        .collect();
    out.push(if uncovered.is_empty() || !coverage::ran(snap, "syntax") {
        let known = scanned
            .iter()
            .filter(|l| l.as_str() != "unknown" && !l.is_empty())
            .count();
        check(
            "languages",
            "pass",
            format!("{known} language(s) scanned, none without coverage"),
        )
    } else {
        check(
            "languages",
            "warn",
            format!(
                "no symbols for: {} (no extractor or index covers them)",
                uncovered
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    });
}

/// The fix script: one commented block per check that is not passing and has a fix.
pub fn fix_script(ctx: &Ctx<'_>, checks: &[Check]) -> String {
    let mut s = String::from(
        "#!/bin/sh\n# ckb query doctor --fix: review, then run this script yourself. ckb never runs it.\nset -eu\n",
    );
    s.push_str(&format!(
        "# snapshot: {}\n",
        ctx.snapshot.manifest.snapshot_id.replace('\n', " ")
    ));
    let mut n = 0;
    for c in checks
        .iter()
        .filter(|c| c.status != "pass" && !c.fix.is_empty())
    {
        n += 1;
        s.push_str(&format!(
            "\n# [{}] {}: {}\n# fix: {}\n",
            c.status,
            c.id,
            c.message.replace('\n', " "),
            c.fix_note.clone().unwrap_or_default()
        ));
        for cmd in &c.fix {
            s.push_str(cmd);
            s.push('\n');
        }
    }
    if n == 0 {
        s.push_str("\n# nothing to fix\n");
    }
    s
}

/// Runs `doctor`.
pub fn doctor(ctx: &Ctx<'_>) -> Result<Answer, QueryError> {
    let cs = checks(ctx);
    let count = |s: &str| cs.iter().filter(|c| c.status == s).count();
    let (pass, warn, fail) = (count("pass"), count("warn"), count("fail"));
    let checks_json: Vec<Value> = cs
        .iter()
        .map(|c| {
            json!({"id": c.id, "status": c.status, "message": c.message,
                   "fix": (!c.fix.is_empty()).then(|| c.fix.join(" && ")), "fixNote": c.fix_note})
        })
        .collect();
    let explanation = format!(
        "{pass} check(s) pass, {warn} warn, {fail} fail.{}",
        if warn + fail > 0 {
            " `ckb query doctor --fix` prints a script with the fixes."
        } else {
            ""
        }
    );
    let facts = json!({
        "summary": {"pass": pass, "warn": warn, "fail": fail},
        "checks": checks_json,
    });
    let mut draft = Draft::new("doctor", "ckb query doctor".into(), facts, explanation);
    draft.completeness = CompletenessInfo {
        score: ((pass as f64 + 0.5 * warn as f64) / cs.len().max(1) as f64 * 1e6).round() / 1e6,
        reason: if fail > 0 {
            "checks-failing"
        } else if warn > 0 {
            "checks-warning"
        } else {
            "all-checks-pass"
        }
        .into(),
    };
    draft.items(cs.len(), cs.len());
    if warn + fail > 0 {
        draft.suggest(
            "ckb query doctor --fix",
            "print the fixes as a shell script (not run)",
        );
    }
    draft.suggest(
        format!(
            "ckb verify {}",
            shell_quote(&ctx.snapshot.dir.display().to_string())
        ),
        "check every file in detail",
    );
    finish(ctx, draft)
}
