//! Java and Kotlin imports.
//!
//! `java.*`, `javax.*`, `jdk.*` (and `kotlin.*`) are stdlib. A class import
//! `com.acme.core.Util` resolves to the file whose path ends in `com/acme/core/Util.java` (or
//! `.kt`), a static member import by dropping trailing segments, a wildcard import
//! `com.acme.core.*` to the folder ending in `com/acme/core` — matched by path suffix because a
//! source root (`src/main/java`, …) is a convention, not a declaration. Several matches in
//! different modules are ambiguous and stay unknown. Otherwise a dependency declared in a pom.xml
//! or Gradle build of the importer's folder or an ancestor, whose groupId prefixes the import,
//! is external (`group:artifact`); sharing only the first two segments with a groupId is fuzzy.

use std::collections::HashMap;

use super::{Method, Resolution, Resolver, Unresolved, EXACT, FUZZY, SUFFIX};
use crate::modules::paths::{ancestors, file_name, parent_dir};
use crate::modules::stdlib;

/// Lookups for Java resolution.
pub struct JavaContext {
    /// Folders holding a `.java`/`.kt` file directly, by their last component, sorted.
    package_dirs: HashMap<String, Vec<String>>,
}

impl JavaContext {
    /// Indexes the folders that hold Java or Kotlin sources.
    pub fn new(files: &[&str]) -> JavaContext {
        let mut package_dirs: HashMap<String, Vec<String>> = HashMap::new();
        for f in files
            .iter()
            .filter(|f| f.ends_with(".java") || f.ends_with(".kt"))
        {
            let d = parent_dir(f);
            let v = package_dirs.entry(file_name(d).to_string()).or_default();
            if !v.iter().any(|x| x == d) {
                v.push(d.to_string());
            }
        }
        // Sorting each list in place: the order lists are visited in cannot leak.
        #[allow(clippy::iter_over_hash_type)]
        for v in package_dirs.values_mut() {
            v.sort();
        }
        JavaContext { package_dirs }
    }
}

/// Resolves a Java/Kotlin import.
pub fn resolve(r: &Resolver<'_>, path: &str, raw: &str) -> Resolution {
    let raw = raw.trim().strip_prefix("import ").unwrap_or(raw.trim());
    let raw = raw.strip_prefix("static ").unwrap_or(raw).trim();
    let raw = raw.split(" as ").next().unwrap_or(raw).trim();
    let (name, wildcard) = match raw.strip_suffix(".*") {
        Some(n) => (n, true),
        None => (raw, false),
    };
    if stdlib::java(&format!("{name}.")).is_some() {
        // The package part: lowercase segments before the first class name.
        let pkg: Vec<&str> = name
            .split('.')
            .take_while(|s| s.chars().next().is_some_and(|c| c.is_lowercase()))
            .collect();
        return Resolution::stdlib(pkg.join("."));
    }
    let segs: Vec<&str> = name.split('.').filter(|s| !s.is_empty()).collect();
    if segs.is_empty() {
        return Resolution::unknown(Unresolved::NotFound);
    }
    if wildcard {
        let suffix = segs.join("/");
        let last = segs[segs.len() - 1];
        let dirs: Vec<String> = r
            .java
            .package_dirs
            .get(last)
            .into_iter()
            .flatten()
            .filter(|d| **d == suffix || d.ends_with(&format!("/{suffix}")))
            .cloned()
            .collect();
        match r.pick(&dirs, path) {
            Ok(Some(d)) => return Resolution::path(r.index, d, Method::Suffix, SUFFIX),
            Ok(None) => {}
            Err(why) => return Resolution::unknown(why),
        }
    } else {
        for k in (2..=segs.len()).rev() {
            let rel = segs[..k].join("/");
            let cands = r
                .index
                .with_any_suffix(&[format!("{rel}.java"), format!("{rel}.kt")]);
            match r.pick(&cands, path) {
                Ok(Some(f)) => return Resolution::path(r.index, f, Method::Suffix, SUFFIX),
                Ok(None) => continue,
                Err(why) => return Resolution::unknown(why),
            }
        }
    }
    let mut deps: Vec<&(String, String)> = Vec::new();
    for d in ancestors(parent_dir(path)) {
        if let Some(j) = r.manifests.java.get(d) {
            deps.extend(&j.deps);
        }
    }
    let exact = deps
        .iter()
        .filter(|(g, _)| name == g || name.starts_with(&format!("{g}.")))
        .max_by(|x, y| x.0.len().cmp(&y.0.len()).then(y.1.cmp(&x.1)));
    if let Some((g, a)) = exact {
        return Resolution::external(format!("{g}:{a}"), Method::Exact, EXACT);
    }
    let two: Vec<&str> = segs.iter().take(2).copied().collect();
    if two.len() == 2 {
        let prefix = format!("{}.{}", two[0], two[1]);
        let fuzzy = deps
            .iter()
            .filter(|(g, _)| *g == prefix || g.starts_with(&format!("{prefix}.")))
            .min();
        if let Some((g, a)) = fuzzy {
            return Resolution::external(format!("{g}:{a}"), Method::Fuzzy, FUZZY);
        }
    }
    Resolution::unknown(Unresolved::NotFound)
}
