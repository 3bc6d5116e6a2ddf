//! scip-java: one run at the root, through the project's own build.
//!
//! - scip-java detects the build tool (Maven, Gradle, sbt, Mill) from the root's build files and
//!   compiles the project with a compiler plugin that records what it sees: it runs the build,
//!   downloads its dependencies, and leaves the build's output (`target/`, `build/`) where the
//!   build puts it.
//! - Without a build file at the root there is nothing it can compile, so ckb does not start it.

use super::job::{Arg, RunSpec, Steps};
use super::projects::Context;

/// Build files scip-java recognises at the root.
const BUILD_FILES: &[&str] = &[
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "settings.gradle.kts",
    "build.sbt",
    "build.sc",
];

/// The runs for the repository.
pub(super) fn plan(ctx: &Context<'_>) -> Steps {
    let Some(build) = BUILD_FILES.iter().find(|f| ctx.root.join(f).is_file()) else {
        return Steps::Cannot(format!(
            "no build file at the root ({}): scip-java indexes through the project's build",
            BUILD_FILES.join(", ")
        ));
    };
    Steps::Run(vec![RunSpec {
        label: None,
        project: ".".into(),
        args: vec![Arg::plain("index"), Arg::plain("--output"), Arg::Output],
        env: Vec::new(),
        notes: vec![format!(
            "scip-java compiles the project through its build ({build}); the build's output \
             stays where the build puts it"
        )],
    }])
}
