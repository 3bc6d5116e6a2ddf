//! Choosing the history window: which commits the snapshot describes.
//!
//! The window is every commit reachable from HEAD along parent links (only first parents in
//! first-parent mode) without passing through a commit whose committer time is before the cutoff
//! (HEAD's committer time minus `days`; no cutoff when `days` is 0). Like `git log --since`, an
//! out-of-window commit hides its ancestors even if their clocks claim they are newer, so a commit
//! with a skewed clock can cut the window short but never makes it depend on walk order. Commits
//! whose clock is ahead of HEAD are kept. With `max_commits`, the window keeps the newest N by
//! (committer time descending, sha ascending). Parents of shallow-clone boundary commits are not
//! available and are not followed. A commit other than HEAD that cannot be read (lost from a
//! damaged repository) is not in the window and hides its ancestors, like a boundary; it is
//! listed so the stage can say so.
//!
//! The result is a property of the commit graph alone, which is what makes incremental snapshots
//! exact: commits that the previous snapshot already described are taken from its rows (time and
//! parents included), everything else is read from the object database.

use std::collections::{HashMap, HashSet, VecDeque};

use gix::ObjectId;
use output_schema::tables::CommitRow;

use super::author::{is_bot, AuthorHasher};
use crate::PipelineError;

/// Where a window commit's row comes from.
pub(crate) enum Origin {
    /// Index into the previous snapshot's commit rows.
    Reused(usize),
    /// Read now; needs a diff.
    New(NewCommit),
}

/// What is known about a commit read from the object database.
pub(crate) struct NewCommit {
    /// Its root tree.
    pub tree: ObjectId,
    /// Author time (Unix seconds).
    pub author_time: i64,
    /// Salted author hash.
    pub author_id: String,
    /// Whether the author looks like a bot.
    pub is_bot: bool,
}

/// A commit of the window.
pub(crate) struct WindowCommit {
    pub id: ObjectId,
    pub committer_time: i64,
    /// Parents as recorded in the commit, in order.
    pub parents: Vec<ObjectId>,
    pub origin: Origin,
    /// A shallow-clone boundary: its parents are not in the repository.
    pub shallow_boundary: bool,
}

/// The chosen window.
pub(crate) struct Window {
    /// Commits, newest first (committer time descending, sha ascending).
    pub commits: Vec<WindowCommit>,
    /// Commits in the window before `max_commits` was applied.
    pub total: usize,
    /// Parents reached by the walk that cannot be read: id and why, sorted.
    pub unreadable: Vec<(ObjectId, String)>,
}

/// How authors are identified.
pub(crate) struct Authors {
    pub hasher: AuthorHasher,
    pub mailmap: gix::mailmap::Snapshot,
}

/// Settings of the walk.
pub(crate) struct WalkSettings {
    /// Commits with a committer time before this are out of the window.
    pub cutoff: Option<i64>,
    pub first_parent: bool,
    /// 0 = no limit.
    pub max_commits: usize,
}

/// Rows of a previous snapshot, looked up by commit.
pub(crate) struct PreviousRows<'a> {
    pub commits: &'a [CommitRow],
    pub by_id: HashMap<ObjectId, usize>,
    /// Parsed parents per row.
    pub parents: Vec<Vec<ObjectId>>,
}

/// Walks the window from `head`.
pub(crate) fn walk(
    repo: &gix::Repository,
    head: ObjectId,
    settings: &WalkSettings,
    previous: Option<&PreviousRows<'_>>,
    shallow: &[ObjectId],
    authors: &Authors,
) -> Result<Window, PipelineError> {
    let mut queue = VecDeque::from([head]);
    let mut seen: HashSet<ObjectId> = HashSet::from([head]);
    let mut commits = Vec::new();
    let mut unreadable = Vec::new();
    while let Some(id) = queue.pop_front() {
        let shallow_boundary = shallow.binary_search(&id).is_ok();
        let reused = previous.and_then(|p| p.by_id.get(&id).map(|&i| (p, i)));
        let (committer_time, parents, origin) = match reused {
            Some((p, i)) => (
                p.commits[i].committer_time,
                p.parents[i].clone(),
                Origin::Reused(i),
            ),
            None => match read_commit(repo, id, authors) {
                Ok(read) => read,
                Err(e) if id != head => {
                    unreadable.push((id, e));
                    continue;
                }
                Err(e) => {
                    return Err(PipelineError::Git {
                        message: format!("commit {id}: {e}"),
                    })
                }
            },
        };
        if id != head && settings.cutoff.is_some_and(|c| committer_time < c) {
            continue;
        }
        if !shallow_boundary {
            let follow = if settings.first_parent {
                &parents[..parents.len().min(1)]
            } else {
                &parents[..]
            };
            for p in follow {
                if seen.insert(*p) {
                    queue.push_back(*p);
                }
            }
        }
        commits.push(WindowCommit {
            id,
            committer_time,
            parents,
            origin,
            shallow_boundary,
        });
    }
    commits.sort_by(|a, b| {
        b.committer_time
            .cmp(&a.committer_time)
            .then_with(|| a.id.cmp(&b.id))
    });
    let total = commits.len();
    if settings.max_commits > 0 {
        commits.truncate(settings.max_commits);
    }
    unreadable.sort();
    Ok(Window {
        commits,
        total,
        unreadable,
    })
}

/// Reads a commit's committer time, parents and author; the error says why it cannot ("is
/// missing", or the cause).
fn read_commit(
    repo: &gix::Repository,
    id: ObjectId,
    authors: &Authors,
) -> Result<(i64, Vec<ObjectId>, Origin), String> {
    let git_err = |what: &str, e: &dyn std::fmt::Display| format!("{what}: {e}");
    let object = match repo.try_find_object(id) {
        Ok(Some(object)) => object,
        Ok(None) => return Err("is missing".into()),
        Err(e) => return Err(git_err("cannot be read", &super::diff::chain(&e))),
    };
    let commit = object
        .try_into_commit()
        .map_err(|e| git_err("not a commit", &e))?;
    let decoded = commit.decode().map_err(|e| git_err("cannot decode", &e))?;
    let committer = decoded
        .committer()
        .map_err(|e| git_err("cannot parse the committer", &e))?;
    let author = decoded
        .author()
        .map_err(|e| git_err("cannot parse the author", &e))?;
    let resolved = authors.mailmap.resolve_cow(author);
    let new = NewCommit {
        tree: decoded.tree(),
        author_time: author.seconds(),
        author_id: authors.hasher.id(resolved.email.as_ref()),
        is_bot: is_bot(resolved.name.as_ref(), resolved.email.as_ref()),
    };
    Ok((
        committer.seconds(),
        decoded.parents().collect(),
        Origin::New(new),
    ))
}
