//! By-name resolution of references and call sites, over the rows of every file.
//!
//! Tree-sitter knows names, not bindings, so a reference's target is guessed from the
//! definitions in the repository. Rule, per occurrence (definitions keep their own ID):
//!
//! 1. Candidates: definitions with the same name in the same language family (TypeScript, TSX and
//!    JavaScript together; C and C++ together) whose kind fits the site's roles — a call site
//!    targets function, method, constructor, macro, class, struct or enum_member; a write targets
//!    field, variable or constant; a C prototype targets a function; a supertype or subtype site
//!    a type (class, struct, enum, interface, trait, type alias); other references any kind.
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
//! Relationships (`implementation`, from the subtype to the supertype): a `supertype` site
//! directly followed, among the file's supertype and subtype sites, by a `subtype` site is the
//! trait and type of one Rust `impl Trait for Type` (the extractor marks both or neither), so
//! the subtype is that site's target; any other `supertype` site names a supertype of its
//! enclosing definition (a class's base, an interface's extended interface, a supertrait). A
//! link needs both ends resolved; a symbol is never its own supertype.
//!
//! The result depends only on the rows (never on which file was parsed when), so a run that
//! reuses a previous snapshot's rows resolves exactly like a cold run.

use std::collections::BTreeSet;

use output_schema::tables::{CallEdgeRow, ImportRow, OccurrenceRow, RelationshipRow, SymbolRow};
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
    Type,
}

impl Class {
    fn of(roles: Roles) -> Class {
        if roles.contains(Roles::CALL) {
            Class::Callable
        } else if roles.contains(Roles::WRITE) {
            Class::Writable
        } else if roles.contains(Roles::FORWARD_DEFINITION) {
            Class::Function
        } else if roles.contains(Roles::SUPERTYPE) || roles.contains(Roles::SUBTYPE) {
            Class::Type
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
            Class::Type => matches!(
                kind,
                "class" | "struct" | "enum" | "interface" | "trait" | "type_alias"
            ),
        }
    }

    /// This class's bit in [`Index::classes`].
    fn bit(self) -> u8 {
        1 << self as u8
    }

    /// Every class, in [`Class::bit`] order.
    const ALL: [Class; 5] = [
        Class::Any,
        Class::Callable,
        Class::Writable,
        Class::Function,
        Class::Type,
    ];

    /// The bits of every class that admits `kind`.
    fn admitting(kind: &str) -> u8 {
        Class::ALL
            .into_iter()
            .filter(|c| c.admits(kind))
            .fold(0, |bits, c| bits | c.bit())
    }
}

/// The definitions of one name in one language family, ordered by file, and per class how many
/// fit it and the first that does.
///
/// A site's same-file candidates are one stretch of the list, found by binary search; when none
/// of them fits, the class's count and first fitting candidate answer for the other files. So a
/// site named like a common method (`new`, `poll`, `clone`) costs a search rather than a walk
/// over every definition of the name (tokio's 94 000 sites walked 1.5 million candidates).
struct Candidates {
    /// (path number, symbol index), sorted: by file, and within a file by stable ID.
    list: Vec<(u32, usize)>,
    /// Per class ([`Class::ALL`] order): how many candidates fit it.
    fitting: [usize; 5],
    /// Per class: the first candidate in `list` that fits it (meaningful where `fitting` > 0).
    first: [usize; 5],
}

impl Candidates {
    /// The stretch of `list` in the file numbered `file`.
    fn in_file(&self, file: u32) -> &[(u32, usize)] {
        let start = self.list.partition_point(|&(p, _)| p < file);
        let len = self.list[start..].partition_point(|&(p, _)| p == file);
        &self.list[start..start + len]
    }
}

/// Indexes of the definitions, built once per run.
pub struct Index<'a> {
    symbols: &'a [SymbolRow],
    /// Per symbol, the classes its kind fits ([`Class::bit`]): decided once, not per site.
    classes: Vec<u8>,
    by_id: FastMap<&'a str, usize>,
    /// A number per path that defines something: candidates are ordered and compared by it, not
    /// by their paths.
    path_ids: FastMap<&'a str, u32>,
    /// Per path number, the module its file is as imports name it ([`file_module`]).
    path_modules: Vec<Option<&'a str>>,
    /// (family, name) → its definitions.
    by_name: FastMap<(u8, &'a str), Candidates>,
    /// path → family.
    family: FastMap<&'a str, u8>,
    /// path → imported name → raw module paths.
    imported: FastMap<&'a str, FastMap<&'a str, Vec<&'a str>>>,
}

impl<'a> Index<'a> {
    /// Builds the indexes over every file's symbols and imports.
    pub fn new(symbols: &'a [SymbolRow], imports: &'a [ImportRow]) -> Index<'a> {
        // The ID map beside the path numbers and the name lists (which use the numbers), built
        // side by side (serially they were the longest step between the parse and the
        // resolution of a one-file commit).
        let (by_id, ((path_ids, path_modules), (by_name, mut family, classes))) = rayon::join(
            || {
                let mut by_id = FastMap::default();
                by_id.reserve(symbols.len());
                for (i, s) in symbols.iter().enumerate() {
                    by_id.insert(s.stable_id.as_str(), i);
                }
                by_id
            },
            || {
                let (path_ids, symbol_paths, path_modules) = number_paths(symbols);
                let by_name = by_name(symbols, &symbol_paths);
                ((path_ids, path_modules), by_name)
            },
        );
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
            classes,
            by_id,
            path_ids,
            path_modules,
            by_name,
            family,
            imported,
        }
    }

    /// The file a site is in, as [`Index::resolve`] takes it.
    pub fn site_file<'p>(&self, path: &'p str) -> SiteFile<'p> {
        SiteFile {
            path,
            // A path no definition has: no candidate is in the same file.
            id: self.path_ids.get(path).copied().unwrap_or(u32::MAX),
        }
    }

    /// Resolves one site: (file, language, name, roles, enclosing definition).
    pub fn resolve(
        &self,
        file: &SiteFile<'_>,
        lang: Option<Lang>,
        name: &str,
        roles: Roles,
        enclosing: Option<&str>,
    ) -> Option<(usize, Method)> {
        let path = file.path;
        let fam = lang
            .map(Lang::family)
            .or_else(|| self.family.get(path).copied())?;
        let class = Class::of(roles);
        let candidates = self.by_name.get(&(fam, name))?;
        let fits = |i: usize| self.classes[i] & class.bit() != 0;
        // The same file first: a stretch of the list. The common cases (no candidate there,
        // exactly one) allocate nothing.
        let same_file = candidates.in_file(file.id);
        let mut fitting_here = same_file.iter().map(|&(_, i)| i).filter(|&i| fits(i));
        match (fitting_here.next(), fitting_here.next()) {
            (None, _) => {}
            (Some(i), None) => return Some((i, Method::SameFile)),
            (Some(a), Some(b)) => {
                let same: Vec<usize> = [a, b].into_iter().chain(fitting_here).collect();
                return self
                    .by_scope(&same, enclosing)
                    .map(|i| (i, Method::SameFile));
            }
        }
        // None fits in the file: every fitting candidate is in another one.
        let other_n = candidates.fitting[class as usize];
        let other_first = candidates.first[class as usize];
        let modules = self.imported.get(path).and_then(|m| m.get(name));
        match (other_n, modules) {
            (0, _) => None,
            (1, Some(_)) => Some((other_first, Method::Imported)),
            (1, None) => Some((other_first, Method::Unique)),
            (_, Some(raws)) => {
                // The modules the imports name, once per site; each file's module was derived
                // once per run (this branch runs for every imported name that several files
                // define: `Arc`, `Mutex`, `Error`).
                let modules: Vec<&str> = raws
                    .iter()
                    .filter_map(|raw| import_module(raw, name))
                    .collect();
                let hinted: Vec<usize> = candidates
                    .list
                    .iter()
                    .filter(|&&(p, i)| {
                        p != file.id
                            && fits(i)
                            && self.path_modules[p as usize].is_some_and(|m| modules.contains(&m))
                    })
                    .map(|&(_, i)| i)
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

/// (family, name) → its definitions, path → family, and each symbol's [`Class::admitting`] bits.
type ByName<'a> = (
    FastMap<(u8, &'a str), Candidates>,
    FastMap<&'a str, u8>,
    Vec<u8>,
);

fn by_name<'a>(symbols: &'a [SymbolRow], symbol_paths: &[u32]) -> ByName<'a> {
    let classes: Vec<u8> = symbols.iter().map(|s| Class::admitting(&s.kind)).collect();
    let mut lists: FastMap<(u8, &str), Vec<(u32, usize)>> = FastMap::default();
    let mut family = FastMap::default();
    for (i, s) in symbols.iter().enumerate() {
        let fam = s
            .language
            .as_deref()
            .and_then(Lang::from_name)
            .map(Lang::family)
            .unwrap_or(u8::MAX);
        family.insert(s.path.as_str(), fam);
        lists
            .entry((fam, s.name.as_str()))
            .or_default()
            .push((symbol_paths[i], i));
    }
    // Symbols come in table order (by stable ID), so after this sort a file's candidates keep
    // that order: each list depends on the rows, never on the map's order.
    let by_name = lists
        .into_iter()
        .map(|(key, mut list)| {
            list.sort_unstable();
            let mut fitting = [0usize; 5];
            let mut first = [0usize; 5];
            for &(_, i) in &list {
                for class in Class::ALL {
                    if classes[i] & class.bit() != 0 {
                        let c = class as usize;
                        if fitting[c] == 0 {
                            first[c] = i;
                        }
                        fitting[c] += 1;
                    }
                }
            }
            let candidates = Candidates {
                list,
                fitting,
                first,
            };
            (key, candidates)
        })
        .collect();
    (by_name, family, classes)
}

/// A number per path that defines something, each symbol's path number, and per path number
/// the file's module ([`file_module`]).
type PathNumbers<'a> = (FastMap<&'a str, u32>, Vec<u32>, Vec<Option<&'a str>>);

fn number_paths(symbols: &[SymbolRow]) -> PathNumbers<'_> {
    let mut path_ids: FastMap<&str, u32> = FastMap::default();
    let mut path_modules = Vec::new();
    let symbol_paths = symbols
        .iter()
        .map(|s| {
            let next = path_ids.len() as u32;
            *path_ids.entry(s.path.as_str()).or_insert_with(|| {
                path_modules.push(file_module(&s.path));
                next
            })
        })
        .collect();
    (path_ids, symbol_paths, path_modules)
}

/// A site's file: its path and its number in the [`Index`].
pub struct SiteFile<'p> {
    path: &'p str,
    id: u32,
}

/// The module an import of `name` names: the import's last segment, or the one before it when
/// the last is the imported name. A definition's file matches when [`file_module`] is the same.
fn import_module<'r>(raw: &'r str, name: &str) -> Option<&'r str> {
    let mut segments = raw
        .rsplit([':', '.', '/', '\\', '<', '>', '"'])
        .filter(|s| !s.is_empty());
    let last = segments.next()?;
    match segments.next() {
        Some(module) if last == name => Some(module),
        _ => Some(last),
    }
}

/// The module a file is, as imports name it: its stem, or its folder's name for `mod.rs`,
/// `__init__.py`, `index.*` and `lib.*` (none for such a file at the top).
fn file_module(path: &str) -> Option<&str> {
    let mut parts = path.rsplit('/');
    let file = parts.next().unwrap_or(path);
    let stem = file.split('.').next().unwrap_or(file);
    if matches!(stem, "mod" | "__init__" | "index" | "lib") {
        parts.next()
    } else {
        Some(stem)
    }
}

/// What resolution derives from the resolved sites.
pub struct Resolution {
    /// `call_edges` rows.
    pub call_edges: Vec<CallEdgeRow>,
    /// `relationships` rows (`implementation`, sorted).
    pub relationships: Vec<RelationshipRow>,
}

/// Fills `symbol_id` of every non-definition occurrence and builds the call edges and the
/// relationships, with the definitions' [`Index`].
pub fn resolve_all(
    index: &Index<'_>,
    occurrences: &mut [OccurrenceRow],
    languages: &FastMap<&str, Lang>,
) -> Resolution {
    let symbols = index.symbols;
    let methods: Vec<Option<Method>> = occurrences
        .par_iter_mut()
        // Occurrences come by path: the previous one's path is looked up only once.
        .map_init(
            || None::<(SharedStr, Option<Lang>, u32)>,
            |last, o| {
                if o.roles.contains(Roles::DEFINITION) {
                    return None;
                }
                let (lang, id) = match last {
                    Some((path, lang, id)) if *path == o.path => (*lang, *id),
                    _ => {
                        let lang = languages.get(o.path.as_str()).copied();
                        let id = index.site_file(&o.path).id;
                        *last = Some((o.path.clone(), lang, id));
                        (lang, id)
                    }
                };
                let file = SiteFile { path: &o.path, id };
                let resolved = index.resolve(
                    &file,
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
    let runs = count_calls(occurrences, &methods);
    let source = SharedStr::from(SOURCE);
    let call_edges = runs
        .into_par_iter()
        .map(|((caller, callee, name), count, m)| CallEdgeRow {
            caller_id: caller.clone(),
            callee_id: callee.cloned(),
            callee_name: name.clone(),
            count,
            source: source.clone(),
            confidence: Method::confidence(m),
        })
        .collect();
    Resolution {
        call_edges,
        relationships: relationships(occurrences),
    }
}

/// The `implementation` links the resolved supertype and subtype sites state (see the module
/// doc), in table order.
pub fn relationships<'o>(occurrences: &'o [OccurrenceRow]) -> Vec<RelationshipRow> {
    let mut links: BTreeSet<(&'o str, &'o str)> = BTreeSet::new();
    let mut link = |from: Option<&'o SharedStr>, to: Option<&'o SharedStr>| {
        if let (Some(from), Some(to)) = (from, to) {
            if from != to {
                links.insert((from.as_str(), to.as_str()));
            }
        }
    };
    // The supertype site waiting to learn whether a subtype site follows it.
    let mut pending: Option<&'o OccurrenceRow> = None;
    for o in occurrences {
        let (sup, sub) = (
            o.roles.contains(Roles::SUPERTYPE),
            o.roles.contains(Roles::SUBTYPE),
        );
        if !sup && !sub {
            continue;
        }
        match pending.take() {
            Some(p) if sub && p.path == o.path => link(o.symbol_id.as_ref(), p.symbol_id.as_ref()),
            Some(p) => link(p.enclosing_symbol_id.as_ref(), p.symbol_id.as_ref()),
            None => {}
        }
        if sup {
            pending = Some(o);
        }
    }
    if let Some(p) = pending {
        link(p.enclosing_symbol_id.as_ref(), p.symbol_id.as_ref());
    }
    links
        .into_iter()
        .map(|(from, to)| RelationshipRow {
            from_id: from.to_string(),
            to_id: to.to_string(),
            kind: "implementation".into(),
            source: SOURCE.into(),
        })
        .collect()
}

/// A call edge's key: caller, callee (when resolved) and the callee's name at the sites.
type EdgeKey<'k> = (&'k SharedStr, Option<&'k SharedStr>, &'k SharedStr);

/// The call sites counted per [`EdgeKey`], each key with its first site's method, in the order of
/// first sites. (Sorting the sites by key did the same grouping with twice the CPU time; the rows'
/// order is the write's business.)
///
/// Occurrences come by file, and a caller is a definition of its site's own file, so the
/// occurrences are cut at file boundaries and each stretch is counted on its own, side by side.
/// Should some caller have sites in two stretches (a stable ID defined in two files), the
/// stretches' counts would not add up to the whole's: then everything is counted in one pass.
fn count_calls<'k>(
    occurrences: &'k [OccurrenceRow],
    methods: &[Option<Method>],
) -> Vec<(EdgeKey<'k>, i64, Option<Method>)> {
    let stretches = file_stretches(occurrences, 4 * rayon::current_num_threads());
    let counted: Vec<Vec<(EdgeKey<'k>, i64, Option<Method>)>> = stretches
        .par_iter()
        .map(|r| count_calls_in(&occurrences[r.clone()], &methods[r.clone()]))
        .collect();
    if counted.len() > 1 {
        let mut stretch_of: FastMap<&SharedStr, usize> = FastMap::default();
        for (n, runs) in counted.iter().enumerate() {
            let mut last = None;
            for ((caller, _, _), _, _) in runs {
                // A caller's edges mostly follow one another: look each run of them up once.
                if last == Some(*caller) {
                    continue;
                }
                last = Some(*caller);
                if *stretch_of.entry(caller).or_insert(n) != n {
                    return count_calls_in(occurrences, methods);
                }
            }
        }
    }
    counted.into_iter().flatten().collect()
}

/// [`count_calls`] over one run of occurrences.
fn count_calls_in<'k>(
    occurrences: &'k [OccurrenceRow],
    methods: &[Option<Method>],
) -> Vec<(EdgeKey<'k>, i64, Option<Method>)> {
    let mut slots: FastMap<EdgeKey<'k>, usize> = FastMap::default();
    let mut runs: Vec<(EdgeKey<'k>, i64, Option<Method>)> = Vec::new();
    for (o, m) in occurrences.iter().zip(methods) {
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
    runs
}

/// Up to `parts` consecutive ranges covering `occurrences`, each cut where the path changes.
fn file_stretches(occurrences: &[OccurrenceRow], parts: usize) -> Vec<std::ops::Range<usize>> {
    let len = occurrences.len();
    let mut cuts = vec![0];
    for n in 1..parts.max(1) {
        let mut at = (len * n / parts).max(*cuts.last().unwrap_or(&0));
        while at > 0 && at < len && occurrences[at].path == occurrences[at - 1].path {
            at += 1;
        }
        if at > *cuts.last().unwrap_or(&0) && at < len {
            cuts.push(at);
        }
    }
    cuts.push(len);
    cuts.windows(2).map(|w| w[0]..w[1]).collect()
}

#[cfg(test)]
#[path = "name_binding_tests.rs"]
mod tests;
