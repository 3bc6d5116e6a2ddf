//! A builder for hand-written snapshots: rows written with `output_schema::parquet_io`, a manifest
//! encoded the way the pipeline encodes it, in the store layout (`repo=<id>/commit=<sha>/`).
//!
//! Golden answers built on these snapshots depend only on the rows a test writes, not on what the
//! extraction stages happen to produce, so they stay stable while the stages evolve. Every table is
//! written (empty unless filled) unless a test leaves it out with [`SnapshotBuilder::without`].
//!
//! Size: `sample_store` (~150 lines) is the store of three snapshots the SQL and diff goldens read, spelled out row by row.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use output_schema::manifest::{FileEntry, Manifest, RepoState, StageReport, StageStatus};
use output_schema::parquet_io::write_table;
use output_schema::tables::*;
use output_schema::{Roles, SharedStr, Table};

/// The ckb version recorded in fixture manifests (fixed, so goldens survive version bumps).
pub const FIXTURE_CKB_VERSION: &str = "0.0.0-fixture";

/// Every table of a fixture snapshot.
#[derive(Clone, Default)]
pub struct SnapshotBuilder {
    pub repo_id: String,
    pub commit: String,
    pub schema_version: u32,
    pub privacy: String,
    pub omitted: Vec<&'static str>,
    pub files: Vec<FileRow>,
    pub symbols: Vec<SymbolRow>,
    pub occurrences: Vec<OccurrenceRow>,
    pub call_edges: Vec<CallEdgeRow>,
    pub relationships: Vec<RelationshipRow>,
    pub imports: Vec<ImportRow>,
    pub modules: Vec<ModuleRow>,
    pub module_edges: Vec<ModuleEdgeRow>,
    pub aliases: Vec<AliasRow>,
    pub tombstones: Vec<TombstoneRow>,
    pub commits: Vec<CommitRow>,
    pub file_changes: Vec<FileChangeRow>,
    pub churn: Vec<ChurnRow>,
    pub cochange: Vec<CochangeRow>,
    pub ownership: Vec<OwnershipRow>,
    pub usage: Vec<UsageRow>,
}

impl SnapshotBuilder {
    /// An empty snapshot of `repo_id` at `commit`.
    pub fn new(repo_id: &str, commit: &str) -> SnapshotBuilder {
        SnapshotBuilder {
            repo_id: repo_id.into(),
            commit: commit.into(),
            schema_version: output_schema::SCHEMA_VERSION,
            privacy: "standard".into(),
            ..SnapshotBuilder::default()
        }
    }

    /// Leaves a table out (as if its stage had not run).
    pub fn without(mut self, table: &'static str) -> SnapshotBuilder {
        self.omitted.push(table);
        self
    }

    fn put<T: Table>(&self, dir: &Path, rows: &[T], entries: &mut Vec<FileEntry>) {
        if self.omitted.contains(&T::INFO.name) {
            return;
        }
        let mut rows = rows.to_vec();
        entries.push(write_table(dir, &mut rows).unwrap());
    }

    /// Writes the snapshot into `store` and returns its folder.
    pub fn write(&self, store: &Path) -> PathBuf {
        let dir = store
            .join(format!("repo={}", self.repo_id))
            .join(format!("commit={}", self.commit));
        std::fs::create_dir_all(&dir).unwrap();
        let mut tables = Vec::new();
        self.put(&dir, &self.files, &mut tables);
        self.put(&dir, &self.symbols, &mut tables);
        self.put(&dir, &self.occurrences, &mut tables);
        self.put(&dir, &self.call_edges, &mut tables);
        self.put(&dir, &self.relationships, &mut tables);
        self.put(&dir, &self.imports, &mut tables);
        self.put(&dir, &self.modules, &mut tables);
        self.put(&dir, &self.module_edges, &mut tables);
        self.put(&dir, &self.aliases, &mut tables);
        self.put(&dir, &self.tombstones, &mut tables);
        self.put(&dir, &self.commits, &mut tables);
        self.put(&dir, &self.file_changes, &mut tables);
        self.put(&dir, &self.churn, &mut tables);
        self.put(&dir, &self.cochange, &mut tables);
        self.put(&dir, &self.ownership, &mut tables);
        self.put(&dir, &self.usage, &mut tables);
        let stages: BTreeMap<String, StageReport> = output_schema::Stage::ALL
            .iter()
            .map(|s| {
                (
                    s.name().to_string(),
                    StageReport::with_status(StageStatus::Ok, None),
                )
            })
            .collect();
        let repo_state = RepoState {
            is_git: true,
            head_commit: Some(self.commit.clone()),
            head_ref: Some("refs/heads/main".into()),
            repo_state_id: format!("state-{}", self.commit),
            ..RepoState::default()
        };
        let manifest = Manifest {
            schema_version: self.schema_version,
            ckb_version: FIXTURE_CKB_VERSION.into(),
            privacy: self.privacy.clone(),
            stages,
            tables,
            ..Manifest::new(&self.repo_id, &self.commit, repo_state)
        };
        std::fs::write(dir.join("manifest.json.zst"), manifest.encode().unwrap()).unwrap();
        dir
    }
}

/// The stable ID of a fixture symbol.
pub fn sid(repo: &str, key: &str) -> String {
    format!("ckb:{repo}:sym:{key}")
}

/// A file row.
pub fn file(path: &str, hash: &str, module: Option<&str>) -> FileRow {
    FileRow {
        path: path.into(),
        language: Some(
            if path.ends_with(".rs") {
                "rust"
            } else {
                "markdown"
            }
            .into(),
        ),
        size_bytes: 100,
        line_count: 10,
        content_hash: hash.into(),
        module_id: module.map(String::from),
        is_test: path.contains("/tests/") || path.starts_with("tests/"),
        is_generated: false,
    }
}

/// A public function `name()` with no parameters; adjust it with [`SymbolExt`].
pub fn func(repo: &str, key: &str, name: &str, path: &str, line: i32) -> SymbolRow {
    let signature = format!("pub fn {name}()");
    SymbolRow {
        definition_version_id: format!("dv:{signature}"),
        signature: Some(signature),
        arity: Some(0),
        start_line: line,
        end_line: line + 3,
        source: "scip".into(),
        body_hash: Some(format!("body:{key}")),
        ..test_support::rows::symbol(&sid(repo, key), path, name)
    }
}

/// Adjusts fixture symbols.
pub trait SymbolExt {
    /// Sets the declaration (and the definition version derived from it) and the arity.
    fn sig(self, signature: &str, arity: i32) -> Self;
    /// Sets the visibility.
    fn vis(self, visibility: &str) -> Self;
    /// Sets the body hash.
    fn body(self, hash: &str) -> Self;
    /// Sets the module.
    fn module(self, module: &str) -> Self;
    /// Sets the kind.
    fn kind(self, kind: &str) -> Self;
}

impl SymbolExt for SymbolRow {
    fn sig(mut self, signature: &str, arity: i32) -> Self {
        self.signature = Some(signature.into());
        self.definition_version_id = format!("dv:{signature}");
        self.arity = Some(arity);
        self
    }
    fn vis(mut self, visibility: &str) -> Self {
        self.visibility = visibility.into();
        self
    }
    fn body(mut self, hash: &str) -> Self {
        self.body_hash = Some(hash.into());
        self
    }
    fn module(mut self, module: &str) -> Self {
        self.module_id = Some(module.into());
        self
    }
    fn kind(mut self, kind: &str) -> Self {
        self.kind = kind.into();
        self
    }
}

/// A call edge.
pub fn call(caller: &str, callee: &str, name: &str, count: i64) -> CallEdgeRow {
    CallEdgeRow {
        caller_id: caller.into(),
        callee_id: Some(callee.into()),
        callee_name: name.into(),
        count,
        source: "scip".into(),
        confidence: 1.0,
    }
}

/// A reference site of `symbol` inside `enclosing`.
pub fn reference(
    symbol: &str,
    name: &str,
    path: &str,
    line: i32,
    enclosing: Option<&str>,
) -> OccurrenceRow {
    OccurrenceRow {
        symbol_id: Some(symbol.into()),
        name: name.into(),
        path: path.into(),
        line,
        col: 5,
        end_line: line,
        end_col: 5 + name.len() as i32,
        roles: Roles::REFERENCE | Roles::CALL,
        enclosing_symbol_id: enclosing.map(SharedStr::from),
        source: "scip".into(),
    }
}

/// An alias row.
pub fn alias(old: &str, new: &str, reason: &str, confidence: f64, commit: &str) -> AliasRow {
    AliasRow {
        old_id: old.into(),
        new_id: new.into(),
        reason: reason.into(),
        confidence,
        created_state_id: format!("state-{commit}"),
        created_commit: commit.into(),
    }
}

/// A tombstone row.
pub fn tombstone(id: &str, name: &str, path: &str, commit: &str) -> TombstoneRow {
    TombstoneRow {
        stable_id: id.into(),
        name: name.into(),
        kind: "function".into(),
        container: None,
        last_path: path.into(),
        deleted_in_state_id: format!("state-{commit}"),
        deleted_in_commit: commit.into(),
    }
}

/// A commit row.
pub fn commit(sha: &str, parents: &[&str], time: i64) -> CommitRow {
    CommitRow {
        sha: sha.into(),
        parents: parents.iter().map(|p| p.to_string()).collect(),
        author_time: time,
        committer_time: time,
        author_id: "author-1".into(),
        is_bot: false,
        files_changed: 1,
        additions: 1,
        deletions: 0,
    }
}

/// A co-change row (paths are ordered for the caller).
pub fn cochange(a: &str, b: &str, shared: i64, commits_a: i64, commits_b: i64) -> CochangeRow {
    let (a, b) = if a < b { (a, b) } else { (b, a) };
    CochangeRow {
        path_a: a.into(),
        path_b: b.into(),
        shared_commits: shared,
        commits_a,
        commits_b,
        degree: shared as f64 / commits_a.min(commits_b) as f64,
    }
}

/// A churn row.
pub fn churn(path: &str, window: &str, commits: i64, additions: i64, deletions: i64) -> ChurnRow {
    ChurnRow {
        path: path.into(),
        window: window.into(),
        commits,
        additions,
        deletions,
        authors: 1,
        last_changed: 1_700_000_000,
    }
}

const T0: i64 = 1_700_000_000;
const DAY: i64 = 86_400;

fn sha(c: char) -> String {
    std::iter::repeat_n(c, 40).collect()
}

fn module(id: &str, files: i64) -> ModuleRow {
    ModuleRow {
        module_id: id.into(),
        name: id.into(),
        root: format!("src/{id}"),
        manifest: "none".into(),
        detection: "directory".into(),
        language: Some("rust".into()),
        file_count: files,
        symbol_count: 1,
        line_count: 10,
        is_entrypoint: false,
    }
}

fn edge(from: &str, to: &str, kind: &str) -> ModuleEdgeRow {
    ModuleEdgeRow {
        from_module: from.into(),
        to_module: to.into(),
        kind: kind.into(),
        import_count: 1,
        reference_count: 0,
        strength: 0.5,
    }
}

fn lines(mut f: output_schema::tables::FileRow, n: i64) -> output_schema::tables::FileRow {
    f.line_count = n;
    f
}

/// A store of several snapshots with every table: three of `acme` (a day apart: a rename, a
/// deletion, a signature change, an addition between the last two) and one of `beta`. The SQL
/// goldens (`tests/golden/sql/`) and the SQL walkthrough run over it.
pub fn sample_store() -> tempfile::TempDir {
    let store = tempfile::tempdir().unwrap();
    let (a1, a2, a3, b1) = (sha('a'), sha('c'), sha('e'), sha('b'));
    let id = |k: &str| sid("acme", k);
    let core = "src/core.rs";
    let util = "src/util.rs";
    let extra = "src/extra.rs";
    let test = "tests/core_test.rs";
    let generated = "gen/schema.rs";

    let mut s1 = SnapshotBuilder::new("acme", &a1);
    s1.commits = vec![commit(&a1, &[], T0)];
    s1.files = vec![
        lines(file(core, "core-1", Some("core")), 100),
        lines(file(util, "util-1", Some("util")), 40),
        lines(file(test, "test-1", Some("tests")), 30),
        {
            let mut g = lines(file(generated, "gen-1", None), 500);
            g.is_generated = true;
            g
        },
    ];
    s1.symbols = vec![func("acme", "parse", "parse", core, 1).sig("pub fn parse(s: &str)", 1)];
    s1.churn = vec![churn(core, "30d", 2, 20, 5), churn(core, "90d", 2, 20, 5)];
    s1.write(store.path());

    let mut s2 = SnapshotBuilder::new("acme", &a2);
    s2.commits = vec![commit(&a1, &[], T0), commit(&a2, &[&a1], T0 + DAY)];
    s2.files = vec![
        lines(file(core, "core-2", Some("core")), 120),
        lines(file(util, "util-1", Some("util")), 40),
        lines(file(extra, "extra-1", Some("core")), 20),
        lines(file(test, "test-1", Some("tests")), 30),
    ];
    s2.symbols = vec![
        func("acme", "parse", "parse", core, 1).sig("pub fn parse(s: &str)", 1),
        func("acme", "tokenize", "tokenize", core, 10),
        func("acme", "legacy", "legacy", util, 1),
        func("acme", "helper", "helper", util, 10).vis("private"),
        func("acme", "extra", "extra", extra, 1),
        func("acme", "test_parse", "test_parse", test, 1).vis("private"),
    ];
    s2.call_edges = vec![
        call(&id("parse"), &id("tokenize"), "tokenize", 1),
        call(&id("parse"), &id("helper"), "helper", 1),
        call(&id("extra"), &id("legacy"), "legacy", 2),
        call(&id("test_parse"), &id("parse"), "parse", 1),
    ];
    s2.churn = vec![
        churn(core, "30d", 3, 30, 10),
        churn(extra, "30d", 1, 20, 0),
        churn(core, "90d", 4, 50, 15),
    ];
    s2.write(store.path());

    let mut s3 = SnapshotBuilder::new("acme", &a3);
    s3.commits = vec![
        commit(&a1, &[], T0),
        commit(&a2, &[&a1], T0 + DAY),
        commit(&a3, &[&a2], T0 + 2 * DAY),
    ];
    s3.files = vec![
        lines(file(core, "core-3", Some("core")), 150),
        lines(file(util, "util-2", Some("util")), 40),
        lines(file(extra, "extra-2", Some("core")), 25),
        lines(file(test, "test-1", Some("tests")), 30),
        {
            let mut g = lines(file(generated, "gen-2", None), 500);
            g.is_generated = true;
            g
        },
    ];
    s3.symbols = vec![
        func("acme", "parse", "parse", core, 1).sig("pub fn parse(s: &str, strict: bool)", 2),
        func("acme", "lex", "lex", core, 10),
        func("acme", "fresh", "fresh", core, 20),
        func("acme", "internal_unused", "internal_unused", core, 30).vis("internal"),
        func("acme", "helper", "helper", util, 10).vis("private"),
        func("acme", "orphan", "orphan", util, 20).vis("private"),
        // A unit test in a `mod tests` container and one marked as test code: not dead.
        SymbolRow {
            container: Some("tests".into()),
            ..func("acme", "it_works", "it_works", util, 40).vis("private")
        },
        func("acme", "marked_test", "marked_test", util, 50).vis("private"),
        // From tree-sitter: an unreferenced constant proves nothing (no references to constants
        // are recorded), an uncalled private function is a medium-confidence candidate.
        SymbolRow {
            source: "tree-sitter".into(),
            ..func("acme", "LIMIT", "LIMIT", util, 60)
                .vis("private")
                .kind("constant")
        },
        SymbolRow {
            source: "tree-sitter".into(),
            ..func("acme", "stale", "stale", util, 70).vis("private")
        },
        func("acme", "extra", "extra", extra, 1),
        func("acme", "test_parse", "test_parse", test, 1).vis("private"),
    ];
    s3.call_edges = vec![
        call(&id("parse"), &id("lex"), "lex", 1),
        call(&id("test_parse"), &id("parse"), "parse", 1),
    ];
    s3.occurrences = vec![
        reference(&id("helper"), "helper", core, 3, Some(&id("parse"))),
        reference(&id("lex"), "lex", core, 4, Some(&id("parse"))),
        // A recursive call is not a use.
        reference(&id("orphan"), "orphan", util, 22, Some(&id("orphan"))),
        OccurrenceRow {
            roles: Roles::DEFINITION | Roles::TEST,
            ..reference(&id("marked_test"), "marked_test", util, 50, None)
        },
    ];
    s3.aliases = vec![alias(&id("tokenize"), &id("lex"), "renamed", 0.95, &a3)];
    s3.tombstones = vec![tombstone(&id("legacy"), "legacy", util, &a3)];
    s3.churn = vec![
        churn(core, "30d", 4, 60, 20),
        churn(util, "30d", 1, 2, 2),
        churn(core, "90d", 6, 200, 50),
        churn(util, "90d", 2, 10, 5),
        churn(extra, "90d", 1, 25, 0),
        churn(test, "90d", 3, 12, 0),
        churn(generated, "90d", 9, 900, 900),
    ];
    s3.cochange = vec![
        cochange(core, util, 2, 6, 2),
        cochange(core, test, 3, 6, 3),
        cochange(core, extra, 1, 6, 1),
    ];
    s3.modules = vec![module("core", 2), module("tests", 1), module("util", 1)];
    s3.module_edges = vec![
        edge("core", "util", "local"),
        edge("tests", "core", "local"),
        edge("tests", "util", "local"),
        edge("core", "external:serde", "external-dependency"),
    ];
    s3.write(store.path());

    let mut b = SnapshotBuilder::new("beta", &b1);
    b.commits = vec![commit(&b1, &[], T0 + DAY / 2)];
    b.files = vec![lines(file("app/x.rs", "x-1", Some("app")), 60)];
    b.symbols = vec![func("beta", "x", "x", "app/x.rs", 1).vis("private")];
    b.churn = vec![
        churn("app/x.rs", "90d", 2, 60, 0),
        churn("app/x.rs", "30d", 1, 10, 0),
    ];
    b.modules = vec![module("app", 1)];
    b.write(store.path());
    store
}
