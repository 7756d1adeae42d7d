//! UltraCode Goal (docs/formats/ucg.md): its on-disk formats as pure functions over bytes (ids,
//! reds, decisions, escalations, ledger, heartbeat, markers, budget, sprint, runs, decision_log),
//! and the run models built on them (pending, status, epic, gate, registry, resolve, resume, and
//! merge, the merge driver's three-way merges).

pub mod answer;
pub mod answer_only;
pub mod attributes;
pub mod branch;
pub mod budget;
pub mod bypass;
pub mod config;
pub mod deciders;
pub mod decision_log;
pub mod decisions;
pub mod epic;
pub mod error;
pub mod escalations;
pub mod gate;
pub mod gate_cache;
pub mod heartbeat;
pub mod ids;
pub mod ledger;
pub mod markers;
pub mod merge;
pub mod notify;
pub mod pending;
pub mod prompt_cache;
pub mod reds;
pub mod reference_status;
pub mod registry;
pub mod resolve;
pub mod resume;
pub mod runs;
pub mod similarity;
pub mod sprint;
pub mod status;

/// The environment variable that names the artifact directory, over the configuration (as the
/// reference's scripts read it).
pub const IMPL_ARTIFACTS_ENV: &str = "ULTRACODE_IMPL_ARTIFACTS";

/// The environment variable that names the story in flight, over `.current-story`.
pub const STORY_ENV: &str = "ULTRACODE_STORY_ID";

/// The artifact directory, relative to the project root, when neither the environment nor a
/// configuration layer names one (the built-in defaults say the same, a test holds it).
pub const DEFAULT_IMPL_DIR: &str = "_bmad-output/implementation-artifacts";
