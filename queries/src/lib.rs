//! Reading ckb snapshots: `ckb query`, `ckb diff` and SQL over the snapshot store.
//!
//! A [`Snapshot`] is opened from its folder (manifest checked, schema version refused when newer);
//! each command turns it into an [`Answer`] — facts, explanation, provenance, drilldowns and
//! compression — which [`envelope::render`] prints as JSON (canonical, byte-deterministic), human text or
//! markdown. [`commands::sql`] runs user SQL read-only in an embedded DuckDB with one view per table.
//!
//! Architecture invariant: this crate reads only what `output-schema` declares and never depends
//! on `pipeline`; facts it cannot compute from a snapshot (the working tree's current HEAD) are
//! handed in by the caller as a [`Freshness`].

pub mod analysis;
pub mod commands;
pub mod diff;
pub mod envelope;
pub mod snapshot;

pub use envelope::answer::{Answer, Drilldown};
pub use envelope::budget::{Budget, Overrides};
pub use envelope::error::QueryError;
pub use envelope::respond::Ctx;
pub use snapshot::{Freshness, Snapshot};
