//! Shared helpers for the modules-stage tests: fixture repositories written to temp dirs,
//! hand-made import/symbol/occurrence rows, and an independent traceability check of edges.
#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use output_schema::config::Config;
use output_schema::manifest::RepoState;
use output_schema::tables::{
    FileRow, ImportRow, ModuleEdgeRow, ModuleRow, OccurrenceRow, SymbolRow,
};
use output_schema::Roles;
use pipeline::modules::{self, ModulesOutput};
use pipeline::write::TableSet;
use pipeline::{NoProgress, StageContext};

/// A fixture repository in a temp dir.
pub struct Fixture {
    pub dir: tempfile::TempDir,
}

impl Fixture {
    /// Writes the files (bytes as given).
    pub fn new(files: &[(&str, &str)]) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        for (p, text) in files {
            write(dir.path(), p, text.as_bytes());
        }
        Fixture { dir }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// The real scan of the fixture.
    pub fn scan(&self) -> Vec<FileRow> {
        let cfg = pipeline::scan::ScanConfig {
            max_file_bytes: 1 << 20,
            ignore_globs: Vec::new(),
            excluded_folders: Vec::new(),
            cache_file: None,
        };
        pipeline::scan::scan(self.root(), &cfg, &NoProgress)
            .unwrap()
            .files
    }

    /// Runs the modules stage with these tables (files come from the scan).
    pub fn run(&self, mut tables: TableSet, config: &Config) -> (TableSet, ModulesOutput) {
        tables.files = Some(self.scan());
        let state = RepoState::default();
        let ctx = StageContext {
            root: self.root(),
            repo_id: "fixture",
            config,
            repo_state: &state,
            previous: None,
            progress: &NoProgress,
        };
        let mut out = modules::run(&ctx, tables);
        (std::mem::take(&mut out.tables), out)
    }

    /// Runs with imports only and the default config.
    pub fn run_imports(&self, imports: Vec<ImportRow>) -> (TableSet, ModulesOutput) {
        self.run(
            TableSet {
                imports: Some(imports),
                ..TableSet::default()
            },
            &Config::default(),
        )
    }
}

pub fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

/// Language of a path as the scan names it.
pub fn lang(path: &str) -> &'static str {
    pipeline::scan::detect_language(path, b"").unwrap_or("unknown")
}

/// An unclassified import row, as the syntax stage writes it.
pub fn imp(path: &str, line: i32, raw: &str) -> ImportRow {
    imp_names(path, line, raw, &[])
}

pub fn imp_names(path: &str, line: i32, raw: &str, names: &[&str]) -> ImportRow {
    ImportRow::unclassified(
        path.into(),
        line,
        raw.into(),
        names.iter().map(|s| s.to_string()).collect(),
        lang(path).into(),
    )
}

pub fn symbol(id: &str, name: &str, kind: &str, path: &str, container: Option<&str>) -> SymbolRow {
    SymbolRow {
        stable_id: id.into(),
        name: name.into(),
        kind: kind.into(),
        container: container.map(Into::into),
        signature: None,
        arity: None,
        definition_version_id: "v".into(),
        visibility: "public".into(),
        visibility_confidence: 1.0,
        visibility_source: "signature".into(),
        module_id: None,
        language: Some(lang(path).into()),
        path: path.into(),
        start_line: 1,
        start_col: 1,
        end_line: 2,
        end_col: 1,
        source: "scip".into(),
        backend_id: None,
        body_hash: None,
    }
}

pub fn reference(symbol_id: &str, path: &str, line: i32, source: &str) -> OccurrenceRow {
    test_support::rows::reference(Some(symbol_id), "x", path, line, source)
}

/// The classification of the import at (path, line) as (kind, target, method).
pub fn class(t: &TableSet, path: &str, line: i32) -> (String, Option<String>, Option<String>) {
    let r = t
        .imports
        .as_ref()
        .unwrap()
        .iter()
        .find(|r| r.path == path && r.line == line)
        .unwrap_or_else(|| panic!("no import {path}:{line}"));
    (r.kind.clone(), r.target.clone(), r.method.clone())
}

/// Asserts an import's kind and target.
#[track_caller]
pub fn assert_import(t: &TableSet, path: &str, line: i32, kind: &str, target: Option<&str>) {
    let (k, tg, m) = class(t, path, line);
    assert_eq!(
        (k.as_str(), tg.as_deref()),
        (kind, target),
        "{path}:{line} (method {m:?})"
    );
}

/// Asserts each import's kind and target, given as rows of (path, line, kind, target).
#[track_caller]
pub fn assert_imports(t: &TableSet, want: &[(&str, i32, &str, Option<&str>)]) {
    for &(path, line, kind, target) in want {
        assert_import(t, path, line, kind, target);
    }
}

/// Modules as (id, name, manifest, detection), sorted.
pub fn module_list(t: &TableSet) -> Vec<(&str, &str, &str, &str)> {
    sorted(t.modules.as_deref(), |m| {
        let ModuleRow {
            module_id,
            name,
            manifest,
            detection,
            ..
        } = m;
        (
            module_id.as_str(),
            name.as_str(),
            manifest.as_str(),
            detection.as_str(),
        )
    })
}

/// Edges as (from, to, kind, imports, references), sorted.
pub fn edge_list(t: &TableSet) -> Vec<(&str, &str, &str, i64, i64)> {
    sorted(t.module_edges.as_deref(), |e| {
        let (from, to) = (e.from_module.as_str(), e.to_module.as_str());
        (from, to, e.kind.as_str(), e.import_count, e.reference_count)
    })
}

/// The rows of a table the stage wrote (panics if it wrote none), as sorted tuples.
fn sorted<'t, R, K: Ord>(rows: Option<&'t [R]>, tuple: impl Fn(&'t R) -> K) -> Vec<K> {
    let mut v: Vec<K> = rows
        .expect("the stage wrote the table")
        .iter()
        .map(tuple)
        .collect();
    v.sort();
    v
}

/// The modules marked as entry points, in table order.
pub fn entrypoints(t: &TableSet) -> Vec<&str> {
    let modules = t.modules.as_ref().expect("modules table");
    modules
        .iter()
        .filter(|m| m.is_entrypoint)
        .map(|m| m.module_id.as_str())
        .collect()
}

/// The module a file or symbol was assigned (panics, naming `what`, where it has none).
fn assigned<'t>(module: Option<&'t str>, what: &str) -> &'t str {
    module.unwrap_or_else(|| panic!("every {what} has a module"))
}

/// Recounts every edge from the output tables alone and checks it matches: an edge must be backed
/// by import rows (from_module/to_module/target) or SCIP reference occurrences (files.module_id and
/// symbols.module_id), with exactly the counts it claims; and every cross-module import is on an edge.
pub fn assert_traceable(t: &TableSet) {
    let files = t.files.as_deref().expect("the scan ran");
    let file_module: HashMap<&str, &str> = files
        .iter()
        .map(|f| (f.path.as_str(), assigned(f.module_id.as_deref(), "file")))
        .collect();
    let symbols = t.symbols.iter().flatten();
    let symbol_module: HashMap<&str, &str> = symbols
        .map(|s| {
            (
                s.stable_id.as_str(),
                assigned(s.module_id.as_deref(), "symbol"),
            )
        })
        .collect();
    let mut imports: BTreeMap<(String, String), i64> = BTreeMap::new();
    for r in t.imports.iter().flatten() {
        let (Some(from), kind) = (&r.from_module, r.kind.as_str()) else {
            continue;
        };
        assert_eq!(
            Some(from.as_str()),
            file_module.get(r.path.as_str()).copied(),
            "from_module of {}:{}",
            r.path,
            r.line
        );
        let to = match kind {
            "local-file" | "local-module" | "workspace-package" => {
                r.to_module.clone().expect("local import has to_module")
            }
            "external-dependency" | "stdlib" => format!("external:{}", r.target.as_ref().unwrap()),
            _ => continue,
        };
        if *from != to {
            *imports.entry((from.clone(), to)).or_default() += 1;
        }
    }
    let mut refs: BTreeMap<(String, String), i64> = BTreeMap::new();
    for o in t.occurrences.iter().flatten() {
        if o.source != "scip"
            || !o.roles.contains(Roles::REFERENCE)
            || o.roles.contains(Roles::DEFINITION)
        {
            continue;
        }
        let (Some(from), Some(to)) = (
            file_module.get(o.path.as_str()),
            o.symbol_id.as_deref().and_then(|s| symbol_module.get(s)),
        ) else {
            continue;
        };
        if from != to {
            *refs.entry((from.to_string(), to.to_string())).or_default() += 1;
        }
    }
    let edges: &Vec<ModuleEdgeRow> = t.module_edges.as_ref().unwrap();
    for e in edges {
        let key = (e.from_module.clone(), e.to_module.clone());
        let i = imports.get(&key).copied().unwrap_or(0);
        assert!(
            e.import_count + e.reference_count > 0,
            "edge without evidence: {e:?}"
        );
        assert_eq!(e.import_count, i, "import_count of {e:?}");
        if !e.to_module.starts_with("external:") {
            assert_eq!(
                e.reference_count,
                refs.get(&key).copied().unwrap_or(0),
                "reference_count of {e:?}"
            );
        }
        assert!((0.0..=1.0).contains(&e.strength), "{e:?}");
    }
    let edge_keys: std::collections::HashSet<(&str, &str)> = edges
        .iter()
        .map(|e| (e.from_module.as_str(), e.to_module.as_str()))
        .collect();
    for ((from, to), n) in imports.iter().chain(refs.iter()) {
        assert!(
            edge_keys.contains(&(from.as_str(), to.as_str())),
            "{n} imports/references {from} -> {to} have no edge"
        );
    }
}
