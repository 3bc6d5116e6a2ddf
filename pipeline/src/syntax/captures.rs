//! What each capture name of a syntax query means to the extractor (see `pipeline/grammar-queries/README.md`).
//!
//! Size: one picker per capture that names its node in code (`@ref.call.callee`, `@ref.supertypes`, the C family's declarators, …), each a few dozen lines beside the capture table it serves; split, the table and its pickers would be read apart.

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
    /// `@named_definition.<kind>`: a definition named by its `name` field (when that is a named
    /// node), as a nested `(node name: (…) @name) @definition.<kind>` pattern found it where the
    /// grammar allows only the pattern's node types in that field
    NamedDef(&'static str),
    /// `@name`
    Name,
    /// `@name.first_argument`: on a macro call, its first argument when that is an identifier
    /// followed by a comma (named by [`first_argument`])
    NameFirstArgument,
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
    /// `@ref.call.callee`: a call, macro call or struct literal, whose callee is named by
    /// [`callee`]
    RefCallCallee,
    /// `@ref.write.assignment`: an assignment whose `left` field, when a field access, is written
    RefWriteAssignment,
    /// `@ref.read.path`: a scoped path whose `path` field, when a plain identifier, is read
    RefReadPath,
    /// `@ref.read.python`: a Python decorator, class (its superclasses) or type, whose names
    /// are picked by [`python_refs`]
    RefReadPython,
    /// `@ref.supertypes`: a clause or definition naming supertypes (Rust `trait_item`,
    /// TypeScript/JavaScript `class_heritage` and `extends_type_clause`, Java `superclass`,
    /// `super_interfaces` and `extends_interfaces`, C++ `base_class_clause`), whose names are
    /// picked by [`supertype_names`]
    RefSupertypes,
    /// `@assignment.python`: a Python assignment whose position decides what it defines (see
    /// [`python_assignment_defs`])
    PythonAssignment,
    /// `@ref.call.c`: a C or C++ call, or a C++ `new`, whose callee is named by [`c_callee`]
    RefCallC,
    /// `@definition.c_function`: a C function definition, named by [`c_function_definition`]
    CFunction,
    /// `@definition.cpp_function`: a C++ function definition, whose name, container and kind are
    /// found by [`cpp_function_definition`]
    CppFunction,
    /// `@definition.c_variables`: a C translation unit, whose top-level declarations define the
    /// variables named by [`c_variables`] (C rules)
    CVariables,
    /// `@definition.cpp_variables`: a C++ translation unit or namespace, whose declarations
    /// define the variables named by [`c_variables`] (C++ rules)
    CppVariables,
    /// `@definition.js_assigned_function`: a JavaScript or TypeScript assignment, a `function`
    /// definition when [`assigned_function`] finds its name
    AssignedFunction,
    /// `@definition.c_type`: a C or C++ struct, union, enum or class specifier, a type definition
    /// when [`c_type_definition`] finds its name
    CType,
    /// `@definition.c_fields`: a C field declaration, whose fields are found by [`c_fields`]
    CFields,
    /// `@definition.cpp_fields`: a C++ field declaration, whose fields and member functions are
    /// found by [`c_fields`]
    CppFields,
    /// `@declaration.c`: a C or C++ declaration, whose prototypes and C++ destructor and operator
    /// declarations are found by [`c_declaration`]
    CDeclaration,
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
    // Definitions found in code come before the generic `definition.<kind>`.
    let found_in_code = match name {
        "definition.cpp_function" => Some(Cap::CppFunction),
        "definition.c_function" => Some(Cap::CFunction),
        "definition.js_assigned_function" => Some(Cap::AssignedFunction),
        "definition.c_type" => Some(Cap::CType),
        "definition.c_fields" => Some(Cap::CFields),
        "definition.cpp_fields" => Some(Cap::CppFields),
        "definition.c_variables" => Some(Cap::CVariables),
        "definition.cpp_variables" => Some(Cap::CppVariables),
        _ => None,
    };
    if found_in_code.is_some() {
        return found_in_code;
    }
    if let Some(kind) = name.strip_prefix("definition.") {
        return KINDS.iter().find(|k| **k == kind).map(|k| Cap::Def(k));
    }
    if let Some(kind) = name.strip_prefix("named_definition.") {
        return KINDS.iter().find(|k| **k == kind).map(|k| Cap::NamedDef(k));
    }
    Some(match name {
        "name" => Cap::Name,
        "name.first_argument" => Cap::NameFirstArgument,
        "receiver" => Cap::Receiver,
        "container" => Cap::Container,
        "hoist" => Cap::Hoist,
        "comment" => Cap::Comment,
        "scope.impl" => Cap::ScopeImpl,
        "scope.type" => Cap::ScopeType,
        "scope.trait" => Cap::ScopeTrait,
        "ref.call" => Cap::RefCall,
        "ref.type" => Cap::RefType,
        "ref.read" => Cap::RefRead,
        "ref.write" => Cap::RefWrite,
        "ref.call.expr" => Cap::RefCallExpr,
        "ref.write.expr" => Cap::RefWriteExpr,
        "ref.call.callee" => Cap::RefCallCallee,
        "ref.write.assignment" => Cap::RefWriteAssignment,
        "ref.read.path" => Cap::RefReadPath,
        "ref.read.python" => Cap::RefReadPython,
        "ref.supertypes" => Cap::RefSupertypes,
        "ref.call.c" => Cap::RefCallC,
        "declaration.c" => Cap::CDeclaration,
        "assignment.python" => Cap::PythonAssignment,
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
/// `@ref.write.expr`): an identifier is its own name, a field access `a.b` (Rust
/// `field_expression`, Python `attribute`, TypeScript `member_expression`) is named by its field,
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
        "attribute" => named("attribute", &["identifier"]),
        "member_expression" => named("property", &["property_identifier"]),
        "field_access" => named("field", &["identifier"]),
        "scoped_identifier" => named("name", &["identifier"]),
        "scoped_type_identifier" => named("name", &["type_identifier"]),
        "generic_function" => node
            .child_by_field_name("function")
            .filter(|f| f.kind() != "generic_function")
            .and_then(expression_name),
        _ => None,
    }
}

/// The first argument of a macro call (`rgtest!(name, |dir, cmd| …)` → `name`): the first named
/// node of its token tree, when that is an identifier directly followed by a comma.
pub fn first_argument(call: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = call.walk();
    let args = call
        .children(&mut cursor)
        .find(|c| c.kind() == "token_tree")?;
    let first = args.named_child(0)?;
    (first.kind() == "identifier" && first.next_sibling().is_some_and(|n| n.kind() == ","))
        .then_some(first)
}

/// The written field of an assignment (`a.b = …`, `a.b += …`): its `left` field when that is a
/// field access (Rust, C and C++ `field_expression`, Python `attribute`, TypeScript
/// `member_expression`, Java `field_access`), named by [`expression_name`].
pub fn assigned_field(assignment: Node<'_>) -> Option<Node<'_>> {
    assignment
        .child_by_field_name("left")
        .filter(|l| {
            matches!(
                l.kind(),
                "field_expression" | "attribute" | "member_expression" | "field_access"
            )
        })
        .and_then(expression_name)
}

/// The name a JavaScript or TypeScript assignment of a function defines (`f = () => …`,
/// `a.b = function () {…}`), as the nested pattern this replaces found it: the `right` field is an
/// `arrow_function` or a `function_expression`, and the `left` field an `identifier` (the name) or
/// a `member_expression` whose `property` is a `property_identifier` (the name).
pub fn assigned_function(assignment: Node<'_>) -> Option<Node<'_>> {
    let right = assignment.child_by_field_name("right")?;
    if !matches!(right.kind(), "arrow_function" | "function_expression") {
        return None;
    }
    let left = assignment.child_by_field_name("left")?;
    match left.kind() {
        "identifier" => Some(left),
        "member_expression" => left
            .child_by_field_name("property")
            .filter(|p| p.kind() == "property_identifier"),
        _ => None,
    }
}

/// The leading segment of a scoped path (`a` in `a::b`, `a::B`) when it is a plain identifier.
pub fn path_prefix(path: Node<'_>) -> Option<Node<'_>> {
    path.child_by_field_name("path")
        .filter(|p| p.kind() == "identifier")
}

/// The callee name of a call (`function` field; Rust and TypeScript `call_expression`, Python
/// `call`), a TypeScript `new` (`constructor`), a Rust macro call (`macro`) or struct literal
/// (`name`), named by [`expression_name`].
pub fn callee(call: Node<'_>) -> Option<Node<'_>> {
    let field = match call.kind() {
        "call_expression" | "call" => "function",
        "new_expression" => "constructor",
        "macro_invocation" => "macro",
        "struct_expression" => "name",
        "method_invocation" => "name",
        "object_creation_expression" => {
            return call.child_by_field_name("type").and_then(created_type);
        }
        _ => return None,
    };
    call.child_by_field_name(field).and_then(expression_name)
}

/// The class a Java `new` creates, as the three nested patterns this replaces named it: the type
/// itself when a `type_identifier`, the `type_identifier` directly in a `generic_type`
/// (`new Box<T>()`), the last named child of a `scoped_type_identifier` when a `type_identifier`
/// (`new a.b.C()`); a primitive or other type names nothing.
fn created_type(ty: Node<'_>) -> Option<Node<'_>> {
    match ty.kind() {
        "type_identifier" => Some(ty),
        "generic_type" => {
            let mut cursor = ty.walk();
            let base = ty
                .named_children(&mut cursor)
                .find(|c| c.kind() == "type_identifier");
            base
        }
        "scoped_type_identifier" => {
            let last = u32::try_from(ty.named_child_count().checked_sub(1)?).ok()?;
            ty.named_child(last)
                .filter(|c| c.kind() == "type_identifier")
        }
        _ => None,
    }
}

/// The supertypes a clause names (see [`Cap::RefSupertypes`]), each by its base name
/// ([`type_base_name`]): a Rust trait's bounds (lifetimes and `for<'a>` bounds name nothing), the
/// `extends` values and `implements` types of a TypeScript class (a JavaScript class's one
/// expression), a TypeScript interface's `extends` types, the types of a Java `extends` or
/// `implements` list, a C++ class's base classes. Mixins (`extends mix(A)`) name nothing.
pub fn supertype_names(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    let listed: Vec<Node<'_>> = match node.kind() {
        "trait_item" => match node.child_by_field_name("bounds") {
            Some(bounds) => bounds.named_children(&mut cursor).collect(),
            None => Vec::new(),
        },
        "class_heritage" => {
            let mut out = Vec::new();
            for clause in node.named_children(&mut cursor) {
                let mut inner = clause.walk();
                match clause.kind() {
                    "extends_clause" => {
                        out.extend(clause.children_by_field_name("value", &mut inner))
                    }
                    "implements_clause" => out.extend(clause.named_children(&mut inner)),
                    // JavaScript: `class_heritage` holds the extended expression itself.
                    _ => out.push(clause),
                }
            }
            out
        }
        "extends_type_clause" => node.children_by_field_name("type", &mut cursor).collect(),
        "superclass" | "base_class_clause" => node.named_children(&mut cursor).collect(),
        "super_interfaces" | "extends_interfaces" => {
            let list = node
                .named_children(&mut cursor)
                .find(|c| c.kind() == "type_list");
            match list {
                Some(list) => {
                    let mut inner = list.walk();
                    list.named_children(&mut inner).collect()
                }
                None => Vec::new(),
            }
        }
        _ => Vec::new(),
    };
    listed.into_iter().filter_map(type_base_name).collect()
}

/// The name node of a type as written in a supertype position or a Rust `impl` header: an
/// identifier itself; a generic type's base (`Foo<T>`, Java's first child), a path's last segment
/// (`a::Foo`, `a.Foo`, `ns::Foo`), a reference's type (`&Foo`), a subscript's value
/// (`Generic[T]`). A few levels at most; any other shape (a call, a tuple, a function type) names
/// nothing.
pub fn type_base_name(node: Node<'_>) -> Option<Node<'_>> {
    let mut n = node;
    for _ in 0..8 {
        let next = match n.kind() {
            "type_identifier" | "identifier" | "property_identifier" => return Some(n),
            "generic_type" => n
                .child_by_field_name("name")
                .or_else(|| n.child_by_field_name("type"))
                .or_else(|| n.named_child(0)),
            "scoped_type_identifier"
            | "nested_type_identifier"
            | "qualified_identifier"
            | "template_type"
            | "scoped_identifier" => n.child_by_field_name("name").or_else(|| {
                // Java's scoped type names its segments as children, the last one the name.
                let last = u32::try_from(n.named_child_count().checked_sub(1)?).ok()?;
                n.named_child(last)
            }),
            "member_expression" => n.child_by_field_name("property"),
            "attribute" => n.child_by_field_name("attribute"),
            "subscript" => n.child_by_field_name("value"),
            "reference_type" => n.child_by_field_name("type"),
            _ => None,
        };
        n = next?;
    }
    None
}

/// The names a Python `decorator`, `class_definition` or `type` refers to, as the nested patterns
/// this replaces picked them (`(decorator (identifier))`, `(decorator (attribute attribute:
/// (identifier)))`, the same two in a class's `superclasses: (argument_list …)`, and in a `type`,
/// plus `(type (generic_type (identifier)))`): an identifier directly inside, the `attribute` of an
/// `a.b` directly inside, and in a type the identifiers directly inside a `generic_type` child.
pub fn python_refs(node: Node<'_>) -> Vec<Node<'_>> {
    let is_type = node.kind() == "type";
    let parent = match node.kind() {
        "decorator" | "type" => Some(node),
        "class_definition" => node
            .child_by_field_name("superclasses")
            .filter(|s| s.kind() == "argument_list"),
        _ => None,
    };
    let Some(parent) = parent else {
        return Vec::new();
    };
    let mut names = Vec::new();
    let mut cursor = parent.walk();
    for child in parent.named_children(&mut cursor) {
        match child.kind() {
            "identifier" => names.push(child),
            "attribute" => names.extend(
                child
                    .child_by_field_name("attribute")
                    .filter(|a| a.kind() == "identifier"),
            ),
            "generic_type" if is_type => {
                let mut inner = child.walk();
                names.extend(
                    child
                        .named_children(&mut inner)
                        .filter(|n| n.kind() == "identifier"),
                );
            }
            _ => {}
        }
    }
    names
}

/// The callee name of a C or C++ call or a C++ `new`, as the nested patterns this replaces found
/// it: a call's `function` when an `identifier`, the `field_identifier` field of a
/// `field_expression`, the `identifier` name of a `qualified_identifier` (`a::f`) or
/// `template_function` (`f<T>`, C++ only); the `type_identifier` type of a `new_expression`.
/// Anything else names nothing.
pub fn c_callee(node: Node<'_>) -> Option<Node<'_>> {
    fn field_of<'t>(n: Node<'t>, field: &str, kind: &str) -> Option<Node<'t>> {
        n.child_by_field_name(field).filter(|c| c.kind() == kind)
    }
    match node.kind() {
        "call_expression" => {
            let function = node.child_by_field_name("function")?;
            match function.kind() {
                "identifier" => Some(function),
                "field_expression" => field_of(function, "field", "field_identifier"),
                "qualified_identifier" | "template_function" => {
                    field_of(function, "name", "identifier")
                }
                _ => None,
            }
        }
        "new_expression" => field_of(node, "type", "type_identifier"),
        _ => None,
    }
}

/// The name of a C function definition, as the three nested patterns this replaces found it: the
/// `declarator` field is a `function_declarator`, or one or two `pointer_declarator`s around one
/// (`int **f(void)`), and that one's own `declarator` is an `identifier`.
pub fn c_function_definition(definition: Node<'_>) -> Option<Node<'_>> {
    let mut declarator = definition.child_by_field_name("declarator")?;
    for _ in 0..2 {
        if declarator.kind() != "pointer_declarator" {
            break;
        }
        declarator = declarator.child_by_field_name("declarator")?;
    }
    if declarator.kind() != "function_declarator" {
        return None;
    }
    declarator
        .child_by_field_name("declarator")
        .filter(|n| n.kind() == "identifier")
}

/// The name, container and kind of a C++ function definition, as the six nested patterns this
/// replaces found them. The `declarator` field is a `function_declarator`, or a pointer or
/// reference declarator around one; that one's own `declarator` is:
/// - a `qualified_identifier` (`Foo::bar`): a `method`, named by its `name` and contained in its
///   `scope` (both named nodes);
/// - an `identifier` or `field_identifier`: a `function`;
/// - a `destructor_name` or `operator_name`, directly under the definition only: a `function`.
///
/// Anything else (a template name, a parenthesized declarator, `::f` without a scope) is no
/// definition, as before.
pub fn cpp_function_definition(
    definition: Node<'_>,
) -> Option<(Node<'_>, Option<Node<'_>>, &'static str)> {
    let declarator = definition.child_by_field_name("declarator")?;
    let (function, wrapped) = match declarator.kind() {
        "function_declarator" => (declarator, false),
        "pointer_declarator" => (declarator.child_by_field_name("declarator")?, true),
        "reference_declarator" => {
            let mut cursor = declarator.walk();
            let inner = declarator
                .named_children(&mut cursor)
                .find(|c| c.kind() == "function_declarator")?;
            (inner, true)
        }
        _ => return None,
    };
    if function.kind() != "function_declarator" {
        return None;
    }
    let name = function.child_by_field_name("declarator")?;
    match name.kind() {
        "qualified_identifier" => {
            let scope = name.child_by_field_name("scope").filter(|s| s.is_named())?;
            let name = name.child_by_field_name("name").filter(|n| n.is_named())?;
            Some((name, Some(scope), "method"))
        }
        "identifier" | "field_identifier" => Some((name, None, "function")),
        "destructor_name" | "operator_name" if !wrapped => Some((name, None, "function")),
        _ => None,
    }
}

/// The name and kind of a C or C++ type a specifier defines, as the nested patterns this replaces
/// found them: a `struct_specifier`, `union_specifier` (kind `struct`), `enum_specifier` (`enum`)
/// or `class_specifier` (`class`) with a `body` and a `type_identifier` as its `name`. A specifier
/// without a body (`struct node *next`) only refers to its type.
pub fn c_type_definition(specifier: Node<'_>) -> Option<(Node<'_>, &'static str)> {
    let kind = match specifier.kind() {
        "class_specifier" => "class",
        "struct_specifier" | "union_specifier" => "struct",
        "enum_specifier" => "enum",
        _ => return None,
    };
    specifier
        .child_by_field_name("body")
        .filter(|b| b.is_named())?;
    let name = specifier
        .child_by_field_name("name")
        .filter(|n| n.kind() == "type_identifier")?;
    Some((name, kind))
}

/// The fields (and, C++, member functions) a `field_declaration` declares, as the nested patterns
/// this replaces found them. Each `declarator` field is looked at on its own (`int x, *y;` has
/// two), and is one of:
/// - a `field_identifier`, or a `pointer_declarator` or `array_declarator` whose own `declarator`
///   is one, or (C++) a `reference_declarator` around one: a `field` of that name;
/// - (C++) a `function_declarator` whose own `declarator` is a `field_identifier`,
///   `destructor_name` or `operator_name`: a `method` of that name.
pub fn c_fields(declaration: Node<'_>, cpp: bool) -> Vec<(Node<'_>, &'static str)> {
    let mut out = Vec::new();
    let mut cursor = declaration.walk();
    let mut inner_cursor = declaration.walk();
    for declarator in declaration.children_by_field_name("declarator", &mut cursor) {
        match declarator.kind() {
            "field_identifier" => out.push((declarator, "field")),
            "pointer_declarator" | "array_declarator" => {
                if let Some(name) = declarator
                    .child_by_field_name("declarator")
                    .filter(|n| n.kind() == "field_identifier")
                {
                    out.push((name, "field"));
                }
            }
            "reference_declarator" if cpp => {
                for name in declarator.named_children(&mut inner_cursor) {
                    if name.kind() == "field_identifier" {
                        out.push((name, "field"));
                    }
                }
            }
            "function_declarator" if cpp => {
                if let Some(name) = declarator.child_by_field_name("declarator").filter(|n| {
                    matches!(
                        n.kind(),
                        "field_identifier" | "destructor_name" | "operator_name"
                    )
                }) {
                    out.push((name, "method"));
                }
            }
            _ => {}
        }
    }
    out
}

/// What one C or C++ `declaration` declares besides variables, as the nested patterns this
/// replaces found it. Each `declarator` field is looked at on its own (`int f(void), *g(void);`
/// has two), and is one of:
/// - a `function_declarator` whose own `declarator` is an `identifier`, directly or inside one
///   `pointer_declarator`: a prototype of that name;
/// - a `function_declarator` (directly) whose own `declarator` is a `destructor_name` or an
///   `operator_name` (C++ only): the declaration of a `method` of that name.
pub fn c_declaration(declaration: Node<'_>) -> Vec<Declared<'_>> {
    let mut out = Vec::new();
    let mut cursor = declaration.walk();
    for declarator in declaration.children_by_field_name("declarator", &mut cursor) {
        let (function, wrapped) = match declarator.kind() {
            "function_declarator" => (declarator, false),
            "pointer_declarator" => match declarator.child_by_field_name("declarator") {
                Some(inner) if inner.kind() == "function_declarator" => (inner, true),
                _ => continue,
            },
            _ => continue,
        };
        let Some(name) = function.child_by_field_name("declarator") else {
            continue;
        };
        match name.kind() {
            "identifier" => out.push(Declared::Prototype(name)),
            "destructor_name" | "operator_name" if !wrapped => out.push(Declared::Method(name)),
            _ => {}
        }
    }
    out
}

/// A name [`c_declaration`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Declared<'t> {
    /// A function prototype's name (a forward-definition occurrence).
    Prototype(Node<'t>),
    /// A C++ destructor or operator declared in a declaration (a `method` definition).
    Method(Node<'t>),
}

/// The variables defined by the declarations directly in `scope` — a translation unit, or (C++)
/// the body of a namespace — as (declaration, name) pairs, as the nested patterns this replaces
/// found them. Each `declarator` field of each declaration is looked at on its own, and names a
/// variable when it is an `init_declarator` whose own `declarator` is an `identifier` or (C rules,
/// `c_rules`) a pointer or array declarator directly around one; in a translation unit, also when
/// it is an `identifier` itself (`int x;`).
pub fn c_variables(scope: Node<'_>, c_rules: bool) -> Vec<(Node<'_>, Node<'_>)> {
    let (list, bare) = if scope.kind() == "namespace_definition" {
        match scope.child_by_field_name("body") {
            Some(body) if body.kind() == "declaration_list" => (body, false),
            _ => return Vec::new(),
        }
    } else {
        (scope, true)
    };
    let mut out = Vec::new();
    let mut cursor = list.walk();
    let mut declarators = list.walk();
    for declaration in list.named_children(&mut cursor) {
        if declaration.kind() != "declaration" {
            continue;
        }
        for declarator in declaration.children_by_field_name("declarator", &mut declarators) {
            let name = match declarator.kind() {
                "identifier" if bare => Some(declarator),
                "init_declarator" => {
                    declarator
                        .child_by_field_name("declarator")
                        .and_then(|inner| match inner.kind() {
                            "identifier" => Some(inner),
                            "pointer_declarator" | "array_declarator" if c_rules => inner
                                .child_by_field_name("declarator")
                                .filter(|n| n.kind() == "identifier"),
                            _ => None,
                        })
                }
                _ => None,
            };
            if let Some(name) = name {
                out.push((declaration, name));
            }
        }
    }
    out
}

/// The `N` nearest ancestors of `node` in the tree whose root is `root`, innermost first (`None`
/// past the root). `Node::parent` walks down from the root on every call, and each step of that
/// walk scans the children of a node; a chain of `parent()` calls repeats the walk per step,
/// which for statements of a long module was most of the cost of looking at their context.
pub fn ancestors<'t, const N: usize>(root: Node<'t>, node: Node<'t>) -> [Option<Node<'t>>; N] {
    let mut out = [None; N];
    let mut current = root;
    while N > 0 && current.id() != node.id() {
        out.rotate_right(1);
        out[0] = Some(current);
        match current.child_with_descendant(node) {
            Some(next) if next.id() != current.id() => current = next,
            _ => break,
        }
    }
    out
}

/// What a Python assignment statement defines, by where it stands (the rules the query once spelled
/// as nested patterns, which made up over half of the Python query's compile time):
///
/// - at module level, directly or in a module-level `if` body or `try` body: the assigned name is
///   a `variable` (at module level also each name of a `a, b = …` pattern list);
/// - in a class body: the assigned name is a `field`;
/// - `self.x = …` directly in the body of a method named `__init__`: `x` is a `field` that belongs
///   to the class (hoisted past `__init__`).
///
/// Returns (name node, kind, hoist) for each defined name; an assignment anywhere else defines
/// nothing.
pub fn python_assignment_defs<'t>(
    root: Node<'t>,
    assignment: Node<'t>,
    src: &[u8],
) -> Vec<(Node<'t>, &'static str, bool)> {
    let mut out = Vec::new();
    let [statement, parent, owner, owner_parent] = ancestors(root, assignment);
    if statement.is_none_or(|p| p.kind() != "expression_statement") {
        return out;
    }
    let Some(left) = assignment.child_by_field_name("left") else {
        return out;
    };
    let Some(parent) = parent else {
        return out;
    };
    let is_field_of =
        |owner: Node<'_>, field: &str| owner.child_by_field_name(field) == Some(parent);
    match parent.kind() {
        "module" => match left.kind() {
            "identifier" => out.push((left, "variable", false)),
            "pattern_list" => {
                let mut cursor = left.walk();
                for n in left.named_children(&mut cursor) {
                    if n.kind() == "identifier" {
                        out.push((n, "variable", false));
                    }
                }
            }
            _ => {}
        },
        "block" => {
            let Some(owner) = owner else {
                return out;
            };
            let at_module = || owner_parent.is_some_and(|g| g.kind() == "module");
            let identifier = left.kind() == "identifier";
            match owner.kind() {
                "if_statement"
                    if identifier && is_field_of(owner, "consequence") && at_module() =>
                {
                    out.push((left, "variable", false));
                }
                "try_statement" if identifier && is_field_of(owner, "body") && at_module() => {
                    out.push((left, "variable", false));
                }
                "class_definition" if identifier && is_field_of(owner, "body") => {
                    out.push((left, "field", false));
                }
                "function_definition"
                    if left.kind() == "attribute" && is_field_of(owner, "body") =>
                {
                    let text = |n: Option<Node<'_>>| n.and_then(|n| n.utf8_text(src).ok());
                    let object = left
                        .child_by_field_name("object")
                        .filter(|o| o.kind() == "identifier");
                    let attribute = left
                        .child_by_field_name("attribute")
                        .filter(|a| a.kind() == "identifier");
                    if text(owner.child_by_field_name("name")) == Some("__init__")
                        && text(object) == Some("self")
                    {
                        if let Some(name) = attribute {
                            out.push((name, "field", true));
                        }
                    }
                }
                _ => {}
            }
        }
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::lang::Lang;

    #[test]
    fn ancestors_are_the_chain_of_parents() {
        let src = b"import os\n\nclass A:\n    x = 1\n\n    def __init__(self):\n        self.y = [f(a) for a in b]\n\nif True:\n    z = 2\n";
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&Lang::Python.grammar()).unwrap();
        let tree = parser.parse(src, None).unwrap();
        let root = tree.root_node();
        let mut nodes = vec![root];
        let mut checked = 0;
        while let Some(node) = nodes.pop() {
            let mut expected = [None; 4];
            let mut current = node.parent();
            for slot in &mut expected {
                *slot = current;
                current = current.and_then(|p| p.parent());
            }
            assert_eq!(ancestors::<4>(root, node), expected, "{node:?}");
            assert_eq!(ancestors::<1>(root, node), [node.parent()]);
            assert_eq!(ancestors::<0>(root, node), []);
            checked += 1;
            let mut cursor = node.walk();
            nodes.extend(node.children(&mut cursor));
        }
        assert!(checked > 50, "only {checked} nodes");
    }
}
