//! `.ckb/config.json`: optional per-repository settings, with every default documented here.
//!
//! Both the pipeline (what to snapshot) and the queries (answer budgets) read it, so its format
//! lives in this crate. Unknown keys and wrong types are errors that name the key: a typo must
//! never be silently ignored.
//!
//! The file is part of the repository, so a pull request can change it: its `store` may only
//! name a folder inside the repository, reached without a symlink ([`repository_store`]). A
//! store elsewhere is chosen by whoever runs ckb (`--out`, `--store`, `CKB_STORE`), never by the
//! repository.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Location of the config file relative to the repository root.
pub const CONFIG_FILE: &str = ".ckb/config.json";

/// The whole config file. Every field has a default, so `{}` is a valid config.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Config {
    /// Repository ID; default: the `origin` remote's name, else the folder name.
    pub repo_id: Option<String>,
    /// Extra ignore patterns (gitignore syntax), on top of .gitignore, .ignore and .ckbignore.
    pub ignore: Vec<String>,
    /// Files larger than this many bytes are skipped (counted in the manifest).
    pub max_file_bytes: u64,
    /// Changed and untracked files larger than this many bytes are identified in the repository
    /// state by their size and modification time instead of being read and hashed.
    pub max_hash_bytes: u64,
    /// Stages to run by default.
    pub stages: Vec<String>,
    /// Snapshot store folder, relative to the repository root, inside it (no `..`, no symlink).
    pub store: String,
    /// History stage settings.
    pub history: HistoryConfig,
    /// Module detection settings.
    pub modules: ModulesConfig,
    /// Query answer budgets.
    pub budgets: Budgets,
    /// Privacy mode: `standard` (names and paths kept) or `anonymized` (hashed with a salt).
    pub privacy: String,
}

/// History stage settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct HistoryConfig {
    /// Days of history before HEAD's committer time.
    pub days: u32,
    /// Most commits to walk (0 = no limit).
    pub max_commits: u32,
    /// Follow only first parents.
    pub first_parent: bool,
    /// Commits touching more files than this are left out of co-change (at most
    /// [`MAX_COCHANGE_FILES`], so a commit adds at most that many squared pairs).
    pub cochange_max_files: u32,
    /// Pairs sharing fewer commits than this are left out of co-change.
    pub cochange_min_shared: u32,
}

/// Module detection settings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct ModulesConfig {
    /// Explicit module roots (repo-relative folders); they win over manifests and conventions.
    pub roots: Vec<String>,
}

/// Budgets bounding every query answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Budgets {
    /// Modules per answer.
    pub modules: u32,
    /// Symbols per module.
    pub symbols_per_module: u32,
    /// Impact items per answer.
    pub impact_items: u32,
    /// Drilldowns per answer.
    pub drilldowns: u32,
    /// Approximate token budget per answer.
    pub tokens: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            repo_id: None,
            ignore: Vec::new(),
            max_file_bytes: 1_048_576,
            max_hash_bytes: DEFAULT_MAX_HASH_BYTES,
            stages: crate::Stage::ALL.map(|s| s.name().to_string()).to_vec(),
            store: crate::layout::DEFAULT_STORE_DIR.to_string(),
            history: HistoryConfig::default(),
            modules: ModulesConfig::default(),
            budgets: Budgets::default(),
            privacy: crate::PrivacyMode::Standard.name().to_string(),
        }
    }
}

impl Default for HistoryConfig {
    fn default() -> Self {
        HistoryConfig {
            days: 365,
            max_commits: 0,
            first_parent: false,
            cochange_max_files: 50,
            cochange_min_shared: 2,
        }
    }
}

impl Default for Budgets {
    fn default() -> Self {
        Budgets {
            modules: 10,
            symbols_per_module: 5,
            impact_items: 20,
            drilldowns: 5,
            tokens: 4000,
        }
    }
}

/// The default `maxHashBytes`: hashing a file this size takes about 10 ms, and source files are
/// far smaller; what is larger in a working tree is a build output or a data file.
pub const DEFAULT_MAX_HASH_BYTES: u64 = 16 << 20;

/// The largest `history.cochangeMaxFiles`: co-change counts every pair of files a commit
/// touches, so this bounds a commit's pairs to about half a million.
pub const MAX_COCHANGE_FILES: u32 = 1000;

/// The largest `.ckb/config.json` ckb reads (a real one is well under a kilobyte).
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// Why a config file was refused.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ConfigError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong, naming the key.
    pub message: String,
}

impl Config {
    /// Loads `<root>/.ckb/config.json`, or the defaults when it does not exist.
    ///
    /// The file is the repository's own, so it is not trusted: a symlink (a committed one could
    /// point at any file on the CI runner, whose text would then show in the parse error), anything
    /// but a regular file (a FIFO would block) and a file over [`MAX_CONFIG_BYTES`] are refused
    /// before a byte is read.
    pub fn load(root: &Path) -> Result<Config, ConfigError> {
        let path = root.join(CONFIG_FILE);
        let refuse = |message: String| ConfigError {
            path: path.clone(),
            message,
        };
        match std::fs::symlink_metadata(root.join(".ckb")) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(refuse(
                    "\".ckb\" is a symlink; ckb reads its configuration only from a regular file in the repository".into(),
                ));
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
            Err(e) => return Err(refuse(format!("cannot read: {e}"))),
        }
        match crate::small_file::read_small_file(&path, MAX_CONFIG_BYTES) {
            Ok(Some(bytes)) => Config::parse(&bytes, &path),
            Ok(None) => Ok(Config::default()),
            Err(crate::small_file::SmallFileError::TooLarge { limit }) => Err(refuse(format!(
                "holds more than {limit} bytes; a configuration file may hold at most {limit}"
            ))),
            Err(e) => Err(refuse(e.to_string())),
        }
    }

    /// Parses and validates config bytes.
    pub fn parse(bytes: &[u8], path: &Path) -> Result<Config, ConfigError> {
        let err = |message: String| ConfigError {
            path: path.to_path_buf(),
            message,
        };
        let de = &mut serde_json::Deserializer::from_slice(bytes);
        let config: Config = serde_path_to_error::deserialize(de).map_err(|e| {
            let key = e.path().to_string();
            if key == "." {
                err(e.inner().to_string())
            } else {
                err(format!("key {key}: {}", e.inner()))
            }
        })?;
        if let Some(id) = &config.repo_id {
            if !crate::ids::is_valid_repo_id(id) {
                return Err(err(format!(
                    "key repoId: {id:?} may only use letters, digits, '.', '_' and '-'"
                )));
            }
        }
        for s in &config.stages {
            if crate::Stage::from_name(s).is_none() {
                return Err(err(format!(
                    "key stages: unknown stage {s:?} (expected {})",
                    crate::Stage::names_list()
                )));
            }
        }
        if crate::PrivacyMode::from_name(&config.privacy).is_none() {
            return Err(err(format!(
                "key privacy: {:?} is not one of standard, anonymized",
                config.privacy
            )));
        }
        if config.max_file_bytes == 0 {
            return Err(err("key maxFileBytes: must be greater than 0".into()));
        }
        if config.history.cochange_max_files > MAX_COCHANGE_FILES {
            return Err(err(format!(
                "key history.cochangeMaxFiles: {} is over {MAX_COCHANGE_FILES}; co-change pairs \
                 grow with its square, and commits touching that many files are bulk changes",
                config.history.cochange_max_files
            )));
        }
        if let Err(problem) = check_store_text(&config.store) {
            return Err(err(store_message(&config.store, &problem)));
        }
        Ok(config)
    }

    /// The config with every default spelled out, as `ckb init` writes it.
    pub fn default_file_text() -> String {
        crate::json::to_string_pretty(&Config::default()).unwrap_or_default() + "\n"
    }
}

/// Why a `store` value cannot be used, judged on its text alone.
fn check_store_text(store: &str) -> Result<(), String> {
    use std::path::Component;
    let path = Path::new(store);
    if store.is_empty() {
        return Err("is empty".into());
    }
    if path.has_root() || path.is_absolute() {
        return Err("is an absolute path".into());
    }
    for part in path.components() {
        match part {
            Component::Normal(_) | Component::CurDir => {}
            Component::ParentDir => return Err("has a `..` component".into()),
            Component::RootDir | Component::Prefix(_) => return Err("is an absolute path".into()),
        }
    }
    if !path.components().any(|c| matches!(c, Component::Normal(_))) {
        return Err("names the repository root itself".into());
    }
    Ok(())
}

fn store_message(store: &str, problem: &str) -> String {
    format!(
        "key store: {store:?} {problem}; a repository's config may only name a folder inside \
         the repository (a relative path without `..` or symlinks, default {:?}). To keep \
         snapshots elsewhere, pass `--out DIR` (ckb snapshot), `--store DIR` (ckb query) or set \
         the CKB_STORE environment variable",
        crate::layout::DEFAULT_STORE_DIR
    )
}

/// The store folder `store` (a validated config value) names under the repository `root`,
/// refused when any folder on the way — each component of `store`, then each of `below` (such as
/// `repo=<id>`) — exists as a symlink: a committed symlink would send the store's writes (and
/// reads) outside the repository. Folders that do not exist yet are fine; ckb creates them.
pub fn repository_store(root: &Path, store: &str, below: &[&str]) -> Result<PathBuf, ConfigError> {
    let err = |problem: String| ConfigError {
        path: root.join(CONFIG_FILE),
        message: store_message(store, &problem),
    };
    check_store_text(store).map_err(&err)?;
    let store_parts = Path::new(store)
        .components()
        .filter(|c| matches!(c, std::path::Component::Normal(_)))
        .map(|c| c.as_os_str().to_owned());
    let below_parts = below.iter().map(std::ffi::OsString::from);
    let mut dir = root.to_path_buf();
    for part in store_parts.chain(below_parts) {
        dir.push(part);
        let shown = || dir.strip_prefix(root).unwrap_or(&dir).display().to_string();
        match std::fs::symlink_metadata(&dir) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(err(format!(
                    "reaches {:?}, which is a symlink (ckb never writes through one)",
                    shown()
                )));
            }
            Ok(_) => {}
            // Not there yet (ckb creates it): nothing below it can be a symlink either.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => break,
            Err(e) => return Err(err(format!("cannot be checked at {:?}: {e}", shown()))),
        }
    }
    Ok(root.join(store))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symlinked_or_oversized_config_is_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join(".ckb")).unwrap();
        let outside = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(outside.path(), b"{\"secretKeyOfTheRunner\": 1}").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join(CONFIG_FILE)).unwrap();
        let e = Config::load(root).unwrap_err();
        assert!(e.message.contains("symlink"), "{e}");
        assert!(!e.to_string().contains("secretKeyOfTheRunner"), "{e}");

        std::fs::remove_file(root.join(CONFIG_FILE)).unwrap();
        std::fs::write(
            root.join(CONFIG_FILE),
            vec![b' '; MAX_CONFIG_BYTES as usize + 1],
        )
        .unwrap();
        let e = Config::load(root).unwrap_err();
        assert!(e.message.contains("at most"), "{e}");

        std::fs::remove_file(root.join(CONFIG_FILE)).unwrap();
        std::fs::remove_dir(root.join(".ckb")).unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::create_dir(elsewhere.path().join(".ckb")).unwrap();
        std::fs::write(elsewhere.path().join(CONFIG_FILE), b"{}").unwrap();
        std::os::unix::fs::symlink(elsewhere.path().join(".ckb"), root.join(".ckb")).unwrap();
        let e = Config::load(root).unwrap_err();
        assert!(e.message.contains("symlink"), "{e}");

        assert_eq!(
            Config::load(tempfile::tempdir().unwrap().path()).unwrap(),
            Config::default()
        );
    }

    #[test]
    fn empty_object_is_the_default() {
        let c = Config::parse(b"{}", Path::new("c.json")).unwrap();
        assert_eq!(c, Config::default());
    }

    #[test]
    fn default_file_parses_back() {
        let text = Config::default_file_text();
        assert_eq!(
            Config::parse(text.as_bytes(), Path::new("c")).unwrap(),
            Config::default()
        );
        assert!(text.contains("\"maxFileBytes\": 1048576"));
    }

    #[test]
    fn unknown_key_and_wrong_type_name_the_key() {
        let e = Config::parse(br#"{"maxFileByte": 3}"#, Path::new("c")).unwrap_err();
        assert!(e.message.contains("maxFileByte"), "{}", e.message);
        let e = Config::parse(br#"{"history": {"days": "x"}}"#, Path::new("c")).unwrap_err();
        assert!(
            e.message.contains("key history.days: invalid type"),
            "{}",
            e.message
        );
        let e = Config::parse(br#"{"privacy": "open"}"#, Path::new("c")).unwrap_err();
        assert!(e.message.contains("privacy"), "{}", e.message);
    }

    #[test]
    fn cochange_max_files_is_bounded_at_its_limit() {
        let at = format!(r#"{{"history": {{"cochangeMaxFiles": {MAX_COCHANGE_FILES}}}}}"#);
        let c = Config::parse(at.as_bytes(), Path::new("c")).unwrap();
        assert_eq!(c.history.cochange_max_files, MAX_COCHANGE_FILES);
        let over = at.replace(
            &MAX_COCHANGE_FILES.to_string(),
            &(MAX_COCHANGE_FILES + 1).to_string(),
        );
        let e = Config::parse(over.as_bytes(), Path::new("c")).unwrap_err();
        assert!(
            e.message.contains("key history.cochangeMaxFiles") && e.message.contains("over 1000"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_store_outside_the_repository_is_refused_naming_the_key() {
        for bad in [
            "/tmp/elsewhere",
            "../sibling",
            ".ckb/../../up",
            "",
            ".",
            "./",
        ] {
            let text = format!("{{\"store\": {bad:?}}}");
            let e = Config::parse(text.as_bytes(), Path::new("c")).unwrap_err();
            assert!(
                e.message.starts_with("key store: ") && e.message.contains("CKB_STORE"),
                "{bad}: {}",
                e.message
            );
        }
        for good in [".ckb/snapshots", "./out/snaps", "store"] {
            let text = format!("{{\"store\": {good:?}}}");
            assert!(
                Config::parse(text.as_bytes(), Path::new("c")).is_ok(),
                "{good}"
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_store_reached_through_a_symlink_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        let outside = tmp.path().join("outside");
        std::fs::create_dir_all(root.join(".ckb")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        // Nothing there yet: fine, ckb creates it.
        assert_eq!(
            repository_store(&root, ".ckb/snapshots", &["repo=x"]).unwrap(),
            root.join(".ckb/snapshots")
        );
        // The final folder, a parent component, and the repository folder below the store.
        std::os::unix::fs::symlink(&outside, root.join(".ckb/snapshots")).unwrap();
        let e = repository_store(&root, ".ckb/snapshots", &[]).unwrap_err();
        assert!(
            e.message.contains("key store") && e.message.contains("symlink"),
            "{}",
            e.message
        );
        std::os::unix::fs::symlink(&outside, root.join("linked")).unwrap();
        assert!(repository_store(&root, "linked/snapshots", &[]).is_err());
        std::fs::create_dir_all(root.join("real")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("real/repo=x")).unwrap();
        assert!(repository_store(&root, "real", &[]).is_ok());
        assert!(repository_store(&root, "real", &["repo=x"]).is_err());
    }
}
