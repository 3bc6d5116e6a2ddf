//! Golden tests of the syntax extractor: one fixture per language under
//! `tests/fixtures/syntax/`, with the expected definitions (kind, container, signature, arity,
//! visibility), imports and reference sites in `<fixture>.golden.json`.
//!
//! The goldens are reviewed by hand. To regenerate after an intended change, run
//! `CKB_UPDATE_GOLDEN=1 cargo test -p pipeline --test syntax_golden` and review the diff line by
//! line before committing it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use pipeline::syntax::extract::{extract, Budget, FileInput, Worker};
use pipeline::syntax::lang::Lang;

fn fixtures() -> PathBuf {
    Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/syntax")
}

fn render(name: &str, lang: Lang, src: &[u8]) -> serde_json::Value {
    let mut worker = Worker::new();
    let input = FileInput {
        repo_id: "golden",
        path: name,
        lang,
        is_test: false,
        is_generated: false,
    };
    let facts = extract(&mut worker, &input, src, &Budget::default())
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    let label: HashMap<&str, String> = facts
        .symbols
        .iter()
        .map(|s| {
            let q = match &s.container {
                Some(c) => format!("{c}::{}", s.name),
                None => s.name.clone(),
            };
            (s.stable_id.as_str(), q)
        })
        .collect();
    let mut symbols = facts.symbols.clone();
    symbols.sort_by_key(|s| (s.start_line, s.start_col, s.name.clone()));
    let definitions: Vec<String> = symbols
        .iter()
        .map(|s| {
            format!(
                "L{}-{} {} {} | sig: {} | arity: {} | {} {} {}",
                s.start_line,
                s.end_line,
                s.kind,
                s.qualified_name(),
                s.signature.as_deref().unwrap_or("-"),
                s.arity.map(|a| a.to_string()).unwrap_or_else(|| "-".into()),
                s.visibility,
                s.visibility_source,
                s.visibility_confidence,
            )
        })
        .collect();
    let imports: Vec<String> = facts
        .imports
        .iter()
        .map(|i| format!("L{} {} [{}]", i.line, i.raw, i.names.join(", ")))
        .collect();
    let mut occurrences = facts.occurrences.clone();
    occurrences.sort_by_key(|o| (o.line, o.col));
    let references: Vec<String> = occurrences
        .iter()
        .filter(|o| !o.roles.contains(output_schema::Roles::DEFINITION))
        .map(|o| {
            format!(
                "L{}:{} {} {} in {}",
                o.line,
                o.col,
                o.roles.names().collect::<Vec<_>>().join("+"),
                o.name,
                o.enclosing_symbol_id
                    .as_deref()
                    .map(|id| label.get(id).cloned().unwrap_or_else(|| "?".into()))
                    .unwrap_or_else(|| "-".into()),
            )
        })
        .collect();
    serde_json::json!({
        "errors": facts.errors,
        "definitions": definitions,
        "imports": imports,
        "references": references,
    })
}

#[test]
fn every_fixture_matches_its_golden() {
    let mut checked = 0;
    let mut failures = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.to_string_lossy().ends_with(".golden.json"))
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let src = std::fs::read(&path).unwrap();
        let lang = pipeline::scan::detect_language(&name, &src)
            .and_then(Lang::from_name)
            .unwrap_or_else(|| panic!("{name}: no supported language"));
        let got = render(&name, lang, &src);
        let golden = path.with_file_name(format!("{name}.golden.json"));
        let text = serde_json::to_string_pretty(&got).unwrap() + "\n";
        if let Err(m) = test_support::check_golden(&golden, &text) {
            failures.push(format!("{name}: {m}"));
        }
        checked += 1;
    }
    assert!(
        checked >= 9,
        "expected a fixture per language, found {checked}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
