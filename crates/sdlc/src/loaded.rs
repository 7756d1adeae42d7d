//! One run as read from disk — its snapshot, its log and what could not be read — and the status
//! line that summarizes it. Reads only; a completed run is refused before any write.

use super::events::{self, Line, Log};
use super::run::{self, Meta, Reconstruction};
use crate::Error;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// A run as read: the snapshot, the log, and what could not be read.
pub struct Loaded {
    pub id: String,
    pub dir: PathBuf,
    pub meta: Option<Meta>,
    pub meta_bytes: Option<Vec<u8>>,
    pub log: Option<Log>,
    pub warnings: Vec<String>,
}

/// Reads a run; with `phase_lines_only`, only the log lines that could be phase events are parsed
/// (what the status line needs), and malformed lines are not reported.
pub fn load(id: &str, dir: &Path, phase_lines_only: bool) -> Loaded {
    let mut warnings = Vec::new();
    let meta_bytes = match ucg_store::read_if_present(&dir.join(run::META_FILE)) {
        Ok(Some(bytes)) => Some(bytes),
        Ok(None) => {
            warnings.push("meta.json is missing".to_string());
            None
        }
        Err(e) => {
            warnings.push(format!("meta.json cannot be read: {e}"));
            None
        }
    };
    let meta = meta_bytes
        .as_deref()
        .and_then(|bytes| match serde_json::from_slice(bytes) {
            Ok(Value::Object(meta)) => Some(meta),
            Ok(_) => {
                warnings.push("meta.json is not a JSON object".into());
                None
            }
            Err(e) => {
                warnings.push(format!("meta.json is not JSON ({e})"));
                None
            }
        });
    let log = match ucg_store::read_if_present(&dir.join(events::EVENTS_FILE)) {
        Ok(Some(bytes)) if phase_lines_only => Some(events::parse_phase_lines(&bytes)),
        Ok(Some(bytes)) => Some(events::parse(&bytes)),
        Ok(None) => {
            warnings.push("events.jsonl is missing: meta.json alone is shown".into());
            None
        }
        Err(e) => {
            warnings.push(format!("events.jsonl cannot be read: {e}"));
            None
        }
    };
    if let Some(log) = &log {
        if !phase_lines_only {
            for malformed in log.malformed() {
                warnings.push(format!("events.jsonl {malformed}"));
            }
        }
        if !log.malformed().is_empty() {
            warnings.push(
                "events.jsonl does not parse whole: the phases are read from meta.json alone"
                    .into(),
            );
        }
        if log.torn_tail {
            warnings.push(
                "events.jsonl ends without a newline: its last line is torn (left as it is)".into(),
            );
        }
    }
    Loaded {
        id: id.to_string(),
        dir: dir.to_path_buf(),
        meta,
        meta_bytes,
        log,
        warnings,
    }
}

impl Loaded {
    /// The phases as the log has them — only from a log that parses whole: a log with lines that
    /// do not parse is not half-trusted (A.6.2), the snapshot stands alone.
    pub fn reconstruction(&self) -> Reconstruction {
        match &self.log {
            Some(log) if self.log_is_whole() => run::reconstruct(log.events()),
            _ => Reconstruction::default(),
        }
    }

    /// The log is present and every line of it parses.
    pub fn log_is_whole(&self) -> bool {
        self.log.as_ref().is_some_and(|log| {
            log.lines
                .iter()
                .all(|(_, line)| matches!(line, Line::Event(_)))
        })
    }

    pub fn meta_or_empty(&self) -> Meta {
        self.meta.clone().unwrap_or_default()
    }

    pub fn stored_status(&self) -> Option<&str> {
        self.meta.as_ref().and_then(|m| run::text(m, "status"))
    }

    /// The run's id as its events carry it: meta.json's `run_id`, else the directory's name.
    pub fn run_id(&self) -> &str {
        self.meta
            .as_ref()
            .and_then(|m| run::text(m, "run_id"))
            .unwrap_or(&self.id)
    }
}

/// The status line and what stands behind it.
pub struct Summary {
    pub line: String,
    pub doc: Value,
    pub warnings: Vec<String>,
}

/// `repair` is the command that repairs a run, as the caller's command line spells it (a stale
/// snapshot's warning names it, with the run's id).
pub fn summarize(loaded: &Loaded, now: jiff::Timestamp, repair: &str) -> Summary {
    let mut warnings = loaded.warnings.clone();
    let empty = Meta::new();
    let meta = loaded.meta.as_ref().unwrap_or(&empty);
    let recon = loaded.reconstruction();
    warnings.extend(recon.warnings.iter().map(|w| format!("events.jsonl: {w}")));
    let status = match &loaded.meta {
        Some(meta) => run::display_status(meta, now, &mut warnings),
        None => "unknown".into(),
    };
    let phase = run::shown_phase(meta, &recon);
    let changes = run::repairs(meta, &recon);
    if loaded.meta.is_some() && !changes.is_empty() {
        // A completed run is never written: `repair` would refuse it, so it is not suggested.
        let way = match loaded.stored_status() {
            Some("completed") => "the run is completed, so it is left as it is".to_string(),
            _ => format!("`{repair} {}`", loaded.id),
        };
        let described: Vec<String> = (changes.iter())
            .map(|c| format!("{} {} -> {}", c.field, c.from, c.to))
            .collect();
        warnings.push(format!(
            "meta.json is stale against events.jsonl ({}): {way}",
            described.join(", ")
        ));
    }
    let run_id = loaded.run_id();
    let line = run::status_line(run_id, meta, phase, &status);
    let doc = json!({
        "run_id": run_id,
        "dir": loaded.dir.to_string_lossy(),
        "mode": run::text(meta, "mode"),
        "phase": phase,
        "status": status,
        "stored_status": loaded.stored_status(),
        "branch": run::text(meta, "branch"),
        "line": line,
        "warnings": warnings,
    });
    Summary {
        line,
        doc,
        warnings,
    }
}

/// A completed run is never written, whatever the flags.
pub fn refuse_completed(loaded: &Loaded) -> Result<(), Error> {
    if loaded.stored_status() == Some("completed") {
        return Err(Error::Completed(loaded.id.clone()));
    }
    Ok(())
}

/// A rewritten snapshot: two-space JSON and a final newline, key order kept.
pub fn json_bytes(doc: &serde_json::Map<String, Value>) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(doc).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}
