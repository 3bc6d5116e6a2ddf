//! Repo-relative path arithmetic and the file index every resolver looks things up in.
//!
//! Paths are repo-relative and `/`-separated; the repository root is `.`. Joining never leaves
//! the repository: a relative path that climbs above the root yields `None`, and the caller
//! counts it as an import escaping the repository.

use crate::fast_map::{FastMap, FastSet};

/// The directory holding `path` (`.` for a file at the root).
pub fn parent_dir(path: &str) -> &str {
    match path.rfind('/') {
        Some(i) => &path[..i],
        None => ".",
    }
}

/// The last component of a path.
pub fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// `dir` and each of its ancestors up to and including `.`.
pub fn ancestors(dir: &str) -> impl Iterator<Item = &str> {
    let mut next = Some(dir);
    std::iter::from_fn(move || {
        let cur = next?;
        next = if cur == "." || cur.is_empty() {
            None
        } else {
            Some(parent_dir(cur))
        };
        Some(if cur.is_empty() { "." } else { cur })
    })
}

/// Joins a relative path onto a repo-relative directory, resolving `.` and `..`; `None` when
/// the result would leave the repository or `rel` is absolute.
pub fn join(dir: &str, rel: &str) -> Option<String> {
    let b = rel.as_bytes();
    let drive = b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':';
    if rel.starts_with('/') || rel.starts_with('\\') || drive {
        return None;
    }
    let mut parts: Vec<&str> = if dir == "." || dir.is_empty() {
        Vec::new()
    } else {
        dir.split('/').collect()
    };
    for seg in rel.split(['/', '\\']) {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    })
}

/// Normalizes a repo-relative folder given by a user or a manifest (`./a/b/` → `a/b`, `` → `.`);
/// `None` when it is absolute or climbs out of the repository.
pub fn normalize_dir(dir: &str) -> Option<String> {
    join(".", dir.trim())
}

/// Joins a directory and a child name (`.` + `a` → `a`).
pub fn child(dir: &str, name: &str) -> String {
    if dir == "." || dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// `path` relative to `dir` when it lies inside it (`""` for the folder itself).
pub fn strip_dir<'p>(path: &'p str, dir: &str) -> Option<&'p str> {
    if dir == "." || dir.is_empty() {
        return Some(path);
    }
    let rest = path.strip_prefix(dir)?;
    if rest.is_empty() {
        Some("")
    } else {
        rest.strip_prefix('/')
    }
}

/// Lookups over the scanned files: membership, folders, and files by name (for suffix matching).
pub struct RepoIndex<'a> {
    files: FastSet<&'a str>,
    dirs: FastSet<String>,
    by_name: FastMap<&'a str, Vec<&'a str>>,
}

impl<'a> RepoIndex<'a> {
    /// Indexes the given paths (the scan's files).
    pub fn new(paths: impl Iterator<Item = &'a str>) -> RepoIndex<'a> {
        let mut files = FastSet::default();
        let mut dirs = FastSet::default();
        let mut by_name: FastMap<&'a str, Vec<&'a str>> = FastMap::default();
        for p in paths {
            files.insert(p);
            by_name.entry(file_name(p)).or_default().push(p);
            for d in ancestors(parent_dir(p)) {
                if !dirs.insert(d.to_string()) {
                    break;
                }
            }
        }
        // Sorting each list in place: the order lists are visited in cannot leak.
        #[allow(clippy::iter_over_hash_type)]
        for v in by_name.values_mut() {
            v.sort_unstable();
        }
        RepoIndex {
            files,
            dirs,
            by_name,
        }
    }

    /// Whether a file with this path was scanned.
    pub fn is_file(&self, path: &str) -> bool {
        self.files.contains(path)
    }

    /// Whether some scanned file lies under this folder.
    pub fn is_dir(&self, path: &str) -> bool {
        self.dirs.contains(path)
    }

    /// Scanned files with this file name, sorted by path.
    pub fn named(&self, name: &str) -> &[&'a str] {
        self.by_name
            .get(name)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// Scanned files whose path ends with `/suffix` or equals it, sorted by path.
    pub fn with_suffix(&self, suffix: &str) -> Vec<&'a str> {
        self.named(file_name(suffix))
            .iter()
            .copied()
            .filter(|p| {
                *p == suffix
                    || p.ends_with(suffix) && p.as_bytes()[p.len() - suffix.len() - 1] == b'/'
            })
            .collect()
    }

    /// Files ending in any of `suffixes` (each as [`RepoIndex::with_suffix`] matches it), sorted.
    pub fn with_any_suffix(&self, suffixes: &[String]) -> Vec<String> {
        let mut out: Vec<String> = suffixes
            .iter()
            .flat_map(|s| self.with_suffix(s))
            .map(String::from)
            .collect();
        out.sort();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_resolves_dots_and_refuses_escapes() {
        assert_eq!(join("a/b", "../c").as_deref(), Some("a/c"));
        assert_eq!(join(".", "./x/./y").as_deref(), Some("x/y"));
        assert_eq!(join("a", "..").as_deref(), Some("."));
        assert_eq!(join("a", "../.."), None);
        assert_eq!(join(".", "/etc/passwd"), None);
        assert_eq!(join(".", "C:/x"), None);
    }

    #[test]
    fn ancestors_end_at_root() {
        assert_eq!(
            ancestors("a/b/c").collect::<Vec<_>>(),
            ["a/b/c", "a/b", "a", "."]
        );
        assert_eq!(ancestors(".").collect::<Vec<_>>(), ["."]);
    }

    #[test]
    fn suffix_lookup_matches_whole_components() {
        let idx = RepoIndex::new(
            [
                "src/com/acme/Util.java",
                "x/acme/Util.java",
                "xacme/Util.java",
            ]
            .into_iter(),
        );
        assert_eq!(
            idx.with_suffix("acme/Util.java"),
            ["src/com/acme/Util.java", "x/acme/Util.java"]
        );
        assert!(idx.is_dir("src/com") && idx.is_dir(".") && !idx.is_dir("src/com/acme/Util.java"));
        assert_eq!(strip_dir("a/b/c", "a"), Some("b/c"));
        assert_eq!(strip_dir("ab/c", "a"), None);
        assert_eq!(strip_dir("a", "a"), Some(""));
    }
}
