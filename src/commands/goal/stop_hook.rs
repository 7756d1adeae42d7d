//! `goal stop-hook`: the ultragoal part of the persistent-mode Stop hook. Claude Code's hook event
//! arrives on stdin; the decision leaves on stdout. Never fails, never exits non-zero: a bug, like
//! any internal error, allows the stop.

use crate::error::Result;
use std::path::Path;
use ucg_ultragoal::hook;

/// The entry point: never fails, never exits non-zero.
pub(crate) fn run(omt_dir_flag: Option<&Path>) -> Result<u8> {
    use std::io::Read as _;
    let mut input = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut input);
    let event = hook::parse_event(&input);
    // Even a bug must not wedge the agent: a panic allows the stop like any internal error.
    let decided = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        hook::decide(&event, omt_dir_flag)
    }));
    let text = match decided {
        Ok(Some(decision)) => decision.to_json(),
        // The reference hook's fail-open literal.
        Ok(None) | Err(_) => "{\"continue\": true}".to_string(),
    };
    crate::output::print(format!("{text}\n"))?;
    Ok(0)
}
