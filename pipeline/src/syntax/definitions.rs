//! The definitions of one file, from the grammar query's raw captures: deduplicated, nested by
//! byte range into containers (enclosing definitions and Rust `impl` blocks), kinds refined
//! (`function` inside a class is a `method`, upper-case variables are constants), visibility
//! decided, header ends and arities found, and stable IDs assigned with overload
//! discriminators. See `extract.rs` for the rules.

use std::collections::{BTreeMap, HashMap};

use output_schema::SharedStr;
use tree_sitter::Node;

use super::extract::{lossy, FileInput};
use super::lang::Lang;
use super::visibility::{self, Parent, Vis};
use crate::fingerprint;

/// Definition kinds whose directly nested functions are methods.
const CLASS_LIKE: &[&str] = &["class", "struct", "interface", "trait", "enum"];

/// Kinds that take parameters.
const CALLABLE: &[&str] = &["function", "method", "constructor", "macro"];

pub(super) struct RawDef<'t> {
    pub(super) node: Node<'t>,
    pub(super) name: Node<'t>,
    pub(super) kind: &'static str,
    pub(super) pattern: usize,
    pub(super) explicit: Option<Node<'t>>,
    pub(super) hoist: bool,
}

impl<'t> RawDef<'t> {
    /// A definition a capture found in code: no explicit container, not hoisted.
    pub(super) fn found(
        node: Node<'t>,
        name: Node<'t>,
        kind: &'static str,
        pattern: usize,
    ) -> Self {
        RawDef {
            node,
            name,
            kind,
            pattern,
            explicit: None,
            hoist: false,
        }
    }
}

pub(super) enum What<'t> {
    Def(RawDef<'t>),
    Scope(String),
}

pub(super) struct Entry<'t> {
    pub(super) node: Node<'t>,
    /// `node`'s byte range, read once (tree-sitter computes a node's end on every call).
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) what: What<'t>,
}

impl<'t> Entry<'t> {
    pub(super) fn new(node: Node<'t>, what: What<'t>) -> Self {
        Entry {
            node,
            start: node.start_byte(),
            end: node.end_byte(),
            what,
        }
    }
    pub(super) fn is_def(&self) -> bool {
        matches!(self.what, What::Def(_))
    }
    pub(super) fn name_start(&self) -> usize {
        match &self.what {
            What::Def(d) => d.name.start_byte(),
            What::Scope(_) => 0,
        }
    }
}

pub(super) struct Def<'t> {
    pub(super) node: Node<'t>,
    /// `node`'s byte range, read once.
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) name_node: Node<'t>,
    pub(super) name: String,
    pub(super) kind: &'static str,
    pub(super) container: Option<String>,
    pub(super) parent: Option<usize>,
    pub(super) vis: Vis,
    pub(super) sig_end: usize,
    pub(super) arity: Option<i32>,
    pub(super) signature: String,
    pub(super) body_hash: String,
    pub(super) stable_id: SharedStr,
    pub(super) hoisted: bool,
}

/// Drops hoisted definitions (Python `self.x` in `__init__`) that repeat an earlier or
/// non-hoisted definition of the same container, name and kind, remapping parent links.
fn drop_hoisted_duplicates(defs: Vec<Def<'_>>) -> Vec<Def<'_>> {
    if !defs.iter().any(|d| d.hoisted) {
        return defs;
    }
    let mut seen: std::collections::HashSet<(Option<String>, String, &'static str)> = defs
        .iter()
        .filter(|d| !d.hoisted)
        .map(|d| (d.container.clone(), d.name.clone(), d.kind))
        .collect();
    let keep: Vec<bool> = defs
        .iter()
        .map(|d| !d.hoisted || seen.insert((d.container.clone(), d.name.clone(), d.kind)))
        .collect();
    let mut new_index = vec![None; defs.len()];
    let mut n = 0;
    for (i, k) in keep.iter().enumerate() {
        if *k {
            new_index[i] = Some(n);
            n += 1;
        }
    }
    let parents: Vec<Option<usize>> = defs.iter().map(|d| d.parent).collect();
    let remap = |mut p: Option<usize>| {
        while let Some(i) = p {
            if new_index[i].is_some() {
                return new_index[i];
            }
            p = parents[i];
        }
        None
    };
    defs.into_iter()
        .enumerate()
        .filter(|(i, _)| keep[*i])
        .map(|(_, mut d)| {
            d.parent = remap(d.parent);
            d
        })
        .collect()
}

pub(super) fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn is_upper_name(name: &str) -> bool {
    name.chars().any(|c| c.is_alphabetic()) && !name.chars().any(char::is_lowercase)
}

fn java_static_final(node: Node<'_>, src: &[u8]) -> bool {
    let mut cursor = node.walk();
    let found = node.children(&mut cursor).any(|c| {
        if c.kind() != "modifiers" {
            return false;
        }
        let text = lossy(c, src);
        let words: Vec<&str> = text.split_whitespace().collect();
        words.contains(&"static") && words.contains(&"final")
    });
    found
}

/// Byte offset where a definition's header ends: the start of its body or value; the end of the
/// node when it has neither.
fn header_end(node: Node<'_>) -> usize {
    const BODY_KINDS: &[&str] = &[
        "block",
        "declaration_list",
        "field_declaration_list",
        "ordered_field_declaration_list",
        "enum_variant_list",
        "class_body",
        "interface_body",
        "enum_body",
        "statement_block",
        "compound_statement",
        "object_type",
        "annotation_type_body",
        "enumerator_list",
    ];
    let function_like = |n: Node<'_>| {
        matches!(
            n.kind(),
            "arrow_function" | "function_expression" | "generator_function" | "function" | "lambda"
        )
    };
    if node.kind() == "macro_invocation" {
        // `rgtest!(name, …)`: the header is the macro and the name, never its arguments.
        let mut cursor = node.walk();
        let tree = node
            .children(&mut cursor)
            .find(|c| c.kind() == "token_tree");
        if let Some(first) = tree.and_then(|t| t.named_child(0)) {
            return first.end_byte();
        }
    }
    if node.kind() == "type_definition" {
        // C `typedef struct x { … } x_t;`: the nested struct is a definition of its own and
        // contributes its signature (see `walk`).
        return node.end_byte();
    }
    for field in ["body", "value", "right"] {
        if let Some(b) = node.child_by_field_name(field) {
            if function_like(b) {
                if let Some(inner) = b.child_by_field_name("body") {
                    return inner.start_byte();
                }
            }
            return b.start_byte();
        }
    }
    // Declarators (C `int x = 1`, Java `int x = 1, y`): the value of the first declarator.
    let mut current = node;
    for _ in 0..4 {
        match current.child_by_field_name("declarator") {
            Some(d) => {
                if let Some(v) = d.child_by_field_name("value") {
                    return v.start_byte();
                }
                current = d;
            }
            None => break,
        }
    }
    // A body-like child up to two levels down (Go `struct { … }`, C `struct x { … }`), or a `{`.
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if BODY_KINDS.contains(&child.kind()) || child.kind() == "{" {
            return child.start_byte();
        }
        let mut inner = child.walk();
        for grand in child.children(&mut inner) {
            if BODY_KINDS.contains(&grand.kind()) || grand.kind() == "{" {
                return grand.start_byte();
            }
        }
    }
    node.end_byte()
}

/// Number of parameters of a callable definition.
fn arity(lang: Lang, node: Node<'_>, src: &[u8]) -> Option<i32> {
    let params = find_params(node)?;
    if params.kind() == "identifier" {
        // `x => …`
        return Some(1);
    }
    let mut count = 0i32;
    let mut cursor = params.walk();
    for p in params.named_children(&mut cursor) {
        let k = p.kind();
        if k.ends_with("comment") || matches!(k, "keyword_separator" | "positional_separator") {
            continue;
        }
        match lang {
            Lang::Go if k == "parameter_declaration" => {
                let mut c2 = p.walk();
                let names = p.children_by_field_name("name", &mut c2).count() as i32;
                count += names.max(1);
            }
            Lang::C | Lang::Cpp
                if k == "parameter_declaration"
                    && p.child_by_field_name("declarator").is_none()
                    && lossy(p, src).trim() == "void" =>
            {
                // `f(void)`
            }
            _ => count += 1,
        }
    }
    Some(count)
}

fn find_params(node: Node<'_>) -> Option<Node<'_>> {
    if let Some(p) = node.child_by_field_name("parameters") {
        return Some(p);
    }
    for field in ["value", "right"] {
        if let Some(v) = node.child_by_field_name(field) {
            if let Some(p) = v.child_by_field_name("parameters") {
                return Some(p);
            }
            if let Some(p) = v.child_by_field_name("parameter") {
                return Some(p);
            }
        }
    }
    // C/C++: function_definition → declarator chain → function_declarator.
    let mut current = node;
    for _ in 0..5 {
        let next = current.child_by_field_name("declarator").or_else(|| {
            (current.kind() == "reference_declarator")
                .then(|| current.named_child(0))
                .flatten()
        })?;
        if next.kind() == "function_declarator" {
            return next.child_by_field_name("parameters");
        }
        current = next;
    }
    None
}

/// Stable IDs: `symbol_id(repo, qualify_source(lang, path, container), name, kind, discriminator)`;
/// definitions sharing (container, name, kind family) — the fingerprint's fields, so a C
/// `typedef struct node {…} node;` (a struct and a type alias) is one group — get `a<arity>` when
/// all arities are known and distinct, else `s<8 hex of the signature hash>` when all signatures
/// differ, else `n<ordinal>` (1-based, source order). The IDs are unique within the file; two
/// files that give one ID are told apart by the stage ([`super::shared_ids`]).
pub(super) fn assign_ids(file: &FileInput<'_>, defs: &mut [Def<'_>]) {
    let mut groups: BTreeMap<(String, String, &'static str), Vec<usize>> = BTreeMap::new();
    for (i, d) in defs.iter().enumerate() {
        let qualified =
            fingerprint::qualify_source(file.lang.name(), file.path, d.container.as_deref());
        groups
            .entry((qualified, d.name.clone(), fingerprint::kind_family(d.kind)))
            .or_default()
            .push(i);
    }
    for ((qualified, name, kind), members) in groups {
        if members.len() == 1 {
            defs[members[0]].stable_id =
                fingerprint::symbol_id(file.repo_id, &qualified, &name, kind, None);
            continue;
        }
        let arities: Vec<Option<i32>> = members.iter().map(|&i| defs[i].arity).collect();
        let distinct = |v: &[String]| {
            let mut s = v.to_vec();
            s.sort();
            s.dedup();
            s.len() == v.len()
        };
        let by_arity: Option<Vec<String>> = arities
            .iter()
            .map(|a| a.map(|a| format!("a{a}")))
            .collect::<Option<Vec<_>>>()
            .filter(|v| distinct(v));
        let discriminators = by_arity.unwrap_or_else(|| {
            let sigs: Vec<String> = members
                .iter()
                .map(|&i| {
                    format!(
                        "s{}",
                        &fingerprint::definition_version_id(Some(&defs[i].signature))[..8]
                    )
                })
                .collect();
            let all_known = members.iter().all(|&i| !defs[i].signature.is_empty());
            if all_known && distinct(&sigs) {
                sigs
            } else {
                (1..=members.len()).map(|n| format!("n{n}")).collect()
            }
        });
        for (&i, d) in members.iter().zip(discriminators) {
            defs[i].stable_id =
                fingerprint::symbol_id(file.repo_id, &qualified, &name, kind, Some(&d));
        }
    }
}

/// The definitions of one file in source order, with containers, parents, kinds and visibility:
/// the query's raw definitions (one per name node, the earliest pattern winning) nested with the
/// `impl` scopes by byte range.
pub(super) fn nest<'t>(
    lang: Lang,
    file: &FileInput<'_>,
    src: &[u8],
    raw_defs: Vec<RawDef<'t>>,
    scopes: Vec<(Node<'t>, String)>,
) -> Vec<Def<'t>> {
    let mut by_name: HashMap<usize, usize> = HashMap::new();
    let mut kept: Vec<RawDef<'_>> = Vec::new();
    for d in raw_defs {
        match by_name.get(&d.name.id()) {
            Some(&i) if kept[i].pattern <= d.pattern => {}
            Some(&i) => kept[i] = d,
            None => {
                by_name.insert(d.name.id(), kept.len());
                kept.push(d);
            }
        }
    }
    let mut entries: Vec<Entry<'_>> = kept
        .into_iter()
        .map(|d| Entry::new(d.node, What::Def(d)))
        .chain(
            scopes
                .into_iter()
                .map(|(node, label)| Entry::new(node, What::Scope(label))),
        )
        .collect();
    entries.sort_by(|a, b| {
        let ka = (a.start, std::cmp::Reverse(a.end), a.is_def());
        let kb = (b.start, std::cmp::Reverse(b.end), b.is_def());
        ka.cmp(&kb)
            .then_with(|| a.name_start().cmp(&b.name_start()))
    });

    let mut nesting = Nesting {
        entries: &entries,
        stack: Vec::new(),
        entry_def: vec![None; entries.len()],
        defs: Vec::new(),
    };
    for (ei, e) in entries.iter().enumerate() {
        while let Some(&top) = nesting.stack.last() {
            let t = &entries[top];
            if t.start <= e.start && e.end <= t.end && t.node.id() != e.node.id() {
                break;
            }
            nesting.stack.pop();
        }
        if let What::Def(raw) = &e.what {
            let def = nesting.definition(lang, file, src, raw, e);
            nesting.entry_def[ei] = Some(nesting.defs.len());
            nesting.defs.push(def);
        }
        nesting.stack.push(ei);
    }
    drop_hoisted_duplicates(nesting.defs)
}

/// The walk of [`nest`]: the entries enclosing the current one, and the definitions so far.
struct Nesting<'e, 't> {
    entries: &'e [Entry<'t>],
    /// Indexes into `entries`, outermost first.
    stack: Vec<usize>,
    /// The definition each entry became, if any.
    entry_def: Vec<Option<usize>>,
    defs: Vec<Def<'t>>,
}

impl<'t> Nesting<'_, 't> {
    /// The definition `raw` (entry `e`) becomes inside the entries on the stack.
    fn definition(
        &self,
        lang: Lang,
        file: &FileInput<'_>,
        src: &[u8],
        raw: &RawDef<'t>,
        e: &Entry<'t>,
    ) -> Def<'t> {
        let (entries, stack, entry_def, defs) =
            (self.entries, &self.stack, &self.entry_def, &self.defs);
        // A C typedef wraps the struct it names; the struct is not inside the typedef's scope.
        let transparent = |s: usize| entries[s].node.kind() == "type_definition";
        // A hoisted definition skips its innermost enclosing definition.
        let skip = if raw.hoist {
            stack
                .iter()
                .rev()
                .find(|&&s| entry_def[s].is_some())
                .copied()
        } else {
            None
        };
        let mut labels: Vec<String> = stack
            .iter()
            .filter(|&&s| !transparent(s) && Some(s) != skip)
            .map(|&s| match &entries[s].what {
                What::Def(_) => entry_def[s]
                    .map(|di| defs[di].name.clone())
                    .unwrap_or_default(),
                What::Scope(label) => label.clone(),
            })
            .collect();
        if let Some(x) = raw.explicit {
            labels.push(collapse_ws(&lossy(x, src)));
        }
        let container = (!labels.is_empty()).then(|| labels.join("::"));
        let parent_def = stack
            .iter()
            .rev()
            .filter(|&&s| !transparent(s) && Some(s) != skip)
            .find_map(|&s| entry_def[s]);
        let nearest = stack.last().map(|&s| &entries[s]);
        let nearest_def_kind = stack
            .last()
            .and_then(|&s| entry_def[s])
            .map(|di| defs[di].kind);
        let class_like = match nearest.map(|n| &n.what) {
            Some(What::Scope(_)) => true,
            Some(What::Def(_)) => nearest_def_kind.is_some_and(|k| CLASS_LIKE.contains(&k)),
            None => false,
        };
        let in_scope = matches!(nearest.map(|n| &n.what), Some(What::Scope(_)));
        let in_trait_impl = match nearest.map(|n| &n.what) {
            Some(What::Scope(label)) => label.contains(" for "),
            _ => false,
        };
        let name = lossy(raw.name, src).into_owned();
        let mut kind = raw.kind;
        if kind == "function" && class_like {
            kind = "method";
        }
        if matches!(kind, "variable")
            && matches!(
                lang,
                Lang::Python | Lang::TypeScript | Lang::Tsx | Lang::JavaScript
            )
            && is_upper_name(&name)
        {
            kind = "constant";
        }
        if lang == Lang::Java && kind == "field" && java_static_final(raw.node, src) {
            kind = "constant";
        }
        let class_node_kind = stack
            .iter()
            .rev()
            .filter_map(|&s| entry_def[s])
            .next()
            .map(|di| defs[di].node.kind())
            .filter(|k| {
                matches!(
                    *k,
                    "class_specifier" | "struct_specifier" | "union_specifier"
                )
            });
        let parent = Parent {
            kind: parent_def.map(|p| defs[p].kind),
            vis: parent_def.map(|p| defs[p].vis),
            in_trait_impl,
            in_impl: in_scope,
            class_node_kind: if class_like { class_node_kind } else { None },
        };
        let vis = visibility::visibility(lang, raw.node, &name, kind, file.path, &parent, src);
        Def {
            node: raw.node,
            start: e.start,
            end: e.end,
            name_node: raw.name,
            name,
            kind,
            container,
            parent: parent_def,
            vis,
            sig_end: header_end(raw.node),
            arity: if CALLABLE.contains(&kind) {
                arity(lang, raw.node, src)
            } else {
                None
            },
            signature: String::new(),
            body_hash: String::new(),
            stable_id: SharedStr::default(),
            hoisted: raw.hoist,
        }
    }
}
