//! `ckb query batch-get <ID>…` (at most 50) and `ckb query batch-search <QUERY>…` (at most 10):
//! many lookups in one answer, each with its own result or error.
//!
//! `results` keep the order of the inputs (duplicates included). An item that fails carries
//! `error` {code, message, remediation, details} instead of a result; the answer itself succeeds
//! unless the list is empty or too long (`INVALID_PARAMETER`). Items are symbols in brief
//! (batch-get: with `resolution` and `locationFreshness`); each search keeps its top
//! `symbolsPerModule` results (or `--limit`), found and ranked exactly as `search` ranks them.

use output_schema::ErrorCode;
use serde_json::{json, Value};

use crate::commands::search::{check_query, find, results_json};
use crate::envelope::answer::Answer;
use crate::envelope::facts::symbol_full;
use crate::envelope::respond::{finish, shell_quote, shell_words, Ctx, Cut, Draft, Trim};
use crate::snapshot::coverage;
use crate::snapshot::lookup::Lookup;
use crate::QueryError;

/// Most IDs in one batch-get.
pub const MAX_GET: usize = 50;
/// Most queries in one batch-search.
pub const MAX_SEARCH: usize = 10;

fn count_check(what: &str, n: usize, max: usize) -> Result<(), QueryError> {
    if n == 0 || n > max {
        return Err(QueryError::new(
            ErrorCode::InvalidParameter,
            format!("{what} takes 1 to {max} arguments; got {n}"),
            format!("split the list into calls of at most {max}"),
        ));
    }
    Ok(())
}

fn error_json(e: &QueryError) -> Value {
    json!({"code": e.code.as_str(), "message": e.message, "remediation": e.remediation, "details": e.details})
}

/// Runs `batch-get`.
pub fn batch_get(ctx: &Ctx<'_>, inputs: &[String]) -> Result<Answer, QueryError> {
    count_check("batch-get", inputs.len(), MAX_GET)?;
    let lookup = Lookup::new(ctx.snapshot);
    let fresh = crate::commands::symbol::location_freshness(ctx);
    let mut ok = 0;
    let mut scip = false;
    let results: Vec<Value> = inputs
        .iter()
        .map(|input| match lookup.resolve(input) {
            Ok(r) => {
                ok += 1;
                scip |= r.symbol.source == "scip";
                json!({"input": input, "status": "ok", "symbol": symbol_full(&r.symbol),
                       "resolution": r.resolution, "locationFreshness": fresh})
            }
            Err(e) => json!({"input": input, "status": "error", "error": error_json(&e)}),
        })
        .collect();
    let failed = inputs.len() - ok;
    let explanation = format!("{ok} of {} symbol(s) found; {failed} failed.", inputs.len());
    let facts = json!({"results": results, "found": ok, "failed": failed});
    let inv = format!("ckb query batch-get {}", shell_words(inputs));
    let mut draft = Draft::new("batch-get", inv, facts, explanation);
    draft.completeness = coverage::symbols_of(ctx.snapshot, scip || ok == 0);
    draft.depends_on_scip = scip;
    draft.trims = Trim::lists(&["results"]);
    draft.items(inputs.len(), inputs.len());
    finish(ctx, draft)
}

/// Runs `batch-search`.
pub fn batch_search(
    ctx: &Ctx<'_>,
    queries: &[String],
    kinds: &[String],
    limit: Option<u64>,
) -> Result<Answer, QueryError> {
    count_check("batch-search", queries.len(), MAX_SEARCH)?;
    let per = match limit {
        Some(_) => ctx.budget.limit(limit)?,
        None => ctx.budget.per_module,
    };
    let mut cuts = Vec::new();
    let mut total_in = 0u64;
    let mut total_out = 0u64;
    let mut scip = false;
    let searches: Vec<Value> = queries
        .iter()
        .map(|q| {
            let q = q.as_str();
            match check_query(q).and_then(|q| find(ctx, q, kinds, None).map(|r| (q, r))) {
                Ok((q, ranked)) => {
                    total_in += ranked.len() as u64;
                    let shown = results_json(&ranked, per);
                    scip |= ranked.iter().take(per).any(|r| r.symbol.source == "scip");
                    total_out += shown.len() as u64;
                    cuts.push(Cut::of(
                        &format!("searches[{q}].results"),
                        "max-items",
                        ranked.len(),
                        shown.len(),
                        None,
                    ));
                    json!({"query": q, "status": "ok", "total": ranked.len(), "results": shown})
                }
                Err(e) => json!({"query": q, "status": "error", "error": error_json(&e)}),
            }
        })
        .collect();
    let found = searches
        .iter()
        .filter(|s| s["total"].as_u64().unwrap_or(0) > 0)
        .count();
    let explanation = format!(
        "{} quer(ies): {found} with matches; up to {per} result(s) each.",
        queries.len()
    );
    let facts = json!({"searches": searches});
    let mut inv = format!("ckb query batch-search {}", shell_words(queries));
    for k in kinds {
        inv.push_str(&format!(" --kind {}", shell_quote(k)));
    }
    let mut draft = Draft::new("batch-search", inv, facts, explanation);
    draft.completeness = coverage::symbols(ctx.snapshot);
    draft.depends_on_scip = scip;
    for c in cuts {
        draft.cut(c);
    }
    if draft.cuts.iter().any(|c| c.total > c.shown) {
        draft.suggest(
            format!("{} --limit {}", draft.invocation, (per * 2).min(1000)),
            "more results per query",
        );
    }
    draft.trims = vec![Trim::weighted("/searches", "searches", |s| {
        s["results"].as_array().map_or(0, |r| r.len() as u64)
    })];
    draft.items_in = total_in;
    draft.items_out = total_out;
    finish(ctx, draft)
}
