//! Paths in warnings made relative before they enter a standard snapshot. Problems are reported
//! with the path the user gave or a library's own wording, often absolute; a snapshot keeps paths
//! relative to the repository or the store, and names nothing outside them.

use std::path::Path;

use output_schema::layout::{COMMIT_PARTITION, REPO_PARTITION};

/// Makes the paths in warnings relative to one repository and store, whose folders are resolved
/// once: a run rewrites every warning of every stage (hundreds on a large repository), and
/// resolving the two folders again for each (`canonicalize`, a system call per path component)
/// was most of that cost.
pub(crate) struct RelativePaths {
    /// Folder as written → what it is shown as; longest first.
    prefixes: Vec<(String, &'static str)>,
}

impl RelativePaths {
    pub(crate) fn new(root: &Path, store_root: &Path) -> RelativePaths {
        let mut prefixes: Vec<(String, &'static str)> = Vec::new();
        for (dir, shown) in [(store_root, "<store>"), (root, ".")] {
            prefixes.push((dir.to_string_lossy().into_owned(), shown));
            if let Ok(canonical) = dir.canonicalize() {
                prefixes.push((canonical.to_string_lossy().into_owned(), shown));
            }
        }
        // Longest first: the store usually lies inside the repository.
        prefixes.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.cmp(b)));
        prefixes.dedup();
        RelativePaths { prefixes }
    }

    /// `text` with every absolute path made relative: paths under the repository lose its folder,
    /// paths under the store become `<store>/…`, and any other absolute path (a `--previous` folder
    /// elsewhere, a library's message naming a file outside) becomes `<outside>`, followed by its
    /// last component only when that is a name of the store's layout (`commit=…`, a table file).
    /// Warnings name what the user or a library gave, often absolute; a snapshot must not.
    pub(crate) fn apply(&self, text: &str) -> String {
        let prefixes = &self.prefixes;
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = find_absolute_path(rest) {
            out.push_str(&rest[..start]);
            let tail = &rest[start..];
            let end = tail
                .find(|c: char| {
                    c.is_whitespace() || matches!(c, '"' | '\'' | '`' | ')' | ',' | ';')
                })
                .unwrap_or(tail.len());
            // A trailing colon ends a path in messages such as `/a/b: permission denied`.
            let end = if tail[..end].ends_with(':') {
                end - 1
            } else {
                end
            }
            .max(1);
            let path = &tail[..end];
            let known = prefixes.iter().find_map(|(prefix, shown)| {
                let below = path.strip_prefix(prefix.as_str())?;
                match below.strip_prefix('/') {
                    Some(rel) if *shown == "." => Some(rel.to_string()),
                    Some(rel) => Some(format!("{shown}/{rel}")),
                    None if below.is_empty() => Some(shown.to_string()),
                    None => None,
                }
            });
            out.push_str(&known.unwrap_or_else(|| {
                // A name of the store's own layout says which snapshot or file; any other name is
                // the user's and stays out.
                let last = path
                    .rsplit(['/', '\\'])
                    .find(|c| !c.is_empty())
                    .unwrap_or("");
                let layout = last.starts_with(COMMIT_PARTITION)
                    || last.starts_with(REPO_PARTITION)
                    || last.ends_with(".parquet")
                    || last.ends_with(".zst");
                if layout {
                    format!("<outside>/{last}")
                } else {
                    "<outside>".to_string()
                }
            }));
            rest = &tail[end..];
        }
        out.push_str(rest);
        out
    }
}

/// Where the next absolute path in `text` starts: a `/` (or a Windows drive, `C:\`) at the start
/// or after a space, quote, parenthesis, `=` or `:`.
fn find_absolute_path(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    (0..bytes.len()).find(|&i| {
        let boundary = i == 0
            || matches!(
                bytes[i - 1],
                b' ' | b'\t' | b'\n' | b'"' | b'\'' | b'`' | b'(' | b'=' | b':'
            );
        // Not a lone `/` (`a / b`), not the `//` of a URL.
        let unix = bytes[i] == b'/'
            && bytes
                .get(i + 1)
                .is_some_and(|c| !c.is_ascii_whitespace() && *c != b'/');
        let windows = bytes[i].is_ascii_alphabetic()
            && bytes.get(i + 1) == Some(&b':')
            && matches!(bytes.get(i + 2), Some(b'\\') | Some(b'/'));
        boundary && (unix || windows)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_name_paths_relative_to_the_repository_or_the_store() {
        let root = Path::new("/work/repo");
        let store = Path::new("/work/repo/.ckb/snapshots");
        let paths = RelativePaths::new(root, store);
        let rel = |s: &str| paths.apply(s);
        assert_eq!(
            rel("IO error for operation on /work/repo/src/a.rs: Permission denied"),
            "IO error for operation on src/a.rs: Permission denied"
        );
        assert_eq!(
            rel("--previous /work/repo/.ckb/snapshots/repo=r/commit=c: no manifest; ignored"),
            "--previous <store>/repo=r/commit=c: no manifest; ignored"
        );
        assert_eq!(
            rel("--previous /home/me/secret/snap is a snapshot of x"),
            "--previous <outside> is a snapshot of x"
        );
        assert_eq!(
            rel("/elsewhere/repo=r/commit=c/manifest.json.zst: bad"),
            "<outside>/manifest.json.zst: bad"
        );
        assert_eq!(
            rel("--previous /elsewhere/repo=r/commit=c"),
            "--previous <outside>/commit=c"
        );
        assert_eq!(rel("error at (/work/repo)"), "error at (.)");
        assert_eq!(
            rel("a / b and src/x.rs, https://e.org/x"),
            "a / b and src/x.rs, https://e.org/x"
        );
        assert_eq!(rel("C:\\Users\\me\\x failed"), "<outside> failed");
    }
}
