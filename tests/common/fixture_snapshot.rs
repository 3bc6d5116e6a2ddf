//! A builder for hand-written snapshots: rows written with `output_schema::parquet_io`, a manifest
//! encoded the way the pipeline encodes it, in the store layout (`repo=<id>/commit=<sha>/`).
//!
//! Golden answers built on these snapshots depend only on the rows a test writes, not on what the
//! extraction stages happen to produce, so they stay stable while the stages evolve. Every table is
//! written (empty unless filled) unless a test leaves it out with [`SnapshotBuilder::without`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use output_schema::manifest::{FileEntry, Manifest, RepoState, StageReport, StageStatus};
use output_schema::parquet_io::write_table;
use output_schema::tables::*;
use output_schema::{Roles, Table};

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
        let stages: BTreeMap<String, StageReport> = output_schema::Stage::ALL
            .iter()
            .map(|s| {
                (
                    s.name().to_string(),
                    StageReport::with_status(StageStatus::Ok, None),
                )
            })
            .collect();
        let manifest = Manifest {
            schema_version: self.schema_version,
            ckb_version: FIXTURE_CKB_VERSION.into(),
            repo_id: self.repo_id.clone(),
            snapshot_id: self.commit.clone(),
            repo_state: RepoState {
                is_git: true,
                head_commit: Some(self.commit.clone()),
                head_ref: Some("refs/heads/main".into()),
                repo_state_id: format!("state-{}", self.commit),
                ..RepoState::default()
            },
            privacy: self.privacy.clone(),
            settings: BTreeMap::new(),
            previous: None,
            backends: vec![],
            stages,
            tables,
            views: vec![],
            json_tables: vec![],
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
        stable_id: sid(repo, key),
        name: name.into(),
        kind: "function".into(),
        container: None,
        definition_version_id: format!("dv:{signature}"),
        signature: Some(signature),
        arity: Some(0),
        visibility: "public".into(),
        visibility_confidence: 1.0,
        visibility_source: "signature".into(),
        module_id: None,
        language: Some("rust".into()),
        path: path.into(),
        start_line: line,
        start_col: 1,
        end_line: line + 3,
        end_col: 2,
        source: "scip".into(),
        backend_id: None,
        body_hash: Some(format!("body:{key}")),
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
        enclosing_symbol_id: enclosing.map(String::from),
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
