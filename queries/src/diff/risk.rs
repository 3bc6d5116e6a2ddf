//! The risk of a change set, in the shared risk model (`analysis::risk`, where the weights are
//! documented): each factor is a bounded count — breaking API changes by severity, dependents in
//! untouched files, modules and callers reached, untested changed symbols, co-change partners left
//! alone, files touched, missing inputs — turned into a value in 0..=1 with its weight.
//! Factors are listed most contribution first (ties by name).

use crate::analysis::risk::Risk;

use super::api::{ApiDiff, Severity};
use super::compare::{FileDiff, SymbolDiff};
use super::impact::{Impact, MAX_DEPTH};
use super::DiffCompleteness;

/// A factor counted in points up to a cap: its value is points / cap, its weight cap / 100.
fn bounded(name: &str, points: u64, cap: u64, detail: String) -> (&str, f64, f64, String) {
    (
        name,
        points.min(cap) as f64 / cap as f64,
        cap as f64 / 100.0,
        detail,
    )
}

/// Scores the change.
pub(crate) fn risk(
    files: &FileDiff,
    symbols: &SymbolDiff,
    api: &ApiDiff,
    impact: &Impact,
    completeness: &DiffCompleteness,
) -> Risk {
    let by = |sev: Severity| api.breaking.iter().filter(|c| c.severity == sev).count() as u64;
    let (high, medium, low) = (by(Severity::High), by(Severity::Medium), by(Severity::Low));
    // Without the base's call graph and references nothing is known to reach tests: not measured.
    let no_graph = ["call_edges", "occurrences"].iter().all(|t| {
        completeness
            .missing
            .iter()
            .any(|m| m.snapshot == "base" && m.table == *t)
    });
    let untested = if no_graph {
        0
    } else {
        impact
            .changed
            .iter()
            .filter(|c| c.tests.is_empty() && !c.in_test_file)
            .count() as u64
    };
    let reached = impact.callers + impact.transitive_callers;
    let modules = impact.modules.len() as u64;
    let breaking = 15 * high + 8 * medium + 3 * low;
    let missing = completeness.missing.len() as u64;
    let mut risk = Risk::weighted(vec![
        bounded(
            "breaking-api",
            breaking,
            45,
            format!(
                "{} breaking change(s) to the public surface ({high} high, {medium} medium, {low} low)",
                api.breaking.len()
            ),
        ),
        bounded(
            "untouched-callers",
            3 * impact.untouched_callers,
            24,
            format!(
                "{} dependent(s) of changed interfaces are in files this change does not touch",
                impact.untouched_callers
            ),
        ),
        bounded(
            "modules-affected",
            4 * modules.saturating_sub(1),
            12,
            format!("the change reaches {modules} module(s)"),
        ),
        bounded(
            "callers-reached",
            reached / 3,
            10,
            format!(
                "{} direct and {} transitive dependent(s) (to depth {MAX_DEPTH})",
                impact.callers, impact.transitive_callers
            ),
        ),
        bounded(
            "untested-changes",
            2 * untested,
            10,
            if no_graph {
                "not measured: the base snapshot has no call graph or references".into()
            } else {
                format!("{untested} changed symbol(s) that no test reaches")
            },
        ),
        bounded(
            "missed-cochange",
            3 * impact.cochange.len() as u64,
            9,
            format!(
                "{} file(s) usually changed together with touched files were not touched",
                impact.cochange.len()
            ),
        ),
        bounded(
            "change-size",
            files.count() as u64 / 5,
            10,
            format!(
                "{} file(s) and {} symbol change(s)",
                files.count(),
                symbols.count()
            ),
        ),
        bounded(
            "incomplete-data",
            if missing == 0 { 0 } else { 5 },
            5,
            if missing == 0 {
                "every input was available".into()
            } else {
                format!("{missing} input table(s) missing: the risk may be underestimated")
            },
        ),
    ]);
    risk.factors.sort_by(|a, b| {
        b.contribution
            .unwrap_or(0.0)
            .total_cmp(&a.contribution.unwrap_or(0.0))
            .then_with(|| a.factor.cmp(&b.factor))
    });
    risk
}
