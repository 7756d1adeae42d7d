//! agentic-sdlc heavy-pipeline runs (docs/formats/sdlc.md): the runs under
//! `docs/superpowers/runs/`, their snapshot and event log, and the deterministic versions of the
//! rules its skill leaves to an agent — the log beats the snapshot, completed runs are immutable,
//! corrections are appended, never rewritten.

pub mod events;
pub mod layout;
pub mod ledger;
pub mod list_cache;
pub mod loaded;
pub mod markdown;
pub mod run;
pub mod workitem;
