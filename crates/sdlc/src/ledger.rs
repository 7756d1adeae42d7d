//! Appending to the run's append-only ledgers (A.4, A.7): one whole line per write, never a
//! rewrite. A ledger whose last line was torn by an earlier crash is not extended: the new line
//! starts on a line of its own, and the torn one stays as it is, reported by the readers.

use serde_json::{json, Value};

/// The actor git-ucg writes as.
pub(crate) const ACTOR: &str = "git-ucg";

/// One event line in the ledger's shape (A.4), without its newline.
pub fn event_line(
    run_id: &str,
    event: &str,
    summary: &str,
    artifacts: &[&str],
    data: Value,
) -> String {
    json!({
        "schema": 1,
        "ts": super::workitem::now(),
        "event": event,
        "run_id": run_id,
        "phase": null,
        "actor": ACTOR,
        "summary": summary,
        "artifacts": artifacts,
        "data": data,
    })
    .to_string()
}
