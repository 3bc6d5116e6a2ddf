//! Freshness of a SCIP index: which commit it describes and how far HEAD has moved since.
//!
//! The commit comes from `--scip-commit`, else from a sidecar file `<index>.commit` holding the
//! hex commit ID (what CI writes next to the index it builds). It is compared with HEAD through
//! gix: the commits reachable from HEAD but not from the indexed commit are the commits behind.

use std::path::Path;

use output_schema::manifest::RepoState;

/// What is known about an index's age.
#[derive(Clone, Debug, PartialEq)]
pub struct Freshness {
    /// The full commit ID the index describes, when known.
    pub indexed_commit: Option<String>,
    /// Commits on HEAD's side since the indexed commit.
    pub commits_behind: Option<i64>,
    /// `current`, `current-dirty` (HEAD indexed, working tree changed), `behind`, `diverged`
    /// (the indexed commit is not an ancestor of HEAD), `unknown-commit` (not in this repository),
    /// `unknown` (no commit given) or `no-git`.
    pub state: &'static str,
}

impl Freshness {
    /// Whether the index is known to describe something other than the snapshotted state.
    pub fn is_stale(&self) -> bool {
        matches!(self.state, "behind" | "diverged" | "current-dirty")
    }
}

/// Walks stop after this many commits (the count is then a lower bound).
const MAX_WALK: usize = 100_000;

/// Whether a string looks like a (possibly abbreviated) hex commit ID.
pub fn is_commit_spec(s: &str) -> bool {
    (4..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The largest commit sidecar read: it holds one commit ID and a line break.
pub const MAX_SIDECAR_BYTES: u64 = 1024;

/// Reads `<index>.commit` when present: `Ok(None)` when absent, `Err` when present but not a
/// commit ID. The sidecar sits in the repository, so it is read as untrusted: not through a
/// symlink, not from a FIFO or device, and at most [`MAX_SIDECAR_BYTES`].
pub fn sidecar_commit(index: &Path) -> Result<Option<String>, String> {
    let mut name = index.as_os_str().to_owned();
    name.push(".commit");
    let sidecar = std::path::PathBuf::from(name);
    let text = match output_schema::small_file::read_small_file(&sidecar, MAX_SIDECAR_BYTES) {
        Ok(Some(t)) => t,
        Ok(None) => return Ok(None),
        Err(e) => return Err(format!("the commit sidecar {e}")),
    };
    let text = String::from_utf8_lossy(&text[..text.len().min(256)]).into_owned();
    let first = text
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if is_commit_spec(&first) {
        Ok(Some(first))
    } else {
        Err("the commit sidecar does not hold a hex commit ID".into())
    }
}

/// Compares the indexed commit with the snapshotted state.
pub fn assess(
    repo: Option<&gix::Repository>,
    state: &RepoState,
    indexed: Option<&str>,
) -> Freshness {
    let unknown = |state, indexed_commit| Freshness {
        indexed_commit,
        commits_behind: None,
        state,
    };
    let Some(spec) = indexed else {
        return unknown("unknown", None);
    };
    let (Some(repo), Some(head)) = (repo, state.head_commit.as_deref()) else {
        return unknown("no-git", Some(spec.to_string()));
    };
    let Ok(id) = repo.rev_parse_single(spec) else {
        return unknown("unknown-commit", Some(spec.to_string()));
    };
    let Ok(indexed_id) = id.object().and_then(|o| Ok(o.peel_to_commit()?.id)) else {
        return unknown("unknown-commit", Some(spec.to_string()));
    };
    let full = indexed_id.to_string();
    let Ok(head_id) = gix::ObjectId::from_hex(head.as_bytes()) else {
        return unknown("unknown", Some(full));
    };
    if head_id == indexed_id {
        return Freshness {
            indexed_commit: Some(full),
            commits_behind: Some(0),
            state: if state.dirty {
                "current-dirty"
            } else {
                "current"
            },
        };
    }
    let ancestor = repo
        .merge_base(indexed_id, head_id)
        .map(|base| base.is_some_and(|b| b.detach() == indexed_id))
        .unwrap_or(false);
    let behind = repo
        .rev_walk([head_id])
        .with_hidden([indexed_id])
        .all()
        .ok()
        .map(|walk| walk.take(MAX_WALK).take_while(|c| c.is_ok()).count() as i64);
    Freshness {
        indexed_commit: Some(full),
        commits_behind: behind,
        state: if ancestor { "behind" } else { "diverged" },
    }
}
