//! `ckb query hierarchy <ID|NAME> [--depth N] [--limit N]`: a type's supertypes (what it
//! implements or extends) and subtypes (what implements or extends it), transitively up to N
//! levels (default 2, at most 10).
//!
//! The facts are the `implementation` rows of `relationships` (from the implementing or
//! extending symbol to the implemented or extended one): SCIP's, and — for files an index does
//! not cover or whose index states no relationships at all (rust-analyzer) — the syntax stage's,
//! from `impl Trait for Type`, supertraits, `extends` / `implements` clauses and base classes,
//! bound by name (`source: by-name`; `scip` otherwise). A method's rows link it to the
//! interface or trait methods it implements, so the command answers for methods too.
//!
//! Both directions are walked like the call graph (`analysis::call_graph::walk`): each symbol
//! once, at its shortest distance, with `depth`, `via` (one hop closer, from depth 2) and the
//! hop's `source`. A supertype the snapshot has no definition of (a library trait, as SCIP names
//! it) is `external`. A link back to a symbol on its own path is cut and listed in `cycles`: the
//! link that closes it (`subtype`, `supertype`, with their names) and the cycle's `length`.
//!
//! Order: by depth, then stable ID; cycles by length, then IDs. Budgets: at most `--limit` (default:
//! the items budget) supertypes and as many subtypes, nearest first, and `--max-items` cycles;
//! counts always cover everything. Symbols beyond the depth are counted (`beyondDepth`) and
//! offered as a drilldown one level deeper.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::analysis::call_graph::{walk, Cycle, Edge, Walk};
use crate::commands::calls::{cycles_json, depth_of, step_json, walk_rows, CallsArgs};
use crate::envelope::answer::{Answer, CompletenessInfo};
use crate::envelope::facts::symbol_brief;
use crate::envelope::respond::{finish, Ctx, Draft, Trim};
use crate::snapshot::coverage;
use crate::snapshot::lookup::Lookup;
use crate::snapshot::read::{self, Pred};
use crate::QueryError;

/// The relationship kind that makes a hierarchy.
const IMPLEMENTATION: &str = "implementation";

/// The `implementation` links, both ways: symbol → its supertypes, symbol → its subtypes.
struct Links {
    up: BTreeMap<String, Vec<Edge>>,
    down: BTreeMap<String, Vec<Edge>>,
    present: bool,
}

fn links(ctx: &Ctx<'_>) -> Result<Links, QueryError> {
    let mut l = Links {
        up: BTreeMap::new(),
        down: BTreeMap::new(),
        present: false,
    };
    let Some(cols) = read::read_columns(
        ctx.snapshot,
        "relationships",
        &["from_id", "to_id", "kind", "source"],
        Some(("kind", &Pred::Eq(IMPLEMENTATION.into()))),
    )?
    else {
        return Ok(l);
    };
    l.present = true;
    let from: Vec<String> = cols.get("from_id")?;
    let to: Vec<String> = cols.get("to_id")?;
    let source: Vec<String> = cols.get("source")?;
    let edge = |other: &str, source: &str| Edge {
        other: other.to_string(),
        name: String::new(),
        count: 1,
        confidence: 1.0,
        source: source.to_string(),
    };
    for i in 0..from.len() {
        l.up.entry(from[i].clone())
            .or_default()
            .push(edge(&to[i], &source[i]));
        l.down
            .entry(to[i].clone())
            .or_default()
            .push(edge(&from[i], &source[i]));
    }
    Ok(l)
}

/// Runs `hierarchy`.
pub fn hierarchy(ctx: &Ctx<'_>, args: &CallsArgs) -> Result<Answer, QueryError> {
    let depth = depth_of(args.depth)?;
    let limit = ctx.budget.limit(args.limit)?;
    let lookup = Lookup::new(ctx.snapshot);
    let resolved = lookup.resolve(&args.input)?;
    let id = resolved.symbol.stable_id.to_string();
    let links = links(ctx)?;
    let up = walk(&links.up, &id, depth);
    let down = walk(&links.down, &id, depth);
    let (rows, files) = walk_rows(ctx, &lookup, &resolved.symbol, &[&up, &down])?;
    let n = ctx.budget.items;
    let list = |w: &Walk| -> Vec<Value> {
        w.reached
            .iter()
            .take(limit)
            .map(|r| step_json(r, &rows, &files, json!({"relation": IMPLEMENTATION})))
            .collect()
    };
    // One list of cycles, each as the link that closes it going up (subtype → supertype): a
    // cycle met going down is the same link seen from its other end.
    let cycles: Vec<Cycle> = up
        .cycles
        .iter()
        .cloned()
        .chain(down.cycles.iter().map(|c| Cycle {
            length: c.length,
            from: c.to.clone(),
            to: c.from.clone(),
        }))
        .collect::<std::collections::BTreeSet<Cycle>>()
        .into_iter()
        .collect();
    let facts = json!({
        "symbol": symbol_brief(&resolved.symbol),
        "resolution": resolved.resolution,
        "depth": depth,
        "counts": {
            "supertypes": up.reached.len(),
            "subtypes": down.reached.len(),
            "cycles": cycles.len(),
            "beyondDepth": {"supertypes": up.beyond, "subtypes": down.beyond},
        },
        "supertypes": list(&up),
        "subtypes": list(&down),
        "cycles": cycles_json(&cycles[..cycles.len().min(n)], &rows, ["subtype", "supertype"]),
    });
    let s = &resolved.symbol;
    let mut explanation = format!(
        "{} {} has {} supertype(s) ({} direct) and {} subtype(s) ({} direct) within depth {depth}",
        s.kind,
        s.name,
        up.reached.len(),
        up.reached.iter().filter(|r| r.depth == 1).count(),
        down.reached.len(),
        down.reached.iter().filter(|r| r.depth == 1).count(),
    );
    if !cycles.is_empty() {
        explanation.push_str(&format!("; {} cycle(s) cut", cycles.len()));
    }
    explanation.push('.');
    let inv = format!("ckb query hierarchy {id} --depth {depth}");
    let mut draft = Draft::new("hierarchy", inv, facts, explanation);
    draft.completeness = completeness(ctx, &links, [&up, &down]);
    draft.depends_on_scip = [&up, &down]
        .iter()
        .any(|w| w.reached.iter().any(|r| r.edge.source == "scip"));
    for (what, w) in [("supertypes", &up), ("subtypes", &down)] {
        let total = w.reached.len();
        draft.cut_list(what, "max-items", total, total.min(limit), "--limit");
        draft.cut_depth(
            what,
            total,
            w.beyond,
            depth,
            &format!("ckb query hierarchy {id}"),
            what,
        );
    }
    draft.cut_list(
        "cycles",
        "max-items",
        cycles.len(),
        cycles.len().min(n),
        "--max-items",
    );
    draft.trims = vec![
        Trim::new("/cycles", "cycles"),
        Trim::new("/subtypes", "subtypes"),
        Trim::new("/supertypes", "supertypes"),
    ];
    draft.items_in = (up.reached.len() + down.reached.len() + cycles.len()) as u64;
    draft.items_out =
        (up.reached.len().min(limit) + down.reached.len().min(limit) + cycles.len().min(n)) as u64;
    draft.suggest(
        format!("ckb query impact {id}"),
        "what changing it would affect",
    );
    finish(ctx, draft)
}

/// No `relationships` table: 0 (`no-relationships`). Links found: the backends' (`scip` when
/// every hop came from SCIP, else the by-name score). None found: the symbols' completeness,
/// since an absent link is only as certain as the definitions that were read.
fn completeness(ctx: &Ctx<'_>, links: &Links, walks: [&Walk; 2]) -> CompletenessInfo {
    if !links.present {
        return CompletenessInfo {
            score: 0.0,
            reason: "no-relationships".into(),
        };
    }
    let hops: Vec<&str> = walks
        .iter()
        .flat_map(|w| w.reached.iter().map(|r| r.edge.source.as_str()))
        .collect();
    if hops.is_empty() {
        return coverage::symbols(ctx.snapshot);
    }
    coverage::references(ctx.snapshot, hops.iter().all(|s| *s == "scip"))
}
