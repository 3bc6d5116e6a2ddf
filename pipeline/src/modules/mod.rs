//! Modules stage: module detection, import resolution, the module graph and the architecture view.
//!
//! Input: the scan's `files` (required), the syntax stage's `imports` (optional: without them
//! modules are still detected, but no import edge can exist), `symbols` (entry points, symbol
//! counts, symbol modules) and `occurrences` (SCIP references crossing modules).
//! Output: `module_id` filled in `files` and `symbols`; every `imports` row classified
//! (kind, target, method, confidence, from/to module); the `modules` and `module_edges` tables;
//! the `architecture` view.
//!
//! Architecture invariant: this stage never invents an edge. An edge between two modules exists
//! only when import rows or SCIP reference occurrences connect them (see [`graph`]); an import it
//! cannot resolve stays `unknown`, including ambiguous matches across modules.
//!
//! Bad input is data: a malformed manifest is a warning naming the file (detection falls back for
//! its folder), workspace globs that leave the repository or match their own workspace are counted
//! and ignored, imports leaving the repository are counted and stay unknown, and files with huge
//! import lists (more than [`HUGE_IMPORT_LIST`] rows, typically generated) are counted and warned
//! about while all their rows are still classified.

pub mod detect;
pub mod formats;
pub mod glob;
pub mod graph;
pub mod import_targets;
pub mod manifests;
pub mod paths;
pub mod stdlib;
pub mod view;

use std::collections::{BTreeMap, BTreeSet};

use output_schema::manifest::{Completeness, StageReport, Warning};
use output_schema::tables::{
    FileRow, ImportRow, ModuleEdgeRow, ModuleRow, OccurrenceRow, SymbolRow,
};
use output_schema::SharedStr;
use rayon::prelude::*;

use crate::fast_map::FastMap;
use crate::stage::{ManifestParts, StageContext, StageOutput};
use crate::write::TableSet;
use detect::{DetectReport, Partition};
use graph::Entrypoint;
use import_targets::{Resolver, Unresolved};
use manifests::Manifests;
use paths::{child, file_name, parent_dir, RepoIndex};

/// A file with more import rows than this is reported as a huge (probably generated) import list.
pub const HUGE_IMPORT_LIST: usize = 1000;

/// Languages that describe data or documents; a module's language is its most common other one.
const NON_CODE: &[&str] = &[
    "markdown", "json", "yaml", "toml", "xml", "html", "css", "sql", "protobuf",
];

/// What the stage produced: the tables it was given, with module IDs assigned and imports
/// classified, plus `modules` and `module_edges`.
#[derive(Debug)]
pub struct ModulesOutput {
    /// The tables, module-assigned.
    pub tables: TableSet,
    /// The manifest report.
    pub report: StageReport,
    /// The `architecture` view (`None` when the stage had no input).
    pub view: Option<output_schema::views::ArchitectureView>,
}

/// Runs the stage over `tables` (which must hold `files`) and hands them back with `module_id`
/// filled, imports classified, and `modules` and `module_edges` added.
pub fn run(ctx: &StageContext<'_>, mut tables: TableSet) -> ModulesOutput {
    let occurrences = tables.occurrences.take();
    let mut output = run_reading(ctx, tables, occurrences.as_deref());
    output.tables.occurrences = occurrences;
    output
}

/// [`run`], reading `occurrences` where they are rather than from `tables` (the stage only reads
/// them: the driver encodes them for the write meanwhile).
pub fn run_reading(
    ctx: &StageContext<'_>,
    mut tables: TableSet,
    occurrences: Option<&[OccurrenceRow]>,
) -> ModulesOutput {
    ctx.progress.stage_started("modules", None);
    let Some(files) = tables.files.as_mut() else {
        return ModulesOutput {
            tables,
            report: StageReport::skipped("input stage scan did not run"),
            view: None,
        };
    };
    let mut warnings: Vec<Warning> = Vec::new();
    let mut counts: BTreeMap<String, i64> = BTreeMap::new();
    let paths: Vec<String> = files.iter().map(|f| f.path.clone()).collect();
    let path_refs: Vec<&str> = paths.iter().map(String::as_str).collect();
    let index = RepoIndex::new(path_refs.iter().copied());

    // 1. Manifests and module detection.
    let (manifests, partition) = detect_modules(ctx, files, &index, &mut warnings, &mut counts);
    let ids: Vec<String> = partition.roots.iter().map(|r| r.id.clone()).collect();
    for (f, &mi) in files.iter_mut().zip(&partition.file_module) {
        f.module_id = Some(ids[mi].clone());
    }
    let module_of = |p: &str| partition.module_of(p);
    // A resolved target is a file or a folder (Go and Java packages, namespace packages).
    let module_of_target = |t: &str| {
        if index.is_file(t) {
            partition.module_of(t)
        } else {
            partition.module_of_dir(t)
        }
    };

    // 2. Symbols: module and counts.
    let (symbol_counts, symbol_modules) =
        assign_symbol_modules(tables.symbols.as_mut(), &ids, &module_of);

    // 3. Imports.
    let mut import_stats = ImportStats::default();
    if let Some(imports) = tables.imports.as_mut() {
        let resolver = Resolver::new(&index, &manifests, &path_refs, &module_of_target);
        counts.extend(resolver.counts());
        import_stats = classify_imports(
            imports,
            &resolver,
            &ids,
            &module_of_target,
            &mut counts,
            &mut warnings,
        );
    }

    // 4. Edges.
    let symbol_module_ref: FastMap<&str, usize> = tables
        .symbols
        .as_deref()
        .unwrap_or_default()
        .iter()
        .zip(&symbol_modules)
        .filter_map(|(s, m)| Some((s.stable_id.as_str(), (*m)?)))
        .collect();
    let (edges, ref_stats) = graph::build_edges(
        &ids,
        tables.imports.as_deref().unwrap_or_default(),
        occurrences,
        &module_of,
        &symbol_module_ref,
    );
    let internal_edges = edge_counts(&edges, &ref_stats, &mut counts);

    // 5. Entry points and module rows.
    let entrypoints = entrypoints(
        &manifests,
        files,
        tables.symbols.as_deref().unwrap_or_default(),
        &index,
    );
    let mut entry_modules: Vec<(String, Entrypoint)> = entrypoints
        .into_iter()
        .filter_map(|e| module_of(&e.path).map(|m| (ids[m].clone(), e)))
        .collect();
    entry_modules.sort();
    entry_modules.dedup();
    counts.insert("entrypoints".into(), entry_modules.len() as i64);
    let entry_set: BTreeSet<&str> = entry_modules.iter().map(|(m, _)| m.as_str()).collect();
    let rows = module_rows(
        ctx.repo_id,
        files,
        &partition,
        &manifests,
        &symbol_counts,
        &entry_set,
    );
    for r in &rows {
        let det = format!("modules.{}", r.detection);
        *counts.entry(det).or_default() += 1;
    }
    counts.insert("modules".into(), rows.len() as i64);

    // 6. View and report.
    let view = view::architecture(&rows, &edges, &entry_modules);
    let imports_present = tables.imports.is_some();
    let malformed = manifests.malformed > 0;
    let mut report = StageReport::ran(!imports_present || malformed);
    report.items = files.len() as i64;
    report.counts = counts;
    let scip_references = occurrences.is_some_and(|o| o.iter().any(|x| x.source == "scip"));
    report.completeness = Some(completeness(
        imports_present,
        ref_stats.cross_module,
        &import_stats,
        scip_references,
    ));
    report.breakdown = import_stats.per_language;
    report.set_warnings(warnings);
    tables.modules = Some(rows);
    tables.module_edges = Some(edges);
    ctx.progress.stage_finished(
        "modules",
        &format!(
            "{} modules, {} edges",
            report.counts.get("modules").copied().unwrap_or(0),
            internal_edges
        ),
    );
    ModulesOutput {
        tables,
        report,
        view: Some(view),
    }
}

impl StageOutput for ModulesOutput {
    type Rows = TableSet;
    fn split(self) -> (TableSet, ManifestParts) {
        let mut parts = ManifestParts::report(self.report);
        parts.extras.views.architecture = self.view;
        (self.tables, parts)
    }
}

/// Reads the manifests and the configured roots, and partitions the files into modules.
fn detect_modules(
    ctx: &StageContext<'_>,
    files: &[FileRow],
    index: &RepoIndex,
    warnings: &mut Vec<Warning>,
    counts: &mut BTreeMap<String, i64>,
) -> (Manifests, Partition) {
    let manifests = manifests::read_manifests(ctx.root, files, index);
    let (config_roots, config_warnings) = manifests::config_roots(&ctx.config.modules.roots, index);
    warnings.extend(config_warnings);
    let mut detect_report = DetectReport::default();
    let partition = detect::detect(files, &manifests, &config_roots, index, &mut detect_report);
    warnings.extend(manifests.warnings.iter().cloned());
    warnings.extend(detect_report.warnings);
    counts.extend(detect_report.counts);
    counts.insert("manifests.read".into(), manifests.read);
    counts.insert("manifests.malformed".into(), manifests.malformed);
    (manifests, partition)
}

/// How complete the module graph is: without imports, not at all; else the share of imports
/// resolved.
fn completeness(
    imports_present: bool,
    cross_module: i64,
    import_stats: &ImportStats,
    scip_references: bool,
) -> Completeness {
    if !imports_present {
        Completeness {
            score: 0.0,
            reason: if cross_module > 0 {
                "imports-unavailable: the syntax stage did not run, so no import edges exist; edges come from SCIP references only".into()
            } else {
                "imports-unavailable: the syntax stage did not run, so module edges from imports are impossible".into()
            },
        }
    } else {
        Completeness {
            score: if import_stats.total == 0 {
                1.0
            } else {
                (import_stats.resolved as f64 / import_stats.total as f64 * 1e6).round() / 1e6
            },
            reason: if scip_references {
                "imports-resolved+scip-references".into()
            } else {
                "imports-resolved".into()
            },
        }
    }
}

/// Sets every symbol's module; returns the symbols per module and each symbol's module index (in
/// symbol order).
fn assign_symbol_modules(
    symbols: Option<&mut Vec<SymbolRow>>,
    ids: &[String],
    module_of: &dyn Fn(&str) -> Option<usize>,
) -> (Vec<i64>, Vec<Option<usize>>) {
    let mut symbol_counts = vec![0i64; ids.len()];
    let Some(symbols) = symbols else {
        return (symbol_counts, Vec::new());
    };
    let shared_ids: Vec<SharedStr> = ids.iter().map(SharedStr::from).collect();
    // Symbols come by stable ID, not by file: each file's module is looked up once.
    let mut by_path: FastMap<SharedStr, Option<usize>> = FastMap::default();
    let modules = symbols
        .iter_mut()
        .map(|s| {
            let m = match by_path.get(s.path.as_str()) {
                Some(m) => *m,
                None => *by_path
                    .entry(s.path.clone())
                    .or_insert_with(|| module_of(&s.path)),
            };
            s.module_id = m.map(|i| shared_ids[i].clone());
            if let Some(i) = m {
                symbol_counts[i] += 1;
            }
            m
        })
        .collect();
    (symbol_counts, modules)
}

/// Counts the edges and references; returns how many edges stay inside the repository.
fn edge_counts(
    edges: &[ModuleEdgeRow],
    ref_stats: &graph::ReferenceStats,
    counts: &mut BTreeMap<String, i64>,
) -> usize {
    let internal_edges = edges
        .iter()
        .filter(|e| !e.to_module.starts_with(graph::EXTERNAL_PREFIX))
        .count();
    counts.insert("edges".into(), internal_edges as i64);
    counts.insert(
        "edges.external".into(),
        (edges.len() - internal_edges) as i64,
    );
    counts.insert(
        "edges.reference-only".into(),
        ref_stats.reference_only_edges,
    );
    counts.insert("references.cross-module".into(), ref_stats.cross_module);
    counts.insert("references.external".into(), ref_stats.external);
    internal_edges
}

/// Totals of the import classification.
#[derive(Debug, Default)]
struct ImportStats {
    total: i64,
    resolved: i64,
    per_language: BTreeMap<String, BTreeMap<String, i64>>,
}

/// What an import's resolution depends on besides the shared lookups: language, raw text, the
/// importing file's folder (its file for Rust, whose module path depends on the file), and for a
/// Python `from . import x` the first imported name. Rows with equal keys resolve equally.
fn resolution_key(row: &ImportRow) -> (&str, &str, &str, &str) {
    let scope = if row.language == "rust" {
        row.path.as_str()
    } else {
        parent_dir(&row.path)
    };
    let dots_only = row.language == "python"
        && !row.raw.is_empty()
        && row.raw.trim().bytes().all(|b| b == b'.');
    let extra = if dots_only {
        row.names.first().map(String::as_str).unwrap_or("")
    } else {
        ""
    };
    (row.language.as_str(), scope, row.raw.as_str(), extra)
}

/// Classifies every import row in place, counting kinds, methods and reasons, and warning about
/// huge lists and escaping paths. Each distinct [`resolution_key`] is resolved once (in parallel,
/// kept in first-occurrence order), so a package imported from many files costs one lookup.
fn classify_imports(
    imports: &mut [ImportRow],
    resolver: &Resolver<'_>,
    ids: &[String],
    module_of: &(dyn Fn(&str) -> Option<usize> + Sync),
    counts: &mut BTreeMap<String, i64>,
    warnings: &mut Vec<Warning>,
) -> ImportStats {
    let mut slot_of: FastMap<(&str, &str, &str, &str), usize> = FastMap::default();
    let mut firsts: Vec<usize> = Vec::new();
    let mut slots: Vec<usize> = Vec::with_capacity(imports.len());
    let mut per_file: FastMap<&str, usize> = FastMap::default();
    for (i, row) in imports.iter().enumerate() {
        let next = firsts.len();
        let slot = *slot_of.entry(resolution_key(row)).or_insert(next);
        if slot == next {
            firsts.push(i);
        }
        slots.push(slot);
        *per_file.entry(row.path.as_str()).or_default() += 1;
    }
    let results: Vec<import_targets::Resolution> = firsts
        .par_iter()
        .map(|&i| resolver.resolve(&imports[i]))
        .collect();
    let mut huge: Vec<(&str, usize)> = per_file
        .into_iter()
        .filter(|(_, n)| *n > HUGE_IMPORT_LIST)
        .collect();
    huge.sort();
    for (p, n) in huge {
        *counts.entry("imports.huge-lists".into()).or_default() += 1;
        warnings.push(Warning {
            code: "huge-import-list".into(),
            path: Some(p.to_string()),
            message: format!("{n} import rows (more than {HUGE_IMPORT_LIST}); probably generated, all classified"),
        });
    }
    drop(slot_of);
    // Counting with fixed keys keeps the per-row loop free of allocations beyond the row itself.
    let mut by_kind: BTreeMap<&'static str, i64> = BTreeMap::new();
    let mut by_method: BTreeMap<&'static str, i64> = BTreeMap::new();
    let mut by_reason: BTreeMap<&'static str, i64> = BTreeMap::new();
    let mut per_language: BTreeMap<String, BTreeMap<&'static str, i64>> = BTreeMap::new();
    let mut stats = ImportStats::default();
    // Writing the classification back is independent per row.
    imports
        .par_iter_mut()
        .zip(slots.par_iter())
        .for_each(|(row, &slot)| {
            let res = &results[slot];
            row.from_module = module_of(&row.path).map(|i| ids[i].clone());
            row.to_module = match (&res.target, res.kind.is_local()) {
                (Some(t), true) => module_of(t).map(|i| ids[i].clone()),
                _ => None,
            };
            row.kind = res.kind.name().to_string();
            row.method = res.method.map(|m| m.name().to_string());
            row.confidence = res.confidence;
            row.target = res.target.clone();
        });
    for (row, &slot) in imports.iter().zip(&slots) {
        let res = &results[slot];
        stats.total += 1;
        let kind = res.kind.name();
        if !per_language.contains_key(&row.language) {
            per_language.insert(row.language.clone(), BTreeMap::new());
        }
        if let Some(lang) = per_language.get_mut(&row.language) {
            *lang.entry("imports").or_default() += 1;
            *lang.entry(kind).or_default() += 1;
        }
        *by_kind.entry(kind).or_default() += 1;
        if let Some(m) = res.method {
            *by_method.entry(m.name()).or_default() += 1;
        }
        let Some(why) = res.unresolved else {
            stats.resolved += 1;
            continue;
        };
        let key = match why {
            Unresolved::NotFound => "imports.not-found",
            Unresolved::EscapesRepo => "imports.escaping-repo",
            Unresolved::Ambiguous => "imports.ambiguous",
            Unresolved::UnsupportedLanguage => "imports.unsupported-language",
        };
        *by_reason.entry(key).or_default() += 1;
        if why == Unresolved::EscapesRepo {
            warnings.push(Warning {
                code: "import-escapes-repo".into(),
                path: Some(row.path.clone()),
                message: format!(
                    "line {}: {:?} resolves outside the repository",
                    row.line, row.raw
                ),
            });
        }
    }
    for (k, n) in by_kind {
        counts.insert(format!("imports.{k}"), n);
    }
    for (m, n) in by_method {
        counts.insert(format!("imports.method.{m}"), n);
    }
    for (r, n) in by_reason {
        counts.insert(r.to_string(), n);
    }
    counts.insert("imports".into(), stats.total);
    stats.per_language = per_language
        .into_iter()
        .map(|(l, m)| (l, m.into_iter().map(|(k, v)| (k.to_string(), v)).collect()))
        .collect();
    stats
}

/// Builds one `modules` row per detected module.
fn module_rows(
    repo_id: &str,
    files: &[FileRow],
    partition: &Partition,
    manifests: &Manifests,
    symbol_counts: &[i64],
    entry: &BTreeSet<&str>,
) -> Vec<ModuleRow> {
    let n = partition.roots.len();
    let mut file_count = vec![0i64; n];
    let mut line_count = vec![0i64; n];
    let mut langs: Vec<BTreeMap<&str, i64>> = vec![BTreeMap::new(); n];
    for (f, &mi) in files.iter().zip(&partition.file_module) {
        file_count[mi] += 1;
        line_count[mi] += f.line_count;
        if let Some(l) = f.language.as_deref() {
            *langs[mi].entry(l).or_default() += 1;
        }
    }
    partition
        .roots
        .iter()
        .enumerate()
        .map(|(i, root)| {
            // Most common code language; data/doc languages only when there is nothing else.
            // BTreeMap order makes ties go to the alphabetically first language.
            let pick = |code: bool| {
                langs[i]
                    .iter()
                    .filter(|(l, _)| NON_CODE.contains(l) != code)
                    .fold(None, |best: Option<(&str, i64)>, (l, c)| match best {
                        Some((_, bc)) if bc >= *c => best,
                        _ => Some((l, *c)),
                    })
                    .map(|(l, _)| l.to_string())
            };
            let code_language = pick(true);
            let kinds = manifests.kinds_at(&root.id);
            // Several manifests in one folder: the one building the module's language describes it.
            let kind = kinds
                .iter()
                .copied()
                .find(|k| {
                    code_language
                        .as_deref()
                        .is_some_and(|l| k.languages().contains(&l))
                })
                .or_else(|| kinds.first().copied());
            // A manifest-only folder (a workspace root) speaks its ecosystem's language.
            let language = code_language
                .or_else(|| kind.map(|k| k.languages()[0].to_string()))
                .or_else(|| pick(false));
            let dir_name = if root.id == "." {
                repo_id.to_string()
            } else {
                file_name(&root.id).to_string()
            };
            let (manifest, name) = match (kind, &root.derived) {
                (Some(k), _) => (k.name(), manifests.name_at(&root.id, k).unwrap_or(dir_name)),
                (None, Some((k, name))) => (k.name(), name.clone()),
                (None, None) => ("none", dir_name),
            };
            ModuleRow {
                module_id: root.id.clone(),
                name,
                root: root.id.clone(),
                manifest: manifest.to_string(),
                detection: root.detection.name().to_string(),
                language,
                file_count: file_count[i],
                symbol_count: symbol_counts[i],
                line_count: line_count[i],
                is_entrypoint: entry.contains(root.id.as_str()),
            }
        })
        .collect()
}

/// Entry points: main functions (from symbols), Cargo binaries, package.json `bin`/`main`,
/// Python `__main__.py` and console scripts, Dart `bin/` files. Files that look like tests are
/// left out.
fn entrypoints(
    m: &Manifests,
    files: &[FileRow],
    symbols: &[output_schema::tables::SymbolRow],
    index: &RepoIndex<'_>,
) -> Vec<Entrypoint> {
    let mut out: Vec<Entrypoint> = Vec::new();
    let is_test: FastMap<&str, bool> = files.iter().map(|f| (f.path.as_str(), f.is_test)).collect();
    for s in symbols {
        let lang = s.language.as_deref().unwrap_or("");
        let main_fn = s.name == "main"
            && (s.kind == "function"
                && s.container.is_none()
                && matches!(lang, "rust" | "go" | "c" | "cpp")
                || s.kind == "method" && matches!(lang, "java" | "kotlin"));
        if main_fn {
            out.push(Entrypoint {
                path: s.path.to_string(),
                kind: "main-function",
            });
        }
    }
    for (dir, c) in &m.cargo {
        if c.name.is_none() {
            continue;
        }
        let main = child(dir, "src/main.rs");
        if index.is_file(&main) {
            out.push(Entrypoint {
                path: main,
                kind: "bin-target",
            });
        }
        for b in c.bin_paths.iter().filter(|b| index.is_file(b)) {
            out.push(Entrypoint {
                path: b.clone(),
                kind: "bin-target",
            });
        }
    }
    // src/bin/<x>.rs and src/bin/<x>/main.rs of every package, in one pass over the files.
    let bin_dirs: BTreeSet<String> = m
        .cargo
        .iter()
        .filter(|(_, c)| c.name.is_some())
        .map(|(d, _)| child(d, "src/bin"))
        .collect();
    for f in files.iter().filter(|f| f.path.ends_with(".rs")) {
        let dir = parent_dir(&f.path);
        if bin_dirs.contains(dir)
            || file_name(&f.path) == "main.rs" && bin_dirs.contains(parent_dir(dir))
        {
            out.push(Entrypoint {
                path: f.path.clone(),
                kind: "bin-target",
            });
        }
    }
    for (dir, n) in &m.npm {
        let manifest = child(dir, "package.json");
        if !index.is_file(&manifest) {
            continue;
        }
        // A declared file that is not in the repository (built output): the manifest stands in.
        let declared = |path: &String, kind| Entrypoint {
            path: if index.is_file(path) {
                path.clone()
            } else {
                manifest.clone()
            },
            kind,
        };
        out.extend(n.bins.iter().map(|b| declared(b, "package-bin")));
        out.extend(n.main.iter().map(|main| declared(main, "package-main")));
    }
    for f in files.iter().filter(|f| file_name(&f.path) == "__main__.py") {
        out.push(Entrypoint {
            path: f.path.clone(),
            kind: "python-main",
        });
    }
    for (dir, p) in &m.python {
        let mut bases = vec![dir.clone(), child(dir, "src")];
        bases.extend(p.source_roots.iter().cloned());
        for script in &p.scripts {
            let rel = script.replace('.', "/");
            let found = bases.iter().find_map(|b| {
                [
                    child(b, &format!("{rel}.py")),
                    child(b, &format!("{rel}/__init__.py")),
                ]
                .into_iter()
                .find(|f| index.is_file(f))
            });
            if let Some(path) = found.or_else(|| p.files.first().cloned()) {
                out.push(Entrypoint {
                    path,
                    kind: "console-script",
                });
            }
        }
    }
    let dart_bins: BTreeSet<String> = m.dart.keys().map(|d| child(d, "bin")).collect();
    for f in files
        .iter()
        .filter(|f| f.path.ends_with(".dart") && dart_bins.contains(parent_dir(&f.path)))
    {
        out.push(Entrypoint {
            path: f.path.clone(),
            kind: "bin-target",
        });
    }
    out.retain(|e| !is_test.get(e.path.as_str()).copied().unwrap_or(false));
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn kinds_are_named_as_stored() {
        use super::import_targets::Kind;
        let names: Vec<&str> = [
            Kind::LocalFile,
            Kind::LocalModule,
            Kind::WorkspacePackage,
            Kind::ExternalDependency,
            Kind::Stdlib,
            Kind::Unknown,
        ]
        .iter()
        .map(|k| k.name())
        .collect();
        assert_eq!(
            names,
            [
                "local-file",
                "local-module",
                "workspace-package",
                "external-dependency",
                "stdlib",
                "unknown"
            ]
        );
    }
}
