//! Reading build manifests: which packages the repository declares, their names, members,
//! declared dependencies and entry points.
//!
//! Manifests are found among the scanned files (so ignored and vendored folders never define
//! packages) and read from disk. Manifests inside test-fixture folders (`testdata`, `fixtures`,
//! `__fixtures__`, `test-fixtures`) are not packages of the repository and are left out.
//! A manifest that cannot be parsed is a warning naming the file; it then contributes nothing,
//! so module detection falls back to conventions and directories for its folder.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use output_schema::manifest::Warning;
use output_schema::tables::FileRow;

use super::formats::{yaml_list, yaml_top_level};
use super::paths::{file_name, join, normalize_dir, parent_dir, RepoIndex};

mod cargo;
mod dart;
mod go;
mod gradle;
mod maven;
mod npm;
mod python;
mod tsconfig;

use cargo::{inherit_cargo_workspace_deps, read_cargo};
use dart::read_pubspec;
use go::{go_directive_args, read_go_mod};
use gradle::read_gradle;
use maven::read_pom;
use npm::read_package_json;
pub use python::{normalize_python_name, pep508_name};
use python::{read_pyproject, read_setup_cfg, read_setup_py, requirement_names};
use tsconfig::read_tsconfig;

/// Manifest kinds, in the order that breaks ties when one folder holds several.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ManifestKind {
    /// Cargo.toml
    Cargo,
    /// go.mod
    Go,
    /// package.json
    Npm,
    /// pyproject.toml, setup.cfg, setup.py
    Python,
    /// pom.xml
    Maven,
    /// build.gradle(.kts), settings.gradle(.kts)
    Gradle,
    /// pubspec.yaml
    Dart,
}

impl ManifestKind {
    /// The `modules.manifest` value.
    pub fn name(self) -> &'static str {
        match self {
            ManifestKind::Cargo => "cargo",
            ManifestKind::Go => "go",
            ManifestKind::Npm => "npm",
            ManifestKind::Python => "python",
            ManifestKind::Maven => "maven",
            ManifestKind::Gradle => "gradle",
            ManifestKind::Dart => "dart",
        }
    }

    /// The languages whose files this ecosystem builds.
    pub fn languages(self) -> &'static [&'static str] {
        match self {
            ManifestKind::Cargo => &["rust"],
            ManifestKind::Go => &["go"],
            ManifestKind::Npm => &["typescript", "tsx", "javascript"],
            ManifestKind::Python => &["python"],
            ManifestKind::Maven | ManifestKind::Gradle => &["java", "kotlin", "scala", "groovy"],
            ManifestKind::Dart => &["dart"],
        }
    }
}

/// A declared dependency: the package it names and, for path dependencies, its folder.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dep {
    /// Package name in its registry.
    pub package: String,
    /// Repo-relative folder of a path dependency inside the repository.
    pub local_dir: Option<String>,
    /// `workspace = true`: the entry is inherited from the workspace root.
    pub inherited: bool,
}

/// A Cargo.toml.
#[derive(Clone, Debug, Default)]
pub struct CargoManifest {
    /// Folder.
    pub dir: String,
    /// `[package].name`, when the manifest has a package.
    pub name: Option<String>,
    /// The library's crate name as used in paths (`[lib].name`, else the package name with `-` → `_`).
    pub crate_name: Option<String>,
    /// Repo-relative library root file when `[lib].path` is set.
    pub lib_path: Option<String>,
    /// Repo-relative `[[bin]]` paths.
    pub bin_paths: Vec<String>,
    /// Dependencies by the name code uses (`-` → `_`).
    pub deps: BTreeMap<String, Dep>,
    /// `[workspace]`, when the manifest declares one.
    pub workspace: Option<CargoWorkspace>,
}

/// A Cargo `[workspace]` table.
#[derive(Clone, Debug, Default)]
pub struct CargoWorkspace {
    /// `members` patterns.
    pub members: Vec<String>,
    /// `exclude` patterns.
    pub exclude: Vec<String>,
    /// `[workspace.dependencies]`.
    pub deps: BTreeMap<String, Dep>,
}

/// A package.json (and, at the same folder, pnpm-workspace.yaml patterns).
#[derive(Clone, Debug, Default)]
pub struct NpmManifest {
    /// Folder.
    pub dir: String,
    /// `name`.
    pub name: Option<String>,
    /// Keys of dependencies, devDependencies, peerDependencies, optionalDependencies.
    pub deps: BTreeSet<String>,
    /// Repo-relative `bin` targets.
    pub bins: Vec<String>,
    /// Repo-relative `main`.
    pub main: Option<String>,
    /// Repo-relative `source`, `module`, `types`/`typings`, `main` (in that order) for resolving the package's root import.
    pub entry_files: Vec<String>,
    /// Workspace patterns (`workspaces`, `workspaces.packages`, pnpm `packages`).
    pub workspaces: Vec<String>,
    /// Subpath imports (`imports`: `#name` patterns → targets as written, conditions flattened).
    pub imports: Vec<(String, Vec<String>)>,
}

/// A go.mod.
#[derive(Clone, Debug, Default)]
pub struct GoModule {
    /// Folder.
    pub dir: String,
    /// `module` path.
    pub module_path: String,
    /// Required module paths.
    pub requires: Vec<String>,
    /// `replace` directives: module path → repo-relative folder when replaced by a local path.
    pub replaces: Vec<(String, Option<String>)>,
}

/// A Python project (pyproject.toml, setup.cfg and setup.py of one folder merged).
#[derive(Clone, Debug, Default)]
pub struct PythonProject {
    /// Folder.
    pub dir: String,
    /// Manifest files read, repo-relative.
    pub files: Vec<String>,
    /// Distribution name.
    pub name: Option<String>,
    /// Declared dependencies, normalized (lowercase, `-`/`.` → `_`).
    pub deps: BTreeSet<String>,
    /// Repo-relative folders of declared packages.
    pub packages: Vec<String>,
    /// Repo-relative source roots (`src`, `where`, `from`, `package-dir`).
    pub source_roots: Vec<String>,
    /// Console-script targets as `module.path` (the part before `:`).
    pub scripts: Vec<String>,
    /// uv workspace member patterns.
    pub workspace: Vec<String>,
}

/// A Maven or Gradle project.
#[derive(Clone, Debug, Default)]
pub struct JavaProject {
    /// Folder.
    pub dir: String,
    /// Maven or Gradle.
    pub gradle: bool,
    /// artifactId or rootProject.name.
    pub name: Option<String>,
    /// groupId / group.
    pub group: Option<String>,
    /// Declared (groupId, artifactId) pairs.
    pub deps: Vec<(String, String)>,
    /// Repo-relative member folders (`<module>`, `include`, `includeBuild`).
    pub members: Vec<String>,
}

/// A pubspec.yaml.
#[derive(Clone, Debug, Default)]
pub struct DartPackage {
    /// Folder.
    pub dir: String,
    /// `name`.
    pub name: Option<String>,
    /// dependencies and dev_dependencies keys.
    pub deps: BTreeSet<String>,
    /// `workspace` member folders.
    pub workspace: Vec<String>,
}

/// A tsconfig.json / jsconfig.json as written (before `extends` is applied).
#[derive(Clone, Debug, Default)]
pub struct TsConfigFile {
    /// `extends` entries as written.
    pub extends: Vec<String>,
    /// `compilerOptions.baseUrl`, repo-relative.
    pub base_url: Option<String>,
    /// `compilerOptions.paths` in file order, targets as written.
    pub paths: Option<Vec<(String, Vec<String>)>>,
}

/// Everything read from manifests.
#[derive(Debug, Default)]
pub struct Manifests {
    /// Cargo manifests by folder.
    pub cargo: BTreeMap<String, CargoManifest>,
    /// package.json by folder.
    pub npm: BTreeMap<String, NpmManifest>,
    /// go.mod by folder.
    pub go: BTreeMap<String, GoModule>,
    /// go.work `use` folders by the go.work's folder.
    pub go_work: BTreeMap<String, Vec<String>>,
    /// Python projects by folder.
    pub python: BTreeMap<String, PythonProject>,
    /// requirements*.txt dependencies by folder (normalized names).
    pub requirements: BTreeMap<String, BTreeSet<String>>,
    /// Maven/Gradle projects by folder.
    pub java: BTreeMap<String, JavaProject>,
    /// pubspec.yaml by folder.
    pub dart: BTreeMap<String, DartPackage>,
    /// tsconfig/jsconfig files by path (every `tsconfig*.json` / `jsconfig*.json`).
    pub tsconfig: BTreeMap<String, TsConfigFile>,
    /// Manifests read.
    pub read: i64,
    /// Manifests that could not be parsed or read.
    pub malformed: i64,
    /// Warnings (malformed or unreadable manifests).
    pub warnings: Vec<Warning>,
}

impl Manifests {
    /// Manifest kinds present in a folder, in tie-break order.
    pub fn kinds_at(&self, dir: &str) -> Vec<ManifestKind> {
        let mut k = Vec::new();
        if self.cargo.contains_key(dir) {
            k.push(ManifestKind::Cargo);
        }
        if self.go.contains_key(dir) {
            k.push(ManifestKind::Go);
        }
        if self.npm.contains_key(dir) {
            k.push(ManifestKind::Npm);
        }
        if self.python.contains_key(dir) {
            k.push(ManifestKind::Python);
        }
        if let Some(j) = self.java.get(dir) {
            k.push(if j.gradle {
                ManifestKind::Gradle
            } else {
                ManifestKind::Maven
            });
        }
        if self.dart.contains_key(dir) {
            k.push(ManifestKind::Dart);
        }
        k
    }

    /// The name a manifest of this kind at this folder gives its package.
    pub fn name_at(&self, dir: &str, kind: ManifestKind) -> Option<String> {
        match kind {
            ManifestKind::Cargo => self.cargo.get(dir).and_then(|m| m.name.clone()),
            ManifestKind::Go => self.go.get(dir).map(|m| m.module_path.clone()),
            ManifestKind::Npm => self.npm.get(dir).and_then(|m| m.name.clone()),
            ManifestKind::Python => self.python.get(dir).and_then(|m| m.name.clone()),
            ManifestKind::Maven | ManifestKind::Gradle => {
                self.java.get(dir).and_then(|m| m.name.clone())
            }
            ManifestKind::Dart => self.dart.get(dir).and_then(|m| m.name.clone()),
        }
    }

    /// Every folder holding a manifest that defines a package.
    pub fn package_dirs(&self) -> BTreeSet<String> {
        let mut dirs = BTreeSet::new();
        dirs.extend(self.cargo.keys().cloned());
        dirs.extend(self.go.keys().cloned());
        dirs.extend(self.npm.keys().cloned());
        dirs.extend(self.python.keys().cloned());
        dirs.extend(self.java.keys().cloned());
        dirs.extend(self.dart.keys().cloned());
        dirs
    }

    fn warn(&mut self, code: &str, path: &str, message: String) {
        self.warnings.push(Warning {
            code: code.to_string(),
            path: Some(path.to_string()),
            message,
        });
    }

    fn malformed(&mut self, path: &str, message: String) {
        self.malformed += 1;
        self.warn(
            "manifest-malformed",
            path,
            format!("{message}; the manifest is ignored and detection falls back to conventions and directories"),
        );
    }
}

const FIXTURE_DIRS: &[&str] = &[
    "testdata",
    "fixtures",
    "__fixtures__",
    "test-fixtures",
    "node_modules",
];

fn is_fixture(path: &str) -> bool {
    let dir = parent_dir(path);
    dir != "." && dir.split('/').any(|d| FIXTURE_DIRS.contains(&d))
}

/// Reads every manifest among the scanned files.
pub fn read_manifests(root: &Path, files: &[FileRow], index: &RepoIndex<'_>) -> Manifests {
    let mut m = Manifests::default();
    // Files are sorted by path, so manifests of one folder are read in a fixed order.
    for f in files {
        let name = file_name(&f.path);
        let dir = parent_dir(&f.path).to_string();
        let wanted = matches!(
            name,
            "Cargo.toml"
                | "package.json"
                | "pnpm-workspace.yaml"
                | "go.mod"
                | "go.work"
                | "pyproject.toml"
                | "setup.cfg"
                | "setup.py"
                | "pom.xml"
                | "build.gradle"
                | "build.gradle.kts"
                | "settings.gradle"
                | "settings.gradle.kts"
                | "pubspec.yaml"
        ) || (name.starts_with("requirements") && name.ends_with(".txt"))
            || ((name.starts_with("tsconfig") || name.starts_with("jsconfig"))
                && name.ends_with(".json"));
        if !wanted || is_fixture(&f.path) {
            continue;
        }
        let text = match std::fs::read(root.join(&f.path)) {
            Ok(bytes) => match String::from_utf8(bytes) {
                // A UTF-8 byte-order mark is accepted by npm, Cargo and pip alike.
                Ok(t) => match t.strip_prefix('\u{feff}') {
                    Some(rest) => rest.to_string(),
                    None => t,
                },
                Err(_) => {
                    m.malformed(&f.path, "not valid UTF-8".into());
                    continue;
                }
            },
            Err(e) => {
                m.malformed += 1;
                m.warn("manifest-unreadable", &f.path, format!("cannot read: {e}"));
                continue;
            }
        };
        m.read += 1;
        let p = f.path.as_str();
        match name {
            "Cargo.toml" => read_cargo(&mut m, p, &dir, &text),
            "package.json" => read_package_json(&mut m, p, &dir, &text),
            "pnpm-workspace.yaml" => {
                let top = yaml_top_level(&text);
                let pats = top
                    .iter()
                    .find(|e| e.key == "packages")
                    .map(yaml_list)
                    .unwrap_or_default();
                m.npm.entry(dir.clone()).or_insert_with(|| NpmManifest {
                    dir: dir.clone(),
                    ..NpmManifest::default()
                });
                if let Some(n) = m.npm.get_mut(&dir) {
                    n.workspaces.extend(pats);
                }
            }
            "go.mod" => read_go_mod(&mut m, p, &dir, &text),
            "go.work" => {
                let uses = go_directive_args(&text, "use")
                    .into_iter()
                    .filter_map(|u| join(&dir, &u))
                    .collect();
                m.go_work.insert(dir.clone(), uses);
            }
            "pyproject.toml" => read_pyproject(&mut m, p, &dir, &text, index),
            "setup.cfg" => read_setup_cfg(&mut m, p, &dir, &text),
            "setup.py" => read_setup_py(&mut m, p, &dir, &text),
            "pom.xml" => read_pom(&mut m, p, &dir, &text),
            "build.gradle" | "build.gradle.kts" | "settings.gradle" | "settings.gradle.kts" => {
                read_gradle(&mut m, &dir, name, &text)
            }
            "pubspec.yaml" => read_pubspec(&mut m, &dir, &text),
            _ if name.ends_with(".txt") => {
                let deps = requirement_names(&text);
                m.requirements.entry(dir.clone()).or_default().extend(deps);
            }
            _ => read_tsconfig(&mut m, p, &dir, &text),
        }
    }
    inherit_cargo_workspace_deps(&mut m);
    m
}

/// The strings of a TOML array, other items left out; empty when the value is missing or is not
/// an array.
fn toml_strings(value: Option<&toml::Value>) -> Vec<String> {
    value
        .and_then(|v| v.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Quoted string literals in a piece of Python/Groovy/Kotlin source, in order.
fn quoted_strings(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let q = b[i];
        if q == b'"' || q == b'\'' {
            if let Some(len) = text[i + 1..].find(q as char) {
                out.push(&text[i + 1..i + 1 + len]);
                i += len + 2;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// Folders that may be workspace members, in order, each with its path components
/// ([`super::glob::segments`]; `.` has none).
pub struct MemberCandidates<'a> {
    folders: Vec<(&'a str, Vec<&'a str>)>,
}

impl<'a> MemberCandidates<'a> {
    /// The candidates among `folders` (repo-relative, `.` for the root).
    pub fn new(folders: impl IntoIterator<Item = &'a String>) -> MemberCandidates<'a> {
        let folders = folders
            .into_iter()
            .map(|f| (f.as_str(), super::glob::segments(f)))
            .collect();
        MemberCandidates { folders }
    }
}

/// Repo-relative folders matched by workspace member patterns of the workspace at `dir`, among
/// `candidates` (folders holding a manifest, in order). Negated patterns (`!x`) and `exclude` remove.
/// Patterns climbing out of the repository and matches of the workspace folder itself are
/// returned separately so the caller can count them.
pub fn expand_members(
    dir: &str,
    patterns: &[String],
    exclude: &[String],
    candidates: &MemberCandidates<'_>,
) -> (Vec<String>, Vec<String>, bool) {
    let mut include = Vec::new();
    let mut neg: Vec<String> = Vec::new();
    let mut escaping = Vec::new();
    let negated = patterns
        .iter()
        .map(|p| match p.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, p.as_str()),
        })
        .chain(exclude.iter().map(|e| (true, e.as_str())));
    for (is_neg, p) in negated {
        // Patterns are relative to the workspace folder; `..` is resolved lexically first.
        match join(dir, p.trim_end_matches('/')) {
            Some(full) if is_neg => neg.push(full),
            Some(full) => include.push(full),
            None => escaping.push(p.to_string()),
        }
    }
    // Each pattern split once, each candidate once per run ([`MemberCandidates`]): a repository
    // can hold hundreds of workspaces (cargo's test fixtures: 366) and as many manifests.
    let include: Vec<Vec<&str>> = include.iter().map(|p| super::glob::segments(p)).collect();
    let neg: Vec<Vec<&str>> = neg.iter().map(|p| super::glob::segments(p)).collect();
    let mut members = Vec::new();
    let mut self_match = false;
    for (c, folder) in &candidates.folders {
        let pats_match =
            |pats: &[Vec<&str>]| pats.iter().any(|p| super::glob::match_segments(p, folder));
        if pats_match(&include) && !pats_match(&neg) {
            if *c == dir {
                self_match = true;
            } else {
                members.push(c.to_string());
            }
        }
    }
    (members, escaping, self_match)
}

/// The normalized folders configured as module roots, with warnings for unusable entries.
pub fn config_roots(roots: &[String], index: &RepoIndex<'_>) -> (Vec<String>, Vec<Warning>) {
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    for r in roots {
        match normalize_dir(r) {
            Some(d) if index.is_dir(&d) => out.push(d),
            Some(d) => warnings.push(Warning {
                code: "config-root-empty".into(),
                path: Some(output_schema::config::CONFIG_FILE.into()),
                message: format!("modules.roots entry {d:?} holds no scanned files; ignored"),
            }),
            None => warnings.push(Warning {
                code: "config-root-invalid".into(),
                path: Some(output_schema::config::CONFIG_FILE.into()),
                message: format!(
                    "modules.roots entry {r:?} is absolute or leaves the repository; ignored"
                ),
            }),
        }
    }
    out.sort();
    out.dedup();
    (out, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifests(files: &[(&str, &str)]) -> Manifests {
        let dir = tempfile::tempdir().unwrap();
        let mut rows = Vec::new();
        for (p, text) in files {
            let full = dir.path().join(p);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(&full, text).unwrap();
            rows.push(FileRow {
                path: p.to_string(),
                language: None,
                size_bytes: 0,
                line_count: 0,
                content_hash: String::new(),
                module_id: None,
                is_test: false,
                is_generated: false,
            });
        }
        rows.sort_by(|a, b| a.path.cmp(&b.path));
        let index = RepoIndex::new(rows.iter().map(|r| r.path.as_str()));
        read_manifests(dir.path(), &rows, &index)
    }

    #[test]
    fn cargo_workspace_and_renamed_and_inherited_deps() {
        let m = manifests(&[
            ("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n[workspace.dependencies]\nacme-core = { path = \"crates/core\" }\nserde = \"1\"\n"),
            ("crates/app/Cargo.toml", "[package]\nname = \"acme-app\"\n[dependencies]\nacme-core.workspace = true\nserde = { workspace = true }\njson = { package = \"serde_json\", version = \"1\" }\n[[bin]]\nname = \"x\"\npath = \"src/x.rs\"\n"),
        ]);
        let app = &m.cargo["crates/app"];
        assert_eq!(app.crate_name.as_deref(), Some("acme_app"));
        assert_eq!(
            app.deps["acme_core"].local_dir.as_deref(),
            Some("crates/core")
        );
        assert_eq!(app.deps["json"].package, "serde_json");
        assert_eq!(app.bin_paths, ["crates/app/src/x.rs"]);
        assert_eq!(
            m.cargo["."].workspace.as_ref().unwrap().members,
            ["crates/*"]
        );
    }

    #[test]
    fn byte_order_mark_is_accepted() {
        let m = manifests(&[("package.json", "\u{feff}{\"name\": \"bom\"}")]);
        assert_eq!(m.malformed, 0);
        assert_eq!(m.npm["."].name.as_deref(), Some("bom"));
    }

    #[test]
    fn malformed_manifests_warn_with_position_and_no_text() {
        let m = manifests(&[
            ("Cargo.toml", "[package]\nname = \"secret-value\n"),
            ("web/package.json", "{\"name\": \"x\",,}"),
            ("j/pom.xml", "<project><artifactId>a</artifactId>"),
            ("g/go.mod", "go 1.21\n"),
        ]);
        assert_eq!(m.malformed, 4);
        assert!(m.cargo.is_empty() && m.npm.is_empty() && m.java.is_empty() && m.go.is_empty());
        for w in &m.warnings {
            assert_eq!(w.code, "manifest-malformed");
            assert!(!w.message.contains("secret-value"), "{}", w.message);
        }
        let cargo = m
            .warnings
            .iter()
            .find(|w| w.path.as_deref() == Some("Cargo.toml"))
            .unwrap();
        assert!(cargo.message.contains("line 2"), "{}", cargo.message);
    }

    #[test]
    fn python_go_gradle_pubspec() {
        let m = manifests(&[
            ("pyproject.toml", "[project]\nname = \"Acme-Tools\"\ndependencies = [\"Requests[socks]>=2\", \"PyYAML\"]\n[project.scripts]\nacme = \"acme.cli:main\"\n[tool.setuptools.packages.find]\nwhere = [\"src\"]\n"),
            ("requirements-dev.txt", "pytest==8 # test\n-r base.txt\n"),
            ("svc/go.mod", "module example.com/svc\n\nrequire (\n\tgithub.com/pkg/errors v0.9.1 // indirect\n)\nreplace example.com/lib => ../lib\n"),
            ("settings.gradle.kts", "rootProject.name = \"acme\"\ninclude(\":app\", \":lib:core\")\n"),
            ("app/build.gradle", "dependencies {\n  implementation 'com.google.guava:guava:32.0'\n}\n"),
            ("mobile/pubspec.yaml", "name: mobile\ndependencies:\n  http: ^1.0\n  flutter:\n    sdk: flutter\n"),
        ]);
        let py = &m.python["."];
        assert_eq!(py.deps.iter().collect::<Vec<_>>(), ["pyyaml", "requests"]);
        assert_eq!(py.source_roots, ["src"]);
        assert_eq!(py.scripts, ["acme.cli"]);
        assert!(m.requirements["."].contains("pytest"));
        let go = &m.go["svc"];
        assert_eq!(go.module_path, "example.com/svc");
        assert_eq!(go.requires, ["github.com/pkg/errors"]);
        assert_eq!(
            go.replaces,
            [("example.com/lib".to_string(), Some("lib".to_string()))]
        );
        assert_eq!(m.java["."].members, ["app", "lib/core"]);
        assert_eq!(m.java["."].name.as_deref(), Some("acme"));
        assert_eq!(
            m.java["app"].deps,
            [("com.google.guava".to_string(), "guava".to_string())]
        );
        assert_eq!(
            m.dart["mobile"].deps.iter().collect::<Vec<_>>(),
            ["flutter", "http"]
        );
    }

    #[test]
    fn member_expansion_counts_escapes_and_self() {
        let cands: BTreeSet<String> = [".", "packages/a", "packages/b", "other"]
            .map(String::from)
            .into();
        let (members, esc, selfm) = expand_members(
            ".",
            &[
                "packages/*".into(),
                "!packages/b".into(),
                "../outside/*".into(),
                "**".into(),
            ],
            &[],
            &MemberCandidates::new(&cands),
        );
        assert_eq!(members, ["other", "packages/a"]);
        assert_eq!(esc, ["../outside/*"]);
        assert!(selfm);
    }
}
