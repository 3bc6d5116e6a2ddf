//! Names of things inside a snapshot store (DESIGN.md "Snapshot store").
//!
//! ```text
//! <store>/repo=<repo_id>/commit=<state>/manifest.json.zst
//!                                       <table>.parquet
//!                                       views/<view>.json.zst
//!                                       run.json
//! ```

/// Default store location relative to the repository root.
pub const DEFAULT_STORE_DIR: &str = ".ckb/snapshots";
/// The manifest file of a snapshot.
pub const MANIFEST_FILE: &str = "manifest.json.zst";
/// Timings and host facts; outside the determinism contract.
pub const RUN_FILE: &str = "run.json";
/// Folder of precomputed views.
pub const VIEWS_DIR: &str = "views";
/// Prefix of the repository partition folder.
pub const REPO_PARTITION: &str = "repo=";
/// Prefix of the commit partition folder.
pub const COMMIT_PARTITION: &str = "commit=";
/// zstd level for every compressed JSON file.
pub const JSON_ZSTD_LEVEL: i32 = 9;

/// Name of the commit partition value for a repository state.
///
/// A clean checkout is its head commit; a dirty one appends `-dirty-<12 hex of repoStateId>`; a
/// folder outside git is `nogit-<12 hex content hash>`; a git repository without commits (an unborn
/// branch) is `unborn-<12 hex of repoStateId>`.
pub fn commit_partition_value(
    is_git: bool,
    head: Option<&str>,
    dirty: bool,
    repo_state_id: &str,
) -> String {
    let short = &repo_state_id[..repo_state_id.len().min(12)];
    match head {
        Some(h) if dirty => format!("{h}-dirty-{short}"),
        Some(h) => h.to_string(),
        None if is_git => format!("unborn-{short}"),
        None => format!("nogit-{short}"),
    }
}

/// File name of a view.
pub fn view_file(name: &str) -> String {
    format!("{VIEWS_DIR}/{name}.json.zst")
}
