//! rust-analyzer (`rust-analyzer scip`): one run per Cargo workspace or `rust-project.json`.
//!
//! - The project is the root when it holds `Cargo.toml` or `rust-project.json` (a workspace
//!   takes its members along), else each outermost folder that holds one.
//! - rust-analyzer runs `cargo metadata` (which needs the dependencies: from the network or
//!   cargo's cache) and `cargo check` for build scripts and proc macros. Their output goes to
//!   `CARGO_TARGET_DIR`: when the user set none and the project has no `target/` yet (a fresh
//!   clone in CI), ckb points it into its cache folder, so indexing leaves nothing in the
//!   working tree and later runs reuse the compiled dependencies.
//! - `--exclude-vendored-libraries`: code vendored inside the repository is not indexed (the scan
//!   leaves `vendor/` out too).
//! - It writes an absolute `project_root` (`file:///…`); `ckb snapshot` maps it back to the
//!   repository, and to a copy of it at another path by the project's trailing folders.

use super::job::{Arg, RunSpec, Steps};
use super::projects::{label_of, Context};

/// The files that make a folder a Rust project for rust-analyzer.
const PROJECT_FILES: &[&str] = &["Cargo.toml", "rust-project.json"];

/// The runs for the repository.
pub(super) fn plan(ctx: &Context<'_>) -> Steps {
    let projects = ctx.outermost_projects(PROJECT_FILES);
    if projects.is_empty() {
        return Steps::Cannot(
            "no Cargo.toml or rust-project.json: rust-analyzer has no project to load".into(),
        );
    }
    let user_target = std::env::var_os("CARGO_TARGET_DIR").is_some();
    Steps::Run(
        projects
            .into_iter()
            .map(|project| {
                let mut env = Vec::new();
                let mut notes = Vec::new();
                let dir = ctx.dir_of(&project);
                if let (false, false, Some(cache)) =
                    (user_target, dir.join("target").exists(), ctx.cache_dir)
                {
                    let target = cache.join("cargo-target");
                    notes.push(format!(
                        "build scripts and proc macros compile into {} (CARGO_TARGET_DIR), not \
                         the working tree",
                        target.display()
                    ));
                    env.push(("CARGO_TARGET_DIR".into(), target.into_os_string()));
                }
                RunSpec {
                    label: label_of(&project),
                    project,
                    args: vec![
                        Arg::plain("scip"),
                        Arg::plain("."),
                        Arg::plain("--output"),
                        Arg::Output,
                        Arg::plain("--exclude-vendored-libraries"),
                    ],
                    env,
                    notes,
                }
            })
            .collect(),
    )
}
