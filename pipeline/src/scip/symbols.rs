//! What a SCIP symbol string says about a definition: its name, kind, container, signature and
//! visibility, read from the descriptors that the SCIP crate's parser returns
//! (`scip::symbol::parse_symbol_ref`; never by splitting the string) and from `SymbolInformation`.

use std::borrow::Cow;

use scip::symbol::{DescriptorRef, SymbolRef};
use scip::types::descriptor::Suffix;
use scip::types::symbol_information::Kind;

/// A parsed global symbol. Its names borrow from the symbol string (the parser copies a name only
/// where it undoes an escape): a stage parses every distinct symbol of an index once, and copying
/// each name out was a quarter of the parse.
#[derive(Clone, Debug)]
pub struct ParsedSymbol<'a> {
    /// Package manager (`npm`, `cargo`, `python`, …; empty when `.`).
    pub manager: Cow<'a, str>,
    /// Package name (empty when `.`).
    pub package_name: Cow<'a, str>,
    /// Package version (never part of an ID).
    pub version: Cow<'a, str>,
    /// Every descriptor, the symbol's own last.
    pub descriptors: Vec<DescriptorRef<'a>>,
}

/// How a symbol string parses.
#[derive(Debug)]
pub enum Parsed<'a> {
    /// A global symbol.
    Global(ParsedSymbol<'a>),
    /// `local N`: unique only within its document.
    Local,
    /// Rejected by the parser (or a global symbol without descriptors).
    Invalid(String),
}

/// Parses a symbol string with the SCIP crate's parser (`parse_symbol_ref`, the form of
/// `parse_symbol` that borrows its names).
pub fn parse(symbol: &str) -> Parsed<'_> {
    if scip::symbol::is_local_symbol(symbol) {
        return match scip::symbol::parse_symbol_ref(symbol) {
            Ok(_) => Parsed::Local,
            Err(e) => Parsed::Invalid(format!("{e:?}")),
        };
    }
    match scip::symbol::parse_symbol_ref(symbol) {
        Ok(SymbolRef {
            package,
            descriptors,
            ..
        }) => {
            if descriptors.is_empty() {
                return Parsed::Invalid("no descriptors".into());
            }
            let (manager, package_name, version) = match package {
                Some(p) => (p.manager, p.name, p.version),
                None => Default::default(),
            };
            Parsed::Global(ParsedSymbol {
                manager,
                package_name,
                version,
                descriptors,
            })
        }
        Err(e) => Parsed::Invalid(format!("{e:?}")),
    }
}

impl<'a> ParsedSymbol<'a> {
    /// The symbol's own descriptor.
    pub fn own(&self) -> &DescriptorRef<'a> {
        // `parse` only builds symbols with at least one descriptor.
        &self.descriptors[self.descriptors.len() - 1]
    }

    /// The descriptors of the enclosing scopes (all but the last, and but a repeated term:
    /// [`ParsedSymbol::doubled_term`]).
    pub fn container_descriptors(&self) -> &[DescriptorRef<'a>] {
        let own = self.descriptors.len() - 1;
        &self.descriptors[..own - usize::from(self.doubled_term())]
    }

    /// Whether the symbol is scip-python's name for an annotated module-level assignment
    /// (`codes: LookupDict = …` is `…/codes.codes.`): its own term repeated as its container.
    /// The repetition is no scope, so the container leaves it out.
    pub fn doubled_term(&self) -> bool {
        let [.., parent, own] = self.descriptors.as_slice() else {
            return false;
        };
        self.manager == "python"
            && own.suffix == Suffix::Term
            && parent.suffix == Suffix::Term
            && own.name == parent.name
    }

    /// The name stored in `symbols.name` / `occurrences.name`. scip-python names a module
    /// `pkg/__init__:`; the module's name is then its namespace.
    pub fn name(&self) -> &str {
        let own = self.own();
        if own.suffix == Suffix::Meta && own.name == "__init__" {
            if let Some(parent) = self.container_descriptors().last() {
                return &parent.name;
            }
        }
        match own.name.as_ref() {
            "<constructor>" => "constructor",
            n => n,
        }
    }

    /// The method disambiguator of the symbol's own descriptor (empty when none).
    pub fn disambiguator(&self) -> &str {
        &self.own().disambiguator
    }

    /// The kind the descriptor suffix implies, used when `SymbolInformation.kind` is unset.
    pub fn suffix_kind(&self) -> &'static str {
        let parent_is_type = self
            .container_descriptors()
            .last()
            .is_some_and(|d| d.suffix == Suffix::Type);
        match self.own().suffix {
            Suffix::Namespace | Suffix::Package => "module",
            Suffix::Type => "type",
            Suffix::Method if self.own().name == "<constructor>" => "constructor",
            Suffix::Method if parent_is_type => "method",
            Suffix::Method => "function",
            Suffix::Term if parent_is_type => "field",
            Suffix::Term => "variable",
            Suffix::TypeParameter => "type_parameter",
            Suffix::Parameter => "parameter",
            Suffix::Macro => "macro",
            Suffix::Meta if self.own().name == "__init__" => "module",
            Suffix::Meta => "meta",
            Suffix::Local => "local",
            Suffix::UnspecifiedSuffix => "unknown",
        }
    }

    /// Enclosing scopes inside the file, joined with `::` (the `symbols.container` column):
    /// leading namespace descriptors (package, module path, file) are left out, parameters and
    /// type parameters are not scopes, and rust-analyzer's `impl#[Self][Trait]` reads
    /// `impl Trait for Self`. `None` at top level.
    pub fn container(&self) -> Option<String> {
        let descs = self.container_descriptors();
        let start = descs
            .iter()
            .take_while(|d| matches!(d.suffix, Suffix::Namespace | Suffix::Package))
            .count();
        let rest = &descs[start..];
        // Joined as it goes (once per defined symbol): no String per scope.
        let mut joined: Option<String> = None;
        let mut push = |scope: &str| match joined.as_mut() {
            Some(j) => {
                j.push_str("::");
                j.push_str(scope);
            }
            None => joined = Some(scope.to_string()),
        };
        let mut i = 0;
        while i < rest.len() {
            let d = &rest[i];
            if d.name == "impl" && d.suffix == Suffix::Type {
                let params: Vec<&str> = rest[i + 1..]
                    .iter()
                    .take_while(|p| p.suffix == Suffix::TypeParameter)
                    .map(|p| p.name.as_ref())
                    .collect();
                if let Some(self_ty) = params.first() {
                    push(&match params.get(1) {
                        Some(tr) => format!("impl {tr} for {self_ty}"),
                        None => format!("impl {self_ty}"),
                    });
                    i += 1 + params.len();
                    continue;
                }
            }
            match d.suffix {
                Suffix::TypeParameter | Suffix::Parameter | Suffix::Local | Suffix::Meta => {}
                _ => push(match d.name.as_ref() {
                    "<constructor>" => "constructor",
                    n => n,
                }),
            }
            i += 1;
        }
        joined
    }

    /// Whether the symbol sits inside a Rust trait implementation (`impl#[Self][Trait]`), whose
    /// items take the trait's visibility whatever their own signature says.
    fn in_trait_impl(&self) -> bool {
        let descs = self.container_descriptors();
        descs.iter().enumerate().any(|(i, d)| {
            d.name == "impl"
                && d.suffix == Suffix::Type
                && descs[i + 1..]
                    .iter()
                    .take_while(|p| p.suffix == Suffix::TypeParameter)
                    .count()
                    >= 2
        })
    }
}

/// Every string [`kind_name`], [`ParsedSymbol::suffix_kind`] and [`visibility`] can return, so
/// that a table can share one copy of each (anything missing here is only copied, not lost).
/// Sorted, without repeats; built once (every cached document's decoding looks its kinds up
/// here).
pub fn fixed_names() -> &'static [&'static str] {
    static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    NAMES.get_or_init(list_fixed_names)
}

fn list_fixed_names() -> Vec<&'static str> {
    use protobuf::Enum;
    let mut names: Vec<&'static str> = Kind::VALUES
        .iter()
        .filter_map(|k| kind_name(protobuf::EnumOrUnknown::new(*k)))
        .collect();
    names.extend([
        "module",
        "type",
        "constructor",
        "method",
        "function",
        "field",
        "variable",
        "type_parameter",
        "parameter",
        "macro",
        "meta",
        "local",
        "unknown",
        "public",
        "private",
        "protected",
        "internal",
    ]);
    names.sort_unstable();
    names.dedup();
    names
}

/// Our kind for a `SymbolInformation.kind`; `None` when unset or unknown to this build.
pub fn kind_name(kind: protobuf::EnumOrUnknown<Kind>) -> Option<&'static str> {
    let k = kind.enum_value().ok()?;
    Some(match k {
        Kind::UnspecifiedKind => return None,
        Kind::Function => "function",
        Kind::Method
        | Kind::AbstractMethod
        | Kind::StaticMethod
        | Kind::TraitMethod
        | Kind::PureVirtualMethod
        | Kind::ProtocolMethod
        | Kind::TypeClassMethod
        | Kind::SingletonMethod
        | Kind::MethodSpecification
        | Kind::MethodAlias
        | Kind::Getter
        | Kind::Setter
        | Kind::Accessor => "method",
        Kind::Constructor => "constructor",
        Kind::Class | Kind::SingletonClass => "class",
        Kind::Struct => "struct",
        Kind::Enum => "enum",
        Kind::EnumMember => "enum_member",
        Kind::Interface | Kind::Protocol => "interface",
        Kind::Trait | Kind::TypeClass => "trait",
        Kind::TypeAlias => "type_alias",
        Kind::Type | Kind::AssociatedType | Kind::TypeFamily | Kind::DataFamily => "type",
        Kind::Union => "union",
        Kind::Constant => "constant",
        Kind::Variable | Kind::StaticVariable => "variable",
        Kind::Field | Kind::StaticField | Kind::StaticDataMember => "field",
        Kind::Property | Kind::StaticProperty => "property",
        Kind::Module
        | Kind::Namespace
        | Kind::Package
        | Kind::PackageObject
        | Kind::File
        | Kind::Library => "module",
        Kind::Macro => "macro",
        Kind::Parameter
        | Kind::SelfParameter
        | Kind::ThisParameter
        | Kind::ParameterLabel
        | Kind::MethodReceiver => "parameter",
        Kind::TypeParameter => "type_parameter",
        Kind::Event | Kind::StaticEvent => "event",
        Kind::Delegate => "delegate",
        Kind::Object => "object",
        _ => "other",
    })
}

/// Whether a reference to a symbol of this kind is a call (the callee side of `call_edges`).
pub fn is_callable(kind: &str) -> bool {
    matches!(
        kind,
        "function" | "method" | "constructor" | "macro" | "delegate"
    )
}

/// A signature on one line: runs of whitespace (newlines included) become one space, string
/// literals and initializer values are removed ([`crate::signature::strip_values`]: indexers write
/// them into the signature text), and the result is capped at [`MAX_SIGNATURE_BYTES`] on a
/// character boundary. `None` when empty.
pub fn normalize_signature(text: &str, rules: crate::signature::Rules) -> Option<String> {
    let text = crate::signature::strip_values(text, rules);
    let mut out = String::with_capacity(text.len().min(MAX_SIGNATURE_BYTES));
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
        if crate::signature::cap(&mut out, MAX_SIGNATURE_BYTES) {
            break;
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Longest signature kept (some TypeScript types run to kilobytes).
pub const MAX_SIGNATURE_BYTES: usize = 512;

/// Visibility derived from a signature, where the language writes it there:
/// `(visibility, confidence)`, or `None` when the signature does not say.
pub fn visibility(
    signature: &str,
    language: &str,
    symbol: &ParsedSymbol<'_>,
    kind: &str,
) -> Option<(&'static str, f64)> {
    let words: Vec<&str> = signature
        .split(|c: char| c.is_whitespace())
        .filter(|w| !w.is_empty())
        .take(6)
        .collect();
    let first = *words.first()?;
    if language == "rust" || symbol.manager == "cargo" {
        if first == "pub" {
            return Some(("public", 0.9));
        }
        if first.starts_with("pub(") {
            return Some(match first {
                "pub(self)" => ("private", 0.9),
                _ => ("internal", 0.9),
            });
        }
        // No `pub`: private, except where Rust gives the item another's visibility (trait
        // items, trait-impl items, enum variants) or the signature is not a declaration.
        let declares = matches!(
            first,
            "fn" | "struct"
                | "enum"
                | "trait"
                | "type"
                | "const"
                | "static"
                | "mod"
                | "union"
                | "async"
                | "unsafe"
        ) || kind == "field";
        let inherits = symbol.in_trait_impl()
            || matches!(kind, "enum_member" | "parameter" | "type_parameter");
        if declares && !inherits {
            return Some(("private", 0.8));
        }
        return None;
    }
    // Keyword modifiers (Java, Kotlin, C#, Scala, PHP, Swift, TypeScript class members).
    for w in &words {
        match *w {
            "public" | "open" => return Some(("public", 0.9)),
            "private" | "fileprivate" => return Some(("private", 0.9)),
            "protected" => return Some(("protected", 0.9)),
            "internal" => return Some(("internal", 0.9)),
            _ => {}
        }
    }
    if matches!(first, "export") || words.starts_with(&["declare", "export"]) {
        return Some(("public", 0.9));
    }
    None
}

/// Whether `symbol` is one of scip-typescript's numbered `Meta` pseudo-symbols: its last
/// descriptor is a `Meta` one whose name ends in a per-document counter (`src/`a.ts`/state8:`,
/// `Message#typeLiteral13:`). scip-typescript names object-literal properties and type literals
/// this way; the counter makes them unique only within their document (the next edit renumbers
/// them), so they are locals in all but form. Only strings that end that way are parsed.
pub fn is_numbered_meta(symbol: &str) -> bool {
    let Some(body) = symbol.strip_suffix(':') else {
        return false;
    };
    if !symbol.starts_with("scip-typescript ")
        || !body.ends_with(|c: char| c.is_ascii_digit() || c == '`')
    {
        return false;
    }
    scip::symbol::parse_symbol_ref(symbol).is_ok_and(|parsed| {
        parsed.descriptors.last().is_some_and(|own| {
            let stem = own.name.trim_end_matches(|c: char| c.is_ascii_digit());
            own.suffix == Suffix::Meta && !stem.is_empty() && stem.len() < own.name.len()
        })
    })
}

/// How a package version looks: a URL or a commit hash are quirks worth counting.
pub fn version_quirk(version: &str) -> Option<&'static str> {
    if version.contains("://") || version.starts_with("git+") || version.starts_with("github.com/")
    {
        return Some(super::quirks::PACKAGE_VERSION_URL);
    }
    let hexlen = version.len();
    if (7..=64).contains(&hexlen)
        && version.bytes().all(|b| b.is_ascii_hexdigit())
        && version.bytes().any(|b| b.is_ascii_alphabetic())
    {
        return Some(super::quirks::PACKAGE_VERSION_HASH);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn global(s: &str) -> ParsedSymbol<'_> {
        match parse(s) {
            Parsed::Global(p) => p,
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn names_kinds_and_containers_come_from_descriptors() {
        let m = global("scip-typescript npm pkg 1.0.0 src/`shapes.ts`/Circle#area().");
        assert_eq!((m.name(), m.suffix_kind()), ("area", "method"));
        assert_eq!(m.container().as_deref(), Some("Circle"));
        assert_eq!(m.package_name, "pkg");
        let f = global("scip-typescript npm pkg 1.0.0 src/`shapes.ts`/square().");
        assert_eq!((f.suffix_kind(), f.container()), ("function", None));
        let c = global("scip-typescript npm pkg 1.0.0 src/`a.ts`/Circle#`<constructor>`().");
        assert_eq!((c.name(), c.suffix_kind()), ("constructor", "constructor"));
        let p = global("scip-typescript npm pkg 1.0.0 src/`a.ts`/square().(x)");
        assert_eq!(
            (p.suffix_kind(), p.container().as_deref()),
            ("parameter", Some("square"))
        );
        let r = global("rust-analyzer cargo fx 0.1.0 shapes/impl#[Circle][Shape]area().");
        assert_eq!(r.container().as_deref(), Some("impl Shape for Circle"));
        assert!(r.in_trait_impl());
        let i = global("rust-analyzer cargo fx 0.1.0 shapes/impl#[Circle]new().");
        assert_eq!(i.container().as_deref(), Some("impl Circle"));
        assert!(!i.in_trait_impl());
        let doubled = global("scip-python python fx 0.1 `fx.status`/codes.codes.");
        assert!(doubled.doubled_term());
        assert_eq!((doubled.name(), doubled.container()), ("codes", None));
        assert_eq!(doubled.container_descriptors().len(), 1);
        let member = global("scip-python python fx 0.1 `fx.status`/Codes#codes.");
        assert!(!member.doubled_term());
        assert_eq!(member.container().as_deref(), Some("Codes"));
        // Only scip-python repeats a term so; elsewhere `x.x.` is a term inside a term.
        let scala = global("semanticdb maven g 1 a/x.x.");
        assert!(!scala.doubled_term());
        let py = global("scip-python python fx 0.1 `shapes.geometry`/__init__:");
        assert_eq!((py.name(), py.suffix_kind()), ("shapes.geometry", "module"));
        assert_eq!(global("a b c d m!").suffix_kind(), "macro");
        assert_eq!(global("a b c d T#[U]").suffix_kind(), "type_parameter");
        assert_eq!(global("a b c d x/y/").suffix_kind(), "module");
        assert_eq!(global("a b c d X#f.").suffix_kind(), "field");
        assert_eq!(global("a b c d f.").suffix_kind(), "variable");
        let j = global("semanticdb maven g 1 a/C#m(+1).");
        assert_eq!(j.disambiguator(), "+1");
        assert!(matches!(parse("local 7"), Parsed::Local));
        assert!(matches!(parse("local"), Parsed::Invalid(_)));
        assert!(matches!(parse("a b c d"), Parsed::Invalid(_)));
        assert!(matches!(parse("a b c d x?"), Parsed::Invalid(_)));
    }

    use crate::signature::Rules;

    #[test]
    fn signatures_are_one_line_and_capped() {
        assert_eq!(
            normalize_signature("pub fn f(\n    a: u8,\n) -> u8", Rules::indexer(true)).as_deref(),
            Some("pub fn f( a: u8, ) -> u8")
        );
        assert_eq!(normalize_signature(" \n ", Rules::indexer(false)), None);
        let long = "é".repeat(1000);
        let s = normalize_signature(&long, Rules::indexer(false)).unwrap();
        assert!(s.len() <= MAX_SIGNATURE_BYTES + '…'.len_utf8() && s.ends_with('…'));
    }

    #[test]
    fn visibility_reads_rust_and_keyword_languages() {
        let free = global("rust-analyzer cargo fx 0.1.0 shapes/square().");
        let tr = global("rust-analyzer cargo fx 0.1.0 shapes/impl#[Circle][Shape]area().");
        assert_eq!(
            visibility("pub fn f()", "rust", &free, "function"),
            Some(("public", 0.9))
        );
        assert_eq!(
            visibility(
                "pub(crate) fn square(x: f64) -> f64",
                "rust",
                &free,
                "function"
            ),
            Some(("internal", 0.9))
        );
        assert_eq!(
            visibility("fn f()", "rust", &free, "function"),
            Some(("private", 0.8))
        );
        assert_eq!(
            visibility("fn area(&self) -> f64", "rust", &tr, "method"),
            None
        );
        assert_eq!(
            visibility("radius: f64", "rust", &free, "field"),
            Some(("private", 0.8))
        );
        let j = global("semanticdb maven g 1 a/C#m().");
        assert_eq!(
            visibility("protected static void m()", "java", &j, "method"),
            Some(("protected", 0.9))
        );
        assert_eq!(visibility("void m()", "java", &j, "method"), None);
        assert_eq!(visibility("", "java", &j, "method"), None);
    }

    #[test]
    fn numbered_meta_symbols_are_told_apart() {
        for numbered in [
            "scip-typescript npm zustand 5.0.15 src/`vanilla.ts`/getState0:",
            "scip-typescript npm zustand 5.0.15 tests/`basic.test.tsx`/count79:",
            "scip-typescript npm zustand 5.0.15 src/middleware/`devtools.ts`/Message#typeLiteral13:",
            "scip-typescript npm fx 1.0.0 src/`a.ts`/`Content-Type12`:",
        ] {
            assert!(is_numbered_meta(numbered), "{numbered}");
        }
        for kept in [
            // A property of a type literal: a member, not the literal.
            "scip-typescript npm zustand 5.0.15 src/middleware/`devtools.ts`/Message#typeLiteral13:state.",
            "scip-typescript npm fx 1.0.0 src/`a.ts`/state.",
            "scip-typescript npm fx 1.0.0 src/`a.ts`/base64:x.",
            "scip-typescript npm fx 1.0.0 src/`a.ts`/8:",
            // scip-python's modules are `Meta` descriptors without a counter.
            "scip-python python fx 0.1 `shapes.geometry`/__init__:",
            // Other indexers' `Meta` descriptors are not this quirk.
            "rust-analyzer cargo fx 0.1.0 a/meta1:",
            "local 7",
            "scip-typescript npm fx 1.0.0 src/`a.ts`/broken`1:",
        ] {
            assert!(!is_numbered_meta(kept), "{kept}");
        }
    }

    #[test]
    fn version_quirks() {
        assert!(version_quirk("https://github.com/rust-lang/rust/library/core").is_some());
        assert!(version_quirk("3f1e2d4c5b6a").is_some());
        assert_eq!(version_quirk("1.2.3"), None);
        assert_eq!(version_quirk("0.1.0"), None);
    }
}
