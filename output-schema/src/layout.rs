//! Names of things inside a snapshot store (DESIGN.md "Snapshot store").
//!
//! ```text
//! <store>/repo=<repo_id>/commit=<state>/manifest.json.zst
//!                                       <table>.parquet
//!                                       views/<view>.json.zst
//!                                       run.json
//!                        scan-cache.json.zst
//!                        .lock-commit=<state>            a writer of <state> is at work
//!                        .tmp-commit=<state>.<pid>       a snapshot being built (or, after a
//!                                                        --force exchange, the old one)
//!                        .old-commit=<state>.<pid>       a replaced snapshot set aside
//!                        .gc-commit=<state>.<pid>        a snapshot `ckb store gc` is deleting
//!                        .cache-commit=<state>.<pid>     the scan cache being written
//! ```
//!
//! Every name a writer uses for something not (yet) published starts with a dot and never with
//! `commit=`, so neither ckb's readers nor the documented glob `repo=*/commit=*/<table>.parquet`
//! can see it; and each carries the state whose writer made it, so that whoever can take that
//! state's lock knows its writer is gone ([`Leftover`]).

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
/// zstd level for every compressed JSON file of a snapshot (the scan cache, a local file rewritten
/// on every run, uses its own lower level).
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

/// Prefix of a writer's lock file, before the commit partition (`.lock-commit=<state>`).
pub const LOCK_PREFIX: &str = ".lock-";
/// Prefix of a snapshot being built (`.tmp-commit=<state>.<pid>`).
pub const BUILD_PREFIX: &str = ".tmp-";
/// Prefix of a replaced snapshot set aside while its successor moves in.
pub const SET_ASIDE_PREFIX: &str = ".old-";
/// Prefix of a snapshot gc renamed out of sight to delete it.
pub const TRASH_PREFIX: &str = ".gc-";
/// Prefix of the scan cache being written.
pub const CACHE_TEMP_PREFIX: &str = ".cache-";

/// What a name in a repository's folder of the store that is not a snapshot stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LeftoverKind {
    /// A writer's lock file.
    Lock,
    /// A snapshot folder being built, or the old one after a `--force` exchange.
    Build,
    /// A whole snapshot set aside by a `--force` rebuild on a file system without exchange.
    SetAside,
    /// A snapshot gc was deleting.
    Trash,
    /// The scan cache being written.
    CacheTemp,
}

impl LeftoverKind {
    /// The kind's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            LeftoverKind::Lock => "lock",
            LeftoverKind::Build => "temporary-folder",
            LeftoverKind::SetAside => "set-aside-snapshot",
            LeftoverKind::Trash => "gc-trash",
            LeftoverKind::CacheTemp => "scan-cache-temporary",
        }
    }
}

/// A name of the [`LeftoverKind`]s, and the state whose writer owns it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Leftover {
    /// The commit partition value (`<state>`).
    pub state: String,
    /// What it is.
    pub kind: LeftoverKind,
}

impl Leftover {
    /// Reads a name found in a repository's folder; `None` for a snapshot, the scan cache or
    /// anything ckb does not write.
    ///
    /// Earlier builds of ckb set a replaced snapshot aside as `.tmp-commit=<state>.old<pid>`: such
    /// a name is recognised as set aside, so that a store they wrote is recovered too.
    pub fn parse(name: &str) -> Option<Leftover> {
        let kinds = [
            (LOCK_PREFIX, LeftoverKind::Lock),
            (BUILD_PREFIX, LeftoverKind::Build),
            (SET_ASIDE_PREFIX, LeftoverKind::SetAside),
            (TRASH_PREFIX, LeftoverKind::Trash),
            (CACHE_TEMP_PREFIX, LeftoverKind::CacheTemp),
        ];
        let (rest, mut kind) = kinds.iter().find_map(|(prefix, kind)| {
            name.strip_prefix(prefix)?
                .strip_prefix(COMMIT_PARTITION)
                .map(|rest| (rest, *kind))
        })?;
        let state = if kind == LeftoverKind::Lock {
            rest
        } else {
            let (state, pid) = rest.rsplit_once('.')?;
            if kind == LeftoverKind::Build && pid.starts_with("old") {
                kind = LeftoverKind::SetAside;
            }
            state
        };
        let plain = !state.is_empty()
            && state
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        plain.then(|| Leftover {
            state: state.to_string(),
            kind,
        })
    }

    /// The name of a leftover of `kind` for `state`, made by the process `pid`.
    pub fn name(kind: LeftoverKind, state: &str, pid: u32) -> String {
        let prefix = match kind {
            LeftoverKind::Lock => return format!("{LOCK_PREFIX}{COMMIT_PARTITION}{state}"),
            LeftoverKind::Build => BUILD_PREFIX,
            LeftoverKind::SetAside => SET_ASIDE_PREFIX,
            LeftoverKind::Trash => TRASH_PREFIX,
            LeftoverKind::CacheTemp => CACHE_TEMP_PREFIX,
        };
        format!("{prefix}{COMMIT_PARTITION}{state}.{pid}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leftover_names_round_trip_and_never_look_like_snapshots() {
        let state = "0123456789abcdef0123456789abcdef01234567-dirty-0123456789ab";
        for kind in [
            LeftoverKind::Lock,
            LeftoverKind::Build,
            LeftoverKind::SetAside,
            LeftoverKind::Trash,
            LeftoverKind::CacheTemp,
        ] {
            let name = Leftover::name(kind, state, 42);
            assert!(name.starts_with('.') && !name.starts_with(COMMIT_PARTITION));
            assert_eq!(
                Leftover::parse(&name),
                Some(Leftover {
                    state: state.into(),
                    kind
                }),
                "{name}"
            );
        }
        // Set aside by an earlier ckb.
        assert_eq!(
            Leftover::parse(".tmp-commit=abc.old77").map(|l| l.kind),
            Some(LeftoverKind::SetAside)
        );
        for other in [
            "commit=abc",
            "scan-cache.json.zst",
            ".tmp-commit=",
            ".tmp-commit=abc",
            ".lock-commit=../x",
            ".tmp-notes",
        ] {
            assert_eq!(Leftover::parse(other), None, "{other}");
        }
    }
}
