//! Commands that take `<ID|PATH>` (or `<PATH|MODULE>`) decide here what the argument names: a
//! stable ID (`ckb:` prefix) or a symbol name resolves like `symbol`; a path the snapshot holds
//! is a file, a path with files below it is a folder, and a module ID of the modules table is a
//! module. A path-looking argument (with `/` or a file extension) that matches nothing is
//! `PATH_NOT_FOUND`.

use output_schema::tables::ModuleRow;
use output_schema::ErrorCode;

use crate::commands::hotspots::check_path;
use crate::envelope::facts::FileIndex;
use crate::snapshot::lookup::{Lookup, Resolved};
use crate::snapshot::read::{self, is_path_or_below, Pred};
use crate::{QueryError, Snapshot};

/// What an argument names.
pub enum Target {
    /// A symbol.
    Symbol(Box<Resolved>),
    /// One file.
    File(String),
    /// A folder (every file below it).
    Folder(String),
    /// A module of the modules stage.
    Module(ModuleRow),
}

impl Target {
    /// `symbol`, `file`, `folder` or `module`.
    pub fn kind(&self) -> &'static str {
        match self {
            Target::Symbol(_) => "symbol",
            Target::File(_) => "file",
            Target::Folder(_) => "folder",
            Target::Module(_) => "module",
        }
    }
}

fn looks_like_path(s: &str) -> bool {
    s.contains('/')
        || s == "."
        || s.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
                && ext.chars().any(|c| c.is_ascii_lowercase())
        })
}

/// A module by ID.
pub fn module(snapshot: &Snapshot, id: &str) -> Result<Option<ModuleRow>, QueryError> {
    Ok(
        read::rows_where::<ModuleRow>(snapshot, "module_id", &Pred::Eq(id.into()))?
            .unwrap_or_default()
            .into_iter()
            .next(),
    )
}

/// Decides what `input` names. `modules` allows module IDs; `symbols` allows IDs and names.
pub fn target(
    snapshot: &Snapshot,
    lookup: &Lookup<'_>,
    files: &FileIndex,
    input: &str,
    modules: bool,
    symbols: bool,
) -> Result<Target, QueryError> {
    let input = input.trim();
    if symbols && input.starts_with(output_schema::ids::STABLE_ID_PREFIX) {
        return Ok(Target::Symbol(Box::new(lookup.resolve(input)?)));
    }
    if modules {
        if let Some(m) = module(snapshot, input.trim_end_matches('/'))? {
            return Ok(Target::Module(m));
        }
    }
    if let Ok(p) = check_path(input) {
        if files.get(&p).is_some() {
            return Ok(Target::File(p));
        }
        if files.iter().any(|(f, _)| is_path_or_below(f, &p)) {
            return Ok(Target::Folder(p));
        }
    }
    let path_missing = || {
        QueryError::new(
            ErrorCode::PathNotFound,
            format!("no file or folder {input} in this snapshot"),
            "pass a repository-relative path the snapshot holds (ckb query sql \"select path from files\" lists them)",
        )
    };
    if !symbols || input.contains('/') {
        return Err(path_missing());
    }
    match lookup.resolve(input) {
        Ok(r) => Ok(Target::Symbol(Box::new(r))),
        // `Parser.parse` may be a qualified name; `main.py` that is neither is a missing path.
        Err(e) if e.code == ErrorCode::SymbolNotFound && looks_like_path(input) => {
            Err(path_missing())
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_shapes() {
        assert!(looks_like_path("src/a.rs"));
        assert!(looks_like_path("main.py"));
        assert!(looks_like_path("."));
        assert!(!looks_like_path("parse"));
        assert!(!looks_like_path("Parser.PARSE"));
    }
}
