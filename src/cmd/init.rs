//! `ckb init`: write `.ckb/config.json` with every default spelled out.

use std::path::PathBuf;
use std::process::ExitCode;

use output_schema::config::{Config, CONFIG_FILE};
use output_schema::ErrorCode;
use queries::envelope::render::Format;
use queries::QueryError;

use crate::{emit, finish_output, Failure};

/// Arguments of `ckb init`.
#[derive(clap::Args)]
pub struct Args {
    /// Repository root.
    #[arg(default_value = ".")]
    path: PathBuf,
    /// Overwrite an existing config.
    #[arg(long)]
    force: bool,
}

/// Runs `ckb init`.
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let fail =
        |code, msg: String, fix: &str| Failure::new(QueryError::new(code, msg, fix), Format::Human);
    if !args.path.is_dir() {
        return Err(fail(
            ErrorCode::PathNotFound,
            format!("{}: no such directory", args.path.display()),
            "pass the repository root: ckb init PATH",
        ));
    }
    let path = args.path.join(CONFIG_FILE);
    if path.exists() && !args.force {
        return Err(fail(
            ErrorCode::InvalidParameter,
            format!("{} already exists", path.display()),
            "use --force to overwrite it with the defaults",
        ));
    }
    let io = |e: std::io::Error| {
        fail(
            ErrorCode::IoError,
            format!("{}: {e}", path.display()),
            "check permissions",
        )
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io)?;
    }
    std::fs::write(&path, Config::default_file_text()).map_err(io)?;
    finish_output(emit(&format!("{}\n", path.display())))
}
