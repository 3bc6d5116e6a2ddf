//! Tests of [`super`]: resolution's rules on small fixtures.

use super::*;

/// The rule as first written (one call per candidate and import): what the split into
/// [`import_module`] and [`file_module`] must decide alike.
fn path_matches_module(path: &str, raw: &str, name: &str) -> bool {
    let segments: Vec<&str> = raw
        .split([':', '.', '/', '\\', '<', '>', '"'])
        .filter(|s| !s.is_empty())
        .collect();
    let module = match segments.as_slice() {
        [.., m, last] if *last == name => *m,
        [.., last] => *last,
        [] => return false,
    };
    let mut parts = path.rsplit('/');
    let file = parts.next().unwrap_or(path);
    let stem = file.split('.').next().unwrap_or(file);
    if matches!(stem, "mod" | "__init__" | "index" | "lib") {
        parts.next() == Some(module)
    } else {
        stem == module
    }
}

#[test]
fn import_and_file_modules_match_as_the_rule_says() {
    let paths = [
        "src/sync/mutex.rs",
        "src/sync/mod.rs",
        "mod.rs",
        "/mod.rs",
        "pkg/__init__.py",
        "web/index.ts",
        "web/util.test.ts",
        "src/lib.rs",
        "lib.rs",
        ".rs",
        "src/Arc.rs",
    ];
    let raws = [
        "crate::sync::Mutex",
        "crate::sync::mutex::Mutex",
        "std::sync",
        "sync",
        "Mutex",
        "./util",
        "\"./util.test\"",
        "<sync/mutex.h>",
        "pkg",
        "from pkg import Arc",
        "::",
        "",
        "a..b//c",
    ];
    let names = ["Mutex", "util", "Arc", "sync", "c", "pkg"];
    let mut matched = 0;
    for path in paths {
        for raw in raws {
            for name in names {
                let split = import_module(raw, name).is_some_and(|m| file_module(path) == Some(m));
                assert_eq!(
                    split,
                    path_matches_module(path, raw, name),
                    "{path} {raw} {name}"
                );
                matched += usize::from(split);
            }
        }
    }
    // Not a vacuous agreement: some pairs match, most do not.
    assert!(matched > 10 && matched < 200, "{matched}");
}

fn call(path: &str, caller: &str, callee: Option<&str>, name: &str) -> OccurrenceRow {
    OccurrenceRow {
        symbol_id: callee.map(SharedStr::from),
        name: name.into(),
        path: path.into(),
        line: 1,
        col: 1,
        end_line: 1,
        end_col: 2,
        roles: Roles::REFERENCE | Roles::CALL,
        enclosing_symbol_id: Some(caller.into()),
        source: SOURCE.into(),
    }
}

/// A supertype (`sup`) or subtype site at a line, naming `target`, inside `enclosing`.
fn site(
    path: &str,
    line: i32,
    sup: bool,
    target: Option<&str>,
    enclosing: Option<&str>,
) -> OccurrenceRow {
    OccurrenceRow {
        line,
        roles: Roles::REFERENCE
            | if sup {
                Roles::SUPERTYPE
            } else {
                Roles::SUBTYPE
            },
        enclosing_symbol_id: enclosing.map(SharedStr::from),
        ..call(path, "x", target, "T")
    }
}

#[test]
fn supertype_sites_pair_with_the_next_subtype_site_or_their_definition() {
    let rows = vec![
        // class A extends B, C (a.ts)
        site("a.ts", 1, true, Some("B"), Some("A")),
        site("a.ts", 1, true, Some("C"), Some("A")),
        // impl Tr for Ty (b.rs, inside a module M), then a supertrait S of trait U
        site("b.rs", 3, true, Some("Tr"), Some("M")),
        site("b.rs", 3, false, Some("Ty"), Some("M")),
        site("b.rs", 5, true, Some("S"), Some("U")),
        // unresolved ends link nothing; a type is never its own supertype
        site("b.rs", 7, true, None, Some("U")),
        site("b.rs", 8, true, Some("Ty"), Some("M")),
        site("b.rs", 8, false, None, Some("M")),
        site("c.py", 1, true, Some("K"), Some("K")),
        // a subtype site of another file does not pair with a.ts's last supertype site
        site("d.rs", 1, false, Some("Z"), None),
    ];
    let got: Vec<(String, String, String, String)> = relationships(&rows)
        .into_iter()
        .map(|r| (r.from_id, r.to_id, r.kind, r.source))
        .collect();
    let want: Vec<(String, String, String, String)> =
        [("A", "B"), ("A", "C"), ("Ty", "Tr"), ("U", "S")]
            .iter()
            .map(|(f, t)| {
                (
                    f.to_string(),
                    t.to_string(),
                    "implementation".into(),
                    SOURCE.into(),
                )
            })
            .collect();
    assert_eq!(got, want);
}

fn counts(runs: &[(EdgeKey<'_>, i64, Option<Method>)]) -> Vec<(String, String, i64)> {
    runs.iter()
        .map(|((caller, _, name), n, _)| (caller.to_string(), name.to_string(), *n))
        .collect()
}

#[test]
fn stretches_cover_everything_and_cut_only_between_files() {
    let paths = ["a", "a", "a", "b", "c", "c", "c", "c", "d", "e"];
    let occ: Vec<OccurrenceRow> = paths.iter().map(|p| call(p, "f", None, "g")).collect();
    for parts in 1..=12 {
        let stretches = file_stretches(&occ, parts);
        assert!(stretches.len() <= parts.max(1));
        assert_eq!(stretches.first().map(|r| r.start), Some(0));
        assert_eq!(stretches.last().map(|r| r.end), Some(occ.len()));
        for w in stretches.windows(2) {
            assert_eq!(w[0].end, w[1].start);
            assert_ne!(
                occ[w[1].start].path,
                occ[w[1].start - 1].path,
                "{parts}: {stretches:?}"
            );
        }
    }
    assert_eq!(file_stretches(&[], 4), vec![0..0]);
}

#[test]
fn counting_by_stretch_gives_the_counts_of_one_pass_even_when_a_caller_spans_files() {
    // `x` calls `g` from two files (one ID defined in both): the stretches' counts alone
    // would give two `x -> g` edges.
    let mut occ = Vec::new();
    for file in ["a", "b", "c", "d", "e", "f", "g", "h"] {
        for _ in 0..3 {
            occ.push(call(file, &format!("{file}::main"), Some("id:g"), "g"));
        }
    }
    occ.push(call("a", "x", None, "g"));
    occ.push(call("h", "x", None, "g"));
    occ.sort_by(|a, b| a.path.cmp(&b.path));
    let methods = vec![Some(Method::Unique); occ.len()];
    let whole = count_calls_in(&occ, &methods);
    assert!(counts(&whole).contains(&("x".into(), "g".into(), 2)));
    assert_eq!(counts(&count_calls(&occ, &methods)), counts(&whole));
    // Without it, each caller is one file's: the stretches' counts are the whole's.
    let local: Vec<OccurrenceRow> = occ
        .iter()
        .filter(|o| o.enclosing_symbol_id.as_deref() != Some("x"))
        .cloned()
        .collect();
    let methods = vec![None; local.len()];
    assert_eq!(
        counts(&count_calls(&local, &methods)),
        counts(&count_calls_in(&local, &methods))
    );
    assert_eq!(counts(&count_calls(&local, &methods)).len(), 8);
}
