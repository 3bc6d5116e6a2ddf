//! scip-python: one run over the whole repository.
//!
//! - `--cwd` the root, so document paths are relative to it.
//! - `--project-name`: the package's name from `pyproject.toml` (`[project]`, or Poetry's
//!   `[tool.poetry]`), else `setup.cfg`'s `[metadata]`, else the folder's name. scip-python puts
//!   it in every symbol of the repository's own code; without one those symbols have no package.
//! - The repository's packages must be importable for pyright to resolve imports between them:
//!   ckb puts the package roots (the root, `src/` layouts, and each folder holding a
//!   `pyproject.toml` or `setup.py`, with its `src/`) on `PYTHONPATH`. Third-party imports
//!   resolve only to packages installed in the `python` on `PATH` (scip-python asks `pip` which
//!   are); uninstalled ones leave those references out.
//! - It writes an absolute `project_root`.

use std::ffi::OsString;

use super::job::{Arg, RunSpec, Steps};
use super::projects::Context;

/// The runs for the repository.
pub(super) fn plan(ctx: &Context<'_>) -> Steps {
    let (name, from) = project_name(ctx);
    let mut notes = vec![format!("project name {name:?} (from {from})")];
    let roots = package_roots(ctx);
    notes.push(format!(
        "PYTHONPATH gets the package roots: {}",
        roots.join(", ")
    ));
    let mut path: Vec<std::path::PathBuf> = roots.iter().map(|r| ctx.dir_of(r)).collect();
    if let Some(existing) = std::env::var_os("PYTHONPATH") {
        path.extend(std::env::split_paths(&existing));
    }
    let env = std::env::join_paths(path)
        .map(|p| vec![(OsString::from("PYTHONPATH"), p)])
        .unwrap_or_default();
    Steps::Run(vec![RunSpec {
        label: None,
        project: ".".into(),
        args: vec![
            Arg::plain("index"),
            Arg::plain("--cwd"),
            Arg::plain(ctx.root.as_os_str()),
            Arg::plain("--project-name"),
            Arg::plain(name),
            Arg::plain("--output"),
            Arg::Output,
        ],
        env,
        notes,
    }])
}

/// The project's name and where it came from.
fn project_name(ctx: &Context<'_>) -> (String, &'static str) {
    let read = |p: &str| std::fs::read_to_string(ctx.root.join(p)).ok();
    if let Some(doc) = read("pyproject.toml").and_then(|t| t.parse::<toml::Table>().ok()) {
        let name = doc
            .get("project")
            .and_then(|p| p.get("name"))
            .or_else(|| {
                doc.get("tool")
                    .and_then(|t| t.get("poetry"))
                    .and_then(|p| p.get("name"))
            })
            .and_then(|n| n.as_str());
        if let Some(name) = name.filter(|n| !n.trim().is_empty()) {
            return (name.trim().to_string(), "pyproject.toml");
        }
    }
    if let Some(name) = read("setup.cfg").and_then(|t| setup_cfg_name(&t)) {
        return (name, "setup.cfg");
    }
    let folder = ctx
        .root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "project".into());
    (folder, "the folder's name")
}

/// `name = …` in the `[metadata]` section of a `setup.cfg`.
fn setup_cfg_name(text: &str) -> Option<String> {
    let mut in_metadata = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_metadata = line == "[metadata]";
        } else if in_metadata {
            if let Some((key, value)) = line.split_once('=') {
                if key.trim() == "name" && !value.trim().is_empty() {
                    return Some(value.trim().to_string());
                }
            }
        }
    }
    None
}

/// Folders whose children are top-level packages: the root, each outermost folder holding a
/// `pyproject.toml` or `setup.py`, and the `src/` of each that has Python files in it.
fn package_roots(ctx: &Context<'_>) -> Vec<String> {
    let mut roots = vec![".".to_string()];
    for p in ctx.outermost_projects(&["pyproject.toml", "setup.py"]) {
        if !roots.contains(&p) {
            roots.push(p);
        }
    }
    let with_src: Vec<String> = roots
        .iter()
        .map(|r| {
            if r == "." {
                "src".to_string()
            } else {
                format!("{r}/src")
            }
        })
        .filter(|src| {
            ctx.files_of(&["python"])
                .any(|f| f.path.starts_with(&format!("{src}/")))
        })
        .collect();
    roots.extend(with_src);
    roots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_cfg_names_come_from_metadata() {
        let text = "[options]\nname = wrong\n[metadata]\n# c\nname = right-one\nversion = 1\n";
        assert_eq!(setup_cfg_name(text), Some("right-one".into()));
        assert_eq!(setup_cfg_name("[options]\nname = x\n"), None);
    }
}
