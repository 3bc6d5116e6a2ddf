//! `ckb query understand <QUERY>`: everything needed to understand one symbol, or — when the
//! query names several — an `ambiguity` block instead of a guess.
//!
//! The query is a stable ID (resolved like `symbol`; its errors are errors) or a name: one
//! exact match (ignoring case only when no case-sensitive match exists; parameters and the like
//! only when nothing else has the name) is understood; several give `ambiguity` {query, total,
//! matches (top 5 by the search ranking, [`crate::analysis::ranking`]), hint} with exit 0; none
//! falls back to substring search, whose best matches are offered the same way.
//!
//! Facts for one symbol: `symbol` (full), `resolution`, `references` {total, files: path,
//! count, lines (first `symbolsPerModule` per file)}, `callers` (direct, by confidence then
//! calls), `callees` (resolved by confidence then calls; `unresolvedCalls` by name),
//! `relatedTests` (as in `impact`, depth 2). Lists hold at most `--max-items`.

use std::collections::BTreeMap;

use output_schema::ErrorCode;
use serde_json::{json, Value};

use crate::analysis::ranking::Ranked;
use crate::commands::impact::{analyse_resolved, reached_json, test_dependencies, Analysis};
use crate::commands::search::{find, results_json};
use crate::envelope::answer::{Answer, CompletenessInfo};
use crate::envelope::facts::symbol_full;
use crate::envelope::respond::{finish, Ctx, Cut, Draft, Trim};
use crate::snapshot::coverage;
use crate::snapshot::lookup::{split_qualified, Lookup, NameMatch, AMBIGUITY_MATCHES};
use crate::QueryError;

fn ambiguity(
    ctx: &Ctx<'_>,
    query: &str,
    ranked: Vec<Ranked>,
    exact: bool,
) -> Result<Answer, QueryError> {
    let total = ranked.len();
    let top = results_json(&ranked, AMBIGUITY_MATCHES);
    let hint = if exact {
        "several symbols have this name: pass one of the IDs, or qualify the name with its container (Type::name)"
    } else {
        "no symbol has exactly this name: pick one of these similar names, or search with `ckb query search`"
    };
    let explanation = format!(
        "{query:?} is ambiguous: {total} {} match; the best are listed. {hint}.",
        if exact {
            "symbols with this name"
        } else {
            "similar names"
        }
    );
    let facts = json!({
        "ambiguity": {"query": query, "total": total, "exactName": exact, "matches": top, "hint": hint},
    });
    let mut draft = Draft::about("understand", query, facts, explanation);
    draft.completeness = coverage::symbols(ctx.snapshot);
    draft.cut(Cut::of(
        "ambiguity.matches",
        "ambiguity",
        total,
        top.len(),
        None,
    ));
    draft.items(total, top.len());
    for s in ranked.iter().take(AMBIGUITY_MATCHES).map(|r| &r.symbol) {
        draft.suggest_query(
            "understand",
            &s.stable_id,
            format!("{} {} at {}:{}", s.kind, s.name, s.path, s.start_line),
        );
    }
    finish(ctx, draft)
}

/// Files referencing the symbol, most sites first: their count and the first `--max-items`, each
/// with its lines (at most `--max-per-module`).
fn reference_files(ctx: &Ctx<'_>, a: &Analysis) -> (usize, Vec<Value>) {
    let n = ctx.budget.items;
    let mut by_file: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
    for o in &a.references {
        by_file.entry(o.path.as_str()).or_default().push(o.line);
    }
    let mut ref_files: Vec<(&str, Vec<i32>)> = by_file.into_iter().collect();
    ref_files.sort_by(|x, y| y.1.len().cmp(&x.1.len()).then(x.0.cmp(y.0)));
    let ref_files_total = ref_files.len();
    let files_json: Vec<Value> = ref_files
        .iter()
        .take(n)
        .map(|(p, lines)| {
            let mut ls = lines.clone();
            ls.dedup();
            json!({"path": p, "count": lines.len(), "isTest": a.files.is_test(p),
                   "lines": ls.into_iter().take(ctx.budget.per_module).collect::<Vec<_>>()})
        })
        .collect();
    (ref_files_total, files_json)
}

/// What the symbol calls, most confident first: their count and the first `--max-items`.
fn callees(
    ctx: &Ctx<'_>,
    lookup: &Lookup<'_>,
    a: &Analysis,
) -> Result<(usize, Vec<Value>), QueryError> {
    let n = ctx.budget.items;
    let id = &a.symbol.stable_id;
    let mut callees: Vec<_> = a.graph.callees_of(id).to_vec();
    callees.sort_by(|x, y| {
        y.confidence
            .total_cmp(&x.confidence)
            .then(y.count.cmp(&x.count))
            .then(x.other.cmp(&y.other))
    });
    let callee_ids: std::collections::BTreeSet<String> =
        callees.iter().take(n).map(|e| e.other.clone()).collect();
    let callee_rows: BTreeMap<String, output_schema::tables::SymbolRow> = lookup
        .symbols_by_id(&callee_ids)?
        .into_iter()
        .map(|s| (s.stable_id.to_string(), s))
        .collect();
    let callees_json: Vec<Value> = callees
        .iter()
        .take(n)
        .map(|e| {
            let s = callee_rows.get(&e.other);
            json!({"id": e.other, "name": s.map(|s| s.name.clone()), "kind": s.map(|s| s.kind.clone()),
                   "path": s.map(|s| s.path.clone()), "line": s.map(|s| s.start_line),
                   "calls": e.count, "confidence": e.confidence, "external": s.is_none()})
        })
        .collect();
    Ok((callees.len(), callees_json))
}

/// Runs `understand`.
pub fn understand(ctx: &Ctx<'_>, query: &str) -> Result<Answer, QueryError> {
    let query = query.trim();
    let lookup = Lookup::new(ctx.snapshot);
    let resolved = if query.starts_with(output_schema::ids::STABLE_ID_PREFIX) || query.is_empty() {
        lookup.resolve(query)?
    } else {
        match lookup.match_name(query)? {
            NameMatch::None => {
                let (_, name) = split_qualified(query);
                let similar = find(ctx, name, &[], None)?;
                if similar.is_empty() {
                    return Err(QueryError::new(
                        ErrorCode::SymbolNotFound,
                        format!("no symbol name contains {query:?}"),
                        "check the spelling, or list what exists with `ckb query search <part of a name>`",
                    ));
                }
                return ambiguity(ctx, query, similar, false);
            }
            NameMatch::One(resolved) => *resolved,
            NameMatch::Several(ranked) => return ambiguity(ctx, query, ranked, true),
        }
    };
    let a = analyse_resolved(ctx, &lookup, resolved.symbol, resolved.resolution, 2)?;
    let n = ctx.budget.items;
    let id = a.symbol.stable_id.clone();

    let (ref_files_total, files_json) = reference_files(ctx, &a);

    let mut direct: Vec<_> = a.direct.iter().collect();
    direct.sort_by(|x, y| {
        y.confidence
            .total_cmp(&x.confidence)
            .then(y.calls.cmp(&x.calls))
            .then(x.id.cmp(&y.id))
    });
    let (callees_total, callees_json) = callees(ctx, &lookup, &a)?;
    let mut unresolved: Vec<_> = a.graph.unresolved_of(&id).to_vec();
    unresolved.sort_by(|x, y| y.count.cmp(&x.count).then(x.name.cmp(&y.name)));
    let tests = test_dependencies(&a);

    let explanation = format!(
        "{} {} in {}:{} — {} reference(s) in {} file(s), {} caller(s), {} callee(s), {} related test(s).",
        a.symbol.kind,
        a.symbol.name,
        a.symbol.path,
        a.symbol.start_line,
        a.references.len(),
        ref_files_total,
        a.direct.len(),
        callees_total + unresolved.len(),
        tests.len()
    );
    let facts = json!({
        "symbol": symbol_full(&a.symbol),
        "resolution": a.resolution,
        "locationFreshness": crate::commands::symbol::location_freshness(ctx),
        "references": {"total": a.references.len(), "files": files_json},
        "callers": direct.iter().take(n).map(|r| reached_json(&a, r)).collect::<Vec<_>>(),
        "callees": callees_json,
        "unresolvedCalls": unresolved.iter().take(n).map(|u| json!({"name": u.name, "calls": u.count})).collect::<Vec<_>>(),
        "relatedTests": tests.iter().take(n).cloned().collect::<Vec<_>>(),
    });
    let mut draft = Draft::new(
        "understand",
        format!("ckb query understand {id}"),
        facts,
        explanation,
    );
    draft.completeness = coverage::references(ctx.snapshot, a.scip_backed);
    if !a.graph.present {
        draft.completeness = CompletenessInfo {
            score: draft.completeness.score.min(0.5),
            reason: "no-call-graph".into(),
        };
    }
    draft.depends_on_scip = a.scip_backed;
    draft.cut_list(
        "references.files",
        "max-items",
        ref_files_total,
        files_json.len(),
        "--max-items",
    );
    draft.cut_list(
        "callers",
        "max-items",
        direct.len(),
        direct.len().min(n),
        "--max-items",
    );
    draft.cut_list(
        "callees",
        "max-items",
        callees_total,
        callees_json.len(),
        "--max-items",
    );
    draft.cut_list(
        "unresolvedCalls",
        "max-items",
        unresolved.len(),
        unresolved.len().min(n),
        "--max-items",
    );
    draft.cut_list(
        "relatedTests",
        "max-items",
        tests.len(),
        tests.len().min(n),
        "--max-items",
    );
    draft.trims = Trim::lists(&[
        "unresolvedCalls",
        "relatedTests",
        "callees",
        "references.files",
        "callers",
    ]);
    draft.items(
        ref_files_total + a.direct.len() + callees_total + unresolved.len() + tests.len(),
        files_json.len()
            + direct.len().min(n)
            + callees_json.len()
            + unresolved.len().min(n)
            + tests.len().min(n),
    );
    draft.suggest_query("impact", &id, "what a change would affect");
    draft.suggest_query("refs", &id, "every reference site");
    finish(ctx, draft)
}
