//! The languages the syntax stage parses: grammar, query and per-language rules.
//!
//! Each language's query lives in `pipeline/grammar-queries/<language>/syntax.scm` (see the README there for
//! the capture names). Queries are compiled at most once per process, on first use, and shared by
//! every worker thread (`tree_sitter::Query` is immutable and `Sync`).

use std::sync::OnceLock;

use tree_sitter::{Language, Query};

use super::captures::{capture_table, Cap};
use crate::hashing::FieldHasher;

/// A compiled query with the meaning of each of its captures.
pub struct LangQuery {
    /// The query.
    pub query: Query,
    /// Meaning of each capture index.
    pub caps: Vec<Cap>,
}

/// A language the syntax stage supports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Lang {
    /// Rust.
    Rust,
    /// Python.
    Python,
    /// TypeScript (`.ts`).
    TypeScript,
    /// TypeScript with JSX (`.tsx`).
    Tsx,
    /// JavaScript (and JSX).
    JavaScript,
    /// Go.
    Go,
    /// Java.
    Java,
    /// C.
    C,
    /// C++.
    Cpp,
}

const RUST_QUERY: &str = include_str!("../../grammar-queries/rust/syntax.scm");
const PYTHON_QUERY: &str = include_str!("../../grammar-queries/python/syntax.scm");
const TYPESCRIPT_QUERY: &str = include_str!("../../grammar-queries/typescript/syntax.scm");
const TSX_EXTRA_QUERY: &str = include_str!("../../grammar-queries/typescript/tsx.scm");
const JAVASCRIPT_QUERY: &str = include_str!("../../grammar-queries/javascript/syntax.scm");
const GO_QUERY: &str = include_str!("../../grammar-queries/go/syntax.scm");
const JAVA_QUERY: &str = include_str!("../../grammar-queries/java/syntax.scm");
const C_QUERY: &str = include_str!("../../grammar-queries/c/syntax.scm");
const CPP_QUERY: &str = include_str!("../../grammar-queries/cpp/syntax.scm");

/// Bumped whenever extraction changes in a way the queries do not show (kinds, signatures, body
/// hashes, visibility rules), so a previous snapshot's rows are not reused across versions.
const EXTRACTOR_REVISION: &str = "syntax-extractor.4";

impl Lang {
    /// Every supported language, in a fixed order.
    pub const ALL: [Lang; 9] = [
        Lang::Rust,
        Lang::Python,
        Lang::TypeScript,
        Lang::Tsx,
        Lang::JavaScript,
        Lang::Go,
        Lang::Java,
        Lang::C,
        Lang::Cpp,
    ];

    /// The language of a scanned file (`FileRow.language`), if supported.
    pub fn from_name(name: &str) -> Option<Lang> {
        Some(match name {
            "rust" => Lang::Rust,
            "python" => Lang::Python,
            "typescript" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            "javascript" => Lang::JavaScript,
            "go" => Lang::Go,
            "java" => Lang::Java,
            "c" => Lang::C,
            "cpp" => Lang::Cpp,
            _ => return None,
        })
    }

    /// The language name as the scan writes it.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::Python => "python",
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
            Lang::JavaScript => "javascript",
            Lang::Go => "go",
            Lang::Java => "java",
            Lang::C => "c",
            Lang::Cpp => "cpp",
        }
    }

    /// Languages whose files can refer to each other's definitions by name (used to resolve
    /// references): TypeScript, TSX and JavaScript form one family, C and C++ another — the rule
    /// `output_schema::tables::language_family` declares, as a small key for the hot maps.
    pub fn family(self) -> u8 {
        match self {
            Lang::Rust => 0,
            Lang::Python => 1,
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript => 2,
            Lang::Go => 3,
            Lang::Java => 4,
            Lang::C | Lang::Cpp => 5,
        }
    }

    /// The tree-sitter grammar.
    pub fn grammar(self) -> Language {
        match self {
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Lang::Go => tree_sitter_go::LANGUAGE.into(),
            Lang::Java => tree_sitter_java::LANGUAGE.into(),
            Lang::C => tree_sitter_c::LANGUAGE.into(),
            Lang::Cpp => tree_sitter_cpp::LANGUAGE.into(),
        }
    }

    /// The query source (possibly several files joined).
    pub fn query_source(self) -> String {
        match self {
            Lang::Rust => RUST_QUERY.to_string(),
            Lang::Python => PYTHON_QUERY.to_string(),
            Lang::TypeScript => TYPESCRIPT_QUERY.to_string(),
            Lang::Tsx => format!("{TYPESCRIPT_QUERY}\n{TSX_EXTRA_QUERY}"),
            Lang::JavaScript => JAVASCRIPT_QUERY.to_string(),
            Lang::Go => GO_QUERY.to_string(),
            Lang::Java => JAVA_QUERY.to_string(),
            Lang::C => C_QUERY.to_string(),
            Lang::Cpp => CPP_QUERY.to_string(),
        }
    }

    /// The compiled query, built on first use. `Err` carries the compiler's message: a broken
    /// query is a bug in ckb, reported per file rather than by panicking.
    pub fn query(self) -> Result<&'static LangQuery, &'static str> {
        static QUERIES: [OnceLock<Result<LangQuery, String>>; 9] = [
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
        ];
        let slot = &QUERIES[self as usize];
        slot.get_or_init(|| {
            let query = Query::new(&self.grammar(), &self.query_source())
                .map_err(|e| format!("query of {}: {e}", self.name()))?;
            let caps = capture_table(&query);
            Ok(LangQuery { query, caps })
        })
        .as_ref()
        .map_err(|e| e.as_str())
    }
}

/// A fingerprint of everything that shapes the stage's rows: the extractor revision, every
/// query and the grammar ABI versions. Recorded in the manifest's tree-sitter backend; a previous
/// snapshot's rows are reused only when it matches.
pub fn extractor_fingerprint() -> String {
    static FP: OnceLock<String> = OnceLock::new();
    FP.get_or_init(|| {
        let mut h = FieldHasher::new("ckb.syntax.extractor.v1");
        h.field(EXTRACTOR_REVISION.as_bytes());
        h.field(tree_sitter_version().as_bytes());
        for lang in Lang::ALL {
            h.field(lang.name().as_bytes());
            h.field(lang.query_source().as_bytes());
            h.field(&lang.grammar().abi_version().to_le_bytes());
            h.field(&(lang.grammar().node_kind_count() as u64).to_le_bytes());
        }
        h.hex(16)
    })
    .clone()
}

/// The tree-sitter library version this build links.
pub fn tree_sitter_version() -> String {
    // The crate does not export its version; the language ABI range it accepts is the best
    // identification available at run time, so pair it with the version pinned at build time.
    format!(
        "0.27 (abi {}-{})",
        tree_sitter::MIN_COMPATIBLE_LANGUAGE_VERSION,
        tree_sitter::LANGUAGE_VERSION
    )
}

#[cfg(test)]
mod tests {
    use super::Lang;
    use output_schema::tables::language_family;

    #[test]
    fn families_follow_the_declared_rule() {
        for a in Lang::ALL {
            for b in Lang::ALL {
                assert_eq!(
                    a.family() == b.family(),
                    language_family(a.name()) == language_family(b.name()),
                    "{} / {}",
                    a.name(),
                    b.name()
                );
            }
        }
    }
}
