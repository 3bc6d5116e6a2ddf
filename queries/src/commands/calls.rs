//! `ckb query callers <ID|NAME> [--depth N] [--limit N]` and `ckb query callees …`: who calls a
//! symbol, and what it calls, up to N levels deep (default 2, at most 10).
//!
//! The walk is the one call graph's (`analysis::call_graph::walk`), breadth first over
//! `call_edges` in one direction. Each symbol reached is listed once, at its shortest distance:
//! `depth`, `via` (the symbol one hop closer, from depth 2), and the hop that reached it —
//! `calls` (call sites), `confidence` (the edge's: SCIP 1.0, by-name lower) and `source`
//! (`scip`: the indexer saw the call; `by-name`: a tree-sitter call site bound by name) — plus
//! `pathConfidence`, the product of edge confidences decaying per extra hop. Callees the
//! snapshot has no definition of (a library's functions, as SCIP names them) are `external`; the
//! snapshot records no calls of theirs. An edge back to a symbol on its own path (recursion,
//! mutual calls) is cut and listed in `cycles`: the call that closes it (`caller`, `callee`, with
//! their names) and the cycle's `length` in symbols. `callees` also lists the start's
//! `unresolvedCalls`: by-name call sites no definition could be bound to.
//!
//! Order: by depth, then path confidence (highest first), then stable ID; cycles by length, then
//! IDs; unresolved calls by call sites (most first), then name. Budgets: at most `--limit`
//! symbols (default: the items budget), nearest first, and `--max-items` unresolved calls and
//! cycles; counts always cover everything. Callers beyond the depth are counted
//! (`beyondDepth`) and offered as a drilldown one level deeper.

use std::collections::{BTreeMap, BTreeSet};

use output_schema::tables::SymbolRow;
use serde_json::{json, Value};

use crate::analysis::call_graph::{CallGraph, Cycle, Direction, Reached, Walk};
use crate::commands::impact::DEPTH_RANGE;
use crate::envelope::answer::Answer;
use crate::envelope::budget::check_range;
use crate::envelope::facts::{symbol_brief, FileIndex};
use crate::envelope::respond::{finish, Ctx, Draft, Trim};
use crate::snapshot::coverage;
use crate::snapshot::lookup::Lookup;
use crate::QueryError;

/// Default depth of `callers`, `callees` and `hierarchy`.
pub const DEFAULT_DEPTH: usize = 2;

/// Checks a `--depth` of `callers`, `callees` or `hierarchy` (1..=10, default 2).
pub fn depth_of(depth: Option<u64>) -> Result<usize, QueryError> {
    match depth {
        Some(d) => check_range("--depth", d, DEPTH_RANGE),
        None => Ok(DEFAULT_DEPTH),
    }
}

/// What `callers` and `callees` were asked.
#[derive(Clone, Debug, Default)]
pub struct CallsArgs {
    /// Stable ID or name.
    pub input: String,
    /// Levels to walk.
    pub depth: Option<u64>,
    /// Symbols to list.
    pub limit: Option<u64>,
}

/// `scip` or `by-name`: how an edge's backend is named in answers.
pub fn source_label(source: &str) -> &'static str {
    if source == "scip" {
        "scip"
    } else {
        "by-name"
    }
}

/// The symbol rows of every symbol the walks from `start` reached or cut a cycle at, by ID (an ID
/// without a row is external), and the files they lie in.
pub fn walk_rows(
    ctx: &Ctx<'_>,
    lookup: &Lookup<'_>,
    start: &SymbolRow,
    walks: &[&Walk],
) -> Result<(BTreeMap<String, SymbolRow>, FileIndex), QueryError> {
    let mut ids: BTreeSet<String> = BTreeSet::new();
    for w in walks {
        ids.extend(w.reached.iter().map(|r| r.id.clone()));
        ids.extend(w.cycles.iter().flat_map(|c| [c.from.clone(), c.to.clone()]));
    }
    let mut rows: BTreeMap<String, SymbolRow> = lookup
        .symbols_by_id(&ids)?
        .into_iter()
        .map(|s| (s.stable_id.to_string(), s))
        .collect();
    rows.insert(start.stable_id.to_string(), start.clone());
    let paths: BTreeSet<String> = rows.values().map(|s| s.path.to_string()).collect();
    let files = FileIndex::load_paths(ctx.snapshot, &paths)?;
    Ok((rows, files))
}

/// A symbol reached by a walk, as a list item: where it is, how it was reached.
pub fn step_json(
    r: &Reached,
    rows: &BTreeMap<String, SymbolRow>,
    files: &FileIndex,
    extra: Value,
) -> Value {
    let s = rows.get(&r.id);
    let mut v = json!({
        "id": r.id,
        "name": s.map(|s| s.name.clone()),
        "kind": s.map(|s| s.kind.clone()),
        "container": s.and_then(|s| s.container.clone()),
        "path": s.map(|s| s.path.clone()),
        "line": s.map(|s| s.start_line),
        "module": s.map(|s| files.module_of(&s.path)),
        "isTest": s.map(|s| files.is_test(&s.path)),
        "depth": r.depth,
        "via": (r.depth > 1).then(|| r.via.clone()),
        "source": source_label(&r.edge.source),
        "external": s.is_none().then_some(true),
    });
    if let (Value::Object(v), Value::Object(extra)) = (&mut v, extra) {
        v.extend(extra);
    }
    v
}

/// Cycles as list items: the edge that closes each, named by what its ends are (`ends`: the
/// names of the walk edge's start and end — `["caller", "callee"]` when walking callees), with
/// the ends' names.
pub fn cycles_json(
    cycles: &[Cycle],
    rows: &BTreeMap<String, SymbolRow>,
    ends: [&str; 2],
) -> Vec<Value> {
    let name = |id: &str| rows.get(id).map(|s| s.name.clone());
    cycles
        .iter()
        .map(|c| {
            let [from, to] = ends;
            json!({from: c.from, format!("{from}Name"): name(&c.from),
                   to: c.to, format!("{to}Name"): name(&c.to), "length": c.length})
        })
        .collect()
}

/// Runs `callers`.
pub fn callers(ctx: &Ctx<'_>, args: &CallsArgs) -> Result<Answer, QueryError> {
    calls(ctx, args, Direction::Callers)
}

/// Runs `callees`.
pub fn callees(ctx: &Ctx<'_>, args: &CallsArgs) -> Result<Answer, QueryError> {
    calls(ctx, args, Direction::Callees)
}

fn calls(ctx: &Ctx<'_>, args: &CallsArgs, direction: Direction) -> Result<Answer, QueryError> {
    let depth = depth_of(args.depth)?;
    let limit = ctx.budget.limit(args.limit)?;
    let lookup = Lookup::new(ctx.snapshot);
    let resolved = lookup.resolve(&args.input)?;
    let graph = CallGraph::load(ctx)?;
    let id = resolved.symbol.stable_id.to_string();
    let walk = graph.walk(&id, depth, direction);
    let (command, list, other, ends) = match direction {
        Direction::Callers => ("callers", "callers", "callees", ["callee", "caller"]),
        Direction::Callees => ("callees", "callees", "callers", ["caller", "callee"]),
    };
    let (rows, files) = walk_rows(ctx, &lookup, &resolved.symbol, &[&walk])?;
    let n = ctx.budget.items;
    let shown: Vec<Value> = walk
        .reached
        .iter()
        .take(limit)
        .map(|r| {
            let mut extra = json!({"calls": r.calls, "confidence": r.edge.confidence,
                                   "pathConfidence": r.confidence});
            // An external callee is named as its call sites name it.
            if direction == Direction::Callees && !rows.contains_key(&r.id) {
                extra["name"] = json!(r.edge.name);
            }
            step_json(r, &rows, &files, extra)
        })
        .collect();
    let mut unresolved = match direction {
        Direction::Callees => graph.unresolved_of(&id).to_vec(),
        Direction::Callers => Vec::new(),
    };
    unresolved.sort_by(|x, y| y.count.cmp(&x.count).then(x.name.cmp(&y.name)));
    let direct = walk.reached.iter().filter(|r| r.depth == 1).count();
    let by_depth: Vec<usize> = (1..=depth)
        .map(|d| walk.reached.iter().filter(|r| r.depth == d).count())
        .collect();
    let mut facts = json!({
        "symbol": symbol_brief(&resolved.symbol),
        "resolution": resolved.resolution,
        "direction": command,
        "depth": depth,
        "counts": {
            list: walk.reached.len(),
            "direct": direct,
            "byDepth": by_depth,
            "cycles": walk.cycles.len(),
            "beyondDepth": walk.beyond,
            "external": walk.reached.iter().filter(|r| !rows.contains_key(&r.id)).count(),
        },
        list: shown,
        "cycles": cycles_json(&walk.cycles[..walk.cycles.len().min(n)], &rows, ends),
    });
    if direction == Direction::Callees {
        facts["counts"]["unresolvedCalls"] = json!(unresolved.len());
        facts["unresolvedCalls"] = unresolved
            .iter()
            .take(n)
            .map(|u| json!({"name": u.name, "calls": u.count}))
            .collect();
    }
    let explanation = explain(&resolved.symbol, direction, depth, &walk, unresolved.len());
    let inv = format!("ckb query {command} {id} --depth {depth}");
    let mut draft = Draft::new(command, inv.clone(), facts, explanation);
    let scip_backed =
        resolved.symbol.source == "scip" || walk.reached.iter().any(|r| r.edge.source == "scip");
    draft.completeness = coverage::references(ctx.snapshot, scip_backed);
    if !graph.present {
        draft.completeness.score = 0.0;
        draft.completeness.reason = "no-call-graph".into();
    }
    draft.depends_on_scip = scip_backed;
    draft.cut_list(
        list,
        "max-items",
        walk.reached.len(),
        walk.reached.len().min(limit),
        "--limit",
    );
    for (what, total) in [
        ("cycles", walk.cycles.len()),
        ("unresolvedCalls", unresolved.len()),
    ] {
        draft.cut_list(what, "max-items", total, total.min(n), "--max-items");
    }
    draft.cut_depth(
        list,
        walk.reached.len(),
        walk.beyond,
        depth,
        &format!("ckb query {command} {id}"),
        "symbol(s)",
    );
    draft.trims = vec![
        Trim::new("/unresolvedCalls", "unresolvedCalls"),
        Trim::new("/cycles", "cycles"),
        Trim::new(&format!("/{list}"), list),
    ];
    draft.items_in = (walk.reached.len() + walk.cycles.len() + unresolved.len()) as u64;
    draft.items_out =
        (walk.reached.len().min(limit) + walk.cycles.len().min(n) + unresolved.len().min(n)) as u64;
    draft.suggest(
        format!("ckb query {other} {id}"),
        format!("the other direction: {other}"),
    );
    draft.suggest(
        format!("ckb query impact {id}"),
        "what changing it would affect",
    );
    finish(ctx, draft)
}

fn explain(
    symbol: &SymbolRow,
    direction: Direction,
    depth: usize,
    walk: &Walk,
    unresolved: usize,
) -> String {
    let direct = walk.reached.iter().filter(|r| r.depth == 1).count();
    let further = walk.reached.len() - direct;
    let (verb, noun) = match direction {
        Direction::Callers => ("is called by", "caller"),
        Direction::Callees => ("calls", "callee"),
    };
    let mut s = format!(
        "{} {} {verb} {direct} {noun}(s) directly and {further} more within depth {depth}",
        symbol.kind, symbol.name
    );
    if !walk.cycles.is_empty() {
        s.push_str(&format!("; {} cycle(s) cut", walk.cycles.len()));
    }
    if walk.beyond > 0 {
        s.push_str(&format!("; {} more beyond depth {depth}", walk.beyond));
    }
    if unresolved > 0 {
        s.push_str(&format!(
            "; {unresolved} call(s) by name could not be bound to a definition"
        ));
    }
    s.push('.');
    s
}
