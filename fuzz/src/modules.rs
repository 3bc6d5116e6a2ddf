//! The `modules` target: a repository's build manifests, its `.ckb/config.json` and the import
//! strings in its code, as the modules stage reads them. Anyone who can open a pull request
//! writes all three, and the stage parses them with readers of its own (a YAML subset, an XML
//! reader, JSONC, `setup.py`, Gradle and `go.mod` scanners) besides the TOML and JSON libraries.
//!
//! An input is a small repository ([`crate::repo`]); every line of a source file in a language
//! that imports (Rust, TypeScript, Python, Go, Java, C, …) is also one import row of that file,
//! as the syntax stage would write it, so the fuzzer chooses the strings the import resolvers
//! classify. The stage runs over the repository's real scan with its config (the default when
//! that does not parse). Whatever the input, the stage returns; and what it returns holds
//! together: every module a file, an import or an edge names is a row of `modules` (an edge may
//! also lead to a package outside the repository), every edge stands on imports, every
//! `local-file` target is a scanned file, and a second run over the same repository gives the
//! same rows.

use std::collections::BTreeSet;
use std::path::Path;

use output_schema::config::Config;
use output_schema::manifest::RepoState;
use output_schema::tables::{FileRow, ImportRow};
use pipeline::write::TableSet;
use pipeline::{NoProgress, StageContext};

use crate::repo::{self, encode_repo};

/// What one run over an input came to, for the corpus test (a seed must reach the readers).
#[derive(Debug, Default, PartialEq)]
pub struct ModulesRun {
    /// Files the scan kept.
    pub files: usize,
    /// Manifests read.
    pub manifests_read: i64,
    /// Manifests that did not parse.
    pub manifests_malformed: i64,
    /// Modules detected from a manifest.
    pub manifest_modules: usize,
    /// Modules the config's roots declare.
    pub config_modules: usize,
    /// Import rows classified as something other than `unknown`.
    pub imports_resolved: usize,
    /// Module edges.
    pub edges: usize,
}

/// Runs the stage over the repository `data` describes; never panics for any input.
pub fn modules(data: &[u8]) {
    let _ = modules_run(data);
}

/// [`modules`], returning what the run came to.
pub fn modules_run(data: &[u8]) -> ModulesRun {
    let Some((root, files)) = repo::materialize(data, "modules-repo") else {
        return ModulesRun::default();
    };
    let config = std::fs::read(root.join(".ckb/config.json"))
        .ok()
        .and_then(|bytes| Config::parse(&bytes, Path::new(".ckb/config.json")).ok())
        .unwrap_or_default();
    let imports = import_rows(&root, &files);
    let first = run_stage(&root, &config, &files, &imports);
    let again = run_stage(&root, &config, &files, &imports);
    assert!(
        first.0 == again.0,
        "two runs of the stage over one repository gave different rows"
    );
    let (tables, read, malformed) = first;
    check_coherent(&tables);
    let modules = tables.modules.as_deref().unwrap_or_default();
    ModulesRun {
        files: files.len(),
        manifests_read: read,
        manifests_malformed: malformed,
        manifest_modules: modules.iter().filter(|m| m.detection == "manifest").count(),
        config_modules: modules.iter().filter(|m| m.detection == "config").count(),
        imports_resolved: tables
            .imports
            .as_deref()
            .unwrap_or_default()
            .iter()
            .filter(|i| i.kind != "unknown")
            .count(),
        edges: tables.module_edges.as_deref().map_or(0, <[_]>::len),
    }
}

/// The rows the stage hands back, compared between two runs.
#[derive(PartialEq)]
struct StageRows {
    files: Option<Vec<FileRow>>,
    imports: Option<Vec<ImportRow>>,
    modules: Option<Vec<output_schema::tables::ModuleRow>>,
    module_edges: Option<Vec<output_schema::tables::ModuleEdgeRow>>,
}

/// One run of the modules stage: its rows and its manifest counts (read, malformed).
fn run_stage(
    root: &Path,
    config: &Config,
    files: &[FileRow],
    imports: &[ImportRow],
) -> (StageRows, i64, i64) {
    let state = RepoState::default();
    let ctx = StageContext {
        root,
        repo_id: "fuzz",
        config,
        repo_state: &state,
        previous: None,
        progress: &NoProgress,
    };
    let tables = TableSet {
        files: Some(files.to_vec()),
        imports: Some(imports.to_vec()),
        ..TableSet::default()
    };
    let out = pipeline::modules::run(&ctx, tables);
    let count = |key: &str| out.report.counts.get(key).copied().unwrap_or(0);
    let (read, malformed) = (count("manifests.read"), count("manifests.malformed"));
    let t = out.tables;
    let rows = StageRows {
        files: t.files,
        imports: t.imports,
        modules: t.modules,
        module_edges: t.module_edges,
    };
    (rows, read, malformed)
}

/// Every module a file, an import or an edge names is a row of `modules`, every edge stands on
/// imports, and every `local-file` target is a file of the scan.
fn check_coherent(t: &StageRows) {
    let modules: BTreeSet<&str> = t
        .modules
        .as_deref()
        .unwrap_or_default()
        .iter()
        .map(|m| m.module_id.as_str())
        .collect();
    let files = t.files.as_deref().unwrap_or_default();
    let paths: BTreeSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    for f in files {
        if let Some(m) = &f.module_id {
            assert!(modules.contains(m.as_str()), "file in no module row: {m}");
        }
    }
    for i in t.imports.as_deref().unwrap_or_default() {
        for m in [&i.from_module, &i.to_module].into_iter().flatten() {
            assert!(modules.contains(m.as_str()), "import names no module: {m}");
        }
        if i.kind == "local-file" {
            let target = i.target.as_deref().unwrap_or_default();
            assert!(
                paths.contains(target),
                "local-file target not scanned: {target}"
            );
        }
    }
    // The stage never invents an edge: each one is between modules (or to a package outside the
    // repository) and stands on import rows, as there are no references here.
    let mut imports_behind = 0;
    for e in t.module_edges.as_deref().unwrap_or_default() {
        let to_a_row = modules.contains(e.to_module.as_str())
            || (e.to_module.starts_with("external:") && e.kind != "local");
        assert!(
            modules.contains(e.from_module.as_str()) && to_a_row,
            "an edge between modules that are not rows: {} -> {} ({})",
            e.from_module,
            e.to_module,
            e.kind
        );
        assert!(e.import_count > 0, "an edge with no import behind it");
        imports_behind += e.import_count;
    }
    let imports = t.imports.as_deref().map_or(0, <[_]>::len);
    assert!(
        imports_behind <= imports as i64,
        "edges count {imports_behind} imports, the stage has {imports}"
    );
}

/// Each line of a scanned source file in a language with imports, as an unclassified import row.
fn import_rows(root: &Path, files: &[FileRow]) -> Vec<ImportRow> {
    const IMPORTING: &[&str] = &[
        "rust",
        "typescript",
        "tsx",
        "javascript",
        "python",
        "go",
        "java",
        "kotlin",
        "scala",
        "c",
        "cpp",
        "dart",
    ];
    let mut rows = Vec::new();
    for f in files {
        let Some(lang) = f.language.as_deref().filter(|l| IMPORTING.contains(l)) else {
            continue;
        };
        let Ok(text) = std::fs::read(root.join(&f.path)) else {
            continue;
        };
        for (n, line) in String::from_utf8_lossy(&text).lines().enumerate() {
            let raw = line.trim();
            if raw.is_empty() {
                continue;
            }
            let line = i32::try_from(n + 1).unwrap_or(i32::MAX);
            rows.push(ImportRow::unclassified(
                f.path.clone(),
                line,
                raw.into(),
                Vec::new(),
                lang.into(),
            ));
        }
    }
    rows
}

/// The seeds: small repositories of every ecosystem the stage reads, with imports of each kind.
pub fn modules_seeds() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("cargo-workspace", encode_repo(CARGO)),
        ("npm-monorepo", encode_repo(NPM)),
        ("go-work", encode_repo(GO)),
        ("python", encode_repo(PYTHON)),
        ("java", encode_repo(JAVA)),
        ("dart", encode_repo(DART)),
        ("config-roots", encode_repo(CONFIG_ROOTS)),
    ]
}

const CARGO: &[(&str, &str)] = &[
    (
        "Cargo.toml",
        "[workspace]\nmembers = [\"crates/*\"]\nexclude = [\"crates/skip\"]\n\n[workspace.dependencies]\nserde = \"1\"\nacme-util = { path = \"crates/util\" }\n",
    ),
    (
        "crates/core/Cargo.toml",
        "[package]\nname = \"acme-core\"\nversion = \"0.1.0\"\n\n[lib]\nname = \"acme_core\"\npath = \"src/lib.rs\"\n\n[dependencies]\nserde = { workspace = true }\nacme-util.workspace = true\n\n[[bin]]\nname = \"core\"\npath = \"src/main.rs\"\n",
    ),
    (
        "crates/util/Cargo.toml",
        "[package]\nname = \"acme-util\"\nversion = \"0.1.0\"\n",
    ),
    ("crates/util/src/lib.rs", "std::fmt\n"),
    (
        "crates/core/src/lib.rs",
        "crate::parser::Parser\nacme_util::helper\nserde::Serialize\nstd::collections::HashMap\nmod parser\nsuper::x\n",
    ),
    ("crates/core/src/parser.rs", "self::lexer\n"),
    ("crates/core/src/main.rs", "acme_core::parser\n"),
];

const NPM: &[(&str, &str)] = &[
    (
        "package.json",
        "{\"name\": \"acme\", \"private\": true, \"workspaces\": {\"packages\": [\"apps/*\", \"packages/*\"]}}",
    ),
    ("pnpm-workspace.yaml", "packages:\n  - 'apps/*'\n  - \"packages/*\" # all\n"),
    (
        "apps/web/package.json",
        "{\"name\": \"@acme/web\", \"main\": \"src/main.tsx\", \"bin\": {\"web\": \"bin/web.js\"}, \"dependencies\": {\"react\": \"^18\", \"@acme/ui\": \"workspace:*\"}, \"imports\": {\"#util/*\": {\"node\": \"./src/util/*.ts\", \"default\": \"./src/util/*.js\"}}}",
    ),
    (
        "apps/web/tsconfig.json",
        "{\n  // comments are allowed\n  \"extends\": \"../../tsconfig.base.json\",\n  \"compilerOptions\": {\"baseUrl\": \".\", \"paths\": {\"@ui/*\": [\"../../packages/ui/src/*\"],},},\n}\n",
    ),
    ("tsconfig.base.json", "{\"compilerOptions\": {\"paths\": {\"@shared\": [\"packages/shared/src/index.ts\"]}}}"),
    (
        "apps/web/src/main.tsx",
        "./app\nreact\n@acme/ui\n@ui/button\n@shared\n#util/fmt\nnode:fs\n../../../../outside\n",
    ),
    ("apps/web/src/app.tsx", "./main\n"),
    ("apps/web/src/util/fmt.ts", "path\n"),
    (
        "packages/ui/package.json",
        "{\"name\": \"@acme/ui\", \"types\": \"src/index.ts\", \"devDependencies\": {\"lodash\": \"4\"}}",
    ),
    ("packages/ui/src/index.ts", "./button.js\nlodash/debounce\n"),
    ("packages/ui/src/button.ts", "react\n"),
    ("packages/shared/src/index.ts", "typescript\n"),
];

const GO: &[(&str, &str)] = &[
    ("go.work", "go 1.22\n\nuse (\n\t./svc\n\t./lib // shared\n)\nuse ./tools\n"),
    (
        "svc/go.mod",
        "module example.com/acme/svc\n\ngo 1.22\n\nrequire (\n\texample.com/acme/lib v0.0.0\n\tgithub.com/pkg/errors v0.9.1 // indirect\n)\n\nreplace example.com/acme/lib => ../lib\nreplace golang.org/x/net v1.0.0 => golang.org/x/net v1.2.0\n",
    ),
    ("svc/main.go", "example.com/acme/lib/strs\nexample.com/acme/svc/internal/db\nfmt\nnet/http\ngithub.com/pkg/errors\n"),
    ("svc/internal/db/db.go", "database/sql\n"),
    ("lib/go.mod", "module example.com/acme/lib\n"),
    ("lib/strs/strs.go", "strings\n"),
];

const PYTHON: &[(&str, &str)] = &[
    (
        "pyproject.toml",
        "[project]\nname = \"Acme.Tools\"\ndependencies = [\"requests>=2\", \"PyYAML[extra] ; python_version>'3'\"]\n\n[project.scripts]\nacme = \"acme.cli:main\"\n\n[tool.setuptools.packages.find]\nwhere = [\"src\"]\n\n[tool.uv.workspace]\nmembers = [\"libs/*\"]\n",
    ),
    ("src/acme/__init__.py", "os\n"),
    ("src/acme/cli.py", "acme.core\n.core\n..outside\nrequests\nyaml\nsys\n"),
    ("src/acme/core.py", "typing\n"),
    (
        "libs/util/setup.cfg",
        "[metadata]\nname = acme-util\n\n[options]\npackage_dir =\n    = src\npackages = find:\ninstall_requires =\n    attrs>=20\n    six\n\n[options.entry_points]\nconsole_scripts =\n    util = acme_util.main:run\n",
    ),
    (
        "libs/util/setup.py",
        "from setuptools import setup\nsetup(name='acme-util', install_requires=['click'], packages=['acme_util'])\n",
    ),
    ("libs/util/src/acme_util/main.py", "click\nattrs\nacme\n"),
    ("requirements-dev.txt", "pytest==8\n-r requirements.txt\n# comment\nblack ; python_version > '3.8'\n"),
];

const JAVA: &[(&str, &str)] = &[
    (
        "pom.xml",
        "<?xml version=\"1.0\"?>\n<project xmlns=\"http://maven.apache.org/POM/4.0.0\">\n  <groupId>com.acme</groupId>\n  <artifactId>parent</artifactId>\n  <modules>\n    <module>core</module>\n    <module>app</module>\n  </modules>\n  <!-- a comment -->\n</project>\n",
    ),
    (
        "core/pom.xml",
        "<project><parent><groupId>com.acme</groupId></parent><artifactId>core</artifactId><dependencies><dependency><groupId>com.google.guava</groupId><artifactId>guava</artifactId></dependency></dependencies><name>&lt;Core&gt; &amp; more</name></project>",
    ),
    ("core/src/main/java/com/acme/core/Core.java", "java.util.List\ncom.google.common.base.Strings\n"),
    (
        "app/build.gradle.kts",
        "plugins { java }\ngroup = \"com.acme\"\ndependencies {\n    implementation(project(\":core\"))\n    implementation(\"org.slf4j:slf4j-api:2.0.0\")\n    testImplementation 'junit:junit:4.13'\n}\n",
    ),
    (
        "settings.gradle",
        "rootProject.name = 'acme'\ninclude ':app', ':core'\nincludeBuild 'tools'\n",
    ),
    ("app/src/main/java/com/acme/app/App.java", "com.acme.core.Core\ncom.acme.core.*\nstatic com.acme.core.Core.run\norg.slf4j.Logger\n"),
    ("native/include/acme.h", "stdio.h\n"),
    ("native/src/acme.c", "acme.h\n../include/acme.h\nstdlib.h\n"),
];

const DART: &[(&str, &str)] = &[
    (
        "pubspec.yaml",
        "name: acme_app\nworkspace:\n  - packages/ui\ndependencies:\n  flutter:\n    sdk: flutter\n  http: ^1.0.0\ndev_dependencies:\n  test: any\n",
    ),
    ("packages/ui/pubspec.yaml", "name: acme_ui\n"),
    ("lib/main.dart", "package:acme_ui/button.dart\npackage:http/http.dart\ndart:async\nsrc/util.dart\n"),
    ("lib/src/util.dart", "../main.dart\n"),
    ("packages/ui/lib/button.dart", "package:flutter/material.dart\n"),
];

const CONFIG_ROOTS: &[(&str, &str)] = &[
    (
        ".ckb/config.json",
        "{\"modules\": {\"roots\": [\"core\", \"tools\", \"../outside\", \"missing\"]}}",
    ),
    ("Cargo.toml", "[package]\nname = \"acme\"\n"),
    ("core/lib.rs", "crate::x\nstd::io\n"),
    ("tools/gen.py", "core.lib\nos\n"),
    ("src/main.rs", "acme::core\n"),
];
