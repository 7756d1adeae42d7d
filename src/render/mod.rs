//! Renderers for people: git-style diff summaries and the epic table.

pub mod diffstat;
pub mod status_human;
pub mod status_markdown;
