//! The identity stage entry point against previous snapshots on disk: a readable one (aliases
//! computed, earlier rows carried forward), one without identity tables, one whose symbols file
//! is corrupt (a warning and a full computation, never a failure), and none at all.

use std::path::Path;

use output_schema::config::Config;
use output_schema::manifest::{Manifest, RepoState, StageStatus};
use output_schema::parquet_io::write_table;
use output_schema::tables::{AliasRow, SymbolRow, TombstoneRow};
use pipeline::fingerprint::{definition_version_id, qualify_source, symbol_id};
use pipeline::identity::{backend_agreement, identity, Agreement};
use pipeline::store::StoredSnapshot;
use pipeline::{NoProgress, StageContext};

fn sym(path: &str, name: &str, body: &str) -> SymbolRow {
    let id = symbol_id(
        "fx",
        &qualify_source("rust", path, None),
        name,
        "function",
        None,
    );
    SymbolRow {
        signature: Some(format!("fn {name}()")),
        arity: Some(0),
        definition_version_id: definition_version_id(Some(&format!("fn {name}()"))),
        body_hash: Some(body.into()),
        ..test_support::rows::symbol(&id, path, name)
    }
}

fn state(head: &str) -> RepoState {
    RepoState {
        is_git: true,
        head_commit: Some(head.into()),
        repo_state_id: format!("state-{head}"),
        ..RepoState::default()
    }
}

/// Writes a previous snapshot folder holding the given tables.
fn previous_snapshot(
    dir: &Path,
    symbols: Option<Vec<SymbolRow>>,
    aliases: Option<Vec<AliasRow>>,
    tombstones: Option<Vec<TombstoneRow>>,
) -> StoredSnapshot {
    let mut tables = Vec::new();
    if let Some(mut rows) = symbols {
        tables.push(write_table(dir, &mut rows).unwrap());
    }
    if let Some(mut rows) = aliases {
        tables.push(write_table(dir, &mut rows).unwrap());
    }
    if let Some(mut rows) = tombstones {
        tables.push(write_table(dir, &mut rows).unwrap());
    }
    let manifest = Manifest {
        ckb_version: "test".into(),
        tables,
        ..Manifest::new("fx", "p1", state("p1"))
    };
    StoredSnapshot {
        dir: dir.to_path_buf(),
        manifest,
    }
}

fn run(
    previous: Option<&StoredSnapshot>,
    symbols: &[SymbolRow],
    warnings: &[String],
) -> pipeline::identity::IdentityOutput {
    let config = Config::default();
    let repo_state = state("c2");
    let ctx = StageContext {
        root: Path::new("/nonexistent-root"),
        repo_id: "fx",
        config: &config,
        repo_state: &repo_state,
        previous,
        progress: &NoProgress,
    };
    identity(
        &ctx,
        symbols,
        Some(Agreement { both: 4, agree: 3 }),
        warnings,
    )
}

#[test]
fn readable_previous_snapshot_yields_aliases_and_carries_rows_forward() {
    let tmp = tempfile::tempdir().unwrap();
    let old_tomb = TombstoneRow {
        stable_id: "ckb:fx:sym:00000000000000000000".into(),
        name: "ancient".into(),
        kind: "function".into(),
        container: None,
        last_path: "src/old.rs".into(),
        deleted_in_state_id: "state-p0".into(),
        deleted_in_commit: "p0".into(),
    };
    let prev = previous_snapshot(
        tmp.path(),
        Some(vec![
            sym("src/a.rs", "before", "b1"),
            sym("src/a.rs", "dropped", "b2"),
        ]),
        Some(Vec::new()),
        Some(vec![old_tomb.clone()]),
    );
    let out = run(Some(&prev), &[sym("src/a.rs", "after", "b1")], &[]);
    assert_eq!(out.report.status, StageStatus::Ok);
    assert_eq!(out.aliases.len(), 1);
    assert_eq!(out.aliases[0].reason, "renamed");
    assert_eq!(out.aliases[0].created_commit, "c2");
    assert_eq!(out.tombstones.len(), 2);
    assert!(out.tombstones.contains(&old_tomb));
    let c = &out.report.counts;
    assert_eq!(c["aliases.renamed"], 1);
    assert_eq!(c["tombstones.new"], 1);
    assert_eq!(c["tombstones.carried-forward"], 1);
    assert_eq!(c["symbols"], 1);
    assert_eq!(c["scip-treesitter.agreement-permille"], 750);
    assert_eq!(
        out.report.completeness.as_ref().unwrap().reason,
        "previous-snapshot"
    );
}

#[test]
fn corrupt_previous_symbols_are_a_warning_not_a_failure() {
    let tmp = tempfile::tempdir().unwrap();
    let mut prev = previous_snapshot(
        tmp.path(),
        Some(vec![sym("src/a.rs", "x", "b")]),
        None,
        None,
    );
    std::fs::write(tmp.path().join("symbols.parquet"), b"not parquet").unwrap();
    prev.manifest.snapshot_id = "p1".into();
    let out = run(Some(&prev), &[sym("src/a.rs", "y", "b")], &[]);
    assert_eq!(out.report.status, StageStatus::Partial);
    assert!(out.aliases.is_empty() && out.tombstones.is_empty());
    let codes = test_support::warning_codes(&out.report);
    assert!(codes.contains(&"previous-unreadable"), "{codes:?}");
    assert!(codes.contains(&"previous-incomplete"), "{codes:?}");
    assert_eq!(
        out.report.completeness.as_ref().unwrap().reason,
        "previous-unusable"
    );
}

#[test]
fn no_previous_snapshot_means_empty_tables_and_orchestrator_warnings_are_kept() {
    let out = run(None, &[sym("src/a.rs", "x", "b")], &[]);
    assert_eq!(out.report.status, StageStatus::Ok);
    assert!(out.aliases.is_empty() && out.tombstones.is_empty());
    assert_eq!(
        out.report.completeness.as_ref().unwrap().reason,
        "no-previous-snapshot"
    );

    let out = run(
        None,
        &[],
        &["--previous /x: no manifest; ignored".to_string()],
    );
    assert_eq!(out.report.status, StageStatus::Partial);
    assert_eq!(out.report.warnings[0].code, "previous-snapshot");
    assert!(out.report.warnings[0].message.contains("--previous /x"));
}

#[test]
fn agreement_counts_definitions_both_backends_saw() {
    let ts = vec![
        sym("src/a.rs", "f", "b"),
        sym("src/a.rs", "g", "b"),
        sym("src/b.rs", "only_ts", "b"),
    ];
    let mut scip = vec![sym("src/a.rs", "f", "b"), sym("src/a.rs", "g", "b")];
    scip[1].stable_id = "ckb:fx:sym:11111111111111111111".into();
    scip[0].kind = "method".into(); // same family as `function`
    assert_eq!(
        backend_agreement(&ts, &scip),
        Agreement { both: 2, agree: 1 }
    );
    assert_eq!(Agreement { both: 2, agree: 1 }.rate(), Some(0.5));
}
