//! Shared helpers of the SCIP integration tests: git fixture repositories built at runtime, SCIP
//! indexes built with the `scip` crate's types, real indexers found where `ci/install-indexers.sh`
//! puts them, and snapshot table readers.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use output_schema::manifest::{Manifest, StageReport};
use output_schema::tables::{CallEdgeRow, OccurrenceRow, RelationshipRow, SymbolRow};
use output_schema::Table;
use pipeline::{NoProgress, PreviousChoice, SnapshotOptions, SnapshotOutcome};
use protobuf::Message;
use scip::types::{
    Document, Index, Metadata, Occurrence, PositionEncoding, Relationship, Signature,
    SymbolInformation, ToolInfo,
};

/// Runs git in `dir` with a fixed identity and dates, panicking on failure.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "Fixture")
        .env("GIT_AUTHOR_EMAIL", "fixture@example.com")
        .env("GIT_COMMITTER_NAME", "Fixture")
        .env("GIT_COMMITTER_EMAIL", "fixture@example.com")
        .env("GIT_AUTHOR_DATE", "2024-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2024-01-01T00:00:00Z")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A git repository in a temp dir holding `files`, committed once.
pub fn repo_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
    std::fs::write(
        dir.path().join(".gitignore"),
        "index.scip\n*.scip.commit\ntarget/\n",
    )
    .expect("write");
    git(dir.path(), &["init", "-q", "-b", "main"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "fixture"]);
    dir
}

/// Copies `tests/fixtures/scip/<name>` into a fresh git repository.
pub fn fixture_repo(name: &str) -> tempfile::TempDir {
    let src = Path::new(
        &std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR"),
    )
    .join("../tests/fixtures/scip")
    .join(name);
    let mut files = Vec::new();
    collect(&src, &src, &mut files);
    let owned: Vec<(String, String)> = files;
    let refs: Vec<(&str, &str)> = owned
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    repo_with(&refs)
}

fn collect(base: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("fixture dir")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(base, &p, out);
        } else {
            let rel = p
                .strip_prefix(base)
                .expect("under base")
                .to_string_lossy()
                .into_owned();
            out.push((rel, std::fs::read_to_string(&p).expect("text fixture")));
        }
    }
}

/// Where `ci/install-indexers.sh` installs the npm indexers.
pub fn indexers_dir() -> PathBuf {
    match std::env::var_os("CKB_INDEXERS_DIR") {
        Some(d) => PathBuf::from(d),
        None => {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/ckb-indexers")
        }
    }
}

/// The command of a real indexer, or `None` (with a printed notice) when it is not installed.
pub fn indexer(name: &str) -> Option<PathBuf> {
    let path = if name == "rust-analyzer" {
        let ok = Command::new("rust-analyzer")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        ok.then(|| PathBuf::from("rust-analyzer"))
    } else {
        let p = indexers_dir().join("node_modules/.bin").join(name);
        p.exists().then_some(p)
    };
    if path.is_none() {
        // `.ci/run` installs every indexer: under CI a missing one fails the test, never passes it.
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{name} is missing under CI; install it with `bash ci/install-indexers.sh`"
        );
        eprintln!("SKIPPED (tool missing): {name}; install it with `bash ci/install-indexers.sh`");
    }
    path
}

/// Runs a command in `dir`, panicking with its output on failure.
pub fn run(dir: &Path, program: &Path, args: &[&str]) {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("indexer runs");
    assert!(
        out.status.success(),
        "{} {args:?} failed:\n{}\n{}",
        program.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Snapshot options for `root` with the store in a separate temp dir.
pub fn options(root: &Path, store: &Path) -> SnapshotOptions {
    SnapshotOptions {
        root: root.to_path_buf(),
        out: Some(store.to_path_buf()),
        repo_id: Some("fx".into()),
        previous: PreviousChoice::Disabled,
        force: true,
        // These tests pin SCIP's own behaviour; the merge with tree-sitter has its own tests.
        stages: Some(vec![
            output_schema::Stage::Scan,
            output_schema::Stage::Scip,
            output_schema::Stage::Git,
            output_schema::Stage::Identity,
            output_schema::Stage::Modules,
        ]),
        ..SnapshotOptions::default()
    }
}

/// Takes a snapshot into a fresh temporary store that lives as long as the returned value.
pub fn snapshot_in_temp_store(root: &Path, edit: impl FnOnce(&mut SnapshotOptions)) -> Snap {
    let store = tempfile::tempdir().expect("store");
    let mut opts = options(root, store.path());
    edit(&mut opts);
    let mut snap = snapshot(&opts);
    snap.store = Some(store);
    snap
}

/// Takes a snapshot, panicking on error.
pub fn snapshot(opts: &SnapshotOptions) -> Snap {
    match pipeline::snapshot(opts, &NoProgress).expect("snapshot") {
        SnapshotOutcome::Written { snapshot, .. } | SnapshotOutcome::Existing { snapshot } => {
            Snap {
                dir: snapshot.dir,
                manifest: snapshot.manifest,
                store: None,
            }
        }
    }
}

/// A written snapshot (and, when it owns it, the temporary store holding it).
pub struct Snap {
    pub dir: PathBuf,
    pub manifest: Manifest,
    pub store: Option<tempfile::TempDir>,
}

impl Snap {
    pub fn rows<T: Table>(&self) -> Vec<T> {
        output_schema::parquet_io::read_table(&self.dir.join(T::INFO.file_name())).expect("table")
    }
    pub fn symbols(&self) -> Vec<SymbolRow> {
        self.rows()
    }
    pub fn occurrences(&self) -> Vec<OccurrenceRow> {
        self.rows()
    }
    pub fn call_edges(&self) -> Vec<CallEdgeRow> {
        self.rows()
    }
    pub fn relationships(&self) -> Vec<RelationshipRow> {
        self.rows()
    }
    pub fn scip(&self) -> &StageReport {
        &self.manifest.stages["scip"]
    }
}

/// Occurrences per global symbol (`local N` excluded) in an index file, by a plain whole-file
/// decode with the `scip` crate: the reference the stage's output is compared with.
pub fn direct_counts(index: &Path) -> BTreeMap<String, usize> {
    let bytes = std::fs::read(index).expect("index");
    let idx = Index::parse_from_bytes(&bytes).expect("decodes");
    let mut counts = BTreeMap::new();
    for d in &idx.documents {
        for o in &d.occurrences {
            if !o.symbol.is_empty() && !o.symbol.starts_with("local ") {
                *counts.entry(o.symbol.clone()).or_insert(0) += 1;
            }
        }
    }
    counts
}

/// Occurrences per target in a snapshot, keyed by SCIP symbol (stable IDs mapped back through
/// `symbols.backend_id`).
pub fn snapshot_counts(snap: &Snap) -> BTreeMap<String, usize> {
    let back: BTreeMap<String, String> = snap
        .symbols()
        .into_iter()
        .filter_map(|s| Some((s.stable_id.to_string(), s.backend_id?.to_string())))
        .collect();
    let mut counts = BTreeMap::new();
    for o in snap.occurrences() {
        if o.source != "scip" {
            continue;
        }
        let id = o
            .symbol_id
            .expect("scip occurrences have targets")
            .to_string();
        let key = back.get(&id).cloned().unwrap_or(id);
        *counts.entry(key).or_insert(0) += 1;
    }
    counts
}

// ---- building indexes with the scip crate's types ----

/// An index with metadata.
pub fn index(tool: &str, version: &str, project_root: &str) -> Index {
    let mut idx = Index::new();
    let mut meta = Metadata::new();
    let mut info = ToolInfo::new();
    info.name = tool.into();
    info.version = version.into();
    meta.tool_info = Some(info).into();
    meta.project_root = project_root.into();
    idx.metadata = Some(meta).into();
    idx
}

/// A document (UTF-8 positions unless changed).
pub fn doc(path: &str) -> Document {
    let mut d = Document::new();
    d.relative_path = path.into();
    d.language = "rust".into();
    d.position_encoding = PositionEncoding::UTF8CodeUnitOffsetFromLineStart.into();
    d
}

/// An occurrence.
pub fn occ(symbol: &str, range: &[i32], roles: i32) -> Occurrence {
    let mut o = Occurrence::new();
    o.symbol = symbol.into();
    o.range = range.to_vec();
    o.symbol_roles = roles;
    o
}

/// A definition occurrence with an enclosing range.
pub fn def(symbol: &str, range: &[i32], enclosing: &[i32]) -> Occurrence {
    let mut o = occ(symbol, range, 1);
    o.enclosing_range = enclosing.to_vec();
    o
}

/// Symbol information with an optional kind and signature.
pub fn info(
    symbol: &str,
    kind: Option<scip::types::symbol_information::Kind>,
    signature: Option<&str>,
) -> SymbolInformation {
    let mut s = SymbolInformation::new();
    s.symbol = symbol.into();
    if let Some(k) = kind {
        s.kind = k.into();
    }
    if let Some(sig) = signature {
        let mut d = Signature::new();
        d.text = sig.into();
        d.language = "rust".into();
        s.signature_documentation = Some(d).into();
    }
    s.documentation = vec!["DOCSTRING-MUST-NOT-LEAK".into()];
    s
}

/// A relationship.
pub fn rel(
    symbol: &str,
    implementation: bool,
    type_definition: bool,
    reference: bool,
    definition: bool,
) -> Relationship {
    let mut r = Relationship::new();
    r.symbol = symbol.into();
    r.is_implementation = implementation;
    r.is_type_definition = type_definition;
    r.is_reference = reference;
    r.is_definition = definition;
    r
}

/// Writes an index to `path`.
pub fn write_index(path: &Path, idx: &Index) {
    std::fs::write(path, idx.write_to_bytes().expect("encodes")).expect("write index");
}
