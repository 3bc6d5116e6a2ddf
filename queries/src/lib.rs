//! Reading ckb snapshots: `ckb query`, `ckb diff` and SQL over the snapshot store.
//!
//! A [`Snapshot`] is opened from its folder (manifest checked, schema version refused when newer);
//! each command turns it into an [`Answer`] — facts, explanation, provenance, drilldowns and
//! compression — which [`render`] prints as JSON (canonical, byte-deterministic), human text or
//! markdown. [`diff`] compares two snapshots (`ckb diff`). [`sql`] runs user SQL read-only in an
//! embedded DuckDB with one view per table.
//!
//! Architecture invariant: this crate reads only what `output-schema` declares and never depends
//! on `pipeline`; facts it cannot compute from a snapshot (the working tree's current HEAD) are
//! handed in by the caller as a [`Freshness`].

pub mod answer;
pub mod canned;
pub mod diff;
pub mod error;
pub mod render;
pub mod snapshot;
pub mod sql;
pub mod status;

pub use answer::{Answer, Drilldown};
pub use error::QueryError;
pub use snapshot::{Freshness, Snapshot};
