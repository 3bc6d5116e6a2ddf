//! Go import paths.
//!
//! An import path inside the module path of a go.mod of this repository (the longest matching
//! module path wins; `replace` directives pointing at local folders count as such modules) names
//! the folder below that module's root: `local-module` within the importer's own module,
//! `workspace-package` for another module of the repository. A path whose first element has no
//! dot is the standard library. A path inside a module `require`d by the importer's go.mod is
//! external, named by that module path.

use std::collections::BTreeMap;

use super::{nearest, Kind, Method, Resolution, Resolver, Unresolved, EXACT};
use crate::modules::manifests::Manifests;
use crate::modules::paths::{child, parent_dir};
use crate::modules::stdlib;

/// Lookups for Go resolution.
pub struct GoContext {
    /// Module path → folder of its go.mod (local `replace` targets included).
    modules: BTreeMap<String, String>,
}

impl GoContext {
    /// Indexes the repository's Go modules.
    pub fn new(m: &Manifests) -> GoContext {
        let mut modules = BTreeMap::new();
        for (dir, g) in &m.go {
            modules
                .entry(g.module_path.clone())
                .or_insert_with(|| dir.clone());
        }
        for g in m.go.values() {
            for (from, to) in &g.replaces {
                if let Some(to) = to.as_ref().filter(|t| m.go.contains_key(*t)) {
                    modules.entry(from.clone()).or_insert_with(|| to.clone());
                }
            }
        }
        GoContext { modules }
    }
}

/// The longest prefix of `path` (at `/` boundaries) for which `f` answers.
fn longest_prefix<'a, T>(
    path: &'a str,
    mut f: impl FnMut(&'a str) -> Option<T>,
) -> Option<(&'a str, T)> {
    let mut end = path.len();
    loop {
        let prefix = &path[..end];
        if let Some(v) = f(prefix) {
            return Some((prefix, v));
        }
        end = prefix.rfind('/')?;
    }
}

/// Resolves a Go import path.
pub fn resolve(r: &Resolver<'_>, path: &str, raw: &str) -> Resolution {
    // `alias "path"` or `_ "path"` when the alias was kept in the raw text.
    let spec = raw
        .rsplit(char::is_whitespace)
        .next()
        .unwrap_or(raw)
        .trim_matches('"');
    if spec.is_empty() {
        return Resolution::unknown(Unresolved::NotFound);
    }
    let own = nearest(&r.manifests.go, parent_dir(path)).map(|(d, _)| d.clone());
    if let Some((prefix, dir)) = longest_prefix(spec, |p| r.go.modules.get(p).cloned()) {
        let rest = spec[prefix.len()..].trim_start_matches('/');
        let target = if rest.is_empty() {
            dir.clone()
        } else {
            child(&dir, rest)
        };
        if !r.index.is_dir(&target) {
            return Resolution::unknown(Unresolved::NotFound);
        }
        let kind = if own.as_deref() == Some(dir.as_str()) {
            Kind::LocalModule
        } else {
            Kind::WorkspacePackage
        };
        return Resolution::local(kind, target, Method::Exact, EXACT);
    }
    if spec == "C" || stdlib::go(spec) {
        return Resolution::stdlib(spec);
    }
    if let Some((_, g)) = nearest(&r.manifests.go, parent_dir(path)) {
        if let Some((module, _)) =
            longest_prefix(spec, |p| g.requires.iter().any(|q| q == p).then_some(()))
        {
            return Resolution::external(module, Method::Exact, EXACT);
        }
    }
    Resolution::unknown(Unresolved::NotFound)
}

#[cfg(test)]
mod tests {
    use super::longest_prefix;

    #[test]
    fn prefixes_at_slashes() {
        let mods = ["example.com/app", "example.com/app/tools"];
        let f = |p: &str| mods.contains(&p).then_some(());
        assert_eq!(
            longest_prefix("example.com/app/tools/x", f).map(|x| x.0),
            Some("example.com/app/tools")
        );
        assert_eq!(
            longest_prefix("example.com/application", f).map(|x| x.0),
            None
        );
    }
}
