//! Finding the snapshot a query should read, and how fresh it is against the working tree.
//!
//! Order: `--snapshot DIR` as given; else the store (`--store DIR`, else the `CKB_STORE`
//! environment variable, both as given, else the repository's configured store, which must lie
//! inside the repository without a symlink on the way) and in it the snapshot of the exact current
//! state, else the newest snapshot of an ancestor of HEAD, else — outside git — the only snapshot
//! there is. Freshness always compares the chosen snapshot with the working tree's HEAD and
//! dirtiness when a repository is at hand.

use std::path::{Path, PathBuf};

use output_schema::config::Config;
use output_schema::manifest::RepoState;
use output_schema::verify::read_manifest;
use output_schema::ErrorCode;
use pipeline::repo_state::{open_repository, read_state_of, StateExclusions};
use pipeline::store::{head_relation, newest_ancestor_snapshot, HeadRelation, Store};
use queries::snapshot::FreshnessState;
use queries::{Freshness, QueryError, Snapshot};

/// The folder a query runs from: the nearest ancestor of the current directory holding `.git` or
/// `.ckb`, else the current directory.
pub fn repo_root(explicit: Option<&Path>) -> PathBuf {
    if let Some(p) = explicit {
        return p.to_path_buf();
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    cwd.ancestors()
        .find(|d| d.join(".git").exists() || d.join(".ckb").is_dir())
        .map(Path::to_path_buf)
        .unwrap_or(cwd)
}

fn not_found(message: String, root: &Path) -> QueryError {
    QueryError::new(
        ErrorCode::SnapshotNotFound,
        message,
        format!(
            "create one with `ckb snapshot {}`, or pass --snapshot DIR / --store DIR",
            root.display()
        ),
    )
    .with_drilldown(
        format!("ckb snapshot {}", root.display()),
        "no snapshot to read yet",
    )
}

/// The environment variable naming the store, set by whoever runs ckb (a CI job): it wins over
/// the repository's config, which a pull request can change; `--out` / `--store` win over it.
pub const STORE_ENV: &str = "CKB_STORE";

/// The store `CKB_STORE` names, if it is set and not empty.
pub fn store_from_env() -> Option<PathBuf> {
    std::env::var_os(STORE_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

fn config_invalid(e: output_schema::config::ConfigError) -> QueryError {
    QueryError::new(
        ErrorCode::ConfigInvalid,
        e.to_string(),
        "fix the named key in .ckb/config.json",
    )
}

/// The store folder for a repository root: `explicit` (`--store`) or `CKB_STORE` as given, else
/// the config's `store`, refused (`CONFIG_INVALID`) unless it lies inside the repository.
pub fn store_for(root: &Path, explicit: Option<&Path>) -> Result<PathBuf, QueryError> {
    if let Some(s) = explicit.map(Path::to_path_buf).or_else(store_from_env) {
        return Ok(s);
    }
    let config = Config::load(root).map_err(config_invalid)?;
    output_schema::config::repository_store(root, &config.store, &[]).map_err(config_invalid)
}

/// Chooses the snapshot and computes its freshness.
pub fn locate(
    snapshot: Option<&Path>,
    store: Option<&Path>,
    repo: Option<&Path>,
) -> Result<(Snapshot, Freshness), QueryError> {
    let root = repo_root(repo);
    let git = open_repository(&root).ok().flatten();
    let store_dir = store_for(&root, store)?;
    let from_config = store.is_none() && store_from_env().is_none();
    // The store (when inside the repository) never counts as a working-tree change.
    let exclusions = StateExclusions::store_and_files(&root, &store_dir, Vec::new());
    // The working tree's state, read once: it finds the exact snapshot and measures freshness.
    let state = || {
        git.as_ref()
            .and_then(|r| read_state_of(r, &root, &exclusions).ok())
    };
    if let Some(dir) = snapshot {
        let snap = Snapshot::open(dir)?;
        let fresh = match &git {
            Some(r) if same_repo(&root, r, &snap) => freshness(r, &snap, state().as_ref()),
            _ => Freshness::unknown(),
        };
        return Ok((snap, fresh));
    }
    let state = state();
    let store = Store::new(&store_dir);
    let config = Config::load(&root).unwrap_or_default();
    let mut repo_id = config
        .repo_id
        .clone()
        .unwrap_or_else(|| pipeline::default_repo_id(&root, git.as_ref()));
    let mut folders = store.folders(&repo_id);
    if folders.is_empty() {
        // An anonymized snapshot of the repository is stored under its hashed default ID.
        if let Some(hashed) = anonymized_repo_id(&repo_id) {
            let hashed_folders = store.folders(&hashed);
            if !hashed_folders.is_empty() {
                repo_id = hashed;
                folders = hashed_folders;
            }
        }
    }
    if folders.is_empty() {
        // A store holding exactly one repository answers for it.
        let repos: Vec<String> = std::fs::read_dir(&store_dir)
            .map(|it| {
                it.flatten()
                    .filter_map(|e| {
                        e.file_name()
                            .to_str()?
                            .strip_prefix(output_schema::layout::REPO_PARTITION)
                            .map(String::from)
                    })
                    .collect()
            })
            .unwrap_or_default();
        if let [only] = repos.as_slice() {
            repo_id = only.clone();
            folders = store.folders(&repo_id);
        }
    }
    if from_config {
        // The repository's folder in a configured store may not be a symlink either.
        let repo_dir = format!("{}{repo_id}", output_schema::layout::REPO_PARTITION);
        output_schema::config::repository_store(&root, &config.store, &[&repo_dir])
            .map_err(config_invalid)?;
    }
    let no_snapshot = || {
        not_found(
            format!("no snapshot of {repo_id} in {}", store_dir.display()),
            &root,
        )
    };
    if folders.is_empty() {
        return Err(no_snapshot());
    }
    // Snapshots are found by folder name, and only the manifests of the candidates are read: a
    // store that CI fills with a snapshot per commit is not read whole on every query.
    let chosen = match &git {
        Some(r) => {
            let exact = state
                .as_ref()
                .and_then(|s| {
                    store
                        .snapshot_of(&repo_id, s)
                        .or_else(|| store.snapshot_of(&repo_id, &keyed_state(s)?))
                })
                .map(|s| s.dir);
            exact.or_else(|| {
                newest_ancestor_snapshot(r, &folders, "", 100_000, &mut |_, _| ()).map(|s| s.dir)
            })
        }
        None => None,
    };
    let chosen = match chosen {
        Some(dir) => dir,
        // Outside git (or no ancestor snapshot): the last readable snapshot by name.
        None => folders
            .all()
            .iter()
            .rev()
            .find(|dir| read_manifest(dir).is_ok())
            .cloned()
            .ok_or_else(no_snapshot)?,
    };
    let snap = Snapshot::open(&chosen)?;
    let fresh = match &git {
        Some(r) => freshness(r, &snap, state.as_ref()),
        None => Freshness::unknown(),
    };
    Ok((snap, fresh))
}

fn same_repo(root: &Path, repo: &gix::Repository, snap: &Snapshot) -> bool {
    let config = Config::load(root).unwrap_or_default();
    let id = config
        .repo_id
        .unwrap_or_else(|| pipeline::default_repo_id(root, Some(repo)));
    id == snap.manifest.repo_id
        || anonymized_repo_id(&id).is_some_and(|h| h == snap.manifest.repo_id)
}

/// The default repository ID as an anonymized snapshot stores it, when `CKB_SALT` is set.
fn anonymized_repo_id(id: &str) -> Option<String> {
    pipeline::privacy::Anonymizer::from_env()
        .ok()
        .map(|a| a.name(id))
}

/// The working tree's state as an anonymized snapshot records it (its hashes keyed with
/// `CKB_SALT`), when the salt is set.
fn keyed_state(state: &RepoState) -> Option<RepoState> {
    let a = pipeline::privacy::Anonymizer::from_env().ok()?;
    let mut keyed = state.clone();
    a.key_repo_state(&mut keyed);
    Some(keyed)
}

/// How `snap` stands against the working tree, whose state (`None`: unreadable) was read.
fn freshness(repo: &gix::Repository, snap: &Snapshot, state: Option<&RepoState>) -> Freshness {
    let head = repo.head_id().ok().map(|h| h.to_string());
    let dirty = state.is_some_and(|s| s.dirty);
    let relation = snap
        .manifest
        .repo_state
        .head_commit
        .as_deref()
        .and_then(|h| head_relation(repo, h));
    let (state, behind) = match relation {
        Some(HeadRelation::Same) if dirty || snap.manifest.repo_state.dirty => {
            let recorded = &snap.manifest.repo_state.repo_state_id;
            let same_state = state.is_some_and(|s| {
                &s.repo_state_id == recorded
                    || (snap.manifest.privacy == output_schema::PrivacyMode::Anonymized.name()
                        && keyed_state(s).is_some_and(|k| &k.repo_state_id == recorded))
            });
            (
                if same_state {
                    FreshnessState::Current
                } else {
                    FreshnessState::Dirty
                },
                Some(0),
            )
        }
        Some(HeadRelation::Same) => (FreshnessState::Current, Some(0)),
        Some(HeadRelation::Behind(n)) => (FreshnessState::Behind, Some(n)),
        Some(HeadRelation::Diverged) => (FreshnessState::Diverged, None),
        None => (FreshnessState::Unknown, None),
    };
    Freshness {
        state,
        head_commit: head,
        commits_behind: behind,
        worktree_dirty: dirty,
    }
}
