//! The SCIP indexers ckb knows: which languages each covers, where `ckb index` writes its index,
//! and the exact command that installs it.
//!
//! One catalog for three readers: `ckb index` (pipeline) runs them, `ckb snapshot` reads what they
//! wrote (a SCIP backend's `tool` in the manifest is the indexer's `tool` here), and `ckb query
//! doctor` (queries) names the indexer a language lacks. The versions are the ones ckb's tests and
//! `ci/install-indexers.sh` pin; the indexers ckb cannot test (no toolchain in CI) name the
//! release their flags were written against.

/// A SCIP indexer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexerInfo {
    /// Its executable, and its name as a SCIP index's `tool_info.name` records it.
    pub tool: &'static str,
    /// The scan languages (`files.language`) it indexes.
    pub languages: &'static [&'static str],
    /// The version its flags were written against (what the install command installs).
    pub version: &'static str,
    /// The shell command that installs that version.
    pub install: &'static str,
}

/// Every indexer, in the order `ckb index` runs and reports them.
pub const INDEXERS: &[IndexerInfo] = &[
    IndexerInfo {
        tool: "rust-analyzer",
        languages: &["rust"],
        // From rustup's toolchain: the component of the toolchain in use.
        version: "1.95.0",
        install: "rustup component add rust-analyzer",
    },
    IndexerInfo {
        tool: "scip-typescript",
        languages: &["typescript", "tsx", "javascript"],
        version: "0.4.0",
        install: "npm install -g @sourcegraph/scip-typescript@0.4.0",
    },
    IndexerInfo {
        tool: "scip-python",
        languages: &["python"],
        version: "0.6.6",
        install: "npm install -g @sourcegraph/scip-python@0.6.6",
    },
    IndexerInfo {
        tool: "scip-go",
        languages: &["go"],
        version: "0.2.7",
        install: "go install github.com/scip-code/scip-go/cmd/scip-go@v0.2.7",
    },
    IndexerInfo {
        tool: "scip-java",
        languages: &["java", "kotlin", "scala"],
        version: "0.12.3",
        install: "cs bootstrap --standalone -o ~/.local/bin/scip-java \
                  com.sourcegraph:scip-java_2.13:0.12.3 -M com.sourcegraph.scip_java.ScipJava",
    },
    IndexerInfo {
        tool: "scip-clang",
        languages: &["c", "cpp"],
        version: "0.4.0",
        install: "curl -fsSL -o ~/.local/bin/scip-clang \
                  https://github.com/sourcegraph/scip-clang/releases/download/v0.4.0/scip-clang-x86_64-linux \
                  && chmod +x ~/.local/bin/scip-clang",
    },
];

/// The folder, relative to the repository, where `ckb index` writes its indexes (one of the
/// places `ckb snapshot` discovers them).
pub const INDEX_DIR: &str = ".ckb";

/// The indexer of a scan language, if ckb knows one.
pub fn for_language(language: &str) -> Option<&'static IndexerInfo> {
    INDEXERS.iter().find(|i| i.languages.contains(&language))
}

/// The indexer named `tool`, if ckb knows it.
pub fn by_tool(tool: &str) -> Option<&'static IndexerInfo> {
    INDEXERS.iter().find(|i| i.tool == tool)
}

/// The file name of an index `ckb index` writes: `<tool>.scip` for the indexer's main run,
/// `<tool>@<label>.scip` for another (a sub-project, a second pass).
pub fn index_file_name(tool: &str, label: Option<&str>) -> String {
    match label {
        None => format!("{tool}.scip"),
        Some(label) => format!("{tool}@{label}.scip"),
    }
}

/// The indexer whose index a file name (as [`index_file_name`] writes it) holds.
pub fn tool_of_index_file(name: &str) -> Option<&'static IndexerInfo> {
    let stem = name.strip_suffix(".scip")?;
    let tool = stem.split_once('@').map_or(stem, |(tool, _)| tool);
    by_tool(tool)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_has_one_indexer_and_names_round_trip() {
        let mut seen = std::collections::BTreeSet::new();
        for i in INDEXERS {
            for l in i.languages {
                assert!(seen.insert(*l), "{l} has two indexers");
                assert_eq!(for_language(l).map(|x| x.tool), Some(i.tool));
            }
            assert!(i.install.contains(i.version) || i.tool == "rust-analyzer");
            for label in [None, Some("crates-cli")] {
                let name = index_file_name(i.tool, label);
                assert_eq!(tool_of_index_file(&name), Some(i));
            }
        }
        assert_eq!(tool_of_index_file("notes.scip"), None);
        assert_eq!(tool_of_index_file("rust-analyzer.scip.commit"), None);
    }
}
