//! What each capture name of a syntax query means to the extractor (see `pipeline/queries/README.md`).

use tree_sitter::Query;

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
