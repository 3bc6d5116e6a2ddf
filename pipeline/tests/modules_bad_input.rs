//! Bad input for the modules stage: malformed manifests, cyclic and escaping workspace globs,
//! imports leaving the repository, huge import lists, missing inputs, invalid config roots,
//! ambiguous matches — each counted or warned about, never a panic, never a made-up edge.

#[path = "modules_common/mod.rs"]
mod common;

use common::*;
use output_schema::config::Config;
use output_schema::manifest::StageStatus;
use pipeline::write::TableSet;

#[test]
fn malformed_manifests_warn_and_fall_back() {
    let fx = Fixture::new(&[
        ("Cargo.toml", "[package]\nname = \"broken\nversion = 1\n"),
        ("src/lib.rs", "\n"),
        (
            "web/package.json",
            "{\"name\": \"web\", \"dependencies\": {\"react\": \"1\",}}",
        ),
        ("web/index.js", "x\n"),
        (
            "svc/pom.xml",
            "<project><artifactId>svc</artifactId><dependencies></project>",
        ),
        ("svc/src/main/java/a/A.java", "x\n"),
        ("py/pyproject.toml", "[project\nname = 'x'\n"),
        ("py/m.py", "\n"),
        ("app/pubspec.yaml", "name: app\n"),
        ("app/lib/main.dart", "x\n"),
    ]);
    std::fs::write(fx.root().join("bad/go.mod"), b"").ok();
    write(fx.root(), "latin/package.json", b"{\"name\": \"caf\xe9\"}");
    let (t, out) = fx.run_imports(vec![imp("web/index.js", 1, "react")]);
    assert_eq!(out.report.status, StageStatus::Partial);
    assert_eq!(out.report.counts["manifests.malformed"], 5);
    let mut warned: Vec<(&str, &str)> = out
        .report
        .warnings
        .iter()
        .map(|w| (w.code.as_str(), w.path.as_deref().unwrap_or("")))
        .collect();
    warned.sort();
    assert_eq!(
        warned,
        [
            ("manifest-malformed", "Cargo.toml"),
            ("manifest-malformed", "latin/package.json"),
            ("manifest-malformed", "py/pyproject.toml"),
            ("manifest-malformed", "svc/pom.xml"),
            ("manifest-malformed", "web/package.json"),
        ]
    );
    for w in &out.report.warnings {
        assert!(w.message.contains("falls back"), "{}", w.message);
        assert!(
            !w.message.contains("broken") && !w.message.contains("react"),
            "no source text: {}",
            w.message
        );
    }
    let toml = out
        .report
        .warnings
        .iter()
        .find(|w| w.path.as_deref() == Some("Cargo.toml"))
        .unwrap();
    assert!(toml.message.contains("line "), "{}", toml.message);
    // Detection fell back to conventions and directories for the broken folders.
    assert_eq!(
        module_list(&t),
        [
            (".", "fixture", "none", "directory"),
            ("app", "app", "dart", "manifest"),
            ("latin", "latin", "none", "directory"),
            ("py", "py", "none", "directory"),
            ("src", "src", "none", "convention"),
            ("svc", "svc", "none", "directory"),
            ("web", "web", "none", "directory"),
        ]
    );
    // The broken package.json declares nothing: react is unknown, not external.
    assert_import(&t, "web/index.js", 1, "unknown", None);
    assert!(t.module_edges.as_ref().unwrap().is_empty());
}

#[test]
fn cyclic_and_escaping_workspace_globs_are_counted() {
    let fx = Fixture::new(&[
        (
            "package.json",
            r#"{"name": "root", "workspaces": ["**", "../elsewhere/*", "packages/*", "!packages/skip"]}"#,
        ),
        ("packages/a/package.json", r#"{"name": "a"}"#),
        ("packages/a/index.js", "x\n"),
        ("packages/skip/package.json", r#"{"name": "skip"}"#),
        ("x/Cargo.toml", "[workspace]\nmembers = [\"../y\"]\n"),
        ("y/Cargo.toml", "[workspace]\nmembers = [\"../x\"]\n"),
        ("pnpm/pnpm-workspace.yaml", "packages:\n  - '../../**'\n"),
        ("pnpm/package.json", r#"{"name": "p"}"#),
    ]);
    let (t, out) = fx.run_imports(vec![imp("packages/a/index.js", 1, "p")]);
    let c = &out.report.counts;
    assert_eq!(c["workspace.globs-escaping-repo"], 2, "{c:?}");
    // `**` matches the root workspace itself; x and y include each other.
    assert_eq!(c["workspace.cyclic-globs"], 3, "{c:?}");
    let codes = test_support::warning_codes(&out.report);
    assert!(
        codes.contains(&"workspace-glob-cyclic") && codes.contains(&"workspace-glob-escapes-repo")
    );
    // Modules are still every manifest folder, each once.
    let ids: Vec<&str> = module_list(&t).into_iter().map(|m| m.0).collect();
    assert_eq!(ids, [".", "packages/a", "packages/skip", "pnpm", "x", "y"]);
    // A package without an entry file resolves to its folder.
    assert_import(
        &t,
        "packages/a/index.js",
        1,
        "workspace-package",
        Some("pnpm"),
    );
    assert_traceable(&t);
}

#[test]
fn imports_leaving_the_repository_stay_unknown_and_are_counted() {
    let fx = Fixture::new(&[
        ("a/x.ts", "x\n"),
        ("a/p.py", "\n"),
        ("a/c.c", "x\n"),
        ("a/r.go", "x\n"),
    ]);
    let (t, out) = fx.run_imports(vec![
        imp("a/x.ts", 1, "../../etc/passwd"),
        imp("a/x.ts", 2, "/etc/passwd"),
        imp("a/p.py", 1, "...secret"),
        imp("a/c.c", 1, "\"../../../usr/include/x.h\""),
    ]);
    assert_eq!(out.report.counts["imports.escaping-repo"], 4);
    for (p, l) in [("a/x.ts", 1), ("a/x.ts", 2), ("a/p.py", 1), ("a/c.c", 1)] {
        assert_import(&t, p, l, "unknown", None);
    }
    let escapes = out
        .report
        .warnings
        .iter()
        .filter(|w| w.code == "import-escapes-repo")
        .count();
    assert_eq!(escapes, 4);
    assert!(t.module_edges.as_ref().unwrap().is_empty());
}

#[test]
fn huge_generated_import_lists_are_counted_and_still_classified() {
    let mut files: Vec<(String, String)> = vec![("gen/all.ts".into(), "x\n".into())];
    for i in 0..1500 {
        files.push((format!("lib/m{i}.ts"), "x\n".into()));
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let fx = Fixture::new(&refs);
    let imports = (0..1500)
        .map(|i| imp("gen/all.ts", i + 1, &format!("../lib/m{i}")))
        .collect();
    let (t, out) = fx.run_imports(imports);
    assert_eq!(out.report.counts["imports.huge-lists"], 1);
    assert_eq!(out.report.counts["imports.local-file"], 1500);
    assert!(out
        .report
        .warnings
        .iter()
        .any(|w| w.code == "huge-import-list" && w.path.as_deref() == Some("gen/all.ts")));
    assert_eq!(edge_list(&t), [("gen", "lib", "local", 1500, 0)]);
    assert_traceable(&t);
}

#[test]
fn without_imports_modules_are_still_detected() {
    let fx = Fixture::new(&[
        ("a/Cargo.toml", "[package]\nname = \"a\"\n"),
        ("a/src/lib.rs", "\n"),
        ("b/x.py", "\n"),
    ]);
    let (t, out) = fx.run(TableSet::default(), &Config::default());
    assert!(t.imports.is_none());
    assert_eq!(
        module_list(&t),
        [
            ("a", "a", "cargo", "manifest"),
            ("b", "b", "none", "directory")
        ]
    );
    assert!(t.module_edges.as_ref().unwrap().is_empty());
    assert_eq!(out.report.status, StageStatus::Partial);
    let c = out.report.completeness.unwrap();
    assert!(
        c.reason.contains("syntax stage did not run") && c.reason.contains("impossible"),
        "{}",
        c.reason
    );
    assert_eq!(c.score, 0.0);
}

#[test]
fn no_files_is_an_empty_result_and_no_scan_is_skipped() {
    let fx = Fixture::new(&[]);
    let (t, out) = fx.run_imports(Vec::new());
    assert!(t.modules.as_ref().unwrap().is_empty());
    assert!(t.module_edges.as_ref().unwrap().is_empty());
    assert_eq!(out.report.status, StageStatus::Ok);
    assert_eq!(out.view.unwrap().modules.len(), 0);

    let state = output_schema::manifest::RepoState::default();
    let config = Config::default();
    let ctx = pipeline::StageContext {
        root: fx.root(),
        repo_id: "r",
        config: &config,
        repo_state: &state,
        previous: None,
        progress: &pipeline::NoProgress,
    };
    let out = pipeline::modules::run(&ctx, TableSet::default());
    assert_eq!(out.report.status, StageStatus::Skipped);
    assert!(out.tables.modules.is_none());
}

#[test]
fn config_roots_win_and_bad_entries_are_warned() {
    let fx = Fixture::new(&[
        ("services/api/package.json", r#"{"name": "api"}"#),
        ("services/api/index.js", "x\n"),
        ("services/web/index.js", "x\n"),
        ("README.md", "x\n"),
    ]);
    let config: Config = Config::parse(
        br#"{"modules": {"roots": ["services/", "./services/web", "/etc", "../up", "missing"]}}"#,
        std::path::Path::new("c.json"),
    )
    .unwrap();
    let (t, out) = fx.run(
        TableSet {
            imports: Some(vec![imp("services/web/index.js", 1, "api")]),
            ..TableSet::default()
        },
        &config,
    );
    assert_eq!(
        module_list(&t),
        [
            (".", "fixture", "none", "directory"),
            ("services", "services", "none", "config"),
            ("services/web", "web", "none", "config"),
        ]
    );
    let mut codes = test_support::warning_codes(&out.report);
    codes.sort();
    assert_eq!(
        codes,
        [
            "config-root-empty",
            "config-root-invalid",
            "config-root-invalid"
        ]
    );
    // Package names still resolve; the package lives in module `services` under the config.
    assert_import(
        &t,
        "services/web/index.js",
        1,
        "workspace-package",
        Some("services/api/index.js"),
    );
    assert_eq!(
        edge_list(&t),
        [("services/web", "services", "workspace-package", 1, 0)]
    );
    assert_traceable(&t);
}

#[test]
fn ambiguous_suffix_matches_make_no_edge() {
    let fx = Fixture::new(&[
        ("liba/include/util.h", "x\n"),
        ("libb/include/util.h", "x\n"),
        ("app/main.c", "x\n"),
        ("app/own.h", "x\n"),
        ("liba/only.h", "x\n"),
    ]);
    let (t, out) = fx.run_imports(vec![
        imp("app/main.c", 1, "\"util.h\""),
        imp("app/main.c", 2, "\"own.h\""),
        imp("app/main.c", 3, "<only.h>"),
        imp("app/main.c", 4, "<stdio.h>"),
        imp("app/main.c", 5, "<zlib.h>"),
    ]);
    assert_imports(
        &t,
        &[
            ("app/main.c", 1, "unknown", None),
            ("app/main.c", 2, "local-file", Some("app/own.h")),
            ("app/main.c", 3, "local-file", Some("liba/only.h")),
            ("app/main.c", 4, "stdlib", Some("stdio.h")),
            ("app/main.c", 5, "unknown", None),
        ],
    );
    assert_eq!(out.report.counts["imports.ambiguous"], 1);
    assert_eq!(
        edge_list(&t),
        [
            ("app", "external:stdio.h", "stdlib", 1, 0),
            ("app", "liba", "local", 1, 0)
        ]
    );
    assert_traceable(&t);
}

#[test]
fn unsupported_languages_and_garbage_raw_text() {
    let fx = Fixture::new(&[("a/x.rb", "x\n"), ("a/y.rs", "\n"), ("a/z.py", "\n")]);
    let mut ruby = imp("a/x.rb", 1, "json");
    ruby.language = "ruby".into();
    let (t, out) = fx.run_imports(vec![
        ruby,
        imp("a/y.rs", 1, ""),
        imp("a/y.rs", 2, "::{}"),
        imp("a/z.py", 1, "."),
        imp("a/z.py", 2, "\u{0}\u{1}weird"),
    ]);
    assert_eq!(out.report.counts["imports.unsupported-language"], 1);
    assert_eq!(out.report.counts["imports.unknown"], 4);
    // `from . import` names the importing file's own package folder.
    assert_import(&t, "a/z.py", 1, "local-module", Some("a"));
    let unknown = t
        .imports
        .as_ref()
        .unwrap()
        .iter()
        .filter(|r| r.kind == "unknown");
    assert!(
        unknown.clone().count() == 4
            && unknown
                .into_iter()
                .all(|r| r.target.is_none() && r.confidence == 0.0)
    );
    assert!(t.module_edges.as_ref().unwrap().is_empty());
}

fn enc<T: output_schema::Table>(v: &mut [T]) -> Vec<u8> {
    output_schema::parquet_io::encode_table(v).unwrap()
}

#[test]
fn output_is_deterministic_across_thread_counts() {
    let fx = Fixture::new(&[
        ("package.json", r#"{"name": "r", "workspaces": ["p/*"]}"#),
        (
            "p/a/package.json",
            r#"{"name": "a", "dependencies": {"x": "1"}}"#,
        ),
        ("p/b/package.json", r#"{"name": "b"}"#),
        ("p/a/i.ts", "x\n"),
        ("p/b/i.ts", "x\n"),
        ("p/c/i.ts", "x\n"),
    ]);
    let imports: Vec<_> = (0..400)
        .map(|i| match i % 4 {
            0 => imp("p/a/i.ts", i, "b"),
            1 => imp("p/b/i.ts", i, "../a/i"),
            2 => imp("p/c/i.ts", i, "x"),
            _ => imp("p/a/i.ts", i, "x"),
        })
        .collect();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let (mut t, out) = fx.run_imports(imports.clone());
            (
                enc(t.imports.as_mut().unwrap()),
                enc(t.modules.as_mut().unwrap()),
                enc(t.module_edges.as_mut().unwrap()),
                enc(t.files.as_mut().unwrap()),
                output_schema::View::encode(out.view.as_ref().unwrap()),
                serde_json::to_string(&out.report).unwrap(),
            )
        })
    };
    assert_eq!(run(1), run(4));
}
