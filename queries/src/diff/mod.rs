//! `ckb diff`: what changed between two snapshots of one repository, what it breaks, and who it
//! affects — for pull-request bots and reviewers.
//!
//! [`diff`] reads both snapshots and produces a [`DiffReport`] (the full, structured facts):
//! - [`compare`]: files added / removed / modified / renamed (by `files.content_hash`), symbols
//!   added / removed / renamed or moved (through the head snapshot's aliases, resolved with
//!   `output_schema::redirect`), signature-changed (`definition_version_id`), body-changed
//!   (`body_hash`) and visibility-changed, and call edges added / removed;
//! - [`api`] (compareAPI): breaking changes to the public surface and non-breaking additions, each
//!   with a severity;
//! - [`impact`]: callers, modules and tests reached from the changed symbols through the **base**
//!   snapshot's call edges and references, co-change partners the change did not touch, and an
//!   overall risk level with its factors;
//! - [`markdown`]: a PR comment that always fits a character budget, most important first.
//!
//! Bad input (see the README's `ckb diff` section): snapshots of different repositories or privacy
//! modes are `SNAPSHOT_MISMATCH`; a base that is newer than the head (the head's commit is an
//! ancestor of the base's, by the base's `commits` table) is `SNAPSHOT_MISMATCH` too, while a base
//! that is merely not an ancestor (diverged branches) is a warning; different schema versions are a
//! warning; a table that was not written (or cannot be read) degrades the sections that need it
//! and lowers the stated completeness — it never aborts the diff.

pub mod api;
pub mod compare;
pub mod impact;
pub mod markdown;
pub mod risk;

use std::collections::BTreeSet;

use output_schema::tables::{
    AliasRow, CallEdgeRow, CochangeRow, CommitRow, FileRow, OccurrenceRow, SymbolRow, TombstoneRow,
};
use output_schema::{ErrorCode, Table};
use serde::Serialize;
use serde_json::json;

use crate::envelope::answer::{Answer, CompletenessInfo, Drilldown, Provenance};
use crate::snapshot::{Freshness, Snapshot};
use crate::QueryError;

pub use crate::analysis::risk::Risk;
pub use api::{ApiChange, ApiDiff};
pub use compare::{FileDiff, SymbolDiff};
pub use impact::Impact;

/// Default markdown budget in characters: under GitHub's 65536-character comment limit with room
/// for a bot's own text.
pub const DEFAULT_MAX_CHARS: usize = 60_000;

/// First line of every markdown diff; bots find (and update) their earlier comment by it.
pub const MARKER: &str = "<!-- ckb:diff -->";

/// Identifies one of the two snapshots.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotRef {
    /// Repository ID.
    pub repo_id: String,
    /// The `commit=` partition value.
    pub snapshot_id: String,
    /// repoStateId.
    pub repo_state_id: String,
    /// Head commit; absent outside git.
    pub head_commit: Option<String>,
    /// Whether the snapshot was taken from a dirty working tree.
    pub dirty: bool,
    /// Snapshot format version.
    pub schema_version: u32,
    /// ckb version that wrote it.
    pub ckb_version: String,
}

impl SnapshotRef {
    fn of(s: &Snapshot) -> SnapshotRef {
        let m = &s.manifest;
        SnapshotRef {
            repo_id: m.repo_id.clone(),
            snapshot_id: m.snapshot_id.clone(),
            repo_state_id: m.repo_state.repo_state_id.clone(),
            head_commit: m.repo_state.head_commit.clone(),
            dirty: m.repo_state.dirty,
            schema_version: m.schema_version,
            ckb_version: m.ckb_version.clone(),
        }
    }

    /// A short label: the first 7 characters of the commit, or the snapshot ID.
    pub fn short(&self) -> String {
        let id = self.head_commit.as_deref().unwrap_or(&self.snapshot_id);
        let mut s: String = id.chars().take(7).collect();
        if self.dirty {
            s.push_str("-dirty");
        }
        s
    }
}

/// How the base's commit relates to the head's.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ancestry {
    /// `same-commit`, `ancestor` (the usual case), `diverged` (base is not an ancestor of head),
    /// or `unknown` (no commits table, outside git, or the history window does not reach the base).
    pub relation: String,
    /// Commits reachable from head but not from base (for `ancestor`, within the history window).
    pub commits_between: Option<u64>,
    /// Which table decided: `head.commits`, `base.commits`, `manifest` or `none`.
    pub evidence: String,
}

/// A table a section needed but could not use.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MissingTable {
    /// `base` or `head`.
    pub snapshot: String,
    /// Table name.
    pub table: String,
    /// `not-written` (its stage did not run) or `unreadable: <cause>`.
    pub reason: String,
    /// Sections of the diff that are incomplete without it.
    pub affects: String,
}

/// How complete the diff is.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffCompleteness {
    /// Share of the diff's inputs that were available, 0..1.
    pub score: f64,
    /// `all-inputs` or `missing-tables`.
    pub reason: String,
    /// The inputs that were missing, sorted.
    pub missing: Vec<MissingTable>,
}

/// Everything `ckb diff` found: the `facts` of its answer, complete (JSON is never truncated).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffReport {
    /// The older snapshot.
    pub base: SnapshotRef,
    /// The newer snapshot.
    pub head: SnapshotRef,
    /// How base relates to head in git history.
    pub ancestry: Ancestry,
    /// Files added, removed, modified, renamed.
    pub files: FileDiff,
    /// Symbols added, removed, renamed, changed.
    pub symbols: SymbolDiff,
    /// Call edges added and removed.
    pub calls: compare::CallDiff,
    /// compareAPI: breaking and non-breaking changes of the public surface.
    pub api: ApiDiff,
    /// Who the change affects, from the base snapshot's references.
    pub impact: Impact,
    /// Overall risk with its factors.
    pub risk: Risk,
    /// Inputs that were available.
    pub completeness: DiffCompleteness,
    /// Caveats (ancestry, schema versions, missing tables, by-name call graphs).
    pub warnings: Vec<String>,
}

/// The tables of the base snapshot the diff reads.
pub(crate) struct BaseTables {
    pub files: Option<Vec<FileRow>>,
    pub symbols: Option<Vec<SymbolRow>>,
    pub occurrences: Option<Vec<OccurrenceRow>>,
    pub call_edges: Option<Vec<CallEdgeRow>>,
    pub cochange: Option<Vec<CochangeRow>>,
    pub commits: Option<Vec<CommitRow>>,
}

/// The tables of the head snapshot the diff reads.
pub(crate) struct HeadTables {
    pub files: Option<Vec<FileRow>>,
    pub symbols: Option<Vec<SymbolRow>>,
    pub aliases: Option<Vec<AliasRow>>,
    pub tombstones: Option<Vec<TombstoneRow>>,
    pub call_edges: Option<Vec<CallEdgeRow>>,
    pub commits: Option<Vec<CommitRow>>,
}

/// Reads a table, recording it as missing (not an error) when it was not written or cannot be read.
fn load<T: Table>(
    snapshot: &Snapshot,
    side: &str,
    affects: &str,
    missing: &mut Vec<MissingTable>,
) -> Option<Vec<T>> {
    let reason = match snapshot.read::<T>() {
        Ok(Some(rows)) => return Some(rows),
        Ok(None) => "not-written".to_string(),
        Err(e) => format!("unreadable: {}", e.message),
    };
    if !affects.is_empty() {
        missing.push(MissingTable {
            snapshot: side.into(),
            table: T::INFO.name.into(),
            reason,
            affects: affects.into(),
        });
    }
    None
}

/// Number of inputs the completeness score is computed over (see [`diff`]).
const INPUTS: usize = 10;

/// Compares two snapshots of one repository.
pub fn diff(base: &Snapshot, head: &Snapshot) -> Result<DiffReport, QueryError> {
    let (bm, hm) = (&base.manifest, &head.manifest);
    if bm.repo_id != hm.repo_id {
        return Err(QueryError::new(
            ErrorCode::SnapshotMismatch,
            format!(
                "the snapshots are of different repositories: base is {:?}, head is {:?}",
                bm.repo_id, hm.repo_id
            ),
            "diff two snapshots of the same repository (the `repo=` folder of both paths must match)",
        ));
    }
    if bm.privacy != hm.privacy {
        return Err(QueryError::new(
            ErrorCode::SnapshotMismatch,
            format!(
                "the snapshots use different privacy modes: base is {}, head is {}",
                bm.privacy, hm.privacy
            ),
            "snapshot both commits with the same --privacy mode",
        ));
    }
    let mut warnings = Vec::new();
    if bm.schema_version != hm.schema_version {
        warnings.push(format!(
            "the snapshots have different schema versions (base v{}, head v{}): tables are read with this build's schema and any that cannot be read are treated as missing",
            bm.schema_version, hm.schema_version
        ));
    }

    let mut missing = Vec::new();
    let b = BaseTables {
        files: load(base, "base", "files", &mut missing),
        symbols: load(base, "base", "symbols, api, impact", &mut missing),
        occurrences: load(base, "base", "references, tests", &mut missing),
        call_edges: load(base, "base", "callers, tests, removed calls", &mut missing),
        cochange: load(base, "base", "co-change partners", &mut missing),
        commits: load(base, "base", "", &mut missing),
    };
    let h = HeadTables {
        files: load(head, "head", "files", &mut missing),
        symbols: load(head, "head", "symbols, api, impact", &mut missing),
        aliases: load(head, "head", "renames", &mut missing),
        tombstones: load(head, "head", "", &mut missing),
        call_edges: load(head, "head", "added calls", &mut missing),
        commits: load(head, "head", "", &mut missing),
    };
    if b.commits.is_none() && h.commits.is_none() {
        missing.push(MissingTable {
            snapshot: "base+head".into(),
            table: "commits".into(),
            reason: "not-written".into(),
            affects: "ancestry".into(),
        });
    }
    missing.sort();

    let ancestry = ancestry(base, head, b.commits.as_deref(), h.commits.as_deref())?;
    match ancestry.relation.as_str() {
        "diverged" => warnings.push(
            "the base commit is not an ancestor of the head commit (per the head's history): changes made on the base side since the branches split show up as reverted; diff against the merge base (git merge-base) instead".into(),
        ),
        "unknown" if bm.repo_state.head_commit.is_some() && hm.repo_state.head_commit.is_some() => {
            warnings.push(
                "cannot tell whether the base commit is an ancestor of the head commit (no commits table, or the history window does not reach the base)".into(),
            )
        }
        _ => {}
    }
    // One warning per snapshot and reason, not one per table. The commits table only decides the
    // ancestry, which has its own warning above.
    type Group<'a> = (Vec<&'a str>, Vec<&'a str>);
    let mut groups: std::collections::BTreeMap<(&str, &str), Group<'_>> =
        std::collections::BTreeMap::new();
    for m in missing.iter().filter(|m| m.table != "commits") {
        let g = groups.entry((&m.snapshot, &m.reason)).or_default();
        g.0.push(&m.table);
        for a in m.affects.split(", ") {
            if !g.1.contains(&a) {
                g.1.push(a);
            }
        }
    }
    for ((side, reason), (tables, affects)) in &groups {
        warnings.push(format!(
            "{side} snapshot lacks {} ({reason}): {} incomplete",
            tables.join(", "),
            affects.join(", ")
        ));
    }
    let tree_sitter_calls = b
        .call_edges
        .as_deref()
        .is_some_and(|e| !e.is_empty() && e.iter().all(|e| e.source == "tree-sitter"));
    if tree_sitter_calls {
        warnings.push(
            "the base call graph comes from tree-sitter (by-name resolution): callers may be missing or over-reported; add a SCIP index for exact callers".into(),
        );
    }

    let files = compare::files(b.files.as_deref(), h.files.as_deref());
    let symbols = compare::symbols(
        b.symbols.as_deref(),
        h.symbols.as_deref(),
        h.aliases.as_deref(),
        h.tombstones.as_deref(),
    );
    let calls = compare::calls(
        b.call_edges.as_deref(),
        h.call_edges.as_deref(),
        b.symbols.as_deref(),
        h.symbols.as_deref(),
        &symbols,
    );
    let graph = impact::Graph::new(&b);
    let api = api::compare(&symbols, h.symbols.as_deref(), &graph);
    let impact = impact::impact(&symbols, &files, &graph, &b);

    let present = INPUTS - missing.len().min(INPUTS);
    let completeness = DiffCompleteness {
        score: present as f64 / INPUTS as f64,
        reason: if missing.is_empty() {
            "all-inputs".into()
        } else {
            "missing-tables".into()
        },
        missing,
    };
    let risk = risk::risk(&files, &symbols, &api, &impact, &completeness);
    Ok(DiffReport {
        base: SnapshotRef::of(base),
        head: SnapshotRef::of(head),
        ancestry,
        files,
        symbols,
        calls,
        api,
        impact,
        risk,
        completeness,
        warnings,
    })
}

/// Commits reachable from `start` through `parents` within one `commits` table.
fn reachable<'a>(commits: &'a [CommitRow], start: &'a str) -> BTreeSet<&'a str> {
    let parents: std::collections::BTreeMap<&str, &[String]> = commits
        .iter()
        .map(|c| (c.sha.as_str(), c.parents.as_slice()))
        .collect();
    let mut seen = BTreeSet::new();
    let mut stack = vec![start];
    while let Some(sha) = stack.pop() {
        if !parents.contains_key(sha) || !seen.insert(sha) {
            continue;
        }
        for p in parents[sha] {
            stack.push(p.as_str());
        }
    }
    seen
}

/// Decides how the base's commit relates to the head's from the snapshots' `commits` tables.
///
/// A head commit that is an ancestor of the base commit means the arguments are the wrong way
/// round: that is an error (`SNAPSHOT_MISMATCH`) rather than a diff that reports every change
/// reversed. A base that is simply not an ancestor (the base branch moved on) is reported as
/// `diverged`, which [`diff`] turns into a warning.
fn ancestry(
    base: &Snapshot,
    head: &Snapshot,
    base_commits: Option<&[CommitRow]>,
    head_commits: Option<&[CommitRow]>,
) -> Result<Ancestry, QueryError> {
    let (Some(bc), Some(hc)) = (
        base.manifest.repo_state.head_commit.as_deref(),
        head.manifest.repo_state.head_commit.as_deref(),
    ) else {
        return Ok(Ancestry {
            relation: "unknown".into(),
            commits_between: None,
            evidence: "none".into(),
        });
    };
    if bc == hc {
        return Ok(Ancestry {
            relation: "same-commit".into(),
            commits_between: Some(0),
            evidence: "manifest".into(),
        });
    }
    if let Some(commits) = head_commits {
        let from_head = reachable(commits, hc);
        if from_head.contains(bc) {
            let from_base = reachable(commits, bc);
            return Ok(Ancestry {
                relation: "ancestor".into(),
                commits_between: Some(from_head.difference(&from_base).count() as u64),
                evidence: "head.commits".into(),
            });
        }
    }
    if let Some(commits) = base_commits {
        if reachable(commits, bc).contains(hc) {
            return Err(QueryError::new(
                ErrorCode::SnapshotMismatch,
                format!(
                    "the base snapshot is newer than the head: head commit {hc} is an ancestor of base commit {bc}"
                ),
                "swap the arguments: ckb diff <older snapshot> <newer snapshot>",
            ));
        }
    }
    if let (Some(hcs), Some(bcs)) = (head_commits, base_commits) {
        // The head's window reaches back past the base's commit time, so the base would have been
        // found had it been an ancestor.
        let base_time = bcs.iter().find(|c| c.sha == bc).map(|c| c.committer_time);
        let oldest = hcs.iter().map(|c| c.committer_time).min();
        if let (Some(t), Some(o)) = (base_time, oldest) {
            if t >= o {
                return Ok(Ancestry {
                    relation: "diverged".into(),
                    commits_between: None,
                    evidence: "head.commits".into(),
                });
            }
        }
    }
    Ok(Ancestry {
        relation: "unknown".into(),
        commits_between: None,
        evidence: "none".into(),
    })
}

/// One-line summary used as the answer's explanation and the markdown title line.
pub fn summary(report: &DiffReport) -> String {
    let f = &report.files;
    let s = &report.symbols;
    format!(
        "Risk {}; {} breaking API change{}; files +{} -{} ~{}; symbols +{} -{}, {} renamed, {} signature, {} body; {} dependent{} in {} module{}, {} test file{} affected.",
        report.risk.summary(),
        report.api.breaking.len(),
        plural(report.api.breaking.len()),
        f.added.len(),
        f.removed.len(),
        f.modified.len() + f.renamed.len(),
        s.added.len(),
        s.removed.len(),
        s.renamed.len(),
        s.signature_changed.len(),
        s.body_changed.len(),
        report.impact.callers,
        plural(report.impact.callers as usize),
        report.impact.modules.len(),
        plural(report.impact.modules.len()),
        report.impact.tests.len(),
        plural(report.impact.tests.len()),
    )
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The diff as a query answer (`--format json`): the full report as facts, provenance of the head
/// snapshot with the diff's warnings and completeness.
pub fn answer(report: &DiffReport, base: &Snapshot, head: &Snapshot) -> Answer {
    let mut provenance = Provenance::of(
        head,
        &Freshness::unknown(),
        CompletenessInfo {
            score: report.completeness.score,
            reason: report.completeness.reason.clone(),
        },
    );
    provenance.warnings.extend(report.warnings.iter().cloned());
    let mut drilldowns = Vec::new();
    if let Some(top) = report.impact.changed.first() {
        drilldowns.push(Drilldown {
            command: format!(
                "ckb query --snapshot {} impact {}",
                base.dir.display(),
                top.symbol.id
            ),
            reason: format!(
                "the most far-reaching change: {} ({})",
                top.symbol.name, top.change
            ),
        });
    }
    if !report.completeness.missing.is_empty() {
        drilldowns.push(Drilldown {
            command: format!("ckb query --snapshot {} status", head.dir.display()),
            reason: "some tables were missing; status shows which stages did not run".into(),
        });
    }
    let items_in = (report.files.added.len()
        + report.files.removed.len()
        + report.files.modified.len()
        + report.files.renamed.len()
        + report.symbols.added.len()
        + report.symbols.removed.len()
        + report.symbols.renamed.len()
        + report.symbols.signature_changed.len()
        + report.symbols.body_changed.len()
        + report.symbols.visibility_changed.len()) as u64;
    let facts = serde_json::to_value(report).unwrap_or_else(|_| json!({}));
    Answer::new(
        "diff",
        facts,
        summary(report),
        provenance,
        drilldowns,
        items_in,
        items_in,
    )
}
