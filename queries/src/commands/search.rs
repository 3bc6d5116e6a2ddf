//! `ckb query search <QUERY> [--kind K]… [--scope MODULE] [--limit N]`: symbols whose name
//! contains the query, ignoring case, the definition a user most likely means first.
//!
//! The ranking is [`crate::analysis::ranking`]'s (`facts.ranking` states it): exact name
//! (case-sensitive) > exact ignoring case > prefix > substring; then place (api > internal >
//! aside: tests, examples, benches, docs, test-support), usage (log2 of reference sites), kind,
//! container depth, backend, references, stable_id. Parameters, type parameters, locals and
//! `meta` pseudo-symbols are searched only when `--kind` names them.
//!
//! `--scope` keeps symbols of that module (the modules stage's module ID) or under that path.
//! Facts: `results` (ranked, at most `--limit`, default the items budget; each with its `rank`,
//! `match`, `place` and, when the snapshot has a `usage` table, `references`) and `byModule`
//! (match counts per module, most first, at most `--max-modules`). Only the `name` column is
//! scanned (with `container` and `kind`, which find the types the matches are members of, in
//! the same pass: `ranking::find_by_name`); the columns a result shows and the ranking reads
//! (`lookup::BRIEF_COLUMNS`) are decoded for those rows only, the others never; `files` and
//! `usage` are read for the matches only.

use std::collections::{BTreeMap, BTreeSet};

use output_schema::ErrorCode;
use serde_json::{json, Value};

use crate::analysis::ranking::{self, is_hidden_kind, MatchKind, Ranked};
use crate::envelope::answer::Answer;
use crate::envelope::facts::symbol_brief;
use crate::envelope::respond::{finish, shell_quote, Ctx, Cut, Draft, Trim};
use crate::snapshot::coverage;
use crate::snapshot::lookup::BRIEF_COLUMNS;
use crate::snapshot::read::is_path_or_below;
use crate::QueryError;

/// Longest accepted query.
pub const MAX_QUERY_CHARS: usize = 200;

/// What `search` was asked.
#[derive(Clone, Debug, Default)]
pub struct SearchArgs {
    /// The substring.
    pub query: String,
    /// Kinds to keep (any of them); empty keeps all.
    pub kinds: Vec<String>,
    /// Module ID or path to stay within.
    pub scope: Option<String>,
    /// Results to return.
    pub limit: Option<u64>,
}

/// Checks a query string.
pub fn check_query(q: &str) -> Result<&str, QueryError> {
    let q = QueryError::non_empty(
        q,
        "the search query is empty",
        "pass part of a symbol name, e.g. `ckb query search parse`",
    )?;
    if q.chars().count() > MAX_QUERY_CHARS {
        return Err(QueryError::new(
            ErrorCode::InvalidParameter,
            format!("the search query is longer than {MAX_QUERY_CHARS} characters"),
            "search for part of one symbol name",
        ));
    }
    Ok(q)
}

/// Matching symbols, filtered by kind (without `--kind`, kinds a search hides are left out:
/// [`is_hidden_kind`]) and scope, ranked.
pub fn find(
    ctx: &Ctx<'_>,
    query: &str,
    kinds: &[String],
    scope: Option<&str>,
) -> Result<Vec<Ranked>, QueryError> {
    let mut found = ranking::find_by_name(ctx.snapshot, query, &BRIEF_COLUMNS)?;
    let kinds: BTreeSet<String> = kinds.iter().map(|k| k.to_lowercase()).collect();
    let rows = std::mem::take(&mut found.matches)
        .into_iter()
        .filter(|s| match kinds.is_empty() {
            true => !is_hidden_kind(&s.kind),
            false => kinds.contains(&s.kind.to_lowercase()),
        })
        .filter(|s| match scope {
            None => true,
            Some(sc) => s.module_id.as_deref() == Some(sc) || is_path_or_below(&s.path, sc),
        })
        .collect::<Vec<_>>();
    ranking::load_and_rank_found(ctx.snapshot, query, rows, found)
}

/// The first `n` ranked results, as JSON ranked from 1.
pub fn results_json(ranked: &[Ranked], n: usize) -> Vec<Value> {
    ranked
        .iter()
        .take(n)
        .enumerate()
        .map(|(i, r)| result_json(i + 1, r))
        .collect()
}

/// One ranked result: the symbol in brief with its `rank`, `match`, `place` and (when the
/// snapshot counts usage) `references`.
pub fn result_json(rank: usize, r: &Ranked) -> Value {
    let mut v = symbol_brief(&r.symbol);
    v["rank"] = json!(rank);
    v["match"] = json!(r.matched.name());
    v["place"] = json!(r.place.name());
    if let Some(n) = r.references {
        v["references"] = json!(n);
    }
    v
}

/// The invocation of a search, for drilldowns.
pub fn invocation(query: &str, kinds: &[String], scope: Option<&str>) -> String {
    let mut s = format!("ckb query search {}", shell_quote(query));
    for k in kinds {
        s.push_str(&format!(" --kind {}", shell_quote(k)));
    }
    if let Some(sc) = scope {
        s.push_str(&format!(" --scope {}", shell_quote(sc)));
    }
    s
}

/// Runs `search`.
pub fn search(ctx: &Ctx<'_>, args: &SearchArgs) -> Result<Answer, QueryError> {
    let query = check_query(&args.query)?;
    let limit = ctx.budget.limit(args.limit)?;
    let ranked = find(ctx, query, &args.kinds, args.scope.as_deref())?;
    let total = ranked.len();
    let shown: Vec<&Ranked> = ranked.iter().take(limit).collect();
    let results = results_json(&ranked, limit);
    let mut per_module: BTreeMap<String, usize> = BTreeMap::new();
    for r in &ranked {
        let s = &r.symbol;
        *per_module
            .entry(
                s.module_id
                    .as_deref()
                    .map(String::from)
                    .unwrap_or_else(|| crate::envelope::facts::fallback_module(&s.path)),
            )
            .or_default() += 1;
    }
    let mut by_module: Vec<(String, usize)> = per_module.into_iter().collect();
    by_module.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let modules_total = by_module.len();
    by_module.truncate(ctx.budget.modules);

    let counts = |k: MatchKind| ranked.iter().filter(|r| r.matched == k).count();
    let explanation = match shown.first() {
        None => format!("No symbol name contains {query:?}."),
        Some(best) => format!(
            "{total} symbol(s) match {query:?} ({} exact, {} exact ignoring case, {} prefix, {} substring); showing {}. Best: {} {} in {}:{}.",
            counts(MatchKind::Exact),
            counts(MatchKind::ExactIgnoringCase),
            counts(MatchKind::Prefix),
            counts(MatchKind::Substring),
            shown.len(),
            best.symbol.kind,
            best.symbol.name,
            best.symbol.path,
            best.symbol.start_line
        ),
    };
    let facts = json!({
        "query": query,
        "filters": {"kinds": args.kinds, "scope": args.scope},
        "total": total,
        "results": results,
        "byModule": by_module.iter().map(|(m, n)| json!({"module": m, "matches": n})).collect::<Vec<_>>(),
        "ranking": ranking::RANKING,
    });
    let inv = invocation(query, &args.kinds, args.scope.as_deref());
    let mut draft = Draft::new("search", inv.clone(), facts, explanation);
    let scip_shown = shown.iter().any(|r| r.symbol.source == "scip");
    draft.completeness = coverage::symbols_of(ctx.snapshot, shown.is_empty() || scip_shown);
    draft.depends_on_scip = scip_shown;
    draft.cut_list("results", "max-items", total, shown.len(), "--limit");
    draft.cut(Cut::of(
        "byModule",
        "max-modules",
        modules_total,
        by_module.len(),
        None,
    ));
    draft.trims = vec![
        Trim::summary("/byModule", "byModule"),
        Trim::new("/results", "results"),
    ];
    draft.items(total, shown.len());
    if let Some(best) = shown.first() {
        draft.suggest_query(
            "symbol",
            &best.symbol.stable_id,
            "details of the best match",
        );
        draft.suggest_query(
            "refs",
            &best.symbol.stable_id,
            "where the best match is used",
        );
    }
    if total > shown.len() && args.scope.is_none() {
        if let Some((m, n)) = by_module.first() {
            draft.suggest(
                format!("{inv} --scope {}", shell_quote(m)),
                format!("{n} of the matches are in module {m}"),
            );
        }
    }
    if !ctx.snapshot.has_table("symbols") {
        draft.suggest("ckb snapshot --force", "this snapshot has no symbols table");
    } else if !ranked.is_empty() && !ctx.snapshot.has_table("usage") {
        draft.suggest(
            "ckb snapshot --force",
            "this snapshot predates the usage table: results are ranked without usage",
        );
    }
    finish(ctx, draft)
}
