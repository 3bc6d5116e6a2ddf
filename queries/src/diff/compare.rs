//! The raw comparison of two snapshots: files, symbols and call edges.
//!
//! Size: about 120 of its ~820 lines are the tests at its end.
//!
//! Files are matched by path and compared by `content_hash`; a removed and an added file with the
//! same content (and no other file sharing it) are a rename. Symbols are matched by stable ID: an
//! ID present on both sides is compared by `definition_version_id` (signature), `body_hash` and
//! `visibility`; an ID only in the base is resolved through the head snapshot's aliases and
//! tombstones (`output_schema::redirect`), so a rename or move is reported as one, not as a
//! deletion plus an addition. When the head snapshot has no `aliases` table at all (its identity
//! stage did not run), a removed and an added symbol of the same kind with the same, unique
//! `body_hash` are paired instead (`source: body-match`).

use std::collections::{BTreeMap, BTreeSet};

use output_schema::redirect::{Resolution, ResolveError, Resolver};
use output_schema::tables::{AliasRow, CallEdgeRow, FileRow, SymbolRow, TombstoneRow};
use serde::Serialize;

/// A file as listed in the diff.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileInfo {
    /// Repo-relative path.
    pub path: String,
    /// Language.
    pub language: Option<String>,
    /// Module.
    pub module_id: Option<String>,
    /// Whether it is a test file.
    pub is_test: bool,
    /// Line count.
    pub lines: i64,
}

/// A file whose content changed.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileChange {
    /// Repo-relative path.
    pub path: String,
    /// Language (head's).
    pub language: Option<String>,
    /// Module (head's, else base's).
    pub module_id: Option<String>,
    /// Whether it is a test file.
    pub is_test: bool,
    /// Lines in the base.
    pub lines_before: i64,
    /// Lines in the head.
    pub lines_after: i64,
}

/// A file that moved with identical content.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileRename {
    /// Path in the base.
    pub from: String,
    /// Path in the head.
    pub to: String,
    /// Language.
    pub language: Option<String>,
    /// Whether it is a test file.
    pub is_test: bool,
}

/// File-level changes, each list sorted by path.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileDiff {
    /// Only in the head.
    pub added: Vec<FileInfo>,
    /// Only in the base.
    pub removed: Vec<FileInfo>,
    /// In both, with different content.
    pub modified: Vec<FileChange>,
    /// Moved without a content change.
    pub renamed: Vec<FileRename>,
    /// In both with the same content.
    pub unchanged: u64,
}

impl FileDiff {
    /// Every path the change touches, on either side.
    pub fn touched_paths(&self) -> BTreeSet<&str> {
        let mut out = BTreeSet::new();
        out.extend(self.added.iter().map(|f| f.path.as_str()));
        out.extend(self.removed.iter().map(|f| f.path.as_str()));
        out.extend(self.modified.iter().map(|f| f.path.as_str()));
        for r in &self.renamed {
            out.insert(r.from.as_str());
            out.insert(r.to.as_str());
        }
        out
    }

    /// Number of files touched.
    pub fn count(&self) -> usize {
        self.added.len() + self.removed.len() + self.modified.len() + self.renamed.len()
    }
}

fn file_info(f: &FileRow) -> FileInfo {
    FileInfo {
        path: f.path.clone(),
        language: f.language.clone(),
        module_id: f.module_id.clone(),
        is_test: f.is_test,
        lines: f.line_count,
    }
}

/// Compares the `files` tables; empty when either is missing.
pub fn files(base: Option<&[FileRow]>, head: Option<&[FileRow]>) -> FileDiff {
    let (Some(base), Some(head)) = (base, head) else {
        return FileDiff::default();
    };
    let b: BTreeMap<&str, &FileRow> = base.iter().map(|f| (f.path.as_str(), f)).collect();
    let h: BTreeMap<&str, &FileRow> = head.iter().map(|f| (f.path.as_str(), f)).collect();
    let mut out = FileDiff::default();
    let mut removed: Vec<&FileRow> = Vec::new();
    let mut added: Vec<&FileRow> = Vec::new();
    for (path, bf) in &b {
        match h.get(path) {
            None => removed.push(bf),
            Some(hf) if hf.content_hash != bf.content_hash => out.modified.push(FileChange {
                path: path.to_string(),
                language: hf.language.clone(),
                module_id: hf.module_id.clone().or_else(|| bf.module_id.clone()),
                is_test: hf.is_test,
                lines_before: bf.line_count,
                lines_after: hf.line_count,
            }),
            Some(_) => out.unchanged += 1,
        }
    }
    for (path, hf) in &h {
        if !b.contains_key(path) {
            added.push(hf);
        }
    }
    // Renames: content hashes that occur exactly once among the removed and once among the added.
    fn count<'a>(rows: &[&'a FileRow]) -> BTreeMap<&'a str, usize> {
        let mut m: BTreeMap<&str, usize> = BTreeMap::new();
        for f in rows {
            *m.entry(f.content_hash.as_str()).or_default() += 1;
        }
        m
    }
    let (rc, ac) = (count(&removed), count(&added));
    let unique = |hash: &str| rc.get(hash) == Some(&1) && ac.get(hash) == Some(&1);
    let moved_to: BTreeMap<&str, &FileRow> = added
        .iter()
        .filter(|f| unique(&f.content_hash))
        .map(|f| (f.content_hash.as_str(), *f))
        .collect();
    let mut renamed_targets = BTreeSet::new();
    for f in &removed {
        match moved_to.get(f.content_hash.as_str()) {
            Some(to) => {
                renamed_targets.insert(to.path.as_str());
                out.renamed.push(FileRename {
                    from: f.path.clone(),
                    to: to.path.clone(),
                    language: to.language.clone(),
                    is_test: to.is_test,
                });
            }
            None => out.removed.push(file_info(f)),
        }
    }
    out.added = added
        .iter()
        .filter(|f| !renamed_targets.contains(f.path.as_str()))
        .map(|f| file_info(f))
        .collect();
    out.renamed
        .sort_by(|a, b| (&a.to, &a.from).cmp(&(&b.to, &b.from)));
    out
}

/// A symbol as listed in the diff.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sym {
    /// Stable ID.
    pub id: String,
    /// Name.
    pub name: String,
    /// Kind.
    pub kind: String,
    /// Container.
    pub container: Option<String>,
    /// Defining file.
    pub path: String,
    /// First line.
    pub line: i32,
    /// Visibility.
    pub visibility: String,
    /// Normalized declaration header.
    pub signature: Option<String>,
    /// Parameter count.
    pub arity: Option<i32>,
    /// Module.
    pub module_id: Option<String>,
}

impl Sym {
    /// The diff's view of a symbol row.
    pub fn of(s: &SymbolRow) -> Sym {
        Sym {
            id: s.stable_id.to_string(),
            name: s.name.clone(),
            kind: s.kind.to_string(),
            container: s.container.as_deref().map(String::from),
            path: s.path.to_string(),
            line: s.start_line,
            visibility: s.visibility.to_string(),
            signature: s.signature.clone(),
            arity: s.arity,
            module_id: s.module_id.as_deref().map(String::from),
        }
    }

    /// `container::name`, or the name at top level.
    pub fn qualified(&self) -> String {
        match &self.container {
            Some(c) if !c.is_empty() => format!("{c}::{}", self.name),
            _ => self.name.clone(),
        }
    }

    fn order_key(&self) -> (&str, i32, &str) {
        (&self.path, self.line, &self.id)
    }
}

/// A symbol only in the base that no alias carries into the head.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RemovedSymbol {
    /// The symbol as it was.
    pub symbol: Sym,
    /// How resolution ended: `tombstone`, `not-found`, `alias-cycle` or `alias-chain-too-deep`.
    pub resolution: String,
    /// Commit of the first snapshot without it (from its tombstone).
    pub deleted_in_commit: Option<String>,
}

/// A base symbol whose ID now resolves to a different active symbol.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RenamedSymbol {
    /// The symbol in the base.
    pub from: Sym,
    /// The symbol in the head.
    pub to: Sym,
    /// `renamed` (name changed), `moved` (same name, other place) or `merged` (the target existed in the base too).
    pub change: String,
    /// The aliases' reason (`renamed`, `moved`, `fuzzy-match`, …) or `body-match`.
    pub reason: String,
    /// Confidence of the match, 0..1.
    pub confidence: f64,
    /// Alias hops followed (0 for a body match).
    pub hops: u64,
    /// `aliases` or `body-match`.
    pub source: String,
    /// Whether the declaration changed beyond the name.
    pub signature_changed: bool,
    /// Whether the body changed.
    pub body_changed: bool,
}

/// A symbol whose signature changed.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SignatureChange {
    /// The symbol in the head.
    pub symbol: Sym,
    /// Signature in the base.
    pub before: Option<String>,
    /// Signature in the head.
    pub after: Option<String>,
    /// Arity in the base.
    pub arity_before: Option<i32>,
    /// Whether the body changed too.
    pub body_changed: bool,
}

/// A symbol whose visibility changed.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VisibilityChange {
    /// The symbol in the head.
    pub symbol: Sym,
    /// Visibility in the base.
    pub before: String,
    /// Visibility in the head.
    pub after: String,
    /// `narrowed`, `widened` or `changed` (when either side is `unknown`).
    pub direction: String,
}

/// Symbol-level changes; every list sorted by path, line, stable ID (renames by the base symbol).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SymbolDiff {
    /// New symbols (not the target of a rename).
    pub added: Vec<Sym>,
    /// Symbols that are gone.
    pub removed: Vec<RemovedSymbol>,
    /// Symbols that were renamed, moved or merged.
    pub renamed: Vec<RenamedSymbol>,
    /// Same ID, different `definition_version_id`.
    pub signature_changed: Vec<SignatureChange>,
    /// Same ID and signature, different `body_hash`.
    pub body_changed: Vec<Sym>,
    /// Same ID, different visibility.
    pub visibility_changed: Vec<VisibilityChange>,
    /// Same ID with nothing the diff compares changed.
    pub unchanged: u64,
}

impl SymbolDiff {
    /// Number of symbol changes (a symbol with several changes counts once per list).
    pub fn count(&self) -> usize {
        self.added.len()
            + self.removed.len()
            + self.renamed.len()
            + self.signature_changed.len()
            + self.body_changed.len()
            + self.visibility_changed.len()
    }
}

/// Rank of a visibility for narrowing/widening; `None` when unknown.
pub fn visibility_rank(v: &str) -> Option<u8> {
    match v {
        "public" => Some(3),
        "internal" | "protected" => Some(2),
        "private" => Some(1),
        _ => None,
    }
}

fn bodies_differ(a: &SymbolRow, b: &SymbolRow) -> bool {
    matches!((&a.body_hash, &b.body_hash), (Some(x), Some(y)) if x != y)
}

/// Whether two declarations differ once the name is taken out (a rename alone is not a signature change).
fn signature_differs_beyond_name(from: &SymbolRow, to: &SymbolRow) -> bool {
    if from.arity.is_some() && to.arity.is_some() && from.arity != to.arity {
        return true;
    }
    match (&from.signature, &to.signature) {
        (Some(a), Some(b)) => {
            let renamed = if from.name.is_empty() {
                a.clone()
            } else {
                a.replace(&from.name, &to.name)
            };
            renamed != *b
        }
        _ => from.definition_version_id != to.definition_version_id && from.name == to.name,
    }
}

/// Symbols in both snapshots: signature, body and visibility changes, or unchanged.
fn compare_kept(
    b: &BTreeMap<&str, &SymbolRow>,
    h: &BTreeMap<&str, &SymbolRow>,
    out: &mut SymbolDiff,
) {
    for (id, bs) in b {
        let Some(hs) = h.get(id) else { continue };
        let mut same = true;
        if bs.definition_version_id != hs.definition_version_id {
            same = false;
            out.signature_changed.push(SignatureChange {
                symbol: Sym::of(hs),
                before: bs.signature.clone(),
                after: hs.signature.clone(),
                arity_before: bs.arity,
                body_changed: bodies_differ(bs, hs),
            });
        } else if bodies_differ(bs, hs) {
            same = false;
            out.body_changed.push(Sym::of(hs));
        }
        if bs.visibility != hs.visibility {
            same = false;
            let direction = match (
                visibility_rank(&bs.visibility),
                visibility_rank(&hs.visibility),
            ) {
                (Some(x), Some(y)) if y < x => "narrowed",
                (Some(x), Some(y)) if y > x => "widened",
                _ => "changed",
            };
            out.visibility_changed.push(VisibilityChange {
                symbol: Sym::of(hs),
                before: bs.visibility.to_string(),
                after: hs.visibility.to_string(),
                direction: direction.into(),
            });
        }
        if same {
            out.unchanged += 1;
        }
    }
}

/// Without an identity stage in the head, a removed and an added symbol of the same kind whose
/// body hash is unique on both sides are paired as a rename or move (`body-match`, 0.8).
fn pair_by_body(
    b: &BTreeMap<&str, &SymbolRow>,
    unresolved: &mut Vec<RemovedSymbol>,
    added: &mut Vec<&SymbolRow>,
    out: &mut SymbolDiff,
) {
    let key = |s: &SymbolRow| s.body_hash.clone().map(|h| (h, s.kind.to_string()));
    let mut removed_by: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
    for (i, r) in unresolved.iter().enumerate() {
        if let Some(k) = b.get(r.symbol.id.as_str()).and_then(|s| key(s)) {
            removed_by.entry(k).or_default().push(i);
        }
    }
    let mut added_by: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
    for (i, a) in added.iter().enumerate() {
        if let Some(k) = key(a) {
            added_by.entry(k).or_default().push(i);
        }
    }
    let mut paired_removed = BTreeSet::new();
    let mut paired_added = BTreeSet::new();
    for (k, rs) in &removed_by {
        if let (&[ri], Some(&[ai])) = (rs.as_slice(), added_by.get(k).map(Vec::as_slice)) {
            let bs = b[unresolved[ri].symbol.id.as_str()];
            let hs = added[ai];
            paired_removed.insert(ri);
            paired_added.insert(ai);
            out.renamed.push(RenamedSymbol {
                from: Sym::of(bs),
                to: Sym::of(hs),
                change: if bs.name == hs.name {
                    "moved"
                } else {
                    "renamed"
                }
                .into(),
                reason: "body-match".into(),
                confidence: 0.8,
                hops: 0,
                source: "body-match".into(),
                signature_changed: signature_differs_beyond_name(bs, hs),
                body_changed: false,
            });
        }
    }
    *unresolved = std::mem::take(unresolved)
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !paired_removed.contains(i))
        .map(|(_, r)| r)
        .collect();
    *added = std::mem::take(added)
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !paired_added.contains(i))
        .map(|(_, a)| a)
        .collect();
}

/// Compares the `symbols` tables; empty when either is missing.
pub fn symbols(
    base: Option<&[SymbolRow]>,
    head: Option<&[SymbolRow]>,
    aliases: Option<&[AliasRow]>,
    tombstones: Option<&[TombstoneRow]>,
) -> SymbolDiff {
    let (Some(base), Some(head)) = (base, head) else {
        return SymbolDiff::default();
    };
    let b: BTreeMap<&str, &SymbolRow> = base.iter().map(|s| (s.stable_id.as_str(), s)).collect();
    let h: BTreeMap<&str, &SymbolRow> = head.iter().map(|s| (s.stable_id.as_str(), s)).collect();
    let mut out = SymbolDiff::default();

    compare_kept(&b, &h, &mut out);
    let no_aliases: [AliasRow; 0] = [];
    let no_tombs: [TombstoneRow; 0] = [];
    let resolver = Resolver::new(
        aliases.unwrap_or(&no_aliases),
        tombstones.unwrap_or(&no_tombs),
    );
    let mut unresolved: Vec<RemovedSymbol> = Vec::new();
    let mut targets: BTreeSet<&str> = BTreeSet::new();
    for (id, bs) in &b {
        if h.contains_key(id) {
            continue;
        }
        let removed = |resolution: &str, commit: Option<String>| RemovedSymbol {
            symbol: Sym::of(bs),
            resolution: resolution.into(),
            deleted_in_commit: commit,
        };
        match resolver.resolve(id, |x| h.contains_key(x)) {
            Ok(Resolution::Redirected {
                id: to,
                reason,
                confidence,
                hops,
                ..
            }) => {
                let Some(hs) = h.get(to.as_str()) else {
                    unresolved.push(removed("not-found", None));
                    continue;
                };
                targets.insert(hs.stable_id.as_str());
                let change = if b.contains_key(to.as_str()) {
                    "merged"
                } else if bs.name == hs.name {
                    "moved"
                } else {
                    "renamed"
                };
                out.renamed.push(RenamedSymbol {
                    from: Sym::of(bs),
                    to: Sym::of(hs),
                    change: change.into(),
                    reason,
                    confidence,
                    hops: hops.len() as u64,
                    source: "aliases".into(),
                    signature_changed: signature_differs_beyond_name(bs, hs),
                    body_changed: bodies_differ(bs, hs),
                });
            }
            Ok(Resolution::Deleted { deletion, .. }) => {
                unresolved.push(removed("tombstone", Some(deletion.deleted_in_commit)))
            }
            Ok(Resolution::Active { .. }) => unresolved.push(removed("not-found", None)),
            Err(ResolveError::NotFound { .. }) => unresolved.push(removed("not-found", None)),
            Err(ResolveError::Cycle { .. }) => unresolved.push(removed("alias-cycle", None)),
            Err(ResolveError::ChainTooDeep { .. }) => {
                unresolved.push(removed("alias-chain-too-deep", None))
            }
        }
    }

    let mut added: Vec<&SymbolRow> = h
        .iter()
        .filter(|(id, _)| !b.contains_key(*id) && !targets.contains(*id))
        .map(|(_, s)| *s)
        .collect();

    if aliases.is_none() {
        pair_by_body(&b, &mut unresolved, &mut added, &mut out);
    }

    out.added = added.into_iter().map(Sym::of).collect();
    out.removed = unresolved;
    out.added.sort_by(|x, y| x.order_key().cmp(&y.order_key()));
    out.removed
        .sort_by(|x, y| x.symbol.order_key().cmp(&y.symbol.order_key()));
    out.renamed
        .sort_by(|x, y| x.from.order_key().cmp(&y.from.order_key()));
    out.signature_changed
        .sort_by(|x, y| x.symbol.order_key().cmp(&y.symbol.order_key()));
    out.body_changed
        .sort_by(|x, y| x.order_key().cmp(&y.order_key()));
    out.visibility_changed
        .sort_by(|x, y| x.symbol.order_key().cmp(&y.symbol.order_key()));
    out
}

/// One end of a call edge.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SymRef {
    /// Defining file, when the symbol is in the repository.
    pub path: Option<String>,
    /// Name.
    pub name: String,
    /// Stable ID (or external backend ID); absent for an unresolved by-name call.
    pub id: Option<String>,
}

/// A call edge present on one side only.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallChange {
    /// Calling definition.
    pub caller: SymRef,
    /// Called symbol.
    pub callee: SymRef,
    /// Call sites.
    pub count: i64,
}

/// Call edges that appeared or disappeared (base IDs mapped through renames first, so a rename
/// alone changes no edge). Sorted by caller, then callee.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallDiff {
    /// Only in the head: new callers.
    pub added: Vec<CallChange>,
    /// Only in the base.
    pub removed: Vec<CallChange>,
}

fn sym_ref(id: Option<&str>, name: &str, symbols: &BTreeMap<&str, &SymbolRow>) -> SymRef {
    match id.and_then(|i| symbols.get(i)) {
        Some(s) => SymRef {
            path: Some(s.path.to_string()),
            name: s.name.clone(),
            id: Some(s.stable_id.to_string()),
        },
        None => SymRef {
            path: None,
            name: name.to_string(),
            id: id.map(String::from),
        },
    }
}

/// Compares the `call_edges` tables; empty when either is missing.
pub fn calls(
    base: Option<&[CallEdgeRow]>,
    head: Option<&[CallEdgeRow]>,
    base_symbols: Option<&[SymbolRow]>,
    head_symbols: Option<&[SymbolRow]>,
    symbols: &SymbolDiff,
) -> CallDiff {
    let (Some(base), Some(head)) = (base, head) else {
        return CallDiff::default();
    };
    let renamed: BTreeMap<&str, &str> = symbols
        .renamed
        .iter()
        .map(|r| (r.from.id.as_str(), r.to.id.as_str()))
        .collect();
    let map = |id: &str| -> String { renamed.get(id).copied().unwrap_or(id).to_string() };
    let key = |caller: String, e: &CallEdgeRow, mapped: bool| -> (String, String) {
        let callee = match &e.callee_id {
            Some(c) if mapped => format!("id:{}", map(c)),
            Some(c) => format!("id:{c}"),
            None => format!("name:{}", e.callee_name),
        };
        (caller, callee)
    };
    let base_keys: BTreeSet<(String, String)> = base
        .iter()
        .map(|e| key(map(&e.caller_id), e, true))
        .collect();
    let head_keys: BTreeSet<(String, String)> = head
        .iter()
        .map(|e| key(e.caller_id.to_string(), e, false))
        .collect();
    let bsyms: BTreeMap<&str, &SymbolRow> = base_symbols
        .unwrap_or_default()
        .iter()
        .map(|s| (s.stable_id.as_str(), s))
        .collect();
    let hsyms: BTreeMap<&str, &SymbolRow> = head_symbols
        .unwrap_or_default()
        .iter()
        .map(|s| (s.stable_id.as_str(), s))
        .collect();
    let caller_name = |id: &str| {
        id.rsplit([':', '/', '.', '#'])
            .next()
            .unwrap_or(id)
            .to_string()
    };
    let mut out = CallDiff::default();
    for e in head {
        if !base_keys.contains(&key(e.caller_id.to_string(), e, false)) {
            out.added.push(CallChange {
                caller: sym_ref(Some(&e.caller_id), &caller_name(&e.caller_id), &hsyms),
                callee: sym_ref(e.callee_id.as_deref(), &e.callee_name, &hsyms),
                count: e.count,
            });
        }
    }
    for e in base {
        if !head_keys.contains(&key(map(&e.caller_id), e, true)) {
            out.removed.push(CallChange {
                caller: sym_ref(Some(&e.caller_id), &caller_name(&e.caller_id), &bsyms),
                callee: sym_ref(e.callee_id.as_deref(), &e.callee_name, &bsyms),
                count: e.count,
            });
        }
    }
    out.added.sort();
    out.removed.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use test_support::rows;

    fn file(path: &str, hash: &str) -> FileRow {
        FileRow {
            line_count: 3,
            content_hash: hash.into(),
            ..rows::file(path, "rust", 1)
        }
    }

    fn sym(id: &str, name: &str, sig: &str, body: &str) -> SymbolRow {
        SymbolRow {
            signature: Some(sig.into()),
            arity: Some(1),
            definition_version_id: format!("dv-{sig}"),
            end_line: 2,
            body_hash: Some(body.into()),
            ..rows::symbol(id, "src/a.rs", name)
        }
    }

    #[test]
    fn files_are_added_removed_modified_and_renamed() {
        let base = [
            file("a", "1"),
            file("b", "2"),
            file("c", "3"),
            file("e", "5"),
        ];
        let head = [
            file("a", "1"),
            file("b", "9"),
            file("d", "3"),
            file("f", "6"),
        ];
        let d = files(Some(&base), Some(&head));
        assert_eq!(d.unchanged, 1);
        assert_eq!(d.modified.len(), 1);
        assert_eq!(d.modified[0].path, "b");
        assert_eq!(d.renamed.len(), 1);
        assert_eq!(
            (d.renamed[0].from.as_str(), d.renamed[0].to.as_str()),
            ("c", "d")
        );
        assert_eq!(d.removed.iter().map(|f| &f.path).collect::<Vec<_>>(), ["e"]);
        assert_eq!(d.added.iter().map(|f| &f.path).collect::<Vec<_>>(), ["f"]);
        assert!(files(None, Some(&head)).added.is_empty());
    }

    #[test]
    fn a_rename_through_aliases_is_not_a_delete_plus_add() {
        let base = [
            sym("old", "old", "fn old(x)", "b1"),
            sym("gone", "gone", "fn gone(x)", "b2"),
        ];
        let head = [
            sym("new", "new", "fn new(x)", "b1"),
            sym("fresh", "fresh", "fn fresh(x)", "b3"),
        ];
        let aliases = [AliasRow {
            old_id: "old".into(),
            new_id: "new".into(),
            reason: "renamed".into(),
            confidence: 0.95,
            created_state_id: "s".into(),
            created_commit: "c".into(),
        }];
        let d = symbols(Some(&base), Some(&head), Some(&aliases), Some(&[]));
        assert_eq!(d.renamed.len(), 1);
        let r = &d.renamed[0];
        assert_eq!((r.from.id.as_str(), r.to.id.as_str()), ("old", "new"));
        assert_eq!(r.change, "renamed");
        assert!(!r.signature_changed, "only the name changed");
        assert_eq!(d.removed.len(), 1);
        assert_eq!(d.removed[0].symbol.id, "gone");
        assert_eq!(d.removed[0].resolution, "not-found");
        assert_eq!(d.added.iter().map(|s| &s.id).collect::<Vec<_>>(), ["fresh"]);
        // Without an aliases table, the unique body hash pairs them instead.
        let d = symbols(Some(&base), Some(&head), None, None);
        assert_eq!(d.renamed.len(), 1);
        assert_eq!(d.renamed[0].source, "body-match");
    }

    #[test]
    fn signature_body_and_visibility_changes() {
        let base = [sym("a", "a", "fn a(x)", "1"), sym("b", "b", "fn b(x)", "1")];
        let mut a2 = sym("a", "a", "fn a(x, y)", "2");
        a2.arity = Some(2);
        let mut b2 = sym("b", "b", "fn b(x)", "2");
        b2.visibility = "private".into();
        let d = symbols(Some(&base), Some(&[a2, b2]), Some(&[]), Some(&[]));
        assert_eq!(d.signature_changed.len(), 1);
        assert!(d.signature_changed[0].body_changed);
        assert_eq!(d.signature_changed[0].arity_before, Some(1));
        assert_eq!(d.body_changed.len(), 1);
        assert_eq!(d.visibility_changed[0].direction, "narrowed");
        assert_eq!(d.unchanged, 0);
    }
}
