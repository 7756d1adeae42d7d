//! Appending to the run's append-only ledgers (A.4, A.7): one whole line per write, never a
//! rewrite. A ledger whose last line was torn by an earlier crash is not extended: the new line
//! starts on a line of its own, and the torn one stays as it is, reported by the readers.

use serde_json::{json, Value};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// The actor git-ucg writes as.
pub const ACTOR: &str = "git-ucg";

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
        "ts": jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
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

/// Appends one line to an existing ledger in a single write, then syncs it. The file must exist
/// (a ledger is never created here).
pub fn append(path: &Path, line: &str) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .append(true)
        .open(path)?;
    let len = file.metadata()?.len();
    let mut torn = false;
    if len > 0 {
        let mut last = [0u8; 1];
        file.seek(SeekFrom::Start(len - 1))?;
        file.read_exact(&mut last)?;
        torn = last[0] != b'\n';
    }
    let mut bytes = Vec::with_capacity(line.len() + 2);
    if torn {
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    file.write_all(&bytes)?;
    file.sync_all()
}
