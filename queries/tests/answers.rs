//! Query answers over the hand-written fixture snapshot: facts, orders, resolution, every error
//! code a query can return, budgets with their truncations and drilldowns, token trimming and
//! byte determinism.
//!
//! Size: one test per answer property over the one hand-written fixture; split by command it would repeat the fixture set-up.

mod fixture;

use fixture::{sid, Options, HEAD};
use output_schema::ErrorCode;
use queries::envelope::answer::Answer;
use queries::envelope::budget::{Budget, Overrides};
use queries::snapshot::FreshnessState;
use queries::{Ctx, Freshness, QueryError, Snapshot};
use serde_json::Value;

/// The fixture snapshot, and the freshness most tests read it with (unknown).
struct Fx {
    _dir: tempfile::TempDir,
    snap: Snapshot,
    fresh: Freshness,
}

impl Fx {
    /// A query context with unknown freshness and the default budget.
    fn ctx(&self) -> Ctx<'_> {
        ctx(self, &self.fresh)
    }
}

fn fx_with(o: Options) -> Fx {
    let dir = tempfile::tempdir().unwrap();
    let path = fixture::build(dir.path(), &o);
    let snap = Snapshot::open(&path).unwrap();
    Fx {
        _dir: dir,
        snap,
        fresh: unknown(),
    }
}

fn fx() -> Fx {
    fx_with(Options::default())
}

fn unknown() -> Freshness {
    Freshness::unknown()
}

fn ctx<'a>(f: &'a Fx, fresh: &'a Freshness) -> Ctx<'a> {
    Ctx {
        snapshot: &f.snap,
        freshness: fresh,
        budget: Budget::default(),
    }
}

fn with(budget: Overrides, c: Ctx<'_>) -> Ctx<'_> {
    Ctx {
        budget: c.budget.with_overrides(&budget).unwrap(),
        ..c
    }
}

fn v(a: &Answer) -> Value {
    serde_json::from_str(&output_schema::json::to_string(a).unwrap()).unwrap()
}

/// `ckb query refs INPUT` with the default options.
fn refs_of(c: &Ctx<'_>, input: &str) -> Value {
    let args = queries::commands::refs::RefsArgs {
        input: input.into(),
        ..Default::default()
    };
    v(&queries::commands::refs::refs(c, &args).unwrap())
}

/// `ckb query search QUERY` with the default options.
fn search_for(c: &Ctx<'_>, query: &str) -> Result<Answer, QueryError> {
    let args = queries::commands::search::SearchArgs {
        query: query.into(),
        ..Default::default()
    };
    queries::commands::search::search(c, &args)
}

/// Asserts an answer says its facts are incomplete: the completeness reason, and why in its
/// explanation.
#[track_caller]
fn assert_incomplete(a: &Value, reason: &str, why: &str) {
    assert_eq!(a["provenance"]["completeness"]["reason"], reason);
    let explanation = a["explanation"].as_str().unwrap();
    assert!(explanation.contains(why), "{explanation}");
}

fn code(r: Result<Answer, QueryError>) -> ErrorCode {
    match r {
        Ok(a) => panic!(
            "expected an error, got {}",
            output_schema::json::to_string(&a).unwrap()
        ),
        Err(e) => e.code,
    }
}

fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|x| x["id"].as_str().unwrap_or("").to_string())
        .collect()
}

fn drill(a: &Value) -> Vec<String> {
    let commands = test_support::json::strs(&a["drilldowns"], "command");
    commands.into_iter().map(String::from).collect()
}

#[test]
fn symbol_by_id_name_and_qualified_name() {
    let f = fx();
    let c = f.ctx();
    let a = v(&queries::commands::symbol::symbol(&c, &sid(2)).unwrap());
    assert_eq!(a["command"], "symbol");
    assert_eq!(a["facts"]["symbol"]["name"], "parse");
    assert_eq!(
        a["facts"]["symbol"]["location"]["path"],
        "crates/core/src/parser.rs"
    );
    assert_eq!(a["facts"]["symbol"]["location"]["startLine"], 15);
    assert_eq!(a["facts"]["resolution"]["redirected"], false);
    assert_eq!(a["facts"]["locationFreshness"], "may-be-stale");
    assert_eq!(a["provenance"]["completeness"]["reason"], "scip");
    let by_name = v(&queries::commands::symbol::symbol(&c, "Parser::parse").unwrap());
    assert_eq!(by_name["facts"]["symbol"]["id"], sid(2));
    assert_eq!(by_name["facts"]["resolution"]["matchedBy"], "name");
    let t = v(&queries::commands::symbol::symbol(&c, "tokenize").unwrap());
    assert_eq!(t["facts"]["symbol"]["id"], sid(3));

    let current = Freshness {
        state: FreshnessState::Current,
        head_commit: Some(HEAD.into()),
        commits_behind: Some(0),
        worktree_dirty: false,
    };
    let a = v(&queries::commands::symbol::symbol(&ctx(&f, &current), &sid(2)).unwrap());
    assert_eq!(a["facts"]["locationFreshness"], "current");
    let dirty = Freshness {
        state: FreshnessState::Dirty,
        worktree_dirty: true,
        ..current.clone()
    };
    let a = v(&queries::commands::symbol::symbol(&ctx(&f, &dirty), &sid(2)).unwrap());
    assert_eq!(a["facts"]["locationFreshness"], "may-be-stale");
    assert!(drill(&a).contains(&"ckb snapshot".to_string()));
}

#[test]
fn aliases_redirect_and_report_their_hops() {
    let f = fx();
    let c = f.ctx();
    let a = v(&queries::commands::symbol::symbol(&c, &sid(100)).unwrap());
    let r = &a["facts"]["resolution"];
    assert_eq!(r["redirected"], true);
    assert_eq!(r["redirectedFrom"], sid(100));
    assert_eq!(r["reason"], "renamed");
    assert_eq!(r["confidence"], 0.95);
    assert_eq!(a["facts"]["symbol"]["id"], sid(2));
    // Three hops is the most that is followed.
    let a = v(&queries::commands::symbol::symbol(&c, &sid(102)).unwrap());
    assert_eq!(a["facts"]["symbol"]["id"], sid(1));
    assert_eq!(a["facts"]["resolution"]["reason"], "moved+renamed+renamed");
    assert_eq!(a["facts"]["resolution"]["confidence"], 0.9);
    assert_eq!(
        a["facts"]["resolution"]["hops"].as_array().unwrap().len(),
        3
    );
    // Other commands resolve the same way.
    let r = refs_of(&c, &sid(100));
    assert_eq!(r["facts"]["resolution"]["redirected"], true);
    assert_eq!(r["facts"]["symbol"]["id"], sid(2));
}

#[test]
fn every_resolution_error_has_its_code() {
    let f = fx();
    let c = f.ctx();
    let sym = |x: &str| queries::commands::symbol::symbol(&c, x);
    assert_eq!(code(sym(&sid(101))), ErrorCode::AliasChainTooDeep);
    assert_eq!(code(sym(&sid(110))), ErrorCode::AliasCycle);
    assert_eq!(code(sym(&sid(999))), ErrorCode::SymbolNotFound);
    assert_eq!(code(sym(&sid(130))), ErrorCode::SymbolNotFound);
    assert_eq!(code(sym("ckb:fx:sym:xyz")), ErrorCode::InvalidParameter);
    assert_eq!(code(sym("")), ErrorCode::InvalidParameter);
    assert_eq!(code(sym("no_such_name")), ErrorCode::SymbolNotFound);
    assert_eq!(code(sym("parse")), ErrorCode::AmbiguousQuery);

    let other = sym("ckb:elsewhere:sym:00000000000000000002").unwrap_err();
    assert_eq!(other.code, ErrorCode::SymbolNotFound);
    assert!(
        other.message.contains("belongs to repository elsewhere"),
        "{}",
        other.message
    );
    assert!(other.remediation.contains("snapshot of elsewhere"));

    let deleted = sym(&sid(122)).unwrap_err();
    assert_eq!(deleted.code, ErrorCode::SymbolDeleted);
    let d = deleted.details.unwrap();
    assert_eq!(d["deletedInCommit"], HEAD);
    assert_eq!(d["lastPath"], "crates/core/src/parser.rs");
    assert_eq!(d["name"], "removed_fn");
    // Renamed, then deleted: the tombstone of the alias target.
    let e = sym(&sid(120)).unwrap_err();
    assert_eq!(e.code, ErrorCode::SymbolDeleted);
    assert_eq!(e.details.unwrap()["redirectedFrom"], sid(120));
    assert!(e
        .drilldowns
        .iter()
        .any(|d| d.command == "ckb query search legacy_parse"));

    // Three definitions (the parameter named `parse` is left out), ranked as search ranks them.
    let amb = sym("parse").unwrap_err();
    let m = amb.details.unwrap();
    assert_eq!(m["total"], 3);
    assert_eq!(ids(&m["matches"]), vec![sid(2), sid(20), sid(21)]);
    assert_eq!(
        amb.drilldowns[0].command,
        format!("ckb query symbol {}", sid(2))
    );
}

#[test]
fn search_ranks_by_the_documented_order() {
    let f = fx();
    let c = f.ctx();
    let s = |q: &str, kinds: &[&str], scope: Option<&str>, limit: Option<u64>| {
        queries::commands::search::search(
            &c,
            &queries::commands::search::SearchArgs {
                query: q.into(),
                kinds: kinds.iter().map(|k| k.to_string()).collect(),
                scope: scope.map(String::from),
                limit,
            },
        )
    };
    let a = v(&s("PARSE", &[], None, None).unwrap());
    // No name is PARSE: every `parse` matches ignoring case. The public method (4 references)
    // before the public trait (1); the private tree-sitter parse (internal), then the test
    // helper (aside). Prefixes: Parser (3 references), then parse_config and ParseError (unused,
    // both weigh as types and callables: stable_id). Substrings: JsonParser, then the test.
    // The parameter `parse` is left out.
    assert_eq!(
        ids(&a["facts"]["results"]),
        [2, 7, 20, 21, 1, 18, 19, 8, 11].map(sid).to_vec()
    );
    let field = |name: &str| test_support::json::strs(&a["facts"]["results"], name);
    assert_eq!(
        field("match"),
        [
            "exact-ignoring-case",
            "exact-ignoring-case",
            "exact-ignoring-case",
            "exact-ignoring-case",
            "prefix",
            "prefix",
            "prefix",
            "substring",
            "substring"
        ]
    );
    assert_eq!(a["facts"]["total"], 9);
    assert_eq!(field("place")[..4], ["api", "api", "internal", "aside"]);
    assert_eq!(a["facts"]["results"][0]["references"], 4);
    // Parameters are searched when asked for.
    let params = v(&s("parse", &["parameter"], None, None).unwrap());
    assert_eq!(ids(&params["facts"]["results"]), vec![sid(22)]);
    assert_eq!(a["facts"]["byModule"][0]["module"], "crates/core");

    let k = v(&s("parse", &["method"], None, None).unwrap());
    assert_eq!(ids(&k["facts"]["results"]), vec![sid(2)]);
    let sc = v(&s("parse", &[], Some("web"), None).unwrap());
    assert_eq!(ids(&sc["facts"]["results"]), vec![sid(20)]);
    let p = v(&s("parse", &[], Some("crates/core/src/lib.rs"), None).unwrap());
    assert_eq!(
        ids(&p["facts"]["results"]),
        [7, 18, 19, 8].map(sid).to_vec()
    );

    // Budget: limit cuts, says so, and offers the next step.
    let l = v(&s("parse", &[], None, Some(2)).unwrap());
    assert_eq!(l["facts"]["results"].as_array().unwrap().len(), 2);
    let t = &l["provenance"]["truncations"][0];
    assert_eq!(
        (
            t["what"].as_str(),
            t["budget"].as_str(),
            t["total"].as_u64(),
            t["shown"].as_u64()
        ),
        (Some("results"), Some("max-items"), Some(9), Some(2))
    );
    assert_eq!(drill(&l)[0], "ckb query search parse --limit 4");
    assert!(drill(&l).contains(&"ckb query search parse --scope crates/core".to_string()));
    assert_eq!(l["compression"]["itemsIn"], 9);
    assert_eq!(l["compression"]["itemsOut"], 2);

    assert_eq!(code(s("  ", &[], None, None)), ErrorCode::InvalidParameter);
    assert_eq!(
        code(s("parse", &[], None, Some(0))),
        ErrorCode::InvalidParameter
    );
    assert_eq!(
        code(s("parse", &[], None, Some(1001))),
        ErrorCode::InvalidParameter
    );
    let none = v(&s("zzzz", &[], None, None).unwrap());
    assert_eq!(none["facts"]["total"], 0);
}

#[test]
fn refs_group_by_module_and_file_within_budget() {
    let f = fx();
    let c = f.ctx();
    let r = |c: &Ctx<'_>, input: String, limit: Option<u64>| {
        queries::commands::refs::refs(
            c,
            &queries::commands::refs::RefsArgs {
                input,
                scope: None,
                limit,
            },
        )
        .map(|a| v(&a))
    };
    let a = r(&c, sid(2), None).unwrap();
    let facts = &a["facts"];
    assert_eq!(facts["total"], 4);
    assert_eq!(facts["definitions"], 1);
    assert_eq!(facts["files"], 3);
    assert_eq!(facts["testReferences"], 1);
    let mods = test_support::json::strs(&facts["modules"], "module");
    assert_eq!(mods, ["crates/app", "crates/core"]);
    let app = &facts["modules"][0]["files"][0];
    assert_eq!(app["path"], "crates/app/src/main.rs");
    assert_eq!(app["references"], 2);
    assert_eq!(app["sites"][0]["line"], 25);
    assert_eq!(
        app["sites"][0]["roles"],
        serde_json::json!(["reference", "call"])
    );
    assert_eq!(app["sites"][0]["enclosing"]["name"], "run");
    let core = &facts["modules"][1]["files"];
    assert_eq!(core[0]["path"], "crates/core/src/lib.rs");
    assert_eq!(core[1]["isTest"], true);
    assert_eq!(a["provenance"]["completeness"]["reason"], "scip");
    assert_eq!(a["provenance"]["completeness"]["score"], 1.0);
    assert!(a["provenance"]["truncations"]
        .as_array()
        .unwrap()
        .is_empty());

    let limited = r(&c, sid(2), Some(1)).unwrap();
    let t = &limited["provenance"]["truncations"];
    assert!(
        t.as_array()
            .unwrap()
            .iter()
            .any(|t| t["what"] == "sites" && t["total"] == 4 && t["shown"] == 1),
        "{t}"
    );
    assert!(drill(&limited).contains(&format!("ckb query refs {} --limit 2", sid(2))));
    assert_eq!(limited["compression"]["itemsOut"], 1);

    let one = with(
        Overrides {
            modules: Some(1),
            ..Default::default()
        },
        c,
    );
    let m = r(&one, sid(2), None).unwrap();
    assert_eq!(m["facts"]["modules"].as_array().unwrap().len(), 1);
    assert_eq!(
        drill(&m)[0],
        format!("ckb query refs {} --max-modules 2", sid(2))
    );

    // By-name references are less complete than SCIP's.
    let ts = r(&c, sid(13), None).unwrap();
    assert_eq!(ts["provenance"]["completeness"]["reason"], "by-name");
    assert_eq!(ts["provenance"]["completeness"]["score"], 0.6);
    assert!(drill(&ts).contains(&"ckb query doctor".to_string()));
    // Same-name sites left unresolved are listed apart as candidates, same language family only.
    let u = &ts["facts"]["unresolved"];
    assert_eq!(u["total"], 1, "{u}");
    assert_eq!(u["files"][0]["path"], "web/src/render.test.ts");
    assert_eq!(u["files"][0]["lines"], serde_json::json!([9]));
    assert_eq!(u["definitionsSharingName"], 1);
    assert_eq!(ts["facts"]["total"], 2, "resolved sites are unchanged");
    // SCIP-backed answers have no by-name candidates.
    assert!(a["facts"]["unresolved"].is_null());

    // Scope keeps one module.
    let scoped = queries::commands::refs::refs(
        &c,
        &queries::commands::refs::RefsArgs {
            input: sid(2),
            scope: Some("crates/app".into()),
            limit: None,
        },
    )
    .unwrap();
    assert_eq!(v(&scoped)["facts"]["total"], 2);
}

#[test]
fn a_stale_index_warns_and_offers_to_regenerate_it() {
    let f = fx_with(Options {
        stale_scip: true,
        ..Options::default()
    });
    let c = f.ctx();
    let a = refs_of(&c, &sid(2));
    let w = a["provenance"]["warnings"].as_array().unwrap();
    assert!(
        w.iter().any(|w| w
            .as_str()
            .unwrap()
            .starts_with("INDEX_STALE: index.scip was built 3 commit(s) behind")),
        "{w:?}"
    );
    assert!(drill(&a)
        .contains(&"ckb index --languages rust,typescript && ckb snapshot --force".to_string()));
    assert_eq!(a["provenance"]["completeness"]["score"], 0.75);
    // A tree-sitter answer does not depend on the index.
    let t = refs_of(&c, &sid(13));
    let warnings = t["provenance"]["warnings"].to_string();
    assert!(!warnings.contains("INDEX_STALE"), "{warnings}");
}

#[test]
fn arch_serves_the_view_within_budget() {
    let f = fx();
    let c = f.ctx();
    let arch = |c: &Ctx<'_>, depth: Option<u64>, ext: bool| {
        queries::commands::arch::arch(
            c,
            &queries::commands::arch::ArchArgs {
                depth,
                include_external: ext,
            },
        )
    };
    let a = v(&arch(&c, None, false).unwrap());
    assert_eq!(
        ids(&a["facts"]["modules"]),
        ["crates/core", "crates/app", "web", "."]
    );
    assert_eq!(a["facts"]["edges"][0]["kind"], "workspace-package");
    assert_eq!(
        a["facts"]["entrypoints"][0]["path"],
        "crates/app/src/main.rs"
    );
    assert!(a["facts"].get("externalEdges").is_none());
    let e = v(&arch(&c, None, true).unwrap());
    assert_eq!(e["facts"]["externalEdges"][0]["to"], "external:react");
    let d = v(&arch(&c, Some(1), false).unwrap());
    assert_eq!(ids(&d["facts"]["modules"]), ["web", "."]);
    // web and the root import each other: both edges lie on the one cycle.
    assert_eq!(d["facts"]["edges"].as_array().unwrap().len(), 2);
    for e in d["facts"]["edges"].as_array().unwrap() {
        assert_eq!(e["inCycle"], true, "{e}");
    }
    assert_eq!(d["facts"]["cycles"], serde_json::json!([[".", "web"]]));
    assert_eq!(a["facts"]["edges"][0]["inCycle"], false);
    let small = with(
        Overrides {
            modules: Some(2),
            ..Default::default()
        },
        c,
    );
    let s = v(&arch(&small, None, false).unwrap());
    assert_eq!(ids(&s["facts"]["modules"]), ["crates/core", "crates/app"]);
    assert_eq!(s["facts"]["edges"].as_array().unwrap().len(), 1);
    assert_eq!(
        s["facts"]["cycles"],
        serde_json::json!([]),
        "no cycle reaches them"
    );
    assert_eq!(drill(&s)[0], "ckb query arch --max-modules 4");
    assert_eq!(code(arch(&c, Some(33), false)), ErrorCode::InvalidParameter);

    let nm = fx_with(Options {
        modules: false,
        ..Options::default()
    });
    let a = v(&arch(&nm.ctx(), None, false).unwrap());
    assert_eq!(a["facts"]["viewPresent"], false);
    assert_incomplete(&a, "modules-stage-not-run", "the modules stage did not run");
}

#[test]
fn impact_classifies_dependents_and_scores_risk() {
    let f = fx();
    let c = f.ctx();
    let a = v(&queries::commands::impact::impact(&c, &sid(2), None).unwrap());
    let facts = &a["facts"];
    assert_eq!(facts["visibility"]["derivedFrom"], "signature");
    assert_eq!(ids(&facts["directCallers"]), vec![sid(10), sid(11)]);
    assert_eq!(ids(&facts["transitiveCallers"]), vec![sid(9)]);
    assert_eq!(facts["transitiveCallers"][0]["confidence"], 0.8);
    assert_eq!(facts["transitiveCallers"][0]["via"], sid(10));
    assert_eq!(facts["testDependencies"][0]["id"], sid(11));
    assert_eq!(facts["testDependencies"][0]["via"], "direct-caller");
    let mods: Vec<(&str, bool)> = facts["modulesAffected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["module"].as_str().unwrap(), m["own"].as_bool().unwrap()))
        .collect();
    // Three dependents each; ties by module ID.
    assert_eq!(mods, [("crates/app", false), ("crates/core", true)]);
    // 0.25·1 + 0.30·0.2 + 0.25·0.2 + 0.20·0.6
    assert_eq!(facts["risk"]["score"], 0.48);
    assert_eq!(facts["risk"]["level"], "medium");
    assert_eq!(facts["risk"]["factors"].as_array().unwrap().len(), 4);

    // A trait: its implementations are type dependencies.
    let t = v(&queries::commands::impact::impact(&c, &sid(7), None).unwrap());
    let rel = test_support::json::str_pairs(&t["facts"]["typeDependencies"], "id", "relation");
    // By relation, then path (lib.rs before parser.rs), then ID.
    assert_eq!(
        rel,
        [
            (sid(8).as_str(), "implementation"),
            (sid(1).as_str(), "implementation")
        ]
    );

    // Depth bounds the walk and says what lies beyond.
    let d1 = v(&queries::commands::impact::impact(&c, &sid(3), Some(1)).unwrap());
    assert_eq!(ids(&d1["facts"]["directCallers"]), vec![sid(2)]);
    assert!(d1["provenance"]["truncations"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["budget"] == "depth"));
    assert!(drill(&d1).contains(&format!("ckb query impact {} --depth 2", sid(3))));
    let d3 = v(&queries::commands::impact::impact(&c, &sid(3), Some(3)).unwrap());
    assert_eq!(
        ids(&d3["facts"]["transitiveCallers"]),
        vec![sid(10), sid(11), sid(9)]
    );
    assert_eq!(
        code(queries::commands::impact::impact(&c, &sid(3), Some(0))),
        ErrorCode::InvalidParameter
    );
    assert_eq!(
        code(queries::commands::impact::impact(&c, &sid(3), Some(11))),
        ErrorCode::InvalidParameter
    );
}

#[test]
fn dead_code_candidates_with_confidence() {
    let f = fx();
    let c = f.ctx();
    let a = v(&queries::commands::dead_code::dead_code(&c, &Default::default()).unwrap());
    let fields = ["name", "category", "confidence"];
    assert_eq!(
        test_support::json::texts(&a["facts"]["candidates"], &fields),
        [
            "helper_unused unreferenced 0.9",
            "parse unreferenced 0.9",
            "parse_config unreferenced 0.45",
            "ParseError unreferenced 0.45",
            "Render unreferenced 0.45",
            "renderAll unreferenced 0.45",
            "walk self-only 0.4",
            "only_tested test-only 0.35",
        ]
    );
    assert_eq!(a["facts"]["counts"]["selfOnly"], 1);
    assert_eq!(a["facts"]["excluded"]["implements-interface"], 2);
    assert_eq!(a["facts"]["excluded"]["in-test-file"], 4);
    assert_eq!(a["facts"]["excluded"]["kind-not-tracked"], 1);
    let walk = &a["facts"]["candidates"][6];
    assert!(walk["reasons"]
        .to_string()
        .contains("could not be resolved"));
    let k = v(&queries::commands::dead_code::dead_code(
        &c,
        &queries::commands::dead_code::DeadCodeArgs {
            kinds: vec!["struct".into(), "enum".into()],
            ..Default::default()
        },
    )
    .unwrap());
    assert_eq!(ids(&k["facts"]["candidates"]), vec![sid(19)]);
}

#[test]
fn history_answers() {
    let f = fx();
    let c = f.ctx();
    let h = v(&queries::commands::hotspots::hotspots(&c, None, None, Some(3)).unwrap());
    let paths = test_support::json::strs(&h["facts"]["hotspots"], "path");
    assert_eq!(
        paths,
        [
            "crates/core/src/parser.rs",
            "web/src/render.ts",
            "crates/app/src/main.rs"
        ]
    );
    assert_eq!(h["facts"]["hotspots"][0]["score"], 19.183162);
    assert_eq!(h["facts"]["total"], 8);
    assert_eq!(
        code(queries::commands::hotspots::hotspots(
            &c,
            Some("7d"),
            None,
            None
        )),
        ErrorCode::InvalidParameter
    );
    let scoped =
        v(&queries::commands::hotspots::hotspots(&c, Some("all"), Some("web/"), None).unwrap());
    assert_eq!(scoped["facts"]["total"], 2);

    let cp =
        v(&queries::commands::hotspots::coupling(&c, "crates/core/src/parser.rs", None).unwrap());
    let partners = test_support::json::strs(&cp["facts"]["partners"], "path");
    assert_eq!(
        partners,
        [
            "crates/app/src/main.rs",
            "crates/core/tests/parser_test.rs",
            "web/src/render.ts"
        ]
    );
    assert_eq!(cp["facts"]["partners"][0]["commits"], 2);
    assert_eq!(cp["facts"]["partners"][0]["commitsOfTarget"], 4);
    assert_eq!(
        code(queries::commands::hotspots::coupling(
            &c,
            "../etc/passwd",
            None
        )),
        ErrorCode::InvalidParameter
    );

    let o =
        v(&queries::commands::hotspots::ownership(&c, "crates/core/src/parser.rs", None).unwrap());
    let owners: Vec<(&str, f64, bool)> = o["facts"]["owners"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["author"].as_str().unwrap(),
                x["share"].as_f64().unwrap(),
                x["isBot"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        owners,
        [
            ("a000000000000000", 0.5, false),
            ("b000000000000000", 0.25, false),
            ("bot0000000000000", 0.25, true)
        ]
    );
    let folder = v(&queries::commands::hotspots::ownership(&c, "crates", None).unwrap());
    assert_eq!(folder["facts"]["unit"], "file-commits");
    assert_eq!(folder["facts"]["owners"][0]["commits"], 5);

    let nh = fx_with(Options {
        history: false,
        ..Options::default()
    });
    let a = v(&queries::commands::hotspots::hotspots(&nh.ctx(), None, None, None).unwrap());
    assert_incomplete(&a, "history-not-recorded", "git stage did not run");
}

#[test]
fn explore_understand_prepare_and_tests() {
    let f = fx();
    let c = f.ctx();
    let e = v(&queries::commands::explore::explore(&c, "crates/core").unwrap());
    assert_eq!(e["facts"]["target"]["kind"], "module");
    assert_eq!(e["facts"]["overview"]["files"], 4);
    assert_eq!(e["facts"]["overview"]["tests"], 1);
    assert_eq!(ids(&e["facts"]["keySymbols"])[..2], [sid(2), sid(1)]);
    assert_eq!(e["facts"]["keySymbols"][0]["references"], 4);
    assert_eq!(e["facts"]["dependencies"]["in"][0]["module"], "crates/app");
    assert_eq!(e["facts"]["recentChanges"][0]["sha"], HEAD);
    assert_eq!(
        e["facts"]["hotspots"][0]["path"],
        "crates/core/src/parser.rs"
    );
    let file = v(&queries::commands::explore::explore(&c, "crates/app/src/main.rs").unwrap());
    assert_eq!(file["facts"]["target"]["kind"], "file");
    assert_eq!(
        file["facts"]["dependencies"]["out"][0]["target"],
        "crates/core"
    );
    let folder = v(&queries::commands::explore::explore(&c, "web/src").unwrap());
    assert_eq!(folder["facts"]["target"]["kind"], "folder");
    assert_eq!(
        code(queries::commands::explore::explore(&c, "nope/x.rs")),
        ErrorCode::PathNotFound
    );

    let amb = v(&queries::commands::understand::understand(&c, "parse").unwrap());
    assert_eq!(amb["facts"]["ambiguity"]["total"], 3);
    assert_eq!(amb["facts"]["ambiguity"]["exactName"], true);
    assert_eq!(
        ids(&amb["facts"]["ambiguity"]["matches"]),
        vec![sid(2), sid(20), sid(21)]
    );
    let similar = v(&queries::commands::understand::understand(&c, "pars").unwrap());
    assert_eq!(similar["facts"]["ambiguity"]["exactName"], false);
    let u = v(&queries::commands::understand::understand(&c, "Parser::parse").unwrap());
    assert_eq!(ids(&u["facts"]["callers"]), vec![sid(10), sid(11)]);
    assert_eq!(ids(&u["facts"]["callees"]), vec![sid(3)]);
    assert_eq!(u["facts"]["references"]["total"], 4);
    assert_eq!(u["facts"]["relatedTests"][0]["id"], sid(11));
    let run = v(&queries::commands::understand::understand(&c, "run").unwrap());
    assert_eq!(run["facts"]["unresolvedCalls"][0]["name"], "println");
    assert_eq!(
        code(queries::commands::understand::understand(&c, "zzzz")),
        ErrorCode::SymbolNotFound
    );

    let p =
        v(
            &queries::commands::prepare_change::prepare_change(&c, &sid(2), Some("rename"), None)
                .unwrap(),
        );
    assert_eq!(p["facts"]["changeType"], "rename");
    assert!(p["facts"]["suggestions"][0]
        .as_str()
        .unwrap()
        .starts_with("update 4 reference site(s) in 3 file(s)"));
    let kinds = test_support::json::strs(&p["facts"]["directDependents"], "dependency");
    assert_eq!(kinds, ["caller", "caller", "reference"]);
    assert_eq!(p["facts"]["cochange"][0]["path"], "crates/app/src/main.rs");
    let del = v(&queries::commands::prepare_change::prepare_change(
        &c,
        "helper_unused",
        Some("delete"),
        None,
    )
    .unwrap());
    assert!(del["facts"]["suggestions"][0]
        .as_str()
        .unwrap()
        .starts_with("no references or callers"));
    let file = v(&queries::commands::prepare_change::prepare_change(
        &c,
        "crates/core/src/parser.rs",
        None,
        None,
    )
    .unwrap());
    assert_eq!(file["facts"]["target"]["kind"], "file");
    assert!(file["facts"]["counts"]["dependentFiles"].as_u64().unwrap() >= 2);
    assert_eq!(
        code(queries::commands::prepare_change::prepare_change(
            &c,
            &sid(2),
            Some("explode"),
            None
        )),
        ErrorCode::InvalidParameter
    );

    let t = v(&queries::commands::affected_tests::affected_tests(&c, &sid(3), None, None).unwrap());
    assert_eq!(
        t["facts"]["testFiles"][0]["path"],
        "crates/core/tests/parser_test.rs"
    );
    assert_eq!(t["facts"]["testFiles"][0]["depth"], 2);
    assert_eq!(t["facts"]["testFiles"][0]["tests"][0]["name"], "test_parse");
    let tp = v(&queries::commands::affected_tests::affected_tests(
        &c,
        "crates/core/src/parser.rs",
        None,
        None,
    )
    .unwrap());
    let reasons = tp["facts"]["testFiles"][0]["reasons"].to_string();
    for r in ["calls", "references", "imports", "co-change"] {
        assert!(reasons.contains(r), "{reasons}");
    }
    let web =
        v(&queries::commands::affected_tests::affected_tests(&c, "render", None, None).unwrap());
    assert_eq!(
        web["facts"]["testFiles"][0]["path"],
        "web/src/render.test.ts"
    );
    assert_eq!(web["facts"]["testFiles"][0]["confidence"], 0.7);
}

#[test]
fn batches_report_per_item_errors() {
    let f = fx();
    let c = f.ctx();
    let inputs = vec![
        sid(2),
        "ckb:fx:sym:bad".to_string(),
        sid(122),
        "tokenize".into(),
    ];
    let a = v(&queries::commands::batch::batch_get(&c, &inputs).unwrap());
    let st: Vec<(&str, &str)> = a["facts"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["status"].as_str().unwrap(),
                r["error"]["code"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        st,
        [
            ("ok", ""),
            ("error", "INVALID_PARAMETER"),
            ("error", "SYMBOL_DELETED"),
            ("ok", "")
        ]
    );
    assert_eq!(a["facts"]["found"], 2);
    let many: Vec<String> = (0..51).map(sid).collect();
    assert_eq!(
        code(queries::commands::batch::batch_get(&c, &many)),
        ErrorCode::InvalidParameter
    );
    assert_eq!(
        code(queries::commands::batch::batch_get(&c, &[])),
        ErrorCode::InvalidParameter
    );

    let q = vec!["parse".to_string(), "render".into(), " ".into()];
    let s = v(&queries::commands::batch::batch_search(&c, &q, &[], None).unwrap());
    assert_eq!(
        s["facts"]["searches"][0]["results"]
            .as_array()
            .unwrap()
            .len(),
        5
    );
    assert_eq!(s["facts"]["searches"][0]["total"], 9);
    // `render` the function (exact) before `Render` the class (exact ignoring case).
    assert_eq!(
        ids(&s["facts"]["searches"][1]["results"]),
        [13, 14, 15, 16].map(sid).to_vec()
    );
    assert_eq!(
        s["facts"]["searches"][2]["error"]["code"],
        "INVALID_PARAMETER"
    );
    let eleven: Vec<String> = (0..11).map(|i| format!("q{i}")).collect();
    assert_eq!(
        code(queries::commands::batch::batch_search(
            &c,
            &eleven,
            &[],
            None
        )),
        ErrorCode::InvalidParameter
    );
}

#[test]
fn doctor_checks_and_fix_script() {
    let f = fx_with(Options {
        stale_scip: true,
        modules: false,
        ..Options::default()
    });
    let c = f.ctx();
    let a = v(&queries::commands::doctor::doctor(&c).unwrap());
    let st = test_support::json::str_pairs(&a["facts"]["checks"], "id", "status");
    assert_eq!(
        st,
        [
            ("snapshot", "pass"),
            ("freshness", "warn"),
            ("syntax", "pass"),
            ("scip", "warn"),
            ("history", "pass"),
            ("identity", "pass"),
            ("modules", "warn"),
            ("languages", "pass")
        ]
    );
    let script = queries::commands::doctor::fix_script(&c, &queries::commands::doctor::checks(&c));
    assert!(script.starts_with("#!/bin/sh\n"));
    assert!(script.contains("# [warn] scip: INDEX_STALE"), "{script}");
    assert!(
        script.contains("\nckb index --languages rust,typescript\nckb snapshot --force\n"),
        "{script}"
    );
    assert!(script.contains("--stages scan,syntax,scip,git,identity,modules"));

    // A damaged file fails the snapshot check.
    std::fs::write(f.snap.dir.join("churn.parquet"), b"not parquet").unwrap();
    let a = v(&queries::commands::doctor::doctor(&c).unwrap());
    assert_eq!(a["facts"]["checks"][0]["status"], "fail");
    let message = a["facts"]["checks"][0]["message"].as_str().unwrap();
    assert!(message.contains("churn.parquet"), "{message}");
}

#[test]
fn a_corrupt_table_is_named() {
    let f = fx();
    let c = f.ctx();
    std::fs::write(f.snap.dir.join("occurrences.parquet"), b"PAR1 garbage").unwrap();
    let e = queries::commands::refs::refs(
        &c,
        &queries::commands::refs::RefsArgs {
            input: sid(2),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::SnapshotCorrupt);
    assert!(e.message.contains("table occurrences"), "{}", e.message);
    assert!(e.remediation.contains("ckb verify"));
    // Commands that do not need the table still answer.
    assert!(queries::commands::symbol::symbol(&c, &sid(2)).is_ok());
    std::fs::remove_file(f.snap.dir.join("symbols.parquet")).unwrap();
    let e = queries::commands::symbol::symbol(&c, &sid(2)).unwrap_err();
    assert_eq!(e.code, ErrorCode::SnapshotCorrupt);
    assert!(e.message.contains("table symbols"));
}

#[test]
fn token_budget_trims_lists_not_json() {
    let f = fx();
    let c = f.ctx();
    let full = search_for(&c, "e").unwrap();
    let full_tokens = full.compression.estimated_tokens;
    assert!(full_tokens > 800, "{full_tokens}");
    let small = with(
        Overrides {
            tokens: Some(800),
            ..Default::default()
        },
        c,
    );
    let a = search_for(&small, "e").unwrap();
    let text = output_schema::json::to_string(&a).unwrap();
    assert!(text.len().div_ceil(4) <= 800, "{}", text.len());
    assert_eq!(
        a.compression.estimated_tokens as usize,
        text.len().div_ceil(4)
    );
    let val: Value = serde_json::from_str(&text).unwrap();
    let trunc = val["provenance"]["truncations"].as_array().unwrap();
    assert!(
        trunc
            .iter()
            .any(|t| t["budget"] == "max-tokens" && t["what"] == "results"),
        "{trunc:?}"
    );
    assert!(
        drill(&val)[0].ends_with("--max-tokens 1600"),
        "{:?}",
        drill(&val)
    );
    let shown = val["facts"]["results"].as_array().unwrap().len();
    assert!(shown > 0 && shown < full.facts["results"].as_array().unwrap().len());
    assert_eq!(
        val["compression"]["itemsOut"].as_u64().unwrap() as usize,
        shown
    );

    // An answer that cannot be made small enough is an error, not a cut document.
    let tiny = with(
        Overrides {
            tokens: Some(500),
            ..Default::default()
        },
        c,
    );
    let e = queries::commands::impact::impact(&tiny, &sid(2), None).unwrap_err();
    assert_eq!(e.code, ErrorCode::BudgetExceeded);
    assert!(e.remediation.contains("--max-tokens"));
}

#[test]
fn answers_are_byte_identical_across_runs_and_copies() {
    let a = fx();
    let b = fx();
    let run = |f: &Fx| -> Vec<String> {
        let c = f.ctx();
        let answers = vec![
            queries::commands::symbol::symbol(&c, &sid(2)).unwrap(),
            search_for(&c, "r").unwrap(),
            queries::commands::refs::refs(
                &c,
                &queries::commands::refs::RefsArgs {
                    input: sid(2),
                    ..Default::default()
                },
            )
            .unwrap(),
            queries::commands::arch::arch(&c, &Default::default()).unwrap(),
            queries::commands::impact::impact(&c, &sid(3), None).unwrap(),
            queries::commands::explore::explore(&c, "crates/core").unwrap(),
            queries::commands::understand::understand(&c, &sid(2)).unwrap(),
            queries::commands::prepare_change::prepare_change(&c, &sid(2), None, None).unwrap(),
            queries::commands::dead_code::dead_code(&c, &Default::default()).unwrap(),
            queries::commands::affected_tests::affected_tests(
                &c,
                "crates/core/src/parser.rs",
                None,
                None,
            )
            .unwrap(),
            queries::commands::hotspots::hotspots(&c, None, None, None).unwrap(),
        ];
        answers
            .iter()
            .map(|x| {
                let mut x = x.clone();
                // The snapshot folder differs between the two copies; everything else must not.
                x.provenance.snapshot = String::new();
                output_schema::json::to_string(&x).unwrap()
            })
            .collect()
    };
    let first = run(&a);
    assert_eq!(first, run(&a));
    let second = run(&b);
    for (x, y) in first.iter().zip(&second) {
        // Token estimates include the folder's length; compare without them.
        let strip = |s: &str| {
            let mut v: Value = serde_json::from_str(s).unwrap();
            v["compression"]["estimatedTokens"] = Value::Null;
            v.to_string()
        };
        assert_eq!(strip(x), strip(y));
    }
}

#[test]
fn scip_fix_commands_follow_the_recorded_tool_else_the_main_languages() {
    let f = fx();
    // With a SCIP backend recorded, its indexer is rerun through `ckb index`, with the main
    // languages no index covers (TypeScript: 2 files next to Rust's 5).
    assert_eq!(
        queries::snapshot::coverage::scip_index_commands(&f.snap),
        [
            "ckb index --languages rust,typescript",
            "ckb snapshot --force"
        ]
    );
    // Without one: the indexers of the main languages (a tenth of the largest one's files or
    // more), in the catalog's order.
    let mut snap = f.snap.clone();
    snap.manifest.backends.retain(|b| b.kind != "scip");
    let scan = snap.manifest.stages.get_mut("scan").unwrap();
    scan.breakdown.clear();
    for (lang, n) in [("rust", 100), ("python", 20), ("go", 3), ("markdown", 50)] {
        scan.breakdown.insert(
            lang.into(),
            std::collections::BTreeMap::from([("files".to_string(), n)]),
        );
    }
    assert_eq!(
        queries::snapshot::coverage::scip_index_commands(&snap),
        ["ckb index --languages rust,python", "ckb snapshot --force"]
    );
    let without: Vec<String> = queries::snapshot::coverage::languages_without_index(&snap)
        .into_iter()
        .map(|l| format!("{} {} {}", l.language, l.files, l.indexer.tool))
        .collect();
    assert_eq!(without, ["rust 100 rust-analyzer", "python 20 scip-python"]);
    // No language with a known indexer: only the re-snapshot is left.
    let scan = snap.manifest.stages.get_mut("scan").unwrap();
    scan.breakdown.retain(|l, _| l == "markdown");
    assert_eq!(
        queries::snapshot::coverage::scip_index_commands(&snap),
        ["ckb snapshot --force"]
    );
}

/// `status` goes through the one finishing step like every answer (ARCHITECTURE.md): a smaller
/// `--max-tokens` shortens its lists (or refuses with `BUDGET_EXCEEDED`), `--max-drilldowns`
/// caps its next steps.
#[test]
fn status_keeps_to_its_budgets() {
    let f = fx();
    let behind = Freshness {
        state: FreshnessState::Behind,
        commits_behind: Some(2),
        ..unknown()
    };
    let c = ctx(&f, &behind);
    let status = |o: Overrides| queries::commands::status::status(&with(o, c));
    let full = status(Overrides::default()).unwrap();
    let full_tokens = full.compression.estimated_tokens;
    assert!(full_tokens > 500, "{full_tokens}");
    assert!(full.drilldowns.len() >= 2, "{:?}", full.drilldowns);

    let one = status(Overrides {
        drilldowns: Some(1),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(one.drilldowns.len(), 1);
    assert_eq!(one.drilldowns[0].command, "ckb snapshot");
    let none = status(Overrides {
        drilldowns: Some(0),
        ..Default::default()
    })
    .unwrap();
    assert!(none.drilldowns.is_empty());

    let small = status(Overrides {
        tokens: Some(500),
        ..Default::default()
    });
    match small {
        Ok(a) => {
            assert!(a.compression.estimated_tokens <= 500, "{}", v(&a));
            assert!(
                a.provenance
                    .truncations
                    .iter()
                    .any(|t| t.budget == "max-tokens" && t.what == "tables"),
                "{}",
                v(&a)
            );
            assert!(a.compression.items_out < full.compression.items_out);
        }
        Err(e) => assert_eq!(e.code, ErrorCode::BudgetExceeded),
    }
}

/// A snapshot with a cache of decoded tables (`ckb mcp`) answers byte for byte as one that reads
/// the files for each query, on the first call (which fills the cache) and every later one; a
/// cache too small for a table reads that table from the file.
#[test]
fn cached_reads_answer_like_file_reads() {
    use queries::commands::{
        calls, dead_code, hierarchy, impact, refs, search, symbol, understand,
    };
    let plain = fx();
    let cached = Fx {
        _dir: tempfile::tempdir().unwrap(),
        snap: plain.snap.clone().with_cache(1 << 30),
        fresh: unknown(),
    };
    let tiny = Fx {
        _dir: tempfile::tempdir().unwrap(),
        snap: plain.snap.clone().with_cache(1),
        fresh: unknown(),
    };
    let fresh = unknown();
    let p = sid(2);
    let search_args = search::SearchArgs {
        query: "parse".into(),
        ..Default::default()
    };
    let refs_args = refs::RefsArgs {
        input: p.clone(),
        ..Default::default()
    };
    let callers_args = calls::CallsArgs {
        input: p.clone(),
        depth: Some(3),
        limit: None,
    };
    let hierarchy_args = calls::CallsArgs {
        input: "Parse".into(),
        ..Default::default()
    };
    type Question<'q> = Box<dyn Fn(&Ctx<'_>) -> Result<Answer, QueryError> + 'q>;
    let questions: Vec<(&str, Question<'_>)> = vec![
        (
            "symbol",
            Box::new(|c: &Ctx<'_>| symbol::symbol(c, "Parser::parse")),
        ),
        (
            "search",
            Box::new(|c: &Ctx<'_>| search::search(c, &search_args)),
        ),
        ("refs", Box::new(|c: &Ctx<'_>| refs::refs(c, &refs_args))),
        (
            "impact",
            Box::new(|c: &Ctx<'_>| impact::impact(c, &p, None)),
        ),
        (
            "understand",
            Box::new(|c: &Ctx<'_>| understand::understand(c, "render")),
        ),
        (
            "callers",
            Box::new(|c: &Ctx<'_>| calls::callers(c, &callers_args)),
        ),
        (
            "hierarchy",
            Box::new(|c: &Ctx<'_>| hierarchy::hierarchy(c, &hierarchy_args)),
        ),
        (
            "dead-code",
            Box::new(|c: &Ctx<'_>| dead_code::dead_code(c, &dead_code::DeadCodeArgs::default())),
        ),
        (
            "not-found",
            Box::new(|c: &Ctx<'_>| symbol::symbol(c, "no_such")),
        ),
    ];
    let text = |r: Result<Answer, QueryError>| match r {
        Ok(a) => output_schema::json::to_string(&a).unwrap(),
        Err(e) => format!("{e:?}"),
    };
    for (name, ask) in &questions {
        let want = text(ask(&ctx(&plain, &fresh)));
        for round in 0..2 {
            assert_eq!(
                text(ask(&ctx(&cached, &fresh))),
                want,
                "{name}, cached, round {round}"
            );
            assert_eq!(
                text(ask(&ctx(&tiny, &fresh))),
                want,
                "{name}, over the limit"
            );
        }
    }
    let cache = cached.snap.cache.as_ref().unwrap();
    assert!(cache.bytes() > 0);
    assert_eq!(tiny.snap.cache.as_ref().unwrap().bytes(), 0);
}
