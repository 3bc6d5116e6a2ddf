//! The manifest: the index of a snapshot (`manifest.json.zst`).
//!
//! It says which ckb and schema wrote the snapshot, which repository state it describes, which
//! backends contributed and how complete each stage is, and lists every written table and view with
//! its row count, size and content hash so `ckb verify` can prove the files are intact. Everything in
//! it is deterministic; timings and host facts go to `run.json` instead.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{json, layout, FormatError, SCHEMA_VERSION};

/// How much of the repository a snapshot may show: written as `privacy` in the manifest and in
/// `.ckb/config.json` as exactly the strings of [`PrivacyMode::name`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PrivacyMode {
    /// Names and paths kept.
    #[default]
    Standard,
    /// Names and paths hashed with the secret in `CKB_SALT`.
    Anonymized,
}

impl PrivacyMode {
    /// Every mode.
    pub const ALL: [PrivacyMode; 2] = [PrivacyMode::Standard, PrivacyMode::Anonymized];

    /// The mode's name on the command line, in the config and in the manifest.
    pub fn name(self) -> &'static str {
        match self {
            PrivacyMode::Standard => "standard",
            PrivacyMode::Anonymized => "anonymized",
        }
    }

    /// Parses a mode name.
    pub fn from_name(name: &str) -> Option<PrivacyMode> {
        PrivacyMode::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The mode a manifest's `privacy` names; any other text is treated as not standard.
    pub fn is_standard(name: &str) -> bool {
        name == PrivacyMode::Standard.name()
    }
}

/// The manifest of one snapshot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    /// Snapshot format version ([`SCHEMA_VERSION`] when written by this build).
    pub schema_version: u32,
    /// ckb version that wrote the snapshot.
    pub ckb_version: String,
    /// Repository ID (the `repo=` partition).
    pub repo_id: String,
    /// The `commit=` partition value.
    pub snapshot_id: String,
    /// The repository state the snapshot describes.
    pub repo_state: RepoState,
    /// Privacy mode: `standard` or `anonymized`.
    pub privacy: String,
    /// Settings that shaped the output (size limit, history window, stage list, …).
    #[serde(default)]
    pub settings: BTreeMap<String, serde_json::Value>,
    /// The snapshot this one was built against (identity, incremental reuse), if any.
    #[serde(default)]
    pub previous: Option<PreviousSnapshot>,
    /// Backends that contributed facts, with their provenance.
    #[serde(default)]
    pub backends: Vec<Backend>,
    /// One report per stage, keyed by stage name; stages that did not run say `not-run`.
    #[serde(default)]
    pub stages: BTreeMap<String, StageReport>,
    /// Every written table, in [`crate::ALL_TABLES`] order.
    #[serde(default)]
    pub tables: Vec<FileEntry>,
    /// Every written view, sorted by name.
    #[serde(default)]
    pub views: Vec<FileEntry>,
    /// JSON Lines exports of the tables (`--json-tables`), in table order.
    #[serde(default)]
    pub json_tables: Vec<FileEntry>,
}

/// The repository state a snapshot describes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RepoState {
    /// Whether the folder is a git repository.
    pub is_git: bool,
    /// HEAD commit; null on an unborn branch or outside git.
    #[serde(default)]
    pub head_commit: Option<String>,
    /// Branch HEAD points to (`refs/heads/main`); null when detached or outside git.
    #[serde(default)]
    pub head_ref: Option<String>,
    /// Committer time of the HEAD commit (Unix seconds): when the snapshot's content was
    /// committed, what `ckb store gc` ages and orders snapshots by. Absent outside git, on an
    /// unborn branch, and in snapshots written before ckb recorded it.
    #[serde(default)]
    pub head_time: Option<i64>,
    /// Commits on HEAD's first-parent chain, HEAD included (`git rev-list --first-parent --count
    /// HEAD`): a number that never changes for a commit, so `ckb store gc --keep-every N` keeps the
    /// same snapshots run after run. Absent when the clone is shallow (the chain is cut), outside
    /// git, on an unborn branch, and in snapshots written before ckb recorded it.
    #[serde(default)]
    pub head_depth: Option<i64>,
    /// Whether HEAD is detached.
    #[serde(default)]
    pub detached: bool,
    /// Whether HEAD is an unborn branch (no commits yet).
    #[serde(default)]
    pub unborn: bool,
    /// Whether the repository is a shallow clone.
    #[serde(default)]
    pub shallow: bool,
    /// What kind of clone it is, i.e. which history objects it can hold (git only; absent in
    /// snapshots written before ckb recorded it).
    #[serde(default)]
    pub clone_state: Option<CloneState>,
    /// Hash of the staged changes (index vs HEAD).
    #[serde(default)]
    pub staged_hash: Option<String>,
    /// Hash of the unstaged changes (working tree vs index).
    #[serde(default)]
    pub worktree_hash: Option<String>,
    /// Hash of the list of untracked, not-ignored files.
    #[serde(default)]
    pub untracked_hash: Option<String>,
    /// Whether any of the three differs from a clean checkout.
    pub dirty: bool,
    /// Hash of head + staged + working-tree + untracked (content hash of the scan outside git).
    pub repo_state_id: String,
}

/// The kind of clone a snapshot was taken from: which of its history's objects it holds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CloneState {
    /// `full`; `shallow` (commits beyond `shallowBoundary` are missing); `blobless` (filter
    /// `blob:none`), `treeless` (`tree:0`) or `partial` (another filter, or a promisor remote
    /// without one): a partial clone whose promisor remote keeps the objects it left out (a
    /// partial clone that is also shallow keeps its partial kind, `shallow` says the rest);
    /// `damaged`: objects the history needs are missing or unreadable although no filter
    /// explains it (found by the git stage).
    pub kind: String,
    /// The partial-clone filter of the promisor remote (`blob:none`, `tree:0`, …).
    #[serde(default)]
    pub filter: Option<String>,
    /// Commits whose parents a shallow clone lacks (hex, sorted).
    #[serde(default)]
    pub shallow_boundary: Vec<String>,
}

/// The previous snapshot a build used.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PreviousSnapshot {
    /// Its `commit=` partition value.
    pub snapshot_id: String,
    /// Its repoStateId.
    pub repo_state_id: String,
    /// Its head commit.
    #[serde(default)]
    pub head_commit: Option<String>,
    /// How it was chosen: `ancestor` (newest ancestor in the store) or `explicit` (`--previous`).
    pub chosen_by: String,
}

/// A backend's provenance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Backend {
    /// Backend kind: `tree-sitter`, `scip`, `git`.
    pub kind: String,
    /// Tool that produced the data (`rust-analyzer`, `scip-typescript`, `gix`, …).
    pub tool: String,
    /// Tool version when known.
    #[serde(default)]
    pub version: Option<String>,
    /// Input the backend read, repo-relative (for SCIP: the index file).
    #[serde(default)]
    pub input: Option<String>,
    /// Numbers: documents, occurrences, symbols, commits behind, …
    #[serde(default)]
    pub counts: BTreeMap<String, i64>,
    /// Other facts: freshness, indexed commit, project root (relative), …
    #[serde(default)]
    pub facts: BTreeMap<String, String>,
}

/// Outcome of a stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StageStatus {
    /// Ran over all its input.
    Ok,
    /// Ran, but some input was skipped or degraded (see counts and warnings).
    Partial,
    /// Selected but could not run because its input was not produced (reason says which).
    Skipped,
    /// Not selected, or not available in this build.
    NotRun,
}

/// What a stage did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StageReport {
    /// Outcome.
    pub status: StageStatus,
    /// Why it was skipped or did not run.
    #[serde(default)]
    pub reason: Option<String>,
    /// Items processed (files, documents, commits, …).
    #[serde(default)]
    pub items: i64,
    /// Named counts (e.g. `skipped.binary`, `parse-errors`).
    #[serde(default)]
    pub counts: BTreeMap<String, i64>,
    /// Per-key breakdowns (e.g. per language: parsed, errors, …).
    #[serde(default)]
    pub breakdown: BTreeMap<String, BTreeMap<String, i64>>,
    /// Completeness of what the stage covers.
    #[serde(default)]
    pub completeness: Option<Completeness>,
    /// The first warnings, sorted (at most [`MAX_WARNINGS`]).
    #[serde(default)]
    pub warnings: Vec<Warning>,
    /// Total warnings, including those not listed.
    #[serde(default)]
    pub warnings_total: i64,
}

/// How many warnings a stage report lists.
pub const MAX_WARNINGS: usize = 100;

impl StageReport {
    /// A report for a stage that did not run.
    pub fn not_run(reason: &str) -> StageReport {
        StageReport::with_status(StageStatus::NotRun, Some(reason.to_string()))
    }

    /// A report for a stage whose input was skipped.
    pub fn skipped(reason: &str) -> StageReport {
        StageReport::with_status(StageStatus::Skipped, Some(reason.to_string()))
    }

    /// The report of a stage that ran: `partial` when part of its input could not be used, else
    /// `ok`.
    pub fn ran(partial: bool) -> StageReport {
        let status = if partial {
            StageStatus::Partial
        } else {
            StageStatus::Ok
        };
        StageReport::with_status(status, None)
    }

    /// An empty report with a status.
    pub fn with_status(status: StageStatus, reason: Option<String>) -> StageReport {
        StageReport {
            status,
            reason,
            items: 0,
            counts: BTreeMap::new(),
            breakdown: BTreeMap::new(),
            completeness: None,
            warnings: Vec::new(),
            warnings_total: 0,
        }
    }

    /// Sets the warnings, keeping the first [`MAX_WARNINGS`] in sorted order and the total.
    pub fn set_warnings(&mut self, mut warnings: Vec<Warning>) {
        warnings.sort();
        warnings.dedup();
        self.warnings_total = warnings.len() as i64;
        warnings.truncate(MAX_WARNINGS);
        self.warnings = warnings;
    }
}

/// How complete a stage's facts are.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completeness {
    /// 0..1.
    pub score: f64,
    /// `full-backend`, `partial-backend`, `tree-sitter-only`, `index-stale`, `shallow-history`, …
    pub reason: String,
}

/// A warning about one input.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Warning {
    /// Stable code (`binary-file`, `parse-error`, `permission-denied`, …).
    pub code: String,
    /// Repo-relative path the warning is about.
    #[serde(default)]
    pub path: Option<String>,
    /// What happened (never file content).
    pub message: String,
}

/// A written file inside the snapshot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileEntry {
    /// Table or view name.
    pub name: String,
    /// Path relative to the snapshot folder.
    pub file: String,
    /// Rows (tables only; 0 for views).
    pub rows: i64,
    /// Size in bytes.
    pub bytes: i64,
    /// `blake3:<hex>` of the file's bytes.
    pub hash: String,
}

/// Hashes bytes the way the manifest records them.
pub fn file_hash(bytes: &[u8]) -> String {
    format!("blake3:{}", blake3::hash(bytes).to_hex())
}

impl Manifest {
    /// The manifest of snapshot `snapshot_id` of repository `repo_id` in `repo_state`, written by
    /// this build in this schema version, standard privacy; no settings, previous snapshot,
    /// backends, stage reports or files yet (callers fill in what they have).
    pub fn new(repo_id: &str, snapshot_id: &str, repo_state: RepoState) -> Manifest {
        Manifest {
            schema_version: SCHEMA_VERSION,
            ckb_version: crate::CKB_VERSION.to_string(),
            repo_id: repo_id.to_string(),
            snapshot_id: snapshot_id.to_string(),
            repo_state,
            privacy: PrivacyMode::Standard.name().to_string(),
            settings: BTreeMap::new(),
            previous: None,
            backends: Vec::new(),
            stages: BTreeMap::new(),
            tables: Vec::new(),
            views: Vec::new(),
            json_tables: Vec::new(),
        }
    }

    /// Encodes the manifest: canonical JSON, zstd-compressed.
    pub fn encode(&self) -> Result<Vec<u8>, FormatError> {
        compress_json(&json::to_string(self)?)
    }

    /// Decodes a manifest, refusing a newer schema version before looking at anything else.
    pub fn decode(bytes: &[u8]) -> Result<Manifest, FormatError> {
        let text = decompress(bytes)?;
        let value: serde_json::Value = serde_json::from_slice(&text)?;
        let found = value
            .get("schemaVersion")
            .and_then(|v| v.as_u64())
            .ok_or_else(|| FormatError::InvalidValue {
                column: "schemaVersion".into(),
                value: "missing".into(),
            })?;
        if found > u64::from(SCHEMA_VERSION) {
            return Err(FormatError::SchemaUnsupported {
                found: found.min(u64::from(u32::MAX)) as u32,
                supported: SCHEMA_VERSION,
            });
        }
        Ok(serde_json::from_value(value)?)
    }

    /// The table entry of a written table.
    pub fn table(&self, name: &str) -> Option<&FileEntry> {
        self.tables.iter().find(|t| t.name == name)
    }
}

/// zstd-compresses canonical JSON text at the store's fixed level.
pub fn compress_json(text: &str) -> Result<Vec<u8>, FormatError> {
    compress_json_at(text, layout::JSON_ZSTD_LEVEL)
}

/// zstd-compresses JSON text at `level`, for a file outside the snapshot that picks its own (the
/// scan cache); [`decompress`] reads either.
pub fn compress_json_at(text: &str, level: i32) -> Result<Vec<u8>, FormatError> {
    zstd::bulk::compress(text.as_bytes(), level).map_err(|source| FormatError::Io {
        path: "<zstd>".into(),
        source,
    })
}

/// The environment variable that raises [`DEFAULT_MAX_DECOMPRESSED_BYTES`].
pub const MAX_DECOMPRESSED_ENV: &str = "CKB_MAX_JSON_BYTES";

/// How large a decompressed manifest, view or scan cache may be: far above what ckb writes (the
/// views of a repository of 100 000 files are tens of megabytes), far below what a few kilobytes
/// of crafted zstd could otherwise claim.
pub const DEFAULT_MAX_DECOMPRESSED_BYTES: u64 = 1 << 30;

/// The limit in force: [`MAX_DECOMPRESSED_ENV`] when it holds a byte count, else the default.
pub fn max_decompressed_bytes() -> u64 {
    crate::byte_limit(MAX_DECOMPRESSED_ENV, DEFAULT_MAX_DECOMPRESSED_BYTES)
}

/// Decompresses a zstd frame of ckb's JSON, up to [`max_decompressed_bytes`].
pub fn decompress(bytes: &[u8]) -> Result<Vec<u8>, FormatError> {
    decompress_at_most(bytes, max_decompressed_bytes())
}

/// Decompresses a zstd frame, refusing output past `limit` bytes without producing it: every file
/// read back (a previous snapshot, one pulled from an artifact store) may be hostile.
pub fn decompress_at_most(bytes: &[u8], limit: u64) -> Result<Vec<u8>, FormatError> {
    use std::io::Read;
    let io = |source| FormatError::Io {
        path: "<zstd>".into(),
        source,
    };
    let decoder = zstd::stream::read::Decoder::new(bytes).map_err(io)?;
    let mut out = Vec::new();
    decoder
        .take(limit.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(io)?;
    if out.len() as u64 > limit {
        return Err(FormatError::DecompressedTooLarge {
            limit,
            env: MAX_DECOMPRESSED_ENV,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decompression_stops_at_the_limit() {
        let text = "x".repeat(10_000);
        let frame = compress_json(&text).unwrap();
        assert_eq!(decompress_at_most(&frame, 10_000).unwrap().len(), 10_000);
        let e = decompress_at_most(&frame, 9_999).unwrap_err();
        assert!(
            matches!(e, FormatError::DecompressedTooLarge { limit: 9_999, .. }),
            "{e}"
        );
        assert!(e.to_string().contains(MAX_DECOMPRESSED_ENV), "{e}");
        assert_eq!(e.code(), crate::ErrorCode::SnapshotCorrupt);
        // A bomb: 64 MiB of zeros in a frame of a few kilobytes is refused at a 1 MiB limit
        // having produced no more than the limit.
        let bomb = zstd::bulk::compress(&vec![0u8; 64 << 20], 19).unwrap();
        assert!(bomb.len() < 64 << 10, "{}", bomb.len());
        assert!(matches!(
            decompress_at_most(&bomb, 1 << 20),
            Err(FormatError::DecompressedTooLarge { .. })
        ));
        assert_eq!(decompress(&frame).unwrap(), text.as_bytes());
    }

    fn sample() -> Manifest {
        let repo_state = RepoState {
            is_git: true,
            head_commit: Some("abc".into()),
            repo_state_id: "f00".into(),
            ..RepoState::default()
        };
        Manifest {
            ckb_version: "0.1.0".into(),
            stages: BTreeMap::from([("scan".into(), StageReport::not_run("x"))]),
            ..Manifest::new("r", "abc", repo_state)
        }
    }

    #[test]
    fn manifest_round_trips_and_is_byte_stable() {
        let m = sample();
        let a = m.encode().unwrap();
        assert_eq!(a, m.encode().unwrap());
        assert_eq!(Manifest::decode(&a).unwrap(), m);
        let text = String::from_utf8(decompress(&a).unwrap()).unwrap();
        assert!(text.contains(r#""status":"not-run""#), "{text}");
        assert!(!text.contains("null"), "{text}");
    }

    #[test]
    fn newer_schema_is_refused() {
        let mut v = serde_json::to_value(sample()).unwrap();
        v["schemaVersion"] = serde_json::json!(SCHEMA_VERSION + 1);
        let bytes = compress_json(&v.to_string()).unwrap();
        let err = Manifest::decode(&bytes).unwrap_err();
        assert_eq!(err.code(), crate::ErrorCode::SchemaUnsupported);
    }
}
