//! `ckb query prepare-change <ID|PATH> [--change-type modify|rename|delete|extract] [--depth N]`:
//! a change plan — who depends on the target, how far the change ripples, which tests to run,
//! which files usually change with it, how risky it is and what to do.
//!
//! - `directDependents`: for a symbol, its direct callers (`caller`), type dependents
//!   (`implementation`, `type_definition`, `type-usage`) and other files referencing it
//!   (`reference`); for a file or folder, files outside it that reference its symbols
//!   (`reference`) or import it (`import`). Ordered by kind (caller, type, reference, import),
//!   then path, then ID.
//! - `transitiveImpact`: callers at depth 2..=N (default 3) outside the target, as in `impact`.
//! - `affectedTests`: as `affected-tests`. `cochange`: co-change partners (degree first).
//! - `risk`: the shared risk model (`analysis::risk`) with the factors of `impact` (for a path:
//!   visibility = share of public symbols, direct = dependent files / 10, spread = other modules / 5, kind = transitive 0.6 / direct
//!   0.3 / none 0) and a change-type factor multiplying the score (modify 1, rename 0.9, extract
//!   0.8, delete 1.2; capped at 1). `suggestions` are concrete steps for the change type.
//!   Each list holds at most `--max-items` entries.
//!
//! Size: `prepare_change` (~155 lines) is the shared ending of both plans: risk, tests, co-change and the answer in print order.

use std::collections::{BTreeMap, BTreeSet};

use output_schema::tables::{CochangeRow, ImportRow, SymbolRow};
use output_schema::ErrorCode;
use serde_json::{json, Value};

use crate::analysis::call_graph::CallGraph;
use crate::analysis::risk::Risk;
use crate::commands::affected_tests::{collect, symbols_in, tests_json};
use crate::commands::hotspots::{partner_json, partners, strongest_first};
use crate::commands::impact::{self, depth_of, reached_json};
use crate::commands::refs::{is_definition, occurrences_of_many};
use crate::envelope::answer::Answer;
use crate::envelope::facts::FileIndex;
use crate::envelope::respond::{finish, shell_quote, Ctx, Draft, Trim};
use crate::snapshot::coverage;
use crate::snapshot::lookup::{Lookup, Resolved};
use crate::snapshot::read::{self, is_path_or_below};
use crate::snapshot::target::{target, Target};
use crate::QueryError;

/// Change types.
pub const CHANGE_TYPES: [&str; 4] = ["modify", "rename", "delete", "extract"];

fn multiplier(change: &str) -> f64 {
    match change {
        "rename" => 0.9,
        "extract" => 0.8,
        "delete" => 1.2,
        _ => 1.0,
    }
}

/// The path risk: the factors of `impact`, measured over the files of a path.
fn path_risk(vis: f64, direct: usize, other_modules: usize, kind: (f64, &str)) -> Risk {
    Risk::weighted(vec![
        (
            "visibility",
            vis,
            0.25,
            format!("{}% public symbols", (vis * 100.0).round()),
        ),
        (
            "directDependents",
            direct as f64 / 10.0,
            0.30,
            format!("{direct} dependent file(s)"),
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

fn kind_rank(k: &str) -> u8 {
    match k {
        "caller" => 0,
        "implementation" | "type_definition" | "type-usage" => 1,
        "reference" => 2,
        _ => 3,
    }
}

fn sort_dependents(v: &mut [Dependent]) {
    v.sort_by(|a, b| {
        kind_rank(&a.0)
            .cmp(&kind_rank(&b.0))
            .then(a.1.cmp(&b.1))
            .then(a.2.cmp(&b.2))
    });
}

/// A dependent: (kind, path, ID, its JSON).
type Dependent = (String, String, String, Value);

/// A file that depends on the target through `count` reference sites (`kind` `reference`) or
/// imports (`import`).
fn file_dependent(kind: &str, path: &str, count: usize, files: &FileIndex) -> Dependent {
    let counted = if kind == "import" {
        "imports"
    } else {
        "references"
    };
    (
        kind.into(),
        path.to_string(),
        String::new(),
        json!({"dependency": kind, "path": path, counted: count,
               "module": files.module_of(path), "isTest": files.is_test(path)}),
    )
}

/// What both plans read: the call, the snapshot's lookups, the change type and the depth.
#[derive(Clone, Copy)]
struct Inputs<'a> {
    ctx: &'a Ctx<'a>,
    lookup: &'a Lookup<'a>,
    files: &'a FileIndex,
    change: &'a str,
    depth: usize,
}

impl<'a> Inputs<'a> {
    /// Its fields, for a plan to use by name.
    fn parts(&self) -> (&'a Ctx<'a>, &'a Lookup<'a>, &'a FileIndex, &'a str, usize) {
        (self.ctx, self.lookup, self.files, self.change, self.depth)
    }
}

/// What the symbol or path branch found, before the change type and budgets apply.
struct Plan {
    target_json: Value,
    transitive_total: usize,
    transitive_json: Vec<Value>,
    risk: Risk,
    tests: (usize, Vec<Value>),
    partner_rows: Vec<(String, CochangeRow)>,
    inv_arg: String,
    refs_total: usize,
    ref_files: usize,
    scip_backed: bool,
    dependents: Vec<Dependent>,
    suggestions: Vec<String>,
}

/// The plan for a symbol: its callers, type dependents and referencing files, as `impact` sees them.
fn plan_symbol(inputs: &Inputs<'_>, r: &Resolved) -> Result<Plan, QueryError> {
    let (ctx, lookup, files, change, depth) = inputs.parts();
    let n = ctx.budget.items;
    let mut dependents: Vec<Dependent> = Vec::new();
    let mut suggestions: Vec<String> = Vec::new();
    let a = impact::analyse_resolved(ctx, lookup, r.symbol.clone(), r.resolution.clone(), depth)?;
    let s = &a.symbol;
    for d in &a.direct {
        let sym = a.symbols.get(&d.id);
        let path = sym.map(|s| s.path.clone()).unwrap_or_default();
        let mut v = reached_json(&a, d);
        v["dependency"] = json!("caller");
        dependents.push(("caller".into(), path.to_string(), d.id.clone(), v));
    }
    for v in impact::type_dependencies(&a) {
        let rel = v["relation"].as_str().unwrap_or("").to_string();
        let path = v["path"].as_str().unwrap_or("").to_string();
        let id = v["id"].as_str().unwrap_or("").to_string();
        let mut v = v;
        v["dependency"] = json!(rel.clone());
        dependents.push((rel, path, id, v));
    }
    let covered: BTreeSet<String> = dependents.iter().map(|d| d.1.clone()).collect();
    let mut per_file: BTreeMap<&str, usize> = BTreeMap::new();
    for o in &a.references {
        *per_file.entry(o.path.as_str()).or_default() += 1;
    }
    let ref_files = per_file.len();
    let refs_total = a.references.len();
    for (p, c) in &per_file {
        if !covered.contains(*p) && *p != s.path {
            dependents.push(file_dependent("reference", p, *c, &a.files));
        }
    }
    let transitive_total = a.transitive.len();
    let transitive_json = a
        .transitive
        .iter()
        .take(n)
        .map(|r| reached_json(&a, r))
        .collect::<Vec<_>>();
    let vis = impact::visibility(&a);
    let mods = impact::modules_affected(&a);
    let risk = impact::risk(&a, &vis, &mods);
    let c = collect(ctx, lookup, files, std::slice::from_ref(s), &[], depth)?;
    let scip_backed = a.scip_backed || c.scip_backed;
    let tests = (c.files.len(), tests_json(&c, files, n));
    let partner_rows = partners(ctx, &s.path)?;
    let public = vis["value"] == "public";
    match change {
        "rename" => {
            suggestions.push(format!(
                "update {refs_total} reference site(s) in {ref_files} file(s): ckb query refs {}",
                s.stable_id
            ));
            suggestions.push(
                "the next snapshot records the rename as an alias, so saved IDs keep resolving"
                    .into(),
            );
            if public {
                suggestions.push(
                    "it is public: keep a deprecated alias for callers outside the repository"
                        .into(),
                );
            }
        }
        "delete" => {
            if refs_total == 0 && a.direct.is_empty() {
                suggestions.push("no references or callers were found: it can be deleted (check completeness before trusting this)".into());
            } else {
                suggestions.push(format!(
                    "remove or redirect {} caller(s) and {refs_total} reference site(s) first",
                    a.direct.len()
                ));
            }
            suggestions.push(
                "the next snapshot records a tombstone: saved IDs will report SYMBOL_DELETED"
                    .into(),
            );
        }
        "extract" => {
            suggestions.push(
                "keep the original as a thin delegate so callers do not change in the same commit"
                    .into(),
            );
            suggestions.push("co-change partners show where related code already lives".into());
        }
        _ => {
            if public {
                suggestions.push("it is public: keep the signature compatible, or update every caller in the same change".into());
            }
            suggestions.push(format!(
                "review the {} direct caller(s) in {} module(s)",
                a.direct.len(),
                mods.len()
            ));
        }
    }
    Ok(Plan {
        target_json: json!({"kind": "symbol", "symbol": crate::envelope::facts::symbol_brief(s),
                             "resolution": a.resolution, "visibility": vis}),
        transitive_total,
        transitive_json,
        risk,
        tests,
        partner_rows,
        inv_arg: s.stable_id.to_string(),
        refs_total,
        ref_files,
        scip_backed,
        dependents,
        suggestions,
    })
}

/// Callers at depth 2..=`depth` of the symbols `ids` that lie outside `paths`: their count and
/// the first `n` as list items (depth, then confidence, then ID).
fn transitive_outside(
    ctx: &Ctx<'_>,
    lookup: &Lookup<'_>,
    ids: &BTreeSet<String>,
    paths: &BTreeSet<String>,
    depth: usize,
    n: usize,
) -> Result<(usize, Vec<Value>), QueryError> {
    let graph = CallGraph::load(ctx)?;
    let mut reached: BTreeMap<String, (usize, f64)> = BTreeMap::new();
    for id in ids {
        for r in graph.callers_within(id, depth).0 {
            if r.depth < 2 || ids.contains(&r.id) {
                continue;
            }
            let e = reached
                .entry(r.id.clone())
                .or_insert((r.depth, r.confidence));
            if r.depth < e.0 || (r.depth == e.0 && r.confidence > e.1) {
                *e = (r.depth, r.confidence);
            }
        }
    }
    let rows: BTreeMap<String, SymbolRow> = lookup
        .symbols_by_id(&reached.keys().cloned().collect())?
        .into_iter()
        .map(|s| (s.stable_id.to_string(), s))
        .collect();
    let mut tr: Vec<(usize, f64, String)> = reached
        .iter()
        .filter(|(id, _)| {
            rows.get(*id)
                .is_some_and(|s| !paths.contains(s.path.as_str()))
        })
        .map(|(id, (d, c))| (*d, *c, id.clone()))
        .collect();
    tr.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2)));
    let shown = tr
        .iter()
        .take(n)
        .map(|(d, c, id)| {
            let s = rows.get(id);
            json!({"id": id, "name": s.map(|s| s.name.clone()), "path": s.map(|s| s.path.clone()),
                   "line": s.map(|s| s.start_line), "depth": d, "confidence": c})
        })
        .collect();
    Ok((tr.len(), shown))
}

/// The plan for a file or folder: files outside it that reference its symbols or import it.
fn plan_path(inputs: &Inputs<'_>, p: &str, folder: bool) -> Result<Plan, QueryError> {
    let (ctx, lookup, files, change, depth) = inputs.parts();
    let n = ctx.budget.items;
    let mut dependents: Vec<Dependent> = Vec::new();
    let mut suggestions: Vec<String> = Vec::new();
    let paths: BTreeSet<String> = files
        .iter()
        .filter(|(f, _)| is_path_or_below(f, p))
        .map(|(f, _)| f.clone())
        .collect();
    let syms: Vec<SymbolRow> = symbols_in(ctx, p, folder)?;
    let ids: BTreeSet<String> = syms.iter().map(|s| s.stable_id.to_string()).collect();
    let occ = occurrences_of_many(ctx, &ids)?;
    let mut per_file: BTreeMap<String, usize> = BTreeMap::new();
    for o in occ
        .iter()
        .filter(|o| !is_definition(o) && !paths.contains(o.path.as_str()))
    {
        *per_file.entry(o.path.to_string()).or_default() += 1;
    }
    let refs_total = per_file.values().sum();
    let imports: Vec<ImportRow> = read::all_rows(ctx.snapshot)?.unwrap_or_default();
    let mut importers: BTreeMap<String, usize> = BTreeMap::new();
    for i in &imports {
        if i.target.as_deref().is_some_and(|t| paths.contains(t)) && !paths.contains(&i.path) {
            *importers.entry(i.path.clone()).or_default() += 1;
        }
    }
    let mut dep_files: BTreeSet<String> = per_file.keys().cloned().collect();
    dep_files.extend(importers.keys().cloned());
    let ref_files = dep_files.len();
    for (f, c) in &per_file {
        dependents.push(file_dependent("reference", f, *c, files));
    }
    for (f, c) in &importers {
        dependents.push(file_dependent("import", f, *c, files));
    }
    let (transitive_total, transitive_json) =
        transitive_outside(ctx, lookup, &ids, &paths, depth, n)?;
    let public = syms.iter().filter(|s| s.visibility == "public").count();
    let vis = if syms.is_empty() {
        0.5
    } else {
        public as f64 / syms.len() as f64
    };
    let own: BTreeSet<String> = paths.iter().map(|q| files.module_of(q)).collect();
    let others: BTreeSet<String> = dep_files
        .iter()
        .map(|q| files.module_of(q))
        .filter(|m| !own.contains(m))
        .collect();
    let kind = if transitive_total > 0 {
        (0.6, "transitive callers")
    } else if !dep_files.is_empty() {
        (0.3, "direct dependents only")
    } else {
        (0.0, "no dependents found")
    };
    let risk = path_risk(vis, dep_files.len(), others.len(), kind);
    let pv: Vec<String> = paths.iter().cloned().collect();
    let c = collect(ctx, lookup, files, &syms, &pv, depth)?;
    let scip_backed = c.scip_backed || syms.iter().any(|s| s.source == "scip");
    let tests = (c.files.len(), tests_json(&c, files, n));
    let mut all_partners = Vec::new();
    for q in pv.iter().take(50) {
        for (o, r) in partners(ctx, q)? {
            if !paths.contains(&o) {
                all_partners.push((o, r));
            }
        }
    }
    strongest_first(&mut all_partners);
    let partner_rows = all_partners;
    match change {
        "rename" => suggestions.push(format!(
            "update {} importing file(s) and {refs_total} reference site(s)",
            importers.len()
        )),
        "delete" => {
            if dep_files.is_empty() {
                suggestions.push("nothing outside it references or imports it: it can be deleted (check completeness)".into());
            } else {
                suggestions.push(format!(
                    "{} file(s) still depend on it: move or remove those uses first",
                    dep_files.len()
                ));
            }
        }
        "extract" => suggestions.push(
            "move symbols with their co-change partners to keep related changes together".into(),
        ),
        _ => suggestions.push(format!(
            "review {} dependent file(s) in {} other module(s)",
            dep_files.len(),
            others.len()
        )),
    }
    Ok(Plan {
        target_json: json!({"kind": if folder { "folder" } else { "file" }, "path": p,
                             "symbols": syms.len()}),
        transitive_total,
        transitive_json,
        risk,
        tests,
        partner_rows,
        inv_arg: shell_quote(p),
        refs_total,
        ref_files,
        scip_backed,
        dependents,
        suggestions,
    })
}

/// Runs `prepare-change`.
pub fn prepare_change(
    ctx: &Ctx<'_>,
    input: &str,
    change: Option<&str>,
    depth: Option<u64>,
) -> Result<Answer, QueryError> {
    let change = QueryError::one_of("--change-type", change, "modify", &CHANGE_TYPES)?;
    let depth = depth_of(depth)?;
    let n = ctx.budget.items;
    let lookup = Lookup::new(ctx.snapshot);
    let files = FileIndex::load(ctx.snapshot)?;
    let t = target(ctx.snapshot, &lookup, &files, input, false, true)?;
    let inputs = Inputs {
        ctx,
        lookup: &lookup,
        files: &files,
        change,
        depth,
    };

    let plan = match &t {
        Target::Symbol(r) => plan_symbol(&inputs, r)?,
        Target::File(p) | Target::Folder(p) => {
            plan_path(&inputs, p, matches!(t, Target::Folder(_)))?
        }
        Target::Module(_) => {
            return Err(QueryError::new(
                ErrorCode::InternalError,
                "modules are not a prepare-change target",
                "report this as a bug",
            ))
        }
    };
    let Plan {
        target_json,
        transitive_total,
        transitive_json,
        risk,
        tests,
        partner_rows,
        inv_arg,
        refs_total,
        ref_files,
        scip_backed,
        mut dependents,
        mut suggestions,
    } = plan;
    let risk = risk.times("changeType", multiplier(change), change);
    if tests.0 > 0 {
        suggestions.push(format!("run the {} affected test file(s)", tests.0));
    } else {
        suggestions.push("no test covers it: add one before changing it".into());
    }
    if let Some((o, r)) = partner_rows.first() {
        if r.degree >= 0.5 {
            suggestions.push(format!("{o} changed together with it in {} commit(s): check whether it needs the same change", r.shared_commits));
        }
    }
    sort_dependents(&mut dependents);
    let dep_total = dependents.len();
    let own_path = match &t {
        Target::Symbol(r) => r.symbol.path.to_string(),
        Target::File(p) | Target::Folder(p) => p.clone(),
        Target::Module(m) => m.root.clone(),
    };
    let cochange: Vec<Value> = partner_rows
        .iter()
        .take(ctx.budget.per_module)
        .map(|(o, r)| partner_json(&own_path, o, r, &files))
        .collect();
    let label = match &t {
        Target::Symbol(r) => format!("{} {}", r.symbol.kind, r.symbol.name),
        Target::File(p) | Target::Folder(p) => p.clone(),
        Target::Module(m) => m.module_id.clone(),
    };
    let explanation = format!(
        "{change} of {label}: {dep_total} direct dependent(s), {transitive_total} transitive caller(s), {} affected test file(s), {} co-change partner(s); risk {}.",
        tests.0,
        partner_rows.len(),
        risk.summary(),
    );
    let facts = json!({
        "target": target_json,
        "changeType": change,
        "depth": depth,
        "directDependents": dependents.iter().take(n).map(|d| d.3.clone()).collect::<Vec<_>>(),
        "transitiveImpact": {"total": transitive_total, "callers": transitive_json},
        "affectedTests": tests.1,
        "cochange": cochange,
        "risk": risk,
        "suggestions": suggestions,
        "counts": {"directDependents": dep_total, "referenceSites": refs_total, "dependentFiles": ref_files,
                   "transitiveCallers": transitive_total, "affectedTests": tests.0, "cochangePartners": partner_rows.len()},
    });
    let inv = format!("ckb query prepare-change {inv_arg} --change-type {change} --depth {depth}");
    let mut draft = Draft::new("prepare-change", inv, facts, explanation);
    let refs_c = coverage::references(ctx.snapshot, scip_backed);
    let hist = coverage::history(ctx.snapshot);
    draft.completeness = if hist.score < refs_c.score && ctx.snapshot.has_table("cochange") {
        hist
    } else {
        refs_c
    };
    draft.depends_on_scip = scip_backed;
    draft.cut_list(
        "directDependents",
        "max-items",
        dep_total,
        dep_total.min(n),
        "--max-items",
    );
    draft.cut_list(
        "transitiveImpact.callers",
        "max-items",
        transitive_total,
        transitive_total.min(n),
        "--max-items",
    );
    draft.cut_list(
        "affectedTests",
        "max-items",
        tests.0,
        tests.0.min(n),
        "--max-items",
    );
    draft.cut_list(
        "cochange",
        "max-per-module",
        partner_rows.len(),
        cochange.len(),
        "--max-per-module",
    );
    draft.trims = Trim::lists(&[
        "cochange",
        "transitiveImpact.callers",
        "affectedTests",
        "directDependents",
    ]);
    draft.items(
        dep_total + transitive_total + tests.0 + partner_rows.len(),
        dep_total.min(n) + transitive_total.min(n) + tests.0.min(n) + cochange.len(),
    );
    draft.suggest_query("affected-tests", &inv_arg, "the tests to run");
    finish(ctx, draft)
}
