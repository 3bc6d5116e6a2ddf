//! The repository state a snapshot describes: head commit, dirtiness and `repoStateId`.
//!
//! `repoStateId` = BLAKE3 of (head commit, staged hash, working-tree hash, untracked hash), each
//! part length-prefixed. The three hashes cover *content*, not just the fact that something
//! changed: two different edits of the same file give two different IDs. Paths that are ckb's own
//! inputs or outputs (the snapshot store, SCIP index files) are left out, so generating an index or
//! writing a snapshot never makes a clean checkout look dirty. Outside git, the ID is the hash of
//! every scanned file's path and content hash.
//!
//! The kind of clone (`repoState.cloneState`: full, shallow with its boundary, blobless, treeless,
//! other partial) is read from the shallow file and the promisor remote's configuration; it never
//! enters `repoStateId`. HEAD's commit and checked-out trees must be readable — otherwise nothing
//! of HEAD can be described and the error names the object and the fix for that kind of clone —
//! while objects only older history needs are the git stage's concern, which degrades without them.

use std::path::Path;

use gix::bstr::ByteSlice;
use output_schema::manifest::{CloneState, RepoState, Warning};

use crate::hashing::FieldHasher;
use crate::PipelineError;

/// What the state leaves out: paths (repo-relative prefixes or exact files) that never count
/// towards dirtiness, and the contents of files too large to read on every run and query.
#[derive(Clone, Debug)]
pub struct StateExclusions {
    /// Repo-relative folders whose contents are ignored (the snapshot store).
    pub folders: Vec<String>,
    /// Repo-relative files that are ignored (SCIP indexes).
    pub files: Vec<String>,
    /// A changed or untracked file larger than this counts by its size and modification time,
    /// unread (config `maxHashBytes`); smaller ones by their content, hashed as a stream.
    pub max_hash_bytes: u64,
}

impl Default for StateExclusions {
    fn default() -> Self {
        StateExclusions {
            folders: Vec::new(),
            files: Vec::new(),
            max_hash_bytes: output_schema::config::DEFAULT_MAX_HASH_BYTES,
        }
    }
}

impl StateExclusions {
    /// The store's folder when it lies inside the repository at `root` (it never counts as a
    /// working-tree change), and the given repo-relative files; files over `max_hash_bytes`
    /// count by size and modification time.
    pub fn store_and_files(
        root: &Path,
        store: &Path,
        files: Vec<String>,
        max_hash_bytes: u64,
    ) -> StateExclusions {
        StateExclusions {
            folders: store
                .strip_prefix(root)
                .ok()
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .into_iter()
                .collect(),
            files,
            max_hash_bytes,
        }
    }

    fn excludes(&self, path: &str) -> bool {
        self.files.iter().any(|f| f == path)
            || self
                .folders
                .iter()
                .any(|d| path == d || path.starts_with(&format!("{d}/")))
            || is_scip_index_path(path)
    }
}

/// Whether a repo-relative path is a SCIP index where they are auto-discovered, or the
/// `<index>.commit` sidecar of one.
pub fn is_scip_index_path(path: &str) -> bool {
    let index = path.strip_suffix(".commit").unwrap_or(path);
    index == "index.scip"
        || ((index.starts_with(".scip/") || index.starts_with(".ckb/")) && index.ends_with(".scip"))
}

/// Opens the git repository whose work tree is exactly `root`, if any.
///
/// A folder nested inside some other repository is not that repository's root: it is snapshotted
/// as a plain folder, because its history would be the enclosing repository's.
pub fn open_repository(root: &Path) -> Result<Option<gix::Repository>, PipelineError> {
    if !root.join(".git").exists() {
        return Ok(None);
    }
    let mut repo = gix::open(root).map_err(|e| PipelineError::Git {
        message: format!("cannot open the repository at {}: {e}", root.display()),
    })?;
    // Sub-second mtimes decide which entries are racily clean (git's USE_NSEC build flag, off in
    // gix by default). Without them every file written in the same second as the index, which is
    // every file of a fresh clone, is re-read and SHA-1-hashed on each status. With them only
    // files whose mtime is not older than the index's, to the nanosecond, are: a file changed in
    // the same clock tick as the index still compares equal and is re-read, so nothing dirty is
    // missed. `core.checkStat = minimal` still turns the nanoseconds off. This only saves time:
    // should the setting be refused, the repository keeps the configuration it was opened with
    // (gix restores it) and the status is as correct, only slower.
    {
        let mut config = repo.config_snapshot_mut();
        if config
            .set_value(&gix::config::tree::gitoxide::Core::USE_NSEC, "true")
            .is_ok()
        {
            let _ = config.commit();
        }
    }
    Ok(Some(repo))
}

/// Reads the state of a git repository. `None` when `root` is not the root of a git work tree.
pub fn read_git_state(
    root: &Path,
    exclusions: &StateExclusions,
) -> Result<Option<RepoState>, PipelineError> {
    match open_repository(root)? {
        Some(repo) => read_state_of(&repo, root, exclusions).map(Some),
        None => Ok(None),
    }
}

/// Reads the state of the repository [`open_repository`] opened at `root`: the state part of
/// [`status_of`].
pub fn read_state_of(
    repo: &gix::Repository,
    root: &Path,
    exclusions: &StateExclusions,
) -> Result<RepoState, PipelineError> {
    status_of(repo, root, exclusions).map(|s| s.state)
}

/// [`read_state_of`], with a `large-file-unhashed` warning in `warnings` for each file counted
/// by its size and modification time instead of its content.
pub fn read_state_noting(
    repo: &gix::Repository,
    root: &Path,
    exclusions: &StateExclusions,
    warnings: &mut Vec<Warning>,
) -> Result<RepoState, PipelineError> {
    status_noting(repo, root, exclusions, warnings).map(|s| s.state)
}

/// The state of a repository and what makes it dirty, path by path.
#[derive(Clone, Debug)]
pub struct RepoStatus {
    /// The state.
    pub state: RepoState,
    /// Each staged, changed or untracked path (ckb's own inputs and outputs excluded) with what
    /// changed: the staged change, or a fingerprint of the working-tree content.
    pub entries: std::collections::BTreeMap<String, String>,
}

impl RepoStatus {
    /// The paths whose status differs in `later`: dirty in one and not the other, or with other
    /// content. Sorted.
    pub fn changed_since(&self, later: &RepoStatus) -> Vec<String> {
        let mut paths: std::collections::BTreeSet<&String> = std::collections::BTreeSet::new();
        for (path, what) in &later.entries {
            if self.entries.get(path) != Some(what) {
                paths.insert(path);
            }
        }
        for path in self.entries.keys() {
            if !later.entries.contains_key(path) {
                paths.insert(path);
            }
        }
        paths.into_iter().cloned().collect()
    }
}

/// Reads the state of the repository [`open_repository`] opened at `root`, with the paths that
/// make it dirty.
pub fn status_of(
    repo: &gix::Repository,
    root: &Path,
    exclusions: &StateExclusions,
) -> Result<RepoStatus, PipelineError> {
    status_noting(repo, root, exclusions, &mut Vec::new())
}

/// A working-tree file's path and content fingerprint; a `large-file-unhashed` warning in
/// `warnings` when its size and modification time stand for its content.
fn fingerprint_noting(
    root: &Path,
    exclusions: &StateExclusions,
    path: String,
    rela: &gix::bstr::BStr,
    warnings: &mut Vec<Warning>,
) -> (String, String) {
    let (content, large) =
        content_fingerprint(&root.join(path_from_git(rela)), exclusions.max_hash_bytes);
    if let Some(bytes) = large {
        warnings.push(Warning {
            code: LARGE_FILE_UNHASHED.into(),
            path: Some(path.clone()),
            message: format!(
                "{bytes} bytes, over maxHashBytes ({}): its size and modification time \
                 stand for its content in the repository state",
                exclusions.max_hash_bytes
            ),
        });
    }
    (path, content)
}

/// [`status_of`], noting in `warnings` the files counted by size and modification time.
fn status_noting(
    repo: &gix::Repository,
    root: &Path,
    exclusions: &StateExclusions,
    warnings: &mut Vec<Warning>,
) -> Result<RepoStatus, PipelineError> {
    let fingerprint = |path: String, rela: &gix::bstr::BStr, warnings: &mut Vec<Warning>| {
        fingerprint_noting(root, exclusions, path, rela, warnings)
    };
    let git_err = |what: &str, e: &dyn std::fmt::Display| PipelineError::Git {
        message: format!("{what}: {e}"),
    };
    let head = repo.head().map_err(|e| git_err("cannot read HEAD", &e))?;
    let head_ref = head.referent_name().map(|n| n.as_bstr().to_string());
    let detached = head.is_detached();
    let unborn = head.is_unborn();
    let head_commit = if unborn {
        None
    } else {
        Some(
            repo.head_id()
                .map_err(|e| git_err("cannot resolve HEAD", &e))?
                .to_string(),
        )
    };
    let shallow = repo.is_shallow().unwrap_or(false);
    if let Some(head) = &head_commit {
        check_head_commit(repo, head)?;
    }
    let head_time = head_commit.as_deref().and_then(|h| committer_time(repo, h));
    // A tree of HEAD that cannot be read stops the status; name it rather than the status.
    let status_err = |e: &dyn std::fmt::Display| {
        head_commit
            .as_deref()
            .and_then(|head| unreadable_head_tree(repo, head))
            .unwrap_or_else(|| git_err("cannot compute status", e))
    };

    let mut staged: Vec<(String, String)> = Vec::new();
    let mut worktree: Vec<(String, String)> = Vec::new();
    let mut untracked: Vec<(String, String)> = Vec::new();
    let status = repo
        .status(gix::progress::Discard)
        .map_err(|e| status_err(&e))?
        .untracked_files(gix::status::UntrackedFiles::Files)
        .index_worktree_submodules(None)
        .into_iter(None)
        .map_err(|e| status_err(&e))?;
    for item in status {
        let item = item.map_err(|e| status_err(&e))?;
        match item {
            gix::status::Item::TreeIndex(change) => {
                let (path, what) = staged_change(&change);
                if !exclusions.excludes(&path) {
                    staged.push((path, what));
                }
            }
            gix::status::Item::IndexWorktree(item) => {
                use gix::status::index_worktree::Item;
                match item {
                    Item::Modification { rela_path, .. } => {
                        let path = rela_path.to_str_lossy().into_owned();
                        if !exclusions.excludes(&path) {
                            worktree.push(fingerprint(path, rela_path.as_ref(), warnings));
                        }
                    }
                    Item::DirectoryContents { entry, .. } => {
                        if entry.status == gix::dir::entry::Status::Untracked {
                            let path = entry.rela_path.to_str_lossy().into_owned();
                            if !exclusions.excludes(&path) {
                                untracked.push(fingerprint(
                                    path,
                                    entry.rela_path.as_ref(),
                                    warnings,
                                ));
                            }
                        }
                    }
                    Item::Rewrite {
                        dirwalk_entry,
                        source,
                        ..
                    } => {
                        let path = dirwalk_entry.rela_path.to_str_lossy().into_owned();
                        let from = source.rela_path().to_str_lossy().into_owned();
                        if !exclusions.excludes(&path) {
                            worktree.push((from, "D".into()));
                            untracked.push(fingerprint(
                                path,
                                dirwalk_entry.rela_path.as_ref(),
                                warnings,
                            ));
                        }
                    }
                }
            }
        }
    }
    let entries = status_entries(&staged, &worktree, &untracked);
    let staged_hash = list_hash("staged", &mut staged);
    let worktree_hash = list_hash("worktree", &mut worktree);
    let untracked_hash = list_hash("untracked", &mut untracked);
    let dirty = !(staged.is_empty() && worktree.is_empty() && untracked.is_empty());
    let mut id = FieldHasher::new("ckb.repo-state.v1");
    id.field(head_commit.as_deref().unwrap_or("").as_bytes())
        .field(staged_hash.as_bytes())
        .field(worktree_hash.as_bytes())
        .field(untracked_hash.as_bytes());
    let state = RepoState {
        is_git: true,
        head_commit,
        head_ref: if detached { None } else { head_ref },
        head_time,
        // Counted once the previous snapshot is known (`first_parent_depth`), which often
        // shortens the walk to a few commits.
        head_depth: None,
        detached,
        unborn,
        shallow,
        clone_state: Some(clone_state(repo)),
        staged_hash: Some(staged_hash),
        worktree_hash: Some(worktree_hash),
        untracked_hash: Some(untracked_hash),
        dirty,
        repo_state_id: id.hex(32),
    };
    Ok(RepoStatus { state, entries })
}

/// Every dirty path with its kind (`staged`, `worktree`, `untracked`) and what changed.
fn status_entries(
    staged: &[(String, String)],
    worktree: &[(String, String)],
    untracked: &[(String, String)],
) -> std::collections::BTreeMap<String, String> {
    let mut entries = std::collections::BTreeMap::new();
    for (kind, list) in [
        ("staged", staged),
        ("worktree", worktree),
        ("untracked", untracked),
    ] {
        for (path, what) in list {
            entries.insert(path.clone(), format!("{kind} {what}"));
        }
    }
    entries
}

/// A change staged in the index against HEAD's tree: its path and what it is, for the staged hash.
fn staged_change(change: &gix::diff::index::ChangeRef<'_, '_>) -> (String, String) {
    use gix::diff::index::ChangeRef;
    match change {
        ChangeRef::Addition { location, id, .. } => {
            (location.to_string(), format!("A {}", id.to_hex()))
        }
        ChangeRef::Deletion { location, .. } => (location.to_string(), "D".to_string()),
        ChangeRef::Modification {
            location,
            id,
            entry_mode,
            ..
        } => (
            location.to_string(),
            format!("M {} {entry_mode:?}", id.to_hex()),
        ),
        ChangeRef::Rewrite {
            location,
            source_location,
            id,
            ..
        } => (
            location.to_string(),
            format!("R {source_location} {}", id.to_hex()),
        ),
    }
}

/// The promisor remote of a partial clone: where git fetches the objects the clone left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PromisorRemote {
    /// Remote name.
    pub name: String,
    /// Its `partialclonefilter`, if any.
    pub filter: Option<String>,
}

/// The promisor remote: `extensions.partialClone` (set by git before 2.x learned per-remote
/// promisors) or the first remote, by name, with `remote.<name>.promisor` true.
pub(crate) fn promisor_remote(repo: &gix::Repository) -> Option<PromisorRemote> {
    let config = repo.config_snapshot();
    let value = |key: &str| {
        config
            .string(key)
            .map(|v| v.to_string())
            .filter(|v| !v.is_empty())
    };
    let name = value("extensions.partialClone").or_else(|| {
        repo.remote_names()
            .iter()
            .map(|n| n.to_string())
            .find(|n| config.boolean(format!("remote.{n}.promisor").as_str()) == Some(true))
    })?;
    let filter = value(&format!("remote.{name}.partialCloneFilter"));
    Some(PromisorRemote { name, filter })
}

/// The kind of clone `repo` is (see [`CloneState`]); `damaged` is for the git stage to find.
pub fn clone_state(repo: &gix::Repository) -> CloneState {
    let mut shallow_boundary: Vec<String> = repo
        .shallow_commits()
        .ok()
        .flatten()
        .map(|c| c.iter().map(|id| id.to_string()).collect())
        .unwrap_or_default();
    shallow_boundary.sort();
    let promisor = promisor_remote(repo);
    let kind = match &promisor {
        Some(p) => match p.filter.as_deref() {
            Some("blob:none") => "blobless",
            Some("tree:0") => "treeless",
            _ => "partial",
        },
        None if !shallow_boundary.is_empty() => "shallow",
        None => "full",
    };
    CloneState {
        kind: kind.into(),
        filter: promisor.and_then(|p| p.filter),
        shallow_boundary,
    }
}

/// The error for an object of HEAD that cannot be read, with the fix for this kind of clone.
pub(crate) fn head_unreadable(repo: &gix::Repository, what: String) -> PipelineError {
    let kind = clone_state(repo).kind;
    let remediation = match kind.as_str() {
        "blobless" | "treeless" | "partial" => format!(
            "this is a {kind} partial clone that lacks objects of its own checkout (cloned with \
             --no-checkout?): run `git checkout`, which fetches them from the promisor remote, or \
             clone without --filter"
        ),
        _ => "the repository's object store is damaged where HEAD needs it: `git fsck --full` \
              lists the broken objects; restore them from another clone (`git fetch` from a \
              complete copy) or clone again"
            .into(),
    };
    PipelineError::HeadUnreadable {
        message: format!("{what} (a {kind} clone)"),
        remediation,
    }
}

/// Checks that HEAD's commit and root tree can be read.
fn check_head_commit(repo: &gix::Repository, head: &str) -> Result<(), PipelineError> {
    let Ok(id) = gix::ObjectId::from_hex(head.as_bytes()) else {
        return Ok(());
    };
    let tree = match repo.try_find_object(id) {
        Ok(Some(object)) => match object.try_into_commit().map(|c| c.tree_id()) {
            Ok(Ok(tree)) => tree.detach(),
            Ok(Err(e)) => {
                return Err(head_unreadable(
                    repo,
                    format!("the HEAD commit {id} cannot be decoded: {e}"),
                ))
            }
            Err(e) => return Err(head_unreadable(repo, format!("HEAD {id}: {e}"))),
        },
        Ok(None) => {
            return Err(head_unreadable(
                repo,
                format!("the HEAD commit {id} is missing"),
            ))
        }
        Err(e) => {
            return Err(head_unreadable(
                repo,
                format!("the HEAD commit {id} cannot be read: {e}"),
            ))
        }
    };
    match unreadable_object(repo, &[tree], false) {
        Some((object, why)) => Err(head_unreadable(
            repo,
            format!("HEAD {id}: its tree {object} {why}"),
        )),
        None => Ok(()),
    }
}

/// The error naming a tree of HEAD that cannot be read, if one cannot.
fn unreadable_head_tree(repo: &gix::Repository, head: &str) -> Option<PipelineError> {
    let id = gix::ObjectId::from_hex(head.as_bytes()).ok()?;
    let tree = repo.find_commit(id).ok()?.tree_id().ok()?.detach();
    let (object, why) = unreadable_object(repo, &[tree], true)?;
    Some(head_unreadable(
        repo,
        format!("HEAD {id}: its tree {object} {why}"),
    ))
}

/// The first object below the trees `roots` (only the roots unless `recurse`) that cannot be
/// read, with why: "is missing" or "cannot be read (<cause>)". Blobs and submodules are not
/// visited.
pub(crate) fn unreadable_object(
    repo: &gix::Repository,
    roots: &[gix::ObjectId],
    recurse: bool,
) -> Option<(gix::ObjectId, String)> {
    let mut stack: Vec<gix::ObjectId> = roots.to_vec();
    let mut seen = std::collections::HashSet::new();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let object = match repo.try_find_object(id) {
            Ok(Some(o)) => o,
            Ok(None) => return Some((id, "is missing".into())),
            Err(e) => return Some((id, format!("cannot be read ({e})"))),
        };
        let decoded = match object.try_into_tree() {
            Ok(tree) => tree.decode().map(|d| {
                d.entries
                    .iter()
                    .filter(|e| e.mode.is_tree())
                    .map(|e| e.oid.to_owned())
                    .collect::<Vec<_>>()
            }),
            Err(e) => return Some((id, format!("cannot be read ({e})"))),
        };
        match decoded {
            Ok(subtrees) if recurse => stack.extend(subtrees),
            Ok(_) => {}
            Err(e) => return Some((id, format!("cannot be read ({e})"))),
        }
    }
    None
}

/// The committer time (Unix seconds) of the commit `sha`, if it can be read.
fn committer_time(repo: &gix::Repository, sha: &str) -> Option<i64> {
    let id = gix::ObjectId::from_hex(sha.as_bytes()).ok()?;
    let commit = repo.find_commit(id).ok()?;
    let time = commit.committer().ok()?.seconds();
    Some(time)
}

/// Commits on the first-parent chain of `head`, `head` included: `git rev-list --first-parent
/// --count <head>`. `known` is a commit whose count is known already (the previous snapshot's
/// head): the walk stops there, so a snapshot one commit after its previous one reads one
/// commit. `None` when the chain cannot be followed to its root (a shallow clone, a missing
/// object) or is longer than `max_walk`.
///
/// The walk reads only each commit's parents (gix's traversal, with the commit-graph file when the
/// clone has one): about 7 400 commits of cargo's history took 1 to 2 s reading whole commits
/// one by one on a loaded machine.
pub fn first_parent_depth(
    repo: &gix::Repository,
    head: &str,
    known: Option<(&str, i64)>,
    max_walk: usize,
) -> Option<i64> {
    let head = gix::ObjectId::from_hex(head.as_bytes()).ok()?;
    let known = known.and_then(|(sha, depth)| {
        gix::ObjectId::from_hex(sha.as_bytes())
            .ok()
            .map(|id| (id, depth))
    });
    let walk = repo.rev_walk([head]).first_parent_only().all().ok()?;
    let max_walk = i64::try_from(max_walk).unwrap_or(i64::MAX);
    let mut walked: i64 = 0;
    for info in walk {
        let id = info.ok()?.id;
        if let Some((_, depth)) = known.filter(|(sha, _)| *sha == id) {
            return walked.checked_add(depth);
        }
        if walked == max_walk {
            return None;
        }
        walked += 1;
    }
    // The walk ended: at the root, unless the clone is shallow (it ends at the boundary).
    (!repo.is_shallow().unwrap_or(true)).then_some(walked)
}

/// State of a folder outside git: identified by the content of what the scan kept.
pub fn nogit_state<'a>(files: impl Iterator<Item = (&'a str, &'a str)>) -> RepoState {
    let mut h = FieldHasher::new("ckb.nogit-state.v1");
    for (path, hash) in files {
        h.field(path.as_bytes()).field(hash.as_bytes());
    }
    RepoState {
        is_git: false,
        dirty: false,
        repo_state_id: h.hex(32),
        ..RepoState::default()
    }
}

fn list_hash(domain: &str, items: &mut [(String, String)]) -> String {
    items.sort();
    let mut h = FieldHasher::new(domain);
    for (path, what) in items.iter() {
        h.field(path.as_bytes()).field(what.as_bytes());
    }
    h.hex(32)
}

fn path_from_git(p: &gix::bstr::BStr) -> std::path::PathBuf {
    // Paths git hands back are valid on this platform (they came from the work tree).
    gix::path::from_bstr(p)
        .map(|c| c.into_owned())
        .unwrap_or_else(|_| std::path::PathBuf::from(p.to_str_lossy().into_owned()))
}

/// The code of the warning for a file counted by its size and modification time.
pub const LARGE_FILE_UNHASHED: &str = "large-file-unhashed";

/// What stands for a working-tree file's content in the state: the hash of its bytes, read as a
/// stream, or — over `max_bytes`, returned second — its size and modification time, unread.
fn content_fingerprint(path: &Path, max_bytes: u64) -> (String, Option<u64>) {
    let fingerprint = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => match std::fs::read_link(path) {
            Ok(target) => format!(
                "link {}",
                blake3::hash(target.as_os_str().as_encoded_bytes())
            ),
            Err(_) => "unreadable".into(),
        },
        Ok(m) if m.is_file() && m.len() > max_bytes => {
            let modified = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| format!("{}.{:09}", d.as_secs(), d.subsec_nanos()))
                .unwrap_or_default();
            return (format!("large {} {modified}", m.len()), Some(m.len()));
        }
        Ok(m) if m.is_file() => {
            let mut hasher = blake3::Hasher::new();
            // A file that grew since its size was read is hashed up to the limit.
            match std::fs::File::open(path).and_then(|f| {
                hasher
                    .update_reader(std::io::Read::take(f, max_bytes))
                    .map(drop)
            }) {
                Ok(()) => hasher.finalize().to_hex().to_string(),
                Err(_) => "unreadable".into(),
            }
        }
        Ok(_) => "other".into(),
        Err(_) => "deleted".into(),
    };
    (fingerprint, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_over_the_limit_counts_by_size_and_time_and_one_at_it_by_content() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data.bin");
        std::fs::write(&path, vec![7u8; 1000]).unwrap();
        let (at_limit, large) = content_fingerprint(&path, 1000);
        assert_eq!(large, None);
        assert_eq!(at_limit, blake3::hash(&[7u8; 1000]).to_hex().to_string());
        let (over, large) = content_fingerprint(&path, 999);
        assert_eq!(large, Some(1000));
        assert!(over.starts_with("large 1000 "), "{over}");
        // A change of content that keeps the size changes the modification time, and so the
        // fingerprint.
        let before = over;
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&path, vec![8u8; 1000]).unwrap();
        assert_ne!(content_fingerprint(&path, 999).0, before);
    }

    /// `git rev-list --first-parent --count`: a merged branch's commits do not count, a known
    /// commit on the chain ends the walk, a chain of exactly `max_walk` commits is counted and a
    /// longer one is not, and a shallow clone (its chain cut) has no depth.
    #[test]
    fn first_parent_depth_counts_the_first_parent_chain_to_its_root() {
        use test_support::{git, git_commit_all, git_init, write_file};
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir(&root).unwrap();
        git_init(&root);
        let mut main = Vec::new();
        for i in 0..3 {
            write_file(&root, "a.txt", format!("{i}"));
            main.push(git_commit_all(&root, "main"));
        }
        git(&root, &["checkout", "-q", "-b", "side", &main[1]]);
        for i in 0..2 {
            write_file(&root, "b.txt", format!("{i}"));
            git_commit_all(&root, "side");
        }
        git(&root, &["checkout", "-q", "main"]);
        git(&root, &["merge", "-q", "--no-ff", "-m", "merge", "side"]);
        let head = git(&root, &["rev-parse", "HEAD"]);
        let expected = git(&root, &["rev-list", "--first-parent", "--count", "HEAD"]);
        assert_eq!(expected, "4");
        let repo = open_repository(&root).unwrap().unwrap();
        assert_eq!(first_parent_depth(&repo, &head, None, 100), Some(4));
        // The known commit's count is taken as given: the walk stops there.
        assert_eq!(
            first_parent_depth(&repo, &head, Some((&main[1], 20)), 100),
            Some(22)
        );
        assert_eq!(first_parent_depth(&repo, &head, None, 4), Some(4));
        assert_eq!(first_parent_depth(&repo, &head, None, 3), None);
        let shallow = dir.path().join("shallow");
        let url = format!("file://{}", root.display());
        git(
            dir.path(),
            &["clone", "-q", "--depth", "2", &url, "shallow"],
        );
        let repo = open_repository(&shallow).unwrap().unwrap();
        assert_eq!(first_parent_depth(&repo, &head, None, 100), None);
        assert_eq!(
            first_parent_depth(&repo, &head, Some((&main[2], 3)), 100),
            Some(4)
        );
    }
}
