//! `ckb snapshot` end to end: the scan, the store, repository states, determinism, kill-safety and
//! bad input, on fixture repositories built by the tests.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use output_schema::manifest::StageStatus;
use output_schema::parquet_io::read_table;
use output_schema::tables::FileRow;

fn files(snapshot: &Path) -> Vec<FileRow> {
    read_table(&snapshot.join("files.parquet")).unwrap()
}

/// [`mixed_repo`] snapshotted with `extra` arguments into a store of its own: the repository, the
/// store and the snapshot folder.
fn mixed_snapshot(extra: &[&str]) -> (Fixture, tempfile::TempDir, PathBuf) {
    let repo = mixed_repo();
    let store = tempfile::tempdir().unwrap();
    let snap = snapshot(repo.path(), store.path(), extra);
    (repo, store, snap)
}

/// A repository with one of each kind of file the scan must keep or skip.
fn mixed_repo() -> Fixture {
    let f = Fixture::git();
    f.write("src/main.rs", "fn main() {\n    println!(\"hi\");\n}\n")
        .write("src/util.py", "def f():\n    return 1\n")
        .write("pkg/store_test.go", "package pkg\n")
        .write("web/app.spec.ts", "it('x', () => {})\n")
        .write("bin/tool", "#!/usr/bin/env python3\nprint(1)\n")
        .write("gen/api.pb.go", "package gen\n")
        .write("Cargo.lock", "# lock\n")
        .write("README.md", "# readme")
        .write("image.png", [0x89u8, b'P', b'N', b'G', 0, 0, 0, 1])
        .write("big.txt", vec![b'x'; 3000])
        .write("node_modules/left-pad/index.js", "module.exports = 1\n")
        .write("secret/keys.rs", "const K: u8 = 1;\n")
        .write(".ckbignore", "secret/\n")
        .write(".gitignore", "ignored.log\n")
        .write("ignored.log", "noise\n")
        .write("latin1.c", b"int x; /* caf\xe9 */\n");
    // A nested repository is not descended into.
    f.write("vendored/inner/a.rs", "fn a() {}\n");
    let inner = f.path().join("vendored/inner");
    test_support::git_init(&inner);
    test_support::git_commit_all(&inner, "inner");
    // Symlinks are never followed: one loops, one points outside the repository.
    std::os::unix::fs::symlink(".", f.path().join("loop")).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", f.path().join("outside")).unwrap();
    f.commit("initial");
    f
}

#[test]
fn scan_keeps_source_and_counts_every_skip() {
    let (repo, _store, snap) = mixed_snapshot(&["--max-file-size", "2048"]);
    let rows = files(&snap);
    let paths: Vec<&str> = rows.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(
        paths,
        vec![
            ".ckbignore",
            ".gitignore",
            "Cargo.lock",
            "README.md",
            "bin/tool",
            "gen/api.pb.go",
            "latin1.c",
            "pkg/store_test.go",
            "src/main.rs",
            "src/util.py",
            "web/app.spec.ts",
        ]
    );
    let by = |p: &str| rows.iter().find(|r| r.path == p).unwrap();
    assert_eq!(by("src/main.rs").language.as_deref(), Some("rust"));
    assert_eq!(by("src/main.rs").line_count, 3);
    assert_eq!(by("bin/tool").language.as_deref(), Some("python"));
    assert_eq!(
        by("web/app.spec.ts").language.as_deref(),
        Some("typescript")
    );
    assert!(by("pkg/store_test.go").is_test && by("web/app.spec.ts").is_test);
    assert!(!by("src/main.rs").is_test);
    assert!(by("gen/api.pb.go").is_generated && by("Cargo.lock").is_generated);
    assert!(!by("src/util.py").is_generated);
    assert_eq!(by("README.md").line_count, 1);
    assert_eq!(by("src/main.rs").content_hash.len(), 32);

    let m = manifest(&snap);
    let scan = &m.stages["scan"];
    assert_eq!(scan.status, StageStatus::Ok);
    assert_eq!(scan.counts["skipped.binary"], 1);
    assert_eq!(scan.counts["skipped.oversized"], 1);
    assert_eq!(scan.counts["skipped.nested-repository"], 1);
    assert_eq!(scan.counts["skipped.symlink"], 2);
    assert_eq!(scan.counts["files"], 11);
    assert_eq!(scan.breakdown["rust"]["files"], 1);
    // Stages that did not run are said so, and their tables are not written.
    assert_eq!(m.stages.len(), 6);
    for t in &m.tables {
        assert!(snap.join(&t.file).is_file(), "{}", t.file);
    }
    assert!(m.table("files").is_some());
    assert_eq!(
        m.repo_state.head_commit.as_deref(),
        Some(repo.run_git(&["rev-parse", "HEAD"]).as_str())
    );
    assert!(
        !m.repo_state.dirty,
        "the store inside the repo must not make it dirty"
    );
    assert_eq!(
        snap.file_name().unwrap().to_str().unwrap(),
        format!("commit={}", m.repo_state.head_commit.unwrap())
    );
    assert!(snap.join("run.json").is_file());
}

#[test]
fn same_input_gives_identical_bytes_for_any_thread_count() {
    let repo = mixed_repo();
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let sa = snapshot(repo.path(), a.path(), &["--threads", "1"]);
    let sb = snapshot(repo.path(), b.path(), &["--threads", "2"]);
    let strip = |v: Vec<(String, Vec<u8>)>| -> Vec<(String, Vec<u8>)> {
        v.into_iter().filter(|(p, _)| p != "run.json").collect()
    };
    let fa = strip(files_of(&sa));
    assert!(fa.iter().any(|(p, _)| p == "files.parquet"));
    assert_eq!(fa, strip(files_of(&sb)));
    // And again with --force into the same store.
    let sc = snapshot(repo.path(), a.path(), &["--force", "--threads", "2"]);
    assert_eq!(fa, strip(files_of(&sc)));
}

/// `ckb snapshot . --out <store> --json` in `dir`: its stdout.
fn snapshot_json(dir: &Path, store: &Path) -> String {
    ckb_ok(
        dir,
        &["snapshot", ".", "--out", store.to_str().unwrap(), "--json"],
    )
}

#[test]
fn existing_snapshot_is_left_alone_and_reported() {
    let (repo, store, first) = mixed_snapshot(&[]);
    let before = files_of(&first);
    let out = snapshot_json(repo.path(), store.path());
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["status"], "existing");
    assert_eq!(v["snapshot"], first.to_str().unwrap());
    assert_eq!(before, files_of(&first));
}

#[test]
fn dirty_states_get_their_own_snapshot() {
    let repo = mixed_repo();
    let head = repo.run_git(&["rev-parse", "HEAD"]);
    let store = tempfile::tempdir().unwrap();
    snapshot(repo.path(), store.path(), &[]);
    repo.write("src/main.rs", "fn main() {}\n");
    let dirty1 = snapshot(repo.path(), store.path(), &[]);
    let name1 = dirty1.file_name().unwrap().to_str().unwrap().to_string();
    assert!(
        name1.starts_with(&format!("commit={head}-dirty-")),
        "{name1}"
    );
    assert!(manifest(&dirty1).repo_state.dirty);
    // A different edit is a different state; an untracked file too.
    repo.write("src/main.rs", "fn main() { }\n");
    let dirty2 = snapshot(repo.path(), store.path(), &[]);
    assert_ne!(dirty1, dirty2);
    repo.write("new.rs", "fn n() {}\n");
    let dirty3 = snapshot(repo.path(), store.path(), &[]);
    assert_ne!(dirty2, dirty3);
    let m3 = manifest(&dirty3);
    assert!(files(&dirty3).iter().any(|f| f.path == "new.rs"));
    assert_ne!(
        m3.repo_state.untracked_hash,
        manifest(&dirty2).repo_state.untracked_hash
    );
    // Staging changes the staged hash but not the content.
    repo.run_git(&["add", "new.rs"]);
    let staged = snapshot(repo.path(), store.path(), &[]);
    assert_ne!(
        manifest(&staged).repo_state.staged_hash,
        m3.repo_state.staged_hash
    );
}

#[test]
fn plain_folders_unborn_branches_and_detached_heads_work() {
    let plain = Fixture::plain();
    plain.write("a.py", "x = 1\n");
    let store = tempfile::tempdir().unwrap();
    let s = snapshot(plain.path(), store.path(), &[]);
    let name = s.file_name().unwrap().to_str().unwrap().to_string();
    assert!(
        name.starts_with("commit=nogit-") && name.len() == "commit=nogit-".len() + 12,
        "{name}"
    );
    assert!(!manifest(&s).repo_state.is_git);
    // Same content → same state; changed content → another snapshot.
    let out = snapshot_json(plain.path(), store.path());
    assert!(out.contains("\"existing\""), "{out}");
    plain.write("a.py", "x = 2\n");
    assert_ne!(snapshot(plain.path(), store.path(), &[]), s);

    let unborn = Fixture::git();
    unborn.write("a.rs", "fn a() {}\n");
    let s = snapshot(unborn.path(), store.path(), &[]);
    let m = manifest(&s);
    assert!(m.repo_state.unborn && m.repo_state.is_git && m.repo_state.head_commit.is_none());
    assert!(s
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .starts_with("commit=unborn-"));

    let detached = Fixture::git();
    detached.write("a.rs", "fn a() {}\n");
    let c1 = detached.commit("one");
    detached.write("b.rs", "fn b() {}\n");
    detached.commit("two");
    detached.run_git(&["checkout", "-q", &c1]);
    let s = snapshot(detached.path(), store.path(), &[]);
    let m = manifest(&s);
    assert!(m.repo_state.detached);
    assert_eq!(m.repo_state.head_commit.as_deref(), Some(c1.as_str()));
    assert_eq!(files(&s).len(), 1);
}

#[test]
fn stages_subset_marks_the_rest_not_run() {
    let (_repo, _store, s) = mixed_snapshot(&["--stages", "scan"]);
    let m = manifest(&s);
    assert_eq!(m.stages["scan"].status, StageStatus::Ok);
    for stage in ["syntax", "scip", "git", "identity", "modules"] {
        assert_eq!(m.stages[stage].status, StageStatus::NotRun, "{stage}");
        assert!(m.stages[stage]
            .reason
            .as_deref()
            .unwrap()
            .contains("not selected"));
    }
    let names: Vec<&str> = m.tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, vec!["files"]);
    assert!(!s.join("symbols.parquet").exists());
}

#[test]
fn non_utf8_names_are_counted_not_fatal() {
    use std::os::unix::ffi::OsStrExt;
    let repo = Fixture::plain();
    repo.write("ok.rs", "fn a() {}\n");
    let bad = std::ffi::OsStr::from_bytes(b"bad\xff.rs");
    std::fs::write(repo.path().join(bad), "fn b() {}\n").unwrap();
    let store = tempfile::tempdir().unwrap();
    let s = snapshot(repo.path(), store.path(), &[]);
    assert_eq!(files(&s).len(), 1);
    assert_eq!(
        manifest(&s).stages["scan"].counts["skipped.non-utf8-path"],
        1
    );
}

#[test]
fn unreadable_files_are_counted() {
    if is_root() {
        eprintln!("skipped: permission checks do not apply to root");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let repo = Fixture::plain();
    repo.write("ok.rs", "fn a() {}\n")
        .write("locked.rs", "fn b() {}\n");
    let p = repo.path().join("locked.rs");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).unwrap();
    let store = tempfile::tempdir().unwrap();
    let s = snapshot(repo.path(), store.path(), &[]);
    let m = manifest(&s);
    assert_eq!(m.stages["scan"].counts["skipped.permission-denied"], 1);
    assert_eq!(m.stages["scan"].status, StageStatus::Partial);
}

#[test]
fn a_killed_writer_leaves_no_visible_snapshot() {
    let repo = mixed_repo();
    let store = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ckb"))
        .args([
            "snapshot",
            ".",
            "--out",
            store.path().to_str().unwrap(),
            "--progress",
            "never",
        ])
        .current_dir(repo.path())
        .env("CKB_FAILPOINT", "kill@publish-rename")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let repo_dir = std::fs::read_dir(store.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let visible: Vec<String> = std::fs::read_dir(&repo_dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("commit="))
        .collect();
    assert!(visible.is_empty(), "{visible:?}");
    // The next writer succeeds and removes the leftovers.
    let s = snapshot(repo.path(), store.path(), &[]);
    assert!(s.is_dir());
    let leftovers = std::fs::read_dir(&repo_dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
        .count();
    assert_eq!(leftovers, 0);
}

#[test]
fn bad_input_gets_a_coded_error_and_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "snapshot".into(),
                dir.path().join("missing").display().to_string(),
            ],
            "PATH_NOT_FOUND",
        ),
        (
            vec![
                "snapshot".into(),
                "--stages".into(),
                "scan,bogus".into(),
                ".".into(),
            ],
            "INVALID_PARAMETER",
        ),
        (
            vec![
                "snapshot".into(),
                "--threads".into(),
                "0".into(),
                ".".into(),
            ],
            "INVALID_PARAMETER",
        ),
        (
            vec![
                "snapshot".into(),
                "--max-file-size".into(),
                "0".into(),
                ".".into(),
            ],
            "INVALID_PARAMETER",
        ),
    ];
    for (args, code) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = ckb(dir.path(), &args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(code), "{args:?}: {err}");
        assert!(err.contains("fix:"), "{err}");
    }
    // A file is not a folder.
    std::fs::write(dir.path().join("f.txt"), "x").unwrap();
    let out = ckb(dir.path(), &["snapshot", "f.txt"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a directory"));
    // An output folder that cannot be created.
    let out = ckb(dir.path(), &["snapshot", ".", "--out", "f.txt/store"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("OUTPUT_NOT_WRITABLE"));
    // A usage error is exit 2.
    assert_eq!(
        ckb(dir.path(), &["snapshot", "--no-such-flag"])
            .status
            .code(),
        Some(2)
    );
    // JSON errors go to stdout.
    let out = ckb(dir.path(), &["snapshot", "missing", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "PATH_NOT_FOUND");
}

#[test]
fn config_errors_name_the_key_and_settings_apply() {
    let repo = Fixture::plain();
    repo.write("a.rs", "fn a() {}\n")
        .write("skip/b.rs", "fn b() {}\n");
    repo.write(".ckb/config.json", r#"{"maxFileBytez": 10}"#);
    let out = ckb(repo.path(), &["snapshot", "."]);
    test_support::assert_fails_mentioning(&out, &["CONFIG_INVALID", "maxFileBytez"]);

    repo.write(
        ".ckb/config.json",
        r#"{"ignore": ["skip/"], "repoId": "my-repo", "stages": ["scan"]}"#,
    );
    let store = tempfile::tempdir().unwrap();
    let s = snapshot(repo.path(), store.path(), &[]);
    assert!(s.to_str().unwrap().contains("repo=my-repo"));
    let paths: Vec<String> = files(&s).into_iter().map(|f| f.path).collect();
    assert_eq!(paths, vec![".ckb/config.json", "a.rs"]);
}

#[test]
fn init_writes_every_default_once() {
    let repo = Fixture::plain();
    ckb_ok(repo.path(), &["init"]);
    let text = std::fs::read_to_string(repo.path().join(".ckb/config.json")).unwrap();
    for key in [
        "repoId",
        "maxFileBytes",
        "maxHashBytes",
        "cochangeMaxFiles",
        "budgets",
        "history",
        "privacy",
        "stages",
        "store",
    ] {
        if key == "repoId" {
            continue; // null defaults are omitted by the canonical encoder
        }
        assert!(text.contains(key), "{key} missing in {text}");
    }
    let out = ckb(repo.path(), &["init"]);
    assert_eq!(out.status.code(), Some(1));
    ckb_ok(repo.path(), &["init", "--force"]);
}

#[test]
fn verify_names_the_damaged_table() {
    let (repo, _store, s) = mixed_snapshot(&[]);
    let ok = ckb_ok(repo.path(), &["verify", s.to_str().unwrap()]);
    assert!(ok.contains("ok") && ok.contains("files"));
    let p = s.join("files.parquet");
    let mid = std::fs::metadata(&p).unwrap().len() as usize / 2;
    flip_byte(&p, mid, false);
    assert_verify_names(repo.path(), &s, "files.parquet");
    // A damaged manifest is reported too.
    std::fs::write(s.join("manifest.json.zst"), b"garbage").unwrap();
    let out = ckb(repo.path(), &["verify", s.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn verify_decodes_every_view_into_its_declared_struct() {
    use output_schema::manifest::{compress_json, file_hash, Manifest};
    let (repo, _store, s) = mixed_snapshot(&[]);
    let ok = ckb_ok(repo.path(), &["verify", s.to_str().unwrap()]);
    assert!(ok.contains("architecture"), "{ok}");
    // A view whose bytes match the manifest but which is not an architecture view.
    let bytes = compress_json(r#"{"version":1,"totals":{"modules":"many"}}"#).unwrap();
    std::fs::write(s.join("views/architecture.json.zst"), &bytes).unwrap();
    let manifest_file = s.join("manifest.json.zst");
    let mut manifest = Manifest::decode(&std::fs::read(&manifest_file).unwrap()).unwrap();
    let entry = manifest
        .views
        .iter_mut()
        .find(|v| v.name == "architecture")
        .unwrap();
    entry.bytes = bytes.len() as i64;
    entry.hash = file_hash(&bytes);
    std::fs::write(&manifest_file, manifest.encode().unwrap()).unwrap();
    let out = ckb(repo.path(), &["verify", s.to_str().unwrap()]);
    test_support::assert_fails_mentioning(
        &out,
        &[
            "SNAPSHOT_CORRUPT",
            "views/architecture.json.zst",
            "does not decode as the architecture view",
        ],
    );
    let out = ckb(repo.path(), &["verify", "--json", s.to_str().unwrap()]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let files = report["files"].as_array().unwrap();
    let arch = files.iter().find(|f| f["name"] == "architecture").unwrap();
    assert_eq!(arch["ok"], false, "{report}");
    assert!(files
        .iter()
        .filter(|f| f["name"] != "architecture")
        .all(|f| f["ok"] == true));
    // `ckb query arch` refuses it the same way, without a panic.
    let out = ckb(
        repo.path(),
        &["query", "--snapshot", s.to_str().unwrap(), "arch"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("SNAPSHOT_CORRUPT"));
}

#[test]
fn a_second_writer_of_the_same_state_waits_for_the_lock() {
    let repo = mixed_repo();
    let head = repo.run_git(&["rev-parse", "HEAD"]);
    let store = tempfile::tempdir().unwrap();
    let repo_dir = store.path().join(format!(
        "repo={}",
        pipeline::default_repo_id(repo.path(), None)
    ));
    std::fs::create_dir_all(&repo_dir).unwrap();
    // Another writer holds the lock of this exact state.
    let lock = std::fs::File::create(repo_dir.join(format!(".lock-commit={head}"))).unwrap();
    lock.lock().unwrap();
    let repo_id = repo_dir.file_name().unwrap().to_str().unwrap();
    let repo_id = repo_id.trim_start_matches("repo=");
    let out = run_snapshot(
        repo.path(),
        store.path(),
        &["--lock-timeout", "1", "--repo-id", repo_id],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("SNAPSHOT_LOCKED"));
    // Once released, the snapshot is written.
    drop(lock);
    let s = snapshot(repo.path(), store.path(), &["--repo-id", repo_id]);
    assert!(s.join("manifest.json.zst").is_file());
}

/// `git clone <args> file://<src> <dest>` without the machine's git configuration.
fn git_clone(src: &Path, dest: &Path, args: &[&str]) {
    let url = format!("file://{}", src.display());
    let dest = dest.to_str().unwrap();
    let clone_args: Vec<&str> = ["clone", "-q"]
        .into_iter()
        .chain(args.iter().copied())
        .chain([url.as_str(), dest])
        .collect();
    test_support::git(src, &clone_args);
}

#[test]
fn a_blobless_clone_snapshots_every_stage_and_doctor_names_the_fix() {
    let src = Fixture::git();
    src.run_git(&["config", "uploadpack.allowFilter", "true"]);
    for i in 1..=3 {
        src.write(
            "src/lib.rs",
            format!("pub fn f{i}() -> u32 {{\n    {i}\n}}\n"),
        )
        .write("src/main.rs", format!("fn main() {{ let _ = {i}; }}\n"));
        src.commit(&format!("c{i}"));
    }
    let parent = tempfile::tempdir().unwrap();
    let (full, blobless) = (parent.path().join("full"), parent.path().join("blobless"));
    git_clone(src.path(), &full, &[]);
    git_clone(src.path(), &blobless, &["--filter=blob:none"]);
    let (s1, s2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let want = manifest(&snapshot(&full, s1.path(), &[]));
    let got_dir = snapshot(&blobless, s2.path(), &[]);
    let got = manifest(&got_dir);

    // The stages that read the checkout are untouched by the missing history blobs.
    for table in ["files", "symbols", "occurrences", "modules"] {
        assert_eq!(
            got.table(table).map(|t| &t.hash),
            want.table(table).map(|t| &t.hash),
            "{table}"
        );
    }
    for stage in ["scan", "syntax", "modules"] {
        assert_eq!(
            got.stages[stage].status, want.stages[stage].status,
            "{stage}"
        );
    }
    let git = &got.stages["git"];
    assert_eq!(git.status, StageStatus::Partial);
    assert_eq!(git.completeness.as_ref().unwrap().reason, "blobless-clone");
    assert_eq!(
        got.repo_state.clone_state.as_ref().unwrap().kind,
        "blobless"
    );
    assert_eq!(want.repo_state.clone_state.as_ref().unwrap().kind, "full");

    // The summary says why the git stage is partial.
    let text = ckb_ok(
        &blobless,
        &[
            "snapshot",
            "--out",
            s2.path().to_str().unwrap(),
            "--progress",
            "never",
            "--force",
        ],
    );
    assert!(
        text.contains("partial") && text.contains("(blobless-clone)"),
        "{text}"
    );

    // doctor names the fix; the fix works.
    let history = snapshot_doctor_check(&blobless, &got_dir, "history");
    let snapshot_arg = got_dir.to_str().unwrap();
    assert_eq!(history["status"], "warn", "{history}");
    assert!(
        history.to_string().contains("--history-fetch-missing"),
        "{history}"
    );
    let out = query_json_ok(&blobless, snapshot_arg, &["status"]);
    let status: serde_json::Value = serde_json::from_str(&out).unwrap();
    let git = status["facts"]["backends"]
        .as_array()
        .unwrap_or_else(|| panic!("{status}"))
        .iter()
        .find(|b| b["backend"] == "git")
        .unwrap()
        .clone();
    assert_eq!(git["tier"], "degraded", "{git}");
    assert_eq!(git["reason"], "blobless-clone", "{git}");
    assert!(
        git["remediation"]
            .to_string()
            .contains("--history-fetch-missing"),
        "{git}"
    );
    let fixed = manifest(&snapshot(
        &blobless,
        s2.path(),
        &["--force", "--history-fetch-missing", "--stages", "git"],
    ));
    assert_eq!(fixed.stages["git"].status, StageStatus::Ok);
    assert!(fixed.stages["git"].counts["objects.fetched"] > 0);
}

/// An untracked file over `maxHashBytes` counts in the repository state by its size and
/// modification time, unread, with a warning naming it; one of exactly that size is hashed. The
/// state still follows the file: touching it makes a new state, and `ckb query` finds the
/// snapshot of the state as it is.
#[test]
fn a_large_untracked_file_is_not_read_and_says_so() {
    let repo = Fixture::git();
    repo.write("a.rs", "fn a() {}\n")
        .write(".ckb/config.json", r#"{"maxHashBytes": 1000}"#);
    repo.commit("one");
    let store = tempfile::tempdir().unwrap();
    let unhashed = |snap: &Path| -> Vec<String> {
        manifest(snap)
            .stages
            .values()
            .flat_map(|r| r.warnings.iter())
            .filter(|w| w.code == "large-file-unhashed")
            .filter_map(|w| w.path.clone())
            .collect()
    };
    repo.write("data.bin", vec![b'x'; 1000]);
    let at_limit = snapshot(repo.path(), store.path(), &[]);
    assert!(unhashed(&at_limit).is_empty());
    repo.write("data.bin", vec![b'x'; 1001]);
    let over = snapshot(repo.path(), store.path(), &[]);
    assert_ne!(over, at_limit);
    assert_eq!(unhashed(&over), ["data.bin"]);
    let status = |dir: &Path| store_status(dir, store.path());
    let s = status(repo.path());
    assert_eq!(s["provenance"]["freshness"]["state"], "current", "{s}");
    // Same size, same bytes, a new modification time: a new state.
    std::thread::sleep(std::time::Duration::from_millis(20));
    repo.write("data.bin", vec![b'x'; 1001]);
    let s = status(repo.path());
    assert_eq!(s["provenance"]["freshness"]["state"], "dirty", "{s}");
}

#[test]
fn progress_always_prints_one_summary_line_per_stage_that_ran() {
    let repo = Fixture::committed(&[("src/lib.rs", "pub fn a() {}\n")]);
    repo.write("src/lib.rs", "pub fn a() {}\npub fn b() {\n    a()\n}\n");
    repo.commit("two");
    // An index the snapshot finds by itself, so that the SCIP stage runs too: syntax, SCIP and
    // git run side by side, and the display still gets one line per stage, in pipeline order.
    std::fs::write(
        repo.path().join("index.scip"),
        scip_index("rust-analyzer", &["src/lib.rs"]),
    )
    .unwrap();
    let store = tempfile::tempdir().unwrap();
    let args = [
        "--out",
        store.path().to_str().unwrap(),
        "--progress",
        "always",
    ];
    let out = ckb(repo.path(), &[&["snapshot", "."][..], &args].concat());
    test_support::assert_success(&out, "ckb snapshot --progress always");
    // Each stage that ran says how it ended, on a line of its own, also where stderr is not a
    // terminal (`always` is for logs too).
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut lines_at = Vec::new();
    for stage in ["scan", "syntax", "scip", "git", "modules"] {
        let lines: Vec<usize> = stderr
            .lines()
            .enumerate()
            .filter(|(_, l)| l.trim_start().starts_with(&format!("{stage} ")))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(lines.len(), 1, "{stage} summary lines in:\n{stderr}");
        lines_at.push(lines[0]);
    }
    assert!(
        lines_at.windows(2).all(|w| w[0] < w[1]),
        "stage lines out of pipeline order:\n{stderr}"
    );
}
