//! Acceptance items of the issue

use super::support::*;
use crate::common::*;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::{Command, Output};

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
    // Issue 33 item 12: it says that nothing was compared (before: "meta.json agrees with
    // events.jsonl; nothing to repair", exit 0).
    assert_code(&out, 2);
    assert!(!stdout(&out).contains("agrees"), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("nothing compared, nothing repaired"),
        "{}",
        stderr(&out)
    );
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
    // Issue 33 item 12: not "the work item agrees with its ledgers", which it does not.
    assert!(
        !stdout(&out).contains("agrees with its ledgers"),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("nothing reconciled: what disagrees is outside docs/superpowers"),
        "{}",
        stdout(&out)
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
            flat(&err).contains(flat(&format!("warning: {ID}: {expected}")).as_str()),
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
        assert!(flat(&stderr(&out)).contains(&format!(
            "warning: {id}: started_at is missing or not a timestamp: the stale-running rule cannot apply"
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
/// `git-ucg.sdlc-run/1` (show), `git-ucg.sdlc-handoff/2` (resume); `--runs-dir` names another
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
    // Added within version 1 (issue 33 item 11): `null` when nothing is configured.
    expected_keys.extend(["schema", "project_state"]);
    expected_keys.sort();
    assert_eq!(keys(&doc), expected_keys);
    assert_eq!(doc["project_state"], Value::Null);

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
    assert_eq!(doc["schema"], "git-ucg.sdlc-handoff/2");
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

/// `list` keeps what it showed under the git directory (`.git/ucg/sdlc-list`) and shows it
/// again for the runs nothing has touched: the same lines and documents. A run whose log or
/// snapshot is written (appended to, edited in place with its modification time put back,
/// replaced) is read again; a running run turns `interrupted` when the clock says so, cache or
/// not; a FIFO in a run is never waited on (nor kept); a damaged cache is not believed.
#[test]
fn list_keeps_what_it_showed_while_the_runs_are_unchanged() {
    use std::os::unix::fs::MetadataExt;
    let env = TestEnv::new();
    let repo = env.repo("project");
    let cache = repo.join(".git/ucg/sdlc-list");
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
    let kept = String::from_utf8(std::fs::read(&cache).unwrap()).unwrap();
    assert!(kept.contains(&a.id), "{kept}");
    assert!(!kept.contains(&c.id), "a FIFO run is not kept: {kept}");

    // A damaged cache is not believed: cut short, its end line changed, or not one at all.
    let now = (list(&["list"]), list(&["list", "--json"]));
    let whole = std::fs::read_to_string(&cache).unwrap();
    let cut = &whole[..whole.trim_end().rfind('\n').unwrap() + 1];
    let miscounted = reseal_cache(&whole.replace("\nend 3 4 ", "\nend 2 4 "));
    let edited = whole.replacen("feat-a", "feat-b", 1);
    assert_ne!(miscounted, whole, "{whole}");
    for damaged in ["", "{", "not a cache at all", cut, &miscounted, &edited] {
        std::fs::write(&cache, damaged).unwrap();
        assert_eq!((list(&["list"]), list(&["list", "--json"])), now);
    }
}

/// Issue 33 item 12: the warning on a completed run whose snapshot is stale against its log does
/// not suggest `sdlc repair`, which refuses a completed run.
#[test]
fn a_completed_runs_stale_warning_suggests_no_repair() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    Run::new(&repo, ID)
        .at(4)
        .set("current_phase", 5)
        .phase(4, "completed")
        .set("status", "completed")
        .write();
    let out = sdlc(&env, &repo, &["status", ID]);
    assert_code(&out, 0);
    assert!(
        stderr(&out).contains("is stale against events.jsonl"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("sdlc repair"), "{}", stderr(&out));
    assert!(
        flat(&stderr(&out)).contains("the run is completed"),
        "{}",
        stderr(&out)
    );
    assert_code(&sdlc(&env, &repo, &["repair", ID, "--yes"]), 2);
}

/// Issue 34 item 7: `sdlc list` with no runs says so (on stderr: stdout stays the list, empty),
/// instead of printing nothing at all.
#[test]
fn list_with_no_runs_says_so() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    std::fs::create_dir_all(repo.join(RUNS)).unwrap();
    let out = sdlc(&env, &repo, &["list"]);
    assert_code(&out, 0);
    assert_eq!(stdout(&out), "");
    assert_eq!(
        stderr(&out),
        format!("no runs in {}\n", repo.join(RUNS).display())
    );
    let out = sdlc(&env, &repo, &["list", "--json"]);
    assert_eq!(json_of(&out)["runs"], serde_json::json!([]));
}
