// @generated

pub mod scip;
