//! `--privacy anonymized`: hash every name, path and guessable hash with a secret salt before
//! anything is written.
//!
//! Paths are hashed one component at a time and keep their extension (`src/store.rs` →
//! `p3f1c…/p9a0e….rs`), so folder structure, languages and every join between tables survive while
//! the names do not. Names, containers and import strings are hashed whole; signatures and backend
//! symbol strings, which spell out names, are dropped or hashed. Hashes that anyone could recompute
//! from a guess (stable IDs, `definition_version_id`, `body_hash`, `content_hash`) are replaced by
//! keyed hashes of themselves: equal values stay equal (joins, `ckb diff`), a guessed name or a known
//! file no longer confirms itself. So are the repository state's hashes. The same rewriting covers the views and the manifest (warning
//! paths hashed, their messages withheld; backend inputs, ignore patterns and the branch name
//! hashed), so no artifact of an anonymized snapshot holds a real name. The salt comes from the
//! `CKB_SALT` environment variable and is required: a salt written in the repository would not
//! protect anything, and a random one would break determinism.

use std::collections::BTreeMap;

use output_schema::ids;
use output_schema::manifest::{Backend, RepoState, StageReport};
use output_schema::views::Views;

use crate::write::TableSet;
use crate::PipelineError;

/// Environment variable holding the salt.
pub const SALT_ENV: &str = "CKB_SALT";

/// The message every warning of an anonymized snapshot carries instead of its own: messages quote
/// names, paths and symbol strings. The code, the hashed path and the counts stay.
pub const WITHHELD_MESSAGE: &str = "message withheld in an anonymized snapshot";

/// Prefix of module IDs that name a package outside the repository (`external:<package>`).
const EXTERNAL_MODULE_PREFIX: &str = "external:";

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

    /// `len` hex digits of the keyed hash of `s` in `domain` (domains keep a hash of one kind of
    /// value from ever equalling a hash of another).
    fn keyed_hex(&self, domain: &str, s: &str, len: usize) -> String {
        let mut h = blake3::Hasher::new_keyed(&self.key);
        h.update(domain.as_bytes())
            .update(&[0])
            .update(s.as_bytes());
        let hex = h.finalize().to_hex();
        hex[..len.min(hex.len())].to_string()
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

    /// A hashed module ID: a folder path, or `external:` and a hashed package name.
    pub fn module_id(&self, m: &str) -> String {
        match m.strip_prefix(EXTERNAL_MODULE_PREFIX) {
            Some(package) => format!("{EXTERNAL_MODULE_PREFIX}{}", self.name(package)),
            None => self.path(m),
        }
    }

    /// A stable ID with its fingerprint replaced by a keyed hash of it (same shape, same
    /// repository); anything else that stands where a symbol ID may (a SCIP symbol string) is
    /// hashed as a name.
    pub fn symbol_ref(&self, id: &str) -> String {
        match ids::parse_stable_id(id) {
            Some(parsed) => ids::stable_id(
                parsed.repo_id,
                &self.keyed_hex("stable-id", parsed.fingerprint, ids::FINGERPRINT_HEX_LEN),
            ),
            None => self.name(id),
        }
    }

    /// A content, body or signature hash replaced by a keyed hash of it, as long as it was.
    pub fn digest(&self, domain: &str, h: &str) -> String {
        if h.is_empty() {
            return String::new();
        }
        self.keyed_hex(domain, h, h.len())
    }

    /// The repository state with its hashes (staged, worktree, untracked, state ID) keyed: they
    /// hash paths and contents, so a guessed untracked file would confirm itself. Applied as soon
    /// as the state is read, so the snapshot's folder name and every lookup of a stored anonymized
    /// snapshot use the keyed state ID.
    pub fn key_repo_state(&self, state: &mut RepoState) {
        for h in [
            &mut state.staged_hash,
            &mut state.worktree_hash,
            &mut state.untracked_hash,
        ]
        .into_iter()
        .flatten()
        {
            *h = self.digest("repo-state-part", h);
        }
        state.repo_state_id = self.digest("repo-state", &state.repo_state_id);
    }

    fn opt_path<S: std::ops::Deref<Target = str> + From<String>>(&self, p: &mut Option<S>) {
        if let Some(v) = p {
            *v = self.path(v).into();
        }
    }

    fn opt_module<S: std::ops::Deref<Target = str> + From<String>>(&self, m: &mut Option<S>) {
        if let Some(v) = m {
            *v = self.module_id(v).into();
        }
    }

    fn opt_symbol_ref<S: std::ops::Deref<Target = str> + From<String>>(&self, id: &mut Option<S>) {
        if let Some(v) = id {
            *v = self.symbol_ref(v).into();
        }
    }
}

/// The anonymization step: every table with its names and paths hashed.
pub fn anonymize(mut tables: TableSet, a: &Anonymizer) -> TableSet {
    let t = &mut tables;
    for r in t.files.iter_mut().flatten() {
        r.path = a.path(&r.path);
        r.content_hash = a.digest("content", &r.content_hash);
        a.opt_module(&mut r.module_id);
    }
    for r in t.symbols.iter_mut().flatten() {
        r.stable_id = a.symbol_ref(&r.stable_id).into();
        r.name = a.name(&r.name);
        r.container = r.container.as_deref().map(|c| a.container(c).into());
        r.signature = None;
        r.definition_version_id = a.digest("definition-version", &r.definition_version_id);
        r.backend_id = None;
        r.body_hash = r.body_hash.as_deref().map(|h| a.digest("body", h));
        a.opt_module(&mut r.module_id);
        r.path = a.path(&r.path).into();
    }
    for r in t.occurrences.iter_mut().flatten() {
        a.opt_symbol_ref(&mut r.symbol_id);
        a.opt_symbol_ref(&mut r.enclosing_symbol_id);
        r.name = a.name(&r.name).into();
        r.path = a.path(&r.path).into();
    }
    for r in t.call_edges.iter_mut().flatten() {
        r.caller_id = a.symbol_ref(&r.caller_id).into();
        a.opt_symbol_ref(&mut r.callee_id);
        r.callee_name = a.name(&r.callee_name).into();
    }
    for r in t.relationships.iter_mut().flatten() {
        r.from_id = a.symbol_ref(&r.from_id);
        r.to_id = a.symbol_ref(&r.to_id);
    }
    for r in t.imports.iter_mut().flatten() {
        r.path = a.path(&r.path);
        r.raw = a.name(&r.raw);
        r.names = r.names.iter().map(|n| a.name(n)).collect();
        // Local targets are repository paths (they join `files` and `modules`); the others are
        // package names, hashed as `module_edges` hashes `external:<package>`.
        r.target = r.target.as_deref().map(|x| match r.kind.as_str() {
            "local-file" | "local-module" => a.path(x),
            _ => a.name(x),
        });
        a.opt_module(&mut r.from_module);
        a.opt_module(&mut r.to_module);
    }
    for r in t.modules.iter_mut().flatten() {
        r.module_id = a.module_id(&r.module_id);
        r.name = a.name(&r.name);
        r.root = a.path(&r.root);
    }
    for r in t.module_edges.iter_mut().flatten() {
        r.from_module = a.module_id(&r.from_module);
        r.to_module = a.module_id(&r.to_module);
    }
    for r in t.aliases.iter_mut().flatten() {
        r.old_id = a.symbol_ref(&r.old_id);
        r.new_id = a.symbol_ref(&r.new_id);
    }
    for r in t.tombstones.iter_mut().flatten() {
        r.stable_id = a.symbol_ref(&r.stable_id);
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
    for r in t.usage.iter_mut().flatten() {
        r.stable_id = a.symbol_ref(&r.stable_id).into();
    }
    tables
}

/// Rewrites the views the stages made: the `architecture` view's module IDs, names, roots and
/// entry-point paths, and the `syntax-files` view's paths. Views are typed
/// ([`output_schema::views`]): a new view cannot be written without a line here.
pub fn anonymize_views(views: &mut Views, a: &Anonymizer) {
    let Views {
        architecture,
        syntax_files,
    } = views;
    if let Some(view) = architecture {
        for m in &mut view.modules {
            m.id = a.module_id(&m.id);
            m.name = a.name(&m.name);
            m.root = a.path(&m.root);
        }
        for e in view.edges.iter_mut().chain(&mut view.external_edges) {
            e.from = a.module_id(&e.from);
            e.to = a.module_id(&e.to);
        }
        for e in &mut view.entrypoints {
            e.module = a.module_id(&e.module);
            e.path = a.path(&e.path);
        }
    }
    if let Some(view) = syntax_files {
        view.files = std::mem::take(&mut view.files)
            .into_iter()
            .map(|(path, status)| (a.path(&path), status))
            .collect();
    }
}

/// Rewrites what the manifest would say about the repository: warning paths are hashed and their
/// messages withheld (codes and counts stay; stage reasons are fixed texts and stay too), backend
/// inputs and project roots hashed, ignore patterns hashed, and the branch name hashed.
pub fn anonymize_manifest_parts(
    reports: &mut BTreeMap<String, StageReport>,
    backends: &mut [Backend],
    settings: &mut BTreeMap<String, serde_json::Value>,
    repo_state: &mut RepoState,
    a: &Anonymizer,
) {
    for report in reports.values_mut() {
        for w in &mut report.warnings {
            w.path = w.path.as_deref().map(|p| a.path(p));
            w.message = WITHHELD_MESSAGE.into();
        }
    }
    for b in backends.iter_mut() {
        b.input = b.input.as_deref().map(|p| a.path(p));
        if let Some(root) = b.facts.get_mut("projectRoot") {
            *root = a.path(root);
        }
    }
    if let Some(serde_json::Value::Array(patterns)) = settings.get_mut("ignore") {
        for p in patterns.iter_mut() {
            if let Some(s) = p.as_str() {
                *p = a.name(s).into();
            }
        }
    }
    repo_state.head_ref =
        repo_state
            .head_ref
            .as_deref()
            .map(|r| match r.strip_prefix("refs/heads/") {
                Some(branch) => format!("refs/heads/{}", a.name(branch)),
                None => a.name(r),
            });
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
        let t = TableSet {
            imports: Some(vec![ImportRow::unclassified(
                "a/b.py".into(),
                1,
                "secret_pkg".into(),
                vec!["hidden".into()],
                "python".into(),
            )]),
            ..TableSet::default()
        };
        let t = anonymize(t, &a);
        let text = format!("{:?}", t.imports);
        assert!(!text.contains("secret_pkg") && !text.contains("hidden") && !text.contains("b.py"));
    }

    #[test]
    fn guessable_hashes_are_keyed_and_keep_their_shape() {
        let a = Anonymizer::new("s");
        let id = ids::stable_id("repo", "0123456789abcdef0123");
        let hashed = a.symbol_ref(&id);
        let parsed = ids::parse_stable_id(&hashed).expect("still a stable ID");
        assert_eq!(parsed.repo_id, "repo");
        assert_ne!(parsed.fingerprint, "0123456789abcdef0123");
        assert_eq!(parsed.fingerprint.len(), ids::FINGERPRINT_HEX_LEN);
        assert_eq!(
            a.symbol_ref(&id),
            hashed,
            "the same ID hashes the same everywhere"
        );
        assert_ne!(Anonymizer::new("t").symbol_ref(&id), hashed);
        let with_discriminator = ids::stable_id("repo", "0123456789abcdef0123~a2");
        assert_ne!(a.symbol_ref(&with_discriminator), hashed);
        assert!(a
            .symbol_ref("scip-typescript npm pkg 1.0 src/`a.ts`/f().")
            .starts_with('n'));
        let content = "0123456789abcdef0123456789abcdef";
        assert_eq!(a.digest("content", content).len(), content.len());
        assert_ne!(a.digest("content", content), content);
        assert_ne!(a.digest("body", content), a.digest("content", content));
        assert_eq!(a.digest("body", ""), "");
        assert_eq!(
            a.module_id("external:left-pad"),
            format!("external:{}", a.name("left-pad"))
        );
    }

    #[test]
    fn views_and_manifest_parts_lose_their_names() {
        use output_schema::manifest::Warning;
        let a = Anonymizer::new("s");
        let mut views: Views = Views {
            architecture: Some(
                serde_json::from_value(serde_json::json!({
                    "version": 1,
                    "modules": [{"id": "crates/secret", "name": "secret-pkg", "root": "crates/secret",
                                 "manifest": "cargo", "detection": "manifest", "files": 1, "symbols": 0,
                                 "lines": 1, "isEntrypoint": true, "importance": 1.0, "rank": 1,
                                 "fanIn": 0, "fanOut": 1, "depth": 2}],
                    "edges": [{"from": "crates/secret", "to": "crates/other", "kind": "local",
                               "imports": 1, "references": 0, "strength": 1.0}],
                    "externalEdges": [{"from": "crates/secret", "to": "external:secret-dep",
                                       "kind": "external-dependency", "imports": 1, "references": 0,
                                       "strength": 1.0}],
                    "entrypoints": [{"module": "crates/secret", "path": "crates/secret/main.rs", "kind": "main-function"}],
                    "totals": {"modules": 1, "edges": 1, "externalEdges": 1, "entrypoints": 1},
                    "truncated": {"modules": 0, "edges": 0, "externalEdges": 0, "entrypoints": 0},
                    "ranking": "r",
                }))
                .unwrap(),
            ),
            syntax_files: Some(
                serde_json::from_value(
                    serde_json::json!({"files": {"secret/a.py": {"status": "parse-errors"}}}),
                )
                .unwrap(),
            ),
        };
        anonymize_views(&mut views, &a);
        let text = views
            .encoded()
            .into_iter()
            .map(|(_, t)| t)
            .collect::<String>();
        assert!(
            !text.contains("secret") && !text.contains("other"),
            "{text}"
        );
        assert_eq!(
            views.architecture.as_ref().unwrap().modules[0].id,
            a.path("crates/secret")
        );

        let mut report = StageReport::not_run("x");
        report.set_warnings(vec![Warning {
            code: "parse-error".into(),
            path: Some("secret/a.py".into()),
            message: "secret_name at secret/a.py".into(),
        }]);
        let mut reports = BTreeMap::from([("scan".to_string(), report)]);
        let mut backends = vec![Backend {
            kind: "scip".into(),
            tool: "scip-typescript".into(),
            version: None,
            input: Some("secret/index.scip".into()),
            counts: BTreeMap::new(),
            facts: BTreeMap::from([("projectRoot".to_string(), "secret".to_string())]),
        }];
        let mut settings =
            BTreeMap::from([("ignore".to_string(), serde_json::json!(["secret/**"]))]);
        let mut state = RepoState {
            is_git: true,
            head_commit: None,
            head_ref: Some("refs/heads/secret-branch".into()),
            detached: false,
            unborn: false,
            shallow: false,
            staged_hash: None,
            worktree_hash: None,
            untracked_hash: None,
            dirty: false,
            repo_state_id: "r".into(),
            clone_state: None,
        };
        let unkeyed = state.clone();
        a.key_repo_state(&mut state);
        assert_ne!(state.repo_state_id, unkeyed.repo_state_id);
        assert_eq!(state.repo_state_id.len(), unkeyed.repo_state_id.len());
        anonymize_manifest_parts(&mut reports, &mut backends, &mut settings, &mut state, &a);
        let text = format!("{reports:?}{backends:?}{settings:?}{state:?}");
        assert!(!text.contains("secret"), "{text}");
        assert_eq!(reports["scan"].warnings[0].code, "parse-error");
        assert_eq!(reports["scan"].warnings_total, 1);
        assert!(state.head_ref.unwrap().starts_with("refs/heads/n"));
    }
}
