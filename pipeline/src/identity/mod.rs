//! Identity stage: keeps saved IDs meaningful from snapshot to snapshot.
//!
//! Stable IDs themselves are computed at extraction time ([`crate::fingerprint`]); this stage never
//! renames an active symbol. It compares the final `symbols` table with the previous snapshot's
//! (`symbols`, `aliases`, `tombstones`) and writes where each vanished ID went — an alias — or when
//! it was deleted — a tombstone — carrying forward what earlier snapshots said ([`matching`]). It
//! also reports how often SCIP and tree-sitter gave the same definition the same ID
//! ([`backend_agreement`]).
//!
//! A missing or unreadable previous snapshot is a warning and a full computation (no aliases),
//! never a failure. How a saved ID is then resolved lives in `output_schema::redirect`.

pub mod matching;
pub mod similarity;

use std::collections::BTreeMap;
use std::path::PathBuf;

use output_schema::manifest::{Completeness, StageReport, StageStatus, Warning};
use output_schema::parquet_io::{read_column, read_table};
use output_schema::tables::{AliasRow, SymbolRow, TombstoneRow};
use output_schema::{FormatError, SharedStr, Table};

pub use matching::{compute, same_backend_symbol, version_blind, Computed, Previous, Stamp, Stats};

use crate::fast_map::{FastMap, FastSet};
use crate::fingerprint::kind_family;
use crate::stage::{ManifestParts, StageContext, StageOutput};
use crate::store::StoredSnapshot;

/// What the identity stage produced.
#[derive(Debug)]
pub struct IdentityOutput {
    /// `aliases` rows (carried forward and new).
    pub aliases: Vec<AliasRow>,
    /// `tombstones` rows (carried forward and new).
    pub tombstones: Vec<TombstoneRow>,
    /// The stage report.
    pub report: StageReport,
}

/// How often both backends gave one definition the same stable ID.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Agreement {
    /// Definitions seen by both (same path, name, kind family and start line).
    pub both: usize,
    /// Of those, how many got equal stable IDs.
    pub agree: usize,
}

impl Agreement {
    /// `agree / both`, `None` when no definition was seen by both.
    pub fn rate(&self) -> Option<f64> {
        (self.both > 0).then(|| self.agree as f64 / self.both as f64)
    }
}

/// Compares the tree-sitter and SCIP views of the definitions, before they are merged. A key that
/// occurs twice on one side (two definitions on one line) is ambiguous and left out.
pub fn backend_agreement(tree_sitter: &[SymbolRow], scip: &[SymbolRow]) -> Agreement {
    type Key<'r> = (&'r str, &'r str, &'r str, i32);
    fn index(rows: &[SymbolRow]) -> FastMap<Key<'_>, Option<&str>> {
        let mut map = FastMap::default();
        for r in rows {
            let key = (
                r.path.as_str(),
                r.name.as_str(),
                kind_family(&r.kind),
                r.start_line,
            );
            map.entry(key)
                .and_modify(|v| *v = None)
                .or_insert(Some(r.stable_id.as_str()));
        }
        map
    }
    let (ts, sc) = rayon::join(|| index(tree_sitter), || index(scip));
    let mut out = Agreement::default();
    // Only counted, so the map's order does not matter.
    #[allow(clippy::iter_over_hash_type)]
    for (key, id) in &sc {
        if let (Some(id), Some(Some(other))) = (id, ts.get(key)) {
            out.both += 1;
            out.agree += usize::from(id == other);
        }
    }
    out
}

fn warning(code: &str, message: String) -> Warning {
    Warning {
        code: code.to_string(),
        path: None,
        message,
    }
}

/// Reads the previous snapshot's identity tables. Tables the snapshot lacks or that cannot be read
/// are left empty with a warning; the boolean says whether the symbols were read (without them no
/// vanished symbol can be recognised).
///
/// Of `symbols`, only the stable-ID column is read first. The whole rows matter only for the IDs
/// that `current` (the symbols of the snapshot being built) no longer has, so the table is read in
/// full only when there are some, and only those rows are kept: on most commits no symbol
/// vanishes, and decoding every column of the previous table was most of the stage's time.
pub fn read_previous(
    snapshot: &StoredSnapshot,
    current: &[SymbolRow],
) -> (Previous, bool, Vec<Warning>) {
    let mut tables = PreviousTables {
        snapshot,
        warnings: Vec::new(),
    };
    let note = "no aliases or tombstones are computed against it";
    let (ids, symbols) = match tables.file(SymbolRow::INFO.name, note) {
        None => (Vec::new(), None),
        Some(path) => {
            let ids = tables.read(SymbolRow::INFO.name, note, || {
                read_column::<SymbolRow, SharedStr>(&path, "stable_id")
            });
            let active: FastSet<&str> = current.iter().map(|s| s.stable_id.as_str()).collect();
            match ids {
                None => (Vec::new(), None),
                Some(ids) if ids.iter().all(|id| active.contains(id.as_str())) => {
                    (ids, Some(Vec::new()))
                }
                Some(ids) => {
                    let rows = tables.read(SymbolRow::INFO.name, note, || {
                        read_table::<SymbolRow>(&path)
                    });
                    match rows {
                        None => (Vec::new(), None),
                        Some(mut rows) => {
                            rows.retain(|r| !active.contains(r.stable_id.as_str()));
                            (ids, Some(rows))
                        }
                    }
                }
            }
        }
    };
    let aliases = tables.rows::<AliasRow>("earlier aliases are not carried forward");
    let tombstones = tables.rows::<TombstoneRow>("earlier tombstones are not carried forward");
    let has_symbols = symbols.is_some();
    (
        Previous {
            ids,
            symbols: symbols.unwrap_or_default(),
            aliases: aliases.unwrap_or_default(),
            tombstones: tombstones.unwrap_or_default(),
        },
        has_symbols,
        tables.warnings,
    )
}

/// The previous snapshot's tables as [`read_previous`] reads them, and the warnings for those it
/// lacks or cannot read (`note` says what is lost).
struct PreviousTables<'s> {
    snapshot: &'s StoredSnapshot,
    warnings: Vec<Warning>,
}

impl PreviousTables<'_> {
    /// The file of table `name`, if the snapshot has one.
    fn file(&mut self, name: &str, note: &str) -> Option<PathBuf> {
        let m = &self.snapshot.manifest;
        let Some(entry) = m.table(name) else {
            self.warnings.push(warning(
                "previous-incomplete",
                format!(
                    "previous snapshot {} has no {name} table; {note}",
                    m.snapshot_id
                ),
            ));
            return None;
        };
        Some(self.snapshot.dir.join(&entry.file))
    }

    /// What `read` reads from table `name`, or `None` with a warning.
    fn read<R>(
        &mut self,
        name: &str,
        note: &str,
        read: impl FnOnce() -> Result<R, FormatError>,
    ) -> Option<R> {
        read()
            .map_err(|e| {
                self.warnings.push(warning(
                    "previous-unreadable",
                    format!(
                        "previous snapshot {}: {name} cannot be read ({e}); {note}",
                        self.snapshot.manifest.snapshot_id
                    ),
                ));
            })
            .ok()
    }

    /// Every row of table `T`.
    fn rows<T: Table>(&mut self, note: &str) -> Option<Vec<T>> {
        let path = self.file(T::INFO.name, note)?;
        self.read(T::INFO.name, note, || read_table::<T>(&path))
    }
}

/// Runs the identity stage over the final (merged) `symbols`. `agreement` comes from
/// [`backend_agreement`] when both backends ran; `previous_warnings` are the orchestrator's problems
/// choosing the previous snapshot, reported here.
pub fn identity(
    ctx: &StageContext<'_>,
    symbols: &[SymbolRow],
    agreement: Option<Agreement>,
    previous_warnings: &[String],
) -> IdentityOutput {
    let mut warnings: Vec<Warning> = previous_warnings
        .iter()
        .map(|m| warning("previous-snapshot", m.clone()))
        .collect();
    let (previous, usable) = match ctx.previous {
        Some(snapshot) => {
            let (previous, has_symbols, w) = read_previous(snapshot, symbols);
            warnings.extend(w);
            (previous, has_symbols)
        }
        None => (Previous::default(), false),
    };
    let partition = crate::store::snapshot_partition(ctx.repo_state);
    let commit = ctx.repo_state.head_commit.clone().unwrap_or(partition);
    let stamp = Stamp {
        state_id: &ctx.repo_state.repo_state_id,
        commit: &commit,
    };
    let computed = compute(&previous, symbols, stamp);
    let status = if warnings.is_empty() {
        StageStatus::Ok
    } else {
        StageStatus::Partial
    };
    let mut report = StageReport::with_status(status, None);
    report.items = computed.stats.symbols as i64;
    report.counts = stats_counts(
        &computed.stats,
        computed.aliases.len(),
        computed.tombstones.len(),
    );
    if let Some(a) = agreement {
        report
            .counts
            .insert("scip-treesitter.both".into(), a.both as i64);
        report
            .counts
            .insert("scip-treesitter.agree".into(), a.agree as i64);
        if let Some(rate) = a.rate() {
            report.counts.insert(
                "scip-treesitter.agreement-permille".into(),
                (rate * 1000.0).round() as i64,
            );
        }
    }
    report.completeness = Some(match (ctx.previous.is_some(), usable) {
        (_, true) => Completeness {
            score: 1.0,
            reason: "previous-snapshot".into(),
        },
        (false, false) if previous_warnings.is_empty() => Completeness {
            score: 1.0,
            reason: "no-previous-snapshot".into(),
        },
        _ => Completeness {
            score: 0.0,
            reason: "previous-unusable".into(),
        },
    });
    report.set_warnings(warnings);
    IdentityOutput {
        aliases: computed.aliases,
        tombstones: computed.tombstones,
        report,
    }
}

fn stats_counts(s: &Stats, aliases: usize, tombstones: usize) -> BTreeMap<String, i64> {
    [
        ("symbols", s.symbols),
        ("previous-symbols", s.previous_symbols),
        ("vanished", s.vanished),
        ("aliases.renamed", s.renamed),
        ("aliases.moved", s.moved),
        ("aliases.merged", s.merged),
        ("aliases.fuzzy-match", s.fuzzy),
        ("aliases.carried-forward", s.aliases_carried),
        ("aliases.dropped", s.aliases_dropped),
        ("aliases.total", aliases),
        ("tombstones.new", s.tombstoned),
        ("tombstones.carried-forward", s.tombstones_carried),
        ("tombstones.total", tombstones),
        ("reactivated", s.reactivated),
        ("fuzzy.blocks-skipped", s.fuzzy_blocks_skipped),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v as i64))
    .collect()
}

impl StageOutput for IdentityOutput {
    type Rows = (Vec<AliasRow>, Vec<TombstoneRow>);
    fn split(self) -> (Self::Rows, ManifestParts) {
        (
            (self.aliases, self.tombstones),
            ManifestParts::report(self.report),
        )
    }
}
