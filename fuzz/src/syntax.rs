//! The `syntax` target: a repository's source files, which anyone who can open a pull request
//! writes, through the syntax stage — tree-sitter's parsers and queries, then ckb's own
//! extraction (definitions and their nesting, signatures with values stripped, body hashes,
//! imports, call sites) and the by-name resolution across files.
//!
//! An input is a small repository ([`crate::repo`]), scanned for real; the stage runs over the
//! scan twice, the first time filling a syntax cache, the second taking every file's rows from
//! it. Whatever the input, the stage returns rows, never an error; and the rows hold together:
//! each names a file of the scan in a language the stage parses, at lines and columns inside
//! that file with its start before its end; stable IDs are unique; every occurrence, call edge
//! and relationship that names a symbol names one of the rows; a signature is cut at its limit;
//! and the cached rows are the parsed ones (a cache changes speed, never bytes).

use std::collections::BTreeMap;

use output_schema::config::Config;
use output_schema::manifest::RepoState;
use output_schema::tables::FileRow;
use pipeline::cache_pack::CachePack;
use pipeline::merge::SyntaxTables;
use pipeline::syntax::extract::MAX_SIGNATURE_BYTES;
use pipeline::{NoProgress, StageContext};

use crate::repo::{self, encode_repo};

/// Runs the stage over the repository `data` describes; never panics for any input.
pub fn syntax(data: &[u8]) {
    let _ = syntax_run(data);
}

/// [`syntax`], returning what the run came to.
pub fn syntax_run(data: &[u8]) -> SyntaxRun {
    let Some((root, files)) = repo::materialize(data, "syntax-repo") else {
        return SyntaxRun::default();
    };
    let config = Config::default();
    let state = RepoState::default();
    let ctx = StageContext {
        root: &root,
        repo_id: "fuzz",
        config: &config,
        repo_state: &state,
        previous: None,
        progress: &NoProgress,
    };
    // The first run parses every file and fills a syntax cache; the second takes every file's
    // rows from that cache.
    let cache_dir = crate::thread_scratch().join("syntax-cache");
    let _ = std::fs::remove_dir_all(&cache_dir);
    let identity = pipeline::syntax::cache::identity(&Default::default(), "fuzz");
    let run = |cache: &CachePack| match pipeline::syntax::run(&ctx, &files, None, Some(cache)) {
        Ok(out) => out,
        Err(e) => panic!("a repository's content failed the syntax stage: {e}"),
    };
    let empty = CachePack::open(&cache_dir, &identity);
    let mut first = run(&empty);
    if let Some(update) = first.cache_update.take() {
        update.save(&empty);
    }
    let cached = CachePack::open(&cache_dir, &identity);
    let second = run(&cached);
    assert!(
        cached.problems().is_empty(),
        "the cache the stage wrote did not read back: {:?}",
        cached.problems()
    );
    let count = |key: &str| second.report.counts.get(key).copied().unwrap_or(0);
    assert_eq!(
        count("files.from-cache"),
        count("files.total"),
        "a file was parsed again: {:?}",
        second.report.counts
    );
    assert!(
        first.tables == second.tables,
        "the rows from the syntax cache are not the parsed ones"
    );
    check_coherent(&first.tables, &files)
}

/// What one run over an input came to, for the corpus test (a seed must reach the extraction
/// and the resolution across files).
#[derive(Debug, Default, PartialEq)]
pub struct SyntaxRun {
    /// Files the stage parses (a language it knows).
    pub parsed_files: usize,
    /// Definitions.
    pub symbols: usize,
    /// Occurrences bound to a symbol of another file.
    pub cross_file_references: usize,
    /// Call edges to a known callee.
    pub resolved_calls: usize,
}

/// The rows' places and references hold together (see the module doc); returns the counts.
fn check_coherent(t: &SyntaxTables, files: &[FileRow]) -> SyntaxRun {
    let parsed: BTreeMap<&str, &FileRow> = files
        .iter()
        .filter(|f| {
            f.language
                .as_deref()
                .is_some_and(|l| pipeline::syntax::lang::Lang::from_name(l).is_some())
        })
        .map(|f| (f.path.as_str(), f))
        .collect();
    let place = |what: &str, path: &str, start: (i32, i32), end: (i32, i32)| {
        let Some(file) = parsed.get(path) else {
            panic!("{what} in {path}, which the stage does not parse");
        };
        let last_line = file.line_count + 1;
        assert!(
            start.0 >= 1 && start.1 >= 1 && start <= end && i64::from(end.0) <= last_line,
            "{what} in {path} at {start:?}..{end:?}, the file has {} lines",
            file.line_count
        );
    };
    let mut ids = BTreeMap::new();
    let mut file_of = BTreeMap::new();
    for s in &t.symbols {
        let (start, end) = ((s.start_line, s.start_col), (s.end_line, s.end_col));
        place("a definition", &s.path, start, end);
        let at = |s: &output_schema::tables::SymbolRow| {
            format!(
                "{} {} {}:{}:{}",
                s.kind, s.name, s.path, s.start_line, s.start_col
            )
        };
        if let Some(other) = ids.insert(s.stable_id.as_ref(), s) {
            panic!("{} and {} share the ID {}", at(other), at(s), s.stable_id);
        }
        file_of.insert(s.stable_id.as_ref(), s.path.as_ref());
        let signature = s.signature.as_deref().unwrap_or_default();
        assert!(
            signature.len() <= MAX_SIGNATURE_BYTES + '…'.len_utf8(),
            "a signature of {} bytes: {signature:?}",
            signature.len()
        );
    }
    let known = |what: &str, id: &str| {
        assert!(
            ids.contains_key(id),
            "{what} names {id}, which is no definition"
        );
    };
    let mut cross_file_references = 0;
    for o in &t.occurrences {
        let (start, end) = ((o.line, o.col), (o.end_line, o.end_col));
        place("an occurrence", &o.path, start, end);
        for id in [&o.symbol_id, &o.enclosing_symbol_id].into_iter().flatten() {
            known("an occurrence", id);
        }
        if o.symbol_id
            .as_deref()
            .is_some_and(|id| file_of.get(id) != Some(&o.path.as_ref()))
        {
            cross_file_references += 1;
        }
    }
    let mut resolved_calls = 0;
    for c in &t.call_edges {
        known("a call edge", &c.caller_id);
        if let Some(callee) = &c.callee_id {
            known("a call edge", callee);
            resolved_calls += 1;
        }
        assert!(c.count > 0, "a call edge counted {} times", c.count);
    }
    for r in &t.relationships {
        known("a relationship", &r.from_id);
        known("a relationship", &r.to_id);
    }
    for i in &t.imports {
        place("an import", &i.path, (i.line, 1), (i.line, 1));
    }
    SyntaxRun {
        parsed_files: parsed.len(),
        symbols: t.symbols.len(),
        cross_file_references,
        resolved_calls,
    }
}

/// The seeds: each language's golden sample (`pipeline/tests/fixtures/syntax/`) alone, and all
/// of them in one repository beside files that call into one another.
pub fn syntax_seeds() -> Vec<(&'static str, Vec<u8>)> {
    let mut seeds: Vec<(&'static str, Vec<u8>)> = SAMPLES
        .iter()
        .map(|&(name, path, text)| (name, encode_repo(&[(path, text)])))
        .collect();
    let mut all: Vec<(&str, &str)> = SAMPLES
        .iter()
        .map(|&(_, path, text)| (path, text))
        .collect();
    all.extend_from_slice(CROSS_FILE);
    seeds.push(("all-languages", encode_repo(&all)));
    seeds
}

macro_rules! sample {
    ($name:literal, $path:literal, $file:literal) => {
        (
            $name,
            $path,
            include_str!(concat!("../../pipeline/tests/fixtures/syntax/", $file)),
        )
    };
}

const SAMPLES: &[(&str, &str, &str)] = &[
    sample!("c", "native/sample.c", "sample.c"),
    sample!("cpp", "native/sample.hpp", "sample.hpp"),
    sample!("go", "svc/sample.go", "sample.go"),
    sample!("java", "app/src/Sample.java", "Sample.java"),
    sample!("javascript", "web/sample.js", "sample.js"),
    sample!("python", "py/sample.py", "sample.py"),
    sample!("rust", "src/sample.rs", "sample.rs"),
    sample!("typescript", "web/sample.ts", "sample.ts"),
    sample!("tsx", "web/sample.tsx", "sample.tsx"),
];

/// Files whose calls, imports and supertypes reach definitions in another file.
const CROSS_FILE: &[(&str, &str)] = &[
    (
        "src/lib.rs",
        "mod shapes;\nuse crate::shapes::{Area, Square};\n\npub fn total(s: &[Square]) -> f64 {\n    s.iter().map(|q| q.area()).sum()\n}\n",
    ),
    (
        "src/shapes.rs",
        "pub trait Area { fn area(&self) -> f64; }\n\npub struct Square(pub f64);\n\nimpl Area for Square {\n    fn area(&self) -> f64 { helper(self.0) }\n}\n\nfn helper(x: f64) -> f64 { x * x }\n",
    ),
    (
        "py/main.py",
        "from geometry import Circle, area_of\n\n\ndef run():\n    return area_of(Circle(2))\n",
    ),
    (
        "py/geometry.py",
        "class Shape:\n    pass\n\n\nclass Circle(Shape):\n    def __init__(self, r):\n        self.r = r\n\n\ndef area_of(s):\n    return 3 * s.r * s.r\n",
    ),
    (
        "web/main.ts",
        "import { Circle, areaOf } from \"./circle\";\n\nexport function run(): number {\n  return areaOf(new Circle(2));\n}\n",
    ),
    (
        "web/circle.ts",
        "export interface Shape { r: number }\n\nexport class Circle implements Shape {\n  constructor(public r: number) {}\n}\n\nexport function areaOf(s: Shape): number {\n  return 3 * s.r * s.r;\n}\n",
    ),
];
