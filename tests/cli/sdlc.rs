//! `git ucg sdlc`: agentic-sdlc heavy-pipeline runs under `docs/superpowers/runs/`
//! (docs/formats/sdlc.md). One test per checkable behaviour S1–S27 of A.9, then the
//! issue's acceptance items: append-only ledgers, bad input, `--by-mtime`, the `--json` schemas
//! and the demo. Runs are built here by the `Run` builder; timestamps that the stale-running rule
//! reads are relative to now.

use crate::common::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const RUNS: &str = "docs/superpowers/runs";
const WORK_ITEMS: &str = "docs/superpowers/work-items";
const ID: &str = "20260714-1200-feat-rate-limit";
const TASK: &str = "Add rate limiting to the public API (PROJ-1234)";
const HOUR: i64 = 3600;
const MIN: i64 = 60;

/// The phase map (A.3), for the prompts.
const PHASE_NAMES: [&str; 13] = [
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

fn now_minus(seconds: i64) -> jiff::Timestamp {
    jiff::Timestamp::now()
        .checked_sub(jiff::SignedDuration::from_secs(seconds))
        .expect("a timestamp in range")
}

/// `seconds` ago, as the runs write it (`%Y-%m-%dT%H:%M:%SZ`).
fn ago(seconds: i64) -> String {
    now_minus(seconds)
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// `seconds` ago at a fixed UTC offset of `hours`, e.g. `2026-07-14T14:00:00+02:00`.
fn ago_at_offset(seconds: i64, hours: i8) -> String {
    let zone = jiff::tz::TimeZone::fixed(jiff::tz::offset(hours));
    now_minus(seconds)
        .to_zoned(zone)
        .strftime("%Y-%m-%dT%H:%M:%S%:z")
        .to_string()
}

/// `seconds` ago in UTC, written without any offset.
fn ago_without_offset(seconds: i64) -> String {
    now_minus(seconds).strftime("%Y-%m-%dT%H:%M:%S").to_string()
}

/// One event line in the full A.4 shape.
fn event_line(run_id: &str, event: &str, phase: Option<u8>) -> String {
    json!({
        "schema": 1, "ts": ago(HOUR + 30 * MIN), "event": event, "run_id": run_id,
        "phase": phase, "actor": "sdlc-engine", "summary": format!("{event} {phase:?}"),
        "artifacts": [], "data": {},
    })
    .to_string()
}

/// A work-item ledger line (`phase: null`).
fn wi_line(run_id: &str, event: &str, data: Value) -> String {
    json!({
        "schema": 1, "ts": "2026-07-14T13:00:00Z", "event": event, "run_id": run_id,
        "phase": null, "actor": "sdlc-engine", "summary": event, "artifacts": [], "data": data,
    })
    .to_string()
}

/// The exact adapter-receipt line layout `ticket-sync` writes (A.4).
fn receipt(run_id: &str, status: &str, ts: &str) -> String {
    format!(
        "{{\"schema\":1,\"ts\":\"{ts}\",\"event\":\"work_item.adapter_receipt\",\"run_id\":\"{run_id}\",\
\"phase\":null,\"actor\":\"ticket-sync\",\"summary\":\"ticket-sync: PROJ-1234 → DEV ({status})\",\
\"artifacts\":[],\"data\":{{\"status\":\"{status}\",\"state\":\"DEV\",\"work_item_id\":\"PROJ-1234\",\
\"target_state\":\"DEV\",\"triggered_by\":\"hook\",\"response_excerpt\":\"moved\"}}}}"
    )
}

/// A work-item Markdown document (the lifecycle-artifacts template).
fn work_item(fields: &[(&str, &str)], history: &[&str]) -> String {
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

fn item_fields(status: &str) -> Vec<(&str, &str)> {
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
struct Run {
    id: String,
    dir: PathBuf,
    meta: Value,
    log: Option<Vec<String>>,
}

impl Run {
    /// A `hitl` run, `running`, started two hours ago, at phase 0 with no phases recorded and an
    /// empty event log.
    fn new(repo: &Path, id: &str) -> Run {
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

    fn set(mut self, key: &str, value: impl Into<Value>) -> Run {
        self.meta[key] = value.into();
        self
    }

    fn unset(mut self, key: &str) -> Run {
        self.meta.as_object_mut().expect("an object").remove(key);
        self
    }

    /// `phases["n"] = {"status": status}`.
    fn phase(mut self, n: u8, status: &str) -> Run {
        self.meta["phases"][n.to_string()] = json!({ "status": status });
        self
    }

    /// Phases before `current` completed (an hour or more ago, in the snapshot and the log),
    /// `current` started and open in both, the rest pending; `current_phase = current`.
    fn at(mut self, current: u8) -> Run {
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
    fn done(mut self) -> Run {
        self = self.at(12).ev("phase.completed", 12);
        self.meta["phases"]["12"] =
            json!({"status": "completed", "started_at": ago(2 * HOUR), "completed_at": ago(HOUR)});
        self.meta["status"] = "completed".into();
        self
    }

    /// Appends a phase event in the full line shape.
    fn ev(self, event: &str, phase: u8) -> Run {
        let line = event_line(&self.id, event, Some(phase));
        self.line(&line)
    }

    /// Appends a raw line to the log.
    fn line(mut self, raw: &str) -> Run {
        self.log.get_or_insert_with(Vec::new).push(raw.to_string());
        self
    }

    /// No `events.jsonl` at all.
    fn no_log(mut self) -> Run {
        self.log = None;
        self
    }

    fn write(self) -> Run {
        std::fs::create_dir_all(&self.dir).expect("create the run directory");
        let meta = serde_json::to_string_pretty(&self.meta).expect("json") + "\n";
        std::fs::write(self.dir.join("meta.json"), meta).expect("write meta.json");
        if let Some(lines) = &self.log {
            let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
            std::fs::write(self.dir.join("events.jsonl"), text).expect("write events.jsonl");
        }
        self
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    fn read(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.path(name)).expect("read a run file")
    }

    fn meta_json(&self) -> Value {
        serde_json::from_slice(&self.read("meta.json")).expect("meta.json is JSON")
    }
}

fn sdlc(env: &TestEnv, cwd: &Path, args: &[&str]) -> Output {
    env.ucg(cwd)
        .arg("sdlc")
        .args(args)
        .output()
        .expect("run git-ucg")
}

fn sdlc_in(env: &TestEnv, cwd: &Path, args: &[&str], input: &str) -> Output {
    output_with_stdin(env.ucg(cwd).arg("sdlc").args(args), input.as_bytes())
}

#[track_caller]
fn assert_code(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        stdout(out),
        stderr(out)
    );
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", stdout(out)))
}

fn line(id: &str, mode: &str, phase: &str, status: &str, branch: &str) -> String {
    format!("{id}  {mode}  phase={phase}  status={status}  branch={branch}")
}

/// `sdlc status ID` exits 0 with the status line of a `hitl` run on branch `feat-rate-limit`.
fn assert_status(env: &TestEnv, repo: &Path, id: &str, phase: &str, status: &str) {
    let out = sdlc(env, repo, &["status", id]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        line(id, "hitl", phase, status, "feat-rate-limit") + "\n"
    );
}

/// The status line of a `hitl` run on branch `feat-rate-limit` (the `Run` defaults).
fn line_of(id: &str, phase: &str, status: &str) -> String {
    line(id, "hitl", phase, status, "feat-rate-limit")
}

fn prompt(n: u8) -> String {
    format!(
        "Resume by re-running Phase {n} ({})? It will overwrite that phase's outputs and continue. (yes/no)",
        PHASE_NAMES[usize::from(n)]
    )
}

/// The lines of a JSONL file, parsed.
fn jsonl(path: &Path) -> Vec<Value> {
    let bytes = std::fs::read(path).expect("read a ledger");
    bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("a JSON line"))
        .collect()
}

/// Every `.jsonl` file under `dir` (outside `.git`) with its bytes.
fn ledgers(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
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
fn assert_only_appended(before: &[(PathBuf, Vec<u8>)]) -> Vec<(PathBuf, Vec<Value>)> {
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
fn row_after_ts(row: &str) -> &str {
    let (ts, rest) = row.split_once(' ').expect("a timestamp, then the row");
    ts.parse::<jiff::Timestamp>()
        .unwrap_or_else(|e| panic!("{ts:?} is not a timestamp: {e}"));
    rest
}

// ------------------------------------------------------------------------------------------------
// S1–S27

/// S1: the list is sorted by run-directory name, descending (newest first); any directory name is
/// a run, files beside them are not; `latest` is the first of that order.
#[test]
fn s01_list_is_sorted_by_directory_name_descending() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    for id in [
        "20260714-1200-feat-b",
        "20250101-0000-old",
        "run-0001",
        "20260801-0930-feat-a",
    ] {
        Run::new(&repo, id)
            .set("status", "completed")
            .set("current_phase", 12)
            .write();
    }
    write(&repo.join(RUNS).join("README.md"), "not a run\n");

    let out = sdlc(&env, &repo, &["list"]);
    assert_code(&out, 0);
    let expected: String = [
        "run-0001",
        "20260801-0930-feat-a",
        "20260714-1200-feat-b",
        "20250101-0000-old",
    ]
    .iter()
    .map(|id| line(id, "hitl", "12", "completed", "feat-rate-limit") + "\n")
    .collect();
    assert_eq!(stdout(&out), expected);
    assert_eq!(stderr(&out), "");

    let out = sdlc(&env, &repo, &["status"]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        line("run-0001", "hitl", "12", "completed", "feat-rate-limit") + "\n"
    );

    // No runs at all: an empty list, not an error.
    let empty = env.repo("empty");
    let out = sdlc(&env, &empty, &["list"]);
    assert_code(&out, 0);
    assert_eq!(stdout(&out), "");
}

/// S2: listing, status and the catalog perform zero writes (the whole repository, `.git`
/// included, is byte-identical afterwards), but for git-ucg's own cache of what `list` showed
/// (`.git/ucg/sdlc-list.json`, made by the first listing).
#[test]
fn s02_listing_performs_zero_writes() {
    let env = TestEnv::new();
    let demo = env.demo();
    assert_code(&sdlc(&env, &demo, &["list"]), 0);
    assert!(demo.join(".git/ucg/sdlc-list.json").is_file());
    let before = snapshot(&demo);
    let runs = [
        "20260601-0900-feat-csv-export",
        "20260603-1400-fix-login-timeout",
        "20260604-1000-feat-rate-limit",
        "latest",
    ];
    let mut commands: Vec<Vec<&str>> = vec![
        vec!["list"],
        vec!["list", "--json"],
        vec!["list", "--by-mtime"],
        vec!["status"],
        vec!["show"],
    ];
    for run in runs {
        commands.push(vec!["status", run]);
        commands.push(vec!["status", run, "--json"]);
        commands.push(vec!["show", run]);
        commands.push(vec!["show", run, "--json"]);
    }
    for args in &commands {
        let out = sdlc(&env, &demo, args);
        assert_code(&out, 0);
    }
    assert!(snapshot(&demo) == before, "a read-only command wrote");
}

/// S3: the status line is `<run_id>  <mode>  phase=<n>  status=<…>  branch=<branch>` with two
/// spaces between fields, and the status is one of running, completed, aborted, interrupted.
#[test]
fn s03_status_line_format_and_the_four_statuses() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    Run::new(&repo, "20260710-0900-a-running")
        .set("started_at", ago(10 * MIN))
        .at(3)
        .write();
    Run::new(&repo, "20260711-0900-b-completed")
        .set("mode", "autonomous")
        .done()
        .write();
    Run::new(&repo, "20260712-0900-c-aborted")
        .set("branch", "fix-login")
        .at(5)
        .set("status", "aborted")
        .write();
    Run::new(&repo, "20260713-0900-d-interrupted").at(7).write();

    let expected = [
        line(
            "20260713-0900-d-interrupted",
            "hitl",
            "7",
            "interrupted",
            "feat-rate-limit",
        ),
        line(
            "20260712-0900-c-aborted",
            "hitl",
            "5",
            "aborted",
            "fix-login",
        ),
        line(
            "20260711-0900-b-completed",
            "autonomous",
            "12",
            "completed",
            "feat-rate-limit",
        ),
        line(
            "20260710-0900-a-running",
            "hitl",
            "3",
            "running",
            "feat-rate-limit",
        ),
    ];
    let out = sdlc(&env, &repo, &["list"]);
    assert_code(&out, 0);
    assert_eq!(stdout(&out), expected.join("\n") + "\n");

    for expected in &expected {
        let fields: Vec<&str> = expected.split("  ").collect();
        assert_eq!(fields.len(), 5, "{expected}");
        assert!(fields[2].starts_with("phase="));
        assert!(fields[3].starts_with("status="));
        assert!(fields[4].starts_with("branch="));
        let out = sdlc(&env, &repo, &["status", fields[0]]);
        assert_code(&out, 0);
        assert_eq!(stdout(&out), format!("{expected}\n"));
        assert_eq!(stderr(&out), "", "a consistent run has no warnings");
    }
}

/// S4: `running`, started more than an hour ago and no phase completed in the last 30 minutes:
/// shown as `interrupted` — a display reclassification, the stored status stays `running`.
#[test]
fn s04_stale_running_run_shows_interrupted() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    // Phases completed 45 minutes and 3 hours ago.
    let run = Run::new(&repo, "20260714-1200-stale")
        .set("started_at", ago(4 * HOUR))
        .set("current_phase", 2)
        .set(
            "phases",
            json!({
                "0": {"status": "completed", "completed_at": ago(3 * HOUR)},
                "1": {"status": "completed", "completed_at": ago(45 * MIN)},
                "2": {"status": "running"},
            }),
        )
        .no_log()
        .write();
    // Just over an hour, nothing completed at all; and one completed 31 minutes ago.
    Run::new(&repo, "20260714-1201-just-over-an-hour")
        .set("started_at", ago(HOUR + 20))
        .no_log()
        .write();
    Run::new(&repo, "20260714-1202-completed-31-min-ago")
        .set("current_phase", 1)
        .set(
            "phases",
            json!({"0": {"status": "completed", "completed_at": ago(31 * MIN)}}),
        )
        .no_log()
        .write();
    let meta_before = run.read("meta.json");

    let out = sdlc(&env, &repo, &["list"]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        [
            line(
                "20260714-1202-completed-31-min-ago",
                "hitl",
                "1",
                "interrupted",
                "feat-rate-limit"
            ),
            line(
                "20260714-1201-just-over-an-hour",
                "hitl",
                "0",
                "interrupted",
                "feat-rate-limit"
            ),
            line(
                "20260714-1200-stale",
                "hitl",
                "2",
                "interrupted",
                "feat-rate-limit"
            ),
        ]
        .join("\n")
            + "\n"
    );
    let out = sdlc(&env, &repo, &["status", "20260714-1200-stale", "--json"]);
    assert_code(&out, 0);
    let doc = json_of(&out);
    assert_eq!(doc["status"], "interrupted");
    assert_eq!(doc["stored_status"], "running");
    assert_eq!(run.read("meta.json"), meta_before, "detection never writes");
}

/// S5: `running`, started two hours ago, a phase completed ten minutes ago: stays `running` (the
/// 30-minute window is inclusive; 29 minutes also keeps it running).
#[test]
fn s05_recent_completion_keeps_a_long_run_running() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    for (id, completed) in [
        ("20260714-1200-ten", 10 * MIN),
        ("20260714-1201-29", 29 * MIN),
    ] {
        Run::new(&repo, id)
            .set("current_phase", 3)
            .set(
                "phases",
                json!({
                    "0": {"status": "completed", "completed_at": ago(90 * MIN)},
                    "1": {"status": "completed", "completed_at": ago(completed)},
                    "2": {"status": "skipped"},
                    "3": {"status": "running"},
                }),
            )
            .no_log()
            .write();
        assert_status(&env, &repo, id, "3", "running");
    }
}

/// S6: `running`, started 30 minutes ago (and 59 minutes ago): stays `running`, even with no
/// phase completed.
#[test]
fn s06_young_run_stays_running() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    for (id, started) in [
        ("20260714-1200-thirty", 30 * MIN),
        ("20260714-1201-59", 59 * MIN),
    ] {
        Run::new(&repo, id)
            .set("started_at", ago(started))
            .phase(0, "running")
            .write();
        assert_status(&env, &repo, id, "0", "running");
    }
}

/// S7: a missing `events.jsonl` is an audit warning; the output comes from `meta.json` alone and
/// nothing fails (and `repair`, having nothing to repair from, creates no log).
#[test]
fn s07_missing_event_log_warns_and_uses_meta_alone() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let run = Run::new(&repo, ID)
        .set("started_at", ago(10 * MIN))
        .at(4)
        .no_log()
        .write();

    let out = sdlc(&env, &repo, &["status", ID]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        line(ID, "hitl", "4", "running", "feat-rate-limit") + "\n"
    );
    assert_eq!(
        stderr(&out),
        format!("warning: {ID}: events.jsonl is missing: meta.json alone is shown\n")
    );

    let out = sdlc(&env, &repo, &["list"]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        line(ID, "hitl", "4", "running", "feat-rate-limit") + "\n"
    );

    let out = sdlc(&env, &repo, &["show", ID]);
    assert_code(&out, 0);
    let text = stdout(&out);
    assert!(text.starts_with(&format!(
        "{}\nwarning: events.jsonl is missing: meta.json alone is shown\n",
        line(ID, "hitl", "4", "running", "feat-rate-limit")
    )));
    assert!(text.contains("\n## events.jsonl\n(none)\n"), "{text}");
    assert!(text.contains(" 4   Spec (conditional)"), "{text}");

    let out = sdlc(&env, &repo, &["repair", ID, "--yes"]);
    assert_code(&out, 2);
    assert!(stderr(&out).contains("events.jsonl is missing; nothing to repair from"));
    assert!(!run.path("events.jsonl").exists());
}

/// S8: a malformed events line is an audit warning (inline in the catalog, on stderr for the
/// status), never a crash.
#[test]
fn s08_malformed_event_line_warns_inline() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    Run::new(&repo, ID)
        .at(2)
        .line("{\"event\":\"phase.completed\",\"phase\":")
        .line("[1,2,3]")
        .ev("phase.completed", 2)
        .write();
    // Lines 1–4 are phases 0 and 1, line 5 starts phase 2, then the two bad lines (6, 7).
    let out = sdlc(&env, &repo, &["status", ID]);
    assert_code(&out, 0);
    let err = stderr(&out);
    assert!(
        err.contains(&format!("warning: {ID}: events.jsonl line 6: not JSON (")),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "warning: {ID}: events.jsonl line 7: not a JSON object\n"
        )),
        "{err}"
    );

    let out = sdlc(&env, &repo, &["show", ID]);
    assert_code(&out, 0);
    let text = stdout(&out);
    let events = &text[text.find("\n## events.jsonl\n").expect("an events section")
        ..text
            .find("\n## decisions.jsonl\n")
            .expect("a decisions section")];
    let rows: Vec<&str> = events.lines().skip(3).collect();
    assert_eq!(rows.len(), 8, "{events}");
    assert!(rows[4].trim_start().starts_with("5 "), "{events}");
    assert!(
        rows[5].trim_start().starts_with("6 ")
            && rows[5].contains("warning: malformed line (not JSON ("),
        "{events}"
    );
    assert!(
        rows[6].trim_start().starts_with("7 ")
            && rows[6].ends_with("warning: malformed line (not a JSON object)"),
        "{events}"
    );
    assert!(
        rows[7].trim_start().starts_with("8 ") && rows[7].contains("phase.completed"),
        "{events}"
    );

    let out = sdlc(&env, &repo, &["show", ID, "--json"]);
    assert_code(&out, 0);
    let doc = json_of(&out);
    assert_eq!(doc["events"][5]["line"], 6);
    assert_eq!(doc["events"][6]["malformed"], "not a JSON object");
}

/// S9: `phase.started` for phase 4 and no terminal event: phase 4 is open and is the resume
/// candidate.
#[test]
fn s09_open_phase_is_the_resume_candidate() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    Run::new(&repo, ID).at(4).write();

    assert_status(&env, &repo, ID, "4", "interrupted");
    let out = sdlc(&env, &repo, &["show", ID, "--json"]);
    assert_code(&out, 0);
    let doc = json_of(&out);
    assert_eq!(doc["phases"][4]["logged"], "open");
    assert_eq!(doc["phases"][3]["logged"], "completed");
    assert_eq!(doc["phases"][5]["logged"], Value::Null);

    let out = sdlc_in(&env, &repo, &["resume", ID], "no\n");
    assert_code(&out, 1);
    assert_eq!(stderr(&out), format!("{} {ID}: not resumed\n", prompt(4)));
    let out = sdlc_in(&env, &repo, &["resume", ID, "--json"], "yes\n");
    assert_code(&out, 0);
    assert_eq!(json_of(&out)["resume_phase"], 4);
}

/// S10: started(4) then failed(4) is not open; started(4), interrupted(4), started(4) is open.
#[test]
fn s10_pairing_follows_the_last_start() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    // Phases after 4 are not pending: nothing else could be a candidate.
    Run::new(&repo, "20260714-1200-failed")
        .at(4)
        .ev("phase.failed", 4)
        .set("phases", {
            let mut phases = json!({});
            for n in 0..4 {
                phases[n.to_string()] = json!({"status": "completed"});
            }
            phases["4"] = json!({"status": "failed"});
            phases
        })
        .write();
    Run::new(&repo, "20260714-1201-restarted")
        .at(4)
        .ev("phase.interrupted", 4)
        .ev("phase.started", 4)
        .write();

    let out = sdlc(&env, &repo, &["show", "20260714-1200-failed", "--json"]);
    assert_code(&out, 0);
    assert_eq!(json_of(&out)["phases"][4]["logged"], "failed");
    let out = sdlc(&env, &repo, &["resume", "20260714-1200-failed", "--yes"]);
    assert_code(&out, 2);
    assert_eq!(
        stderr(&out),
        "error: run 20260714-1200-failed: no resume candidate\nhint: a failed phase is offered with --allow-failed\n"
    );

    let out = sdlc(&env, &repo, &["show", "20260714-1201-restarted", "--json"]);
    assert_code(&out, 0);
    assert_eq!(json_of(&out)["phases"][4]["logged"], "open");
    let out = sdlc(
        &env,
        &repo,
        &["resume", "20260714-1201-restarted", "--yes", "--json"],
    );
    assert_code(&out, 0);
    assert_eq!(json_of(&out)["resume_phase"], 4);
    assert_eq!(stderr(&out), format!("{} yes (--yes)\n", prompt(4)));
}

/// S10 (interrupted half): started(4) then interrupted(4): the phase never completed, so the
/// resume re-runs phase 4 — the snapshot's `running` (which `repair` itself writes for an
/// interrupted phase) and the status line's `phase=4` agree.
#[test]
fn s10_an_interrupted_phase_is_the_resume_candidate() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    Run::new(&repo, ID).at(4).ev("phase.interrupted", 4).write();
    let out = sdlc(&env, &repo, &["status", ID]);
    assert_eq!(
        stdout(&out),
        line(ID, "hitl", "4", "interrupted", "feat-rate-limit") + "\n"
    );
    let out = sdlc(&env, &repo, &["repair", ID, "--yes"]);
    assert_eq!(
        stdout(&out),
        format!("{ID}: meta.json agrees with events.jsonl; nothing to repair\n")
    );
    let out = sdlc(&env, &repo, &["resume", ID]);
    assert_code(&out, 1);
    assert_eq!(stderr(&out), format!("{} {ID}: not resumed\n", prompt(4)));
}

/// Issue 16 item 10: the audit line is never appended through a symlink out of the run folder.
#[test]
fn repair_never_appends_through_a_symlink_out_of_the_run() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let run = Run::new(&repo, ID).at(4).ev("phase.completed", 4).write();
    let outside = env.path().join("outside.jsonl");
    std::fs::copy(run.dir.join("events.jsonl"), &outside).unwrap();
    std::fs::remove_file(run.dir.join("events.jsonl")).unwrap();
    std::os::unix::fs::symlink(&outside, run.dir.join("events.jsonl")).unwrap();
    let before = std::fs::read(&outside).unwrap();
    let out = sdlc_in(&env, &repo, &["repair", ID, "--yes"], "no\n");
    assert_ne!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("outside"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read(&outside).unwrap(),
        before,
        "the outside file is untouched"
    );
}

/// Issue 16: a repair killed (SIGKILL) at any moment leaves events.jsonl as its old bytes plus
/// whole lines, and meta.json whole (old or repaired).
#[test]
fn a_killed_repair_appends_whole_lines_or_nothing() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let run = Run::new(&repo, ID).at(4).ev("phase.completed", 4).write();
    let meta_before = run.read("meta.json");
    for round in 0..20u64 {
        std::fs::write(run.dir.join("meta.json"), &meta_before).unwrap();
        let log_before = run.read("events.jsonl");
        let mut child = env
            .ucg(&repo)
            .args(["sdlc", "repair", ID, "--yes"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_micros(round * 500));
        let _ = child.kill();
        let _ = child.wait();
        let log = run.read("events.jsonl");
        assert!(
            log.starts_with(&log_before),
            "round {round}: old bytes kept"
        );
        let added = &log[log_before.len()..];
        assert!(added.is_empty() || added.ends_with(b"\n"), "round {round}");
        for line in String::from_utf8_lossy(added).lines() {
            serde_json::from_str::<Value>(line).expect("a whole line");
        }
        serde_json::from_slice::<Value>(&run.read("meta.json")).expect("meta.json whole");
    }
}

/// S11: the snapshot says phase 4 is running, the log shows it completed: repair proposes the
/// change; after a typed yes `meta.json`'s phase fields are rewritten (every other key kept, in
/// order) and exactly one `status.repaired` line is appended, the earlier bytes untouched.
#[test]
fn s11_repair_corrects_the_snapshot_toward_the_log() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let run = Run::new(&repo, ID)
        .at(4)
        .set("escalate_on", json!(["security", "breaking-change"]))
        .set("x_unknown", json!({"kept": true}))
        .ev("phase.completed", 4)
        .write();
    let meta_before = run.read("meta.json");
    let log_before = run.read("events.jsonl");
    let proposal = format!(
        "{ID}: meta.json disagrees with events.jsonl (the log wins):\n  phases.4.status: \"running\" -> \"completed\"\n  current_phase: 4 -> 5\n"
    );
    let question = "Rewrite these fields of meta.json and append status.repaired? (yes/no) ";

    let out = sdlc(&env, &repo, &["status", ID]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        line(ID, "hitl", "5", "interrupted", "feat-rate-limit") + "\n"
    );
    assert_eq!(
        stderr(&out),
        format!("warning: {ID}: meta.json is stale against events.jsonl (phases.4.status \"running\" -> \"completed\", current_phase 4 -> 5): `git ucg sdlc repair {ID}`\n")
    );

    // Declined: nothing changes.
    let out = sdlc_in(&env, &repo, &["repair", ID], "no\n");
    assert_code(&out, 1);
    assert_eq!(stdout(&out), proposal);
    assert_eq!(stderr(&out), format!("{question}{ID}: not repaired\n"));
    assert_eq!(run.read("meta.json"), meta_before);
    assert_eq!(run.read("events.jsonl"), log_before);

    let out = sdlc_in(&env, &repo, &["repair", ID], "yes\n");
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        format!("{proposal}{ID}: repaired; status.repaired appended to events.jsonl\n")
    );
    assert_eq!(stderr(&out), question);

    let mut expected: Value = serde_json::from_slice(&meta_before).unwrap();
    expected["phases"]["4"]["status"] = "completed".into();
    expected["current_phase"] = 5.into();
    let meta_after = run.read("meta.json");
    assert_eq!(
        String::from_utf8(meta_after).unwrap(),
        serde_json::to_string_pretty(&expected).unwrap() + "\n",
        "only the phase fields change; key order and unknown keys stay"
    );

    let log_after = run.read("events.jsonl");
    assert!(log_after.starts_with(&log_before));
    let added = &log_after[log_before.len()..];
    assert_eq!(added.iter().filter(|b| **b == b'\n').count(), 1);
    let event: Value = serde_json::from_slice(added).unwrap();
    assert_eq!(event["event"], "status.repaired");
    assert_eq!(event["schema"], 1);
    assert_eq!(event["run_id"], ID);
    assert_eq!(event["phase"], Value::Null);
    assert_eq!(event["actor"], "git-ucg");
    assert_eq!(event["artifacts"], json!(["meta.json"]));
    assert_eq!(
        event["data"],
        json!({"changed": {
            "phases.4.status": {"from": "running", "to": "completed"},
            "current_phase": {"from": 4, "to": 5},
        }})
    );
    assert!(event["ts"]
        .as_str()
        .unwrap()
        .parse::<jiff::Timestamp>()
        .is_ok());

    // Now they agree: the status line is clean and a second repair has nothing to do.
    let out = sdlc(&env, &repo, &["status", ID]);
    assert_eq!(stderr(&out), "");
    let out = sdlc(&env, &repo, &["repair", ID]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        format!("{ID}: meta.json agrees with events.jsonl; nothing to repair\n")
    );

    // Eval #5: meta says phase 4, the log shows phase 6 completed.
    let other = Run::new(&repo, "20260714-1300-eval-5")
        .at(4)
        .ev("phase.completed", 4)
        .ev("phase.started", 5)
        .ev("phase.completed", 5)
        .ev("phase.started", 6)
        .ev("phase.completed", 6)
        .write();
    let out = sdlc(&env, &repo, &["repair", "20260714-1300-eval-5", "--yes"]);
    assert_code(&out, 0);
    let meta = other.meta_json();
    assert_eq!(meta["current_phase"], 7);
    for n in ["4", "5", "6"] {
        assert_eq!(meta["phases"][n]["status"], "completed");
    }
    let events = jsonl(&other.path("events.jsonl"));
    assert_eq!(events.last().unwrap()["event"], "status.repaired");
}

/// S12: the snapshot says phase 4 completed but the log only has its start: the repair sets it
/// back to running, and the resume then re-runs phase 4.
#[test]
fn s12_snapshot_completed_without_log_completion_resumes_that_phase() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let run = Run::new(&repo, ID)
        .at(4)
        .set("current_phase", 5)
        .phase(4, "completed")
        .write();
    assert_status(&env, &repo, ID, "4", "interrupted");
    let out = sdlc(&env, &repo, &["repair", ID, "--yes"]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        format!("{ID}: meta.json disagrees with events.jsonl (the log wins):\n  phases.4.status: \"completed\" -> \"running\"\n  current_phase: 5 -> 4\n{ID}: repaired; status.repaired appended to events.jsonl\n")
    );
    let meta = run.meta_json();
    assert_eq!(meta["phases"]["4"]["status"], "running");
    assert_eq!(meta["current_phase"], 4);

    let out = sdlc_in(&env, &repo, &["resume", ID], "yes\n");
    assert_code(&out, 0);
    assert_eq!(stderr(&out), format!("{} ", prompt(4)));
    assert!(stdout(&out).contains("  resume_phase: 4\n"));
}

/// S13: a completed run is never written, whatever the command and flags: repair, reconcile and
/// resume are refused (exit 2) and every file stays byte-identical — even with a stale snapshot
/// and a receipt that forward sync would otherwise apply.
#[test]
fn s13_completed_run_is_never_written() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let canonical = format!("{WORK_ITEMS}/PROJ-1234.md");
    let run = Run::new(&repo, ID)
        .done()
        .set("current_phase", 9)
        .phase(12, "running")
        .set(
            "work_item",
            json!({"canonical_path": canonical, "run_mirror": format!("{RUNS}/{ID}/work-item.md"),
                "event_ledger": format!("{RUNS}/{ID}/work-item-events.jsonl")}),
        )
        .line(&wi_line(
            ID,
            "work_item.transitioned",
            json!({"work_item_id": "PROJ-1234", "to": "Done"}),
        ))
        .write();
    let item = work_item(
        &item_fields("Approved"),
        &["2026-07-14T13:00:00Z ticket-sync: PROJ-1234 → DEV (pending)"],
    );
    write(&repo.join(&canonical), &item);
    write(&run.path("work-item.md"), &item);
    write(
        &run.path("work-item-events.jsonl"),
        &(receipt(ID, "succeeded", "2026-07-14T14:00:00Z") + "\n"),
    );
    write(
        &repo.join(WORK_ITEMS).join("work-item-events.jsonl"),
        &(receipt(ID, "succeeded", "2026-07-14T14:00:00Z") + "\n"),
    );
    // The first listing keeps what it showed under the git directory (nothing in the run).
    assert_code(&sdlc(&env, &repo, &["list"]), 0);
    let before = snapshot(&repo);

    let reads: [&[&str]; 7] = [
        &["list"],
        &["list", "--json"],
        &["list", "--by-mtime"],
        &["status", ID],
        &["status", ID, "--json"],
        &["show", ID],
        &["show", ID, "--json"],
    ];
    for args in reads {
        let out = sdlc_in(&env, &repo, args, "yes\n");
        assert_code(&out, 0);
        assert!(snapshot(&repo) == before, "{args:?} wrote");
    }
    let writes: [&[&str]; 11] = [
        &["repair", ID],
        &["repair", ID, "--yes"],
        &["repair", ID, "-y", "--json"],
        &["repair", "latest", "--yes"],
        &["reconcile", ID],
        &["reconcile", ID, "--yes"],
        &["reconcile", ID, "-y", "--json"],
        &["resume", ID],
        &["resume", ID, "--yes"],
        &["resume", ID, "--yes", "--allow-failed"],
        &["resume", ID, "--yes", "--json"],
    ];
    for args in writes {
        for input in ["yes\n", ""] {
            let out = sdlc_in(&env, &repo, args, input);
            assert_code(&out, 2);
            assert_eq!(stdout(&out), "", "{args:?}");
            let err = stderr(&out);
            assert!(
                err == format!("error: run {ID} is completed: completed runs are never written\n")
                    || err
                        == format!(
                            "error: run {ID} is completed: only an interrupted or aborted run is resumed\n"
                        ),
                "{args:?}: {err}"
            );
            assert!(
                snapshot(&repo) == before,
                "{args:?} wrote to a completed run"
            );
        }
    }
    // Through --runs-dir as well.
    let runs_dir = repo.join(RUNS);
    let out = sdlc(
        &env,
        &repo,
        &[
            "repair",
            ID,
            "--yes",
            "--runs-dir",
            runs_dir.to_str().unwrap(),
        ],
    );
    assert_code(&out, 2);
    assert!(snapshot(&repo) == before);
}

/// S14: an aborted run is resumed only on a typed yes: `--yes` does not cover it, and no other
/// answer (or none) hands off; nothing is written either way.
#[test]
fn s14_aborted_run_needs_a_typed_yes() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    Run::new(&repo, ID)
        .set("started_at", ago(10 * MIN))
        .at(5)
        .set("status", "aborted")
        .write();
    let before = snapshot(&repo);
    let declined = format!("{} {ID}: not resumed\n", prompt(5));

    for (args, input) in [
        (&["resume", ID, "--yes"][..], ""),
        (&["resume", ID, "--yes"][..], "no\n"),
        (&["resume", ID, "-y", "--json"][..], ""),
        (&["resume", ID][..], ""),
        (&["resume", ID][..], "\n"),
        (&["resume", ID][..], "no\n"),
        (&["resume", ID][..], "yeah\n"),
        (&["resume", ID][..], "ok\n"),
        (&["resume", ID][..], "sure, yes\n"),
    ] {
        let out = sdlc_in(&env, &repo, args, input);
        assert_code(&out, 1);
        assert_eq!(stdout(&out), "", "{args:?} {input:?}: no handoff");
        assert_eq!(stderr(&out), declined, "{args:?} {input:?}");
        assert!(snapshot(&repo) == before);
    }

    for args in [&["resume", ID][..], &["resume", ID, "--yes"][..]] {
        let out = sdlc_in(&env, &repo, args, "yes\n");
        assert_code(&out, 0);
        assert_eq!(stderr(&out), format!("{} ", prompt(5)));
        assert!(stdout(&out).starts_with("Handoff to sdlc-engine"));
        assert!(snapshot(&repo) == before);
    }
}

/// S15: the resume prompt is the template, word for word, for every phase of the map.
#[test]
fn s15_resume_prompt_text_matches_the_template() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    for n in 0..=12u8 {
        let id = format!("20260714-12{n:02}-phase-{n}");
        Run::new(&repo, &id).at(n).write();
        let out = sdlc_in(&env, &repo, &["resume", &id], "no\n");
        assert_code(&out, 1);
        assert_eq!(stderr(&out), format!("{} {id}: not resumed\n", prompt(n)));
        let out = sdlc(&env, &repo, &["resume", &id, "--yes"]);
        assert_code(&out, 0);
        assert_eq!(stderr(&out), format!("{} yes (--yes)\n", prompt(n)));
    }
    assert_eq!(
        prompt(9),
        "Resume by re-running Phase 9 (Final code review (two rounds))? It will overwrite that phase's outputs and continue. (yes/no)"
    );
}

/// S16: resume-candidate order — an open start in the log, else a phase the snapshot marks
/// running, else the first pending phase after the last completed one (skipped phases passed
/// over); a failed phase only with `--allow-failed`; nothing qualifying is an error.
#[test]
fn s16_resume_candidate_order() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let phases = |states: &[(u8, &str)]| {
        let mut phases = json!({});
        for (n, state) in states {
            phases[n.to_string()] = json!({ "status": state });
        }
        phases
    };
    // 1. The log's open phase 6 beats the snapshot's running phase 3.
    Run::new(&repo, "20260714-1201-open")
        .set(
            "phases",
            phases(&[
                (0, "completed"),
                (1, "completed"),
                (2, "completed"),
                (3, "running"),
                (4, "pending"),
            ]),
        )
        .set("current_phase", 3)
        .ev("phase.started", 6)
        .write();
    // 2. No open phase in the log: the snapshot's running phase 5 beats the pending phase 4.
    Run::new(&repo, "20260714-1202-running")
        .set(
            "phases",
            phases(&[
                (0, "completed"),
                (1, "completed"),
                (2, "completed"),
                (3, "completed"),
                (4, "pending"),
                (5, "running"),
            ]),
        )
        .set("current_phase", 5)
        .ev("phase.started", 0)
        .ev("phase.completed", 0)
        .write();
    // 3. The first pending phase after the last completed one (not the earlier pending 1),
    //    passing over the skipped phase 3.
    Run::new(&repo, "20260714-1203-pending")
        .set(
            "phases",
            phases(&[
                (0, "completed"),
                (1, "pending"),
                (2, "completed"),
                (3, "skipped"),
                (4, "pending"),
            ]),
        )
        .set("current_phase", 4)
        .write();
    // Nothing qualifies.
    Run::new(&repo, "20260714-1204-nothing")
        .set(
            "phases",
            phases(&[(0, "completed"), (1, "skipped"), (2, "completed")]),
        )
        .set("current_phase", 2)
        .write();
    // A failed phase 4 with pending phases after it: passed over unless --allow-failed (the
    // implementation's reading of the PROPOSAL: rule 3 then finds pending phase 5).
    Run::new(&repo, "20260714-1205-failed")
        .at(4)
        .ev("phase.failed", 4)
        .phase(4, "failed")
        .write();

    for (id, args, phase) in [
        ("20260714-1201-open", &[][..], 6u8),
        ("20260714-1202-running", &[][..], 5),
        ("20260714-1203-pending", &[][..], 4),
        ("20260714-1205-failed", &[][..], 5),
        ("20260714-1205-failed", &["--allow-failed"][..], 4),
    ] {
        let out = sdlc(
            &env,
            &repo,
            &[&["resume", id, "--yes", "--json"][..], args].concat(),
        );
        assert_code(&out, 0);
        assert_eq!(json_of(&out)["resume_phase"], phase, "{id} {args:?}");
        assert_eq!(stderr(&out), format!("{} yes (--yes)\n", prompt(phase)));
    }
    let out = sdlc(&env, &repo, &["resume", "20260714-1204-nothing", "--yes"]);
    assert_code(&out, 2);
    assert_eq!(
        stderr(&out),
        "error: run 20260714-1204-nothing: no resume candidate\nhint: a failed phase is offered with --allow-failed\n"
    );

    // A running run that is not stale is not resumed at all.
    Run::new(&repo, "20260714-1206-young")
        .set("started_at", ago(5 * MIN))
        .at(2)
        .write();
    let out = sdlc(&env, &repo, &["resume", "20260714-1206-young", "--yes"]);
    assert_code(&out, 2);
    assert_eq!(
        stderr(&out),
        "error: run 20260714-1206-young is running: only an interrupted or aborted run is resumed\n"
    );
}

/// S17: the handoff carries the run's mode, `raw_input` = `task_input` and the phase hint (and
/// the special behaviour of phases 7, 9 and 10).
#[test]
fn s17_handoff_carries_mode_input_and_phase() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    Run::new(&repo, ID)
        .set("mode", "autonomous")
        .set("task_input", "Export the task list as CSV")
        .at(9)
        .write();
    let out = sdlc(&env, &repo, &["resume", ID, "--yes"]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        format!(
            "Handoff to sdlc-engine (the pipeline runs the phase; git-ucg does not):\n  run_id: {ID}\n  mode: autonomous\n  raw_input: Export the task list as CSV\n  resume_phase: 9\n  phase_name: Final code review (two rounds)\n  resume_hint: resume at Phase 9 (Final code review (two rounds)): re-run the whole phase, overwriting its outputs\n  special: regenerate the review bundle from a fresh diff\n"
        )
    );
    let out = sdlc(&env, &repo, &["resume", ID, "--yes", "--json"]);
    assert_code(&out, 0);
    assert_eq!(
        json_of(&out),
        json!({
            "schema": "git-ucg.sdlc-handoff/1",
            "run_id": ID,
            "to": "sdlc-engine",
            "mode": "autonomous",
            "raw_input": "Export the task list as CSV",
            "resume_phase": 9,
            "phase_name": "Final code review (two rounds)",
            "resume_hint": "resume at Phase 9 (Final code review (two rounds)): re-run the whole phase, overwriting its outputs",
            "special": "regenerate the review bundle from a fresh diff",
        })
    );

    for (n, special) in [
        (
            7u8,
            Value::from("skip sub-tasks already committed; dispatch only what is missing"),
        ),
        (10, Value::from("rebuild gate-plan.json from a fresh diff")),
        (4, Value::Null),
    ] {
        let id = format!("20260714-13{n:02}-special");
        Run::new(&repo, &id).at(n).write();
        let out = sdlc(&env, &repo, &["resume", &id, "--yes", "--json"]);
        assert_code(&out, 0);
        let doc = json_of(&out);
        assert_eq!(doc["special"], special);
        assert_eq!(doc["mode"], "hitl");
        assert_eq!(doc["raw_input"], TASK);
        let out = sdlc(&env, &repo, &["resume", &id, "--yes"]);
        assert_eq!(stdout(&out).contains("  special: "), !special.is_null());
    }
}

/// The run and work item of the reconciliation tests: `meta.json.work_item` names the canonical
/// Markdown, the run mirror and the run-local ledger.
fn work_item_run(repo: &Path) -> Run {
    Run::new(repo, ID).at(4).set(
        "work_item",
        json!({
            "canonical_path": format!("{WORK_ITEMS}/PROJ-1234.md"),
            "run_mirror": format!("{RUNS}/{ID}/work-item.md"),
            "event_ledger": format!("{RUNS}/{ID}/work-item-events.jsonl"),
        }),
    )
}

/// S18: work-item conflict priority — the run's events.jsonl beats the canonical JSONL beats the
/// run-local JSONL beats the canonical Markdown beats the run-local Markdown.
#[test]
fn s18_work_item_conflict_priority() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let run = work_item_run(&repo)
        .line(&wi_line(
            ID,
            "work_item.transitioned",
            json!({"work_item_id": "PROJ-1234", "to": "In progress"}),
        ))
        .write();
    let canonical_ledger = repo.join(WORK_ITEMS).join("work-item-events.jsonl");
    write(
        &canonical_ledger,
        &[
            wi_line(
                ID,
                "work_item.transitioned",
                json!({"work_item_id": "PROJ-1234", "to": "Approved"}),
            ),
            wi_line(
                ID,
                "work_item.assigned",
                json!({"work_item_id": "PROJ-1234", "assignee": "Ada Operator"}),
            ),
            // Another run's item: not this work item's history.
            wi_line(
                "20260701-0900-other",
                "work_item.assigned",
                json!({"work_item_id": "PROJ-9", "assignee": "Zed"}),
            ),
            String::new(),
        ]
        .join("\n"),
    );
    write(
        &run.path("work-item-events.jsonl"),
        &(wi_line(
            ID,
            "work_item.created",
            json!({"status": "Draft", "assignee": "Bob", "reporter": "Eve Reporter"}),
        ) + "\n"),
    );
    let canonical_md = repo.join(WORK_ITEMS).join("PROJ-1234.md");
    write(
        &canonical_md,
        &work_item(
            &[
                ("Status", "Blocked"),
                ("Assignee", "Carol"),
                ("Reporter", "Product"),
                ("Branch", "feat-rate-limit"),
                ("External Ticket", "PROJ-1234"),
            ],
            &["2026-07-14T12:00:00Z - created"],
        ),
    );
    write(
        &run.path("work-item.md"),
        &work_item(
            &[
                ("Status", "Done"),
                ("Assignee", "Dan"),
                ("Reporter", "Unknown"),
                ("Branch", "feat-old"),
                ("External Ticket", "PROJ-1234"),
            ],
            &["2026-07-14T12:00:00Z - created"],
        ),
    );

    let out = sdlc_in(&env, &repo, &["reconcile", ID], "yes\n");
    assert_code(&out, 0);
    let c = format!("{WORK_ITEMS}/PROJ-1234.md");
    let r = format!("{RUNS}/{ID}/work-item.md");
    let log = format!("{RUNS}/{ID}/events.jsonl");
    let canon = format!("{WORK_ITEMS}/work-item-events.jsonl");
    let local = format!("{RUNS}/{ID}/work-item-events.jsonl");
    assert_eq!(
        stdout(&out),
        format!(
            "  {c}: Status: Blocked -> In progress (from {log})\n\
             \x20 {c}: Assignee: Carol -> Ada Operator (from {canon})\n\
             \x20 {c}: Reporter: Product -> Eve Reporter (from {local})\n\
             \x20 {r}: Status: Done -> In progress (from {log})\n\
             \x20 {r}: Assignee: Dan -> Ada Operator (from {canon})\n\
             \x20 {r}: Reporter: Unknown -> Eve Reporter (from {local})\n\
             \x20 {r}: Branch: feat-old -> feat-rate-limit (from {c})\n\
             {ID}: reconciled 2 file(s); work_item.reconciled appended (run_log+canonical+run_local->canonical+run_local)\n"
        )
    );
    assert_eq!(
        stderr(&out),
        "Reconcile the work item toward its most trusted source? (yes/no) "
    );
    let canonical_text = std::fs::read_to_string(&canonical_md).unwrap();
    let run_text = std::fs::read_to_string(run.path("work-item.md")).unwrap();
    for text in [&canonical_text, &run_text] {
        assert!(text.contains("**Status**: In progress\n"), "{text}");
        assert!(text.contains("**Assignee**: Ada Operator\n"), "{text}");
        assert!(text.contains("**Reporter**: Eve Reporter\n"), "{text}");
        assert!(text.contains("**Branch**: feat-rate-limit\n"), "{text}");
        assert!(text.contains("**External Ticket**: PROJ-1234\n"), "{text}");
    }
    let event = jsonl(&run.path("events.jsonl")).pop().unwrap();
    assert_eq!(event["event"], "work_item.reconciled");
    assert_eq!(
        event["data"]["direction"],
        "run_log+canonical+run_local->canonical+run_local"
    );
    let changes = event["data"]["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 7);
    assert_eq!(
        changes[6],
        json!({"file": r, "field": "Branch", "from": "feat-old", "to": "feat-rate-limit", "source": c})
    );
}

/// The fields a reconciliation changed are listed once each (the `dedup()` in `run_reconcile`
/// shows the intent) even when both Markdown files change the same fields.
#[test]
fn reconciled_changed_fields_lists_each_field_once() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let run = work_item_run(&repo)
        .line(&wi_line(
            ID,
            "work_item.transitioned",
            json!({"work_item_id": "PROJ-1234", "to": "In progress"}),
        ))
        .line(&wi_line(
            ID,
            "work_item.assigned",
            json!({"work_item_id": "PROJ-1234", "assignee": "Bob"}),
        ))
        .write();
    let item = work_item(&item_fields("Approved"), &[]);
    write(&repo.join(WORK_ITEMS).join("PROJ-1234.md"), &item);
    write(&run.path("work-item.md"), &item);
    let out = sdlc(&env, &repo, &["reconcile", ID, "--yes"]);
    assert_code(&out, 0);
    let event = jsonl(&run.path("events.jsonl")).pop().unwrap();
    assert_eq!(
        event["data"]["changed_fields"],
        json!(["Status", "Assignee"])
    );
}

/// S19: reconcile appends one `work_item.reconciled` line to events.jsonl, mirrors the same line
/// into the work-item ledgers that exist (creating none), adds one `## History` row to each
/// changed Markdown, and rewrites no JSONL.
#[test]
fn s19_reconcile_appends_mirrors_and_adds_a_history_row() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let run = work_item_run(&repo)
        .line(&wi_line(
            ID,
            "work_item.transitioned",
            json!({"work_item_id": "PROJ-1234", "to": "In progress"}),
        ))
        .write();
    let canonical_ledger = repo.join(WORK_ITEMS).join("work-item-events.jsonl");
    write(
        &canonical_ledger,
        &(wi_line(
            "20260701-0900-other",
            "work_item.created",
            json!({"work_item_id": "PROJ-9", "status": "Done"}),
        ) + "\n"),
    );
    let history = ["2026-07-14T12:00:00Z - created"];
    let canonical_md = repo.join(WORK_ITEMS).join("PROJ-1234.md");
    let original = work_item(&item_fields("Approved"), &history);
    write(&canonical_md, &original);
    write(&run.path("work-item.md"), &original);
    let before = ledgers(&repo);

    let out = sdlc(&env, &repo, &["reconcile", ID, "--yes"]);
    assert_code(&out, 0);
    assert_eq!(stderr(&out), "");
    assert!(stdout(&out).ends_with(&format!(
        "{ID}: reconciled 2 file(s); work_item.reconciled appended (run_log->canonical+run_local)\n"
    )));

    let grown = assert_only_appended(&before);
    assert_eq!(grown.len(), 2, "events.jsonl and the canonical ledger");
    for (path, lines) in &grown {
        assert_eq!(lines.len(), 1, "{}", path.display());
    }
    assert_eq!(grown[0].1, grown[1].1, "the same line in each ledger");
    let event = &grown[0].1[0];
    assert_eq!(event["event"], "work_item.reconciled");
    assert_eq!(event["run_id"], ID);
    assert_eq!(event["phase"], Value::Null);
    assert_eq!(event["schema"], 1);
    assert_eq!(event["data"]["direction"], "run_log->canonical+run_local");
    assert_eq!(event["data"]["changed_fields"], json!(["Status"]));
    assert_eq!(
        event["artifacts"],
        json!([
            format!("{WORK_ITEMS}/PROJ-1234.md"),
            format!("{RUNS}/{ID}/work-item.md")
        ])
    );
    assert!(
        !run.path("work-item-events.jsonl").exists(),
        "a missing ledger is not created"
    );

    for path in [canonical_md, run.path("work-item.md")] {
        let text = std::fs::read_to_string(&path).unwrap();
        let head = original.replace("**Status**: Approved", "**Status**: In progress");
        assert!(text.starts_with(&head), "{text}");
        let rest = &text[head.len()..];
        assert!(rest.starts_with("- ") && rest.ends_with('\n'), "{text}");
        assert_eq!(rest.lines().count(), 1, "one history row: {text}");
        assert_eq!(
            row_after_ts(&rest[2..rest.len() - 1]),
            format!("- git-ucg: reconciled Status from {RUNS}/{ID}/events.jsonl")
        );
    }

    // Reconciled: a second run has nothing to do.
    let out = sdlc(&env, &repo, &["reconcile", ID]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        format!("{ID}: the work item agrees with its ledgers; nothing to reconcile\n")
    );
}

/// S20: a success receipt in a ledger while the Markdown still shows the sync pending is forward
/// sync: applied without asking (no prompt, no stdin), once.
#[test]
fn s20_success_receipt_forward_syncs_without_confirmation() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let run = work_item_run(&repo).write();
    write(
        &run.path("work-item-events.jsonl"),
        &(receipt(ID, "succeeded", "2026-07-14T14:00:00Z") + "\n"),
    );
    let pending = "2026-07-14T13:00:00Z ticket-sync: PROJ-1234 → DEV (pending)";
    let original = work_item(
        &item_fields("Approved"),
        &["2026-07-14T12:00:00Z - created", pending],
    );
    let canonical_md = repo.join(WORK_ITEMS).join("PROJ-1234.md");
    write(&canonical_md, &original);
    write(&run.path("work-item.md"), &original);
    let before = ledgers(&repo);

    let out = sdlc(&env, &repo, &["reconcile", ID]);
    assert_code(&out, 0);
    assert_eq!(stderr(&out), "", "no question asked");
    let synced = "2026-07-14T14:00:00Z ticket-sync: PROJ-1234 → DEV (succeeded)";
    assert_eq!(
        stdout(&out),
        format!(
            "  {WORK_ITEMS}/PROJ-1234.md: forward sync: {synced}\n  {RUNS}/{ID}/work-item.md: forward sync: {synced}\n{ID}: reconciled 2 file(s); work_item.reconciled appended (receipt->canonical+run_local)\n"
        )
    );
    for path in [&canonical_md, &run.path("work-item.md")] {
        assert_eq!(
            std::fs::read_to_string(path).unwrap(),
            format!("{original}- {synced}\n")
        );
    }
    let grown = assert_only_appended(&before);
    assert_eq!(grown.len(), 2, "events.jsonl and the run-local ledger");
    assert_eq!(grown[0].1[0]["event"], "work_item.reconciled");
    assert_eq!(grown[0].1[0]["data"]["forward_synced"], 2);
    assert!(!repo
        .join(WORK_ITEMS)
        .join("work-item-events.jsonl")
        .exists());

    let after = snapshot(&repo);
    let out = sdlc(&env, &repo, &["reconcile", ID]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        format!("{ID}: the work item agrees with its ledgers; nothing to reconcile\n")
    );
    assert!(snapshot(&repo) == after, "forward sync happens once");
}

/// S21: a failure receipt with the failure already in the Markdown history: left as it is, no
/// forced reconciliation, and the run stays resumable.
#[test]
fn s21_failure_receipt_is_left_and_the_run_stays_resumable() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let run = work_item_run(&repo).write();
    let line = receipt(ID, "failed", "2026-07-14T14:00:00Z") + "\n";
    write(&run.path("work-item-events.jsonl"), &line);
    write(&repo.join(WORK_ITEMS).join("work-item-events.jsonl"), &line);
    let item = work_item(
        &item_fields("Approved"),
        &["2026-07-14T14:00:00Z ticket-sync: PROJ-1234 → DEV (failed)"],
    );
    write(&repo.join(WORK_ITEMS).join("PROJ-1234.md"), &item);
    write(&run.path("work-item.md"), &item);
    let before = snapshot(&repo);

    for args in [&["reconcile", ID][..], &["reconcile", ID, "--yes"][..]] {
        let out = sdlc(&env, &repo, args);
        assert_code(&out, 0);
        assert_eq!(
            stdout(&out),
            format!("{ID}: the work item agrees with its ledgers; nothing to reconcile\n")
        );
        assert!(snapshot(&repo) == before);
    }
    let out = sdlc(&env, &repo, &["status", ID]);
    assert_eq!(stdout(&out), line_of(ID, "4", "interrupted") + "\n");
    let out = sdlc(&env, &repo, &["resume", ID, "--yes", "--json"]);
    assert_code(&out, 0);
    assert_eq!(json_of(&out)["resume_phase"], 4);
}

/// S22: the catalog's fixed order — status line, requirements.md (first 10 lines),
/// complexity.json (pretty, in full), the phases table, events.jsonl (a row per event),
/// decisions.jsonl (a row per gate), qa-report.md (last 20 lines, only when present).
#[test]
fn s22_catalog_order_and_line_limits() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let run = Run::new(&repo, ID).at(2).write();
    let requirements: String = (1..=15).map(|n| format!("req {n}\n")).collect();
    write(&run.path("requirements.md"), &requirements);
    write(
        &run.path("complexity.json"),
        "{\"score\":8,\"routing\":\"writing-plans\",\"source\":\"heuristic\",\"rationale\":\"single-file\",\"breakdown\":{\"files\":1}}\n",
    );
    write(
        &run.path("decisions.jsonl"),
        "{\"ts\":\"2026-07-14T12:10:00Z\",\"gate_id\":\"requirements.ambiguous\",\"mode\":\"hitl\",\"verdict\":{\"decision\":\"approve\",\"rationale\":\"clear\",\"source\":\"hitl\"},\"escalated\":false}\n\
{\"gate_id\":\"spec.approved\",\"verdict\":{\"decision\":\"approve\"}}\n",
    );
    let qa: String = (1..=30).map(|n| format!("qa {n}\n")).collect();
    write(&run.path("qa-report.md"), &qa);

    let out = sdlc(&env, &repo, &["show", ID]);
    assert_code(&out, 0);
    let text = stdout(&out);
    assert!(text.starts_with(&format!(
        "{}\n\n## requirements.md",
        line_of(ID, "2", "interrupted")
    )));
    let headings: Vec<&str> = text.lines().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(
        headings,
        [
            "## requirements.md (first 10 lines)",
            "## complexity.json",
            "## phases (meta.json)",
            "## events.jsonl",
            "## decisions.jsonl",
            "## qa-report.md (last 20 lines)",
        ]
    );
    let first_ten: String = (1..=10).map(|n| format!("req {n}\n")).collect();
    assert!(text.contains(&format!(
        "## requirements.md (first 10 lines)\n{first_ten}\n## complexity.json\n{{\n  \"score\": 8,\n  \"routing\": \"writing-plans\",\n  \"source\": \"heuristic\",\n  \"rationale\": \"single-file\",\n  \"breakdown\": {{\n    \"files\": 1\n  }}\n}}\n\n## phases"
    )), "{text}");
    let last_twenty: String = (11..=30).map(|n| format!("qa {n}\n")).collect();
    assert!(
        text.ends_with(&format!("## qa-report.md (last 20 lines)\n{last_twenty}")),
        "{text}"
    );
    let section = |from: &str, to: &str| -> Vec<String> {
        let start = text.find(from).unwrap() + from.len();
        let end = text[start..].find(to).map_or(text.len(), |i| start + i);
        text[start..end]
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect()
    };
    let phases = section("## phases (meta.json)\n", "\n## events.jsonl");
    assert_eq!(phases.len(), 14, "a header and 13 phases: {phases:?}");
    assert!(phases[0].contains("status") && phases[0].contains("events say"));
    assert!(
        phases[3].trim_start().starts_with("2   Feature branch") && phases[3].contains("running")
    );
    assert!(phases[3].trim_end().ends_with("open"), "{phases:?}");
    let events = section("## events.jsonl\n", "\n## decisions.jsonl");
    assert_eq!(events.len(), 1 + 5, "a header and five events: {events:?}");
    let decisions = section("## decisions.jsonl\n", "\n## qa-report.md");
    assert_eq!(decisions.len(), 3, "{decisions:?}");
    assert!(decisions[1]
        .trim_start()
        .starts_with("requirements.ambiguous  approve   hitl"));
    assert!(decisions[2].trim_start().starts_with("spec.approved"));

    // Without qa-report.md (and the other documents), no QA section.
    std::fs::remove_file(run.path("qa-report.md")).unwrap();
    std::fs::remove_file(run.path("requirements.md")).unwrap();
    std::fs::remove_file(run.path("complexity.json")).unwrap();
    std::fs::remove_file(run.path("decisions.jsonl")).unwrap();
    let out = sdlc(&env, &repo, &["show", ID]);
    assert_code(&out, 0);
    let text = stdout(&out);
    assert!(!text.contains("qa-report"), "{text}");
    assert!(text.contains("## requirements.md (first 10 lines)\n(absent)\n"));
    assert!(text.contains("## complexity.json\n(absent)\n"));
    assert!(text.ends_with("## decisions.jsonl\n(none)\n"), "{text}");
    let out = sdlc(&env, &repo, &["show", ID, "--json"]);
    assert_eq!(json_of(&out)["qa_report"], Value::Null);
}

/// S23: there is no schema validator: lines the event-line schema calls valid (A.4's examples,
/// the receipt, any name matching the event pattern) are read as events, and the fixtures'
/// minimal line `{"event":"phase.completed","phase":2}` is tolerated too.
#[test]
fn s23_schema_valid_event_lines_are_read_as_events() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let examples = [
        format!("{{\"schema\":1,\"ts\":\"2026-07-14T12:20:00Z\",\"event\":\"phase.started\",\"run_id\":\"{ID}\",\"phase\":4,\"actor\":\"sdlc-pipeline\",\"summary\":\"Phase 4 spec started\",\"artifacts\":[],\"data\":{{}}}}"),
        format!("{{\"schema\":1,\"ts\":\"2026-07-14T12:31:10Z\",\"event\":\"decision.recorded\",\"run_id\":\"{ID}\",\"phase\":4,\"actor\":\"gate-arbiter\",\"summary\":\"spec.approved: approve\",\"artifacts\":[\"design.md\"],\"data\":{{\"gate_id\":\"spec.approved\"}}}}"),
        format!("{{\"schema\":1,\"ts\":\"2026-07-14T13:40:00Z\",\"event\":\"status.repaired\",\"run_id\":\"{ID}\",\"phase\":null,\"actor\":\"sdlc-status\",\"summary\":\"meta.json phases repaired from events.jsonl\",\"artifacts\":[\"meta.json\"],\"data\":{{\"changed\":{{\"phases.4.status\":{{\"from\":\"running\",\"to\":\"completed\"}},\"current_phase\":{{\"from\":4,\"to\":5}}}}}}}}"),
        format!("{{\"schema\":1,\"ts\":\"2026-07-14T13:41:00Z\",\"event\":\"work_item.reconciled\",\"run_id\":\"{ID}\",\"phase\":null,\"actor\":\"sdlc-status\",\"summary\":\"run mirror updated from canonical JSONL\",\"artifacts\":[\"work-item.md\"],\"data\":{{\"direction\":\"canonical->run_local\",\"source\":\"docs/superpowers/work-items/work-item-events.jsonl\",\"changed_fields\":[\"External Ticket\"]}}}}"),
        receipt(ID, "succeeded", "2026-07-14T14:00:00Z"),
        format!("{{\"schema\":1,\"ts\":\"2026-07-14T14:05:00Z\",\"event\":\"usage.sampled\",\"run_id\":\"{ID}\",\"actor\":\"usage-sampler\",\"summary\":\"tokens\"}}"),
        format!("{{\"schema\":1,\"ts\":\"2026-07-14T14:06:00Z\",\"event\":\"telemetry.export_receipt\",\"run_id\":\"{ID}\",\"phase\":null,\"actor\":\"x\",\"summary\":\"ok\",\"artifacts\":[],\"data\":{{}}}}"),
        format!("{{\"schema\":1,\"ts\":\"2026-07-14T14:07:00Z\",\"event\":\"_custom-kind.v2\",\"run_id\":\"{ID}\",\"phase\":4,\"actor\":\"x\",\"summary\":\"ok\"}}"),
    ];
    let mut run = Run::new(&repo, ID)
        .set("started_at", ago(10 * MIN))
        .set("current_phase", 4)
        .phase(4, "running");
    for example in &examples {
        run = run.line(example);
    }
    run.write();

    let out = sdlc(&env, &repo, &["show", ID, "--json"]);
    assert_code(&out, 0);
    let doc = json_of(&out);
    let events = doc["events"].as_array().unwrap();
    let names: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "phase.started",
            "decision.recorded",
            "status.repaired",
            "work_item.reconciled",
            "work_item.adapter_receipt",
            "usage.sampled",
            "telemetry.export_receipt",
            "_custom-kind.v2",
        ]
    );
    assert!(events.iter().all(|e| e.get("malformed").is_none()));
    assert_eq!(events[0]["phase"], 4);
    assert_eq!(events[0]["ts"], "2026-07-14T12:20:00Z");
    assert_eq!(events[1]["actor"], "gate-arbiter");
    assert_eq!(events[2]["phase"], Value::Null);
    assert_eq!(
        events[4]["summary"],
        "ticket-sync: PROJ-1234 → DEV (succeeded)"
    );
    let out = sdlc(&env, &repo, &["status", ID]);
    assert_code(&out, 0);
    assert_eq!(stdout(&out), line_of(ID, "4", "running") + "\n");
    assert_eq!(stderr(&out), "", "valid lines raise no warning");

    // The minimal fixture line, and other schema-invalid but readable lines.
    Run::new(&repo, "20260714-1300-minimal")
        .set("started_at", ago(10 * MIN))
        .set("current_phase", 3)
        .phase(2, "completed")
        .line("{\"event\":\"phase.completed\",\"phase\":2}")
        .line("{\"schema\":2,\"event\":\"Phase.Started\",\"phase\":\"3\"}")
        .write();
    let out = sdlc(&env, &repo, &["show", "20260714-1300-minimal", "--json"]);
    assert_code(&out, 0);
    let doc = json_of(&out);
    assert_eq!(
        doc["events"],
        json!([
            {"line": 1, "ts": null, "event": "phase.completed", "phase": 2, "actor": null, "summary": null},
            {"line": 2, "ts": null, "event": "Phase.Started", "phase": null, "actor": null, "summary": null},
        ])
    );
    assert_eq!(doc["phases"][2]["logged"], "completed");
    let out = sdlc(&env, &repo, &["status", "20260714-1300-minimal"]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        line_of("20260714-1300-minimal", "3", "running") + "\n"
    );
    assert_eq!(
        stderr(&out),
        "warning: 20260714-1300-minimal: events.jsonl: phase.completed for phase 2 without a phase.started before it\n"
    );
}

/// S24: there is no schema validator: a `meta.json` the schema calls valid (A.3's example) gives
/// its status line, and the hooks' minimal fixtures are tolerated — `unknown` for what they lack.
#[test]
fn s24_schema_valid_meta_and_minimal_fixtures() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let example = json!({
        "run_id": "20260714-1200-feat-rate-limit",
        "mode": "hitl",
        "started_at": "2026-07-14T12:00:03Z",
        "task_input": "Add rate limiting to the public API (PROJ-1234)",
        "branch": "feat-rate-limit",
        "work_item": {
            "canonical_path": "docs/superpowers/work-items/PROJ-1234.md",
            "run_mirror": "docs/superpowers/runs/20260714-1200-feat-rate-limit/work-item.md",
            "event_ledger": "docs/superpowers/runs/20260714-1200-feat-rate-limit/work-item-events.jsonl"
        },
        "current_phase": 4,
        "status": "running",
        "escalate_on": ["security", "breaking-change"],
        "loops": {"spec.revision": {"count": 1, "cap": 3, "on_cap": "halt"}},
        "phases": {
            "0": {"status": "completed", "started_at": "2026-07-14T12:00:03Z", "completed_at": "2026-07-14T12:00:40Z"},
            "1": {"status": "completed", "started_at": "…", "completed_at": "…"},
            "2": {"status": "completed"}, "3": {"status": "completed"},
            "4": {"status": "running", "started_at": "2026-07-14T12:20:00Z"},
            "5": {"status": "pending"}, "6": {"status": "skipped"}, "7": {"status": "pending"},
            "8": {"status": "skipped"}, "9": {"status": "pending"}, "10": {"status": "pending"},
            "11": {"status": "skipped"}, "12": {"status": "pending"}
        },
        "classification": "story",
        "phase_set": [0, 1, 2, 3, 4, 5, 7, 9, 10, 12],
        "branch_guard": {"current_branch": "main", "base_branch": "main", "target_branch": "feat-rate-limit",
            "working_tree": "clean", "upstream": "in-sync", "target_branch_exists": false,
            "base_refreshed": true, "decision": "continue"}
    });
    write(
        &repo.join(RUNS).join(ID).join("meta.json"),
        &serde_json::to_string_pretty(&example).unwrap(),
    );
    write(
        &repo.join(RUNS).join(ID).join("events.jsonl"),
        &format!("{{\"schema\":1,\"ts\":\"2026-07-14T12:20:00Z\",\"event\":\"phase.started\",\"run_id\":\"{ID}\",\"phase\":4,\"actor\":\"sdlc-pipeline\",\"summary\":\"Phase 4 spec started\",\"artifacts\":[],\"data\":{{}}}}\n"),
    );
    let out = sdlc(&env, &repo, &["status", ID]);
    assert_code(&out, 0);
    assert_eq!(stdout(&out), line_of(ID, "4", "interrupted") + "\n");
    assert_eq!(stderr(&out), "");
    let out = sdlc(&env, &repo, &["show", ID, "--json"]);
    assert_code(&out, 0);
    let doc = json_of(&out);
    assert_eq!(doc["phases"][6]["status"], "skipped");
    assert_eq!(doc["phases"][1]["completed_at"], "…");

    // hooks/test-sdlc-stage-guard's meta, alone: no mode, branch or started_at.
    let guard = "20260714-1200-test";
    write(
        &repo.join(RUNS).join(guard).join("meta.json"),
        "{\"run_id\":\"20260714-1200-test\",\"status\":\"running\",\"current_phase\":7}",
    );
    write(&repo.join(RUNS).join(guard).join("events.jsonl"), "");
    let out = sdlc(&env, &repo, &["status", guard]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        line(guard, "unknown", "7", "running", "unknown") + "\n"
    );
    assert_eq!(
        stderr(&out),
        format!("warning: {guard}: started_at is missing or not a timestamp: the stale-running rule cannot apply\n")
    );
    // With the ticket-sync fixture's minimal event line: the log wins over current_phase 7
    // (it shows phase 2 completed, so the run is at phase 3), with warnings.
    write(
        &repo.join(RUNS).join(guard).join("events.jsonl"),
        "{\"event\":\"phase.completed\",\"phase\":2}\n",
    );
    let out = sdlc(&env, &repo, &["status", guard]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        line(guard, "unknown", "3", "running", "unknown") + "\n"
    );
    let err = stderr(&out);
    assert!(err.contains("phase.completed for phase 2 without a phase.started before it"));
    assert!(err.contains("meta.json is stale against events.jsonl (phases.2.status null -> \"completed\", current_phase 7 -> 3)"));
    for args in [&["list"][..], &["show", guard][..]] {
        assert_code(&sdlc(&env, &repo, args), 0);
    }

    // hooks/test-ticket-sync's meta (canonical_path at the top level), no event log.
    write(
        &repo.join(RUNS).join("run-0001").join("meta.json"),
        "{\"run_id\":\"run-0001\",\"status\":\"running\",\"canonical_path\":\"docs/superpowers/work-items/PROJ-1234.md\"}",
    );
    let out = sdlc(&env, &repo, &["status", "run-0001"]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        line("run-0001", "unknown", "unknown", "running", "unknown") + "\n"
    );
    let out = sdlc(&env, &repo, &["list"]);
    assert_code(&out, 0);
    assert!(stdout(&out)
        .starts_with(&(line("run-0001", "unknown", "unknown", "running", "unknown") + "\n")));
}

/// S25: a resume that is declined or not answered leaves the run as it was — still `running` on
/// disk, shown `interrupted`, never `aborted` — and resumable on a later invocation; a confirmed
/// resume only hands off and writes nothing either.
#[test]
fn s25_failed_resume_leaves_the_run_interrupted() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let run = Run::new(&repo, ID).at(7).write();
    let before = snapshot(&repo);
    for input in ["", "no\n", "abort\n"] {
        let out = sdlc_in(&env, &repo, &["resume", ID], input);
        assert_code(&out, 1);
        assert!(snapshot(&repo) == before);
        let out = sdlc(&env, &repo, &["status", ID]);
        assert_eq!(stdout(&out), line_of(ID, "7", "interrupted") + "\n");
    }
    let out = sdlc(&env, &repo, &["resume", ID, "--yes"]);
    assert_code(&out, 0);
    assert!(snapshot(&repo) == before, "the handoff writes nothing");
    assert_eq!(run.meta_json()["status"], "running");
    // Still resumable.
    let out = sdlc_in(&env, &repo, &["resume", ID], "yes\n");
    assert_code(&out, 0);
    assert!(stdout(&out).contains("  resume_phase: 7\n"));
    assert!(!String::from_utf8_lossy(&run.read("meta.json")).contains("aborted"));
}

/// `git-ucg ARGS` with a file-size limit (`ulimit -f 1`, SIGXFSZ ignored) so that appending to a
/// ledger already larger than the limit fails with EFBIG while small files can still be written.
fn ucg_with_size_limit(env: &TestEnv, cwd: &Path, args: &[&str]) -> Command {
    let base = env.ucg(cwd);
    let mut command = Command::new("sh");
    command.env_clear();
    for (key, value) in base.get_envs() {
        if let Some(value) = value {
            command.env(key, value);
        }
    }
    command
        .current_dir(cwd)
        .arg("-c")
        .arg("ulimit -f 1 && trap '' XFSZ && exec \"$0\" \"$@\"")
        .arg(BIN)
        .args(args);
    command
}

/// S26: when `status.repaired` cannot be appended after `meta.json` was repaired: a warning and
/// an explicit confirmation — without yes the snapshot is restored byte for byte; with yes it is
/// kept; exit 1 both ways, the log untouched.
#[test]
fn s26_failed_repair_append_warns_and_asks() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let dir = repo.join(RUNS).join("run-a");
    let meta = "{\"run_id\":\"run-a\",\"status\":\"running\",\"current_phase\":4,\"phases\":{\"4\":{\"status\":\"running\"}}}\n";
    write(&dir.join("meta.json"), meta);
    // A log larger than the size limit: appending to it fails.
    let padding = "x".repeat(4096);
    let log = format!(
        "{{\"event\":\"phase.started\",\"phase\":4,\"pad\":\"{padding}\"}}\n{{\"event\":\"phase.completed\",\"phase\":4}}\n"
    );
    write(&dir.join("events.jsonl"), &log);
    let proposal = "run-a: meta.json disagrees with events.jsonl (the log wins):\n  phases.4.status: \"running\" -> \"completed\"\n  current_phase: 4 -> 5\n";

    let out = output_with_stdin(
        &mut ucg_with_size_limit(&env, &repo, &["sdlc", "repair", "run-a", "--yes"]),
        b"no\n",
    );
    assert_code(&out, 1);
    assert_eq!(stdout(&out), proposal);
    let err = stderr(&out);
    assert!(
        err.starts_with(
            "warning: run-a: meta.json was repaired but status.repaired could not be appended: "
        ),
        "{err}"
    );
    assert!(
        err.ends_with("\nKeep the repaired meta.json without its audit line? (yes/no) run-a: meta.json restored; nothing changed\n"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("meta.json")).unwrap(),
        meta
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("events.jsonl")).unwrap(),
        log
    );

    // No answer at all is no.
    let out = output_with_stdin(
        &mut ucg_with_size_limit(&env, &repo, &["sdlc", "repair", "run-a", "--yes"]),
        b"",
    );
    assert_code(&out, 1);
    assert_eq!(
        std::fs::read_to_string(dir.join("meta.json")).unwrap(),
        meta
    );

    let out = output_with_stdin(
        &mut ucg_with_size_limit(&env, &repo, &["sdlc", "repair", "run-a", "--yes"]),
        b"yes\n",
    );
    assert_code(&out, 1);
    let err = stderr(&out);
    assert!(
        err.ends_with("Keep the repaired meta.json without its audit line? (yes/no) "),
        "{err}"
    );
    let kept: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
    assert_eq!(kept["phases"]["4"]["status"], "completed");
    assert_eq!(kept["current_phase"], 5);
    assert_eq!(
        std::fs::read_to_string(dir.join("events.jsonl")).unwrap(),
        log
    );
}

/// S27: parity with ticket-sync — its receipt line layout (A.4) is read as a succeeded receipt
/// for the work item of the `run-0001` fixture (whose `canonical_path` is at the top level), and
/// forward sync appends the `## History` bullet `- <ts> ticket-sync: PROJ-1234 → DEV (succeeded)`
/// right after the `(pending)` row, without confirmation.
#[test]
fn s27_ticket_sync_receipt_and_history_bullet_parity() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let dir = repo.join(RUNS).join("run-0001");
    write(
        &dir.join("meta.json"),
        "{\"run_id\":\"run-0001\",\"status\":\"running\",\"canonical_path\":\"docs/superpowers/work-items/PROJ-1234.md\"}",
    );
    write(&dir.join("events.jsonl"), "");
    let receipt_line = "{\"schema\":1,\"ts\":\"2026-07-14T14:00:00Z\",\"event\":\"work_item.adapter_receipt\",\"run_id\":\"run-0001\",\"phase\":null,\"actor\":\"ticket-sync\",\"summary\":\"ticket-sync: PROJ-1234 → DEV (succeeded)\",\"artifacts\":[],\"data\":{\"status\":\"succeeded\",\"state\":\"DEV\",\"work_item_id\":\"PROJ-1234\",\"target_state\":\"DEV\",\"triggered_by\":\"hook\",\"response_excerpt\":\"PROJ-1234 moved to DEV\"}}\n";
    write(&dir.join("work-item-events.jsonl"), receipt_line);
    write(
        &repo.join(WORK_ITEMS).join("work-item-events.jsonl"),
        receipt_line,
    );
    let md = "# Rate limiting\n\n**Status**: In progress\n**External Ticket**: PROJ-1234\n\n## History\n- 2026-07-14T12:00:00Z - created\n- 2026-07-14T13:00:00Z ticket-sync: PROJ-1234 → DEV (pending)\n\n## Notes\nkeep me\n";
    let canonical_md = repo.join(WORK_ITEMS).join("PROJ-1234.md");
    write(&canonical_md, md);
    let before = ledgers(&repo);

    let out = sdlc(&env, &repo, &["reconcile", "run-0001"]);
    assert_code(&out, 0);
    assert_eq!(stderr(&out), "");
    assert_eq!(
        std::fs::read_to_string(&canonical_md).unwrap(),
        md.replace(
            "(pending)\n",
            "(pending)\n- 2026-07-14T14:00:00Z ticket-sync: PROJ-1234 → DEV (succeeded)\n"
        )
    );
    let grown = assert_only_appended(&before);
    assert_eq!(grown.len(), 3, "events.jsonl and both work-item ledgers");
    for (_, lines) in &grown {
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0]["event"], "work_item.reconciled");
        assert_eq!(lines[0]["run_id"], "run-0001");
        assert_eq!(lines[0]["data"]["direction"], "receipt->canonical");
    }
    // The receipt itself reads as an event of the work-item ledger, with its summary.
    let receipt: Value = serde_json::from_str(receipt_line.trim_end()).unwrap();
    assert_eq!(receipt["data"]["status"], "succeeded");
}

// ------------------------------------------------------------------------------------------------
// Acceptance items of the issue

/// The log's malformed lines make it a log the tool cannot fully parse: A.6.2 (SPEC) says to
/// warn and continue on `meta.json` alone — the status line's phase comes from the snapshot.
#[test]
fn a_log_with_malformed_lines_is_not_partially_reconstructed() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    // The snapshot: phase 4 completed, at phase 5. The log: phase 4 started, then its completion
    // torn in the middle.
    Run::new(&repo, ID)
        .at(4)
        .phase(4, "completed")
        .set("current_phase", 5)
        .line("{\"schema\":1,\"event\":\"phase.comp")
        .write();
    let out = sdlc(&env, &repo, &["status", ID]);
    assert_code(&out, 0);
    assert_eq!(stdout(&out), line_of(ID, "5", "interrupted") + "\n");
    assert!(!stderr(&out).contains("is stale against events.jsonl"));
}

/// And `repair` does not rewrite the snapshot from such a partial log (A.6.2: "Don't attempt
/// partial reconstruction from a log you can't fully parse").
#[test]
fn repair_does_not_trust_a_log_it_cannot_fully_parse() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let run = Run::new(&repo, ID)
        .at(4)
        .phase(4, "completed")
        .set("current_phase", 5)
        .line("{\"schema\":1,\"event\":\"phase.comp")
        .write();
    let before = snapshot(&repo);
    let out = sdlc(&env, &repo, &["repair", ID, "--yes"]);
    assert_ne!(out.status.code(), Some(101));
    assert!(
        snapshot(&repo) == before,
        "meta.json rewritten from a partial log"
    );
    assert_eq!(run.meta_json()["phases"]["4"]["status"], "completed");
}

/// A.7: reconciliation writes stay inside `docs/superpowers/runs/` and
/// `docs/superpowers/work-items/` — the Markdown plans are filtered for that, but the run-local
/// ledger named by `meta.json.work_item.event_ledger` is appended to wherever it is.
#[test]
fn reconcile_never_appends_outside_the_runs_and_work_items() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    Run::new(&repo, ID)
        .at(4)
        .set(
            "work_item",
            json!({"canonical_path": format!("{WORK_ITEMS}/PROJ-1234.md"),
                "run_mirror": format!("{RUNS}/{ID}/work-item.md"), "event_ledger": "README.md"}),
        )
        .line(&wi_line(
            ID,
            "work_item.transitioned",
            json!({"work_item_id": "PROJ-1234", "to": "In progress"}),
        ))
        .write();
    write(
        &repo.join(WORK_ITEMS).join("PROJ-1234.md"),
        &work_item(&item_fields("Approved"), &[]),
    );
    let out = sdlc(&env, &repo, &["reconcile", ID, "--yes"]);
    assert_ne!(out.status.code(), Some(101));
    assert_eq!(
        std::fs::read_to_string(repo.join("README.md")).unwrap(),
        "hello\n",
        "a project file outside docs/superpowers was appended to"
    );
}

/// A.7 again: a work-item path with `..` components that leaves `docs/superpowers/` is not
/// written (the inside check compares path components without resolving `..`).
#[test]
fn reconcile_paths_with_dotdot_do_not_escape() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    Run::new(&repo, ID)
        .at(4)
        .set(
            "work_item",
            json!({"canonical_path": format!("{WORK_ITEMS}/../../../NOTES.md"),
                "run_mirror": format!("{RUNS}/{ID}/work-item.md"),
                "event_ledger": format!("{RUNS}/{ID}/work-item-events.jsonl")}),
        )
        .line(&wi_line(
            ID,
            "work_item.transitioned",
            json!({"work_item_id": "NOTES", "to": "In progress"}),
        ))
        .write();
    let notes = work_item(
        &item_fields("Approved"),
        &["2026-07-14T12:00:00Z - created"],
    );
    write(&repo.join("NOTES.md"), &notes);
    // The work-items directory exists (the `..` components are resolved through it).
    write(&repo.join(WORK_ITEMS).join("work-item-events.jsonl"), "");
    let out = sdlc(&env, &repo, &["reconcile", ID, "--yes"]);
    assert_ne!(out.status.code(), Some(101));
    assert_eq!(
        std::fs::read_to_string(repo.join("NOTES.md")).unwrap(),
        notes,
        "a file outside docs/superpowers was rewritten"
    );
}

/// Append-only: `repair` and `reconcile` (on the demo's lagging run, with a conflict and a
/// forward sync) leave every `.jsonl` of the tree starting with exactly its old bytes, grown by
/// whole `\n`-terminated JSON lines.
#[test]
fn repair_and_reconcile_only_append_to_ledgers() {
    let env = TestEnv::new();
    let demo = env.demo();
    let before = ledgers(&demo);
    assert_eq!(
        before.len(),
        7,
        "three event logs, a decisions ledger, two work-item ledgers, the lesson ledger"
    );
    let lagging = "20260604-1000-feat-rate-limit";
    for args in [
        &["repair", lagging, "--yes"][..],
        &["repair", "20260603-1400-fix-login-timeout", "--yes"][..],
        &["reconcile", lagging, "--yes"][..],
        &["reconcile", "20260603-1400-fix-login-timeout", "--yes"][..],
    ] {
        let out = sdlc(&env, &demo, args);
        assert_code(&out, 0);
    }
    let grown = assert_only_appended(&before);
    let count = |suffix: &str| {
        grown
            .iter()
            .find(|(p, _)| p.ends_with(suffix))
            .map_or(0, |(_, l)| l.len())
    };
    assert_eq!(count(&format!("runs/{lagging}/events.jsonl")), 2);
    assert_eq!(count(&format!("runs/{lagging}/work-item-events.jsonl")), 1);
    assert_eq!(count("work-items/work-item-events.jsonl"), 1);
    assert_eq!(
        count("runs/20260601-0900-feat-csv-export/events.jsonl"),
        0,
        "the completed run"
    );
    let events = &grown
        .iter()
        .find(|(p, _)| p.ends_with(format!("runs/{lagging}/events.jsonl")))
        .unwrap()
        .1;
    assert_eq!(events[0]["event"], "status.repaired");
    assert_eq!(events[1]["event"], "work_item.reconciled");
}

/// Append-only with a torn last line (no final newline): it is not extended — the new line starts
/// on a line of its own and the old bytes stay as they were.
#[test]
fn a_torn_last_line_is_not_extended() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let run = work_item_run(&repo).write();
    let torn = format!(
        "{}\n{{\"schema\":1,\"event\":\"work_item.linked_art",
        receipt(ID, "succeeded", "2026-07-14T14:00:00Z")
    );
    write(&run.path("work-item-events.jsonl"), &torn);
    let item = work_item(
        &item_fields("Approved"),
        &["2026-07-14T13:00:00Z ticket-sync: PROJ-1234 → DEV (pending)"],
    );
    write(&run.path("work-item.md"), &item);
    let out = sdlc(&env, &repo, &["reconcile", ID]);
    assert_code(&out, 0);
    let after = std::fs::read_to_string(run.path("work-item-events.jsonl")).unwrap();
    assert!(after.starts_with(&torn));
    let added = &after[torn.len()..];
    assert!(
        added.starts_with('\n') && added.ends_with('\n'),
        "{added:?}"
    );
    let event: Value = serde_json::from_str(added.trim()).unwrap();
    assert_eq!(event["event"], "work_item.reconciled");
}

/// Bad input in events.jsonl: malformed JSON, non-objects, lines without an event, a string
/// phase, non-UTF-8 bytes, unknown event kinds — warnings, exit 0 for list/status/show, no panic.
#[test]
fn bad_event_lines_warn_and_never_panic() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let run = Run::new(&repo, ID)
        .set("current_phase", 4)
        .phase(4, "running")
        .write();
    let mut bytes = Vec::new();
    for line in [
        event_line(ID, "phase.started", Some(4)).as_bytes(),
        b"{oops",
        b"[1,2]",
        b"\"a string\"",
        b"{\"phase\":3}",
        b"{\"event\":\"phase.completed\",\"phase\":\"4\"}",
        b"{\"event\":\"phase.\xff\xfe\",\"phase\":4}",
        b"{\"event\":\"frobnicate.now\",\"phase\":4,\"ts\":12}",
        b"{\"event\":\"phase.completed\",\"phase\":99}",
        b"\x00\x01\x02",
        b"   ",
    ] {
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
    }
    std::fs::write(run.path("events.jsonl"), &bytes).unwrap();

    let out = sdlc(&env, &repo, &["status", ID]);
    assert_code(&out, 0);
    assert_eq!(stdout(&out), line_of(ID, "4", "interrupted") + "\n");
    let err = stderr(&out);
    for expected in [
        "events.jsonl line 2: not JSON (",
        "events.jsonl line 3: not a JSON object\n",
        "events.jsonl line 4: not a JSON object\n",
        "events.jsonl line 5: no string \"event\"\n",
        "events.jsonl line 7: not UTF-8\n",
        "events.jsonl line 10: not JSON (",
        "events.jsonl does not parse whole: the phases are read from meta.json alone\n",
    ] {
        assert!(
            err.contains(&format!("warning: {ID}: {expected}")),
            "{expected}: {err}"
        );
    }
    assert_eq!(err.matches("warning: ").count(), 7, "{err}");

    let out = sdlc(&env, &repo, &["show", ID, "--json"]);
    assert_code(&out, 0);
    let doc = json_of(&out);
    let events = doc["events"].as_array().unwrap();
    assert_eq!(events.len(), 10, "the blank line is skipped");
    assert_eq!(events[5]["event"], "phase.completed");
    assert_eq!(
        events[5]["phase"],
        Value::Null,
        "a string phase is no phase"
    );
    assert_eq!(events[7]["event"], "frobnicate.now");
    assert_eq!(events[7]["ts"], Value::Null, "a non-string ts is no ts");
    assert_eq!(
        events[8]["phase"],
        Value::Null,
        "phase 99 is outside the map"
    );
    // A log that does not parse whole is not half-trusted: the table says nothing from it.
    assert_eq!(doc["phases"][4]["logged"], Value::Null);
    for args in [&["show", ID][..], &["list"][..], &["list", "--json"][..]] {
        assert_code(&sdlc(&env, &repo, args), 0);
    }
}

/// Bad input in meta.json: `phases` as an array, non-UTF-8 bytes, not JSON, not an object,
/// empty, missing — the status line says `unknown` for what cannot be read, with warnings, and
/// list/status/show exit 0.
#[test]
fn bad_meta_warns_and_shows_unknown() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let runs = repo.join(RUNS);
    // phases as an array: the phase table is empty, the status line uses current_phase.
    Run::new(&repo, "r1-phases-array")
        .set("current_phase", 3)
        .set(
            "phases",
            json!([{"status": "completed", "completed_at": ago(5 * MIN)}, {"status": "running"}]),
        )
        .write();
    std::fs::create_dir_all(runs.join("r2-non-utf8")).unwrap();
    std::fs::write(
        runs.join("r2-non-utf8/meta.json"),
        b"{\"run_id\":\"r2\",\"mode\":\"hi\xfftl\",\"status\":\"running\"}",
    )
    .unwrap();
    std::fs::write(
        runs.join("r2-non-utf8/events.jsonl"),
        event_line("r2", "phase.started", Some(2)) + "\n",
    )
    .unwrap();
    write(&runs.join("r3-not-json/meta.json"), "{\"run_id\": \"r3\",");
    write(&runs.join("r4-array/meta.json"), "[1, 2, 3]\n");
    write(&runs.join("r5-empty/meta.json"), "");
    std::fs::create_dir_all(runs.join("r6-missing")).unwrap();
    Run::new(&repo, "r7-odd-types")
        .set("mode", 7)
        .set("branch", Value::Null)
        .set("status", json!(["running"]))
        .set("current_phase", -1)
        .set("started_at", 1_752_494_400)
        .no_log()
        .write();

    let expected = [
        (
            "r1-phases-array",
            line(
                "r1-phases-array",
                "hitl",
                "3",
                "interrupted",
                "feat-rate-limit",
            ),
            vec![],
        ),
        (
            "r2-non-utf8",
            line("r2-non-utf8", "unknown", "2", "unknown", "unknown"),
            vec!["meta.json is not JSON ("],
        ),
        (
            "r3-not-json",
            line("r3-not-json", "unknown", "unknown", "unknown", "unknown"),
            vec![
                "meta.json is not JSON (",
                "events.jsonl is missing: meta.json alone is shown",
            ],
        ),
        (
            "r4-array",
            line("r4-array", "unknown", "unknown", "unknown", "unknown"),
            vec!["meta.json is not a JSON object"],
        ),
        (
            "r5-empty",
            line("r5-empty", "unknown", "unknown", "unknown", "unknown"),
            vec!["meta.json is not JSON ("],
        ),
        (
            "r6-missing",
            line("r6-missing", "unknown", "unknown", "unknown", "unknown"),
            vec!["meta.json is missing"],
        ),
        (
            "r7-odd-types",
            line("r7-odd-types", "unknown", "unknown", "unknown", "unknown"),
            vec![],
        ),
    ];
    for (id, status_line, warnings) in &expected {
        let out = sdlc(&env, &repo, &["status", id]);
        assert_code(&out, 0);
        assert_eq!(stdout(&out), format!("{status_line}\n"), "{id}");
        let err = stderr(&out);
        for warning in warnings {
            assert!(
                err.contains(&format!("warning: {id}: {warning}")),
                "{id}: {err}"
            );
        }
        let out = sdlc(&env, &repo, &["show", id]);
        assert_code(&out, 0);
        assert!(
            stdout(&out).starts_with(&format!("{status_line}\n")),
            "{id}"
        );
        let out = sdlc(&env, &repo, &["show", id, "--json"]);
        assert_code(&out, 0);
        assert_eq!(json_of(&out)["status"]["line"], status_line.as_str());
    }
    let out = sdlc(&env, &repo, &["show", "r1-phases-array", "--json"]);
    let doc = json_of(&out);
    assert!(doc["phases"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["status"].is_null()));
    let out = sdlc(&env, &repo, &["list"]);
    assert_code(&out, 0);
    let listed: Vec<String> = expected
        .iter()
        .rev()
        .map(|(_, l, _)| format!("{l}\n"))
        .collect();
    assert_eq!(stdout(&out), listed.concat());
    assert_code(&sdlc(&env, &repo, &["list", "--json"]), 0);
    // Writers refuse what they cannot read (exit 2), never panic.
    for args in [
        &["repair", "r2-non-utf8", "--yes"][..],
        &["resume", "r6-missing", "--yes"][..],
    ] {
        assert_code(&sdlc(&env, &repo, args), 2);
    }
}

/// Bad input: timestamps in several ISO forms (`Z`, `+02:00`, `-05:00`, no offset read as UTC,
/// fractional seconds) are all understood by the stale rule; a missing or unparseable
/// `started_at` keeps `running` with a warning; event `ts` in any form (or none) is shown as
/// written.
#[test]
fn timestamps_in_several_iso_forms() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let fractional = |seconds: i64| {
        now_minus(seconds)
            .strftime("%Y-%m-%dT%H:%M:%S.123456Z")
            .to_string()
    };
    let cases: Vec<(&str, Value, Option<String>, &str)> = vec![
        ("a-z-old", ago(2 * HOUR).into(), None, "interrupted"),
        ("b-z-young", ago(20 * MIN).into(), None, "running"),
        (
            "c-plus2-old",
            ago_at_offset(2 * HOUR, 2).into(),
            None,
            "interrupted",
        ),
        (
            "d-plus2-young",
            ago_at_offset(20 * MIN, 2).into(),
            None,
            "running",
        ),
        (
            "e-minus5-young",
            ago_at_offset(20 * MIN, -5).into(),
            None,
            "running",
        ),
        (
            "f-minus5-old",
            ago_at_offset(2 * HOUR, -5).into(),
            None,
            "interrupted",
        ),
        (
            "g-naive-old",
            ago_without_offset(2 * HOUR).into(),
            None,
            "interrupted",
        ),
        (
            "h-naive-young",
            ago_without_offset(20 * MIN).into(),
            None,
            "running",
        ),
        (
            "i-fraction-old",
            fractional(2 * HOUR).into(),
            None,
            "interrupted",
        ),
        (
            "j-fraction-young",
            fractional(20 * MIN).into(),
            None,
            "running",
        ),
        // An old run with a recent completion, the completion written in other forms.
        (
            "k-recent-plus2",
            ago(3 * HOUR).into(),
            Some(ago_at_offset(10 * MIN, 2)),
            "running",
        ),
        (
            "l-recent-minus5",
            ago(3 * HOUR).into(),
            Some(ago_at_offset(10 * MIN, -5)),
            "running",
        ),
        (
            "m-recent-naive",
            ago(3 * HOUR).into(),
            Some(ago_without_offset(10 * MIN)),
            "running",
        ),
        (
            "n-recent-fraction",
            ago(3 * HOUR).into(),
            Some(fractional(10 * MIN)),
            "running",
        ),
        (
            "o-old-completion-minus5",
            ago(3 * HOUR).into(),
            Some(ago_at_offset(2 * HOUR, -5)),
            "interrupted",
        ),
        (
            "p-bad-completion",
            ago(3 * HOUR).into(),
            Some("ten minutes ago".into()),
            "interrupted",
        ),
    ];
    for (id, started, completed, _) in &cases {
        let mut run = Run::new(&repo, id).set("started_at", started.clone());
        if let Some(completed) = completed {
            run = run.set(
                "phases",
                json!({"0": {"status": "completed", "completed_at": completed}}),
            );
        }
        run.set("current_phase", 0).no_log().write();
    }
    for (id, _, _, status) in &cases {
        let out = sdlc(&env, &repo, &["status", id, "--json"]);
        assert_code(&out, 0);
        let doc = json_of(&out);
        assert_eq!(doc["status"], *status, "{id}");
        assert!(
            !doc["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|w| w.as_str().unwrap().contains("started_at")),
            "{id}: {doc}"
        );
    }

    for (id, started) in [
        ("q-missing", None),
        ("r-garbage", Some("yesterday")),
        ("s-date-only-ish", Some("2026-13-45T99:00:00Z")),
    ] {
        let run = Run::new(&repo, id).unset("started_at");
        let run = match started {
            Some(text) => run.set("started_at", text),
            None => run,
        };
        run.no_log().write();
        let out = sdlc(&env, &repo, &["status", id]);
        assert_code(&out, 0);
        assert_eq!(
            stdout(&out),
            line(id, "hitl", "0", "running", "feat-rate-limit") + "\n"
        );
        assert!(stderr(&out).contains(&format!(
            "warning: {id}: started_at is missing or not a timestamp: the stale-running rule cannot apply\n"
        )));
    }

    // Event timestamps in every form, and none: all read, shown as written.
    let forms = [
        Some("2026-07-14T12:00:00Z".to_string()),
        Some("2026-07-14T14:00:00+02:00".to_string()),
        Some("2026-07-14T12:00:00".to_string()),
        Some("2026-07-14T12:00:00.123456Z".to_string()),
        None,
    ];
    let mut run = Run::new(&repo, "t-event-ts");
    for (n, ts) in forms.iter().enumerate() {
        let mut event = json!({"schema": 1, "event": "phase.started", "run_id": "t", "phase": n,
            "actor": "x", "summary": "s"});
        if let Some(ts) = ts {
            event["ts"] = ts.as_str().into();
        }
        run = run.line(&event.to_string());
    }
    run.write();
    let out = sdlc(&env, &repo, &["show", "t-event-ts", "--json"]);
    assert_code(&out, 0);
    let doc = json_of(&out);
    let shown: Vec<Value> = doc["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["ts"].clone())
        .collect();
    let expected: Vec<Value> = forms.iter().map(|f| json!(f)).collect();
    assert_eq!(shown, expected);
    assert_code(&sdlc(&env, &repo, &["show", "t-event-ts"]), 0);
    assert_code(&sdlc(&env, &repo, &["list"]), 0);
}

/// `sdlc list --by-mtime`: newest `meta.json` modification time first (the hooks' notion of the
/// newest run), whatever the names; a run without meta.json last.
#[test]
fn list_by_mtime_orders_by_meta_modification_time() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let set_mtime = |run: &Run, seconds: u64| {
        let file = std::fs::File::options()
            .append(true)
            .open(run.path("meta.json"))
            .unwrap();
        file.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(seconds))
            .unwrap();
    };
    let a = Run::new(&repo, "20260801-0900-a")
        .set("status", "completed")
        .write();
    let b = Run::new(&repo, "20260701-0900-b")
        .set("status", "completed")
        .write();
    let c = Run::new(&repo, "20260901-0900-c")
        .set("status", "completed")
        .write();
    std::fs::create_dir_all(repo.join(RUNS).join("20261001-0900-no-meta")).unwrap();
    set_mtime(&a, 1_700_000_000);
    set_mtime(&b, 1_800_000_000);
    set_mtime(&c, 1_600_000_000);

    let ids = |out: &Output| -> Vec<String> {
        stdout(out)
            .lines()
            .map(|l| l.split("  ").next().unwrap().to_string())
            .collect()
    };
    let out = sdlc(&env, &repo, &["list", "--by-mtime"]);
    assert_code(&out, 0);
    assert_eq!(
        ids(&out),
        [
            "20260701-0900-b",
            "20260801-0900-a",
            "20260901-0900-c",
            "20261001-0900-no-meta"
        ]
    );
    let out = sdlc(&env, &repo, &["list"]);
    assert_eq!(
        ids(&out),
        [
            "20261001-0900-no-meta",
            "20260901-0900-c",
            "20260801-0900-a",
            "20260701-0900-b"
        ]
    );
    let out = sdlc(&env, &repo, &["list", "--by-mtime", "--json"]);
    assert_code(&out, 0);
    let runs: Vec<String> = json_of(&out)["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["run_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(runs[0], "20260701-0900-b");
}

/// The `--json` documents: `git-ucg.sdlc-runs/1` (list), `git-ucg.sdlc-status/1` (status),
/// `git-ucg.sdlc-run/1` (show), `git-ucg.sdlc-handoff/1` (resume); `--runs-dir` names another
/// runs directory.
#[test]
fn json_documents_and_their_schemas() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let run = Run::new(&repo, ID).at(4).write();
    write(&run.path("requirements.md"), "# Rate limit\n");
    write(
        &run.path("decisions.jsonl"),
        "{\"gate_id\":\"spec.approved\",\"verdict\":{\"decision\":\"approve\"}}\n",
    );
    let keys = |doc: &Value| -> Vec<String> {
        let mut keys: Vec<String> = doc.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        keys
    };
    let status_keys = [
        "branch",
        "dir",
        "line",
        "mode",
        "phase",
        "run_id",
        "status",
        "stored_status",
        "warnings",
    ];

    let out = sdlc(&env, &repo, &["list", "--json"]);
    assert_code(&out, 0);
    let doc = json_of(&out);
    assert_eq!(doc["schema"], "git-ucg.sdlc-runs/1");
    assert_eq!(keys(&doc), ["runs", "schema"]);
    let entry = &doc["runs"][0];
    assert_eq!(keys(entry), status_keys);
    assert_eq!(entry["run_id"], ID);
    assert_eq!(entry["mode"], "hitl");
    assert_eq!(entry["phase"], 4);
    assert_eq!(entry["status"], "interrupted");
    assert_eq!(entry["stored_status"], "running");
    assert_eq!(entry["branch"], "feat-rate-limit");
    assert_eq!(entry["line"], line_of(ID, "4", "interrupted"));
    assert_eq!(entry["warnings"], json!([]));
    assert_eq!(
        PathBuf::from(entry["dir"].as_str().unwrap())
            .canonicalize()
            .unwrap(),
        run.dir.canonicalize().unwrap()
    );

    let out = sdlc(&env, &repo, &["status", ID, "--json"]);
    assert_code(&out, 0);
    assert_eq!(stderr(&out), "", "warnings go into the document");
    let doc = json_of(&out);
    assert_eq!(doc["schema"], "git-ucg.sdlc-status/1");
    let mut expected_keys: Vec<&str> = status_keys.to_vec();
    expected_keys.push("schema");
    expected_keys.sort();
    assert_eq!(keys(&doc), expected_keys);

    let out = sdlc(&env, &repo, &["show", ID, "--json"]);
    assert_code(&out, 0);
    let doc = json_of(&out);
    assert_eq!(doc["schema"], "git-ucg.sdlc-run/1");
    assert_eq!(
        keys(&doc),
        [
            "complexity",
            "decisions",
            "events",
            "phases",
            "qa_report",
            "requirements",
            "schema",
            "status"
        ]
    );
    assert_eq!(doc["status"]["line"], line_of(ID, "4", "interrupted"));
    assert_eq!(doc["requirements"], json!(["# Rate limit"]));
    assert_eq!(doc["complexity"], Value::Null);
    assert_eq!(doc["phases"].as_array().unwrap().len(), 13);
    assert_eq!(
        doc["phases"][4],
        json!({"phase": 4, "name": "Spec (conditional)", "status": "running",
            "started_at": run.meta_json()["phases"]["4"]["started_at"], "completed_at": null,
            "logged": "open"})
    );
    assert_eq!(doc["events"].as_array().unwrap().len(), 9);
    assert_eq!(
        doc["decisions"],
        json!([{"line": 1, "ts": null, "gate_id": "spec.approved", "decision": "approve",
            "source": null, "escalated": null}])
    );

    let out = sdlc(&env, &repo, &["resume", ID, "--yes", "--json"]);
    assert_code(&out, 0);
    let doc = json_of(&out);
    assert_eq!(doc["schema"], "git-ucg.sdlc-handoff/1");
    assert_eq!(
        keys(&doc),
        [
            "mode",
            "phase_name",
            "raw_input",
            "resume_hint",
            "resume_phase",
            "run_id",
            "schema",
            "special",
            "to"
        ]
    );

    // --runs-dir: another directory, from outside any repository too.
    let elsewhere = env.path().join("elsewhere/docs/superpowers/runs");
    Run {
        dir: elsewhere.join("run-x"),
        ..Run::new(&repo, "run-x")
    }
    .set("status", "aborted")
    .write();
    let out = sdlc(
        &env,
        env.path(),
        &["list", "--json", "--runs-dir", elsewhere.to_str().unwrap()],
    );
    assert_code(&out, 0);
    let doc = json_of(&out);
    assert_eq!(doc["runs"].as_array().unwrap().len(), 1);
    assert_eq!(doc["runs"][0]["line"], line_of("run-x", "0", "aborted"));
    // An unknown run is an error with a hint.
    let out = sdlc(&env, &repo, &["status", "nope"]);
    assert_code(&out, 2);
    assert!(stderr(&out).contains("hint: `git ucg sdlc list` shows the runs"));
}

/// The demo: `sdlc list` shows its three runs newest first by name — the lagging one (its log is
/// ahead of its snapshot) and the stuck one interrupted, the finished one completed.
#[test]
fn demo_runs_are_listed() {
    let env = TestEnv::new();
    let demo = env.demo();
    let out = sdlc(&env, &demo, &["list"]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        [
            "20260604-1000-feat-rate-limit  hitl  phase=5  status=interrupted  branch=feat-rate-limit",
            "20260603-1400-fix-login-timeout  hitl  phase=7  status=interrupted  branch=fix-login-timeout",
            "20260601-0900-feat-csv-export  autonomous  phase=12  status=completed  branch=feat-csv-export",
        ]
        .join("\n")
            + "\n"
    );
    assert_eq!(stderr(&out), "");
}

/// `list` keeps what it showed under the git directory (`.git/ucg/sdlc-list.json`) and shows it
/// again for the runs nothing has touched: the same lines and documents. A run whose log or
/// snapshot is written (appended to, edited in place with its modification time put back,
/// replaced) is read again; a running run turns `interrupted` when the clock says so, cache or
/// not; a FIFO in a run is never waited on (nor kept); a damaged cache is not believed.
#[test]
fn list_keeps_what_it_showed_while_the_runs_are_unchanged() {
    use std::os::unix::fs::MetadataExt;
    let env = TestEnv::new();
    let repo = env.repo("project");
    let cache = repo.join(".git/ucg/sdlc-list.json");
    let a = Run::new(&repo, "20260714-1200-feat-a").at(3).write();
    let b = Run::new(&repo, "20260714-1300-feat-b")
        .at(5)
        .set("status", "completed")
        .write();
    // Running, started an hour ago less two seconds: `interrupted` two seconds from now.
    let c = Run::new(&repo, "20260714-1400-feat-c")
        .set("started_at", ago(HOUR - 2))
        .write();
    let list = |args: &[&str]| {
        let out = sdlc(&env, &repo, args);
        assert_code(&out, 0);
        stdout(&out)
    };
    let first = (list(&["list"]), list(&["list", "--json"]));
    assert!(
        first
            .0
            .contains(&line(&c.id, "hitl", "0", "running", "feat-rate-limit")),
        "{}",
        first.0
    );
    let ino = std::fs::metadata(&cache).expect("a cache").ino();
    assert_eq!((list(&["list"]), list(&["list", "--json"])), first);
    assert_eq!(
        std::fs::metadata(&cache).unwrap().ino(),
        ino,
        "shown from the cache"
    );

    // An appended phase event moves run a on.
    let mut log = std::fs::OpenOptions::new()
        .append(true)
        .open(a.path("events.jsonl"))
        .unwrap();
    std::io::Write::write_all(
        &mut log,
        format!(
            "{}\n{}\n",
            event_line(&a.id, "phase.completed", Some(3)),
            event_line(&a.id, "phase.started", Some(4))
        )
        .as_bytes(),
    )
    .unwrap();
    drop(log);
    let moved = list(&["list"]);
    assert!(
        moved.contains(&line(&a.id, "hitl", "4", "interrupted", "feat-rate-limit")),
        "{moved}"
    );
    let fresh = sdlc(&env, &repo, &["status", &a.id, "--json"]);
    assert_eq!(
        json_of(&sdlc(&env, &repo, &["list", "--json"]))["runs"][2]["phase"],
        json_of(&fresh)["phase"]
    );

    // meta.json edited in place, the same size, its modification time put back.
    let before = std::fs::metadata(b.path("meta.json")).unwrap();
    let text = String::from_utf8(b.read("meta.json"))
        .unwrap()
        .replace("\"hitl\"", "\"HITL\"");
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(b.path("meta.json"))
        .unwrap();
    std::io::Write::write_all(&mut &file, text.as_bytes()).unwrap();
    file.set_modified(before.modified().unwrap()).unwrap();
    drop(file);
    assert_eq!(
        std::fs::metadata(b.path("meta.json")).unwrap().len(),
        before.len()
    );
    assert!(list(&["list"]).contains(&line(&b.id, "HITL", "5", "completed", "feat-rate-limit")));

    // The clock alone turns run c stale.
    std::thread::sleep(std::time::Duration::from_secs(3));
    let later = list(&["list"]);
    assert!(
        later.contains(&line(&c.id, "hitl", "0", "interrupted", "feat-rate-limit")),
        "{later}"
    );

    // A FIFO for a log: not waited on, not kept; the other runs still come from the cache.
    std::fs::remove_file(c.path("events.jsonl")).unwrap();
    assert!(Command::new("mkfifo")
        .arg(c.path("events.jsonl"))
        .status()
        .unwrap()
        .success());
    for _ in 0..2 {
        let mut child = env
            .ucg(&repo)
            .args(["sdlc", "list", "--json"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > std::time::Duration::from_secs(10) {
                let _ = child.kill();
                panic!("list waits on a FIFO");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(
            doc["runs"][0]["warnings"].to_string().contains("a FIFO"),
            "{doc}"
        );
    }
    let kept: Value = serde_json::from_slice(&std::fs::read(&cache).unwrap()).unwrap();
    assert!(
        kept["entries"].get(&c.id).is_none(),
        "a FIFO run is not kept"
    );

    // A damaged cache is not believed.
    let now = (list(&["list"]), list(&["list", "--json"]));
    for damaged in ["", "{", "{\"version\":\"0\"}", "not json at all"] {
        std::fs::write(&cache, damaged).unwrap();
        assert_eq!((list(&["list"]), list(&["list", "--json"])), now);
    }
}
