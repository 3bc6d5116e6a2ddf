//! Analyses shared by several commands and by `ckb diff`: the call graph.

pub mod call_graph;
