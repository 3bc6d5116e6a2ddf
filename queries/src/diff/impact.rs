//! Who a change affects, measured on the **base** snapshot (the code the change lands on).
//!
//! A changed symbol is one removed, renamed / moved / merged, signature-changed, visibility-
//! narrowed (interface changes: their dependents may stop compiling) or body-changed (behaviour
//! changes). Its dependents are the callers in `call_edges` plus the definitions enclosing its
//! reference sites in `occurrences`; callers are followed upward to [`MAX_DEPTH`] to find the
//! tests (definitions in `is_test` files) and modules reached; `module_reach` counts, for each
//! module of changed symbols, the dependents reached in each module (the impact graph's arrows).
//! Co-change partners are files that historically change together with a touched file
//! (`cochange`, degree ≥ [`COCHANGE_MIN_DEGREE`], at least [`COCHANGE_MIN_SHARED`] shared commits)
//! but that this change leaves alone.
//! The overall risk is scored from these findings in `diff::risk`.

use std::collections::{BTreeMap, BTreeSet};

use output_schema::tables::{FileRow, OccurrenceRow, SymbolRow};
use output_schema::Roles;
use serde::Serialize;

use super::compare::{FileDiff, Sym, SymbolDiff};
use super::BaseTables;
use crate::analysis::call_graph::CallGraph;

/// How many caller levels are followed to find tests and modules.
pub const MAX_DEPTH: u32 = 3;
/// Minimum co-change degree for "usually changed together".
pub const COCHANGE_MIN_DEGREE: f64 = 0.5;
/// Minimum shared commits for "usually changed together".
pub const COCHANGE_MIN_SHARED: i64 = 2;

/// The base snapshot's dependents, indexed for the diff: its call graph (the shared
/// [`CallGraph`]) plus the reference sites of each symbol.
pub(crate) struct Graph<'a> {
    symbols: BTreeMap<&'a str, &'a SymbolRow>,
    files: BTreeMap<&'a str, &'a FileRow>,
    /// The base snapshot's call graph.
    calls: CallGraph,
    /// symbol → its non-definition reference sites.
    refs_of: BTreeMap<&'a str, Vec<&'a OccurrenceRow>>,
}

/// One dependent of a changed symbol.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Caller {
    /// Stable ID of the calling or referencing definition; absent for a top-level reference.
    pub id: Option<String>,
    /// Its name (the file name for a top-level reference).
    pub name: String,
    /// Its file.
    pub path: String,
    /// Call or reference sites.
    pub count: i64,
    /// Whether it is in a test file.
    pub is_test: bool,
    /// Whether the change touches its file.
    pub touched: bool,
}

/// Impact of one changed symbol.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SymbolImpact {
    /// The symbol as it is in the base.
    pub symbol: Sym,
    /// `removed`, `renamed`, `moved`, `merged`, `visibility`, `signature` or `body` (the first that
    /// applies, in that order).
    pub change: String,
    /// Whether dependents may break (every change but `body`).
    pub interface: bool,
    /// Whether the symbol itself is test code.
    pub in_test_file: bool,
    /// Direct dependents: callers and definitions enclosing a reference, most sites first.
    pub callers: Vec<Caller>,
    /// Reference sites (occurrences that are not the definition).
    pub references: u64,
    /// Files holding those sites.
    pub referencing_files: u64,
    /// Callers reached at depth 2..=MAX_DEPTH.
    pub transitive_callers: u64,
    /// Direct dependents in files the change does not touch.
    pub untouched_callers: u64,
    /// Test files reached.
    pub tests: Vec<String>,
    /// Modules reached (the symbol's own included).
    pub modules: Vec<String>,
}

/// A module the change reaches.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModuleImpact {
    /// Module ID.
    pub module_id: String,
    /// Changed symbols defined in it.
    pub changed_symbols: u64,
    /// Dependents (to MAX_DEPTH) defined in it.
    pub callers: u64,
}

/// How many dependents of the symbols a change touches in one module live in another module:
/// an arrow of the impact graph.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModuleReach {
    /// Module of changed symbols.
    pub from: String,
    /// Module of their dependents (to MAX_DEPTH); may equal `from`.
    pub to: String,
    /// Distinct dependents in `to` of changed symbols in `from`.
    pub dependents: u64,
}

/// A test file the change reaches.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TestImpact {
    /// Test file.
    pub path: String,
    /// Changed symbols it reaches (qualified names, sorted).
    pub symbols: Vec<String>,
    /// Shortest caller depth (1 = it calls or references a changed symbol directly).
    pub depth: u32,
}

/// A file usually changed together with a touched file, left alone by this change.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CochangePartner {
    /// The untouched file.
    pub path: String,
    /// The touched file it usually changes with.
    pub changed_with: String,
    /// shared_commits / min(commits of either).
    pub degree: f64,
    /// Commits touching both.
    pub shared_commits: i64,
}

/// Who the change affects.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Impact {
    /// One entry per changed symbol: interface changes first, then most dependents first.
    pub changed: Vec<SymbolImpact>,
    /// Distinct direct dependents of all changed symbols (the changed symbols themselves excluded).
    pub callers: u64,
    /// Distinct dependents at depth 2..=MAX_DEPTH.
    pub transitive_callers: u64,
    /// Distinct direct dependents of interface changes in files the change does not touch.
    pub untouched_callers: u64,
    /// Modules reached, most changed symbols + dependents first.
    pub modules: Vec<ModuleImpact>,
    /// From the modules of changed symbols to the modules of their dependents, most dependents
    /// first, then by module IDs.
    pub module_reach: Vec<ModuleReach>,
    /// Test files reached, nearest first.
    pub tests: Vec<TestImpact>,
    /// Files usually changed together with touched files, highest degree first.
    pub cochange: Vec<CochangePartner>,
}

impl<'a> Graph<'a> {
    pub(crate) fn new(b: &'a BaseTables) -> Graph<'a> {
        let symbols: BTreeMap<&str, &SymbolRow> = b
            .symbols
            .as_deref()
            .unwrap_or_default()
            .iter()
            .map(|s| (s.stable_id.as_str(), s))
            .collect();
        let files = b
            .files
            .as_deref()
            .unwrap_or_default()
            .iter()
            .map(|f| (f.path.as_str(), f))
            .collect();
        let calls = CallGraph::from_rows(b.call_edges.as_deref());
        let mut refs_of: BTreeMap<&str, Vec<&OccurrenceRow>> = BTreeMap::new();
        for o in b.occurrences.as_deref().unwrap_or_default() {
            if o.roles.contains(Roles::DEFINITION) || o.roles.contains(Roles::FORWARD_DEFINITION) {
                continue;
            }
            if let Some(id) = &o.symbol_id {
                if symbols.contains_key(id.as_str()) {
                    refs_of.entry(id.as_str()).or_default().push(o);
                }
            }
        }
        Graph {
            symbols,
            files,
            calls,
            refs_of,
        }
    }

    fn is_test_path(&self, path: &str) -> bool {
        self.files.get(path).is_some_and(|f| f.is_test)
    }

    fn module_of(&self, id: &str) -> Option<&'a str> {
        let s = self.symbols.get(id)?;
        s.module_id
            .as_deref()
            .or_else(|| self.files.get(s.path.as_str())?.module_id.as_deref())
    }

    fn module_of_path(&self, path: &str) -> Option<&'a str> {
        self.files.get(path)?.module_id.as_deref()
    }

    /// Public symbols in the base.
    pub(crate) fn public_count(&self) -> u64 {
        self.symbols
            .values()
            .filter(|s| s.visibility == "public")
            .count() as u64
    }

    /// The base symbol row of an ID.
    pub(crate) fn symbol(&self, id: &str) -> Option<&'a SymbolRow> {
        self.symbols.get(id).copied()
    }

    /// Direct dependents: key is the caller ID, or `file:<path>` for a top-level reference.
    fn dependents(&self, id: &str) -> BTreeMap<String, (Option<&str>, String, i64)> {
        let mut out: BTreeMap<String, (Option<&str>, String, i64)> = BTreeMap::new();
        let callers = self.calls.caller_counts(id);
        for (caller, count) in &callers {
            let path = self
                .symbols
                .get(caller)
                .map(|s| s.path.clone())
                .unwrap_or_default();
            out.insert(
                caller.to_string(),
                (Some(*caller), path.to_string(), *count),
            );
        }
        for o in self.refs_of.get(id).map(Vec::as_slice).unwrap_or_default() {
            match o.enclosing_symbol_id.as_deref() {
                Some(enc) if enc == id => {}
                Some(enc) => {
                    let entry =
                        out.entry(enc.to_string())
                            .or_insert((Some(enc), o.path.to_string(), 0));
                    // Call edges already count call sites; count references only where no edge did.
                    if !callers.contains_key(enc) {
                        entry.2 += 1;
                    }
                }
                None => {
                    out.entry(format!("file:{}", o.path))
                        .or_insert((None, o.path.to_string(), 0))
                        .2 += 1;
                }
            }
        }
        out
    }

    /// Number of direct dependents (for compareAPI).
    pub(crate) fn dependent_count(&self, id: &str) -> u64 {
        self.dependents(id).len() as u64
    }

    /// Callers reached upward from `id`, with their smallest depth (1..=MAX_DEPTH).
    fn reach(&self, id: &str) -> BTreeMap<&str, u32> {
        let mut depth_of: BTreeMap<&str, u32> = BTreeMap::new();
        let mut frontier: Vec<&str> = vec![id];
        for depth in 1..=MAX_DEPTH {
            let mut next = Vec::new();
            for cur in frontier {
                let callers = self.calls.caller_counts(cur).into_keys();
                let enclosing = self
                    .refs_of
                    .get(cur)
                    .into_iter()
                    .flatten()
                    .filter_map(|o| o.enclosing_symbol_id.as_deref());
                for c in callers.chain(enclosing) {
                    if c == id || depth_of.contains_key(c) {
                        continue;
                    }
                    depth_of.insert(c, depth);
                    next.push(c);
                }
            }
            frontier = next;
        }
        depth_of
    }
}

struct Changed<'s> {
    sym: Sym,
    change: &'s str,
    interface: bool,
}

/// Each changed base ID once, the first (most severe) change kind winning: removals, renames and
/// moves, narrowed visibility and changed signatures are interface changes; body changes are not.
fn changed_symbols(symbols: &SymbolDiff, graph: &Graph<'_>) -> BTreeMap<String, Changed<'static>> {
    let mut changed: BTreeMap<String, Changed<'_>> = BTreeMap::new();
    let base_sym = |s: &Sym| {
        graph
            .symbol(&s.id)
            .map(Sym::of)
            .unwrap_or_else(|| s.clone())
    };
    let mut add = |s: Sym, change: &'static str, interface: bool| {
        changed.entry(s.id.clone()).or_insert(Changed {
            sym: s,
            change,
            interface,
        });
    };
    for r in &symbols.removed {
        add(r.symbol.clone(), "removed", true);
    }
    for r in &symbols.renamed {
        let change = match r.change.as_str() {
            "moved" => "moved",
            "merged" => "merged",
            _ => "renamed",
        };
        add(r.from.clone(), change, true);
    }
    for v in symbols
        .visibility_changed
        .iter()
        .filter(|v| v.direction == "narrowed")
    {
        add(base_sym(&v.symbol), "visibility", true);
    }
    for s in &symbols.signature_changed {
        add(base_sym(&s.symbol), "signature", true);
    }
    for s in &symbols.body_changed {
        add(base_sym(s), "body", false);
    }
    changed
}

/// The direct dependents of a changed symbol as callers, most call sites first.
fn callers_of(
    graph: &Graph<'_>,
    deps: &BTreeMap<String, (Option<&str>, String, i64)>,
    touched: &BTreeSet<&str>,
) -> Vec<Caller> {
    let mut callers: Vec<Caller> = deps
        .iter()
        .map(|(_, (cid, path, count))| Caller {
            id: cid.map(String::from),
            name: match cid.and_then(|x| graph.symbol(x)) {
                Some(s) => s.name.clone(),
                None => cid
                    .map(String::from)
                    .unwrap_or_else(|| path.rsplit('/').next().unwrap_or(path).to_string()),
            },
            path: path.clone(),
            count: *count,
            is_test: graph.is_test_path(path),
            touched: touched.contains(path.as_str()),
        })
        .collect();
    callers.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| a.path.cmp(&b.path))
            .then_with(|| a.id.cmp(&b.id))
    });
    callers
}

/// Modules reached, most changed symbols + dependents first.
fn module_impacts(
    module_changed: &BTreeMap<String, u64>,
    module_callers: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<ModuleImpact> {
    let module_ids: BTreeSet<&String> =
        module_changed.keys().chain(module_callers.keys()).collect();
    let mut modules: Vec<ModuleImpact> = module_ids
        .into_iter()
        .map(|m| ModuleImpact {
            module_id: m.clone(),
            changed_symbols: module_changed.get(m).copied().unwrap_or(0),
            callers: module_callers.get(m).map(|s| s.len() as u64).unwrap_or(0),
        })
        .collect();
    modules.sort_by(|a, b| {
        (b.changed_symbols + b.callers)
            .cmp(&(a.changed_symbols + a.callers))
            .then_with(|| a.module_id.cmp(&b.module_id))
    });
    modules
}

/// Test files reached, nearest first.
fn test_impacts(tests: BTreeMap<String, (BTreeSet<String>, u32)>) -> Vec<TestImpact> {
    let mut tests: Vec<TestImpact> = tests
        .into_iter()
        .map(|(path, (symbols, depth))| TestImpact {
            path,
            symbols: symbols.into_iter().collect(),
            depth,
        })
        .collect();
    tests.sort_by(|a, b| a.depth.cmp(&b.depth).then_with(|| a.path.cmp(&b.path)));
    tests
}

/// Computes the impact of the changed symbols on the base snapshot.
pub(crate) fn impact(
    symbols: &SymbolDiff,
    files: &FileDiff,
    graph: &Graph<'_>,
    base: &BaseTables,
) -> Impact {
    let touched = files.touched_paths();
    let changed = changed_symbols(symbols, graph);
    let changed_ids: BTreeSet<&str> = changed.keys().map(String::as_str).collect();
    let mut all_direct: BTreeSet<String> = BTreeSet::new();
    let mut all_transitive: BTreeSet<&str> = BTreeSet::new();
    let mut all_untouched: BTreeSet<String> = BTreeSet::new();
    let mut module_changed: BTreeMap<String, u64> = BTreeMap::new();
    let mut module_callers: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut reach_between: BTreeMap<(String, String), BTreeSet<&str>> = BTreeMap::new();
    let mut tests: BTreeMap<String, (BTreeSet<String>, u32)> = BTreeMap::new();
    let mut out_changed = Vec::new();

    for (id, c) in &changed {
        let deps = graph.dependents(id);
        let reach = graph.reach(id);
        let callers = callers_of(graph, &deps, &touched);
        let refs = graph
            .refs_of
            .get(id.as_str())
            .map(Vec::as_slice)
            .unwrap_or_default();
        let referencing_files: BTreeSet<&str> = refs.iter().map(|o| o.path.as_str()).collect();
        let untouched = callers.iter().filter(|x| !x.touched).count() as u64;

        let mut sym_tests: BTreeMap<String, u32> = BTreeMap::new();
        for o in refs {
            if graph.is_test_path(&o.path) {
                sym_tests.entry(o.path.to_string()).or_insert(1);
            }
        }
        let mut modules: BTreeSet<String> = BTreeSet::new();
        let own_module = graph.module_of(id).or(c.sym.module_id.as_deref());
        if let Some(m) = own_module {
            modules.insert(m.to_string());
            *module_changed.entry(m.to_string()).or_default() += 1;
        }
        for p in &referencing_files {
            if let Some(m) = graph.module_of_path(p) {
                modules.insert(m.to_string());
            }
        }
        for (caller, depth) in &reach {
            if let Some(s) = graph.symbol(caller) {
                if graph.is_test_path(&s.path) {
                    let d = sym_tests.entry(s.path.to_string()).or_insert(*depth);
                    *d = (*d).min(*depth);
                }
            }
            if let Some(m) = graph.module_of(caller) {
                modules.insert(m.to_string());
                module_callers
                    .entry(m.to_string())
                    .or_default()
                    .insert(caller.to_string());
                if let Some(own) = own_module {
                    reach_between
                        .entry((own.to_string(), m.to_string()))
                        .or_default()
                        .insert(caller);
                }
            }
            if *depth > 1 && !changed_ids.contains(caller) {
                all_transitive.insert(caller);
            }
        }
        for (key, (cid, path, _)) in &deps {
            if cid.is_some_and(|x| changed_ids.contains(x)) {
                continue;
            }
            all_direct.insert(key.clone());
            if c.interface && !touched.contains(path.as_str()) {
                all_untouched.insert(key.clone());
            }
        }
        let name = c.sym.qualified();
        for (path, depth) in &sym_tests {
            let entry = tests
                .entry(path.clone())
                .or_insert((BTreeSet::new(), *depth));
            entry.0.insert(name.clone());
            entry.1 = entry.1.min(*depth);
        }
        out_changed.push(SymbolImpact {
            symbol: c.sym.clone(),
            change: c.change.to_string(),
            interface: c.interface,
            in_test_file: graph.is_test_path(&c.sym.path),
            transitive_callers: reach.values().filter(|d| **d > 1).count() as u64,
            untouched_callers: untouched,
            references: refs.len() as u64,
            referencing_files: referencing_files.len() as u64,
            tests: sym_tests.keys().cloned().collect(),
            modules: modules.into_iter().collect(),
            callers,
        });
    }
    for d in &all_direct {
        all_transitive.remove(d.as_str());
    }
    out_changed.sort_by(|a, b| {
        b.interface
            .cmp(&a.interface)
            .then_with(|| b.callers.len().cmp(&a.callers.len()))
            .then_with(|| b.transitive_callers.cmp(&a.transitive_callers))
            .then_with(|| a.symbol.path.cmp(&b.symbol.path))
            .then_with(|| a.symbol.line.cmp(&b.symbol.line))
            .then_with(|| a.symbol.id.cmp(&b.symbol.id))
    });

    let modules = module_impacts(&module_changed, &module_callers);
    let tests = test_impacts(tests);
    let mut module_reach: Vec<ModuleReach> = reach_between
        .into_iter()
        .map(|((from, to), dependents)| ModuleReach {
            from,
            to,
            dependents: dependents.len() as u64,
        })
        .collect();
    module_reach.sort_by(|a, b| {
        b.dependents
            .cmp(&a.dependents)
            .then_with(|| a.from.cmp(&b.from))
            .then_with(|| a.to.cmp(&b.to))
    });

    Impact {
        changed: out_changed,
        callers: all_direct.len() as u64,
        transitive_callers: all_transitive.len() as u64,
        untouched_callers: all_untouched.len() as u64,
        modules,
        module_reach,
        tests,
        cochange: cochange(base, &touched),
    }
}

fn cochange(base: &BaseTables, touched: &BTreeSet<&str>) -> Vec<CochangePartner> {
    let mut best: BTreeMap<&str, CochangePartner> = BTreeMap::new();
    for row in base.cochange.as_deref().unwrap_or_default() {
        if row.degree < COCHANGE_MIN_DEGREE || row.shared_commits < COCHANGE_MIN_SHARED {
            continue;
        }
        let (a, b) = (row.path_a.as_str(), row.path_b.as_str());
        let pair = match (touched.contains(a), touched.contains(b)) {
            (true, false) => (b, a),
            (false, true) => (a, b),
            _ => continue,
        };
        let candidate = CochangePartner {
            path: pair.0.to_string(),
            changed_with: pair.1.to_string(),
            degree: row.degree,
            shared_commits: row.shared_commits,
        };
        match best.get(pair.0) {
            Some(cur)
                if (
                    cur.degree,
                    cur.shared_commits,
                    std::cmp::Reverse(&cur.changed_with),
                ) >= (
                    candidate.degree,
                    candidate.shared_commits,
                    std::cmp::Reverse(&candidate.changed_with),
                ) => {}
            _ => {
                best.insert(pair.0, candidate);
            }
        }
    }
    let mut out: Vec<CochangePartner> = best.into_values().collect();
    out.sort_by(|a, b| {
        b.degree
            .total_cmp(&a.degree)
            .then_with(|| b.shared_commits.cmp(&a.shared_commits))
            .then_with(|| a.path.cmp(&b.path))
    });
    out
}
