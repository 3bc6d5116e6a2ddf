//! From one index's accumulated facts to its rows: every distinct global symbol parsed once and
//! resolved to a stable ID (colliding IDs get a discriminator), invalid symbols dropped with
//! their occurrences, call edges counted, relationships and compact occurrences built.

use super::*;

/// The qualified container of a defined SCIP symbol: the identity stage's normalization
/// ([`fingerprint::qualify_scip`]), so that tree-sitter and SCIP agree, with the unit of the
/// defining file. The package version is deliberately not passed.
fn qualified_container(parsed: &ParsedSymbol<'_>, unit: &fingerprint::ScipUnit) -> String {
    unit.qualify(parsed.container_descriptors())
}

/// A discriminator from a SCIP method disambiguator (`+1` → `d1`); `None` when it has no
/// usable characters.
fn disambiguator_discriminator(disambiguator: &str) -> Option<String> {
    let kept: String = disambiguator
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '.')
        .collect();
    (!kept.is_empty()).then(|| format!("d{kept}"))
}

/// What one global symbol of an index resolves to, computed from its parse (which is then dropped).
/// Kept small (one per distinct symbol, all alive until the tables are built): what few symbols
/// need is boxed, and a package's quirk is shared by its symbols.
struct Resolved {
    name: SharedStr,
    kind: &'static str,
    /// Why the SCIP symbol parser rejects the string: rare, so boxed.
    invalid: Option<Box<str>>,
    /// The version quirk of the symbol's package, when it has one.
    package_quirk: Option<Arc<PackageQuirk>>,
    /// scip-python's repeated term (`codes.codes.`; [`ParsedSymbol::doubled_term`]).
    doubled_term: bool,
}

/// A package version quirk, with the package's key (manager, name, version) so that each package
/// counts once.
struct PackageQuirk {
    quirk: &'static str,
    key: String,
}

/// The last package [`resolve`] looked at and its quirk. Consecutive symbols mostly share their
/// package (an index lists a file's symbols together), and some indexers give every symbol a
/// quirky version (scip-python: the commit hash), so the quirk is derived once per run of a
/// package rather than once per symbol.
#[derive(Default)]
struct PackageMemo {
    package: [String; 3],
    quirk: Option<Arc<PackageQuirk>>,
}

impl PackageMemo {
    fn quirk(&mut self, parsed: &ParsedSymbol<'_>) -> Option<Arc<PackageQuirk>> {
        let package = [&parsed.manager, &parsed.package_name, &parsed.version];
        if self.package.iter().zip(package).any(|(a, b)| a != b) {
            self.quirk = symbols::version_quirk(&parsed.version).map(|quirk| {
                Arc::new(PackageQuirk {
                    quirk,
                    key: package.map(|k| k.as_ref()).join(" "),
                })
            });
            for (a, b) in self.package.iter_mut().zip(package) {
                a.clear();
                a.push_str(b);
            }
        }
        self.quirk.clone()
    }
}

impl Resolved {
    fn is_valid(&self) -> bool {
        self.invalid.is_none()
    }
}

/// Parses one symbol string (the SCIP crate's parser) and derives what the tables need from it: the
/// facts, and for a symbol this index defines its row, with the stable ID it gets unless another
/// symbol collides with it. The rows are kept apart from the facts so that they can become the
/// `symbols` table where they lie, without a second copy of every row.
fn resolve(
    memo: &mut PackageMemo,
    sym: &GlobalSym,
    external_kind: Option<&'static str>,
    docs: &[UsedDoc],
    units: &[fingerprint::ScipUnit],
    strs: &FixedStrs,
    repo_id: &str,
) -> (Resolved, Option<SymbolRow>) {
    let invalid = |why: String| {
        let resolved = Resolved {
            name: SharedStr::default(),
            kind: "unknown",
            invalid: Some(why.into_boxed_str()),
            package_quirk: None,
            doubled_term: false,
        };
        (resolved, None)
    };
    let parsed = match symbols::parse(&sym.symbol) {
        Parsed::Global(p) => p,
        Parsed::Local => return invalid("a local symbol where a global one was expected".into()),
        Parsed::Invalid(why) => return invalid(why),
    };
    let kind = sym
        .info_kind
        .or(external_kind)
        .unwrap_or_else(|| parsed.suffix_kind());
    let name = SharedStr::from(parsed.name());
    let package_quirk = memo.quirk(&parsed);
    let row = sym.best_def.map(|(doc, span)| {
        let d = &docs[doc as usize];
        let qualified_container = qualified_container(&parsed, &units[doc as usize]);
        let vis = sym
            .signature
            .as_deref()
            .and_then(|s| symbols::visibility(s, &d.language, &parsed, kind));
        SymbolRow {
            stable_id: fingerprint::symbol_id(repo_id, &qualified_container, &name, kind, None),
            name: name.as_str().to_owned(),
            kind: strs.get(kind),
            container: parsed.container().map(SharedStr::from),
            signature: sym.signature.clone(),
            arity: None,
            definition_version_id: fingerprint::definition_version_id(sym.signature.as_deref()),
            visibility: vis.map_or_else(|| strs.unknown.clone(), |v| strs.get(v.0)),
            visibility_confidence: vis.map(|v| v.1).unwrap_or(0.0),
            visibility_source: if vis.is_some() {
                strs.from_signature.clone()
            } else {
                strs.from_nothing.clone()
            },
            module_id: None,
            language: Some(d.language.clone()),
            path: d.path.clone(),
            start_line: span.line,
            start_col: span.col,
            end_line: span.end_line,
            end_col: span.end_col,
            source: strs.source.clone(),
            backend_id: Some(sym.symbol.clone()),
            body_hash: None,
        }
    });
    let resolved = Resolved {
        name,
        kind,
        invalid: None,
        package_quirk,
        doubled_term: parsed.doubled_term(),
    };
    (resolved, row)
}

/// What resolving a stable-ID collision needs of one colliding definition: derived again from its
/// symbol string (collisions are rare, so this is not kept for every symbol).
struct Colliding {
    qualified_container: String,
    disambiguator: String,
}

impl Colliding {
    fn new(sym: &GlobalSym, units: &[fingerprint::ScipUnit]) -> Option<Colliding> {
        let Parsed::Global(parsed) = symbols::parse(&sym.symbol) else {
            return None;
        };
        let (doc, _) = sym.best_def?;
        Some(Colliding {
            qualified_container: qualified_container(&parsed, &units[doc as usize]),
            disambiguator: parsed.disambiguator().to_string(),
        })
    }
}

/// Parses every distinct global symbol of one index (once each, in parallel), resolves them to
/// stable IDs and builds the tables of the index.
pub(super) fn materialize(acc: &mut Accum, repo_id: &str) -> (ScipTables, BTreeMap<String, i64>) {
    // The SCIP crate's parser runs once per distinct symbol string; each parse is independent of
    // the others and dropped as soon as its facts are taken, so the order of the work does not
    // matter and the parses are never all in memory at once.
    let units: Vec<fingerprint::ScipUnit> = acc
        .docs
        .par_iter()
        .map(|d| fingerprint::ScipUnit::new(&d.language, &d.path))
        .collect();
    let strs = FixedStrs::new();
    let (resolved, mut rows): (Vec<Resolved>, Vec<Option<SymbolRow>>) = acc
        .syms
        .par_iter()
        .map_init(PackageMemo::default, |memo, sym| {
            let external = acc.external_kinds.get(&*sym.symbol).copied();
            resolve(memo, sym, external, &acc.docs, &units, &strs, repo_id)
        })
        .collect();
    let ok: Vec<bool> = resolved.iter().map(Resolved::is_valid).collect();
    let valid = |g: usize| ok[g];
    let mut records = std::mem::take(&mut acc.records);
    drop_invalid_symbols(acc, &resolved, &ok, &mut records);
    count_symbol_quirks(acc, &resolved, &ok);
    let collisions = assign_collision_ids(acc, &units, &resolved, &mut rows, repo_id);
    drop(units);
    acc.tally.add(quirks::STABLE_ID_COLLISIONS, collisions);
    let kinds: Vec<&'static str> = resolved.iter().map(|r| r.kind).collect();
    let names: Vec<SharedStr> = resolved.into_iter().map(|r| r.name).collect();
    let stable: Vec<Option<SharedStr>> = rows
        .iter()
        .map(|r| r.as_ref().map(|r| r.stable_id.clone()))
        .collect();
    // Taken out where they lie: `filter_map` (unlike `flatten`) lets the collect reuse `rows`'
    // buffer, so the rows are not copied into a second one.
    #[allow(clippy::filter_map_identity)]
    let symbol_rows: Vec<SymbolRow> = rows.into_iter().filter_map(|row| row).collect();
    // The target of an occurrence or edge: the stable ID, or the SCIP symbol of an external symbol.
    let targets: Vec<SharedStr> = stable
        .iter()
        .zip(&acc.syms)
        .map(|(id, sym)| id.clone().unwrap_or_else(|| sym.symbol.clone()))
        .collect();
    let target = |g: u32| -> &SharedStr { &targets[g as usize] };
    let source = strs.source.clone();
    let mut tables = ScipTables {
        symbols: symbol_rows,
        ..Default::default()
    };

    // Call edges: (caller, callee) pairs counted by sorting (a map per occurrence costs more).
    let mut calls: Vec<(u32, u32)> = records
        .par_iter()
        .filter(|o| {
            let roles = Roles(o.roles);
            // Module-level references (imports among them: scip-typescript marks no Import
            // role) are not calls of a definition.
            o.enclosing != NO_TARGET
                && !roles.contains(Roles::DEFINITION)
                && !roles.contains(Roles::IMPORT)
                && kinds[o.enclosing as usize] != "module"
                && symbols::is_callable(kinds[o.target as usize])
        })
        .map(|o| (o.enclosing, o.target))
        .collect();
    // Plain integer pairs: any sort, serial or parallel, gives the one order.
    calls.par_sort_unstable();
    let mut call_edges: Vec<((u32, u32), i64)> = Vec::new();
    for pair in calls {
        match call_edges.last_mut() {
            Some((last, count)) if *last == pair => *count += 1,
            _ => call_edges.push((pair, 1)),
        }
    }
    tables.call_edges = call_edges
        .into_par_iter()
        .map(|((caller, callee), count)| CallEdgeRow {
            caller_id: target(caller).clone(),
            callee_id: Some(target(callee).clone()),
            callee_name: names[callee as usize].clone(),
            count,
            source: source.clone(),
            confidence: 1.0,
        })
        .collect();

    let mut rels: BTreeSet<(String, String, &'static str)> = BTreeSet::new();
    for &(from, to, bits) in &acc.relationships {
        if stable[from as usize].is_none() || !valid(to as usize) {
            continue;
        }
        for (bit, kind) in [
            (mapping::REL_IMPLEMENTATION, "implementation"),
            (mapping::REL_TYPE_DEFINITION, "type_definition"),
            (mapping::REL_REFERENCE, "reference"),
            (mapping::REL_DEFINITION, "definition"),
        ] {
            if bits & bit != 0 {
                rels.insert((target(from).to_string(), target(to).to_string(), kind));
            }
        }
    }
    tables.relationships = rels
        .into_iter()
        .map(|(from_id, to_id, kind)| RelationshipRow {
            from_id,
            to_id,
            kind: kind.into(),
            source: SOURCE.into(),
        })
        .collect();
    tables.covered_paths = acc.docs.iter().map(|d| d.path.to_string()).collect();
    if acc.relationship_entries == 0 {
        tables.relationless_paths = tables.covered_paths.clone();
    }
    // The occurrences: each target's ID and name once, records pointing at them.
    let targets: Vec<Target> = (0..acc.syms.len())
        .map(|g| Target {
            id: Some(target(g as u32).clone()),
            name: names[g].clone(),
        })
        .collect();
    let paths: Vec<SharedStr> = acc.docs.iter().map(|d| d.path.clone()).collect();
    records.shrink_to_fit();
    tables.occurrences = ScipOccurrences::from_parts(targets, paths, records);

    let mut counts = BTreeMap::new();
    counts.insert(
        "definedSymbols".into(),
        stable.iter().filter(|s| s.is_some()).count() as i64,
    );
    counts.insert(
        "referencedExternalSymbols".into(),
        (0..stable.len())
            .filter(|&g| stable[g].is_none() && valid(g))
            .count() as i64,
    );
    (tables, counts)
}

/// Counts and warns about the symbols that could not be parsed, drops their occurrences, and
/// makes what they enclosed top level.
fn drop_invalid_symbols(
    acc: &mut Accum,
    resolved: &[Resolved],
    ok: &[bool],
    records: &mut Vec<Record>,
) {
    let valid = |g: usize| ok[g];
    if ok.iter().any(|ok| !ok) {
        for (g, r) in resolved.iter().enumerate() {
            if let Some(why) = r.invalid.as_deref() {
                let sym = &acc.syms[g];
                acc.tally.bump(quirks::SKIP_UNPARSABLE_SYMBOL);
                acc.warnings.push(mapping::unparsable_symbol_warning(
                    &sym.symbol,
                    &acc.docs[sym.first_doc as usize].path,
                    why,
                ));
            }
        }
        let before = records.len();
        records.retain(|r| valid(r.target as usize));
        acc.tally.add(
            quirks::SKIP_UNPARSABLE_OCCURRENCES,
            (before - records.len()) as i64,
        );
        // A rejected symbol is no definition: what it enclosed counts as top level.
        for r in records.iter_mut() {
            if r.enclosing != NO_TARGET && !valid(r.enclosing as usize) {
                r.enclosing = NO_TARGET;
            }
        }
    }
}

/// Index-wide quirks of the resolved symbols: defined in several documents, package quirks,
/// repeated terms, no relationships at all.
fn count_symbol_quirks(acc: &mut Accum, resolved: &[Resolved], ok: &[bool]) {
    let valid = |g: usize| ok[g];
    acc.tally.add(
        quirks::DEFINED_IN_SEVERAL_DOCUMENTS,
        acc.syms
            .iter()
            .enumerate()
            .filter(|(g, s)| s.def_docs > 1 && valid(*g))
            .count() as i64,
    );
    let mut packages: FastMap<&str, ()> = FastMap::default();
    for package in resolved.iter().filter_map(|r| r.package_quirk.as_deref()) {
        if packages.insert(package.key.as_str(), ()).is_none() {
            acc.tally.bump(package.quirk);
        }
    }
    acc.tally.add(
        quirks::DOUBLED_TERM_SYMBOLS,
        resolved.iter().filter(|r| r.doubled_term).count() as i64,
    );
    if acc.relationship_entries == 0 && !acc.docs.is_empty() {
        acc.tally.bump(quirks::NO_RELATIONSHIPS);
    }
}

/// Gives the symbols whose stable IDs collide a discriminator (the disambiguator's, else `n<k>`)
/// and returns how many collided.
fn assign_collision_ids(
    acc: &Accum,
    units: &[fingerprint::ScipUnit],
    resolved: &[Resolved],
    rows: &mut [Option<SymbolRow>],
    repo_id: &str,
) -> i64 {
    // Stable IDs of defined symbols; colliding ones get a discriminator. Groups are listed by
    // their first member, members in symbol order.
    let defined = rows.iter().filter(|r| r.is_some()).count();
    let mut first_with_id: FastMap<&str, u32> =
        FastMap::with_capacity_and_hasher(defined, Default::default());
    let mut groups: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for (g, row) in rows.iter().enumerate() {
        if let Some(row) = row {
            let first = *first_with_id
                .entry(row.stable_id.as_str())
                .or_insert(g as u32);
            if first != g as u32 {
                groups
                    .entry(first)
                    .or_insert_with(|| vec![first])
                    .push(g as u32);
            }
        }
    }
    drop(first_with_id);
    let colliding: Vec<Vec<u32>> = groups.into_values().collect();
    let mut collisions = 0i64;
    let no_span = Span {
        line: 0,
        col: 0,
        end_line: 0,
        end_col: 0,
    };
    for members in colliding {
        collisions += members.len() as i64 - 1;
        let mut members: Vec<(u32, Option<Colliding>)> = members
            .into_iter()
            .map(|g| (g, Colliding::new(&acc.syms[g as usize], units)))
            .collect();
        let key = |(g, colliding): &(u32, Option<Colliding>)| {
            let s = &acc.syms[*g as usize];
            let (doc, span) = s.best_def.unwrap_or((0, no_span));
            let disambiguated = colliding
                .as_ref()
                .is_some_and(|c| !c.disambiguator.is_empty());
            (
                disambiguated,
                acc.docs[doc as usize].path.clone(),
                span.line,
                span.col,
                s.symbol.clone(),
            )
        };
        members.sort_by_key(key);
        let mut used: HashSet<String> = HashSet::new();
        for (k, (g, colliding)) in members.iter().enumerate().skip(1) {
            let r = &resolved[*g as usize];
            let (Some(c), Some(row)) = (colliding.as_ref(), rows[*g as usize].as_mut()) else {
                continue;
            };
            let disc = disambiguator_discriminator(&c.disambiguator)
                .filter(|d| !used.contains(d))
                .unwrap_or_else(|| format!("n{k}"));
            used.insert(disc.clone());
            row.stable_id = fingerprint::symbol_id(
                repo_id,
                &c.qualified_container,
                &r.name,
                r.kind,
                Some(&disc),
            );
        }
    }
    collisions
}
