//! `ckb query dead-code [--kind K]… [--scope PATH|MODULE] [--limit N]`: definitions nothing
//! (or nothing but themselves, or only tests) uses, each with a confidence.
//!
//! The definition is shared with `queries/sql/dead_code.sql` (its header says the same):
//! Candidates: functions, methods, classes, structs, interfaces, traits, enums, type aliases,
//! types, constants, macros and unions (kinds whose uses extractors resolve reliably), except
//! those in test files, test code elsewhere (definitions marked as tests, `tests`/`test`
//! containers such as Rust's `mod tests`), generated files, entry points (`main`), members called
//! implicitly (`__dunder__` names, constructors) and trait/interface implementations (reached
//! through the trait: `impl T for X` containers and, with SCIP only, `implementation`
//! relationships). Uses: occurrences that are not (forward) definitions. Categories:
//! `unreferenced` (no use), `self-only` (every use lies inside the symbol itself: recursion),
//! `test-only` (every use is in a test file).
//!
//! Confidence = base (unreferenced 0.9, self-only 0.8, test-only 0.7)
//! × visibility (private 1, internal 0.8, public / protected 0.5: code outside the repository
//! may use it, other 0.7) × 0.8 when only by-name references exist (no SCIP, and the symbol is
//! not from SCIP) × 0.5 when sites with the same name could not be resolved to any symbol,
//! rounded to 6 decimals. Each candidate lists the reasons behind its confidence. Order:
//! confidence (highest first), path, line, ID.
//!
//! Size: `dead_code` (~215 lines) applies the shared definition's rules in the order its header states them, one block per rule.

use std::collections::{BTreeMap, BTreeSet};

use output_schema::tables::{RelationshipRow, SymbolRow};
use output_schema::Roles;
use serde_json::{json, Value};

use crate::analysis::ranking::is_type_like;
use crate::envelope::answer::Answer;
use crate::envelope::facts::FileIndex;
use crate::envelope::respond::{finish, shell_quote, Ctx, Draft};
use crate::snapshot::coverage;
use crate::snapshot::read;
use crate::QueryError;

/// Kinds that can be candidates: functions, methods, constants, macros and the kinds that name a
/// type.
pub fn is_candidate_kind(kind: &str) -> bool {
    matches!(kind, "function" | "method" | "constant" | "macro") || is_type_like(kind)
}

/// What `dead-code` was asked.
#[derive(Clone, Debug, Default)]
pub struct DeadCodeArgs {
    /// Kinds to keep.
    pub kinds: Vec<String>,
    /// Module ID or path to stay within.
    pub scope: Option<String>,
    /// Candidates to return.
    pub limit: Option<u64>,
}

#[derive(Default)]
struct Uses {
    total: usize,
    self_only: usize,
    in_tests: usize,
}

fn round(x: f64) -> f64 {
    (x * 1_000_000.0).round() / 1_000_000.0
}

fn implicit(s: &SymbolRow) -> bool {
    (s.name.starts_with("__") && s.name.ends_with("__") && s.name.len() > 4)
        || s.kind == "constructor"
        || s.name == "constructor"
}

/// Test code outside test files: a `test`/`tests` container (Rust's `mod tests`).
fn test_container(s: &SymbolRow) -> bool {
    s.container
        .as_deref()
        .is_some_and(|c| c.split("::").any(|p| p == "test" || p == "tests"))
}

fn trait_impl(s: &SymbolRow) -> bool {
    s.container
        .as_deref()
        .is_some_and(|c| c.starts_with("impl ") && c.contains(" for "))
}

/// Runs `dead-code`.
pub fn dead_code(ctx: &Ctx<'_>, args: &DeadCodeArgs) -> Result<Answer, QueryError> {
    let limit = ctx.budget.limit(args.limit)?;
    let symbols: Vec<SymbolRow> = read::all_rows(ctx.snapshot)?.unwrap_or_default();
    let files = FileIndex::load(ctx.snapshot)?;
    let kinds: BTreeSet<String> = args.kinds.iter().map(|k| k.to_lowercase()).collect();
    let in_scope = |s: &SymbolRow| match args.scope.as_deref() {
        None => true,
        Some(sc) => s.module_id.as_deref() == Some(sc) || read::is_path_or_below(&s.path, sc),
    };

    let mut uses: BTreeMap<String, Uses> = BTreeMap::new();
    let mut unresolved_names: BTreeMap<String, usize> = BTreeMap::new();
    let mut test_definitions: BTreeSet<String> = BTreeSet::new();
    if let Some(cols) = read::read_columns(
        ctx.snapshot,
        "occurrences",
        &["symbol_id", "name", "path", "roles", "enclosing_symbol_id"],
        None,
    )? {
        let ids: Vec<Option<String>> = cols.get("symbol_id")?;
        let names: Vec<String> = cols.get("name")?;
        let paths: Vec<String> = cols.get("path")?;
        let roles: Vec<Roles> = cols.get("roles")?;
        let enclosing: Vec<Option<String>> = cols.get("enclosing_symbol_id")?;
        for i in 0..ids.len() {
            if roles[i].contains(Roles::DEFINITION) || roles[i].contains(Roles::FORWARD_DEFINITION)
            {
                if let (true, Some(id)) = (roles[i].contains(Roles::TEST), &ids[i]) {
                    test_definitions.insert(id.clone());
                }
                continue;
            }
            match &ids[i] {
                Some(id) => {
                    let u = uses.entry(id.clone()).or_default();
                    u.total += 1;
                    if enclosing[i].as_deref() == Some(id.as_str()) {
                        u.self_only += 1;
                    }
                    if files.is_test(&paths[i]) {
                        u.in_tests += 1;
                    }
                }
                None => *unresolved_names.entry(names[i].clone()).or_default() += 1,
            }
        }
    }
    let implementers: BTreeSet<String> = read::all_rows::<RelationshipRow>(ctx.snapshot)?
        .unwrap_or_default()
        .into_iter()
        .filter(|r| r.kind == "implementation")
        .map(|r| r.from_id)
        .collect();
    let scip = coverage::has_scip(ctx.snapshot);

    let mut excluded: BTreeMap<&str, usize> = BTreeMap::new();
    let mut candidates: Vec<(f64, &SymbolRow, &str, usize, Vec<String>)> = Vec::new();
    for s in symbols.iter().filter(|s| in_scope(s)) {
        if !kinds.is_empty() && !kinds.contains(&s.kind.to_lowercase()) {
            continue;
        }
        if !is_candidate_kind(&s.kind) {
            *excluded.entry("kind-not-tracked").or_default() += 1;
            continue;
        }
        if files.is_test(&s.path) {
            *excluded.entry("in-test-file").or_default() += 1;
            continue;
        }
        if test_definitions.contains(s.stable_id.as_str()) || test_container(s) {
            *excluded.entry("test-code").or_default() += 1;
            continue;
        }
        if files.get(&s.path).is_some_and(|f| f.is_generated) {
            *excluded.entry("generated").or_default() += 1;
            continue;
        }
        if s.name == "main" {
            *excluded.entry("entry-point").or_default() += 1;
            continue;
        }
        if implicit(s) {
            *excluded.entry("called-implicitly").or_default() += 1;
            continue;
        }
        if trait_impl(s) || implementers.contains(s.stable_id.as_str()) {
            *excluded.entry("implements-interface").or_default() += 1;
            continue;
        }
        let u = uses.get(s.stable_id.as_str());
        let (category, base, n) = match u {
            None => ("unreferenced", 0.9, 0),
            Some(u) if u.total == 0 => ("unreferenced", 0.9, 0),
            Some(u) if u.self_only == u.total => ("self-only", 0.8, u.total),
            Some(u) if u.in_tests == u.total => ("test-only", 0.7, u.total),
            Some(_) => continue,
        };
        let mut reasons = vec![match category {
            "unreferenced" => "no reference outside its definition".to_string(),
            "self-only" => format!("all {n} reference(s) are inside itself"),
            _ => format!("all {n} reference(s) are in test files"),
        }];
        let vis_factor = match s.visibility.as_str() {
            "private" => 1.0,
            "internal" => 0.8,
            "public" | "protected" => {
                reasons.push(format!(
                    "{}: code outside the repository may use it",
                    s.visibility
                ));
                0.5
            }
            _ => 0.7,
        };
        let backend_factor = if scip || s.source == "scip" {
            1.0
        } else {
            reasons.push("references found by name only (no SCIP index)".into());
            0.8
        };
        let unresolved = unresolved_names.get(&s.name).copied().unwrap_or(0);
        let name_factor = if unresolved > 0 {
            reasons.push(format!(
                "{unresolved} site(s) named {} could not be resolved",
                s.name
            ));
            0.5
        } else {
            1.0
        };
        candidates.push((
            round(base * vis_factor * backend_factor * name_factor),
            s,
            category,
            n,
            reasons,
        ));
    }
    candidates.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(a.1.path.cmp(&b.1.path))
            .then(a.1.start_line.cmp(&b.1.start_line))
            .then(a.1.stable_id.cmp(&b.1.stable_id))
    });
    let total = candidates.len();
    let count = |c: &str| candidates.iter().filter(|x| x.2 == c).count();
    let shown: Vec<Value> = candidates
        .iter()
        .take(limit)
        .map(|(conf, s, cat, n, reasons)| {
            json!({
                "id": s.stable_id,
                "name": s.name,
                "kind": s.kind,
                "container": s.container,
                "path": s.path,
                "line": s.start_line,
                "module": files.module_of(&s.path),
                "visibility": s.visibility,
                "category": cat,
                "references": n,
                "confidence": conf,
                "reasons": reasons,
            })
        })
        .collect();
    let explanation = if total == 0 {
        "No dead-code candidates were found.".to_string()
    } else {
        format!(
            "{total} candidate(s): {} unreferenced, {} self-only, {} test-only; showing {} by confidence.",
            count("unreferenced"),
            count("self-only"),
            count("test-only"),
            shown.len()
        )
    };
    let facts = json!({
        "filters": {"kinds": args.kinds, "scope": args.scope},
        "total": total,
        "counts": {
            "unreferenced": count("unreferenced"),
            "selfOnly": count("self-only"),
            "testOnly": count("test-only"),
        },
        "excluded": excluded,
        "candidates": shown,
    });
    let mut inv = "ckb query dead-code".to_string();
    for k in &args.kinds {
        inv.push_str(&format!(" --kind {}", shell_quote(k)));
    }
    if let Some(sc) = &args.scope {
        inv.push_str(&format!(" --scope {}", shell_quote(sc)));
    }
    let mut draft = Draft::new("dead-code", inv, facts, explanation);
    draft.completeness = coverage::references(ctx.snapshot, scip);
    draft.depends_on_scip = scip;
    draft.limited_list("candidates", total, shown.len());
    draft.items(symbols.len(), shown.len());
    if let Some((_, s, _, _, _)) = candidates.first() {
        draft.suggest_query(
            "refs",
            &s.stable_id,
            "confirm the best candidate has no uses",
        );
    }
    finish(ctx, draft)
}
