//! The module graph: `module_edges` rows from classified imports and SCIP references, and
//! entry points.
//!
//! Every edge is traceable: an in-repository edge exists only when at least one import row goes
//! from a file of one module to a target in the other, or at least one SCIP reference occurrence in
//! one module points at a symbol defined in the other. External edges (`external:<package>`) come
//! only from import rows classified `external-dependency` or `stdlib`; SCIP references to an
//! external package add to an existing external edge but never create one.

use std::collections::{BTreeMap, HashMap};

use output_schema::tables::{ImportRow, ModuleEdgeRow, OccurrenceRow};
use output_schema::Roles;

use super::manifests::normalize_python_name;

/// Prefix of external module IDs in `module_edges.to_module`.
pub const EXTERNAL_PREFIX: &str = "external:";

#[derive(Default)]
struct Acc {
    imports: i64,
    references: i64,
    workspace: bool,
}

/// What SCIP references contributed.
#[derive(Debug, Default)]
pub struct ReferenceStats {
    /// Reference occurrences that cross from one module to another.
    pub cross_module: i64,
    /// References to external packages added to an external edge.
    pub external: i64,
    /// Edges that exist only because of references.
    pub reference_only_edges: i64,
}

/// The package named by a SCIP symbol string (`scheme manager package version descriptors`), in
/// the form import classification uses for targets.
pub fn scip_package(symbol: &str) -> Option<String> {
    if symbol.starts_with("local ") {
        return None;
    }
    let mut it = symbol.split(' ');
    let (_scheme, manager, package) = (it.next()?, it.next()?, it.next()?);
    it.next()?;
    if package == "." || package.is_empty() {
        return None;
    }
    // scip-java writes Maven packages as `maven/<group>/<artifact>`.
    if let Some(rest) = package.strip_prefix("maven/") {
        if let Some((g, a)) = rest.split_once('/') {
            return Some(format!("{g}:{a}"));
        }
    }
    let _ = manager;
    Some(package.to_string())
}

/// Builds the edges. `module_ids` are sorted module IDs; `file_module` maps a repo path to its
/// module index; `symbol_module` maps a stable symbol ID to its module index.
pub fn build_edges(
    module_ids: &[String],
    imports: &[ImportRow],
    occurrences: Option<&[OccurrenceRow]>,
    file_module: &dyn Fn(&str) -> Option<usize>,
    symbol_module: &HashMap<&str, usize>,
) -> (Vec<ModuleEdgeRow>, ReferenceStats) {
    let index: HashMap<&str, usize> = module_ids
        .iter()
        .enumerate()
        .map(|(i, m)| (m.as_str(), i))
        .collect();
    let mut internal: BTreeMap<(usize, usize), Acc> = BTreeMap::new();
    let mut external: BTreeMap<(usize, String, &'static str), Acc> = BTreeMap::new();
    for row in imports {
        let Some(from) = row
            .from_module
            .as_deref()
            .and_then(|m| index.get(m).copied())
        else {
            continue;
        };
        match row.kind.as_str() {
            "local-file" | "local-module" | "workspace-package" => {
                let Some(to) = row.to_module.as_deref().and_then(|m| index.get(m).copied()) else {
                    continue;
                };
                if from != to {
                    let acc = internal.entry((from, to)).or_default();
                    acc.imports += 1;
                    acc.workspace |= row.kind == "workspace-package";
                }
            }
            k @ ("external-dependency" | "stdlib") => {
                let Some(target) = &row.target else { continue };
                let kind = if k == "stdlib" {
                    "stdlib"
                } else {
                    "external-dependency"
                };
                external
                    .entry((from, target.clone(), kind))
                    .or_default()
                    .imports += 1;
            }
            _ => {}
        }
    }
    let mut stats = ReferenceStats::default();
    // External packages each module already depends on (from imports), for SCIP references.
    let mut ext_by_module: HashMap<(usize, String), (String, &'static str)> = HashMap::new();
    for (from, target, kind) in external.keys() {
        ext_by_module.insert((*from, target.clone()), (target.clone(), kind));
        ext_by_module
            .entry((*from, normalize_python_name(target)))
            .or_insert_with(|| (target.clone(), kind));
    }
    if let Some(occs) = occurrences {
        for o in occs {
            if o.source != "scip"
                || !o.roles.contains(Roles::REFERENCE)
                || o.roles.contains(Roles::DEFINITION)
            {
                continue;
            }
            let Some(sym) = o.symbol_id.as_deref() else {
                continue;
            };
            let Some(from) = file_module(&o.path) else {
                continue;
            };
            if let Some(&to) = symbol_module.get(sym) {
                if to != from {
                    stats.cross_module += 1;
                    internal.entry((from, to)).or_default().references += 1;
                }
            } else if let Some(pkg) = scip_package(sym) {
                let hit = ext_by_module
                    .get(&(from, pkg.clone()))
                    .or_else(|| ext_by_module.get(&(from, normalize_python_name(&pkg))));
                if let Some((target, kind)) = hit {
                    if let Some(acc) = external.get_mut(&(from, target.clone(), kind)) {
                        acc.references += 1;
                        stats.external += 1;
                    }
                }
            }
        }
    }
    stats.reference_only_edges = internal.values().filter(|a| a.imports == 0).count() as i64;
    let mut rows = Vec::with_capacity(internal.len() + external.len());
    let strength = Strength::new(internal.values());
    for ((from, to), acc) in &internal {
        rows.push(ModuleEdgeRow {
            from_module: module_ids[*from].clone(),
            to_module: module_ids[*to].clone(),
            kind: if acc.workspace {
                "workspace-package"
            } else {
                "local"
            }
            .to_string(),
            import_count: acc.imports,
            reference_count: acc.references,
            strength: strength.of(acc),
        });
    }
    let strength = Strength::new(external.values());
    for ((from, target, kind), acc) in &external {
        rows.push(ModuleEdgeRow {
            from_module: module_ids[*from].clone(),
            to_module: format!("{EXTERNAL_PREFIX}{target}"),
            kind: kind.to_string(),
            import_count: acc.imports,
            reference_count: acc.references,
            strength: strength.of(acc),
        });
    }
    (rows, stats)
}

/// Edge strength: log-scaled import and reference counts relative to the strongest edge of the
/// same group (internal or external), averaged when references exist; rounded to 6 decimals.
struct Strength {
    max_imports: f64,
    max_refs: f64,
}

impl Strength {
    fn new<'a>(accs: impl Iterator<Item = &'a Acc>) -> Strength {
        let (mut mi, mut mr) = (0i64, 0i64);
        for a in accs {
            mi = mi.max(a.imports);
            mr = mr.max(a.references);
        }
        Strength {
            max_imports: (mi as f64).ln_1p(),
            max_refs: (mr as f64).ln_1p(),
        }
    }

    fn of(&self, a: &Acc) -> f64 {
        let part = |v: i64, max: f64| {
            if max > 0.0 {
                (v as f64).ln_1p() / max
            } else {
                0.0
            }
        };
        let s = if self.max_refs > 0.0 && self.max_imports > 0.0 {
            0.5 * part(a.imports, self.max_imports) + 0.5 * part(a.references, self.max_refs)
        } else if self.max_refs > 0.0 {
            part(a.references, self.max_refs)
        } else {
            part(a.imports, self.max_imports)
        };
        (s * 1e6).round() / 1e6
    }
}

/// An entry point of a module.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entrypoint {
    /// File (or declaring manifest).
    pub path: String,
    /// `main-function`, `bin-target`, `package-bin`, `package-main`, `python-main`, `console-script`.
    pub kind: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scip_packages() {
        assert_eq!(
            scip_package("rust-analyzer cargo serde 1.0.0 de/Deserialize#").as_deref(),
            Some("serde")
        );
        assert_eq!(
            scip_package("semanticdb maven maven/com.google.guava/guava 31 com/google/Foo#")
                .as_deref(),
            Some("com.google.guava:guava")
        );
        assert_eq!(scip_package("local 4"), None);
        assert_eq!(scip_package("scip-go gomod . . x"), None);
    }
}
