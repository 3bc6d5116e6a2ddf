//! Shared helpers of the SCIP integration tests: git fixture repositories built at runtime, SCIP
//! indexes built with the `scip` crate's types, real indexers found where `ci/install-indexers.sh`
//! puts them, and snapshot table readers.
#![allow(dead_code, unused_imports)] // each test binary uses a part of it

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use output_schema::manifest::{Manifest, RepoState, StageReport};
use output_schema::tables::{CallEdgeRow, FileRow, OccurrenceRow, RelationshipRow, SymbolRow};
use output_schema::Table;
use pipeline::{NoProgress, PreviousChoice, SnapshotOptions, SnapshotOutcome};
use protobuf::Message;
use scip::types::{
    Document, Index, Metadata, Occurrence, PositionEncoding, Relationship, Signature,
    SymbolInformation, ToolInfo,
};

pub use test_support::git;

/// A git repository in a temp dir holding `files`, committed once.
pub fn repo_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (path, text) in files {
        test_support::write_file(dir.path(), path, text);
    }
    std::fs::write(
        dir.path().join(".gitignore"),
        "index.scip\n*.scip.commit\ntarget/\n",
    )
    .expect("write");
    test_support::git_init(dir.path());
    test_support::git_commit_all(dir.path(), "fixture");
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

/// The command of a real indexer, or `None` when it is not installed (which fails under CI).
pub fn indexer(name: &str) -> Option<PathBuf> {
    if name == "rust-analyzer" {
        test_support::rust_analyzer()
    } else {
        test_support::npm_indexer(name)
    }
}

/// The SCIP stage's input for `files` of the repository at `root` (no git repository, no
/// `--scip-commit`).
pub fn stage_input<'a>(
    root: &'a Path,
    files: &'a [FileRow],
    state: &'a RepoState,
    config: pipeline::scip::ScipConfig,
) -> pipeline::scip::ScipInput<'a> {
    pipeline::scip::ScipInput {
        root,
        repo_id: "fx",
        files,
        repo: None,
        repo_state: state,
        indexed_commit: None,
        config,
        cache: None,
    }
}

/// Runs a command in `dir`, panicking with its output on failure.
pub fn run(dir: &Path, program: &Path, args: &[&str]) {
    test_support::run_ok(Command::new(program).args(args).current_dir(dir));
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
    /// The input file of every backend, in manifest order.
    pub fn backend_inputs(&self) -> Vec<String> {
        let backends = self.manifest.backends.iter();
        backends.filter_map(|b| b.input.clone()).collect()
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
            if !o.symbol.is_empty() && !o.symbol.starts_with("local ") && !numbered_meta(&o.symbol)
            {
                *counts.entry(o.symbol.clone()).or_insert(0) += 1;
            }
        }
    }
    counts
}

/// Whether a SCIP symbol is one of scip-typescript's numbered `Meta` pseudo-symbols, which the
/// stage takes as locals: the name after the last `/` or `#` is an identifier ending in digits,
/// then `:` (written independently of the stage's own test, for plain fixture names).
pub fn numbered_meta(symbol: &str) -> bool {
    let Some(body) = symbol.strip_suffix(':') else {
        return false;
    };
    let name = body.rsplit(['/', '#']).next().unwrap_or(body);
    let stem = name.trim_end_matches(|c: char| c.is_ascii_digit());
    symbol.starts_with("scip-typescript ")
        && stem.len() < name.len()
        && stem.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && stem
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
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
/// `src/lib.rs` of the smallest call graph: `f` calls `g`.
pub const LIB_F_CALLS_G: &str = "pub fn f() { g() }\npub fn g() {}\n";

/// rust-analyzer's document of [`LIB_F_CALLS_G`]: `f`'s definition, `calls` references to `g`
/// inside `f`, then `g`'s definition.
pub fn f_calls_g(calls: usize) -> Document {
    let mut d = doc("src/lib.rs");
    d.occurrences.push(def(
        "rust-analyzer cargo fx 1 f().",
        &[0, 7, 8],
        &[0, 0, 18],
    ));
    for _ in 0..calls {
        d.occurrences
            .push(occ("rust-analyzer cargo fx 1 g().", &[0, 13, 14], 0));
    }
    d.occurrences.push(def(
        "rust-analyzer cargo fx 1 g().",
        &[1, 7, 8],
        &[1, 0, 13],
    ));
    d
}

pub fn write_index(path: &Path, idx: &Index) {
    std::fs::write(path, idx.write_to_bytes().expect("encodes")).expect("write index");
}
