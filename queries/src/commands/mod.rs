//! One module per `ckb query` command: each reads what it needs from a [`crate::Snapshot`] and
//! returns an [`crate::Answer`] through the one finishing step, [`crate::envelope::respond::finish`].
//!
//! `sql` and `canned` run SQL in the embedded DuckDB instead (`ckb sql`, `ckb query canned`).

pub mod affected_tests;
pub mod arch;
pub mod batch;
pub mod calls;
pub mod canned;
pub mod dead_code;
pub mod doctor;
pub mod explore;
pub mod hierarchy;
pub mod hotspots;
pub mod impact;
pub mod prepare_change;
pub mod refs;
pub mod search;
pub mod sql;
pub mod status;
pub mod symbol;
pub mod understand;
