//! History answers from the git stage's tables: `hotspots`, `coupling <PATH>`,
//! `ownership <PATH>`, and the recent changes `explore` shows.
//!
//! - `hotspots [--window 30d|90d|365d|all] [--scope PATH]`: the definition shared with
//!   `queries/sql/hotspots.sql` (window 90d there): a hotspot is a file of the snapshot (in
//!   `files`: not deleted) that is not generated and has at least one commit in the window.
//!   Score = commits in the window × ln(1 + lines), rounded to 6 decimals (churn times a size
//!   proxy for complexity), ranked by score, then commits, then path. Each lists its module,
//!   commits, authors, lines added and deleted, and the time of its last change.
//! - `coupling <PATH>`: the definition shared with `queries/sql/coupling.sql`: two files are
//!   coupled when the `cochange` table pairs them (the git stage keeps pairs with at least
//!   `history.cochangeMinShared` shared commits, default 2). Degree = shared commits /
//!   commits of the less often changed file. PATH's partners are ranked by degree, then shared
//!   commits, then path.
//! - `ownership <PATH>`: authors (salted hashes, never names) of a file by commits, then author;
//!   for a folder, file-commits summed per author over the files below it, share of that sum.
//!
//! Lists hold at most `--limit` (default: the items budget) entries. Completeness is the git
//! stage's (`shallow-history` halves it).

use std::collections::BTreeMap;

use output_schema::tables::{ChurnRow, CochangeRow, OwnershipRow};
use output_schema::ErrorCode;
use serde_json::{json, Value};

use crate::envelope::answer::{Answer, CompletenessInfo};
use crate::envelope::facts::FileIndex;
use crate::envelope::respond::{finish, shell_quote, Ctx, Draft};
use crate::snapshot::coverage;
use crate::snapshot::read::{self, is_path_or_below, Pred};
use crate::QueryError;

/// Windows of the churn table.
pub const WINDOWS: [&str; 4] = ["30d", "90d", "365d", "all"];

fn round(x: f64) -> f64 {
    (x * 1_000_000.0).round() / 1_000_000.0
}

fn no_history(draft: &mut Draft, ctx: &Ctx<'_>, table: &str) {
    if !ctx.snapshot.has_table(table) {
        draft.completeness = CompletenessInfo {
            score: 0.0,
            reason: "history-not-recorded".into(),
        };
        draft.explanation = format!(
            "This snapshot has no {table} table: the git stage did not run ({}).",
            coverage::stage(ctx.snapshot, "git")
                .and_then(|r| r.reason.clone())
                .unwrap_or_else(|| "not recorded".into())
        );
        draft.suggest(
            "ckb snapshot --force",
            "snapshot a git checkout with the git stage",
        );
    }
}

/// Checks a path argument: repo-relative, `/`-separated, not escaping the repository.
pub fn check_path(p: &str) -> Result<String, QueryError> {
    let t = p.trim().trim_start_matches("./").trim_end_matches('/');
    let bad = t.is_empty() && p.trim() != "."
        || t.starts_with('/')
        || t.split('/').any(|s| s == "..")
        || t.contains('\\');
    if bad {
        return Err(QueryError::new(
            ErrorCode::InvalidParameter,
            format!("{p:?} is not a repository-relative path"),
            "pass a path relative to the repository root with / separators (src/lib.rs, src/)",
        ));
    }
    Ok(if t.is_empty() {
        ".".into()
    } else {
        t.to_string()
    })
}

/// Hotspot rows: (path, churn row) scored, best first.
pub fn hotspot_rows(
    ctx: &Ctx<'_>,
    window: &str,
    scope: Option<&str>,
    files: &FileIndex,
) -> Result<Vec<(f64, ChurnRow)>, QueryError> {
    let rows: Vec<ChurnRow> = match scope {
        Some(s) if s != "." => {
            read::rows_where(ctx.snapshot, "path", &Pred::PathOrBelow(s.into()))?
        }
        _ => read::all_rows(ctx.snapshot)?,
    }
    .unwrap_or_default();
    let mut out: Vec<(f64, ChurnRow)> = rows
        .into_iter()
        .filter(|r| r.window == window && r.commits > 0)
        .filter(|r| scope.is_none_or(|s| is_path_or_below(&r.path, s)))
        // Deleted files (not in `files`) and generated ones are nothing to refactor.
        .filter_map(|r| {
            let file = files.get(&r.path).filter(|f| !f.is_generated)?;
            let lines = file.lines.max(0);
            Some((round(r.commits as f64 * (1.0 + lines as f64).ln()), r))
        })
        .collect();
    out.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(b.1.commits.cmp(&a.1.commits))
            .then(a.1.path.cmp(&b.1.path))
    });
    Ok(out)
}

/// A hotspot as a list item.
pub fn hotspot_json(score: f64, r: &ChurnRow, files: &FileIndex) -> Value {
    json!({
        "path": r.path,
        "module": files.module_of(&r.path),
        "score": score,
        "commits": r.commits,
        "authors": r.authors,
        "additions": r.additions,
        "deletions": r.deletions,
        "lines": files.get(&r.path).map(|f| f.lines),
        "lastChanged": r.last_changed,
        "isTest": files.is_test(&r.path),
    })
}

/// Runs `hotspots`.
pub fn hotspots(
    ctx: &Ctx<'_>,
    window: Option<&str>,
    scope: Option<&str>,
    limit: Option<u64>,
) -> Result<Answer, QueryError> {
    let window = QueryError::one_of("--window", window, "90d", &WINDOWS)?;
    let scope = scope.map(check_path).transpose()?;
    let limit = ctx.budget.limit(limit)?;
    let files = FileIndex::load(ctx.snapshot)?;
    let rows = hotspot_rows(ctx, window, scope.as_deref(), &files)?;
    let shown: Vec<Value> = rows
        .iter()
        .take(limit)
        .map(|(s, r)| hotspot_json(*s, r, &files))
        .collect();
    let explanation = match rows.first() {
        None => format!("No file changed in the {window} window."),
        Some((_, r)) => format!(
            "{} file(s) changed in the {window} window; the hottest is {} ({} commit(s) by {} author(s)). Score = commits × ln(1 + lines).",
            rows.len(),
            r.path,
            r.commits,
            r.authors
        ),
    };
    let facts = json!({
        "window": window,
        "scope": scope,
        "total": rows.len(),
        "hotspots": shown,
        "score": "commits in window × ln(1 + lines)",
    });
    let mut inv = format!("ckb query hotspots --window {window}");
    if let Some(s) = &scope {
        inv.push_str(&format!(" --scope {}", shell_quote(s)));
    }
    let mut draft = Draft::new("hotspots", inv, facts, explanation);
    draft.completeness = coverage::history(ctx.snapshot);
    draft.limited_list("hotspots", rows.len(), shown.len());
    draft.items(rows.len(), shown.len());
    if let Some((_, r)) = rows.first() {
        draft.suggest_query(
            "coupling",
            &shell_quote(&r.path),
            "what changes with the hottest file",
        );
        draft.suggest_query("ownership", &shell_quote(&r.path), "who changes it");
    }
    no_history(&mut draft, ctx, "churn");
    finish(ctx, draft)
}

/// Co-change partners of a file, best first: (partner, row).
pub fn partners(ctx: &Ctx<'_>, path: &str) -> Result<Vec<(String, CochangeRow)>, QueryError> {
    let mut out: Vec<(String, CochangeRow)> = Vec::new();
    // path_a is the sort key, so the rows where PATH is path_a are found by statistics; the rows
    // where it is path_b need a scan of that column.
    for column in ["path_a", "path_b"] {
        let rows: Vec<CochangeRow> =
            read::rows_where(ctx.snapshot, column, &Pred::Eq(path.into()))?.unwrap_or_default();
        for r in rows {
            let other = if r.path_a == path {
                r.path_b.clone()
            } else {
                r.path_a.clone()
            };
            if other != path {
                out.push((other, r));
            }
        }
    }
    strongest_first(&mut out);
    Ok(out)
}

/// Orders co-change partners strongest first (degree, then shared commits, then path) and keeps
/// one row per partner, its strongest.
pub fn strongest_first(partners: &mut Vec<(String, CochangeRow)>) {
    partners.sort_by(|a, b| {
        b.1.degree
            .total_cmp(&a.1.degree)
            .then(b.1.shared_commits.cmp(&a.1.shared_commits))
            .then(a.0.cmp(&b.0))
    });
    partners.dedup_by(|a, b| a.0 == b.0);
}

/// A co-change partner as a list item.
pub fn partner_json(path: &str, other: &str, r: &CochangeRow, files: &FileIndex) -> Value {
    let (mine, theirs) = if r.path_a == path {
        (r.commits_a, r.commits_b)
    } else {
        (r.commits_b, r.commits_a)
    };
    json!({
        "path": other,
        "module": files.module_of(other),
        "sharedCommits": r.shared_commits,
        "degree": r.degree,
        "commits": theirs,
        "commitsOfTarget": mine,
        "isTest": files.is_test(other),
    })
}

/// Runs `coupling`.
pub fn coupling(ctx: &Ctx<'_>, path: &str, limit: Option<u64>) -> Result<Answer, QueryError> {
    let path = check_path(path)?;
    let limit = ctx.budget.limit(limit)?;
    let files = FileIndex::load(ctx.snapshot)?;
    let rows = partners(ctx, &path)?;
    let shown: Vec<Value> = rows
        .iter()
        .take(limit)
        .map(|(o, r)| partner_json(&path, o, r, &files))
        .collect();
    let known = files.get(&path).is_some();
    let explanation = match rows.first() {
        None => format!(
            "No file changes together with {path}{}.",
            if known { "" } else { " (the path is not in this snapshot)" }
        ),
        Some((o, r)) => format!(
            "{} file(s) change together with {path}; the strongest partner is {o} (degree {}, {} shared commit(s)).",
            rows.len(),
            output_schema::json::format_float(r.degree).unwrap_or_default(),
            r.shared_commits
        ),
    };
    let facts = json!({"path": path, "known": known, "total": rows.len(), "partners": shown});
    let mut draft = Draft::about("coupling", &path, facts, explanation);
    draft.completeness = coverage::history(ctx.snapshot);
    draft.limited_list("partners", rows.len(), shown.len());
    draft.items(rows.len(), shown.len());
    if let Some((o, _)) = rows.first() {
        draft.suggest_query("explore", &shell_quote(o), "the strongest partner");
    }
    no_history(&mut draft, ctx, "cochange");
    finish(ctx, draft)
}

/// Runs `ownership`.
pub fn ownership(ctx: &Ctx<'_>, path: &str, limit: Option<u64>) -> Result<Answer, QueryError> {
    let path = check_path(path)?;
    let limit = ctx.budget.limit(limit)?;
    let rows: Vec<OwnershipRow> = if path == "." {
        read::all_rows(ctx.snapshot)?
    } else {
        read::rows_where(ctx.snapshot, "path", &Pred::PathOrBelow(path.clone()))?
    }
    .unwrap_or_default();
    let is_file = rows.iter().all(|r| r.path == path) && !rows.is_empty();
    let mut per: BTreeMap<String, (i64, bool)> = BTreeMap::new();
    let mut paths = std::collections::BTreeSet::new();
    for r in &rows {
        paths.insert(r.path.clone());
        let e = per.entry(r.author_id.clone()).or_insert((0, r.is_bot));
        // Saturating: the counts are a snapshot's data, which `ckb query` reads as is.
        e.0 = e.0.saturating_add(r.commits);
        e.1 |= r.is_bot;
    }
    let sum: i64 = per.values().fold(0i64, |sum, v| sum.saturating_add(v.0));
    let mut owners: Vec<(String, i64, bool)> =
        per.into_iter().map(|(a, (c, b))| (a, c, b)).collect();
    owners.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let total = owners.len();
    let shown: Vec<Value> = owners
        .iter()
        .take(limit)
        .map(|(a, c, b)| {
            let share = if is_file {
                rows.iter()
                    .find(|r| &r.author_id == a)
                    .map(|r| r.share)
                    .unwrap_or(0.0)
            } else if sum > 0 {
                round(*c as f64 / sum as f64)
            } else {
                0.0
            };
            json!({"author": a, "commits": c, "share": share, "isBot": b})
        })
        .collect();
    let explanation = match owners.first() {
        None => format!("No ownership is recorded for {path}."),
        Some((a, c, _)) => format!(
            "{total} author(s) changed {path}{}; the main owner {a} has {c} {}.",
            if is_file {
                String::new()
            } else {
                format!(" ({} file(s))", paths.len())
            },
            if is_file {
                "commit(s)"
            } else {
                "file-commit(s)"
            }
        ),
    };
    let facts = json!({
        "path": path,
        "files": paths.len(),
        "unit": if is_file { "commits" } else { "file-commits" },
        "total": total,
        "owners": shown,
    });
    let mut draft = Draft::about("ownership", &path, facts, explanation);
    draft.completeness = coverage::history(ctx.snapshot);
    draft.limited_list("owners", total, shown.len());
    draft.items(total, shown.len());
    draft.suggest_query("coupling", &shell_quote(&path), "what changes with it");
    no_history(&mut draft, ctx, "ownership");
    finish(ctx, draft)
}
