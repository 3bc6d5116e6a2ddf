//! The syntax stage through `pipeline::snapshot` on git repositories built by the tests:
//! incremental reuse is byte-identical to a cold run, output does not depend on the thread count,
//! and no source line or comment of the fixtures reaches any written artifact.

use std::path::{Path, PathBuf};

use output_schema::manifest::{decompress, Manifest};
use output_schema::parquet_io::read_table;
use output_schema::tables::*;
use output_schema::Stage;
use pipeline::{snapshot, NoProgress, PreviousChoice, SnapshotOptions, SnapshotOutcome};
use test_support::git;

fn fixtures() -> PathBuf {
    Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/syntax")
}

/// A git repository holding every syntax fixture (under `src/`), plus a file that calls into
/// another so resolution crosses files.
fn fixture_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    for entry in std::fs::read_dir(fixtures()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".golden.json") {
            std::fs::copy(&path, root.join("src").join(&name)).unwrap();
        }
    }
    std::fs::write(
        root.join("src/caller.rs"),
        "use crate::sample::helper;\n\npub fn call_twice() -> u32 {\n    helper(1) + helper(2)\n}\n",
    )
    .unwrap();
    std::fs::write(root.join("README.md"), "# fixture\n").unwrap();
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "one"]);
    dir
}

/// The fixture repository snapshotted cold (no previous snapshot) into a store of its own.
fn cold_fixture_snapshot() -> (tempfile::TempDir, tempfile::TempDir, SnapshotOutcome) {
    let repo = fixture_repo();
    let store = tempfile::tempdir().unwrap();
    let out = snapshot(
        &options(repo.path(), store.path(), PreviousChoice::Disabled, 2),
        &NoProgress,
    )
    .unwrap();
    (repo, store, out)
}

fn options(root: &Path, out: &Path, previous: PreviousChoice, threads: usize) -> SnapshotOptions {
    SnapshotOptions {
        root: root.to_path_buf(),
        out: Some(out.to_path_buf()),
        repo_id: Some("fixture".into()),
        stages: Some(vec![Stage::Scan, Stage::Syntax]),
        previous,
        threads: Some(threads),
        ..SnapshotOptions::default()
    }
}

/// Records the current size and hash of every table of a snapshot in its manifest, as a writer
/// of those tables would have: a previous snapshot is reused only when they match.
fn rehash_manifest(dir: &Path) {
    let mut manifest = output_schema::verify::read_manifest(dir).unwrap();
    for entry in &mut manifest.tables {
        let bytes = std::fs::read(dir.join(&entry.file)).unwrap();
        entry.bytes = bytes.len() as i64;
        entry.hash = output_schema::manifest::file_hash(&bytes);
    }
    std::fs::write(
        dir.join(output_schema::layout::MANIFEST_FILE),
        manifest.encode().unwrap(),
    )
    .unwrap();
}

const SYNTAX_TABLES: [&str; 5] = [
    "symbols",
    "occurrences",
    "call_edges",
    "relationships",
    "imports",
];

fn table_bytes(dir: &Path, table: &str) -> Vec<u8> {
    std::fs::read(dir.join(format!("{table}.parquet"))).unwrap_or_else(|e| panic!("{table}: {e}"))
}

/// Asserts that two snapshots hold byte-identical syntax tables (`what` names the comparison).
fn assert_same_syntax_tables(a: &SnapshotOutcome, b: &SnapshotOutcome, what: &str) {
    for table in SYNTAX_TABLES {
        assert_eq!(
            table_bytes(&a.snapshot().dir, table),
            table_bytes(&b.snapshot().dir, table),
            "{table}.parquet {what}"
        );
    }
}

/// Commits a new Go file, then snapshots the new commit twice: into `store` reusing its previous
/// snapshot (warm), and into a fresh store without one (cold).
fn commit_new_file_then_snapshot(
    root: &Path,
    store: &Path,
    threads: usize,
) -> (SnapshotOutcome, SnapshotOutcome, tempfile::TempDir) {
    std::fs::write(
        root.join("src/new.go"),
        "package sample\n\nfunc Extra() {}\n",
    )
    .unwrap();
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "three"]);
    let cold_store = tempfile::tempdir().unwrap();
    let warm = snapshot(
        &options(root, store, PreviousChoice::Auto, threads),
        &NoProgress,
    )
    .unwrap();
    let cold = snapshot(
        &options(root, cold_store.path(), PreviousChoice::Disabled, threads),
        &NoProgress,
    )
    .unwrap();
    (warm, cold, cold_store)
}

#[test]
fn incremental_snapshot_is_byte_identical_to_cold() {
    let repo = fixture_repo();
    let root = repo.path();
    let store = tempfile::tempdir().unwrap();
    let cold_store = tempfile::tempdir().unwrap();

    let first = snapshot(
        &options(root, store.path(), PreviousChoice::Auto, 2),
        &NoProgress,
    )
    .unwrap();
    assert!(first.snapshot().manifest.previous.is_none());

    // One-file change: a renamed function and a new call into another file.
    let py = root.join("src/sample.py");
    let text = std::fs::read_to_string(&py).unwrap();
    std::fs::write(
        &py,
        text.replace("def helper(text", "def helper_renamed(text")
            .replace("return helper(text)", "return helper_renamed(text)"),
    )
    .unwrap();
    git(root, &["commit", "-q", "-am", "two"]);

    let warm = snapshot(
        &options(root, store.path(), PreviousChoice::Auto, 2),
        &NoProgress,
    )
    .unwrap();
    let cold = snapshot(
        &options(root, cold_store.path(), PreviousChoice::Disabled, 2),
        &NoProgress,
    )
    .unwrap();
    let warm_m = &warm.snapshot().manifest;
    assert_eq!(
        warm_m.previous.as_ref().map(|p| p.chosen_by.as_str()),
        Some("ancestor")
    );
    let syntax = &warm_m.stages["syntax"];
    let reused = syntax.counts.get("files.reused").copied().unwrap_or(0);
    let total = syntax.counts["files.total"];
    assert_eq!(
        reused,
        total - 1,
        "every unchanged file is reused: {:?}",
        syntax.counts
    );
    assert!(!cold.snapshot().manifest.stages["syntax"]
        .counts
        .contains_key("files.reused"));
    assert_same_syntax_tables(&warm, &cold, "differs between incremental and cold runs");
    // The change is really in there.
    let symbols: Vec<SymbolRow> = read_table(&warm.snapshot().dir.join("symbols.parquet")).unwrap();
    assert!(symbols.iter().any(|s| s.name == "helper_renamed"));
    assert!(!symbols
        .iter()
        .any(|s| s.name == "helper" && s.path == "src/sample.py"));
    // The renamed Python function kept its body hash.
    let before: Vec<SymbolRow> = read_table(&first.snapshot().dir.join("symbols.parquet")).unwrap();
    let old = before
        .iter()
        .find(|s| s.name == "helper" && s.path == "src/sample.py")
        .unwrap();
    let new = symbols.iter().find(|s| s.name == "helper_renamed").unwrap();
    assert_eq!(old.body_hash, new.body_hash);
    assert_ne!(old.stable_id, new.stable_id);
}

/// A first snapshot whose stored tables `edit` rewrites in place (given the snapshot's folder and
/// its symbols; the manifest is rehashed after), then a new commit snapshotted building on it
/// (warm) and without it (cold); the folders they live in come last.
fn reuse_after_editing_the_first(
    threads: usize,
    edit: impl FnOnce(&Path, Vec<SymbolRow>),
) -> (SnapshotOutcome, SnapshotOutcome, [tempfile::TempDir; 3]) {
    let repo = fixture_repo();
    let store = tempfile::tempdir().unwrap();
    let options = options(repo.path(), store.path(), PreviousChoice::Auto, threads);
    let first = snapshot(&options, &NoProgress).unwrap();
    let dir = first.snapshot().dir.clone();
    edit(&dir, read_table(&dir.join("symbols.parquet")).unwrap());
    rehash_manifest(&dir);
    let (warm, cold, cold_store) =
        commit_new_file_then_snapshot(repo.path(), store.path(), threads);
    (warm, cold, [repo, store, cold_store])
}

#[test]
fn reuse_resets_columns_later_stages_fill() {
    // Simulate the modules stage having classified imports and assigned modules in the stored
    // snapshot: rewrite its tables in place, and the manifest with them (reuse checks hashes).
    let (warm, cold, _dirs) = reuse_after_editing_the_first(1, |dir, mut symbols| {
        for s in &mut symbols {
            s.module_id = Some("m1".into());
        }
        output_schema::parquet_io::write_table(dir, &mut symbols).unwrap();
        let mut imports: Vec<ImportRow> = read_table(&dir.join("imports.parquet")).unwrap();
        for i in &mut imports {
            i.kind = "stdlib".into();
            i.confidence = 1.0;
            i.target = Some("x".into());
        }
        output_schema::parquet_io::write_table(dir, &mut imports).unwrap();
    });
    assert!(warm.snapshot().manifest.stages["syntax"].counts["files.reused"] > 0);
    assert_same_syntax_tables(&warm, &cold, "differs");
}

#[test]
fn file_merged_with_another_backend_is_parsed_again() {
    // Mark one unchanged file's rows as SCIP's, as a merge by a later stage leaves them: the
    // stage cannot reuse them and parses that file in its late pass.
    let (warm, cold, _dirs) = reuse_after_editing_the_first(2, |dir, mut symbols| {
        let merged = symbols[0].path.clone();
        let mut marked = 0;
        for s in symbols.iter_mut().filter(|s| s.path == merged) {
            s.source = "scip".into();
            s.name = format!("{}_from_scip", s.name);
            marked += 1;
        }
        assert!(marked > 0);
        output_schema::parquet_io::write_table(dir, &mut symbols).unwrap();
        // Without the syntax cache (which would supply the merged file: `snapshot_reuse.rs`),
        // only the previous snapshot can.
        std::fs::remove_dir_all(dir.parent().unwrap().join("syntax-cache")).unwrap();
    });
    let counts = &warm.snapshot().manifest.stages["syntax"].counts;
    let total = counts["files.total"];
    // Every file but the new one and the merged one came from the previous snapshot.
    assert_eq!(counts["files.reused"], total - 2, "{counts:?}");
    assert_eq!(counts.get("files.from-cache"), None, "{counts:?}");
    assert_same_syntax_tables(&warm, &cold, "differs");
}

#[test]
fn a_previous_snapshot_of_another_extractor_is_a_coded_warning_and_a_full_parse() {
    let (warm, cold, _dirs) = reuse_after_editing_the_first(2, |dir, _| {
        // As another ckb version (or other settings) would have written it, cache included.
        let mut manifest = output_schema::verify::read_manifest(dir).unwrap();
        for backend in manifest
            .backends
            .iter_mut()
            .filter(|b| b.kind == "tree-sitter")
        {
            backend
                .facts
                .insert("extractor".into(), "an older extractor".into());
        }
        std::fs::write(
            dir.join(output_schema::layout::MANIFEST_FILE),
            manifest.encode().unwrap(),
        )
        .unwrap();
        std::fs::remove_dir_all(dir.parent().unwrap().join("syntax-cache")).unwrap();
    });
    let syntax = &warm.snapshot().manifest.stages["syntax"];
    assert!(
        syntax
            .warnings
            .iter()
            .any(|w| w.code == "previous-other-extractor"),
        "{syntax:?}"
    );
    assert_eq!(syntax.counts.get("files.reused"), None, "{syntax:?}");
    assert_same_syntax_tables(&warm, &cold, "differs");
}

#[test]
fn output_does_not_depend_on_thread_count() {
    let repo = fixture_repo();
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let one = snapshot(
        &options(repo.path(), a.path(), PreviousChoice::Disabled, 1),
        &NoProgress,
    )
    .unwrap();
    let two = snapshot(
        &options(repo.path(), b.path(), PreviousChoice::Disabled, 2),
        &NoProgress,
    )
    .unwrap();
    assert_same_syntax_tables(&one, &two, "differs between 1 and 2 threads");
    let m = &one.snapshot().manifest;
    let backend = m.backends.iter().find(|b| b.kind == "tree-sitter").unwrap();
    assert!(backend.facts.contains_key("extractor"));
    let report = &m.stages["syntax"];
    assert_eq!(report.counts["files.total"], 10);
    assert_eq!(report.counts["files.parsed"], 10);
    assert_eq!(report.counts["files.unsupported-language"], 1); // README.md
    for lang in [
        "rust",
        "python",
        "typescript",
        "tsx",
        "javascript",
        "go",
        "java",
        "c",
        "cpp",
    ] {
        assert!(
            report.breakdown[lang]["symbols"] > 0,
            "{lang}: {:?}",
            report.breakdown[lang]
        );
    }

    // Resolution across files: caller.rs calls sample.rs's `helper` through an import.
    let edges: Vec<CallEdgeRow> =
        read_table(&one.snapshot().dir.join("call_edges.parquet")).unwrap();
    let symbols: Vec<SymbolRow> = read_table(&one.snapshot().dir.join("symbols.parquet")).unwrap();
    let id = |name: &str, path: &str| {
        symbols
            .iter()
            .find(|s| s.name == name && s.path == path && s.container.is_none())
            .map(|s| s.stable_id.clone())
            .unwrap()
    };
    let edge = edges
        .iter()
        .find(|e| e.caller_id == id("call_twice", "src/caller.rs"))
        .unwrap();
    assert_eq!(
        edge.callee_id.as_deref(),
        Some(id("helper", "src/sample.rs").as_str())
    );
    assert_eq!(edge.count, 2);
    assert_eq!(edge.confidence, 0.7);
    assert!(edge.confidence < 1.0);
}

/// Text that must never be stored: comment and body markers, and whole source lines.
#[test]
fn no_source_text_reaches_any_artifact() {
    let (_repo, _store, out) = cold_fixture_snapshot();
    let dir = &out.snapshot().dir;
    let mut haystack = String::new();
    let manifest =
        Manifest::decode(&std::fs::read(dir.join("manifest.json.zst")).unwrap()).unwrap();
    haystack.push_str(&String::from_utf8_lossy(
        &decompress(&std::fs::read(dir.join("manifest.json.zst")).unwrap()).unwrap(),
    ));
    for view in &manifest.views {
        haystack.push_str(&String::from_utf8_lossy(
            &decompress(&std::fs::read(dir.join(&view.file)).unwrap()).unwrap(),
        ));
    }
    haystack.push_str(&std::fs::read_to_string(dir.join("run.json")).unwrap_or_default());
    // Parquet pages are compressed, so decode every table and search its values.
    let rows = |name: &str| dir.join(format!("{name}.parquet"));
    haystack.push_str(&format!(
        "{:?}",
        read_table::<FileRow>(&rows("files")).unwrap()
    ));
    let symbols = read_table::<SymbolRow>(&rows("symbols")).unwrap();
    haystack.push_str(&format!("{symbols:?}"));
    haystack.push_str(&format!(
        "{:?}",
        read_table::<OccurrenceRow>(&rows("occurrences")).unwrap()
    ));
    haystack.push_str(&format!(
        "{:?}",
        read_table::<CallEdgeRow>(&rows("call_edges")).unwrap()
    ));
    haystack.push_str(&format!(
        "{:?}",
        read_table::<ImportRow>(&rows("imports")).unwrap()
    ));
    for entry in std::fs::read_dir(dir).unwrap() {
        haystack.push_str(&String::from_utf8_lossy(
            &std::fs::read(entry.unwrap().path()).unwrap_or_default(),
        ));
    }

    let signatures: Vec<String> = symbols.iter().filter_map(|s| s.signature.clone()).collect();
    let mut checked = 0;
    for entry in std::fs::read_dir(fixtures()).unwrap() {
        let path = entry.unwrap().path();
        if path.to_string_lossy().ends_with(".golden.json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for marker in ["SECRET_COMMENT", "PRIVATE_BODY"] {
            assert!(
                text.contains(marker),
                "{} lacks a {marker} marker",
                path.display()
            );
        }
        for line in text.lines() {
            let collapsed = line.split_whitespace().collect::<Vec<_>>().join(" ");
            for word in collapsed.split(|c: char| !c.is_alphanumeric() && c != '_') {
                if word.starts_with("SECRET_COMMENT") || word.starts_with("PRIVATE_BODY") {
                    assert!(!haystack.contains(word), "{word} leaked");
                    checked += 1;
                }
            }
            // A whole line may only appear when it is exactly a definition's header.
            if collapsed.len() >= 16 && !signatures.contains(&collapsed) {
                assert!(
                    !haystack.contains(&collapsed),
                    "source line leaked from {}: {collapsed:?}",
                    path.display()
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "only {checked} checks ran");
}

/// Supertype clauses of the fixtures become `implementation` rows between the definitions their
/// names bind to: Python's base class, TypeScript's `implements` and `extends`. A supertype the
/// repository does not define (Python's `object`, Java's `Comparable`, TSX's `React.Component`,
/// Rust's `fmt::Display`) links nothing.
#[test]
fn supertype_clauses_become_relationships() {
    let (_repo, _store, out) = cold_fixture_snapshot();
    let dir = &out.snapshot().dir;
    let symbols: Vec<SymbolRow> = read_table(&dir.join("symbols.parquet")).unwrap();
    let rels: Vec<RelationshipRow> = read_table(&dir.join("relationships.parquet")).unwrap();
    let name = |id: &str| {
        let s = symbols.iter().find(|s| s.stable_id == id).unwrap();
        format!("{} {}", s.path, s.name)
    };
    let got: Vec<String> = rels
        .iter()
        .map(|r| {
            let (from, to) = (name(&r.from_id), name(&r.to_id));
            format!("{from} -> {to} ({}, {})", r.kind, r.source)
        })
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(
        got,
        [
            "src/sample.py Child -> src/sample.py Base (implementation, tree-sitter)",
            "src/sample.ts Base -> src/sample.ts Shape (implementation, tree-sitter)",
            "src/sample.ts Circle -> src/sample.ts Base (implementation, tree-sitter)",
        ]
    );
    assert_eq!(
        out.snapshot().manifest.stages["syntax"].counts["relationships"],
        3
    );
}

/// A snapshot of `root` into `store`, on two threads.
fn snapshot_at(root: &Path, store: &Path, previous: PreviousChoice) -> SnapshotOutcome {
    snapshot(&options(root, store, previous, 2), &NoProgress).unwrap()
}

/// Every stable ID is one definition's: a C struct and its typedef of one name, a TypeScript
/// interface and class of one name (one file each), and the same function in two Go files of one
/// package (built for different systems) each get an ID of their own — the first Go file in path
/// order keeps the plain one, the other adds its path's hash. When that file goes, the other takes the plain ID, whether its rows
/// come from a parse, the syntax cache or the previous snapshot: the same tables as a cold run.
#[test]
fn ids_two_definitions_would_share_are_told_apart_and_reuse_agrees_with_cold() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let files = [
        ("sys/open_linux.go", "package sys\n\nfunc open() int { return 1 }\n\nfunc init() {}\n"),
        ("sys/open_windows.go", "package sys\n\nfunc open() int { return 2 }\n\nfunc init() {}\n"),
        ("sys/use.go", "package sys\n\nfunc Use() int { return open() }\n"),
        ("c/list.c", "typedef struct node {\n  int v;\n} node;\n\nstruct list { int n; };\ntypedef struct list list;\n"),
        ("web/box.ts", "export interface Box { w: number }\nexport class Box { constructor(public w: number) {} }\n"),
    ];
    for (path, text) in files {
        std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
        std::fs::write(root.join(path), text).unwrap();
    }
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "one"]);
    let store = tempfile::tempdir().unwrap();
    let first = snapshot_at(root, store.path(), PreviousChoice::Auto);
    let dir1 = &first.snapshot().dir;
    let symbols: Vec<SymbolRow> = read_table(&dir1.join("symbols.parquet")).unwrap();
    let mut ids: Vec<&str> = symbols.iter().map(|s| s.stable_id.as_str()).collect();
    ids.dedup();
    assert_eq!(ids.len(), symbols.len(), "an ID shared: {symbols:#?}");
    let id_of = |symbols: &[SymbolRow], path: &str, name: &str| {
        let found: Vec<String> = symbols
            .iter()
            .filter(|s| s.path == path && s.name == name)
            .map(|s| s.stable_id.to_string())
            .collect();
        assert_eq!(found.len(), 1, "{path} {name}: {found:?}");
        found[0].clone()
    };
    let linux = id_of(&symbols, "sys/open_linux.go", "open");
    let windows = id_of(&symbols, "sys/open_windows.go", "open");
    assert!(!linux.contains('~'), "{linux}");
    // The other file adds `f` and 8 hex digits of its path's hash.
    let suffix = windows
        .strip_prefix(&format!("{linux}~f"))
        .unwrap_or_default();
    assert!(
        suffix.len() == 8 && suffix.bytes().all(|b| b.is_ascii_hexdigit()),
        "{windows}"
    );
    for (path, name) in [
        ("c/list.c", "node"),
        ("c/list.c", "list"),
        ("web/box.ts", "Box"),
    ] {
        let pair: Vec<&str> = symbols
            .iter()
            .filter(|s| s.path == path && s.name == name)
            .map(|s| s.stable_id.as_str())
            .collect();
        assert_eq!(pair.len(), 2, "{path} {name}: two definitions, two IDs");
        // Told apart within their file, as overloads are (not as two files are).
        assert!(
            pair.iter().all(|id| id.contains('~') && !id.contains("~f")),
            "{path} {name}: {pair:?}"
        );
    }
    // The definition site and what it encloses name the definition's own ID.
    let occurrences: Vec<OccurrenceRow> = read_table(&dir1.join("occurrences.parquet")).unwrap();
    let site = occurrences
        .iter()
        .find(|o| o.path == "sys/open_windows.go" && o.name == "open")
        .unwrap();
    assert_eq!(site.symbol_id.as_deref(), Some(windows.as_str()));

    // The first Go file goes: the other one's `open` is plain now, however its rows are found.
    git(root, &["rm", "-q", "sys/open_linux.go"]);
    git(root, &["commit", "-q", "-m", "two"]);
    let cold_store = tempfile::tempdir().unwrap();
    let cold = snapshot_at(root, cold_store.path(), PreviousChoice::Disabled);
    let cold_symbols: Vec<SymbolRow> =
        read_table(&cold.snapshot().dir.join("symbols.parquet")).unwrap();
    assert_eq!(id_of(&cold_symbols, "sys/open_windows.go", "open"), linux);
    let from_cache = snapshot_at(root, store.path(), PreviousChoice::Auto);
    let counts = &from_cache.snapshot().manifest.stages["syntax"].counts;
    assert_eq!(counts.get("files.from-cache"), Some(&4), "{counts:?}");
    assert_same_syntax_tables(&from_cache, &cold, "differs (rows from the syntax cache)");
    // Once more without the cache: the rows come from the first snapshot, IDs as it wrote them.
    std::fs::remove_dir_all(
        from_cache
            .snapshot()
            .dir
            .parent()
            .unwrap()
            .join("syntax-cache"),
    )
    .unwrap();
    std::fs::remove_dir_all(&from_cache.snapshot().dir).unwrap();
    let from_previous = snapshot_at(root, store.path(), PreviousChoice::Auto);
    let counts = &from_previous.snapshot().manifest.stages["syntax"].counts;
    assert_eq!(counts.get("files.reused"), Some(&4), "{counts:?}");
    assert_same_syntax_tables(
        &from_previous,
        &cold,
        "differs (rows from the previous snapshot)",
    );
}
