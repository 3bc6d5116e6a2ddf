//! `ckb query arch [--depth N] [--include-external]`: modules, classified dependency edges and
//! entry points, served from the precomputed `views/architecture.json.zst` (the modules stage
//! ranks modules by PageRank importance; this command never recomputes the graph).
//!
//! Facts: `modules` (view rank order, at most `--max-modules`, optionally only those at most
//! `--depth` folders deep), `edges` among the modules shown (strongest first, at most
//! `--max-items`; `kind` classifies each: local, workspace-package, …), `entrypoints` of the
//! modules shown, `externalEdges` (only with `--include-external`, most imports first, at most
//! `--max-items`) and `totals` over the whole graph. Each edge says whether it lies on a
//! dependency cycle (`inCycle`, `analysis::cycles` over every edge of the view), and `cycles`
//! lists the cycles that reach a module shown (all their members, largest first, at most
//! `--max-items`). Without the view (the modules stage did not run) the answer says so, with
//! completeness 0 and the command that builds it.
//!
//! `--format mermaid|dot` draws this answer (`pictures::arch`): the same modules, edges and cuts.
//!
//! Size: `arch` (~165 lines) filters, ranks and cuts modules, edges and entry points in the order the answer lists them.

use output_schema::views::{ArchitectureView, ModuleEdgeEntry, ModuleEntry};
use output_schema::{ErrorCode, View};
use serde_json::{json, Value};

use crate::analysis::cycles;
use crate::envelope::answer::{Answer, CompletenessInfo};
use crate::envelope::budget::check_range;
use crate::envelope::respond::{finish, Ctx, Cut, Draft, Trim};
use crate::snapshot::coverage;
use crate::QueryError;

/// Name of the view.
pub const VIEW: &str = ArchitectureView::INFO.name;

/// Allowed range of `--depth` for `arch`.
pub const DEPTH_RANGE: (u64, u64) = (0, 32);

/// What `arch` was asked.
#[derive(Clone, Debug, Default)]
pub struct ArchArgs {
    /// Deepest module folder depth kept (`.` is 0, `crates/core` is 2).
    pub depth: Option<u64>,
    /// Whether to list edges to external packages.
    pub include_external: bool,
}

/// Reads a view of the snapshot into its declared struct; `Ok(None)` when it was not written.
/// A view that cannot be read or does not decode is `SNAPSHOT_CORRUPT`.
pub fn read_view<V: View>(ctx: &Ctx<'_>) -> Result<Option<V>, QueryError> {
    let name = V::INFO.name;
    let Some(entry) = ctx.snapshot.manifest.views.iter().find(|v| v.name == name) else {
        return Ok(None);
    };
    let corrupt = |e: String| {
        QueryError::new(
            ErrorCode::SnapshotCorrupt,
            format!("view {name} ({}) cannot be read: {e}", entry.file),
            "run `ckb verify <snapshot>`, then rebuild the snapshot with `ckb snapshot --force`",
        )
    };
    if entry.file.contains("..") || entry.file.starts_with('/') {
        return Err(corrupt(
            "the manifest names a file outside the snapshot".into(),
        ));
    }
    let bytes =
        std::fs::read(ctx.snapshot.dir.join(&entry.file)).map_err(|e| corrupt(e.to_string()))?;
    let text = output_schema::manifest::decompress(&bytes).map_err(|e| corrupt(e.to_string()))?;
    V::decode(&text).map(Some).map_err(corrupt)
}

fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Runs `arch`.
pub fn arch(ctx: &Ctx<'_>, args: &ArchArgs) -> Result<Answer, QueryError> {
    let depth = args
        .depth
        .map(|d| check_range("--depth", d, DEPTH_RANGE))
        .transpose()?;
    let mut inv = "ckb query arch".to_string();
    if let Some(d) = depth {
        inv.push_str(&format!(" --depth {d}"));
    }
    if args.include_external {
        inv.push_str(" --include-external");
    }
    let Some(view) = read_view::<ArchitectureView>(ctx)? else {
        let reason = coverage::stage(ctx.snapshot, "modules")
            .and_then(|r| r.reason.clone())
            .unwrap_or_else(|| "not recorded".into());
        let facts = json!({"modules": [], "edges": [], "cycles": [], "entrypoints": [], "viewPresent": false});
        let mut draft = Draft::new(
            "arch",
            inv,
            facts,
            format!(
                "This snapshot has no architecture view: the modules stage did not run ({reason})."
            ),
        );
        draft.completeness = CompletenessInfo {
            score: 0.0,
            reason: "modules-stage-not-run".into(),
        };
        draft.suggest(
            "ckb snapshot --force --stages scan,syntax,scip,git,identity,modules",
            "build a snapshot with the modules stage",
        );
        return finish(ctx, draft);
    };

    // Counts come from a file that may be hostile: negative ones read as 0, and every
    // subtraction below saturates.
    let count = |n: i64| usize::try_from(n).unwrap_or(0);
    let eligible: Vec<&ModuleEntry> = view
        .modules
        .iter()
        .filter(|m| depth.is_none_or(|d| count(m.depth) <= d))
        .collect();
    let view_total_modules = count(view.totals.modules);
    let eligible_total = if depth.is_none() {
        view_total_modules.max(eligible.len())
    } else {
        eligible.len()
    };
    let shown: Vec<&ModuleEntry> = eligible.iter().copied().take(ctx.budget.modules).collect();
    let ids: std::collections::BTreeSet<&str> = shown.iter().map(|m| m.id.as_str()).collect();
    let among = |module: &str| ids.contains(module);
    let edges: Vec<&ModuleEdgeEntry> = view
        .edges
        .iter()
        .filter(|e| among(&e.from) && among(&e.to))
        .collect();
    let edges_total = edges.len();
    let edges: Vec<&ModuleEdgeEntry> = edges.into_iter().take(ctx.budget.items).collect();
    let all_cycles = cycles::cycles(view.edges.iter().map(|e| (e.from.as_str(), e.to.as_str())));
    let cycle_of = cycles::cycle_of(&all_cycles);
    let edges_json: Vec<Value> = edges
        .iter()
        .map(|e| {
            let mut v = to_json(e);
            v["inCycle"] = Value::Bool(cycles::on_cycle(&cycle_of, &e.from, &e.to));
            v
        })
        .collect();
    let cycles_shown: Vec<&Vec<String>> = all_cycles
        .iter()
        .filter(|c| c.iter().any(|m| among(m)))
        .collect();
    let cycles_total = cycles_shown.len();
    let cycles_shown: Vec<&Vec<String>> = cycles_shown.into_iter().take(ctx.budget.items).collect();
    let eps: Vec<_> = view
        .entrypoints
        .iter()
        .filter(|e| among(&e.module))
        .collect();
    let eps_total = eps.len();
    let eps: Vec<_> = eps.into_iter().take(ctx.budget.modules).collect();
    let mut facts = json!({
        "viewPresent": true,
        "modules": to_json(&shown),
        "edges": edges_json,
        "cycles": to_json(&cycles_shown),
        "entrypoints": to_json(&eps),
        "totals": to_json(&view.totals),
        "ranking": view.ranking,
    });
    let mut ext_cut = None;
    let mut ext_shown = 0;
    let mut ext_total = 0;
    if args.include_external {
        let ext: Vec<&ModuleEdgeEntry> = view
            .external_edges
            .iter()
            .filter(|e| among(&e.from))
            .collect();
        ext_cut = Cut::of(
            "externalEdges",
            "max-items",
            ext.len(),
            ext.len().min(ctx.budget.items),
            Some("--max-items"),
        );
        ext_shown = ext.len().min(ctx.budget.items);
        ext_total = ext.len();
        let ext: Vec<&ModuleEdgeEntry> = ext.into_iter().take(ctx.budget.items).collect();
        facts["externalEdges"] = to_json(&ext);
    }
    let top = shown.first().map(|m| m.id.clone());
    let cycle_note = match cycles_total {
        0 => String::new(),
        n => format!(" {n} dependency cycle(s) reach them."),
    };
    let explanation = format!(
        "{} module(s){}; showing {} by importance with {} internal edge(s) among them and {} entry point(s).{}{cycle_note}",
        eligible_total,
        depth.map(|d| format!(" at depth ≤ {d}")).unwrap_or_default(),
        shown.len(),
        edges.len(),
        eps.len(),
        top.as_ref()
            .map(|t| format!(" Most central: {t} (rank 1)."))
            .unwrap_or_default()
    );
    let mut draft = Draft::new("arch", inv, facts, explanation);
    draft.completeness = coverage::modules(ctx.snapshot);
    draft.cut_list(
        "modules",
        "max-modules",
        eligible_total,
        shown.len(),
        "--max-modules",
    );
    draft.cut_list(
        "edges",
        "max-items",
        edges_total,
        edges.len(),
        "--max-items",
    );
    draft.cut(Cut::of(
        "entrypoints",
        "max-modules",
        eps_total,
        eps.len(),
        None,
    ));
    draft.cut(ext_cut);
    draft.cut(Cut::of(
        "cycles",
        "max-items",
        cycles_total,
        cycles_shown.len(),
        Some("--max-items"),
    ));
    let hidden_by_view = count(view.truncated.modules);
    if hidden_by_view > 0 {
        draft.warnings.push(format!(
            "the architecture view lists the {} most important modules; {hidden_by_view} more exist",
            view_total_modules.saturating_sub(hidden_by_view)
        ));
    }
    draft.trims = vec![
        Trim::new("/externalEdges", "externalEdges"),
        Trim::summary("/cycles", "cycles"),
        Trim::new("/entrypoints", "entrypoints"),
        Trim::new("/edges", "edges"),
        Trim::new("/modules", "modules"),
    ];
    draft.items(
        eligible_total + edges_total + eps_total + ext_total,
        shown.len() + edges.len() + eps.len() + ext_shown,
    );
    if let Some(t) = top {
        draft.suggest(
            format!(
                "ckb query explore {}",
                crate::envelope::respond::shell_quote(&t)
            ),
            "the most central module in detail",
        );
    }
    if !args.include_external {
        draft.suggest(
            format!("{} --include-external", draft.invocation),
            "dependencies on external packages",
        );
    }
    finish(ctx, draft)
}
