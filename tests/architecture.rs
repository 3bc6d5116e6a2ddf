//! Enforces the dependency rules of ARCHITECTURE.md by reading the crates' manifests, that every
//! Rust source file opens with a `//!` doc saying what it is for, and that tests look up their
//! files at run time (see `tests_find_their_files_at_run_time`).

use std::path::{Path, PathBuf};

fn deps(crate_dir: &str) -> Vec<String> {
    let text =
        std::fs::read_to_string(workspace_root().join(crate_dir).join("Cargo.toml")).unwrap();
    let mut out = Vec::new();
    let mut in_deps = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
            continue;
        }
        if in_deps {
            if let Some((name, _)) = line.split_once(['.', '=', ' ']) {
                if !name.is_empty() && !name.starts_with('#') {
                    out.push(name.trim().to_string());
                }
            }
        }
    }
    out
}

#[test]
fn crate_dependency_rules_hold() {
    let schema = deps("output-schema");
    for ckb_crate in ["pipeline", "queries", "ckb"] {
        assert!(
            !schema.contains(&ckb_crate.to_string()),
            "output-schema depends on {ckb_crate}"
        );
    }
    let queries = deps("queries");
    assert!(
        !queries.contains(&"pipeline".to_string()),
        "queries depends on pipeline"
    );
    let pipeline = deps("pipeline");
    assert!(
        !pipeline.contains(&"queries".to_string()),
        "pipeline depends on queries"
    );
    for lib in [&schema, &queries, &pipeline] {
        for ui in ["clap", "indicatif"] {
            assert!(
                !lib.contains(&ui.to_string()),
                "a library crate depends on {ui}"
            );
        }
    }
    // Test support and the fuzz targets build without DuckDB: `cargo test -p pipeline` and
    // `ci/fuzz.sh all` never compile it. The fuzz targets read snapshot tables through
    // `queries`, whose DuckDB is an optional dependency behind its `sql` feature; fuzz leaves
    // the feature off unless its own opt-in `sql` feature (the `sql_guard` target) asks for it.
    let test_support = deps("test-support");
    let fuzz = deps("fuzz");
    for heavy in ["queries", "duckdb", "ckb"] {
        assert!(
            !test_support.contains(&heavy.to_string()),
            "test-support depends on {heavy}"
        );
    }
    for heavy in ["duckdb", "ckb"] {
        assert!(
            !fuzz.contains(&heavy.to_string()),
            "fuzz depends on {heavy}"
        );
    }
    let manifest =
        |dir: &str| std::fs::read_to_string(workspace_root().join(dir).join("Cargo.toml")).unwrap();
    let line = |text: &str, start: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(start))
            .unwrap_or_else(|| panic!("no line starting {start:?}"))
            .to_string()
    };
    let (fuzz_toml, queries_toml) = (manifest("fuzz"), manifest("queries"));
    assert!(
        line(&fuzz_toml, "queries").contains("default-features = false"),
        "fuzz must take queries without its default `sql` feature"
    );
    assert!(
        line(&queries_toml, "duckdb").contains("optional = true")
            && line(&queries_toml, "sql =").contains("\"dep:duckdb\""),
        "DuckDB must be queries' optional dependency behind its `sql` feature"
    );
    assert!(
        !fuzz_toml
            .lines()
            .any(|l| l.trim_start().starts_with("default =")),
        "fuzz must have no default features (its `sql` feature compiles DuckDB)"
    );
    for lib in [&schema, &pipeline] {
        assert!(
            !lib.contains(&"duckdb".to_string()),
            "DuckDB must stay inside queries"
        );
    }
}

/// Folders whose Rust files are not ckb's code: published crates patched in (`vendor`), build
/// output, git's own, and fixtures (files the tests read as data).
const NOT_OUR_CODE: [&str; 5] = ["vendor", "target", ".git", "fixtures", "node_modules"];

/// Every Rust file of the repository, as paths relative to `root` (the folders of [`NOT_OUR_CODE`]
/// left out), sorted: every crate, its tests, benches and examples, including crates added later.
fn rust_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                let name = e.file_name();
                if !NOT_OUR_CODE.iter().any(|n| name == *n) {
                    stack.push(p);
                }
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    files.sort();
    files
}

/// The rules below read every crate: each workspace member (and the binary's `src/` and
/// `tests/`) has files in [`rust_files`].
#[test]
fn the_rules_read_every_crate_and_its_tests() {
    let root = workspace_root();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let members = manifest
        .lines()
        .find_map(|l| l.trim().strip_prefix("members = ["))
        .expect("the workspace lists its members");
    let mut folders: Vec<String> = members
        .trim_end_matches(']')
        .split(',')
        .map(|m| m.trim().trim_matches('"').to_string())
        .filter(|m| !m.is_empty())
        .collect();
    assert!(folders.len() >= 5, "{folders:?}");
    folders.extend(["src".to_string(), "tests".to_string()]);
    let files = rust_files(&root);
    for folder in &folders {
        assert!(
            files.iter().any(|f| f.starts_with(folder)),
            "no Rust file of {folder} is checked"
        );
    }
    for tests in ["pipeline/tests", "queries/tests", "output-schema/src"] {
        assert!(files.iter().any(|f| f.starts_with(tests)), "{tests}");
    }
}

fn workspace_root() -> PathBuf {
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR"))
}

#[test]
fn every_rust_file_opens_with_a_module_doc() {
    let root = workspace_root();
    let missing: Vec<String> = rust_files(&root)
        .into_iter()
        .filter(|p| {
            !std::fs::read_to_string(root.join(p))
                .unwrap()
                .trim_start()
                .starts_with("//!")
        })
        .map(|p| p.display().to_string())
        .collect();
    assert!(missing.is_empty(), "files without a //! doc: {missing:?}");
}

/// Tests find their files through the manifest folder cargo gives them when it runs them. The
/// compile-time `env!` form bakes in the folder the binary was built in, and cargo does not rebuild
/// a test when only that folder changed: with a target folder shared between clones (`.ci/run`
/// keeps one under `$HOME/.cache`), a test built in another clone reads that clone's files, or
/// fails on a folder that is gone.
#[test]
fn tests_find_their_files_at_run_time() {
    let root = workspace_root();
    let baked = ["env!(\"CARGO_", "MANIFEST_DIR\")"].concat();
    let offenders: Vec<String> = rust_files(&root)
        .into_iter()
        .filter(|p| {
            std::fs::read_to_string(root.join(p))
                .unwrap()
                .contains(&baked)
        })
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        offenders.is_empty(),
        "use std::env::var(\"CARGO_MANIFEST_DIR\") at run time instead: {offenders:?}"
    );
}

/// SECURITY.md names a test for every guarantee as `` `path/to/file.rs::test_name` ``; each must
/// exist, or the guarantee is no longer held by anything.
#[test]
fn security_guarantees_name_tests_that_exist() {
    let root = workspace_root();
    let text = std::fs::read_to_string(root.join("SECURITY.md")).expect("SECURITY.md exists");
    let mut named = 0;
    for span in text.split('`').skip(1).step_by(2) {
        let Some((file, test)) = span.split_once(".rs::") else {
            continue;
        };
        let source = std::fs::read_to_string(root.join(format!("{file}.rs")))
            .unwrap_or_else(|e| panic!("SECURITY.md names {file}.rs, which cannot be read: {e}"));
        assert!(
            source.contains(&format!("fn {test}(")),
            "SECURITY.md names the test {span}, which does not exist"
        );
        named += 1;
    }
    assert!(named >= 5, "SECURITY.md names only {named} tests");
}

/// Longest a file may be before it must say why at its top.
const MAX_FILE_LINES: usize = 800;
/// Longest a function may be before the line above it (or its doc) must say why.
const MAX_FN_LINES: usize = 150;
/// The marker of such a reason: `//! Size: …` in a file's opening doc, for a function `// Size: …`
/// (or `/// Size: …`) in the lines just above it or `//! Size: `name` …` in the opening doc.
const SIZE_MARKER: &str = "Size:";

/// What is left of a line of Rust once string and char literals and comments are blanked, so that
/// braces are counted only where they are code. `in_block` carries a `/* … */` comment across lines;
/// a multi-line string literal is rare enough in this code base that it ends at the line's end.
fn code_of(line: &str, in_block: &mut bool) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if *in_block {
            if c == '*' && next == Some('/') {
                *in_block = false;
                i += 2;
            } else {
                i += 1;
            }
            continue;
        }
        match c {
            '/' if next == Some('/') => break,
            '/' if next == Some('*') => {
                *in_block = true;
                i += 2;
            }
            'r' if matches!(next, Some('"') | Some('#'))
                && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')) =>
            {
                // Raw string r#"…"#: skip to the closing quote with as many hashes.
                let mut j = i + 1;
                let mut hashes = 0;
                while chars.get(j) == Some(&'#') {
                    hashes += 1;
                    j += 1;
                }
                if chars.get(j) != Some(&'"') {
                    out.push(c);
                    i += 1;
                    continue;
                }
                j += 1;
                while j < chars.len() {
                    if chars[j] == '"' && (0..hashes).all(|k| chars.get(j + 1 + k) == Some(&'#')) {
                        j += 1 + hashes;
                        break;
                    }
                    j += 1;
                }
                i = j;
            }
            '"' => {
                let mut j = i + 1;
                while j < chars.len() && chars[j] != '"' {
                    j += if chars[j] == '\\' { 2 } else { 1 };
                }
                i = j + 1;
            }
            '\'' => {
                // A char literal ('{', '\'', '\u{7b}') or a lifetime ('a): skip only a literal.
                let end = if next == Some('\\') {
                    (i + 2..chars.len()).find(|&j| chars[j] == '\'')
                } else if chars.get(i + 2) == Some(&'\'') {
                    Some(i + 2)
                } else {
                    None
                };
                match end {
                    Some(e) => i = e + 1,
                    None => {
                        out.push(c);
                        i += 1;
                    }
                }
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// `(first line, line count, name)` of every function with a body in `text`, nested ones included.
fn function_spans(text: &str) -> Vec<(usize, usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut in_block = false;
    let code: Vec<String> = lines.iter().map(|l| code_of(l, &mut in_block)).collect();
    let mut spans = Vec::new();
    for (start, line) in code.iter().enumerate() {
        let Some(at) = line.find("fn ") else { continue };
        if at > 0 && !line[..at].ends_with([' ', '(', '\t']) {
            continue;
        }
        let name: String = line[at + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            continue;
        }
        // The body opens at the first `{` before a `;` (a declaration without a body has none).
        let mut depth = 0i64;
        let mut opened = false;
        'scan: for (i, l) in code.iter().enumerate().skip(start) {
            let from = if i == start { at } else { 0 };
            for ch in l[from..].chars() {
                match ch {
                    ';' if !opened => break 'scan,
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => {
                        depth -= 1;
                        if opened && depth == 0 {
                            spans.push((start + 1, i - start + 1, name.clone()));
                            break 'scan;
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    spans
}

/// A function whose body is over `MAX_FN_LINES` has a `Size:` reason among the comment and
/// attribute lines just above it, or in the file's opening doc naming it (`//! Size: \`name\` …`).
fn has_size_reason(lines: &[&str], first_line: usize, name: &str) -> bool {
    let above = lines[..first_line - 1]
        .iter()
        .rev()
        .map(|l| l.trim())
        .take_while(|l| l.starts_with("//") || l.starts_with("#["))
        .any(|l| {
            l.trim_start_matches('/')
                .trim_start()
                .starts_with(SIZE_MARKER)
        });
    let named = format!("`{name}`");
    above
        || lines
            .iter()
            .take_while(|l| l.starts_with("//!"))
            .map(|l| l.trim_start_matches("//!").trim_start())
            .any(|l| l.starts_with(SIZE_MARKER) && l.contains(&named))
}

/// No file over `MAX_FILE_LINES` and no function over `MAX_FN_LINES` lines without a one-line
/// reason where a reader meets it: a newcomer should be able to take in any one piece at once.
#[test]
fn files_and_functions_stay_small_or_say_why() {
    let root = workspace_root();
    let mut oversized = Vec::new();
    for path in rust_files(&root) {
        let text = std::fs::read_to_string(root.join(&path)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let opening_doc = lines.iter().take_while(|l| l.starts_with("//!"));
        if lines.len() > MAX_FILE_LINES
            && !opening_doc.clone().any(|l| {
                l.trim_start_matches("//!")
                    .trim_start()
                    .starts_with(SIZE_MARKER)
            })
        {
            oversized.push(format!(
                "{}: {} lines (over {MAX_FILE_LINES}; add `//! {SIZE_MARKER} <why>` to its opening doc, or split it)",
                path.display(),
                lines.len()
            ));
        }
        for (first, len, name) in function_spans(&text) {
            if len > MAX_FN_LINES && !has_size_reason(&lines, first, &name) {
                oversized.push(format!(
                    "{}:{first}: fn {name} is {len} lines (over {MAX_FN_LINES}; add `// {SIZE_MARKER} <why>` above it, or split it)",
                    path.display()
                ));
            }
        }
    }
    assert!(oversized.is_empty(), "{}", oversized.join("\n"));
}

#[test]
fn function_spans_count_braces_only_in_code() {
    let text = "fn a() {\n    let s = \"}}\"; // }\n    let c = '{';\n    /* } */\n}\nfn b();\nfn c<'a>(x: &'a str) {\n}\n";
    assert_eq!(
        function_spans(text),
        vec![(1, 5, "a".to_string()), (7, 2, "c".to_string())]
    );
}

/// Every `ckb query` answer is built by `envelope::respond::finish`, the one step that applies the
/// budgets and picks drilldowns: each command module calls it, and an `Answer` is constructed
/// nowhere else. The two exceptions are documented: `ckb diff --format json` (every fact, never
/// truncated: `diff/mod.rs::answer`) and SQL results (`sql`, `canned`: rows bounded by
/// `--max-rows`, not an envelope).
#[test]
fn every_answer_goes_through_the_one_finishing_step() {
    let root = workspace_root();
    let commands = root.join("queries/src/commands");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&commands).unwrap().flatten() {
        let path = entry.path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !name.ends_with(".rs") || ["mod.rs", "sql.rs", "canned.rs"].contains(&name.as_str()) {
            continue;
        }
        if !std::fs::read_to_string(&path).unwrap().contains("finish(") {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "commands that do not answer through respond::finish: {missing:?}"
    );
    let mut builders = Vec::new();
    for path in rust_files(&root) {
        let p = path.to_string_lossy().replace('\\', "/");
        if !p.starts_with("queries/src/") || p == "queries/src/envelope/answer.rs" {
            continue;
        }
        let text = std::fs::read_to_string(root.join(&path)).unwrap();
        if text.contains("Answer::new(") || text.contains("Answer {") {
            builders.push(p);
        }
    }
    builders.sort();
    assert_eq!(
        builders,
        ["queries/src/diff/mod.rs", "queries/src/envelope/respond.rs"],
        "an Answer is built outside finish (and the documented diff exception)"
    );
}

/// No stage reaches up into the run that drives it: only the orchestration files (the public
/// API, the plan, the driver, the previous-snapshot choice, publication and the stage contract)
/// may name the driver, the plan or the options; every stage gets what it needs as its input or
/// through `StageContext`.
#[test]
fn no_stage_imports_the_driver() {
    let root = workspace_root();
    let orchestration = [
        "pipeline/src/lib.rs",
        "pipeline/src/driver.rs",
        "pipeline/src/driver/stages.rs",
        "pipeline/src/plan.rs",
        "pipeline/src/previous.rs",
        "pipeline/src/publish.rs",
        "pipeline/src/stage.rs",
        // `ckb index` is an entry point beside `snapshot()`, not a stage: it resolves the
        // snapshot's plan to scan as a snapshot would.
        "pipeline/src/indexers/mod.rs",
    ];
    let upward = [
        "crate::driver",
        "crate::plan",
        "crate::publish",
        "crate::previous",
        "SnapshotOptions",
        "crate::snapshot(",
    ];
    let mut offenders = Vec::new();
    for path in rust_files(&root) {
        let p = path.to_string_lossy().replace('\\', "/");
        if !p.starts_with("pipeline/src/") || orchestration.contains(&p.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(root.join(&path)).unwrap();
        for needle in upward {
            if text.contains(needle) {
                offenders.push(format!("{p} names {needle}"));
            }
        }
    }
    assert!(offenders.is_empty(), "{offenders:?}");
}
