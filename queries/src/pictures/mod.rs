//! Pictures of a snapshot for people who look rather than read: the module graph as Mermaid or
//! DOT text (`ckb query arch --format mermaid|dot`), the impact graph of `ckb diff`'s markdown,
//! and graphs laid out as SVG for `ckb report`.
//!
//! `graph` is the one model every picture is drawn from (nodes, edges, notes) with its Mermaid
//! and DOT writers; `arch` and `impact` build it from an `arch` answer and a diff's impact; `svg`
//! lays it out with the `layout-rs` crate and writes SVG. Everything here is a pure function of
//! its input: the same answer gives the same text.

pub mod arch;
pub mod graph;
pub mod impact;
pub mod svg;
