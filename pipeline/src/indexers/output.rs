//! Where an index goes and when it may go there.
//!
//! An indexer writes into a temporary file beside its index (`.ckb/.<name>.partial-*`, a name
//! `ckb snapshot` never reads), deleted if anything goes wrong. Only an index that decodes and
//! describes files of the repository replaces the old one, by a rename; its `<index>.commit`
//! sidecar is removed first and written after, so an index never sits beside a sidecar naming a
//! commit it does not describe.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

use super::{Context, Head};
use crate::scip::{freshness, mapping, reader};

/// What a good index holds.
#[derive(Clone, Debug)]
pub struct Produced {
    /// Its file name in the index folder.
    pub file_name: String,
    /// Its documents.
    pub documents: i64,
    /// Its documents' repository paths that the scan kept.
    pub paths: BTreeSet<String>,
}

/// A temporary file in the folder of `index`, deleted when dropped; readable by others once in
/// place, as a file the user wrote would be (a temporary file is private by default).
pub fn temp_beside(index: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let dir = index.parent().unwrap_or(Path::new("."));
    let name = index
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!(".{name}.partial-");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o644));
    }
    builder.tempfile_in(dir)
}

/// Reads the index an indexer wrote: it must decode, and when it has documents, some of them
/// must be files the scan kept (else `ckb snapshot` would refuse it). `project` is the folder
/// the indexer ran in, which its document paths are relative to.
pub fn inspect(
    index: &Path,
    project: &str,
    ctx: &Context<'_>,
    file_name: &str,
) -> Result<Produced, String> {
    let prefix = if project == "." { "" } else { project };
    let mut documents = 0i64;
    let mut paths = BTreeSet::new();
    let mut undecodable = 0i64;
    let limits = reader::ReadLimits {
        max_document_bytes: crate::scip::ScipConfig::default().max_document_bytes,
        metadata_only: false,
    };
    let read = reader::read_index::<()>(index, limits, |item| {
        match item {
            reader::Item::Document(bytes) => {
                documents += 1;
                match mapping::read_header(&bytes) {
                    Ok(h) => {
                        if let Some(p) = mapping::repo_path(prefix, &h.relative_path) {
                            if ctx.scanned(&p) {
                                paths.insert(p);
                            }
                        }
                    }
                    Err(_) => undecodable += 1,
                }
            }
            reader::Item::OversizedDocument { .. } => documents += 1,
            _ => {}
        }
        Ok(())
    });
    match read {
        Ok(_) => {}
        Err(e) => return Err(format!("it wrote an index ckb cannot read ({e})")),
    }
    if documents > 0 && paths.is_empty() {
        return Err(format!(
            "none of the {documents} documents of its index is a file the scan kept{}",
            if undecodable > 0 {
                format!(" ({undecodable} undecodable)")
            } else {
                String::new()
            }
        ));
    }
    Ok(Produced {
        file_name: file_name.to_string(),
        documents,
        paths,
    })
}

/// The sidecar of `index`.
fn sidecar_of(index: &Path) -> std::path::PathBuf {
    let mut name = index.as_os_str().to_owned();
    name.push(".commit");
    name.into()
}

/// Puts a good index in place: the old sidecar goes, the index is renamed over the old one, and
/// the new sidecar names HEAD's commit on its first line (what `ckb snapshot` reads) and the
/// state of the working tree on its second, `state <repoStateId>` (what tells `ckb index` the
/// index is up to date). No commit, no sidecar.
pub fn install(
    temp: tempfile::NamedTempFile,
    index: &Path,
    head: &Head<'_>,
) -> std::io::Result<()> {
    let sidecar = sidecar_of(index);
    match std::fs::remove_file(&sidecar) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    temp.as_file().sync_all()?;
    temp.persist(index).map_err(|e| e.error)?;
    if let Some(commit) = head.commit {
        let mut side = temp_beside(&sidecar)?;
        let mut text = format!("{commit}\n");
        if let Some(state) = head.state {
            text.push_str(&format!("{STATE_PREFIX}{state}\n"));
        }
        side.write_all(text.as_bytes())?;
        side.as_file().sync_all()?;
        side.persist(&sidecar).map_err(|e| e.error)?;
    }
    Ok(())
}

/// The second line of a sidecar: the state the index was built from.
const STATE_PREFIX: &str = "state ";

/// Whether the index at `path` already describes `head`: it exists, and its sidecar names HEAD's
/// commit and the very state of the working tree it was built from.
pub fn is_current(path: &Path, head: &Head<'_>) -> bool {
    let (Some(commit), Some(state)) = (head.commit, head.state) else {
        return false;
    };
    if !path.is_file()
        || !freshness::sidecar_commit(path).is_ok_and(|c| c.as_deref() == Some(commit))
    {
        return false;
    }
    std::fs::read_to_string(sidecar_of(path)).is_ok_and(|text| {
        text.lines()
            .nth(1)
            .and_then(|l| l.strip_prefix(STATE_PREFIX))
            .is_some_and(|s| s.trim() == state)
    })
}

/// Removes the indexes of `tool` in `dir` (as `ckb index` names them) other than `keep`, with
/// their sidecars; returns what it removed, as `.ckb/<name>`.
pub fn prune(dir: &Path, tool: &str, keep: &[String]) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| {
            output_schema::indexers::tool_of_index_file(n).is_some_and(|i| i.tool == tool)
                && !keep.contains(n)
        })
        .collect();
    names.sort();
    let mut removed = Vec::new();
    for name in names {
        let path = dir.join(&name);
        if std::fs::remove_file(&path).is_ok() {
            let _ = std::fs::remove_file(sidecar_of(&path));
            removed.push(format!("{}/{name}", output_schema::indexers::INDEX_DIR));
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_replaces_the_index_and_its_sidecar_and_prune_keeps_what_it_is_told() {
        let dir = tempfile::tempdir().expect("temp dir");
        let index = dir.path().join("rust-analyzer.scip");
        std::fs::write(&index, b"old").expect("write");
        std::fs::write(sidecar_of(&index), "0000000\n").expect("write");
        let mut temp = temp_beside(&index).expect("temp");
        temp.write_all(b"new").expect("write");
        let temp_path = temp.path().to_path_buf();
        assert!(temp_path.file_name().is_some_and(|n| n
            .to_string_lossy()
            .starts_with(".rust-analyzer.scip.partial-")));
        let commit = "1234567890abcdef1234567890abcdef12345678";
        let head = Head {
            commit: Some(commit),
            state: Some("abc"),
        };
        install(temp, &index, &head).expect("install");
        assert_eq!(std::fs::read(&index).expect("read"), b"new");
        assert!(!temp_path.exists());
        assert_eq!(
            freshness::sidecar_commit(&index).expect("a sidecar"),
            Some(commit.to_string())
        );
        assert!(is_current(&index, &head));
        let other_state = Head {
            state: Some("def"),
            ..head
        };
        assert!(!is_current(&index, &other_state));
        let other_commit = Head {
            commit: Some("ffffffffffffffffffffffffffffffffffffffff"),
            ..head
        };
        assert!(!is_current(&index, &other_commit));

        // Without a commit, no sidecar survives.
        let temp = temp_beside(&index).expect("temp");
        let no_commit = Head {
            commit: None,
            state: None,
        };
        install(temp, &index, &no_commit).expect("install");
        assert!(!sidecar_of(&index).exists());

        for name in [
            "rust-analyzer@tools-gen.scip",
            "scip-python.scip",
            "notes.scip",
        ] {
            std::fs::write(dir.path().join(name), b"x").expect("write");
        }
        std::fs::write(dir.path().join("rust-analyzer@tools-gen.scip.commit"), "x").expect("write");
        let removed = prune(dir.path(), "rust-analyzer", &["rust-analyzer.scip".into()]);
        assert_eq!(removed, [".ckb/rust-analyzer@tools-gen.scip"]);
        assert!(index.exists());
        assert!(dir.path().join("scip-python.scip").exists());
        assert!(dir.path().join("notes.scip").exists());
        assert!(!dir
            .path()
            .join("rust-analyzer@tools-gen.scip.commit")
            .exists());
    }
}
