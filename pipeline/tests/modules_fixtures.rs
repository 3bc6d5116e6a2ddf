//! Fixture monorepos (Cargo workspace, npm workspaces with TS path aliases, Python src layout,
//! Go module) with the exact expected modules, import classifications and edges.
//!
//! Size: one realistic repository layout per test (`cargo_workspace`, `npm_workspaces_with_ts_path_aliases`: ~160–170 lines each), written out file by file so a reader sees the whole layout.

#[path = "modules_common/mod.rs"]
mod common;

use common::*;
use output_schema::config::Config;
use output_schema::manifest::StageStatus;
use pipeline::write::TableSet;

#[test]
fn cargo_workspace() {
    let fx = Fixture::new(&[
        ("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n\n[workspace.dependencies]\nserde = \"1\"\nacme-core = { path = \"crates/core\" }\n"),
        ("crates/core/Cargo.toml", "[package]\nname = \"acme-core\"\n\n[dependencies]\nserde = { workspace = true }\n"),
        ("crates/core/src/lib.rs", "pub mod parser;\n"),
        ("crates/core/src/parser.rs", "mod lexer;\n"),
        ("crates/core/src/parser/lexer.rs", "\n"),
        ("crates/core/tests/it.rs", "\n"),
        ("crates/cli/Cargo.toml", "[package]\nname = \"acme-cli\"\n\n[dependencies]\nacme-core.workspace = true\nclap = \"4\"\n"),
        ("crates/cli/src/main.rs", "mod commands;\nfn main() {}\n"),
        ("crates/cli/src/commands/mod.rs", "pub mod run;\n"),
        ("crates/cli/src/commands/run.rs", "\n"),
        ("crates/util/Cargo.toml", "[package]\nname = \"acme-util\"\n"),
        ("crates/util/src/lib.rs", "\n"),
        ("scripts/release.sh", "#!/bin/sh\n"),
    ]);
    let (t, out) = fx.run_imports(vec![
        imp("crates/core/src/lib.rs", 1, "crate::parser::Parser"),
        imp("crates/core/src/lib.rs", 2, "std::collections::HashMap"),
        imp("crates/core/src/lib.rs", 3, "super::super::x"),
        imp("crates/core/src/parser.rs", 1, "self::lexer::Token"),
        imp(
            "crates/core/src/parser.rs",
            2,
            "serde::{Deserialize, Serialize}",
        ),
        imp("crates/core/src/parser/lexer.rs", 1, "super::Parser"),
        imp("crates/cli/src/main.rs", 1, "acme_core::parser::Parser"),
        imp("crates/cli/src/main.rs", 2, "clap::Parser"),
        imp("crates/cli/src/main.rs", 3, "acme_util::helper"),
        imp("crates/cli/src/main.rs", 4, "rand::random"),
        imp("crates/cli/src/main.rs", 5, "commands::run::execute"),
        imp("crates/cli/src/commands/run.rs", 1, "super::Ctx"),
        imp("crates/cli/src/commands/run.rs", 2, "crate::commands"),
        imp("crates/core/tests/it.rs", 1, "acme_core::parser"),
        imp("crates/core/src/parser.rs", 3, "mod lexer"),
    ]);
    assert_eq!(
        module_list(&t),
        [
            (".", "fixture", "cargo", "manifest"),
            ("crates/cli", "acme-cli", "cargo", "manifest"),
            ("crates/core", "acme-core", "cargo", "manifest"),
            ("crates/util", "acme-util", "cargo", "manifest"),
        ]
    );
    assert_imports(
        &t,
        &[
            (
                "crates/core/src/lib.rs",
                1,
                "local-file",
                Some("crates/core/src/parser.rs"),
            ),
            ("crates/core/src/lib.rs", 2, "stdlib", Some("std")),
            ("crates/core/src/lib.rs", 3, "unknown", None),
            (
                "crates/core/src/parser.rs",
                1,
                "local-file",
                Some("crates/core/src/parser/lexer.rs"),
            ),
            (
                "crates/core/src/parser.rs",
                2,
                "external-dependency",
                Some("serde"),
            ),
            (
                "crates/core/src/parser/lexer.rs",
                1,
                "local-file",
                Some("crates/core/src/parser.rs"),
            ),
            (
                "crates/cli/src/main.rs",
                1,
                "workspace-package",
                Some("crates/core/src/parser.rs"),
            ),
            (
                "crates/cli/src/main.rs",
                2,
                "external-dependency",
                Some("clap"),
            ),
            (
                "crates/cli/src/main.rs",
                3,
                "workspace-package",
                Some("crates/util/src/lib.rs"),
            ),
            ("crates/cli/src/main.rs", 4, "unknown", None),
            // An integration test names its own package's library by crate name.
            (
                "crates/core/tests/it.rs",
                1,
                "local-file",
                Some("crates/core/src/parser.rs"),
            ),
            // `mod lexer;` in parser.rs declares parser/lexer.rs.
            (
                "crates/core/src/parser.rs",
                3,
                "local-file",
                Some("crates/core/src/parser/lexer.rs"),
            ),
            (
                "crates/cli/src/main.rs",
                5,
                "local-file",
                Some("crates/cli/src/commands/run.rs"),
            ),
            (
                "crates/cli/src/commands/run.rs",
                1,
                "local-file",
                Some("crates/cli/src/commands/mod.rs"),
            ),
            (
                "crates/cli/src/commands/run.rs",
                2,
                "local-file",
                Some("crates/cli/src/commands/mod.rs"),
            ),
        ],
    );
    // Declared path dependency: certain; undeclared repo crate: likely.
    let conf = |line| {
        t.imports
            .as_ref()
            .unwrap()
            .iter()
            .find(|r| r.path == "crates/cli/src/main.rs" && r.line == line)
            .unwrap()
            .confidence
    };
    assert_eq!((conf(1), conf(3)), (1.0, 0.9));
    assert_eq!(
        edge_list(&t),
        [
            ("crates/cli", "crates/core", "workspace-package", 1, 0),
            ("crates/cli", "crates/util", "workspace-package", 1, 0),
            ("crates/cli", "external:clap", "external-dependency", 1, 0),
            ("crates/core", "external:serde", "external-dependency", 1, 0),
            ("crates/core", "external:std", "stdlib", 1, 0),
        ]
    );
    assert_traceable(&t);
    let entry = entrypoints(&t);
    assert_eq!(entry, ["crates/cli"]);
    assert_eq!(out.report.status, StageStatus::Ok);
    assert_eq!(out.report.counts["imports"], 15);
    assert_eq!(out.report.counts["imports.unknown"], 2);
    // Files carry their module.
    let f = t
        .files
        .as_ref()
        .unwrap()
        .iter()
        .find(|f| f.path == "scripts/release.sh")
        .unwrap();
    assert_eq!(f.module_id.as_deref(), Some("."));
}

#[test]
fn npm_workspaces_with_ts_path_aliases() {
    let fx = Fixture::new(&[
        ("package.json", r#"{"name": "acme", "private": true, "workspaces": ["packages/*", "apps/*"], "devDependencies": {"typescript": "^5"}}"#),
        ("tsconfig.base.json", "{\n  // shared settings\n  \"compilerOptions\": {\n    \"baseUrl\": \".\",\n    \"paths\": {\n      \"@ui/*\": [\"packages/ui/src/*\"],\n      \"@shared\": [\"packages/shared/src/index.ts\"],\n    },\n  },\n}\n"),
        ("apps/web/package.json", r#"{"name": "@acme/web", "dependencies": {"react": "^18", "@acme/ui": "*"}, "bin": {"web": "bin/web.js"}}"#),
        ("apps/web/tsconfig.json", "{\n  \"extends\": \"../../tsconfig.base.json\", /* inherit paths */\n  \"compilerOptions\": {\"jsx\": \"react\"}\n}\n"),
        ("apps/web/src/main.tsx", "x\n"),
        ("apps/web/src/app.tsx", "x\n"),
        ("apps/web/src/util/index.ts", "x\n"),
        ("apps/web/bin/web.js", "x\n"),
        ("packages/ui/package.json", r#"{"name": "@acme/ui", "main": "dist/index.js", "source": "src/index.ts", "dependencies": {"lodash": "^4"}}"#),
        ("packages/ui/src/index.ts", "x\n"),
        ("packages/ui/src/button.tsx", "x\n"),
        ("packages/shared/package.json", r#"{"name": "@acme/shared"}"#),
        ("packages/shared/src/index.ts", "x\n"),
    ]);
    let (t, out) = fx.run_imports(vec![
        imp("apps/web/src/main.tsx", 1, "./app"),
        imp("apps/web/src/main.tsx", 2, "react"),
        imp("apps/web/src/app.tsx", 1, "@acme/ui"),
        imp("apps/web/src/app.tsx", 2, "@ui/button"),
        imp("apps/web/src/app.tsx", 3, "@shared"),
        imp("apps/web/src/app.tsx", 4, "./util"),
        imp("apps/web/src/app.tsx", 5, "node:fs"),
        imp("apps/web/src/app.tsx", 6, "path"),
        imp("apps/web/src/app.tsx", 7, "left-pad"),
        imp("packages/ui/src/button.tsx", 1, "lodash/debounce"),
        imp("packages/ui/src/button.tsx", 2, "../../../../outside"),
        imp("packages/ui/src/index.ts", 1, "./button.js"),
        imp("packages/shared/src/index.ts", 1, "typescript"),
    ]);
    assert_eq!(
        module_list(&t),
        [
            (".", "acme", "npm", "manifest"),
            ("apps/web", "@acme/web", "npm", "manifest"),
            ("packages/shared", "@acme/shared", "npm", "manifest"),
            ("packages/ui", "@acme/ui", "npm", "manifest"),
        ]
    );
    assert_imports(
        &t,
        &[
            (
                "apps/web/src/main.tsx",
                1,
                "local-file",
                Some("apps/web/src/app.tsx"),
            ),
            (
                "apps/web/src/main.tsx",
                2,
                "external-dependency",
                Some("react"),
            ),
            (
                "apps/web/src/app.tsx",
                1,
                "workspace-package",
                Some("packages/ui/src/index.ts"),
            ),
            (
                "apps/web/src/app.tsx",
                2,
                "local-file",
                Some("packages/ui/src/button.tsx"),
            ),
            (
                "apps/web/src/app.tsx",
                3,
                "local-file",
                Some("packages/shared/src/index.ts"),
            ),
            (
                "apps/web/src/app.tsx",
                4,
                "local-file",
                Some("apps/web/src/util/index.ts"),
            ),
            ("apps/web/src/app.tsx", 5, "stdlib", Some("fs")),
            ("apps/web/src/app.tsx", 6, "stdlib", Some("path")),
            ("apps/web/src/app.tsx", 7, "unknown", None),
            (
                "packages/ui/src/button.tsx",
                1,
                "external-dependency",
                Some("lodash"),
            ),
            ("packages/ui/src/button.tsx", 2, "unknown", None),
            (
                "packages/ui/src/index.ts",
                1,
                "local-file",
                Some("packages/ui/src/button.tsx"),
            ),
            (
                "packages/shared/src/index.ts",
                1,
                "external-dependency",
                Some("typescript"),
            ),
        ],
    );
    assert_eq!(
        edge_list(&t),
        [
            ("apps/web", "external:fs", "stdlib", 1, 0),
            ("apps/web", "external:path", "stdlib", 1, 0),
            ("apps/web", "external:react", "external-dependency", 1, 0),
            ("apps/web", "packages/shared", "local", 1, 0),
            ("apps/web", "packages/ui", "workspace-package", 2, 0),
            (
                "packages/shared",
                "external:typescript",
                "external-dependency",
                1,
                0
            ),
            (
                "packages/ui",
                "external:lodash",
                "external-dependency",
                1,
                0
            ),
        ]
    );
    assert_traceable(&t);
    assert_eq!(out.report.counts["imports.escaping-repo"], 1);
    let view = out.view.as_ref().unwrap();
    let eps: Vec<(&str, &str, &str)> = view
        .entrypoints
        .iter()
        .map(|e| (e.module.as_str(), e.path.as_str(), e.kind.as_str()))
        .collect();
    assert_eq!(
        eps,
        [
            ("apps/web", "apps/web/bin/web.js", "package-bin"),
            ("packages/ui", "packages/ui/package.json", "package-main")
        ]
    );
    // packages/ui is imported twice by the only importer: it ranks above packages/shared.
    let ranked: Vec<&str> = view.modules.iter().map(|m| m.id.as_str()).collect();
    let pos = |id| ranked.iter().position(|m| *m == id).unwrap();
    assert!(
        pos("packages/ui") < pos("packages/shared") && pos("packages/shared") < pos("apps/web"),
        "{ranked:?}"
    );
    assert!(view.external_edges.len() == 5);
    assert!(view.edges.iter().all(|e| !e.to.starts_with("external:")));
}

#[test]
fn python_src_layout() {
    let fx = Fixture::new(&[
        ("pyproject.toml", "[project]\nname = \"acme\"\ndependencies = [\"requests>=2\", \"PyYAML\"]\n\n[project.scripts]\nacme = \"acme.cli:main\"\n"),
        ("src/acme/__init__.py", "\n"),
        ("src/acme/core.py", "\n"),
        ("src/acme/cli.py", "\n"),
        ("src/acme/sub/__init__.py", "\n"),
        ("src/acme/sub/helpers.py", "\n"),
        ("src/acme_plugins/__init__.py", "\n"),
        ("src/acme_plugins/extra.py", "\n"),
        ("tests/test_core.py", "\n"),
        ("scripts/gen.py", "\n"),
        ("scripts/genlib.py", "\n"),
    ]);
    let (t, _) = fx.run_imports(vec![
        imp("src/acme/cli.py", 1, "acme.core"),
        imp("src/acme/cli.py", 2, ".sub.helpers"),
        imp_names("src/acme/sub/helpers.py", 1, "..", &["core"]),
        imp("src/acme/sub/helpers.py", 2, "..core"),
        imp("src/acme/sub/helpers.py", 3, "..missing"),
        imp("src/acme_plugins/extra.py", 1, "acme.sub"),
        imp("src/acme_plugins/extra.py", 2, "yaml"),
        imp("src/acme/core.py", 1, "requests"),
        imp("src/acme/core.py", 2, "os.path"),
        imp("src/acme/core.py", 3, "....x"),
        imp("src/acme/core.py", 4, "numpy"),
        imp("tests/test_core.py", 1, "acme.core"),
        imp("tests/test_core.py", 2, "pytest"),
        imp("scripts/gen.py", 1, "genlib"),
    ]);
    assert_eq!(
        module_list(&t),
        [
            (".", "acme", "python", "manifest"),
            ("src/acme", "acme", "python", "convention"),
            ("src/acme_plugins", "acme_plugins", "python", "convention"),
        ]
    );
    assert_imports(
        &t,
        &[
            ("src/acme/cli.py", 1, "local-file", Some("src/acme/core.py")),
            (
                "src/acme/cli.py",
                2,
                "local-file",
                Some("src/acme/sub/helpers.py"),
            ),
            (
                "src/acme/sub/helpers.py",
                1,
                "local-file",
                Some("src/acme/core.py"),
            ),
            (
                "src/acme/sub/helpers.py",
                2,
                "local-file",
                Some("src/acme/core.py"),
            ),
            ("src/acme/sub/helpers.py", 3, "unknown", None),
            (
                "src/acme_plugins/extra.py",
                1,
                "local-file",
                Some("src/acme/sub/__init__.py"),
            ),
            (
                "src/acme_plugins/extra.py",
                2,
                "external-dependency",
                Some("pyyaml"),
            ),
            (
                "src/acme/core.py",
                1,
                "external-dependency",
                Some("requests"),
            ),
            ("src/acme/core.py", 2, "stdlib", Some("os")),
            ("src/acme/core.py", 3, "unknown", None),
            ("src/acme/core.py", 4, "unknown", None),
            (
                "tests/test_core.py",
                1,
                "local-file",
                Some("src/acme/core.py"),
            ),
            ("tests/test_core.py", 2, "unknown", None),
            ("scripts/gen.py", 1, "local-file", Some("scripts/genlib.py")),
        ],
    );
    assert_eq!(
        edge_list(&t),
        [
            (".", "src/acme", "local", 1, 0),
            ("src/acme", "external:os", "stdlib", 1, 0),
            ("src/acme", "external:requests", "external-dependency", 1, 0),
            (
                "src/acme_plugins",
                "external:pyyaml",
                "external-dependency",
                1,
                0
            ),
            ("src/acme_plugins", "src/acme", "local", 1, 0),
        ]
    );
    assert_traceable(&t);
    let entry = entrypoints(&t);
    assert_eq!(
        entry,
        ["src/acme"],
        "console script acme.cli lives in src/acme"
    );
}

fn go_fixture() -> Fixture {
    Fixture::new(&[
        ("go.mod", "module example.com/shop\n\ngo 1.22\n\nrequire (\n\tgithub.com/google/uuid v1.6.0\n\tgolang.org/x/sync v0.7.0 // indirect\n)\n"),
        ("README.md", "# shop\n"),
        ("cmd/server/main.go", "package main\n"),
        ("internal/api/handler.go", "package api\n"),
        ("internal/store/store.go", "package store\n"),
        ("internal/store/memory.go", "package store\n"),
        ("pkg/money/money.go", "package money\n"),
        ("tools/gen.go", "package tools\n"),
    ])
}

fn go_imports() -> Vec<output_schema::tables::ImportRow> {
    vec![
        imp("cmd/server/main.go", 3, "example.com/shop/internal/api"),
        imp("cmd/server/main.go", 4, "\"net/http\""),
        imp(
            "internal/api/handler.go",
            3,
            "example.com/shop/internal/store",
        ),
        imp("internal/api/handler.go", 4, "example.com/shop/pkg/money"),
        imp("internal/api/handler.go", 5, "github.com/google/uuid"),
        imp("internal/store/store.go", 3, "golang.org/x/sync/errgroup"),
        imp("internal/store/store.go", 4, "github.com/undeclared/x"),
        imp("internal/store/memory.go", 3, "example.com/shop/pkg/money"),
        imp(
            "internal/store/memory.go",
            4,
            "example.com/shop/internal/missing",
        ),
        imp("tools/gen.go", 3, "fmt"),
    ]
}

#[test]
fn go_module() {
    let fx = go_fixture();
    let (t, _) = fx.run(
        TableSet {
            imports: Some(go_imports()),
            symbols: Some(vec![symbol(
                "s:main",
                "main",
                "function",
                "cmd/server/main.go",
                None,
            )]),
            ..TableSet::default()
        },
        &Config::default(),
    );
    assert_eq!(
        module_list(&t),
        [
            (".", "example.com/shop", "go", "manifest"),
            (
                "cmd/server",
                "example.com/shop/cmd/server",
                "go",
                "convention"
            ),
            (
                "internal/api",
                "example.com/shop/internal/api",
                "go",
                "convention"
            ),
            (
                "internal/store",
                "example.com/shop/internal/store",
                "go",
                "convention"
            ),
            (
                "pkg/money",
                "example.com/shop/pkg/money",
                "go",
                "convention"
            ),
            ("tools", "example.com/shop/tools", "go", "directory"),
        ]
    );
    assert_imports(
        &t,
        &[
            (
                "cmd/server/main.go",
                3,
                "local-module",
                Some("internal/api"),
            ),
            ("cmd/server/main.go", 4, "stdlib", Some("net/http")),
            (
                "internal/api/handler.go",
                5,
                "external-dependency",
                Some("github.com/google/uuid"),
            ),
            (
                "internal/store/store.go",
                3,
                "external-dependency",
                Some("golang.org/x/sync"),
            ),
            ("internal/store/store.go", 4, "unknown", None),
            ("internal/store/memory.go", 4, "unknown", None),
        ],
    );
    assert_eq!(
        edge_list(&t),
        [
            ("cmd/server", "external:net/http", "stdlib", 1, 0),
            ("cmd/server", "internal/api", "local", 1, 0),
            (
                "internal/api",
                "external:github.com/google/uuid",
                "external-dependency",
                1,
                0
            ),
            ("internal/api", "internal/store", "local", 1, 0),
            ("internal/api", "pkg/money", "local", 1, 0),
            (
                "internal/store",
                "external:golang.org/x/sync",
                "external-dependency",
                1,
                0
            ),
            ("internal/store", "pkg/money", "local", 1, 0),
            ("tools", "external:fmt", "stdlib", 1, 0),
        ]
    );
    assert_traceable(&t);
    let entry = entrypoints(&t);
    assert_eq!(entry, ["cmd/server"]);
    let sym = &t.symbols.as_ref().unwrap()[0];
    assert_eq!(sym.module_id.as_deref(), Some("cmd/server"));
    let counts: Vec<(&str, i64)> = t
        .modules
        .as_ref()
        .unwrap()
        .iter()
        .map(|m| (m.module_id.as_str(), m.symbol_count))
        .collect();
    assert!(counts.contains(&("cmd/server", 1)) && counts.contains(&(".", 0)));
}

#[test]
fn scip_references_strengthen_and_add_edges_but_never_externals() {
    let fx = go_fixture();
    let symbols = vec![
        symbol(
            "s:store.Get",
            "Get",
            "function",
            "internal/store/store.go",
            None,
        ),
        symbol("s:money.Add", "Add", "function", "pkg/money/money.go", None),
    ];
    let occurrences = vec![
        // api → store: strengthens the import edge.
        reference("s:store.Get", "internal/api/handler.go", 10, "scip"),
        reference("s:store.Get", "internal/api/handler.go", 11, "scip"),
        // tools → money: no import, a reference-only edge.
        reference("s:money.Add", "tools/gen.go", 5, "scip"),
        // By-name tree-sitter references do not count.
        reference("s:money.Add", "cmd/server/main.go", 6, "tree-sitter"),
        // Same-module reference: no edge.
        reference("s:store.Get", "internal/store/memory.go", 7, "scip"),
        // External package already imported by the module: counted on that edge.
        reference(
            "scip-go gomod github.com/google/uuid v1.6.0 `github.com/google/uuid`/New().",
            "internal/api/handler.go",
            12,
            "scip",
        ),
        // External package the module never imports: no edge is made up.
        reference(
            "scip-go gomod github.com/other/lib v1.0.0 `github.com/other/lib`/F().",
            "tools/gen.go",
            8,
            "scip",
        ),
    ];
    let (t, out) = fx.run(
        TableSet {
            imports: Some(go_imports()),
            symbols: Some(symbols),
            occurrences: Some(occurrences),
            ..TableSet::default()
        },
        &Config::default(),
    );
    let e = edge_list(&t);
    for edge in [
        ("internal/api", "internal/store", "local", 1, 2),
        ("tools", "pkg/money", "local", 0, 1),
        (
            "internal/api",
            "external:github.com/google/uuid",
            "external-dependency",
            1,
            1,
        ),
    ] {
        assert!(e.contains(&edge), "{edge:?} in {e:?}");
    }
    assert!(
        !e.iter()
            .any(|x| x.1.contains("other/lib") || (x.0 == "cmd/server" && x.1 == "pkg/money")),
        "{e:?}"
    );
    assert_eq!(out.report.counts["edges.reference-only"], 1);
    assert_eq!(
        out.report.completeness.as_ref().unwrap().reason,
        "imports-resolved+scip-references"
    );
    assert_traceable(&t);
}

#[test]
fn node_subpath_imports_and_root_relative_paths() {
    let fx = Fixture::new(&[
        (
            "app/package.json",
            r##"{"name": "app", "imports": {"#types/*": "./src/types/*.ts", "#config": {"types": "./src/config.d.ts", "default": "./src/config.js"}}}"##,
        ),
        ("app/src/main.ts", "x\n"),
        ("app/src/types/hmr.ts", "x\n"),
        ("app/src/config.js", "x\n"),
        ("app/public/logo.svg", "<svg/>\n"),
        ("shared/x.ts", "x\n"),
    ]);
    let (t, out) = fx.run_imports(vec![
        imp("app/src/main.ts", 1, "#types/hmr"),
        imp("app/src/main.ts", 2, "#config"),
        imp("app/src/main.ts", 3, "#nope"),
        imp("app/src/main.ts", 4, "/public/logo.svg?url"),
        imp("app/src/main.ts", 5, "/shared/x"),
        imp("app/src/main.ts", 6, "/etc/passwd"),
    ]);
    assert_imports(
        &t,
        &[
            (
                "app/src/main.ts",
                1,
                "local-file",
                Some("app/src/types/hmr.ts"),
            ),
            (
                "app/src/main.ts",
                2,
                "local-file",
                Some("app/src/config.js"),
            ),
            ("app/src/main.ts", 3, "unknown", None),
            (
                "app/src/main.ts",
                4,
                "local-file",
                Some("app/public/logo.svg"),
            ),
            ("app/src/main.ts", 5, "local-file", Some("shared/x.ts")),
            ("app/src/main.ts", 6, "unknown", None),
        ],
    );
    assert_eq!(class(&t, "app/src/main.ts", 4).2.as_deref(), Some("suffix"));
    assert_eq!(out.report.counts["imports.escaping-repo"], 1);
    assert_eq!(edge_list(&t), [("app", "shared", "local", 1, 0)]);
    assert_traceable(&t);
}

#[test]
fn maven_multi_module_java_and_dart() {
    let fx = Fixture::new(&[
        ("pom.xml", "<project><groupId>com.acme</groupId><artifactId>parent</artifactId><modules><module>core</module><module>app</module></modules></project>"),
        ("core/pom.xml", "<project><parent><groupId>com.acme</groupId></parent><artifactId>core</artifactId></project>"),
        ("core/src/main/java/com/acme/core/Util.java", "x\n"),
        ("core/src/main/java/com/acme/core/Text.java", "x\n"),
        (
            "app/pom.xml",
            "<project><artifactId>app</artifactId><dependencies>\n<dependency><groupId>org.apache.commons</groupId><artifactId>commons-lang3</artifactId></dependency>\n<dependency><groupId>com.google.guava</groupId><artifactId>guava</artifactId></dependency>\n</dependencies></project>",
        ),
        ("app/src/main/java/com/acme/app/Main.java", "x\n"),
        ("mobile/pubspec.yaml", "name: mobile\ndependencies:\n  http: ^1.0\n"),
        ("mobile/lib/src/a.dart", "x\n"),
        ("mobile/lib/main.dart", "x\n"),
        ("mobile/bin/tool.dart", "x\n"),
    ]);
    let main = "app/src/main/java/com/acme/app/Main.java";
    let (t, _) = fx.run_imports(vec![
        imp(main, 1, "com.acme.core.Util"),
        imp(main, 2, "com.acme.core.*"),
        imp(main, 3, "static com.acme.core.Util.helper"),
        imp(main, 4, "java.util.List"),
        imp(main, 5, "org.apache.commons.lang3.StringUtils"),
        imp(main, 6, "com.google.common.collect.ImmutableList"),
        imp(main, 7, "com.unknown.Thing"),
        imp("mobile/lib/main.dart", 1, "package:mobile/src/a.dart"),
        imp("mobile/lib/main.dart", 2, "dart:async"),
        imp("mobile/lib/main.dart", 3, "package:http/http.dart"),
        imp("mobile/lib/main.dart", 4, "src/a.dart"),
    ]);
    assert_eq!(
        module_list(&t),
        [
            (".", "parent", "maven", "manifest"),
            ("app", "app", "maven", "manifest"),
            ("core", "core", "maven", "manifest"),
            ("mobile", "mobile", "dart", "manifest"),
        ]
    );
    assert_imports(
        &t,
        &[
            (
                main,
                1,
                "local-file",
                Some("core/src/main/java/com/acme/core/Util.java"),
            ),
            (
                main,
                2,
                "local-module",
                Some("core/src/main/java/com/acme/core"),
            ),
            (
                main,
                3,
                "local-file",
                Some("core/src/main/java/com/acme/core/Util.java"),
            ),
            (main, 4, "stdlib", Some("java.util")),
            (
                main,
                5,
                "external-dependency",
                Some("org.apache.commons:commons-lang3"),
            ),
            (
                main,
                6,
                "external-dependency",
                Some("com.google.guava:guava"),
            ),
            (main, 7, "unknown", None),
        ],
    );
    assert_eq!(class(&t, main, 1).2.as_deref(), Some("suffix"));
    assert_eq!(class(&t, main, 6).2.as_deref(), Some("fuzzy"));
    assert_imports(
        &t,
        &[
            // The package's own name: a file of the same package.
            (
                "mobile/lib/main.dart",
                1,
                "local-file",
                Some("mobile/lib/src/a.dart"),
            ),
            ("mobile/lib/main.dart", 2, "stdlib", Some("async")),
            (
                "mobile/lib/main.dart",
                3,
                "external-dependency",
                Some("http"),
            ),
            (
                "mobile/lib/main.dart",
                4,
                "local-file",
                Some("mobile/lib/src/a.dart"),
            ),
        ],
    );
    assert_eq!(
        edge_list(&t),
        [
            ("app", "core", "local", 3, 0),
            (
                "app",
                "external:com.google.guava:guava",
                "external-dependency",
                1,
                0
            ),
            ("app", "external:java.util", "stdlib", 1, 0),
            (
                "app",
                "external:org.apache.commons:commons-lang3",
                "external-dependency",
                1,
                0
            ),
            ("mobile", "external:async", "stdlib", 1, 0),
            ("mobile", "external:http", "external-dependency", 1, 0),
        ]
    );
    assert_traceable(&t);
    let entry = entrypoints(&t);
    assert_eq!(entry, ["mobile"]);
}
