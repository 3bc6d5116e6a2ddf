//! Streaming reader of a SCIP `Index` file: one top-level field at a time, never the whole index.
//!
//! A SCIP file is one protobuf `Index` message whose fields are `metadata` (1), the repeated
//! `documents` (2) and the repeated `external_symbols` (3). Decoding it with `Index::parse_from_bytes`
//! holds the file *and* every decoded document in memory at once. This reader walks the top-level
//! fields with protobuf's `CodedInputStream` instead and hands each one to a callback: metadata
//! decoded, documents and external symbols as their raw bytes, so the caller decides how many to
//! decode at once (the stage decodes batches in parallel) and memory stays bounded by the batch.
//!
//! Framing is checked against the file size before anything is read or allocated: a length prefix
//! that claims more bytes than the file holds is a truncated or corrupt file, reported as a
//! [`ReadError`] with the byte offset, never a panic or a huge allocation.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use protobuf::rt::WireType;
use protobuf::CodedInputStream;
use scip::types::Metadata;

/// `Index.metadata`.
const FIELD_METADATA: u32 = 1;
/// `Index.documents`.
const FIELD_DOCUMENTS: u32 = 2;
/// `Index.external_symbols`.
const FIELD_EXTERNAL_SYMBOLS: u32 = 3;

/// The largest `metadata` field read: real ones hold a tool name, version and arguments, a
/// project root and an encoding — a few hundred bytes. A larger one makes the file no index.
pub const MAX_METADATA_BYTES: u64 = 1 << 20;

/// One top-level field of the index.
#[derive(Debug)]
pub enum Item {
    /// `metadata`, decoded.
    Metadata(Metadata),
    /// One `Document`, encoded.
    Document(Vec<u8>),
    /// One `Document` above the size limit; its bytes were skipped, not read into memory.
    OversizedDocument {
        /// Its encoded size.
        bytes: u64,
    },
    /// One external `SymbolInformation`, encoded.
    ExternalSymbol(Vec<u8>),
    /// A document (field 2) or external symbol (field 3) skipped unread in a metadata-only pass.
    Skipped {
        /// The field number.
        field: u32,
    },
    /// A top-level field this reader does not know; skipped.
    Unknown,
}

/// Why a file cannot be read as a SCIP index.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadError {
    /// Byte offset where the problem was found.
    pub offset: u64,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "at byte {}: {}", self.offset, self.message)
    }
}

/// Limits that keep memory bounded whatever the file claims.
#[derive(Clone, Copy, Debug)]
pub struct ReadLimits {
    /// Documents larger than this are skipped without being read.
    pub max_document_bytes: u64,
    /// Skip every document and external symbol without reading them (a metadata-only pass).
    pub metadata_only: bool,
}

/// Reads the index at `path`, calling `sink` for each top-level field in file order. `sink` may stop
/// the walk by returning an error, which is passed through.
pub fn read_index<E>(
    path: &Path,
    limits: ReadLimits,
    mut sink: impl FnMut(Item) -> Result<(), E>,
) -> Result<Result<(), E>, ReadError>
where
    E: std::fmt::Debug,
{
    let file = File::open(path).map_err(|e| ReadError {
        offset: 0,
        message: format!("cannot open: {e}"),
    })?;
    let file_len = file
        .metadata()
        .map_err(|e| ReadError {
            offset: 0,
            message: format!("cannot read its size: {e}"),
        })?
        .len();
    if file_len == 0 {
        return Err(ReadError {
            offset: 0,
            message: "the file is empty".into(),
        });
    }
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut cis = CodedInputStream::from_buf_read(&mut reader);
    let wire = |offset: u64, e: protobuf::Error| ReadError {
        offset,
        message: format!("not a SCIP index: {e}"),
    };
    loop {
        let at = cis.pos();
        let Some(tag) = cis.read_raw_tag_or_eof().map_err(|e| wire(at, e))? else {
            break;
        };
        let field = tag >> 3;
        let wire_type = WireType::new(tag & 7).ok_or_else(|| ReadError {
            offset: at,
            message: format!(
                "not a SCIP index: invalid wire type {} in field {field}",
                tag & 7
            ),
        })?;
        let known = matches!(
            field,
            FIELD_METADATA | FIELD_DOCUMENTS | FIELD_EXTERNAL_SYMBOLS
        );
        if !known || wire_type != WireType::LengthDelimited {
            if field == 0 || matches!(wire_type, WireType::StartGroup | WireType::EndGroup) {
                return Err(ReadError {
                    offset: at,
                    message: format!(
                        "not a SCIP index: field {field} with wire type {wire_type:?}"
                    ),
                });
            }
            cis.skip_field(wire_type).map_err(|e| wire(at, e))?;
            if let Err(e) = sink(Item::Unknown) {
                return Ok(Err(e));
            }
            continue;
        }
        let len_at = cis.pos();
        let len = cis.read_raw_varint64().map_err(|e| wire(len_at, e))?;
        let remaining = file_len.saturating_sub(cis.pos());
        if len > remaining {
            return Err(ReadError {
                offset: at,
                message: format!(
                    "truncated: field {field} claims {len} bytes but only {remaining} remain"
                ),
            });
        }
        // Protobuf messages are limited to 2 GiB; the stream reads lengths as u32.
        let len32 = u32::try_from(len).map_err(|_| ReadError {
            offset: at,
            message: format!("field {field} of {len} bytes exceeds the protobuf limit"),
        })?;
        let item = match field {
            FIELD_METADATA if len > MAX_METADATA_BYTES => {
                return Err(ReadError {
                    offset: at,
                    message: format!(
                        "its metadata of {len} bytes is over the limit of {MAX_METADATA_BYTES} \
                         (an index's metadata names its tool and project root in a few hundred)"
                    ),
                });
            }
            FIELD_METADATA => {
                let bytes = cis.read_raw_bytes(len32).map_err(|e| wire(at, e))?;
                let meta = <Metadata as protobuf::Message>::parse_from_bytes(&bytes)
                    .map_err(|e| wire(at, e))?;
                Item::Metadata(meta)
            }
            _ if limits.metadata_only => {
                cis.skip_raw_bytes(len32).map_err(|e| wire(at, e))?;
                Item::Skipped { field }
            }
            FIELD_DOCUMENTS if len > limits.max_document_bytes => {
                cis.skip_raw_bytes(len32).map_err(|e| wire(at, e))?;
                Item::OversizedDocument { bytes: len }
            }
            FIELD_DOCUMENTS => Item::Document(cis.read_raw_bytes(len32).map_err(|e| wire(at, e))?),
            _ => Item::ExternalSymbol(cis.read_raw_bytes(len32).map_err(|e| wire(at, e))?),
        };
        if let Err(e) = sink(item) {
            return Ok(Err(e));
        }
    }
    Ok(Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use protobuf::Message;
    use scip::types::{Document, Index, ToolInfo};

    fn index_bytes() -> Vec<u8> {
        let mut index = Index::new();
        let mut meta = Metadata::new();
        let mut tool = ToolInfo::new();
        tool.name = "t".into();
        meta.tool_info = Some(tool).into();
        index.metadata = Some(meta).into();
        for p in ["a.rs", "b.rs"] {
            let mut d = Document::new();
            d.relative_path = p.into();
            index.documents.push(d);
        }
        index.write_to_bytes().unwrap()
    }

    fn collect(path: &Path, limits: ReadLimits) -> Result<Vec<String>, ReadError> {
        let mut seen = Vec::new();
        read_index::<()>(path, limits, |item| {
            seen.push(match item {
                Item::Metadata(m) => format!("meta {}", m.tool_info.name),
                Item::Document(b) => {
                    format!(
                        "doc {}",
                        Document::parse_from_bytes(&b).unwrap().relative_path
                    )
                }
                Item::OversizedDocument { bytes } => format!("oversized {bytes}"),
                Item::ExternalSymbol(_) => "ext".into(),
                Item::Skipped { field } => format!("skipped {field}"),
                Item::Unknown => "unknown".into(),
            });
            Ok(())
        })?
        .unwrap();
        Ok(seen)
    }

    const LIMITS: ReadLimits = ReadLimits {
        max_document_bytes: 1 << 20,
        metadata_only: false,
    };

    #[test]
    fn walks_fields_in_order_and_skips_oversized_documents() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("index.scip");
        std::fs::write(&p, index_bytes()).unwrap();
        assert_eq!(
            collect(&p, LIMITS).unwrap(),
            ["meta t", "doc a.rs", "doc b.rs"]
        );
        let small = ReadLimits {
            max_document_bytes: 3,
            metadata_only: false,
        };
        assert_eq!(
            collect(&p, small).unwrap(),
            ["meta t", "oversized 6", "oversized 6"]
        );
        let meta_only = ReadLimits {
            max_document_bytes: 1 << 20,
            metadata_only: true,
        };
        assert_eq!(
            collect(&p, meta_only).unwrap(),
            ["meta t", "skipped 2", "skipped 2"]
        );
    }

    #[test]
    fn truncation_and_garbage_are_errors_with_offsets() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("index.scip");
        let bytes = index_bytes();
        for cut in 1..bytes.len() {
            std::fs::write(&p, &bytes[..cut]).unwrap();
            // A cut exactly between two fields is a shorter valid stream; anything else must fail.
            if let Ok(items) = collect(&p, LIMITS) {
                assert!(items.len() < 3, "cut {cut}: {items:?}");
            }
        }
        std::fs::write(&p, &bytes[..bytes.len() - 1]).unwrap();
        let err = collect(&p, LIMITS).unwrap_err();
        assert!(err.message.contains("truncated"), "{err}");
        std::fs::write(&p, b"").unwrap();
        assert!(collect(&p, LIMITS).unwrap_err().message.contains("empty"));
        // A length prefix claiming 2^62 bytes must not allocate.
        std::fs::write(
            &p,
            [0x12, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40],
        )
        .unwrap();
        assert!(collect(&p, LIMITS)
            .unwrap_err()
            .message
            .contains("truncated"));
    }
}
