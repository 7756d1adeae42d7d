//! `git ucg goal`: the ultragoal state machine against real files in a temporary `OMT_DIR`. The
//! numbered behaviours are those of docs/formats/ultragoal.md §6.

mod completion;
mod differences;
mod hardening;
mod hook;
mod invariants;
mod locking;
mod paths;
mod phases;
mod stories;
mod support;
mod views;
