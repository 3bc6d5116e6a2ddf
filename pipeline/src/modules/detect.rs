//! Module detection: partitioning the scanned files into modules.
//!
//! Roots come from, in order of authority:
//! 1. `config` — `.ckb/config.json` `modules.roots`. When given they are the only roots; files
//!    outside all of them form the root module `.`.
//! 2. `manifest` — every folder holding a package manifest (Cargo.toml, package.json, go.mod,
//!    pyproject.toml / setup.cfg / setup.py, pom.xml, Gradle build or `include`d project,
//!    pubspec.yaml). Inside a Python project its top-level import packages are modules too
//!    (declared ones `manifest`, discovered ones — a folder with `__init__.py`, or any folder
//!    under a `src` root — `convention`); inside a Go module its package trees are: `cmd/<x>`,
//!    `internal/<x>`, `pkg/<x>` (`convention`) and other top-level folders holding Go files
//!    (`directory`), because a Go module is usually the whole repository while its packages are
//!    the units people reason about.
//! 3. `convention` — for files under no manifest: `src/`, `lib/`, and `cmd/<x>`, `internal/<x>`,
//!    `pkg/<x>` at the top level.
//! 4. `directory` — otherwise the file's top-level folder; files at the root (or in hidden
//!    top-level folders) belong to `.`.
//!
//! Each file belongs to exactly one module: the innermost root containing it. A module's ID is its
//! root path. Roots that end up holding no file are dropped.

use std::collections::{BTreeMap, BTreeSet};

use output_schema::manifest::Warning;
use output_schema::tables::FileRow;

use super::manifests::{expand_members, ManifestKind, Manifests, MemberCandidates};
use super::paths::{ancestors, child, file_name, parent_dir, strip_dir, RepoIndex};
use crate::fast_map::FastMap;

/// How a module was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Detection {
    /// `.ckb/config.json` `modules.roots`.
    Config,
    /// A manifest (or a package a manifest declares).
    Manifest,
    /// A language convention.
    Convention,
    /// A top-level directory, or the repository root.
    Directory,
}

impl Detection {
    /// The `modules.detection` value.
    pub fn name(self) -> &'static str {
        match self {
            Detection::Config => "config",
            Detection::Manifest => "manifest",
            Detection::Convention => "convention",
            Detection::Directory => "directory",
        }
    }
}

/// A detected module root before counts are known.
#[derive(Clone, Debug)]
pub struct Root {
    /// Root folder (module ID).
    pub id: String,
    /// How it was found.
    pub detection: Detection,
    /// Ecosystem of a package derived from a manifest (Python package, Go package tree).
    pub derived: Option<(ManifestKind, String)>,
}

/// The partition of files into modules.
#[derive(Debug, Default)]
pub struct Partition {
    /// Modules sorted by ID.
    pub roots: Vec<Root>,
    by_id: FastMap<String, usize>,
    /// Module index of each file, in the order of the files given.
    pub file_module: Vec<usize>,
}

impl Partition {
    /// Innermost module containing a folder.
    pub fn module_of_dir(&self, dir: &str) -> Option<usize> {
        ancestors(dir).find_map(|d| self.by_id.get(d).copied())
    }

    /// Innermost module containing a file path.
    pub fn module_of(&self, path: &str) -> Option<usize> {
        self.module_of_dir(parent_dir(path))
    }

    /// Module index by ID.
    pub fn index(&self, id: &str) -> Option<usize> {
        self.by_id.get(id).copied()
    }
}

/// Detection diagnostics.
#[derive(Debug, Default)]
pub struct DetectReport {
    /// Warnings (workspace globs).
    pub warnings: Vec<Warning>,
    /// Named counts.
    pub counts: BTreeMap<String, i64>,
}

const GO_CONTAINERS: &[&str] = &["cmd", "internal", "pkg"];

fn innermost<'a>(set: &'a BTreeSet<String>, dir: &str) -> Option<&'a String> {
    ancestors(dir).find_map(|d| set.get(d))
}

/// The module of a file by its top-level folder (`comps`, two or more path components): under a
/// Go container folder (`cmd`, `internal`, …) its first subfolder, else the folder itself.
fn top_level_root(comps: &[&str]) -> (String, Detection) {
    if !GO_CONTAINERS.contains(&comps[0]) {
        (comps[0].to_string(), Detection::Directory)
    } else if comps.len() >= 3 {
        (format!("{}/{}", comps[0], comps[1]), Detection::Convention)
    } else {
        (comps[0].to_string(), Detection::Convention)
    }
}

/// Partitions `files` into modules.
pub fn detect(
    files: &[FileRow],
    manifests: &Manifests,
    config_roots: &[String],
    index: &RepoIndex<'_>,
    report: &mut DetectReport,
) -> Partition {
    let mut roots: BTreeMap<String, Root> = BTreeMap::new();
    let add = |roots: &mut BTreeMap<String, Root>,
               id: String,
               detection: Detection,
               derived: Option<(ManifestKind, String)>| {
        roots.entry(id.clone()).or_insert(Root {
            id,
            detection,
            derived,
        });
    };
    let workspace_members = check_workspaces(manifests, index, report);
    let mut strong: BTreeSet<String> = BTreeSet::new();
    if !config_roots.is_empty() {
        for r in config_roots {
            strong.insert(r.clone());
            add(&mut roots, r.clone(), Detection::Config, None);
        }
    } else {
        strong.extend(manifests.package_dirs());
        for d in &strong {
            add(&mut roots, d.clone(), Detection::Manifest, None);
        }
        // Gradle `include`d projects need no build file of their own.
        for d in workspace_members
            .iter()
            .filter(|d| index.is_dir(d) && !strong.contains(*d))
        {
            let name = if d == "." {
                d.clone()
            } else {
                file_name(d).to_string()
            };
            add(
                &mut roots,
                d.clone(),
                Detection::Manifest,
                Some((ManifestKind::Gradle, name)),
            );
        }
        strong.extend(
            workspace_members
                .iter()
                .filter(|d| index.is_dir(d))
                .cloned(),
        );
        // Packages inside Python projects and Go modules, from the files each one owns directly.
        let mut derived: Vec<Root> = Vec::new();
        for f in files {
            let Some(owner) = innermost(&strong, parent_dir(&f.path)) else {
                continue;
            };
            let Some(rel) = strip_dir(&f.path, owner) else {
                continue;
            };
            let comps: Vec<&str> = rel.split('/').collect();
            if let Some(py) = manifests.python.get(owner.as_str()) {
                if !f.path.ends_with(".py") && !f.path.ends_with(".pyi") {
                    continue;
                }
                if let Some(pkg) = python_package(owner, &f.path, py, index) {
                    let declared = py.packages.contains(&pkg);
                    derived.push(Root {
                        detection: if declared {
                            Detection::Manifest
                        } else {
                            Detection::Convention
                        },
                        derived: Some((ManifestKind::Python, file_name(&pkg).to_string())),
                        id: pkg,
                    });
                }
            } else if let Some(go) = manifests.go.get(owner.as_str()) {
                if !f.path.ends_with(".go") || comps.len() < 2 || skip_dir(comps[0]) {
                    continue;
                }
                let (rel_root, detection) = top_level_root(&comps);
                derived.push(Root {
                    id: child(owner, &rel_root),
                    detection,
                    derived: Some((ManifestKind::Go, format!("{}/{}", go.module_path, rel_root))),
                });
            }
        }
        for r in derived {
            if !roots.contains_key(&r.id) {
                roots.insert(r.id.clone(), r);
            }
        }
    }
    // Files under no configured or manifest root fall back to conventions and directories.
    let all_strong: BTreeSet<String> = roots.keys().cloned().collect();
    for f in files {
        if innermost(&all_strong, parent_dir(&f.path)).is_some() {
            continue;
        }
        if !config_roots.is_empty() {
            add(&mut roots, ".".into(), Detection::Directory, None);
            continue;
        }
        let comps: Vec<&str> = f.path.split('/').collect();
        let (id, detection) = if comps.len() == 1 || comps[0].starts_with('.') {
            (".".to_string(), Detection::Directory)
        } else if matches!(comps[0], "src" | "lib") {
            (comps[0].to_string(), Detection::Convention)
        } else {
            top_level_root(&comps)
        };
        add(&mut roots, id, detection, None);
    }
    // Assign files to their innermost root, then drop roots that hold nothing.
    let ids: BTreeSet<String> = roots.keys().cloned().collect();
    let assigned: Vec<Option<&String>> = files
        .iter()
        .map(|f| innermost(&ids, parent_dir(&f.path)))
        .collect();
    let used: BTreeSet<&String> = assigned.iter().flatten().copied().collect();
    let kept: Vec<Root> = roots
        .into_values()
        .filter(|r| used.contains(&r.id))
        .collect();
    let by_id: FastMap<String, usize> = kept
        .iter()
        .enumerate()
        .map(|(i, r)| (r.id.clone(), i))
        .collect();
    let file_module = assigned
        .iter()
        .map(|a| {
            a.and_then(|id| by_id.get(id.as_str()).copied())
                .unwrap_or(0)
        })
        .collect();
    Partition {
        roots: kept,
        by_id,
        file_module,
    }
}

fn skip_dir(name: &str) -> bool {
    name.starts_with('.') || name.starts_with('_') || matches!(name, "testdata" | "vendor")
}

/// The top-level import package a Python file belongs to within project `owner`, if any.
fn python_package(
    owner: &str,
    path: &str,
    py: &super::manifests::PythonProject,
    index: &RepoIndex<'_>,
) -> Option<String> {
    // Declared packages first (they may sit anywhere under the project).
    if let Some(p) = py
        .packages
        .iter()
        .filter(|p| strip_dir(path, p).is_some())
        .max_by_key(|p| p.len())
    {
        return Some(p.clone());
    }
    let mut bases: Vec<(String, bool)> =
        py.source_roots.iter().map(|r| (r.clone(), true)).collect();
    let src = child(owner, "src");
    if index.is_dir(&src) {
        bases.push((src, true));
    }
    bases.push((owner.to_string(), false));
    for (base, is_src_root) in bases {
        let Some(rel) = strip_dir(path, &base) else {
            continue;
        };
        let comps: Vec<&str> = rel.split('/').collect();
        if comps.len() < 2
            || skip_dir(comps[0])
            || base != owner && strip_dir(&base, owner).is_none()
        {
            continue;
        }
        let pkg = child(&base, comps[0]);
        // Under a src root every folder is a package (PEP 420 namespace packages included); in a
        // flat layout only folders with `__init__.py` are, so `scripts/` or `docs/` are not.
        if is_src_root || index.is_file(&format!("{pkg}/__init__.py")) {
            return Some(pkg);
        }
        // A file under `src/` in a flat-layout check has been handled by the src root above.
        if base == owner {
            return None;
        }
    }
    None
}

/// The workspaces that include themselves through their members. A cycle needs members that
/// climb back above their workspace (`../`): each is counted once.
fn workspace_cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<String> {
    let mut on_cycle: BTreeSet<String> = BTreeSet::new();
    for start in graph.keys() {
        let mut stack = vec![(start.clone(), 0usize)];
        let mut seen = BTreeSet::new();
        while let Some((node, depth)) = stack.pop() {
            if depth > 64 || !seen.insert(node.clone()) {
                continue;
            }
            for next in graph.get(&node).into_iter().flatten() {
                if next == start && !on_cycle.contains(start) {
                    on_cycle.insert(start.clone());
                } else {
                    stack.push((next.clone(), depth + 1));
                }
            }
        }
    }
    on_cycle
}

/// Checks workspace declarations (globs escaping the repository, workspaces matching themselves,
/// cycles between workspaces) and returns the member folders that define modules without a
/// manifest of their own (Gradle `include`s).
fn check_workspaces(
    m: &Manifests,
    index: &RepoIndex<'_>,
    report: &mut DetectReport,
) -> BTreeSet<String> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let warn =
        |report: &mut DetectReport, code: &str, count: &str, path: String, message: String| {
            *report.counts.entry(count.to_string()).or_default() += 1;
            report.warnings.push(Warning {
                code: code.to_string(),
                path: Some(path),
                message,
            });
        };
    /// A workspace declared by member globs.
    struct Globbed<'m> {
        dir: &'m String,
        file: String,
        patterns: &'m [String],
        exclude: &'m [String],
        candidates: &'m MemberCandidates<'m>,
    }
    let mut globbed: Vec<Globbed<'_>> = Vec::new();
    let cargo_dirs = MemberCandidates::new(m.cargo.keys());
    let npm_dirs = MemberCandidates::new(m.npm.keys());
    let py_dirs = MemberCandidates::new(m.python.keys());
    for (dir, c) in &m.cargo {
        if let Some(ws) = &c.workspace {
            globbed.push(Globbed {
                dir,
                file: child(dir, "Cargo.toml"),
                patterns: &ws.members,
                exclude: &ws.exclude,
                candidates: &cargo_dirs,
            });
        }
    }
    for (dir, n) in &m.npm {
        if !n.workspaces.is_empty() {
            let file = if index.is_file(&child(dir, "package.json")) {
                "package.json"
            } else {
                "pnpm-workspace.yaml"
            };
            globbed.push(Globbed {
                dir,
                file: child(dir, file),
                patterns: &n.workspaces,
                exclude: &[],
                candidates: &npm_dirs,
            });
        }
    }
    for (dir, p) in &m.python {
        if !p.workspace.is_empty() {
            globbed.push(Globbed {
                dir,
                file: child(dir, "pyproject.toml"),
                patterns: &p.workspace,
                exclude: &[],
                candidates: &py_dirs,
            });
        }
    }
    for g in globbed {
        let (dir, file) = (g.dir.clone(), g.file);
        let (members, escaping, self_match) =
            expand_members(&dir, g.patterns, g.exclude, g.candidates);
        for p in escaping {
            warn(
                report,
                "workspace-glob-escapes-repo",
                "workspace.globs-escaping-repo",
                file.clone(),
                format!("member pattern {p:?} leaves the repository; ignored"),
            );
        }
        if self_match {
            warn(
                report,
                "workspace-glob-cyclic",
                "workspace.cyclic-globs",
                file.clone(),
                "a member pattern matches the workspace's own folder; that match is ignored".into(),
            );
        }
        graph.entry(dir).or_default().extend(members);
    }
    let mut gradle_members = BTreeSet::new();
    let direct = m
        .go_work
        .iter()
        .map(|(d, u)| (d, u, "go.work"))
        .chain(m.java.iter().map(|(d, j)| {
            (
                d,
                &j.members,
                if j.gradle {
                    "settings.gradle"
                } else {
                    "pom.xml"
                },
            )
        }))
        .chain(
            m.dart
                .iter()
                .map(|(d, p)| (d, &p.workspace, "pubspec.yaml")),
        );
    for (dir, members, file) in direct {
        for mem in members {
            if mem == dir {
                warn(
                    report,
                    "workspace-glob-cyclic",
                    "workspace.cyclic-globs",
                    child(dir, file),
                    "a member is the workspace's own folder; ignored".into(),
                );
                continue;
            }
            if file == "settings.gradle" {
                gradle_members.insert(mem.clone());
            }
            graph.entry(dir.clone()).or_default().insert(mem.clone());
        }
    }
    for d in workspace_cycles(&graph) {
        warn(
            report,
            "workspace-glob-cyclic",
            "workspace.cyclic-globs",
            d.clone(),
            "workspaces include each other in a cycle; membership is not followed further".into(),
        );
    }
    gradle_members
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(p: &str) -> FileRow {
        FileRow {
            path: p.into(),
            language: None,
            size_bytes: 0,
            line_count: 1,
            content_hash: String::new(),
            module_id: None,
            is_test: false,
            is_generated: false,
        }
    }

    fn ids(
        paths: &[&str],
        m: &Manifests,
        config: &[String],
    ) -> Vec<(String, &'static str, String)> {
        let mut files: Vec<FileRow> = paths.iter().map(|p| row(p)).collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let index = RepoIndex::new(files.iter().map(|f| f.path.as_str()));
        let mut rep = DetectReport::default();
        let part = detect(&files, m, config, &index, &mut rep);
        part.roots
            .iter()
            .map(|r| {
                let owned: Vec<&str> = files
                    .iter()
                    .zip(&part.file_module)
                    .filter(|(_, &mi)| part.roots[mi].id == r.id)
                    .map(|(f, _)| f.path.as_str())
                    .collect();
                (r.id.clone(), r.detection.name(), owned.join(","))
            })
            .collect()
    }

    #[test]
    fn fallback_conventions_and_directories() {
        let got = ids(
            &[
                "README.md",
                ".github/ci.yml",
                "src/a.c",
                "internal/store/s.go",
                "internal/x.go",
                "docs/d.md",
                "tools/t.sh",
            ],
            &Manifests::default(),
            &[],
        );
        let want = [
            (".", "directory", ".github/ci.yml,README.md"),
            ("docs", "directory", "docs/d.md"),
            ("internal", "convention", "internal/x.go"),
            ("internal/store", "convention", "internal/store/s.go"),
            ("src", "convention", "src/a.c"),
            ("tools", "directory", "tools/t.sh"),
        ];
        let want: Vec<(String, &str, String)> = want
            .iter()
            .map(|(a, b, c)| (a.to_string(), *b, c.to_string()))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn config_roots_are_exclusive() {
        let mut m = Manifests::default();
        m.npm.insert("web".into(), Default::default());
        let got = ids(
            &["web/package.json", "web/a.ts", "core/b.rs", "x.md"],
            &m,
            &["core".into()],
        );
        let names: Vec<(&str, &str)> = got.iter().map(|(a, b, _)| (a.as_str(), *b)).collect();
        assert_eq!(names, [(".", "directory"), ("core", "config")]);
    }
}
