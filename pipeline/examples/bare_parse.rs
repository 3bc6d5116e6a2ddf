//! Benchmark floor for the syntax stage: walk a tree, read every file, and parse every file of a
//! supported language (detected like the scan does, shebang lines included) with the stage's own
//! grammars and queries, in parallel, doing nothing with the matches. `ci/bench-syntax.sh`
//! compares `--stages scan,syntax` against this program. Files are scheduled as the stage
//! schedules them (largest first, one per task, a parser per thread), so the floor is as well
//! balanced across threads as the stage is.
//!
//! Usage: `bare_parse <dir> [--threads N]`. Prints one line of totals.

use std::path::{Path, PathBuf};
use std::time::Instant;

use pipeline::syntax::lang::Lang;
use rayon::prelude::*;
use tree_sitter::{Parser, QueryCursor, StreamingIterator};

fn main() {
    let mut args = std::env::args().skip(1);
    let mut root = None;
    let mut threads = 0usize;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--threads" => threads = args.next().and_then(|t| t.parse().ok()).unwrap_or(0),
            _ => root = Some(PathBuf::from(a)),
        }
    }
    let Some(root) = root else {
        eprintln!("usage: bare_parse <dir> [--threads N]");
        std::process::exit(2);
    };
    let start = Instant::now();
    let mut files = list(&root);
    files.sort_by_key(|(_, _, size)| std::cmp::Reverse(*size));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    let (parsed, bytes, captures) = pool.install(|| {
        files
            .par_iter()
            .with_max_len(1)
            .map(|(path, rel, _)| {
                WORKER.with(|w| {
                    let (parsers, cursor) = &mut *w.borrow_mut();
                    parse(parsers, cursor, path, rel)
                })
            })
            .reduce(|| (0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2))
    });
    println!(
        "files={parsed} bytes={bytes} captures={captures} millis={}",
        start.elapsed().as_millis()
    );
}

thread_local! {
    /// A thread's parsers (one per language) and query cursor.
    static WORKER: std::cell::RefCell<(Vec<Option<Parser>>, QueryCursor)> =
        std::cell::RefCell::new((Vec::new(), QueryCursor::new()));
}

/// Every file the scan would walk (same ignore rules and excluded folders), with its
/// repo-relative path and size; the language is decided after reading, as the scan does.
fn list(root: &Path) -> Vec<(PathBuf, String, u64)> {
    let mut walker = ignore::WalkBuilder::new(root);
    walker
        .hidden(false)
        .parents(false)
        .git_global(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            !(e.depth() > 0
                && e.file_type().is_some_and(|t| t.is_dir())
                && pipeline::scan::DEFAULT_EXCLUDED_DIRS.contains(&name.as_ref()))
        });
    let mut out = Vec::new();
    for entry in walker.build().flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let rel = entry.path().strip_prefix(root).unwrap_or(entry.path());
        let rel = rel.to_string_lossy().replace('\\', "/");
        let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
        out.push((entry.into_path(), rel, size));
    }
    out
}

fn parse(
    parsers: &mut Vec<Option<Parser>>,
    cursor: &mut QueryCursor,
    path: &Path,
    rel: &str,
) -> (usize, usize, usize) {
    let Ok(src) = std::fs::read(path) else {
        return (0, 0, 0);
    };
    // The scan's language detection, which also reads shebang lines (a Python script without an
    // extension is parsed by the stage, so it is parsed here too).
    let Some(lang) = pipeline::scan::detect_language(rel, &src).and_then(Lang::from_name) else {
        return (0, 0, 0);
    };
    if parsers.is_empty() {
        parsers.resize_with(Lang::ALL.len(), || None);
    }
    let parser = parsers[lang as usize].get_or_insert_with(|| {
        let mut p = Parser::new();
        p.set_language(&lang.grammar()).expect("grammar");
        p
    });
    let Some(tree) = parser.parse(&src, None) else {
        return (1, src.len(), 0);
    };
    let query = &lang.query().expect("query").query;
    let mut matches = cursor.matches(query, tree.root_node(), src.as_slice());
    let mut captures = 0;
    while let Some(m) = matches.next() {
        captures += m.captures().len();
    }
    (1, src.len(), captures)
}
