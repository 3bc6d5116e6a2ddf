//! By-name resolution of references and call sites, over the rows of every file.
//!
//! Tree-sitter knows names, not bindings, so a reference's target is guessed from the
//! definitions in the repository. Rule, per occurrence (definitions keep their own ID):
//!
//! 1. Candidates: definitions with the same name in the same language family (TypeScript, TSX and
//!    JavaScript together; C and C++ together) whose kind fits the site's roles — a call site
//!    targets function, method, constructor, macro, class, struct or enum_member; a write targets
//!    field, variable or constant; a C prototype targets a function; other references any kind.
//! 2. Same file first: one candidate in the site's file resolves (`same-file`). Several are
//!    narrowed to those whose container is the longest prefix of the site's scope (the enclosing
//!    definition's container and name), so `self.helper()` inside `impl Foo` finds
//!    `impl Foo::helper`; still several → unresolved (ambiguous). No search in other files then.
//! 3. Otherwise the other files' candidates: exactly one resolves (`imported` when the file
//!    imports the name, else `unique`). Several, with the name imported: narrowed to files whose
//!    stem (or folder, for `mod.rs`/`__init__.py`/`index.*`) is the import's module segment,
//!    then to module-level definitions (no container); exactly one left resolves (`imported`).
//!    Anything else stays null.
//!
//! Call edges: every call-role occurrence inside a definition counts towards the edge
//! (enclosing definition → callee). Confidence: same-file 0.8, imported 0.7, unique 0.5,
//! unresolved 0.3 (by name, never 1.0).
//!
//! The result depends only on the rows (never on which file was parsed when), so a run that
//! reuses a previous snapshot's rows resolves exactly like a cold run.

use output_schema::tables::{CallEdgeRow, ImportRow, OccurrenceRow, SymbolRow};
use output_schema::{Roles, SharedStr};
use rayon::prelude::*;

use super::extract::SOURCE;
use super::lang::Lang;
use crate::fast_map::FastMap;

/// How an occurrence was resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// A definition in the same file.
    SameFile,
    /// The only candidate elsewhere, and the file imports the name.
    Imported,
    /// The only candidate in the repository.
    Unique,
}

impl Method {
    /// Confidence of a call edge resolved this way.
    pub fn confidence(method: Option<Method>) -> f64 {
        match method {
            Some(Method::SameFile) => 0.8,
            Some(Method::Imported) => 0.7,
            Some(Method::Unique) => 0.5,
            None => 0.3,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Class {
    Any,
    Callable,
    Writable,
    Function,
}

impl Class {
    fn of(roles: Roles) -> Class {
        if roles.contains(Roles::CALL) {
            Class::Callable
        } else if roles.contains(Roles::WRITE) {
            Class::Writable
        } else if roles.contains(Roles::FORWARD_DEFINITION) {
            Class::Function
        } else {
            Class::Any
        }
    }

    fn admits(self, kind: &str) -> bool {
        match self {
            Class::Any => true,
            Class::Callable => matches!(
                kind,
                "function"
                    | "method"
                    | "constructor"
                    | "macro"
                    | "class"
                    | "struct"
                    | "enum_member"
            ),
            Class::Writable => matches!(kind, "field" | "variable" | "constant"),
            Class::Function => kind == "function",
        }
    }

    /// This class's bit in [`Index::classes`].
    fn bit(self) -> u8 {
        1 << self as u8
    }

    /// The bits of every class that admits `kind`.
    fn admitting(kind: &str) -> u8 {
        [
            Class::Any,
            Class::Callable,
            Class::Writable,
            Class::Function,
        ]
        .into_iter()
        .filter(|c| c.admits(kind))
        .fold(0, |bits, c| bits | c.bit())
    }
}

/// Indexes of the definitions, built once per run.
pub struct Index<'a> {
    symbols: &'a [SymbolRow],
    /// Per symbol, the classes its kind fits ([`Class::bit`]): decided once, not per site.
    classes: Vec<u8>,
    by_id: FastMap<&'a str, usize>,
    /// (family, name) → symbol indexes, sorted by stable ID.
    by_name: FastMap<(u8, &'a str), Vec<usize>>,
    /// path → family.
    family: FastMap<&'a str, u8>,
    /// path → imported name → raw module paths.
    imported: FastMap<&'a str, FastMap<&'a str, Vec<&'a str>>>,
}

impl<'a> Index<'a> {
    /// Builds the indexes over every file's symbols and imports.
    pub fn new(symbols: &'a [SymbolRow], imports: &'a [ImportRow]) -> Index<'a> {
        let mut by_id = FastMap::default();
        by_id.reserve(symbols.len());
        let mut by_name: FastMap<(u8, &'a str), Vec<usize>> = FastMap::default();
        let mut family = FastMap::default();
        for (i, s) in symbols.iter().enumerate() {
            by_id.insert(s.stable_id.as_str(), i);
            let fam = s
                .language
                .as_deref()
                .and_then(Lang::from_name)
                .map(Lang::family)
                .unwrap_or(u8::MAX);
            family.insert(s.path.as_str(), fam);
            by_name.entry((fam, s.name.as_str())).or_default().push(i);
        }
        // Order inside each list never reaches the output (only counts and single winners do);
        // sorting keeps the lists independent of insertion order all the same.
        #[allow(clippy::iter_over_hash_type)]
        for v in by_name.values_mut() {
            v.sort_by(|&a, &b| symbols[a].stable_id.cmp(&symbols[b].stable_id));
        }
        let mut imported: FastMap<&'a str, FastMap<&'a str, Vec<&'a str>>> = FastMap::default();
        for imp in imports {
            if let Some(lang) = Lang::from_name(&imp.language) {
                family.insert(imp.path.as_str(), lang.family());
            }
            let names = imported.entry(imp.path.as_str()).or_default();
            for n in &imp.names {
                names.entry(n.as_str()).or_default().push(imp.raw.as_str());
            }
        }
        Index {
            symbols,
            classes: symbols.iter().map(|s| Class::admitting(&s.kind)).collect(),
            by_id,
            by_name,
            family,
            imported,
        }
    }

    /// Resolves one site: (path, language, name, roles, enclosing definition).
    pub fn resolve(
        &self,
        path: &str,
        lang: Option<Lang>,
        name: &str,
        roles: Roles,
        enclosing: Option<&str>,
    ) -> Option<(usize, Method)> {
        let fam = lang
            .map(Lang::family)
            .or_else(|| self.family.get(path).copied())?;
        let class = Class::of(roles);
        let all = self.by_name.get(&(fam, name))?;
        let fits = |i: usize| self.classes[i] & class.bit() != 0;
        // Counts first: the common cases (no candidate, exactly one) allocate nothing.
        let (mut same_n, mut other_n) = (0usize, 0usize);
        let (mut same_first, mut other_first) = (0usize, 0usize);
        for &i in all {
            if !fits(i) {
                continue;
            }
            if self.symbols[i].path == path {
                if same_n == 0 {
                    same_first = i;
                }
                same_n += 1;
            } else {
                if other_n == 0 {
                    other_first = i;
                }
                other_n += 1;
            }
        }
        match same_n {
            0 => {}
            1 => return Some((same_first, Method::SameFile)),
            _ => {
                let same: Vec<usize> = all
                    .iter()
                    .copied()
                    .filter(|&i| fits(i) && self.symbols[i].path == path)
                    .collect();
                return self
                    .by_scope(&same, enclosing)
                    .map(|i| (i, Method::SameFile));
            }
        }
        let modules = self.imported.get(path).and_then(|m| m.get(name));
        match (other_n, modules) {
            (0, _) => None,
            (1, Some(_)) => Some((other_first, Method::Imported)),
            (1, None) => Some((other_first, Method::Unique)),
            (_, Some(raws)) => {
                let hinted: Vec<usize> = all
                    .iter()
                    .copied()
                    .filter(|&i| fits(i) && self.symbols[i].path != path)
                    .filter(|&i| {
                        raws.iter()
                            .any(|raw| path_matches_module(&self.symbols[i].path, raw, name))
                    })
                    .collect();
                // Imports name module-level items: prefer those when the module is ambiguous.
                let top: Vec<usize> = hinted
                    .iter()
                    .filter(|&&i| self.symbols[i].container.is_none())
                    .copied()
                    .collect();
                match (hinted.len(), top.len()) {
                    (1, _) => Some((hinted[0], Method::Imported)),
                    (_, 1) => Some((top[0], Method::Imported)),
                    _ => None,
                }
            }
            (_, None) => None,
        }
    }

    /// Among same-file candidates, the one whose container is the longest prefix of the site's
    /// scope; `None` when that is not unique.
    fn by_scope(&self, candidates: &[usize], enclosing: Option<&str>) -> Option<usize> {
        let scope = enclosing
            .and_then(|id| self.by_id.get(id))
            .map(|&i| {
                let s = &self.symbols[i];
                match &s.container {
                    Some(c) => format!("{c}::{}", s.name),
                    None => s.name.clone(),
                }
            })
            .unwrap_or_default();
        let depth = |i: usize| -> Option<usize> {
            match &self.symbols[i].container {
                None => Some(0),
                Some(c) if scope == *c || scope.starts_with(&format!("{c}::")) => Some(c.len()),
                Some(_) => None,
            }
        };
        let scored: Vec<(usize, usize)> = candidates
            .iter()
            .filter_map(|&i| depth(i).map(|d| (d, i)))
            .collect();
        let best = scored.iter().map(|(d, _)| *d).max()?;
        let winners: Vec<usize> = scored
            .iter()
            .filter(|(d, _)| *d == best)
            .map(|(_, i)| *i)
            .collect();
        (winners.len() == 1).then(|| winners[0])
    }
}

/// Whether a definition's file looks like the module an import names: the import's module
/// segment (the last one, or the one before it when the last is the imported name) equals the
/// file's stem, or its folder's name for `mod.rs`, `__init__.py` and `index.*`.
fn path_matches_module(path: &str, raw: &str, name: &str) -> bool {
    let segments: Vec<&str> = raw
        .split([':', '.', '/', '\\', '<', '>', '"'])
        .filter(|s| !s.is_empty())
        .collect();
    let module = match segments.as_slice() {
        [.., m, last] if *last == name => *m,
        [.., last] => *last,
        [] => return false,
    };
    let mut parts = path.rsplit('/');
    let file = parts.next().unwrap_or(path);
    let stem = file.split('.').next().unwrap_or(file);
    if matches!(stem, "mod" | "__init__" | "index" | "lib") {
        parts.next() == Some(module)
    } else {
        stem == module
    }
}

/// Fills `symbol_id` of every non-definition occurrence and builds the call edges, with the
/// definitions' [`Index`].
pub fn resolve_all(
    index: &Index<'_>,
    occurrences: &mut [OccurrenceRow],
    languages: &FastMap<&str, Lang>,
) -> Vec<CallEdgeRow> {
    let symbols = index.symbols;
    let methods: Vec<Option<Method>> = occurrences
        .par_iter_mut()
        // Occurrences come by path: the language of the previous one's path is remembered.
        .map_init(
            || None::<(SharedStr, Option<Lang>)>,
            |last, o| {
                if o.roles.contains(Roles::DEFINITION) {
                    return None;
                }
                let lang = match last {
                    Some((path, lang)) if *path == o.path => *lang,
                    _ => {
                        let lang = languages.get(o.path.as_str()).copied();
                        *last = Some((o.path.clone(), lang));
                        lang
                    }
                };
                let resolved = index.resolve(
                    &o.path,
                    lang,
                    &o.name,
                    o.roles,
                    o.enclosing_symbol_id.as_deref(),
                );
                o.symbol_id = resolved.map(|(i, _)| symbols[i].stable_id.clone());
                resolved.map(|(_, m)| m)
            },
        )
        .collect();
    // Call sites counted per (caller, callee, callee name), in one pass in occurrence order: a
    // key keeps its first site's method. (Sorting the sites by key did the same grouping with
    // twice the CPU time; the rows' order is the write's business.)
    type EdgeKey<'k> = (&'k SharedStr, Option<&'k SharedStr>, &'k SharedStr);
    let mut slots: FastMap<EdgeKey<'_>, usize> = FastMap::default();
    let mut runs: Vec<(EdgeKey<'_>, i64, Option<Method>)> = Vec::new();
    for (o, m) in occurrences.iter().zip(&methods) {
        if !o.roles.contains(Roles::CALL) {
            continue;
        }
        let Some(caller) = o.enclosing_symbol_id.as_ref() else {
            continue;
        };
        let key = (caller, o.symbol_id.as_ref(), &o.name);
        match slots.entry(key) {
            std::collections::hash_map::Entry::Occupied(slot) => runs[*slot.get()].1 += 1,
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(runs.len());
                runs.push((key, 1, *m));
            }
        }
    }
    let source = SharedStr::from(SOURCE);
    runs.into_par_iter()
        .map(|((caller, callee, name), count, m)| CallEdgeRow {
            caller_id: caller.clone(),
            callee_id: callee.cloned(),
            callee_name: name.clone(),
            count,
            source: source.clone(),
            confidence: Method::confidence(m),
        })
        .collect()
}
