//! Checking a snapshot folder against its manifest (`ckb verify`).
//!
//! Every written table must exist, have the recorded size, hash and row count, and carry exactly
//! the columns and types this build declares for it; every view must match its hash. The report
//! names each failing file so a user knows what is wrong, not just that something is.

use std::fs::File;
use std::path::Path;

use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde::Serialize;

use crate::manifest::{file_hash, Manifest};
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
pub fn read_manifest(snapshot: &Path) -> Result<Manifest, FormatError> {
    let path = snapshot.join(layout::MANIFEST_FILE);
    let bytes = std::fs::read(&path).map_err(|source| FormatError::Io {
        path: path.display().to_string(),
        source,
    })?;
    Manifest::decode(&bytes)
}

/// Verifies every table and view of a snapshot. Errors only when the manifest itself is unusable;
/// problems with individual files are reported in the result.
pub fn verify_snapshot(snapshot: &Path) -> Result<VerifyReport, FormatError> {
    let manifest = read_manifest(snapshot)?;
    let mut files = Vec::new();
    for entry in &manifest.tables {
        let problem = check_table(
            snapshot,
            &entry.name,
            &entry.file,
            entry.rows,
            entry.bytes,
            &entry.hash,
        );
        files.push(FileCheck {
            name: entry.name.clone(),
            file: entry.file.clone(),
            ok: problem.is_none(),
            problem,
        });
    }
    for entry in manifest.views.iter().chain(&manifest.json_tables) {
        let problem = check_bytes(snapshot, &entry.file, entry.bytes, &entry.hash).err();
        files.push(FileCheck {
            name: entry.name.clone(),
            file: entry.file.clone(),
            ok: problem.is_none(),
            problem,
        });
    }
    Ok(VerifyReport {
        schema_version: manifest.schema_version,
        files,
    })
}

fn check_bytes(snapshot: &Path, file: &str, bytes: i64, hash: &str) -> Result<(), String> {
    if file.contains("..") || file.starts_with('/') {
        return Err("manifest names a file outside the snapshot".into());
    }
    let data = std::fs::read(snapshot.join(file)).map_err(|e| format!("cannot read: {e}"))?;
    if data.len() as i64 != bytes {
        return Err(format!("size {} bytes, manifest says {bytes}", data.len()));
    }
    if file_hash(&data) != hash {
        return Err("content hash differs from the manifest".into());
    }
    Ok(())
}

fn check_table(
    snapshot: &Path,
    name: &str,
    file: &str,
    rows: i64,
    bytes: i64,
    hash: &str,
) -> Option<String> {
    let Some(info) = table_info(name) else {
        return Some(format!("unknown table {name}"));
    };
    if let Err(p) = check_bytes(snapshot, file, bytes, hash) {
        return Some(p);
    }
    let opened = File::open(snapshot.join(file))
        .map_err(|e| e.to_string())
        .and_then(|f| ParquetRecordBatchReaderBuilder::try_new(f).map_err(|e| e.to_string()));
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
    None
}
