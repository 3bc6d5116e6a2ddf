//! Tests of [`super`]: fingerprints, discriminators, units and qualified containers.

use super::*;

fn desc(name: &str, suffix: Suffix) -> DescriptorRef<'_> {
    DescriptorRef {
        name: name.into(),
        disambiguator: "".into(),
        suffix,
    }
}

fn container_of(symbol: &str) -> Vec<DescriptorRef<'_>> {
    let mut s = scip::symbol::parse_symbol_ref(symbol).expect("test symbol parses");
    s.descriptors.pop();
    s.descriptors
}

#[test]
fn fingerprint_is_fixed_and_length_prefixed() {
    let a = fingerprint("src/a.rs::impl Foo", "new", "method");
    assert_eq!(a.len(), ids::FINGERPRINT_HEX_LEN);
    assert_eq!(a, fingerprint("src/a.rs::impl Foo", "new", "method"));
    // Moving bytes between fields must change the hash.
    assert_ne!(fingerprint("ab", "c", "k"), fingerprint("a", "bc", "k"));
    let id = symbol_id("r", "c", "n", "function", Some("a2"));
    assert!(ids::parse_stable_id(&id).is_some(), "{id}");
    // Kinds take part by family: function/method agree, function/struct do not.
    assert_eq!(
        fingerprint("c", "n", "function"),
        fingerprint("c", "n", "method")
    );
    assert_ne!(
        fingerprint("c", "n", "function"),
        fingerprint("c", "n", "struct")
    );
}

#[test]
fn definition_version_ignores_whitespace_runs() {
    assert_eq!(
        definition_version_id(Some("fn a(x: u32)")),
        definition_version_id(Some("fn a(x:  u32)\n"))
    );
    assert_ne!(
        definition_version_id(Some("fn a(x: u32)")),
        definition_version_id(Some("fn a(x: u32, y: u32)"))
    );
    // Whatever path the text takes (already collapsed, ASCII to collapse, non-ASCII), equal
    // collapsed forms hash alike, and the hash is the collapsed form's.
    let collapsed = field_hash_hex("ckb.defversion.v1", &[b"fn a(x: u32)"], 16);
    for variant in [
        "fn a(x: u32)",
        " fn a(x: u32)",
        "fn a(x: u32) ",
        "fn\ta(x: u32)",
        "fn a(x:\x0bu32)",
        "fn a(x:\r\nu32)",
        "fn\u{a0}a(x: u32)",
        "fn\u{2003}a(x:\u{3000}u32)",
    ] {
        assert!(!variant.contains('\u{a0}') || !is_collapsed(variant));
        assert_eq!(
            definition_version_id(Some(variant)),
            collapsed,
            "{variant:?}"
        );
    }
    let unicode = field_hash_hex("ckb.defversion.v1", &["fn é(x: u32)".as_bytes()], 16);
    assert_eq!(definition_version_id(Some("fn é(x: u32)")), unicode);
    assert_eq!(definition_version_id(Some("fn  é(x: u32)")), unicode);
    assert!(is_collapsed("fn a(x: u32)") && is_collapsed(""));
    assert!(!is_collapsed("fn  a") && !is_collapsed("fn\ta") && !is_collapsed("fn é"));
}

#[test]
fn discriminators_prefer_arity_then_signature_then_ordinal() {
    assert_eq!(discriminators(&[(Some(1), None)]), vec![None]);
    let d = discriminators(&[
        (Some(1), Some("f(int)")),
        (Some(2), Some("f(int,int)")),
        (Some(1), Some("f(long)")),
        (None, None),
        (None, None),
    ]);
    assert_eq!(d[1].as_deref(), Some("a2"));
    assert!(d[0].as_deref().unwrap().starts_with('s'));
    assert!(d[2].as_deref().unwrap().starts_with('s'));
    assert_ne!(d[0], d[2]);
    assert_eq!(d[3].as_deref(), Some("n1"));
    assert_eq!(d[4].as_deref(), Some("n2"));
    for x in d.iter().flatten() {
        assert!(
            ids::parse_stable_id(&ids::stable_id("r", &format!("{}~{x}", "0".repeat(20))))
                .is_some()
        );
    }
}

#[test]
fn rust_units_follow_cargo_layout() {
    for (path, unit) in [
        ("crates/a/src/lib.rs", "rust:crates/a"),
        ("crates/a/src/net.rs", "rust:crates/a::net"),
        ("crates/a/src/net/mod.rs", "rust:crates/a::net"),
        ("crates/a/src/net/tcp.rs", "rust:crates/a::net::tcp"),
        ("src/lib.rs", "rust:."),
        ("src/main.rs", "rust:src/main.rs"),
        ("src/bin/tool.rs", "rust:src/bin/tool.rs"),
        ("src/bin/tool/main.rs", "rust:src/bin/tool/main.rs"),
        ("src/bin/tool/cli.rs", "rust:src/bin/tool/main.rs::cli"),
        ("tests/it.rs", "rust:tests/it.rs"),
        ("tests/common/mod.rs", "rust:tests::common"),
        ("build.rs", "rust:build.rs"),
    ] {
        assert_eq!(qualify_source("rust", path, None), unit, "{path}");
    }
}

/// Containers are split on `::` byte by byte: a name with characters of several bytes once made
/// every snapshot of its repository an internal error (found by the `syntax` fuzz target).
#[test]
fn containers_with_names_beyond_ascii_are_qualified() {
    for (language, path, container, qualified) in [
        ("python", "u.py", "class Über", "py:u::Über"),
        (
            "rust",
            "src/lib.rs",
            "impl fmt::Display for Größe<T>",
            "rust:.::impl Display for Größe",
        ),
        (
            "rust",
            "src/lib.rs",
            "mod ünïcode::impl Zähler",
            "rust:.::ünïcode::impl Zähler",
        ),
        (
            "typescript",
            "src/a.ts",
            "class 東京::method",
            "js:src/a::東京::method",
        ),
    ] {
        let got = qualify_source(language, path, Some(container));
        assert_eq!(got, qualified, "{container}");
    }
}

#[test]
fn rust_impl_containers_normalize() {
    for (container, qualified) in [
        ("impl Foo", "rust:.::impl Foo"),
        ("impl<T: Clone> Foo<T>", "rust:.::impl Foo"),
        ("impl fmt::Display for Foo", "rust:.::impl Display for Foo"),
        (
            "impl<'a> std::ops::Neg for &'a Foo",
            "rust:.::impl Neg for Foo",
        ),
        ("impl Foo::helper", "rust:."),
        ("inner::impl Foo::helper", "rust:.::inner"),
        ("mod inner::impl<T> G<T>", "rust:.::inner::impl G"),
        ("trait Shape", "rust:.::Shape"),
    ] {
        let got = qualify_source("rust", "src/lib.rs", Some(container));
        assert_eq!(got, qualified, "{container}");
    }
}

#[test]
fn rust_scip_descriptors_agree_with_source() {
    let cases = [
        // (path, tree-sitter container, rust-analyzer symbol)
        (
            "crates/a/src/lib.rs",
            None,
            "rust-analyzer cargo a 0.3.1 top().",
        ),
        (
            "crates/a/src/lib.rs",
            Some("impl Config"),
            "rust-analyzer cargo a 0.3.1 impl#[Config]new().",
        ),
        (
            "crates/a/src/lib.rs",
            Some("impl fmt::Display for Config"),
            "rust-analyzer cargo a 0.3.1 impl#[Config][Display]fmt().",
        ),
        (
            "crates/a/src/lib.rs",
            Some("inline"),
            "rust-analyzer cargo a 0.3.1 inline/deep().",
        ),
        (
            "crates/a/src/lib.rs",
            Some("inline::impl<T: Clone> G<T>"),
            "rust-analyzer cargo a 0.3.1 inline/impl#[`G<T>`]get().",
        ),
        (
            "crates/a/src/net/mod.rs",
            None,
            "rust-analyzer cargo a 0.3.1 net/connect().",
        ),
        (
            "crates/a/src/net/tcp.rs",
            Some("impl crate::Shape for Stream"),
            "rust-analyzer cargo a 0.3.1 net/tcp/impl#[Stream][Shape]area().",
        ),
        (
            "crates/a/src/lib.rs",
            Some("Kind"),
            "rust-analyzer cargo a 0.3.1 Kind#A#",
        ),
        (
            "crates/a/src/lib.rs",
            Some("Config"),
            "rust-analyzer cargo a 0.3.1 Config#name.",
        ),
        // A #[path] module: rust-analyzer says `net/`, the file says `net_impl`.
        (
            "crates/a/src/net_impl.rs",
            None,
            "rust-analyzer cargo a 0.3.1 net/dial().",
        ),
    ];
    for (path, container, symbol) in cases {
        let from_scip = qualify_scip("rust", path, &container_of(symbol));
        assert_eq!(
            from_scip,
            qualify_source("rust", path, container),
            "{symbol}"
        );
    }
}

#[test]
fn other_languages_agree_with_their_indexers() {
    let cases = [
        (
            "typescript",
            "src/class.ts",
            Some("Class"),
            "scip-typescript npm syntax 1.0.0 src/`class.ts`/Class#method().",
        ),
        (
            "typescript",
            "pkg/src/namespace.ts",
            Some("namespace a"),
            "scip-typescript npm syntax 1.0.0 src/`namespace.ts`/a/hello().",
        ),
        (
            "tsx",
            "web/app.tsx",
            None,
            "scip-typescript npm web 2.0.0 `app.tsx`/App().",
        ),
        (
            "python",
            "src/foo/bar.py",
            Some("Baz"),
            "scip-python python snapshot-util 0.1 `src.foo.bar`/Baz#qux().",
        ),
        (
            "python",
            "foo/__init__.py",
            None,
            "scip-python python p 0.1 foo/InitClass#",
        ),
        (
            "go",
            "internal/server/http.go",
            Some("(s *Server)"),
            "scip-go gomod example.com/x v1.2.0 `example.com/x/internal/server`/Server#Serve().",
        ),
        (
            "java",
            "src/main/java/com/ex/Foo.java",
            Some("class Foo::Inner"),
            "semanticdb maven maven/com.ex/lib 1.0 com/ex/Foo#Inner#run().",
        ),
    ];
    for (lang, path, container, symbol) in cases {
        let from_scip = qualify_scip(lang, path, &container_of(symbol));
        assert_eq!(from_scip, qualify_source(lang, path, container), "{symbol}");
    }
    // TS and JS of the same path share a unit, so a .js → .ts migration keeps IDs.
    assert_eq!(
        qualify_source("javascript", "a/b.js", None),
        qualify_source("typescript", "a/b.ts", None)
    );
}

#[test]
fn package_version_never_matters() {
    let a = container_of("rust-analyzer cargo a 0.1.0 net/impl#[Stream]read().");
    let b = container_of("rust-analyzer cargo a 9.9.9 net/impl#[Stream]read().");
    assert_eq!(
        qualify_scip("rust", "src/net.rs", &a),
        qualify_scip("rust", "src/net.rs", &b)
    );
    let names = [desc("<constructor>", Suffix::Method)];
    assert_eq!(scip_name(&names[0]), "constructor");
}
