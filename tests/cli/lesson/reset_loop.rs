//! Acceptance: the reset loop end to end.

use super::support::*;
use crate::common::*;
use serde_json::{json, Value};
use std::path::Path;

/// Reset loop: three failing verifies with lessons → loop_count 1, 2, 3, each lesson appended
/// (task id, last_lesson_id) and added to the contract's counter_examples — the contract
/// byte-identical except those three entries, each read back by DG-Anvil's rules as the value
/// given (quotes taken literally, two lines as a `|` block); the fourth → escalated, nothing appended,
/// nothing changed but the task's status. Other keys of the state file stay.
#[test]
fn reset_loop_three_lessons_then_escalation() {
    let env = TestEnv::new();
    let p = project(&env, CONTRACT, STATE);
    let remediations = [
        "Probe the counter after 61 s: GET /count must read 0.",
        "Quote \"the window\" #not-a-comment: a colon, and é → unicode",
        "Two lines:\nthe second stays in the value",
    ];
    let mut lesson_ids = Vec::new();
    for (n, remediation) in remediations.iter().enumerate() {
        let out = reset(
            &env,
            &p,
            "T1",
            &format!("gap {n}: the reset was not observable"),
            Some(&format!("verify {n}: C1 substantive failed")),
            remediation,
        );
        let doc = ok_json(&out);
        let id = doc["id"].as_str().unwrap().to_string();
        assert_eq!(
            doc,
            json!({"appended": true, "id": id, "loop_count": n + 1, "status": "queued"})
        );
        assert!(id_format().is_match(&id));
        let task = task_state(&p, "T1");
        assert_eq!(task["loop_count"], n + 1);
        assert_eq!(task["last_lesson_id"], id.as_str());
        assert_eq!(task["status"], "queued");
        let entry = parsed_lines(&ledger_path(&env)).pop().unwrap();
        assert_eq!(entry["id"], id.as_str());
        assert_eq!(entry["task_id"], "T1");
        // An Anvil contract has no id (its loader refuses an `id` key): the lesson names none.
        assert_eq!(entry.get("source_contract_id"), None);
        assert_eq!(entry["remediation"], *remediation);
        assert_eq!(
            entry["evidence"],
            format!("verify {n}: C1 substantive failed")
        );
        lesson_ids.push(id);
        assert_audit_ok(&env);
    }
    let contract = read_text(&p.contract);
    // Byte-identical but for three entries, added right after the existing one, in order: two
    // quoted lines, then the value of two lines as a block of three.
    let inserted = inserted_lines(CONTRACT, &contract);
    let fixture_line = CONTRACT
        .lines()
        .position(|l| l.starts_with("  L-2026-04-15-fixture:"))
        .unwrap();
    let positions: Vec<usize> = inserted.iter().map(|(at, _)| *at).collect();
    assert_eq!(
        positions,
        (1..=5).map(|n| fixture_line + n).collect::<Vec<_>>()
    );
    assert_eq!(
        inserted[1].1,
        format!("  \"{}\": \"{}\"\n", lesson_ids[1], remediations[1])
    );
    assert_eq!(inserted[2].1, format!("  \"{}\": |\n", lesson_ids[2]));
    for (_, line) in &inserted {
        assert!(line.starts_with("  ") && line.ends_with('\n'), "{line:?}");
    }
    let mut expected = vec![(
        "L-2026-04-15-fixture".to_string(),
        "Rolling-window reset must be observable: read the counter after the window.".to_string(),
    )];
    expected.extend(
        lesson_ids
            .iter()
            .cloned()
            .zip(remediations.iter().map(|r| r.to_string())),
    );
    assert_eq!(counter_examples(&contract), expected);
    // The Markdown body is not YAML and stays as it was.
    assert!(contract.ends_with(
        "# Rate limit\n\nThe prose of the contract stays exactly as it is.\ncounter_examples: this line is Markdown, not YAML\n"
    ));

    // The fourth failure: escalated, nothing appended.
    let (ledger, index) = (read(&ledger_path(&env)), read(&index_path(&env)));
    let out = reset(&env, &p, "T1", "gap 4", Some("verify 4"), "remediation 4");
    assert_eq!(
        ok_json(&out),
        json!({"appended": false, "id": null, "loop_count": 3, "status": "escalated"})
    );
    assert_eq!(read(&ledger_path(&env)), ledger);
    assert_eq!(read(&index_path(&env)), index);
    assert_eq!(read_text(&p.contract), contract);
    let state: Value = serde_json::from_slice(&read(&p.state)).unwrap();
    assert_eq!(
        state,
        json!({"anvil_state_version": 1, "run_id": "r-11223344",
            "tasks": {"T1": {"status": "escalated", "worktree": "wt/T1", "loop_cap": 3,
                "loop_count": 3, "last_lesson_id": lesson_ids[2]},
                "T2": {"status": "queued"}},
            "notes": ["kept"]})
    );
    let keys = object_keys(&state);
    assert_eq!(keys, ["anvil_state_version", "run_id", "tasks", "notes"]);
    assert_eq!(
        query(&env, &["anything"]),
        Vec::<Value>::new(),
        "reset lessons have no pattern"
    );
}

/// Reset loop: a null lesson at any point (before the first lesson, after one, after two; an
/// empty gap, a blank remediation, no evidence at all) → `E_NULL_LESSON`, the task escalated,
/// loop_count unchanged, and the ledger, index and contract byte-for-byte as they were.
#[test]
fn reset_null_lesson_at_any_point_escalates_and_leaves_the_ledger() {
    let nulls: [(&str, Option<&str>, &str, &str); 3] = [
        ("", Some("ev"), "rem", "contract_gap"),
        ("gap", Some("ev"), " \t ", "remediation"),
        ("gap", None, "rem", "evidence"),
    ];
    for good_resets in 0..3 {
        for (gap, evidence, remediation, field) in nulls {
            let env = TestEnv::new();
            let p = project(&env, CONTRACT, STATE);
            for n in 0..good_resets {
                ok_json(&reset(
                    &env,
                    &p,
                    "T1",
                    &format!("gap {n}"),
                    Some("ev"),
                    "rem",
                ));
            }
            let read_opt = |path: &Path| std::fs::read(path).ok();
            let (ledger, index, contract) = (
                read_opt(&ledger_path(&env)),
                read_opt(&index_path(&env)),
                read(&p.contract),
            );
            let doc = refusal(&reset(&env, &p, "T1", gap, evidence, remediation));
            assert_eq!(doc["code"], "E_NULL_LESSON", "{good_resets} {field}");
            assert_eq!(doc["details"]["field"], field);
            assert_eq!(
                read_opt(&ledger_path(&env)),
                ledger,
                "{good_resets} {field}"
            );
            assert_eq!(read_opt(&index_path(&env)), index, "{good_resets} {field}");
            assert_eq!(read(&p.contract), contract, "{good_resets} {field}");
            let task = task_state(&p, "T1");
            assert_eq!(task["status"], "escalated");
            if good_resets == 0 {
                assert!(task.get("loop_count").is_none());
            } else {
                assert_eq!(task["loop_count"], good_resets);
            }
            assert_eq!(task_state(&p, "T2"), json!({"status": "queued"}));
        }
    }
}

/// Reset: the task's `loop_cap` is honoured (1: one lesson, then escalation); an absent or
/// invalid cap means the default, 3.
#[test]
fn reset_honours_the_tasks_loop_cap() {
    for (cap, lessons) in [("1", 1), ("2", 2), ("0", 3), ("\"5\"", 3), ("null", 3)] {
        let env = TestEnv::new();
        let state =
            format!(r#"{{"tasks": {{"T1": {{"status": "verifying", "loop_cap": {cap}}}}}}}"#);
        let p = project(&env, CONTRACT, &state);
        for n in 1..=lessons {
            let doc = ok_json(&reset(&env, &p, "T1", "gap", Some("ev"), "rem"));
            assert_eq!(doc["loop_count"], n, "cap {cap}");
            assert_eq!(doc["status"], "queued");
        }
        let doc = ok_json(&reset(&env, &p, "T1", "gap", Some("ev"), "rem"));
        assert_eq!(doc["status"], "escalated", "cap {cap}");
        assert_eq!(parsed_lines(&ledger_path(&env)).len(), lessons);
        assert_eq!(counter_examples(&read_text(&p.contract)).len(), lessons + 1);
    }
}

/// Reset: without `--evidence`, the evidence is the failing criteria of Anvil's
/// verify-result.json (`<id> <first failing level>: <its evidence>`); a result that is not JSON
/// is refused (`E_VERIFY`) and one with nothing failing leaves a null lesson (escalation).
#[test]
fn reset_takes_its_evidence_from_the_verify_result() {
    let env = TestEnv::new();
    let p = project(&env, CONTRACT, STATE);
    let verify = env.path().join("project/anvil/verify/verify-result.json");
    let result = json!({
        "criteria": [
            {"id": "C1", "levels": {
                "exists": {"status": "pass", "evidence": "file present", "rawPath": "raw/1"},
                "substantive": {"status": "fail", "evidence": "counter stayed at 10 after 62 s", "rawPath": "raw/2"},
                "wired": null, "functional": null}, "allGreen": false},
            {"id": "C2", "levels": {
                "exists": {"status": "pass", "evidence": "ok", "rawPath": "r"},
                "substantive": {"status": "pass", "evidence": "ok", "rawPath": "r"},
                "wired": {"status": "pass", "evidence": "ok", "rawPath": "r"},
                "functional": {"status": "pass", "evidence": "ok", "rawPath": "r"}}, "allGreen": true}
        ],
        "invariants": [{"invariant": "no_new_dependencies", "status": "pass", "evidence": "none"}],
        "allGreen": false,
        "raw": {"exists": {}, "substantive": {}, "wired": {}, "functional": {}, "invariants": {"path": "x"}}
    });
    write(&verify, &serde_json::to_string_pretty(&result).unwrap());
    let reset_with = |path: &Path| {
        run(
            &env,
            &[
                "reset",
                "--json",
                "--task",
                "T1",
                "--state",
                p.state.to_str().unwrap(),
                "--contract",
                p.contract.to_str().unwrap(),
                "--gap",
                "the reset was not observable",
                "--remediation",
                "read the counter",
                "--verify-result",
                path.to_str().unwrap(),
            ],
        )
    };
    ok_json(&reset_with(&verify));
    let entry = parsed_lines(&ledger_path(&env)).pop().unwrap();
    assert_eq!(
        entry["evidence"],
        "C1 substantive: counter stayed at 10 after 62 s"
    );
    assert_eq!(entry["criterion_id"], "C1", "the first failing criterion");

    write(&verify, "{\"criteria\": [");
    let before = snapshot(env.path());
    let doc = refusal(&reset_with(&verify));
    assert_eq!(doc["code"], "E_VERIFY");
    assert_eq!(snapshot(env.path()), before);

    let mut green = result.clone();
    green["criteria"] = json!([result["criteria"][1]]);
    write(&verify, &green.to_string());
    let ledger = read(&ledger_path(&env));
    let doc = refusal(&reset_with(&verify));
    assert_eq!(doc["code"], "E_NULL_LESSON");
    assert_eq!(doc["details"]["field"], "evidence");
    assert_eq!(read(&ledger_path(&env)), ledger);
    assert_eq!(task_state(&p, "T1")["status"], "escalated");
}

/// Reset: the contract edit in the shapes a contract takes — no counter_examples yet (the map is
/// added at the end of the front matter), entries with blank and comment lines among them, a folded entry before, comment lines before the front matter — each
/// byte-identical except the lines added.
#[test]
fn reset_adds_counter_examples_to_any_block_shape() {
    let cases = [
        (
            contract_ending("notes: \"n\"\n"),
            contract_ending("notes: \"n\"\ncounter_examples:\n  \"{ID}\": \"rem\"\n"),
        ),
        (
            contract_ending("counter_examples:\n  L-1: \"x\"\n\n    # why\n  L-2: y\n# a top-level comment\nnotes: \"n\"\n"),
            contract_ending("counter_examples:\n  L-1: \"x\"\n\n    # why\n  L-2: y\n  \"{ID}\": \"rem\"\n# a top-level comment\nnotes: \"n\"\n"),
        ),
        (
            contract_ending("counter_examples:\n  L-1: >\n    folded\n    text\nnotes: \"n\"\n"),
            contract_ending("counter_examples:\n  L-1: >\n    folded\n    text\n  \"{ID}\": \"rem\"\nnotes: \"n\"\n"),
        ),
        (
            format!("# The contract\n\n{}", contract_ending("")),
            format!("# The contract\n\n{}", contract_ending("counter_examples:\n  \"{ID}\": \"rem\"\n")),
        ),
    ];
    for (before, after) in cases {
        let env = TestEnv::new();
        let p = project(&env, &before, STATE);
        let doc = ok_json(&reset(&env, &p, "T1", "gap", Some("ev"), "rem"));
        let id = doc["id"].as_str().unwrap();
        assert_eq!(
            read_text(&p.contract),
            after.replace("{ID}", id),
            "{before}"
        );
        let entries = counter_examples(&read_text(&p.contract));
        assert_eq!(
            entries.last().unwrap(),
            &(id.to_string(), "rem".to_string())
        );
    }
}

/// Reset reads the contract as retro does — DG-Anvil's loader, one reader — so it refuses what
/// retro refuses, with the same code and rule, and writes nothing: a flow-style map, a comment
/// after the `counter_examples:` key (Anvil reads the comment as the value), a contract that is
/// not front matter, a key Anvil does not know.
#[test]
fn reset_refuses_the_contracts_retro_refuses() {
    let cases = [
        (
            contract_ending("counter_examples: {}\n"),
            "E_INVALID_YAML",
            "flow-style",
        ),
        (
            contract_ending("counter_examples: # lesson id -> text\n  L-1: \"x\"\n"),
            "E_INVALID_CONTRACT",
            "counter_example_not_string",
        ),
        (
            "anvil_contract_version: 1\ncounter_examples:\n  L-1: \"x\"\n".to_string(),
            "E_INVALID_CONTRACT",
            "missing_version",
        ),
        (
            contract_ending("id: c\n"),
            "E_INVALID_CONTRACT",
            "unknown_top_level_key",
        ),
    ];
    for (contract, code, detail) in cases {
        let env = TestEnv::new();
        let p = project(&env, &contract, STATE);
        let before = snapshot(env.path());
        let reset = refusal(&reset(&env, &p, "T1", "gap", Some("ev"), "rem"));
        assert_eq!(snapshot(env.path()), before, "{contract}");
        let retro = refusal(&retro(&env, &p.contract, "a gap", &[]));
        for doc in [&reset, &retro] {
            assert_eq!(doc["code"], code, "{contract}: {doc}");
            let said = doc["details"]["rule"]
                .as_str()
                .or(doc["details"]["feature"].as_str());
            assert_eq!(said, Some(detail), "{contract}: {doc}");
        }
        assert_eq!(reset["details"], retro["details"], "{contract}");
    }
}

/// A remediation DG-Anvil's reader cannot give back (its YAML has no escapes) is refused before
/// anything is written — not the ledger, the contract or the state — and the task stays as it was.
#[test]
fn reset_refuses_a_remediation_anvil_cannot_read_back() {
    for remediation in [
        "two lines\nand a trailing space ",
        "a carriage\rreturn",
        "x\n---\ny",
    ] {
        let env = TestEnv::new();
        let p = project(&env, CONTRACT, STATE);
        let before = snapshot(env.path());
        let doc = refusal(&reset(&env, &p, "T1", "gap", Some("ev"), remediation));
        assert_eq!(doc["code"], "E_INVALID_CONTRACT", "{remediation:?}");
        assert_eq!(doc["details"]["rule"], "counter_examples_edit");
        assert_eq!(snapshot(env.path()), before, "{remediation:?}");
    }
}

/// A CRLF contract keeps its line endings: the added lines end as its lines do.
#[test]
fn reset_keeps_a_crlf_contracts_line_endings() {
    let env = TestEnv::new();
    let contract = contract_ending("counter_examples:\n  L-1: \"x\"\n").replace('\n', "\r\n");
    let p = project(&env, &contract, STATE);
    let doc = ok_json(&reset(&env, &p, "T1", "gap", Some("ev"), "rem"));
    let id = doc["id"].as_str().unwrap();
    assert_eq!(
        read_text(&p.contract),
        contract.replace(
            "  L-1: \"x\"\r\n",
            &format!("  L-1: \"x\"\r\n  \"{id}\": \"rem\"\r\n")
        )
    );
}

/// Issue 33 items 1 and 3 (seed 004, "When to Use": only when `verifying.allGreen === false` or
/// the Court returns `request-changes` with a non-empty gap): a green verify result, a Court that
/// merges or asks for clarification, a request for changes that names no gap, and a task already
/// escalated are each refused (`E_RESET_REFUSED`), nothing written — before, a green result
/// escalated a task that passed, and an escalated task was queued again. A reset on a failure
/// names the failing criterion (`criterion_id`; `--criterion` when given); one on `--evidence`
/// alone says so.
#[test]
fn reset_runs_only_on_a_failure_and_names_its_criterion() {
    let env = TestEnv::new();
    let p = project(&env, CONTRACT, STATE);
    let dir = env.path().join("project/anvil/verify");
    let file = |name: &str, doc: &Value| {
        let path = dir.join(name);
        write(&path, &serde_json::to_string_pretty(doc).unwrap());
        path.to_str().unwrap().to_string()
    };
    let reset_on = |flag: &str, path: &str, extra: &[&str]| {
        let mut args = vec![
            "reset",
            "--json",
            "--task",
            "T1",
            "--state",
            p.state.to_str().unwrap(),
            "--contract",
            p.contract.to_str().unwrap(),
            "--gap",
            "the window was not observable",
            "--remediation",
            "read the counter after the window",
            flag,
            path,
        ];
        args.extend_from_slice(extra);
        run(&env, &args)
    };
    let criterion = |id: &str, green: bool| {
        let status = if green { "pass" } else { "fail" };
        json!({"id": id, "allGreen": green, "levels": {
            "exists": {"status": "pass", "evidence": "present", "rawPath": "r"},
            "substantive": {"status": status, "evidence": format!("{id} evidence"), "rawPath": "r"},
            "wired": null, "functional": null}})
    };
    let green = file(
        "green.json",
        &json!({"criteria": [criterion("C1", true)], "invariants": [], "allGreen": true, "raw": {}}),
    );
    let refusals = [
        ("--verify-result", green.clone(), "allGreen: true"),
        (
            "--court-result",
            file(
                "merge.json",
                &json!({"action": "merge", "per_criterion": []}),
            ),
            "merge",
        ),
        (
            "--court-result",
            file(
                "clarify.json",
                &json!({"action": "request-clarification", "per_criterion": []}),
            ),
            "escalated, not reset",
        ),
        (
            "--court-result",
            file(
                "no-gap.json",
                &json!({"action": "request-changes", "per_criterion": [{"id": "C1", "status": "pass"}]}),
            ),
            "names no gap",
        ),
    ];
    for (flag, path, said) in &refusals {
        for evidence in [&[][..], &["--evidence", "it failed, says the agent"][..]] {
            let before = snapshot(env.path());
            let doc = refusal(&reset_on(flag, path, evidence));
            assert_eq!(doc["code"], "E_RESET_REFUSED", "{flag} {path}");
            assert!(doc["error"].as_str().unwrap().contains(said), "{doc}");
            assert!(
                doc["error"].as_str().unwrap().contains(path.as_str()),
                "{doc}"
            );
            assert_eq!(
                snapshot(env.path()),
                before,
                "{flag} {path}: nothing written"
            );
        }
    }
    assert_eq!(task_state(&p, "T1")["status"], "verifying");

    // A failing verify: the lesson names its first failing criterion.
    let failing = file(
        "failing.json",
        &json!({"criteria": [criterion("C1", true), criterion("C2", false)], "invariants": [],
            "allGreen": false, "raw": {}}),
    );
    ok_json(&reset_on(
        "--verify-result",
        &failing,
        &["--criterion", "C7"],
    ));
    let entry = parsed_lines(&ledger_path(&env)).pop().unwrap();
    assert_eq!(entry["criterion_id"], "C7", "--criterion names it");
    assert_eq!(entry["evidence"], "C2 substantive: C2 evidence");
    // Without --criterion, the first failing one of the result: seen below on the Court's.
    // A Court request for changes with a gap and a suspicious criterion; --criterion names it.
    let court = file(
        "changes.json",
        &json!({"action": "request-changes", "gap": "the reset path is untested",
            "per_criterion": [{"id": "C1", "status": "pass"}, {"id": "C3", "status": "suspicious"}]}),
    );
    ok_json(&reset_on("--court-result", &court, &[]));
    let entry = parsed_lines(&ledger_path(&env)).pop().unwrap();
    assert_eq!(entry["criterion_id"], "C3");
    assert_eq!(
        entry["evidence"],
        "the reset path is untested: C3 suspicious"
    );
    // Neither result: acting on --evidence alone, said so.
    let out = reset(&env, &p, "T1", "gap", Some("seen by hand"), "remediation");
    ok_json(&out);
    assert!(
        stderr(&out).contains("acting on --evidence alone"),
        "{}",
        stderr(&out)
    );
    // The cap reached: escalated. A reset of an escalated task is refused, nothing written.
    let out = reset(&env, &p, "T1", "gap", Some("again"), "remediation");
    assert_eq!(ok_json(&out)["status"], "escalated");
    let before = snapshot(env.path());
    let doc = refusal(&reset_on(
        "--verify-result",
        &failing,
        &["--criterion", "C9"],
    ));
    assert_eq!(doc["code"], "E_RESET_REFUSED");
    assert_eq!(doc["details"]["status"], "escalated");
    assert_eq!(snapshot(env.path()), before);
}

/// Issue 33 item 3 (seed 004 step 6: "The escalation surface presents the options to the user"):
/// `lesson escalated` lists each escalated task with its loop count, its last lesson (gap and
/// remediation from the ledger) and the options; `--json` the same for scripts. Before, an
/// escalated task showed nowhere.
#[test]
fn escalated_tasks_are_listed_with_their_last_lesson_and_the_options() {
    let env = TestEnv::new();
    let p = project(&env, CONTRACT, STATE);
    let list = |json: bool| {
        let mut args = vec!["escalated", "--state", p.state.to_str().unwrap()];
        if json {
            args.push("--json");
        }
        let out = run(&env, &args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stdout(&out)
    };
    assert!(
        list(false).starts_with("No escalated task in "),
        "{}",
        list(false)
    );
    let mut last = String::new();
    for n in 0..4 {
        let out = reset(
            &env,
            &p,
            "T1",
            &format!("gap {n}"),
            Some("ev"),
            "read it back",
        );
        if let Some(id) = ok_json(&out)["id"].as_str() {
            last = id.to_string();
        }
    }
    let doc: Value = serde_json::from_str(&list(true)).unwrap();
    assert_eq!(doc["escalated"].as_array().unwrap().len(), 1);
    let task = &doc["escalated"][0];
    assert_eq!(task["task"], "T1");
    assert_eq!(task["loop_count"], 3);
    assert_eq!(task["loop_cap"], 3);
    assert_eq!(task["last_lesson_id"], last.as_str());
    assert_eq!(task["contract_gap"], "gap 2");
    assert_eq!(task["remediation"], "read it back");
    assert_eq!(doc["options"].as_array().unwrap().len(), 3);
    let shown = list(false);
    assert!(shown.contains("  T1  loop 3 of 3  last lesson "), "{shown}");
    assert!(shown.contains("    gap:          gap 2\n"), "{shown}");
    assert!(
        shown.contains("amend the contract, amend the plan"),
        "{shown}"
    );
    assert!(!shown.contains("T2"), "{shown}");
    assert!(shown.lines().all(|l| l.chars().count() <= 80), "{shown}");
}

/// Issue 33 item 2 (seed 004, "Verification": the append, the contract's counter_examples and
/// the loop count move together): each of the reset's writes — its record of intent, the ledger,
/// the contract, the state — failed in turn, and the process killed (SIGKILL) right after each.
/// Failed before anything is written, nothing is; otherwise the record stays and the same reset
/// run again completes it: one lesson in the ledger, one counter-example, loop_count 1, no record
/// left. Before, a failed state write left the lesson and the counter-example with loop_count
/// unchanged, and a retry appended a second lesson.
#[test]
fn a_reset_is_all_or_nothing_under_failures_and_kills() {
    for step in ["intent", "ledger", "contract", "state"] {
        for mode in ["fail", "kill"] {
            let what = format!("{step}:{mode}");
            let env = TestEnv::new();
            let p = project(&env, CONTRACT, STATE);
            let intent = p.state.with_file_name("state.json.reset-intent");
            let args = [
                "reset",
                "--json",
                "--task",
                "T1",
                "--state",
                p.state.to_str().unwrap(),
                "--contract",
                p.contract.to_str().unwrap(),
                "--gap",
                "the window was not observable",
                "--evidence",
                "C1 substantive failed",
                "--remediation",
                "read the counter after the window",
            ];
            let before = snapshot(env.path());
            let out = cmd(&env)
                .env("GIT_UCG_FAULT", format!("reset:{what}"))
                .args(args)
                .output()
                .unwrap();
            assert!(!out.status.success(), "{what}: {}", stderr(&out));
            match mode {
                "fail" => assert_eq!(out.status.code(), Some(1), "{what}"),
                _ => assert_eq!(out.status.code(), None, "{what}: killed by a signal"),
            }
            let untouched = mode == "fail" && matches!(step, "intent" | "ledger");
            if untouched {
                assert_eq!(snapshot(env.path()), before, "{what}: nothing written");
            } else {
                assert!(intent.exists(), "{what}: the record stays");
            }
            // The same reset again: completed (or made), exactly once.
            let done = ok_json(&run(&env, &args));
            assert_eq!(done["appended"], true, "{what}");
            assert_eq!(done["loop_count"], 1, "{what}");
            let lessons = parsed_lines(&ledger_path(&env));
            assert_eq!(lessons.len(), 1, "{what}: one lesson");
            assert_eq!(lessons[0]["id"], done["id"], "{what}");
            let examples = counter_examples(&read_text(&p.contract));
            assert_eq!(examples.len(), 2, "{what}: one counter-example added");
            assert_eq!(examples[1].0, done["id"].as_str().unwrap(), "{what}");
            let task = task_state(&p, "T1");
            assert_eq!(task["loop_count"], 1, "{what}");
            assert_eq!(task["last_lesson_id"], done["id"], "{what}");
            assert_eq!(task["status"], "queued", "{what}");
            assert!(!intent.exists(), "{what}: no record left");
            assert_audit_ok(&env);
        }
    }
}

/// Issue 34 item 7: `lesson reset` tells a person what it did in a sentence (`--json` keeps the
/// one-line document for scripts); before, the JSON went to the person too.
#[test]
fn reset_says_what_it_did_and_json_is_for_scripts() {
    let env = TestEnv::new();
    let p = project(&env, CONTRACT, STATE);
    let plain = |n: usize| {
        run(
            &env,
            &[
                "reset",
                "--task",
                "T1",
                "--state",
                p.state.to_str().unwrap(),
                "--contract",
                p.contract.to_str().unwrap(),
                "--gap",
                &format!("gap {n}"),
                "--evidence",
                "C1 substantive failed",
                "--remediation",
                "read the counter after the window",
            ],
        )
    };
    let out = plain(1);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = stdout(&out);
    let id = parsed_lines(&ledger_path(&env)).pop().unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        said.starts_with(&format!(
            "Lesson {id} appended; task T1 queued again (loop 1)."
        )),
        "{said}"
    );
    assert!(said.lines().all(|l| l.chars().count() <= 80), "{said}");
    for n in 2..=3 {
        assert_eq!(plain(n).status.code(), Some(0));
    }
    let said = stdout(&plain(4));
    assert!(
        said.starts_with("Task T1 escalated at its loop cap (loop 3): nothing appended."),
        "{said}"
    );
    assert!(said.contains("git ucg lesson"), "{said}");
}

/// The reset's record of intent attacked: a FIFO, a link to `/dev/zero`, or a link out of the
/// project to a file that is not a reset's record, in its place: the reset is refused at once,
/// naming the file and the way out, and nothing is written (not the ledger, not the contract).
#[test]
fn a_hostile_record_of_intent_is_refused_named() {
    let env = TestEnv::new();
    let p = project(&env, CONTRACT, STATE);
    let intent = p.state.with_file_name("state.json.reset-intent");
    let outside = env.path().join("outside.json");
    write(&outside, "{}");
    for hostile in ["fifo", "zero", "outside"] {
        let _ = std::fs::remove_file(&intent);
        match hostile {
            "fifo" => assert!(std::process::Command::new("mkfifo")
                .arg(&intent)
                .status()
                .unwrap()
                .success()),
            "zero" => std::os::unix::fs::symlink("/dev/zero", &intent).unwrap(),
            _ => std::os::unix::fs::symlink(&outside, &intent).unwrap(),
        }
        let started = std::time::Instant::now();
        let doc = refusal(&reset(&env, &p, "T1", "gap", Some("ev"), "rem"));
        assert!(
            started.elapsed() < std::time::Duration::from_secs(2),
            "{hostile}"
        );
        assert_eq!(doc["code"], "E_RESET_REFUSED", "{hostile}: {doc}");
        assert!(
            doc["error"].as_str().unwrap().contains("then remove it"),
            "{doc}"
        );
        assert!(!ledger_path(&env).exists(), "{hostile}: nothing appended");
        assert_eq!(read_text(&p.contract), CONTRACT);
    }
    assert_eq!(read_text(&outside), "{}");
}

/// `lesson escalated --json` is read by scripts: its document, byte for byte — each task's fields
/// in this order, a last lesson the ledger does not hold as nulls, and the three options.
#[test]
fn the_escalated_listing_for_scripts_is_exact() {
    let env = TestEnv::new();
    let dir = env.demo();
    write(
        &dir.join("anvil/state.json"),
        r#"{"tasks": {"T1": {"status": "escalated", "loop_count": 3, "loop_cap": 3,
            "last_lesson_id": "L-2026-06-01-a1b2c3d4"},
            "T2": {"status": "escalated", "loop_count": 2, "loop_cap": 2},
            "T3": {"status": "failed", "loop_count": 1, "loop_cap": 3}}}"#,
    );
    let out = env
        .ucg(&dir)
        .args(["lesson", "--ledger", "anvil/ledger.jsonl", "escalated"])
        .args(["--state", "anvil/state.json", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        concat!(
            r#"{"schema":"git-ucg.lesson-escalated/1","state":"anvil/state.json","escalated":["#,
            r#"{"task":"T1","loop_count":3,"loop_cap":3,"last_lesson_id":"L-2026-06-01-a1b2c3d4","#,
            r#""contract_gap":"the contract did not say the rate-limit window rolls","#,
            r#""remediation":"count requests in a rolling sixty-second window per key"},"#,
            r#"{"task":"T2","loop_count":2,"loop_cap":2,"last_lesson_id":null,"#,
            r#""contract_gap":null,"remediation":null}],"#,
            r#""options":["amend the contract","amend the plan","#,
            r#""abort with a captured lesson (/abort)"]}"#,
            "\n"
        )
    );
}
