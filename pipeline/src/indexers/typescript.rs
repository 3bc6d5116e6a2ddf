//! scip-typescript: the repository's TypeScript projects, then every TypeScript or JavaScript
//! file no project covered.
//!
//! - Projects: the outermost folders holding a `tsconfig.json`, in one run with `--cwd` the root
//!   (document paths are then relative to the root); scip-typescript follows their project
//!   references itself. Without `--cwd` it would index the folder ckb happens to run in.
//! - Files no project includes (tests, scripts, a repository with no tsconfig at all, projects
//!   whose tsconfig cannot be loaded — an `extends` of an uninstalled package makes
//!   scip-typescript exit 1) get a second run with a configuration ckb writes outside the
//!   repository, listing them (`allowJs`, JSX kept, no emit). scip-typescript's own
//!   `--infer-tsconfig` would write a `tsconfig.json` into the working tree instead.
//! - Without `node_modules`, scip-typescript still indexes every file, but imports of packages
//!   resolve to nothing: references to a dependency's functions and types, and call edges into
//!   them, are missing, and what is typed through them is `any`. ckb does not install
//!   dependencies (that runs the packages' install scripts); it says so when they are declared
//!   and not installed.
//! - It writes an absolute `project_root` (`file:///…` of `--cwd`) and UTF-16 positions.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::json;

use super::job::{Arg, RunSpec, Steps};
use super::projects::Context;

/// The scan languages scip-typescript indexes.
const LANGUAGES: &[&str] = &["typescript", "tsx", "javascript"];

/// The label of the run over the files no project covered, when projects ran first.
const OTHER_FILES: &str = "other-files";

/// The runs for the repository: the projects, or (without any) every file.
pub(super) fn plan(ctx: &Context<'_>) -> Steps {
    let projects = ctx.outermost_projects(&["tsconfig.json"]);
    if projects.is_empty() {
        return match loose_files_run(ctx, &BTreeSet::new(), None) {
            Ok(Some(spec)) => Steps::Run(vec![spec]),
            Ok(None) => Steps::Cannot("no TypeScript or JavaScript file to index".into()),
            Err(why) => Steps::Cannot(why),
        };
    }
    let mut args = index_args(ctx);
    args.extend(
        projects
            .iter()
            .map(|p| Arg::plain(ctx.dir_of(p).into_os_string())),
    );
    let mut notes = vec![format!(
        "tsconfig projects: {}",
        projects
            .iter()
            .map(|p| if p == "." { "." } else { p.as_str() })
            .collect::<Vec<_>>()
            .join(", ")
    )];
    notes.extend(dependencies_note(ctx));
    Steps::Run(vec![RunSpec {
        label: None,
        project: ".".into(),
        args,
        env: node_env(),
        notes,
    }])
}

/// After the projects: a run over the TypeScript and JavaScript files they did not index.
pub(super) fn follow_up(
    ctx: &Context<'_>,
    indexed: &BTreeSet<String>,
    failed: &[String],
) -> Result<Option<RunSpec>, String> {
    if ctx.outermost_projects(&["tsconfig.json"]).is_empty() {
        return Ok(None);
    }
    let why = (!failed.is_empty()).then_some(
        "the tsconfig projects could not be indexed (see above): every file of theirs is \
         indexed with ckb's default compiler options instead",
    );
    loose_files_run(ctx, indexed, why)
}

/// A run over the scanned TypeScript and JavaScript files not in `indexed`, with a generated
/// configuration listing them; `None` when there are none.
fn loose_files_run(
    ctx: &Context<'_>,
    indexed: &BTreeSet<String>,
    why: Option<&str>,
) -> Result<Option<RunSpec>, String> {
    let files: Vec<&str> = ctx
        .files_of(LANGUAGES)
        .map(|f| f.path.as_str())
        .filter(|p| !indexed.contains(*p))
        .collect();
    if files.is_empty() {
        return Ok(None);
    }
    let first_run = indexed.is_empty() && why.is_none();
    let label = (!ctx.outermost_projects(&["tsconfig.json"]).is_empty()).then_some(OTHER_FILES);
    let config = ctx
        .scratch
        .join(format!("tsconfig.{}.json", label.unwrap_or("files")));
    write_config(&config, ctx.root, &files)
        .map_err(|e| format!("cannot write {}: {e}", config.display()))?;
    let mut notes = vec![match (why, first_run) {
        (Some(why), _) => why.to_string(),
        (None, true) => format!(
            "no tsconfig.json: {} indexed with ckb's default compiler options",
            super::count(files.len() as i64, "file")
        ),
        (None, false) => format!(
            "{} outside every tsconfig project, indexed with ckb's default compiler options",
            super::count(files.len() as i64, "file")
        ),
    }];
    if label.is_none() {
        notes.extend(dependencies_note(ctx));
    }
    Ok(Some(RunSpec {
        label: label.map(str::to_string),
        project: ".".into(),
        args: {
            let mut args = index_args(ctx);
            args.push(Arg::plain(config.into_os_string()));
            args
        },
        env: node_env(),
        notes,
    }))
}

/// The generated configuration: the files by absolute path, options that accept any of them.
fn write_config(path: &Path, root: &Path, files: &[&str]) -> std::io::Result<()> {
    let config = json!({
        "compilerOptions": {
            "allowJs": true,
            "allowImportingTsExtensions": true,
            "esModuleInterop": true,
            "jsx": "preserve",
            "module": "esnext",
            "moduleResolution": "bundler",
            "noEmit": true,
            "resolveJsonModule": true,
            "skipLibCheck": true,
            "target": "es2022",
        },
        "files": files.iter().map(|f| root.join(f).to_string_lossy().into_owned()).collect::<Vec<_>>(),
    });
    std::fs::write(path, serde_json::to_vec_pretty(&config)?)
}

/// Node's heap limit raised for large projects, unless the user set one.
fn node_env() -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    let current = std::env::var("NODE_OPTIONS").unwrap_or_default();
    if current.contains("max-old-space-size") {
        return Vec::new();
    }
    vec![(
        "NODE_OPTIONS".into(),
        format!("{current} --max-old-space-size=4096").trim().into(),
    )]
}

/// A note when a `package.json` declares dependencies and no `node_modules` holds them.
fn dependencies_note(ctx: &Context<'_>) -> Option<String> {
    let missing: Vec<String> = ctx
        .files
        .iter()
        .filter(|f| f.path == "package.json" || f.path.ends_with("/package.json"))
        .filter_map(|f| {
            let dir = f.path.strip_suffix("package.json")?.trim_end_matches('/');
            let text = std::fs::read_to_string(ctx.root.join(&f.path)).ok()?;
            let manifest: serde_json::Value = serde_json::from_str(&text).ok()?;
            let declares = ["dependencies", "devDependencies", "peerDependencies"]
                .iter()
                .any(|k| manifest[k].as_object().is_some_and(|m| !m.is_empty()));
            let installed = ctx.root.join(dir).join("node_modules").is_dir()
                || ctx.root.join("node_modules").is_dir();
            (declares && !installed).then(|| f.path.clone())
        })
        .collect();
    (!missing.is_empty()).then(|| {
        format!(
            "dependencies are declared ({}) but not installed (no node_modules): every file is \
             indexed, but references into packages are not resolved; install them first \
             (`npm ci`, `pnpm install`, `yarn install`)",
            missing.join(", ")
        )
    })
}

/// `scip-typescript index` from the repository's root into the temporary index; the projects (or
/// ckb's configuration) follow.
fn index_args(ctx: &Context<'_>) -> Vec<Arg> {
    vec![
        Arg::plain("index"),
        Arg::plain("--cwd"),
        Arg::plain(ctx.root.as_os_str()),
        Arg::plain("--no-progress-bar"),
        Arg::plain("--output"),
        Arg::Output,
    ]
}
