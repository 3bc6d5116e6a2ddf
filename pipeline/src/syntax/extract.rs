//! One file through tree-sitter: parse within a budget, run the language's query, and turn the
//! captures into `symbols`, `occurrences` and `imports` rows for that file alone.
//!
//! Everything here depends only on the file (path, language, test/generated flags, bytes), which
//! is what lets the stage reuse a previous snapshot's rows for an unchanged file. By-name
//! resolution across files happens afterwards (`resolve.rs`).
//!
//! - Containers: enclosing definitions and Rust `impl` blocks, innermost last, joined with `::`
//!   (`impl Display for Foo::fmt`'s container is `impl Display for Foo`); a Go method's container
//!   is its receiver type, a C++ out-of-line `Foo::bar`'s is `Foo`.
//! - Signature: the definition's text before its body (or value), comments left out,
//!   whitespace collapsed to one space, trailing `{`/`:`/`=`/`;` dropped, capped at
//!   [`MAX_SIGNATURE_BYTES`].
//! - body_hash: a Merkle hash of the definition's token stream: its bytes with comments and its
//!   own name left out and whitespace dropped (one space kept between two word characters), so a
//!   rename or a reformat keeps it; a nested definition contributes its kind, name and own body
//!   hash instead of its bytes, which keeps the work linear in the file size. Scanning bytes
//!   between the query's comment captures costs a fraction of a second tree walk.
//! - Budget: tree-sitter calls the progress callbacks after a fixed amount of work (every 100
//!   parser operations, every few query steps), so counting calls is a deterministic work budget:
//!   the same file times out on every machine or on none.
//! - Nothing recurses over the tree (the error count walks with a TreeCursor, into subtrees
//!   with errors only), so deeply nested code cannot overflow the stack.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::ops::ControlFlow;

use output_schema::tables::{ImportRow, OccurrenceRow, SymbolRow};
use output_schema::{Roles, SharedStr};
use tree_sitter::{
    Node, ParseOptions, Parser, QueryCursor, QueryCursorOptions, StreamingIterator, Tree,
};

use super::captures::{
    assigned_field, assigned_function, c_callee, c_declaration, c_fields, c_function_definition,
    c_type_definition, c_variables, callee, cpp_function_definition, expression_name,
    first_argument, path_prefix, python_assignment_defs, python_refs, Cap, Declared,
};
use super::imports::{self, RawImport};
use super::lang::Lang;
use super::visibility::{self, Parent, Vis};
use crate::fingerprint;
use crate::repo_state::FieldHasher;

/// Longest signature kept, in bytes (cut at a character boundary, `…` appended).
pub const MAX_SIGNATURE_BYTES: usize = 240;

/// Source name recorded on every row.
pub const SOURCE: &str = "tree-sitter";

/// Work limits per file, in progress-callback calls (see the module doc).
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Parser callbacks allowed: a fixed base plus a multiple of the file's size in KiB.
    pub parse_base: u64,
    /// Extra parser callbacks per KiB of input.
    pub parse_per_kib: u64,
    /// Query-cursor callbacks allowed: a fixed base plus a multiple of the size in KiB.
    pub query_base: u64,
    /// Extra query callbacks per KiB of input.
    pub query_per_kib: u64,
}

impl Default for Budget {
    fn default() -> Self {
        // Ordinary code takes a few parser callbacks per KiB; these limits sit two orders of
        // magnitude above that, so only pathological input reaches them.
        Budget {
            parse_base: 20_000,
            parse_per_kib: 2_000,
            query_base: 20_000,
            query_per_kib: 2_000,
        }
    }
}

/// The file being extracted.
#[derive(Clone, Copy, Debug)]
pub struct FileInput<'a> {
    /// Repository ID (for stable IDs).
    pub repo_id: &'a str,
    /// Repo-relative path.
    pub path: &'a str,
    /// Language.
    pub lang: Lang,
    /// Test file (occurrences get the `test` role).
    pub is_test: bool,
    /// Generated file (occurrences get the `generated` role).
    pub is_generated: bool,
}

/// The rows of one file.
#[derive(Debug, Default)]
pub struct FileFacts {
    /// Definitions.
    pub symbols: Vec<SymbolRow>,
    /// Definition, reference, call, write, import and forward-definition sites; `symbol_id` is set
    /// for definitions only (resolution fills the others).
    pub occurrences: Vec<OccurrenceRow>,
    /// Import statements.
    pub imports: Vec<ImportRow>,
    /// ERROR and MISSING nodes in the tree (0 for a clean parse).
    pub errors: u32,
}

/// Why a file produced no rows.
#[derive(Debug)]
pub enum Failure {
    /// The parser or the query exceeded the budget.
    TimedOut(&'static str),
    /// The language's query does not compile (a ckb bug).
    BrokenQuery(&'static str),
    /// The parser refused the grammar (ABI mismatch; a ckb bug).
    BrokenGrammar(String),
}

/// Per-thread parsing state: one parser per language and a query cursor, reused across files.
pub struct Worker {
    parsers: Vec<Option<Parser>>,
    cursor: QueryCursor,
}

impl Default for Worker {
    fn default() -> Self {
        Worker::new()
    }
}

impl Worker {
    /// A fresh worker.
    pub fn new() -> Worker {
        Worker {
            parsers: (0..Lang::ALL.len()).map(|_| None).collect(),
            cursor: QueryCursor::new(),
        }
    }

    /// Parses `src` within the budget; `Ok(None)` when the budget ran out.
    pub fn parse(
        &mut self,
        lang: Lang,
        src: &[u8],
        budget: &Budget,
    ) -> Result<Option<Tree>, Failure> {
        let slot = &mut self.parsers[lang as usize];
        if slot.is_none() {
            let mut parser = Parser::new();
            parser
                .set_language(&lang.grammar())
                .map_err(|e| Failure::BrokenGrammar(format!("{}: {e}", lang.name())))?;
            *slot = Some(parser);
        }
        let Some(parser) = slot.as_mut() else {
            return Err(Failure::BrokenGrammar(lang.name().into()));
        };
        let limit = budget.parse_base + budget.parse_per_kib * (src.len() as u64 / 1024);
        let mut calls = 0u64;
        let mut progress = |_: &tree_sitter::ParseState| {
            calls += 1;
            if calls > limit {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let len = src.len();
        let tree = parser.parse_with_options(
            &mut |i, _| if i < len { &src[i..] } else { &[] },
            None,
            Some(ParseOptions::new().progress_callback(&mut progress)),
        );
        if tree.is_none() {
            // A cancelled parse resumes on the next call unless reset.
            parser.reset();
        }
        Ok(tree)
    }
}

/// Extracts one file's rows.
pub fn extract(
    worker: &mut Worker,
    file: &FileInput<'_>,
    src: &[u8],
    budget: &Budget,
) -> Result<FileFacts, Failure> {
    let lang = file.lang;
    let Some(tree) = worker.parse(lang, src, budget)? else {
        return Err(Failure::TimedOut("parse"));
    };
    // Asked for after the parse: while one thread compiles a language's query, the others parse
    // their first files instead of waiting for it.
    let lq = lang.query().map_err(Failure::BrokenQuery)?;
    let root = tree.root_node();

    // ---- run the query ----
    let mut raw_defs: Vec<RawDef<'_>> = Vec::new();
    let mut scopes: Vec<(Node<'_>, String)> = Vec::new();
    let mut refs: BTreeMap<(usize, usize), (Node<'_>, Roles)> = BTreeMap::new();
    let mut raw_imports: Vec<RawImport<'_>> = Vec::new();
    let mut comments: Vec<(usize, usize)> = Vec::new();
    let limit = budget.query_base + budget.query_per_kib * (src.len() as u64 / 1024);
    let mut calls = 0u64;
    let mut exceeded = false;
    {
        let mut progress = |_: &tree_sitter::QueryCursorState| {
            calls += 1;
            if calls > limit {
                exceeded = true;
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let mut matches = worker.cursor.matches_with_options(
            &lq.query,
            root,
            src,
            QueryCursorOptions::new().progress_callback(&mut progress),
        );
        while let Some(m) = matches.next() {
            let mut def: Option<(Node<'_>, &'static str)> = None;
            let mut name = None;
            let mut explicit = None;
            let mut hoist = false;
            let mut scope_impl = None;
            let mut scope_type = None;
            let mut scope_trait = None;
            let mut import = RawImport {
                stmt: root,
                path: None,
                names: Vec::new(),
                glob: false,
                rust: None,
            };
            let mut is_import = false;
            for c in m.captures() {
                let node = c.node;
                match lq
                    .caps
                    .get(c.index as usize)
                    .copied()
                    .unwrap_or(Cap::Ignore)
                {
                    Cap::Def(kind) => def = Some((node, kind)),
                    Cap::NamedDef(kind) => {
                        def = Some((node, kind));
                        name = node.child_by_field_name("name").filter(|n| n.is_named());
                    }
                    Cap::Name => name = Some(node),
                    Cap::NameFirstArgument => name = first_argument(node),
                    Cap::Receiver | Cap::Container => explicit = Some(node),
                    Cap::Hoist => hoist = true,
                    Cap::Comment => comments.push((node.start_byte(), node.end_byte())),
                    Cap::ScopeImpl => scope_impl = Some(node),
                    Cap::ScopeType => scope_type = Some(node),
                    Cap::ScopeTrait => scope_trait = Some(node),
                    Cap::RefCall => add_ref(&mut refs, node, Roles::REFERENCE | Roles::CALL),
                    Cap::RefType | Cap::RefRead => add_ref(&mut refs, node, Roles::REFERENCE),
                    Cap::RefWrite => add_ref(&mut refs, node, Roles::REFERENCE | Roles::WRITE),
                    // Captures of a whole expression or statement: the named node is picked in
                    // code (childless patterns compile much faster than nested ones).
                    Cap::RefCallExpr => add_picked(
                        &mut refs,
                        expression_name(node),
                        Roles::REFERENCE | Roles::CALL,
                    ),
                    Cap::RefWriteExpr => add_picked(
                        &mut refs,
                        expression_name(node),
                        Roles::REFERENCE | Roles::WRITE,
                    ),
                    Cap::RefCallCallee => {
                        add_picked(&mut refs, callee(node), Roles::REFERENCE | Roles::CALL)
                    }
                    Cap::RefWriteAssignment => add_picked(
                        &mut refs,
                        assigned_field(node),
                        Roles::REFERENCE | Roles::WRITE,
                    ),
                    Cap::RefReadPath => add_picked(&mut refs, path_prefix(node), Roles::REFERENCE),
                    Cap::RefReadPython => {
                        for name in python_refs(node) {
                            add_ref(&mut refs, name, Roles::REFERENCE);
                        }
                    }
                    Cap::RefCallC => {
                        add_picked(&mut refs, c_callee(node), Roles::REFERENCE | Roles::CALL)
                    }
                    Cap::CFunction => {
                        if let Some(name) = c_function_definition(node) {
                            raw_defs.push(RawDef::found(node, name, "function", m.pattern_index));
                        }
                    }
                    Cap::CppFunction => {
                        if let Some((name, container, kind)) = cpp_function_definition(node) {
                            raw_defs.push(RawDef {
                                node,
                                name,
                                kind,
                                pattern: m.pattern_index,
                                explicit: container,
                                hoist: false,
                            });
                        }
                    }
                    Cap::AssignedFunction => {
                        if let Some(name) = assigned_function(node) {
                            raw_defs.push(RawDef::found(node, name, "function", m.pattern_index));
                        }
                    }
                    Cap::CType => {
                        if let Some((name, kind)) = c_type_definition(node) {
                            raw_defs.push(RawDef::found(node, name, kind, m.pattern_index));
                        }
                    }
                    cap @ (Cap::CFields | Cap::CppFields) => {
                        for (name, kind) in c_fields(node, cap == Cap::CppFields) {
                            raw_defs.push(RawDef::found(node, name, kind, m.pattern_index));
                        }
                    }
                    cap @ (Cap::CVariables | Cap::CppVariables) => {
                        for (declaration, name) in c_variables(node, cap == Cap::CVariables) {
                            raw_defs.push(RawDef::found(
                                declaration,
                                name,
                                "variable",
                                m.pattern_index,
                            ));
                        }
                    }
                    Cap::CDeclaration => {
                        for declared in c_declaration(node) {
                            match declared {
                                Declared::Prototype(name) => {
                                    add_ref(&mut refs, name, Roles::FORWARD_DEFINITION)
                                }
                                Declared::Method(name) => raw_defs.push(RawDef::found(
                                    node,
                                    name,
                                    "method",
                                    m.pattern_index,
                                )),
                            }
                        }
                    }
                    Cap::PythonAssignment => {
                        for (name, kind, hoist) in python_assignment_defs(root, node, src) {
                            raw_defs.push(RawDef {
                                node,
                                name,
                                kind,
                                pattern: m.pattern_index,
                                explicit: None,
                                hoist,
                            });
                        }
                    }
                    Cap::Import => {
                        is_import = true;
                        import.stmt = node;
                    }
                    Cap::ImportPath => import.path = Some(node),
                    Cap::ImportName => import.names.push(node),
                    Cap::ImportGlob => import.glob = true,
                    Cap::ImportRust => import.rust = Some(node),
                    Cap::Ignore => {}
                }
            }
            if let (Some((node, kind)), Some(name)) = (def, name) {
                raw_defs.push(RawDef {
                    node,
                    name,
                    kind,
                    pattern: m.pattern_index,
                    explicit,
                    hoist,
                });
            }
            if let (Some(node), Some(ty)) = (scope_impl, scope_type) {
                let ty = collapse_ws(&lossy(ty, src));
                let label = match scope_trait {
                    Some(tr) => format!("impl {} for {ty}", collapse_ws(&lossy(tr, src))),
                    None => format!("impl {ty}"),
                };
                scopes.push((node, label));
            }
            if is_import {
                raw_imports.push(import);
            }
        }
    }
    if exceeded {
        return Err(Failure::TimedOut("query"));
    }

    // ---- definitions: dedupe, order, containers, kinds ----
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

    let mut defs: Vec<Def<'_>> = Vec::new();
    let mut stack: Vec<usize> = Vec::new(); // indexes into `entries`
    let mut entry_def: Vec<Option<usize>> = vec![None; entries.len()];
    for (ei, e) in entries.iter().enumerate() {
        while let Some(&top) = stack.last() {
            let t = &entries[top];
            if t.start <= e.start && e.end <= t.end && t.node.id() != e.node.id() {
                break;
            }
            stack.pop();
        }
        if let What::Def(raw) = &e.what {
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
            entry_def[ei] = Some(defs.len());
            defs.push(Def {
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
            });
        }
        stack.push(ei);
    }
    let mut defs = drop_hoisted_duplicates(defs);

    // ---- signatures, body hashes, error count ----
    comments.sort_unstable();
    hash_and_sign(&mut defs, &comments, src);
    // A header keeps parameter defaults and the like: values written in the source.
    let rules = crate::signature::Rules::header(lang == Lang::Rust);
    for d in &mut defs {
        d.signature = crate::signature::strip_values(&d.signature, rules);
    }
    let errors = count_errors(&tree);

    // ---- stable IDs with overload discriminators ----
    assign_ids(file, &mut defs);

    // ---- rows ----
    let extra_roles = {
        let mut r = Roles::default();
        if file.is_test {
            r |= Roles::TEST;
        }
        if file.is_generated {
            r |= Roles::GENERATED;
        }
        r
    };
    let mut facts = FileFacts {
        errors,
        symbols: Vec::with_capacity(defs.len()),
        occurrences: Vec::with_capacity(defs.len() + refs.len()),
        imports: Vec::with_capacity(raw_imports.len()),
    };
    // One allocation per file for the values every row of it repeats.
    let shared = RowStrings {
        path: file.path.into(),
        source: SOURCE.into(),
        language: lang.name().into(),
    };
    let name_ranges: HashMap<(usize, usize), ()> = defs
        .iter()
        .map(|d| ((d.name_node.start_byte(), d.name_node.end_byte()), ()))
        .collect();
    for d in &defs {
        let start = d.node.start_position();
        let end = end_point(d.node, src);
        facts.symbols.push(SymbolRow {
            stable_id: d.stable_id.clone(),
            name: d.name.clone(),
            kind: d.kind.into(),
            container: d.container.as_deref().map(SharedStr::from),
            signature: (!d.signature.is_empty()).then(|| d.signature.clone()),
            arity: d.arity,
            definition_version_id: fingerprint::definition_version_id(
                (!d.signature.is_empty()).then_some(d.signature.as_str()),
            ),
            visibility: d.vis.visibility.into(),
            visibility_confidence: d.vis.confidence,
            visibility_source: d.vis.source.into(),
            module_id: None,
            language: Some(shared.language.clone()),
            path: shared.path.clone(),
            start_line: row(start.row),
            start_col: col(start.column),
            end_line: row(end.row),
            end_col: col(end.column),
            source: shared.source.clone(),
            backend_id: None,
            body_hash: Some(d.body_hash.clone()),
        });
        facts.occurrences.push(occurrence(
            &shared,
            d.name_node,
            d.name.as_str().into(),
            Roles::DEFINITION | extra_roles,
            Some(d.stable_id.clone()),
            d.parent.map(|p| defs[p].stable_id.clone()),
        ));
    }

    // Enclosing definition of each reference: a sweep over definitions sorted by start.
    let mut open: Vec<usize> = Vec::new();
    let mut next = 0usize;
    for ((start, end), (node, roles)) in &refs {
        if name_ranges.contains_key(&(*start, *end)) && !roles.contains(Roles::FORWARD_DEFINITION) {
            continue;
        }
        while next < defs.len() && defs[next].start <= *start {
            open.push(next);
            next += 1;
        }
        while let Some(&top) = open.last() {
            let n = &defs[top];
            if n.start <= *start && *start < n.end {
                break;
            }
            open.pop();
        }
        // `open` may hold siblings pushed in order; the innermost containing one is the last
        // that contains the site.
        let enclosing = open
            .iter()
            .rev()
            .find(|&&i| {
                let n = &defs[i];
                n.start <= *start && *start < n.end
            })
            .map(|&i| defs[i].stable_id.clone());
        facts.occurrences.push(occurrence(
            &shared,
            *node,
            lossy(*node, src).as_ref().into(),
            *roles | extra_roles,
            None,
            enclosing,
        ));
    }

    for imp in imports::flatten(lang, &raw_imports, src) {
        let names: Vec<String> = imp.names.iter().map(|(_, n, _)| n.clone()).collect();
        for (_, name, site) in &imp.names {
            if let Some(site) = site {
                if name != "*" {
                    let enclosing = innermost_def(&defs, site.start_byte());
                    facts.occurrences.push(occurrence(
                        &shared,
                        *site,
                        name.as_str().into(),
                        Roles::IMPORT | Roles::REFERENCE | extra_roles,
                        None,
                        enclosing,
                    ));
                }
            }
        }
        facts.imports.push(ImportRow {
            path: file.path.to_string(),
            line: row(imp.row),
            raw: imp.raw,
            names,
            language: lang.name().to_string(),
            target: None,
            kind: "unknown".to_string(),
            method: None,
            confidence: 0.0,
            from_module: None,
            to_module: None,
        });
    }
    Ok(facts)
}

/// Definition kinds whose directly nested functions are methods.
const CLASS_LIKE: &[&str] = &["class", "struct", "interface", "trait", "enum"];

/// Kinds that take parameters.
const CALLABLE: &[&str] = &["function", "method", "constructor", "macro"];

struct RawDef<'t> {
    node: Node<'t>,
    name: Node<'t>,
    kind: &'static str,
    pattern: usize,
    explicit: Option<Node<'t>>,
    hoist: bool,
}

impl<'t> RawDef<'t> {
    /// A definition a capture found in code: no explicit container, not hoisted.
    fn found(node: Node<'t>, name: Node<'t>, kind: &'static str, pattern: usize) -> Self {
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

enum What<'t> {
    Def(RawDef<'t>),
    Scope(String),
}

struct Entry<'t> {
    node: Node<'t>,
    /// `node`'s byte range, read once (tree-sitter computes a node's end on every call).
    start: usize,
    end: usize,
    what: What<'t>,
}

impl<'t> Entry<'t> {
    fn new(node: Node<'t>, what: What<'t>) -> Self {
        Entry {
            node,
            start: node.start_byte(),
            end: node.end_byte(),
            what,
        }
    }
    fn is_def(&self) -> bool {
        matches!(self.what, What::Def(_))
    }
    fn name_start(&self) -> usize {
        match &self.what {
            What::Def(d) => d.name.start_byte(),
            What::Scope(_) => 0,
        }
    }
}

struct Def<'t> {
    node: Node<'t>,
    /// `node`'s byte range, read once.
    start: usize,
    end: usize,
    name_node: Node<'t>,
    name: String,
    kind: &'static str,
    container: Option<String>,
    parent: Option<usize>,
    vis: Vis,
    sig_end: usize,
    arity: Option<i32>,
    signature: String,
    body_hash: String,
    stable_id: SharedStr,
    hoisted: bool,
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

fn add_ref<'t>(
    refs: &mut BTreeMap<(usize, usize), (Node<'t>, Roles)>,
    node: Node<'t>,
    roles: Roles,
) {
    refs.entry((node.start_byte(), node.end_byte()))
        .and_modify(|(_, r)| *r |= roles)
        .or_insert((node, roles));
}

/// [`add_ref`] for a node picked out of a larger capture, when there is one.
fn add_picked<'t>(
    refs: &mut BTreeMap<(usize, usize), (Node<'t>, Roles)>,
    picked: Option<Node<'t>>,
    roles: Roles,
) {
    if let Some(node) = picked {
        add_ref(refs, node, roles);
    }
}

/// The values every row of one file repeats, shared by its rows.
struct RowStrings {
    path: SharedStr,
    source: SharedStr,
    language: SharedStr,
}

fn occurrence(
    shared: &RowStrings,
    node: Node<'_>,
    name: SharedStr,
    roles: Roles,
    symbol_id: Option<SharedStr>,
    enclosing_symbol_id: Option<SharedStr>,
) -> OccurrenceRow {
    let start = node.start_position();
    let end = node.end_position();
    OccurrenceRow {
        symbol_id,
        name,
        path: shared.path.clone(),
        line: row(start.row),
        col: col(start.column),
        end_line: row(end.row),
        end_col: col(end.column),
        roles,
        enclosing_symbol_id,
        source: shared.source.clone(),
    }
}

/// A node's end, moved back over a trailing newline (`#define` lines end at the next line's
/// start), so the span ends on its last line.
fn end_point(node: Node<'_>, src: &[u8]) -> tree_sitter::Point {
    let end = node.end_position();
    let start = node.start_position();
    if end.column > 0 || end.row == start.row || node.end_byte() == 0 {
        return end;
    }
    let last = node.end_byte() - 1; // the newline
    let line_start = src[..last]
        .iter()
        .rposition(|&b| b == b'\n')
        .map(|p| p + 1)
        .unwrap_or(0);
    tree_sitter::Point {
        row: end.row - 1,
        column: last.saturating_sub(line_start),
    }
}

fn innermost_def(defs: &[Def<'_>], at: usize) -> Option<SharedStr> {
    defs.iter()
        .filter(|d| d.start <= at && at < d.end)
        .max_by_key(|d| (d.start, std::cmp::Reverse(d.end)))
        .map(|d| d.stable_id.clone())
}

fn row(r: usize) -> i32 {
    i32::try_from(r + 1).unwrap_or(i32::MAX)
}

fn col(c: usize) -> i32 {
    i32::try_from(c + 1).unwrap_or(i32::MAX)
}

fn lossy<'s>(node: Node<'_>, src: &'s [u8]) -> Cow<'s, str> {
    String::from_utf8_lossy(src.get(node.byte_range()).unwrap_or_default())
}

fn collapse_ws(s: &str) -> String {
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

/// Body hashes and signatures of every definition, from its source bytes.
///
/// A definition's token stream is its bytes with comments (ranges from the query's `@comment`
/// captures) and its own name left out, and whitespace dropped except one space between two
/// word characters (so `x*2` and `x * 2` hash alike, `a b` and `ab` do not). A nested
/// definition contributes its kind, name and body hash instead of its bytes (Merkle), which keeps
/// the work linear in the file size. Definitions sharing a node (`a, b = …`) share both.
fn hash_and_sign(defs: &mut [Def<'_>], comments: &[(usize, usize)], src: &[u8]) {
    let mut order: Vec<usize> = (0..defs.len()).collect();
    order.sort_by_key(|&i| (defs[i].start, std::cmp::Reverse(defs[i].end), i));
    let mut units: Vec<Unit> = Vec::new();
    let mut unit_of: Vec<usize> = vec![0; defs.len()];
    for &i in &order {
        let n = defs[i].node;
        let name = (defs[i].name_node.start_byte(), defs[i].name_node.end_byte());
        match units.last_mut() {
            Some(u) if u.node_id == n.id() => {
                u.names.push(name);
                unit_of[i] = units.len() - 1;
            }
            _ => {
                unit_of[i] = units.len();
                let end = n.end_byte().min(src.len());
                units.push(Unit {
                    node_id: n.id(),
                    start: n.start_byte().min(end),
                    end,
                    sig_end: defs[i].sig_end.min(end),
                    kind: defs[i].kind,
                    name: defs[i].name.clone(),
                    names: vec![name],
                    hash: String::new(),
                    sig: String::new(),
                });
            }
        }
    }
    // Direct children of each unit (units are properly nested tree nodes).
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); units.len()];
    let mut stack: Vec<usize> = Vec::new();
    for i in 0..units.len() {
        while let Some(&top) = stack.last() {
            if units[top].start <= units[i].start && units[i].end <= units[top].end {
                break;
            }
            stack.pop();
        }
        if let Some(&top) = stack.last() {
            children[top].push(i);
        }
        stack.push(i);
    }
    // Children start after their parents: in reverse order every child is done first.
    let mut buf = Vec::new();
    let mut sig = Vec::new();
    for i in (0..units.len()).rev() {
        buf.clear();
        sig.clear();
        let (start, end, sig_end) = (units[i].start, units[i].end, units[i].sig_end);
        let mut pos = start;
        let mut sig_pos = start;
        for &c in &children[i] {
            let (cs, ce) = (units[c].start, units[c].end);
            if cs < pos {
                continue;
            }
            tokens(&mut buf, src, pos, cs, comments, &units[i].names);
            let child = [
                b"\x00def".as_slice(),
                units[c].kind.as_bytes(),
                units[c].name.as_bytes(),
                units[c].hash.as_bytes(),
            ];
            for part in child {
                buf.extend_from_slice(&(part.len() as u32).to_le_bytes());
                buf.extend_from_slice(part);
            }
            pos = ce;
            if cs < sig_end {
                // A definition inside its parent's header (C `typedef struct x {…} x_t`) stands
                // in the parent's signature by its own signature.
                header(&mut sig, src, sig_pos, cs, comments);
                if !sig.is_empty() && sig.last() != Some(&b' ') {
                    sig.push(b' ');
                }
                sig.extend_from_slice(units[c].sig.as_bytes());
                sig.push(b' ');
                sig_pos = ce;
            }
        }
        tokens(&mut buf, src, pos, end, comments, &units[i].names);
        if sig_pos < sig_end {
            header(&mut sig, src, sig_pos, sig_end, comments);
        }
        let mut h = FieldHasher::new("ckb.body.v1");
        h.field(&buf);
        units[i].hash = h.hex(32);
        units[i].sig = finish_signature(&String::from_utf8_lossy(&sig));
    }
    for (i, d) in defs.iter_mut().enumerate() {
        let u = &units[unit_of[i]];
        d.body_hash = u.hash.clone();
        d.signature = u.sig.clone();
    }
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// Appends the token bytes of `src[from..to]`: comments and the given name ranges left out,
/// whitespace dropped but for one space between two word characters.
fn tokens(
    buf: &mut Vec<u8>,
    src: &[u8],
    from: usize,
    to: usize,
    comments: &[(usize, usize)],
    names: &[(usize, usize)],
) {
    let mut gap = true;
    let mut i = from;
    let mut ci = comments.partition_point(|c| c.1 <= from);
    while i < to {
        if let Some(&(cs, ce)) = comments.get(ci) {
            if cs <= i {
                if ce > i {
                    i = ce;
                    gap = true;
                }
                ci += 1;
                continue;
            }
        }
        if let Some(&(_, ne)) = names.iter().find(|(ns, ne)| *ns <= i && i < *ne) {
            i = ne;
            gap = true;
            continue;
        }
        // Up to the next comment or name, the bytes are copied a run of non-space bytes at a
        // time (this loop runs over every byte of every definition).
        let mut stop = comments.get(ci).map_or(to, |&(cs, _)| cs.min(to));
        for &(ns, _) in names {
            if ns > i && ns < stop {
                stop = ns;
            }
        }
        let segment = &src[i..stop];
        let mut j = 0;
        while j < segment.len() {
            if segment[j].is_ascii_whitespace() {
                gap = true;
                j += 1;
                continue;
            }
            let run_end = segment[j..]
                .iter()
                .position(u8::is_ascii_whitespace)
                .map_or(segment.len(), |p| j + p);
            if gap && buf.last().is_some_and(|&l| is_word(l)) && is_word(segment[j]) {
                buf.push(b' ');
            }
            buf.extend_from_slice(&segment[j..run_end]);
            gap = false;
            j = run_end;
        }
        i = stop;
    }
}

/// Appends header text `src[from..to]` with comments left out and whitespace collapsed.
fn header(sig: &mut Vec<u8>, src: &[u8], from: usize, to: usize, comments: &[(usize, usize)]) {
    let mut i = from;
    let mut ci = comments.partition_point(|c| c.1 <= from);
    let mut gap = false;
    while i < to {
        if sig.len() > MAX_SIGNATURE_BYTES + 8 {
            break;
        }
        if let Some(&(cs, ce)) = comments.get(ci) {
            if cs <= i {
                if ce > i {
                    i = ce;
                    gap = true;
                }
                ci += 1;
                continue;
            }
        }
        let b = src[i];
        if b.is_ascii_whitespace() {
            gap = true;
        } else {
            if gap && !sig.is_empty() && sig.last() != Some(&b' ') {
                sig.push(b' ');
            }
            sig.push(b);
            gap = false;
        }
        i += 1;
    }
}

/// ERROR and MISSING nodes of a tree with errors, visiting only subtrees that hold some.
fn count_errors(tree: &Tree) -> u32 {
    let root = tree.root_node();
    if !root.has_error() {
        return 0;
    }
    let mut errors = 0u32;
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            errors = errors.saturating_add(1);
        }
        if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return errors;
            }
        }
    }
}

struct Unit {
    node_id: usize,
    start: usize,
    end: usize,
    sig_end: usize,
    kind: &'static str,
    name: String,
    names: Vec<(usize, usize)>,
    hash: String,
    sig: String,
}

fn finish_signature(sig: &str) -> String {
    let mut s = sig.trim_end().to_string();
    while let Some(stripped) = s
        .strip_suffix('{')
        .or_else(|| s.strip_suffix(':'))
        .or_else(|| s.strip_suffix('='))
        .or_else(|| s.strip_suffix(';'))
    {
        s = stripped.trim_end().to_string();
    }
    if s.len() > MAX_SIGNATURE_BYTES {
        let mut cut = MAX_SIGNATURE_BYTES;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push('…');
    }
    s
}

/// Stable IDs: `symbol_id(repo, qualify_source(lang, path, container), name, kind, discriminator)`;
/// definitions sharing (container, name, kind) get `a<arity>` when all arities are known and
/// distinct, else `s<8 hex of the signature hash>` when all signatures differ, else `n<ordinal>`
/// (1-based, source order).
fn assign_ids(file: &FileInput<'_>, defs: &mut [Def<'_>]) {
    let mut groups: BTreeMap<(String, String, &'static str), Vec<usize>> = BTreeMap::new();
    for (i, d) in defs.iter().enumerate() {
        let qualified =
            fingerprint::qualify_source(file.lang.name(), file.path, d.container.as_deref());
        groups
            .entry((qualified, d.name.clone(), d.kind))
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
