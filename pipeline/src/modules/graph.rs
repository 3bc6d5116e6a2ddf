//! The module graph: `module_edges` rows from classified imports and SCIP references, and
//! entry points.
//!
//! Every edge is traceable: an in-repository edge exists only when at least one import row goes
//! from a file of one module to a target in the other, or at least one SCIP reference occurrence in
//! one module points at a symbol defined in the other. External edges (`external:<package>`) come
//! only from import rows classified `external-dependency` or `stdlib`; SCIP references to an
//! external package add to an existing external edge but never create one.

use std::collections::BTreeMap;

use output_schema::tables::{ImportRow, ModuleEdgeRow, OccurrenceRow};
use output_schema::Roles;

use super::manifests::normalize_python_name;
use crate::fast_map::FastMap;

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
    symbol_module: &FastMap<&str, usize>,
) -> (Vec<ModuleEdgeRow>, ReferenceStats) {
    let index: FastMap<&str, usize> = module_ids
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
    // The external edges in key order (as the rows list them), and for SCIP references the
    // position of the edge of each package a module already depends on (from imports).
    let mut external: Vec<((usize, String, &'static str), Acc)> = external.into_iter().collect();
    let mut ext_by_module: FastMap<(usize, String), usize> = FastMap::default();
    for (at, ((from, target, _), _)) in external.iter().enumerate() {
        ext_by_module.insert((*from, target.clone()), at);
        ext_by_module
            .entry((*from, normalize_python_name(target)))
            .or_insert(at);
    }
    if let Some(occs) = occurrences {
        // Rows come sorted by path, and an index references the same external symbols again and
        // again: the last file's module and each (module, symbol)'s edge are looked up once.
        let mut last_file: Option<(&str, Option<usize>)> = None;
        let mut external_edge: FastMap<(usize, &str), Option<usize>> = FastMap::default();
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
            let from = match last_file {
                Some((path, module)) if path == o.path.as_str() => module,
                _ => {
                    let module = file_module(&o.path);
                    last_file = Some((o.path.as_str(), module));
                    module
                }
            };
            let Some(from) = from else {
                continue;
            };
            if let Some(&to) = symbol_module.get(sym) {
                if to != from {
                    stats.cross_module += 1;
                    internal.entry((from, to)).or_default().references += 1;
                }
            } else {
                let edge = *external_edge.entry((from, sym)).or_insert_with(|| {
                    let pkg = scip_package(sym)?;
                    let normalized = normalize_python_name(&pkg);
                    ext_by_module
                        .get(&(from, pkg))
                        .or_else(|| ext_by_module.get(&(from, normalized)))
                        .copied()
                });
                if let Some(at) = edge {
                    external[at].1.references += 1;
                    stats.external += 1;
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
    let strength = Strength::new(external.iter().map(|(_, acc)| acc));
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

    fn import(from: &str, kind: &str, target: &str) -> ImportRow {
        ImportRow {
            kind: kind.into(),
            target: Some(target.into()),
            from_module: Some(from.into()),
            ..ImportRow::unclassified(
                format!("{from}/x.py"),
                1,
                "i".into(),
                vec![],
                "python".into(),
            )
        }
    }

    fn reference(path: &str, line: i32, symbol: &str) -> OccurrenceRow {
        test_support::rows::reference(Some(symbol), "n", path, line, "scip")
    }

    #[test]
    fn scip_references_count_on_internal_edges_and_only_add_to_external_ones() {
        let modules = ["a".to_string(), "b".to_string()];
        let imports = vec![
            import("a", "external-dependency", "Typing_Extensions"),
            import("a", "stdlib", "os"),
        ];
        let mut occurrences = vec![
            // a → b, twice.
            reference("a/x.py", 1, "scip-python python b 1 b/f()."),
            reference("a/x.py", 2, "scip-python python b 1 b/f()."),
            // To a package `a` imports, under its normalized name.
            reference("a/x.py", 3, "scip-python python typing-extensions 4 m/T#"),
            reference("a/y.py", 1, "scip-python python typing-extensions 4 m/T#"),
            reference("a/y.py", 2, "scip-python python os . os/path."),
            // To packages `a` does not import, and from `b`, which imports nothing: no edge.
            reference("a/y.py", 3, "scip-python python numpy 1 np/array()."),
            reference("b/z.py", 1, "scip-python python os . os/path."),
            // Within a module, and from a file in no module.
            reference("b/z.py", 2, "scip-python python b 1 b/f()."),
            reference("c/w.py", 1, "scip-python python b 1 b/f()."),
        ];
        occurrences.sort_by(|x, y| (&x.path, x.line).cmp(&(&y.path, y.line)));
        let file_module = |p: &str| match p.split('/').next() {
            Some("a") => Some(0),
            Some("b") => Some(1),
            _ => None,
        };
        let symbol_module: FastMap<&str, usize> =
            [("scip-python python b 1 b/f().", 1)].into_iter().collect();
        let (edges, stats) = build_edges(
            &modules,
            &imports,
            Some(&occurrences),
            &file_module,
            &symbol_module,
        );
        let got: Vec<(&str, &str, i64, i64)> = edges
            .iter()
            .map(|e| {
                let (from, to) = (e.from_module.as_str(), e.to_module.as_str());
                (from, to, e.import_count, e.reference_count)
            })
            .collect();
        assert_eq!(
            got,
            [
                ("a", "b", 0, 2),
                ("a", "external:Typing_Extensions", 1, 2),
                ("a", "external:os", 1, 1),
            ]
        );
        assert_eq!((stats.cross_module, stats.external), (2, 3));
        assert_eq!(stats.reference_only_edges, 1);
    }
}
