//! Stable symbol fingerprints: the one function every extractor (syntax, SCIP) uses to name a
//! definition, so the same symbol gets the same stable ID in every snapshot.
//!
//! `fingerprint = hex(BLAKE3("ckb.symbol.v1" ‖ qualified_container ‖ name ‖ kind))[..20]`, each
//! field length-prefixed (u64 little-endian byte length, then the UTF-8 bytes), so no two different
//! triples can encode to the same bytes. Deliberately absent: line numbers, signatures, arity and
//! package versions — a symbol keeps its ID when it moves within a file, when its parameters
//! change, or when its package is bumped. Definitions that share all three fields (overloads) get
//! a discriminator after `~`: `a<arity>` when arities differ, else `s<8 hex of the signature hash>`,
//! else `n<ordinal>` in source order.

use output_schema::ids;

use crate::repo_state::FieldHasher;

/// The fingerprint of (qualified container, name, kind).
pub fn fingerprint(qualified_container: &str, name: &str, kind: &str) -> String {
    let mut h = FieldHasher::new("ckb.symbol.v1");
    h.field(qualified_container.as_bytes())
        .field(name.as_bytes())
        .field(kind.as_bytes());
    h.hex(ids::FINGERPRINT_HEX_LEN)
}

/// The qualified container of a definition found by tree-sitter: the language-level module path of
/// its file, then its enclosing scopes. The identity stage owns this normalization and keeps it in
/// step with [`qualify_scip`], so that the same definition gets the same stable ID from either backend.
pub fn qualify_source(language: &str, path: &str, container: Option<&str>) -> String {
    let _ = language;
    match container {
        Some(c) if !c.is_empty() => format!("{path}::{c}"),
        _ => path.to_string(),
    }
}

/// The qualified container of a SCIP global symbol, from its parsed descriptors (all but the last),
/// normalized to the same form as [`qualify_source`]. The package *version* never takes part.
pub fn qualify_scip(package_manager: &str, package_name: &str, container_descriptors: &[&str]) -> String {
    format!("{package_manager} {package_name} {}", container_descriptors.join("::"))
}

/// The stable ID of a symbol, with an optional overload discriminator.
pub fn symbol_id(
    repo_id: &str,
    qualified_container: &str,
    name: &str,
    kind: &str,
    discriminator: Option<&str>,
) -> String {
    let fp = fingerprint(qualified_container, name, kind);
    match discriminator {
        Some(d) => ids::stable_id(repo_id, &format!("{fp}~{d}")),
        None => ids::stable_id(repo_id, &fp),
    }
}

/// `definition_version_id`: hash of the normalized signature (empty when unknown).
pub fn definition_version_id(signature: Option<&str>) -> String {
    let mut h = FieldHasher::new("ckb.defversion.v1");
    h.field(signature.unwrap_or("").as_bytes());
    h.hex(16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_is_fixed_and_length_prefixed() {
        let a = fingerprint("src/a.rs::impl Foo", "new", "method");
        assert_eq!(a.len(), ids::FINGERPRINT_HEX_LEN);
        assert_eq!(a, fingerprint("src/a.rs::impl Foo", "new", "method"));
        // Moving bytes between fields must change the hash.
        assert_ne!(fingerprint("ab", "c", "k"), fingerprint("a", "bc", "k"));
        let id = symbol_id("r", "c", "n", "function", Some("a2"));
        assert!(ids::parse_stable_id(&id).is_some(), "{id}");
    }
}
