//! Scan stage: walk the tree, keep source files, and describe each one (`files` table).
//!
//! The walk honours .gitignore (including .git/info/exclude, but never the user's global ignore
//! file, which would make output depend on the machine), .ignore, `.ckbignore` and the config's
//! ignore globs, and always leaves out well-known dependency and build folders, the snapshot store,
//! SCIP indexes where `ckb snapshot` discovers them (with their `.commit` sidecars), and nested
//! repositories or worktrees (a folder holding a `.git` entry). Symlinks are never
//! followed, so nothing outside the repository is read and link loops cannot trap the walk.
//! A file that cannot be used (binary, too large, unreadable, vanished, non-UTF-8 name) is a
//! counted skip with a warning, never an error.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::overrides::OverrideBuilder;
use ignore::WalkBuilder;
use output_schema::manifest::{Completeness, StageReport, Warning};
use output_schema::tables::FileRow;
use rayon::prelude::*;

use crate::scan_cache::{CacheUpdate, ScanCache, Stat};
use crate::stage::{ManifestParts, StageOutput};
use crate::{PipelineError, Progress};

/// Folder names never descended into.
pub const DEFAULT_EXCLUDED_DIRS: &[&str] = &[
    ".git",
    "node_modules",
    "vendor",
    "target",
    "build",
    "dist",
    "__pycache__",
    ".venv",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
    ".gradle",
    ".idea",
];

/// Name of ckb's own ignore file.
pub const CKB_IGNORE_FILE: &str = ".ckbignore";

/// Scan settings.
#[derive(Clone, Debug)]
pub struct ScanConfig {
    /// Files larger than this are skipped.
    pub max_file_bytes: u64,
    /// Extra gitignore-style patterns to leave out.
    pub ignore_globs: Vec<String>,
    /// Absolute folders to leave out (the snapshot store when it lies inside the tree).
    pub excluded_folders: Vec<PathBuf>,
    /// Where the facts of this scan are kept for the next one ([`crate::scan_cache`]); `None`
    /// reads every file.
    pub cache_file: Option<PathBuf>,
}

/// What the scan produced.
#[derive(Debug)]
pub struct ScanOutput {
    /// Kept files, sorted by path.
    pub files: Vec<FileRow>,
    /// Counts, skips and warnings for the manifest.
    pub report: StageReport,
    /// How many kept files were described from the cache, without being read (not in the
    /// manifest: a snapshot is the same either way).
    pub from_cache: usize,
    /// The cache for the next scan, to be saved once the snapshot is published.
    pub cache_update: Option<CacheUpdate>,
}

enum Outcome {
    Kept(FileRow, Option<Stat>),
    Cached(FileRow, Option<Stat>),
    Skipped {
        reason: &'static str,
        path: String,
        message: String,
    },
}

/// Walks `root` and describes every kept file.
pub fn scan(
    root: &Path,
    config: &ScanConfig,
    progress: &dyn Progress,
) -> Result<ScanOutput, PipelineError> {
    progress.stage_started("scan", None);
    let mut overrides = OverrideBuilder::new(root);
    for glob in &config.ignore_globs {
        let pattern = format!("!{}", glob.trim_start_matches('!'));
        overrides.add(&pattern).map_err(|e| PipelineError::Config {
            path: PathBuf::from(output_schema::config::CONFIG_FILE),
            message: format!("key ignore: invalid pattern {glob:?}: {e}"),
        })?;
    }
    let overrides = overrides.build().map_err(|e| PipelineError::Config {
        path: PathBuf::from(output_schema::config::CONFIG_FILE),
        message: format!("key ignore: {e}"),
    })?;

    let root_buf = root.to_path_buf();
    let excluded = config.excluded_folders.clone();
    // filter_entry needs a 'static closure, so the nested-repository list is shared through an Arc.
    let nested = Arc::new(Mutex::new(Vec::<String>::new()));
    let nested_in_walk = Arc::clone(&nested);
    let mut walker = WalkBuilder::new(root);
    walker
        .hidden(false)
        .parents(false)
        .git_global(false)
        .git_ignore(true)
        .git_exclude(true)
        .require_git(false)
        .ignore(true)
        .follow_links(false)
        .add_custom_ignore_filename(CKB_IGNORE_FILE)
        .overrides(overrides)
        .filter_entry(move |entry| {
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            if !is_dir || entry.depth() == 0 {
                return true;
            }
            let name = entry.file_name().to_string_lossy();
            if DEFAULT_EXCLUDED_DIRS.contains(&name.as_ref()) {
                return false;
            }
            if excluded.iter().any(|d| entry.path() == d) {
                return false;
            }
            if entry.path().join(".git").exists() {
                if let (Ok(rel), Ok(mut list)) =
                    (entry.path().strip_prefix(&root_buf), nested_in_walk.lock())
                {
                    list.push(rel.to_string_lossy().replace('\\', "/"));
                }
                return false;
            }
            true
        });
    let candidates = collect_candidates(walker, root);
    let mut nested_list = nested.lock().map(|l| l.clone()).unwrap_or_default();
    nested_list.sort();
    finish_scan(config, candidates, nested_list, progress)
}

#[derive(Default)]
struct Candidates {
    files: Vec<(PathBuf, String)>,
    skipped: Vec<(&'static str, String, String)>,
}

/// Walks with the walker's own threads (one per worker of the pool this runs on): reading folders
/// and their ignore files was the longest serial step of a run on a large tree. Each thread
/// collects into its own lists; the lists are merged and sorted by path, so nothing after the
/// walk depends on which thread saw which entry.
fn collect_candidates(mut walker: WalkBuilder, root: &Path) -> Candidates {
    let found: Mutex<Vec<Candidates>> = Mutex::new(Vec::new());
    walker
        .threads(rayon::current_num_threads())
        .build_parallel()
        .visit(&mut CollectorBuilder {
            root,
            found: &found,
        });
    let mut all = Candidates::default();
    for part in found.into_inner().unwrap_or_else(|e| e.into_inner()) {
        all.files.extend(part.files);
        all.skipped.extend(part.skipped);
    }
    all.files.sort_by(|a, b| a.1.cmp(&b.1));
    all.skipped.sort();
    all
}

/// Makes one [`Collector`] per walker thread.
struct CollectorBuilder<'s> {
    root: &'s Path,
    found: &'s Mutex<Vec<Candidates>>,
}

impl<'s> ignore::ParallelVisitorBuilder<'s> for CollectorBuilder<'s> {
    fn build(&mut self) -> Box<dyn ignore::ParallelVisitor + 's> {
        Box::new(Collector {
            root: self.root,
            found: self.found,
            local: Candidates::default(),
        })
    }
}

/// One walker thread's candidates, handed over when the thread is done with it.
struct Collector<'s> {
    root: &'s Path,
    found: &'s Mutex<Vec<Candidates>>,
    local: Candidates,
}

impl Drop for Collector<'_> {
    fn drop(&mut self) {
        let local = std::mem::take(&mut self.local);
        // Poisoned only if another walker thread panicked, which the walk raises again anyway.
        self.found
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(local);
    }
}

impl ignore::ParallelVisitor for Collector<'_> {
    fn visit(&mut self, entry: Result<ignore::DirEntry, ignore::Error>) -> ignore::WalkState {
        let (root, local) = (self.root, &mut self.local);
        let entry = match entry {
            Ok(e) => e,
            Err(err) => {
                let path = err_path(&err, root);
                let reason = if err.is_io() && format!("{err}").contains("ermission") {
                    "permission-denied"
                } else if format!("{err}").contains("oop") {
                    "symlink-loop"
                } else {
                    "walk-error"
                };
                local.skipped.push((reason, path, err.to_string()));
                return ignore::WalkState::Continue;
            }
        };
        let Some(ft) = entry.file_type() else {
            return ignore::WalkState::Continue;
        };
        if ft.is_dir() {
            return ignore::WalkState::Continue;
        }
        let rel = match entry.path().strip_prefix(root) {
            Ok(r) => r,
            Err(_) => return ignore::WalkState::Continue,
        };
        let Some(rel_str) = rel.to_str() else {
            local.skipped.push((
                "non-utf8-path",
                rel.to_string_lossy().into_owned(),
                "file name is not valid UTF-8".into(),
            ));
            return ignore::WalkState::Continue;
        };
        let rel_str = rel_str.replace('\\', "/");
        // ckb's own inputs (SCIP indexes where they are discovered, their commit sidecars) are
        // not files of the repository, as the store is not: an index next to the code must not
        // change the `files` table.
        if crate::repo_state::is_scip_index_path(&rel_str) {
            return ignore::WalkState::Continue;
        }
        if ft.is_symlink() {
            local
                .skipped
                .push(("symlink", rel_str, "symbolic links are not followed".into()));
            return ignore::WalkState::Continue;
        }
        if !ft.is_file() {
            local
                .skipped
                .push(("special-file", rel_str, "not a regular file".into()));
            return ignore::WalkState::Continue;
        }
        // Fault injection (`CKB_FAILPOINT=kill@walk#N`): a run killed in the middle of the walk.
        let _ = output_schema::failpoint::hit("walk");
        local.files.push((entry.into_path(), rel_str));
        ignore::WalkState::Continue
    }
}

fn err_path(err: &ignore::Error, root: &Path) -> String {
    fn find(err: &ignore::Error) -> Option<&Path> {
        match err {
            ignore::Error::WithPath { path, .. } => Some(path),
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                find(err)
            }
            ignore::Error::Loop { child, .. } => Some(child),
            _ => None,
        }
    }
    find(err)
        .map(|p| {
            p.strip_prefix(root)
                .unwrap_or(p)
                .to_string_lossy()
                .replace('\\', "/")
        })
        .unwrap_or_default()
}

fn finish_scan(
    config: &ScanConfig,
    candidates: Candidates,
    nested: Vec<String>,
    progress: &dyn Progress,
) -> Result<ScanOutput, PipelineError> {
    let cache = config
        .cache_file
        .as_deref()
        .map(|f| ScanCache::open(f, crate::scan_cache::SETTLE));
    let outcomes: Vec<Outcome> = candidates
        .files
        .par_iter()
        .map(|(abs, rel)| {
            let out = describe(abs, rel, config.max_file_bytes, cache.as_ref());
            progress.advance(1);
            out
        })
        .collect();
    let mut files = Vec::with_capacity(outcomes.len());
    let mut counts: BTreeMap<String, i64> = BTreeMap::new();
    let mut warnings = Vec::new();
    for (reason, path, message) in candidates.skipped {
        *counts.entry(format!("skipped.{reason}")).or_default() += 1;
        warnings.push(Warning {
            code: reason.to_string(),
            path: Some(path),
            message,
        });
    }
    for path in nested {
        *counts
            .entry("skipped.nested-repository".into())
            .or_default() += 1;
        warnings.push(Warning {
            code: "nested-repository".into(),
            path: Some(path),
            message: "a nested git repository or worktree is not descended into".into(),
        });
    }
    let mut stats = Vec::with_capacity(outcomes.len());
    let mut from_cache = 0;
    for o in outcomes {
        match o {
            Outcome::Kept(row, stat) => {
                stats.push(stat);
                files.push(row);
            }
            Outcome::Cached(row, stat) => {
                from_cache += 1;
                stats.push(stat);
                files.push(row);
            }
            Outcome::Skipped {
                reason,
                path,
                message,
            } => {
                *counts.entry(format!("skipped.{reason}")).or_default() += 1;
                warnings.push(Warning {
                    code: reason.to_string(),
                    path: Some(path),
                    message,
                });
            }
        }
    }
    let cache_update = cache
        .as_ref()
        .map(|cache| cache.update(files.iter().zip(stats.iter().copied())));
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let mut breakdown: BTreeMap<String, BTreeMap<String, i64>> = BTreeMap::new();
    for f in &files {
        let lang = f.language.clone().unwrap_or_else(|| "unknown".into());
        let e = breakdown.entry(lang).or_default();
        *e.entry("files".into()).or_default() += 1;
        *e.entry("lines".into()).or_default() += f.line_count;
        *e.entry("bytes".into()).or_default() += f.size_bytes;
    }
    counts.insert("files".into(), files.len() as i64);
    counts.insert(
        "tests".into(),
        files.iter().filter(|f| f.is_test).count() as i64,
    );
    counts.insert(
        "generated".into(),
        files.iter().filter(|f| f.is_generated).count() as i64,
    );
    let unusable = warnings
        .iter()
        .filter(|w| {
            matches!(
                w.code.as_str(),
                "permission-denied" | "read-error" | "vanished" | "walk-error" | "non-utf8-path"
            )
        })
        .count();
    let mut report = StageReport::ran(unusable > 0);
    report.items = files.len() as i64;
    report.counts = counts;
    report.breakdown = breakdown;
    let total = files.len() + unusable;
    report.completeness = Some(Completeness {
        score: if total == 0 {
            1.0
        } else {
            files.len() as f64 / total as f64
        },
        reason: if unusable > 0 {
            "unreadable-files".into()
        } else {
            "full".into()
        },
    });
    report.set_warnings(warnings);
    progress.stage_finished("scan", &format!("{} files", files.len()));
    Ok(ScanOutput {
        files,
        report,
        from_cache,
        cache_update,
    })
}

/// The skip reason and message of an I/O error on a file being described.
fn io_problem(e: &std::io::Error) -> (&'static str, String) {
    match e.kind() {
        std::io::ErrorKind::NotFound => ("vanished", "file disappeared during the scan".into()),
        std::io::ErrorKind::PermissionDenied => ("permission-denied", e.to_string()),
        _ => ("read-error", e.to_string()),
    }
}

fn describe(abs: &Path, rel: &str, max_bytes: u64, cache: Option<&ScanCache>) -> Outcome {
    let skip = |reason: &'static str, message: String| Outcome::Skipped {
        reason,
        path: rel.to_string(),
        message,
    };
    let meta = match std::fs::metadata(abs) {
        Ok(m) => m,
        Err(e) => {
            let (reason, message) = io_problem(&e);
            return skip(reason, message);
        }
    };
    if meta.len() > max_bytes {
        return skip(
            "oversized",
            format!("{} bytes exceeds the limit of {max_bytes}", meta.len()),
        );
    }
    let stat = Stat::of(&meta);
    if let Some(row) = cache.and_then(|c| c.lookup(rel, stat)) {
        return Outcome::Cached(row, stat);
    }
    let bytes = match std::fs::read(abs) {
        Ok(b) => b,
        Err(e) => {
            let (reason, message) = io_problem(&e);
            return skip(reason, message);
        }
    };
    if bytes.len() as u64 > max_bytes {
        return skip(
            "oversized",
            format!("grew past the limit of {max_bytes} bytes"),
        );
    }
    if is_binary(&bytes) {
        return skip("binary", "binary content".into());
    }
    Outcome::Kept(
        FileRow {
            path: rel.to_string(),
            language: detect_language(rel, &bytes).map(str::to_string),
            size_bytes: bytes.len() as i64,
            line_count: count_lines(&bytes),
            content_hash: content_hash(&bytes),
            module_id: None,
            is_test: is_test_path(rel),
            is_generated: is_generated(rel, &bytes),
        },
        stat,
    )
}

/// The content hash recorded for a file: BLAKE3, first 32 hex digits.
pub fn content_hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex()[..32].to_string()
}

/// A NUL byte in the first 8 KiB marks a file as binary (as git does).
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(8192)].contains(&0)
}

/// Lines in a file as git counts them (the history stage's added and deleted lines too): every
/// `\n`, plus a last line without one.
pub fn count_lines(bytes: &[u8]) -> i64 {
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count() as i64;
    newlines + i64::from(!bytes.is_empty() && bytes.last() != Some(&b'\n'))
}

/// Language of a file from its extension, or its shebang line.
pub fn detect_language(path: &str, bytes: &[u8]) -> Option<&'static str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let lower = name.to_ascii_lowercase();
    let by_name = match lower.as_str() {
        "makefile" | "gnumakefile" => Some("make"),
        "dockerfile" => Some("dockerfile"),
        "cmakelists.txt" => Some("cmake"),
        _ => None,
    };
    if by_name.is_some() {
        return by_name;
    }
    if let Some((_, ext)) = lower.rsplit_once('.') {
        let lang = match ext {
            "rs" => Some("rust"),
            "py" | "pyi" | "pyw" => Some("python"),
            "ts" | "mts" | "cts" => Some("typescript"),
            "tsx" => Some("tsx"),
            "js" | "mjs" | "cjs" | "jsx" => Some("javascript"),
            "go" => Some("go"),
            "java" => Some("java"),
            "c" | "h" => Some("c"),
            "cc" | "cpp" | "cxx" | "c++" | "hpp" | "hh" | "hxx" | "h++" | "ipp" | "tpp" => {
                Some("cpp")
            }
            "cs" => Some("csharp"),
            "kt" | "kts" => Some("kotlin"),
            "scala" | "sc" => Some("scala"),
            "swift" => Some("swift"),
            "rb" => Some("ruby"),
            "php" => Some("php"),
            "dart" => Some("dart"),
            "lua" => Some("lua"),
            "sh" | "bash" | "zsh" => Some("shell"),
            "sql" => Some("sql"),
            "proto" => Some("protobuf"),
            "md" | "markdown" => Some("markdown"),
            "json" => Some("json"),
            "yaml" | "yml" => Some("yaml"),
            "toml" => Some("toml"),
            "xml" => Some("xml"),
            "html" | "htm" => Some("html"),
            "css" | "scss" | "sass" | "less" => Some("css"),
            "scm" => Some("scheme"),
            "gradle" | "groovy" => Some("groovy"),
            _ => None,
        };
        if lang.is_some() {
            return lang;
        }
    }
    shebang_language(bytes)
}

fn shebang_language(bytes: &[u8]) -> Option<&'static str> {
    let first = bytes.split(|&b| b == b'\n').next()?;
    let line = std::str::from_utf8(first).ok()?.strip_prefix("#!")?;
    let mut words = line.split_whitespace();
    let mut prog = words.next()?.rsplit('/').next()?;
    if prog == "env" {
        prog = words.find(|w| !w.starts_with('-'))?;
    }
    let prog = prog.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    match prog {
        "python" => Some("python"),
        "node" | "nodejs" | "deno" | "bun" => Some("javascript"),
        "sh" | "bash" | "zsh" | "dash" | "ksh" => Some("shell"),
        "ruby" => Some("ruby"),
        "perl" => Some("perl"),
        "php" => Some("php"),
        "lua" => Some("lua"),
        _ => None,
    }
}

/// Whether a path looks like a test by its folders or its name.
pub fn is_test_path(path: &str) -> bool {
    let mut parts: Vec<&str> = path.split('/').collect();
    let name = parts.pop().unwrap_or("");
    if parts.iter().any(|d| {
        matches!(
            *d,
            "test" | "tests" | "__tests__" | "testing" | "spec" | "specs" | "testdata"
        )
    }) {
        return true;
    }
    let lower = name.to_ascii_lowercase();
    let stem = lower.split('.').next().unwrap_or("");
    stem.ends_with("_test")
        || stem.ends_with("_tests")
        || stem.ends_with("_spec")
        || lower.contains(".test.")
        || lower.contains(".spec.")
        || (lower.starts_with("test_") && lower.ends_with(".py"))
        || lower == "conftest.py"
        || (name.ends_with("Test.java")
            || name.ends_with("Tests.java")
            || name.ends_with("Test.kt"))
}

const LOCKFILES: &[&str] = &[
    "Cargo.lock",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "poetry.lock",
    "Pipfile.lock",
    "uv.lock",
    "go.sum",
    "Gemfile.lock",
    "composer.lock",
    "pubspec.lock",
    "bun.lockb",
    "flake.lock",
];

/// Whether a file is generated, by its name or a marker near its top.
pub fn is_generated(path: &str, bytes: &[u8]) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    if LOCKFILES.contains(&name) {
        return true;
    }
    let lower = name.to_ascii_lowercase();
    let by_name = lower.ends_with(".pb.go")
        || lower.contains(".pb.")
        || lower.ends_with("_pb2.py")
        || lower.ends_with("_pb2_grpc.py")
        || lower.ends_with(".min.js")
        || lower.ends_with(".min.css")
        || lower.ends_with(".g.dart")
        || lower.ends_with(".freezed.dart")
        || lower.contains(".generated.")
        || lower.ends_with("_generated.go")
        || lower.ends_with(".designer.cs");
    if by_name {
        return true;
    }
    let head = &bytes[..bytes.len().min(2048)];
    contains(head, b"@generated")
        || contains(head, b"Code generated") && contains(head, b"DO NOT EDIT")
        || contains(head, b"<auto-generated")
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(haystack, needle).is_some()
}

impl StageOutput for ScanOutput {
    type Rows = Vec<FileRow>;
    /// The cache update is taken out before (it is saved only once the snapshot is published).
    fn split(self) -> (Vec<FileRow>, ManifestParts) {
        (self.files, ManifestParts::report(self.report))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_by_extension_and_shebang() {
        assert_eq!(detect_language("a/b.rs", b""), Some("rust"));
        assert_eq!(detect_language("x.TSX", b""), Some("tsx"));
        assert_eq!(detect_language("inc/a.hpp", b""), Some("cpp"));
        assert_eq!(
            detect_language("bin/tool", b"#!/usr/bin/env python3\n"),
            Some("python")
        );
        assert_eq!(
            detect_language("bin/run", b"#!/bin/bash -e\n"),
            Some("shell")
        );
        assert_eq!(
            detect_language("bin/x", b"#!/usr/bin/env -S node --x\n"),
            Some("javascript")
        );
        assert_eq!(detect_language("README", b"hello"), None);
    }

    #[test]
    fn test_paths() {
        for p in [
            "tests/a.rs",
            "src/a_test.go",
            "a.test.ts",
            "b.spec.js",
            "test_x.py",
            "pkg/FooTest.java",
            "x/__tests__/y.js",
        ] {
            assert!(is_test_path(p), "{p}");
        }
        for p in ["src/lib.rs", "testing.md.rs", "contest.py", "src/attest.rs"] {
            assert!(!is_test_path(p), "{p}");
        }
    }

    #[test]
    fn generated_files() {
        assert!(is_generated("Cargo.lock", b""));
        assert!(is_generated("a/b.pb.go", b""));
        assert!(is_generated("x.min.js", b""));
        assert!(is_generated("a.rs", b"// @generated by foo\n"));
        assert!(is_generated(
            "a.go",
            b"// Code generated by x. DO NOT EDIT.\n"
        ));
        assert!(!is_generated("a.rs", b"fn main() {}"));
    }

    #[test]
    fn line_counts() {
        assert_eq!(count_lines(b""), 0);
        assert_eq!(count_lines(b"a"), 1);
        assert_eq!(count_lines(b"a\n"), 1);
        assert_eq!(count_lines(b"a\nb"), 2);
        assert_eq!(count_lines(b"\n\n"), 2);
    }
}
