//! From what a user typed to one active symbol: stable IDs through aliases and tombstones
//! (`output_schema::redirect`), names through the symbol table.
//!
//! - `ckb:<repo>:sym:<hex>` of this snapshot's repository: active → itself; otherwise followed
//!   through `aliases` (at most 3 hops) to an active symbol (the answer says `redirected`,
//!   `redirectedFrom`, `reason`, `confidence`, `hops`), or to a tombstone (`SYMBOL_DELETED`, with
//!   when and where), or `ALIAS_CYCLE` / `ALIAS_CHAIN_TOO_DEEP` / `SYMBOL_NOT_FOUND`.
//! - Anything else starting with `ckb:` is a malformed ID (`INVALID_PARAMETER`); a well-formed ID
//!   of another repository is `SYMBOL_NOT_FOUND` with a hint to query that repository.
//! - Other input is a name, optionally qualified by its container (`Parser::parse`, `Parser.parse`):
//!   parameters, type parameters, locals and `meta` pseudo-symbols only when nothing else has the
//!   name; then exact (case-sensitive) matches first, else case-insensitive ones; one match
//!   resolves, none is `SYMBOL_NOT_FOUND`, several are `AMBIGUOUS_QUERY` carrying the top matches
//!   (ranked like `search`: [`crate::analysis::ranking`]) in `details.matches` and as drilldowns.

use std::cell::OnceCell;
use std::collections::BTreeSet;

use output_schema::ids::parse_stable_id;
use output_schema::redirect::{Resolution, ResolveError, Resolver};
use output_schema::tables::{AliasRow, SymbolRow, TombstoneRow};
use output_schema::ErrorCode;
use serde_json::{json, Value};

use crate::analysis::ranking::{self, is_hidden_kind, Ranked};
use crate::envelope::facts::symbol_brief;
use crate::envelope::respond::shell_quote;
use crate::snapshot::read::{self, Pred};
use crate::{QueryError, Snapshot};

/// Most matches an ambiguity lists.
pub const AMBIGUITY_MATCHES: usize = 5;

/// A resolved symbol.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The active symbol.
    pub symbol: SymbolRow,
    /// How the input reached it (`{"redirected": false}` or the redirect's facts).
    pub resolution: Value,
    /// Whether the input was an alias.
    pub redirected: bool,
}

/// The columns of `symbols` that a symbol in brief ([`symbol_brief`]), the ranking and by-name
/// resolution read. A read of only these leaves the signatures, hashes and backend IDs (most of
/// the table's bytes) compressed.
pub const BRIEF_COLUMNS: [&str; 10] = [
    "stable_id",
    "name",
    "kind",
    "container",
    "visibility",
    "module_id",
    "language",
    "path",
    "start_line",
    "source",
];

/// The symbols whose string `column` matches `pred`, in stored order, with only `columns` read:
/// the other fields are empty ("", 0, none) and are never shown.
pub fn symbols_where(
    snapshot: &Snapshot,
    filter: (&str, &Pred),
    columns: &[&str],
) -> Result<Vec<SymbolRow>, QueryError> {
    Ok(read::partial_rows_where(snapshot, filter, columns)?.unwrap_or_default())
}

/// Resolves inputs against one snapshot, reading alias and tombstone tables at most once.
pub struct Lookup<'a> {
    snapshot: &'a Snapshot,
    history: OnceCell<(Vec<AliasRow>, Vec<TombstoneRow>)>,
    /// Read only [`BRIEF_COLUMNS`] of the symbols found.
    brief: bool,
}

fn invalid_id(input: &str) -> QueryError {
    QueryError::new(
        ErrorCode::InvalidParameter,
        format!("{input:?} is not a well-formed stable ID"),
        "stable IDs look like ckb:<repo>:sym:<20 hex digits>[~<discriminator>]; pass an ID from a previous answer, or a symbol name",
    )
}

fn not_found(input: &str, remediation: String, name: Option<&str>) -> QueryError {
    let mut e = QueryError::new(
        ErrorCode::SymbolNotFound,
        format!("no symbol {input} in this snapshot"),
        remediation,
    );
    if let Some(n) = name.filter(|n| !n.is_empty()) {
        e = e.with_drilldown(
            format!("ckb query search {}", shell_quote(n)),
            "find symbols by name",
        );
    }
    e
}

impl<'a> Lookup<'a> {
    /// A lookup over a snapshot.
    pub fn new(snapshot: &'a Snapshot) -> Lookup<'a> {
        Lookup {
            snapshot,
            history: OnceCell::new(),
            brief: false,
        }
    }

    /// A lookup whose symbols hold only [`BRIEF_COLUMNS`] (the other fields empty): for a
    /// command that shows the symbol in brief and reads no other field of it.
    pub fn brief(snapshot: &'a Snapshot) -> Lookup<'a> {
        Lookup {
            brief: true,
            ..Lookup::new(snapshot)
        }
    }

    /// The symbols whose `column` matches `pred`, whole or in brief.
    fn symbols(&self, column: &str, pred: &Pred) -> Result<Vec<SymbolRow>, QueryError> {
        if self.brief {
            return symbols_where(self.snapshot, (column, pred), &BRIEF_COLUMNS);
        }
        Ok(read::rows_where::<SymbolRow>(self.snapshot, column, pred)?.unwrap_or_default())
    }

    /// The names of the active symbols with these IDs, by ID (only those two columns are read).
    pub fn names_by_id(
        &self,
        ids: &BTreeSet<String>,
    ) -> Result<std::collections::BTreeMap<String, String>, QueryError> {
        if ids.is_empty() {
            return Ok(Default::default());
        }
        let found = symbols_where(
            self.snapshot,
            ("stable_id", &Pred::In(ids.clone())),
            &["stable_id", "name"],
        )?;
        Ok(found
            .into_iter()
            .map(|s| (s.stable_id.to_string(), s.name))
            .collect())
    }

    fn history(&self) -> Result<&(Vec<AliasRow>, Vec<TombstoneRow>), QueryError> {
        if let Some(h) = self.history.get() {
            return Ok(h);
        }
        let aliases = read::all_rows::<AliasRow>(self.snapshot)?.unwrap_or_default();
        let tombstones = read::all_rows::<TombstoneRow>(self.snapshot)?.unwrap_or_default();
        Ok(self.history.get_or_init(|| (aliases, tombstones)))
    }

    /// Active symbols with these IDs.
    pub fn symbols_by_id(&self, ids: &BTreeSet<String>) -> Result<Vec<SymbolRow>, QueryError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let pred = if ids.len() == 1 {
            Pred::Eq(ids.iter().next().cloned().unwrap_or_default())
        } else {
            Pred::In(ids.clone())
        };
        self.symbols("stable_id", &pred)
    }

    /// Resolves one input to an active symbol.
    pub fn resolve(&self, input: &str) -> Result<Resolved, QueryError> {
        let input = QueryError::non_empty(
            input,
            "empty symbol ID or name",
            "pass a stable ID (ckb:<repo>:sym:<hex>) or a symbol name",
        )?;
        if input.starts_with(output_schema::ids::STABLE_ID_PREFIX) {
            self.resolve_id(input)
        } else {
            self.resolve_name(input)
        }
    }

    fn resolve_id(&self, id: &str) -> Result<Resolved, QueryError> {
        let parsed = parse_stable_id(id).ok_or_else(|| invalid_id(id))?;
        let repo = &self.snapshot.manifest.repo_id;
        if parsed.repo_id != repo {
            return Err(QueryError::new(
                ErrorCode::SymbolNotFound,
                format!(
                    "{id} belongs to repository {}; this snapshot is of {repo}",
                    parsed.repo_id
                ),
                format!(
                    "query a snapshot of {} (run from its checkout, or pass --store / --snapshot)",
                    parsed.repo_id
                ),
            )
            .with_details(json!({"idRepo": parsed.repo_id, "snapshotRepo": repo})));
        }
        let direct = self.symbols_by_id(&BTreeSet::from([id.to_string()]))?;
        if let Some(s) = direct.into_iter().next() {
            return Ok(Resolved {
                symbol: s,
                resolution: json!({"redirected": false}),
                redirected: false,
            });
        }
        let (aliases, tombstones) = self.history()?;
        // Every ID the alias graph can reach from `id` (a few hops at most), looked up at once.
        let mut reach: BTreeSet<String> = BTreeSet::new();
        let mut frontier = vec![id.to_string()];
        for _ in 0..=output_schema::redirect::MAX_ALIAS_HOPS {
            let mut next = Vec::new();
            for cur in &frontier {
                for a in aliases.iter().filter(|a| &a.old_id == cur) {
                    if reach.insert(a.new_id.clone()) {
                        next.push(a.new_id.clone());
                    }
                }
            }
            frontier = next;
        }
        let active: BTreeSet<String> = self
            .symbols_by_id(&reach)?
            .into_iter()
            .map(|s| s.stable_id.to_string())
            .collect();
        let resolver = Resolver::new(aliases, tombstones);
        match resolver.resolve(id, |x| active.contains(x)) {
            Ok(Resolution::Active { id: target }) => {
                let s = self.fetch_one(&target)?;
                Ok(Resolved {
                    symbol: s,
                    resolution: json!({"redirected": false}),
                    redirected: false,
                })
            }
            Ok(Resolution::Redirected {
                id: target,
                redirected_from,
                reason,
                confidence,
                hops,
            }) => {
                let s = self.fetch_one(&target)?;
                let hops: Vec<Value> = hops
                    .iter()
                    .map(|h| {
                        json!({"from": h.from, "to": h.to, "reason": h.reason,
                               "confidence": h.confidence, "createdCommit": h.created_commit})
                    })
                    .collect();
                Ok(Resolved {
                    symbol: s,
                    resolution: json!({
                        "redirected": true,
                        "redirectedFrom": redirected_from,
                        "reason": reason,
                        "confidence": confidence,
                        "hops": hops,
                    }),
                    redirected: true,
                })
            }
            Ok(Resolution::Deleted {
                id: gone,
                redirected_from,
                hops,
                deletion,
            }) => {
                let what = match &deletion.container {
                    Some(c) => format!("{} {c}::{}", deletion.kind, deletion.name),
                    None => format!("{} {}", deletion.kind, deletion.name),
                };
                let via = if hops.is_empty() {
                    String::new()
                } else {
                    format!(" (reached from {id} through {} alias hop(s))", hops.len())
                };
                Err(QueryError::new(
                    ErrorCode::SymbolDeleted,
                    format!(
                        "{gone} ({what}) was deleted in commit {}; it was last defined in {}{via}",
                        deletion.deleted_in_commit, deletion.last_path
                    ),
                    format!(
                        "look for its replacement by name: ckb query search {}",
                        shell_quote(&deletion.name)
                    ),
                )
                .with_drilldown(
                    format!("ckb query search {}", shell_quote(&deletion.name)),
                    "symbols with the deleted symbol's name",
                )
                .with_drilldown(
                    format!("ckb query explore {}", shell_quote(&deletion.last_path)),
                    "what its file holds now",
                )
                .with_details(json!({
                    "id": gone,
                    "redirectedFrom": redirected_from,
                    "name": deletion.name,
                    "kind": deletion.kind,
                    "container": deletion.container,
                    "lastPath": deletion.last_path,
                    "deletedInCommit": deletion.deleted_in_commit,
                    "deletedInStateId": deletion.deleted_in_state_id,
                })))
            }
            Err(e) => Err(self.resolve_error(id, e)),
        }
    }

    fn fetch_one(&self, id: &str) -> Result<SymbolRow, QueryError> {
        self.symbols_by_id(&BTreeSet::from([id.to_string()]))?
            .into_iter()
            .next()
            .ok_or_else(|| {
                QueryError::new(
                    ErrorCode::InternalError,
                    format!("{id} was active a moment ago and is not now"),
                    "report this as a bug",
                )
            })
    }

    fn resolve_error(&self, id: &str, e: ResolveError) -> QueryError {
        match e {
            ResolveError::NotFound { last, .. } if last == id => not_found(
                id,
                "the ID is not active, aliased or tombstoned in this snapshot; search by name, or query the snapshot the ID came from".into(),
                None,
            ),
            ResolveError::NotFound { last, .. } => not_found(
                id,
                format!("its aliases lead to {last}, which this snapshot does not hold; search by name or rebuild the snapshot"),
                None,
            )
            .with_details(json!({"lastId": last})),
            ResolveError::Cycle { chain } => QueryError::new(
                ErrorCode::AliasCycle,
                format!("the aliases of {id} form a cycle: {}", chain.join(" -> ")),
                "the snapshot's alias table is inconsistent; rebuild it with `ckb snapshot --force`, or search by name",
            )
            .with_details(json!({"chain": chain})),
            ResolveError::ChainTooDeep { chain } => QueryError::new(
                ErrorCode::AliasChainTooDeep,
                format!(
                    "{id} needs more than {} alias hops: {}",
                    output_schema::redirect::MAX_ALIAS_HOPS,
                    chain.join(" -> ")
                ),
                "the ID is too old to follow safely; search for the symbol by name",
            )
            .with_details(json!({"chain": chain})),
        }
    }

    /// Symbols whose name matches `name` (and whose container ends with `container`, when
    /// given): exact matches, else case-insensitive ones; of kinds a search hides (parameters,
    /// type parameters, …) only when no other symbol matches.
    pub fn by_name(&self, input: &str) -> Result<Vec<SymbolRow>, QueryError> {
        let (container, name) = split_qualified(input);
        let container_ok = |s: &SymbolRow, ci: bool| match container {
            None => true,
            Some(c) => s.container.as_deref().is_some_and(|sc| {
                if ci {
                    sc.to_lowercase().ends_with(&c.to_lowercase())
                } else {
                    sc.ends_with(c)
                }
            }),
        };
        let lower = name.to_lowercase();
        let found = self.symbols("name", &Pred::contains_ci(name))?;
        let mut rows: Vec<SymbolRow> = found
            .into_iter()
            .filter(|s| s.name.to_lowercase() == lower && container_ok(s, true))
            .collect();
        if rows.iter().any(|s| !is_hidden_kind(&s.kind)) {
            rows.retain(|s| !is_hidden_kind(&s.kind));
        }
        if rows
            .iter()
            .any(|s| s.name == name && container_ok(s, false))
        {
            rows.retain(|s| s.name == name && container_ok(s, false));
        }
        Ok(rows)
    }

    /// The symbols whose name is `input` (qualified or not): none, the one, or several ranked
    /// best first, as `resolve` and `understand` both need them.
    pub fn match_name(&self, input: &str) -> Result<NameMatch, QueryError> {
        let mut matches = self.by_name(input)?;
        Ok(match matches.len() {
            0 => NameMatch::None,
            1 => NameMatch::One(Box::new(Resolved {
                symbol: matches.remove(0),
                resolution: json!({"redirected": false, "matchedBy": "name"}),
                redirected: false,
            })),
            _ => {
                let (_, name) = split_qualified(input);
                NameMatch::Several(ranking::load_and_rank(self.snapshot, name, matches)?)
            }
        })
    }

    fn resolve_name(&self, input: &str) -> Result<Resolved, QueryError> {
        match self.match_name(input)? {
            NameMatch::None => {
                let remediation = if self.snapshot.has_table("symbols") {
                    "no symbol has this name; try a substring search".to_string()
                } else {
                    "this snapshot has no symbols table (the syntax and scip stages did not run); rebuild it with `ckb snapshot --force`".to_string()
                };
                let (_, name) = split_qualified(input);
                Err(not_found(input, remediation, Some(name)))
            }
            NameMatch::One(resolved) => Ok(*resolved),
            NameMatch::Several(ranked) => Err(ambiguous(input, &ranked, ranked.len())),
        }
    }
}

/// What a name matched ([`Lookup::match_name`]).
pub enum NameMatch {
    /// No symbol has the name.
    None,
    /// Exactly one symbol has it (boxed: a symbol row is large beside the other variants).
    One(Box<Resolved>),
    /// Several have it, ranked best first.
    Several(Vec<Ranked>),
}

/// The `AMBIGUOUS_QUERY` error for several matches of a name, `ranked` best first.
pub fn ambiguous(input: &str, ranked: &[Ranked], total: usize) -> QueryError {
    let top: Vec<&SymbolRow> = ranked
        .iter()
        .take(AMBIGUITY_MATCHES)
        .map(|r| &r.symbol)
        .collect();
    let mut e = QueryError::new(
        ErrorCode::AmbiguousQuery,
        format!("{total} symbols are named {input:?}"),
        "pass one of the stable IDs listed (details.matches), or qualify the name with its container (Type::name)",
    )
    .with_details(json!({
        "query": input,
        "total": total,
        "matches": top.iter().map(|s| symbol_brief(s)).collect::<Vec<_>>(),
    }));
    for s in top {
        e = e.with_drilldown(
            format!("ckb query symbol {}", s.stable_id),
            format!("{} {} at {}:{}", s.kind, s.name, s.path, s.start_line),
        );
    }
    e
}

/// Splits `Container::name` / `Container.name` into (container, name).
pub fn split_qualified(input: &str) -> (Option<&str>, &str) {
    if let Some((c, n)) = input.rsplit_once("::") {
        if !c.is_empty() && !n.is_empty() {
            return (Some(c), n);
        }
    }
    if let Some((c, n)) = input.rsplit_once('.') {
        if !c.is_empty() && !n.is_empty() && !input.contains('/') {
            return (Some(c), n);
        }
    }
    (None, input)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qualified_names_split() {
        assert_eq!(split_qualified("Parser::parse"), (Some("Parser"), "parse"));
        assert_eq!(split_qualified("a.b.c"), (Some("a.b"), "c"));
        assert_eq!(split_qualified("parse"), (None, "parse"));
        assert_eq!(split_qualified("src/a.rs"), (None, "src/a.rs"));
        assert_eq!(split_qualified("::x"), (None, "::x"));
    }
}
