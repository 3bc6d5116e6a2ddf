//! Stable symbol fingerprints: the one place that names a definition, used by every extractor
//! (syntax, SCIP), so the same symbol gets the same stable ID in every snapshot and from either
//! backend.
//!
//! # The fingerprint
//! `fingerprint = hex(BLAKE3("ckb.symbol.v1" ‖ qualified_container ‖ name ‖ kind_family))[..20]`,
//! each field length-prefixed (u64 little-endian byte length, then the UTF-8 bytes), so no two
//! different triples encode to the same bytes. Deliberately absent: line numbers, signatures, arity
//! and package versions — a symbol keeps its ID when it moves within its file, when its parameters
//! change, or when its package is bumped. The kind takes part through its family ([`kind_family`]:
//! `callable`, `type`, `value`, `module`, `macro`, else the kind itself), because the backends name
//! kinds differently (`function` vs `method` for an associated function, `class` vs `struct`).
//!
//! # Overloads
//! Definitions whose fingerprints collide (same qualified container, name and kind family) get a
//! discriminator after `~`, so that every ID in `symbols` is one definition's. Tree-sitter's are
//! handed out per file (`syntax::definitions::assign_ids`: `a<arity>` when the group's arities are
//! known and distinct, else `s<8 hex of the signature hash>` when its signatures differ, else
//! `n<ordinal>`), then across the files of one unit by the file (the first in path order keeps
//! its ID, the others add `f<8 hex of the path's hash>`: `syntax::shared_ids`); SCIP's across the
//! index by the method disambiguator, else an ordinal (`scip::materialize`). [`discriminators`]
//! is a per-member form of the per-file rule (an arity or signature unique in the group
//! discriminates its member alone), which the identity tests use to build tables.
//!
//! # The qualified container
//! `qualified container = <family>:<unit> ( "::" <scope> )*` where the *unit* is derived from the
//! repo-relative path of the definition's file by the language's rules below (never from a package
//! name, so both backends derive it identically and without reading manifests), and the *scopes* are
//! the enclosing scopes inside that unit: from the tree-sitter `container` string
//! ([`qualify_source`]) or from the SCIP descriptors that remain after the unit's own namespace
//! descriptors are removed ([`qualify_scip`]).
//!
//! | language (files.language) | family | unit | SCIP namespace descriptors removed |
//! |---|---|---|---|
//! | rust | `rust` | crate key + module path (below) | as many leading namespaces as the path has module segments |
//! | typescript, tsx, javascript | `js` | path without its last extension (`src/a/b`) | leading namespaces up to and including the file (`` src/`b.ts`/ ``) |
//! | python | `py` | dotted module of the path (`pkg/mod.py` → `pkg.mod`, `pkg/__init__.py` → `pkg`) | all leading namespaces (`` `pkg.mod`/ ``) |
//! | go | `go` | the package directory (`.` at the root) | all leading namespaces (the import path) |
//! | java, kotlin, scala | `jvm` | the package directory | all leading namespaces (the package) |
//! | anything else | the language | the path | none |
//!
//! **Rust** (no manifest is read: the layout conventions of cargo decide). With `D` the folder
//! before the last `src` segment (`.` when none): `D/src/lib.rs` → crate key `D`, no module segment;
//! `D/src/x.rs` and `D/src/x/mod.rs` → crate `D`, module `x` (nested folders add segments). Other crate
//! roots key their crate by their own path: `D/src/main.rs`, `D/src/bin/n.rs`, `D/src/bin/n/main.rs`
//! (modules under `D/src/bin/n/` belong to `D/src/bin/n/main.rs`). Without `src`: `tests/`,
//! `examples/`, `benches/` files `t.rs` (or `t/main.rs`) and `build.rs` are crate roots keyed by their
//! path; other files of those folders are modules of crate `<folder>`; anything else is a module of
//! crate `<dir>` named after its file stem. rust-analyzer writes module paths as namespace
//! descriptors (`` net/tcp/Stream# ``), which are removed by count, so a `#[path]` module still
//! agrees; inline `mod` blocks stay as scopes.
//!
//! **Scopes.** Tree-sitter containers are split on `::` outside brackets; each segment loses a
//! leading declaration keyword (`mod`, `class`, `trait`, `struct`, `enum`, `interface`, `namespace`,
//! `object`, …). A Rust `impl` segment becomes `impl T` or `impl Tr for T` with both types reduced to
//! their last path segment without generics, references, lifetimes or `dyn` (`impl<T> fmt::Display
//! for &'a Foo<T>` → `impl Display for Foo`); an item nested in a method body (segments after the
//! impl's) keeps only the scopes before the impl, as rust-analyzer names it after its module. Items
//! nested in a free function's body cannot be told from items of an inline module and disagree. A Go receiver (`(s *Server[T])`) becomes `Server`. On the SCIP side,
//! rust-analyzer's `impl#[Self][Trait]` descriptors become the same `impl Trait for Self`, method
//! descriptors contribute their name (disambiguator dropped), type parameters and parameters none.
//! SCIP names are unescaped by the parser; `<constructor>` becomes `constructor` ([`scip_name`]).

use output_schema::{ids, SharedStr};
use scip::symbol::DescriptorRef;
use scip::types::descriptor::Suffix;

use crate::hashing::{field_hash_digits, field_hash_hex};

/// The family a kind takes part in the fingerprint as (see the module doc).
pub fn kind_family(kind: &str) -> &str {
    match kind {
        "function" | "method" | "constructor" | "static_method" | "trait_method"
        | "abstract_method" | "getter" | "setter" | "accessor" | "delegate" => "callable",
        "class" | "struct" | "enum" | "interface" | "trait" | "type_alias" | "union" | "type"
        | "protocol" | "record" | "object" | "associated_type" | "typedef" | "annotation" => "type",
        "constant" | "variable" | "field" | "property" | "static" | "static_variable"
        | "enum_member" | "variant" | "enum_variant" | "const" => "value",
        "module" | "namespace" | "package" | "mod" => "module",
        "macro" => "macro",
        other => other,
    }
}

/// The fingerprint of (qualified container, name, kind family).
pub fn fingerprint(qualified_container: &str, name: &str, kind: &str) -> String {
    let digits = fingerprint_digits(qualified_container, name, kind);
    String::from_utf8_lossy(&digits[..ids::FINGERPRINT_HEX_LEN]).into_owned()
}

/// The hex digits [`fingerprint`] keeps the first [`ids::FINGERPRINT_HEX_LEN`] of, on the stack.
fn fingerprint_digits(qualified_container: &str, name: &str, kind: &str) -> [u8; 64] {
    let fields = [
        qualified_container.as_bytes(),
        name.as_bytes(),
        kind_family(kind).as_bytes(),
    ];
    field_hash_digits("ckb.symbol.v1", &fields)
}

/// The stable ID of a symbol, with an optional overload discriminator (see [`discriminators`]).
pub fn symbol_id(
    repo_id: &str,
    qualified_container: &str,
    name: &str,
    kind: &str,
    discriminator: Option<&str>,
) -> SharedStr {
    // The digits of `fingerprint`, never put in a string of their own.
    let digits = fingerprint_digits(qualified_container, name, kind);
    let fp = std::str::from_utf8(&digits[..ids::FINGERPRINT_HEX_LEN]).unwrap_or_default();
    ids::shared_stable_id(repo_id, fp, discriminator)
}

/// `definition_version_id`: hash of the signature with runs of whitespace collapsed (empty when
/// unknown). Changes when the signature changes; the stable ID does not.
pub fn definition_version_id(signature: Option<&str>) -> String {
    let signature = signature.unwrap_or("");
    // Signatures are normalized when extracted, so they are nearly always hashed as they are.
    if is_collapsed(signature) {
        return field_hash_hex("ckb.defversion.v1", &[signature.as_bytes()], 16);
    }
    let mut normalized = String::with_capacity(signature.len());
    for word in signature.split_whitespace() {
        if !normalized.is_empty() {
            normalized.push(' ');
        }
        normalized.push_str(word);
    }
    field_hash_hex("ckb.defversion.v1", &[normalized.as_bytes()], 16)
}

/// Whether collapsing `s`'s whitespace (`split_whitespace` joined by single spaces) leaves it
/// unchanged. Decided for ASCII text only; other text is collapsed to be sure.
fn is_collapsed(s: &str) -> bool {
    let b = s.as_bytes();
    s.is_ascii()
        && b.first() != Some(&b' ')
        && b.last() != Some(&b' ')
        && !b
            .iter()
            .any(|&c| matches!(c, b'\t' | b'\n' | 0x0b | 0x0c | b'\r'))
        && !b.windows(2).any(|w| w == b"  ")
}

/// Discriminators for one group of colliding definitions, given in source order as
/// `(arity, signature)`. A group of one needs none. See the module doc for the rule.
pub fn discriminators(members: &[(Option<i32>, Option<&str>)]) -> Vec<Option<String>> {
    if members.len() < 2 {
        return vec![None; members.len()];
    }
    let mut out: Vec<Option<String>> = vec![None; members.len()];
    for (i, (arity, _)) in members.iter().enumerate() {
        if let Some(a) = arity {
            if members.iter().filter(|(b, _)| b == &Some(*a)).count() == 1 {
                out[i] = Some(format!("a{a}"));
            }
        }
    }
    let sig_of = |s: &str| definition_version_id(Some(s))[..8].to_string();
    let rest: Vec<usize> = (0..members.len()).filter(|&i| out[i].is_none()).collect();
    for &i in &rest {
        if let Some(sig) = members[i].1 {
            let h = sig_of(sig);
            let same = rest
                .iter()
                .filter(|&&j| members[j].1.map(sig_of).as_deref() == Some(h.as_str()))
                .count();
            if same == 1 {
                out[i] = Some(format!("s{h}"));
            }
        }
    }
    let mut ordinal = 0;
    for slot in out.iter_mut() {
        if slot.is_none() {
            ordinal += 1;
            *slot = Some(format!("n{ordinal}"));
        }
    }
    out
}

/// Language family of a `files.language` value (the prefix of qualified containers).
fn family(language: &str) -> &str {
    match language {
        "typescript" | "tsx" | "javascript" | "jsx" => "js",
        "python" => "py",
        "java" | "kotlin" | "scala" => "jvm",
        other => other,
    }
}

fn parent_dir(path: &str) -> &str {
    match path.rsplit_once('/') {
        Some((dir, _)) if !dir.is_empty() => dir,
        _ => ".",
    }
}

fn join_or_dot(segments: &[&str]) -> String {
    if segments.is_empty() {
        ".".to_string()
    } else {
        segments.join("/")
    }
}

/// Module segments of a path inside a crate's module tree (`a/b.rs`, `a/b/mod.rs` → `[a, b]`).
fn rust_module_segments(rel: &[&str]) -> Vec<String> {
    let mut segs: Vec<String> = rel.iter().map(|s| s.to_string()).collect();
    if let Some(last) = segs.pop() {
        let stem = last.strip_suffix(".rs").unwrap_or(&last).to_string();
        if stem != "mod" {
            segs.push(stem);
        }
    }
    segs
}

/// The crate key and module path of a Rust file (see the module doc).
fn rust_unit(path: &str) -> (String, Vec<String>) {
    let segs: Vec<&str> = path.split('/').collect();
    if let Some(i) = segs.iter().rposition(|s| *s == "src") {
        let dir = join_or_dot(&segs[..i]);
        let rel = &segs[i + 1..];
        return match rel {
            ["lib.rs"] => (dir, Vec::new()),
            ["main.rs"] => (path.to_string(), Vec::new()),
            ["bin", _] => (path.to_string(), Vec::new()),
            ["bin", name, rest @ ..] => {
                let root = format!("{}/bin/{name}/main.rs", segs[..=i].join("/"));
                match rest {
                    ["main.rs"] => (root, Vec::new()),
                    _ => (root, rust_module_segments(rest)),
                }
            }
            _ => (dir, rust_module_segments(rel)),
        };
    }
    if let Some(i) = segs
        .iter()
        .position(|s| matches!(*s, "tests" | "examples" | "benches"))
    {
        let rel = &segs[i + 1..];
        return match rel {
            [_] => (path.to_string(), Vec::new()),
            [_, "main.rs"] => (path.to_string(), Vec::new()),
            _ => (segs[..=i].join("/"), rust_module_segments(rel)),
        };
    }
    let file = segs.last().copied().unwrap_or("");
    if file == "build.rs" || file == "lib.rs" || file == "main.rs" {
        return (path.to_string(), Vec::new());
    }
    (parent_dir(path).to_string(), rust_module_segments(&[file]))
}

/// The unit (`<family>:<key>`) and its module segments for a file.
fn unit(language: &str, path: &str) -> (String, Vec<String>) {
    let fam = family(language);
    match fam {
        "rust" => {
            let (key, mods) = rust_unit(path);
            (format!("rust:{key}"), mods)
        }
        "js" => {
            let (dir, file) = match path.rsplit_once('/') {
                Some((d, f)) => (Some(d), f),
                None => (None, path),
            };
            let stem = match file.rsplit_once('.') {
                Some((s, _)) if !s.is_empty() => s,
                _ => file,
            };
            let key = match dir {
                Some(d) => format!("{d}/{stem}"),
                None => stem.to_string(),
            };
            (format!("js:{key}"), Vec::new())
        }
        "py" => {
            let no_ext = path
                .strip_suffix(".py")
                .or_else(|| path.strip_suffix(".pyi"))
                .unwrap_or(path);
            let mut parts: Vec<&str> = no_ext.split('/').collect();
            if parts.len() > 1 && parts.last() == Some(&"__init__") {
                parts.pop();
            }
            (format!("py:{}", parts.join(".")), Vec::new())
        }
        "go" | "jvm" => (format!("{fam}:{}", parent_dir(path)), Vec::new()),
        _ => (format!("{fam}:{path}"), Vec::new()),
    }
}

/// A qualified container being assembled: the unit, then each non-empty scope after `::`.
struct Qualified(String);

impl Qualified {
    fn new(unit: &str) -> Qualified {
        let mut out = String::with_capacity(unit.len() + 64);
        out.push_str(unit);
        Qualified(out)
    }

    fn push(&mut self, scope: &str) {
        if !scope.is_empty() {
            self.0.push_str("::");
            self.0.push_str(scope);
        }
    }
}

/// Splits on `sep` (ASCII) outside `<>`, `()`, `[]`, `{}` and backticks.
fn split_top_level<'a>(s: &'a str, sep: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let (mut depth, mut tick, mut start, mut i) = (0i32, false, 0usize, 0usize);
    let bytes = s.as_bytes();
    while i < bytes.len() {
        match bytes[i] {
            b'`' => tick = !tick,
            b'<' | b'(' | b'[' | b'{' if !tick => depth += 1,
            b'>' | b')' | b']' | b'}' if !tick => depth -= 1,
            // Compared as bytes: `i` may be inside a character (`class Über`), and an ASCII
            // separator found there starts at a character boundary.
            _ if !tick && depth <= 0 && bytes[i..].starts_with(sep.as_bytes()) => {
                out.push(&s[start..i]);
                i += sep.len();
                start = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(&s[start..]);
    out
}

/// Removes balanced `<...>` and `[...]` groups (generic arguments).
fn strip_generics(s: &str) -> String {
    let mut out = String::new();
    let mut depth = 0i32;
    for c in s.chars() {
        match c {
            '<' | '[' => depth += 1,
            '>' | ']' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// A type's last path segment without generics, references, lifetimes, `dyn`/`impl`/`mut`.
fn simple_type(ty: &str) -> String {
    let ty = ty.trim().trim_matches('`');
    let stripped = strip_generics(ty);
    let words: Vec<&str> = stripped
        .split(|c: char| c.is_whitespace() || c == '&' || c == '*')
        .filter(|w| {
            !w.is_empty() && !w.starts_with('\'') && !matches!(*w, "dyn" | "mut" | "impl" | "const")
        })
        .collect();
    let last = words.last().copied().unwrap_or(ty);
    let last = last.rsplit("::").next().unwrap_or(last);
    let last = last.rsplit('.').next().unwrap_or(last);
    last.trim_matches(|c: char| c == '(' || c == ')' || c == ',')
        .to_string()
}

/// Canonical Rust impl scope: `impl Self` or `impl Trait for Self`.
fn impl_scope(self_ty: &str, trait_ty: Option<&str>) -> String {
    match trait_ty {
        Some(t) => format!("impl {} for {}", simple_type(t), simple_type(self_ty)),
        None => format!("impl {}", simple_type(self_ty)),
    }
}

/// Parses a tree-sitter Rust impl header (`impl<T> Tr<T> for Foo<T> where …`).
fn normalize_impl_header(seg: &str) -> String {
    let mut rest = seg.trim();
    rest = rest.strip_prefix("unsafe ").unwrap_or(rest).trim_start();
    rest = rest.strip_prefix("impl").unwrap_or(rest).trim_start();
    if rest.starts_with('<') {
        let mut depth = 0i32;
        let mut end = rest.len();
        for (i, c) in rest.char_indices() {
            match c {
                '<' => depth += 1,
                '>' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = rest[end..].trim_start();
    }
    let rest = split_top_level(rest, " where ")[0];
    let parts = split_top_level(rest, " for ");
    match parts.as_slice() {
        [tr, ty, ..] => impl_scope(ty, Some(tr)),
        _ => impl_scope(rest, None),
    }
}

fn is_impl_segment(seg: &str) -> bool {
    let s = seg.trim_start();
    let s = s.strip_prefix("unsafe ").unwrap_or(s);
    s == "impl" || s.starts_with("impl ") || s.starts_with("impl<")
}

const PRIMITIVES: &[&str] = &[
    "bool", "char", "str", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64",
    "i128", "isize", "f32", "f64", "String",
];

/// Whether an impl header split on `::` still continues (`impl fmt` + `Display for Foo`): it
/// ends in a lowercase, non-primitive path segment, which in Rust names a module, not a type.
fn impl_header_incomplete(header: &str) -> bool {
    let last = header
        .rsplit(|c: char| c.is_whitespace() || c == '&' || c == '<' || c == ',')
        .next()
        .unwrap_or("");
    let trimmed = header.trim_end();
    trimmed == "impl"
        || trimmed.ends_with(" for")
        || (last.chars().next().is_some_and(|c| c.is_ascii_lowercase())
            && !PRIMITIVES.contains(&last))
}

const SCOPE_KEYWORDS: &[&str] = &[
    "pub ",
    "export ",
    "default ",
    "abstract ",
    "async ",
    "mod ",
    "module ",
    "namespace ",
    "class ",
    "struct ",
    "enum ",
    "union ",
    "trait ",
    "interface ",
    "object ",
    "type ",
    "protocol ",
    "record ",
    "fn ",
    "def ",
    "function ",
    "func ",
];

fn strip_scope_keywords(seg: &str) -> &str {
    let mut s = seg.trim();
    loop {
        match SCOPE_KEYWORDS.iter().find(|k| s.starts_with(*k)) {
            Some(k) => s = s[k.len()..].trim_start(),
            None => return s,
        }
    }
}

/// Normalizes a tree-sitter container into scopes for a language family.
fn source_scopes(fam: &str, container: &str) -> Vec<String> {
    let raw = split_top_level(container, "::");
    let mut scopes = Vec::new();
    let mut i = 0;
    while i < raw.len() {
        let seg = raw[i].trim();
        if fam == "rust" && is_impl_segment(seg) {
            let mut header = seg.to_string();
            while impl_header_incomplete(&header) && i + 1 < raw.len() {
                i += 1;
                header.push_str("::");
                header.push_str(raw[i].trim());
            }
            // rust-analyzer names items nested in a method body after their module only, so
            // such items (segments after the impl's) drop the impl as well.
            if i + 1 == raw.len() {
                scopes.push(normalize_impl_header(&header));
            }
            break;
        }
        let seg = strip_scope_keywords(seg);
        let seg = if fam == "go" {
            simple_type(seg.trim_start_matches('(').trim_end_matches(')'))
        } else {
            seg.to_string()
        };
        if !seg.is_empty() {
            scopes.push(seg);
        }
        i += 1;
    }
    scopes
}

/// The qualified container of a definition found by tree-sitter, from the `files.language` of its
/// file, its repo-relative path and its `container` (enclosing scopes joined with `::`).
pub fn qualify_source(language: &str, path: &str, container: Option<&str>) -> String {
    let fam = family(language);
    let (unit, modules) = unit(language, path);
    let scopes = match container {
        Some(c) if !c.trim().is_empty() => source_scopes(fam, c),
        _ => Vec::new(),
    };
    let mut out = Qualified::new(&unit);
    for scope in modules.iter().chain(&scopes) {
        out.push(scope);
    }
    out.0
}

fn is_namespace(d: &DescriptorRef<'_>) -> bool {
    matches!(d.suffix, Suffix::Namespace | Suffix::Package)
}

const SOURCE_EXTENSIONS: &[&str] = &[
    ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".vue", ".svelte",
];

/// How many leading descriptors name the unit itself (see the module doc's table).
fn unit_descriptor_count(
    fam: &str,
    module_segments: usize,
    descriptors: &[DescriptorRef<'_>],
) -> usize {
    let leading = descriptors.iter().take_while(|d| is_namespace(d)).count();
    match fam {
        "rust" => {
            let crate_ns = usize::from(
                descriptors
                    .first()
                    .is_some_and(|d| is_namespace(d) && d.name == "crate"),
            );
            (crate_ns + module_segments).min(leading)
        }
        "js" => descriptors[..leading]
            .iter()
            .rposition(|d| SOURCE_EXTENSIONS.iter().any(|e| d.name.ends_with(e)))
            .map(|p| p + 1)
            .unwrap_or(leading),
        "py" | "go" | "jvm" => leading,
        _ => 0,
    }
}

/// The name of a SCIP descriptor as the fingerprint uses it (`<constructor>` → `constructor`).
pub fn scip_name(descriptor: &DescriptorRef<'_>) -> String {
    scip_name_str(descriptor).to_string()
}

fn scip_name_str<'a>(descriptor: &'a DescriptorRef<'_>) -> &'a str {
    match descriptor.name.trim_matches('`') {
        "<constructor>" => "constructor",
        name => name,
    }
}

/// The qualified container of a SCIP global symbol defined in the file at `path` (repo-relative,
/// `files.language` `language`), from its parsed descriptors without the last one (the symbol's
/// own). Normalized to the same form as [`qualify_source`]; the package (manager, name and version)
/// never takes part. [`ScipUnit`] does the same for many symbols of one file.
pub fn qualify_scip(
    language: &str,
    path: &str,
    container_descriptors: &[DescriptorRef<'_>],
) -> String {
    ScipUnit::new(language, path).qualify(container_descriptors)
}

/// What [`qualify_scip`] derives from the file alone (its unit and module segments), computed once
/// per file: an index defines thousands of symbols per file, and the unit takes more work than
/// the rest of the qualification.
#[derive(Clone, Debug)]
pub struct ScipUnit {
    family: String,
    unit: String,
    modules: Vec<String>,
}

impl ScipUnit {
    /// The unit of the file at `path` (repo-relative) whose `files.language` is `language`.
    pub fn new(language: &str, path: &str) -> ScipUnit {
        let (unit, modules) = unit(language, path);
        ScipUnit {
            family: family(language).to_string(),
            unit,
            modules,
        }
    }

    /// [`qualify_scip`] for a symbol defined in this file.
    pub fn qualify(&self, container_descriptors: &[DescriptorRef<'_>]) -> String {
        let fam = self.family.as_str();
        let skip = unit_descriptor_count(fam, self.modules.len(), container_descriptors);
        let rest = &container_descriptors[skip..];
        // This runs once per defined symbol: the unit and module segments are borrowed, not
        // cloned, and no scope gets a String of its own.
        let mut out = Qualified::new(&self.unit);
        for module in &self.modules {
            out.push(module);
        }
        let mut i = 0;
        while i < rest.len() {
            let d = &rest[i];
            let is_impl = fam == "rust" && d.name == "impl" && d.suffix == Suffix::Type;
            if is_impl {
                let params: Vec<&DescriptorRef<'_>> = rest[i + 1..]
                    .iter()
                    .take_while(|p| p.suffix == Suffix::TypeParameter)
                    .collect();
                if let Some(self_ty) = params.first() {
                    out.push(&impl_scope(
                        &self_ty.name,
                        params.get(1).map(|t| t.name.as_ref()),
                    ));
                    i += 1 + params.len();
                    continue;
                }
            }
            match d.suffix {
                Suffix::TypeParameter | Suffix::Parameter | Suffix::Local | Suffix::Meta => {}
                _ => out.push(scip_name_str(d)),
            }
            i += 1;
        }
        out.0
    }
}

#[cfg(test)]
#[path = "fingerprint_tests.rs"]
mod tests;
