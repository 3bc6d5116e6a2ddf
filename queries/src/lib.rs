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

/// An enum whose values print and serialize as fixed strings (`as_str`, `Display`, `Serialize`
/// all use the one table), ordered as declared.
macro_rules! named_enum {
    ($(#[$m:meta])* pub enum $name:ident { $($(#[$vm:meta])* $variant:ident => $s:literal,)+ }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name {
            $($(#[$vm])* $variant,)+
        }

        impl $name {
            /// The string answers print.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $s,)+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}

pub mod analysis;
pub mod commands;
pub mod diff;
pub mod envelope;
pub mod pictures;
pub mod report;
pub mod snapshot;

pub use envelope::answer::{Answer, Drilldown};
pub use envelope::budget::{Budget, Overrides};
pub use envelope::error::QueryError;
pub use envelope::respond::Ctx;
pub use snapshot::{Freshness, Snapshot};
