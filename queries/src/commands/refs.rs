//! `ckb query refs <ID|NAME> [--scope MODULE] [--limit N]`: where a symbol is used, grouped by
//! module and file.
//!
//! Size: `refs` (~175 lines) is the hot path's one pass from sites to answer.
//!
//! Sites are the symbol's `occurrences` that are not definitions (definitions are counted
//! apart). Order: modules by reference count (most first, then module ID), files inside a
//! module likewise (then path), sites by line and column. Budgets: at most `--max-modules`
//! modules, `symbolsPerModule` files per module, and `--limit` (default: the items budget) sites
//! in all, filled in that order; counts (`total`, `files`, per module and per file) always cover
//! everything. Each site names its enclosing definition when known. Completeness is `scip` when
//! SCIP found the sites, else `by-name` (see `coverage`).
//!
//! Without SCIP, resolution is by name and leaves a site unresolved when several definitions
//! share the name (see the syntax stage's `resolve.rs`). For such symbols the answer adds
//! `unresolved`: the sites whose name is the symbol's, in files of the same language family,
//! that resolution left without a target — candidates, not facts, with the number of definitions
//! sharing the name so a reader can judge them. Files most sites first (then path), at most the
//! per-module budget of files and of lines per file.
//!
//! Data access: `occurrences` filtered on `symbol_id` (only that column is scanned; of the other
//! columns, those a site shows), then the `files` rows of the paths found and the names of the
//! enclosing definitions shown; the symbol itself is read in brief (`Lookup::brief`);
//! for by-name symbols the same pass over `occurrences` also keeps the unresolved rows with the
//! symbol's name (`read::rows_where_or_unset`), and `symbols` is read by `name`.

use std::collections::{BTreeMap, BTreeSet};

use output_schema::tables::OccurrenceRow;
use output_schema::Roles;
use serde_json::{json, Value};

use crate::envelope::answer::Answer;
use crate::envelope::facts::{symbol_brief, FileIndex};
use crate::envelope::respond::{finish, shell_quote, Ctx, Draft, Trim};
use crate::snapshot::coverage;
use crate::snapshot::lookup::{Lookup, Resolved};
use crate::snapshot::read::{self, is_path_or_below, Pred};
use crate::QueryError;

/// A file's sites, grouped: (path, sites).
type FileSites<'a> = (&'a str, Vec<&'a OccurrenceRow>);
/// A module's files: (module, references, files).
type ModuleFiles<'a> = (String, usize, Vec<FileSites<'a>>);
/// A file as shown: (path, references, is test, sites kept).
type ShownFile<'a> = (&'a str, usize, bool, Vec<&'a OccurrenceRow>);

/// What `refs` was asked.
#[derive(Clone, Debug, Default)]
pub struct RefsArgs {
    /// Stable ID or name.
    pub input: String,
    /// Module ID or path to stay within.
    pub scope: Option<String>,
    /// Sites to return.
    pub limit: Option<u64>,
}

/// The columns of `occurrences` that `refs` reads for a symbol SCIP resolved: a site's place,
/// roles, enclosing definition and source (not its name, which is the symbol's, nor its end).
const SITE_COLUMNS: [&str; 7] = [
    "symbol_id",
    "path",
    "line",
    "col",
    "roles",
    "enclosing_symbol_id",
    "source",
];

/// Whether an occurrence defines its symbol (rather than using it).
pub fn is_definition(o: &OccurrenceRow) -> bool {
    o.roles.contains(Roles::DEFINITION) || o.roles.contains(Roles::FORWARD_DEFINITION)
}

/// Every occurrence of a symbol ID (definitions included), in stored order (path, line, col).
pub fn occurrences_of(ctx: &Ctx<'_>, id: &str) -> Result<Vec<OccurrenceRow>, QueryError> {
    Ok(read::rows_where(ctx.snapshot, "symbol_id", &Pred::Eq(id.to_string()))?.unwrap_or_default())
}

/// Occurrences of several symbol IDs.
pub fn occurrences_of_many(
    ctx: &Ctx<'_>,
    ids: &BTreeSet<String>,
) -> Result<Vec<OccurrenceRow>, QueryError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    Ok(read::rows_where(ctx.snapshot, "symbol_id", &Pred::In(ids.clone()))?.unwrap_or_default())
}

/// A reference site as JSON.
pub fn site_json(o: &OccurrenceRow, names: &BTreeMap<String, String>) -> Value {
    let enclosing = o
        .enclosing_symbol_id
        .as_ref()
        .map(|id| json!({"id": id, "name": names.get(id.as_str())}));
    json!({
        "line": o.line,
        "col": o.col,
        "roles": o.roles.names().collect::<Vec<_>>(),
        "enclosing": enclosing,
        "source": o.source,
    })
}

/// Sites grouped by module and file: modules with most sites first, files likewise (ties by
/// name); sites stay in path/line/col order.
fn group_by_module<'a>(sites: &[&'a OccurrenceRow], files: &FileIndex) -> Vec<ModuleFiles<'a>> {
    let mut groups: BTreeMap<String, BTreeMap<&str, Vec<&OccurrenceRow>>> = BTreeMap::new();
    for o in sites {
        groups
            .entry(files.module_of(&o.path))
            .or_default()
            .entry(o.path.as_str())
            .or_default()
            .push(o);
    }
    let mut modules: Vec<ModuleFiles<'_>> = groups
        .into_iter()
        .map(|(m, by_file)| {
            let n = by_file.values().map(Vec::len).sum();
            let mut fs: Vec<FileSites<'_>> = by_file.into_iter().collect();
            fs.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
            (m, n, fs)
        })
        .collect();
    modules.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    modules
}

/// What the budgets let through: at most `per_module` files of each shown module and `limit`
/// sites in all, in module and file order.
struct Shown<'a> {
    sites: Vec<&'a OccurrenceRow>,
    plan: Vec<(String, usize, Vec<ShownFile<'a>>)>,
    files_in_shown_modules: usize,
    files_shown: usize,
}

/// Spends the budgets over the modules in order (most sites first).
fn spend_budget<'a>(
    modules: &[ModuleFiles<'a>],
    files: &FileIndex,
    per_module: usize,
    limit: usize,
) -> Shown<'a> {
    let mut budget_left = limit;
    let mut shown_sites: Vec<&OccurrenceRow> = Vec::new();
    let mut plan: Vec<(String, usize, Vec<ShownFile<'_>>)> = Vec::new();
    let mut files_in_shown_modules = 0;
    let mut files_shown = 0;
    for (m, n, fs) in modules {
        files_in_shown_modules += fs.len();
        let mut out = Vec::new();
        for (path, os) in fs.iter().take(per_module) {
            let take = os.len().min(budget_left);
            budget_left -= take;
            let kept: Vec<&OccurrenceRow> = os.iter().take(take).copied().collect();
            shown_sites.extend(kept.iter().copied());
            files_shown += 1;
            out.push((*path, os.len(), files.is_test(path), kept));
        }
        plan.push((m.clone(), *n, out));
    }
    Shown {
        sites: shown_sites,
        plan,
        files_in_shown_modules,
        files_shown,
    }
}

/// The shown modules, files and sites as list items, each site with its enclosing symbol's name.
fn modules_json(
    lookup: &Lookup<'_>,
    plan: &[(String, usize, Vec<ShownFile<'_>>)],
    shown_sites: &[&OccurrenceRow],
) -> Result<Vec<Value>, QueryError> {
    let enclosing: BTreeSet<String> = shown_sites
        .iter()
        .filter_map(|o| o.enclosing_symbol_id.as_deref().map(String::from))
        .collect();
    let names = lookup.names_by_id(&enclosing)?;
    let module_values: Vec<Value> = plan
        .iter()
        .map(|(m, n, fs)| {
            json!({
                "module": m,
                "references": n,
                "files": fs.iter().map(|(p, count, is_test, kept)| json!({
                    "path": p,
                    "references": count,
                    "isTest": is_test,
                    "sites": kept.iter().map(|o| site_json(o, &names)).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    Ok(module_values)
}

/// Runs `refs`.
pub fn refs(ctx: &Ctx<'_>, args: &RefsArgs) -> Result<Answer, QueryError> {
    let limit = ctx.budget.limit(args.limit)?;
    // The symbol is shown in brief, its name and kind in the explanation.
    let lookup = Lookup::brief(ctx.snapshot);
    let Resolved {
        symbol, resolution, ..
    } = lookup.resolve(&args.input)?;
    let id = symbol.stable_id.clone();
    // A by-name symbol's answer also lists the same-name sites resolution left open; both come
    // from one pass over `occurrences`.
    let by_name = symbol.source != "scip";
    let (all, named): (Vec<OccurrenceRow>, Vec<OccurrenceRow>) = if by_name {
        read::rows_where_or_unset::<OccurrenceRow>(
            ctx.snapshot,
            ("symbol_id", &Pred::Eq(id.to_string())),
            ("name", &Pred::Eq(symbol.name.clone())),
        )?
        .unwrap_or_default()
        .into_iter()
        .partition(|o| o.symbol_id.is_some())
    } else {
        let pred = Pred::Eq(id.to_string());
        let sites = read::partial_rows_where(ctx.snapshot, ("symbol_id", &pred), &SITE_COLUMNS)?;
        (sites.unwrap_or_default(), Vec::new())
    };
    let definitions = all.iter().filter(|o| is_definition(o)).count();
    let paths: BTreeSet<String> = all.iter().map(|o| o.path.to_string()).collect();
    let files = FileIndex::load_paths(ctx.snapshot, &paths)?;
    let sites: Vec<&OccurrenceRow> = all
        .iter()
        .filter(|o| !is_definition(o))
        .filter(|o| match args.scope.as_deref() {
            None => true,
            Some(sc) => files.module_of(&o.path) == sc || is_path_or_below(&o.path, sc),
        })
        .collect();
    let total = sites.len();

    let mut modules = group_by_module(&sites, &files);
    let modules_total = modules.len();
    modules.truncate(ctx.budget.modules);

    let Shown {
        sites: shown_sites,
        plan,
        files_in_shown_modules,
        files_shown,
    } = spend_budget(&modules, &files, ctx.budget.per_module, limit);
    let module_values = modules_json(&lookup, &plan, &shown_sites)?;

    let mut by_source: BTreeMap<&str, usize> = BTreeMap::new();
    for o in &sites {
        *by_source.entry(o.source.as_str()).or_default() += 1;
    }
    let distinct_files: BTreeSet<&str> = sites.iter().map(|o| o.path.as_str()).collect();
    let tests = sites.iter().filter(|o| files.is_test(&o.path)).count();
    let scip_backed = symbol.source == "scip" || sites.iter().any(|o| o.source == "scip");
    let unresolved = if scip_backed {
        None
    } else {
        Some(unresolved_same_name(
            ctx,
            &lookup,
            &symbol,
            named,
            args.scope.as_deref(),
        )?)
    };
    let mut explanation = if total == 0 {
        format!(
            "No references to {} {} were found{}.",
            symbol.kind,
            symbol.name,
            if args.scope.is_some() {
                " in this scope"
            } else {
                ""
            }
        )
    } else {
        format!(
            "{} {} is referenced {total} time(s) in {} file(s) across {modules_total} module(s) ({tests} in tests); showing {} site(s).",
            symbol.kind,
            symbol.name,
            distinct_files.len(),
            shown_sites.len()
        )
    };
    if let Some(u) = unresolved.as_ref().filter(|u| u.total > 0) {
        explanation.push_str(&format!(
            " {} more site(s) in {} file(s) use the name {} but were left unresolved because {} definitions share it (by-name candidates, listed under unresolved).",
            u.total,
            u.files.len(),
            symbol.name,
            u.definitions
        ));
    }
    let facts = json!({
        "symbol": symbol_brief(&symbol),
        "unresolved": unresolved.as_ref().map(|u| u.json(ctx.budget.per_module)),
        "resolution": resolution,
        "scope": args.scope,
        "total": total,
        "definitions": definitions,
        "files": distinct_files.len(),
        "testReferences": tests,
        "bySource": by_source,
        "modules": module_values,
    });
    let mut inv = format!("ckb query refs {id}");
    if let Some(sc) = &args.scope {
        inv.push_str(&format!(" --scope {}", shell_quote(sc)));
    }
    let mut draft = Draft::new("refs", inv.clone(), facts, explanation);
    draft.completeness = coverage::references(ctx.snapshot, scip_backed);
    draft.depends_on_scip = scip_backed;
    draft.cut_list(
        "modules",
        "max-modules",
        modules_total,
        plan.len(),
        "--max-modules",
    );
    draft.cut_list(
        "files",
        "max-per-module",
        files_in_shown_modules,
        files_shown,
        "--max-per-module",
    );
    let sites_in_shown_files: usize = plan
        .iter()
        .flat_map(|(_, _, fs)| fs.iter().map(|f| f.1))
        .sum();
    draft.cut_list(
        "sites",
        "max-items",
        sites_in_shown_files,
        shown_sites.len(),
        "--limit",
    );
    draft.trims = vec![Trim::weighted("/modules", "modules", |m| {
        m["files"]
            .as_array()
            .map(|fs| {
                fs.iter()
                    .map(|f| f["sites"].as_array().map_or(0, |s| s.len() as u64))
                    .sum()
            })
            .unwrap_or(0)
    })];
    if let Some(u) = &unresolved {
        draft.cut_list(
            "unresolved.files",
            "max-per-module",
            u.files.len(),
            u.files.len().min(ctx.budget.per_module),
            "--max-per-module",
        );
    }
    draft.items(total, shown_sites.len());
    if args.scope.is_none() {
        if let Some((m, _, fs)) = modules.first() {
            if fs.len() > ctx.budget.per_module || modules_total > 1 {
                draft.suggest(
                    format!("{inv} --scope {}", shell_quote(m)),
                    format!("only the references in module {m}"),
                );
            }
        }
    }
    draft.suggest_query("impact", &id, "callers, dependents and risk of a change");
    finish(ctx, draft)
}

/// Sites that may refer to a by-name symbol but were left unresolved.
struct Unresolved {
    /// Sites in all.
    total: usize,
    /// Definitions sharing the name (the reason resolution gave up).
    definitions: usize,
    /// (path, is test, lines), most sites first, then path.
    files: Vec<(String, bool, Vec<i32>)>,
}

impl Unresolved {
    fn json(&self, per_file: usize) -> Value {
        json!({
            "total": self.total,
            "definitionsSharingName": self.definitions,
            "fileCount": self.files.len(),
            "files": self.files.iter().take(per_file).map(|(p, t, lines)| json!({
                "path": p,
                "isTest": t,
                "sites": lines.len(),
                "lines": lines.iter().take(per_file).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })
    }
}

/// The by-name family of a file's language (output-schema's rule, as the syntax stage resolves).
fn family(language: Option<&str>) -> Option<&str> {
    language.map(output_schema::tables::language_family)
}

fn unresolved_same_name(
    ctx: &Ctx<'_>,
    lookup: &Lookup<'_>,
    symbol: &output_schema::tables::SymbolRow,
    named: Vec<OccurrenceRow>,
    scope: Option<&str>,
) -> Result<Unresolved, QueryError> {
    let named: Vec<OccurrenceRow> = named.into_iter().filter(|o| !is_definition(o)).collect();
    let mut paths: BTreeSet<String> = named.iter().map(|o| o.path.to_string()).collect();
    paths.insert(symbol.path.to_string());
    let files = FileIndex::load_paths(ctx.snapshot, &paths)?;
    let home = family(files.get(&symbol.path).and_then(|f| f.language.as_deref()));
    let mut by_file: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
    for o in &named {
        let lang = family(files.get(&o.path).and_then(|f| f.language.as_deref()));
        let in_scope = match scope {
            None => true,
            Some(sc) => files.module_of(&o.path) == sc || is_path_or_below(&o.path, sc),
        };
        if lang == home && in_scope {
            by_file.entry(o.path.as_str()).or_default().push(o.line);
        }
    }
    let total = by_file.values().map(Vec::len).sum();
    let mut list: Vec<(String, bool, Vec<i32>)> = by_file
        .into_iter()
        .map(|(p, lines)| (p.to_string(), files.is_test(p), lines))
        .collect();
    list.sort_by(|a, b| b.2.len().cmp(&a.2.len()).then(a.0.cmp(&b.0)));
    let definitions = lookup
        .by_name(&symbol.name)?
        .iter()
        .filter(|s| s.name == symbol.name && family(s.language.as_deref()) == home)
        .count();
    Ok(Unresolved {
        total,
        definitions,
        files: list,
    })
}
