//! UltraCode Goal's on-disk formats (formats/ucg.md), as pure functions over bytes.

pub mod decisions;
pub mod ids;
pub mod reds;
pub mod decision_log;
pub mod markers;
pub mod sprint;
