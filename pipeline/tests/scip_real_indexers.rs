//! End-to-end SCIP tests on real indexer output: small fixture projects under
//! `tests/fixtures/scip/{ts,py,rust}` are copied into fresh git repositories, indexed with
//! scip-typescript, scip-python and rust-analyzer at test time, and snapshotted. A missing indexer
//! fails the test under `CI=true` (`ci/install-indexers.sh` installs the pinned versions) and skips
//! it loudly otherwise.

mod scip_support;

use std::collections::BTreeMap;
use std::path::Path;

use output_schema::manifest::StageReport;
use output_schema::tables::{OccurrenceRow, SymbolRow};
use output_schema::Roles;
use scip_support::*;

fn index_fixture(name: &str) -> Option<(tempfile::TempDir, std::path::PathBuf)> {
    let (tool, args): (&str, &[&str]) = match name {
        "ts" => ("scip-typescript", &["index"]),
        "py" => (
            "scip-python",
            &[
                "index",
                ".",
                "--project-name",
                "fixture",
                "--project-version",
                "0.1.0",
            ],
        ),
        _ => ("rust-analyzer", &["scip", "."]),
    };
    let program = indexer(tool)?;
    let repo = fixture_repo(name);
    run(repo.path(), &program, args);
    let index = repo.path().join("index.scip");
    assert!(index.is_file(), "{tool} wrote no index.scip");
    Some((repo, index))
}

fn by_name<'a>(symbols: &'a [SymbolRow], path: &str, name: &str) -> &'a SymbolRow {
    symbols
        .iter()
        .find(|s| s.path == path && s.name == name)
        .unwrap_or_else(|| panic!("no symbol {name} in {path}"))
}

fn by_backend<'a>(symbols: &'a [SymbolRow], suffix: &str) -> &'a SymbolRow {
    symbols
        .iter()
        .find(|s| s.backend_id.as_deref().is_some_and(|b| b.ends_with(suffix)))
        .unwrap_or_else(|| panic!("no symbol whose SCIP symbol ends with {suffix}"))
}

/// The 1-based byte column of the first `needle` on 1-based line `line` of a file.
fn byte_col(root: &Path, path: &str, line: usize, needle: &str) -> i32 {
    let text = std::fs::read_to_string(root.join(path)).expect("fixture file");
    let l = text.lines().nth(line - 1).expect("line");
    l.find(needle).expect("needle on line") as i32 + 1
}

fn definition_at<'a>(occs: &'a [OccurrenceRow], path: &str, name: &str) -> &'a OccurrenceRow {
    occs.iter()
        .find(|o| o.path == path && o.name == name && o.roles.contains(Roles::DEFINITION))
        .unwrap_or_else(|| panic!("no definition of {name} in {path}"))
}

fn common_checks(repo: &Path, index: &Path, snap: &Snap, tool: &str) {
    let backend = snap
        .manifest
        .backends
        .iter()
        .find(|b| b.kind == "scip")
        .expect("a scip backend");
    assert_eq!(backend.tool, tool);
    assert!(backend.version.is_some());
    assert_eq!(backend.input.as_deref(), Some("index.scip"));
    assert_eq!(backend.facts["projectRoot"], ".");
    assert_eq!(backend.facts["freshness"], "current", "{:?}", backend.facts);
    assert_eq!(backend.facts["commitsBehind"], "0");
    assert_eq!(
        backend.facts["indexedCommit"],
        git(repo, &["rev-parse", "HEAD"])
    );
    let report = snap.scip();
    assert!(
        report.counts[output_schema_counts::ABS] >= 1,
        "{:?}",
        report.counts
    );
    // Exactly the index's occurrences for every global symbol.
    assert_eq!(direct_counts(index), snapshot_counts(snap));
    // Nothing absolute, no documentation text anywhere in the rows.
    let root = repo.to_string_lossy().into_owned();
    for s in snap.symbols() {
        assert!(
            !format!("{s:?}").contains(&root) && !format!("{s:?}").contains("/tmp/"),
            "{s:?}"
        );
    }
    let manifest = serde_json::to_string(&snap.manifest).expect("json");
    assert!(!manifest.contains(&root), "absolute path in manifest");
}

mod output_schema_counts {
    pub const ABS: &str = "quirk.project-root-absolute-uri";
}

/// Indexes fixture `name` with `tool`, snapshots it with the index's commit sidecar, and runs the
/// checks every indexer's snapshot passes: the repository, the snapshot and its SCIP stage report;
/// `None` when the tool is missing (outside CI).
fn checked_fixture(name: &str, tool: &str) -> Option<(tempfile::TempDir, Snap, StageReport)> {
    let (repo, index) = index_fixture(name)?;
    let snap = snapshot_with_sidecar(repo.path(), &index);
    common_checks(repo.path(), &index, &snap, tool);
    let report = snap.scip().clone();
    Some((repo, snap, report))
}

fn snapshot_with_sidecar(repo: &Path, index: &Path) -> Snap {
    let head = git(repo, &["rev-parse", "HEAD"]);
    std::fs::write(format!("{}.commit", index.display()), format!("{head}\n")).expect("sidecar");
    snapshot_in_temp_store(repo, |_| {})
}

#[test]
fn scip_typescript_fixture() {
    let Some((repo, snap, report)) = checked_fixture("ts", "scip-typescript") else {
        return;
    };
    assert_eq!(
        report.completeness.as_ref().map(|c| c.reason.as_str()),
        Some("full-backend")
    );
    assert!(
        report.counts["quirk.position-encoding-unset"] >= 2,
        "{:?}",
        report.counts
    );
    assert!(report.counts["quirk.kind-unset"] > 0);
    assert!(report.counts["positions.utf16-documents"] >= 2);
    assert!(report.counts["quirk.local-symbols"] > 0);

    let symbols = snap.symbols();
    let sum = by_name(&symbols, "src/main.ts", "sumAreas");
    assert_eq!(sum.kind, "function");
    assert_eq!(sum.source, "scip");
    let square = by_name(&symbols, "src/shapes.ts", "square");
    let circle_area = by_backend(&symbols, "Circle#area().");
    assert_eq!(
        (circle_area.kind.as_str(), circle_area.container.as_deref()),
        ("method", Some("Circle"))
    );
    let shape_area = by_backend(&symbols, "Shape#area().");

    let edges = snap.call_edges();
    let edge = |from: &str, to: &str| {
        edges
            .iter()
            .find(|e| e.caller_id == from && e.callee_id.as_deref() == Some(to))
            .map(|e| e.count)
    };
    assert_eq!(edge(&sum.stable_id, &square.stable_id), Some(1));
    assert_eq!(edge(&circle_area.stable_id, &square.stable_id), Some(1));
    let rels = snap.relationships();
    assert!(rels.iter().any(|r| r.from_id == circle_area.stable_id
        && r.to_id == shape_area.stable_id
        && r.kind == "implementation"));

    // UTF-16 positions converted to byte columns after "größe 🚀".
    let occs = snap.occurrences();
    let total = definition_at(&occs, "src/main.ts", "total");
    assert_eq!(total.line, 3);
    assert_eq!(total.col, byte_col(repo.path(), "src/main.ts", 3, "total"));
    assert_eq!(total.end_col, total.col + 5);
    // References inside sumAreas are enclosed by it.
    let call = occs
        .iter()
        .find(|o| o.path == "src/main.ts" && o.line == 10 && o.name == "square")
        .expect("square call in sumAreas");
    assert_eq!(
        call.enclosing_symbol_id.as_deref(),
        Some(sum.stable_id.as_str())
    );
    // External symbols keep their SCIP symbol and get no row.
    assert!(occs.iter().any(|o| o
        .symbol_id
        .as_deref()
        .is_some_and(|s| s.contains("lib.es5.d.ts"))));
    assert!(!symbols.iter().any(|s| s
        .backend_id
        .as_deref()
        .is_some_and(|b| b.contains("lib.es5"))));
}

#[test]
fn scip_python_fixture() {
    let Some((repo, snap, report)) = checked_fixture("py", "scip-python") else {
        return;
    };
    assert!(
        report.counts["quirk.unsorted-occurrences"] > 0,
        "{:?}",
        report.counts
    );
    assert!(report.counts["quirk.kind-unset"] > 0);
    let symbols = snap.symbols();
    let sum = by_name(&symbols, "main.py", "sum_areas");
    assert_eq!(sum.kind, "function");
    let module = by_backend(&symbols, "`shapes.geometry`/__init__:");
    assert_eq!(
        (module.name.as_str(), module.kind.as_str()),
        ("shapes.geometry", "module")
    );
    let square = by_name(&symbols, "shapes/geometry.py", "square");
    let circle = by_backend(&symbols, "`shapes.geometry`/Circle#");
    let shape = by_backend(&symbols, "`shapes.geometry`/Shape#");
    let circle_area = by_backend(&symbols, "Circle#area().");
    assert!(snap
        .call_edges()
        .iter()
        .any(|e| e.caller_id == circle_area.stable_id
            && e.callee_id.as_deref() == Some(square.stable_id.as_str())));
    assert!(snap
        .relationships()
        .iter()
        .any(|r| r.from_id == circle.stable_id
            && r.to_id == shape.stable_id
            && r.kind == "implementation"));
    let occs = snap.occurrences();
    let result = definition_at(&occs, "main.py", "result");
    assert_eq!(result.col, byte_col(repo.path(), "main.py", 11, "result"));
}

#[test]
fn rust_analyzer_fixture() {
    let Some((repo, snap, report)) = checked_fixture("rust", "rust-analyzer") else {
        return;
    };
    assert_eq!(
        report.counts["quirk.no-relationships"], 1,
        "{:?}",
        report.counts
    );
    assert!(report.counts["quirk.package-version-url"] > 0);
    assert!(report.counts["quirk.reference-enclosing-range-elsewhere"] > 0);
    assert_eq!(report.counts["quirk.position-encoding-unset"], 0);
    let symbols = snap.symbols();
    let sum = by_name(&symbols, "src/lib.rs", "sum_areas");
    assert_eq!(
        (
            sum.kind.as_str(),
            sum.visibility.as_str(),
            sum.signature.as_deref()
        ),
        (
            "function",
            "public",
            Some("pub fn sum_areas(shapes: &[&dyn Shape]) -> f64")
        )
    );
    let square = by_name(&symbols, "src/shapes.rs", "square");
    assert_eq!(
        (
            square.visibility.as_str(),
            square.visibility_source.as_str()
        ),
        ("internal", "signature")
    );
    let radius = by_name(&symbols, "src/shapes.rs", "radius");
    assert_eq!(
        (radius.kind.as_str(), radius.visibility.as_str()),
        ("field", "private")
    );
    let area = by_backend(&symbols, "impl#[Circle][Shape]area().");
    assert_eq!(area.container.as_deref(), Some("impl Shape for Circle"));
    assert_eq!(area.visibility, "unknown");
    let new = by_backend(&symbols, "impl#[Circle]new().");
    let demo = by_name(&symbols, "src/lib.rs", "demo");
    let edges = snap.call_edges();
    let has = |from: &str, to: &str| {
        edges
            .iter()
            .any(|e| e.caller_id == from && e.callee_id.as_deref() == Some(to))
    };
    assert!(has(&demo.stable_id, &sum.stable_id));
    assert!(has(&demo.stable_id, &new.stable_id));
    assert!(has(&area.stable_id, &square.stable_id));
    // UTF-8 positions are taken as bytes: `new` after "größe 🚀" on line 13.
    let occs = snap.occurrences();
    let call = occs
        .iter()
        .find(|o| o.path == "src/lib.rs" && o.line == 13 && o.name == "new")
        .expect("Circle::new call");
    assert_eq!(call.col, byte_col(repo.path(), "src/lib.rs", 13, "new("));
    let per_path: BTreeMap<&str, usize> = occs.iter().fold(BTreeMap::new(), |mut m, o| {
        *m.entry(o.path.as_str()).or_insert(0) += 1;
        m
    });
    assert_eq!(
        per_path.keys().copied().collect::<Vec<_>>(),
        ["src/lib.rs", "src/shapes.rs"]
    );
}

#[test]
fn output_is_identical_whatever_the_thread_count() {
    let Some((repo, index)) = index_fixture("ts") else {
        return;
    };
    let _ = index;
    let store = tempfile::tempdir().expect("store");
    let mut opts = options(repo.path(), store.path());
    opts.threads = Some(1);
    let one = snapshot(&opts);
    let tables_one = one.manifest.tables.clone();
    opts.threads = Some(2);
    let two = snapshot(&opts);
    assert_eq!(tables_one, two.manifest.tables);
    assert_eq!(one.manifest.stages["scip"], two.manifest.stages["scip"]);
    assert_eq!(one.manifest.backends, two.manifest.backends);
}

/// scip-typescript writes the values of constants, enum members and static fields into its
/// hover text (`var API_KEY: "the literal"`); no stored symbol may hold them. (Measured with
/// scip-typescript 0.4: that text is `documentation`, which ckb never reads, and
/// `signature_documentation` is left empty; `signature::strip_values` covers indexers that put
/// such text in the signature.)
#[test]
fn scip_typescript_signatures_hold_no_literal_values() {
    let Some(program) = indexer("scip-typescript") else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "scip-typescript is missing under CI; run ci/install-indexers.sh"
        );
        return;
    };
    let repo = repo_with(&[
        ("package.json", r#"{"name": "fx", "version": "1.0.0"}"#),
        ("tsconfig.json", r#"{"compilerOptions": {"target": "es2020"}, "include": ["src"]}"#),
        (
            "src/keys.ts",
            "export const API_KEY = \"sk-LITERAL-1\";\nexport const RETRIES = 4242;\n\
             export enum Color { Red = \"ENUM-LITERAL-2\" }\n\
             export class Box { static readonly K = \"STATIC-LITERAL-3\"; }\n\
             export function greet(name: string = \"DEFAULT-LITERAL-4\"): string { return name; }\n",
        ),
    ]);
    run(repo.path(), &program, &["index"]);
    let index = repo.path().join("index.scip");
    let raw = std::fs::read(&index).expect("index");
    let raw = String::from_utf8_lossy(&raw);
    assert!(
        raw.contains("sk-LITERAL-1"),
        "the indexer no longer writes literals; this test has nothing to check"
    );
    let snap = snapshot_with_sidecar(repo.path(), &index);
    let symbols = snap.symbols();
    assert!(symbols
        .iter()
        .any(|s| s.name == "API_KEY" && s.source == "scip"));
    let stored = format!("{symbols:?}");
    for literal in ["LITERAL-1", "4242", "LITERAL-2", "LITERAL-3", "LITERAL-4"] {
        assert!(!stored.contains(literal), "{literal} stored: {stored}");
    }
}

/// scip-typescript names object-literal properties and type literals with a per-document counter
/// (`state0:`, `settings0:`, kind `meta`): 1 176 of zustand's 1 580 symbols were such. The
/// stage takes them as the locals they are: no `symbols` row, occurrences left out as locals'
/// are, both counted; the interface's real properties stay.
#[test]
fn scip_typescript_numbered_meta_symbols_are_locals() {
    let Some(program) = indexer("scip-typescript") else {
        return;
    };
    let repo = repo_with(&[
        ("package.json", r#"{"name": "fx", "version": "1.0.0"}"#),
        ("tsconfig.json", r#"{"compilerOptions": {"target": "es2020"}, "include": ["src"]}"#),
        (
            "src/store.ts",
            "export interface State { count: number; label: string }\n\
             export const initial: State = { count: 0, label: \"a\" };\n\
             export function bump(s: State): State { return { count: s.count + 1, label: s.label }; }\n\
             export const store = { state: initial, settings: { deep: true } };\n\
             export type Message = { kind: string; payload: { id: number } };\n",
        ),
    ]);
    run(repo.path(), &program, &["index"]);
    let index = repo.path().join("index.scip");
    let idx = {
        use protobuf::Message;
        scip::types::Index::parse_from_bytes(&std::fs::read(&index).expect("index"))
            .expect("decodes")
    };
    // What the index holds, counted independently of the stage.
    let mut numbered: std::collections::BTreeSet<String> = Default::default();
    let mut numbered_occurrences = 0i64;
    for d in &idx.documents {
        for o in d.occurrences.iter().filter(|o| numbered_meta(&o.symbol)) {
            numbered.insert(o.symbol.clone());
            numbered_occurrences += 1;
        }
    }
    assert!(
        numbered.len() >= 3 && numbered.iter().any(|s| s.ends_with("/state0:")),
        "the indexer no longer writes numbered Meta symbols; this test has nothing to check: {numbered:?}"
    );

    let snap = snapshot_with_sidecar(repo.path(), &index);
    let report = snap.scip();
    assert_eq!(
        report.counts["quirk.numbered-meta-symbols"],
        numbered.len() as i64,
        "{:?}",
        report.counts
    );
    assert_eq!(
        report.counts["skipped.numbered-meta-occurrences"],
        numbered_occurrences
    );
    let symbols = snap.symbols();
    let meta: Vec<&SymbolRow> = symbols
        .iter()
        .filter(|s| {
            s.kind == "meta"
                || s.backend_id
                    .as_deref()
                    .is_some_and(|b| numbered.contains(b))
        })
        .collect();
    assert!(meta.is_empty(), "{meta:?}");
    // The interface's properties and the exported values stay, with their references.
    let count = by_backend(&symbols, "State#count.");
    assert_eq!(count.name, "count");
    by_name(&symbols, "src/store.ts", "store");
    by_name(&symbols, "src/store.ts", "Message");
    let occs = snap.occurrences();
    assert!(occs
        .iter()
        .any(|o| o.symbol_id.as_deref() == Some(count.stable_id.as_str())
            && !o.roles.contains(Roles::DEFINITION)));
    assert!(!occs
        .iter()
        .any(|o| o.symbol_id.as_deref().is_some_and(|s| numbered.contains(s))));
    assert_eq!(direct_counts(&index), snapshot_counts(&snap));
}

/// scip-python reads a class that shadows a builtin (requests' `class ConnectionError(...)`) as
/// a reference to `builtins/ConnectionError#` and defines nothing there, so the class would be
/// missing from `symbols`. The merge keeps tree-sitter's definition at that position, makes the
/// occurrence its definition and counts the quirk.
#[test]
fn scip_python_class_shadowing_a_builtin_is_defined() {
    let Some(program) = indexer("scip-python") else {
        return;
    };
    let repo = repo_with(&[
        ("pkg/__init__.py", ""),
        (
            "pkg/errors.py",
            "class RequestException(IOError):\n    pass\n\n\n\
             class ConnectionError(RequestException):\n    pass\n\n\n\
             def fail():\n    raise ConnectionError(\"down\")\n",
        ),
    ]);
    let args = [
        "index",
        ".",
        "--project-name",
        "fx",
        "--project-version",
        "1",
    ];
    run(repo.path(), &program, &args);
    let index = repo.path().join("index.scip");
    let idx = {
        use protobuf::Message;
        scip::types::Index::parse_from_bytes(&std::fs::read(&index).expect("index"))
            .expect("decodes")
    };
    // What the index says at the class name (0-based line 4, column 6), read independently.
    let at_name: Vec<&scip::types::Occurrence> = idx
        .documents
        .iter()
        .filter(|d| d.relative_path == "pkg/errors.py")
        .flat_map(|d| &d.occurrences)
        .filter(|o| o.range.first() == Some(&4) && o.range.get(1) == Some(&6))
        .collect();
    assert!(
        at_name.len() == 1
            && at_name[0].symbol.ends_with("builtins/ConnectionError#")
            && at_name[0].symbol_roles & 1 == 0,
        "scip-python no longer reads the class as the builtin; this test has nothing to check: \
         {at_name:?}"
    );

    // With the syntax stage: the merge is where the quirk is mended.
    let head = git(repo.path(), &["rev-parse", "HEAD"]);
    std::fs::write(format!("{}.commit", index.display()), format!("{head}\n")).expect("sidecar");
    let snap = snapshot_in_temp_store(repo.path(), |o| {
        use output_schema::Stage;
        o.stages = Some(vec![
            Stage::Scan,
            Stage::Syntax,
            Stage::Scip,
            Stage::Identity,
        ]);
    });
    assert_eq!(
        snap.scip().counts["quirk.definitions-read-as-external"],
        1,
        "{:?}",
        snap.scip().counts
    );
    let symbols = snap.symbols();
    let class = by_name(&symbols, "pkg/errors.py", "ConnectionError");
    assert_eq!(
        (class.kind.as_str(), class.source.as_str(), class.start_line),
        ("class", "tree-sitter", 5)
    );
    let occurrences = snap.occurrences();
    let definition = definition_at(&occurrences, "pkg/errors.py", "ConnectionError");
    assert_eq!(
        definition.symbol_id.as_deref(),
        Some(class.stable_id.as_str())
    );
    assert_eq!((definition.line, definition.col), (5, 7));
    // The other class, which the index does define, is SCIP's.
    assert_eq!(
        by_name(&symbols, "pkg/errors.py", "RequestException").source,
        "scip"
    );
}
