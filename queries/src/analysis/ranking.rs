//! The one ranking of symbols found by name, used by `search`, `batch-search`, `understand`'s
//! ambiguity list and the `AMBIGUOUS_QUERY` error: the definition a user means first.
//!
//! A strict lexicographic order over signals a user would name (also `facts.ranking`):
//! 1. **match**: the exact name (case-sensitive) > the exact name ignoring case > a prefix > a
//!    substring (both ignoring case);
//! 2. **place**: `api` (public, or not known to be private, in the main code; a program's entry
//!    point) > `internal` (private, crate-internal, or named private: a leading `_` on the name or
//!    its file or folder; or a member of a type that is so) > `aside` (tests, examples, benches,
//!    docs, fuzzing and test-support code; see [`is_aside`]); then entry points
//!    ([`is_entry_point`]) first;
//! 3. **usage**: ⌊log2(1 + reference sites)⌋ from the `usage` table, more first (a bucket, so
//!    that symbols used about as much are told apart by the signals below); modules,
//!    namespaces and packages count as unused here, as their references are the qualified paths
//!    that pass through them (`search::Worker`), not uses of the module itself;
//! 4. **kind**: types and callables (class, struct, interface, trait, enum, type alias, type,
//!    function, method, constructor, macro) > constants, modules, enum members > variables,
//!    fields, properties > anything else (parameters, type parameters, …);
//! 5. **container depth**: fewer enclosing scopes first (`spawn` before `Builder::spawn`);
//! 6. **owner usage**: for members, ⌊log2(1 + reference sites)⌋ of the type they belong to
//!    ([`owner_name`]: found in the same file, else the same module, else by a unique name), more
//!    first (`Session.send` before `HTTPAdapter.send`);
//! 7. **backend**: scip > tree-sitter; then **references** themselves, more first;
//! 8. ties: stable_id ascending.
//!
//! Parameters, type parameters, locals and `meta` pseudo-symbols are kept in `symbols` but never
//! searched unless `--kind` names them ([`is_hidden_kind`]).

use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BTreeSet};

use arrow::array::{BooleanArray, RecordBatch};
use arrow::compute::kernels::boolean::{and, or};
use arrow::error::ArrowError;
use output_schema::tables::{SymbolRow, UsageRow};
use output_schema::SharedStr;

use crate::envelope::facts::FileIndex;
use crate::snapshot::lookup::symbols_where;
use crate::snapshot::read::{self, Pred};
use crate::{QueryError, Snapshot};

/// The ranking in one line, for `facts.ranking`.
pub const RANKING: &str = "exact (case-sensitive) > exact (ignoring case) > prefix > substring; \
     place: api > internal > aside (tests, examples, benches, docs, test-support); entry points; \
     usage: log2(1 + references), more first (modules: none); kind: types and callables > \
     constants, modules > fields, variables > other; fewer enclosing scopes; usage of the owning \
     type; scip > tree-sitter; references; stable_id";

/// How a name matches the query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MatchKind {
    /// Contains it, ignoring case.
    Substring = 1,
    /// Starts with it, ignoring case.
    Prefix = 2,
    /// Equals it ignoring case only.
    ExactIgnoringCase = 3,
    /// Equals it.
    Exact = 4,
}

impl MatchKind {
    /// Name in facts.
    pub fn name(self) -> &'static str {
        match self {
            MatchKind::Exact => "exact",
            MatchKind::ExactIgnoringCase => "exact-ignoring-case",
            MatchKind::Prefix => "prefix",
            MatchKind::Substring => "substring",
        }
    }
}

/// How `name` matches `query`.
pub fn match_kind(name: &str, query: &str) -> MatchKind {
    if name == query {
        return MatchKind::Exact;
    }
    let n = name.to_lowercase();
    let q = query.to_lowercase();
    if n == q {
        MatchKind::ExactIgnoringCase
    } else if n.starts_with(&q) {
        MatchKind::Prefix
    } else {
        MatchKind::Substring
    }
}

/// Where a definition sits, from the user's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Place {
    /// Reachable API of the main code.
    Api = 0,
    /// Main code, but private, crate-internal or named private.
    Internal = 1,
    /// Tests, examples, benches, docs, fuzzing or test-support code.
    Aside = 2,
}

impl Place {
    /// Name in facts.
    pub fn name(self) -> &'static str {
        match self {
            Place::Api => "api",
            Place::Internal => "internal",
            Place::Aside => "aside",
        }
    }
}

/// Kinds a name search leaves out unless `--kind` names them: they are parts of a definition
/// (parameters, type parameters) or no definition at all (locals, `meta` pseudo-symbols).
pub fn is_hidden_kind(kind: &str) -> bool {
    matches!(kind, "parameter" | "type_parameter" | "local" | "meta")
}

/// Weight of a visibility (most reachable highest), for lists ordered by reachability.
pub fn visibility_weight(v: &str) -> u8 {
    match v {
        "public" => 3,
        "protected" => 2,
        "internal" => 1,
        _ => 0,
    }
}

/// Weight of a kind: types and callables 3, constants, modules and enum members 2, fields,
/// properties and variables 1, anything else 0.
pub fn kind_weight(kind: &str) -> u8 {
    match kind {
        "class" | "struct" | "interface" | "trait" | "enum" | "type_alias" | "type" | "union"
        | "function" | "method" | "constructor" | "macro" | "delegate" | "object" => 3,
        "constant" | "module" | "namespace" | "package" | "enum_member" | "event" => 2,
        "variable" | "field" | "property" => 1,
        _ => 0,
    }
}

fn backend_weight(source: &str) -> u8 {
    u8::from(source == "scip")
}

/// Folder names (split at `-`, `_` and `.`, compared lowercased) that hold code a user searching
/// the API does not mean: tests and their data, examples and demos, benchmarks, docs, fuzzing.
const ASIDE_FOLDER_WORDS: &[&str] = &[
    "test",
    "tests",
    "testing",
    "testutil",
    "testutils",
    "testdata",
    "testsuite",
    "spec",
    "specs",
    "mock",
    "mocks",
    "fixture",
    "fixtures",
    "e2e",
    "bench",
    "benches",
    "benchmark",
    "benchmarks",
    "example",
    "examples",
    "demo",
    "demos",
    "sample",
    "samples",
    "doc",
    "docs",
    "fuzz",
];

/// File-name and module words (same splitting) of test-support code: `testutil.rs`,
/// `test_helpers.py`, `mocks.ts`, Rust's `mod tests`.
const ASIDE_MODULE_WORDS: &[&str] = &[
    "test",
    "tests",
    "testing",
    "testutil",
    "testutils",
    "mock",
    "mocks",
    "fixture",
    "fixtures",
    "conftest",
];

fn has_word(segment: &str, words: &[&str]) -> bool {
    segment
        .split(['-', '_', '.'])
        .any(|w| !w.is_empty() && words.contains(&w.to_ascii_lowercase().as_str()))
}

/// Whether a definition is tests, examples, benches, docs, fuzzing or test-support code: in a
/// file the scan marked as a test, under a folder named for such code (a package folder such as
/// `tokio-test/` or `tests-integration/` included: package roots are folders), in a file named for
/// test support (`testutil.rs`), or inside a test module (Rust's `mod tests`).
pub fn is_aside(s: &SymbolRow, test_file: bool) -> bool {
    if test_file {
        return true;
    }
    let mut parts: Vec<&str> = s.path.split('/').collect();
    let file = parts.pop().unwrap_or_default();
    let stem = file.split('.').next().unwrap_or_default();
    parts.iter().any(|d| has_word(d, ASIDE_FOLDER_WORDS))
        || has_word(stem, ASIDE_MODULE_WORDS)
        || s.container.as_deref().is_some_and(|c| {
            c.split("::")
                .any(|scope| !scope.contains(' ') && has_word(scope, ASIDE_MODULE_WORDS))
        })
}

/// A name private by convention: one leading underscore (Python, JavaScript), not a dunder.
fn private_name(name: &str) -> bool {
    name.starts_with('_') && !(name.starts_with("__") && name.ends_with("__"))
}

/// Whether a definition is a program's entry point: a top-level function `main` in a file named
/// `main` or `__main__` (`src/main.rs`, `cmd/tool/main.go`, `pkg/__main__.py`, `main.c`). The
/// language calls it, whatever its visibility says.
pub fn is_entry_point(s: &SymbolRow) -> bool {
    let file = s.path.rsplit('/').next().unwrap_or_default();
    s.name == "main"
        && s.kind == "function"
        && s.container.is_none()
        && matches!(file.split('.').next(), Some("main" | "__main__"))
}

/// Whether a definition's own visibility lets users reach it: public or protected; where the
/// visibility is not stated, a name, file or folder with a leading underscore is private by
/// convention.
fn reachable(s: &SymbolRow) -> bool {
    match s.visibility.as_str() {
        "public" | "protected" => true,
        "internal" | "private" => false,
        _ => !private_name(&s.name) && !s.path.split('/').any(private_name),
    }
}

/// Where a definition sits: `aside` code first; then an entry point is reachable; else its own
/// visibility ([`reachable`]) decides.
pub fn place(s: &SymbolRow, test_file: bool) -> Place {
    if is_aside(s, test_file) {
        Place::Aside
    } else if is_entry_point(s) || reachable(s) {
        Place::Api
    } else {
        Place::Internal
    }
}

/// Kinds that name a type: a non-call use of one is a type dependency.
pub const TYPE_LIKE_KINDS: [&str; 8] = [
    "class",
    "struct",
    "interface",
    "trait",
    "enum",
    "type_alias",
    "type",
    "union",
];

/// Whether a kind names a type (one of [`TYPE_LIKE_KINDS`]).
pub fn is_type_like(kind: &str) -> bool {
    TYPE_LIKE_KINDS.contains(&kind)
}

/// The kind of a singleton (`object` in Scala and Kotlin), which owns members as a type does.
const SINGLETON_KIND: &str = "object";

/// Whether a kind can own members (the owner of a method, field or property).
fn is_type_kind(kind: &str) -> bool {
    is_type_like(kind) || kind == SINGLETON_KIND
}

/// The kinds that can own members, for a predicate on the `kind` column.
fn type_kinds() -> BTreeSet<String> {
    TYPE_LIKE_KINDS
        .iter()
        .chain([&SINGLETON_KIND])
        .map(|k| k.to_string())
        .collect()
}

/// The type a member belongs to, as its container names it: the last scope, or a Rust `impl`
/// block's implementing type (`impl From<io::Error> for Entry<T>` → `Entry`), without generic
/// arguments or a path. `None` when nothing like a name is left.
pub fn owner_name(container: &str) -> Option<String> {
    // Generic arguments may hold `::` and ` for `: they go first.
    let mut scope = String::with_capacity(container.len());
    let mut depth = 0usize;
    for c in container.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            _ if depth == 0 => scope.push(c),
            _ => {}
        }
    }
    let scope = scope.rsplit(" for ").next().unwrap_or_default();
    let last = scope.rsplit("::").next().unwrap_or_default();
    let name = last
        .trim()
        .trim_start_matches("impl ")
        .trim_start_matches('&')
        .trim_start_matches("mut ")
        .trim_start_matches("dyn ")
        .trim();
    (!name.is_empty() && !name.contains(' ')).then(|| name.to_string())
}

/// The usage signal: ⌊log2(1 + references)⌋.
pub fn usage_bucket(references: i64) -> u32 {
    (references.max(0) as u64 + 1).ilog2()
}

/// The references that rank a symbol of `kind`: none for modules, namespaces and packages (their
/// references are qualified paths passing through them).
fn ranked_references(kind: &str, references: i64) -> i64 {
    match kind {
        "module" | "namespace" | "package" => 0,
        _ => references,
    }
}

/// A symbol with the signals it was ranked by.
#[derive(Clone, Debug)]
pub struct Ranked {
    /// The symbol.
    pub symbol: SymbolRow,
    /// How its name matches.
    pub matched: MatchKind,
    /// Where it sits (a member of a type users cannot reach is `internal` at best).
    pub place: Place,
    /// Reference sites (0 when unused; `None` when the snapshot has no `usage` table).
    pub references: Option<i64>,
    /// The signals in ranking order, smallest first (the stable ID breaks the last tie).
    key: RankKey,
}

/// Match, place, entry point, usage, kind, container depth, owner usage, backend, references;
/// each as a number that sorts best first. Computed once per symbol, not per comparison.
type RankKey = (
    Reverse<MatchKind>,
    Place,
    bool,
    Reverse<u32>,
    Reverse<u8>,
    usize,
    Reverse<u32>,
    Reverse<u8>,
    Reverse<i64>,
);

impl Ranked {
    fn new(
        symbol: SymbolRow,
        query: &str,
        place: Place,
        references: Option<i64>,
        owner_references: i64,
    ) -> Ranked {
        let matched = match_kind(&symbol.name, query);
        let refs = ranked_references(&symbol.kind, references.unwrap_or(0));
        let key = (
            Reverse(matched),
            place,
            !is_entry_point(&symbol),
            Reverse(usage_bucket(refs)),
            Reverse(kind_weight(&symbol.kind)),
            symbol
                .container
                .as_deref()
                .map_or(0, |c| c.split("::").count()),
            Reverse(usage_bucket(owner_references)),
            Reverse(backend_weight(&symbol.source)),
            Reverse(refs),
        );
        Ranked {
            symbol,
            matched,
            place,
            references,
            key,
        }
    }

    fn compare(&self, other: &Ranked) -> Ordering {
        self.key
            .cmp(&other.key)
            .then_with(|| self.symbol.stable_id.cmp(&other.symbol.stable_id))
    }
}

/// The type a member belongs to, as far as ranking needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Owner {
    /// Whether users can reach the type ([`reachable`]).
    reachable: bool,
    /// Its reference sites.
    references: i64,
}

/// What ranking needs beyond the symbols themselves: which of their files are tests, their
/// usage, and the types they are members of.
#[derive(Clone, Debug, Default)]
pub struct Signals {
    tests: BTreeSet<String>,
    usage: Option<BTreeMap<String, i64>>,
    /// By member stable ID.
    owners: BTreeMap<String, Owner>,
}

impl Signals {
    /// Reads the signals of `rows`: their files' rows, the types their containers name, and the
    /// `usage` rows of both (only those).
    pub fn load(snapshot: &Snapshot, rows: &[SymbolRow]) -> Result<Signals, QueryError> {
        Signals::load_with(snapshot, rows, None)
    }

    /// [`Signals::load`] with the types already read that `rows`' containers may name (a
    /// superset: those they do not name are left out), as [`find_by_name`] reads them.
    fn load_with(
        snapshot: &Snapshot,
        rows: &[SymbolRow],
        known_types: Option<Vec<SymbolRow>>,
    ) -> Result<Signals, QueryError> {
        if rows.is_empty() {
            return Ok(Signals::default());
        }
        let paths: BTreeSet<String> = rows.iter().map(|s| s.path.to_string()).collect();
        let files = FileIndex::load_paths(snapshot, &paths)?;
        let tests = paths.into_iter().filter(|p| files.is_test(p)).collect();
        let owner_names: BTreeSet<String> = rows
            .iter()
            .filter_map(|s| s.container.as_deref().and_then(owner_name))
            .collect();
        let (types, usage) = match &snapshot.cache {
            // A long-lived reader (`ckb mcp`): looked up in an index built once.
            Some(cache) => {
                let index = cache.derived("ranking", || RankingIndex::build(snapshot))?;
                index.lookup(rows, &owner_names)
            }
            None => {
                let types = match (owner_names.is_empty(), known_types) {
                    (true, _) => Vec::new(),
                    (false, Some(mut known)) => {
                        known.retain(|t| owner_names.contains(&t.name));
                        known
                    }
                    (false, None) => owner_types(snapshot, ("name", &Pred::In(owner_names)))?,
                };
                let ids: BTreeSet<String> = rows
                    .iter()
                    .chain(&types)
                    .map(|s| s.stable_id.to_string())
                    .collect();
                (
                    types,
                    usage_of(snapshot, Some(("stable_id", &Pred::In(ids))))?,
                )
            }
        };
        let owners = rows
            .iter()
            .filter_map(|s| {
                let t = owner_of(s, &types)?;
                let references = usage
                    .as_ref()
                    .and_then(|u| u.get(t.stable_id.as_str()).copied())
                    .unwrap_or_default();
                let owner = Owner {
                    reachable: reachable(t),
                    references,
                };
                Some((s.stable_id.to_string(), owner))
            })
            .collect();
        Ok(Signals {
            tests,
            usage,
            owners,
        })
    }
}

/// The signals a long-lived reader keeps for every search ([`crate::snapshot::cache`]): every
/// type by name (in stored order, as a read by name returns them) and every `usage` row.
struct RankingIndex {
    types: BTreeMap<String, Vec<SymbolRow>>,
    usage: Option<BTreeMap<String, i64>>,
}

impl RankingIndex {
    fn build(snapshot: &Snapshot) -> Result<RankingIndex, QueryError> {
        let kinds = type_kinds();
        let mut types: BTreeMap<String, Vec<SymbolRow>> = BTreeMap::new();
        for t in owner_types(snapshot, ("kind", &Pred::In(kinds)))? {
            types.entry(t.name.clone()).or_default().push(t);
        }
        Ok(RankingIndex {
            types,
            usage: usage_of(snapshot, None)?,
        })
    }

    /// What [`Signals::load`] reads from the files for `rows`: the types `owner_names` name and
    /// the usage of both.
    fn lookup(
        &self,
        rows: &[SymbolRow],
        owner_names: &BTreeSet<String>,
    ) -> (Vec<SymbolRow>, Option<BTreeMap<String, i64>>) {
        let types: Vec<SymbolRow> = owner_names
            .iter()
            .filter_map(|n| self.types.get(n))
            .flatten()
            .cloned()
            .collect();
        let usage = self.usage.as_ref().map(|all| {
            rows.iter()
                .chain(&types)
                .filter_map(|s| {
                    let id = s.stable_id.as_str();
                    all.get(id).map(|&n| (id.to_string(), n))
                })
                .collect()
        });
        (types, usage)
    }
}

/// Reference sites by stable ID from the `usage` table (the rows `filter` keeps; all without
/// one); `None` when the snapshot has no `usage` table. Two columns only: the other columns'
/// pages are never decompressed.
fn usage_of(
    snapshot: &Snapshot,
    filter: Option<(&str, &Pred)>,
) -> Result<Option<BTreeMap<String, i64>>, QueryError> {
    let columns = ["stable_id", "references"];
    let Some(found) = read::read_columns(snapshot, UsageRow::INFO.name, &columns, filter)? else {
        return Ok(None);
    };
    let ids: Vec<SharedStr> = found.get("stable_id")?;
    let references: Vec<i64> = found.get("references")?;
    Ok(Some(
        ids.into_iter()
            .map(|id| id.to_string())
            .zip(references)
            .collect(),
    ))
}

/// The types among the symbols `filter` keeps, with only the columns owner matching and
/// reachability read (stable ID, name, kind, visibility, path, module): a search reads them on
/// every call, and decoding the other columns of their row groups would cost as much as the
/// search itself. The other fields are left empty; these rows are never shown.
fn owner_types(snapshot: &Snapshot, filter: (&str, &Pred)) -> Result<Vec<SymbolRow>, QueryError> {
    const COLUMNS: [&str; 6] = [
        "stable_id",
        "name",
        "kind",
        "visibility",
        "path",
        "module_id",
    ];
    let mut types = symbols_where(snapshot, filter, &COLUMNS)?;
    types.retain(|t| is_type_kind(&t.kind));
    Ok(types)
}

/// The type among `types` that `member`'s container names: the one in the same file, else the
/// one in the same module, else the only one of that name; `None` when it cannot be told.
fn owner_of<'t>(member: &SymbolRow, types: &'t [SymbolRow]) -> Option<&'t SymbolRow> {
    let name = owner_name(member.container.as_deref()?)?;
    let name = name.as_str();
    let named: Vec<&SymbolRow> = types.iter().filter(|t| t.name == name).collect();
    named
        .iter()
        .find(|t| t.path == member.path)
        .or_else(|| {
            let in_module: Vec<&&SymbolRow> = named
                .iter()
                .filter(|t| t.module_id.is_some() && t.module_id == member.module_id)
                .collect();
            (in_module.len() == 1).then(|| in_module[0])
        })
        .or_else(|| (named.len() == 1).then(|| &named[0]))
        .copied()
}

/// Ranks `rows` for `query` (an unqualified name or part of one).
pub fn rank(query: &str, rows: Vec<SymbolRow>, signals: &Signals) -> Vec<Ranked> {
    let mut ranked: Vec<Ranked> = rows
        .into_iter()
        .map(|symbol| {
            let references = signals.usage.as_ref().map(|u| {
                u.get(symbol.stable_id.as_str())
                    .copied()
                    .unwrap_or_default()
            });
            let owner = signals.owners.get(symbol.stable_id.as_str());
            let mut place = place(&symbol, signals.tests.contains(symbol.path.as_str()));
            if place == Place::Api && owner.is_some_and(|o| !o.reachable) {
                place = Place::Internal;
            }
            let owner_references = owner.map_or(0, |o| o.references);
            Ranked::new(symbol, query, place, references, owner_references)
        })
        .collect();
    ranked.sort_by(Ranked::compare);
    ranked
}

/// Symbols found by name, with the types their containers may name.
#[derive(Clone, Debug, Default)]
pub struct Found {
    /// The symbols whose name contains the query ignoring case, in stored order.
    pub matches: Vec<SymbolRow>,
    /// The types named like the owner of a match, in stored order.
    owner_types: Vec<SymbolRow>,
}

/// The symbols whose name contains `query` ignoring case (with `columns`) and the types their
/// containers may name (the owners [`Signals`] looks up), from one read of `symbols`: the name,
/// container and kind columns of every row decide, and the other columns are decoded for the
/// rows kept only. Reading the owners apart would decode the name column and the owners' columns
/// a second time; the rows are the same, in the same order.
pub fn find_by_name(
    snapshot: &Snapshot,
    query: &str,
    columns: &[&str],
) -> Result<Found, QueryError> {
    let pred = Pred::contains_ci(query);
    let choose = |batches: &[RecordBatch]| -> Result<Vec<BooleanArray>, ArrowError> {
        let matched = batches
            .iter()
            .map(|b| read::column_mask(b, "name", &pred))
            .collect::<Result<Vec<_>, _>>()?;
        let mut owners = BTreeSet::new();
        for (batch, m) in batches.iter().zip(&matched) {
            let containers = read::string_values(batch, "container")?;
            for (c, hit) in containers.into_iter().zip(m.iter()) {
                if hit == Some(true) {
                    owners.extend(c.and_then(owner_name));
                }
            }
        }
        let (owners, types) = (Pred::In(owners), Pred::In(type_kinds()));
        batches
            .iter()
            .zip(&matched)
            .map(|(batch, m)| {
                let owner = and(
                    &read::column_mask(batch, "name", &owners)?,
                    &read::column_mask(batch, "kind", &types)?,
                )?;
                or(m, &owner)
            })
            .collect()
    };
    let condition: [&str; 3] = ["name", "container", "kind"];
    let rows: Vec<SymbolRow> =
        read::partial_rows_chosen(snapshot, (&condition, &choose), columns)?.unwrap_or_default();
    let owners: BTreeSet<String> = rows
        .iter()
        .filter(|s| pred.matches(&s.name))
        .filter_map(|s| s.container.as_deref().and_then(owner_name))
        .collect();
    // A match can be an owner too (`search Runtime`: the struct and `Runtime::block_on`).
    let owner_types = rows
        .iter()
        .filter(|t| is_type_kind(&t.kind) && owners.contains(&t.name))
        .cloned()
        .collect();
    let matches = rows.into_iter().filter(|s| pred.matches(&s.name)).collect();
    Ok(Found {
        matches,
        owner_types,
    })
}

/// Reads the signals of `rows` (some of `found.matches`) and ranks them for `query`.
pub fn load_and_rank_found(
    snapshot: &Snapshot,
    query: &str,
    rows: Vec<SymbolRow>,
    found: Found,
) -> Result<Vec<Ranked>, QueryError> {
    let signals = Signals::load_with(snapshot, &rows, Some(found.owner_types))?;
    Ok(rank(query, rows, &signals))
}

/// Reads the signals of `rows` and ranks them for `query`.
pub fn load_and_rank(
    snapshot: &Snapshot,
    query: &str,
    rows: Vec<SymbolRow>,
) -> Result<Vec<Ranked>, QueryError> {
    let signals = Signals::load(snapshot, &rows)?;
    Ok(rank(query, rows, &signals))
}

#[cfg(test)]
#[path = "ranking_tests.rs"]
mod tests;
