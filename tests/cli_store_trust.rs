//! The store is where the person running ckb put it, and a previous snapshot's rows are reused
//! only when its files match its manifest (issue #22, part 3).
//!
//! A repository's `.ckb/config.json` and its committed files are input a pull request controls:
//! a `store` outside the repository, a committed symlink on the store's path, or a committed fake
//! snapshot must not make ckb write elsewhere or copy rows it did not compute. Each test builds
//! its fixture repository, attacks it through the CLI, and checks what was (not) written.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use output_schema::manifest::Manifest;

const REPO_ID: &str = "fx";

/// A repository with two Python files, committed; `.ckb/snapshots` ignored unless `commit_store`.
fn two_files(commit_store: bool) -> (Fixture, String) {
    let repo = Fixture::git();
    if !commit_store {
        repo.write(".gitignore", ".ckb/snapshots/\n");
    }
    repo.write("a.py", "def a():\n    return 1\n")
        .write("b.py", "def b():\n    return a()\n");
    let sha = repo.commit("two files");
    (repo, sha)
}

/// `ckb snapshot .` into the repository's own store; returns the snapshot folder.
fn snapshot_in_repo(repo: &Fixture, extra: &[&str]) -> PathBuf {
    let mut args = vec!["snapshot", ".", "--repo-id", REPO_ID, "--progress", "never"];
    args.extend_from_slice(extra);
    PathBuf::from(ckb_ok(repo.path(), &args).lines().last().unwrap())
}

/// Every Parquet file and view of a snapshot: what "same bytes as cold" compares.
fn tables_of(snapshot: &Path) -> Vec<(String, Vec<u8>)> {
    files_of(snapshot)
        .into_iter()
        .filter(|(name, _)| name.ends_with(".parquet") || name.starts_with("views"))
        .collect()
}

/// Snapshots again cold (`--force --no-previous`) and asserts its tables and views are the bytes of
/// `snapshot`'s; returns the cold snapshot's folder.
fn assert_same_as_cold(repo: &Fixture, snapshot: &Path, why: &str) -> PathBuf {
    let tables = tables_of(snapshot);
    let cold = snapshot_in_repo(repo, &["--force", "--no-previous"]);
    assert_eq!(tables_of(&cold), tables, "{why}");
    cold
}

/// Changes one byte in the middle of a file (size unchanged): only its hash can tell.
fn flip_a_byte(file: &Path) {
    let mut bytes = std::fs::read(file).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x55;
    std::fs::write(file, bytes).unwrap();
}

fn count(m: &Manifest, stage: &str, key: &str) -> i64 {
    m.stages[stage].counts.get(key).copied().unwrap_or(0)
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn is_empty_dir(dir: &Path) -> bool {
    std::fs::read_dir(dir).unwrap().next().is_none()
}

/// Runs `ckb args…` in `repo`, expects `CONFIG_INVALID` naming the `store` key, exit 1. (Query
/// errors are JSON on stdout when stdout is not a terminal, snapshot errors text on stderr.)
fn expect_store_refused(repo: &Path, args: &[&str]) {
    let out = ckb(repo, args);
    let err = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert!(
        err.contains("CONFIG_INVALID") && err.contains("key store") && err.contains("CKB_STORE"),
        "{args:?}: {err}"
    );
}

#[test]
fn the_honest_previous_snapshot_is_verified_and_its_rows_reused() {
    let (repo, _) = two_files(false);
    let first = snapshot_in_repo(&repo, &[]);
    repo.write("c.py", "def c():\n    return b()\n");
    let head = repo.commit("c");
    let second = snapshot_in_repo(&repo, &[]);
    let m = manifest(&second);
    let previous = m.previous.as_ref().expect("the parent's snapshot is used");
    assert_eq!(previous.chosen_by, "ancestor");
    assert_eq!(previous.snapshot_id, manifest(&first).snapshot_id);
    assert_eq!(
        count(&m, "syntax", "files.reused"),
        2,
        "{:?}",
        m.stages["syntax"]
    );
    assert_eq!(
        count(&m, "git", "commits.reused"),
        1,
        "{:?}",
        m.stages["git"]
    );
    assert_eq!(m.repo_state.head_commit.as_deref(), Some(head.as_str()));
    let cold = assert_same_as_cold(&repo, &second, "reuse gives the cold bytes");
    assert_eq!(cold, second);
}

#[test]
fn a_committed_fake_snapshot_of_the_parent_is_not_reused_and_the_run_is_cold() {
    // The parent commit's snapshot lies in the repository's store with one table altered, and is
    // committed with the next change, as a pull request could.
    let (repo, _) = two_files(true);
    let fake = snapshot_in_repo(&repo, &[]);
    flip_a_byte(&fake.join("symbols.parquet"));
    repo.write("c.py", "def c():\n    return b()\n");
    repo.commit("c, and a snapshot of the parent");
    let tracked = repo.run_git(&["ls-files", ".ckb/snapshots"]);
    assert!(tracked.contains("symbols.parquet"), "{tracked}");

    let second = snapshot_in_repo(&repo, &[]);
    let m = manifest(&second);
    assert_eq!(
        m.previous, None,
        "the fake snapshot is not the previous one"
    );
    let warnings: Vec<_> = m.stages["identity"]
        .warnings
        .iter()
        .filter(|w| w.code == "previous-unverified")
        .collect();
    assert_eq!(warnings.len(), 1, "{:?}", m.stages["identity"]);
    assert!(
        warnings[0].message.contains("symbols.parquet"),
        "{warnings:?}"
    );
    assert_eq!(count(&m, "syntax", "files.reused"), 0);
    assert_eq!(count(&m, "git", "commits.reused"), 0);

    let cold = assert_same_as_cold(&repo, &second, "same bytes as a cold run");
    assert_eq!(cold, second);
}

/// A previous snapshot whose manifest vouches for rows that repeat a table's unique key (a
/// forgery only a row check sees): the run that reused them is refused by the writer and done
/// again without them, saying why, and gives the bytes of a cold run; never `INTERNAL_ERROR`.
/// Two tables whose rows are carried as they are: the history's `file_changes` of an older
/// commit, and identity's `tombstones`. (A `symbols` row twice is not carried as such: the syntax
/// stage tells apart definitions that share an ID.)
#[test]
fn a_previous_snapshot_whose_rows_repeat_a_key_is_not_reused_and_the_run_is_cold() {
    use output_schema::parquet_io::read_table;
    use output_schema::tables::{FileChangeRow, TombstoneRow};
    use output_schema::Table;

    /// Repeats the first row of `T` in `snap`, the manifest vouching for it.
    fn first_row_twice<T: Table + Clone>(snap: &Path) -> &'static str {
        let mut rows: Vec<T> = read_table(&snap.join(T::INFO.file_name())).unwrap();
        assert!(!rows.is_empty(), "{}: a row to repeat", T::INFO.name);
        rows.insert(1, rows[0].clone());
        forge_table(snap, &rows);
        // The files check still vouches for it, so the next run builds on it.
        let report =
            output_schema::verify::verify_snapshot(snap, output_schema::verify::Depth::Files)
                .unwrap();
        assert!(report.ok(), "{report:?}");
        T::INFO.name
    }

    // file_changes: the one commit's changes, carried by the next run's history.
    let (repo, _) = two_files(false);
    let first = snapshot_in_repo(&repo, &[]);
    let table = first_row_twice::<FileChangeRow>(&first);
    assert_next_run_is_cold(&repo, table);

    // tombstones: `b` deleted, its tombstone carried by every later run.
    let (repo, _) = two_files(false);
    snapshot_in_repo(&repo, &[]);
    repo.run_git(&["rm", "-q", "b.py"]);
    repo.commit("b gone");
    let second = snapshot_in_repo(&repo, &[]);
    let table = first_row_twice::<TombstoneRow>(&second);
    assert_next_run_is_cold(&repo, table);
}

/// Commits a change and snapshots it: the run built on the forged snapshot is refused and done
/// again cold, with one `previous-rows-refused` warning naming `table`, the bytes of
/// `--no-previous`, and caches that the next commit builds on again.
fn assert_next_run_is_cold(repo: &Fixture, table: &str) {
    repo.write("c.py", "def c():\n    return 3\n");
    repo.commit("c");
    let second = snapshot_in_repo(repo, &[]);
    let m = manifest(&second);
    assert_eq!(
        m.previous, None,
        "{table}: not built on the forged snapshot"
    );
    let refused: Vec<_> = (m.stages.values())
        .flat_map(|s| &s.warnings)
        .filter(|w| w.code == "previous-rows-refused")
        .collect();
    assert_eq!(refused.len(), 1, "{table}: {:?}", m.stages);
    for needle in [&format!("table {table}"), "repeats the key", "ckb verify"] {
        assert!(refused[0].message.contains(needle), "{needle}: {refused:?}");
    }
    assert!(!refused[0].message.contains("  "), "{refused:?}");
    assert_eq!(count(&m, "syntax", "files.reused"), 0, "{table}");
    assert_eq!(count(&m, "git", "commits.reused"), 0, "{table}");
    let cold = assert_same_as_cold(repo, &second, &format!("{table}: cold bytes"));
    assert_eq!(cold, second);
    // What the cold run left is sound: the next commit builds on it again.
    repo.write("d.py", "def d():\n    return c()\n");
    repo.commit("d");
    let next = manifest(&snapshot_in_repo(repo, &[]));
    assert!(next.previous.is_some(), "{table}");
    assert!(
        (next.stages.values())
            .flat_map(|s| &s.warnings)
            .all(|w| w.code != "previous-rows-refused"),
        "{table}: {:?}",
        next.stages
    );
}

#[test]
fn an_explicit_previous_with_a_tampered_table_is_snapshot_corrupt() {
    let (repo, _) = two_files(false);
    let store = tempfile::tempdir().unwrap();
    let first = snapshot(repo.path(), store.path(), &["--repo-id", REPO_ID]);
    flip_a_byte(&first.join("occurrences.parquet"));
    repo.write("c.py", "def c():\n    return b()\n");
    let head = repo.commit("c");
    let first_arg = first.to_str().unwrap();
    for json in [false, true] {
        let mut args = vec!["--repo-id", REPO_ID, "--previous", first_arg];
        if json {
            args.push("--json");
        }
        let out = run_snapshot(repo.path(), store.path(), &args);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        if json {
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(v["error"]["code"], "SNAPSHOT_CORRUPT");
            assert_error_says(&v, "message", "occurrences.parquet");
            assert_error_says(&v, "remediation", "ckb verify");
        } else {
            let err = stderr(&out);
            assert!(
                err.contains("SNAPSHOT_CORRUPT") && err.contains("occurrences.parquet"),
                "{err}"
            );
        }
    }
    // A table that is a symlink (here to an endless file) is refused without being read.
    #[cfg(unix)]
    {
        let table = first.join("occurrences.parquet");
        std::fs::remove_file(&table).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &table).unwrap();
        let args = ["--repo-id", REPO_ID, "--previous", first_arg];
        let out = run_snapshot(repo.path(), store.path(), &args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.contains("SNAPSHOT_CORRUPT") && err.contains("symlink"),
            "{err}"
        );
    }
    let head_dir = store
        .path()
        .join(format!("repo={REPO_ID}"))
        .join(format!("commit={head}"));
    assert!(!head_dir.exists(), "no snapshot was written");
}

#[test]
fn a_config_store_outside_the_repository_is_config_invalid() {
    let (repo, _) = two_files(false);
    let outside = tempfile::tempdir().unwrap();
    let escapes = [
        outside.path().to_str().unwrap().to_string(),
        format!(
            "../{}",
            outside.path().file_name().unwrap().to_str().unwrap()
        ),
        ".ckb/../../elsewhere".to_string(),
    ];
    for store in escapes {
        repo.write(
            ".ckb/config.json",
            serde_json::json!({ "store": store }).to_string(),
        );
        expect_store_refused(repo.path(), &["snapshot", ".", "--repo-id", REPO_ID]);
        expect_store_refused(repo.path(), &["query", "status"]);
        assert!(is_empty_dir(outside.path()), "{store}: wrote outside");
    }
    let out = ckb(repo.path(), &["snapshot", ".", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "CONFIG_INVALID");
    assert!(!repo.path().parent().unwrap().join("elsewhere").exists());
}

#[cfg(unix)]
#[test]
fn a_symlink_on_the_store_path_is_config_invalid_and_its_target_stays_empty() {
    use std::os::unix::fs::symlink;
    // A committed symlink at .ckb/snapshots itself.
    let (repo, _) = two_files(true);
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(repo.path().join(".ckb")).unwrap();
    symlink(outside.path(), repo.path().join(".ckb/snapshots")).unwrap();
    repo.commit("store as a symlink");
    expect_store_refused(repo.path(), &["snapshot", ".", "--repo-id", REPO_ID]);
    expect_store_refused(repo.path(), &["query", "status"]);
    assert!(is_empty_dir(outside.path()));

    // The store is the caller's choice through CKB_STORE or --out: then the repository's
    // symlink is not used, and stays untouched.
    let elsewhere = tempfile::tempdir().unwrap();
    let out = ckb_env(
        repo.path(),
        &["snapshot", ".", "--repo-id", REPO_ID, "--progress", "never"],
        &[("CKB_STORE", elsewhere.path())],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written = PathBuf::from(String::from_utf8_lossy(&out.stdout).lines().last().unwrap());
    assert!(written.starts_with(elsewhere.path()), "{written:?}");
    assert!(written.join("manifest.json.zst").is_file());
    let out = ckb_env(
        repo.path(),
        &["query", "status", "--format", "json"],
        &[("CKB_STORE", elsewhere.path())],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let by_out = tempfile::tempdir().unwrap();
    snapshot(repo.path(), by_out.path(), &["--repo-id", REPO_ID]);
    assert!(is_empty_dir(outside.path()));

    // A symlinked parent component of a configured store.
    let (repo, _) = two_files(false);
    symlink(outside.path(), repo.path().join("data")).unwrap();
    repo.write(".ckb/config.json", r#"{"store": "data/snapshots"}"#);
    expect_store_refused(repo.path(), &["snapshot", ".", "--repo-id", REPO_ID]);
    expect_store_refused(repo.path(), &["query", "status"]);
    assert!(is_empty_dir(outside.path()));

    // The repository's folder below a real store.
    let (repo, _) = two_files(false);
    std::fs::create_dir_all(repo.path().join(".ckb/snapshots")).unwrap();
    symlink(
        outside.path(),
        repo.path().join(format!(".ckb/snapshots/repo={REPO_ID}")),
    )
    .unwrap();
    expect_store_refused(repo.path(), &["snapshot", ".", "--repo-id", REPO_ID]);
    repo.write(".ckb/config.json", r#"{"repoId": "fx"}"#);
    expect_store_refused(repo.path(), &["query", "status"]);
    assert!(is_empty_dir(outside.path()));
}

#[cfg(unix)]
#[test]
fn symlinks_inside_the_store_are_never_followed() {
    use std::os::unix::fs::symlink;
    let (repo, parent) = two_files(true);
    let repo_dir = repo.path().join(format!(".ckb/snapshots/repo={REPO_ID}"));
    std::fs::create_dir_all(&repo_dir).unwrap();
    // A "snapshot" of the parent whose manifest is endless, and a scan cache that is too: read,
    // either would never finish.
    let endless = repo_dir.join(format!("commit={parent}"));
    std::fs::create_dir_all(&endless).unwrap();
    symlink("/dev/zero", endless.join("manifest.json.zst")).unwrap();
    symlink("/dev/zero", repo_dir.join("scan-cache.json.zst")).unwrap();
    // The lock of the next commit's snapshot, pointing at a file outside.
    repo.write("c.py", "def c():\n    return b()\n");
    let head = repo.commit("c");
    let victim_dir = tempfile::tempdir().unwrap();
    let victim = victim_dir.path().join("victim");
    std::fs::write(&victim, "keep me").unwrap();
    let lock = repo_dir.join(format!(".lock-commit={head}"));
    symlink(&victim, &lock).unwrap();
    let out = ckb(repo.path(), &["snapshot", ".", "--repo-id", REPO_ID]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("OUTPUT_NOT_WRITABLE") && err.contains("symlink"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");

    // Without the lock symlink the run completes: the fake parent is reported unreadable, not
    // read, and the cache symlink is ignored.
    std::fs::remove_file(&lock).unwrap();
    let second = snapshot_in_repo(&repo, &[]);
    let m = manifest(&second);
    assert_eq!(m.previous, None);
    assert!(
        m.stages["identity"]
            .warnings
            .iter()
            .any(|w| w.message.contains("symlink")),
        "{:?}",
        m.stages["identity"]
    );
}

#[test]
fn a_committed_snapshot_is_not_reused_even_when_it_matches_its_manifest() {
    // Hashes tell damage, not forgery: a pull request can commit files and a manifest that
    // agree. A snapshot committed to the repository is never ckb's own, so it is passed over.
    let (repo, _) = two_files(true);
    snapshot_in_repo(&repo, &[]);
    repo.write("c.py", "def c():\n    return b()\n");
    repo.commit("c, and the parent's snapshot as it was written");
    let second = snapshot_in_repo(&repo, &[]);
    let m = manifest(&second);
    assert_eq!(m.previous, None);
    let w = test_support::warning(&m.stages["identity"], "previous-unverified");
    assert!(w.message.contains("committed"), "{}", w.message);
    assert_same_as_cold(&repo, &second, "same bytes as a cold run");
}

/// The syntax cache beside the snapshots may be forged like a snapshot: committed to the
/// repository (the snapshots themselves not), it is not used, and the run says so.
#[test]
fn a_committed_syntax_cache_is_not_used() {
    let (repo, _) = two_files(false);
    snapshot_in_repo(&repo, &[]);
    let cache = format!(".ckb/snapshots/repo={REPO_ID}/syntax-cache");
    assert!(repo.path().join(&cache).join("index.bin").is_file());
    repo.write("c.py", "def c():\n    return b()\n");
    repo.run_git(&["add", "-f", &cache]);
    repo.commit("c, and the syntax cache");
    let second = snapshot_in_repo(&repo, &[]);
    let m = manifest(&second);
    assert!(m.previous.is_some(), "the snapshot itself is not committed");
    let syntax = &m.stages["syntax"];
    assert!(
        syntax.warnings.iter().any(|w| w.code == "cache-committed"),
        "{syntax:?}"
    );
    assert_eq!(syntax.counts.get("files.from-cache"), None, "{syntax:?}");
    assert!(
        syntax.counts["files.reused"] > 0,
        "the previous snapshot still is"
    );
    assert_same_as_cold(&repo, &second, "same bytes as a cold run");
}

/// A manifest that decompresses far past any real one (a zstd bomb from an artifact store) is
/// refused by every reader having produced at most the limit, with the variable that raises it.
#[test]
fn a_zstd_bomb_manifest_is_refused_by_every_reader() {
    let (repo, _) = two_files(false);
    let snap = snapshot_in_repo(&repo, &[]);
    let bomb = output_schema::manifest::compress_json(&" ".repeat(4 << 20)).unwrap();
    assert!(bomb.len() < 4 << 10);
    std::fs::write(snap.join("manifest.json.zst"), &bomb).unwrap();
    let limit = Path::new("1048576");
    let env = [("CKB_MAX_JSON_BYTES", limit)];
    let snap_arg = snap.to_str().unwrap();
    for args in [
        &["verify", snap_arg][..],
        &[
            "query",
            "--snapshot",
            snap_arg,
            "--format",
            "json",
            "status",
        ][..],
    ] {
        let out = ckb_env(repo.path(), args, &env);
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
        assert_eq!(out.status.code(), Some(1), "{args:?}: {text}");
        assert!(text.contains("CKB_MAX_JSON_BYTES"), "{args:?}: {text}");
    }
    // As a `--previous`, an unreadable manifest is passed over, as any damaged one: a cold run.
    let out = ckb_env(
        repo.path(),
        &[
            "snapshot",
            ".",
            "--force",
            "--previous",
            snap_arg,
            "--progress",
            "never",
        ],
        &env,
    );
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("previous-unusable"), "{text}");
}
