//! What the drivers share: the repository as the scan saw it ([`Context`]), the projects in it
//! (folders holding a build file, outermost first), finding an indexer on `PATH` and asking its
//! version, and quoting a command for the report.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use output_schema::tables::FileRow;

use super::process::{self, Ending, Spawn};

/// The repository an indexer plans its runs over.
pub struct Context<'a> {
    /// The repository root (absolute, canonical).
    pub root: &'a Path,
    /// The scan's files, sorted by path.
    pub files: &'a [FileRow],
    /// A temporary folder outside the repository for files an indexer reads (generated
    /// configurations); removed after the run.
    pub scratch: &'a Path,
    /// ckb's cache folder, when it may keep one.
    pub cache_dir: Option<&'a Path>,
}

impl<'a> Context<'a> {
    /// A context.
    pub fn new(
        root: &'a Path,
        files: &'a [FileRow],
        scratch: &'a Path,
        cache_dir: Option<&'a Path>,
    ) -> Context<'a> {
        Context {
            root,
            files,
            scratch,
            cache_dir,
        }
    }

    /// Scanned files of the given languages.
    pub fn files_of<'s>(&'s self, languages: &'s [&str]) -> impl Iterator<Item = &'s FileRow> {
        self.files.iter().filter(move |f| {
            f.language
                .as_deref()
                .is_some_and(|l| languages.contains(&l))
        })
    }

    /// Whether the scan kept a file at `path` (repository-relative).
    pub fn scanned(&self, path: &str) -> bool {
        self.files
            .binary_search_by(|f| f.path.as_str().cmp(path))
            .is_ok()
    }

    /// The folders (repository-relative, `.` for the root) that hold one of the files `names`
    /// among the scanned files, outermost only: a folder inside another such folder belongs to
    /// it (a workspace member, a package of a solution). Sorted, the root first.
    pub fn outermost_projects(&self, names: &[&str]) -> Vec<String> {
        let mut dirs: BTreeSet<String> = BTreeSet::new();
        for f in self.files {
            let (dir, name) = match f.path.rsplit_once('/') {
                Some((d, n)) => (d.to_string(), n),
                None => (".".to_string(), f.path.as_str()),
            };
            if names.contains(&name) {
                dirs.insert(dir);
            }
        }
        if dirs.contains(".") {
            return vec![".".into()];
        }
        let mut out: Vec<String> = Vec::new();
        for d in dirs {
            // Sorted: a folder's ancestors come before it.
            if !out.iter().any(|o| d.starts_with(&format!("{o}/"))) {
                out.push(d);
            }
        }
        out
    }

    /// The absolute folder of a project (`.`: the root).
    pub fn dir_of(&self, project: &str) -> PathBuf {
        if project == "." {
            self.root.to_path_buf()
        } else {
            self.root.join(project)
        }
    }
}

/// The label of a project's index file: its folder with `/` as `-` (`.`: none).
pub fn label_of(project: &str) -> Option<String> {
    (project != ".").then(|| {
        project
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                    c
                } else {
                    '-'
                }
            })
            .collect()
    })
}

/// An executable named `name` on `PATH`.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// How long `<indexer> --version` may take (node-based indexers start slowly on a busy machine).
const PROBE_TIMEOUT: Duration = Duration::from_secs(60);

/// Finds `tool` on `PATH` and asks its version: its path and version, or why it cannot run. An
/// executable that does not run counts as missing (rustup's `rust-analyzer` proxy exists even
/// without the component, and says so when run).
pub fn probe(tool: &str) -> Result<(PathBuf, String), String> {
    let Some(program) = find_on_path(tool) else {
        return Err(format!("{tool} is not on PATH"));
    };
    let finished = process::run(
        &Spawn {
            program: program.clone(),
            args: vec!["--version".into()],
            cwd: std::env::temp_dir(),
            env: Vec::new(),
        },
        PROBE_TIMEOUT,
        &AtomicBool::new(false),
        &|_| {},
    );
    let first = |lines: &[String]| lines.iter().find(|l| !l.trim().is_empty()).cloned();
    match finished.ending {
        Ending::Success => {
            let line = first(&finished.stdout_tail)
                .or_else(|| first(&finished.stderr_tail))
                .unwrap_or_default();
            let version = line.trim();
            let version = version
                .strip_prefix(tool)
                .map(str::trim)
                .unwrap_or(version)
                .trim_start_matches('v');
            Ok((
                program,
                if version.is_empty() {
                    "unknown".into()
                } else {
                    version.to_string()
                },
            ))
        }
        _ => {
            let said = finished.tail().join(" ");
            Err(format!(
                "{} is on PATH but `{tool} --version` fails{}",
                program.display(),
                if said.is_empty() {
                    String::new()
                } else {
                    format!(": {said}")
                }
            ))
        }
    }
}

/// `word` quoted for a POSIX shell when it needs it.
pub fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@,+%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, language: Option<&str>) -> FileRow {
        FileRow {
            path: path.into(),
            language: language.map(str::to_string),
            size_bytes: 1,
            line_count: 1,
            content_hash: String::new(),
            module_id: None,
            is_test: false,
            is_generated: false,
        }
    }

    #[test]
    fn outermost_projects_leave_out_nested_ones() {
        let files = vec![
            file("crates/a/Cargo.toml", Some("toml")),
            file("crates/a/sub/Cargo.toml", Some("toml")),
            file("tools/gen/Cargo.toml", Some("toml")),
            file("tools/gen2/Cargo.toml", Some("toml")),
        ];
        let root = Path::new("/r");
        let ctx = Context::new(root, &files, root, None);
        assert_eq!(
            ctx.outermost_projects(&["Cargo.toml"]),
            ["crates/a", "tools/gen", "tools/gen2"]
        );
        let mut with_root = files.clone();
        with_root.insert(0, file("Cargo.toml", Some("toml")));
        let ctx = Context::new(root, &with_root, root, None);
        assert_eq!(ctx.outermost_projects(&["Cargo.toml"]), ["."]);
        assert!(ctx.outermost_projects(&["go.mod"]).is_empty());
        assert_eq!(label_of("tools/gen 2"), Some("tools-gen-2".into()));
        assert_eq!(label_of("."), None);
    }

    #[test]
    fn words_are_quoted_only_when_needed() {
        assert_eq!(shell_word("--output=.ckb/x.scip"), "--output=.ckb/x.scip");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
    }
}
