//! Analyses shared by several commands, `ckb diff` and the pictures: the call graph, dependency
//! cycles, the risk model and the ranking of symbols found by name.

pub mod call_graph;
pub mod cycles;
pub mod ranking;
pub mod risk;
