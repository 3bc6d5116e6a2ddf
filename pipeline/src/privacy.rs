//! `--privacy anonymized`: hash symbol names and paths with a secret salt before anything is written.
//!
//! Paths are hashed one component at a time and keep their extension (`src/store.rs` →
//! `p3f1c…/p9a0e….rs`), so folder structure, languages and every join between tables survive while
//! the names do not. Names, containers and import strings are hashed whole; signatures and backend
//! symbol strings, which spell out names, are dropped. The salt comes from the `CKB_SALT` environment
//! variable and is required: a salt written in the repository would not protect anything, and a
//! random one would break determinism.

use crate::write::TableSet;
use crate::PipelineError;

/// Environment variable holding the salt.
pub const SALT_ENV: &str = "CKB_SALT";

/// Keyed hashing of names and paths.
pub struct Anonymizer {
    key: [u8; 32],
}

impl Anonymizer {
    /// An anonymizer keyed by `CKB_SALT`; an error when the variable is unset or empty.
    pub fn from_env() -> Result<Anonymizer, PipelineError> {
        match std::env::var(SALT_ENV) {
            Ok(s) if !s.is_empty() => Ok(Anonymizer::new(&s)),
            _ => Err(PipelineError::InvalidParameter {
                name: "privacy".into(),
                message: format!("anonymized snapshots need a secret salt in the {SALT_ENV} environment variable"),
            }),
        }
    }

    /// An anonymizer for a salt.
    pub fn new(salt: &str) -> Anonymizer {
        Anonymizer {
            key: blake3::derive_key("ckb.privacy.v1", salt.as_bytes()),
        }
    }

    fn token(&self, prefix: char, s: &str) -> String {
        let h = blake3::keyed_hash(&self.key, s.as_bytes()).to_hex();
        format!("{prefix}{}", &h[..12])
    }

    /// A hashed name.
    pub fn name(&self, s: &str) -> String {
        self.token('n', s)
    }

    /// A hashed path: each component hashed, the final extension kept.
    pub fn path(&self, p: &str) -> String {
        if p.is_empty() || p == "." {
            return p.to_string();
        }
        p.split('/')
            .map(|part| match part.rsplit_once('.') {
                Some((stem, ext)) if !stem.is_empty() && ext.len() <= 8 => {
                    format!("{}.{ext}", self.token('p', part))
                }
                _ => self.token('p', part),
            })
            .collect::<Vec<_>>()
            .join("/")
    }

    /// A hashed container (`a::b` → each segment hashed).
    pub fn container(&self, c: &str) -> String {
        c.split("::")
            .map(|s| self.name(s))
            .collect::<Vec<_>>()
            .join("::")
    }

    fn opt_path<S: std::ops::Deref<Target = str> + From<String>>(&self, p: &mut Option<S>) {
        if let Some(v) = p {
            *v = self.path(v).into();
        }
    }
}

/// Rewrites every table in place.
pub fn anonymize(t: &mut TableSet, a: &Anonymizer) {
    for r in t.files.iter_mut().flatten() {
        r.path = a.path(&r.path);
        a.opt_path(&mut r.module_id);
    }
    for r in t.symbols.iter_mut().flatten() {
        r.name = a.name(&r.name);
        r.container = r.container.as_deref().map(|c| a.container(c).into());
        r.signature = None;
        r.backend_id = None;
        a.opt_path(&mut r.module_id);
        r.path = a.path(&r.path).into();
    }
    for r in t.occurrences.iter_mut().flatten() {
        r.name = a.name(&r.name).into();
        r.path = a.path(&r.path).into();
        if r.symbol_id
            .as_deref()
            .is_some_and(|s| !s.starts_with(output_schema::ids::STABLE_ID_PREFIX))
        {
            r.symbol_id = r.symbol_id.as_deref().map(|s| a.name(s).into());
        }
    }
    for r in t.call_edges.iter_mut().flatten() {
        r.callee_name = a.name(&r.callee_name).into();
        if r.callee_id
            .as_deref()
            .is_some_and(|s| !s.starts_with(output_schema::ids::STABLE_ID_PREFIX))
        {
            r.callee_id = r.callee_id.as_deref().map(|s| a.name(s).into());
        }
    }
    for r in t.relationships.iter_mut().flatten() {
        if !r.to_id.starts_with(output_schema::ids::STABLE_ID_PREFIX) {
            r.to_id = a.name(&r.to_id);
        }
    }
    for r in t.imports.iter_mut().flatten() {
        r.path = a.path(&r.path);
        r.raw = a.name(&r.raw);
        r.names = r.names.iter().map(|n| a.name(n)).collect();
        r.target = r.target.as_deref().map(|x| a.name(x));
        a.opt_path(&mut r.from_module);
        a.opt_path(&mut r.to_module);
    }
    for r in t.modules.iter_mut().flatten() {
        r.module_id = a.path(&r.module_id);
        r.name = a.name(&r.name);
        r.root = a.path(&r.root);
    }
    for r in t.module_edges.iter_mut().flatten() {
        r.from_module = a.path(&r.from_module);
        r.to_module = a.path(&r.to_module);
    }
    for r in t.tombstones.iter_mut().flatten() {
        r.name = a.name(&r.name);
        r.container = r.container.as_deref().map(|c| a.container(c));
        r.last_path = a.path(&r.last_path);
    }
    for r in t.file_changes.iter_mut().flatten() {
        r.path = a.path(&r.path);
        a.opt_path(&mut r.old_path);
    }
    for r in t.churn.iter_mut().flatten() {
        r.path = a.path(&r.path);
    }
    for r in t.cochange.iter_mut().flatten() {
        r.path_a = a.path(&r.path_a);
        r.path_b = a.path(&r.path_b);
        // Keep the documented path_a < path_b order after hashing.
        if r.path_a > r.path_b {
            std::mem::swap(&mut r.path_a, &mut r.path_b);
            std::mem::swap(&mut r.commits_a, &mut r.commits_b);
        }
    }
    for r in t.ownership.iter_mut().flatten() {
        r.path = a.path(&r.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use output_schema::tables::ImportRow;

    #[test]
    fn paths_keep_structure_and_extension() {
        let a = Anonymizer::new("s");
        let p = a.path("src/store.rs");
        let parts: Vec<&str> = p.split('/').collect();
        assert_eq!(parts.len(), 2);
        assert!(parts[1].ends_with(".rs") && !p.contains("store"));
        assert_eq!(a.path("src/lib.rs").split('/').next(), Some(parts[0]));
        assert_ne!(Anonymizer::new("t").path("src/store.rs"), p);
        assert_eq!(a.path("."), ".");
    }

    #[test]
    fn names_never_survive() {
        let a = Anonymizer::new("s");
        let mut t = TableSet {
            imports: Some(vec![ImportRow {
                path: "a/b.py".into(),
                line: 1,
                raw: "secret_pkg".into(),
                names: vec!["hidden".into()],
                language: "python".into(),
                target: None,
                kind: "unknown".into(),
                method: None,
                confidence: 0.0,
                from_module: None,
                to_module: None,
            }]),
            ..TableSet::default()
        };
        anonymize(&mut t, &a);
        let text = format!("{:?}", t.imports);
        assert!(!text.contains("secret_pkg") && !text.contains("hidden") && !text.contains("b.py"));
    }
}
