//! S1–S27: one test per behaviour of docs/formats/sdlc.md, named after it.

use super::support::*;
use crate::common::*;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

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
/// (`.git/ucg/sdlc-list`, made by the first listing).
#[test]
fn s02_listing_performs_zero_writes() {
    let env = TestEnv::new();
    let demo = env.demo();
    assert_code(&sdlc(&env, &demo, &["list"]), 0);
    assert!(demo.join(".git/ucg/sdlc-list").is_file());
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
        flat(&stderr(&out)),
        format!("warning: {ID}: events.jsonl is missing: meta.json alone is shown")
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
    // The log proves phase 4 completed, not which phase comes next: current_phase is not guessed
    // (issue 33 item 10; before, 4 -> 5 was proposed and written).
    let proposal = format!(
        "{ID}: meta.json disagrees with events.jsonl (the log wins):\n  phases.4.status: \"running\" -> \"completed\"\n"
    );
    let question = "Rewrite these fields of meta.json and append status.repaired? (yes/no) ";

    let out = sdlc(&env, &repo, &["status", ID]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        line(ID, "hitl", "4", "interrupted", "feat-rate-limit") + "\n"
    );
    // Wrapped to 80 columns, the command whole.
    assert_eq!(
        flat(&stderr(&out)),
        format!("warning: {ID}: meta.json is stale against events.jsonl (phases.4.status \"running\" -> \"completed\"): `git ucg sdlc repair {ID}`")
    );
    assert!(stderr(&out).contains(&format!("`git ucg sdlc repair {ID}`\n")));

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

    // Only the bytes of the changed value move: every other byte stays as written.
    let before_text = String::from_utf8(meta_before.clone()).unwrap();
    let at = before_text.find("\"4\"").unwrap();
    let status_at = at + before_text[at..].find("\"running\"").unwrap();
    let expected = format!(
        "{}\"completed\"{}",
        &before_text[..status_at],
        &before_text[status_at + "\"running\"".len()..]
    );
    let meta_after = run.read("meta.json");
    assert_eq!(
        String::from_utf8(meta_after).unwrap(),
        expected,
        "only the phase fields change; every other byte stays"
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
    // The log proves phases 4-6 completed, not which phase comes next: the status line says
    // unknown, and the repair corrects the phases, leaving current_phase (issue 33 item 10;
    // before, 7 was guessed and written).
    let out = sdlc(&env, &repo, &["status", "20260714-1300-eval-5"]);
    assert!(
        stdout(&out).contains("  phase=unknown  "),
        "{}",
        stdout(&out)
    );
    let out = sdlc(&env, &repo, &["repair", "20260714-1300-eval-5", "--yes"]);
    assert_code(&out, 0);
    let meta = other.meta_json();
    assert_eq!(meta["current_phase"], 4);
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
            let err = flat(&stderr(&out));
            assert!(
                err == format!("error: run {ID} is completed: completed runs are never written")
                    || err
                        == format!(
                            "error: run {ID} is completed: only an interrupted or aborted run is resumed"
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
        (&["resume", ID][..], "y\n"),
        (&["resume", ID][..], "Y\n"),
        (&["resume", ID][..], "Yes\n"),
        (&["resume", ID][..], " yes \n"),
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
        assert!(stdout(&out).starts_with("Handoff to sdlc-pipeline"));
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
            "Handoff to sdlc-pipeline (sdlc-engine at agentic-sdlc's head; it runs the phase, git-ucg does not):\n  run_id: {ID}\n  mode: autonomous\n  raw_input: Export the task list as CSV\n  resume_phase: 9\n  phase_name: Final code review (two rounds)\n  resume_hint: resume at Phase 9 (Final code review (two rounds)): re-run the whole phase, overwriting its outputs\n  special: regenerate the review bundle from a fresh diff\n"
        )
    );
    let out = sdlc(&env, &repo, &["resume", ID, "--yes", "--json"]);
    assert_code(&out, 0);
    assert_eq!(
        json_of(&out),
        json!({
            "schema": "git-ucg.sdlc-handoff/2",
            "run_id": ID,
            "to": "sdlc-pipeline",
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

    // Declined (anything but the exact yes): the changes are shown, nothing is written.
    let before = snapshot(&repo);
    let out = sdlc_in(&env, &repo, &["reconcile", ID], "y\n");
    assert!(snapshot(&repo) == before, "a declined repair wrote");
    assert!(
        stdout(&out).contains("Status: Blocked -> In progress"),
        "{}",
        stdout(&out)
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
        flat(&stderr(&out)),
        "warning: 20260714-1300-minimal: events.jsonl: phase.completed for phase 2 without a phase.started before it"
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
        flat(&stderr(&out)),
        format!("warning: {guard}: started_at is missing or not a timestamp: the stale-running rule cannot apply")
    );
    // With the ticket-sync fixture's minimal event line: the log shows phase 2 completed, which
    // proves nothing about the next phase, so current_phase 7 stands (before, phase 3 was
    // guessed: issue 33 item 10).
    write(
        &repo.join(RUNS).join(guard).join("events.jsonl"),
        "{\"event\":\"phase.completed\",\"phase\":2}\n",
    );
    let out = sdlc(&env, &repo, &["status", guard]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        line(guard, "unknown", "7", "running", "unknown") + "\n"
    );
    let err = flat(&stderr(&out));
    assert!(err.contains("phase.completed for phase 2 without a phase.started before it"));
    assert!(err.contains(
        "meta.json is stale against events.jsonl (phases.2.status null -> \"completed\")"
    ));
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
    let proposal = "run-a: meta.json disagrees with events.jsonl (the log wins):\n  phases.4.status: \"running\" -> \"completed\"\n";

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
    assert_eq!(kept["current_phase"], 4);
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

/// Issue 33 item 8 (seed 003, "Resume-candidate selection order", and step 4, which names
/// `phase.interrupted` a terminal event): phases 0–3 completed and 4 started then interrupted in
/// the log, the snapshot marking phase 2 running. No phase is started without a terminal event,
/// so rule 2 gives phase 2 (before, the interrupted phase 4 was taken as still open). Without a
/// phase marked running, rule 3 re-runs the interrupted phase, which is not done.
#[test]
fn the_resume_candidate_follows_the_three_rules_with_interrupted_terminal() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    Run::new(&repo, ID)
        .at(4)
        .ev("phase.interrupted", 4)
        .phase(2, "running")
        .write();
    let out = sdlc(&env, &repo, &["resume", ID, "--yes", "--json"]);
    assert_code(&out, 0);
    assert_eq!(json_of(&out)["resume_phase"], 2);
    assert_eq!(json_of(&out)["to"], "sdlc-pipeline");
    let other = "20260714-1300-other";
    Run::new(&repo, other)
        .at(4)
        .ev("phase.interrupted", 4)
        .phase(4, "interrupted")
        .write();
    let out = sdlc(&env, &repo, &["resume", other, "--yes", "--json"]);
    assert_code(&out, 0);
    assert_eq!(json_of(&out)["resume_phase"], 4);
}

/// Issue 33 item 6 (seed 003, step 8: "reconcile the work-item ledgers if needed, select the
/// resume candidate, confirm, then hand off"): a run whose work item disagrees with its ledgers
/// is not resumed — the resume stops, nothing written, and names `sdlc reconcile`, which asks for
/// its own confirmation; once reconciled, the resume goes ahead. Before, it resumed without a
/// word.
#[test]
fn a_resume_waits_for_the_work_item_to_be_reconciled() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let run = work_item_run(&repo).write();
    write(
        &run.path("work-item-events.jsonl"),
        &format!("{}\n", receipt(ID, "succeeded", "2026-07-14T14:00:00Z")),
    );
    let item = work_item(
        &item_fields("Approved"),
        &["2026-07-14T13:00:00Z ticket-sync: PROJ-1234 → DEV (pending)"],
    );
    write(&run.path("work-item.md"), &item);
    let before = snapshot(&repo);
    let out = sdlc(&env, &repo, &["resume", ID, "--yes"]);
    assert_code(&out, 2);
    assert_eq!(stdout(&out), "", "no handoff");
    assert!(
        stderr(&out).contains(&format!("hint: git ucg sdlc reconcile {ID}")),
        "{}",
        stderr(&out)
    );
    assert!(snapshot(&repo) == before, "nothing written");
    assert_code(&sdlc(&env, &repo, &["reconcile", ID, "--yes"]), 0);
    let out = sdlc(&env, &repo, &["resume", ID, "--yes", "--json"]);
    assert_code(&out, 0);
    assert_eq!(json_of(&out)["resume_phase"], 4);
}

/// Issue 33 item 10 (seed 003: the log wins, "rewrite only meta.json's phase-status fields"): a
/// run whose snapshot has no current_phase and whose log shows only phase 2 completed is at an
/// unknown phase (before: `phase=3`, and `repair` wrote 3 into current_phase); the repair
/// corrects phase 2's status and leaves every other byte of meta.json as written — its compact
/// layout, its number forms, its missing final newline (before: the whole file re-formatted).
#[test]
fn status_and_repair_never_guess_and_repair_keeps_every_other_byte() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let run = Run::new(&repo, ID).write();
    let meta = format!(
        "{{\"run_id\":\"{ID}\",  \"mode\":\"hitl\",\"status\":\"interrupted\",\"started_at\":\"2026-07-14T12:00:00Z\",\"branch\":\"b\",\"phases\":{{\"2\":{{\"status\":\"running\",\"cost\":1.50}}}},\"x\":[1e3]}}"
    );
    write(&run.path("meta.json"), &meta);
    write(
        &run.path("events.jsonl"),
        &format!(
            "{}\n{}\n",
            event_line(ID, "phase.started", Some(2)),
            event_line(ID, "phase.completed", Some(2))
        ),
    );
    let out = sdlc(&env, &repo, &["status", ID]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        line(ID, "hitl", "unknown", "interrupted", "b") + "\n"
    );
    let out = sdlc(&env, &repo, &["repair", ID, "--yes"]);
    assert_code(&out, 0);
    assert!(!stdout(&out).contains("current_phase"), "{}", stdout(&out));
    assert_eq!(
        String::from_utf8(run.read("meta.json")).unwrap(),
        meta.replace("{\"status\":\"running\"", "{\"status\":\"completed\"")
    );
}

/// Issue 33 item 11 (seed 003, "Reading a project's own pipeline state"): when
/// `.agentic/agentic-sdlc/config.json` names a neutral state file, `sdlc status` shows what it
/// holds, as the authority (and `--json` gives it as `project_state`); a state file outside the
/// project, a FIFO or a non-object is said to be unreadable, never read. Before, the file was
/// never read.
#[test]
fn status_shows_the_projects_own_pipeline_state() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    Run::new(&repo, ID).at(4).write();
    let config = repo.join(".agentic/agentic-sdlc/config.json");
    let name = |state: &str| {
        write(
            &config,
            &format!(
                "{{\"schema\": 1, \"project_orchestration\": {{\"state_file\": \"{state}\"}}}}"
            ),
        );
    };
    name(".agentic/state/pipeline.json");
    write(
        &repo.join(".agentic/state/pipeline.json"),
        r#"{"active_pipeline": "feature-delivery", "current_role": "implementer",
            "next_roles": ["reviewer", "qa"], "gate_results": {"lint": "pass"},
            "changed_files": ["src/a.rs"], "blockers": []}"#,
    );
    let out = sdlc(&env, &repo, &["status", ID]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        format!(
            "{}\n\nProject pipeline (the authority: .agentic/state/pipeline.json):\n  active pipeline  feature-delivery\n  current role     implementer\n  next roles       reviewer, qa\n  gate results     {{\"lint\":\"pass\"}}\n  changed files    src/a.rs\n  blockers         none\n",
            line(ID, "hitl", "4", "interrupted", "feat-rate-limit")
        )
    );
    let out = sdlc(&env, &repo, &["status", ID, "--json"]);
    let doc = json_of(&out);
    assert_eq!(doc["project_state"]["current_role"], "implementer");
    assert_eq!(doc["project_state"]["path"], ".agentic/state/pipeline.json");
    // Unreadable states are said so, on stderr, and not shown.
    for (state, plant) in [
        ("../outside.json", "{}"),
        (".agentic/state/fifo.json", "fifo"),
        (".agentic/state/list.json", "[1]"),
    ] {
        name(state);
        let path = repo.join(state);
        if plant == "fifo" {
            let made = std::process::Command::new("mkfifo")
                .arg(&path)
                .status()
                .unwrap();
            assert!(made.success());
        } else {
            write(&path, plant);
        }
        let out = sdlc(&env, &repo, &["status", ID]);
        assert_code(&out, 0);
        assert_eq!(
            stdout(&out),
            line(ID, "hitl", "4", "interrupted", "feat-rate-limit") + "\n"
        );
        assert!(
            stderr(&out).contains(&format!(
                "the project's pipeline state {state} cannot be read"
            )),
            "{state}: {}",
            stderr(&out)
        );
    }
}
