//! Cargo: `Cargo.toml` packages and workspaces (members, exclusions, path and renamed
//! dependencies, `workspace = true` inheritance).

use std::collections::BTreeMap;

use super::*;
use crate::modules::formats::{self};
use crate::modules::paths::join;

pub(super) fn read_cargo(m: &mut Manifests, path: &str, dir: &str, text: &str) {
    let table: toml::Table = match toml::from_str(text) {
        Ok(t) => t,
        Err(e) => return m.malformed(path, formats::toml_error(&e, text)),
    };
    let mut c = CargoManifest {
        dir: dir.to_string(),
        ..CargoManifest::default()
    };
    let package = table.get("package").and_then(|v| v.as_table());
    c.name = package
        .and_then(|p| p.get("name"))
        .and_then(|v| v.as_str())
        .map(str::to_string);
    let lib = table.get("lib").and_then(|v| v.as_table());
    c.crate_name = lib
        .and_then(|l| l.get("name"))
        .and_then(|v| v.as_str())
        .map(str::to_string)
        .or_else(|| c.name.clone())
        .map(|n| n.replace('-', "_"));
    c.lib_path = lib
        .and_then(|l| l.get("path"))
        .and_then(|v| v.as_str())
        .and_then(|p| join(dir, p));
    if let Some(bins) = table.get("bin").and_then(|v| v.as_array()) {
        for b in bins {
            if let Some(p) = b
                .get("path")
                .and_then(|v| v.as_str())
                .and_then(|p| join(dir, p))
            {
                c.bin_paths.push(p);
            }
        }
    }
    let mut dep_tables: Vec<&toml::Table> = Vec::new();
    for key in [
        "dependencies",
        "dev-dependencies",
        "build-dependencies",
        "dev_dependencies",
        "build_dependencies",
    ] {
        if let Some(t) = table.get(key).and_then(|v| v.as_table()) {
            dep_tables.push(t);
        }
    }
    if let Some(targets) = table.get("target").and_then(|v| v.as_table()) {
        for (_, t) in targets {
            for key in ["dependencies", "dev-dependencies", "build-dependencies"] {
                if let Some(t) = t.get(key).and_then(|v| v.as_table()) {
                    dep_tables.push(t);
                }
            }
        }
    }
    for t in dep_tables {
        c.deps.extend(cargo_deps(dir, t));
    }
    if let Some(ws) = table.get("workspace").and_then(|v| v.as_table()) {
        let strings = |k: &str| toml_strings(ws.get(k));
        let deps = ws
            .get("dependencies")
            .and_then(|v| v.as_table())
            .map(|t| cargo_deps(dir, t))
            .unwrap_or_default();
        c.workspace = Some(CargoWorkspace {
            members: strings("members"),
            exclude: strings("exclude"),
            deps,
        });
    }
    m.cargo.insert(dir.to_string(), c);
}

pub(super) fn cargo_deps(dir: &str, t: &toml::Table) -> BTreeMap<String, Dep> {
    let mut out = BTreeMap::new();
    for (key, v) in t {
        let package = v
            .get("package")
            .and_then(|p| p.as_str())
            .unwrap_or(key)
            .to_string();
        let local_dir = v
            .get("path")
            .and_then(|p| p.as_str())
            .and_then(|p| join(dir, p));
        let inherited = v.get("workspace").and_then(|w| w.as_bool()) == Some(true);
        out.insert(
            key.replace('-', "_"),
            Dep {
                package,
                local_dir,
                inherited,
            },
        );
    }
    out
}

/// `dep = { workspace = true }` takes its package and path from the nearest enclosing workspace.
pub(super) fn inherit_cargo_workspace_deps(m: &mut Manifests) {
    let workspaces: Vec<(String, BTreeMap<String, Dep>)> = m
        .cargo
        .iter()
        .filter_map(|(d, c)| c.workspace.as_ref().map(|w| (d.clone(), w.deps.clone())))
        .collect();
    for (dir, c) in m.cargo.iter_mut() {
        let ws = crate::modules::paths::ancestors(dir)
            .find_map(|a| workspaces.iter().find(|(d, _)| d == a))
            .map(|(_, deps)| deps);
        let Some(ws) = ws else { continue };
        for (key, dep) in c.deps.iter_mut() {
            if dep.inherited {
                if let Some(w) = ws.get(key) {
                    dep.package = w.package.clone();
                    dep.local_dir = w.local_dir.clone();
                }
            }
        }
    }
}
