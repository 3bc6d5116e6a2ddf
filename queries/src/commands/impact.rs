//! `ckb query impact <ID|NAME> [--depth N]`: what changing a symbol would affect.
//!
//! - `visibility`: derived from the signature / modifiers when the extractor was sure
//!   (`derivedFrom: signature`), else from reference analysis (used from other modules →
//!   public; from other files of its module → internal; only its own file → private), else from
//!   naming conventions (`_x` private; Go capitals public); confidence says how sure.
//! - `directCallers` (call edges into it), `transitiveCallers` (depth 2..=N, default 3, with
//!   confidence decaying per hop, see `analysis::call_graph`), `typeDependencies` (relationships pointing at
//!   it — implementations, type definitions — and, for type-like symbols, definitions that name
//!   it without calling it), `testDependencies` (any of those, or a reference site, in a test
//!   file), `modulesAffected` (dependents per module, most first; `own` marks its module).
//! - `risk`: the shared risk model (`analysis::risk`) over visibility, direct callers, module
//!   spread and impact kind (type dependencies 1, transitive callers 0.6, direct only 0.3, none
//!   0). Each factor is listed with its value, weight and contribution.
//!
//! Lists hold at most `--max-items` entries each (orders: direct callers by confidence, calls,
//! then ID; transitive by depth, confidence, ID; type dependencies by relation, path, ID; tests
//! by depth, path, ID); `modulesAffected` at most `--max-modules`.

use std::collections::{BTreeMap, BTreeSet};

use output_schema::tables::{OccurrenceRow, RelationshipRow, SymbolRow};
use output_schema::Roles;
use serde_json::{json, Value};

use crate::analysis::call_graph::{CallGraph, Reached};
use crate::analysis::ranking::is_type_like;
use crate::analysis::risk::Risk;
use crate::commands::refs::{is_definition, occurrences_of};
use crate::envelope::answer::Answer;
use crate::envelope::budget::check_range;
use crate::envelope::facts::FileIndex;
use crate::envelope::respond::{finish, Ctx, Draft, Trim};
use crate::snapshot::coverage;
use crate::snapshot::lookup::{Lookup, Resolved};
use crate::snapshot::read::{self, Pred};
use crate::QueryError;

pub use crate::envelope::respond::DEPTH_RANGE;
/// Default depth of transitive callers.
pub const DEFAULT_DEPTH: usize = 3;

/// Everything impact-like commands compute about one symbol.
pub struct Analysis {
    /// The symbol.
    pub symbol: SymbolRow,
    /// How the input resolved.
    pub resolution: Value,
    /// Direct callers with their edges.
    pub direct: Vec<Reached>,
    /// Callers at depth 2 and more.
    pub transitive: Vec<Reached>,
    /// Callers beyond the depth (not explored).
    pub beyond: usize,
    /// (dependent ID, relation) pairs.
    pub type_deps: Vec<(String, String)>,
    /// Reference sites (definitions excluded).
    pub references: Vec<OccurrenceRow>,
    /// Every symbol row involved, by ID.
    pub symbols: BTreeMap<String, SymbolRow>,
    /// Files of the repository.
    pub files: FileIndex,
    /// The depth explored.
    pub depth: usize,
    /// Whether any fact came from SCIP.
    pub scip_backed: bool,
    /// The call graph (for callees).
    pub graph: CallGraph,
}

/// Checks a `--depth` value of an impact-like command.
pub fn depth_of(depth: Option<u64>) -> Result<usize, QueryError> {
    match depth {
        Some(d) => check_range("--depth", d, DEPTH_RANGE),
        None => Ok(DEFAULT_DEPTH),
    }
}

/// Resolves and analyses a symbol.
pub fn analyse(ctx: &Ctx<'_>, input: &str, depth: usize) -> Result<Analysis, QueryError> {
    let lookup = Lookup::new(ctx.snapshot);
    let Resolved {
        symbol, resolution, ..
    } = lookup.resolve(input)?;
    analyse_resolved(ctx, &lookup, symbol, resolution, depth)
}

/// Analyses an already resolved symbol.
pub fn analyse_resolved(
    ctx: &Ctx<'_>,
    lookup: &Lookup<'_>,
    symbol: SymbolRow,
    resolution: Value,
    depth: usize,
) -> Result<Analysis, QueryError> {
    let id = symbol.stable_id.clone();
    let graph = CallGraph::load(ctx)?;
    let (reached, beyond) = graph.callers_within(&id, depth);
    let (direct, transitive): (Vec<Reached>, Vec<Reached>) =
        reached.into_iter().partition(|r| r.depth == 1);
    let rels: Vec<RelationshipRow> =
        read::rows_where(ctx.snapshot, "to_id", &Pred::Eq(id.to_string()))?.unwrap_or_default();
    let references: Vec<OccurrenceRow> = occurrences_of(ctx, &id)?
        .into_iter()
        .filter(|o| !is_definition(o))
        .collect();
    let mut type_deps: BTreeSet<(String, String)> = rels
        .iter()
        .filter(|r| {
            r.from_id != id && matches!(r.kind.as_str(), "implementation" | "type_definition")
        })
        .map(|r| (r.from_id.clone(), r.kind.clone()))
        .collect();
    if is_type_like(&symbol.kind) {
        for o in &references {
            if o.roles.contains(Roles::CALL) {
                continue;
            }
            if let Some(enc) = &o.enclosing_symbol_id {
                if enc != &id && !type_deps.iter().any(|(d, _)| d == enc) {
                    type_deps.insert((enc.to_string(), "type-usage".into()));
                }
            }
        }
    }
    let mut ids: BTreeSet<String> = direct
        .iter()
        .chain(&transitive)
        .map(|r| r.id.clone())
        .collect();
    ids.extend(type_deps.iter().map(|(d, _)| d.clone()));
    let mut symbols: BTreeMap<String, SymbolRow> = lookup
        .symbols_by_id(&ids)?
        .into_iter()
        .map(|s| (s.stable_id.to_string(), s))
        .collect();
    symbols.insert(id.to_string(), symbol.clone());
    let files = FileIndex::load(ctx.snapshot)?;
    let scip_backed = symbol.source == "scip"
        || references.iter().any(|o| o.source == "scip")
        || rels.iter().any(|r| r.source == "scip");
    Ok(Analysis {
        symbol,
        resolution,
        direct,
        transitive,
        beyond,
        type_deps: type_deps.into_iter().collect(),
        references,
        symbols,
        files,
        depth,
        scip_backed,
        graph,
    })
}

/// The derived visibility of the analysed symbol.
pub fn visibility(a: &Analysis) -> Value {
    let s = &a.symbol;
    if s.visibility != "unknown" && matches!(s.visibility_source.as_str(), "signature" | "modifier")
    {
        return json!({
            "value": s.visibility,
            "confidence": s.visibility_confidence,
            "derivedFrom": "signature",
            "evidence": format!("declared ({})", s.visibility_source),
        });
    }
    let own = a.files.module_of(&s.path);
    let mut other_modules: BTreeSet<String> = BTreeSet::new();
    let mut other_files = false;
    for o in &a.references {
        let m = a.files.module_of(&o.path);
        if m != own {
            other_modules.insert(m);
        } else if o.path != s.path {
            other_files = true;
        }
    }
    if !a.references.is_empty() {
        let (value, conf, evidence) = if !other_modules.is_empty() {
            (
                "public",
                0.8,
                format!("referenced from {} other module(s)", other_modules.len()),
            )
        } else if other_files {
            (
                "internal",
                0.6,
                "referenced only from its own module".to_string(),
            )
        } else {
            (
                "private",
                0.6,
                "referenced only from its own file".to_string(),
            )
        };
        return json!({"value": value, "confidence": conf, "derivedFrom": "reference-analysis", "evidence": evidence});
    }
    if s.visibility_source == "naming" && s.visibility != "unknown" {
        return json!({"value": s.visibility, "confidence": s.visibility_confidence, "derivedFrom": "naming", "evidence": "naming convention (extractor)"});
    }
    let go = s.language.as_deref() == Some("go");
    let (value, conf, evidence) = if s.name.starts_with('_') {
        ("private", 0.5, "leading underscore")
    } else if go && s.name.chars().next().is_some_and(char::is_uppercase) {
        ("public", 0.9, "Go exported name (capitalised)")
    } else if go {
        ("private", 0.9, "Go unexported name (lower case)")
    } else {
        (
            s.visibility.as_str(),
            0.3,
            "no modifier, no references, no naming convention",
        )
    };
    json!({"value": value, "confidence": conf, "derivedFrom": "naming", "evidence": evidence})
}

fn visibility_factor(v: &str) -> f64 {
    match v {
        "public" => 1.0,
        "protected" => 0.7,
        "internal" | "unknown" => 0.5,
        _ => 0.2,
    }
}

/// Modules of every dependent, with counts (most first, then module).
pub fn modules_affected(a: &Analysis) -> Vec<(String, usize)> {
    let mut counts: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut add = |path: &str, key: String| {
        counts
            .entry(a.files.module_of(path))
            .or_default()
            .insert(key);
    };
    for r in a.direct.iter().chain(&a.transitive) {
        if let Some(s) = a.symbols.get(&r.id) {
            add(&s.path, r.id.clone());
        }
    }
    for (d, _) in &a.type_deps {
        if let Some(s) = a.symbols.get(d) {
            add(&s.path, d.clone());
        }
    }
    for o in &a.references {
        add(&o.path, format!("file:{}", o.path));
    }
    let mut out: Vec<(String, usize)> = counts.into_iter().map(|(m, s)| (m, s.len())).collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

/// Risk of changing the analysed symbol, in the shared model (`analysis::risk`).
pub fn risk(a: &Analysis, visibility: &Value, modules: &[(String, usize)]) -> Risk {
    let own = a.files.module_of(&a.symbol.path);
    let vis = visibility["value"].as_str().unwrap_or("unknown");
    let other_modules = modules.iter().filter(|(m, _)| m != &own).count();
    let kind = if !a.type_deps.is_empty() {
        (1.0, "type dependencies")
    } else if !a.transitive.is_empty() {
        (0.6, "transitive callers")
    } else if !a.direct.is_empty() {
        (0.3, "direct callers only")
    } else {
        (0.0, "no dependents found")
    };
    Risk::weighted(vec![
        ("visibility", visibility_factor(vis), 0.25, vis.to_string()),
        (
            "directCallers",
            a.direct.len() as f64 / 10.0,
            0.30,
            format!("{} direct caller(s)", a.direct.len()),
        ),
        (
            "moduleSpread",
            other_modules as f64 / 5.0,
            0.25,
            format!("{other_modules} other module(s) affected"),
        ),
        ("impactKind", kind.0, 0.20, kind.1.to_string()),
    ])
}

/// A caller as a list item.
pub fn reached_json(a: &Analysis, r: &Reached) -> Value {
    let s = a.symbols.get(&r.id);
    json!({
        "id": r.id,
        "name": s.map(|s| s.name.clone()),
        "kind": s.map(|s| s.kind.clone()),
        "path": s.map(|s| s.path.clone()),
        "line": s.map(|s| s.start_line),
        "module": s.map(|s| a.files.module_of(&s.path)),
        "depth": r.depth,
        "confidence": r.confidence,
        "calls": r.calls,
        "via": (r.depth > 1).then(|| r.via.clone()),
        "isTest": s.map(|s| a.files.is_test(&s.path)),
    })
}

/// Test dependencies: (json, depth, path, id) sorted.
pub fn test_dependencies(a: &Analysis) -> Vec<Value> {
    let mut out: Vec<(usize, String, String, Value)> = Vec::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for r in a.direct.iter().chain(&a.transitive) {
        if let Some(s) = a.symbols.get(&r.id) {
            if a.files.is_test(&s.path) && seen.insert(r.id.clone()) {
                out.push((
                    r.depth,
                    s.path.to_string(),
                    r.id.clone(),
                    json!({"id": r.id, "name": s.name, "path": s.path, "line": s.start_line,
                           "via": if r.depth == 1 { "direct-caller" } else { "transitive-caller" },
                           "depth": r.depth, "confidence": r.confidence}),
                ));
            }
        }
    }
    for (d, rel) in &a.type_deps {
        if let Some(s) = a.symbols.get(d) {
            if a.files.is_test(&s.path) && seen.insert(d.clone()) {
                out.push((
                    1,
                    s.path.to_string(),
                    d.clone(),
                    json!({"id": d, "name": s.name, "path": s.path,
                    "line": s.start_line, "via": rel, "depth": 1, "confidence": 1.0}),
                ));
            }
        }
    }
    for o in &a.references {
        if !a.files.is_test(&o.path) {
            continue;
        }
        let key = o
            .enclosing_symbol_id
            .as_deref()
            .map(String::from)
            .unwrap_or_else(|| format!("file:{}", o.path));
        if seen.insert(key.to_string()) {
            out.push((
                1,
                o.path.to_string(),
                key.to_string(),
                json!({"id": o.enclosing_symbol_id, "path": o.path,
                "line": o.line, "via": "reference", "depth": 1,
                "confidence": if o.source == "scip" { 1.0 } else { 0.7 }}),
            ));
        }
    }
    out.sort_by(|x, y| x.0.cmp(&y.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
    out.into_iter().map(|x| x.3).collect()
}

/// Type dependencies as list items.
pub fn type_dependencies(a: &Analysis) -> Vec<Value> {
    let mut v: Vec<(String, String, String, Value)> = a
        .type_deps
        .iter()
        .map(|(d, rel)| {
            let s = a.symbols.get(d);
            let path = s.map(|s| s.path.to_string()).unwrap_or_default();
            (
                rel.clone(),
                path.clone(),
                d.clone(),
                json!({"id": d, "relation": rel, "name": s.map(|s| s.name.clone()),
                       "kind": s.map(|s| s.kind.clone()), "path": s.map(|_| path.clone()),
                       "line": s.map(|s| s.start_line)}),
            )
        })
        .collect();
    v.sort_by(|x, y| x.0.cmp(&y.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
    v.into_iter().map(|x| x.3).collect()
}

fn sort_direct(a: &Analysis) -> Vec<&Reached> {
    let mut d: Vec<&Reached> = a.direct.iter().collect();
    d.sort_by(|x, y| {
        y.confidence
            .total_cmp(&x.confidence)
            .then(y.calls.cmp(&x.calls))
            .then(x.id.cmp(&y.id))
    });
    d
}

/// Runs `impact`.
pub fn impact(ctx: &Ctx<'_>, input: &str, depth: Option<u64>) -> Result<Answer, QueryError> {
    let depth = depth_of(depth)?;
    let a = analyse(ctx, input, depth)?;
    let n = ctx.budget.items;
    let vis = visibility(&a);
    let modules = modules_affected(&a);
    let risk = risk(&a, &vis, &modules);
    let own = a.files.module_of(&a.symbol.path);
    let direct = sort_direct(&a);
    let tests = test_dependencies(&a);
    let types = type_dependencies(&a);
    let facts = json!({
        "symbol": crate::envelope::facts::symbol_brief(&a.symbol),
        "resolution": a.resolution,
        "depth": depth,
        "visibility": vis,
        "counts": {
            "directCallers": a.direct.len(),
            "transitiveCallers": a.transitive.len(),
            "typeDependencies": types.len(),
            "testDependencies": tests.len(),
            "references": a.references.len(),
            "modulesAffected": modules.len(),
        },
        "directCallers": direct.iter().take(n).map(|r| reached_json(&a, r)).collect::<Vec<_>>(),
        "transitiveCallers": a.transitive.iter().take(n).map(|r| reached_json(&a, r)).collect::<Vec<_>>(),
        "typeDependencies": types.iter().take(n).cloned().collect::<Vec<_>>(),
        "testDependencies": tests.iter().take(n).cloned().collect::<Vec<_>>(),
        "modulesAffected": modules.iter().take(ctx.budget.modules)
            .map(|(m, c)| json!({"module": m, "dependents": c, "own": m == &own}))
            .collect::<Vec<_>>(),
        "risk": risk,
    });
    let explanation = format!(
        "Changing {} {} ({} visibility, from {}) affects {} direct caller(s), {} transitive caller(s) within depth {depth}, {} type dependent(s) and {} test(s) across {} module(s); risk {}.",
        a.symbol.kind,
        a.symbol.name,
        vis["value"].as_str().unwrap_or(""),
        vis["derivedFrom"].as_str().unwrap_or(""),
        a.direct.len(),
        a.transitive.len(),
        types.len(),
        tests.len(),
        modules.len(),
        risk.summary(),
    );
    let id = &a.symbol.stable_id;
    let inv = format!("ckb query impact {id} --depth {depth}");
    let mut draft = Draft::new("impact", inv.clone(), facts, explanation);
    draft.completeness = coverage::references(ctx.snapshot, a.scip_backed);
    if !a.graph.present {
        draft.completeness.score = 0.0;
        draft.completeness.reason = "no-call-graph".into();
    }
    draft.depends_on_scip = a.scip_backed;
    for (what, total) in [
        ("directCallers", a.direct.len()),
        ("transitiveCallers", a.transitive.len()),
        ("typeDependencies", types.len()),
        ("testDependencies", tests.len()),
    ] {
        draft.cut_list(what, "max-items", total, total.min(n), "--max-items");
    }
    draft.cut_list(
        "modulesAffected",
        "max-modules",
        modules.len(),
        modules.len().min(ctx.budget.modules),
        "--max-modules",
    );
    draft.cut_depth(
        "transitiveCallers",
        a.transitive.len(),
        a.beyond,
        depth,
        &format!("ckb query impact {id}"),
        "caller(s)",
    );
    draft.trims = Trim::lists(&[
        "modulesAffected",
        "transitiveCallers",
        "testDependencies",
        "typeDependencies",
        "directCallers",
    ]);
    draft.items(
        a.direct.len() + a.transitive.len() + types.len() + tests.len() + modules.len(),
        a.direct.len().min(n)
            + a.transitive.len().min(n)
            + types.len().min(n)
            + tests.len().min(n)
            + modules.len().min(ctx.budget.modules),
    );
    draft.suggest_query("affected-tests", id, "the tests to run after the change");
    draft.suggest_query(
        "prepare-change",
        id,
        "a change plan with co-change partners",
    );
    finish(ctx, draft)
}
