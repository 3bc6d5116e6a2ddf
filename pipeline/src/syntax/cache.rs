//! The syntax cache: what tree-sitter derived from each file (its rows before by-name resolution
//! and its status), kept beside the snapshots in a [`CachePack`] and found again by the file's
//! content, whatever the next snapshot does with the rows.
//!
//! The previous snapshot can supply the rows of an unchanged file only while they are there as
//! tree-sitter wrote them; where a SCIP index covers a file, the merge replaces them, and the next
//! run would parse the file again. The cache keeps them for every file, covered or not. A blob's
//! key hashes everything its rows depend on besides the settings (which the cache's identity
//! holds): the repository ID (in every stable ID), the path, the content hash, the language and
//! the test/generated flags. Only deterministic statuses are kept (parsed, with its error count;
//! too large; over the work budget), exactly as [`super::extract`] produced them: a cached file
//! contributes the rows a parse would, so resolution and everything after it cannot tell.

use std::collections::HashMap;

use output_schema::row_codec::{RowReader, RowWriter};
use output_schema::tables::{FileRow, ImportRow, OccurrenceRow, SymbolRow};
use output_schema::FormatError;
use rayon::prelude::*;

use super::extract::FileFacts;
use super::lang::Lang;
use super::{FileResult, FileStatus, Origin, SyntaxConfig};
use crate::cache_pack::{self, CachePack, CacheProblem, Key, PackUpdate};

/// Folder of the syntax cache in a repository's folder of the store.
pub const CACHE_DIR: &str = "syntax-cache";

/// The identity a syntax cache is written for: the program (whose rules derived the rows), the
/// extractor and its settings, and the grammars' versions. A cache of another identity is not
/// read.
pub fn identity(config: &SyntaxConfig, program: &str) -> String {
    let grammars: Vec<String> = Lang::ALL
        .iter()
        .map(|l| {
            let g = l.grammar();
            let version = g
                .metadata()
                .map(|m| {
                    format!(
                        "{}.{}.{}",
                        m.major_version, m.minor_version, m.patch_version
                    )
                })
                .unwrap_or_default();
            format!("{} {version} abi{}", l.name(), g.abi_version())
        })
        .collect();
    format!(
        "syntax v1; {program}; extractor {}; grammars {}",
        super::fingerprint(config),
        grammars.join(", ")
    )
}

/// The key of one file's rows.
pub fn key(repo_id: &str, file: &FileRow) -> Key {
    cache_pack::key(
        "ckb.syntax-cache.file.v1",
        &[
            repo_id.as_bytes(),
            file.path.as_bytes(),
            file.content_hash.as_bytes(),
            file.language.as_deref().unwrap_or_default().as_bytes(),
            &[u8::from(file.is_test), u8::from(file.is_generated)],
        ],
    )
}

/// A file's status and rows as a blob; `None` for statuses that are not kept (an unreadable
/// file, a file changed during the run, a broken query).
pub(crate) fn encode(
    status: &FileStatus,
    symbols: &[&SymbolRow],
    occurrences: &[OccurrenceRow],
    imports: &[ImportRow],
) -> Option<Vec<u8>> {
    let mut w = RowWriter::new();
    match status {
        FileStatus::Parsed { errors } => {
            w.put_u64(0);
            w.put_u64(u64::from(*errors));
        }
        FileStatus::TooLarge => w.put_u64(1),
        FileStatus::TimedOut => w.put_u64(2),
        FileStatus::Unreadable { .. } | FileStatus::Broken { .. } => return None,
    }
    w.put_u64(symbols.len() as u64);
    for s in symbols {
        output_schema::Table::put_row(*s, &mut w);
    }
    w.put_rows(occurrences);
    w.put_rows(imports);
    Some(w.finish())
}

/// A blob's status and rows, which must all be rows of `path`.
pub fn decode(blob: &[u8], path: &str) -> Result<(FileStatus, FileFacts), FormatError> {
    let mut r = RowReader::new(blob)?;
    let status = match r.take_u64()? {
        0 => FileStatus::Parsed {
            errors: u32::try_from(r.take_u64()?).map_err(|_| damaged("error count"))?,
        },
        1 => FileStatus::TooLarge,
        2 => FileStatus::TimedOut,
        other => return Err(damaged(&format!("status {other}"))),
    };
    let symbols = r.take_rows::<SymbolRow>()?;
    let occurrences = r.take_rows::<OccurrenceRow>()?;
    let imports = r.take_rows::<ImportRow>()?;
    if !r.is_at_end() {
        return Err(damaged("trailing bytes"));
    }
    let elsewhere = symbols.iter().any(|s| s.path.as_str() != path)
        || occurrences.iter().any(|o| o.path.as_str() != path)
        || imports.iter().any(|i| i.path != path);
    if elsewhere {
        return Err(damaged("rows of another file"));
    }
    let errors = match status {
        FileStatus::Parsed { errors } => errors,
        _ => 0,
    };
    Ok((
        status,
        FileFacts {
            symbols,
            occurrences,
            imports,
            errors,
        },
    ))
}

fn damaged(why: &str) -> FormatError {
    FormatError::Damaged {
        what: "a syntax cache entry".into(),
        why: why.into(),
    }
}

/// Each supported file's key, where the cache records a blob under it (cheap: no blob is read).
pub(super) fn recorded(
    cache: &CachePack,
    repo_id: &str,
    supported: &[(&FileRow, Lang)],
) -> Vec<Option<Key>> {
    supported
        .par_iter()
        .map(|(file, _)| Some(key(repo_id, file)).filter(|k| cache.has(k)))
        .collect()
}

/// The cached result of every supported file with a key in `recorded` (`None` for the others);
/// a damaged blob is a miss and a problem of the cache.
pub(super) fn lookup(
    cache: &CachePack,
    supported: &[(&FileRow, Lang)],
    recorded: &[Option<Key>],
) -> Vec<Option<FileResult>> {
    supported
        .par_iter()
        .zip(recorded)
        .map(|((file, _), key)| {
            let blob = cache.get(key.as_ref()?)?;
            match decode(blob, &file.path) {
                Ok((status, facts)) => Some(FileResult {
                    facts,
                    status,
                    origin: Origin::Cache,
                }),
                Err(e) => {
                    cache.problem(CacheProblem {
                        code: "cache-unreadable",
                        message: format!("an entry of {CACHE_DIR}: {e}"),
                    });
                    None
                }
            }
        })
        .collect()
}

/// The rows the previous snapshot supplied, by path (their files are kept in the cache too, so
/// that a file SCIP comes to cover later is not parsed again).
pub(super) struct PreviousRows<'a> {
    pub(super) symbols: &'a [SymbolRow],
    pub(super) occurrences: &'a [OccurrenceRow],
    pub(super) imports: &'a [ImportRow],
}

/// What this run leaves in the cache: every file it found there stays, and every file it parsed
/// or took from the previous snapshot (with a status worth keeping) is added. Called before the
/// results' rows are moved out.
pub(super) fn update(
    cache: &CachePack,
    repo_id: &str,
    supported: &[(&FileRow, Lang)],
    results: &[FileResult],
    previous: PreviousRows<'_>,
) -> PackUpdate {
    let mut update = cache.update();
    // Rows of one path: symbols are in stable-ID order, occurrences and imports in path order.
    let mut symbols_of: HashMap<&str, Vec<&SymbolRow>> = HashMap::new();
    if results.iter().any(|r| r.origin == Origin::Previous) {
        for s in previous.symbols {
            symbols_of.entry(s.path.as_str()).or_default().push(s);
        }
    }
    let blobs: Vec<(Key, Option<Vec<u8>>)> = supported
        .par_iter()
        .zip(results)
        .map(|((file, _), r)| {
            let key = key(repo_id, file);
            let blob = match r.origin {
                Origin::Cache => None,
                Origin::Parsed => {
                    let symbols: Vec<&SymbolRow> = r.facts.symbols.iter().collect();
                    encode(&r.status, &symbols, &r.facts.occurrences, &r.facts.imports)
                }
                Origin::Previous => {
                    let path = file.path.as_str();
                    let symbols = symbols_of.get(path).map(Vec::as_slice).unwrap_or_default();
                    encode(
                        &r.status,
                        symbols,
                        rows_of(previous.occurrences, path, |o| o.path.as_str()),
                        rows_of(previous.imports, path, |i| i.path.as_str()),
                    )
                }
            };
            (key, blob)
        })
        .collect();
    for ((key, blob), r) in blobs.into_iter().zip(results) {
        match (r.origin, blob) {
            (Origin::Cache, _) => update.keep(key),
            (_, Some(blob)) => update.add(key, blob),
            (_, None) => {}
        }
    }
    update
}

/// The run of rows of `path` in rows sorted by path.
fn rows_of<'r, T>(rows: &'r [T], path: &str, path_of: impl Fn(&T) -> &str) -> &'r [T] {
    let start = rows.partition_point(|r| path_of(r) < path);
    let end = start + rows[start..].partition_point(|r| path_of(r) == path);
    &rows[start..end]
}
