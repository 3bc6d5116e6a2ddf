//! scip-clang: one run over the compilation database.
//!
//! - scip-clang indexes exactly the translation units of a `compile_commands.json` (and the
//!   headers they include), run from the root. ckb looks for one at the root, then in `build/`
//!   and the root's other folders (where CMake writes it); without one there is nothing to index
//!   and ckb says how to write it.

use std::path::PathBuf;

use super::job::{Arg, RunSpec, Steps};
use super::projects::Context;

/// The compilation database's file name.
const COMPDB: &str = "compile_commands.json";

/// The runs for the repository.
pub(super) fn plan(ctx: &Context<'_>) -> Steps {
    let Some(compdb) = find_compdb(ctx) else {
        return Steps::Cannot(format!(
            "no {COMPDB} at the root or in a folder of it: scip-clang indexes a compilation \
             database; write one with `cmake -B build -DCMAKE_EXPORT_COMPILE_COMMANDS=ON` or \
             `bear -- make`"
        ));
    };
    let shown = compdb
        .strip_prefix(ctx.root)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| compdb.display().to_string());
    let mut path_arg = std::ffi::OsString::from("--compdb-path=");
    path_arg.push(compdb.as_os_str());
    Steps::Run(vec![RunSpec {
        label: None,
        project: ".".into(),
        args: vec![
            Arg::Plain(path_arg),
            Arg::OutputAfter("--index-output-path="),
        ],
        env: Vec::new(),
        notes: vec![format!("compilation database: {shown}")],
    }])
}

/// `compile_commands.json` at the root, else in `build/`, else in the first other folder of the
/// root (by name) that has one. Build folders are left out of the scan, so the file system is
/// asked.
fn find_compdb(ctx: &Context<'_>) -> Option<PathBuf> {
    let at = |dir: PathBuf| Some(dir.join(COMPDB)).filter(|p| p.is_file());
    if let Some(p) = at(ctx.root.to_path_buf()).or_else(|| at(ctx.root.join("build"))) {
        return Some(p);
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(ctx.root)
        .ok()?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    dirs.sort();
    dirs.into_iter().find_map(at)
}
