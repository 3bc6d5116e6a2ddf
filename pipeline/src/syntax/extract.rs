//! One file through tree-sitter: parse within a budget, run the language's query, and turn the
//! captures into `symbols`, `occurrences` and `imports` rows for that file alone.
//!
//! Everything here depends only on the file (path, language, test/generated flags, bytes), which
//! is what lets the stage reuse a previous snapshot's rows for an unchanged file. By-name
//! resolution across files happens afterwards (`name_binding.rs`).
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

use super::body_hash;
use super::captures::{
    assigned_field, assigned_function, c_callee, c_declaration, c_fields, c_function_definition,
    c_type_definition, c_variables, callee, cpp_function_definition, expression_name,
    first_argument, path_prefix, python_assignment_defs, python_refs, supertype_names,
    type_base_name, Cap, Declared,
};
use super::definitions::{self, collapse_ws, Def, RawDef};
use super::imports::{self, RawImport};
use super::lang::{Lang, LangQuery};
use crate::fingerprint;

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
    let mut hits = run_query(&mut worker.cursor, lq, tree.root_node(), src, budget)?;
    let mut defs = definitions::nest(lang, file, src, hits.raw_defs, hits.scopes);

    // ---- signatures, body hashes, error count ----
    hits.comments.sort_unstable();
    body_hash::hash_and_sign(&mut defs, &hits.comments, src);
    // A header keeps parameter defaults and the like: values written in the source. A value
    // shorter than its `…` lengthens the header, so the cap is applied again.
    let rules = crate::signature::Rules::header(lang == Lang::Rust);
    for d in &mut defs {
        d.signature = crate::signature::strip_values(&d.signature, rules);
        crate::signature::cap(&mut d.signature, MAX_SIGNATURE_BYTES);
    }
    let errors = count_errors(&tree);

    // ---- stable IDs with overload discriminators ----
    definitions::assign_ids(file, &mut defs);
    Ok(file_rows(
        file,
        src,
        &defs,
        &hits.refs,
        &hits.raw_imports,
        errors,
    ))
}

/// What the grammar query found in one file.
struct QueryHits<'t> {
    raw_defs: Vec<RawDef<'t>>,
    /// Rust `impl` blocks and their labels.
    scopes: Vec<(Node<'t>, String)>,
    /// Reference sites by byte range, with their roles.
    refs: BTreeMap<(usize, usize), (Node<'t>, Roles)>,
    raw_imports: Vec<RawImport<'t>>,
    /// Comment byte ranges.
    comments: Vec<(usize, usize)>,
}

/// Runs the language's query over the tree within the budget.
fn run_query<'t>(
    cursor: &mut QueryCursor,
    lq: &LangQuery,
    root: Node<'t>,
    src: &'t [u8],
    budget: &Budget,
) -> Result<QueryHits<'t>, Failure> {
    let mut hits = QueryHits {
        raw_defs: Vec::new(),
        scopes: Vec::new(),
        refs: BTreeMap::new(),
        raw_imports: Vec::new(),
        comments: Vec::new(),
    };
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
        let mut matches = cursor.matches_with_options(
            &lq.query,
            root,
            src,
            QueryCursorOptions::new().progress_callback(&mut progress),
        );
        while let Some(m) = matches.next() {
            let mut found = MatchCaptures::new(root);
            for c in m.captures() {
                let cap = lq
                    .caps
                    .get(c.index as usize)
                    .copied()
                    .unwrap_or(Cap::Ignore);
                capture(
                    &mut hits,
                    &mut found,
                    cap,
                    c.node,
                    m.pattern_index,
                    root,
                    src,
                );
            }
            finish_match(&mut hits, found, m.pattern_index, src);
        }
    }
    if exceeded {
        return Err(Failure::TimedOut("query"));
    }
    Ok(hits)
}

/// The captures of one query match that only mean something together.
struct MatchCaptures<'t> {
    def: Option<(Node<'t>, &'static str)>,
    name: Option<Node<'t>>,
    explicit: Option<Node<'t>>,
    hoist: bool,
    scope_impl: Option<Node<'t>>,
    scope_type: Option<Node<'t>>,
    scope_trait: Option<Node<'t>>,
    import: RawImport<'t>,
    is_import: bool,
}

impl<'t> MatchCaptures<'t> {
    fn new(root: Node<'t>) -> Self {
        MatchCaptures {
            def: None,
            name: None,
            explicit: None,
            hoist: false,
            scope_impl: None,
            scope_type: None,
            scope_trait: None,
            import: RawImport {
                stmt: root,
                path: None,
                names: Vec::new(),
                glob: false,
                rust: None,
            },
            is_import: false,
        }
    }
}

/// Records one capture: a finished fact into `hits`, a part of the match's fact into `found`.
fn capture<'t>(
    hits: &mut QueryHits<'t>,
    found: &mut MatchCaptures<'t>,
    cap: Cap,
    node: Node<'t>,
    pattern: usize,
    root: Node<'t>,
    src: &[u8],
) {
    match cap {
        Cap::Def(kind) => found.def = Some((node, kind)),
        Cap::NamedDef(kind) => {
            found.def = Some((node, kind));
            found.name = node.child_by_field_name("name").filter(|n| n.is_named());
        }
        Cap::Name => found.name = Some(node),
        Cap::NameFirstArgument => found.name = first_argument(node),
        Cap::Receiver | Cap::Container => found.explicit = Some(node),
        Cap::Hoist => found.hoist = true,
        Cap::Comment => hits.comments.push((node.start_byte(), node.end_byte())),
        Cap::ScopeImpl => found.scope_impl = Some(node),
        Cap::ScopeType => found.scope_type = Some(node),
        Cap::ScopeTrait => found.scope_trait = Some(node),
        Cap::RefCall => add_ref(&mut hits.refs, node, Roles::REFERENCE | Roles::CALL),
        Cap::RefType | Cap::RefRead => add_ref(&mut hits.refs, node, Roles::REFERENCE),
        Cap::RefWrite => add_ref(&mut hits.refs, node, Roles::REFERENCE | Roles::WRITE),
        // Captures of a whole expression or statement: the named node is picked in
        // code (childless patterns compile much faster than nested ones).
        Cap::RefCallExpr => add_picked(
            &mut hits.refs,
            expression_name(node),
            Roles::REFERENCE | Roles::CALL,
        ),
        Cap::RefWriteExpr => add_picked(
            &mut hits.refs,
            expression_name(node),
            Roles::REFERENCE | Roles::WRITE,
        ),
        Cap::RefCallCallee => {
            add_picked(&mut hits.refs, callee(node), Roles::REFERENCE | Roles::CALL)
        }
        Cap::RefWriteAssignment => add_picked(
            &mut hits.refs,
            assigned_field(node),
            Roles::REFERENCE | Roles::WRITE,
        ),
        Cap::RefReadPath => add_picked(&mut hits.refs, path_prefix(node), Roles::REFERENCE),
        Cap::RefReadPython => {
            // A class's names are its superclasses.
            let roles = if node.kind() == "class_definition" {
                Roles::REFERENCE | Roles::SUPERTYPE
            } else {
                Roles::REFERENCE
            };
            for name in python_refs(node) {
                add_ref(&mut hits.refs, name, roles);
            }
        }
        Cap::RefSupertypes => {
            for name in supertype_names(node) {
                add_ref(&mut hits.refs, name, Roles::REFERENCE | Roles::SUPERTYPE);
            }
        }
        Cap::RefCallC => add_picked(
            &mut hits.refs,
            c_callee(node),
            Roles::REFERENCE | Roles::CALL,
        ),
        Cap::CFunction => {
            if let Some(name) = c_function_definition(node) {
                hits.raw_defs
                    .push(RawDef::found(node, name, "function", pattern));
            }
        }
        Cap::CppFunction => {
            if let Some((name, container, kind)) = cpp_function_definition(node) {
                hits.raw_defs.push(RawDef {
                    node,
                    name,
                    kind,
                    pattern,
                    explicit: container,
                    hoist: false,
                });
            }
        }
        Cap::AssignedFunction => {
            if let Some(name) = assigned_function(node) {
                hits.raw_defs
                    .push(RawDef::found(node, name, "function", pattern));
            }
        }
        Cap::CType => {
            if let Some((name, kind)) = c_type_definition(node) {
                hits.raw_defs.push(RawDef::found(node, name, kind, pattern));
            }
        }
        cap @ (Cap::CFields | Cap::CppFields) => {
            for (name, kind) in c_fields(node, cap == Cap::CppFields) {
                hits.raw_defs.push(RawDef::found(node, name, kind, pattern));
            }
        }
        cap @ (Cap::CVariables | Cap::CppVariables) => {
            for (declaration, name) in c_variables(node, cap == Cap::CVariables) {
                hits.raw_defs
                    .push(RawDef::found(declaration, name, "variable", pattern));
            }
        }
        Cap::CDeclaration => {
            for declared in c_declaration(node) {
                match declared {
                    Declared::Prototype(name) => {
                        add_ref(&mut hits.refs, name, Roles::FORWARD_DEFINITION)
                    }
                    Declared::Method(name) => hits
                        .raw_defs
                        .push(RawDef::found(node, name, "method", pattern)),
                }
            }
        }
        Cap::PythonAssignment => {
            for (name, kind, hoist) in python_assignment_defs(root, node, src) {
                hits.raw_defs.push(RawDef {
                    node,
                    name,
                    kind,
                    pattern,
                    explicit: None,
                    hoist,
                });
            }
        }
        Cap::Import => {
            found.is_import = true;
            found.import.stmt = node;
        }
        Cap::ImportPath => found.import.path = Some(node),
        Cap::ImportName => found.import.names.push(node),
        Cap::ImportGlob => found.import.glob = true,
        Cap::ImportRust => found.import.rust = Some(node),
        Cap::Ignore => {}
    }
}

/// Turns a match's captures into a definition, an `impl` scope and an import, as present.
fn finish_match<'t>(
    hits: &mut QueryHits<'t>,
    found: MatchCaptures<'t>,
    pattern: usize,
    src: &[u8],
) {
    if let (Some((node, kind)), Some(name)) = (found.def, found.name) {
        hits.raw_defs.push(RawDef {
            node,
            name,
            kind,
            pattern,
            explicit: found.explicit,
            hoist: found.hoist,
        });
    }
    if let (Some(node), Some(ty)) = (found.scope_impl, found.scope_type) {
        // `impl Trait for Type`: the trait is a supertype of the type. Both sites are marked or
        // neither, since the relationship pairs them (`name_binding.rs`).
        let pair = found
            .scope_trait
            .and_then(type_base_name)
            .zip(type_base_name(ty));
        if let Some((trait_name, type_name)) = pair {
            add_ref(
                &mut hits.refs,
                trait_name,
                Roles::REFERENCE | Roles::SUPERTYPE,
            );
            add_ref(&mut hits.refs, type_name, Roles::REFERENCE | Roles::SUBTYPE);
        }
        let ty = collapse_ws(&lossy(ty, src));
        let label = match found.scope_trait {
            Some(tr) => format!("impl {} for {ty}", collapse_ws(&lossy(tr, src))),
            None => format!("impl {ty}"),
        };
        hits.scopes.push((node, label));
    }
    if found.is_import {
        hits.raw_imports.push(found.import);
    }
}

/// The file's rows from its finished definitions, reference sites and imports.
fn file_rows(
    file: &FileInput<'_>,
    src: &[u8],
    defs: &[Def<'_>],
    refs: &BTreeMap<(usize, usize), (Node<'_>, Roles)>,
    raw_imports: &[RawImport<'_>],
    errors: u32,
) -> FileFacts {
    let lang = file.lang;
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
    for d in defs {
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
    for ((start, end), (node, roles)) in refs {
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

    for imp in imports::flatten(lang, raw_imports, src) {
        let names: Vec<String> = imp.names.iter().map(|(_, n, _)| n.clone()).collect();
        for (_, name, site) in &imp.names {
            if let Some(site) = site {
                if name != "*" {
                    let enclosing = innermost_def(defs, site.start_byte());
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
        facts.imports.push(ImportRow::unclassified(
            file.path.to_string(),
            row(imp.row),
            imp.raw,
            names,
            lang.name().to_string(),
        ));
    }
    facts
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

pub(super) fn lossy<'s>(node: Node<'_>, src: &'s [u8]) -> Cow<'s, str> {
    String::from_utf8_lossy(src.get(node.byte_range()).unwrap_or_default())
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
