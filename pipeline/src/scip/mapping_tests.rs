//! Tests of [`super`]: document conversion, positions, roles, enclosure.

use super::*;
use crate::scip::positions::byte_offset;
use protobuf::Message;
use scip::types::Document;

#[test]
fn paths_are_joined_and_escapes_rejected() {
    assert_eq!(repo_path("", "src/a.ts").as_deref(), Some("src/a.ts"));
    assert_eq!(
        repo_path("pkg", "./src//a.ts").as_deref(),
        Some("pkg/src/a.ts")
    );
    assert_eq!(repo_path("pkg", "../b.ts").as_deref(), Some("b.ts"));
    assert_eq!(repo_path("", "../b.ts"), None);
    assert_eq!(repo_path("", "a/../../b.ts"), None);
    assert_eq!(repo_path("", "/etc/passwd"), None);
    assert_eq!(repo_path("", "C:/x"), None);
    assert_eq!(repo_path("", ""), None);
    assert_eq!(repo_path("", "a\0b"), None);
}

#[test]
fn roles_decode_every_bit() {
    let all = roles(0x7f);
    for name in [
        "definition",
        "import",
        "write",
        "read",
        "generated",
        "test",
        "forward-definition",
    ] {
        assert!(all.names().any(|n| n == name), "{name}");
    }
    assert!(!all.contains(Roles::REFERENCE));
    assert_eq!(roles(0), Roles::REFERENCE);
    assert_eq!(roles(8), Roles::REFERENCE | Roles::READ);
}

#[test]
fn ranges_normalize_and_reject_garbage() {
    assert_eq!(raw_range(&[1, 2, 5]), Some([1, 2, 1, 5]));
    assert_eq!(raw_range(&[1, 2, 3, 0]), Some([1, 2, 3, 0]));
    assert_eq!(raw_range(&[1, 2]), None);
    assert_eq!(raw_range(&[1, 2, 3, 4, 5]), None);
    assert_eq!(raw_range(&[-1, 2, 3]), None);
    assert_eq!(raw_range(&[1, 5, 2]), None);
    assert_eq!(raw_range(&[3, 0, 2, 9]), None);
}

#[test]
fn utf16_and_utf32_offsets_become_byte_columns() {
    let line = "const s = \"größe 🚀\"; x".as_bytes();
    // 'x' is at UTF-16 offset 22 (the rocket is two units), UTF-32 offset 21, byte 26.
    assert_eq!(byte_offset(line, 22, Encoding::Utf16, false), (26, true));
    assert_eq!(byte_offset(line, 21, Encoding::Utf32, false), (26, true));
    assert_eq!(byte_offset(line, 23, Encoding::Utf16, false), (27, true));
    assert_eq!(byte_offset(line, 25, Encoding::Utf16, false), (29, false));
    assert_eq!(byte_offset(b"abc", 2, Encoding::Utf16, false), (2, true));
    let lines = Lines::new(b"a\r\nb\xc3\xa9c\n".to_vec());
    assert_eq!(lines.line(0), Some(&b"a"[..]));
    assert_eq!(lines.line(1), Some("béc".as_bytes()));
    assert_eq!(lines.line(2), Some(&b""[..]));
    // An all-ASCII text skips the per-line check; past the end still counts as out of range.
    assert!(!lines.ascii);
    assert!(Lines::new(b"abc\n".to_vec()).ascii);
    assert_eq!(byte_offset(b"abc", 5, Encoding::Utf16, true), (5, false));
    assert_eq!(lines.line(3), None);
}

/// A conversion environment with no files on disk (the root does not exist).
fn test_env<'a>(
    files: &'a HashMap<String, String>,
    covered: &'a HashSet<String>,
    default_encoding: Encoding,
) -> DocEnv<'a> {
    DocEnv {
        default_encoding,
        ..DocEnv::detached(files, covered)
    }
}

fn occ(sym: u32, span: (i32, i32, i32, i32), def: Option<(i32, i32, i32, i32)>) -> DocOcc {
    let s = |t: (i32, i32, i32, i32)| Span {
        line: t.0,
        col: t.1,
        end_line: t.2,
        end_col: t.3,
    };
    DocOcc {
        sym,
        span: s(span),
        roles: if def.is_some() {
            Roles::DEFINITION
        } else {
            Roles::REFERENCE
        },
        enclosing: None,
        def_span: def.map(s),
    }
}

#[test]
fn local_symbols_never_reach_the_symbol_parser() {
    // Global symbol strings leave a document in `symbols`, the list the stage parses once per
    // index; `local N` ones are recognised here and never join it, valid or not.
    let mut doc = Document::new();
    doc.relative_path = "src/a.rs".into();
    for (symbol, line) in [
        ("local 1", 0),
        ("rust-analyzer cargo fx 1 f().", 1),
        ("local 1", 2),
        ("local 2", 3),
        ("local not simple", 4),
        ("rust-analyzer cargo fx 1 f().", 5),
    ] {
        let mut o = Occurrence::new();
        o.symbol = symbol.into();
        o.range = vec![line, 0, 1];
        doc.occurrences.push(o);
    }
    let files = HashMap::from([("src/a.rs".to_string(), "rust".to_string())]);
    let covered = HashSet::new();
    let env = test_env(&files, &covered, Encoding::Utf8);
    let bytes = doc.write_to_bytes().expect("encode");
    let (6, DocOutcome::Facts(facts)) = convert(&bytes, &env) else {
        panic!("converted")
    };
    let strings: Vec<&str> = facts.symbols.iter().map(|s| s.symbol.as_str()).collect();
    assert_eq!(strings, ["rust-analyzer cargo fx 1 f()."]);
    assert_eq!(facts.occurrences.len(), 2);
    assert_eq!(facts.tally.get(quirks::LOCAL_SYMBOLS), 2);
    assert_eq!(facts.tally.get(quirks::SKIP_LOCAL_OCCURRENCES), 3);
    assert_eq!(facts.tally.get(quirks::SKIP_UNPARSABLE_SYMBOL), 1);
    assert_eq!(facts.tally.get(quirks::SKIP_UNPARSABLE_OCCURRENCES), 1);
    assert_eq!(facts.warnings.len(), 1);
}

#[test]
fn documents_decode_field_by_field_as_protobuf_merges_them() {
    // A document whose fields come in any order, split across several runs, with repeated
    // singular fields and unknown fields, converts exactly as its merged decode: the bytes of
    // several encoded messages concatenated are one message with their fields merged.
    let occ = |symbol: &str, range: Vec<i32>, roles: i32| {
        let mut o = Occurrence::new();
        o.symbol = symbol.into();
        o.range = range;
        o.symbol_roles = roles;
        o
    };
    let f = "scip-typescript npm fx 1 src/`a.ts`/f().";
    let g = "scip-typescript npm fx 1 src/`a.ts`/g().";
    let mut info = SymbolInformation::new();
    info.symbol = f.into();
    info.kind = scip::types::symbol_information::Kind::Function.into();
    let mut part1 = Document::new();
    part1.symbols.push(info);
    part1.relative_path = "wrong.ts".into();
    let mut part2 = Document::new();
    part2.relative_path = "src/a.ts".into();
    part2.occurrences.push(occ(f, vec![0, 9, 10], 1));
    part2.occurrences.push(occ("local 0", vec![1, 0, 1], 0));
    let mut part3 = Document::new();
    part3.position_encoding = PositionEncoding::UTF8CodeUnitOffsetFromLineStart.into();
    part3.occurrences.push(occ(g, vec![2, 4, 5], 0));
    part3.language = "typescript".into();
    let mut bytes = Vec::new();
    for part in [&part1, &part2, &part3] {
        bytes.extend(part.write_to_bytes().expect("encode"));
    }
    // Unknown fields: a varint (field 15), and field 2 as a varint, which is not an occurrence.
    bytes.extend([15 << 3, 7, 2 << 3, 1]);
    let merged = Document::parse_from_bytes(&bytes).expect("protobuf decodes it");
    assert_eq!(merged.relative_path, "src/a.ts");
    assert_eq!(merged.occurrences.len(), 3);

    let files = HashMap::from([("src/a.ts".to_string(), "typescript".to_string())]);
    let covered = HashSet::new();
    let env = test_env(&files, &covered, Encoding::Utf16);
    let split = convert(&bytes, &env);
    let whole = convert(&merged.write_to_bytes().expect("encode"), &env);
    assert_eq!(format!("{split:?}"), format!("{whole:?}"));
    let (3, DocOutcome::Facts(facts)) = split else {
        panic!("converted: {split:?}")
    };
    assert_eq!(facts.path, "src/a.ts");
    let strings: Vec<&str> = facts.symbols.iter().map(|s| s.symbol.as_str()).collect();
    assert_eq!(strings, [f, g]);
    assert_eq!(
        facts.symbols[0].info.as_ref().and_then(|i| i.kind),
        Some("function")
    );
    assert_eq!(facts.occurrences.len(), 2);
    assert_eq!(facts.occurrences[1].enclosing, None);
    // UTF-8 was stated, so no source file was needed for the columns.
    assert_eq!(facts.tally.get(quirks::POSITION_ENCODING_UNSET), 0);
    assert_eq!(facts.tally.get(quirks::POSITIONS_UNCONVERTED), 0);

    // Cut short (in its header fields), or with an occurrence whose symbol is not UTF-8 (found
    // only when the occurrences are decoded): the whole document is undecodable, nothing of
    // it kept.
    let cut = bytes[..bytes.len() - 8].to_vec();
    let mut bad_symbol = bytes.clone();
    let at = bad_symbol.windows(4).position(|w| w == b"g().").expect("g");
    bad_symbol[at..at + 2].copy_from_slice(&[0xc3, 0x28]);
    for broken in [cut, bad_symbol] {
        assert!(Document::parse_from_bytes(&broken).is_err());
        let (0, DocOutcome::Skipped(skipped)) = convert(&broken, &env) else {
            panic!("a broken document is skipped")
        };
        assert_eq!(skipped.reason, quirks::SKIP_UNDECODABLE);
    }
}

#[test]
fn enclosing_is_the_innermost_other_definition() {
    let mut occs = vec![
        occ(1, (5, 1, 5, 4), None),               // inside g
        occ(0, (1, 4, 1, 5), Some((1, 1, 9, 2))), // f defined, lines 1-9
        occ(1, (3, 4, 3, 5), Some((3, 1, 6, 2))), // g defined inside f
        occ(0, (7, 1, 7, 2), None),               // recursive call of f inside f
        occ(2, (12, 1, 12, 2), None),             // top level
        occ(0, (6, 1, 6, 2), None),               // on g's last line, still inside
    ];
    assign_enclosing(&mut occs);
    let got: Vec<Option<u32>> = occs.iter().map(|o| o.enclosing).collect();
    assert_eq!(got, [Some(1), None, Some(0), Some(0), None, Some(1)]);
}
