//! Visibility of a definition as its language writes it: modifiers (`pub`, `export`, `public`,
//! `static`, access specifiers), naming conventions (Python's leading underscore, Go's
//! capitalisation), and each language's default when nothing is written.
//!
//! Sources and confidences:
//! - an explicit modifier: `modifier`, 1.0;
//! - the language's rule for an absent modifier (Rust private, Java package-private → `internal`,
//!   class members public in TypeScript, C++ `class` private / `struct` public): `modifier`, 0.8–0.9;
//! - Go capitalisation is the language's rule: `naming`, 1.0; Python underscores are a
//!   convention: `naming`, 0.7–0.8;
//! - enum members, Rust trait items and TypeScript enum members inherit their parent's visibility
//!   (confidence × 0.9);
//! - what cannot be told (C macros and types): `none`, 0.5.

use tree_sitter::Node;

use super::lang::Lang;

/// A visibility with its confidence and source.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vis {
    /// public, private, internal, protected or unknown.
    pub visibility: &'static str,
    /// 0..1.
    pub confidence: f64,
    /// modifier, naming or none.
    pub source: &'static str,
}

const fn vis(visibility: &'static str, confidence: f64, source: &'static str) -> Vis {
    Vis {
        visibility,
        confidence,
        source,
    }
}

/// Unknown visibility.
pub const UNKNOWN: Vis = vis("unknown", 0.0, "none");

/// What the rule needs to know about the enclosing definition or scope.
#[derive(Clone, Copy, Debug)]
pub struct Parent<'a> {
    /// Kind of the nearest enclosing definition (`None` at top level).
    pub kind: Option<&'a str>,
    /// Its visibility.
    pub vis: Option<Vis>,
    /// The nearest enclosing container is a Rust `impl Trait for Type` block.
    pub in_trait_impl: bool,
    /// The nearest enclosing container is a Rust inherent `impl` block.
    pub in_impl: bool,
    /// Node kind of the nearest enclosing class-like definition (C++: `class_specifier`, …).
    pub class_node_kind: Option<&'a str>,
}

/// The visibility of one definition.
pub fn visibility(
    lang: Lang,
    node: Node<'_>,
    name: &str,
    kind: &str,
    path: &str,
    parent: &Parent<'_>,
    src: &[u8],
) -> Vis {
    let inherit = |fallback: Vis| match parent.vis {
        Some(p) => vis(p.visibility, p.confidence * 0.9, p.source),
        None => fallback,
    };
    match lang {
        Lang::Rust => {
            if let Some(m) = child_of_kind(node, "visibility_modifier") {
                let text = compact(m, src);
                return match text.as_str() {
                    "pub" => vis("public", 1.0, "modifier"),
                    "pub(self)" => vis("private", 1.0, "modifier"),
                    _ => vis("internal", 1.0, "modifier"),
                };
            }
            if kind == "macro" {
                return if preceding_attribute_contains(node, "macro_export", src) {
                    vis("public", 1.0, "modifier")
                } else {
                    vis("private", 0.8, "modifier")
                };
            }
            if kind == "enum_member"
                || parent.kind == Some("enum_member")
                || parent.kind == Some("trait")
            {
                return inherit(vis("private", 0.8, "modifier"));
            }
            if parent.in_trait_impl {
                return vis("public", 0.6, "modifier");
            }
            vis("private", 0.9, "modifier")
        }
        Lang::Python => {
            if name.starts_with("__") && name.ends_with("__") && name.len() > 4 {
                vis("public", 0.7, "naming")
            } else if name.starts_with('_') {
                vis("private", 0.8, "naming")
            } else {
                vis("public", 0.7, "naming")
            }
        }
        Lang::Go => {
            if name.chars().next().is_some_and(char::is_uppercase) {
                vis("public", 1.0, "naming")
            } else {
                vis("private", 1.0, "naming")
            }
        }
        Lang::Java => {
            if let Some(m) = child_of_kind(node, "modifiers") {
                let text = String::from_utf8_lossy(&src[m.byte_range()]).into_owned();
                for word in text.split(|c: char| !c.is_ascii_alphanumeric() && c != '@') {
                    match word {
                        "public" => return vis("public", 1.0, "modifier"),
                        "private" => return vis("private", 1.0, "modifier"),
                        "protected" => return vis("protected", 1.0, "modifier"),
                        _ => {}
                    }
                }
            }
            match parent.kind {
                _ if kind == "enum_member" => inherit(vis("public", 0.9, "modifier")),
                Some("interface") => vis("public", 0.9, "modifier"),
                _ => vis("internal", 0.9, "modifier"),
            }
        }
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => {
            if kind == "enum_member" {
                return inherit(vis("public", 0.8, "modifier"));
            }
            if name.starts_with('#') {
                return vis("private", 1.0, "modifier");
            }
            if let Some(m) = child_of_kind(node, "accessibility_modifier") {
                return match compact(m, src).as_str() {
                    "private" => vis("private", 1.0, "modifier"),
                    "protected" => vis("protected", 1.0, "modifier"),
                    _ => vis("public", 1.0, "modifier"),
                };
            }
            if is_exported(node) {
                return vis("public", 1.0, "modifier");
            }
            match parent.kind {
                Some("class" | "interface" | "type_alias") => vis("public", 0.8, "modifier"),
                Some("module") => vis("private", 0.8, "modifier"),
                Some(_) => vis("private", 0.8, "modifier"),
                None if in_ambient(node) => vis("public", 0.7, "modifier"),
                None => vis("private", 0.8, "modifier"),
            }
        }
        Lang::C | Lang::Cpp => {
            if lang == Lang::Cpp && parent.class_node_kind.is_some() {
                if let Some(spec) = access_specifier(node, src) {
                    return vis(spec, 1.0, "modifier");
                }
                return match parent.class_node_kind {
                    Some("class_specifier") => vis("private", 0.9, "modifier"),
                    _ => vis("public", 0.9, "modifier"),
                };
            }
            if kind == "field" || kind == "enum_member" {
                return inherit(vis("public", 0.8, "modifier"));
            }
            if has_static(node, src) {
                return vis("private", 1.0, "modifier");
            }
            let header = matches!(
                path.rsplit('.').next(),
                Some("h" | "hh" | "hpp" | "hxx" | "h++" | "ipp" | "tpp")
            );
            match kind {
                "function" | "variable" | "method" => vis("public", 0.8, "modifier"),
                _ if header => vis("public", 0.5, "none"),
                _ => vis("private", 0.5, "none"),
            }
        }
    }
}

fn child_of_kind<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    let found = node.children(&mut cursor).find(|c| c.kind() == kind);
    found
}

fn compact(node: Node<'_>, src: &[u8]) -> String {
    String::from_utf8_lossy(&src[node.byte_range()])
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

/// Whether a Rust item is preceded by an attribute mentioning `word` (`#[macro_export]`).
fn preceding_attribute_contains(node: Node<'_>, word: &str, src: &[u8]) -> bool {
    let mut sib = node.prev_sibling();
    let mut steps = 0;
    while let Some(s) = sib {
        if steps > 16 {
            break;
        }
        match s.kind() {
            "attribute_item" => {
                if compact(s, src).contains(word) {
                    return true;
                }
            }
            k if k.ends_with("comment") => {}
            _ => break,
        }
        steps += 1;
        sib = s.prev_sibling();
    }
    false
}

/// Whether a JS/TS definition sits in an `export` statement (directly, or through its
/// declaration list for `export const x = …`).
fn is_exported(node: Node<'_>) -> bool {
    near_ancestor(node, "export_statement", |k| {
        matches!(
            k,
            "lexical_declaration" | "variable_declaration" | "ambient_declaration"
        )
    })
}

fn in_ambient(node: Node<'_>) -> bool {
    near_ancestor(node, "ambient_declaration", |_| true)
}

/// Whether one of the node's three nearest ancestors is a `kind`, reached only through ancestors
/// whose kinds `through` accepts.
fn near_ancestor(node: Node<'_>, kind: &str, through: impl Fn(&str) -> bool) -> bool {
    let mut current = node.parent();
    for _ in 0..3 {
        match current {
            Some(p) if p.kind() == kind => return true,
            Some(p) if through(p.kind()) => current = p.parent(),
            _ => return false,
        }
    }
    false
}

/// C/C++ `static` among a declaration's storage-class specifiers.
fn has_static(node: Node<'_>, src: &[u8]) -> bool {
    let mut cursor = node.walk();
    let found = node
        .children(&mut cursor)
        .any(|c| c.kind() == "storage_class_specifier" && compact(c, src) == "static");
    found
}

/// The C++ access specifier (`public:`, …) in force for a class member: the nearest one before
/// it in the member list. Bounded so a huge class cannot make this quadratic.
fn access_specifier(node: Node<'_>, src: &[u8]) -> Option<&'static str> {
    // The member may be wrapped (template_declaration, field_declaration holding the declarator).
    let mut member = node;
    for _ in 0..3 {
        match member.parent() {
            Some(p) if p.kind() == "field_declaration_list" => break,
            Some(p) => member = p,
            None => return None,
        }
    }
    let mut sib = member.prev_sibling();
    let mut steps = 0;
    while let Some(s) = sib {
        if steps > 4096 {
            return None;
        }
        if s.kind() == "access_specifier" {
            return match compact(s, src).as_str() {
                "public" => Some("public"),
                "private" => Some("private"),
                "protected" => Some("protected"),
                _ => None,
            };
        }
        steps += 1;
        sib = s.prev_sibling();
    }
    None
}
