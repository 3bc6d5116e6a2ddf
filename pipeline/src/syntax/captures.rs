//! What each capture name of a syntax query means to the extractor (see `pipeline/queries/README.md`).

use tree_sitter::{Node, Query};

/// Symbol kinds the stage emits. `enum_member` (enum variants and constants) and `constructor`
/// (Java/TypeScript/JavaScript constructors) extend the list.
pub const KINDS: &[&str] = &[
    "function",
    "method",
    "constructor",
    "class",
    "struct",
    "enum",
    "enum_member",
    "interface",
    "trait",
    "type_alias",
    "constant",
    "variable",
    "module",
    "field",
    "macro",
];

/// The meaning of one capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cap {
    /// `@definition.<kind>`
    Def(&'static str),
    /// `@name`
    Name,
    /// `@receiver`
    Receiver,
    /// `@container`
    Container,
    /// `@hoist`
    Hoist,
    /// `@comment`
    Comment,
    /// `@scope.impl`
    ScopeImpl,
    /// `@scope.type`
    ScopeType,
    /// `@scope.trait`
    ScopeTrait,
    /// `@forward`
    Forward,
    /// `@ref.call`
    RefCall,
    /// `@ref.type`
    RefType,
    /// `@ref.read`
    RefRead,
    /// `@ref.write`
    RefWrite,
    /// `@ref.call.expr`: a callee expression, named by [`expression_name`]
    RefCallExpr,
    /// `@ref.write.expr`: an assignment-target expression, named by [`expression_name`]
    RefWriteExpr,
    /// `@import`
    Import,
    /// `@import.path`
    ImportPath,
    /// `@import.name`
    ImportName,
    /// `@import.glob`
    ImportGlob,
    /// `@import.rust`
    ImportRust,
    /// A helper capture (`@_…`), ignored.
    Ignore,
}

/// The meaning of a capture name; `None` for a name the extractor does not know (a query bug,
/// caught by the tests).
pub fn classify(name: &str) -> Option<Cap> {
    if let Some(kind) = name.strip_prefix("definition.") {
        return KINDS.iter().find(|k| **k == kind).map(|k| Cap::Def(k));
    }
    Some(match name {
        "name" => Cap::Name,
        "receiver" => Cap::Receiver,
        "container" => Cap::Container,
        "hoist" => Cap::Hoist,
        "comment" => Cap::Comment,
        "scope.impl" => Cap::ScopeImpl,
        "scope.type" => Cap::ScopeType,
        "scope.trait" => Cap::ScopeTrait,
        "forward" => Cap::Forward,
        "ref.call" => Cap::RefCall,
        "ref.type" => Cap::RefType,
        "ref.read" => Cap::RefRead,
        "ref.write" => Cap::RefWrite,
        "ref.call.expr" => Cap::RefCallExpr,
        "ref.write.expr" => Cap::RefWriteExpr,
        "import" => Cap::Import,
        "import.path" => Cap::ImportPath,
        "import.name" => Cap::ImportName,
        "import.glob" => Cap::ImportGlob,
        "import.rust" => Cap::ImportRust,
        n if n.starts_with('_') => Cap::Ignore,
        _ => return None,
    })
}

/// The meaning of every capture index of a query (unknown names are ignored).
pub fn capture_table(query: &Query) -> Vec<Cap> {
    query
        .capture_names()
        .iter()
        .map(|n| classify(n).unwrap_or(Cap::Ignore))
        .collect()
}

/// Capture names of a query that [`classify`] does not know.
pub fn unknown_captures(query: &Query) -> Vec<String> {
    query
        .capture_names()
        .iter()
        .filter(|n| classify(n).is_none())
        .map(|n| n.to_string())
        .collect()
}

/// The name node of a callee or assignment-target expression (`@ref.call.expr`,
/// `@ref.write.expr`): an identifier is its own name, a field access `a.b` is named by its field,
/// a path `a::b` by its last segment, a generic call `f::<T>` by its function; any other shape
/// (a closure, an index, a tuple field `a.0`) names nothing.
pub fn expression_name(node: Node<'_>) -> Option<Node<'_>> {
    let named = |field: &str, kinds: &[&str]| {
        node.child_by_field_name(field)
            .filter(|n| kinds.contains(&n.kind()))
    };
    match node.kind() {
        "identifier" | "type_identifier" => Some(node),
        "field_expression" => named("field", &["field_identifier"]),
        "scoped_identifier" => named("name", &["identifier"]),
        "scoped_type_identifier" => named("name", &["type_identifier"]),
        "generic_function" => node
            .child_by_field_name("function")
            .filter(|f| f.kind() != "generic_function")
            .and_then(expression_name),
        _ => None,
    }
}
