//! Import resolution and classification: every `imports` row gets a kind, a target, a method and
//! a confidence.
//!
//! Kinds:
//! - `local-file` — a file of this repository (`target` = its path);
//! - `local-module` — a folder of this repository (a Go or Java package, a Python namespace
//!   package; `target` = the folder);
//! - `workspace-package` — another package of this repository named by its package name (a
//!   workspace crate, npm workspace package, Go module of another go.mod, a Python package of
//!   another project, a pub workspace package); `target` = the file or folder it resolves to;
//! - `external-dependency` — a package declared in a manifest (`target` = the package name);
//! - `stdlib` — the language's standard library (`target` = the library module or package);
//! - `unknown` — anything else (`target` null): undeclared packages, paths that do not exist,
//!   imports leaving the repository, ambiguous matches.
//!
//! Methods: `exact` (found by the language's own rules), `suffix` (the import's path matched the
//! end of exactly one plausible file), `fuzzy` (matched by a looser name rule). The confidence is
//! fixed per rule (see the constants) so equal inputs always give equal numbers.

mod c;
mod go;
mod java;
mod js;
mod python;
mod rust;

use std::collections::BTreeMap;

use output_schema::tables::ImportRow;

use super::manifests::Manifests;
use super::paths::{ancestors, parent_dir, RepoIndex};

/// Confidence of a resolution by the language's own rules.
pub const EXACT: f64 = 1.0;
/// Confidence when the rules leave some doubt (an item of a crate root, a module path that may be
/// an attribute, one of several roots defining the same top-level name).
pub const LIKELY: f64 = 0.9;
/// Confidence of a unique path-suffix match.
pub const SUFFIX: f64 = 0.8;
/// Confidence of a fuzzy name match.
pub const FUZZY: f64 = 0.5;

/// Import kinds as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A file of the repository.
    LocalFile,
    /// A folder of the repository.
    LocalModule,
    /// Another package of the repository, by name.
    WorkspacePackage,
    /// A package declared in a manifest.
    ExternalDependency,
    /// The standard library.
    Stdlib,
    /// Unresolved.
    Unknown,
}

impl Kind {
    /// The `imports.kind` value.
    pub fn name(self) -> &'static str {
        match self {
            Kind::LocalFile => "local-file",
            Kind::LocalModule => "local-module",
            Kind::WorkspacePackage => "workspace-package",
            Kind::ExternalDependency => "external-dependency",
            Kind::Stdlib => "stdlib",
            Kind::Unknown => "unknown",
        }
    }

    /// Whether the target lies inside the repository.
    pub fn is_local(self) -> bool {
        matches!(
            self,
            Kind::LocalFile | Kind::LocalModule | Kind::WorkspacePackage
        )
    }
}

/// How a target was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// By the language's rules.
    Exact,
    /// By a unique path suffix.
    Suffix,
    /// By a looser name match.
    Fuzzy,
}

impl Method {
    /// The `imports.method` value.
    pub fn name(self) -> &'static str {
        match self {
            Method::Exact => "exact",
            Method::Suffix => "suffix",
            Method::Fuzzy => "fuzzy",
        }
    }
}

/// Why an import stayed unknown (for the stage's counts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unresolved {
    /// No rule matched.
    NotFound,
    /// A relative path climbs out of the repository.
    EscapesRepo,
    /// Several candidates in different modules.
    Ambiguous,
    /// The language has no resolver.
    UnsupportedLanguage,
}

/// The classification of one import.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolution {
    /// Kind.
    pub kind: Kind,
    /// Path, folder or package name.
    pub target: Option<String>,
    /// Method, when resolved.
    pub method: Option<Method>,
    /// 0..1.
    pub confidence: f64,
    /// Why it is unknown.
    pub unresolved: Option<Unresolved>,
}

impl Resolution {
    /// A file or folder of the repository.
    pub fn local(kind: Kind, target: String, method: Method, confidence: f64) -> Resolution {
        Resolution {
            kind,
            target: Some(target),
            method: Some(method),
            confidence,
            unresolved: None,
        }
    }

    /// A repository file (`local-file`) or folder (`local-module`), by whether it is a file.
    pub fn path(
        index: &RepoIndex<'_>,
        target: String,
        method: Method,
        confidence: f64,
    ) -> Resolution {
        let kind = if index.is_file(&target) {
            Kind::LocalFile
        } else {
            Kind::LocalModule
        };
        Resolution::local(kind, target, method, confidence)
    }

    /// A declared external package.
    pub fn external(package: impl Into<String>, method: Method, confidence: f64) -> Resolution {
        Resolution {
            kind: Kind::ExternalDependency,
            target: Some(package.into()),
            method: Some(method),
            confidence,
            unresolved: None,
        }
    }

    /// A standard-library module.
    pub fn stdlib(name: impl Into<String>) -> Resolution {
        Resolution {
            kind: Kind::Stdlib,
            target: Some(name.into()),
            method: Some(Method::Exact),
            confidence: EXACT,
            unresolved: None,
        }
    }

    /// Unresolved.
    pub fn unknown(why: Unresolved) -> Resolution {
        Resolution {
            kind: Kind::Unknown,
            target: None,
            method: None,
            confidence: 0.0,
            unresolved: Some(why),
        }
    }
}

/// Chooses among several repository candidates for a suffix match: the only one, else the only
/// one in the importer's own module, else none (ambiguous: no edge is better than a wrong one).
pub fn pick_suffix(
    candidates: &[String],
    importer: &str,
    module_of: &dyn Fn(&str) -> Option<usize>,
) -> Option<String> {
    match candidates {
        [] => None,
        [one] => Some(one.clone()),
        many => {
            let own = module_of(importer);
            let same: Vec<&String> = many.iter().filter(|c| module_of(c) == own).collect();
            match same.as_slice() {
                [one] => Some((*one).clone()),
                _ => {
                    let first = module_of(&many[0]);
                    // All in one module: the edge is certain even if the file is not.
                    many.iter()
                        .all(|c| module_of(c) == first)
                        .then(|| many[0].clone())
                }
            }
        }
    }
}

/// The entry of `map` at the innermost ancestor folder of `dir`.
pub fn nearest<'m, T>(map: &'m BTreeMap<String, T>, dir: &str) -> Option<(&'m String, &'m T)> {
    ancestors(dir).find_map(|d| map.get_key_value(d))
}

/// Everything the resolvers share, built once per run.
pub struct Resolver<'a> {
    /// Scanned files.
    pub index: &'a RepoIndex<'a>,
    /// Manifests.
    pub manifests: &'a Manifests,
    /// Module of a path (for suffix disambiguation and workspace checks).
    pub module_of: &'a (dyn Fn(&str) -> Option<usize> + Sync),
    js: js::JsContext,
    python: python::PythonContext,
    rust: rust::RustContext,
    go: go::GoContext,
    java: java::JavaContext,
}

impl<'a> Resolver<'a> {
    /// Prepares the per-language lookups.
    pub fn new(
        index: &'a RepoIndex<'a>,
        manifests: &'a Manifests,
        files: &[&str],
        module_of: &'a (dyn Fn(&str) -> Option<usize> + Sync),
    ) -> Resolver<'a> {
        Resolver {
            index,
            manifests,
            module_of,
            js: js::JsContext::new(manifests, index),
            python: python::PythonContext::new(manifests, index, files),
            rust: rust::RustContext::new(manifests),
            go: go::GoContext::new(manifests),
            java: java::JavaContext::new(files),
        }
    }

    /// Counts from preparing the lookups (tsconfig `extends` that could not be followed, …).
    pub fn counts(&self) -> BTreeMap<String, i64> {
        self.js.counts.clone()
    }

    /// Classifies one import row.
    pub fn resolve(&self, row: &ImportRow) -> Resolution {
        let raw = clean_raw(&row.raw);
        if raw.is_empty() {
            return Resolution::unknown(Unresolved::NotFound);
        }
        match row.language.as_str() {
            "typescript" | "tsx" | "javascript" => js::resolve(self, &row.path, raw),
            "python" => python::resolve(self, &row.path, raw, &row.names),
            "rust" => rust::resolve(self, &row.path, raw),
            "go" => go::resolve(self, &row.path, raw),
            "java" | "kotlin" | "scala" | "groovy" => java::resolve(self, &row.path, raw),
            "c" | "cpp" => c::resolve(self, &row.path, &row.raw),
            "dart" => js::resolve_dart(self, &row.path, raw),
            _ => Resolution::unknown(Unresolved::UnsupportedLanguage),
        }
    }

    /// Picks one suffix candidate (see [`pick_suffix`]); several in different modules are ambiguous.
    fn pick(&self, candidates: &[String], importer: &str) -> Result<Option<String>, Unresolved> {
        match pick_suffix(candidates, importer, &|p: &str| (self.module_of)(p)) {
            Some(c) => Ok(Some(c)),
            None if candidates.is_empty() => Ok(None),
            None => Err(Unresolved::Ambiguous),
        }
    }

    /// Folder of the importing file.
    fn dir_of<'p>(&self, path: &'p str) -> &'p str {
        parent_dir(path)
    }
}

/// The import text without quotes, brackets, trailing `;` and surrounding whitespace.
pub fn clean_raw(raw: &str) -> &str {
    let r = raw.trim().trim_end_matches(';').trim();
    let r = r
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .or_else(|| r.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))
        .or_else(|| r.strip_prefix('`').and_then(|s| s.strip_suffix('`')))
        .or_else(|| r.strip_prefix('<').and_then(|s| s.strip_suffix('>')))
        .unwrap_or(r);
    r.trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_is_cleaned() {
        for (raw, clean) in [
            (" \"fmt\" ", "fmt"),
            ("<stdio.h>", "stdio.h"),
            ("'./a';", "./a"),
            ("crate::a", "crate::a"),
        ] {
            assert_eq!(clean_raw(raw), clean, "{raw:?}");
        }
    }

    #[test]
    fn suffix_choice_refuses_cross_module_ambiguity() {
        let module_of = |p: &str| Some(if p.starts_with("a/") { 0 } else { 1 });
        let c = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            pick_suffix(&c(&["a/x.h"]), "b/m.c", &module_of).as_deref(),
            Some("a/x.h")
        );
        assert_eq!(
            pick_suffix(&c(&["a/x.h", "b/x.h"]), "b/m.c", &module_of).as_deref(),
            Some("b/x.h")
        );
        assert_eq!(
            pick_suffix(&c(&["a/x.h", "a/y/x.h"]), "c/m.c", &module_of).as_deref(),
            Some("a/x.h")
        );
        let module_of3 = |p: &str| Some(p.len());
        assert_eq!(
            pick_suffix(&c(&["a/x.h", "bb/x.h"]), "ccc/m.c", &module_of3),
            None
        );
    }
}
