//! npm: `package.json` packages, their workspaces and dependencies (`pnpm-workspace.yaml` is read
//! by the dispatcher in `mod.rs`).

use super::*;
use crate::modules::formats::{self};
use crate::modules::paths::join;

pub(super) fn read_package_json(m: &mut Manifests, path: &str, dir: &str, text: &str) {
    let v: serde_json::Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return m.malformed(path, formats::json_error(&e)),
    };
    let Some(obj) = v.as_object() else {
        return m.malformed(path, "package.json is not a JSON object".into());
    };
    let n = m.npm.entry(dir.to_string()).or_insert_with(|| NpmManifest {
        dir: dir.to_string(),
        ..NpmManifest::default()
    });
    n.name = obj.get("name").and_then(|v| v.as_str()).map(str::to_string);
    for key in [
        "dependencies",
        "devDependencies",
        "peerDependencies",
        "optionalDependencies",
    ] {
        if let Some(d) = obj.get(key).and_then(|v| v.as_object()) {
            n.deps.extend(d.keys().cloned());
        }
    }
    match obj.get("bin") {
        Some(serde_json::Value::String(s)) => n.bins.extend(join(dir, s)),
        Some(serde_json::Value::Object(o)) => n.bins.extend(
            o.values()
                .filter_map(|v| v.as_str())
                .filter_map(|s| join(dir, s)),
        ),
        _ => {}
    }
    if let Some(imports) = obj.get("imports").and_then(|v| v.as_object()) {
        for (pattern, target) in imports {
            let mut targets = Vec::new();
            string_leaves(target, &mut targets);
            n.imports.push((pattern.clone(), targets));
        }
    }
    n.main = obj
        .get("main")
        .and_then(|v| v.as_str())
        .and_then(|s| join(dir, s));
    for key in ["source", "module", "types", "typings", "main"] {
        if let Some(p) = obj
            .get(key)
            .and_then(|v| v.as_str())
            .and_then(|s| join(dir, s))
        {
            n.entry_files.push(p);
        }
    }
    match obj.get("workspaces") {
        Some(serde_json::Value::Array(a)) => n
            .workspaces
            .extend(a.iter().filter_map(|v| v.as_str()).map(str::to_string)),
        Some(serde_json::Value::Object(o)) => {
            if let Some(a) = o.get("packages").and_then(|v| v.as_array()) {
                n.workspaces
                    .extend(a.iter().filter_map(|v| v.as_str()).map(str::to_string));
            }
        }
        _ => {}
    }
}

/// Every string in a JSON value, depth first (conditional export/import maps).
pub(super) fn string_leaves(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| string_leaves(x, out)),
        serde_json::Value::Object(o) => o.values().for_each(|x| string_leaves(x, out)),
        _ => {}
    }
}
