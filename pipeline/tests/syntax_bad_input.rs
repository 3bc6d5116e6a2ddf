//! Bad input for the syntax stage: syntax errors, deep nesting, non-UTF-8 bytes, very long lines,
//! a pathological file over the work budget and an oversized file are counted, never fatal; and a
//! function renamed without a body change keeps its body hash.

use std::path::Path;

use output_schema::config::Config;
use output_schema::manifest::{RepoState, StageStatus};
use output_schema::tables::{FileRow, SymbolRow};
use pipeline::syntax::extract::{extract, Budget, FileInput, Worker};
use pipeline::syntax::lang::Lang;
use pipeline::syntax::{run_with, SyntaxConfig, SyntaxOutput};
use pipeline::{NoProgress, StageContext};

fn file_row(root: &Path, path: &str, language: &str, bytes: &[u8]) -> FileRow {
    std::fs::write(root.join(path), bytes).unwrap();
    FileRow {
        line_count: pipeline::scan::count_lines(bytes),
        content_hash: pipeline::scan::content_hash(bytes),
        ..test_support::rows::file(path, language, bytes.len() as i64)
    }
}

fn run(root: &Path, files: &[FileRow], config: &SyntaxConfig) -> SyntaxOutput {
    let cfg = Config::default();
    let state = RepoState::default();
    let ctx = StageContext {
        root,
        repo_id: "bad",
        config: &cfg,
        repo_state: &state,
        previous: None,
        progress: &NoProgress,
    };
    run_with(&ctx, files, None, None, config).unwrap()
}

#[test]
fn bad_files_are_counted_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mut files = Vec::new();
    // Syntax errors: what parses is still extracted.
    files.push(file_row(
        root,
        "broken.rs",
        "rust",
        b"fn good_before() -> u32 { 1 }\nfn broken( { let = ; }\nfn good_after() {}\n",
    ));
    // 50k nested blocks: no stack overflow anywhere (parser, query, walk).
    let depth = 50_000;
    let mut deep = String::from("fn deep() ");
    deep.push_str(&"{ ".repeat(depth));
    deep.push_str(&"} ".repeat(depth));
    deep.push('\n');
    files.push(file_row(root, "deep.rs", "rust", deep.as_bytes()));
    let mut nested_py = String::new();
    for i in 0..200 {
        nested_py.push_str(&" ".repeat(i));
        nested_py.push_str(&format!("def f{i}():\n"));
    }
    nested_py.push_str(&" ".repeat(200));
    nested_py.push_str("pass\n");
    files.push(file_row(root, "nested.py", "python", nested_py.as_bytes()));
    // Non-UTF-8 bytes in names and strings.
    files.push(file_row(
        root,
        "latin1.py",
        "python",
        b"def caf\xe9():\n    return '\xff\xfe'\n\nclass Ok:\n    pass\n",
    ));
    // One 400 KB line.
    let mut long = String::from("const table = [");
    long.push_str(&"1, ".repeat(130_000));
    long.push_str("];\nfunction afterLongLine() {}\n");
    files.push(file_row(root, "long.js", "javascript", long.as_bytes()));
    // Oversized for the limit below.
    files.push(file_row(root, "big.go", "go", &vec![b'\n'; 1_100_000]));
    // A file that changed after the scan.
    let mut stale = file_row(root, "stale.go", "go", b"package x\n");
    stale.content_hash = "0".repeat(32);
    files.push(stale);
    // Unsupported and unknown languages.
    files.push(file_row(root, "notes.md", "markdown", b"# notes\n"));

    let config = SyntaxConfig {
        max_file_bytes: 1_000_000,
        ..SyntaxConfig::default()
    };
    let out = run(root, &files, &config);
    let r = &out.report;
    assert_eq!(r.status, StageStatus::Partial, "{r:?}");
    assert_eq!(r.counts["files.total"], 7);
    assert_eq!(r.counts["files.parsed"], 5, "{:?}", r.counts);
    // broken.rs, and latin1.py, whose non-UTF-8 byte is not a valid Python token.
    assert_eq!(r.counts["files.parse-errors"], 2, "{:?}", out.view);
    assert!(r.counts["files.error-nodes"] >= 1);
    assert_eq!(r.breakdown["rust"]["parse-errors"], 1);
    assert_eq!(r.counts["files.skipped-too-large"], 1);
    assert_eq!(r.counts["files.changed-during-run"], 1);
    assert_eq!(r.counts["files.unsupported-language"], 1);
    assert_eq!(r.breakdown["markdown"]["unsupported-language"], 1);
    let symbols = &out.tables.symbols;
    let names: Vec<&str> = symbols.iter().map(|s| s.name.as_str()).collect();
    for want in [
        "good_before",
        "good_after",
        "deep",
        "f0",
        "f199",
        "Ok",
        "afterLongLine",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    let f199 = symbols.iter().find(|s| s.name == "f199").unwrap();
    assert_eq!(
        f199.container.as_deref().map(|c| c.split("::").count()),
        Some(199)
    );
    // The invalid byte ends the identifier; the rest of the file is still read.
    assert!(names.iter().any(|n| n.starts_with("caf")), "{names:?}");
    let warned = test_support::warning_codes(r);
    for code in ["parse-error", "too-large", "changed-during-run"] {
        assert!(warned.contains(&code), "{code} not warned: {warned:?}");
    }
    let view = &out.view.files;
    assert_eq!(view["broken.rs"].status, "parse-errors");
    assert_eq!(view["big.go"].status, "too-large");
    assert!(!view.contains_key("deep.rs"));
}

#[test]
fn work_budget_times_out_deterministically() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mut src = String::new();
    for i in 0..3_000 {
        src.push_str(&format!("fn f{i}(a: u32) -> u32 {{ a + {i} }}\n"));
    }
    let files = vec![
        file_row(root, "many.rs", "rust", src.as_bytes()),
        file_row(root, "small.rs", "rust", b"fn tiny() {}\n"),
    ];
    let tight = SyntaxConfig {
        budget: Budget {
            parse_base: 50,
            parse_per_kib: 0,
            query_base: 50,
            query_per_kib: 0,
        },
        ..SyntaxConfig::default()
    };
    for _ in 0..2 {
        let out = run(root, &files, &tight);
        assert_eq!(
            out.report.counts["files.timed-out"], 1,
            "{:?}",
            out.report.counts
        );
        assert_eq!(out.report.counts["files.parsed"], 1);
        assert_eq!(out.report.status, StageStatus::Partial);
        assert!(out.tables.symbols.iter().all(|s| s.path == "small.rs"));
        assert_eq!(out.view.files["many.rs"].status, "timed-out");
    }
    // The default budget parses it.
    let out = run(root, &files, &SyntaxConfig::default());
    assert_eq!(out.report.counts["files.parsed"], 2);
    assert_eq!(out.tables.symbols.len(), 3_001);
}

fn symbols_of(lang: Lang, path: &str, src: &str) -> Vec<output_schema::tables::SymbolRow> {
    let mut worker = Worker::new();
    let input = FileInput {
        repo_id: "r",
        path,
        lang,
        is_test: false,
        is_generated: false,
    };
    extract(&mut worker, &input, src.as_bytes(), &Budget::default())
        .unwrap()
        .symbols
}

#[test]
fn rename_keeps_body_hash_and_body_change_does_not() {
    let cases = [
        (
            Lang::Rust,
            "a.rs",
            "fn old_name(x: u32) -> u32 {\n    // a comment\n    x * 2 + 1\n}\n",
            "fn new_name(x: u32) -> u32 {\n    x   *   2 + 1 // moved comment\n}\n",
            "fn old_name(x: u32) -> u32 {\n    x * 3 + 1\n}\n",
        ),
        (
            Lang::Python,
            "a.py",
            "def old_name(x):\n    # c\n    return x * 2\n",
            "\n\ndef new_name(x):\n    return x * 2\n",
            "def old_name(x):\n    return x * 3\n",
        ),
        (
            Lang::TypeScript,
            "a.ts",
            "export function oldName(x: number) { return x * 2; }\n",
            "export function newName(x: number) {\n  /* c */ return x * 2;\n}\n",
            "export function oldName(x: number) { return x * 2 + 0; }\n",
        ),
        (
            Lang::Go,
            "a.go",
            "package p\n\nfunc oldName(x int) int { return x * 2 }\n",
            "package p\n\n// doc\nfunc newName(x int) int {\n\treturn x * 2\n}\n",
            "package p\n\nfunc oldName(x int) int { return x * 4 }\n",
        ),
    ];
    for (lang, path, before, renamed, changed) in cases {
        let a = symbols_of(lang, path, before);
        let b = symbols_of(lang, path, renamed);
        let c = symbols_of(lang, path, changed);
        let (a, b, c) = (&a[0], &b[0], &c[0]);
        assert_ne!(a.name, b.name);
        // A rename changes the stable ID and keeps the body hash; a body change the other way.
        let same =
            |x: &SymbolRow, y: &SymbolRow| (x.stable_id == y.stable_id, x.body_hash == y.body_hash);
        let what = "(same stable ID, same body hash)";
        assert_eq!(same(a, b), (false, true), "{lang:?}: a rename {what}");
        assert_eq!(same(a, c), (true, false), "{lang:?}: a body change {what}");
    }
}

#[test]
fn overloads_get_discriminators_and_every_query_compiles() {
    for lang in Lang::ALL {
        let q = lang.query().unwrap_or_else(|e| panic!("{e}"));
        let unknown = pipeline::syntax::captures::unknown_captures(&q.query);
        assert!(unknown.is_empty(), "{lang:?}: unknown captures {unknown:?}");
    }
    let java = "class A {\n  void f(int a) {}\n  void f(int a, int b) {}\n  void g(int a) {}\n  void g(long a) {}\n}\n";
    let syms = symbols_of(Lang::Java, "A.java", java);
    let ids: Vec<&str> = syms.iter().map(|s| s.stable_id.as_str()).collect();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "{ids:?}");
    let f: Vec<&str> = syms
        .iter()
        .filter(|s| s.name == "f")
        .map(|s| s.stable_id.as_str())
        .collect();
    assert!(f[0].ends_with("~a1") && f[1].ends_with("~a2"), "{f:?}");
    let g: Vec<&str> = syms
        .iter()
        .filter(|s| s.name == "g")
        .map(|s| s.stable_id.as_str())
        .collect();
    assert!(g.iter().all(|id| id.contains("~s")), "{g:?}");
    // Same name in different containers needs no discriminator.
    let rust = "struct A; struct B;\nimpl A { fn new() {} }\nimpl B { fn new() {} }\n";
    let syms = symbols_of(Lang::Rust, "a.rs", rust);
    let news: Vec<&str> = syms
        .iter()
        .filter(|s| s.name == "new")
        .map(|s| s.stable_id.as_str())
        .collect();
    assert_eq!(news.len(), 2);
    assert!(news.iter().all(|id| !id.contains('~')), "{news:?}");
    assert_ne!(news[0], news[1]);
}

/// Names beyond ASCII (identifiers in Python, Rust, TypeScript and Java may use any letter) are
/// definitions like any other, in containers too: a class `Über` with a method once made the
/// whole stage a panic.
#[test]
fn names_beyond_ascii_are_extracted_in_their_containers() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let files = vec![
        file_row(
            root,
            "u.py",
            "python",
            "class Über:\n    def größe(self):\n        return 1\n".as_bytes(),
        ),
        file_row(
            root,
            "lib.rs",
            "rust",
            "struct Zähler;\nimpl Zähler {\n    fn zählen(&self) {}\n}\n".as_bytes(),
        ),
        file_row(
            root,
            "a.ts",
            "typescript",
            "class 東京 {\n  駅(): void {}\n}\n".as_bytes(),
        ),
    ];
    let out = run(root, &files, &SyntaxConfig::default());
    let mut got: Vec<(&str, Option<&str>)> = out
        .tables
        .symbols
        .iter()
        .map(|s| (s.name.as_str(), s.container.as_deref()))
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            ("Zähler", None),
            ("größe", Some("Über")),
            ("zählen", Some("impl Zähler")),
            ("Über", None),
            ("東京", None),
            ("駅", Some("東京")),
        ]
    );
}

/// A signature is at most `MAX_SIGNATURE_BYTES` and its `…`, also when stripping its values
/// lengthens it (a default `1` becomes `…`, three bytes): found by the `syntax` fuzz target.
#[test]
fn signatures_stay_within_their_limit_after_values_are_stripped() {
    use pipeline::syntax::extract::MAX_SIGNATURE_BYTES;
    let params: Vec<String> = (0..60).map(|i| format!("p{i}=1")).collect();
    let src = format!("def many({}):\n    pass\n", params.join(", "));
    let symbols = symbols_of(Lang::Python, "many.py", &src);
    let many = symbols.iter().find(|s| s.name == "many").unwrap();
    let signature = many.signature.as_deref().unwrap();
    assert!(
        signature.len() <= MAX_SIGNATURE_BYTES + '…'.len_utf8() && signature.ends_with('…'),
        "{} bytes: {signature}",
        signature.len()
    );
    assert!(
        !signature.contains("=1"),
        "values are stripped: {signature}"
    );
}
