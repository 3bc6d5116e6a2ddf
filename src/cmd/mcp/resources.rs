//! The MCP resources: the manifest of the snapshot the server reads now, the snapshot format
//! (`ckb schema --format json`) and the snapshot's architecture view.
//!
//! The snapshot resources follow the store like the tools do: each read locates the snapshot
//! again, so a newer one is served once it is published. Their text is canonical JSON (the
//! manifest and the view as stored, decompressed). A snapshot that cannot be found or read is
//! the resource-not-found error carrying ckb's code and remediation.

use output_schema::views::ArchitectureView;
use queries::{Budget, Ctx, QueryError};
use serde_json::{json, Value};

use super::rpc::{RpcError, RESOURCE_NOT_FOUND};
use super::Place;
use crate::cmd::query::Locator;

/// The snapshot's manifest.
pub const MANIFEST: &str = "ckb://snapshot/manifest";
/// Every table and view of the snapshot format.
pub const SCHEMA: &str = "ckb://schema";
/// The snapshot's architecture view.
pub const ARCHITECTURE: &str = "ckb://snapshot/architecture";

/// `resources/list`'s resources.
pub fn list() -> Vec<Value> {
    let one = |uri: &str, name: &str, title: &str, description: &str| {
        json!({"uri": uri, "name": name, "title": title, "description": description,
               "mimeType": "application/json"})
    };
    vec![
        one(
            MANIFEST,
            "manifest",
            "Snapshot manifest",
            "The manifest of the snapshot the tools read now: repository state, backends with their \
             freshness, one report per stage (completeness, warnings), every table and view with \
             rows and hash.",
        ),
        one(
            SCHEMA,
            "schema",
            "Snapshot format",
            "Every table (columns, types, sort key, producing stage) and view of ckb's snapshot \
             format, as `ckb schema --format json` prints it: what the `sql` tool can query.",
        ),
        one(
            ARCHITECTURE,
            "architecture",
            "Architecture view",
            "The snapshot's precomputed architecture view: modules, classified dependency edges \
             and entry points, in full (the `arch` tool answers within budgets).",
        ),
    ]
}

fn unavailable(uri: &str, e: &QueryError) -> RpcError {
    RpcError::new(
        RESOURCE_NOT_FOUND,
        format!("{uri} is not available: {} ({})", e.message, e.code),
    )
    .with_data(json!({"uri": uri, "code": e.code.to_string(), "remediation": e.remediation}))
}

/// The text of one resource.
pub fn read(uri: &str, place: &Place, locator: &Locator<'_>) -> Result<String, RpcError> {
    let locate = || {
        locator(
            place.snapshot.as_deref(),
            place.store.as_deref(),
            place.repo.as_deref(),
        )
    };
    match uri {
        SCHEMA => Ok(crate::cmd::schema::all_json()),
        MANIFEST => {
            let (snapshot, _) = locate().map_err(|e| unavailable(uri, &e))?;
            pretty(output_schema::json::to_string_pretty(&snapshot.manifest))
        }
        ARCHITECTURE => {
            let (snapshot, freshness) = locate().map_err(|e| unavailable(uri, &e))?;
            let ctx = Ctx {
                snapshot: &snapshot,
                freshness: &freshness,
                budget: Budget::default(),
            };
            match queries::commands::arch::read_view::<ArchitectureView>(&ctx) {
                Ok(Some(view)) => pretty(output_schema::json::to_string_pretty(&view)),
                Ok(None) => Err(RpcError::new(
                    RESOURCE_NOT_FOUND,
                    format!("{uri}: the snapshot has no architecture view (the modules stage did not run)"),
                )
                .with_data(json!({"uri": uri, "remediation": "snapshot with the modules stage: `ckb snapshot`"}))),
                Err(e) => Err(unavailable(uri, &e)),
            }
        }
        _ => Err(
            RpcError::new(RESOURCE_NOT_FOUND, format!("no resource {uri}"))
                .with_data(json!({"uri": uri, "resources": [MANIFEST, SCHEMA, ARCHITECTURE]})),
        ),
    }
}

/// Canonical JSON text, as the CLI prints it.
fn pretty(json: Result<String, serde_json::Error>) -> Result<String, RpcError> {
    json.map(|text| text + "\n")
        .map_err(|e| RpcError::new(super::rpc::INTERNAL_ERROR, format!("cannot encode: {e}")))
}
