//! Reading ckb snapshots: `ckb query`, `ckb diff` and SQL over the snapshot store.
//!
//! A [`Snapshot`] is opened from its folder (manifest checked, schema version refused when newer);
//! each command turns it into an [`Answer`] — facts, explanation, provenance, drilldowns and
//! compression — which [`render`] prints as JSON (canonical, byte-deterministic), human text or
//! markdown. [`sql`] runs user SQL read-only in an embedded DuckDB with one view per table.
//!
//! Architecture invariant: this crate reads only what `output-schema` declares and never depends
//! on `pipeline`; facts it cannot compute from a snapshot (the working tree's current HEAD) are
//! handed in by the caller as a [`Freshness`].

pub mod affected_tests;
pub mod answer;
pub mod arch;
pub mod batch;
pub mod budget;
pub mod canned;
pub mod coverage;
pub mod dead_code;
pub mod diff;
pub mod doctor;
pub mod error;
pub mod explore;
pub mod facts;
pub mod graph;
pub mod history;
pub mod impact;
pub mod prepare_change;
pub mod read;
pub mod refs;
pub mod render;
pub mod resolve;
pub mod respond;
pub mod search;
pub mod snapshot;
pub mod sql;
pub mod status;
pub mod symbol;
pub mod target;
pub mod understand;

pub use answer::{Answer, Drilldown};
pub use budget::{Budget, Overrides};
pub use error::QueryError;
pub use respond::Ctx;
pub use snapshot::{Freshness, Snapshot};
