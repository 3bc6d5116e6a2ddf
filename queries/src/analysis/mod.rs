//! Analyses shared by several commands and by `ckb diff`: the call graph and the risk model.

pub mod call_graph;
pub mod risk;
