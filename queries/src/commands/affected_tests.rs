//! `ckb query affected-tests <ID|PATH> [--depth N]`: the test files to run after changing a
//! symbol, a file or a folder.
//!
//! Evidence, strongest first: a test calls the symbol (`calls`, directly or through callers up to
//! `--depth`, default 3, confidence decaying per hop as in `analysis::call_graph`), a test references it or one
//! of the file's symbols (`references`), a test file imports the file (`imports`), a test file
//! usually changes together with it (`co-change`, confidence = co-change degree × 0.5). For a
//! path, the seeds are every symbol defined in it. Results are grouped by test file: its tests
//! (the test functions involved, by line), reasons, smallest depth and best confidence; ordered by
//! confidence (highest first), depth, path. At most `--limit` files (default: the items budget).

use std::collections::{BTreeMap, BTreeSet};

use output_schema::tables::{ImportRow, SymbolRow};
use serde_json::{json, Value};

use crate::analysis::call_graph::CallGraph;
use crate::commands::hotspots::partners;
use crate::commands::impact::depth_of;
use crate::commands::refs::{is_definition, occurrences_of_many};
use crate::envelope::answer::Answer;
use crate::envelope::facts::FileIndex;
use crate::envelope::respond::{finish, shell_quote, Ctx, Draft};
use crate::snapshot::coverage;
use crate::snapshot::lookup::Lookup;
use crate::snapshot::read::{self, is_path_or_below, Pred};
use crate::snapshot::target::{target, Target};
use crate::QueryError;

/// One test file and why it is affected.
#[derive(Clone, Debug, Default)]
pub struct TestFile {
    /// Test functions involved: (line, id, name).
    pub tests: BTreeSet<(i32, String, String)>,
    /// Kinds of evidence.
    pub reasons: BTreeSet<String>,
    /// Smallest call depth (1 for references, imports and co-change).
    pub depth: usize,
    /// Best confidence.
    pub confidence: f64,
}

/// The tests affected by changing `seeds` (symbols) and `paths` (files).
pub struct Collected {
    /// Test files by path.
    pub files: BTreeMap<String, TestFile>,
    /// Whether any evidence came from SCIP.
    pub scip_backed: bool,
}

impl Collected {
    /// Test files in answer order.
    pub fn ranked(&self) -> Vec<(&String, &TestFile)> {
        let mut v: Vec<(&String, &TestFile)> = self.files.iter().collect();
        v.sort_by(|a, b| {
            b.1.confidence
                .total_cmp(&a.1.confidence)
                .then(a.1.depth.cmp(&b.1.depth))
                .then(a.0.cmp(b.0))
        });
        v
    }
}

fn hit(
    out: &mut BTreeMap<String, TestFile>,
    path: &str,
    test: Option<&SymbolRow>,
    reason: &str,
    depth: usize,
    confidence: f64,
) {
    let e = out.entry(path.to_string()).or_insert_with(|| TestFile {
        depth: usize::MAX,
        ..TestFile::default()
    });
    if let Some(s) = test {
        e.tests
            .insert((s.start_line, s.stable_id.to_string(), s.name.clone()));
    }
    e.reasons.insert(reason.to_string());
    e.depth = e.depth.min(depth);
    let c = (confidence * 1_000_000.0).round() / 1_000_000.0;
    if c > e.confidence {
        e.confidence = c;
    }
}

/// Collects affected tests.
pub fn collect(
    ctx: &Ctx<'_>,
    lookup: &Lookup<'_>,
    files: &FileIndex,
    seeds: &[SymbolRow],
    paths: &[String],
    depth: usize,
) -> Result<Collected, QueryError> {
    let mut out: BTreeMap<String, TestFile> = BTreeMap::new();
    let graph = CallGraph::load(ctx)?;
    let seed_ids: BTreeSet<String> = seeds.iter().map(|s| s.stable_id.to_string()).collect();
    // Callers of every seed, best confidence per caller.
    let mut callers: BTreeMap<String, (usize, f64)> = BTreeMap::new();
    for id in &seed_ids {
        for r in graph.callers_within(id, depth).0 {
            if seed_ids.contains(&r.id) {
                continue;
            }
            let e = callers
                .entry(r.id.clone())
                .or_insert((r.depth, r.confidence));
            if r.depth < e.0 || (r.depth == e.0 && r.confidence > e.1) {
                *e = (r.depth, r.confidence);
            }
        }
    }
    let occ = occurrences_of_many(ctx, &seed_ids)?;
    let mut scip_backed = seeds.iter().any(|s| s.source == "scip");
    let mut wanted: BTreeSet<String> = callers.keys().cloned().collect();
    wanted.extend(
        occ.iter()
            .filter(|o| files.is_test(&o.path))
            .filter_map(|o| o.enclosing_symbol_id.as_deref().map(String::from)),
    );
    let rows: BTreeMap<String, SymbolRow> = lookup
        .symbols_by_id(&wanted)?
        .into_iter()
        .map(|s| (s.stable_id.to_string(), s))
        .collect();
    for (id, (d, c)) in &callers {
        if let Some(s) = rows.get(id) {
            if files.is_test(&s.path) {
                hit(&mut out, &s.path, Some(s), "calls", *d, *c);
            }
        }
    }
    for o in occ
        .iter()
        .filter(|o| !is_definition(o) && files.is_test(&o.path))
    {
        scip_backed |= o.source == "scip";
        let test = o
            .enclosing_symbol_id
            .as_ref()
            .and_then(|e| rows.get(e.as_str()));
        hit(
            &mut out,
            &o.path,
            test,
            "references",
            1,
            if o.source == "scip" { 1.0 } else { 0.7 },
        );
    }
    if !paths.is_empty() {
        let imports: Vec<ImportRow> = read::all_rows(ctx.snapshot)?.unwrap_or_default();
        for i in imports.iter().filter(|i| files.is_test(&i.path)) {
            let Some(t) = &i.target else { continue };
            if paths.iter().any(|p| t == p) && !paths.contains(&i.path) {
                hit(
                    &mut out,
                    &i.path,
                    None,
                    "imports",
                    1,
                    i.confidence.min(1.0) * 0.9,
                );
            }
        }
        for p in paths.iter().take(50) {
            for (other, r) in partners(ctx, p)? {
                if files.is_test(&other) && !paths.contains(&other) {
                    hit(&mut out, &other, None, "co-change", 1, r.degree * 0.5);
                }
            }
        }
    }
    Ok(Collected {
        files: out,
        scip_backed,
    })
}

/// Test files as list items.
pub fn tests_json(c: &Collected, files: &FileIndex, limit: usize) -> Vec<Value> {
    c.ranked()
        .into_iter()
        .take(limit)
        .map(|(p, t)| {
            json!({
                "path": p,
                "module": files.module_of(p),
                "confidence": t.confidence,
                "depth": t.depth,
                "reasons": t.reasons,
                "tests": t.tests.iter().map(|(line, id, name)| json!({"id": id, "name": name, "line": line})).collect::<Vec<_>>(),
            })
        })
        .collect()
}

/// Symbols defined in a file or below a folder.
pub fn symbols_in(ctx: &Ctx<'_>, path: &str, folder: bool) -> Result<Vec<SymbolRow>, QueryError> {
    let pred = if folder {
        Pred::PathOrBelow(path.into())
    } else {
        Pred::Eq(path.into())
    };
    Ok(read::rows_where::<SymbolRow>(ctx.snapshot, "path", &pred)?.unwrap_or_default())
}

/// Runs `affected-tests`.
pub fn affected_tests(
    ctx: &Ctx<'_>,
    input: &str,
    depth: Option<u64>,
    limit: Option<u64>,
) -> Result<Answer, QueryError> {
    let depth = depth_of(depth)?;
    let limit = ctx.budget.limit(limit)?;
    let lookup = Lookup::new(ctx.snapshot);
    let files = FileIndex::load(ctx.snapshot)?;
    let t = target(ctx.snapshot, &lookup, &files, input, false, true)?;
    let (seeds, paths, target_json, inv_arg) = match &t {
        Target::Symbol(r) => (
            vec![r.symbol.clone()],
            Vec::new(),
            json!({"kind": "symbol", "symbol": crate::envelope::facts::symbol_brief(&r.symbol), "resolution": r.resolution}),
            r.symbol.stable_id.to_string(),
        ),
        Target::File(p) => (
            symbols_in(ctx, p, false)?,
            vec![p.clone()],
            json!({"kind": "file", "path": p}),
            shell_quote(p),
        ),
        Target::Folder(p) => {
            let ps: Vec<String> = files
                .iter()
                .filter(|(f, _)| is_path_or_below(f, p))
                .map(|(f, _)| f.clone())
                .collect();
            (
                symbols_in(ctx, p, true)?,
                ps,
                json!({"kind": "folder", "path": p}),
                shell_quote(p),
            )
        }
        Target::Module(_) => unreachable!("modules are not accepted here"),
    };
    let collected = collect(ctx, &lookup, &files, &seeds, &paths, depth)?;
    let total = collected.files.len();
    let shown = tests_json(&collected, &files, limit);
    let test_fns: usize = collected.files.values().map(|f| f.tests.len()).sum();
    let explanation = if total == 0 {
        format!(
            "No test was found that depends on {} (depth {depth}).",
            input.trim()
        )
    } else {
        format!(
            "{total} test file(s) ({test_fns} test function(s)) depend on {}; showing {} by confidence.",
            input.trim(),
            shown.len()
        )
    };
    let facts = json!({
        "target": target_json,
        "depth": depth,
        "seeds": seeds.len(),
        "total": total,
        "testFiles": shown,
    });
    let inv = format!("ckb query affected-tests {inv_arg} --depth {depth}");
    let mut draft = Draft::new("affected-tests", inv, facts, explanation);
    draft.completeness = coverage::references(ctx.snapshot, collected.scip_backed);
    draft.depends_on_scip = collected.scip_backed;
    draft.limited_list("testFiles", total, shown.len());
    draft.items(total, shown.len());
    if total == 0 && depth < 10 {
        draft.suggest(
            format!("ckb query affected-tests {inv_arg} --depth {}", depth + 2),
            "look further up the call graph",
        );
    }
    finish(ctx, draft)
}
