//! Go: `go.mod` modules (module path, `require`, `replace`) and the directive reader `go.work`
//! shares.

use super::*;
use crate::modules::paths::join;

/// Arguments of a go.mod / go.work directive, single-line or in a `( … )` block.
pub(super) fn go_directive_args(text: &str, directive: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("").trim();
        if in_block {
            if line.starts_with(')') {
                in_block = false;
            } else if !line.is_empty() {
                out.push(line.to_string());
            }
            continue;
        }
        let Some(rest) = line.strip_prefix(directive) else {
            continue;
        };
        if !rest.starts_with([' ', '\t', '(']) {
            continue;
        }
        let rest = rest.trim();
        if let Some(inner) = rest.strip_prefix('(') {
            let inner = inner.trim();
            if let Some(inner) = inner.strip_suffix(')') {
                if !inner.trim().is_empty() {
                    out.push(inner.trim().to_string());
                }
            } else {
                in_block = true;
                if !inner.is_empty() {
                    out.push(inner.to_string());
                }
            }
        } else if !rest.is_empty() {
            out.push(rest.to_string());
        }
    }
    out.into_iter()
        .map(|s| s.trim_matches('"').to_string())
        .collect()
}

pub(super) fn read_go_mod(m: &mut Manifests, path: &str, dir: &str, text: &str) {
    let module_path = go_directive_args(text, "module")
        .into_iter()
        .next()
        .map(|s| {
            s.split_whitespace()
                .next()
                .unwrap_or("")
                .trim_matches('"')
                .to_string()
        })
        .filter(|s| !s.is_empty());
    let Some(module_path) = module_path else {
        return m.malformed(path, "invalid go.mod: no module directive".into());
    };
    let requires = go_directive_args(text, "require")
        .iter()
        .filter_map(|r| r.split_whitespace().next())
        .map(|s| s.trim_matches('"').to_string())
        .collect();
    let replaces = go_directive_args(text, "replace")
        .iter()
        .filter_map(|r| {
            let (from, to) = r.split_once("=>")?;
            let from = from
                .split_whitespace()
                .next()?
                .trim_matches('"')
                .to_string();
            let to = to.split_whitespace().next()?.trim_matches('"');
            let local = (to.starts_with("./") || to.starts_with("../"))
                .then(|| join(dir, to))
                .flatten();
            Some((from, local))
        })
        .collect();
    m.go.insert(
        dir.to_string(),
        GoModule {
            dir: dir.to_string(),
            module_path,
            requires,
            replaces,
        },
    );
}
