//! Shared helpers for CLI integration tests: fixture repositories built at runtime with
//! `test_support`'s hermetic git (one identity, a day per git call), and a runner for the `ckb`
//! binary.
#![allow(dead_code, unused_imports)] // each test binary uses a part of it

pub mod fixture_snapshot;
pub mod store_check;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use output_schema::manifest::Manifest;

pub use test_support::{duckdb_cli, npm_indexer, tool_missing};

/// A temporary folder holding a fixture repository.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    /// The repository folder: `dir` itself, or a folder below it ([`Fixture::git_in`]).
    root: PathBuf,
    tick: std::cell::Cell<u32>,
}

impl Fixture {
    /// An empty folder (not a repository).
    pub fn plain() -> Fixture {
        let dir = tempfile::Builder::new()
            .prefix("ckb-fixture")
            .tempdir()
            .unwrap();
        Fixture {
            root: dir.path().to_path_buf(),
            dir,
            tick: std::cell::Cell::new(0),
        }
    }

    /// A fresh git repository on branch main at `sub` (folders made) below a temporary folder.
    pub fn git_in(sub: &str) -> Fixture {
        let mut f = Fixture::plain();
        f.root = f.dir.path().join(sub);
        std::fs::create_dir_all(&f.root).unwrap();
        f.run_git(&["init", "-q", "-b", "main"]);
        f
    }

    /// A fresh git repository on branch main.
    pub fn git() -> Fixture {
        let f = Fixture::plain();
        f.run_git(&["init", "-q", "-b", "main"]);
        f
    }

    pub fn path(&self) -> &Path {
        &self.root
    }

    /// A git repository holding `files` (path, text), committed as "one".
    pub fn committed(files: &[(&str, &str)]) -> Fixture {
        let f = Fixture::git();
        for (path, text) in files {
            f.write(path, text);
        }
        f.commit("one");
        f
    }

    /// Writes a file (creating folders).
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> &Self {
        test_support::write_file(self.path(), rel, content);
        self
    }

    /// Runs git as the fixture identity; panics on failure. Each call is one day after the previous
    /// one from [`test_support::DATE`] (the goldens' commits and dates depend on this clock).
    pub fn run_git(&self, args: &[&str]) -> String {
        let t = self.tick.get();
        self.tick.set(t + 1);
        let date = format!("2024-01-{:02}T12:00:00Z", 1 + t.min(27));
        let who = test_support::Signature::fixture().at(&date);
        test_support::git_as(self.path(), &who, args)
            .trim()
            .to_string()
    }

    /// Stages everything and commits.
    pub fn commit(&self, message: &str) -> String {
        self.run_git(&["add", "-A"]);
        self.run_git(&["commit", "-q", "-m", message]);
        self.run_git(&["rev-parse", "HEAD"])
    }
}

/// Runs `ckb` with arguments in a folder (without the caller's `CKB_STORE`, which would move
/// every store the tests expect in the repository).
pub fn ckb(dir: &Path, args: &[&str]) -> Output {
    ckb_env(dir, args, &[])
}

/// `ckb` with arguments in a folder, not yet run: without the caller's `CKB_STORE` and
/// `NO_COLOR`, with the tests' salt (so that every run's tables compare byte for byte).
pub fn ckb_command(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ckb"));
    cmd.args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("CKB_STORE")
        .env("CKB_SALT", "test-salt");
    cmd
}

/// Runs `ckb` with arguments and extra environment variables in a folder.
pub fn ckb_env(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut cmd = ckb_command(dir, args);
    for (name, value) in env {
        cmd.env(name, value);
    }
    cmd.output().unwrap()
}

/// Runs `ckb` and asserts success; returns stdout.
pub fn ckb_ok(dir: &Path, args: &[&str]) -> String {
    let out = ckb(dir, args);
    test_support::assert_success(&out, &format!("ckb {args:?}"));
    String::from_utf8(out.stdout).unwrap()
}

/// `ckb query --snapshot <snapshot> --format json <args…>` in `dir`, whatever it returns.
pub fn query_json(dir: &Path, snapshot: &str, args: &[&str]) -> Output {
    ckb(dir, &query_json_args(snapshot, args))
}

/// [`query_json`], asserting success; returns stdout.
pub fn query_json_ok(dir: &Path, snapshot: &str, args: &[&str]) -> String {
    ckb_ok(dir, &query_json_args(snapshot, args))
}

fn query_json_args<'a>(snapshot: &'a str, args: &[&'a str]) -> Vec<&'a str> {
    let mut all = vec!["query", "--snapshot", snapshot, "--format", "json"];
    all.extend_from_slice(args);
    all
}

/// `ckb query --store <store> --format json status` in `dir` (whose working tree the answer's
/// freshness describes); asserts success and returns the answer.
pub fn store_status(dir: &Path, store: &Path) -> serde_json::Value {
    let args = [
        "query",
        "--store",
        store.to_str().unwrap(),
        "--format",
        "json",
        "status",
    ];
    serde_json::from_str(&ckb_ok(dir, &args)).unwrap()
}

/// The JSON answer of a command that failed with exit code 1 and the error `code`.
pub fn error_answer(out: &Output, code: &str) -> serde_json::Value {
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let v: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(v["error"]["code"], code, "{v}");
    v
}

/// Asserts that the error of a JSON answer says `needle` in its `field` (`message` or
/// `remediation`); a failure shows the whole answer.
#[track_caller]
pub fn assert_error_says(answer: &serde_json::Value, field: &str, needle: &str) {
    let text = answer["error"][field]
        .as_str()
        .unwrap_or_else(|| panic!("no error {field} in {answer}"));
    assert!(text.contains(needle), "{field} lacks {needle:?}: {answer}");
}

/// The arguments `snapshot <repo> --out <store> --progress never <extra…>`.
pub fn snapshot_args<'a>(repo: &'a Path, store: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "snapshot",
        repo.to_str().unwrap(),
        "--out",
        store.to_str().unwrap(),
        "--progress",
        "never",
    ];
    args.extend_from_slice(extra);
    args
}

/// Runs `ckb snapshot <repo> --out <store> --progress never <extra…>` in `repo`, whatever it
/// returns.
pub fn run_snapshot(repo: &Path, store: &Path, extra: &[&str]) -> Output {
    ckb(repo, &snapshot_args(repo, store, extra))
}

/// Snapshots `repo` into `store` ([`run_snapshot`]), asserts success and returns the snapshot
/// folder (the last stdout line).
pub fn snapshot(repo: &Path, store: &Path, extra: &[&str]) -> PathBuf {
    let out = run_snapshot(repo, store, extra);
    test_support::assert_success(&out, &format!("ckb snapshot {extra:?}"));
    let stdout = String::from_utf8(out.stdout).unwrap();
    PathBuf::from(stdout.lines().last().unwrap())
}

/// `ckb snapshot --progress never` in `repo`, into the repository's own store; asserts success.
pub fn snapshot_into_own_store(repo: &Path) {
    ckb_ok(repo, &["snapshot", "--progress", "never"]);
}

/// Asserts that a JSON answer suggests `command` among its drilldowns.
#[track_caller]
pub fn assert_suggests(answer: &serde_json::Value, command: &str) {
    let drilldowns = test_support::json::strs(&answer["drilldowns"], "command");
    assert!(drilldowns.contains(&command), "{drilldowns:?}");
}

/// The check with this `id` in a `ckb query doctor --format json` answer (panics if absent).
pub fn doctor_check<'a>(doctor: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    doctor["facts"]["checks"]
        .as_array()
        .expect("doctor lists checks")
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no doctor check {id}: {doctor}"))
}

/// The check with this `id` in the answer of `ckb query --snapshot <snapshot> --format json
/// doctor` run in `dir` (asserts success; panics if the check is absent).
pub fn snapshot_doctor_check(dir: &Path, snapshot: &Path, id: &str) -> serde_json::Value {
    let snapshot = snapshot.to_str().unwrap();
    let doctor = query_json_ok(dir, snapshot, &["doctor"]);
    let doctor: serde_json::Value =
        serde_json::from_str(&doctor).unwrap_or_else(|e| panic!("{e}: {doctor}"));
    doctor_check(&doctor, id).clone()
}

/// Flips every bit of the byte at `at` (from the start; from the end when `from_end`) of `file`.
pub fn flip_byte(file: &Path, at: usize, from_end: bool) {
    let mut bytes = std::fs::read(file).unwrap();
    let i = if from_end { bytes.len() - 1 - at } else { at };
    bytes[i] ^= 0xff;
    std::fs::write(file, bytes).unwrap();
}

/// `ckb verify <snapshot>` fails with exit code 1 and `SNAPSHOT_CORRUPT` naming `file`.
pub fn assert_verify_names(dir: &Path, snapshot: &Path, file: &str) {
    let out = ckb(dir, &["verify", snapshot.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("SNAPSHOT_CORRUPT") && err.contains(file),
        "{err}"
    );
}

/// Reads a snapshot's manifest.
pub fn manifest(snapshot: &Path) -> Manifest {
    output_schema::verify::read_manifest(snapshot).unwrap()
}

/// Writes `rows` as the snapshot's file of their table, in the order given (which ckb's writer
/// would never keep), and makes the manifest vouch for the new bytes: a forgery only a row check
/// can see.
pub fn forge_table<T: output_schema::Table>(snap: &Path, rows: &[T]) {
    let schema = (T::INFO.schema)();
    let batch = arrow::array::RecordBatch::try_new(schema.clone(), T::to_arrays(rows)).unwrap();
    let mut bytes = Vec::new();
    let props = output_schema::parquet_io::writer_properties(T::INFO);
    let mut writer = parquet::arrow::ArrowWriter::try_new(&mut bytes, schema, Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    std::fs::write(snap.join(T::INFO.file_name()), &bytes).unwrap();
    let mut m = manifest(snap);
    let entry = m
        .tables
        .iter_mut()
        .find(|e| e.name == T::INFO.name)
        .unwrap();
    entry.bytes = bytes.len() as i64;
    entry.rows = rows.len() as i64;
    entry.hash = output_schema::manifest::file_hash(&bytes);
    std::fs::write(snap.join("manifest.json.zst"), m.encode().unwrap()).unwrap();
}

/// Every file of a folder, relative path → bytes, sorted.
pub fn files_of(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// Whether the tests run as root (permission tests cannot fail then).
pub fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// A SCIP index of `tool` with one document per path, each defining one function.
pub fn scip_index(tool: &str, paths: &[&str]) -> Vec<u8> {
    use scip::types::{Document, Index, Metadata, Occurrence, ToolInfo};
    let mut idx = Index::new();
    let mut meta = Metadata::new();
    let mut info = ToolInfo::new();
    info.name = tool.into();
    info.version = "0.0.0-fake".into();
    meta.tool_info = Some(info).into();
    idx.metadata = Some(meta).into();
    for (i, path) in paths.iter().enumerate() {
        let mut doc = Document::new();
        doc.relative_path = (*path).into();
        let mut occ = Occurrence::new();
        occ.symbol = format!("{tool} fake fx 0.1.0 f{i}().");
        occ.range = vec![0, 7, 9];
        occ.symbol_roles = 1;
        doc.occurrences.push(occ);
        idx.documents.push(doc);
    }
    protobuf::Message::write_to_bytes(&idx).unwrap()
}
