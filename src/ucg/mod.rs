//! UltraCode Goal's on-disk formats (formats/ucg.md), as pure functions over bytes.

pub mod budget;
pub mod decision_log;
pub mod decisions;
pub mod epic;
pub mod escalations;
pub mod gate;
pub mod heartbeat;
pub mod ids;
pub mod ledger;
pub mod markers;
pub mod pending;
pub mod reds;
pub mod registry;
pub mod resolve;
pub mod resume;
pub mod runs;
pub mod sprint;
pub mod status;
