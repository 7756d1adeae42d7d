//! B.10 A1–A30

use super::support::*;
use crate::common::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A1: append writes exactly one line, and the index's `by_pattern.alpha` holds the id.
#[test]
fn a01_append_writes_one_line_and_indexes_its_pattern() {
    let env = TestEnv::new();
    let entry = json!({"anvil_ledger_entry_version": 1, "id": "L-TEST-1", "created": "2026-04-15",
        "contract_gap": "gap text", "evidence": "ev text", "remediation": "rem text",
        "pattern": ["alpha", "Beta"]});
    let out = append_text(&env, jsonl(std::slice::from_ref(&entry)).as_bytes());
    assert_eq!(ok_json(&out), json!({"ok": true, "appended": ["L-TEST-1"]}));
    assert_eq!(read_text(&ledger_path(&env)), format!("{entry}\n"));
    let index = index(&env);
    assert_eq!(index["by_pattern"]["alpha"], json!(["L-TEST-1"]));
    // Keys are lowercased, not tokenized (B.3).
    assert_eq!(index["by_pattern"]["beta"], json!(["L-TEST-1"]));
    assert_eq!(index["by_id"]["L-TEST-1"], json!({"created": "2026-04-15"}));
    assert_audit_ok(&env);
}

/// A2: a null `contract_gap` is a null lesson (`E_NULL_LESSON`), and nothing is written.
#[test]
fn a02_null_contract_gap_is_a_null_lesson() {
    let env = TestEnv::new();
    let before = files(&env);
    let out = append_text(
        &env,
        br#"{"anvil_ledger_entry_version":1,"id":"x","created":"d","contract_gap":null,"evidence":"e","remediation":"r"}
"#,
    );
    let doc = refusal(&out);
    assert_eq!(doc["code"], "E_NULL_LESSON");
    assert_eq!(doc["error"], "lesson field is null: contract_gap");
    assert_eq!(
        doc["details"],
        json!({"field": "contract_gap", "value": null, "line": 1})
    );
    assert_eq!(files(&env), before);
    assert!(!ledger_path(&env).exists());
}

/// A3: whitespace-only evidence (`"  "`) is a null lesson.
#[test]
fn a03_whitespace_evidence_is_a_null_lesson() {
    let env = TestEnv::new();
    let before = files(&env);
    let out = append_text(
        &env,
        br#"{"anvil_ledger_entry_version":1,"id":"x","created":"d","contract_gap":"g","evidence":"  ","remediation":"r"}"#,
    );
    let doc = refusal(&out);
    assert_eq!(doc["code"], "E_NULL_LESSON");
    assert_eq!(doc["error"], "lesson field is empty: evidence");
    assert_eq!(doc["details"]["field"], "evidence");
    assert_eq!(files(&env), before);
}

/// A4: a missing version is an invalid lesson, rule `wrong_version` (there is no separate rule);
/// so is the string `"1"`.
#[test]
fn a04_missing_version_is_an_invalid_lesson() {
    let env = TestEnv::new();
    let before = files(&env);
    for line in [
        r#"{"id":"x","created":"d","contract_gap":"g","evidence":"e","remediation":"r"}"#,
        r#"{"anvil_ledger_entry_version":"1","id":"x","created":"d","contract_gap":"g","evidence":"e","remediation":"r"}"#,
    ] {
        let doc = refusal(&append_text(&env, line.as_bytes()));
        assert_eq!(doc["code"], "E_INVALID_LESSON", "{line}");
        assert_eq!(doc["details"]["rule"], "wrong_version", "{line}");
    }
    let doc = refusal(&append_text(&env, br#"{"id":"x"}"#));
    assert_eq!(doc["details"]["value"], Value::Null);
    assert_eq!(files(&env), before);
}

/// A5: version 2 is an invalid lesson (`wrong_version`, the value reported).
#[test]
fn a05_version_2_is_an_invalid_lesson() {
    let env = TestEnv::new();
    let doc = refusal(&append_text(
        &env,
        br#"{"anvil_ledger_entry_version":2,"id":"x","created":"d","contract_gap":"g","evidence":"e","remediation":"r"}"#,
    ));
    assert_eq!(doc["code"], "E_INVALID_LESSON");
    assert_eq!(
        doc["details"],
        json!({"rule": "wrong_version", "value": 2, "line": 1})
    );
    assert!(!ledger_path(&env).exists());
}

/// A6: a missing (or empty, or non-string) id → `missing_id`; a missing created →
/// `missing_created`; both `E_INVALID_LESSON`, checked in that order.
#[test]
fn a06_missing_id_or_created_is_an_invalid_lesson() {
    let env = TestEnv::new();
    for (line, rule) in [
        (
            r#"{"anvil_ledger_entry_version":1,"created":"d","contract_gap":"g","evidence":"e","remediation":"r"}"#,
            "missing_id",
        ),
        (
            r#"{"anvil_ledger_entry_version":1,"id":"","created":"d","contract_gap":"g","evidence":"e","remediation":"r"}"#,
            "missing_id",
        ),
        (
            r#"{"anvil_ledger_entry_version":1,"id":7,"created":"d","contract_gap":"g","evidence":"e","remediation":"r"}"#,
            "missing_id",
        ),
        (
            r#"{"anvil_ledger_entry_version":1,"contract_gap":null}"#,
            "missing_id",
        ),
        (
            r#"{"anvil_ledger_entry_version":1,"id":"x","contract_gap":"g","evidence":"e","remediation":"r"}"#,
            "missing_created",
        ),
        (
            r#"{"anvil_ledger_entry_version":1,"id":"x","created":"","contract_gap":null}"#,
            "missing_created",
        ),
    ] {
        let doc = refusal(&append_text(&env, line.as_bytes()));
        assert_eq!(doc["code"], "E_INVALID_LESSON", "{line}");
        assert_eq!(doc["details"]["rule"], rule, "{line}");
    }
    assert!(!ledger_path(&env).exists());
    assert!(!index_path(&env).exists());
}

/// A7: a null remediation is refused (`E_NULL_LESSON`) and nothing is written — neither by
/// `append` nor by `reset` (which escalates the task instead, B.7).
#[test]
fn a07_null_remediation_writes_nothing() {
    let env = TestEnv::new();
    append(&env, &[lesson("L-1", "2026-01-01", "gap", &["x"])]);
    let (ledger, index) = (read(&ledger_path(&env)), read(&index_path(&env)));
    let doc = refusal(&append_text(
        &env,
        br#"{"anvil_ledger_entry_version":1,"id":"x","created":"d","contract_gap":"g","evidence":"e","remediation":null}"#,
    ));
    assert_eq!(doc["code"], "E_NULL_LESSON");
    assert_eq!(doc["details"]["field"], "remediation");
    assert_eq!(read(&ledger_path(&env)), ledger);
    assert_eq!(read(&index_path(&env)), index);

    let p = project(&env, CONTRACT, STATE);
    let doc = refusal(&reset(&env, &p, "T1", "gap", Some("ev"), "   "));
    assert_eq!(doc["code"], "E_NULL_LESSON");
    assert_eq!(doc["details"]["field"], "remediation");
    assert_eq!(read(&ledger_path(&env)), ledger);
    assert_eq!(read(&index_path(&env)), index);
    assert_eq!(read_text(&p.contract), CONTRACT);
    assert_eq!(task_state(&p, "T1")["status"], "escalated");
}

/// The three good fixtures of `docs/ledger-examples/good` (values paraphrased, shapes kept).
fn good_fixtures() -> Vec<(&'static str, Value)> {
    vec![
        (
            "rate-limit-001",
            json!({"anvil_ledger_entry_version": 1, "id": "L-2026-02-14-a1b2c3d4",
            "created": "2026-02-14", "run_id": "r-11223344", "task_id": "T1", "criterion_id": "C2",
            "contract_gap": "The contract asked for a rolling-window reset without naming what changes observably",
            "evidence": "Substantive probe: the counter stayed at 10 after 62 s idle",
            "remediation": "Rate-limit contracts must name the rolling-window reset as a visible counter read",
            "pattern": ["rate", "limit", "rolling", "window"], "tags": ["rate-limit"]}),
        ),
        (
            "cache-add-002",
            json!({"anvil_ledger_entry_version": 1, "id": "L-2026-02-20-0badcafe",
            "created": "2026-02-20", "run_id": "r-55667788", "task_id": "T3", "criterion_id": "C1",
            "contract_gap": "No criterion said when a cache entry goes stale",
            "evidence": "Wired probe: a stale value was served after the source changed",
            "remediation": "Cache contracts must state the invalidation trigger and probe it",
            "pattern": ["cache", "invalidation"], "tags": ["cache"]}),
        ),
        (
            "auth-refresh-003",
            json!({"anvil_ledger_entry_version": 1, "id": "L-2026-03-02-feedf00d",
            "created": "2026-03-02", "run_id": "r-99aabbcc", "task_id": "T2", "criterion_id": "C4",
            "contract_gap": "Token refresh was required but the expired-token path was not",
            "evidence": "Functional probe: a 401 after expiry instead of a refresh",
            "remediation": "Auth contracts must exercise an expired token and expect a silent refresh",
            "pattern": ["auth", "token", "refresh"], "tags": ["auth"]}),
        ),
    ]
}

/// The thirteen bad fixtures of `docs/ledger-examples/bad` (same names and defects), with the
/// code and the rule or field each must be refused with.
fn bad_fixtures() -> Vec<(&'static str, String, &'static str, Value)> {
    let base = |field: &str, value: Value| {
        let mut v = json!({"anvil_ledger_entry_version": 1, "id": "L-bad", "created": "2026-01-01",
            "contract_gap": "g", "evidence": "e", "remediation": "r"});
        v[field] = value;
        v.to_string()
    };
    let without = |field: &str| {
        let mut v = json!({"anvil_ledger_entry_version": 1, "id": "L-bad", "created": "2026-01-01",
            "contract_gap": "g", "evidence": "e", "remediation": "r"});
        v.as_object_mut().unwrap().remove(field);
        v.to_string()
    };
    let null = |f: &'static str| json!({"field": f});
    let rule = |r: &'static str| json!({"rule": r});
    vec![
        (
            "null-contract-gap-001",
            base("contract_gap", Value::Null),
            "E_NULL_LESSON",
            null("contract_gap"),
        ),
        (
            "null-evidence-002",
            base("evidence", Value::Null),
            "E_NULL_LESSON",
            null("evidence"),
        ),
        (
            "null-remediation-003",
            base("remediation", Value::Null),
            "E_NULL_LESSON",
            null("remediation"),
        ),
        (
            "empty-contract-gap-004",
            base("contract_gap", json!("")),
            "E_NULL_LESSON",
            null("contract_gap"),
        ),
        (
            "empty-evidence-005",
            base("evidence", json!("")),
            "E_NULL_LESSON",
            null("evidence"),
        ),
        (
            "empty-remediation-006",
            base("remediation", json!("")),
            "E_NULL_LESSON",
            null("remediation"),
        ),
        (
            "missing-version-007",
            without("anvil_ledger_entry_version"),
            "E_INVALID_LESSON",
            rule("wrong_version"),
        ),
        (
            "wrong-version-008",
            base("anvil_ledger_entry_version", json!(2)),
            "E_INVALID_LESSON",
            rule("wrong_version"),
        ),
        (
            "missing-id-009",
            without("id"),
            "E_INVALID_LESSON",
            rule("missing_id"),
        ),
        (
            "missing-created-010",
            without("created"),
            "E_INVALID_LESSON",
            rule("missing_created"),
        ),
        (
            "whitespace-contract-gap-011",
            base("contract_gap", json!("   ")),
            "E_NULL_LESSON",
            null("contract_gap"),
        ),
        (
            "whitespace-evidence-012",
            base("evidence", json!("\t\t")),
            "E_NULL_LESSON",
            null("evidence"),
        ),
        (
            "whitespace-remediation-013",
            base("remediation", json!(" ")),
            "E_NULL_LESSON",
            null("remediation"),
        ),
    ]
}

/// A8: all three good fixtures are accepted; all thirteen bad ones are refused with
/// `E_NULL_LESSON` or `E_INVALID_LESSON` (the right one, for the right field or rule), writing
/// nothing.
#[test]
fn a08_good_fixtures_accepted_bad_fixtures_rejected() {
    let env = TestEnv::new();
    for (name, entry) in good_fixtures() {
        let ledger = env.path().join(format!("good/{name}.jsonl"));
        let out = cmd(&env)
            .args([
                "--ledger",
                ledger.to_str().unwrap(),
                "append",
                "--file",
                "-",
            ])
            .output_with(jsonl(std::slice::from_ref(&entry)).as_bytes());
        assert_eq!(ok_json(&out)["appended"], json!([entry["id"]]), "{name}");
        assert_eq!(read_text(&ledger), format!("{entry}\n"), "{name}");
    }
    let bad = bad_fixtures();
    assert_eq!(bad.len(), 13);
    for (name, line, code, expected) in bad {
        let before = snapshot(env.path());
        let ledger = env.path().join(format!("bad/{name}.jsonl"));
        let out = cmd(&env)
            .args([
                "--ledger",
                ledger.to_str().unwrap(),
                "append",
                "--file",
                "-",
            ])
            .output_with(format!("{line}\n").as_bytes());
        let doc = refusal(&out);
        assert_eq!(doc["code"], code, "{name}");
        for (key, value) in expected.as_object().unwrap() {
            assert_eq!(&doc["details"][key], value, "{name}: {doc}");
        }
        assert_eq!(snapshot(env.path()), before, "{name} wrote something");
    }
}

/// `Command::output` with bytes on standard input.
trait OutputWith {
    fn output_with(&mut self, input: &[u8]) -> Output;
}

impl OutputWith for Command {
    fn output_with(&mut self, input: &[u8]) -> Output {
        output_with_stdin(self, input)
    }
}

/// A9: `query "rate limit"` ranks L1 (pattern rate, limit) above L2 (cache); a lesson sharing no
/// token is left out; a repeated query word counts twice (B.11.9, as the reference scores).
#[test]
fn a09_query_ranks_by_pattern_overlap() {
    let env = TestEnv::new();
    seed(
        &ledger_path(&env),
        &[
            lesson("L1", "2026-01-01", "g", &["rate", "limit"]),
            lesson("L2", "2026-02-01", "g", &["cache"]),
            lesson("L3", "2026-03-01", "g", &["limit"]),
        ],
    );
    write(&index_path(&env), "{}");
    assert_eq!(ids(&query(&env, &["rate limit"])), ["L1", "L3"]);
    // Words may also come as separate arguments; tokens, not the raw string, are matched.
    assert_eq!(ids(&query(&env, &["Rate-LIMIT"])), ["L1", "L3"]);
    assert_eq!(ids(&query(&env, &["cache"])), ["L2"]);
    // "limit limit cache": L1 and L3 score 2 (limit, counted twice), the newer L3 first; L2 1.
    assert_eq!(
        ids(&query(&env, &["limit limit cache"])),
        ["L3", "L1", "L2"]
    );
    // As in DG-Anvil, the pattern is the first operand: the others are ignored.
    assert_eq!(ids(&query(&env, &["limit", "cache"])), ["L3", "L1"]);
    // A `pattern` that is a string is tokenized.
    seed(
        &ledger_path(&env),
        &[
            json!({"anvil_ledger_entry_version": 1, "id": "L-str", "created": "2026-01-01",
            "contract_gap": "g", "evidence": "e", "remediation": "r", "pattern": "rate-limit window"}),
        ],
    );
    assert_eq!(ids(&query(&env, &["window"])), ["L-str"]);
    // The table form.
    let out = run(&env, &["query", "window"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).starts_with("L-str  2026-01-01  score 1\n"),
        "{}",
        stdout(&out)
    );
}

/// What a lesson holds reaches a person's terminal escaped and fitted: a control character in the
/// ledger is shown as `\x1b`, never sent (it was printed raw), and a long gap wraps under itself.
#[test]
fn query_for_a_person_escapes_and_fits_what_the_ledger_holds() {
    let env = TestEnv::new();
    seed(
        &ledger_path(&env),
        &[
            json!({"anvil_ledger_entry_version": 1, "id": "L-esc", "created": "2026-01-01",
            "contract_gap": "red \u{1b}[31m alert and a gap long enough to wrap at sixty columns, twice over",
            "evidence": "e", "remediation": "r", "pattern": ["alert"]}),
        ],
    );
    let out = cmd(&env)
        .args(["query", "alert"])
        .env("COLUMNS", "60")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(!text.contains('\u{1b}'), "{text:?}");
    assert!(text.contains("red \\x1b[31m alert"), "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 60), "{text}");
    assert!(text.contains("\n                wrap at"), "{text}");
}

/// A10: querying an empty or missing store gives `[]` — and creates nothing.
#[test]
fn a10_query_on_an_empty_or_missing_store_is_empty() {
    let env = TestEnv::new();
    let before = snapshot(env.path());
    assert_eq!(query(&env, &["x"]), Vec::<Value>::new());
    // For people, a missing ledger is said (where it was looked for), exit 1; `--json` above
    // keeps the reference's `[]`.
    let out = run(&env, &["query", "x"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no lesson ledger at"),
        "{}",
        stderr(&out)
    );
    assert_eq!(snapshot(env.path()), before);
    assert!(!env.path().join(".anvil").exists());
    write(&ledger_path(&env), "");
    assert_eq!(query(&env, &["x"]), Vec::<Value>::new());
    let out = run(&env, &["query", "x"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).contains("no lesson matches"),
        "{}",
        stdout(&out)
    );
    write(&ledger_path(&env), "\n\n  \n");
    assert_eq!(query(&env, &["x"]), Vec::<Value>::new());
}

/// A11: the limit defaults to 5; equal scores go to the newer `created` (string order); a higher
/// score beats a newer date; `--limit`/`-l` change the limit, and a non-integer is refused.
#[test]
fn a11_query_limit_defaults_to_5_and_ties_go_to_newer() {
    let env = TestEnv::new();
    let mut lessons: Vec<Value> = (1..=7)
        .map(|day| {
            lesson(
                &format!("L-{day}"),
                &format!("2026-01-0{day}"),
                "g",
                &["cache"],
            )
        })
        .collect();
    lessons.push(lesson("L-old-2", "2025-06-01", "g", &["cache", "stale"]));
    append(&env, &lessons);
    let hits = query(&env, &["cache stale"]);
    assert_eq!(ids(&hits), ["L-old-2", "L-7", "L-6", "L-5", "L-4"]);
    assert_eq!(
        ids(&query(&env, &["cache", "--limit", "2"])),
        ["L-7", "L-6"]
    );
    assert_eq!(ids(&query(&env, &["cache", "-l", "1"])), ["L-7"]);
    assert_eq!(query(&env, &["cache", "--limit", "20"]).len(), 8);
    let out = run(&env, &["query", "cache", "--limit", "two"]);
    assert_ne!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "");
}

/// A12: audit flags a duplicate id (`duplicate_id`, on the second line), `ok` false, exit 1.
/// Like the reference, `append` accepts the duplicate; only audit reports it (B.11.2).
#[test]
fn a12_audit_flags_duplicate_ids() {
    let env = TestEnv::new();
    append(&env, &[lesson("L-dup", "2026-01-01", "g", &["a"])]);
    append(&env, &[lesson("L-dup", "2026-01-02", "g2", &["b"])]);
    assert_eq!(parsed_lines(&ledger_path(&env)).len(), 2);
    let (doc, code) = audit(&env);
    assert_eq!(code, 1);
    assert_eq!(doc["ok"], false);
    assert_eq!(
        doc["issues"],
        json!([{"line": 2, "id": "L-dup", "issue": "duplicate_id"}])
    );
    assert_eq!(doc["checked"], json!({"lessons": 2}));
    let out = run(&env, &["audit"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("duplicate_id"), "{}", stdout(&out));
}

/// A13: audit flags an index `by_id` entry missing from the ledger
/// (`index_desync_missing_entry`); git-ucg also checks the other way
/// (`index_desync_missing_from_index`, which the reference does not flag).
#[test]
fn a13_audit_flags_index_entries_missing_from_the_ledger() {
    let env = TestEnv::new();
    append(&env, &[lesson("L-1", "2026-01-01", "g", &["a"])]);
    let mut idx = index(&env);
    idx["by_id"]["L-ghost"] = json!({"created": "2026-01-01"});
    write(&index_path(&env), &idx.to_string());
    let (doc, code) = audit(&env);
    assert_eq!(code, 1);
    assert_eq!(
        doc["issues"],
        json!([{"id": "L-ghost", "issue": "index_desync_missing_entry"}])
    );
    // The other direction.
    seed(
        &ledger_path(&env),
        &[
            lesson("L-1", "2026-01-01", "g", &["a"]),
            lesson("L-2", "2026-01-01", "g", &["a"]),
        ],
    );
    write(
        &index_path(&env),
        r#"{"by_pattern":{},"by_id":{"L-1":{"created":"2026-01-01"}}}"#,
    );
    let (doc, _) = audit(&env);
    assert_eq!(
        doc["issues"],
        json!([{"id": "L-2", "issue": "index_desync_missing_from_index"}])
    );
    std::fs::remove_file(index_path(&env)).unwrap();
    let (doc, _) = audit(&env);
    assert_eq!(issue_kinds(&doc), ["index_missing"]);
    write(&index_path(&env), "{\"by_id\":");
    let (doc, _) = audit(&env);
    assert_eq!(issue_kinds(&doc), ["index_invalid_json"]);
}

/// A14: a retroactive lesson has tags ⊇ {shipped_gap, post_hoc} (after the pattern tokens),
/// `source_criterion_id`, the criterion's statement as remediation, the reference's evidence
/// text (source_intent cut at 200 characters) and patterns from source_intent (or `--patterns`);
/// the index keys are the patterns, not the structural tags.
#[test]
fn a14_retro_lesson_has_structural_tags_and_criterion_statement() {
    let env = TestEnv::new();
    let contract = retro_contract(&env);
    let out = retro(
        &env,
        &contract,
        "  Astro+Tailwind+shadcn contracts must enumerate the full shadcn palette tokens ",
        &[],
    );
    let doc = ok_json(&out);
    let entry = parsed_lines(&ledger_path(&env)).remove(0);
    assert_eq!(
        doc,
        json!({"ok": true, "lesson": {"appended": true, "id": entry["id"],
            "ledgerPath": ledger_path(&env).to_str().unwrap()}})
    );
    let keys = object_keys(&entry);
    assert_eq!(
        keys,
        [
            "anvil_ledger_entry_version",
            "id",
            "created",
            "contract_gap",
            "evidence",
            "remediation",
            "pattern",
            "tags",
            "source_criterion_id"
        ]
    );
    assert_eq!(
        entry["contract_gap"],
        "Astro+Tailwind+shadcn contracts must enumerate the full shadcn palette tokens"
    );
    assert_eq!(
        entry["evidence"],
        "retroactive: criterion C1 passed after post-ship fix (source_intent: Fix the Tailwind shadcn palette in the Astro build)"
    );
    assert_eq!(
        entry["remediation"],
        "Tailwind config enumerates the full shadcn color palette."
    );
    assert_eq!(entry["source_criterion_id"], "C1");
    let pattern = json!(["fix", "the", "tailwind", "shadcn", "palette", "in", "astro", "build"]);
    assert_eq!(entry["pattern"], pattern);
    let mut tags = pattern.as_array().unwrap().clone();
    tags.extend([json!("shipped_gap"), json!("post_hoc")]);
    assert_eq!(entry["tags"], Value::Array(tags));
    assert!(entry.get("supersedes").is_none());
    let idx = index(&env);
    assert_eq!(idx["by_pattern"]["shadcn"], json!([entry["id"]]));
    assert!(idx["by_pattern"].get("shipped_gap").is_none());
    assert_audit_ok(&env);

    // --patterns replaces source_intent's tokens; a long intent is cut at 200 characters.
    let long_intent = format!("ship {}", "é".repeat(300));
    write(
        &contract,
        &RETRO_CONTRACT.replace(
            "Fix the Tailwind shadcn palette in the Astro build",
            &long_intent,
        ),
    );
    let other = env.path().join("other.jsonl");
    let out = retro(
        &env,
        &contract,
        "a different gap entirely",
        &[
            "--patterns",
            "Astro-Tailwind,shadcn,post_hoc",
            "--ledger",
            other.to_str().unwrap(),
        ],
    );
    ok_json(&out);
    let entry = parsed_lines(&other).remove(0);
    assert_eq!(
        entry["pattern"],
        json!(["astro", "tailwind", "shadcn", "post", "hoc"])
    );
    assert_eq!(
        entry["tags"],
        json!([
            "astro",
            "tailwind",
            "shadcn",
            "post",
            "hoc",
            "shipped_gap",
            "post_hoc"
        ])
    );
    let cut: String = long_intent.chars().take(200).collect();
    assert_eq!(
        entry["evidence"],
        format!("retroactive: criterion C1 passed after post-ship fix (source_intent: {cut})")
    );
}

/// A15: an unknown criterion is refused (`E_INVALID_LESSON`, rule `unknown_criterion_id`, the id
/// given back), as is a contract without a criteria array (`missing_contract`); nothing written.
#[test]
fn a15_retro_unknown_criterion_is_refused() {
    let env = TestEnv::new();
    let contract = retro_contract(&env);
    let before = snapshot(env.path());
    let out = run(
        &env,
        &[
            "retro",
            "--contract",
            contract.to_str().unwrap(),
            "--criterion",
            "C99",
            "--gap-note",
            "gap",
        ],
    );
    let doc = refusal(&out);
    assert_eq!(doc["code"], "E_INVALID_LESSON");
    assert_eq!(
        doc["details"],
        json!({"rule": "unknown_criterion_id", "criterionId": "C99"})
    );
    assert_eq!(snapshot(env.path()), before);
    // No criterion named (seed 004, Red Flags): the flag missing, or given empty.
    let path = contract.to_str().unwrap();
    let doc = refusal(&run(
        &env,
        &["retro", "--contract", path, "--gap-note", "gap"],
    ));
    assert_eq!(doc["code"], "E_MISSING_ARG");
    assert_eq!(doc["details"], json!({"flag": "--criterion"}));
    let empty = [
        "retro",
        "--contract",
        path,
        "--criterion",
        "",
        "--gap-note",
        "gap",
    ];
    let doc = refusal(&run(&env, &empty));
    assert_eq!(doc["code"], "E_INVALID_LESSON");
    assert_eq!(doc["details"]["rule"], "missing_criterion_id");
    assert_eq!(snapshot(env.path()), before);

    // The contract is checked first, as DG-Anvil's loader checks it.
    write(
        &contract,
        &RETRO_CONTRACT.replace("criteria:\n", "criteria: none\nold_criteria:\n"),
    );
    let before = snapshot(env.path());
    let doc = refusal(&retro(&env, &contract, "gap", &[]));
    assert_eq!(doc["code"], "E_INVALID_CONTRACT");
    assert_eq!(
        doc["details"],
        json!({"rule": "missing_criteria", "path": "$.criteria", "expected": "non-empty array", "actual": "none"})
    );
    assert_eq!(snapshot(env.path()), before);
}

/// A16: a blank gap note is a null lesson (`E_NULL_LESSON`, field `confirmed_gap_note`); so is a
/// blank source_intent; nothing written.
#[test]
fn a16_retro_blank_gap_note_is_a_null_lesson() {
    let env = TestEnv::new();
    let contract = retro_contract(&env);
    let before = snapshot(env.path());
    let doc = refusal(&retro(&env, &contract, "   ", &[]));
    assert_eq!(doc["code"], "E_NULL_LESSON");
    assert_eq!(doc["details"]["field"], "confirmed_gap_note");
    assert_eq!(snapshot(env.path()), before);

    write(
        &contract,
        &RETRO_CONTRACT.replace(
            "\"Fix the Tailwind shadcn palette in the Astro build\"",
            "\"  \"",
        ),
    );
    let before = snapshot(env.path());
    let doc = refusal(&retro(&env, &contract, "a real gap", &[]));
    assert_eq!(doc["code"], "E_NULL_LESSON");
    assert_eq!(doc["details"]["field"], "source_intent");
    assert_eq!(snapshot(env.path()), before);
}

/// A17: a retroactive near-duplicate (Jaccard 8/10 = 0.8) is still appended, with `supersedes`
/// holding the old id and the fixed reason; the old line is unchanged.
#[test]
fn a17_retro_near_duplicate_supersedes_and_leaves_the_old_line() {
    let env = TestEnv::new();
    let contract = retro_contract(&env);
    let old = lesson("L-old", "2026-01-01", OLD_GAP, &["astro", "tailwind"]);
    append(&env, std::slice::from_ref(&old));
    let before = read_text(&ledger_path(&env));
    let entry = retro_ok(&env, &ledger_path(&env), &contract, NEW_GAP);
    let after = read_text(&ledger_path(&env));
    assert!(after.starts_with(&before), "the old line is untouched");
    assert_eq!(after.lines().count(), 2);
    assert_eq!(entry["supersedes"], json!(["L-old"]));
    assert_eq!(
        entry["supersedes_reason"],
        "retroactive lesson consolidates near-duplicate (Jaccard >= 0.7) prior lessons on same contract_gap"
    );
    assert_audit_ok(&env);
}

/// A17, B.11.1 (reference defect, fixed): the reference's query ignores `supersedes`. git-ucg's
/// flags a superseded lesson with `superseded_by` (and says so in the table), and
/// `--hide-superseded` leaves it out.
#[test]
fn a17_superseded_lessons_are_flagged_by_query_and_can_be_hidden() {
    let env = TestEnv::new();
    let contract = retro_contract(&env);
    append(
        &env,
        &[lesson(
            "L-old",
            "2026-01-01",
            OLD_GAP,
            &["astro", "tailwind"],
        )],
    );
    let entry = retro_ok(&env, &ledger_path(&env), &contract, NEW_GAP);
    let new_id = entry["id"].as_str().unwrap();
    let hits = query(&env, &["astro"]);
    assert_eq!(ids(&hits), [new_id, "L-old"]);
    assert_eq!(hits[1]["superseded_by"], json!([new_id]));
    assert!(hits[0].get("superseded_by").is_none());
    assert_eq!(ids(&query(&env, &["astro", "--hide-superseded"])), [new_id]);
    let table = stdout(&run(&env, &["query", "astro"]));
    assert!(
        table.contains(&format!(
            "L-old  2026-01-01  score 1  (superseded by {new_id})"
        )),
        "{table}"
    );
}

/// A18: `supersedes` holds at most 3 ids, the most similar first, file order on ties.
#[test]
fn a18_supersedes_is_capped_at_3_by_similarity() {
    let env = TestEnv::new();
    let contract = retro_contract(&env);
    let new_gap = "alpha beta gamma delta epsilon zeta eta theta";
    let ledger = ledger_path(&env);
    seed(
        &ledger,
        &[
            lesson(
                "L-075",
                "2026-01-01",
                "alpha beta gamma delta epsilon zeta",
                &[],
            ),
            lesson(
                "L-0727",
                "2026-01-01",
                "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda",
                &[],
            ),
            lesson(
                "L-080",
                "2026-01-01",
                "alpha beta gamma delta epsilon zeta eta theta iota kappa",
                &[],
            ),
            lesson("L-0", "2026-01-01", "unrelated words", &[]),
            lesson(
                "L-0875",
                "2026-01-01",
                "alpha beta gamma delta epsilon zeta eta",
                &[],
            ),
            lesson(
                "L-100",
                "2026-01-01",
                "Theta eta zeta epsilon delta gamma beta alpha",
                &[],
            ),
        ],
    );
    let entry = retro_ok(&env, &ledger, &contract, new_gap);
    assert_eq!(entry["supersedes"], json!(["L-100", "L-0875", "L-080"]));

    // Ties keep file order.
    let ties = env.path().join("ties.jsonl");
    seed(
        &ties,
        &[
            lesson(
                "T-a",
                "2026-01-01",
                "alpha beta gamma delta epsilon zeta eta",
                &[],
            ),
            lesson("T-b", "2026-01-01", new_gap, &[]),
            lesson(
                "T-c",
                "2026-01-01",
                "alpha beta gamma delta epsilon zeta theta",
                &[],
            ),
            lesson("T-d", "2026-01-01", new_gap, &[]),
        ],
    );
    let entry = retro_ok(&env, &ties, &contract, new_gap);
    assert_eq!(entry["supersedes"], json!(["T-b", "T-d", "T-a"]));
}

/// A19: Jaccard("astro tailwind shadcn", "astro tailwind shadcn colors") = 0.75 ≥ 0.7, so the new
/// lesson supersedes; normalizePatterns(['Astro-Tailwind', 'shadcn']) sorted is
/// [astro, shadcn, tailwind].
#[test]
fn a19_jaccard_075_and_normalized_patterns() {
    let env = TestEnv::new();
    let contract = retro_contract(&env);
    append(
        &env,
        &[lesson(
            "L-three",
            "2026-01-01",
            "astro tailwind shadcn",
            &[],
        )],
    );
    let out = retro(
        &env,
        &contract,
        "astro tailwind shadcn colors",
        &["--patterns", "Astro-Tailwind,shadcn"],
    );
    ok_json(&out);
    let entry = parsed_lines(&ledger_path(&env)).pop().unwrap();
    assert_eq!(entry["supersedes"], json!(["L-three"]));
    let mut pattern: Vec<&str> = entry["pattern"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(pattern, ["astro", "tailwind", "shadcn"], "first-seen order");
    pattern.sort();
    assert_eq!(pattern, ["astro", "shadcn", "tailwind"]);
}

/// A20: the threshold is inclusive: exactly 0.7 (7/10) supersedes, 7/11 does not.
#[test]
fn a20_jaccard_threshold_is_inclusive() {
    let env = TestEnv::new();
    let contract = retro_contract(&env);
    let seven = "one two three four five six seven";
    let exact = env.path().join("exact.jsonl");
    seed(&exact, &[lesson("L-seven", "2026-01-01", seven, &[])]);
    let entry = retro_ok(&env, &exact, &contract, &format!("{seven} eight nine ten"));
    assert_eq!(entry["supersedes"], json!(["L-seven"]));

    let below = env.path().join("below.jsonl");
    seed(&below, &[lesson("L-seven", "2026-01-01", seven, &[])]);
    let entry = retro_ok(
        &env,
        &below,
        &contract,
        &format!("{seven} eight nine ten eleven"),
    );
    assert!(entry.get("supersedes").is_none(), "{entry}");
    assert!(entry.get("supersedes_reason").is_none(), "{entry}");
}

/// A21: invalidate appends a marker (the reference's shape; the old line untouched) and query
/// then returns no hit for the lesson — nor the marker itself.
#[test]
fn a21_invalidate_writes_a_marker_and_query_skips_the_lesson() {
    let env = TestEnv::new();
    append(
        &env,
        &[
            lesson("L-inv-test", "2026-01-01", "some gap", &["foo", "bar"]),
            lesson("L-keep", "2026-01-01", "other gap", &["foo"]),
        ],
    );
    assert_eq!(ids(&query(&env, &["foo"])), ["L-inv-test", "L-keep"]);
    let before = read_text(&ledger_path(&env));
    let out = run(
        &env,
        &["invalidate", "--lesson", "L-inv-test", "--reason", "revert"],
    );
    let doc = ok_json(&out);
    let after = read_text(&ledger_path(&env));
    assert!(after.starts_with(&before));
    let marker = parsed_lines(&ledger_path(&env)).pop().unwrap();
    assert_eq!(
        doc,
        json!({"ok": true, "invalidated": "L-inv-test", "marker_id": marker["id"]})
    );
    let today = utc_today();
    assert_eq!(
        marker,
        json!({"anvil_ledger_entry_version": 1, "id": marker["id"], "created": today,
            "invalidates": "L-inv-test", "invalidation_reason": "revert",
            "contract_gap": "invalidation marker for L-inv-test", "evidence": "reason: revert",
            "remediation": "prior lesson L-inv-test is invalidated (revert); future queries should skip it",
            "tags": ["invalidation", "revert"], "pattern": ["foo", "bar"]})
    );
    let keys = object_keys(&marker);
    assert_eq!(
        keys,
        [
            "anvil_ledger_entry_version",
            "id",
            "created",
            "invalidates",
            "invalidation_reason",
            "contract_gap",
            "evidence",
            "remediation",
            "tags",
            "pattern"
        ],
        "the reference's key order"
    );
    assert_eq!(ids(&query(&env, &["foo bar"])), ["L-keep"]);
    assert_eq!(query(&env, &["bar"]), Vec::<Value>::new());
    assert_audit_ok(&env);
}

/// A22: a bogus reason is refused (`E_INVALID_LESSON`, the reason given back), as are an unknown
/// lesson and a missing ledger; nothing written.
#[test]
fn a22_invalidate_with_a_bogus_reason_is_refused() {
    let env = TestEnv::new();
    let before = snapshot(env.path());
    let doc = refusal(&run(
        &env,
        &["invalidate", "--lesson", "L-x", "--reason", "revert"],
    ));
    assert_eq!(doc["code"], "E_INVALID_LESSON", "no ledger");
    assert_eq!(snapshot(env.path()), before);

    append(&env, &[lesson("L-x", "2026-01-01", "g", &["a"])]);
    let before = snapshot(env.path());
    let doc = refusal(&run(
        &env,
        &["invalidate", "--lesson", "L-x", "--reason", "bogus-reason"],
    ));
    assert_eq!(doc["code"], "E_INVALID_LESSON");
    assert_eq!(doc["details"], json!({"received": "bogus-reason"}));
    let doc = refusal(&run(
        &env,
        &["invalidate", "--lesson", "L-nope", "--reason", "stale"],
    ));
    assert_eq!(doc["code"], "E_INVALID_LESSON");
    assert_eq!(doc["error"], "lesson not found: L-nope");
    assert_eq!(doc["details"], json!({"lessonId": "L-nope"}));
    let doc = refusal(&run(
        &env,
        &["invalidate", "--lesson", "", "--reason", "wrong"],
    ));
    assert_eq!(doc["details"]["rule"], "missing_lesson_id");
    assert_eq!(snapshot(env.path()), before);
}

/// A23 (adapted: git-ucg has no `ledger-migrate`, whose v1→v1 migration validates every line and
/// copies the file verbatim). The closest behaviours: `audit` accepts a ledger and index exactly
/// as the reference writes them (LF or CRLF) without touching them, and `append` stores each
/// lesson as compact JSON in the entry's own key order — the reference's `JSON.stringify` — and
/// updates a reference-written index into the very bytes the reference would write.
#[test]
fn a23_reference_layout_is_accepted_and_appends_are_compact_in_key_order() {
    let env = TestEnv::new();
    let ledger = concat!(
        r#"{"anvil_ledger_entry_version":1,"id":"L-2026-02-14-a1b2c3d4","created":"2026-02-14","run_id":"r-11223344","task_id":"T1","criterion_id":"C2","contract_gap":"The rolling-window reset was not observable","evidence":"counter stayed at 10","remediation":"Name the reset as a visible counter read","pattern":["rate","limit","rolling","window"],"tags":["rate-limit"]}"#,
        "\n",
        r#"{"anvil_ledger_entry_version":1,"id":"L-2026-04-16-0c1d2e3f","created":"2026-04-16","contract_gap":"Astro Tailwind contracts must enumerate the shadcn palette tokens fully","evidence":"retroactive: criterion C1 passed after post-ship fix (source_intent: fix tailwind)","remediation":"enumerate palette","pattern":["fix","tailwind"],"tags":["fix","tailwind","shipped_gap","post_hoc"],"source_criterion_id":"C1"}"#,
        "\n",
        r#"{"anvil_ledger_entry_version":1,"id":"L-2026-04-16-77aa88bb","created":"2026-04-16","invalidates":"L-2026-02-14-a1b2c3d4","invalidation_reason":"stale","contract_gap":"invalidation marker for L-2026-02-14-a1b2c3d4","evidence":"reason: stale","remediation":"prior lesson L-2026-02-14-a1b2c3d4 is invalidated (stale); future queries should skip it","tags":["invalidation","stale"],"pattern":["rate","limit","rolling","window"]}"#,
        "\n",
    );
    let index = concat!(
        r#"{"by_pattern":{"rate":["L-2026-02-14-a1b2c3d4","L-2026-04-16-77aa88bb"],"limit":["L-2026-02-14-a1b2c3d4","L-2026-04-16-77aa88bb"],"rolling":["L-2026-02-14-a1b2c3d4","L-2026-04-16-77aa88bb"],"window":["L-2026-02-14-a1b2c3d4","L-2026-04-16-77aa88bb"],"fix":["L-2026-04-16-0c1d2e3f"],"tailwind":["L-2026-04-16-0c1d2e3f"]},"#,
        r#""by_id":{"L-2026-02-14-a1b2c3d4":{"created":"2026-02-14"},"L-2026-04-16-0c1d2e3f":{"created":"2026-04-16"},"L-2026-04-16-77aa88bb":{"created":"2026-04-16"}}}"#,
    );
    for text in [ledger.to_string(), ledger.replace('\n', "\r\n")] {
        write(&ledger_path(&env), &text);
        write(&index_path(&env), index);
        let (doc, code) = audit(&env);
        assert_eq!(
            doc,
            json!({"ok": true, "issues": [], "checked": {"lessons": 3}})
        );
        assert_eq!(code, 0);
        assert_eq!(ids(&query(&env, &["tailwind"])), ["L-2026-04-16-0c1d2e3f"]);
        assert_eq!(read_text(&ledger_path(&env)), text, "read-only commands");
        assert_eq!(read_text(&index_path(&env)), index);
    }

    // An append: pretty input, unusual key order, escapes → one compact line in that order.
    write(&ledger_path(&env), ledger);
    write(&index_path(&env), index);
    let input = "{ \"id\" : \"L-new\",\n\"anvil_ledger_entry_version\": 1, \"created\": \"2026-05-01\",\
        \"remediation\": \"Say \\\"café\\\" \\u00e9\\ttab \\u0007 </b> \\u2028\",\
        \"contract_gap\": \"gap\", \"evidence\": \"ev\", \"pattern\": [\"Tailwind\", \"new-key\"] }";
    // (A lesson split over lines is not JSONL: it must be one line.)
    let doc = refusal(&append_text(&env, input.as_bytes()));
    assert_eq!(doc["details"]["line"], 1);
    let out = append_text(&env, input.replace('\n', " ").as_bytes());
    assert_eq!(ok_json(&out)["appended"], json!(["L-new"]));
    let expected_line =
        "{\"id\":\"L-new\",\"anvil_ledger_entry_version\":1,\"created\":\"2026-05-01\",\
        \"remediation\":\"Say \\\"café\\\" é\\ttab \\u0007 </b> \u{2028}\",\
        \"contract_gap\":\"gap\",\"evidence\":\"ev\",\"pattern\":[\"Tailwind\",\"new-key\"]}\n";
    assert_eq!(
        read_text(&ledger_path(&env)),
        format!("{ledger}{expected_line}")
    );
    // The index, as the reference's updateIndex would rewrite it.
    let expected_index = index
        .replace(
            r#""tailwind":["L-2026-04-16-0c1d2e3f"]}"#,
            r#""tailwind":["L-2026-04-16-0c1d2e3f","L-new"],"new-key":["L-new"]}"#,
        )
        .replace(
            r#""L-2026-04-16-77aa88bb":{"created":"2026-04-16"}}}"#,
            r#""L-2026-04-16-77aa88bb":{"created":"2026-04-16"},"L-new":{"created":"2026-05-01"}}}"#,
        );
    assert_eq!(read_text(&index_path(&env)), expected_index);
    assert_audit_ok(&env);
}

/// A24 (adapted: the reference guards its single writer by making `ledger.js#append` throw
/// `E_NOT_IMPLEMENTED`, a JavaScript module structure git-ucg does not have). The meaning kept:
/// there is one writer. Every subcommand that writes — append, invalidate, retro and reset —
/// goes through the same append: each cuts a torn tail the same way (and says so), writes one
/// whole line, and leaves the index in step with the ledger.
#[test]
fn a24_every_writer_goes_through_the_one_append() {
    let env = TestEnv::new();
    let contract = retro_contract(&env);
    let p = project(&env, CONTRACT, STATE);
    append(&env, &[lesson("L-1", "2026-01-01", "first gap", &["one"])]);
    let torn = br#"{"anvil_ledger_entry_version":1,"id":"L-torn","crea"#;
    type Writer<'a> = Box<dyn Fn() -> Output + 'a>;
    let writers: Vec<(&str, Writer)> = vec![
        (
            "append",
            Box::new(|| {
                append_text(
                    &env,
                    jsonl(&[lesson("L-2", "2026-01-02", "g", &["two"])]).as_bytes(),
                )
            }),
        ),
        (
            "invalidate",
            Box::new(|| {
                run(
                    &env,
                    &["invalidate", "--lesson", "L-2", "--reason", "wrong"],
                )
            }),
        ),
        (
            "retro",
            Box::new(|| retro(&env, &contract, "palette tokens were not enumerated", &[])),
        ),
        (
            "reset",
            Box::new(|| {
                reset(
                    &env,
                    &p,
                    "T1",
                    "no reset probe",
                    Some("counter at 10"),
                    "probe the reset",
                )
            }),
        ),
    ];
    for (name, writer) in writers {
        let clean = read(&ledger_path(&env));
        let mut with_tail = clean.clone();
        with_tail.extend_from_slice(torn);
        std::fs::write(ledger_path(&env), &with_tail).unwrap();
        let out = writer();
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("torn (no newline, {} bytes)", torn.len())),
            "{name}: {}",
            stderr(&out)
        );
        let now = read(&ledger_path(&env));
        let added = now
            .strip_prefix(clean.as_slice())
            .unwrap_or_else(|| panic!("{name}: only the torn tail may go"));
        assert_eq!(added.iter().filter(|b| **b == b'\n').count(), 1, "{name}");
        assert!(added.ends_with(b"\n"), "{name}");
        serde_json::from_slice::<Value>(added).expect("a whole lesson");
        assert_audit_ok(&env);
    }
    assert_eq!(parsed_lines(&ledger_path(&env)).len(), 5);
}

/// A25 (adapted: the reference's unit test greps its sources for the literal
/// `~/.anvil/ledger.jsonl`). The meaning kept: the path is composed, never fixed. By default it is
/// `$HOME/.anvil/ledger.jsonl` (index beside it) for whatever HOME is; `$ANVIL_LEDGER` and then
/// `--ledger` override it, with the index `<name>.index.json` beside the chosen file; nothing is
/// written anywhere else.
#[test]
fn a25_ledger_path_follows_home_and_anvil_ledger() {
    let env = TestEnv::new();
    let changed_dirs = |before: &[(PathBuf, Vec<u8>)], root: &Path| -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = snapshot(root)
            .into_iter()
            .filter(|f| !before.contains(f))
            .map(|(p, _)| p.parent().unwrap().to_path_buf())
            .collect();
        dirs.dedup();
        dirs
    };
    let entry = |id: &str| jsonl(&[lesson(id, "2026-01-01", "g", &["where"])]);

    // Default: HOME.
    let before = snapshot(env.path());
    let out = output_with_stdin(
        cmd(&env).args(["append", "--file", "-"]),
        entry("L-home").as_bytes(),
    );
    ok_json(&out);
    assert_eq!(
        changed_dirs(&before, env.path()),
        [env.path().join(".anvil")]
    );
    assert!(ledger_path(&env).exists() && index_path(&env).exists());

    // Another HOME is another ledger.
    let home2 = env.path().join("home2");
    std::fs::create_dir_all(&home2).unwrap();
    let out = cmd(&env)
        .env("HOME", &home2)
        .args(["query", "where", "--json"])
        .output()
        .unwrap();
    assert_eq!(ok_json(&out), json!([]));
    let out = output_with_stdin(
        cmd(&env)
            .env("HOME", &home2)
            .args(["append", "--file", "-"]),
        entry("L-home2").as_bytes(),
    );
    ok_json(&out);
    assert_eq!(
        parsed_lines(&home2.join(".anvil/ledger.jsonl"))[0]["id"],
        "L-home2"
    );
    assert_eq!(parsed_lines(&ledger_path(&env)).len(), 1);

    // $ANVIL_LEDGER.
    let custom = env.path().join("elsewhere/team.jsonl");
    let before = snapshot(env.path());
    let out = output_with_stdin(
        cmd(&env)
            .env("ANVIL_LEDGER", &custom)
            .args(["append", "--file", "-"]),
        entry("L-env").as_bytes(),
    );
    ok_json(&out);
    assert_eq!(
        changed_dirs(&before, env.path()),
        [env.path().join("elsewhere")]
    );
    assert_eq!(parsed_lines(&custom)[0]["id"], "L-env");
    let idx: Value =
        serde_json::from_slice(&read(&env.path().join("elsewhere/team.index.json"))).unwrap();
    assert_eq!(idx["by_id"]["L-env"], json!({"created": "2026-01-01"}));
    let out = cmd(&env)
        .env("ANVIL_LEDGER", &custom)
        .args(["query", "where", "--json"])
        .output()
        .unwrap();
    assert_eq!(ids(ok_json(&out).as_array().unwrap()), ["L-env"]);

    // --ledger beats $ANVIL_LEDGER; an empty $ANVIL_LEDGER means HOME.
    let flagged = env.path().join("flag/own.jsonl");
    let out = output_with_stdin(
        cmd(&env).env("ANVIL_LEDGER", &custom).args([
            "append",
            "--ledger",
            flagged.to_str().unwrap(),
            "--file",
            "-",
        ]),
        entry("L-flag").as_bytes(),
    );
    ok_json(&out);
    assert_eq!(parsed_lines(&flagged)[0]["id"], "L-flag");
    assert!(env.path().join("flag/own.index.json").exists());
    assert_eq!(parsed_lines(&custom).len(), 1);
    let out = cmd(&env)
        .env("ANVIL_LEDGER", "")
        .args(["query", "where", "--json"])
        .output()
        .unwrap();
    assert_eq!(ids(ok_json(&out).as_array().unwrap()), ["L-home"]);
}

/// A26: generated ids (retro, invalidate, reset) match `^L-\d{4}-\d{2}-\d{2}-[0-9a-f]{8}$`, carry
/// today's UTC date, equal `created`, and differ from one another.
#[test]
fn a26_generated_ids_have_the_anvil_format() {
    let env = TestEnv::new();
    let day_before = utc_today();
    let contract = retro_contract(&env);
    let p = project(&env, CONTRACT, STATE);
    let mut generated = Vec::new();
    for i in 0..3 {
        ok_json(&retro(
            &env,
            &contract,
            &format!("gap number {i} {}", "x".repeat(i)),
            &[],
        ));
    }
    let first = parsed_lines(&ledger_path(&env))[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    ok_json(&run(
        &env,
        &["invalidate", "--lesson", &first, "--reason", "stale"],
    ));
    let out = ok_json(&reset(&env, &p, "T1", "gap", Some("ev"), "rem"));
    let day_after = utc_today();
    for entry in parsed_lines(&ledger_path(&env)) {
        let id = entry["id"].as_str().unwrap().to_string();
        assert!(id_format().is_match(&id), "{id}");
        let created = entry["created"].as_str().unwrap();
        assert!(created == day_before || created == day_after, "{created}");
        assert_eq!(&id[2..12], created);
        generated.push(id);
    }
    assert_eq!(generated.len(), 5);
    assert_eq!(out["id"].as_str().unwrap(), generated[4]);
    let mut unique = generated.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 5);
}

/// A27 (reference hazard, fixed): the reference appends the line and then throws
/// `E_INDEX_DESYNC` on a corrupt index, leaving the lesson written and unindexed. git-ucg reads
/// the index first: `E_INDEX_DESYNC` with the index's path, and nothing at all written — by any
/// writer (the reset's contract and state included). Audit reports `index_invalid_json`.
#[test]
fn a27_corrupt_index_refuses_before_the_ledger_is_touched() {
    let env = TestEnv::new();
    let contract = retro_contract(&env);
    let p = project(&env, CONTRACT, STATE);
    append(&env, &[lesson("L-1", "2026-01-01", "g", &["a"])]);
    // The last: what a power loss can leave of the unsynced index.
    for corrupt in ["{\"by_pattern\":{\"a\":[\"L-1\"", "[]", "not json", ""] {
        write(&index_path(&env), corrupt);
        let before = files(&env);
        let outs = [
            append_text(
                &env,
                jsonl(&[lesson("L-2", "2026-01-02", "g", &["b"])]).as_bytes(),
            ),
            run(
                &env,
                &["invalidate", "--lesson", "L-1", "--reason", "revert"],
            ),
            retro(&env, &contract, "a gap", &[]),
            reset(&env, &p, "T1", "gap", Some("ev"), "rem"),
        ];
        for out in &outs {
            let doc = refusal(out);
            assert_eq!(doc["code"], "E_INDEX_DESYNC", "{corrupt}: {doc}");
            if corrupt != "[]" {
                // The reference's details: the parser's words.
                assert!(doc["details"]["cause"].is_string(), "{doc}");
            }
        }
        assert_eq!(files(&env), before, "{corrupt}: something was written");
        let (doc, code) = audit(&env);
        // An index `[]` lists no ids: no issue for the reference's audit (nor git-ucg's).
        let invalid = issue_kinds(&doc).contains(&"index_invalid_json".to_string());
        assert_eq!(invalid, corrupt != "[]", "{doc}");
        assert_eq!(code, u8::from(invalid) as i32, "{doc}");
    }
    // The way out named in the refusal works.
    assert_eq!(run(&env, &["audit", "--fix"]).status.code(), Some(0));
    let out = append_text(
        &env,
        jsonl(&[lesson("L-2", "2026-01-02", "g", &["b"])]).as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let index: Value = serde_json::from_slice(&std::fs::read(index_path(&env)).unwrap()).unwrap();
    assert_eq!(index["by_pattern"], json!({"a": ["L-1"], "b": ["L-2"]}));
}

/// A28 (query: reference behaviour fixed): a malformed ledger line makes the reference's query
/// fail with `E_INVALID_JSON`. git-ucg's query skips it with a warning naming its physical line
/// and still answers; audit reports `invalid_json` at that line; the similarity check of `retro`
/// skips it (as the reference's findSimilar does).
#[test]
fn a28_malformed_line_is_skipped_by_query_reported_by_audit() {
    let env = TestEnv::new();
    let good1 = lesson("L1", "2026-01-01", "astro tailwind shadcn", &["rate"]);
    let good2 = lesson("L2", "2026-01-02", "a very different gap", &["rate"]);
    write(
        &ledger_path(&env),
        &format!(
            "{good1}\n{{\"id\": \"L-broken\", \"contract_gap\": \"astro tailwind shadcn\n{good2}\n"
        ),
    );
    write(
        &index_path(&env),
        r#"{"by_pattern":{"rate":["L1","L2"]},"by_id":{"L1":{"created":"2026-01-01"},"L2":{"created":"2026-01-02"}}}"#,
    );
    let out = run(&env, &["query", "rate", "--json"]);
    assert_eq!(ids(ok_json(&out).as_array().unwrap()), ["L2", "L1"]);
    assert!(
        stderr(&out).contains(&format!("{}:2:", ledger_path(&env).display())),
        "{}",
        stderr(&out)
    );
    let (doc, code) = audit(&env);
    assert_eq!(code, 1);
    assert_eq!(doc["issues"], json!([{"line": 2, "issue": "invalid_json"}]));
    assert_eq!(doc["checked"], json!({"lessons": 3}));
    let contract = retro_contract(&env);
    let entry = retro_ok(&env, &ledger_path(&env), &contract, "astro tailwind shadcn");
    assert_eq!(entry["supersedes"], json!(["L1"]));
}

/// A28, continued: lines that parse but are not lesson objects (`null`, an array, a string) are
/// skipped by query — they neither count against `--limit` nor invalidate anything — and audit
/// reports each of them.
#[test]
fn a28_lines_that_are_not_objects_are_skipped_by_query() {
    let env = TestEnv::new();
    let l1 = lesson("L1", "2026-01-01", "g", &["rate"]);
    let l2 = lesson("L2", "2026-01-02", "g", &["rate"]);
    write(
        &ledger_path(&env),
        &format!("{l1}\n[null,null,null,\"L1\"]\n[\"L-arr\",\"2026-09-09\",[\"rate\",\"rate\"]]\nnull\n\"text\"\n{l2}\n"),
    );
    assert_eq!(ids(&query(&env, &["rate"])), ["L2", "L1"]);
    assert_eq!(ids(&query(&env, &["rate", "-l", "2"])), ["L2", "L1"]);
    let (doc, _) = audit(&env);
    let lines: Vec<&Value> = doc["issues"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["issue"] == "E_INVALID_LESSON")
        .map(|i| &i["line"])
        .collect();
    assert_eq!(lines, [&json!(2), &json!(3), &json!(4), &json!(5)]);
}

/// A29: a `counter_examples` value that is not a string is an invalid contract
/// (`E_INVALID_CONTRACT`, rule `counter_example_not_string`): reset refuses before writing
/// anything — ledger, contract or state.
#[test]
fn a29_counter_example_not_a_string_is_an_invalid_contract() {
    let env = TestEnv::new();
    for value in ["5", "true", "\n    nested: text", "~"] {
        let contract = CONTRACT.replace(
            "L-2026-04-15-fixture: \"Rolling-window reset must be observable: read the counter after the window.\"",
            &format!("L-2026-04-15-fixture: {value}"),
        );
        let p = project(&env, &contract, STATE);
        let before = snapshot(env.path());
        let doc = refusal(&reset(&env, &p, "T1", "gap", Some("ev"), "rem"));
        assert_eq!(doc["code"], "E_INVALID_CONTRACT", "{value}");
        assert_eq!(
            doc["details"]["rule"], "counter_example_not_string",
            "{value}"
        );
        assert_eq!(snapshot(env.path()), before, "{value}");
    }
}

/// A30 (adapted: git-ucg has no `escalation list|describe`, whose refusals are
/// `E_NO_ESCALATED_TASKS` and `E_ESCALATION_TASK_NOT_FOUND`). The closest behaviour: `reset` on a
/// task the state file does not have is refused with `E_STATE` (the task named), and so is a
/// state file that is not a JSON object; nothing is written.
#[test]
fn a30_reset_on_an_unknown_task_is_a_state_error() {
    let env = TestEnv::new();
    let p = project(&env, CONTRACT, STATE);
    let before = snapshot(env.path());
    let doc = refusal(&reset(&env, &p, "T9", "gap", Some("ev"), "rem"));
    assert_eq!(doc["code"], "E_STATE");
    assert_eq!(doc["details"], json!({"task": "T9"}));
    assert!(doc["error"].as_str().unwrap().contains("T9"));
    assert_eq!(snapshot(env.path()), before);
    for state in ["[]", "{\"tasks\": ", "{\"tasks\": {\"T1\": \"verifying\"}}"] {
        write(&p.state, state);
        let before = snapshot(env.path());
        let doc = refusal(&reset(&env, &p, "T1", "gap", Some("ev"), "rem"));
        assert_eq!(doc["code"], "E_STATE", "{state}");
        assert_eq!(snapshot(env.path()), before, "{state}");
    }
}
