//! Analyses shared by several commands and by `ckb diff`: the call graph, the risk model and the
//! ranking of symbols found by name.

pub mod call_graph;
pub mod ranking;
pub mod risk;
