//! TypeScript / JavaScript (and Dart) imports.
//!
//! Order, as the TypeScript compiler and Node resolve: `node:` and `dart:` schemes → stdlib;
//! relative paths (extension and index-file rules, `.js` written for a `.ts` source, bundler
//! `?query` suffixes dropped); root-relative `/x` against the nearest package folder, then the
//! repository root, as bundlers serve them; package.json subpath imports (`#x`); tsconfig
//! `paths` (longest matching prefix) and `baseUrl` of the nearest tsconfig.json / jsconfig.json
//! with its `extends` chain; workspace package names (with subpaths); dependencies declared in
//! the nearest package.json and its ancestors; Node built-ins; else unknown.

use std::collections::{BTreeMap, HashMap};

use super::{nearest, Kind, Method, Resolution, Resolver, Unresolved, EXACT, LIKELY, SUFFIX};
use crate::modules::manifests::{Manifests, TsConfigFile};
use crate::modules::paths::{child, file_name, join, parent_dir, RepoIndex};
use crate::modules::stdlib;

/// Extensions tried after a path without one, in order.
const EXTENSIONS: &[&str] = &[
    ".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".json",
];

/// The effective module-resolution settings of one tsconfig/jsconfig after `extends`.
#[derive(Clone, Debug, Default)]
struct Effective {
    base_url: Option<String>,
    paths: Vec<(String, Vec<String>)>,
    paths_base: String,
}

/// Lookups for JS/TS resolution.
pub struct JsContext {
    /// Effective tsconfig/jsconfig by folder.
    configs: BTreeMap<String, Effective>,
    /// npm package name → folder.
    packages: HashMap<String, String>,
    /// pub package name → folder.
    dart: HashMap<String, String>,
    /// Counts for the report.
    pub counts: BTreeMap<String, i64>,
}

impl JsContext {
    /// Applies `extends` to every tsconfig.json / jsconfig.json and indexes package names.
    pub fn new(m: &Manifests, index: &RepoIndex<'_>) -> JsContext {
        let mut counts = BTreeMap::new();
        let mut configs = BTreeMap::new();
        for path in m.tsconfig.keys() {
            let name = file_name(path);
            if name != "tsconfig.json" && name != "jsconfig.json" {
                continue;
            }
            let dir = parent_dir(path).to_string();
            // tsconfig.json wins over jsconfig.json in the same folder (as in editors).
            if name == "jsconfig.json" && configs.contains_key(&dir) {
                continue;
            }
            let eff = effective(m, index, path, &mut counts);
            configs.insert(dir, eff);
        }
        let mut packages = HashMap::new();
        for (dir, n) in &m.npm {
            if let Some(name) = &n.name {
                // Two packages with one name: the first folder wins, deterministically.
                packages.entry(name.clone()).or_insert_with(|| dir.clone());
            }
        }
        let mut dart = HashMap::new();
        for (dir, d) in &m.dart {
            if let Some(name) = &d.name {
                dart.entry(name.clone()).or_insert_with(|| dir.clone());
            }
        }
        JsContext {
            configs,
            packages,
            dart,
            counts,
        }
    }
}

fn effective(
    m: &Manifests,
    index: &RepoIndex<'_>,
    path: &str,
    counts: &mut BTreeMap<String, i64>,
) -> Effective {
    // Follow the chain child → base; the first file that sets a value wins.
    let mut chain: Vec<(String, &TsConfigFile)> = Vec::new();
    let mut queue = vec![path.to_string()];
    while let Some(p) = queue.pop() {
        if chain.len() >= 16 || chain.iter().any(|(q, _)| *q == p) {
            *counts.entry("tsconfig.extends-cyclic".into()).or_default() += 1;
            break;
        }
        let Some(cfg) = m.tsconfig.get(&p) else { break };
        chain.push((p.clone(), cfg));
        // With several bases the later ones win, so visit them last-first.
        for ext in cfg.extends.iter().rev() {
            if !(ext.starts_with('.') || ext.starts_with('/')) {
                // A package (`@tsconfig/node20/tsconfig.json`) lives in node_modules, which is not scanned.
                *counts
                    .entry("tsconfig.extends-unresolved".into())
                    .or_default() += 1;
                continue;
            }
            let dir = parent_dir(&p);
            let target = join(dir, ext).and_then(|t| {
                if index.is_file(&t) {
                    Some(t)
                } else {
                    let with = format!("{t}.json");
                    index.is_file(&with).then_some(with).or_else(|| {
                        let inner = child(&t, "tsconfig.json");
                        index.is_file(&inner).then_some(inner)
                    })
                }
            });
            match target {
                Some(t) => queue.push(t),
                None => {
                    *counts
                        .entry("tsconfig.extends-unresolved".into())
                        .or_default() += 1
                }
            }
        }
    }
    let base_url = chain.iter().find_map(|(_, c)| c.base_url.clone());
    let paths_def = chain
        .iter()
        .find_map(|(p, c)| c.paths.as_ref().map(|x| (p, x)));
    let (paths, paths_base) = match paths_def {
        Some((p, x)) => (
            x.clone(),
            base_url
                .clone()
                .unwrap_or_else(|| parent_dir(p).to_string()),
        ),
        None => (Vec::new(), String::new()),
    };
    Effective {
        base_url,
        paths,
        paths_base,
    }
}

/// A repository file for a path written without (or with a JS) extension, or an index file.
pub fn resolve_file(index: &RepoIndex<'_>, base: &str) -> Option<String> {
    if index.is_file(base) {
        return Some(base.to_string());
    }
    // One buffer for every candidate name: this runs for most imports of a JS/TS repository.
    let mut buf = String::with_capacity(base.len() + 12);
    let mut try_with = |stem: &str, suffix: &str| {
        buf.clear();
        buf.push_str(stem);
        buf.push_str(suffix);
        index.is_file(&buf).then(|| buf.clone())
    };
    if let Some(f) = EXTENSIONS.iter().find_map(|ext| try_with(base, ext)) {
        return Some(f);
    }
    // ESM TypeScript writes the emitted name: `./a.js` for `a.ts`.
    for (js, ts) in [
        (".js", &[".ts", ".tsx", ".d.ts"][..]),
        (".jsx", &[".tsx"][..]),
        (".mjs", &[".mts"][..]),
        (".cjs", &[".cts"][..]),
    ] {
        if let Some(stem) = base.strip_suffix(js) {
            if let Some(f) = ts.iter().find_map(|t| try_with(stem, t)) {
                return Some(f);
            }
        }
    }
    if index.is_dir(base) {
        let stem = format!("{base}/index");
        return EXTENSIONS.iter().find_map(|ext| try_with(&stem, ext));
    }
    None
}

fn package_name(spec: &str) -> &str {
    let mut it = spec.splitn(3, '/');
    match (it.next(), it.next()) {
        (Some(scope), Some(name)) if scope.starts_with('@') => {
            &spec[..scope.len() + 1 + name.len()]
        }
        (Some(first), _) => first,
        _ => spec,
    }
}

fn match_pattern<'p>(pattern: &str, spec: &'p str) -> Option<&'p str> {
    match pattern.split_once('*') {
        Some((pre, suf)) => spec
            .strip_prefix(pre)
            .and_then(|r| r.strip_suffix(suf))
            .filter(|_| spec.len() >= pre.len() + suf.len()),
        None => (pattern == spec).then_some(""),
    }
}

/// The `paths` / `imports` entry matching `spec`: an exact key beats any wildcard, then the
/// longest prefix before `*` wins (as TypeScript and Node choose). Returns its targets and the
/// text `*` captured.
fn best_pattern<'p, 's>(
    patterns: &'p [(String, Vec<String>)],
    spec: &'s str,
) -> Option<(&'p [String], &'s str)> {
    patterns
        .iter()
        .filter_map(|(pat, targets)| match_pattern(pat, spec).map(|cap| (pat, targets, cap)))
        .max_by_key(|(pat, _, _)| {
            (
                !pat.contains('*'),
                pat.split('*').next().map(str::len).unwrap_or(0),
            )
        })
        .map(|(_, targets, cap)| (targets.as_slice(), cap))
}

/// Resolves a JS/TS import.
pub fn resolve(r: &Resolver<'_>, path: &str, spec: &str) -> Resolution {
    let index = r.index;
    let dir = r.dir_of(path);
    if let Some(rest) = spec.strip_prefix("node:") {
        return Resolution::stdlib(rest.split('/').next().unwrap_or(rest).to_string());
    }
    // Bundler queries (`./a.svg?url`, `./b.css?inline`) do not change the file.
    let spec = match spec.split_once('?') {
        Some((p, _)) if p.starts_with('.') || p.starts_with('/') => p,
        _ => spec,
    };
    if spec.starts_with("./") || spec.starts_with("../") || spec == "." || spec == ".." {
        let Some(base) = join(dir, spec) else {
            return Resolution::unknown(Unresolved::EscapesRepo);
        };
        return match resolve_file(index, &base) {
            Some(f) => Resolution::local(Kind::LocalFile, f, Method::Exact, EXACT),
            None => Resolution::unknown(Unresolved::NotFound),
        };
    }
    if let Some(rooted) = spec.strip_prefix('/') {
        // Bundlers (Vite, webpack dev servers) read `/x` from the project root: the nearest
        // package folder, else the repository root. Anything else is a path outside the repository.
        let roots = nearest(&r.manifests.npm, dir)
            .map(|(d, _)| d.as_str())
            .into_iter()
            .chain(["."]);
        for root in roots {
            if let Some(f) = join(root, rooted).and_then(|b| resolve_file(index, &b)) {
                return Resolution::local(Kind::LocalFile, f, Method::Suffix, SUFFIX);
            }
        }
        return Resolution::unknown(Unresolved::EscapesRepo);
    }
    if spec.starts_with('#') {
        // package.json subpath imports of the nearest package that declares them.
        let decl = crate::modules::paths::ancestors(dir)
            .filter_map(|d| r.manifests.npm.get_key_value(d))
            .find(|(_, n)| !n.imports.is_empty());
        if let Some((pkg_dir, n)) = decl {
            if let Some((targets, cap)) = best_pattern(&n.imports, spec) {
                for t in targets {
                    if let Some(f) = join(pkg_dir, &t.replacen('*', cap, 1))
                        .and_then(|b| resolve_file(index, &b))
                    {
                        return Resolution::local(Kind::LocalFile, f, Method::Exact, EXACT);
                    }
                }
            }
        }
        return Resolution::unknown(Unresolved::NotFound);
    }
    let ctx = &r.js;
    if let Some((_, cfg)) = nearest(&ctx.configs, dir) {
        // The pattern with the longest prefix before `*` wins; an exact key beats any wildcard.
        if let Some((targets, cap)) = best_pattern(&cfg.paths, spec) {
            for t in targets {
                let sub = t.replacen('*', cap, 1);
                match join(&cfg.paths_base, &sub) {
                    Some(base) => {
                        if let Some(f) = resolve_file(index, &base) {
                            return Resolution::local(Kind::LocalFile, f, Method::Exact, EXACT);
                        }
                    }
                    None => return Resolution::unknown(Unresolved::EscapesRepo),
                }
            }
        }
        if let Some(base_url) = &cfg.base_url {
            if let Some(f) = join(base_url, spec).and_then(|b| resolve_file(index, &b)) {
                return Resolution::local(Kind::LocalFile, f, Method::Exact, EXACT);
            }
        }
    }
    let pkg = package_name(spec);
    if let Some(pkg_dir) = ctx.packages.get(pkg) {
        let sub = &spec[pkg.len()..].trim_start_matches('/');
        let own = nearest(&r.manifests.npm, dir).map(|(d, _)| d.as_str()) == Some(pkg_dir.as_str());
        return workspace_target(r, pkg_dir, sub, own);
    }
    let declared = crate::modules::paths::ancestors(dir)
        .filter_map(|d| r.manifests.npm.get(d))
        .any(|n| n.deps.contains(pkg));
    if declared {
        return Resolution::external(pkg, Method::Exact, EXACT);
    }
    if stdlib::node(spec) || stdlib::node(pkg) {
        return Resolution::stdlib(pkg);
    }
    Resolution::unknown(Unresolved::NotFound)
}

/// The file inside workspace package `pkg_dir` that `sub` (possibly empty) names.
fn workspace_target(r: &Resolver<'_>, pkg_dir: &str, sub: &str, own: bool) -> Resolution {
    let index = r.index;
    // A package importing itself by name is not a dependency on another package.
    let kind = if own {
        Kind::LocalFile
    } else {
        Kind::WorkspacePackage
    };
    let found = if sub.is_empty() {
        let entries = r
            .manifests
            .npm
            .get(pkg_dir)
            .map(|n| n.entry_files.as_slice())
            .unwrap_or_default();
        entries
            .iter()
            .find_map(|e| resolve_file(index, e))
            .or_else(|| resolve_file(index, &child(pkg_dir, "src/index")))
            .or_else(|| resolve_file(index, &child(pkg_dir, "index")))
    } else {
        join(pkg_dir, sub)
            .and_then(|b| resolve_file(index, &b))
            .or_else(|| join(&child(pkg_dir, "src"), sub).and_then(|b| resolve_file(index, &b)))
    };
    match found {
        Some(f) => Resolution::local(kind, f, Method::Exact, EXACT),
        // The package is certain even when its entry file is built output outside the scan.
        None => Resolution::local(
            Kind::WorkspacePackage,
            pkg_dir.to_string(),
            Method::Exact,
            LIKELY,
        ),
    }
}

/// Resolves a Dart import (`dart:`, `package:`, relative).
pub fn resolve_dart(r: &Resolver<'_>, path: &str, spec: &str) -> Resolution {
    if let Some(lib) = spec.strip_prefix("dart:") {
        return Resolution::stdlib(lib.to_string());
    }
    if let Some(rest) = spec.strip_prefix("package:") {
        let (pkg, sub) = rest.split_once('/').unwrap_or((rest, ""));
        if let Some(dir) = r.js.dart.get(pkg) {
            let file = join(&child(dir, "lib"), sub).filter(|f| r.index.is_file(f));
            let own = nearest(&r.manifests.dart, r.dir_of(path)).map(|(d, _)| d) == Some(dir);
            let kind = if own {
                Kind::LocalFile
            } else {
                Kind::WorkspacePackage
            };
            return match file {
                Some(f) => Resolution::local(kind, f, Method::Exact, EXACT),
                None => {
                    Resolution::local(Kind::WorkspacePackage, dir.clone(), Method::Exact, LIKELY)
                }
            };
        }
        let declared =
            nearest(&r.manifests.dart, r.dir_of(path)).is_some_and(|(_, d)| d.deps.contains(pkg));
        return if declared {
            Resolution::external(pkg, Method::Exact, EXACT)
        } else {
            Resolution::unknown(Unresolved::NotFound)
        };
    }
    match join(r.dir_of(path), spec) {
        Some(f) if r.index.is_file(&f) => {
            Resolution::local(Kind::LocalFile, f, Method::Exact, EXACT)
        }
        Some(_) => Resolution::unknown(Unresolved::NotFound),
        None => Resolution::unknown(Unresolved::EscapesRepo),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_and_package_names() {
        assert_eq!(match_pattern("@/*", "@/lib/x"), Some("lib/x"));
        assert_eq!(match_pattern("@app/utils", "@app/utils"), Some(""));
        assert_eq!(match_pattern("*.css", "a.css"), Some("a"));
        assert_eq!(match_pattern("ab*ba", "aba"), None);
        assert_eq!(package_name("@acme/ui/button"), "@acme/ui");
        assert_eq!(package_name("lodash/fp"), "lodash");
        assert_eq!(package_name("react"), "react");
    }

    #[test]
    fn extension_and_index_rules() {
        let idx = RepoIndex::new(["a/b.ts", "a/c/index.tsx", "a/d.d.ts", "a/e.ts"].into_iter());
        assert_eq!(resolve_file(&idx, "a/b").as_deref(), Some("a/b.ts"));
        assert_eq!(resolve_file(&idx, "a/c").as_deref(), Some("a/c/index.tsx"));
        assert_eq!(resolve_file(&idx, "a/d").as_deref(), Some("a/d.d.ts"));
        assert_eq!(resolve_file(&idx, "a/e.js").as_deref(), Some("a/e.ts"));
        assert_eq!(resolve_file(&idx, "a/zz"), None);
    }
}
