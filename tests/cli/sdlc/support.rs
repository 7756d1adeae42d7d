//! The fixtures every sdlc test shares: the runs directory, a run with its meta.json and log, the
//! command.

use crate::common::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Output;

pub(super) const RUNS: &str = "docs/superpowers/runs";
pub(super) const WORK_ITEMS: &str = "docs/superpowers/work-items";
pub(super) const ID: &str = "20260714-1200-feat-rate-limit";
pub(super) const TASK: &str = "Add rate limiting to the public API (PROJ-1234)";
pub(super) const HOUR: i64 = 3600;
pub(super) const MIN: i64 = 60;

/// The phase map (A.3), for the prompts.
pub(super) const PHASE_NAMES: [&str; 13] = [
    "Doctor + memory load",
    "Requirements",
    "Feature branch",
    "Complexity scoring",
    "Spec (conditional)",
    "Plan",
    "QA Checklist",
    "Implementation",
    "QA Test Review",
    "Final code review (two rounds)",
    "QA gates (+ feature verification)",
    "QA Health Update",
    "Handoff",
];

// ------------------------------------------------------------------------------------------------
// Helpers

pub(super) fn now_minus(seconds: i64) -> jiff::Timestamp {
    jiff::Timestamp::now()
        .checked_sub(jiff::SignedDuration::from_secs(seconds))
        .expect("a timestamp in range")
}

/// `seconds` ago, as the runs write it (`%Y-%m-%dT%H:%M:%SZ`).
pub(super) fn ago(seconds: i64) -> String {
    now_minus(seconds)
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// `seconds` ago at a fixed UTC offset of `hours`, e.g. `2026-07-14T14:00:00+02:00`.
pub(super) fn ago_at_offset(seconds: i64, hours: i8) -> String {
    let zone = jiff::tz::TimeZone::fixed(jiff::tz::offset(hours));
    now_minus(seconds)
        .to_zoned(zone)
        .strftime("%Y-%m-%dT%H:%M:%S%:z")
        .to_string()
}

/// `seconds` ago in UTC, written without any offset.
pub(super) fn ago_without_offset(seconds: i64) -> String {
    now_minus(seconds).strftime("%Y-%m-%dT%H:%M:%S").to_string()
}

/// One event line in the full A.4 shape.
pub(super) fn event_line(run_id: &str, event: &str, phase: Option<u8>) -> String {
    json!({
        "schema": 1, "ts": ago(HOUR + 30 * MIN), "event": event, "run_id": run_id,
        "phase": phase, "actor": "sdlc-engine", "summary": format!("{event} {phase:?}"),
        "artifacts": [], "data": {},
    })
    .to_string()
}

/// A work-item ledger line (`phase: null`).
pub(super) fn wi_line(run_id: &str, event: &str, data: Value) -> String {
    json!({
        "schema": 1, "ts": "2026-07-14T13:00:00Z", "event": event, "run_id": run_id,
        "phase": null, "actor": "sdlc-engine", "summary": event, "artifacts": [], "data": data,
    })
    .to_string()
}

/// The exact adapter-receipt line layout `ticket-sync` writes (A.4).
pub(super) fn receipt(run_id: &str, status: &str, ts: &str) -> String {
    format!(
        "{{\"schema\":1,\"ts\":\"{ts}\",\"event\":\"work_item.adapter_receipt\",\"run_id\":\"{run_id}\",\
\"phase\":null,\"actor\":\"ticket-sync\",\"summary\":\"ticket-sync: PROJ-1234 → DEV ({status})\",\
\"artifacts\":[],\"data\":{{\"status\":\"{status}\",\"state\":\"DEV\",\"work_item_id\":\"PROJ-1234\",\
\"target_state\":\"DEV\",\"triggered_by\":\"hook\",\"response_excerpt\":\"moved\"}}}}"
    )
}

/// A work-item Markdown document (the lifecycle-artifacts template).
pub(super) fn work_item(fields: &[(&str, &str)], history: &[&str]) -> String {
    let mut md = String::from("# Rate limiting for the public API\n\n");
    for (key, value) in fields {
        md += &format!("**{key}**: {value}\n");
    }
    md += "\n## Acceptance Criteria\n- 429 after 100 requests a minute\n\n## History\n";
    for row in history {
        md += &format!("- {row}\n");
    }
    md
}

pub(super) fn item_fields(status: &str) -> Vec<(&str, &str)> {
    vec![
        ("Status", status),
        ("Assignee", "Ada Operator"),
        ("Reporter", "Product"),
        ("Branch", "feat-rate-limit"),
        ("External Ticket", "PROJ-1234"),
        ("Source Story/Task", "docs/prd.md"),
    ]
}

/// A run directory under construction: its `meta.json` and the lines of its `events.jsonl`.
pub(super) struct Run {
    pub(super) id: String,
    pub(super) dir: PathBuf,
    pub(super) meta: Value,
    pub(super) log: Option<Vec<String>>,
}

impl Run {
    /// A `hitl` run, `running`, started two hours ago, at phase 0 with no phases recorded and an
    /// empty event log.
    pub(super) fn new(repo: &Path, id: &str) -> Run {
        Run {
            id: id.to_string(),
            dir: repo.join(RUNS).join(id),
            meta: json!({
                "run_id": id, "mode": "hitl", "started_at": ago(2 * HOUR), "task_input": TASK,
                "branch": "feat-rate-limit", "current_phase": 0, "status": "running", "phases": {},
            }),
            log: Some(Vec::new()),
        }
    }

    pub(super) fn set(mut self, key: &str, value: impl Into<Value>) -> Run {
        self.meta[key] = value.into();
        self
    }

    pub(super) fn unset(mut self, key: &str) -> Run {
        self.meta.as_object_mut().expect("an object").remove(key);
        self
    }

    /// `phases["n"] = {"status": status}`.
    pub(super) fn phase(mut self, n: u8, status: &str) -> Run {
        self.meta["phases"][n.to_string()] = json!({ "status": status });
        self
    }

    /// Phases before `current` completed (an hour or more ago, in the snapshot and the log),
    /// `current` started and open in both, the rest pending; `current_phase = current`.
    pub(super) fn at(mut self, current: u8) -> Run {
        for n in 0..=12u8 {
            self.meta["phases"][n.to_string()] = if n < current {
                json!({"status": "completed", "started_at": ago(2 * HOUR), "completed_at": ago(HOUR)})
            } else if n == current {
                json!({"status": "running", "started_at": ago(HOUR)})
            } else {
                json!({"status": "pending"})
            };
        }
        self.meta["current_phase"] = current.into();
        for n in 0..current {
            self = self.ev("phase.started", n).ev("phase.completed", n);
        }
        self.ev("phase.started", current)
    }

    /// Every phase completed in the snapshot and the log; `status = completed`.
    pub(super) fn done(mut self) -> Run {
        self = self.at(12).ev("phase.completed", 12);
        self.meta["phases"]["12"] =
            json!({"status": "completed", "started_at": ago(2 * HOUR), "completed_at": ago(HOUR)});
        self.meta["status"] = "completed".into();
        self
    }

    /// Appends a phase event in the full line shape.
    pub(super) fn ev(self, event: &str, phase: u8) -> Run {
        let line = event_line(&self.id, event, Some(phase));
        self.line(&line)
    }

    /// Appends a raw line to the log.
    pub(super) fn line(mut self, raw: &str) -> Run {
        self.log.get_or_insert_with(Vec::new).push(raw.to_string());
        self
    }

    /// No `events.jsonl` at all.
    pub(super) fn no_log(mut self) -> Run {
        self.log = None;
        self
    }

    pub(super) fn write(self) -> Run {
        std::fs::create_dir_all(&self.dir).expect("create the run directory");
        let meta = serde_json::to_string_pretty(&self.meta).expect("json") + "\n";
        std::fs::write(self.dir.join("meta.json"), meta).expect("write meta.json");
        if let Some(lines) = &self.log {
            let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
            std::fs::write(self.dir.join("events.jsonl"), text).expect("write events.jsonl");
        }
        self
    }

    pub(super) fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    pub(super) fn read(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.path(name)).expect("read a run file")
    }

    pub(super) fn meta_json(&self) -> Value {
        serde_json::from_slice(&self.read("meta.json")).expect("meta.json is JSON")
    }
}

/// `git ucg sdlc ARGS` as a wide terminal shows it (200 columns: the catalog's rows one per
/// line, which these tests read by line); tests/cli/widths.rs checks the layout at 80 and 120.
pub(super) fn sdlc(env: &TestEnv, cwd: &Path, args: &[&str]) -> Output {
    env.ucg(cwd)
        .arg("sdlc")
        .args(args)
        .env("COLUMNS", "200")
        .output()
        .expect("run git-ucg")
}

pub(super) fn sdlc_in(env: &TestEnv, cwd: &Path, args: &[&str], input: &str) -> Output {
    output_with_stdin(env.ucg(cwd).arg("sdlc").args(args), input.as_bytes())
}

#[track_caller]
pub(super) fn assert_code(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        stdout(out),
        stderr(out)
    );
}

pub(super) fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", stdout(out)))
}

pub(super) fn line(id: &str, mode: &str, phase: &str, status: &str, branch: &str) -> String {
    format!("{id}  {mode}  phase={phase}  status={status}  branch={branch}")
}

/// `sdlc status ID` exits 0 with the status line of a `hitl` run on branch `feat-rate-limit`.
pub(super) fn assert_status(env: &TestEnv, repo: &Path, id: &str, phase: &str, status: &str) {
    let out = sdlc(env, repo, &["status", id]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        line(id, "hitl", phase, status, "feat-rate-limit") + "\n"
    );
}

/// The status line of a `hitl` run on branch `feat-rate-limit` (the `Run` defaults).
pub(super) fn line_of(id: &str, phase: &str, status: &str) -> String {
    line(id, "hitl", phase, status, "feat-rate-limit")
}

pub(super) fn prompt(n: u8) -> String {
    format!(
        "Resume by re-running Phase {n} ({})? It will overwrite that phase's outputs and continue. (yes/no)",
        PHASE_NAMES[usize::from(n)]
    )
}

/// The lines of a JSONL file, parsed.
pub(super) fn jsonl(path: &Path) -> Vec<Value> {
    let bytes = std::fs::read(path).expect("read a ledger");
    bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("a JSON line"))
        .collect()
}

/// Every `.jsonl` file under `dir` (outside `.git`) with its bytes.
pub(super) fn ledgers(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    snapshot(dir)
        .into_iter()
        .filter(|(path, _)| {
            path.extension().is_some_and(|e| e == "jsonl")
                && !path.components().any(|c| c.as_os_str() == ".git")
        })
        .collect()
}

/// Each ledger of `before` still starts with its old bytes and grew by whole `\n`-terminated JSON
/// lines; returns the new lines per file.
#[track_caller]
pub(super) fn assert_only_appended(before: &[(PathBuf, Vec<u8>)]) -> Vec<(PathBuf, Vec<Value>)> {
    let mut grown = Vec::new();
    for (path, old) in before {
        let new = std::fs::read(path).expect("a ledger is never removed");
        assert!(
            new.starts_with(old),
            "{} was rewritten, not appended to",
            path.display()
        );
        let tail = &new[old.len()..];
        if tail.is_empty() {
            continue;
        }
        assert!(
            tail.ends_with(b"\n"),
            "{}: the growth is not whole lines",
            path.display()
        );
        let lines: Vec<Value> = tail[..tail.len() - 1]
            .split(|b| *b == b'\n')
            .map(|l| {
                serde_json::from_slice(l).unwrap_or_else(|e| {
                    panic!(
                        "{}: appended a line that is not JSON ({e}): {}",
                        path.display(),
                        String::from_utf8_lossy(l)
                    )
                })
            })
            .collect();
        grown.push((path.clone(), lines));
    }
    grown
}

/// Splits a history row `<ts> <rest>` and checks the timestamp is one.
#[track_caller]
pub(super) fn row_after_ts(row: &str) -> &str {
    let (ts, rest) = row.split_once(' ').expect("a timestamp, then the row");
    ts.parse::<jiff::Timestamp>()
        .unwrap_or_else(|e| panic!("{ts:?} is not a timestamp: {e}"));
    rest
}

/// The run and work item of the reconciliation tests: `meta.json.work_item` names the canonical
/// Markdown, the run mirror and the run-local ledger.
pub(super) fn work_item_run(repo: &Path) -> Run {
    Run::new(repo, ID).at(4).set(
        "work_item",
        json!({
            "canonical_path": format!("{WORK_ITEMS}/PROJ-1234.md"),
            "run_mirror": format!("{RUNS}/{ID}/work-item.md"),
            "event_ledger": format!("{RUNS}/{ID}/work-item-events.jsonl"),
        }),
    )
}
