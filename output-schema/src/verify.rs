//! Checking a snapshot folder against its manifest (`ckb verify`).
//!
//! Every written table must exist, have the recorded size, hash and row count, and carry exactly
//! the columns and types this build declares for it; every view must match its hash and decode
//! into the struct this build declares for it ([`crate::views`]). At [`Depth::Rows`] (`ckb
//! verify`) every table's rows are read too: they must be in the table's declared order and
//! repeat no unique key. The report names each failing file so a user knows what is wrong, not
//! just that something is.
//!
//! The pipeline runs the file check ([`Depth::Files`]) on a previous snapshot before reusing any
//! of its rows ([`verify_against`]), so it is as cheap as it can be: the files are checked side by side
//! (rayon), and a file is read only after its size, taken without following symlinks, matches
//! the manifest (a symlink to `/dev/zero` or a huge file costs nothing). ckb never writes a
//! symlink into a snapshot, so one is a failure, never followed.

use std::fs::File;
use std::path::Path;

use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use rayon::prelude::*;
use serde::Serialize;

use crate::manifest::{decompress, file_hash, FileEntry, Manifest};
use crate::views::view_info;
use crate::{layout, table_info, FormatError};

/// Result of verifying one file.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileCheck {
    /// Table or view name.
    pub name: String,
    /// File relative to the snapshot.
    pub file: String,
    /// Whether the file matches the manifest and schema.
    pub ok: bool,
    /// What is wrong, when not ok.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// Result of verifying a snapshot.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VerifyReport {
    /// Schema version of the snapshot.
    pub schema_version: u32,
    /// One check per table and view.
    pub files: Vec<FileCheck>,
}

impl VerifyReport {
    /// Whether every file passed.
    pub fn ok(&self) -> bool {
        self.files.iter().all(|f| f.ok)
    }
}

/// Reads and decodes a snapshot's manifest.
/// A manifest that is a symlink is refused unread: ckb never writes one, and one committed into a
/// repository's store could point anywhere (`/dev/zero` would never finish reading).
pub fn read_manifest(snapshot: &Path) -> Result<Manifest, FormatError> {
    let path = snapshot.join(layout::MANIFEST_FILE);
    let io = |source| FormatError::Io {
        path: path.display().to_string(),
        source,
    };
    let meta = std::fs::symlink_metadata(&path).map_err(io)?;
    if meta.file_type().is_symlink() {
        return Err(io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "is a symlink (ckb never writes one into a snapshot)",
        )));
    }
    let bytes = std::fs::read(&path).map_err(io)?;
    Manifest::decode(&bytes)
}

/// How far a check reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// Every file against the manifest and the declared schema: sizes, hashes, Parquet footers
    /// and pages, row counts, columns, views decoded. What the pipeline checks of a previous
    /// snapshot and `ckb query doctor` of the newest.
    Files,
    /// [`Depth::Files`], then every table's rows decoded: in the declared order, no unique key
    /// twice. What `ckb verify` checks; it costs a read of every row.
    Rows,
}

/// Verifies every table and view of a snapshot. Errors only when the manifest itself is unusable;
/// problems with individual files are reported in the result.
pub fn verify_snapshot(snapshot: &Path, depth: Depth) -> Result<VerifyReport, FormatError> {
    let manifest = read_manifest(snapshot)?;
    Ok(verify_against(snapshot, &manifest, depth))
}

/// Verifies the files of `snapshot` against `manifest` (already read from it): the same checks
/// as [`verify_snapshot`], one file per rayon task, reported in manifest order.
pub fn verify_against(snapshot: &Path, manifest: &Manifest, depth: Depth) -> VerifyReport {
    let tables = manifest.tables.iter().map(|e| (e, Kind::Table));
    let views = manifest.views.iter().map(|e| (e, Kind::View));
    let json_tables = manifest.json_tables.iter().map(|e| (e, Kind::Bytes));
    let entries: Vec<(&FileEntry, Kind)> = tables.chain(views).chain(json_tables).collect();
    let files = entries
        .par_iter()
        .map(|&(entry, kind)| {
            let problem = match kind {
                Kind::Table => check_table(snapshot, entry, depth),
                Kind::View => check_view(snapshot, entry).err(),
                Kind::Bytes => check_bytes(snapshot, &entry.file, entry.bytes, &entry.hash).err(),
            };
            FileCheck {
                name: entry.name.clone(),
                file: entry.file.clone(),
                ok: problem.is_none(),
                problem,
            }
        })
        .collect();
    VerifyReport {
        schema_version: manifest.schema_version,
        files,
    }
}

/// What a manifest entry is checked as.
#[derive(Clone, Copy)]
enum Kind {
    /// A Parquet table: bytes, rows and declared columns.
    Table,
    /// A view: bytes, then it decodes into its declared struct.
    View,
    /// Any other file (JSON Lines copies): bytes only.
    Bytes,
}

/// A view must be declared by this build, match the manifest, and decode into its struct.
fn check_view(snapshot: &Path, entry: &FileEntry) -> Result<(), String> {
    let Some(info) = view_info(&entry.name) else {
        return Err(format!("unknown view {}", entry.name));
    };
    check_bytes(snapshot, &entry.file, entry.bytes, &entry.hash)?;
    let data =
        std::fs::read(snapshot.join(&entry.file)).map_err(|e| format!("cannot read: {e}"))?;
    let json = decompress(&data).map_err(|e| format!("not zstd-compressed JSON: {e}"))?;
    (info.check)(&json).map_err(|e| format!("does not decode as the {} view: {e}", info.name))
}

fn check_bytes(snapshot: &Path, file: &str, bytes: i64, hash: &str) -> Result<(), String> {
    let inside = Path::new(file)
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)));
    if !inside || file.is_empty() {
        return Err("manifest names a file outside the snapshot".into());
    }
    // Every folder on the way and the file itself, without following a symlink.
    let mut path = snapshot.to_path_buf();
    let mut meta = None;
    for part in Path::new(file).components() {
        path.push(part);
        let m = std::fs::symlink_metadata(&path).map_err(|e| format!("cannot read: {e}"))?;
        if m.file_type().is_symlink() {
            return Err("is a symlink (ckb never writes one into a snapshot)".into());
        }
        meta = Some(m);
    }
    let Some(size) = meta.filter(|m| m.is_file()).map(|m| m.len()) else {
        return Err("not a regular file".into());
    };
    if i64::try_from(size).ok() != Some(bytes) {
        return Err(format!("size {size} bytes, manifest says {bytes}"));
    }
    let data = std::fs::read(&path).map_err(|e| format!("cannot read: {e}"))?;
    if data.len() as i64 != bytes {
        return Err(format!("size {} bytes, manifest says {bytes}", data.len()));
    }
    if file_hash(&data) != hash {
        return Err("content hash differs from the manifest".into());
    }
    Ok(())
}

fn check_table(snapshot: &Path, entry: &FileEntry, depth: Depth) -> Option<String> {
    let (name, file, rows) = (&entry.name, &entry.file, entry.rows);
    let Some(info) = table_info(name) else {
        return Some(format!("unknown table {name}"));
    };
    if let Err(p) = check_bytes(snapshot, file, entry.bytes, &entry.hash) {
        return Some(p);
    }
    let opened = File::open(snapshot.join(file))
        .map_err(|e| e.to_string())
        .and_then(|f| {
            let metadata = crate::parquet_io::load_metadata(&f).map_err(|e| e.to_string())?;
            let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(
                f.try_clone().map_err(|e| e.to_string())?,
                metadata,
            );
            crate::table_file::TableFile::new(f, builder.metadata())
                .and_then(|t| t.check_all_pages())
                .map_err(|e| e.to_string())?;
            Ok(builder)
        });
    let builder = match opened {
        Ok(b) => b,
        Err(e) => return Some(format!("not readable as Parquet: {e}")),
    };
    let found_rows = builder.metadata().file_metadata().num_rows();
    if found_rows != rows {
        return Some(format!("{found_rows} rows, manifest says {rows}"));
    }
    let declared = (info.schema)();
    let found = builder.schema();
    for field in declared.fields() {
        match found.field_with_name(field.name()) {
            Ok(f) if f.data_type() == field.data_type() => {}
            Ok(f) => {
                return Some(format!(
                    "column {} has type {}, expected {}",
                    field.name(),
                    f.data_type(),
                    field.data_type()
                ))
            }
            Err(_) => return Some(format!("column {} is missing", field.name())),
        }
    }
    match depth {
        Depth::Files => None,
        Depth::Rows => (info.check_rows)(&snapshot.join(file))
            .err()
            .map(|e| e.to_string()),
    }
}
