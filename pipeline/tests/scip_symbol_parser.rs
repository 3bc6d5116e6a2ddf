//! The SCIP symbol parser ckb builds with (vendor/scip: scip 0.10.0 with its descriptor-name error
//! label made lazy, see vendor/scip/CKB-PATCH.md) parses exactly as the published crate does.
//!
//! `fixtures/scip/parse_symbol_golden.jsonl` was written by the unpatched scip 0.10.0 from the
//! registry: one line per symbol string with what `parse_symbol` returned — the symbol's scheme,
//! package and descriptors, or the error's Debug form. The strings are an evenly spaced sample of
//! the distinct global symbols of two real indexes (rust-analyzer on ripgrep, scip-typescript on
//! vue), truncated copies of some of them, and hand-written malformed ones, so both the accepted
//! structure and every rejection (its variant and its message) are compared. Lines after the
//! first 398 were added (by the same unpatched crate) when the parser was changed to walk bytes:
//! real symbols with non-ASCII characters, doubled backticks and spaces inserted or substituted,
//! so that character positions and byte offsets differ in the accepted names and in the
//! error labels that print the parser's position.

use scip::symbol::{parse_symbol, SymbolError};
use scip::types::Symbol;
use serde_json::{json, Value};

const GOLDEN: &str = include_str!("fixtures/scip/parse_symbol_golden.jsonl");

/// The same rendering the golden's generator used.
fn render(parsed: Result<Symbol, SymbolError>) -> Value {
    match parsed {
        Ok(s) => json!({
            "scheme": s.scheme,
            "package": s.package.as_ref().map(|p| [p.manager.clone(), p.name.clone(), p.version.clone()]),
            "descriptors": s
                .descriptors
                .iter()
                .map(|d| [d.name.clone(), d.disambiguator.clone(), format!("{:?}", d.suffix)])
                .collect::<Vec<_>>(),
        }),
        Err(e) => json!({ "error": format!("{e:?}") }),
    }
}

fn golden() -> Vec<(String, Value)> {
    GOLDEN
        .lines()
        .map(|line| {
            let mut v: Value = serde_json::from_str(line).expect("golden line is JSON");
            let symbol = v["symbol"].as_str().expect("symbol").to_string();
            (symbol, v["parsed"].take())
        })
        .collect()
}

#[test]
fn parse_symbol_matches_the_published_crate_on_real_and_malformed_symbols() {
    let cases = golden();
    let mut mismatches = Vec::new();
    for (symbol, expected) in &cases {
        let got = render(parse_symbol(symbol));
        if &got != expected {
            mismatches.push(format!("{symbol:?}: got {got}, expected {expected}"));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));

    // The sample must exercise what the patch touched: real symbols of both indexers accepted,
    // and rejections inside a descriptor name whose message carries the parser's state.
    let accepted = |scheme: &str| {
        cases
            .iter()
            .filter(|(s, p)| s.starts_with(scheme) && p.get("scheme").is_some())
            .count()
    };
    assert!(accepted("rust-analyzer ") >= 100, "rust-analyzer sample");
    assert!(
        accepted("scip-typescript ") >= 100,
        "scip-typescript sample"
    );
    let errors: Vec<&str> = cases
        .iter()
        .filter_map(|(_, p)| p.get("error").and_then(Value::as_str))
        .collect();
    for prefix in [
        "InvalidIdentifier(\"descriptor name: SymbolParser",
        "EndOfSymbol(\"Parsing descriptor name: SymbolParser",
        "InvalidIndex",
        "MissingDescriptor",
        "InvalidLocalSymbol",
    ] {
        assert!(
            errors.iter().any(|e| e.starts_with(prefix)),
            "no rejection of the kind {prefix}"
        );
    }
}

#[test]
fn descriptor_name_errors_describe_the_parser_where_the_name_began() {
    // (symbol, the error, how its text starts, how it ends)
    for (symbol, error, starts, ends) in [
        // `#` cannot start a descriptor name: rejected at index 25 of 26 characters.
        (
            "rust-analyzer cargo fx 1 #",
            "InvalidIdentifier",
            "descriptor name: SymbolParser { sym: ['r', 'u'",
            "], index: 25 } / 26",
        ),
        // An unterminated backtick name runs to the end; the label still shows where it began.
        (
            "a b c d x.`unterminated",
            "EndOfSymbol",
            "Parsing descriptor name: SymbolParser",
            "index: 10 } / 23",
        ),
    ] {
        let err = parse_symbol(symbol).expect_err("rejected");
        let what = match &err {
            SymbolError::InvalidIdentifier(what) if error == "InvalidIdentifier" => what,
            SymbolError::EndOfSymbol(what) if error == "EndOfSymbol" => what,
            _ => panic!("{error} expected, got {err:?}"),
        };
        assert!(what.starts_with(starts) && what.ends_with(ends), "{what}");
    }
    // Positions count characters, not bytes: `é` and `日本` are one and two characters here.
    let err = parse_symbol("a b c é 日本.#").expect_err("rejected");
    assert_eq!(
        err,
        SymbolError::InvalidIdentifier(
            "descriptor name: SymbolParser { sym: ['a', ' ', 'b', ' ', 'c', ' ', 'é', ' ', '日', \
             '本', '.', '#'], index: 11 } / 12"
                .into()
        )
    );
    let parsed = parse_symbol("a b c d `日``本`.(é)").expect("accepted");
    let names: Vec<&str> = parsed.descriptors.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["日`本", "é"]);
}

#[test]
fn the_borrowing_parse_copies_only_names_whose_escapes_it_undoes() {
    use std::borrow::Cow;
    let symbol = "scip-python python fx 58a4c3e2f1d0 `a``b`/`c d`#m(+1).";
    let parsed = scip::symbol::parse_symbol_ref(symbol).expect("accepted");
    assert_eq!(
        parsed.clone().into_owned(),
        parse_symbol(symbol).expect("accepted")
    );
    let package = parsed.package.as_ref().expect("package");
    for field in [
        &parsed.scheme,
        &package.manager,
        &package.name,
        &package.version,
    ] {
        assert!(matches!(field, Cow::Borrowed(_)), "{field:?}");
    }
    let names: Vec<(&str, bool)> = parsed
        .descriptors
        .iter()
        .map(|d| (d.name.as_ref(), matches!(d.name, Cow::Borrowed(_))))
        .collect();
    // Only the doubled backtick had to be undone; a backticked name without one is a slice.
    assert_eq!(names, [("a`b", false), ("c d", true), ("m", true)]);
    assert!(matches!(
        parsed.descriptors[2].disambiguator,
        Cow::Borrowed("+1")
    ));
}
