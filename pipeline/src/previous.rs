//! The snapshots already in the store that a run looks at before it builds: the one of exactly
//! this state (then the run ends, unless `--force`), and the previous one whose rows it may reuse
//! (identity, incremental syntax and history), chosen and verified before any row is trusted.

use std::path::Path;

use output_schema::manifest::{RepoState, Warning};
use output_schema::PrivacyMode;

use output_schema::folder_lock::{self, FolderLock};

use crate::store::{self, Store, StoredSnapshot};
use crate::{PipelineError, PreviousChoice};

/// The stored snapshot of `state`, unless `--force`. A snapshot of another privacy mode in the
/// state's folder is an error: answering an anonymized request with a standard snapshot would hand
/// out real names, and replacing one with the other silently would too (the two modes record
/// different state IDs, so the folder's snapshot is not "the same state" for either).
pub(crate) fn existing_snapshot(
    store: &Store,
    repo_id: &str,
    state: &RepoState,
    force: bool,
    privacy: PrivacyMode,
) -> Result<Option<StoredSnapshot>, PipelineError> {
    if force {
        return Ok(None);
    }
    let dir = store.snapshot_dir(repo_id, &store::snapshot_partition(state));
    if let Ok(stored) = output_schema::verify::read_manifest(&dir) {
        if stored.privacy != privacy.name() {
            return Err(PipelineError::InvalidParameter {
                name: "--privacy".into(),
                message: format!(
                    "the store already holds a {} snapshot of this state; write {} \
                     snapshots to a store of their own (--out DIR), or replace it with --force",
                    stored.privacy,
                    privacy.name()
                ),
            });
        }
    }
    Ok(store.snapshot_of(repo_id, state))
}

/// A previous snapshot and how it was chosen (`explicit`, `ancestor`, …).
pub(crate) type ChosenPrevious = Option<(StoredSnapshot, &'static str)>;

/// The previous snapshot to build on ([`trusted_previous`]), and the read lock that keeps
/// `ckb store gc` from removing it while this run reads its rows.
pub(crate) struct Trusted {
    /// The snapshot, verified.
    pub chosen: ChosenPrevious,
    /// The warning to record when one was found but passed over.
    pub rejected: Option<Warning>,
    /// Held until the run ends.
    pub _lock: Option<FolderLock>,
}

/// The previous snapshot whose rows this run may reuse, and the warning to record when one was
/// found but passed over. Anonymized runs build on none. No row of a snapshot is reused before its
/// files match its manifest: an explicit `--previous` that does not is an error; one chosen in the
/// store is passed over, as is one committed to the repository, and the run is a cold one (same
/// tables as `--no-previous`), with a warning saying why.
#[allow(clippy::too_many_arguments)]
pub(crate) fn trusted_previous(
    choice: &PreviousChoice,
    anonymized: bool,
    store: &Store,
    repo_id: &str,
    repo: Option<&gix::Repository>,
    state: &RepoState,
    root: &Path,
    warnings: &mut Vec<String>,
) -> Result<Trusted, PipelineError> {
    let none = |rejected| Trusted {
        chosen: None,
        rejected,
        _lock: None,
    };
    if anonymized {
        // A previous anonymized snapshot's rows are hashed already: reused rows and carried
        // tombstones would be hashed twice, and its hashed names match no real one.
        if !matches!(choice, PreviousChoice::Disabled | PreviousChoice::Auto) {
            warnings.push(
                "anonymized snapshots do not build on a previous snapshot; --previous ignored"
                    .into(),
            );
        }
        return Ok(none(None));
    }
    let Some((snapshot, chosen_by)) =
        choose_previous(choice, store, repo_id, repo, state, warnings)
    else {
        return Ok(none(None));
    };
    // Locked before it is verified: what is verified is what the run reads.
    let locked = folder_lock::hold_snapshot(&snapshot.dir)
        .map_err(|e| format!("{e}"))
        .and_then(|lock| trust_previous(&snapshot, chosen_by, repo, root).map(|()| lock));
    match locked {
        Ok(lock) => Ok(Trusted {
            chosen: Some((snapshot, chosen_by)),
            rejected: None,
            _lock: lock,
        }),
        Err(problem) if chosen_by == "explicit" => Err(PipelineError::PreviousCorrupt {
            dir: snapshot.dir,
            problem,
        }),
        Err(problem) => Ok(none(Some(Warning {
            code: "previous-unverified".into(),
            path: None,
            message: format!(
                "snapshot {} cannot be trusted ({problem}); not used as the previous \
                     snapshot, every stage computed from scratch",
                snapshot.manifest.snapshot_id
            ),
        }))),
    }
}

/// The previous snapshot to build against, not yet verified (see [`store::verify`]).
fn choose_previous(
    choice: &PreviousChoice,
    store: &Store,
    repo_id: &str,
    repo: Option<&gix::Repository>,
    state: &RepoState,
    warnings: &mut Vec<String>,
) -> Option<(StoredSnapshot, &'static str)> {
    match choice {
        PreviousChoice::Disabled => None,
        PreviousChoice::Explicit(dir) => match output_schema::verify::read_manifest(dir) {
            Ok(manifest) if !PrivacyMode::is_standard(&manifest.privacy) => {
                warnings.push(format!(
                    "--previous {} is an anonymized snapshot, its names are hashed; ignored",
                    dir.display()
                ));
                None
            }
            Ok(manifest) if manifest.repo_id == repo_id => Some((
                StoredSnapshot {
                    dir: dir.clone(),
                    manifest,
                },
                "explicit",
            )),
            Ok(manifest) => {
                warnings.push(format!(
                    "--previous {} is a snapshot of {}, not {repo_id}; ignored",
                    dir.display(),
                    manifest.repo_id
                ));
                None
            }
            Err(e) => {
                warnings.push(format!("--previous {}: {e}; ignored", dir.display()));
                None
            }
        },
        PreviousChoice::Auto => {
            let repo = repo?;
            let mut unreadable = |dir: &Path, e: String| {
                warnings.push(format!(
                    "{}: unreadable snapshot ({e}); ignored",
                    dir.display()
                ))
            };
            store::newest_ancestor_snapshot(
                repo,
                &store.folders(repo_id),
                &state.repo_state_id,
                10_000,
                &mut unreadable,
            )
            // An anonymized snapshot's rows are hashed: they cannot seed a standard one.
            .filter(|s| PrivacyMode::is_standard(&s.manifest.privacy))
            .map(|s| (s, "ancestor"))
        }
    }
}

/// Whether the rows of a chosen previous snapshot may be reused: its files match its manifest
/// and, when it was found in the store, it is not committed to the repository (ckb never commits
/// a snapshot; a committed one is content whose manifest may match forged files).
fn trust_previous(
    snapshot: &StoredSnapshot,
    chosen_by: &str,
    repo: Option<&gix::Repository>,
    root: &Path,
) -> Result<(), String> {
    store::verify(snapshot)?;
    let committed = chosen_by == "ancestor"
        && repo.is_some_and(|r| store::is_committed(r, root, &snapshot.dir));
    if committed {
        return Err(
            "it is committed to the repository, so its files and its manifest may both \
                    be forged; ckb never commits a snapshot"
                .into(),
        );
    }
    Ok(())
}
