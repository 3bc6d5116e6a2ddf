//! Unit tests of the search ranking: each signal on its own, then their order.

use super::*;

fn sym(id: &str, name: &str, kind: &str, vis: &str, path: &str) -> SymbolRow {
    SymbolRow {
        stable_id: id.into(),
        name: name.into(),
        kind: kind.into(),
        container: None,
        signature: None,
        arity: None,
        definition_version_id: "d".into(),
        visibility: vis.into(),
        visibility_confidence: 1.0,
        visibility_source: "modifier".into(),
        module_id: None,
        language: None,
        path: path.into(),
        start_line: 1,
        start_col: 1,
        end_line: 1,
        end_col: 1,
        source: "scip".into(),
        backend_id: None,
        body_hash: None,
    }
}

fn within(mut s: SymbolRow, container: &str) -> SymbolRow {
    s.container = Some(container.into());
    s
}

fn ids(query: &str, rows: &[SymbolRow], signals: &Signals) -> Vec<String> {
    rank(query, rows.to_vec(), signals)
        .into_iter()
        .map(|r| r.symbol.stable_id.to_string())
        .collect()
}

fn usage(pairs: &[(&str, i64)]) -> Signals {
    Signals {
        usage: Some(pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()),
        ..Signals::default()
    }
}

#[test]
fn matches_are_exact_then_exact_ignoring_case_then_prefix_then_substring() {
    assert_eq!(match_kind("spawn", "spawn"), MatchKind::Exact);
    assert_eq!(match_kind("Spawn", "spawn"), MatchKind::ExactIgnoringCase);
    assert_eq!(match_kind("spawn_blocking", "Spawn"), MatchKind::Prefix);
    assert_eq!(match_kind("respawn", "spawn"), MatchKind::Substring);
    assert_eq!(match_kind("ÄRGER", "ärger"), MatchKind::ExactIgnoringCase);
    let rows = [
        sym("1", "respawn", "function", "public", "src/a.rs"),
        sym("2", "spawn_blocking", "function", "public", "src/a.rs"),
        sym("3", "Spawn", "struct", "public", "src/a.rs"),
        sym("4", "spawn", "function", "private", "src/a.rs"),
    ];
    // Case decides before anything else: the private function beats the public struct.
    assert_eq!(
        ids("spawn", &rows, &usage(&[("3", 900)])),
        ["4", "3", "2", "1"]
    );
}

#[test]
fn aside_code_is_told_by_test_files_folders_file_names_and_test_modules() {
    let at = |path: &str| sym("1", "f", "function", "public", path);
    for path in [
        "tokio-test/src/lib.rs",
        "tests-integration/src/bin/main.rs",
        "examples/chat.rs",
        "benches/rt.rs",
        "tokio/src/doc/os.rs",
        "crates/searcher/src/testutil.rs",
        "src/__mocks__/fs.ts",
        "fuzz/fuzz_targets/parse.rs",
        "packages/test-utils/src/index.ts",
    ] {
        assert!(is_aside(&at(path), false), "{path}");
        assert_eq!(place(&at(path), false), Place::Aside, "{path}");
    }
    for path in [
        "tokio/src/task/spawn.rs",
        "src/requests/api.py",
        "src/contest.rs",
        "src/latest/x.rs",
        "src/testament.rs",
    ] {
        assert!(!is_aside(&at(path), false), "{path}");
    }
    assert!(is_aside(&at("src/a.rs"), true));
    assert!(is_aside(&within(at("src/a.rs"), "tests"), false));
    assert!(is_aside(
        &within(at("src/a.rs"), "runtime::test_util"),
        false
    ));
    // A type or trait named like a test is no test module.
    assert!(!is_aside(
        &within(at("src/a.rs"), "impl Test for Runner"),
        false
    ));
}

#[test]
fn reachability_comes_from_visibility_else_from_leading_underscores() {
    let p =
        |name: &str, vis: &str, path: &str| place(&sym("1", name, "function", vis, path), false);
    assert_eq!(p("get", "public", "src/requests/api.py"), Place::Api);
    assert_eq!(p("get", "protected", "src/a.ts"), Place::Api);
    assert_eq!(p("get", "unknown", "src/requests/api.py"), Place::Api);
    assert_eq!(p("__init__", "unknown", "src/requests/api.py"), Place::Api);
    assert_eq!(p("get", "internal", "src/a.rs"), Place::Internal);
    assert_eq!(p("get", "private", "src/a.rs"), Place::Internal);
    assert_eq!(p("_get", "unknown", "src/requests/api.py"), Place::Internal);
    assert_eq!(
        p(
            "to_native_string",
            "unknown",
            "src/requests/_internal_utils.py"
        ),
        Place::Internal
    );
    // A stated visibility wins over the convention.
    assert_eq!(p("_get", "public", "src/a.ts"), Place::Api);
}

#[test]
fn hidden_kinds_are_parts_of_definitions_or_no_definitions() {
    for k in ["parameter", "type_parameter", "local", "meta"] {
        assert!(is_hidden_kind(k));
    }
    for k in ["function", "field", "module", "unknown"] {
        assert!(!is_hidden_kind(k));
    }
}

#[test]
fn usage_counts_in_log2_buckets() {
    let b: Vec<u32> = [0, 1, 2, 3, 7, 8, 1000].map(usage_bucket).to_vec();
    assert_eq!(b, [0, 1, 1, 2, 3, 3, 9]);
}

/// The tokio case: `spawn` is also a test helper in `tokio-test`, a method of several
/// types and a private helper; the public function everyone calls comes first.
#[test]
fn signals_apply_in_the_documented_order() {
    let tests = BTreeSet::from(["tokio/tests/rt.rs".to_string()]);
    let rows = [
        sym(
            "01",
            "spawn",
            "function",
            "public",
            "tokio-test/src/task.rs",
        ),
        sym("02", "spawn", "function", "public", "tokio/tests/rt.rs"),
        within(
            sym(
                "03",
                "spawn",
                "method",
                "public",
                "tokio-util/src/task/tracker.rs",
            ),
            "impl TaskTracker",
        ),
        within(
            sym(
                "04",
                "spawn",
                "method",
                "public",
                "tokio/src/task/join_set.rs",
            ),
            "impl JoinSet",
        ),
        sym(
            "05",
            "spawn",
            "function",
            "internal",
            "tokio/src/runtime/mod.rs",
        ),
        sym(
            "06",
            "spawn",
            "function",
            "public",
            "tokio/src/task/spawn.rs",
        ),
        sym(
            "07",
            "spawn",
            "field",
            "public",
            "tokio/src/runtime/builder.rs",
        ),
        sym(
            "08",
            "spawn",
            "parameter",
            "unknown",
            "tokio/src/runtime/builder.rs",
        ),
    ];
    let signals = Signals {
        tests,
        ..usage(&[
            ("01", 400),
            ("02", 0),
            ("03", 40),
            ("04", 45),
            ("05", 2000),
            ("06", 3000),
            ("07", 3000),
        ])
    };
    // 06: api, most used. 07: api, as used, but a field. 04 and 03: api methods, used alike (one
    // bucket), JoinSet's more. 08: api, unused. 05: internal however used. 01, 02: aside.
    assert_eq!(
        ids("spawn", &rows, &signals),
        ["06", "07", "04", "03", "08", "05", "01", "02"]
    );
    // Without a usage table, kind and container depth decide among api definitions.
    let no_usage = Signals {
        tests: BTreeSet::from(["tokio/tests/rt.rs".to_string()]),
        ..Signals::default()
    };
    assert_eq!(
        ids("spawn", &rows, &no_usage),
        ["06", "03", "04", "07", "08", "05", "01", "02"]
    );
}

#[test]
fn fewer_scopes_then_scip_then_references_then_stable_id_break_ties() {
    let rows = [
        within(sym("1", "get", "method", "public", "src/a.py"), "Session"),
        sym("2", "get", "function", "public", "src/a.py"),
        SymbolRow {
            source: "tree-sitter".into(),
            ..sym("0", "get", "function", "public", "src/b.py")
        },
        sym("4", "get", "function", "public", "src/c.py"),
        sym("3", "get", "function", "public", "src/d.py"),
    ];
    let signals = usage(&[("1", 5), ("2", 4), ("0", 5), ("4", 5), ("3", 5)]);
    assert_eq!(ids("get", &rows, &signals), ["3", "4", "2", "0", "1"]);
}

#[test]
fn entry_points_are_reachable_and_come_first_for_main() {
    let main = |path: &str| sym(path, "main", "function", "private", path);
    assert!(is_entry_point(&main("crates/core/main.rs")));
    assert!(is_entry_point(&main("src/__main__.py")));
    assert!(!is_entry_point(&main("build.rs")));
    assert!(!is_entry_point(&within(main("src/main.rs"), "tests")));
    assert_eq!(place(&main("crates/core/main.rs"), false), Place::Api);
    assert_eq!(place(&main("build.rs"), false), Place::Internal);
    assert_eq!(place(&main("examples/main.rs"), false), Place::Aside);
    let rows = [
        sym("a", "main", "function", "public", "benchsuite/benchsuite"),
        main("crates/core/main.rs"),
        main("build.rs"),
    ];
    let signals = usage(&[("a", 1)]);
    assert_eq!(
        ids("main", &rows, &signals),
        ["crates/core/main.rs", "a", "build.rs"]
    );
}

#[test]
fn modules_rank_by_kind_alone() {
    // `search` the module is named in many paths; `search` the function is what is meant.
    let rows = [
        sym("m", "search", "module", "private", "crates/core/search.rs"),
        sym("f", "search", "function", "private", "crates/core/main.rs"),
        sym("x", "search", "field", "private", "crates/core/main.rs"),
    ];
    let signals = usage(&[("m", 40), ("f", 1)]);
    assert_eq!(ids("search", &rows, &signals), ["f", "m", "x"]);
}

#[test]
fn owners_are_named_by_the_last_scope_or_the_implementing_type() {
    for (container, owner) in [
        ("Session", Some("Session")),
        ("impl Runtime", Some("Runtime")),
        ("impl JoinMap<K, V, S>", Some("JoinMap")),
        ("impl linked_list::Link for Entry", Some("Entry")),
        ("impl Future for Sleep<'_>", Some("Sleep")),
        ("impl Shape for Circle::inner", Some("inner")),
        ("impl From<io::Error> for Error", Some("Error")),
        ("impl<T> Stream for Wrapper<Pin<Box<T>>>", Some("Wrapper")),
        ("Server::text_response_server", Some("text_response_server")),
        ("impl &mut dyn Read", Some("Read")),
        ("", None),
    ] {
        assert_eq!(owner_name(container).as_deref(), owner, "{container}");
    }
}

/// Members of the types people use come first, and a member of an unreachable type is no API.
#[test]
fn owners_lend_their_usage_and_reachability_to_members() {
    let member = |id: &str, owner: &str, path: &str| {
        within(sym(id, "send", "method", "public", path), owner)
    };
    let rows = [
        member("1", "HTTPAdapter", "adapters.py"),
        member("2", "Session", "sessions.py"),
        member("3", "SessionRedirectMixin", "sessions.py"),
        member("4", "Hidden", "hidden.py"),
    ];
    let types = [
        sym("t1", "HTTPAdapter", "class", "public", "adapters.py"),
        sym("t2", "Session", "class", "public", "sessions.py"),
        sym(
            "t3",
            "SessionRedirectMixin",
            "class",
            "public",
            "sessions.py",
        ),
        sym("t4", "Hidden", "class", "private", "hidden.py"),
        // Same name elsewhere: the member's own file decides.
        sym("t5", "Session", "class", "public", "tests/fake.py"),
    ];
    let owners: BTreeMap<String, Owner> = rows
        .iter()
        .map(|m| {
            let t = owner_of(m, &types).expect("owner found");
            let references = match t.stable_id.as_str() {
                "t1" => 26,
                "t2" => 61,
                "t3" => 3,
                _ => 900,
            };
            let owner = Owner {
                reachable: reachable(t),
                references,
            };
            (m.stable_id.to_string(), owner)
        })
        .collect();
    assert_eq!(owners["2"].references, 61);
    let signals = Signals {
        owners,
        ..usage(&[("1", 1), ("2", 1), ("3", 1), ("4", 1)])
    };
    let ranked = rank("send", rows.to_vec(), &signals);
    let order: Vec<(&str, Place)> = ranked
        .iter()
        .map(|r| (r.symbol.stable_id.as_str(), r.place))
        .collect();
    assert_eq!(
        order,
        [
            ("2", Place::Api),
            ("1", Place::Api),
            ("3", Place::Api),
            ("4", Place::Internal)
        ]
    );
}

#[test]
fn an_owner_is_told_by_file_then_module_then_a_unique_name() {
    let member = within(sym("m", "f", "method", "public", "src/a.rs"), "impl T");
    let in_module = |id: &str, path: &str, module: &str| SymbolRow {
        module_id: Some(module.into()),
        ..sym(id, "T", "struct", "public", path)
    };
    let member_in = SymbolRow {
        module_id: Some("core".into()),
        ..member.clone()
    };
    let two_elsewhere = [
        in_module("x", "src/b.rs", "core"),
        in_module("y", "other/c.rs", "other"),
    ];
    let id = |t: Option<&SymbolRow>| t.map(|t| t.stable_id.to_string());
    assert_eq!(id(owner_of(&member_in, &two_elsewhere)), Some("x".into()));
    assert_eq!(id(owner_of(&member, &two_elsewhere)), None);
    assert_eq!(id(owner_of(&member, &two_elsewhere[1..])), Some("y".into()));
}
