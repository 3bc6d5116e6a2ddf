//! scip-go (v0.2): one run per Go module or workspace.
//!
//! - The project is the root when it holds `go.work` or `go.mod`, else each outermost folder
//!   holding a `go.mod`; scip-go runs in it (`scip-go index`), since it loads packages through
//!   the `go` toolchain from its working folder. Without `go` on `PATH` it cannot load anything,
//!   so ckb does not start it.
//! - `go` downloads the module's dependencies (network, or the module cache) unless the module
//!   vendors them.
//! - Document paths are relative to the module folder, which ckb maps back to the repository.

use super::job::{Arg, RunSpec, Steps};
use super::projects::{find_on_path, label_of, Context};

/// The runs for the repository.
pub(super) fn plan(ctx: &Context<'_>) -> Steps {
    let projects = ctx.outermost_projects(&["go.work", "go.mod"]);
    if projects.is_empty() {
        return Steps::Cannot("no go.mod or go.work: scip-go has no module to load".into());
    }
    if find_on_path("go").is_none() {
        return Steps::Cannot(
            "scip-go loads packages through the Go toolchain, and `go` is not on PATH".into(),
        );
    }
    Steps::Run(
        projects
            .into_iter()
            .map(|project| RunSpec {
                label: label_of(&project),
                project,
                args: vec![
                    Arg::plain("index"),
                    Arg::plain("--output"),
                    Arg::Output,
                    Arg::plain("--quiet"),
                ],
                env: Vec::new(),
                notes: Vec::new(),
            })
            .collect(),
    )
}
