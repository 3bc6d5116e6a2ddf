//! The prefer-first merge of tree-sitter and SCIP rows, on hand-made rows (it is a plain function,
//! independent of how the stages are wired).

use std::collections::BTreeSet;

use output_schema::tables::{CallEdgeRow, ImportRow, OccurrenceRow, RelationshipRow, SymbolRow};
use output_schema::Roles;
use pipeline::merge::{merge, merge_step, MergeStats, SyntaxTables};
use pipeline::scip::ScipTables;

struct Sym<'a> {
    id: &'a str,
    name: &'a str,
    kind: &'a str,
    path: &'a str,
    lines: (i32, i32),
    source: &'a str,
}

fn sym(s: Sym<'_>) -> SymbolRow {
    SymbolRow {
        stable_id: s.id.into(),
        name: s.name.into(),
        kind: s.kind.into(),
        container: None,
        signature: None,
        arity: None,
        definition_version_id: pipeline::fingerprint::definition_version_id(None),
        visibility: "unknown".into(),
        visibility_confidence: 0.0,
        visibility_source: "none".into(),
        module_id: None,
        language: Some("typescript".into()),
        path: s.path.into(),
        start_line: s.lines.0,
        start_col: 1,
        end_line: s.lines.1,
        end_col: 2,
        source: s.source.into(),
        backend_id: (s.source == "scip")
            .then(|| format!("scip-typescript npm fx 1 {}.", s.name).into()),
        body_hash: None,
    }
}

fn scip_sym(id: &str, name: &str, kind: &str, lines: (i32, i32)) -> SymbolRow {
    sym(Sym {
        id,
        name,
        kind,
        path: "src/a.ts",
        lines,
        source: "scip",
    })
}

fn ts_sym(
    id: &str,
    name: &str,
    kind: &str,
    path: &str,
    lines: (i32, i32),
    body: &str,
) -> SymbolRow {
    let mut s = sym(Sym {
        id,
        name,
        kind,
        path,
        lines,
        source: "tree-sitter",
    });
    s.body_hash = Some(body.into());
    s
}

fn ts_occ(path: &str, line: i32, target: Option<&str>, enclosing: Option<&str>) -> OccurrenceRow {
    OccurrenceRow {
        enclosing_symbol_id: enclosing.map(Into::into),
        ..test_support::rows::reference(target, "n", path, line, "tree-sitter")
    }
}

fn edge(caller: &str, callee: Option<&str>, source: &str) -> CallEdgeRow {
    CallEdgeRow {
        caller_id: caller.into(),
        callee_id: callee.map(Into::into),
        callee_name: "n".into(),
        count: 1,
        source: source.into(),
        confidence: if source == "scip" { 1.0 } else { 0.5 },
    }
}

fn import() -> ImportRow {
    ImportRow {
        path: "src/a.ts".into(),
        line: 1,
        raw: "./b".into(),
        names: vec!["main".into()],
        language: "typescript".into(),
        target: Some("src/b.js".into()),
        kind: "local-file".into(),
        method: Some("exact".into()),
        confidence: 1.0,
        from_module: None,
        to_module: None,
    }
}

fn inputs() -> (SyntaxTables, ScipTables) {
    let mut s1 = scip_sym("S1", "Circle", "type", (7, 17));
    s1.container = None;
    let mut s2 = scip_sym("S2", "area", "method", (10, 12));
    s2.container = Some("Circle".into());
    s2.signature = Some("area(): number".into());
    let mut s3 = scip_sym("S3", "square", "function", (31, 33));
    s3.visibility = "public".into();
    s3.visibility_confidence = 0.9;
    s3.visibility_source = "signature".into();
    let s4 = scip_sym("S4", "onlyScip", "variable", (40, 40));

    let mut t1 = ts_sym("T1", "Circle", "class", "src/a.ts", (7, 17), "b1");
    t1.signature = Some("export class Circle implements Shape".into());
    t1.visibility = "public".into();
    t1.visibility_confidence = 0.8;
    t1.visibility_source = "modifier".into();
    let mut t2 = ts_sym("T2", "area", "method", "src/a.ts", (10, 12), "b2");
    t2.container = Some("Circle".into());
    t2.signature = Some("area(): number {".into());
    t2.arity = Some(0);
    t2.visibility = "public".into();
    t2.visibility_source = "naming".into();
    t2.visibility_confidence = 0.5;
    let mut t3 = ts_sym("T3", "square", "function", "src/a.ts", (31, 33), "b3");
    t3.signature = Some("function square(x: number): number".into());
    t3.arity = Some(1);
    t3.visibility = "private".into();
    let t4 = ts_sym("T4", "helper", "function", "src/a.ts", (50, 52), "b4");
    let t5 = ts_sym("T5", "main", "function", "src/b.js", (1, 5), "b5");
    let t6 = ts_sym("T6", "square", "class", "src/a.ts", (100, 101), "b6");

    let syntax = SyntaxTables {
        symbols: vec![t1, t2, t3, t4, t5, t6],
        occurrences: vec![
            ts_occ("src/a.ts", 11, Some("T3"), Some("T2")),
            ts_occ("src/b.js", 2, Some("T3"), Some("T5")),
            ts_occ("src/b.js", 3, Some("T4"), Some("T5")),
            ts_occ("src/b.js", 4, None, Some("T5")),
        ],
        call_edges: vec![
            edge("T5", Some("T3"), "tree-sitter"),
            edge("T2", Some("T3"), "tree-sitter"),
            edge("T5", Some("T4"), "tree-sitter"),
        ],
        relationships: vec![RelationshipRow {
            from_id: "T5".into(),
            to_id: "T1".into(),
            kind: "reference".into(),
            source: "tree-sitter".into(),
        }],
        imports: vec![import()],
    };
    let scip = ScipTables {
        symbols: vec![s1, s2, s3, s4],
        occurrences: vec![OccurrenceRow {
            source: "scip".into(),
            ..ts_occ("src/a.ts", 11, Some("S3"), Some("S2"))
        }]
        .into(),
        call_edges: vec![edge("S2", Some("S3"), "scip")],
        relationships: vec![RelationshipRow {
            from_id: "S1".into(),
            to_id: "scip-typescript npm fx 1 Shape#".into(),
            kind: "implementation".into(),
            source: "scip".into(),
        }],
        covered_paths: BTreeSet::from(["src/a.ts".to_string()]),
        relationless_paths: BTreeSet::new(),
    };
    (syntax, scip)
}

#[test]
fn scip_stands_and_tree_sitter_fills_only_the_gaps() {
    let (syntax, scip) = inputs();
    let (merged, stats) = merge(syntax, scip);
    let find = |id: &str| {
        merged
            .symbols
            .iter()
            .find(|s| s.stable_id == id)
            .unwrap_or_else(|| panic!("{id} missing"))
    };
    let ids: BTreeSet<&str> = merged
        .symbols
        .iter()
        .map(|s| s.stable_id.as_str())
        .collect();
    assert_eq!(ids, BTreeSet::from(["S1", "S2", "S3", "S4", "T5"]));

    let circle = find("S1");
    assert_eq!(circle.kind, "class", "coarse SCIP kind refined");
    assert_eq!(
        circle.signature.as_deref(),
        Some("export class Circle implements Shape")
    );
    assert_eq!(
        circle.definition_version_id,
        pipeline::fingerprint::definition_version_id(circle.signature.as_deref())
    );
    assert_eq!(
        (
            circle.visibility.as_str(),
            circle.visibility_source.as_str()
        ),
        ("public", "modifier")
    );
    assert_eq!(
        (circle.source.as_str(), circle.body_hash.as_deref()),
        ("scip", Some("b1"))
    );
    assert!(circle.backend_id.is_some());

    let area = find("S2");
    assert_eq!(
        area.signature.as_deref(),
        Some("area(): number"),
        "SCIP signature stands"
    );
    assert_eq!(
        (area.arity, area.body_hash.as_deref()),
        (Some(0), Some("b2"))
    );

    let square = find("S3");
    assert_eq!(square.visibility, "public", "SCIP visibility stands");
    assert_eq!(
        square.signature.as_deref(),
        Some("function square(x: number): number")
    );
    assert_eq!(square.kind, "function");

    assert_eq!(find("S4").body_hash, None);
    assert_eq!(find("T5").source, "tree-sitter");

    // Occurrences: tree-sitter's in the covered file dropped; in b.js rewritten or unresolved.
    let in_file = |path: &str| -> Vec<&OccurrenceRow> {
        let occurrences = merged.occurrences.iter();
        occurrences.filter(|o| o.path == path).collect()
    };
    let b = in_file("src/b.js");
    assert_eq!(b.len(), 3);
    assert_eq!(b[0].symbol_id.as_deref(), Some("S3"));
    assert_eq!(b[1].symbol_id, None, "reference to a dropped definition");
    assert_eq!(b[2].symbol_id, None);
    assert!(b
        .iter()
        .all(|o| o.enclosing_symbol_id.as_deref() == Some("T5")));
    let a = in_file("src/a.ts");
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].source, "scip");

    let edges: BTreeSet<(String, Option<String>, String)> = merged
        .call_edges
        .iter()
        .map(|e| {
            (
                e.caller_id.to_string(),
                e.callee_id.as_deref().map(String::from),
                e.source.to_string(),
            )
        })
        .collect();
    assert_eq!(
        edges,
        BTreeSet::from([
            ("S2".to_string(), Some("S3".to_string()), "scip".to_string()),
            (
                "T5".to_string(),
                Some("S3".to_string()),
                "tree-sitter".to_string()
            ),
            ("T5".to_string(), None, "tree-sitter".to_string()),
        ])
    );
    let rels: BTreeSet<(String, String)> = merged
        .relationships
        .iter()
        .map(|r| (r.from_id.clone(), r.to_id.clone()))
        .collect();
    assert!(rels.contains(&("T5".to_string(), "S1".to_string())));
    assert_eq!(merged.imports, vec![import()]);

    assert_eq!(
        stats,
        MergeStats {
            matched: 3,
            scip_only: 1,
            filled_visibility: 2,
            filled_signature: 2,
            filled_arity: 2,
            filled_kind: 1,
            filled_container: 0,
            filled_module: 0,
            filled_body_hash: 3,
            disagree_kind: 0,
            disagree_signature: 1,
            disagree_visibility: 1,
            disagree_container: 0,
            dropped_tree_sitter_symbols: 2,
            dropped_tree_sitter_occurrences: 1,
            dropped_tree_sitter_call_edges: 1,
            dropped_tree_sitter_relationships: 0,
            remapped_references: 3,
            unresolved_references: 2,
            kept_tree_sitter_symbols: 1,
            definitions_read_as_external: 0,
        }
    );
    assert_eq!(stats.counts()["merge.disagree.signature"], 1);
}

#[test]
fn incompatible_kinds_do_not_match_and_merging_is_deterministic() {
    let (syntax, scip) = inputs();
    let again = merge(syntax.clone(), scip.clone());
    assert_eq!(merge(syntax, scip), again);

    // A tree-sitter `class` named like a SCIP `function` on the same lines is not its counterpart.
    let s = scip_sym("S", "f", "function", (1, 3));
    let t = ts_sym("T", "f", "class", "src/a.ts", (1, 3), "b");
    let (merged, stats) = merge(
        SyntaxTables {
            symbols: vec![t],
            ..Default::default()
        },
        ScipTables {
            symbols: vec![s],
            covered_paths: BTreeSet::from(["src/a.ts".to_string()]),
            ..Default::default()
        },
    );
    assert_eq!((stats.matched, stats.dropped_tree_sitter_symbols), (0, 1));
    assert_eq!(merged.symbols.len(), 1);
    assert_eq!(merged.symbols[0].body_hash, None);
}

/// Rows come from caches and previous snapshots, so their lines are data: a tree-sitter
/// definition claiming every line still matches without the distance between the two overflowing.
#[test]
fn lines_at_the_ends_of_i32_do_not_overflow_the_match() {
    let (merged, stats) = merge(
        SyntaxTables {
            symbols: vec![
                ts_sym(
                    "T1",
                    "f",
                    "function",
                    "src/a.ts",
                    (i32::MIN, i32::MAX),
                    "b1",
                ),
                ts_sym(
                    "T2",
                    "f",
                    "function",
                    "src/a.ts",
                    (i32::MAX, i32::MAX),
                    "b2",
                ),
            ],
            ..Default::default()
        },
        ScipTables {
            symbols: vec![
                scip_sym("S1", "f", "function", (i32::MAX, i32::MAX)),
                scip_sym("S2", "f", "function", (i32::MIN + 1, i32::MIN + 1)),
            ],
            covered_paths: BTreeSet::from(["src/a.ts".to_string()]),
            ..Default::default()
        },
    );
    // S1 takes T2 (same line), S2 the one left that overlaps it.
    assert_eq!(stats.matched, 2);
    let body = |id: &str| {
        merged
            .symbols
            .iter()
            .find(|s| s.stable_id.as_str() == id)
            .and_then(|s| s.body_hash.clone())
    };
    assert_eq!(body("S1").as_deref(), Some("b2"));
    assert_eq!(body("S2").as_deref(), Some("b1"));
}

#[test]
fn empty_sides_pass_the_other_through() {
    let (syntax, scip) = inputs();
    let (only_ts, stats) = merge(syntax.clone(), ScipTables::default());
    assert_eq!(only_ts, syntax);
    assert_eq!(stats.kept_tree_sitter_symbols, 6);
    let (only_scip, _) = merge(SyntaxTables::default(), scip.clone());
    assert_eq!(only_scip.symbols, scip.symbols);
    assert_eq!(only_scip.occurrences, scip.occurrences.into_rows());
}

#[test]
fn merge_step_keeps_absent_imports_absent() {
    let (_, scip) = inputs();
    let (tables, stats) = merge_step(None, Some(scip.clone()));
    assert_eq!(stats.unwrap().scip_only, 4);
    assert_eq!(tables.symbols.as_deref(), Some(&scip.symbols[..]));
    assert!(tables.imports.is_none());

    let (syntax, scip) = inputs();
    let (tables, _) = merge_step(
        Some(SyntaxTables {
            symbols: syntax.symbols,
            imports: syntax.imports.clone(),
            ..Default::default()
        }),
        Some(scip),
    );
    assert_eq!(tables.imports, Some(syntax.imports));
    assert_eq!(tables.symbols.map(|s| s.len()), Some(5));
}

/// A tree-sitter `implementation` row whose file an index covers: kept (its ends rewritten to the
/// SCIP definitions) when that index states no relationships at all, dropped otherwise.
#[test]
fn tree_sitter_relationships_stand_where_the_index_states_none() {
    let rel = |from: &str, to: &str| RelationshipRow {
        from_id: from.into(),
        to_id: to.into(),
        kind: "implementation".into(),
        source: "tree-sitter".into(),
    };
    let syntax = SyntaxTables {
        symbols: vec![
            ts_sym("T1", "Circle", "class", "src/a.ts", (7, 17), "b1"),
            ts_sym("T2", "Shape", "interface", "src/a.ts", (1, 5), "b2"),
            ts_sym("T3", "Gone", "interface", "src/a.ts", (20, 22), "b3"),
        ],
        relationships: vec![rel("T1", "T2"), rel("T1", "T3")],
        ..Default::default()
    };
    let covered = BTreeSet::from(["src/a.ts".to_string()]);
    let scip = |relationless: bool| ScipTables {
        symbols: vec![
            scip_sym("S1", "Circle", "class", (7, 17)),
            scip_sym("S2", "Shape", "interface", (1, 5)),
        ],
        covered_paths: covered.clone(),
        relationless_paths: if relationless {
            covered.clone()
        } else {
            BTreeSet::new()
        },
        ..Default::default()
    };
    let (kept, stats) = merge(syntax.clone(), scip(true));
    let rows: Vec<(&str, &str, &str)> = kept
        .relationships
        .iter()
        .map(|r| (r.from_id.as_str(), r.to_id.as_str(), r.source.as_str()))
        .collect();
    // `Gone` has no SCIP definition: its link has no end left.
    assert_eq!(rows, vec![("S1", "S2", "tree-sitter")]);
    assert_eq!(
        (
            stats.dropped_tree_sitter_relationships,
            stats.unresolved_references
        ),
        (0, 1)
    );
    let (dropped, stats) = merge(syntax, scip(false));
    assert!(dropped.relationships.is_empty());
    assert_eq!(stats.dropped_tree_sitter_relationships, 2);
}

/// scip-python reads a class that shadows a builtin (`class ConnectionError(RequestException)`
/// in requests) as a reference to `builtins/ConnectionError#` and defines nothing there: the
/// tree-sitter definition at that very position is kept, the occurrence becomes its definition,
/// and the quirk is counted. A reference to an external symbol of another name at a definition's
/// position, or a definition SCIP matched, changes nothing.
#[test]
fn a_definition_the_index_read_as_an_external_reference_is_kept() {
    const BUILTIN: &str = "scip-python python python-stdlib 3.11 builtins/ConnectionError#";
    let (mut syntax, mut scip) = inputs();
    let shadowing = ts_sym("T7", "ConnectionError", "class", "src/a.ts", (70, 72), "b7");
    let other = ts_sym("T8", "Unrelated", "class", "src/a.ts", (80, 82), "b8");
    let definition = |id: &str, name: &str, line: i32| OccurrenceRow {
        roles: Roles::DEFINITION,
        ..test_support::rows::reference(Some(id), name, "src/a.ts", line, "tree-sitter")
    };
    syntax.symbols.extend([shadowing, other]);
    syntax.occurrences.extend([
        definition("T7", "ConnectionError", 70),
        definition("T8", "Unrelated", 80),
        // Circle's definition, which SCIP matches (S1): never kept twice.
        definition("T1", "Circle", 7),
    ]);
    let mut scip_occurrences = scip.occurrences.into_rows();
    let external = |target: &str, name: &str, line: i32| OccurrenceRow {
        roles: Roles::REFERENCE | Roles::READ,
        ..test_support::rows::reference(Some(target), name, "src/a.ts", line, "scip")
    };
    scip_occurrences.extend([
        external(BUILTIN, "ConnectionError", 70),
        // A second reference at that site, ordered before it by target: once both are the
        // definition, their names order them the other way round.
        external("Z-other", "Zzz", 70),
        external(
            "scip-python python python-stdlib 3.11 builtins/Exception#",
            "Exception",
            80,
        ),
        external("scip-typescript npm fx 1 Circle#", "Circle", 7),
    ]);
    scip.occurrences = scip_occurrences.into();

    let (merged, stats) = merge(syntax, scip);
    assert_eq!(stats.definitions_read_as_external, 1);
    assert_eq!(stats.counts()["quirk.definitions-read-as-external"], 1);
    assert_eq!(stats.dropped_tree_sitter_symbols, 3, "{stats:?}");
    let kept: Vec<&SymbolRow> = merged
        .symbols
        .iter()
        .filter(|s| s.path.as_str() == "src/a.ts" && s.source.as_str() == "tree-sitter")
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(kept[0].stable_id.as_str(), "T7");
    assert_eq!(kept[0].body_hash.as_deref(), Some("b7"));
    let at = |line: i32| -> Vec<(Option<String>, Roles)> {
        merged
            .occurrences
            .iter()
            .filter(|o| o.path.as_str() == "src/a.ts" && o.line == line)
            .map(|o| (o.symbol_id.as_deref().map(String::from), o.roles))
            .collect()
    };
    assert_eq!(at(70), vec![(Some("T7".to_string()), Roles::DEFINITION); 2]);
    let names_at_70: Vec<&str> = merged
        .occurrences
        .iter()
        .filter(|o| o.line == 70)
        .map(|o| o.name.as_str())
        .collect();
    assert_eq!(names_at_70, ["ConnectionError", "Zzz"]);
    assert!(merged
        .occurrences
        .is_sorted_by(|a, b| output_schema::Table::compare(a, b).is_le()));
    assert_eq!(
        at(80),
        [(
            Some("scip-python python python-stdlib 3.11 builtins/Exception#".to_string()),
            Roles::REFERENCE | Roles::READ
        )]
    );
    assert_eq!(
        at(7),
        [(
            Some("scip-typescript npm fx 1 Circle#".to_string()),
            Roles::REFERENCE | Roles::READ
        )]
    );
    assert!(!merged.symbols.iter().any(|s| s.stable_id.as_str() == "T1"));
}

#[test]
fn occurrences_leave_the_merge_in_table_order() {
    // SCIP lists documents in its own order (here c, a, e) and a document's occurrences need not
    // be by position; tree-sitter's rows come by path, and those of the files SCIP covers (a) go.
    let scip_occ = |path: &str, line: i32, target: &str| OccurrenceRow {
        source: "scip".into(),
        ..ts_occ(path, line, Some(target), None)
    };
    let scip_rows = vec![
        scip_occ("src/c.ts", 9, "C9"),
        scip_occ("src/c.ts", 2, "C2"),
        scip_occ("src/a.ts", 1, "A1"),
        scip_occ("src/e.ts", 4, "E4"),
        scip_occ("src/e.ts", 4, "E3"),
    ];
    let ts_rows = vec![
        ts_occ("src/0.js", 1, None, None),
        ts_occ("src/a.ts", 1, None, None),
        ts_occ("src/b.js", 1, None, None),
        ts_occ("src/b.js", 5, None, None),
        ts_occ("src/d.js", 3, None, None),
        ts_occ("src/f.js", 1, None, None),
    ];
    let covered = ["src/a.ts", "src/c.ts", "src/e.ts"];
    let (merged, stats) = merge(
        SyntaxTables {
            occurrences: ts_rows.clone(),
            ..Default::default()
        },
        ScipTables {
            occurrences: scip_rows.clone().into(),
            covered_paths: covered.iter().map(|p| p.to_string()).collect(),
            ..Default::default()
        },
    );
    assert_eq!(stats.dropped_tree_sitter_occurrences, 1);
    let mut expected: Vec<OccurrenceRow> = scip_rows
        .into_iter()
        .chain(
            ts_rows
                .into_iter()
                .filter(|o| o.path.as_str() != "src/a.ts"),
        )
        .collect();
    expected.sort_by(output_schema::Table::compare);
    assert_eq!(merged.occurrences, expected);
    assert_eq!(
        merged
            .occurrences
            .iter()
            .map(|o| (o.path.as_str(), o.line))
            .collect::<Vec<_>>(),
        [
            ("src/0.js", 1),
            ("src/a.ts", 1),
            ("src/b.js", 1),
            ("src/b.js", 5),
            ("src/c.ts", 2),
            ("src/c.ts", 9),
            ("src/d.js", 3),
            ("src/e.ts", 4),
            ("src/e.ts", 4),
            ("src/f.js", 1),
        ]
    );
}
