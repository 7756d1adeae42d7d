//! `goal gc`: removes other sessions' state that is no longer live and stale review artifacts,
//! and says what went (or, with `--dry-run`, would go).

use crate::error::Result;
use serde_json::Value;
use std::io::Write;
use ucg_ultragoal::liveness;
use ucg_ultragoal::session::Session;

pub(crate) fn run(session: &Session, dry_run: bool, json: bool) -> Result<u8> {
    let reaped = liveness::gc(session, dry_run);
    if json {
        let files: Vec<Value> = reaped
            .iter()
            .map(|(path, why)| serde_json::json!({"path": path.to_string_lossy(), "reason": why}))
            .collect();
        let doc = serde_json::json!({"schema": "git-ucg.goal-gc/1", "dry_run": dry_run, "removed": files});
        return crate::output::print_json(&doc);
    }
    let verb = if dry_run { "would remove" } else { "removed" };
    let mut out = std::io::stdout().lock();
    for (path, why) in &reaped {
        writeln!(out, "{verb} {} ({why})", path.display())?;
    }
    Ok(0)
}
