//! `ckb query explore <PATH|MODULE>`: an overview of a module, folder or file.
//!
//! Size: `explore` (~160 lines) assembles the overview in print order.
//!
//! Facts: `target` (kind and ID/path), `overview` (files, lines, tests, symbols, languages),
//! `keySymbols` (exported first, then most referenced, then kind weight, then ID; at most the
//! items budget; parameters and the like left out, as search leaves them), `dependencies.out` /
//! `dependencies.in` (for a module: module edges by strength; for a path: imports leaving /
//! entering it grouped by target / source module, most imports first; at most `--max-modules`
//! each), `recentChanges` (the latest file changes inside
//! it, newest first, at most `symbolsPerModule` × 2; a merge's rows are left out when the merged
//! commits are in the history, as they repeat those commits' changes) and `hotspots` (90-day hotspots inside it, at
//! most `symbolsPerModule`).

use std::collections::{BTreeMap, BTreeSet};

use output_schema::tables::{CommitRow, FileChangeRow, ImportRow, ModuleEdgeRow, SymbolRow};
use output_schema::Roles;
use serde_json::{json, Value};

use crate::analysis::ranking::{is_hidden_kind, kind_weight, visibility_weight};
use crate::commands::hotspots::{hotspot_json, hotspot_rows};
use crate::envelope::answer::{Answer, CompletenessInfo};
use crate::envelope::facts::FileIndex;
use crate::envelope::respond::{finish, shell_quote, Ctx, Draft, Trim};
use crate::snapshot::coverage;
use crate::snapshot::lookup::Lookup;
use crate::snapshot::read::{self, is_path_or_below, Pred};
use crate::snapshot::target::{target, Target};
use crate::QueryError;

fn sorted_counts(m: BTreeMap<String, (usize, String)>) -> Vec<(String, usize, String)> {
    let mut v: Vec<(String, usize, String)> =
        m.into_iter().map(|(k, (n, kind))| (k, n, kind)).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

/// Dependencies leaving and entering the target: module edges by strength for a module; for a
/// path, imports grouped by target / source module, most imports first.
fn dependencies(
    ctx: &Ctx<'_>,
    t: &Target,
    paths: &BTreeSet<String>,
    files: &FileIndex,
) -> Result<(Vec<Value>, Vec<Value>), QueryError> {
    Ok(match t {
        Target::Module(m) => {
            let out: Vec<ModuleEdgeRow> =
                read::rows_where(ctx.snapshot, "from_module", &Pred::Eq(m.module_id.clone()))?
                    .unwrap_or_default();
            let inn: Vec<ModuleEdgeRow> =
                read::rows_where(ctx.snapshot, "to_module", &Pred::Eq(m.module_id.clone()))?
                    .unwrap_or_default();
            let edge = |e: &ModuleEdgeRow, other: &str| {
                json!({"module": other, "kind": e.kind, "imports": e.import_count,
                       "references": e.reference_count, "strength": e.strength})
            };
            let order = |v: &mut Vec<ModuleEdgeRow>, by_to: bool| {
                v.sort_by(|a, b| {
                    b.strength.total_cmp(&a.strength).then(if by_to {
                        a.to_module.cmp(&b.to_module)
                    } else {
                        a.from_module.cmp(&b.from_module)
                    })
                })
            };
            let (mut out, mut inn) = (out, inn);
            order(&mut out, true);
            order(&mut inn, false);
            (
                out.iter().map(|e| edge(e, &e.to_module)).collect(),
                inn.iter().map(|e| edge(e, &e.from_module)).collect(),
            )
        }
        _ => {
            let imports: Vec<ImportRow> = read::all_rows(ctx.snapshot)?.unwrap_or_default();
            let mut out: BTreeMap<String, (usize, String)> = BTreeMap::new();
            let mut inn: BTreeMap<String, (usize, String)> = BTreeMap::new();
            for i in &imports {
                let from_inside = paths.contains(&i.path);
                let target_inside = i.target.as_deref().is_some_and(|t| paths.contains(t));
                if from_inside && !target_inside {
                    let k = i
                        .to_module
                        .clone()
                        .or_else(|| i.target.clone())
                        .unwrap_or_else(|| i.raw.clone());
                    let e = out.entry(k).or_insert((0, i.kind.clone()));
                    e.0 += 1;
                } else if target_inside && !from_inside {
                    let k = files.module_of(&i.path);
                    let e = inn.entry(k).or_insert((0, i.kind.clone()));
                    e.0 += 1;
                }
            }
            let item = |(k, n, kind): (String, usize, String)| json!({"target": k, "imports": n, "kind": kind});
            (
                sorted_counts(out).into_iter().map(item).collect(),
                sorted_counts(inn)
                    .into_iter()
                    .map(|(k, n, kind)| json!({"module": k, "imports": n, "kind": kind}))
                    .collect(),
            )
        }
    })
}

/// Changes to the files in `paths`, newest first; a merge's rows are left out when the merged
/// commits are in the history.
fn recent_changes(
    ctx: &Ctx<'_>,
    paths: &BTreeSet<String>,
) -> Result<Vec<(i64, String, FileChangeRow)>, QueryError> {
    if !ctx.snapshot.has_table("file_changes") || paths.is_empty() {
        return Ok(Vec::new());
    }
    let commits: Vec<CommitRow> = read::all_rows(ctx.snapshot)?.unwrap_or_default();
    let times: BTreeMap<&str, i64> = commits
        .iter()
        .map(|c| (c.sha.as_str(), c.committer_time))
        .collect();
    let repeats = merges_repeating_walked_commits(&commits);
    let changes: Vec<FileChangeRow> =
        read::rows_where(ctx.snapshot, "path", &Pred::In(paths.clone()))?.unwrap_or_default();
    let mut recent: Vec<(i64, String, FileChangeRow)> = changes
        .into_iter()
        .filter(|c| !repeats.contains(c.sha.as_str()))
        .map(|c| {
            (
                times.get(c.sha.as_str()).copied().unwrap_or(0),
                c.sha.clone(),
                c,
            )
        })
        .collect();
    recent.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(a.1.cmp(&b.1))
            .then(a.2.path.cmp(&b.2.path))
    });
    Ok(recent)
}

/// Key symbols, most important first: exported, then most referenced (sites outside each
/// symbol's own definition), then kind weight, then ID; their count and the first `--max-items`.
fn key_symbols(
    ctx: &Ctx<'_>,
    symbols: &[SymbolRow],
    files: &FileIndex,
) -> Result<(usize, Vec<Value>), QueryError> {
    let ids: BTreeSet<String> = symbols.iter().map(|s| s.stable_id.to_string()).collect();
    let mut refs: BTreeMap<String, usize> = BTreeMap::new();
    for o in crate::commands::refs::occurrences_of_many(ctx, &ids)? {
        if !o.roles.contains(Roles::DEFINITION) {
            if let Some(id) = o.symbol_id {
                *refs.entry(id.to_string()).or_default() += 1;
            }
        }
    }
    let mut key_symbols: Vec<&SymbolRow> = symbols
        .iter()
        .filter(|s| !files.is_test(&s.path) && !is_hidden_kind(&s.kind))
        .collect();
    key_symbols.sort_by(|a, b| {
        visibility_weight(&b.visibility)
            .cmp(&visibility_weight(&a.visibility))
            .then(
                refs.get(b.stable_id.as_str())
                    .cmp(&refs.get(a.stable_id.as_str())),
            )
            .then(kind_weight(&b.kind).cmp(&kind_weight(&a.kind)))
            .then(a.stable_id.cmp(&b.stable_id))
    });
    let key_values: Vec<Value> = key_symbols
        .iter()
        .take(ctx.budget.items)
        .map(|s| {
            let mut v = crate::envelope::facts::symbol_brief(s);
            v["references"] = json!(refs.get(s.stable_id.as_str()).copied().unwrap_or(0));
            v
        })
        .collect();
    Ok((key_symbols.len(), key_values))
}

/// The target's recent changes (at most 2 × `--max-per-module`) and its 90-day hotspots (at most
/// `--max-per-module`), each with its total.
#[allow(clippy::type_complexity)]
fn recent_and_hot(
    ctx: &Ctx<'_>,
    paths: &BTreeSet<String>,
    files: &FileIndex,
) -> Result<((usize, Vec<Value>), (usize, Vec<Value>)), QueryError> {
    let changes_cap = ctx.budget.per_module * 2;
    let recent = recent_changes(ctx, paths)?;
    let recent_total = recent.len();
    let recent_values: Vec<Value> = recent
        .iter()
        .take(changes_cap)
        .map(|(time, sha, c)| {
            json!({"sha": sha, "time": time, "path": c.path, "change": c.change,
                   "additions": c.additions, "deletions": c.deletions})
        })
        .collect();
    let hot: Vec<(f64, output_schema::tables::ChurnRow)> = hotspot_rows(ctx, "90d", None, files)?
        .into_iter()
        .filter(|(_, r)| paths.contains(&r.path))
        .collect();
    let hot_total = hot.len();
    let hot_values: Vec<Value> = hot
        .iter()
        .take(ctx.budget.per_module)
        .map(|(s, r)| hotspot_json(*s, r, files))
        .collect();
    Ok(((recent_total, recent_values), (hot_total, hot_values)))
}

/// The lower of the symbols' and the history's completeness: an overview needs both.
fn completeness(ctx: &Ctx<'_>) -> CompletenessInfo {
    let sym = coverage::symbols(ctx.snapshot);
    let hist = coverage::history(ctx.snapshot);
    if sym.score <= hist.score {
        sym
    } else {
        CompletenessInfo {
            score: hist.score,
            reason: hist.reason,
        }
    }
}

/// Runs `explore`.
pub fn explore(ctx: &Ctx<'_>, input: &str) -> Result<Answer, QueryError> {
    let lookup = Lookup::new(ctx.snapshot);
    let files = FileIndex::load(ctx.snapshot)?;
    let t = target(ctx.snapshot, &lookup, &files, input, true, false)?;
    let (paths, target_json, label): (BTreeSet<String>, Value, String) = match &t {
        Target::Module(m) => (
            files
                .iter()
                .filter(|(_, f)| f.module.as_deref() == Some(m.module_id.as_str()))
                .map(|(p, _)| p.clone())
                .collect(),
            json!({"kind": "module", "id": m.module_id, "name": m.name, "root": m.root,
                   "manifest": m.manifest, "language": m.language, "isEntrypoint": m.is_entrypoint}),
            format!("module {}", m.module_id),
        ),
        Target::File(p) => (
            BTreeSet::from([p.clone()]),
            json!({"kind": "file", "path": p, "module": files.module_of(p)}),
            p.clone(),
        ),
        Target::Folder(p) => (
            files
                .iter()
                .filter(|(f, _)| is_path_or_below(f, p))
                .map(|(f, _)| f.clone())
                .collect(),
            json!({"kind": "folder", "path": p}),
            format!("{p}/"),
        ),
        Target::Symbol(_) => unreachable!("symbols are not accepted by explore"),
    };
    let key = match &t {
        Target::Module(m) => m.module_id.clone(),
        Target::File(p) | Target::Folder(p) => p.clone(),
        Target::Symbol(_) => String::new(),
    };

    // Overview.
    let mut languages: BTreeMap<String, usize> = BTreeMap::new();
    let mut lines = 0i64;
    let mut tests = 0usize;
    for p in &paths {
        if let Some(f) = files.get(p) {
            *languages
                .entry(f.language.clone().unwrap_or_else(|| "unknown".into()))
                .or_default() += 1;
            lines += f.lines;
            tests += usize::from(f.is_test);
        }
    }
    let symbols: Vec<SymbolRow> = if paths.is_empty() {
        Vec::new()
    } else {
        read::rows_where(ctx.snapshot, "path", &Pred::In(paths.clone()))?.unwrap_or_default()
    };

    let (key_total, key_values) = key_symbols(ctx, &symbols, &files)?;

    // Dependencies.
    let (deps_out, deps_in) = dependencies(ctx, &t, &paths, &files)?;
    let (out_total, in_total) = (deps_out.len(), deps_in.len());
    let deps_out: Vec<Value> = deps_out.into_iter().take(ctx.budget.modules).collect();
    let deps_in: Vec<Value> = deps_in.into_iter().take(ctx.budget.modules).collect();

    let ((recent_total, recent_values), (hot_total, hot_values)) =
        recent_and_hot(ctx, &paths, &files)?;

    let explanation = format!(
        "{label}: {} file(s), {lines} line(s), {} symbol(s), {tests} test file(s); {} outgoing and {} incoming dependencies; {} recent change(s).",
        paths.len(),
        symbols.len(),
        out_total,
        in_total,
        recent_total
    );
    let facts = json!({
        "target": target_json,
        "overview": {
            "files": paths.len(),
            "lines": lines,
            "tests": tests,
            "symbols": symbols.len(),
            "languages": languages,
        },
        "keySymbols": key_values,
        "dependencies": {"out": deps_out, "in": deps_in},
        "recentChanges": recent_values,
        "hotspots": hot_values,
    });
    let mut draft = Draft::about("explore", &key, facts, explanation);
    draft.completeness = completeness(ctx);
    draft.cut_list(
        "keySymbols",
        "max-items",
        key_total,
        key_values.len(),
        "--max-items",
    );
    draft.cut_list(
        "dependencies.out",
        "max-modules",
        out_total,
        deps_out.len(),
        "--max-modules",
    );
    draft.cut_list(
        "dependencies.in",
        "max-modules",
        in_total,
        deps_in.len(),
        "--max-modules",
    );
    draft.cut_list(
        "recentChanges",
        "max-per-module",
        recent_total,
        recent_values.len(),
        "--max-per-module",
    );
    draft.cut_list(
        "hotspots",
        "max-per-module",
        hot_total,
        hot_values.len(),
        "--max-per-module",
    );
    draft.trims = Trim::lists(&[
        "recentChanges",
        "hotspots",
        "dependencies.in",
        "dependencies.out",
        "keySymbols",
    ]);
    draft.items(
        key_total + out_total + in_total + recent_total + hot_total,
        key_values.len() + deps_out.len() + deps_in.len() + recent_values.len() + hot_values.len(),
    );
    if let Some(id) = key_values.first().and_then(|v| v["id"].as_str()) {
        draft.suggest_query("understand", id, "the most important symbol here");
    }
    if hot_total > 0 {
        draft.suggest(
            format!("ckb query hotspots --scope {}", shell_quote(&key)),
            "every hotspot here",
        );
    }
    draft.suggest_query(
        "affected-tests",
        &shell_quote(&key),
        "tests that depend on it",
    );
    finish(ctx, draft)
}

/// Merges whose file changes repeat commits that are in the history too. A merge is diffed
/// against its first parent, so when the merged side's commits were walked (full-graph history),
/// its rows repeat their changes; listing the changes once, where they were made, keeps recent
/// changes readable. With first-parent history the merged side is absent and merges stay.
fn merges_repeating_walked_commits(commits: &[CommitRow]) -> BTreeSet<&str> {
    let walked: BTreeSet<&str> = commits.iter().map(|c| c.sha.as_str()).collect();
    commits
        .iter()
        .filter(|c| {
            c.parents
                .iter()
                .skip(1)
                .any(|p| walked.contains(p.as_str()))
        })
        .map(|c| c.sha.as_str())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commit(sha: &str, parents: &[&str]) -> CommitRow {
        CommitRow {
            sha: sha.into(),
            parents: parents.iter().map(|p| p.to_string()).collect(),
            author_time: 0,
            committer_time: 0,
            author_id: "a".into(),
            is_bot: false,
            files_changed: 1,
            additions: 1,
            deletions: 0,
        }
    }

    #[test]
    fn merges_repeat_only_when_their_side_was_walked() {
        let full = [
            commit("m", &["a", "b"]),
            commit("a", &["r"]),
            commit("b", &["r"]),
            commit("r", &[]),
        ];
        assert_eq!(
            merges_repeating_walked_commits(&full),
            BTreeSet::from(["m"])
        );
        // First-parent history: the side commit b is absent, the merge is the only record.
        let first_parent = [
            commit("m", &["a", "b"]),
            commit("a", &["r"]),
            commit("r", &[]),
        ];
        assert!(merges_repeating_walked_commits(&first_parent).is_empty());
    }
}
