//! `ckb query search <QUERY> [--kind K]… [--scope MODULE] [--limit N]`: symbols whose name
//! contains the query, ignoring case, best first.
//!
//! Ranking (a strict lexicographic order, documented here and in `facts.ranking`):
//! 1. match: exact name (ignoring case) > prefix > substring;
//! 2. code before tests: definitions in files the scan marked as tests come after the others
//!    (a test helper rarely is what someone searching a name is after);
//! 3. visibility: public > protected > internal > private / unknown;
//! 4. backend confidence: scip > tree-sitter;
//! 5. kind weight: type-like (class, struct, interface, trait, enum, type_alias, type) 5,
//!    function 4, method / constructor 3, constant / module / macro / namespace / package 2,
//!    variable / field / property 1, anything else 0;
//! 6. ties: stable_id ascending.
//!
//! `--scope` keeps symbols of that module (the modules stage's module ID) or under that path.
//! Facts: `results` (ranked, at most `--limit`, default the items budget) and `byModule` (match
//! counts per module, most first, at most `--max-modules`). Only the `name` column is scanned;
//! other columns are decoded for matching rows only; `files` is read for the matching paths.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use output_schema::tables::SymbolRow;
use output_schema::ErrorCode;
use serde_json::{json, Value};

use crate::envelope::answer::Answer;
use crate::envelope::facts::{symbol_brief, FileIndex};
use crate::envelope::respond::{finish, shell_quote, Ctx, Cut, Draft, Trim};
use crate::snapshot::coverage;
use crate::snapshot::read::{self, is_path_or_below, Pred};
use crate::QueryError;

/// Longest accepted query.
pub const MAX_QUERY_CHARS: usize = 200;

/// How a name matches the query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MatchKind {
    /// Contains it.
    Substring = 1,
    /// Starts with it.
    Prefix = 2,
    /// Equals it (ignoring case).
    Exact = 3,
}

impl MatchKind {
    /// Name in facts.
    pub fn name(self) -> &'static str {
        match self {
            MatchKind::Exact => "exact",
            MatchKind::Prefix => "prefix",
            MatchKind::Substring => "substring",
        }
    }
}

/// How `name` matches `query` (both compared lowercased).
pub fn match_kind(name: &str, query: &str) -> MatchKind {
    let n = name.to_lowercase();
    let q = query.to_lowercase();
    if n == q {
        MatchKind::Exact
    } else if n.starts_with(&q) {
        MatchKind::Prefix
    } else {
        MatchKind::Substring
    }
}

/// Weight of a visibility in the ranking.
pub fn visibility_weight(v: &str) -> u8 {
    match v {
        "public" => 3,
        "protected" => 2,
        "internal" => 1,
        _ => 0,
    }
}

/// Weight of a backend in the ranking.
pub fn backend_weight(source: &str) -> u8 {
    u8::from(source == "scip")
}

/// Weight of a kind in the ranking.
pub fn kind_weight(kind: &str) -> u8 {
    match kind {
        "class" | "struct" | "interface" | "trait" | "enum" | "type_alias" | "type" => 5,
        "function" => 4,
        "method" | "constructor" => 3,
        "constant" | "module" | "macro" | "namespace" | "package" => 2,
        "variable" | "field" | "property" => 1,
        _ => 0,
    }
}

fn compare(query: &str, tests: &BTreeSet<String>, a: &SymbolRow, b: &SymbolRow) -> Ordering {
    match_kind(&b.name, query)
        .cmp(&match_kind(&a.name, query))
        .then(
            tests
                .contains(a.path.as_str())
                .cmp(&tests.contains(b.path.as_str())),
        )
        .then(visibility_weight(&b.visibility).cmp(&visibility_weight(&a.visibility)))
        .then(backend_weight(&b.source).cmp(&backend_weight(&a.source)))
        .then(kind_weight(&b.kind).cmp(&kind_weight(&a.kind)))
        .then(a.stable_id.cmp(&b.stable_id))
}

/// Sorts symbols by the search ranking for `query`; `tests` are the test files among their paths.
pub fn rank_matches(
    query: &str,
    mut rows: Vec<SymbolRow>,
    tests: &BTreeSet<String>,
) -> Vec<SymbolRow> {
    rows.sort_by(|a, b| compare(query, tests, a, b));
    rows
}

/// The paths among `rows` that the scan marked as tests (from `files`).
pub fn test_paths(
    snapshot: &crate::Snapshot,
    rows: &[SymbolRow],
) -> Result<BTreeSet<String>, QueryError> {
    let paths: BTreeSet<String> = rows.iter().map(|s| s.path.to_string()).collect();
    let files = FileIndex::load_paths(snapshot, &paths)?;
    Ok(paths.into_iter().filter(|p| files.is_test(p)).collect())
}

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

/// Matching symbols, filtered by kind and scope, ranked.
pub fn find(
    ctx: &Ctx<'_>,
    query: &str,
    kinds: &[String],
    scope: Option<&str>,
) -> Result<Vec<SymbolRow>, QueryError> {
    let rows: Vec<SymbolRow> =
        read::rows_where(ctx.snapshot, "name", &Pred::contains_ci(query))?.unwrap_or_default();
    let kinds: BTreeSet<String> = kinds.iter().map(|k| k.to_lowercase()).collect();
    let rows = rows
        .into_iter()
        .filter(|s| kinds.is_empty() || kinds.contains(&s.kind.to_lowercase()))
        .filter(|s| match scope {
            None => true,
            Some(sc) => s.module_id.as_deref() == Some(sc) || is_path_or_below(&s.path, sc),
        })
        .collect::<Vec<_>>();
    let tests = test_paths(ctx.snapshot, &rows)?;
    Ok(rank_matches(query, rows, &tests))
}

/// The first `n` ranked results, as JSON ranked from 1.
pub fn results_json(query: &str, ranked: &[SymbolRow], n: usize) -> Vec<Value> {
    ranked
        .iter()
        .take(n)
        .enumerate()
        .map(|(i, s)| result_json(query, i + 1, s))
        .collect()
}

/// One ranked result.
pub fn result_json(query: &str, rank: usize, s: &SymbolRow) -> Value {
    let mut v = symbol_brief(s);
    v["rank"] = json!(rank);
    v["match"] = json!(match_kind(&s.name, query).name());
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
    let shown: Vec<&SymbolRow> = ranked.iter().take(limit).collect();
    let results = results_json(query, &ranked, limit);
    let mut per_module: BTreeMap<String, usize> = BTreeMap::new();
    for s in &ranked {
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

    let counts = |k: MatchKind| {
        ranked
            .iter()
            .filter(|s| match_kind(&s.name, query) == k)
            .count()
    };
    let explanation = match shown.first() {
        None => format!("No symbol name contains {query:?}."),
        Some(best) => format!(
            "{total} symbol(s) match {query:?} ({} exact, {} prefix, {} substring); showing {}. Best: {} {} in {}:{}.",
            counts(MatchKind::Exact),
            counts(MatchKind::Prefix),
            counts(MatchKind::Substring),
            shown.len(),
            best.kind,
            best.name,
            best.path,
            best.start_line
        ),
    };
    let facts = json!({
        "query": query,
        "filters": {"kinds": args.kinds, "scope": args.scope},
        "total": total,
        "results": results,
        "byModule": by_module.iter().map(|(m, n)| json!({"module": m, "matches": n})).collect::<Vec<_>>(),
        "ranking": "exact > prefix > substring; visibility; scip > tree-sitter; kind weight; stable_id",
    });
    let inv = invocation(query, &args.kinds, args.scope.as_deref());
    let mut draft = Draft::new("search", inv.clone(), facts, explanation);
    draft.completeness = coverage::symbols_of(
        ctx.snapshot,
        shown.is_empty() || shown.iter().any(|s| s.source == "scip"),
    );
    draft.depends_on_scip = shown.iter().any(|s| s.source == "scip");
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
        draft.suggest_query("symbol", &best.stable_id, "details of the best match");
        draft.suggest_query("refs", &best.stable_id, "where the best match is used");
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
    }
    finish(ctx, draft)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(id: &str, name: &str, kind: &str, vis: &str, source: &str) -> SymbolRow {
        SymbolRow {
            stable_id: id.into(),
            name: name.into(),
            kind: kind.into(),
            container: None,
            signature: None,
            arity: None,
            definition_version_id: "d".into(),
            visibility: vis.into(),
            visibility_confidence: 1.0,
            visibility_source: "modifier".into(),
            module_id: None,
            language: None,
            path: "a.rs".into(),
            start_line: 1,
            start_col: 1,
            end_line: 1,
            end_col: 1,
            source: source.into(),
            backend_id: None,
            body_hash: None,
        }
    }

    #[test]
    fn ranking_follows_the_documented_order() {
        let rows = vec![
            sym("9", "parseAll", "function", "public", "scip"),
            sym("8", "reparse", "function", "public", "scip"),
            sym("7", "Parse", "function", "private", "tree-sitter"),
            sym("6", "parse", "function", "public", "tree-sitter"),
            sym("5", "parse", "method", "public", "scip"),
            sym("4", "parse", "function", "public", "scip"),
            sym("3", "parse", "function", "public", "scip"),
        ];
        let none = BTreeSet::new();
        let ids: Vec<String> = rank_matches("PARSE", rows.clone(), &none)
            .into_iter()
            .map(|s| s.stable_id.to_string())
            .collect();
        assert_eq!(ids, ["3", "4", "5", "6", "7", "9", "8"]);

        // A definition in a test file comes after every other match of the same kind of match,
        // whatever its visibility, backend or kind.
        let mut rows = rows;
        rows[0].path = "tests/a.rs".into(); // parseAll (prefix)
        rows[6].path = "tests/a.rs".into(); // "3" (exact)
        let tests = BTreeSet::from(["tests/a.rs".to_string()]);
        let ids: Vec<String> = rank_matches("PARSE", rows, &tests)
            .into_iter()
            .map(|s| s.stable_id.to_string())
            .collect();
        assert_eq!(ids, ["4", "5", "6", "7", "3", "9", "8"]);
    }
}
