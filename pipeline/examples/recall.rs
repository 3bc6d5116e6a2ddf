//! Definition recall of the syntax stage against a SCIP index of the same commit.
//!
//! Usage: `recall <snapshot dir> <index.scip> [--misses N]`
//!
//! For every SCIP occurrence with the Definition role whose symbol is global (not `local …`)
//! and whose last descriptor is not a parameter, type parameter or meta descriptor, the tool
//! looks for a tree-sitter definition occurrence (from the snapshot's `occurrences.parquet`) in
//! the same file with the same name on the same line (`exact`), or anywhere in the same file
//! (`same-file`). Recall is printed per language (from the snapshot's `files.parquet`), with
//! the SCIP definitions excluded by kind listed separately (parameters, type parameters, meta,
//! locals, anonymous, and a file's own module defined at 1:1); `--misses N` prints up to N misses
//! per language to show what is not found.

use std::collections::{BTreeMap, HashMap, HashSet};

use output_schema::parquet_io::read_table;
use output_schema::tables::{FileRow, OccurrenceRow};
use output_schema::Roles;
use protobuf::Message;
use scip::types::descriptor::Suffix;

#[derive(Default)]
struct Tally {
    total: usize,
    exact: usize,
    same_file: usize,
    excluded: BTreeMap<String, usize>,
    misses: Vec<String>,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: recall <snapshot dir> <index.scip> [--misses N]");
        std::process::exit(2);
    }
    let snapshot = std::path::Path::new(&args[0]);
    let misses_wanted: usize = args
        .iter()
        .position(|a| a == "--misses")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let bytes = std::fs::read(&args[1]).unwrap_or_else(|e| fail(&format!("{}: {e}", args[1])));
    let index = scip::types::Index::parse_from_bytes(&bytes)
        .unwrap_or_else(|e| fail(&format!("{}: not a SCIP index: {e}", args[1])));
    let files: Vec<FileRow> = read_table(&snapshot.join("files.parquet"))
        .unwrap_or_else(|e| fail(&format!("files.parquet: {e}")));
    let occurrences: Vec<OccurrenceRow> = read_table(&snapshot.join("occurrences.parquet"))
        .unwrap_or_else(|e| fail(&format!("occurrences.parquet: {e}")));
    let language: HashMap<&str, &str> = files
        .iter()
        .map(|f| (f.path.as_str(), f.language.as_deref().unwrap_or("unknown")))
        .collect();
    let mut ours_exact: HashSet<(&str, i32, &str)> = HashSet::new();
    let mut ours_file: HashSet<(&str, &str)> = HashSet::new();
    for o in occurrences
        .iter()
        .filter(|o| o.roles.contains(Roles::DEFINITION))
    {
        ours_exact.insert((o.path.as_str(), o.line, o.name.as_str()));
        ours_file.insert((o.path.as_str(), o.name.as_str()));
    }

    let prefix = index
        .metadata
        .project_root
        .strip_prefix("file://")
        .unwrap_or("")
        .to_string();
    let _ = prefix;
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    let mut seen: HashSet<(String, i32, String)> = HashSet::new();
    for doc in &index.documents {
        let path = doc.relative_path.as_str();
        let lang = language
            .get(path)
            .copied()
            .unwrap_or("not-scanned")
            .to_string();
        for occ in &doc.occurrences {
            if occ.symbol_roles & 1 == 0 || scip::symbol::is_local_symbol(&occ.symbol) {
                continue;
            }
            let Ok(sym) = scip::symbol::parse_symbol(&occ.symbol) else {
                continue;
            };
            let Some(last) = sym.descriptors.last() else {
                continue;
            };
            let line = occ.range.first().copied().unwrap_or(0) + 1;
            // scip-typescript names accessors and constructors `<get>x`, `<set>x`, `<constructor>`.
            let name = match last.name.as_str() {
                "<constructor>" => "constructor".to_string(),
                n => n
                    .strip_prefix("<get>")
                    .or_else(|| n.strip_prefix("<set>"))
                    .unwrap_or(n)
                    .to_string(),
            };
            if !seen.insert((path.to_string(), line, name.clone())) {
                continue;
            }
            let tally = tallies.entry(lang.clone()).or_default();
            let suffix = last.suffix.enum_value_or_default();
            let at_file_start = occ.range.first() == Some(&0) && occ.range.get(1) == Some(&0);
            let excluded = match suffix {
                // A file's own module (rust-analyzer defines it at 1:1); ckb's `files` and
                // `modules` tables stand for files, not symbols.
                Suffix::Namespace | Suffix::Package if at_file_start => Some("file-module"),
                Suffix::Parameter => Some("parameter"),
                Suffix::TypeParameter => Some("type-parameter"),
                Suffix::Meta => Some("meta"),
                Suffix::Local => Some("local"),
                _ if name.is_empty() => Some("anonymous"),
                _ => None,
            };
            if let Some(kind) = excluded {
                *tally.excluded.entry(kind.to_string()).or_default() += 1;
                continue;
            }
            tally.total += 1;
            if ours_exact.contains(&(path, line, name.as_str())) {
                tally.exact += 1;
                tally.same_file += 1;
            } else if ours_file.contains(&(path, name.as_str())) {
                tally.same_file += 1;
            } else if tally.misses.len() < misses_wanted {
                tally
                    .misses
                    .push(format!("{path}:{line} {name} ({})", occ.symbol));
            }
        }
    }
    println!(
        "{:<14} {:>8} {:>8} {:>8} {:>10}  excluded",
        "language", "scip", "exact", "recall", "same-file"
    );
    for (lang, t) in &tallies {
        let pct = |n: usize| {
            if t.total == 0 {
                100.0
            } else {
                100.0 * n as f64 / t.total as f64
            }
        };
        let excluded: Vec<String> = t.excluded.iter().map(|(k, v)| format!("{k}={v}")).collect();
        println!(
            "{lang:<14} {:>8} {:>8} {:>7.1}% {:>9.1}%  {}",
            t.total,
            t.exact,
            pct(t.exact),
            pct(t.same_file),
            excluded.join(" ")
        );
        for m in &t.misses {
            println!("    miss {m}");
        }
    }
}

fn fail(message: &str) -> ! {
    eprintln!("recall: {message}");
    std::process::exit(1);
}
