//! The answer envelope every command returns and what shapes it: the [`answer::Answer`] type,
//! errors, budgets, the one finishing step (`respond::finish`: compression, drilldowns,
//! warnings), the fact shapes commands share, and rendering as JSON, text or markdown.

pub mod answer;
pub mod budget;
pub mod error;
pub mod facts;
pub mod render;
pub mod respond;
