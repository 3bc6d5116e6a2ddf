//! compareAPI: how the change alters the public surface (symbols whose `visibility` is `public`).
//!
//! Breaking changes, with their severity:
//!
//! | kind | when | severity |
//! |---|---|---|
//! | `removed` | a public base symbol is gone (tombstone or no trace) | high |
//! | `renamed` | a public symbol was renamed and no public symbol keeps the old name in its file or container | high |
//! | `moved` | a public symbol moved (same name, other place) without such a shim | medium |
//! | `signature-changed` | a public symbol's `definition_version_id` changed: arity changed | high |
//! | `signature-changed` | … with the same arity (types, defaults, modifiers) | medium |
//!
//! A declaration change that comes with narrowed visibility and the same arity is reported once,
//! as `visibility-narrowed`.
//! | `visibility-narrowed` | public became internal, protected or private | high |
//!
//! Non-breaking changes: `added` (a new public symbol, `info`), `visibility-widened` (became
//! public, `info`), `renamed-with-shim` / `moved-with-shim` (the old name is still public, `low`).
//! Symbols whose visibility is `unknown` are not part of the surface: the diff does not guess.

use std::collections::BTreeMap;

use output_schema::tables::SymbolRow;
use serde::Serialize;

use super::compare::{Sym, SymbolDiff};
use super::impact::Graph;

named_enum! {
    /// What happened to a symbol of the public surface.
    pub enum ApiChangeKind {
        /// A public base symbol is gone.
        Removed => "removed",
        /// Renamed with no public symbol keeping the old name.
        Renamed => "renamed",
        /// Moved (same name, other place) with no public symbol keeping the old name.
        Moved => "moved",
        /// The declaration changed.
        SignatureChanged => "signature-changed",
        /// Public became internal, protected or private.
        VisibilityNarrowed => "visibility-narrowed",
        /// A new public symbol.
        Added => "added",
        /// Became public.
        VisibilityWidened => "visibility-widened",
        /// Renamed, and the old name is still public.
        RenamedWithShim => "renamed-with-shim",
        /// Moved, and the old name is still public.
        MovedWithShim => "moved-with-shim",
    }
}

named_enum! {
    /// How much a change to the public surface may break; ordered most severe first.
    pub enum Severity {
        /// Dependents stop compiling or working.
        High => "high",
        /// Dependents likely need an edit.
        Medium => "medium",
        /// The old name still works.
        Low => "low",
        /// Compatible.
        Info => "info",
    }
}

/// One change to the public surface.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiChange {
    /// What happened to the symbol.
    pub kind: ApiChangeKind,
    /// How much it may break.
    pub severity: Severity,
    /// The symbol: as it was in the base for removals, renames and moves; as it is in the head otherwise.
    pub symbol: Sym,
    /// The rename or move target.
    pub replacement: Option<Sym>,
    /// Declaration or visibility before.
    pub before: Option<String>,
    /// Declaration or visibility after.
    pub after: Option<String>,
    /// Direct dependents in the base snapshot.
    pub callers: u64,
    /// One sentence.
    pub detail: String,
}

/// The public surface before and after, and what changed in it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiDiff {
    /// Breaking changes, most severe first, then most callers.
    pub breaking: Vec<ApiChange>,
    /// Compatible changes, same order.
    pub non_breaking: Vec<ApiChange>,
    /// Public symbols in the base.
    pub public_before: u64,
    /// Public symbols in the head.
    pub public_after: u64,
}

impl ApiDiff {
    /// Records a change as breaking or as compatible.
    fn push(&mut self, breaking: bool, change: ApiChange) {
        if breaking {
            self.breaking.push(change);
        } else {
            self.non_breaking.push(change);
        }
    }
}

fn is_public(v: &str) -> bool {
    v == "public"
}

/// A change with no replacement and no before/after; callers fill those in with struct update.
fn change(
    kind: ApiChangeKind,
    severity: Severity,
    symbol: &Sym,
    callers: u64,
    detail: String,
) -> ApiChange {
    ApiChange {
        kind,
        severity,
        symbol: symbol.clone(),
        replacement: None,
        before: None,
        after: None,
        callers,
        detail,
    }
}

/// Public head symbols by (path, name) and (container, name): a shim keeps an old name reachable.
struct Shims<'a> {
    by_path: BTreeMap<(&'a str, &'a str), Vec<&'a SymbolRow>>,
    by_container: BTreeMap<(&'a str, &'a str), Vec<&'a SymbolRow>>,
}

impl<'a> Shims<'a> {
    fn new(head: Option<&'a [SymbolRow]>) -> Shims<'a> {
        let mut by_path: BTreeMap<(&str, &str), Vec<&SymbolRow>> = BTreeMap::new();
        let mut by_container: BTreeMap<(&str, &str), Vec<&SymbolRow>> = BTreeMap::new();
        for s in head
            .unwrap_or_default()
            .iter()
            .filter(|s| is_public(&s.visibility))
        {
            by_path.entry((&s.path, &s.name)).or_default().push(s);
            if let Some(c) = s.container.as_deref() {
                by_container.entry((c, &s.name)).or_default().push(s);
            }
        }
        Shims {
            by_path,
            by_container,
        }
    }

    /// Whether a public head symbol other than `new_id` keeps `old`'s name in its file or container.
    fn keep(&self, old: &Sym, new_id: &str) -> bool {
        let others = |v: Option<&Vec<&SymbolRow>>| {
            v.is_some_and(|v| v.iter().any(|s| s.stable_id != new_id))
        };
        others(self.by_path.get(&(old.path.as_str(), old.name.as_str())))
            || old
                .container
                .as_deref()
                .is_some_and(|c| others(self.by_container.get(&(c, old.name.as_str()))))
    }
}

/// Renamed and moved public symbols: breaking unless a shim keeps the old name.
fn renames(out: &mut ApiDiff, symbols: &SymbolDiff, graph: &Graph<'_>, shims: &Shims<'_>) {
    for r in &symbols.renamed {
        let (from, to) = (&r.from, &r.to);
        if !is_public(&from.visibility) {
            continue;
        }
        let moved = r.change == "moved";
        let callers = graph.dependent_count(&from.id);
        let verb = if moved { "moved" } else { "renamed" };
        let target = if moved {
            format!("`{}` in {}", to.qualified(), to.path)
        } else {
            format!("`{}`", to.qualified())
        };
        let shimmed = shims.keep(from, &to.id);
        let (kind, severity) = match (shimmed, moved) {
            (true, true) => (ApiChangeKind::MovedWithShim, Severity::Low),
            (true, false) => (ApiChangeKind::RenamedWithShim, Severity::Low),
            (false, true) => (ApiChangeKind::Moved, Severity::Medium),
            (false, false) => (ApiChangeKind::Renamed, Severity::High),
        };
        let old_name = if shimmed {
            "; the old name is still public"
        } else {
            " with no public symbol keeping the old name"
        };
        let what = format!(
            "public {} `{}` was {verb} to {target}{old_name}",
            from.kind,
            from.qualified()
        );
        out.push(
            !shimmed,
            ApiChange {
                replacement: Some(to.clone()),
                before: from.signature.clone(),
                after: to.signature.clone(),
                ..change(kind, severity, from, callers, what)
            },
        );
    }
}

/// Changed declarations of public symbols (a narrowed visibility with the same arity is reported
/// as `visibility-narrowed` instead).
fn signature_changes(out: &mut ApiDiff, symbols: &SymbolDiff, graph: &Graph<'_>) {
    let narrowed: std::collections::BTreeSet<&str> = symbols
        .visibility_changed
        .iter()
        .filter(|v| is_public(&v.before) && v.direction == "narrowed")
        .map(|v| v.symbol.id.as_str())
        .collect();
    for c in &symbols.signature_changed {
        let s = &c.symbol;
        let arity_changed = matches!((c.arity_before, s.arity), (Some(a), Some(b)) if a != b);
        if !arity_changed && narrowed.contains(s.id.as_str()) {
            // `pub struct X` → `pub(crate) struct X` is one change, reported as visibility-narrowed.
            continue;
        }
        let was_public = graph
            .symbol(&s.id)
            .map(|b| is_public(&b.visibility))
            .unwrap_or_else(|| is_public(&s.visibility));
        if !was_public {
            continue;
        }
        out.breaking.push(ApiChange {
            before: c.before.clone(),
            after: c.after.clone(),
            ..change(
                ApiChangeKind::SignatureChanged,
                if arity_changed {
                    Severity::High
                } else {
                    Severity::Medium
                },
                s,
                graph.dependent_count(&s.id),
                if arity_changed {
                    format!(
                        "public {} `{}` takes {} parameter(s) instead of {}",
                        s.kind,
                        s.qualified(),
                        s.arity.unwrap_or(0),
                        c.arity_before.unwrap_or(0)
                    )
                } else {
                    format!(
                        "the declaration of public {} `{}` changed",
                        s.kind,
                        s.qualified()
                    )
                },
            )
        });
    }
}

/// Compares the public surface.
pub(crate) fn compare(
    symbols: &SymbolDiff,
    head: Option<&[SymbolRow]>,
    graph: &Graph<'_>,
) -> ApiDiff {
    let mut out = ApiDiff {
        public_before: graph.public_count(),
        public_after: head
            .unwrap_or_default()
            .iter()
            .filter(|s| is_public(&s.visibility))
            .count() as u64,
        ..ApiDiff::default()
    };
    let shims = Shims::new(head);
    let removed = symbols.removed.iter().map(|r| &r.symbol);
    for s in removed.filter(|s| is_public(&s.visibility)) {
        out.breaking.push(ApiChange {
            before: s.signature.clone(),
            ..change(
                ApiChangeKind::Removed,
                Severity::High,
                s,
                graph.dependent_count(&s.id),
                format!("public {} `{}` was removed", s.kind, s.qualified()),
            )
        });
    }
    renames(&mut out, symbols, graph, &shims);
    signature_changes(&mut out, symbols, graph);
    for v in &symbols.visibility_changed {
        let s = &v.symbol;
        let (kind, severity, became) = if is_public(&v.before) && v.direction == "narrowed" {
            (
                ApiChangeKind::VisibilityNarrowed,
                Severity::High,
                "is no longer public",
            )
        } else if is_public(&v.after) && v.direction == "widened" {
            (
                ApiChangeKind::VisibilityWidened,
                Severity::Info,
                "became public",
            )
        } else {
            continue;
        };
        let what = format!(
            "{} `{}` {became} ({} → {})",
            s.kind,
            s.qualified(),
            v.before,
            v.after
        );
        let callers = graph.dependent_count(&s.id);
        out.push(
            kind == ApiChangeKind::VisibilityNarrowed,
            ApiChange {
                before: Some(v.before.clone()),
                after: Some(v.after.clone()),
                ..change(kind, severity, s, callers, what)
            },
        );
    }
    for s in symbols.added.iter().filter(|s| is_public(&s.visibility)) {
        out.non_breaking.push(ApiChange {
            after: s.signature.clone(),
            ..change(
                ApiChangeKind::Added,
                Severity::Info,
                s,
                0,
                format!("new public {} `{}`", s.kind, s.qualified()),
            )
        });
    }
    let order = |a: &ApiChange, b: &ApiChange| {
        a.severity
            .cmp(&b.severity)
            .then_with(|| b.callers.cmp(&a.callers))
            .then_with(|| a.symbol.path.cmp(&b.symbol.path))
            .then_with(|| a.symbol.line.cmp(&b.symbol.line))
            .then_with(|| a.symbol.id.cmp(&b.symbol.id))
            .then_with(|| a.kind.as_str().cmp(b.kind.as_str()))
    };
    out.breaking.sort_by(order);
    out.non_breaking.sort_by(order);
    out
}
