//! `ckb report`: one self-contained HTML page about a snapshot or a store — the architecture
//! graph, hotspots, the API changes and risk of the two newest snapshots, and the trend across
//! snapshots — written atomically.
//!
//! [`facts`] gathers what the page shows through the same readers and analyses as `ckb query` and
//! `ckb diff` (no DuckDB); [`html`] writes the page ([`charts`] draws its charts, the graphs come
//! from `pictures`); [`write`] puts it in place: a temporary file beside the target, flushed to
//! disk, then renamed over it, so a failure leaves nothing half-written and an existing file
//! untouched.

pub mod charts;
pub mod facts;
pub mod html;

use std::io::Write;
use std::path::Path;

use output_schema::ErrorCode;

pub use facts::{Limits, Source};

use crate::QueryError;

/// Builds the page.
pub fn build(source: &Source<'_>, limits: Limits) -> Result<String, QueryError> {
    let facts = facts::gather(source, limits)?;
    Ok(html::render(&facts))
}

/// Writes `html` to `path` atomically. A missing folder is `PATH_NOT_FOUND`; any other failure
/// (not a folder, no permission, a folder in the way, a full disk) is `IO_ERROR`; both name the
/// path, and the temporary file is removed.
pub fn write(path: &Path, html: &str) -> Result<(), QueryError> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let io = |what: &str, e: std::io::Error| {
        let code = if e.kind() == std::io::ErrorKind::NotFound {
            ErrorCode::PathNotFound
        } else {
            ErrorCode::IoError
        };
        QueryError::new(
            code,
            format!("cannot write the report to {}: {what}: {e}", path.display()),
            "pass --output with a file in an existing, writable folder",
        )
    };
    if path.is_dir() {
        return Err(QueryError::new(
            ErrorCode::IoError,
            format!(
                "cannot write the report to {}: it is a folder",
                path.display()
            ),
            "pass --output with a file name, e.g. --output ckb-report.html",
        ));
    }
    let mut tmp = tempfile::Builder::new()
        .prefix(".ckb-report-")
        .suffix(".tmp")
        .tempfile_in(parent)
        .map_err(|e| io("cannot create a file in its folder", e))?;
    // A report is for reading: not the 0600 of a temporary file.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))
            .map_err(|e| io("cannot set its permissions", e))?;
    }
    tmp.write_all(html.as_bytes())
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| io("writing failed", e))?;
    tmp.persist(path)
        .map_err(|e| io("cannot move the file into place", e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_write_replaces_whole_or_fails_naming_the_path_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("r.html");
        std::fs::write(&target, "old").unwrap();
        write(&target, "new page").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new page");
        assert_eq!(names(dir.path()), ["r.html"], "no temporary file left");

        let missing = dir.path().join("no/r.html");
        let e = write(&missing, "x").unwrap_err();
        assert_eq!(e.code, ErrorCode::PathNotFound);
        assert!(
            e.message.contains(&missing.display().to_string()),
            "{}",
            e.message
        );

        let e = write(dir.path(), "x").unwrap_err();
        assert_eq!(e.code, ErrorCode::IoError);
        let under_file = target.join("x.html");
        let e = write(&under_file, "x").unwrap_err();
        assert_eq!(e.code, ErrorCode::IoError, "{}", e.message);
        assert_eq!(names(dir.path()), ["r.html"]);
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new page");
    }
}
