//! What each commit changed: a tree diff against the first parent, git's rename detection, and
//! line counts from a real line diff of the blobs — the numbers `git log --numstat -M` prints.
//!
//! How the numbers match git's:
//! - Renames: [`super::rename`] pairs added and deleted paths exactly as `git diff -M` does (no
//!   copies). Empty files take part, as in git.
//! - Lines: tokens are whole lines including their terminator, diffed with the repository's
//!   `diff.algorithm` (git's default, Myers), so a changed final newline counts as one line
//!   deleted and one added, as in git. [`super::lines`] computes them without hashing the
//!   unchanged leading and trailing lines, with the same result as a diff of the whole blobs.
//! - Binary (a NUL byte in the first 8000 bytes, the `binary`/`-diff` attributes of the current
//!   checkout, or above `core.bigFileThreshold`): no line counts, `is_binary` true — git prints
//!   `-`. No text conversion is run (that would execute configured programs).
//! - Submodules (gitlinks) are changes without line counts and not binary (git prints a one-line
//!   "Subproject commit" diff for them instead).
//! - A shallow-clone boundary commit has no parent to diff against: it gets no rows rather than a
//!   fake "everything added" diff.
//!
//! - Objects that are not there (left out of a blobless or treeless partial clone, or lost) or
//!   cannot be read do not stop the stage: a change whose blob is unavailable keeps its kind and
//!   paths with null line counts (and renames only where the blob ids match exactly, see
//!   [`super::rename`]); a commit whose trees (or first parent) are unavailable gets no rows and
//!   no totals. Each output names the objects, so the stage can report them and
//!   `--history-fetch-missing` can fetch exactly those.
//!
//! Paths that are not valid UTF-8 or that could escape the repository (`..`, empty components)
//! are not rows; they still count in the commit's totals, so `files_changed` minus the commit's
//! rows is the number skipped. Commits are diffed in parallel; results keep input order.

use gix::bstr::{BStr, BString, ByteSlice};
use gix::diff::blob::platform::prepare_diff::Operation;
use gix::diff::blob::{Algorithm, ResourceKind};
use gix::diff::tree_with_rewrites::ChangeRef;
use gix::objs::tree::EntryMode;
use gix::objs::TreeRefIter;
use gix::ObjectId;
use output_schema::tables::FileChangeRow;
use rayon::prelude::*;

use super::lines::diff_lines;
use super::rename::{self, Side};
use crate::scan::count_lines;
use crate::{PipelineError, Progress};

/// One commit to diff.
#[derive(Clone)]
pub(crate) struct DiffInput {
    pub id: ObjectId,
    pub tree: ObjectId,
    /// The first parent and its tree if known; `None` for a root commit (diffed against the
    /// empty tree).
    pub first_parent: Option<(ObjectId, Option<ObjectId>)>,
    /// Parents unavailable (shallow clone): not diffed.
    pub shallow_boundary: bool,
}

/// What one commit changed.
#[derive(Debug, Default)]
pub(crate) struct DiffOutput {
    /// One row per usable path.
    pub rows: Vec<FileChangeRow>,
    /// All changed files, including skipped paths.
    pub files_changed: i64,
    /// Lines added over all text files.
    pub additions: i64,
    /// Lines deleted over all text files.
    pub deletions: i64,
    /// What the diff could not read.
    pub gaps: Gaps,
}

/// Objects a commit's diff needed but could not read, and what that cost.
#[derive(Debug, Default)]
pub(crate) struct Gaps {
    /// Changes (rows or skipped paths) without line counts because a blob is unavailable.
    pub changes_without_lines: i64,
    /// A missing blob kept rename detection from scoring a pair.
    pub renames_unscored: bool,
    /// The commit's changes are unknown: a tree or the first parent cannot be read.
    pub changes_unknown: bool,
    /// Objects not in the repository (sorted, distinct): what a fetch could bring.
    pub missing: Vec<ObjectId>,
    /// Objects present but unreadable, with the cause (sorted, distinct).
    pub unreadable: Vec<(ObjectId, String)>,
}

impl Gaps {
    /// Whether anything was unavailable.
    pub fn any(&self) -> bool {
        !self.missing.is_empty() || !self.unreadable.is_empty()
    }

    /// Records an object that could not be read: `None` = missing, else the cause.
    fn record(&mut self, id: ObjectId, cause: Option<String>) {
        match cause {
            None => self.missing.push(id),
            Some(cause) => self.unreadable.push((id, cause)),
        }
    }

    fn finish(&mut self) {
        self.missing.sort_unstable();
        self.missing.dedup();
        self.unreadable.sort();
        self.unreadable.dedup_by(|a, b| a.0 == b.0);
    }
}

/// A change of one path after rename detection.
enum Change {
    Added(Side),
    Deleted(Side),
    Modified { old: Side, new: Side },
    Renamed { old: Side, new: Side },
}

/// Diffs `inputs` in parallel, keeping their order.
pub(crate) fn diff_commits(
    repo: &gix::Repository,
    inputs: &[DiffInput],
    progress: &dyn Progress,
) -> Result<Vec<DiffOutput>, PipelineError> {
    if inputs.is_empty() {
        return Ok(Vec::new());
    }
    let platform = repo
        .diff_resource_cache(
            gix::diff::blob::pipeline::Mode::ToGit,
            gix::diff::blob::pipeline::WorktreeRoots::default(),
        )
        .map_err(|e| PipelineError::Git {
            message: format!("cannot set up blob diffs: {}", chain(&e)),
        })?;
    let platform = std::sync::Mutex::new(platform);
    let shared = repo.clone().into_sync();
    inputs
        .par_iter()
        .map_init(
            || {
                let mut repo = shared.to_thread_local();
                repo.object_cache_size_if_unset(16 * 1024 * 1024);
                // A poisoned lock only means another worker panicked; the template is unchanged.
                let platform = match platform.lock() {
                    Ok(p) => p.clone(),
                    Err(poisoned) => poisoned.into_inner().clone(),
                };
                let mut attributes = gix::attrs::search::Outcome::default();
                attributes.initialize_with_selection(&Default::default(), Some("diff"));
                Worker {
                    repo,
                    big_file_threshold: platform.filter.options.large_file_threshold_bytes,
                    algorithm: platform.options.algorithm.unwrap_or_default(),
                    platform,
                    state: Default::default(),
                    attributes,
                    old_buf: Vec::new(),
                    new_buf: Vec::new(),
                    gaps: Gaps::default(),
                }
            },
            |worker, input| {
                let out = worker.diff(input);
                progress.advance(1);
                out
            },
        )
        .collect()
}

struct Worker {
    repo: gix::Repository,
    platform: gix::diff::blob::Platform,
    state: gix::diff::tree::State,
    /// The `diff` attribute of the path being read.
    attributes: gix::attrs::search::Outcome,
    /// `core.bigFileThreshold`: larger blobs are binary (0 = no limit).
    big_file_threshold: u64,
    /// The repository's `diff.algorithm`.
    algorithm: Algorithm,
    old_buf: Vec<u8>,
    new_buf: Vec<u8>,
    /// What the commit being diffed could not read.
    gaps: Gaps,
}

/// What a blob turned out to be.
enum Content {
    Text,
    Binary,
    /// Has a diff driver (or was not read): leave it to gix's pipeline.
    Pipeline,
    /// Not available (missing or unreadable; recorded in the gaps).
    Unavailable,
}

/// Blob access for rename detection that records unavailable blobs instead of failing.
struct RenameBlobs<'a> {
    repo: &'a gix::Repository,
    gaps: &'a mut Gaps,
}

impl RenameBlobs<'_> {
    /// What a lookup found; a missing or unreadable object is recorded in the gaps and is `None`.
    fn available<T, E: std::error::Error + 'static>(
        &mut self,
        id: ObjectId,
        found: Result<Option<T>, E>,
    ) -> Option<T> {
        match found {
            Ok(Some(value)) => Some(value),
            Ok(None) => {
                self.gaps.record(id, None);
                None
            }
            Err(e) => {
                self.gaps.record(id, Some(chain(&e)));
                None
            }
        }
    }
}

impl rename::Blobs for RenameBlobs<'_> {
    fn size(&mut self, id: ObjectId) -> Result<Option<u64>, String> {
        let header = self.repo.try_find_header(id);
        Ok(self.available(id, header).map(|h| h.size()))
    }

    fn data(&mut self, id: ObjectId) -> Result<Option<Vec<u8>>, String> {
        let object = self.repo.try_find_object(id);
        Ok(self.available(id, object).map(|o| o.detach().data))
    }
}

impl Worker {
    fn diff(&mut self, input: &DiffInput) -> Result<DiffOutput, PipelineError> {
        if input.shallow_boundary {
            return Ok(DiffOutput::default());
        }
        self.gaps = Gaps::default();
        let mut trees = vec![input.tree];
        let result = self.diff_inner(input, &mut trees);
        self.platform.clear_resource_cache_keep_allocation();
        let mut out = match result {
            Ok(out) => out,
            Err(what) => {
                // gix does not always name the object it failed on (a corrupt loose object is
                // named by its file); find it by reading both trees.
                match crate::repo_state::unreadable_object(&self.repo, &trees, true) {
                    Some((id, why)) => {
                        // Without a tree the commit's changes are unknown: it keeps its row
                        // (time, author, parents) and gets no file changes.
                        let mut gaps = std::mem::take(&mut self.gaps);
                        gaps.record(id, (why != "is missing").then_some(why));
                        gaps.changes_unknown = true;
                        DiffOutput {
                            gaps,
                            ..DiffOutput::default()
                        }
                    }
                    None => {
                        return Err(PipelineError::Git {
                            message: format!("commit {}: {what}", input.id),
                        })
                    }
                }
            }
        };
        out.gaps.finish();
        Ok(out)
    }

    /// Diffs one commit; `trees` collects the root trees involved, for error diagnosis.
    fn diff_inner(
        &mut self,
        input: &DiffInput,
        trees: &mut Vec<ObjectId>,
    ) -> Result<DiffOutput, String> {
        let sha = input.id.to_string();
        let new_tree = self.tree_data(input.tree)?;
        let old_tree = match input.first_parent {
            Some((parent, tree)) => {
                let tree = match tree {
                    Some(t) => t,
                    None => match self.repo.try_find_object(parent) {
                        Ok(Some(object)) => object
                            .try_into_commit()
                            .map_err(|e| e.to_string())
                            .and_then(|c| c.tree_id().map_err(|e| chain(&e)))
                            .map(|t| t.detach())
                            .map_err(|e| format!("cannot read parent {parent}: {e}"))?,
                        // The tree diagnosis cannot see a missing commit: record it here.
                        Ok(None) => {
                            self.gaps.record(parent, None);
                            trees.clear();
                            trees.push(parent);
                            return Err(format!("parent {parent} is missing"));
                        }
                        Err(e) => {
                            let cause = chain(&e);
                            self.gaps.record(parent, Some(cause.clone()));
                            trees.clear();
                            trees.push(parent);
                            return Err(format!("cannot read parent {parent}: {cause}"));
                        }
                    },
                };
                trees.push(tree);
                self.tree_data(tree)?
            }
            None => Vec::new(),
        };
        let changes = self.tree_changes(&old_tree, &new_tree)?;

        let mut out = DiffOutput::default();
        for change in &changes {
            let counts = self.line_counts(change)?;
            if counts.3 {
                self.gaps.changes_without_lines += 1;
            }
            out.files_changed += 1;
            out.additions += counts.0.unwrap_or(0);
            out.deletions += counts.1.unwrap_or(0);
            let (letter, path, old_path) = match change {
                Change::Added(new) => ("A", new.path.as_bstr(), None),
                Change::Deleted(old) => ("D", old.path.as_bstr(), None),
                Change::Modified { new, .. } => ("M", new.path.as_bstr(), None),
                Change::Renamed { old, new } => ("R", new.path.as_bstr(), Some(old.path.as_bstr())),
            };
            let Some(path) = usable_path(path) else {
                continue;
            };
            let old_path = match old_path.map(usable_path) {
                Some(None) => continue,
                Some(Some(p)) => Some(p.to_string()),
                None => None,
            };
            out.rows.push(FileChangeRow {
                sha: sha.clone(),
                path: path.to_string(),
                old_path,
                change: letter.to_string(),
                additions: counts.0,
                deletions: counts.1,
                is_binary: counts.2,
            });
        }
        out.gaps = std::mem::take(&mut self.gaps);
        Ok(out)
    }

    /// The tree diff (files, symlinks and submodules only), with renames paired.
    fn tree_changes(&mut self, old_tree: &[u8], new_tree: &[u8]) -> Result<Vec<Change>, String> {
        let kind = self.repo.object_hash();
        let (mut added, mut deleted, mut changes) = (Vec::new(), Vec::new(), Vec::new());
        let side = |path: &BStr, id: ObjectId, mode: EntryMode| Side {
            path: BString::from(path),
            id,
            mode,
        };
        gix::diff::tree_with_rewrites(
            TreeRefIter::from_bytes(old_tree, kind),
            TreeRefIter::from_bytes(new_tree, kind),
            &mut self.platform,
            &mut self.state,
            &self.repo.objects,
            |change: ChangeRef<'_>| -> gix::Result<gix::diff::tree_with_rewrites::Action> {
                match change {
                    ChangeRef::Addition {
                        location,
                        entry_mode,
                        id,
                        ..
                    } if !entry_mode.is_tree() => added.push(side(location, id, entry_mode)),
                    ChangeRef::Deletion {
                        location,
                        entry_mode,
                        id,
                        ..
                    } if !entry_mode.is_tree() => deleted.push(side(location, id, entry_mode)),
                    ChangeRef::Modification {
                        location,
                        previous_entry_mode,
                        previous_id,
                        entry_mode,
                        id,
                    } if !entry_mode.is_tree() || !previous_entry_mode.is_tree() => {
                        // A tree replaced by a file or the reverse: a deletion and an addition.
                        let old = side(location, previous_id, previous_entry_mode);
                        let new = side(location, id, entry_mode);
                        if previous_entry_mode.is_tree() {
                            added.push(new);
                        } else if entry_mode.is_tree() {
                            deleted.push(old);
                        } else {
                            changes.push(Change::Modified { old, new });
                        }
                    }
                    _ => {}
                }
                Ok(std::ops::ControlFlow::Continue(()))
            },
            gix::diff::tree_with_rewrites::Options {
                location: Some(gix::diff::tree::recorder::Location::Path),
                rewrites: None,
            },
        )
        .map_err(|e| format!("cannot diff against the first parent: {}", chain(&e)))?;

        // git's order: byte order of full paths.
        added.sort_by(|a, b| a.path.cmp(&b.path));
        deleted.sort_by(|a, b| a.path.cmp(&b.path));
        let unavailable_before = self.gaps.missing.len() + self.gaps.unreadable.len();
        let pairs = rename::detect(
            &deleted,
            &added,
            &mut RenameBlobs {
                repo: &self.repo,
                gaps: &mut self.gaps,
            },
        )?;
        if self.gaps.missing.len() + self.gaps.unreadable.len() > unavailable_before {
            self.gaps.renames_unscored = true;
        }
        let mut renamed_src = vec![false; deleted.len()];
        let mut renamed_dst = vec![false; added.len()];
        for &(s, d) in &pairs {
            renamed_src[s] = true;
            renamed_dst[d] = true;
            changes.push(Change::Renamed {
                old: deleted[s].clone(),
                new: added[d].clone(),
            });
        }
        changes.extend(not_renamed(added, renamed_dst).map(Change::Added));
        changes.extend(not_renamed(deleted, renamed_src).map(Change::Deleted));
        Ok(changes)
    }

    fn tree_data(&self, id: ObjectId) -> Result<Vec<u8>, String> {
        self.repo
            .find_tree(id)
            .map(|t| t.detach().data)
            .map_err(|e| format!("cannot read tree {id}: {}", chain(&e)))
    }

    /// (additions, deletions, is_binary, unavailable) of one change; `unavailable`: a blob
    /// could not be read (recorded in the gaps), so there are no line counts.
    ///
    /// Blobs are read straight from the object database and judged binary like gix's diff
    /// pipeline does (`-diff`/`binary` attributes, a NUL in the first 8000 bytes, or larger than
    /// `core.bigFileThreshold`) — without its per-blob header lookup, which for a deltified object
    /// inflates the start of its delta a second time. Paths with a diff driver (`diff=name`) go
    /// through the pipeline, which knows the drivers.
    fn line_counts(&mut self, change: &Change) -> Result<LineCounts, String> {
        let (old, new) = match change {
            Change::Added(new) => (None, Some(new)),
            Change::Deleted(old) => (Some(old), None),
            Change::Modified { old, new } | Change::Renamed { old, new } => (Some(old), Some(new)),
        };
        if old.is_some_and(|s| s.mode.is_commit()) || new.is_some_and(|s| s.mode.is_commit()) {
            return Ok((None, None, false, false));
        }
        let mut old_buf = std::mem::take(&mut self.old_buf);
        let mut new_buf = std::mem::take(&mut self.new_buf);
        let result = (|| -> Result<Option<LineCounts>, String> {
            let (mut binary, mut unavailable) = (false, false);
            for (side, buf) in [(old, &mut old_buf), (new, &mut new_buf)] {
                buf.clear();
                if let Some(side) = side {
                    match self.read_blob(side, buf)? {
                        Content::Text => {}
                        Content::Binary => binary = true,
                        Content::Pipeline => return Ok(None),
                        Content::Unavailable => unavailable = true,
                    }
                }
            }
            if binary {
                return Ok(Some((None, None, true, false)));
            }
            if unavailable {
                return Ok(Some((None, None, false, true)));
            }
            let (added, removed) = match change {
                Change::Added(_) => (count_lines(&new_buf), 0),
                Change::Deleted(_) => (0, count_lines(&old_buf)),
                _ => diff_lines(self.algorithm, &old_buf, &new_buf),
            };
            Ok(Some((Some(added), Some(removed), false, false)))
        })();
        self.old_buf = old_buf;
        self.new_buf = new_buf;
        match result? {
            Some(counts) => Ok(counts),
            None => self.line_counts_via_pipeline(change),
        }
    }

    /// Reads a blob into `buf` unless its attributes already say binary or name a diff driver.
    fn read_blob(&mut self, side: &Side, buf: &mut Vec<u8>) -> Result<Content, String> {
        use gix::objs::Find;
        let entry = self
            .platform
            .attr_stack
            .at_entry(side.path.as_bstr(), None, &self.repo.objects)
            .map_err(|e| format!("cannot read the attributes of {}: {e}", side.path))?;
        entry.matching_attributes(&mut self.attributes);
        if let Some(m) = self.attributes.iter_selected().next() {
            if m.assignment.state.is_unset() {
                return Ok(Content::Binary);
            }
            if m.assignment.state.as_bstr().is_some() {
                return Ok(Content::Pipeline);
            }
        }
        let data = match self.repo.objects.try_find(&side.id, buf) {
            Ok(Some(data)) => data,
            Ok(None) => {
                self.gaps.record(side.id, None);
                return Ok(Content::Unavailable);
            }
            Err(e) => {
                self.gaps.record(side.id, Some(chain(&e)));
                return Ok(Content::Unavailable);
            }
        };
        let (start, len) = (data.data.as_ptr() as usize, data.data.len());
        // The object database fills `buf` with exactly the object; should that ever change, the
        // pipeline reads the blob instead.
        if start != buf.as_ptr() as usize || len != buf.len() {
            return Ok(Content::Pipeline);
        }
        let limit = self.big_file_threshold;
        if (limit > 0 && buf.len() as u64 > limit) || buf[..buf.len().min(8000)].contains(&0) {
            return Ok(Content::Binary);
        }
        Ok(Content::Text)
    }

    /// [`Self::line_counts`] through gix's diff pipeline, for paths with a diff driver.
    fn line_counts_via_pipeline(&mut self, change: &Change) -> Result<LineCounts, String> {
        let null = ObjectId::null(self.repo.object_hash());
        let (old, new) = match change {
            Change::Added(new) => ((null, new.mode, &new.path), (new.id, new.mode, &new.path)),
            Change::Deleted(old) => ((old.id, old.mode, &old.path), (null, old.mode, &old.path)),
            Change::Modified { old, new } | Change::Renamed { old, new } => {
                ((old.id, old.mode, &old.path), (new.id, new.mode, &new.path))
            }
        };
        if old.1.is_commit() || new.1.is_commit() {
            return Ok((None, None, false, false));
        }
        // The pipeline fails on an unavailable blob without saying which: check first.
        let mut unavailable = false;
        for id in [old.0, new.0] {
            if id.is_null() {
                continue;
            }
            match self.repo.try_find_header(id) {
                Ok(Some(_)) => {}
                Ok(None) => {
                    self.gaps.record(id, None);
                    unavailable = true;
                }
                Err(e) => {
                    self.gaps.record(id, Some(chain(&e)));
                    unavailable = true;
                }
            }
        }
        if unavailable {
            return Ok((None, None, false, true));
        }
        for (kind, (id, mode, path)) in [
            (ResourceKind::OldOrSource, old),
            (ResourceKind::NewOrDestination, new),
        ] {
            self.platform
                .set_resource(id, mode.kind(), path.as_bstr(), kind, &self.repo.objects)
                .map_err(|e| {
                    format!(
                        "cannot read the blobs of {path}: {}",
                        chain(&e.into_error())
                    )
                })?;
        }
        let prep = self.platform.prepare_diff().map_err(|e| {
            format!(
                "cannot prepare the diff of {}: {}",
                new.2,
                chain(&e.into_error())
            )
        })?;
        let algorithm = match prep.operation {
            Operation::SourceOrDestinationIsBinary => return Ok((None, None, true, false)),
            Operation::InternalDiff { algorithm } => algorithm,
            Operation::ExternalCommand { .. } => Algorithm::Myers,
        };
        let old_data = prep.old.data.as_slice().unwrap_or_default();
        let new_data = prep.new.data.as_slice().unwrap_or_default();
        let (added, removed) = match change {
            Change::Added(_) => (count_lines(new_data), 0),
            Change::Deleted(_) => (0, count_lines(old_data)),
            _ => diff_lines(algorithm, old_data, new_data),
        };
        Ok((Some(added), Some(removed), false, false))
    }
}

/// The sides whose `renamed` flag is not set, in order.
fn not_renamed(sides: Vec<Side>, renamed: Vec<bool>) -> impl Iterator<Item = Side> {
    sides
        .into_iter()
        .zip(renamed)
        .filter(|(_, r)| !r)
        .map(|(side, _)| side)
}

/// (additions, deletions, is_binary, unavailable) of one change.
type LineCounts = (Option<i64>, Option<i64>, bool, bool);

/// The path as a repo-relative `/` string, if it is valid UTF-8 and stays inside the repository.
fn usable_path(path: &BStr) -> Option<&str> {
    let path = path.to_str().ok()?;
    let safe = !path.is_empty()
        && path
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..");
    safe.then_some(path)
}

/// An error with its causes on one line, for messages that must name the failing object.
pub(crate) fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut current = Some(e);
    while let Some(err) = current {
        let text = err.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        current = err.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_paths_are_refused() {
        assert_eq!(usable_path("src/a.rs".into()), Some("src/a.rs"));
        assert_eq!(usable_path("../x".into()), None);
        assert_eq!(usable_path("a//b".into()), None);
        assert_eq!(usable_path("a/./b".into()), None);
        assert_eq!(usable_path(b"a\xffb".as_bstr()), None);
    }
}
