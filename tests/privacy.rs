//! Privacy, tried as an attacker would: every artifact of a snapshot (file names, raw bytes, every
//! decompressed `.zst`, every decoded Parquet value) is searched for what must not be there.
//!
//! - An anonymized snapshot of a repository full of canary tokens (`zqx…`: folder and file
//!   names, symbols, module names from Cargo.toml and package.json, imports, string literals,
//!   comments, a branch, a commit message, an author email, ignore patterns, a SCIP index) holds
//!   none of them, and `ckb query` and `ckb diff` still answer on it.
//! - A standard snapshot taken from a deep temporary folder, with `--previous` chains and odd files
//!   that make warnings, holds no absolute path (nor any component of the temporary folder) and no
//!   source text (a comment, string literals, a parameter default).
//!
//! Size: `anonymized_snapshot_holds_no_canary` (~155 lines) searches every artifact kind of one canary snapshot, kept in one piece.

mod common;

use std::path::Path;

use common::*;

/// Every artifact under `dir` as `(what, text)` pairs to search: each file's relative name, its
/// raw bytes (its decompressed content when it is a `.zst`), and every row of every Parquet file
/// decoded by DuckDB.
fn artifact_texts(dir: &Path) -> Vec<(String, String)> {
    let conn = duckdb::Connection::open_in_memory().unwrap();
    let mut out = Vec::new();
    let mut parquet_files = 0;
    for (rel, bytes) in files_of(dir) {
        out.push((format!("{rel} (file name)"), rel.clone()));
        if rel.ends_with(".zst") {
            // Only the content: compressed bytes hold any three-letter canary by chance now and
            // then (the manifest's timings change them every run).
            let text = output_schema::manifest::decompress(&bytes)
                .unwrap_or_else(|e| panic!("{rel}: {e}"));
            out.push((
                format!("{rel} (decompressed)"),
                String::from_utf8_lossy(&text).into_owned(),
            ));
        } else {
            out.push((
                format!("{rel} (bytes)"),
                String::from_utf8_lossy(&bytes).into_owned(),
            ));
        }
        if rel.ends_with(".parquet") {
            parquet_files += 1;
            let path = dir.join(&rel).to_string_lossy().replace('\'', "''");
            let mut stmt = conn
                .prepare(&format!(
                    "select cast(t as varchar) from read_parquet('{path}') t"
                ))
                .unwrap();
            let rows: Vec<String> = stmt
                .query_map([], |r| r.get::<_, String>(0))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            out.push((format!("{rel} (decoded rows)"), rows.join("\n")));
        }
    }
    assert!(parquet_files > 0, "no Parquet file under {}", dir.display());
    out
}

/// Panics naming every artifact in which one of `needles` (case-insensitive) appears, with the
/// text around it.
fn assert_absent(texts: &[(String, String)], needles: &[&str]) {
    let mut found = Vec::new();
    for (what, text) in texts {
        let lower = text.to_lowercase();
        for needle in needles {
            if let Some(at) = lower.find(&needle.to_lowercase()) {
                let from = lower[..at]
                    .char_indices()
                    .rev()
                    .nth(60)
                    .map_or(0, |(i, _)| i);
                let to = (at + needle.len() + 60).min(lower.len());
                let to = (to..=lower.len())
                    .find(|&i| lower.is_char_boundary(i))
                    .unwrap_or(lower.len());
                found.push(format!("{what}: {needle:?} in …{}…", &lower[from..to]));
            }
        }
    }
    assert!(
        found.is_empty(),
        "{} leak(s):\n{}",
        found.len(),
        found.join("\n")
    );
}

/// Indexes the repository's TypeScript with scip-typescript into `index.scip` at its root;
/// whether it did (scip-typescript missing fails the test under `CI=true`).
fn index_typescript(repo: &Path) -> bool {
    let Some(tool) = npm_indexer("scip-typescript") else {
        return false;
    };
    test_support::run_ok(
        std::process::Command::new(tool)
            .args(["index", "--output", "index.scip"])
            .current_dir(repo),
    );
    assert!(repo.join("index.scip").is_file());
    true
}

/// A repository whose every name is a canary (`zqx…`), committed twice on branch `zqxbranch`.
fn canary_repo() -> Fixture {
    let f = Fixture::git_in("zqxouterdir/zqxrepodir");
    f.run_git(&["symbolic-ref", "HEAD", "refs/heads/zqxbranch"]);
    f.write(".gitignore", "index.scip\n*.scip.commit\n")
        .write(
            ".ckb/config.json",
            r#"{"ignore": ["zqxignoredpattern/**"]}"#,
        )
        .write(
            "Cargo.toml",
            "[workspace]\nmembers = [\"zqxcratedir\"]\nresolver = \"2\"\n",
        )
        .write(
            "zqxcratedir/Cargo.toml",
            "[package]\nname = \"zqxcratepkg\"\nversion = \"0.1.0\"\n\n[dependencies]\nzqxexternaldep = \"1\"\n",
        )
        .write(
            "zqxcratedir/src/main.rs",
            "mod zqxmodfile;\nuse zqxexternaldep::zqxthing;\n\n// zqxcommenttext in a comment\nfn main() {\n    zqxmodfile::zqxfunction(\"zqxrustliteral\");\n}\n",
        )
        .write(
            "zqxcratedir/src/zqxmodfile.rs",
            "/// zqxdocstring of the function\npub fn zqxfunction(zqxparam: &str) -> usize {\n    let zqxlocal = zqxparam.len(); // zqxtrailingcomment\n    zqxlocal\n}\n\npub struct ZqxStruct {\n    pub zqxfield: u32,\n}\n\npub const ZQXCONST: &str = \"zqxconstliteral\";\n",
        )
        .write(
            "package.json",
            r#"{"name": "zqxnpmpkg", "version": "1.0.0", "main": "zqxwebdir/src/zqxentry.ts", "bin": {"zqxbin": "zqxwebdir/src/zqxentry.ts"}, "dependencies": {"zqxnpmdep": "1.0.0"}}"#,
        )
        .write(
            "tsconfig.json",
            r#"{"compilerOptions": {"target": "es2020", "module": "commonjs", "strict": false}, "include": ["zqxwebdir/src"]}"#,
        )
        .write(
            "zqxwebdir/src/zqxentry.ts",
            "import { zqxImported } from \"zqxnpmdep\";\nimport { ZQXKEY, zqxGreet } from \"./zqxkeys\";\n\n// zqxtscomment\nexport function zqxMain(): string {\n  return zqxGreet(ZQXKEY) + zqxImported;\n}\n",
        )
        .write(
            "zqxwebdir/src/zqxkeys.ts",
            "/** zqxtsdocstring */\nexport const ZQXKEY = \"zqxtsliteral\";\nexport enum ZqxColor { ZqxRed = \"zqxenumliteral\" }\nexport class ZqxBox { static readonly ZQXSTATIC = \"zqxstaticliteral\"; }\nexport function zqxGreet(zqxName: string = \"zqxdefaultliteral\"): string {\n  return \"zqxreturnliteral\" + zqxName;\n}\n",
        )
        .write(
            "zqxpydir/zqxpymod.py",
            "import zqxpyimport\nfrom zqxpypkg import zqxpyname\n\n\ndef zqxpyfunc(zqxarg=\"zqxpydefault\"):\n    \"\"\"zqxpydocstring\"\"\"\n    return zqxarg  # zqxpycomment\n",
        )
        .write("zqxpydir/zqxbroken.py", "def zqxbroken(:\n    pass\n")
        .write("zqxignoredpattern/zqxhidden.rs", "fn zqxhiddenfn() {}\n")
        .write("zqxbinary.bin", b"zqxbinary\0\0\0".as_slice())
        .write("zqxrenamedold.rs", "pub fn zqxrenamedfn() -> u32 { 1 }\n");
    std::os::unix::fs::symlink("zqxsymlinktarget", f.path().join("zqxsymlink")).unwrap();
    f.run_git(&[
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "zqxcommitmessage one",
        "--author",
        "Zqx Author <zqxauthor@zqxmail.example>",
    ]);
    f.run_git(&["add", "-A"]);
    f.run_git(&[
        "commit",
        "-q",
        "-m",
        "zqxcommitmessage two",
        "--author",
        "Zqx Author <zqxauthor@zqxmail.example>",
    ]);
    f.run_git(&["mv", "zqxrenamedold.rs", "zqxrenamednew.rs"]);
    f.write(
        "zqxcratedir/src/zqxmodfile.rs",
        "pub fn zqxfunction(zqxparam: &str) -> usize {\n    zqxparam.len() + 1\n}\n\npub fn zqxadded() {}\n",
    );
    f.run_git(&["add", "-A"]);
    f.run_git(&[
        "commit",
        "-q",
        "-m",
        "zqxcommitmessage three",
        "--author",
        "Zqx Author <zqxauthor@zqxmail.example>",
    ]);
    f
}

#[test]
fn anonymized_snapshot_holds_no_canary() {
    let f = canary_repo();
    let indexed = index_typescript(f.path());
    let store = tempfile::tempdir().unwrap();
    let head = snapshot(
        f.path(),
        store.path(),
        &["--privacy", "anonymized", "--force", "--json-tables"],
    );
    let m = manifest(&head);
    assert!(
        !m.json_tables.is_empty(),
        "the JSON copies are searched too"
    );
    // Deterministic at any thread count, hashed values included.
    let one_thread = tempfile::tempdir().unwrap();
    let again = snapshot(
        f.path(),
        one_thread.path(),
        &["--privacy", "anonymized", "--json-tables", "--threads", "1"],
    );
    let without_run = |dir: &Path| {
        let mut files = files_of(dir);
        files.retain(|(name, _)| name != "run.json");
        files
    };
    assert!(
        without_run(&head) == without_run(&again),
        "bytes differ by thread count"
    );
    // A standard snapshot of the same state is refused, not answered with the anonymized one
    // (nor the other way round).
    let out = run_snapshot(f.path(), store.path(), &["--repo-id", &m.repo_id]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("INVALID_PARAMETER")
            && stderr.contains("anonymized snapshot of this state"),
        "{stderr}"
    );
    assert_eq!(m.privacy, "anonymized");
    for stage in ["scan", "syntax", "git", "identity", "modules"] {
        assert!(
            m.stages[stage].items > 0 || stage == "identity",
            "{stage} made nothing: {:?}",
            m.stages[stage]
        );
    }
    assert!(
        m.stages["scan"].warnings_total > 0,
        "the fixture makes warnings"
    );
    if indexed {
        assert!(
            m.backends.iter().any(|b| b.kind == "scip"),
            "the SCIP index was read"
        );
    }
    // A second snapshot (an earlier commit) for `ckb diff`.
    let base_repo = tempfile::tempdir().unwrap();
    let base_repo = base_repo.path().join("zqxclonedir");
    let base_arg = base_repo.to_str().unwrap();
    f.run_git(&["clone", "-q", "--branch", "zqxbranch", ".", base_arg]);
    f.run_git(&["-C", base_arg, "checkout", "-q", "HEAD~1"]);
    f.run_git(&["-C", base_arg, "remote", "remove", "origin"]);
    let base = snapshot(
        &base_repo,
        store.path(),
        &[
            "--privacy",
            "anonymized",
            "--force",
            "--repo-id",
            &m.repo_id,
        ],
    );

    // A dirty working tree: its anonymized snapshot is found again by `ckb query`, through the
    // hashed repository ID and the keyed state, and is current.
    f.write("zqxuntracked.rs", "pub fn zqxuntrackedfn() {}\n");
    let dirty = snapshot(f.path(), store.path(), &["--privacy", "anonymized"]);
    let dirty_id = manifest(&dirty).snapshot_id;
    assert!(dirty_id.contains("-dirty-"), "{dirty_id}");
    let status = store_status(f.path(), store.path());
    assert_eq!(
        status["provenance"]["snapshotId"],
        dirty_id.as_str(),
        "{status}"
    );
    assert_eq!(
        status["provenance"]["freshness"]["state"], "current",
        "{status}"
    );

    // No cache of real names beside anonymized snapshots (scan, syntax or SCIP document cache).
    let caches: Vec<String> = files_of(store.path())
        .into_iter()
        .map(|(rel, _)| rel)
        .filter(|rel| rel.contains("cache"))
        .collect();
    assert!(caches.is_empty(), "{caches:?}");
    let texts = artifact_texts(store.path());
    assert_absent(&texts, &["zqx"]);

    // Queries and diff still answer, from hashed values that join across tables.
    let head_dir = head.to_str().unwrap();
    let status = query_json_ok(f.path(), head_dir, &["status"]);
    assert!(!status.to_lowercase().contains("zqx"), "{status}");
    let arch = query_json_ok(f.path(), head_dir, &["arch"]);
    let arch: serde_json::Value = serde_json::from_str(&arch).unwrap();
    assert!(
        arch["facts"]["modules"]
            .as_array()
            .is_some_and(|m| !m.is_empty()),
        "{arch}"
    );
    let symbol = symbol_named(&head, "zqxfunction");
    let understand = query_json_ok(f.path(), head_dir, &["symbol", &symbol]);
    assert!(understand.contains(&symbol), "{understand}");
    let refs = query_json_ok(f.path(), head_dir, &["refs", &symbol]);
    assert!(!refs.to_lowercase().contains("zqx"), "{refs}");
    // The usage table is keyed like the symbols it counts: search finds the hashed name with its
    // references (main calls it).
    let hashed = anonymizer().name("zqxfunction");
    let search = query_json_ok(f.path(), head_dir, &["search", &hashed]);
    let search: serde_json::Value = serde_json::from_str(&search).unwrap();
    let best = &search["facts"]["results"][0];
    assert_eq!(best["id"], symbol.as_str(), "{search}");
    assert!(
        best["references"].as_i64().is_some_and(|n| n >= 1),
        "{search}"
    );
    let diff = ckb_ok(
        f.path(),
        &["diff", base.to_str().unwrap(), head_dir, "--format", "json"],
    );
    let diff: serde_json::Value = serde_json::from_str(&diff).unwrap();
    let facts = diff["facts"].to_string();
    assert!(!facts.to_lowercase().contains("zqx"), "{facts}");
    // zqxadded appeared, zqxrenamedold.rs was renamed: both show through their hashed forms.
    let added = symbol_named(&head, "zqxadded");
    assert!(
        facts.contains(&added),
        "the added symbol is in the diff: {facts}"
    );
    assert!(
        facts.contains(&anonymized_path("zqxrenamednew.rs")),
        "the renamed file is in the diff: {facts}"
    );
}

/// The anonymizer the tests' salt (`CKB_SALT=test-salt`, set by `common::ckb`) gives.
fn anonymizer() -> pipeline::privacy::Anonymizer {
    pipeline::privacy::Anonymizer::new("test-salt")
}

fn anonymized_path(path: &str) -> String {
    anonymizer().path(path)
}

/// The stable ID of the symbol whose real name is `name`, found through its hashed name.
fn symbol_named(snapshot: &Path, name: &str) -> String {
    let hashed = anonymizer().name(name);
    let conn = duckdb::Connection::open_in_memory().unwrap();
    let path = snapshot.join("symbols.parquet");
    conn.query_row(
        &format!(
            "select stable_id from read_parquet('{}') where name = ?",
            path.display()
        ),
        [&hashed],
        |r| r.get::<_, String>(0),
    )
    .unwrap_or_else(|e| panic!("no symbol named {hashed} ({name}): {e}"))
}

#[test]
fn no_absolute_path_or_source_text_in_any_artifact() {
    let f = Fixture::git_in("zqvdeepone/zqvdeeptwo/zqvcanarydir/repo");
    f.write(".gitignore", "index.scip\n*.scip.commit\n")
        .write(
            "src/lib.rs",
            "// zqvcommenttext\npub fn parse(s: &str) -> bool {\n    s == \"zqvrustliteral\"\n}\n",
        )
        .write(
            "py/tool.py",
            "def run(mode=\"zqvpydefault\"):\n    return mode\n",
        )
        .write(
            "tsconfig.json",
            r#"{"compilerOptions": {"target": "es2020"}, "include": ["web"]}"#,
        )
        .write(
            "web/keys.ts",
            "export const KEY = \"zqvtsliteral\";\nexport enum Color { Red = \"zqvenumliteral\" }\n",
        );
    // A symlink pointing outside: a warning, never followed.
    std::os::unix::fs::symlink("/zqvdeepone/nowhere", f.path().join("dangling")).unwrap();
    f.commit("first");
    index_typescript(f.path());
    let snap1 = snapshot(f.path(), &f.path().join(".ckb/snapshots"), &[]);
    // Commits a new `src/lib.rs` and snapshots it with `--previous <previous>`.
    let next = |lib: &str, message: &str, previous: &Path| {
        f.write("src/lib.rs", lib);
        f.commit(message);
        let previous = previous.to_str().unwrap();
        snapshot(
            f.path(),
            &f.path().join(".ckb/snapshots"),
            &["--previous", previous],
        )
    };
    // An explicit previous snapshot, given by absolute path.
    let snap2 = next(
        "// zqvcommenttext\npub fn parse(s: &str) -> bool {\n    s.is_empty()\n}\n",
        "second",
        &snap1,
    );
    assert_eq!(
        manifest(&snap2).previous.map(|p| p.chosen_by),
        Some("explicit".into())
    );
    // A previous folder that is no snapshot, and a damaged one: both are warnings naming them.
    let not_a_snapshot = f.dir.path().join("zqvdeepone/zqvnotasnapshot");
    std::fs::create_dir_all(&not_a_snapshot).unwrap();
    let damaged = f.dir.path().join("zqvdeepone/zqvdamaged");
    std::fs::create_dir_all(&damaged).unwrap();
    std::fs::write(damaged.join("manifest.json.zst"), b"not zstd").unwrap();
    let snap3 = next(
        "pub fn parse(s: &str) -> bool {\n    s.len() > 2\n}\n",
        "third",
        &not_a_snapshot,
    );
    let snap4 = next(
        "pub fn parse(s: &str) -> bool {\n    s.len() > 3\n}\n",
        "fourth",
        &damaged,
    );
    for snap in [&snap3, &snap4] {
        let m = manifest(snap);
        let warnings: Vec<&str> = m
            .stages
            .values()
            .flat_map(|r| r.warnings.iter().map(|w| w.code.as_str()))
            .collect();
        assert!(
            warnings.contains(&"previous-snapshot"),
            "{}: {warnings:?}",
            snap.display()
        );
    }
    assert!(manifest(&snap1).stages["scan"].warnings_total > 0);

    // The whole store: the four snapshots and the scan cache beside them.
    let store = f.path().join(".ckb/snapshots");
    for snap in [&snap1, &snap2, &snap3, &snap4] {
        assert!(snap.starts_with(&store), "{}", snap.display());
    }
    let texts = artifact_texts(&store);
    let temp = f.dir.path().to_string_lossy().into_owned();
    let temp_name = f
        .dir
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let canonical = f.dir.path().canonicalize().unwrap();
    let canonical = canonical.to_string_lossy().into_owned();
    assert_absent(
        &texts,
        &[
            &temp,
            &canonical,
            &temp_name,
            "zqvdeepone",
            "zqvdeeptwo",
            "zqvcanarydir",
            "zqvnotasnapshot",
            "zqvdamaged",
            "zqvcommenttext",
            "zqvrustliteral",
            "zqvpydefault",
            "zqvtsliteral",
            "zqvenumliteral",
        ],
    );
}
