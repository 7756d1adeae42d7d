//! DG-Anvil's lesson ledger (docs/formats/lesson.md), compatible with its files, with the
//! hazards of its reference implementation fixed: all lines validated before any is written, a
//! corrupt index detected before the ledger is touched, malformed lines skipped (not fatal) when
//! querying, non-string lessons refused, and the reset loop of its skill made deterministic.

pub mod anvil_yaml;
pub mod argv;
pub mod audit;
pub mod contract;
pub mod entry;
pub mod index;
pub mod js;
pub mod ledger;
pub mod query;
pub mod query_index;
pub mod record;
pub mod skim;
pub mod state;
