//! Analyses shared by several commands, `ckb diff` and the pictures: the call graph, dependency
//! cycles and the risk model.

pub mod call_graph;
pub mod cycles;
pub mod risk;
