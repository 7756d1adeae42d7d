//! The state lock and the state file's layout: docs/formats/ultragoal.md §3.4–3.5 and §6 behaviours
//! 25–27 — contention fails closed, stale locks are recovered, nothing is left behind, concurrent
//! writers never lose an update, and every CLI write lays the file out as `JSON.stringify(state,
//! null, 2)` with the known keys in order and other tools' keys kept.

use super::support::*;
use crate::common::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, SystemTime};

const CONTENDED: &str =
    "ultragoal-state: Error: ultragoal-state: state lock contended; refusing unlocked write\n";

/// The known keys in the order the merge-write lays them out (§1.4).
const KEY_ORDER: [&str; 28] = [
    "outcome",
    "verification_surface",
    "constraints",
    "boundaries",
    "non_goals",
    "max_iterations",
    "blocked_stop",
    "phase",
    "iteration",
    "started_at",
    "active",
    "objective_verdict",
    "plan_path",
    "resume_summary",
    "budget_limit_notified",
    "blocked_reason",
    "completion_evidence_paths",
    "schema_version",
    "stories",
    "codex_goal_objective",
    "last_seen_head",
    "last_seen_stories_digest",
    "review_dispatch_used",
    "review_dispatch_cap",
    "approved_review_artifact_sha256",
    "dismissed_review_findings",
    "last_touched_at",
    "progress_touched_at",
];

/// Known keys written only once they hold something.
const OPTIONAL: [&str; 2] = ["last_seen_head", "last_seen_stories_digest"];

fn lock_dir(g: &Goal) -> PathBuf {
    let mut name = g.state_path().into_os_string();
    name.push(".lock");
    PathBuf::from(name)
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// A lock directory whose `owner.json` names `pid`, as the reference writes it.
fn lock_owned_by(g: &Goal, pid: u32) -> PathBuf {
    let lock = lock_dir(g);
    std::fs::create_dir(&lock).unwrap();
    let owner = json!({"ownerPid": pid, "token": "6f1d2c3b-0a4e-4f5a-9b8c-7d6e5f4a3b2c",
        "startedAt": now_ms()});
    std::fs::write(lock.join("owner.json"), owner.to_string()).unwrap();
    lock
}

/// A pid that no process has any more.
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

/// Sets the modification time of a file or directory `secs` seconds into the past.
fn age(path: &Path, secs: u64) {
    let file = std::fs::File::open(path).unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(secs))
        .unwrap();
}

/// The lock's files with their bytes.
fn lock_contents(lock: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    snapshot(lock)
}

/// Entries of the state directory that only a lock or a write in progress leaves.
fn debris(g: &Goal) -> Vec<String> {
    std::fs::read_dir(&g.omt)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| {
            name.ends_with(".lock")
                || name.contains(".lock.")
                || name.contains(".recovery")
                || name.contains(".stale-")
                || name.contains(".tmp.")
        })
        .collect()
}

fn claim(g: &Goal) -> Output {
    g.run(&["claim-review-dispatch"])
}

fn allowed(used: i64, cap: i64) -> String {
    format!("{{\"allowed\":true,\"reason\":\"allowed\",\"used\":{used},\"cap\":{cap}}}\n")
}

const FAILURE: &str = "{\"allowed\":false,\"reason\":\"failure\",\"used\":0,\"cap\":0}\n";

/// §6.25: a fresh lock of a live owner makes writers fail closed: the state's bytes and the lock
/// stay as they were.
#[test]
fn a_live_owners_lock_fails_closed() {
    let g = Goal::new();
    g.pursuing();
    g.ok(&["set-budget-limited"]);
    let before = g.state_bytes();
    let lock = lock_owned_by(&g, std::process::id());
    let held = lock_contents(&lock);
    let message = g.refused(&["resume-pursuit"]);
    assert_eq!(message, CONTENDED);
    assert_eq!(g.state_bytes(), before);
    assert_eq!(lock_contents(&lock), held);
    // Every kind of writer.
    for args in [
        &["set-blocked", "--reason", "x"][..],
        &["set", "--phase", "planning"],
        &["set-verdict", "--verdict", "COMMENT"],
        &["confirm-all-stories"],
    ] {
        assert_eq!(g.refused(args), CONTENDED, "{args:?}");
        assert_eq!(g.state_bytes(), before, "{args:?}");
    }
    // A refusal the reference decides before it locks is reported as such, not as contention.
    assert!(g
        .refused(&["request-complete"])
        .starts_with("request-complete: refused — requires objective_verdict=APPROVE"),);
    assert_eq!(
        g.refused(&["confirm-story", "NOPE"]),
        "ultragoal-state: Error: confirm-story: unknown story id \"NOPE\"\n"
    );
    // The claim answers failure (and exits 1).
    let out = claim(&g);
    assert_eq!(
        (out.status.code(), stdout(&out)),
        (Some(1), FAILURE.to_string())
    );
    assert_eq!(g.state_bytes(), before);
    assert_eq!(lock_contents(&lock), held);
    // Only the lock itself is there: no guard, nothing set aside, no temporary file.
    assert_eq!(
        debris(&g),
        [lock.file_name().unwrap().to_string_lossy().into_owned()]
    );
    // Readers do not lock.
    assert_eq!(g.stdout(&["status"]), "budget_limited\n");
    // Released: the same command goes through.
    std::fs::remove_dir_all(&lock).unwrap();
    g.ok(&["resume-pursuit"]);
    assert_eq!(g.state()["phase"], "pursuing");
}

/// §6.26: a lock whose owner is dead is recovered at once.
#[test]
fn a_dead_owners_lock_is_recovered() {
    let g = Goal::new();
    g.pursuing();
    lock_owned_by(&g, dead_pid());
    let out = claim(&g);
    assert_eq!(
        (out.status.code(), stdout(&out)),
        (Some(0), allowed(1, 5)),
        "{}",
        stderr(&out)
    );
    assert_eq!(g.state()["review_dispatch_used"], 1);
    assert_eq!(debris(&g), Vec::<String>::new());
}

/// §6.26: a lock without a (valid) owner is recovered once older than 30 s, not before.
#[test]
fn an_ownerless_lock_is_recovered_after_thirty_seconds() {
    for owner in [
        None,
        Some("not json"),
        Some(r#"{"token":"t","startedAt":1}"#),
    ] {
        let g = Goal::new();
        g.pursuing();
        let lock = lock_dir(&g);
        std::fs::create_dir(&lock).unwrap();
        if let Some(text) = owner {
            std::fs::write(lock.join("owner.json"), text).unwrap();
        }
        // Fresh: contended.
        let before = g.state_bytes();
        let out = claim(&g);
        assert_eq!(stdout(&out), FAILURE, "{owner:?}");
        assert_eq!(g.state_bytes(), before);
        assert!(lock.is_dir());
        // 31 s old: recovered.
        age(&lock, 31);
        let out = claim(&g);
        assert_eq!(stdout(&out), allowed(1, 5), "{owner:?}: {}", stderr(&out));
        assert_eq!(g.state()["review_dispatch_used"], 1);
        assert_eq!(debris(&g), Vec::<String>::new(), "{owner:?}");
    }
}

/// The reference's staleness rule, which both tools must share to agree on who holds the lock: a
/// lock older than 30 s is stale even when its owner is alive.
#[test]
fn a_live_owners_old_lock_is_reclaimed() {
    let g = Goal::new();
    g.pursuing();
    g.ok(&["set-budget-limited"]);
    let lock = lock_dir(&g);
    std::fs::create_dir(&lock).unwrap();
    let owner = json!({"ownerPid": std::process::id(), "token": "t-1",
        "startedAt": now_ms()});
    std::fs::write(lock.join("owner.json"), owner.to_string()).unwrap();
    let before = g.state_bytes();
    assert_eq!(g.refused(&["resume-pursuit"]), CONTENDED);
    assert_eq!(g.state_bytes(), before);
    age(&lock, 31);
    g.ok(&["resume-pursuit"]);
    assert_eq!(g.state()["phase"], "pursuing");
    assert!(!lock.exists());
    assert_eq!(debris(&g), Vec::<String>::new());
}

/// A recovery in progress (a fresh `<lock>.recovery`) is not interrupted; a stale guard (over
/// 30 s) is itself recovered.
#[test]
fn the_recovery_guard_serializes_recovery() {
    let g = Goal::new();
    g.pursuing();
    lock_owned_by(&g, dead_pid());
    let mut name = lock_dir(&g).into_os_string();
    name.push(".recovery");
    let guard = PathBuf::from(name);
    std::fs::create_dir(&guard).unwrap();
    let before = g.state_bytes();
    assert_eq!(stdout(&claim(&g)), FAILURE);
    assert_eq!(g.state_bytes(), before);
    age(&guard, 31);
    let out = claim(&g);
    assert_eq!(stdout(&out), allowed(1, 5), "{}", stderr(&out));
    assert_eq!(debris(&g), Vec::<String>::new());
}

/// §6.27 (black-box): after every successful command — and every hook stop — no lock, recovery
/// guard, set-aside lock or temporary file remains.
#[test]
fn successful_commands_leave_nothing_behind() {
    let g = Goal::new();
    let hook = |g: &Goal| {
        let out = output_with_stdin(
            &mut g.command_as("S", &["stop-hook"]),
            json!({"session_id": "S", "cwd": g.repo})
                .to_string()
                .as_bytes(),
        );
        assert_eq!(out.status.code(), Some(0));
    };
    let steps: Vec<Vec<&str>> = vec![
        vec![
            "set",
            "--phase",
            "planning",
            "--outcome",
            "o",
            "--verification-surface",
            "v",
        ],
        vec![
            "set-stories",
            "--json",
            r#"[{"id":"S1","story":"a","acceptance_criteria":["x"],"verification_surface":"t"},{"id":"S2","story":"b","acceptance_criteria":["y"],"verification_surface":"t"}]"#,
        ],
        vec!["confirm-story", "S1"],
        vec!["confirm-all-stories"],
        vec!["reorder-stories", "--order", "S2,S1"],
        vec![
            "set",
            "--phase",
            "pursuing",
            "--completion-evidence",
            "e.log",
        ],
        vec!["claim-review-dispatch"],
        vec!["approve-review-dispatch-renewal"],
        vec!["set-verdict", "--verdict", "APPROVE"],
        vec!["set-budget-limited"],
        vec!["resume-pursuit"],
    ];
    for step in &steps {
        g.ok(step);
        assert_eq!(debris(&g), Vec::<String>::new(), "after {step:?}");
        hook(&g);
        assert_eq!(
            debris(&g),
            Vec::<String>::new(),
            "after a stop following {step:?}"
        );
    }
    g.write_verdicts(&approving(&["S1", "S2"]));
    g.write_code_review(&review(&[]));
    g.ok(&["request-complete"]);
    assert_eq!(g.state()["phase"], "complete");
    assert_eq!(debris(&g), Vec::<String>::new());
}

/// One writer of the concurrent round, started at once.
fn start(g: &Goal, args: &[&str], input: Option<&[u8]>) -> Child {
    let mut command = g.command_as("S", args);
    command
        .env("GIT_UCG_GOAL_LOCK_MS", "10000")
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    if let Some(input) = input {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(input).unwrap();
    }
    child
}

fn statuses(state: &Value) -> Vec<(String, String)> {
    let mut list: Vec<(String, String)> = state["stories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap().to_string(),
                s["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    list.sort();
    list
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut list: Vec<(String, String)> = list
        .iter()
        .map(|(i, s)| (i.to_string(), s.to_string()))
        .collect();
    list.sort();
    list
}

/// Eight writers at once in pursuit — two claims, a renewal, an added story, two confirmations,
/// a verdict and a hook stop — and every one of their traces is there afterwards.
#[test]
fn concurrent_writers_in_pursuit_lose_nothing() {
    for round in 0..4 {
        let g = Goal::new();
        g.pursuing();
        for id in ["U1", "U2"] {
            g.ok(&[
                "add-story",
                "--json",
                &story(id).to_string(),
                "--evidence",
                "seen",
                "--rationale",
                "needed",
            ]);
        }
        let added = story("A1").to_string();
        let event = json!({"session_id": "S", "cwd": g.repo}).to_string();
        let writers: Vec<(&str, Child)> = vec![
            ("claim 1", start(&g, &["claim-review-dispatch"], None)),
            ("claim 2", start(&g, &["claim-review-dispatch"], None)),
            (
                "renewal",
                start(&g, &["approve-review-dispatch-renewal"], None),
            ),
            (
                "add",
                start(
                    &g,
                    &[
                        "add-story",
                        "--json",
                        &added,
                        "--evidence",
                        "e",
                        "--rationale",
                        "r",
                    ],
                    None,
                ),
            ),
            ("confirm U1", start(&g, &["confirm-story", "U1"], None)),
            ("confirm U2", start(&g, &["confirm-story", "U2"], None)),
            (
                "verdict",
                start(&g, &["set-verdict", "--verdict", "COMMENT"], None),
            ),
            ("stop", start(&g, &["stop-hook"], Some(event.as_bytes()))),
        ];
        let mut claims = Vec::new();
        for (what, child) in writers {
            let out = child.wait_with_output().unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "round {round}: {what}: {}{}",
                stdout(&out),
                stderr(&out)
            );
            if what.starts_with("claim") {
                let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
                assert_eq!(answer["allowed"], true);
                claims.push(answer["used"].as_i64().unwrap());
            }
            if what == "stop" {
                assert!(
                    stdout(&out).contains("[ULTRAGOAL - NO-PROGRESS 1/10]"),
                    "round {round}: {}",
                    stdout(&out)
                );
            }
        }
        claims.sort();
        assert_eq!(claims, [1, 2], "round {round}");
        let state = g.state();
        assert_eq!(state["review_dispatch_used"], 2, "round {round}");
        assert_eq!(state["review_dispatch_cap"], 10, "round {round}");
        assert_eq!(state["objective_verdict"], "COMMENT", "round {round}");
        assert_eq!(state["iteration"], 1, "round {round}");
        assert_eq!(
            state["last_seen_head"],
            g.env.git(&g.repo, &["rev-parse", "HEAD"]).as_str(),
            "round {round}"
        );
        assert_eq!(
            statuses(&state),
            pairs(&[
                ("S1", "confirmed"),
                ("U1", "confirmed"),
                ("U2", "confirmed"),
                ("A1", "unconfirmed"),
            ]),
            "round {round}"
        );
        assert_eq!(
            (state["phase"].clone(), state["active"].clone()),
            (json!("pursuing"), json!(true))
        );
        assert_eq!(debris(&g), Vec::<String>::new(), "round {round}");
    }
}

/// Eight writers at once in planning — added stories, confirmations, a retirement and two plan
/// fields — and every trace is there afterwards.
#[test]
fn concurrent_writers_in_planning_lose_nothing() {
    for round in 0..4 {
        let g = Goal::new();
        g.ok(&[
            "set",
            "--phase",
            "planning",
            "--outcome",
            "o",
            "--verification-surface",
            "v",
        ]);
        let list: Vec<Value> = ["T1", "T2", "T3", "T4"]
            .iter()
            .map(|id| story(id))
            .collect();
        g.ok(&["set-stories", "--json", &Value::Array(list).to_string()]);
        let (a1, a2) = (story("A1").to_string(), story("A2").to_string());
        let steering = ["--evidence", "e", "--rationale", "r"];
        let with = |args: &[&'static str], extra: &[&'static str]| -> Vec<&'static str> {
            args.iter().chain(extra).copied().collect()
        };
        let retire = with(&["retire-story", "T4"], &steering);
        let writers: Vec<(&str, Child)> = vec![
            (
                "add A1",
                start(
                    &g,
                    &[
                        "add-story",
                        "--json",
                        &a1,
                        "--evidence",
                        "e",
                        "--rationale",
                        "r",
                    ],
                    None,
                ),
            ),
            (
                "add A2",
                start(
                    &g,
                    &[
                        "add-story",
                        "--json",
                        &a2,
                        "--evidence",
                        "e",
                        "--rationale",
                        "r",
                    ],
                    None,
                ),
            ),
            ("confirm T1", start(&g, &["confirm-story", "T1"], None)),
            ("confirm T2", start(&g, &["confirm-story", "T2"], None)),
            ("confirm T3", start(&g, &["confirm-story", "T3"], None)),
            ("retire T4", start(&g, &retire, None)),
            (
                "plan path",
                start(
                    &g,
                    &["set", "--phase", "planning", "--plan-path", "plans/p.md"],
                    None,
                ),
            ),
            (
                "summary",
                start(
                    &g,
                    &[
                        "set",
                        "--phase",
                        "planning",
                        "--resume-summary",
                        "where we are",
                    ],
                    None,
                ),
            ),
        ];
        for (what, child) in writers {
            let out = child.wait_with_output().unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "round {round}: {what}: {}",
                stderr(&out)
            );
        }
        let state = g.state();
        assert_eq!(
            statuses(&state),
            pairs(&[
                ("T1", "confirmed"),
                ("T2", "confirmed"),
                ("T3", "confirmed"),
                ("T4", "retired"),
                ("A1", "unconfirmed"),
                ("A2", "unconfirmed"),
            ]),
            "round {round}"
        );
        assert_eq!(state["plan_path"], "plans/p.md", "round {round}");
        assert_eq!(state["resume_summary"], "where we are", "round {round}");
        assert_eq!(state["phase"], "planning");
        assert_eq!(debris(&g), Vec::<String>::new(), "round {round}");
    }
}

/// Checks the layout of the state file after a CLI write: `JSON.stringify(state, null, 2)`, the
/// known keys in their order, every non-optional one present, and nothing else — the foreign key
/// dropped, as the reference's merge-write drops it.
fn assert_layout(g: &Goal, after: &str) {
    let bytes = g.state_bytes().unwrap();
    let text = String::from_utf8(bytes).unwrap();
    let state: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        text,
        serde_json::to_string_pretty(&state).unwrap(),
        "after {after}: not the two-space layout"
    );
    assert!(
        text.starts_with("{\n  \"outcome\": "),
        "after {after}: {text}"
    );
    assert!(text.ends_with("\"\n}"), "after {after}: {text}");
    let keys = object_keys(&state);
    let known: Vec<&str> = KEY_ORDER
        .iter()
        .copied()
        .filter(|k| !OPTIONAL.contains(k) || keys.contains(k))
        .collect();
    assert_eq!(keys, known, "after {after}");
    assert_eq!(state.get("x_other_tool"), None, "after {after}");
    let stamp = regex::Regex::new(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$").unwrap();
    for key in ["last_touched_at", "progress_touched_at"] {
        let value = state[key].as_str().unwrap_or_default();
        assert!(stamp.is_match(value), "after {after}: {key} {value}");
    }
}

/// Another tool's key, in the middle of the state file.
fn plant_foreign_key(g: &Goal) {
    let mut raw: serde_json::Map<String, Value> =
        serde_json::from_slice(&g.state_bytes().unwrap()).unwrap();
    raw.shift_insert(3, "x_other_tool".into(), json!({"a": 1}));
    g.write_state(&Value::Object(raw));
}

/// The written layout, and a key another tool wrote dropped by every kind of CLI write (the
/// reference enumerates what it writes; issue 15, item 5).
#[test]
fn every_cli_write_keeps_the_layout_and_drops_foreign_keys() {
    let g = Goal::new();
    g.ok(&[
        "set",
        "--phase",
        "planning",
        "--outcome",
        "ship",
        "--verification-surface",
        "cargo test",
    ]);
    let two = format!("[{},{}]", story("S1"), story("S2"));
    let writes: Vec<Vec<&str>> = vec![
        vec![
            "set",
            "--phase",
            "planning",
            "--constraints",
            "keep tests green",
        ],
        vec!["set-stories", "--json", &two],
        vec!["confirm-story", "S1"],
        vec![
            "revise-story",
            "S2",
            "--json",
            r#"{"story":"b2"}"#,
            "--evidence",
            "e",
            "--rationale",
            "r",
        ],
        vec!["confirm-all-stories"],
        vec!["reorder-stories", "--order", "S2,S1"],
        vec![
            "add-story",
            "--json",
            r#"{"id":"S3","story":"c","acceptance_criteria":["z"],"verification_surface":"t"}"#,
            "--evidence",
            "e",
            "--rationale",
            "r",
        ],
        vec!["retire-story", "S3", "--evidence", "e", "--rationale", "r"],
        vec![
            "set",
            "--phase",
            "pursuing",
            "--completion-evidence",
            "e/1.log",
        ],
        vec!["set-verdict", "--verdict", "REQUEST_CHANGES"],
        vec!["claim-review-dispatch"],
        vec!["approve-review-dispatch-renewal"],
        vec!["set-budget-limited"],
        vec!["resume-pursuit"],
        vec!["set-blocked", "--reason", "no\ttoolchain"],
        vec!["set", "--phase", "planning", "--resume-summary", "again"],
        vec!["set-stories", "--single"],
        vec!["set-verdict", "--verdict", "APPROVE"],
    ];
    for args in &writes {
        plant_foreign_key(&g);
        g.ok(args);
        assert_layout(&g, &format!("{args:?}"));
    }
    // A refused request-complete leaves the bytes alone.
    g.refused_unchanged(&["request-complete"]);
    // The hook's stop keeps another tool's key (the reference's hook spreads the object), a CLI
    // write then drops it.
    plant_foreign_key(&g);
    let out = output_with_stdin(
        &mut g.command_as("S", &["stop-hook"]),
        json!({"session_id": "S", "cwd": g.repo})
            .to_string()
            .as_bytes(),
    );
    assert!(
        stdout(&out).contains("NO-PROGRESS 1/10"),
        "{}",
        stdout(&out)
    );
    g.ok(&[
        "set",
        "--phase",
        "pursuing",
        "--completion-evidence",
        "e/2.log",
    ]);
    assert_layout(&g, "a write after a stop");
    let state = g.state();
    assert_eq!(state["iteration"], 1);
    assert!(state["last_seen_head"].is_string());
    // Completion too.
    g.write_verdicts(&approving(&["S1"]));
    g.write_code_review(&review(&[]));
    g.ok(&["request-complete"]);
    assert_layout(&g, "request-complete");
    assert_eq!(g.state()["phase"], "complete");
}
