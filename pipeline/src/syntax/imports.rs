//! Import statements: the module path or string as written, and the names imported from it.
//!
//! `raw` rules (classification is the modules stage's job):
//! - string imports (JS/TS, Go, C `#include "…"`) drop the quotes; C system includes keep their
//!   angle brackets (`<stdio.h>`), which is how the path is told apart;
//! - path imports keep the path as written up to a brace group, with whitespace removed:
//!   Rust `use a::b::C;` → raw `a::b::C`, names `[C]`; `use a::b::{C, D};` → raw `a::b`, names
//!   `[C, D]` (a nested `b::E` in a group gets its own row `a::b::E`); Java `import a.b.C;` →
//!   raw `a.b.C`, names `[C]`; Python `from .m import x` → raw `.m`, names `[x]`;
//! - names are the imported (original) names, `*` for wildcard and namespace imports, the local
//!   name for a JS/TS default import; whole-module imports (`import os`, Go) have no names.

use std::collections::BTreeMap;

use tree_sitter::Node;

use super::lang::Lang;

/// One import statement's captures from one query match.
#[derive(Clone, Debug)]
pub struct RawImport<'t> {
    /// The statement node.
    pub stmt: Node<'t>,
    /// The module path or string node.
    pub path: Option<Node<'t>>,
    /// Imported name nodes.
    pub names: Vec<Node<'t>>,
    /// A wildcard / namespace import.
    pub glob: bool,
    /// Rust: the `use` tree.
    pub rust: Option<Node<'t>>,
}

/// One flattened import: its statement line, raw path, and imported names with their sites.
#[derive(Clone, Debug, Default)]
pub struct FlatImport<'t> {
    /// Byte offset of the statement (for ordering).
    pub stmt_start: usize,
    /// Line of the statement (0-based row).
    pub row: usize,
    /// The raw path.
    pub raw: String,
    /// (site start byte, name, site node) of each imported name; `None` node for `*`.
    pub names: Vec<(usize, String, Option<Node<'t>>)>,
}

/// Merges the captures of every import match into one entry per (statement, raw path).
pub fn flatten<'t>(lang: Lang, raws: &[RawImport<'t>], src: &[u8]) -> Vec<FlatImport<'t>> {
    let mut merged: BTreeMap<(usize, String), FlatImport<'t>> = BTreeMap::new();
    let mut add = |stmt: Node<'t>, raw: String, name: Option<(usize, String, Option<Node<'t>>)>| {
        if raw.is_empty() {
            return;
        }
        let entry = merged
            .entry((stmt.start_byte(), raw.clone()))
            .or_insert_with(|| FlatImport {
                stmt_start: stmt.start_byte(),
                row: stmt.start_position().row,
                raw,
                names: Vec::new(),
            });
        if let Some(n) = name {
            entry.names.push(n);
        }
    };
    for imp in raws {
        if let Some(tree) = imp.rust {
            for (raw, name) in rust_use_tree(tree, src) {
                add(
                    imp.stmt,
                    raw,
                    name.map(|(n, node)| (node.start_byte(), n, Some(node))),
                );
            }
            continue;
        }
        let Some(path) = imp.path else { continue };
        let raw = match lang {
            Lang::Python | Lang::Java | Lang::Rust => compact(path, src),
            _ => unquote(&text(path, src)),
        };
        if lang == Lang::Java {
            // `import a.b.*;` has an `asterisk` child; otherwise the last segment is the name.
            let mut cursor = imp.stmt.walk();
            let glob = imp
                .stmt
                .children(&mut cursor)
                .any(|c| c.kind() == "asterisk");
            let name = if glob {
                (imp.stmt.end_byte(), "*".to_string(), None)
            } else {
                let last = raw.rsplit('.').next().unwrap_or(&raw).to_string();
                let site = path.child_by_field_name("name").unwrap_or(path);
                (site.start_byte(), last, Some(site))
            };
            add(imp.stmt, raw, Some(name));
            continue;
        }
        add(imp.stmt, raw.clone(), None);
        for n in &imp.names {
            add(
                imp.stmt,
                raw.clone(),
                Some((n.start_byte(), compact(*n, src), Some(*n))),
            );
        }
        if imp.glob {
            add(
                imp.stmt,
                raw,
                Some((path.start_byte(), "*".to_string(), None)),
            );
        }
    }
    let mut out: Vec<FlatImport<'t>> = merged.into_values().collect();
    for f in &mut out {
        f.names.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        f.names.dedup_by(|a, b| a.1 == b.1);
    }
    out
}

/// Flattens a Rust `use` tree into (raw path, imported name and its node) pairs, iteratively.
fn rust_use_tree<'t>(tree: Node<'t>, src: &[u8]) -> Vec<(String, Option<(String, Node<'t>)>)> {
    let mut out = Vec::new();
    // (node, prefix, inside a group)
    let mut stack: Vec<(Node<'t>, String, bool)> = vec![(tree, String::new(), false)];
    let join = |prefix: &str, tail: &str| {
        if prefix.is_empty() {
            tail.to_string()
        } else {
            format!("{prefix}::{tail}")
        }
    };
    while let Some((node, prefix, grouped)) = stack.pop() {
        match node.kind() {
            "scoped_use_list" => {
                let base = match node.child_by_field_name("path") {
                    Some(p) => join(&prefix, &compact(p, src)),
                    None => prefix.clone(),
                };
                if let Some(list) = node.child_by_field_name("list") {
                    push_children(list, &base, &mut stack);
                }
            }
            "use_list" => push_children(node, &prefix, &mut stack),
            "use_wildcard" => {
                let raw = node
                    .named_child(0)
                    .map(|p| join(&prefix, &compact(p, src)))
                    .unwrap_or(prefix);
                out.push((raw, Some(("*".to_string(), node))));
            }
            "use_as_clause" => {
                if let Some(p) = node.child_by_field_name("path") {
                    stack.push((p, prefix, grouped));
                }
            }
            _ => {
                let path = compact(node, src);
                let site = node.child_by_field_name("name").unwrap_or(node);
                let last = path.rsplit("::").next().unwrap_or(&path).to_string();
                let is_simple = !path.contains("::");
                if grouped && is_simple {
                    out.push((prefix, Some((last, site))));
                } else {
                    out.push((join(&prefix, &path), Some((last, site))));
                }
            }
        }
    }
    out
}

fn push_children<'t>(list: Node<'t>, prefix: &str, stack: &mut Vec<(Node<'t>, String, bool)>) {
    let mut cursor = list.walk();
    let children: Vec<Node<'t>> = list.named_children(&mut cursor).collect();
    for c in children.into_iter().rev() {
        if !c.kind().ends_with("comment") {
            stack.push((c, prefix.to_string(), true));
        }
    }
}

fn text(node: Node<'_>, src: &[u8]) -> String {
    String::from_utf8_lossy(&src[node.byte_range()]).into_owned()
}

/// Node text with all whitespace removed (paths such as `a :: b`).
fn compact(node: Node<'_>, src: &[u8]) -> String {
    String::from_utf8_lossy(&src[node.byte_range()])
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

/// Drops one pair of matching quotes (`"`, `'`, `` ` ``).
pub fn unquote(s: &str) -> String {
    let t = s.trim();
    for q in ['"', '\'', '`'] {
        if t.len() >= 2 && t.starts_with(q) && t.ends_with(q) {
            return t[1..t.len() - 1].to_string();
        }
    }
    t.to_string()
}
