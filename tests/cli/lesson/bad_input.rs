//! Acceptance: bad input.

use super::support::*;
use crate::common::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// B.2/B.11.6 (reference defect, fixed): the reference accepts a required field that is not a
/// string (a number, an object passes its `== null` check). git-ucg refuses it with
/// `E_INVALID_LESSON`, rule `not_a_string`, naming the field and the type it got; nothing is
/// written — by append, and audit flags such a line already in the ledger.
#[test]
fn non_string_required_fields_are_refused_with_a_reason() {
    let env = TestEnv::new();
    for (field, value, received) in [
        ("contract_gap", json!(5), "number"),
        ("evidence", json!({"probe": "output"}), "object"),
        ("remediation", json!(["one", "two"]), "array"),
        ("contract_gap", json!(true), "boolean"),
        ("evidence", json!(0), "number"),
    ] {
        let mut entry = lesson("L-typed", "2026-01-01", "g", &["a"]);
        entry[field] = value.clone();
        let before = files(&env);
        let doc = refusal(&append_text(&env, jsonl(&[entry.clone()]).as_bytes()));
        assert_eq!(doc["code"], "E_INVALID_LESSON", "{field} {value}");
        assert_eq!(
            doc["details"],
            json!({"rule": "not_a_string", "field": field, "received": received, "line": 1})
        );
        assert_eq!(
            doc["error"],
            format!("lesson field must be a string: {field}")
        );
        assert_eq!(files(&env), before);
        assert!(!ledger_path(&env).exists());

        // Already in a ledger (written by the reference): audit says why.
        let ledger = env.path().join("ref.jsonl");
        seed(&ledger, &[entry]);
        let out = run(
            &env,
            &["--ledger", ledger.to_str().unwrap(), "audit", "--json"],
        );
        assert_eq!(out.status.code(), Some(1));
        let doc: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
        assert_eq!(doc["issues"][0]["issue"], "E_INVALID_LESSON");
        assert_eq!(doc["issues"][0]["details"]["rule"], "not_a_string");
    }
}

/// 10 MB lines: a 10 MB line that is not a valid lesson — a non-string field, or JSON cut off
/// before its end — is refused promptly with the usual error and line, and nothing from its
/// file is written; a valid 10 MB lesson is stored as exactly one whole line and reads back.
#[test]
fn ten_megabyte_lines_are_refused_whole_or_stored_whole() {
    let env = TestEnv::new();
    let huge = "x".repeat(10 * 1024 * 1024);
    append(&env, &[lesson("L-0", "2026-01-01", "g", &["a"])]);
    let before = (read(&ledger_path(&env)), read(&index_path(&env)));
    let small = jsonl(&[lesson("L-1", "2026-01-01", "g", &["a"])]);

    let mut typed = lesson("L-big", "2026-01-01", "g", &["a"]);
    typed["evidence"] = json!(huge);
    typed["contract_gap"] = json!(42);
    let started = Instant::now();
    let doc = refusal(&append_text(&env, format!("{small}{typed}\n").as_bytes()));
    assert_eq!(doc["code"], "E_INVALID_LESSON");
    assert_eq!(doc["details"]["rule"], "not_a_string");
    assert_eq!(doc["details"]["line"], 2);
    assert!(
        doc.to_string().len() < 1_000,
        "the error does not echo the line"
    );

    let cut = format!(
        "{small}{{\"anvil_ledger_entry_version\":1,\"id\":\"L-cut\",\"evidence\":\"{huge}\n"
    );
    let out = output_with_stdin(cmd(&env).args(["append", "--file", "-"]), cut.as_bytes());
    let doc = refusal(&out);
    assert_eq!(doc["code"], "E_IO");
    assert_eq!(doc["details"]["line"], 2);
    assert!(
        doc["error"].as_str().unwrap().starts_with("invalid JSON"),
        "{doc}"
    );
    assert!(stderr(&out).len() < 1_000);
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_eq!((read(&ledger_path(&env)), read(&index_path(&env))), before);

    let mut valid = lesson("L-big", "2026-01-01", "g", &["big"]);
    valid["evidence"] = json!(huge);
    ok_json(&append_text(
        &env,
        jsonl(std::slice::from_ref(&valid)).as_bytes(),
    ));
    let text = read_text(&ledger_path(&env));
    assert_eq!(text.lines().count(), 2);
    assert_eq!(text.lines().nth(1).unwrap(), valid.to_string());
    let hits = query(&env, &["big"]);
    assert_eq!(hits, [valid]);
    assert_audit_ok(&env);
}

/// Invalid UTF-8: in a lesson to append (refused, its line named, nothing written — the
/// reference would store U+FFFD in place of the bytes); in a line already in the ledger (read as
/// the reference reads it, each ill-formed sequence a U+FFFD: audit judges the lesson, query
/// reads past it, appends still work); in a contract (`E_INVALID_CONTRACT` not_utf8, nothing
/// written); and in an argument (refused before anything runs).
#[test]
fn invalid_utf8_is_refused_clearly() {
    let env = TestEnv::new();
    append(&env, &[lesson("L-0", "2026-01-01", "g", &["a"])]);
    let before = (read(&ledger_path(&env)), read(&index_path(&env)));
    let mut input = jsonl(&[lesson("L-1", "2026-01-01", "g", &["a"])]).into_bytes();
    input.extend_from_slice(
        b"{\"anvil_ledger_entry_version\":1,\"id\":\"L-\xff\xfe\",\"created\":\"d\",\"contract_gap\":\"g\",\"evidence\":\"e\",\"remediation\":\"r\"}\n",
    );
    let doc = refusal(&append_text(&env, &input));
    assert_eq!(doc["code"], "E_IO");
    assert_eq!(doc["details"]["line"], 2);
    assert!(doc["error"].as_str().unwrap().contains("unicode"), "{doc}");
    let doc = refusal(&append_text(&env, b"\xef\xbb\xbf\xc3\x28\n"));
    assert_eq!(doc["details"]["line"], 1);
    assert_eq!((read(&ledger_path(&env)), read(&index_path(&env))), before);

    // In the ledger.
    let mut ledger = before.0.clone();
    ledger.extend_from_slice(b"{\"id\":\"\xc0\xaf\"}\n");
    std::fs::write(ledger_path(&env), &ledger).unwrap();
    let (doc, _) = audit(&env);
    assert_eq!(
        doc["issues"],
        json!([{"line": 2, "id": "\u{fffd}\u{fffd}", "issue": "E_INVALID_LESSON", "details": {"rule": "wrong_version"}},
               {"id": "\u{fffd}\u{fffd}", "issue": "index_desync_missing_from_index"}])
    );
    assert_eq!(ids(&query(&env, &["a"])), ["L-0"]);
    append(&env, &[lesson("L-2", "2026-01-02", "g", &["a"])]);
    assert_eq!(ids(&query(&env, &["a"])), ["L-2", "L-0"]);

    // In a contract.
    let p = project(&env, CONTRACT, STATE);
    let mut bad = CONTRACT.as_bytes().to_vec();
    bad.extend_from_slice(b"\xff\n");
    std::fs::write(&p.contract, &bad).unwrap();
    let before = snapshot(env.path());
    let doc = refusal(&reset(&env, &p, "T1", "gap", Some("ev"), "rem"));
    assert_eq!(doc["code"], "E_INVALID_CONTRACT");
    assert_eq!(doc["details"]["rule"], "not_utf8");
    let doc = refusal(&run(
        &env,
        &[
            "retro",
            "--contract",
            p.contract.to_str().unwrap(),
            "--criterion",
            "C1",
            "--gap-note",
            "g",
        ],
    ));
    assert_eq!(doc["details"]["rule"], "not_utf8");
    assert_eq!(snapshot(env.path()), before);

    // In an argument.
    use std::os::unix::ffi::OsStrExt;
    let out = cmd(&env)
        .args(["reset", "--task", "T1", "--state"])
        .arg(&p.state)
        .arg("--contract")
        .arg(&p.contract)
        .arg("--gap")
        .arg(std::ffi::OsStr::from_bytes(b"gap \xff"))
        .args(["--evidence", "ev", "--remediation", "rem"])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "");
    assert!(!stderr(&out).is_empty());
    assert_eq!(snapshot(env.path()), before);
}

/// A contract whose `counter_examples` is not a map — a string, a number, a block
/// sequence — is refused by reset with `E_INVALID_CONTRACT` (rule `counter_example_not_string`,
/// expecting `object<string,string>`, as retro says); nothing is written, the task not even escalated.
#[test]
fn counter_examples_not_a_map_is_refused_by_reset() {
    let env = TestEnv::new();
    for shape in ["\"just text\"", "42", "\n- L-1\n- L-2"] {
        let contract = contract_ending(&format!("counter_examples: {shape}\n"));
        let p = project(&env, &contract, STATE);
        let before = snapshot(env.path());
        let doc = refusal(&reset(&env, &p, "T1", "gap", Some("ev"), "rem"));
        assert_eq!(doc["code"], "E_INVALID_CONTRACT", "{shape}");
        assert_eq!(
            doc["details"]["rule"], "counter_example_not_string",
            "{shape}"
        );
        assert_eq!(
            doc["details"]["expected"], "object<string,string>",
            "{shape}: {doc}"
        );
        assert_eq!(snapshot(env.path()), before, "{shape}");
        assert_eq!(task_state(&p, "T1")["status"], "verifying");
    }
}

/// retro loads the contract as DG-Anvil's loader does: counter_examples must be a map of strings.
#[test]
fn counter_examples_not_a_map_is_refused_by_retro() {
    let env = TestEnv::new();
    // As DG-Anvil's loader: a flow list is YAML it does not read; a value that is not a string
    // and a string in place of the map break the contract rule.
    for (shape, code, details) in [
        (
            "[L-1, L-2]",
            "E_INVALID_YAML",
            json!({"line": 28, "column": 19, "feature": "flow-style"}),
        ),
        (
            "\n  L-1: 5",
            "E_INVALID_CONTRACT",
            json!({"rule": "counter_example_not_string", "path": "$.counter_examples.L-1",
                   "expected": "string", "actual": "number"}),
        ),
        (
            "\"just text\"",
            "E_INVALID_CONTRACT",
            json!({"rule": "counter_example_not_string", "path": "$.counter_examples",
                   "expected": "object<string,string>", "actual": "string"}),
        ),
    ] {
        let contract = env.path().join("contract.yml");
        write(
            &contract,
            &format!("{RETRO_CONTRACT_HEAD}counter_examples: {shape}\n{RETRO_CONTRACT_END}"),
        );
        let before = snapshot(env.path());
        let doc = refusal(&retro(&env, &contract, "a gap", &[]));
        assert_eq!(doc["code"], code, "{shape}");
        assert_eq!(doc["details"], details, "{shape}");
        assert_eq!(snapshot(env.path()), before, "{shape}");
    }
}

/// BUG (minor, compatibility): `1.0` is version 1 for the reference.
#[test]
fn version_1_0_is_version_1() {
    let env = TestEnv::new();
    let out = append_text(
        &env,
        br#"{"anvil_ledger_entry_version":1.0,"id":"L-1","created":"2026-01-01","contract_gap":"g","evidence":"e","remediation":"r"}
"#,
    );
    assert_eq!(ok_json(&out)["appended"], json!(["L-1"]));
}
