//! Rust `use` paths, `extern crate` names and `mod` declarations.
//!
//! A path is resolved against the module tree that `mod` declarations build by convention:
//! module `a::b` of a crate whose root file is in folder `D` lives in `D/a/b.rs` or
//! `D/a/b/mod.rs`. `crate::` starts at the importing file's crate root, `self::` at its own
//! module and `super::` one module up; the longest prefix of the path that names a file is the
//! target (the rest are items). A first segment that is a child module of the importing module
//! resolves the same way (2018-edition paths). Otherwise the first segment is a crate: `std`,
//! `core`, `alloc`, `proc_macro`, `test` are stdlib; a crate of this repository (by `[lib].name` or
//! package name, or a path dependency under its local name) is a workspace package resolved inside
//! that crate; a dependency declared in the package's Cargo.toml is external. `#[path]`
//! attributes and inline `mod x { … }` blocks are not seen: an item path that names no file
//! resolves to the crate root file with lower confidence.

use std::collections::HashMap;

use super::{nearest, Kind, Method, Resolution, Resolver, Unresolved, EXACT, LIKELY};
use crate::modules::manifests::{CargoManifest, Manifests};
use crate::modules::paths::{child, parent_dir, strip_dir, RepoIndex};
use crate::modules::stdlib;

/// Lookups for Rust resolution.
pub struct RustContext {
    /// Crate name (as written in paths) → package folder.
    crates: HashMap<String, String>,
}

impl RustContext {
    /// Indexes crate names of the repository.
    pub fn new(m: &Manifests) -> RustContext {
        let mut crates = HashMap::new();
        for (dir, c) in &m.cargo {
            if let Some(n) = &c.crate_name {
                crates.entry(n.clone()).or_insert_with(|| dir.clone());
            }
        }
        RustContext { crates }
    }
}

/// Where a file sits in its crate's module tree.
struct Position {
    /// Folder of the crate root file (children of the crate root live here).
    root_dir: String,
    /// Crate root file.
    root_file: String,
    /// Module path of the file below the crate root.
    module: Vec<String>,
}

/// The crate root file that owns `path` inside package `pkg`, and the file's module path.
fn position(
    index: &RepoIndex<'_>,
    pkg_dir: &str,
    c: Option<&CargoManifest>,
    path: &str,
) -> Position {
    let rel = strip_dir(path, pkg_dir).unwrap_or(path);
    let comps: Vec<&str> = rel.split('/').collect();
    // Separate crate roots: src/bin/<x>.rs, src/bin/<x>/main.rs, tests/<x>.rs, examples/…, benches/….
    let target_root = match comps.as_slice() {
        ["src", "bin", f] => Some(vec!["src", "bin", *f]),
        ["src", "bin", d, ..] => Some(vec!["src", "bin", *d, "main.rs"]),
        [top @ ("tests" | "examples" | "benches"), f] => Some(vec![*top, *f]),
        [top @ ("tests" | "examples" | "benches"), d, ..] => Some(vec![*top, *d, "main.rs"]),
        ["build.rs"] => Some(vec!["build.rs"]),
        _ => None,
    };
    let root_file = match target_root {
        Some(parts) => child(pkg_dir, &parts.join("/")),
        None => {
            let lib = c
                .and_then(|c| c.lib_path.clone())
                .unwrap_or_else(|| child(pkg_dir, "src/lib.rs"));
            let main = child(pkg_dir, "src/main.rs");
            if index.is_file(&lib) || !index.is_file(&main) {
                lib
            } else {
                main
            }
        }
    };
    let root_dir = parent_dir(&root_file).to_string();
    let mut module: Vec<String> = Vec::new();
    if path != root_file {
        if let Some(inner) = strip_dir(path, &root_dir) {
            let mut parts: Vec<&str> = inner.split('/').collect();
            let last = parts.pop().unwrap_or("");
            module.extend(parts.iter().map(|s| s.to_string()));
            let stem = last.trim_end_matches(".rs");
            if stem != "mod" {
                module.push(stem.to_string());
            }
        }
    }
    Position {
        root_dir,
        root_file,
        module,
    }
}

/// The file of the longest prefix of `segs` that names a module file under `root_dir`.
///
/// Every import of every file asks this on every run, so the candidates are spelled in one
/// buffer: the longest prefix's path is written once and cut back a segment at a time.
fn module_file(index: &RepoIndex<'_>, root_dir: &str, segs: &[String]) -> Option<(String, usize)> {
    let full = child(root_dir, &segs.join("/"));
    // The length of the path of the first k segments: the whole path less the later segments
    // and the slash before each.
    let mut base_len = full.len();
    let mut candidate = String::with_capacity(full.len() + "/mod.rs".len());
    for k in (1..=segs.len()).rev() {
        for suffix in [".rs", "/mod.rs"] {
            candidate.clear();
            candidate.push_str(&full[..base_len]);
            candidate.push_str(suffix);
            if index.is_file(&candidate) {
                return Some((candidate, k));
            }
        }
        base_len -= segs[k - 1].len() + usize::from(k > 1);
    }
    None
}

fn split_path(raw: &str) -> Vec<String> {
    // `a::b::{c, d}` and `a::b::*` and `a::b as c` name module `a::b`.
    let raw = raw.split('{').next().unwrap_or(raw);
    let raw = raw.split(" as ").next().unwrap_or(raw);
    raw.trim()
        .trim_start_matches("::")
        .split("::")
        .map(str::trim)
        .filter(|s| !s.is_empty() && *s != "*")
        .map(|s| s.strip_prefix("r#").unwrap_or(s).to_string())
        .collect()
}

/// Resolves a Rust import.
pub fn resolve(r: &Resolver<'_>, path: &str, raw: &str) -> Resolution {
    let index = r.index;
    let raw = raw.trim().strip_prefix("use ").unwrap_or(raw.trim());
    let raw = raw.strip_prefix("extern crate ").unwrap_or(raw);
    let pkg = nearest(&r.manifests.cargo, parent_dir(path)).filter(|(_, c)| c.name.is_some());
    let (pkg_dir, manifest) = match pkg {
        Some((d, c)) => (d.as_str(), Some(c)),
        None => (".", None),
    };
    let pos = position(index, pkg_dir, manifest, path);
    if let Some(name) = raw.strip_prefix("mod ") {
        // `mod x;` in a file declares its child module.
        let mut segs = pos.module.clone();
        segs.push(name.trim().trim_end_matches(';').to_string());
        let base = child(&pos.root_dir, &segs.join("/"));
        return [format!("{base}.rs"), format!("{base}/mod.rs")]
            .into_iter()
            .find(|f| index.is_file(f))
            .map(|f| Resolution::local(Kind::LocalFile, f, Method::Exact, EXACT))
            .unwrap_or(Resolution::unknown(Unresolved::NotFound));
    }
    let segs = split_path(raw);
    let Some(first) = segs.first() else {
        return Resolution::unknown(Unresolved::NotFound);
    };
    let absolute_crate = raw.trim_start().starts_with("::");
    let module: Vec<String> = match first.as_str() {
        "crate" if !absolute_crate => segs[1..].to_vec(),
        "self" if !absolute_crate => {
            let mut m = pos.module.clone();
            m.extend(segs[1..].iter().cloned());
            m
        }
        "super" if !absolute_crate => {
            let mut m = pos.module.clone();
            let mut rest = &segs[..];
            while rest.first().map(String::as_str) == Some("super") {
                if m.pop().is_none() {
                    // Above the crate root: an error rustc would report, not a path out of the repository.
                    return Resolution::unknown(Unresolved::NotFound);
                }
                rest = &rest[1..];
            }
            m.extend(rest.iter().cloned());
            m
        }
        _ => {
            // A child module of the importing module shadows a crate of the same name.
            let mut m = pos.module.clone();
            m.extend(segs.iter().cloned());
            if !absolute_crate {
                let below = pos.module.len();
                if let Some((f, k)) = module_file(index, &pos.root_dir, &m) {
                    if k > below {
                        return Resolution::local(Kind::LocalFile, f, Method::Exact, EXACT);
                    }
                }
            }
            return resolve_crate(r, manifest, pkg_dir, &segs);
        }
    };
    match module_file(index, &pos.root_dir, &module) {
        Some((f, _)) => Resolution::local(Kind::LocalFile, f, Method::Exact, EXACT),
        None if index.is_file(&pos.root_file) => {
            Resolution::local(Kind::LocalFile, pos.root_file, Method::Exact, LIKELY)
        }
        None => Resolution::unknown(Unresolved::NotFound),
    }
}

fn resolve_crate(
    r: &Resolver<'_>,
    manifest: Option<&CargoManifest>,
    pkg_dir: &str,
    segs: &[String],
) -> Resolution {
    let first = segs[0].as_str();
    if stdlib::rust(first) {
        return Resolution::stdlib(first);
    }
    let dep = manifest.and_then(|c| c.deps.get(first));
    // A path dependency names its folder; otherwise a crate of the repository by its name.
    let local_dir = dep
        .and_then(|d| d.local_dir.clone())
        .filter(|d| r.manifests.cargo.contains_key(d))
        .or_else(|| {
            let by_name = r.rust.crates.get(first).cloned();
            // A registry dependency that merely shares a name with a local crate stays external.
            by_name.filter(|_| dep.is_none_or(|d| d.local_dir.is_some() || d.inherited))
        });
    if let Some(dir) = local_dir {
        let c = r.manifests.cargo.get(&dir);
        let lib_root = c
            .and_then(|c| c.lib_path.clone())
            .unwrap_or_else(|| child(&dir, "src/lib.rs"));
        let root_dir = parent_dir(&lib_root).to_string();
        // Tests, examples and binaries name their own package's library by its crate name.
        let (kind, confidence) = if dir == pkg_dir && manifest.is_some() {
            (Kind::LocalFile, EXACT)
        } else if dep.is_some() {
            (Kind::WorkspacePackage, EXACT)
        } else {
            (Kind::WorkspacePackage, LIKELY)
        };
        return match module_file(r.index, &root_dir, &segs[1..]) {
            Some((f, _)) => Resolution::local(kind, f, Method::Exact, confidence),
            None if r.index.is_file(&lib_root) => {
                Resolution::local(kind, lib_root, Method::Exact, confidence)
            }
            None => Resolution::local(Kind::WorkspacePackage, dir, Method::Exact, confidence),
        };
    }
    if let Some(d) = dep {
        return Resolution::external(d.package.clone(), Method::Exact, EXACT);
    }
    Resolution::unknown(Unresolved::NotFound)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_split_to_modules() {
        assert_eq!(split_path("crate::a::{b, c}"), ["crate", "a"]);
        assert_eq!(split_path("::serde::de::*"), ["serde", "de"]);
        assert_eq!(split_path("std::io as sio"), ["std", "io"]);
        assert_eq!(split_path("r#type::x"), ["type", "x"]);
    }

    #[test]
    fn module_file_finds_the_longest_prefix_that_names_a_file() {
        let idx = RepoIndex::new(
            [
                "src/a.rs",
                "src/a/b/mod.rs",
                "x/src/net/mod.rs",
                "x/src/net/tcp.rs",
                "top.rs",
                "top/inner/mod.rs",
            ]
            .into_iter(),
        );
        let segs = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
        let cases = [
            ("src", "a::b::c", Some(("src/a/b/mod.rs", 2))),
            ("src", "a::z", Some(("src/a.rs", 1))),
            ("x/src", "net::tcp::Stream", Some(("x/src/net/tcp.rs", 2))),
            ("x/src", "net::udp", Some(("x/src/net/mod.rs", 1))),
            (".", "top::inner::f", Some(("top/inner/mod.rs", 2))),
            ("", "top::g", Some(("top.rs", 1))),
            ("src", "nothing::here", None),
        ];
        for (root, path, want) in cases {
            let got = module_file(&idx, root, &segs(path));
            assert_eq!(
                got.as_ref().map(|(f, k)| (f.as_str(), *k)),
                want,
                "{root} {path}"
            );
        }
        assert_eq!(module_file(&idx, "src", &[]), None);
    }

    #[test]
    fn positions_in_the_module_tree() {
        let idx = RepoIndex::new(
            [
                "c/src/lib.rs",
                "c/src/a/mod.rs",
                "c/src/a/b.rs",
                "c/src/bin/tool.rs",
                "c/tests/it.rs",
            ]
            .into_iter(),
        );
        let p = position(&idx, "c", None, "c/src/a/b.rs");
        assert_eq!(
            (p.root_file.as_str(), p.module.clone()),
            ("c/src/lib.rs", vec!["a".to_string(), "b".to_string()])
        );
        let p = position(&idx, "c", None, "c/src/a/mod.rs");
        assert_eq!(p.module, ["a"]);
        let p = position(&idx, "c", None, "c/src/bin/tool.rs");
        assert_eq!(
            (p.root_file.as_str(), p.module.len()),
            ("c/src/bin/tool.rs", 0)
        );
        let p = position(&idx, "c", None, "c/tests/it.rs");
        assert_eq!(p.root_dir, "c/tests");
        assert_eq!(
            module_file(&idx, "c/src", &["a".into(), "b".into(), "Item".into()])
                .unwrap()
                .0,
            "c/src/a/b.rs"
        );
    }
}
