//! `.ckb/config.json`: optional per-repository settings, with every default documented here.
//!
//! Both the pipeline (what to snapshot) and the queries (answer budgets) read it, so its format
//! lives in this crate. Unknown keys and wrong types are errors that name the key: a typo must
//! never be silently ignored.

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
    /// Stages to run by default.
    pub stages: Vec<String>,
    /// Snapshot store folder, relative to the repository root.
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
    /// Commits touching more files than this are left out of co-change.
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
            stages: ["scan", "syntax", "scip", "git", "identity", "modules"]
                .map(String::from)
                .to_vec(),
            store: crate::layout::DEFAULT_STORE_DIR.to_string(),
            history: HistoryConfig::default(),
            modules: ModulesConfig::default(),
            budgets: Budgets::default(),
            privacy: "standard".to_string(),
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
    pub fn load(root: &Path) -> Result<Config, ConfigError> {
        let path = root.join(CONFIG_FILE);
        match std::fs::read(&path) {
            Ok(bytes) => Config::parse(&bytes, &path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(e) => Err(ConfigError {
                path,
                message: format!("cannot read: {e}"),
            }),
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
                    "key stages: unknown stage {s:?} (expected scan, syntax, scip, git, identity, modules)"
                )));
            }
        }
        if !matches!(config.privacy.as_str(), "standard" | "anonymized") {
            return Err(err(format!(
                "key privacy: {:?} is not one of standard, anonymized",
                config.privacy
            )));
        }
        if config.max_file_bytes == 0 {
            return Err(err("key maxFileBytes: must be greater than 0".into()));
        }
        Ok(config)
    }

    /// The config with every default spelled out, as `ckb init` writes it.
    pub fn default_file_text() -> String {
        crate::json::to_string_pretty(&Config::default()).unwrap_or_default() + "\n"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
