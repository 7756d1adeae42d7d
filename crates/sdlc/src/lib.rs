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
pub mod meta_edit;
pub mod project_state;
pub mod run;
pub mod workitem;

use std::path::PathBuf;

/// What finding and writing runs can refuse; the command layer words the way out.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("no runs in {}", .0.display())]
    NoRuns(PathBuf),
    #[error("no run {run:?} in {}", runs.display())]
    NoSuchRun { run: String, runs: PathBuf },
    #[error("run {0} is completed: completed runs are never written")]
    Completed(String),
}
