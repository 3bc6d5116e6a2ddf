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

use super::formats::{self, yaml_list, yaml_map_keys, yaml_scalar, yaml_top_level};
use super::paths::{file_name, join, normalize_dir, parent_dir, RepoIndex};

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

fn read_cargo(m: &mut Manifests, path: &str, dir: &str, text: &str) {
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
        let strings = |k: &str| -> Vec<String> {
            ws.get(k)
                .and_then(|v| v.as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str())
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default()
        };
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

fn cargo_deps(dir: &str, t: &toml::Table) -> BTreeMap<String, Dep> {
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
fn inherit_cargo_workspace_deps(m: &mut Manifests) {
    let workspaces: Vec<(String, BTreeMap<String, Dep>)> = m
        .cargo
        .iter()
        .filter_map(|(d, c)| c.workspace.as_ref().map(|w| (d.clone(), w.deps.clone())))
        .collect();
    for (dir, c) in m.cargo.iter_mut() {
        let ws = super::paths::ancestors(dir)
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

fn read_package_json(m: &mut Manifests, path: &str, dir: &str, text: &str) {
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
fn string_leaves(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| string_leaves(x, out)),
        serde_json::Value::Object(o) => o.values().for_each(|x| string_leaves(x, out)),
        _ => {}
    }
}

/// Arguments of a go.mod / go.work directive, single-line or in a `( … )` block.
fn go_directive_args(text: &str, directive: &str) -> Vec<String> {
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

fn read_go_mod(m: &mut Manifests, path: &str, dir: &str, text: &str) {
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

/// Normalizes a Python distribution or import name for comparison (PEP 503, with `_`).
pub fn normalize_python_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut sep = false;
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            sep = true;
        } else {
            if sep && !out.is_empty() {
                out.push('_');
            }
            sep = false;
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// The distribution name at the start of a PEP 508 requirement (`requests[socks]>=2; …` → `requests`).
pub fn pep508_name(req: &str) -> Option<String> {
    let req = req.trim();
    let end = req
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(req.len());
    let name = &req[..end];
    (!name.is_empty()
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric()))
    .then(|| normalize_python_name(name))
}

fn requirement_names(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty() && !l.starts_with('-') && !l.contains("://"))
        .filter_map(pep508_name)
        .collect()
}

fn python_project<'m>(m: &'m mut Manifests, dir: &str, path: &str) -> &'m mut PythonProject {
    let p = m
        .python
        .entry(dir.to_string())
        .or_insert_with(|| PythonProject {
            dir: dir.to_string(),
            ..PythonProject::default()
        });
    p.files.push(path.to_string());
    p
}

fn read_pyproject(m: &mut Manifests, path: &str, dir: &str, text: &str, index: &RepoIndex<'_>) {
    let t: toml::Table = match toml::from_str(text) {
        Ok(t) => t,
        Err(e) => return m.malformed(path, formats::toml_error(&e, text)),
    };
    let get = |keys: &[&str]| -> Option<&toml::Value> {
        let mut v = t.get(keys[0])?;
        for k in &keys[1..] {
            v = v.get(k)?;
        }
        Some(v)
    };
    let strs = |v: Option<&toml::Value>| -> Vec<String> {
        v.and_then(|v| v.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let name = get(&["project", "name"])
        .or_else(|| get(&["tool", "poetry", "name"]))
        .and_then(|v| v.as_str())
        .map(str::to_string);
    let mut deps: Vec<String> = Vec::new();
    deps.extend(
        strs(get(&["project", "dependencies"]))
            .iter()
            .filter_map(|s| pep508_name(s)),
    );
    for table in [
        get(&["project", "optional-dependencies"]),
        get(&["dependency-groups"]),
        get(&["tool", "pdm", "dev-dependencies"]),
    ]
    .into_iter()
    .flatten()
    .filter_map(|v| v.as_table())
    {
        for (_, v) in table {
            deps.extend(strs(Some(v)).iter().filter_map(|s| pep508_name(s)));
        }
    }
    deps.extend(
        strs(get(&["tool", "uv", "dev-dependencies"]))
            .iter()
            .filter_map(|s| pep508_name(s)),
    );
    let mut poetry_tables = vec![
        get(&["tool", "poetry", "dependencies"]),
        get(&["tool", "poetry", "dev-dependencies"]),
    ];
    if let Some(groups) = get(&["tool", "poetry", "group"]).and_then(|v| v.as_table()) {
        poetry_tables.extend(groups.values().map(|g| g.get("dependencies")));
    }
    for table in poetry_tables
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_table())
    {
        deps.extend(
            table
                .keys()
                .filter(|k| *k != "python")
                .map(|k| normalize_python_name(k)),
        );
    }
    let mut packages = Vec::new();
    let mut roots = Vec::new();
    let package_dir_root = get(&["tool", "setuptools", "package-dir"])
        .and_then(|v| v.get(""))
        .and_then(|v| v.as_str())
        .and_then(|s| join(dir, s));
    if let Some(r) = &package_dir_root {
        roots.push(r.clone());
    }
    let base = package_dir_root.clone().unwrap_or_else(|| dir.to_string());
    match get(&["tool", "setuptools", "packages"]) {
        Some(toml::Value::Array(a)) => {
            for p in a.iter().filter_map(|v| v.as_str()) {
                // Only top-level packages become modules; `a.b` lives inside `a`.
                if !p.contains('.') {
                    packages.extend(join(&base, p));
                }
            }
        }
        Some(toml::Value::Table(tb)) => {
            let wh = strs(tb.get("find").and_then(|f| f.get("where")));
            roots.extend(wh.iter().filter_map(|w| join(dir, w)));
        }
        _ => {}
    }
    if let Some(a) = get(&["tool", "poetry", "packages"]).and_then(|v| v.as_array()) {
        for p in a {
            let Some(include) = p.get("include").and_then(|v| v.as_str()) else {
                continue;
            };
            let from = p.get("from").and_then(|v| v.as_str()).unwrap_or(".");
            if let Some(r) = join(dir, from) {
                if from != "." {
                    roots.push(r.clone());
                }
                if !include.contains(['*', '.']) {
                    packages.extend(join(&r, include));
                }
            }
        }
    }
    for p in strs(get(&[
        "tool", "hatch", "build", "targets", "wheel", "packages",
    ])) {
        if let Some(d) = join(dir, &p) {
            roots.push(parent_dir(&d).to_string());
            packages.push(d);
        }
    }
    let mut scripts = Vec::new();
    for table in [
        get(&["project", "scripts"]),
        get(&["project", "gui-scripts"]),
        get(&["tool", "poetry", "scripts"]),
    ]
    .into_iter()
    .flatten()
    .filter_map(|v| v.as_table())
    {
        for v in table.values() {
            let target = v
                .as_str()
                .or_else(|| v.get("reference").and_then(|r| r.as_str()));
            if let Some(module) = target.and_then(|s| s.split(':').next()) {
                scripts.push(module.trim().to_string());
            }
        }
    }
    let workspace = strs(get(&["tool", "uv", "workspace", "members"]));
    let p = python_project(m, dir, path);
    if name.is_some() {
        p.name = name;
    }
    p.deps.extend(deps);
    p.packages
        .extend(packages.into_iter().filter(|d| index.is_dir(d)));
    p.source_roots.extend(roots);
    p.scripts.extend(scripts);
    p.workspace.extend(workspace);
}

/// Sections of an INI file: `section -> key -> value` (continuation lines joined with `\n`).
fn parse_ini(text: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut section = String::new();
    let mut last_key: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            if let Some(k) = &last_key {
                if let Some(v) = out.entry(section.clone()).or_default().get_mut(k) {
                    v.push('\n');
                    v.push_str(trimmed);
                }
            }
            continue;
        }
        if let Some(s) = trimmed.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            section = s.trim().to_string();
            last_key = None;
        } else if let Some((k, v)) = trimmed.split_once(['=', ':']) {
            let k = k.trim().to_string();
            out.entry(section.clone())
                .or_default()
                .insert(k.clone(), v.trim().to_string());
            last_key = Some(k);
        }
    }
    out
}

fn read_setup_cfg(m: &mut Manifests, path: &str, dir: &str, text: &str) {
    let ini = parse_ini(text);
    let val = |s: &str, k: &str| ini.get(s).and_then(|t| t.get(k)).map(String::as_str);
    let list = |v: Option<&str>| -> Vec<String> {
        v.unwrap_or("")
            .split(['\n', ','])
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    };
    let name = val("metadata", "name").map(str::to_string);
    let mut deps: Vec<String> = list(val("options", "install_requires"))
        .iter()
        .filter_map(|s| pep508_name(s))
        .collect();
    if let Some(extras) = ini.get("options.extras_require") {
        for v in extras.values() {
            deps.extend(list(Some(v)).iter().filter_map(|s| pep508_name(s)));
        }
    }
    let mut roots: Vec<String> = list(val("options.packages.find", "where"))
        .iter()
        .filter_map(|w| join(dir, w))
        .collect();
    if let Some(pd) = val("options", "package_dir") {
        for entry in pd.split('\n') {
            if let Some(("", r)) = entry.split_once('=').map(|(a, b)| (a.trim(), b.trim())) {
                roots.extend(join(dir, r));
            }
        }
    }
    let base = roots.first().cloned().unwrap_or_else(|| dir.to_string());
    let packages: Vec<String> = match val("options", "packages") {
        Some(v) if !v.trim_start().starts_with("find") => list(Some(v))
            .iter()
            .filter(|p| !p.contains('.'))
            .filter_map(|p| join(&base, p))
            .collect(),
        _ => Vec::new(),
    };
    let scripts: Vec<String> = list(val("options.entry_points", "console_scripts"))
        .iter()
        .filter_map(|s| {
            s.split_once('=')
                .map(|(_, t)| t.split(':').next().unwrap_or("").trim().to_string())
        })
        .filter(|s| !s.is_empty())
        .collect();
    let p = python_project(m, dir, path);
    if p.name.is_none() {
        p.name = name;
    }
    p.deps.extend(deps);
    p.source_roots.extend(roots);
    p.packages.extend(packages);
    p.scripts.extend(scripts);
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

/// setup.py is code; only well-known literal arguments are read (no evaluation).
fn read_setup_py(m: &mut Manifests, path: &str, dir: &str, text: &str) {
    let after = |key: &str| -> Option<&str> {
        let mut from = 0;
        while let Some(i) = text[from..].find(key) {
            let at = from + i;
            let rest = text[at + key.len()..].trim_start();
            let prev_ok = at == 0
                || !text.as_bytes()[at - 1].is_ascii_alphanumeric()
                    && text.as_bytes()[at - 1] != b'_';
            if prev_ok {
                if let Some(r) = rest.strip_prefix('=') {
                    if !r.starts_with('=') {
                        return Some(r.trim_start());
                    }
                }
            }
            from = at + key.len();
        }
        None
    };
    let bracketed = |s: &str, open: char, close: char| -> String {
        if !s.starts_with(open) {
            return String::new();
        }
        let mut depth = 0;
        for (i, c) in s.char_indices() {
            if c == open {
                depth += 1;
            } else if c == close {
                depth -= 1;
                if depth == 0 {
                    return s[..=i].to_string();
                }
            }
        }
        String::new()
    };
    let name = after("name").and_then(|s| {
        quoted_strings(s.lines().next().unwrap_or(""))
            .first()
            .map(|s| s.to_string())
    });
    let deps: Vec<String> = after("install_requires")
        .map(|s| bracketed(s, '[', ']'))
        .map(|s| {
            quoted_strings(&s)
                .into_iter()
                .filter_map(pep508_name)
                .collect()
        })
        .unwrap_or_default();
    let mut roots = Vec::new();
    if let Some(pd) = after("package_dir") {
        let pd = bracketed(pd, '{', '}');
        let q = quoted_strings(&pd);
        if q.len() >= 2 && q[0].is_empty() {
            roots.extend(join(dir, q[1]));
        }
    }
    if let Some(i) = text.find("find_packages(") {
        let args = text[i + 14..].split(')').next().unwrap_or("");
        if let Some(w) = quoted_strings(args).first() {
            if !args.trim_start().starts_with("exclude") {
                roots.extend(join(dir, w));
            }
        }
    }
    let scripts: Vec<String> = text
        .find("console_scripts")
        .and_then(|i| text[i..].find('[').map(|j| i + j))
        .map(|j| bracketed(&text[j..], '[', ']'))
        .map(|s| {
            quoted_strings(&s)
                .into_iter()
                .filter_map(|e| {
                    e.split_once('=')
                        .map(|(_, t)| t.split(':').next().unwrap_or("").trim().to_string())
                })
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let p = python_project(m, dir, path);
    if p.name.is_none() {
        p.name = name;
    }
    p.deps.extend(deps);
    p.source_roots.extend(roots);
    p.scripts.extend(scripts);
}

fn read_pom(m: &mut Manifests, path: &str, dir: &str, text: &str) {
    let project = match formats::parse_xml(text) {
        Ok(p) if p.name == "project" => p,
        Ok(_) => return m.malformed(path, "pom.xml has no <project> root element".into()),
        Err(e) => return m.malformed(path, e),
    };
    let group = project
        .text_of("groupId")
        .or_else(|| project.child("parent").and_then(|p| p.text_of("groupId")))
        .map(str::to_string);
    let mut deps = Vec::new();
    let dep_lists = [
        project.child("dependencies"),
        project
            .child("dependencyManagement")
            .and_then(|d| d.child("dependencies")),
    ];
    for list in dep_lists.into_iter().flatten() {
        for d in list.all("dependency") {
            let (Some(g), Some(a)) = (d.text_of("groupId"), d.text_of("artifactId")) else {
                continue;
            };
            let g = if g.starts_with("${") {
                group.clone().unwrap_or_default()
            } else {
                g.to_string()
            };
            deps.push((g, a.to_string()));
        }
    }
    let members = project
        .child("modules")
        .map(|ms| {
            ms.all("module")
                .filter_map(|x| join(dir, &x.text))
                .collect()
        })
        .unwrap_or_default();
    m.java.insert(
        dir.to_string(),
        JavaProject {
            dir: dir.to_string(),
            gradle: false,
            name: project.text_of("artifactId").map(str::to_string),
            group,
            deps,
            members,
        },
    );
}

const GRADLE_CONFIGURATIONS: &[&str] = &[
    "implementation",
    "api",
    "compile",
    "compileOnly",
    "compileOnlyApi",
    "runtimeOnly",
    "testImplementation",
    "testCompile",
    "testCompileOnly",
    "testRuntimeOnly",
    "androidTestImplementation",
    "debugImplementation",
    "releaseImplementation",
    "annotationProcessor",
    "kapt",
    "ksp",
    "classpath",
];

fn read_gradle(m: &mut Manifests, dir: &str, name: &str, text: &str) {
    if m.java.get(dir).is_some_and(|j| !j.gradle) {
        // A folder with both pom.xml and Gradle files is described by its pom.
        return;
    }
    let j = m
        .java
        .entry(dir.to_string())
        .or_insert_with(|| JavaProject {
            dir: dir.to_string(),
            gradle: true,
            ..JavaProject::default()
        });
    let settings = name.starts_with("settings");
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("//") || t.starts_with('*') {
            continue;
        }
        let word: String = t
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '.')
            .collect();
        if settings {
            if word == "rootProject.name" {
                j.name = quoted_strings(t).first().map(|s| s.to_string());
            } else if word == "include" {
                for s in quoted_strings(t) {
                    let rel = s.trim_start_matches(':').replace(':', "/");
                    j.members.extend(join(dir, &rel));
                }
            } else if word == "includeBuild" {
                j.members
                    .extend(quoted_strings(t).first().and_then(|s| join(dir, s)));
            }
        } else if word == "group" {
            j.group = quoted_strings(t).first().map(|s| s.to_string());
        } else if GRADLE_CONFIGURATIONS.contains(&word.as_str()) {
            for s in quoted_strings(t) {
                let mut parts = s.split(':');
                if let (Some(g), Some(a)) = (parts.next(), parts.next()) {
                    let ok = |x: &str| {
                        !x.is_empty()
                            && x.chars()
                                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
                    };
                    if ok(g) && ok(a) {
                        j.deps.push((g.to_string(), a.to_string()));
                    }
                }
            }
        }
    }
}

fn read_pubspec(m: &mut Manifests, dir: &str, text: &str) {
    let top = yaml_top_level(text);
    let mut d = DartPackage {
        dir: dir.to_string(),
        ..DartPackage::default()
    };
    for e in &top {
        match e.key.as_str() {
            "name" => d.name = Some(yaml_scalar(&e.inline)).filter(|s| !s.is_empty()),
            "dependencies" | "dev_dependencies" => d.deps.extend(yaml_map_keys(e)),
            "workspace" => d
                .workspace
                .extend(yaml_list(e).iter().filter_map(|w| join(dir, w))),
            _ => {}
        }
    }
    m.dart.insert(dir.to_string(), d);
}

fn read_tsconfig(m: &mut Manifests, path: &str, dir: &str, text: &str) {
    let v: serde_json::Value = match serde_json::from_str(&formats::strip_jsonc(text)) {
        Ok(v) => v,
        Err(e) => return m.malformed(path, formats::json_error(&e)),
    };
    let extends = match v.get("extends") {
        Some(serde_json::Value::String(s)) => vec![s.clone()],
        Some(serde_json::Value::Array(a)) => a
            .iter()
            .filter_map(|x| x.as_str())
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    let opts = v.get("compilerOptions");
    let base_url = opts
        .and_then(|o| o.get("baseUrl"))
        .and_then(|b| b.as_str())
        .and_then(|b| join(dir, b));
    let paths = opts
        .and_then(|o| o.get("paths"))
        .and_then(|p| p.as_object())
        .map(|o| {
            o.iter()
                .map(|(k, v)| {
                    let targets = v
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(|t| t.as_str())
                                .map(str::to_string)
                                .collect()
                        })
                        .unwrap_or_default();
                    (k.clone(), targets)
                })
                .collect()
        });
    m.tsconfig.insert(
        path.to_string(),
        TsConfigFile {
            extends,
            base_url,
            paths,
        },
    );
}

/// Repo-relative folders matched by workspace member patterns of the workspace at `dir`, among
/// `candidates` (folders holding a manifest). Negated patterns (`!x`) and `exclude` remove.
/// Patterns climbing out of the repository and matches of the workspace folder itself are
/// returned separately so the caller can count them.
pub fn expand_members(
    dir: &str,
    patterns: &[String],
    exclude: &[String],
    candidates: &BTreeSet<String>,
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
    let rel = |c: &str| {
        if c == "." {
            String::new()
        } else {
            c.to_string()
        }
    };
    let pats_match = |pats: &[String], c: &str| {
        pats.iter()
            .any(|p| super::glob::matches(if p == "." { "" } else { p }, &rel(c)))
    };
    let mut members = Vec::new();
    let mut self_match = false;
    for c in candidates {
        if pats_match(&include, c) && !pats_match(&neg, c) {
            if c == dir {
                self_match = true;
            } else {
                members.push(c.clone());
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
            &cands,
        );
        assert_eq!(members, ["other", "packages/a"]);
        assert_eq!(esc, ["../outside/*"]);
        assert!(selfm);
    }
}
