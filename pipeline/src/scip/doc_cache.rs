//! The SCIP document cache: what [`super::mapping`] derived from one document of an index (its
//! facts, or why it was skipped), kept beside the snapshots in a [`CachePack`] and found again
//! when the next index holds the same document.
//!
//! A fresh index of a one-file commit repeats almost every document byte for byte. Each document
//! read from the index is hashed as it streams by; the key adds everything else its conversion
//! reads (the project-root prefix, whether an earlier index covers the path, the scanned file's
//! language and content hash or, for a path the scan did not keep, whether it exists) and the
//! stage's limits, so a cached outcome is exactly what converting the document again would give.
//! A cached outcome is used only when it names the file its document's header places in the
//! repository, with the scan's language ([`check_place`]), as the syntax cache's rows must be
//! rows of the file they are keyed by, and states no count a document cannot have. Only the
//! conversion is saved: symbol strings are still parsed, resolved to stable IDs and turned into
//! tables over the whole index, so the tables cannot depend on which documents came from the
//! cache.

use output_schema::manifest::Warning;
use output_schema::row_codec::{RowReader, RowWriter};
use output_schema::{FormatError, Roles};

use super::mapping::{DocEnv, DocFacts, DocHeader, DocInfo, DocOcc, DocOutcome, DocSkip};
use super::mapping::{DocSymbol, Encoding, Span};
use super::quirks::{self, Tally};
use super::symbols;
use crate::cache_pack::{self, Key};

/// Folder of the SCIP document cache in a repository's folder of the store.
pub const CACHE_DIR: &str = "scip-cache";

/// The identity a SCIP document cache is written for: the program, whose rules converted the
/// documents.
pub fn identity(program: &str) -> String {
    format!("scip documents v1; {program}")
}

/// The key of a document: its bytes, and what its conversion reads besides them.
pub fn key(bytes: &[u8], header: &DocHeader, env: &DocEnv<'_>, file_facts: &[u8]) -> Key {
    let encoding = match env.default_encoding {
        Encoding::Utf8 => 8u8,
        Encoding::Utf16 => 16,
        Encoding::Utf32 => 32,
    };
    let covered = super::mapping::repo_path(env.prefix, &header.relative_path)
        .is_some_and(|p| env.covered_before.contains(&p));
    cache_pack::key(
        "ckb.scip-cache.document.v1",
        &[
            &blake3::hash(bytes).as_bytes()[..],
            env.prefix.as_bytes(),
            &[encoding, u8::from(covered)],
            &(env.max_occurrences as u64).to_le_bytes(),
            file_facts,
        ],
    )
}

/// A document's outcome, with its occurrence count, as a blob; `None` when it names a counter or
/// kind this build does not list (it is then converted every time, never cached wrongly).
pub fn encode(occurrences: i64, outcome: &DocOutcome) -> Option<Vec<u8>> {
    let mut w = RowWriter::new();
    w.put_i64(occurrences);
    match outcome {
        DocOutcome::Facts(f) => {
            w.put_u64(0);
            w.put_str(&f.path);
            w.put_str(&f.language);
            w.put_u64(f.symbols.len() as u64);
            for s in &f.symbols {
                w.put_str(&s.symbol);
                w.put_bool(s.info.is_some());
                if let Some(info) = &s.info {
                    w.put_opt_str(info.kind);
                    w.put_opt_str(info.signature.as_deref());
                    w.put_u64(info.relationships.len() as u64);
                    for (target, bits) in &info.relationships {
                        w.put_u64(u64::from(*target));
                        w.put_u64(u64::from(*bits));
                    }
                }
            }
            w.put_u64(f.occurrences.len() as u64);
            for o in &f.occurrences {
                w.put_u64(u64::from(o.sym));
                put_span(&mut w, &o.span);
                w.put_u64(u64::from(o.roles.0));
                w.put_u64(o.enclosing.map_or(0, |e| u64::from(e) + 1));
                w.put_bool(o.def_span.is_some());
                if let Some(d) = &o.def_span {
                    put_span(&mut w, d);
                }
            }
            put_tally(&mut w, &f.tally)?;
            put_warnings(&mut w, &f.warnings);
        }
        DocOutcome::Skipped(s) => {
            w.put_u64(1);
            quirk(s.reason)?;
            w.put_str(s.reason);
            put_tally(&mut w, &s.tally)?;
            put_warnings(&mut w, std::slice::from_ref(&s.warning));
        }
    }
    Some(w.finish())
}

fn put_span(w: &mut RowWriter, s: &Span) {
    for v in [s.line, s.col, s.end_line, s.end_col] {
        w.put_i64(i64::from(v));
    }
}

fn put_tally(w: &mut RowWriter, tally: &Tally) -> Option<()> {
    let entries: Vec<(&'static str, i64)> = tally.entries().collect();
    w.put_u64(entries.len() as u64);
    for (k, v) in entries {
        quirk(k)?;
        w.put_str(k);
        w.put_i64(v);
    }
    Some(())
}

fn put_warnings(w: &mut RowWriter, warnings: &[Warning]) {
    w.put_u64(warnings.len() as u64);
    for x in warnings {
        w.put_str(&x.code);
        w.put_opt_str(x.path.as_deref());
        w.put_str(&x.message);
    }
}

/// The counter of that name, as the `&'static str` every tally keys by.
fn quirk(name: &str) -> Option<&'static str> {
    quirks::ALL.iter().copied().find(|k| *k == name)
}

fn damaged(why: &str) -> FormatError {
    FormatError::Damaged {
        what: "a SCIP cache entry".into(),
        why: why.into(),
    }
}

/// A blob's occurrence count and outcome.
pub fn decode(blob: &[u8]) -> Result<(i64, DocOutcome), FormatError> {
    let mut r = RowReader::new(blob)?;
    let occurrences = take_amount(&mut r)?;
    let outcome = match r.take_u64()? {
        0 => DocOutcome::Facts(take_facts(&mut r)?),
        1 => {
            let reason = quirk(&r.take_str()?).ok_or_else(|| damaged("skip reason"))?;
            let tally = take_tally(&mut r)?;
            let mut warnings = take_warnings(&mut r)?;
            let warning = match (warnings.pop(), warnings.is_empty()) {
                (Some(w), true) => w,
                _ => return Err(damaged("a skip has one warning")),
            };
            DocOutcome::Skipped(DocSkip {
                reason,
                tally,
                warning,
            })
        }
        other => return Err(damaged(&format!("outcome {other}"))),
    };
    if !r.is_at_end() {
        return Err(damaged("trailing bytes"));
    }
    Ok((occurrences, outcome))
}

/// Checks that a decoded outcome is one of the document it was found for: its facts (and every
/// warning) name the file the document's header places in the repository, with the scan's
/// language. The key already hashes the document's bytes, so a blob that fails this was not
/// written for the document, whatever its checksum says; like the syntax cache's rows of another
/// file, it is refused rather than let rows onto a path the scan did not keep.
pub fn check_place(
    outcome: &DocOutcome,
    header: &DocHeader,
    env: &DocEnv<'_>,
) -> Result<(), FormatError> {
    let path = super::mapping::repo_path(env.prefix, &header.relative_path);
    let path = path.as_deref();
    let named_here = |w: &Warning| w.path.is_none() || w.path.as_deref() == path;
    match outcome {
        DocOutcome::Facts(f) => {
            if Some(f.path.as_str()) != path {
                return Err(damaged("facts of another document"));
            }
            if env.files.get(&f.path) != Some(&f.language) {
                return Err(damaged("a language the scan did not give the file"));
            }
            if !f.warnings.iter().all(named_here) {
                return Err(damaged("a warning about another file"));
            }
        }
        DocOutcome::Skipped(s) => {
            if !named_here(&s.warning) {
                return Err(damaged("a skip of another document"));
            }
        }
    }
    Ok(())
}

fn take_facts(r: &mut RowReader<'_>) -> Result<DocFacts, FormatError> {
    let path = r.take_str()?.as_str().to_owned();
    let language = r.take_str()?.as_str().to_owned();
    let kinds = symbols::fixed_names();
    let n = r.take_count(2)?;
    let mut syms = Vec::with_capacity(n);
    for _ in 0..n {
        let symbol = r.take_str()?.as_str().to_owned();
        let info = if r.take_bool()? {
            let kind = match r.take_opt_str()? {
                None => None,
                Some(k) => Some(
                    kinds
                        .binary_search(&k.as_str())
                        .map(|i| kinds[i])
                        .map_err(|_| damaged("kind"))?,
                ),
            };
            let signature = r.take_opt_str()?.map(|s| s.as_str().to_owned());
            let m = r.take_count(2)?;
            let mut relationships = Vec::with_capacity(m);
            for _ in 0..m {
                let target = u32::try_from(r.take_u64()?).map_err(|_| damaged("target"))?;
                let bits = u8::try_from(r.take_u64()?).map_err(|_| damaged("bits"))?;
                relationships.push((target, bits));
            }
            Some(DocInfo {
                kind,
                signature,
                relationships,
            })
        } else {
            None
        };
        syms.push(DocSymbol { symbol, info });
    }
    let n = r.take_count(8)?;
    let mut occurrences = Vec::with_capacity(n);
    let symbol_count = syms.len() as u32;
    let index = |v: u64| {
        u32::try_from(v)
            .ok()
            .filter(|&v| v < symbol_count)
            .ok_or_else(|| damaged("symbol index"))
    };
    for _ in 0..n {
        let sym = index(r.take_u64()?)?;
        let span = take_span(r)?;
        let bits = u16::try_from(r.take_u64()?).map_err(|_| damaged("roles"))?;
        let enclosing = match r.take_u64()? {
            0 => None,
            e => Some(index(e - 1)?),
        };
        let def_span = if r.take_bool()? {
            Some(take_span(r)?)
        } else {
            None
        };
        occurrences.push(DocOcc {
            sym,
            span,
            roles: Roles(bits),
            enclosing,
            def_span,
        });
    }
    let tally = take_tally(r)?;
    let warnings = take_warnings(r)?;
    for s in &syms {
        let bad_target = s
            .info
            .as_ref()
            .is_some_and(|i| i.relationships.iter().any(|(t, _)| *t >= symbol_count));
        if bad_target {
            return Err(damaged("relationship target"));
        }
    }
    Ok(DocFacts {
        path,
        language,
        symbols: syms,
        occurrences,
        tally,
        warnings,
    })
}

fn take_span(r: &mut RowReader<'_>) -> Result<Span, FormatError> {
    Ok(Span {
        line: r.take_i32()?,
        col: r.take_i32()?,
        end_line: r.take_i32()?,
        end_col: r.take_i32()?,
    })
}

/// The most a blob may state of one document: its occurrences, or one of its counters. Each
/// counts items of one document, which take a byte or more of it, and a document is at most a
/// GiB by default (`ScipConfig::max_document_bytes`): so this is far above any real count, and
/// far below what the stage's sums over every document of an index could overflow on.
const MAX_AMOUNT: i64 = 1 << 40;

/// A count the blob states, refused unless it is one a document could have.
fn take_amount(r: &mut RowReader<'_>) -> Result<i64, FormatError> {
    let n = r.take_i64()?;
    if (0..=MAX_AMOUNT).contains(&n) {
        Ok(n)
    } else {
        Err(damaged("a count no document has"))
    }
}

fn take_tally(r: &mut RowReader<'_>) -> Result<Tally, FormatError> {
    let n = r.take_count(2)?;
    let mut tally = Tally::default();
    for _ in 0..n {
        let k = quirk(&r.take_str()?).ok_or_else(|| damaged("counter"))?;
        tally.add(k, take_amount(r)?);
    }
    Ok(tally)
}

fn take_warnings(r: &mut RowReader<'_>) -> Result<Vec<Warning>, FormatError> {
    let n = r.take_count(3)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(Warning {
            code: r.take_str()?.as_str().to_owned(),
            path: r.take_opt_str()?.map(|p| p.as_str().to_owned()),
            message: r.take_str()?.as_str().to_owned(),
        });
    }
    Ok(out)
}
