//! Builds the `architecture` view (`views/architecture.json.zst`, declared in
//! `output_schema::views::ArchitectureView`): what `ckb query arch` serves without recomputation.
//!
//! Bounded: at most [`MAX_MODULES`] modules ranked by importance, the internal edges among them
//! (at most [`MAX_EDGES`], strongest first), at most [`MAX_EXTERNAL_EDGES`] edges to external
//! packages (kept apart: the default answer leaves them out), and at most [`MAX_ENTRYPOINTS`]
//! entry points; `totals` and `truncated` say what was left out. Importance is a PageRank over the
//! internal edges weighted by import plus reference counts (damping 0.85, 50 iterations, fixed
//! order), scaled so the top module has 1; ties fall back to line count, then module ID.

use std::collections::HashMap;

use output_schema::tables::{ModuleEdgeRow, ModuleRow};
use output_schema::views::{
    ArchitectureView, ModuleCounts, ModuleEdgeEntry, ModuleEntry, ModuleEntrypointEntry,
};

use super::graph::{Entrypoint, EXTERNAL_PREFIX};

/// Modules listed.
pub const MAX_MODULES: usize = 200;
/// Internal edges listed.
pub const MAX_EDGES: usize = 1000;
/// External edges listed.
pub const MAX_EXTERNAL_EDGES: usize = 500;
/// Entry points listed.
pub const MAX_ENTRYPOINTS: usize = 200;
/// Format version of the view.
pub const VIEW_VERSION: i64 = 1;

/// Importance of each module (same order as `modules`), 0..1.
pub fn importance(modules: &[ModuleRow], edges: &[ModuleEdgeRow]) -> Vec<f64> {
    let n = modules.len();
    if n == 0 {
        return Vec::new();
    }
    let idx: HashMap<&str, usize> = modules
        .iter()
        .enumerate()
        .map(|(i, m)| (m.module_id.as_str(), i))
        .collect();
    let mut out_links: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    for e in edges {
        if e.to_module.starts_with(EXTERNAL_PREFIX) {
            continue;
        }
        if let (Some(&f), Some(&t)) = (
            idx.get(e.from_module.as_str()),
            idx.get(e.to_module.as_str()),
        ) {
            out_links[f].push((t, (e.import_count + e.reference_count) as f64));
        }
    }
    let totals: Vec<f64> = out_links
        .iter()
        .map(|l| l.iter().map(|(_, w)| w).sum())
        .collect();
    let d = 0.85;
    let nf = n as f64;
    let mut rank = vec![1.0 / nf; n];
    for _ in 0..50 {
        let dangling: f64 = (0..n).filter(|&i| totals[i] <= 0.0).map(|i| rank[i]).sum();
        let base = (1.0 - d) / nf + d * dangling / nf;
        let mut next = vec![base; n];
        for i in 0..n {
            if totals[i] > 0.0 {
                for &(t, w) in &out_links[i] {
                    next[t] += d * rank[i] * w / totals[i];
                }
            }
        }
        rank = next;
    }
    let max = rank.iter().cloned().fold(0.0, f64::max);
    rank.iter()
        .map(|r| {
            if max > 0.0 {
                (r / max * 1e6).round() / 1e6
            } else {
                0.0
            }
        })
        .collect()
}

/// Builds the view.
pub fn architecture(
    modules: &[ModuleRow],
    edges: &[ModuleEdgeRow],
    entrypoints: &[(String, Entrypoint)],
) -> ArchitectureView {
    let imp = importance(modules, edges);
    let mut fan_in = vec![0i64; modules.len()];
    let mut fan_out = vec![0i64; modules.len()];
    let idx: HashMap<&str, usize> = modules
        .iter()
        .enumerate()
        .map(|(i, m)| (m.module_id.as_str(), i))
        .collect();
    let mut internal: Vec<&ModuleEdgeRow> = Vec::new();
    let mut external: Vec<&ModuleEdgeRow> = Vec::new();
    for e in edges {
        if e.to_module.starts_with(EXTERNAL_PREFIX) {
            external.push(e);
        } else {
            if let Some(&t) = idx.get(e.to_module.as_str()) {
                fan_in[t] += 1;
            }
            if let Some(&f) = idx.get(e.from_module.as_str()) {
                fan_out[f] += 1;
            }
            internal.push(e);
        }
    }
    let mut order: Vec<usize> = (0..modules.len()).collect();
    order.sort_by(|&a, &b| {
        imp[b]
            .total_cmp(&imp[a])
            .then(modules[b].line_count.cmp(&modules[a].line_count))
            .then(modules[a].module_id.cmp(&modules[b].module_id))
    });
    let listed: Vec<usize> = order.iter().copied().take(MAX_MODULES).collect();
    let listed_ids: std::collections::HashSet<&str> = listed
        .iter()
        .map(|&i| modules[i].module_id.as_str())
        .collect();
    let module_entries: Vec<ModuleEntry> = listed
        .iter()
        .enumerate()
        .map(|(rank, &i)| {
            let m = &modules[i];
            ModuleEntry {
                id: m.module_id.clone(),
                name: m.name.clone(),
                root: m.root.clone(),
                manifest: m.manifest.clone(),
                detection: m.detection.clone(),
                language: m.language.clone(),
                files: m.file_count,
                symbols: m.symbol_count,
                lines: m.line_count,
                is_entrypoint: m.is_entrypoint,
                importance: imp[i],
                rank: count(rank + 1),
                fan_in: fan_in[i],
                fan_out: fan_out[i],
                depth: if m.module_id == "." {
                    0
                } else {
                    count(m.module_id.split('/').count())
                },
            }
        })
        .collect();
    // External edges: most imports, then most references, then by name; internal edges: the
    // strongest first, ties in the same order.
    let by_counts = |a: &&ModuleEdgeRow, b: &&ModuleEdgeRow| {
        b.import_count
            .cmp(&a.import_count)
            .then(b.reference_count.cmp(&a.reference_count))
            .then(a.from_module.cmp(&b.from_module))
            .then(a.to_module.cmp(&b.to_module))
            .then(a.kind.cmp(&b.kind))
    };
    let by_strength = |a: &&ModuleEdgeRow, b: &&ModuleEdgeRow| {
        b.strength
            .total_cmp(&a.strength)
            .then_with(|| by_counts(a, b))
    };
    let edge_entry = |e: &&ModuleEdgeRow| ModuleEdgeEntry {
        from: e.from_module.clone(),
        to: e.to_module.clone(),
        kind: e.kind.clone(),
        imports: e.import_count,
        references: e.reference_count,
        strength: e.strength,
    };
    let mut shown: Vec<&ModuleEdgeRow> = internal
        .iter()
        .copied()
        .filter(|e| {
            listed_ids.contains(e.from_module.as_str()) && listed_ids.contains(e.to_module.as_str())
        })
        .collect();
    shown.sort_by(by_strength);
    let edges_hidden = internal.len() - shown.len().min(MAX_EDGES);
    shown.truncate(MAX_EDGES);
    let mut ext: Vec<&ModuleEdgeRow> = external
        .iter()
        .copied()
        .filter(|e| listed_ids.contains(e.from_module.as_str()))
        .collect();
    ext.sort_by(by_counts);
    let ext_hidden = external.len() - ext.len().min(MAX_EXTERNAL_EDGES);
    ext.truncate(MAX_EXTERNAL_EDGES);
    let mut eps: Vec<&(String, Entrypoint)> = entrypoints
        .iter()
        .filter(|(m, _)| listed_ids.contains(m.as_str()))
        .collect();
    let eps_hidden = entrypoints.len() - eps.len().min(MAX_ENTRYPOINTS);
    eps.truncate(MAX_ENTRYPOINTS);
    ArchitectureView {
        version: VIEW_VERSION,
        modules: module_entries,
        edges: shown.iter().map(edge_entry).collect(),
        external_edges: ext.iter().map(edge_entry).collect(),
        entrypoints: eps
            .iter()
            .map(|(m, e)| ModuleEntrypointEntry {
                module: m.clone(),
                path: e.path.clone(),
                kind: e.kind.to_string(),
            })
            .collect(),
        totals: ModuleCounts {
            modules: count(modules.len()),
            edges: count(internal.len()),
            external_edges: count(external.len()),
            entrypoints: count(entrypoints.len()),
        },
        truncated: ModuleCounts {
            modules: count(modules.len() - listed.len()),
            edges: count(edges_hidden),
            external_edges: count(ext_hidden),
            entrypoints: count(eps_hidden),
        },
        ranking: "pagerank over internal edges weighted by imports + references (damping 0.85); ties by lines, then id".into(),
    }
}

/// A count as the view stores it (lists here are far below `i64::MAX`).
fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(id: String, lines: i64) -> ModuleRow {
        ModuleRow {
            name: id.clone(),
            root: id.clone(),
            module_id: id,
            manifest: "none".into(),
            detection: "directory".into(),
            language: None,
            file_count: 1,
            symbol_count: 0,
            line_count: lines,
            is_entrypoint: false,
        }
    }

    fn edge(from: &str, to: &str, imports: i64) -> ModuleEdgeRow {
        ModuleEdgeRow {
            from_module: from.into(),
            to_module: to.into(),
            kind: "local".into(),
            import_count: imports,
            reference_count: 0,
            strength: 1.0,
        }
    }

    #[test]
    fn view_is_bounded_and_ranked() {
        let modules: Vec<ModuleRow> = (0..250).map(|i| module(format!("m{i:03}"), i)).collect();
        // Everyone depends on m000; m001 is depended on by three.
        let mut edges: Vec<ModuleEdgeRow> = (1..250)
            .map(|i| edge(&format!("m{i:03}"), "m000", 1))
            .collect();
        edges.extend((2..5).map(|i| edge(&format!("m{i:03}"), "m001", 1)));
        edges.push(edge("m001", "external:serde", 3));
        let v = architecture(&modules, &edges, &[]);
        let listed = &v.modules;
        assert_eq!(listed.len(), MAX_MODULES);
        assert_eq!(v.truncated.modules, 50);
        assert_eq!(listed[0].id, "m000");
        assert_eq!(listed[0].importance, 1.0);
        assert_eq!(listed[1].id, "m001");
        // Among equally unimportant modules, more lines rank first.
        assert_eq!(listed[2].id, "m249");
        assert_eq!(v.totals.edges, 252);
        assert_eq!(v.external_edges.len(), 1);
        assert!(
            v.edges.len() < 252,
            "edges of unlisted modules are left out"
        );
    }

    #[test]
    fn importance_without_edges_is_uniform() {
        let modules = vec![module("a".into(), 1), module("b".into(), 2)];
        assert_eq!(importance(&modules, &[]), vec![1.0, 1.0]);
        assert!(importance(&[], &[]).is_empty());
    }
}
