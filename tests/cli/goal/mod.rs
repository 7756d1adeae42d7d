//! `git ucg goal`: the ultragoal state machine against real files in a temporary `OMT_DIR`. The
//! numbered behaviours are those of formats/ultragoal.md §6.

mod paths;
mod support;
