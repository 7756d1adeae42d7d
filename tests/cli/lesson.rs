//! `git ucg lesson`: DG-Anvil's lesson ledger (docs/formats/lesson.md) driven through the
//! real binary with a temporary HOME. One test per behaviour A1–A30 of B.10 (named after it),
//! where B.11 — or B.3/B.8/B.9, which describe the reference's hazards — records a defect of the
//! reference the test checks git-ucg's fixed behaviour and says so; then the issue's acceptance:
//! golden Jaccard cases, the reset loop end to end, append-only and atomicity (SIGKILL, eight
//! concurrent writers, torn tails) and bad input.

use crate::common::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------------------------
// Helpers

/// `git ucg lesson` in the scratch directory (also the HOME).
fn cmd(env: &TestEnv) -> Command {
    let mut command = env.ucg(env.path());
    command.arg("lesson");
    command
}

fn run(env: &TestEnv, args: &[&str]) -> Output {
    cmd(env).args(args).output().expect("run git ucg lesson")
}

fn ledger_path(env: &TestEnv) -> PathBuf {
    env.path().join(".anvil/ledger.jsonl")
}

fn index_path(env: &TestEnv) -> PathBuf {
    env.path().join(".anvil/ledger.index.json")
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

fn read_text(path: &Path) -> String {
    String::from_utf8(read(path)).expect("utf-8")
}

/// A valid lesson.
fn lesson(id: &str, created: &str, gap: &str, pattern: &[&str]) -> Value {
    json!({
        "anvil_ledger_entry_version": 1, "id": id, "created": created,
        "contract_gap": gap, "evidence": format!("evidence for {id}"),
        "remediation": format!("remediation for {id}"), "pattern": pattern,
    })
}

/// Compact JSON lines, as DG-Anvil (`JSON.stringify`) and git-ucg write them.
fn jsonl(values: &[Value]) -> String {
    values.iter().map(|v| format!("{v}\n")).collect()
}

/// The one JSON document a successful command prints (exit 0).
fn ok_json(out: &Output) -> Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {}\nstderr: {}",
        stdout(out),
        stderr(out)
    );
    let text = stdout(out);
    assert_eq!(text.lines().count(), 1, "one line on stdout: {text:?}");
    serde_json::from_str(text.trim()).expect("stdout is JSON")
}

/// A refusal: exit 1, nothing on stdout, and `{"error", "code", "details"}` as the last line of
/// stderr (any warnings come before it).
fn refusal(out: &Output) -> Value {
    assert_eq!(
        out.status.code(),
        Some(1),
        "stdout: {}\nstderr: {}",
        stdout(out),
        stderr(out)
    );
    assert_eq!(stdout(out), "", "a refusal prints nothing on stdout");
    let text = stderr(out);
    let last = text.lines().last().expect("a line on stderr");
    let doc: Value = serde_json::from_str(last).expect("the refusal is one JSON line");
    let keys = object_keys(&doc);
    assert_eq!(keys, ["error", "code", "details"], "{doc}");
    assert!(
        doc["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{doc}"
    );
    doc
}

/// Appends lessons through the CLI (`--file -`), insisting it succeeds; the ids it reports.
fn append(env: &TestEnv, values: &[Value]) -> Vec<String> {
    let out = output_with_stdin(
        cmd(env).args(["append", "--file", "-"]),
        jsonl(values).as_bytes(),
    );
    let doc = ok_json(&out);
    assert_eq!(doc["ok"], true);
    doc["appended"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// `append --file <file>` of this text (written beside HOME's files).
fn append_text(env: &TestEnv, text: &[u8]) -> Output {
    let file = env.path().join("input.jsonl");
    std::fs::write(&file, text).unwrap();
    run(env, &["append", "--file", file.to_str().unwrap()])
}

/// Every line of a ledger, parsed (all must parse).
fn parsed_lines(path: &Path) -> Vec<Value> {
    read_text(path)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}")))
        .collect()
}

fn audit(env: &TestEnv) -> (Value, i32) {
    let out = run(env, &["audit", "--json"]);
    let doc: Value = serde_json::from_str(stdout(&out).trim())
        .unwrap_or_else(|e| panic!("audit --json: {e}: {}{}", stdout(&out), stderr(&out)));
    (doc, out.status.code().unwrap())
}

fn assert_audit_ok(env: &TestEnv) {
    let (doc, code) = audit(env);
    assert_eq!(doc["ok"], true, "{doc}");
    assert_eq!(code, 0);
}

fn issue_kinds(doc: &Value) -> Vec<String> {
    doc["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["issue"].as_str().unwrap().to_string())
        .collect()
}

/// `query … --json`: the lessons it returns.
fn query(env: &TestEnv, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["query"];
    all.extend_from_slice(args);
    all.push("--json");
    let out = run(env, &all);
    ok_json(&out).as_array().expect("a JSON array").clone()
}

fn ids(lessons: &[Value]) -> Vec<&str> {
    lessons.iter().map(|l| l["id"].as_str().unwrap()).collect()
}

fn index(env: &TestEnv) -> Value {
    serde_json::from_slice(&read(&index_path(env))).expect("the index is JSON")
}

/// Today's UTC date, as lesson ids and `created` carry it.
fn utc_today() -> String {
    jiff::Timestamp::now().strftime("%Y-%m-%d").to_string()
}

fn id_format() -> regex::Regex {
    regex::Regex::new(r"^L-\d{4}-\d{2}-\d{2}-[0-9a-f]{8}$").unwrap()
}

/// A contract for `retro`, as DG-Anvil's loader wants it: YAML front matter with two criteria,
/// each with its four levels. `RETRO_CONTRACT_END` closes it.
const RETRO_CONTRACT_HEAD: &str = "\
---
anvil_contract_version: 1
goal: \"Ship the Astro site with the full palette\"
created: \"2026-04-10\"
source_intent: \"Fix the Tailwind shadcn palette in the Astro build\"
criteria:
  - id: C1
    statement: \"Tailwind config enumerates the full shadcn color palette.\"
    exists:
      paths:
        - \"src/tailwind.config.js\"
    substantive:
      coverage_min: 0.8
    wired:
      entry_point: \"src/app.js\"
    functional:
      expected: \"ok\"
  - id: C2
    statement: \"The build passes without missing-class errors.\"
    exists:
      paths:
        - \"src/tailwind.config.js\"
    substantive:
      coverage_min: 0.8
    wired:
      entry_point: \"src/app.js\"
    functional:
      expected: \"ok\"
";

const RETRO_CONTRACT_END: &str = "---\n# Contract\n";

const RETRO_CONTRACT: &str = concat!(
    "---\n",
    "anvil_contract_version: 1\n",
    "goal: \"Ship the Astro site with the full palette\"\n",
    "created: \"2026-04-10\"\n",
    "source_intent: \"Fix the Tailwind shadcn palette in the Astro build\"\n",
    "criteria:\n",
    "  - id: C1\n",
    "    statement: \"Tailwind config enumerates the full shadcn color palette.\"\n",
    "    exists:\n      paths:\n        - \"src/tailwind.config.js\"\n",
    "    substantive:\n      coverage_min: 0.8\n",
    "    wired:\n      entry_point: \"src/app.js\"\n",
    "    functional:\n      expected: \"ok\"\n",
    "  - id: C2\n",
    "    statement: \"The build passes without missing-class errors.\"\n",
    "    exists:\n      paths:\n        - \"src/tailwind.config.js\"\n",
    "    substantive:\n      coverage_min: 0.8\n",
    "    wired:\n      entry_point: \"src/app.js\"\n",
    "    functional:\n      expected: \"ok\"\n",
    "---\n# Contract\n",
);

fn retro_contract(env: &TestEnv) -> PathBuf {
    let path = env.path().join("project/anvil/contract.yml");
    write(&path, RETRO_CONTRACT);
    path
}

/// `retro --contract <contract> --criterion C1 --gap-note <gap>` (plus `extra`).
fn retro(env: &TestEnv, contract: &Path, gap: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "retro",
        "--contract",
        contract.to_str().unwrap(),
        "--criterion",
        "C1",
        "--gap-note",
        gap,
    ];
    args.extend_from_slice(extra);
    run(env, &args)
}

/// The lesson a successful `retro` wrote (the ledger's last line), and its id.
fn retro_ok(env: &TestEnv, ledger: &Path, contract: &Path, gap: &str) -> Value {
    let out = retro(env, contract, gap, &["--ledger", ledger.to_str().unwrap()]);
    let doc = ok_json(&out);
    let text = read_text(ledger);
    let entry: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(doc["lesson"]["id"], entry["id"]);
    entry
}

/// Every file under HOME with its bytes, but the input file `append_text` rewrites.
fn files(env: &TestEnv) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = snapshot(env.path());
    files.retain(|(p, _)| !p.ends_with("input.jsonl"));
    files
}

/// Seeds a ledger file directly (as another tool or an older run left it).
fn seed(path: &Path, values: &[Value]) {
    write(path, &jsonl(values));
}

// ---------------------------------------------------------------------------------------------
// The reset loop's project: Anvil's state file and a contract (YAML front matter + Markdown).

const CONTRACT: &str = "\
---
anvil_contract_version: 1
id: contract-rate-limit
goal: \"Rate-limit the public API\"
created: \"2026-04-15\"
source_intent: \"add a rolling-window rate limit to the public API\"
criteria:
  - id: C1
    statement: \"Counters reset after the window expires, observably.\"
  - id: C2
    statement: \"The limit is read from configuration.\"
counter_examples:
  L-2026-04-15-fixture: \"Rolling-window reset must be observable: read the counter after the window.\"
invariants:
  no_new_dependencies: true
---
# Rate limit

The prose of the contract stays exactly as it is.
counter_examples: this line is Markdown, not YAML
";

const STATE: &str = r#"{"anvil_state_version": 1, "run_id": "r-11223344", "tasks": {"T1": {"status": "verifying", "worktree": "wt/T1", "loop_cap": 3}, "T2": {"status": "queued"}}, "notes": ["kept"]}"#;

struct Project {
    state: PathBuf,
    contract: PathBuf,
}

fn project(env: &TestEnv, contract: &str, state: &str) -> Project {
    let dir = env.path().join("project/anvil");
    let project = Project {
        state: dir.join("state.json"),
        contract: dir.join("contract.md"),
    };
    write(&project.state, state);
    write(&project.contract, contract);
    project
}

/// `reset --task <task> …`; `evidence` None leaves the flag out.
fn reset(
    env: &TestEnv,
    p: &Project,
    task: &str,
    gap: &str,
    evidence: Option<&str>,
    remediation: &str,
) -> Output {
    let mut args = vec![
        "reset",
        "--task",
        task,
        "--state",
        p.state.to_str().unwrap(),
        "--contract",
        p.contract.to_str().unwrap(),
        "--gap",
        gap,
        "--remediation",
        remediation,
    ];
    if let Some(evidence) = evidence {
        args.extend_from_slice(&["--evidence", evidence]);
    }
    run(env, &args)
}

fn task_state(p: &Project, task: &str) -> Value {
    let state: Value = serde_json::from_slice(&read(&p.state)).unwrap();
    state["tasks"][task].clone()
}

/// The YAML front matter of a contract, parsed.
fn front_matter(text: &str) -> yaml_rust2::Yaml {
    let body = text.strip_prefix("---\n").unwrap_or(text);
    let yaml = match body.find("\n---\n") {
        Some(end) => &body[..=end],
        None => body,
    };
    yaml_rust2::YamlLoader::load_from_str(yaml)
        .expect("front matter parses")
        .remove(0)
}

/// The contract's counter_examples, in order.
fn counter_examples(text: &str) -> Vec<(String, String)> {
    let doc = front_matter(text);
    doc["counter_examples"]
        .as_hash()
        .expect("counter_examples is a map")
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().unwrap().to_string(),
                v.as_str().expect("a string").to_string(),
            )
        })
        .collect()
}

/// `new` is `old` with whole lines inserted: their positions (0-based, in `new`) and text.
fn inserted_lines(old: &str, new: &str) -> Vec<(usize, String)> {
    let old: Vec<&str> = old.split_inclusive('\n').collect();
    let mut next = 0;
    let mut inserted = Vec::new();
    for (at, line) in new.split_inclusive('\n').enumerate() {
        if next < old.len() && old[next] == line {
            next += 1;
        } else {
            inserted.push((at, line.to_string()));
        }
    }
    assert_eq!(
        next,
        old.len(),
        "the old text is not kept line for line:\n{new}"
    );
    inserted
}

/// A small deterministic pseudo-random sequence for kill timing.
struct Jitter(u64);

impl Jitter {
    fn next_below(&mut self, bound: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % bound.max(1)
    }
}

// ---------------------------------------------------------------------------------------------
// B.10 A1–A30

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

/// The reference's test pair: the old gap has 8 tokens, the new one adds "the" and "fully".
const OLD_GAP: &str = "Astro Tailwind contracts must enumerate shadcn palette tokens";
const NEW_GAP: &str = "Astro Tailwind contracts must enumerate the shadcn palette tokens fully";

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
    for value in ["5", "true", "\n    nested: text", "[a, b]", "~"] {
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

// ---------------------------------------------------------------------------------------------
// Acceptance: golden Jaccard cases (through `retro`'s supersession, the only place git-ucg
// computes Jaccard).

/// Golden Jaccard cases: 0.75 supersedes; the 8/10 pair is 0.8 (≥ 0.7; 8/11 still is, 8/12 is
/// not); non-ASCII letters separate tokens (café → caf); two empty token sets are identical (1).
#[test]
fn golden_jaccard_cases() {
    let env = TestEnv::new();
    let contract = retro_contract(&env);
    let case = |name: &str, old: &str, new: &str| -> Option<Value> {
        let ledger = env.path().join(format!("{name}.jsonl"));
        seed(&ledger, &[lesson("L-old", "2026-01-01", old, &[])]);
        let entry = retro_ok(&env, &ledger, &contract, new);
        entry.get("supersedes").cloned()
    };
    let old = Some(json!(["L-old"]));
    // 3/4.
    assert_eq!(
        case(
            "075",
            "astro tailwind shadcn",
            "astro tailwind shadcn colors"
        ),
        old
    );
    // 8/10; 8/11 ≈ 0.727 still supersedes, 8/12 does not.
    assert_eq!(case("080", OLD_GAP, NEW_GAP), old);
    assert_eq!(case("073", OLD_GAP, &format!("{NEW_GAP} now")), old);
    assert_eq!(case("067", OLD_GAP, &format!("{NEW_GAP} right now")), None);
    // café → caf; crème → cr, me; brûlée → br, l, e: identical token sets. Were é a letter,
    // these would share nothing.
    assert_eq!(case("cafe", "Café crème brûlée", "caf cr me br l e"), old);
    // …and "cafe" is a token "caf" never matches.
    assert_eq!(case("cafe2", "café", "cafe"), None);
    // Both empty: 1 (a gap of punctuation and non-ASCII only is still a non-blank gap).
    assert_eq!(case("empty", "— ¡¿ —", "«…»"), old);
    // Digits are tokens; case does not matter.
    assert_eq!(case("digits", "HTTP 429 retry", "http 429 RETRY"), old);
    assert_eq!(case("digits2", "http 429 retry", "http 503 retry"), None);
}

// ---------------------------------------------------------------------------------------------
// Acceptance: the reset loop end to end.

/// Reset loop: three failing verifies with lessons → loop_count 1, 2, 3, each lesson appended
/// (task id, contract id, last_lesson_id) and added to the contract's counter_examples — the
/// contract byte-identical except those three lines; the fourth → escalated, nothing appended,
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
        assert_eq!(entry["source_contract_id"], "contract-rate-limit");
        assert_eq!(entry["remediation"], *remediation);
        assert_eq!(
            entry["evidence"],
            format!("verify {n}: C1 substantive failed")
        );
        lesson_ids.push(id);
        assert_audit_ok(&env);
    }
    let contract = read_text(&p.contract);
    // Byte-identical but for three lines, added right after the existing entry, in order.
    let inserted = inserted_lines(CONTRACT, &contract);
    let fixture_line = CONTRACT
        .lines()
        .position(|l| l.starts_with("  L-2026-04-15-fixture:"))
        .unwrap();
    let positions: Vec<usize> = inserted.iter().map(|(at, _)| *at).collect();
    assert_eq!(
        positions,
        [fixture_line + 1, fixture_line + 2, fixture_line + 3]
    );
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

/// Reset: the contract edit in the shapes a contract takes — plain YAML, no counter_examples yet
/// (the map is added at the end of the YAML), an empty `counter_examples: {}`, entries indented
/// by four with blank and comment lines among them — each byte-identical except the lines added.
#[test]
fn reset_adds_counter_examples_to_any_block_shape() {
    let cases = [
        (
            "id: c\ncriteria:\n  - id: C1\n    statement: s\ninvariants: {}\n",
            "id: c\ncriteria:\n  - id: C1\n    statement: s\ninvariants: {}\ncounter_examples:\n  \"{ID}\": \"rem\"\n",
        ),
        (
            "---\nid: c\ncounter_examples: {}\nother: 1\n---\nBody\n",
            "---\nid: c\ncounter_examples:\n  \"{ID}\": \"rem\"\nother: 1\n---\nBody\n",
        ),
        (
            "id: c\ncounter_examples:\n    L-1: \"x\"\n\n    # why\n    L-2: y\n# a top-level comment\nother: 1\n",
            "id: c\ncounter_examples:\n    L-1: \"x\"\n\n    # why\n    L-2: y\n    \"{ID}\": \"rem\"\n# a top-level comment\nother: 1\n",
        ),
        (
            "id: c\ncounter_examples:\n  L-1: >\n    folded\n    text\nother: 1\n",
            "id: c\ncounter_examples:\n  L-1: >\n    folded\n    text\n  \"{ID}\": \"rem\"\nother: 1\n",
        ),
    ];
    for (before, after) in cases {
        let env = TestEnv::new();
        let p = project(&env, before, STATE);
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

/// BUG: a comment after the `counter_examples:` key is taken for flow style.
#[test]
fn reset_accepts_a_comment_after_the_counter_examples_key() {
    let env = TestEnv::new();
    let contract = "id: c\ncounter_examples: # lesson id -> text\n  L-1: \"x\"\nother: 1\n";
    let p = project(&env, contract, STATE);
    let doc = ok_json(&reset(&env, &p, "T1", "gap", Some("ev"), "rem"));
    let id = doc["id"].as_str().unwrap();
    assert_eq!(
        read_text(&p.contract),
        contract.replace(
            "  L-1: \"x\"\n",
            &format!("  L-1: \"x\"\n  \"{id}\": \"rem\"\n")
        )
    );
}

/// BUG (minor): a CRLF contract gets an LF line.
#[test]
fn reset_keeps_a_crlf_contracts_line_endings() {
    let env = TestEnv::new();
    let contract = "id: c\r\ncounter_examples:\r\n  L-1: \"x\"\r\nother: 1\r\n";
    let p = project(&env, contract, STATE);
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

// ---------------------------------------------------------------------------------------------
// Acceptance: append-only and atomicity.

/// The ledger only grows by whole lines: SIGKILL during `append --file` of 1,000 lessons (8 MB),
/// until 50 kills have landed mid-run — at random moments, and (every other round) the moment the
/// ledger starts to grow, to land inside the write. After each kill the old ledger is
/// intact, every complete new line is one of the batch's lessons, byte for byte and in order,
/// audit finds no malformed line and a valid index; a torn tail is reported by audit
/// (`torn_line`) and the next append reports it on stderr and cuts exactly the partial line.
#[test]
fn sigkill_during_1000_appends_leaves_whole_lines_or_a_repairable_torn_tail() {
    let env = TestEnv::new();
    let padding = "p".repeat(8_000);
    let batch: String = (0..1_000)
        .map(|i| {
            format!(
                "{}\n",
                json!({"anvil_ledger_entry_version": 1, "id": format!("L-batch-{i:04}"),
                    "created": "2026-03-01", "contract_gap": format!("gap {i}"),
                    "evidence": padding, "remediation": format!("remediation {i}"),
                    "pattern": [format!("p{}", i % 7), "batch"]})
            )
        })
        .collect();
    let big = env.path().join("big.jsonl");
    std::fs::write(&big, &batch).unwrap();
    append(
        &env,
        &[
            lesson("L-base-1", "2026-01-01", "g", &["base"]),
            lesson("L-base-2", "2026-01-02", "g", &["base"]),
        ],
    );
    let (base_ledger, base_index) = (read(&ledger_path(&env)), read(&index_path(&env)));
    let base_lines = 2;
    let restore = || {
        std::fs::write(ledger_path(&env), &base_ledger).unwrap();
        std::fs::write(index_path(&env), &base_index).unwrap();
    };
    let spawn = || {
        cmd(&env)
            .args(["append", "--file", big.to_str().unwrap()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let timed = || {
        restore();
        let started = Instant::now();
        assert!(spawn().wait().unwrap().success());
        started.elapsed()
    };
    let full_run = timed().min(timed());
    let mut expected = base_ledger.clone();
    expected.extend_from_slice(batch.as_bytes());
    assert_eq!(read(&ledger_path(&env)), expected);
    assert_audit_ok(&env);

    let mut jitter = Jitter(0x1e55);
    let mut window = full_run.as_micros() as u64;
    let (mut killed_mid_run, mut round, mut torn_tails, mut partial_batches) = (0, 0, 0, 0);
    while killed_mid_run < 50 {
        round += 1;
        assert!(
            round <= 600,
            "only {killed_mid_run} kills landed mid-run in 600 tries"
        );
        restore();
        let mut child = spawn();
        if round % 2 == 1 {
            std::thread::sleep(Duration::from_micros(jitter.next_below(window)));
            if child.try_wait().unwrap().is_none() {
                killed_mid_run += 1;
            } else {
                window = window * 4 / 5;
            }
        } else {
            // Every other round, the moment the write has begun (busy polling its length).
            loop {
                if child.try_wait().unwrap().is_some() {
                    break;
                }
                let len = std::fs::metadata(ledger_path(&env)).map_or(0, |m| m.len());
                if len != base_ledger.len() as u64 {
                    killed_mid_run += 1;
                    break;
                }
            }
        }
        let _ = child.kill();
        let _ = child.wait();

        let now = read(&ledger_path(&env));
        let added = now
            .strip_prefix(base_ledger.as_slice())
            .unwrap_or_else(|| panic!("round {round}: the old ledger is not intact"));
        assert!(
            batch.as_bytes().starts_with(added),
            "round {round}: the ledger gained bytes that are not the batch's lines in order"
        );
        let whole = added.iter().filter(|b| **b == b'\n').count();
        let complete = added.len() - added.iter().rev().take_while(|b| **b != b'\n').count();
        let partial = added.len() - complete;
        if whole > 0 && whole < 1_000 {
            partial_batches += 1;
        }
        let (doc, _) = audit(&env);
        let kinds = issue_kinds(&doc);
        for kind in &kinds {
            assert!(
                kind == "torn_line" || kind == "index_desync_missing_from_index",
                "round {round}: {doc}"
            );
        }
        assert_eq!(
            doc["checked"]["lessons"],
            base_lines + whole,
            "round {round}"
        );
        if partial == 0 {
            assert!(!kinds.contains(&"torn_line".to_string()), "round {round}");
            continue;
        }
        torn_tails += 1;
        let torn: Vec<&Value> = doc["issues"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["issue"] == "torn_line")
            .collect();
        assert_eq!(torn.len(), 1, "round {round}: {doc}");
        assert_eq!(torn[0]["line"], base_lines + whole + 1, "round {round}");
        // The next append reports the torn tail and cuts exactly the partial line.
        let repair = lesson("L-repair", "2026-03-02", "g", &["repair"]);
        let out = output_with_stdin(
            cmd(&env).args(["append", "--file", "-"]),
            jsonl(std::slice::from_ref(&repair)).as_bytes(),
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "round {round}: {}",
            stderr(&out)
        );
        assert!(
            stderr(&out).contains(&format!("torn (no newline, {partial} bytes)")),
            "round {round}: {}",
            stderr(&out)
        );
        let mut repaired = now[..base_ledger.len() + complete].to_vec();
        repaired.extend_from_slice(format!("{repair}\n").as_bytes());
        assert_eq!(read(&ledger_path(&env)), repaired, "round {round}");
        let (doc, _) = audit(&env);
        assert!(
            !issue_kinds(&doc)
                .iter()
                .any(|k| k == "torn_line" || k == "invalid_json"),
            "round {round}: {doc}"
        );
    }
    eprintln!(
        "{round} rounds, {killed_mid_run} kills mid-run, {torn_tails} torn tails repaired, {partial_batches} partial batches"
    );
    // A last successful write leaves no temporary file of the index behind.
    restore();
    assert!(spawn().wait().unwrap().success());
    let leftovers: Vec<String> = std::fs::read_dir(env.path().join(".anvil"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("tmp"))
        .collect();
    assert_eq!(leftovers, Vec::<String>::new());
    assert_audit_ok(&env);
}

/// A torn tail, made deterministically (a crash that left half a line): audit reports
/// `torn_line` at its physical line, query skips it with a warning, and the next append cuts
/// exactly those bytes — reported with their count — before appending. A ledger that is nothing
/// but a partial line is cut to empty.
#[test]
fn torn_tail_is_reported_and_only_the_partial_line_is_cut() {
    let env = TestEnv::new();
    append(
        &env,
        &[
            lesson("L-1", "2026-01-01", "g", &["a"]),
            lesson("L-2", "2026-01-02", "g", &["a"]),
        ],
    );
    let clean = read(&ledger_path(&env));
    let partial = br#"{"anvil_ledger_entry_version":1,"id":"L-half","created":"2026-01-03","contract_gap":"g","evid"#;
    let mut torn = clean.clone();
    torn.extend_from_slice(partial);
    std::fs::write(ledger_path(&env), &torn).unwrap();
    let (doc, code) = audit(&env);
    assert_eq!(code, 1);
    assert_eq!(doc["issues"], json!([{"line": 3, "issue": "torn_line"}]));
    let out = run(&env, &["query", "a", "--json"]);
    assert_eq!(ids(ok_json(&out).as_array().unwrap()), ["L-2", "L-1"]);
    assert!(stderr(&out).contains(":3: torn"), "{}", stderr(&out));
    assert_eq!(read(&ledger_path(&env)), torn, "query repairs nothing");

    let out = append_text(
        &env,
        jsonl(&[lesson("L-3", "2026-01-03", "g", &["a"])]).as_bytes(),
    );
    assert_eq!(ok_json(&out)["appended"], json!(["L-3"]));
    assert!(
        stderr(&out).contains(&format!(
            "{}: its last line was torn (no newline, {} bytes): cut off before appending",
            ledger_path(&env).display(),
            partial.len()
        )),
        "{}",
        stderr(&out)
    );
    let mut expected = clean.clone();
    expected
        .extend_from_slice(format!("{}\n", lesson("L-3", "2026-01-03", "g", &["a"])).as_bytes());
    assert_eq!(read(&ledger_path(&env)), expected);
    assert_audit_ok(&env);

    // Nothing but a partial line.
    let alone = env.path().join("alone.jsonl");
    std::fs::write(&alone, partial).unwrap();
    let out = output_with_stdin(
        cmd(&env).args(["--ledger", alone.to_str().unwrap(), "append", "--file", "-"]),
        jsonl(&[lesson("L-9", "2026-01-09", "g", &[])]).as_bytes(),
    );
    ok_json(&out);
    assert!(stderr(&out).contains("torn"), "{}", stderr(&out));
    assert_eq!(
        read_text(&alone),
        format!("{}\n", lesson("L-9", "2026-01-09", "g", &[]))
    );
}

/// BUG: a complete lesson missing only its final newline is deleted.
#[test]
fn a_complete_last_line_without_newline_is_kept() {
    let env = TestEnv::new();
    let l1 = lesson("L-1", "2026-01-01", "g", &["a"]);
    let l2 = lesson("L-2", "2026-01-02", "g", &["a"]);
    write(&ledger_path(&env), &format!("{l1}\n{l2}"));
    assert_eq!(ids(&query(&env, &["a"])), ["L-2", "L-1"]);
    let l3 = lesson("L-3", "2026-01-03", "g", &["a"]);
    append(&env, std::slice::from_ref(&l3));
    assert_eq!(read_text(&ledger_path(&env)), jsonl(&[l1, l2, l3]));
}

/// Eight processes appending at once (20 runs of 5 lessons each, per process) lose nothing: all
/// 800 lessons are there once, every batch's lines are contiguous (one write under the lock),
/// every line parses, and the index matches the ledger exactly.
#[test]
fn concurrent_appends_from_8_processes_lose_nothing() {
    let env = TestEnv::new();
    let (processes, runs, per_run) = (8, 20, 5);
    for p in 0..processes {
        for r in 0..runs {
            let lessons: Vec<Value> = (0..per_run)
                .map(|i| {
                    lesson(
                        &format!("L-p{p}-r{r:02}-{i}"),
                        "2026-02-02",
                        "g",
                        &[&format!("proc{p}"), "shared"],
                    )
                })
                .collect();
            write(
                &env.path().join(format!("in/p{p}-r{r}.jsonl")),
                &jsonl(&lessons),
            );
        }
    }
    std::thread::scope(|scope| {
        for p in 0..processes {
            let env = &env;
            scope.spawn(move || {
                for r in 0..runs {
                    let file = env.path().join(format!("in/p{p}-r{r}.jsonl"));
                    let out = cmd(env)
                        .env("GIT_UCG_LOCK_TIMEOUT", "120")
                        .args(["append", "--file", file.to_str().unwrap()])
                        .output()
                        .unwrap();
                    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
                }
            });
        }
    });
    let lines = parsed_lines(&ledger_path(&env));
    assert_eq!(lines.len(), processes * runs * per_run);
    let got: Vec<String> = lines
        .iter()
        .map(|l| l["id"].as_str().unwrap().to_string())
        .collect();
    for batch in got.chunks(per_run) {
        let prefix = &batch[0][..batch[0].len() - 1];
        for (i, id) in batch.iter().enumerate() {
            assert_eq!(
                id,
                &format!("{prefix}{i}"),
                "batches interleaved: {batch:?}"
            );
        }
    }
    let mut sorted = got.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), got.len(), "an id appears twice");
    let idx = index(&env);
    let mut indexed: Vec<String> = idx["by_id"].as_object().unwrap().keys().cloned().collect();
    indexed.sort();
    assert_eq!(indexed, sorted);
    let shared: Vec<&str> = idx["by_pattern"]["shared"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(shared.len(), got.len());
    for p in 0..processes {
        let key = format!("proc{p}");
        let mine = idx["by_pattern"][&key].as_array().unwrap();
        assert_eq!(mine.len(), runs * per_run, "{key}");
        assert!(mine
            .iter()
            .all(|id| id.as_str().unwrap().starts_with(&format!("L-p{p}-"))));
    }
    assert_audit_ok(&env);
}

/// B.9 (reference defect, fixed): the reference's `append --file` stops at the first bad line but
/// keeps the earlier lines appended. git-ucg validates every line first: a bad line anywhere
/// refuses the whole file, naming its line (`details.line`, 1-based, blank lines counted), and
/// nothing is written. Blank lines and CRLF endings are fine.
#[test]
fn append_is_all_or_nothing_and_names_the_failing_line() {
    let env = TestEnv::new();
    append(&env, &[lesson("L-0", "2026-01-01", "g", &["a"])]);
    let before = (read(&ledger_path(&env)), read(&index_path(&env)));
    let good = jsonl(&[
        lesson("L-1", "2026-01-01", "g", &["a"]),
        lesson("L-2", "2026-01-01", "g", &["a"]),
    ]);
    let text = format!(
        "{good}\n{}\n",
        r#"{"anvil_ledger_entry_version":1,"id":"L-3","created":"d","contract_gap":"g","evidence":"","remediation":"r"}"#
    );
    let doc = refusal(&append_text(&env, text.as_bytes()));
    assert_eq!(doc["code"], "E_NULL_LESSON");
    assert_eq!(doc["details"]["line"], 4);
    assert_eq!((read(&ledger_path(&env)), read(&index_path(&env))), before);
    let doc = refusal(&append_text(&env, format!("{good}{{oops\n").as_bytes()));
    assert_eq!(doc["code"], "E_IO");
    assert_eq!(doc["details"]["line"], 3);
    assert_eq!((read(&ledger_path(&env)), read(&index_path(&env))), before);
    let out = append_text(
        &env,
        format!("\n{}\r\n\r\n", good.replace('\n', "\r\n")).as_bytes(),
    );
    assert_eq!(ok_json(&out)["appended"], json!(["L-1", "L-2"]));
    assert_eq!(parsed_lines(&ledger_path(&env)).len(), 3);
    // A missing input file is refused as Node reports it: the errno's name, the path.
    let doc = refusal(&run(&env, &["append", "--file", "no/such.jsonl"]));
    assert_eq!(doc["code"], "ENOENT");
    assert_eq!(
        doc["error"],
        "ENOENT: no such file or directory, open 'no/such.jsonl'"
    );
    assert_eq!(doc["details"], Value::Null);
}

/// B.8 (reference defect, fixed): a ledger line that is literally `null` crashes the reference's
/// audit. git-ucg reports it as an invalid lesson (no `id`), and judges every other line as the
/// reference does: a whitespace-only line is `invalid_json` and counted, an array has the wrong
/// version, an invalid lesson is not "seen" (so its index entry is reported). Line numbers are
/// physical and 1-based (the reference counts non-empty lines only).
#[test]
fn audit_reports_a_null_line_and_counts_physical_lines() {
    let env = TestEnv::new();
    let good = lesson("L-1", "2026-01-01", "g", &["a"]);
    let blank_gap = json!({"anvil_ledger_entry_version": 1, "id": "L-2", "created": "d",
        "contract_gap": "", "evidence": "e", "remediation": "r"});
    write(
        &ledger_path(&env),
        &format!("{good}\n\nnull\n   \n{{broken\n{blank_gap}\n[1]\n"),
    );
    write(
        &index_path(&env),
        r#"{"by_pattern":{},"by_id":{"L-1":{"created":"2026-01-01"},"L-2":{"created":"d"}}}"#,
    );
    let (doc, code) = audit(&env);
    assert_eq!(code, 1);
    assert_eq!(
        doc,
        json!({"ok": false, "issues": [
            {"line": 3, "issue": "E_INVALID_LESSON", "details": {"received": "object"}},
            {"line": 4, "issue": "invalid_json"},
            {"line": 5, "issue": "invalid_json"},
            {"line": 6, "id": "L-2", "issue": "E_NULL_LESSON", "details": {"field": "contract_gap", "value": ""}},
            {"line": 7, "issue": "E_INVALID_LESSON", "details": {"rule": "wrong_version"}},
            {"id": "L-2", "issue": "index_desync_missing_entry"},
        ], "checked": {"lessons": 6}})
    );
    let out = run(&env, &["audit"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("6 issue(s)"), "{}", stdout(&out));
}

// ---------------------------------------------------------------------------------------------
// Acceptance: bad input.

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

/// A contract whose `counter_examples` is not a map — a list, a string, a number, a block
/// sequence — is refused by reset with `E_INVALID_CONTRACT` (rule `counter_example_not_string`,
/// saying it must be a map of lesson id to text); nothing is written, the task not even escalated.
#[test]
fn counter_examples_not_a_map_is_refused_by_reset() {
    let env = TestEnv::new();
    for shape in ["[L-1, L-2]", "\"just text\"", "42", "\n- L-1\n- L-2"] {
        let contract = format!(
            "id: c\nsource_intent: \"x\"\ncriteria:\n  - id: C1\n    statement: s\ncounter_examples: {shape}\n"
        );
        let p = project(&env, &contract, STATE);
        let before = snapshot(env.path());
        let doc = refusal(&reset(&env, &p, "T1", "gap", Some("ev"), "rem"));
        assert_eq!(doc["code"], "E_INVALID_CONTRACT", "{shape}");
        assert_eq!(
            doc["details"]["rule"], "counter_example_not_string",
            "{shape}"
        );
        assert!(
            doc["error"].as_str().unwrap().contains("map"),
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

// ---------------------------------------------------------------------------------------------
// Differences from the reference (README, "Differences from the reference", lesson): one test per
// row that no test above covers. Everywhere else git-ucg behaves as DG-Anvil does, which the
// conformance cases (../shared/compat/lesson) check.

/// An index of `null` is no index yet (the reference throws on it after appending, leaving the
/// index stale); an index whose `by_pattern`/`by_id` is not an object, or whose key holds
/// something other than a list, is refused before the ledger is touched (the reference throws
/// after appending, or writes an index that lost the id).
#[test]
fn difference_an_index_the_reference_cannot_update() {
    let env = TestEnv::new();
    write(&index_path(&env), "null");
    append(&env, &[lesson("L-1", "2026-01-01", "g", &["a"])]);
    assert_eq!(
        read_text(&index_path(&env)),
        r#"{"by_pattern":{"a":["L-1"]},"by_id":{"L-1":{"created":"2026-01-01"}}}"#
    );
    for bad in [
        r#"{"by_pattern":"text","by_id":{}}"#,
        r#"{"by_pattern":{},"by_id":[1]}"#,
        r#"{"by_pattern":{"a":5},"by_id":{}}"#,
        r#"{"by_pattern":{"a":"other ids"},"by_id":{}}"#,
        "7",
    ] {
        write(&index_path(&env), bad);
        let before = files(&env);
        let doc = refusal(&append_text(
            &env,
            jsonl(&[lesson("L-2", "2026-01-02", "g", &["a"])]).as_bytes(),
        ));
        assert_eq!(doc["code"], "E_INDEX_DESYNC", "{bad}");
        assert_eq!(files(&env), before, "{bad}");
    }
    // A key holding a string that already contains the id: the reference's `includes` is true,
    // nothing to do, and the append goes through.
    write(
        &index_path(&env),
        r#"{"by_pattern":{"a":"has L-3 in it"},"by_id":{}}"#,
    );
    append(&env, &[lesson("L-3", "2026-01-03", "g", &["a"])]);
    assert_eq!(
        read_text(&index_path(&env)),
        r#"{"by_pattern":{"a":"has L-3 in it"},"by_id":{"L-3":{"created":"2026-01-03"}}}"#
    );
}

/// Pattern keys the reference finds on `Object.prototype` (`constructor`, `__proto__`,
/// `valueOf`…) make it throw after appending; an id `__proto__` is lost from its `by_id`. For
/// git-ucg they are keys like any other.
#[test]
fn difference_object_prototype_names_are_ordinary_keys() {
    let env = TestEnv::new();
    append(
        &env,
        &[
            lesson(
                "__proto__",
                "2026-01-01",
                "g",
                &["constructor", "__proto__", "valueOf"],
            ),
            lesson("L-2", "2026-01-02", "g", &["toString"]),
        ],
    );
    assert_eq!(
        read_text(&index_path(&env)),
        r#"{"by_pattern":{"constructor":["__proto__"],"__proto__":["__proto__"],"valueof":["__proto__"],"tostring":["L-2"]},"by_id":{"__proto__":{"created":"2026-01-01"},"L-2":{"created":"2026-01-02"}}}"#
    );
    assert_eq!(ids(&query(&env, &["constructor"])), ["__proto__"]);
    assert_audit_ok(&env);
}

/// `tags` that cannot be iterated (a number, `true`, an object), with no `pattern` list, make the
/// reference throw after appending; git-ucg indexes such a lesson under no key. A string `tags`
/// is iterated by character, as there.
#[test]
fn difference_tags_that_cannot_be_iterated_give_no_keys() {
    let env = TestEnv::new();
    let mut lessons = Vec::new();
    for (i, tags) in [json!(5), json!(true), json!({"a": 1}), json!("Ab")]
        .into_iter()
        .enumerate()
    {
        let mut l = lesson(&format!("L-{i}"), "2026-01-01", "g", &[]);
        l.as_object_mut().unwrap().remove("pattern");
        l["tags"] = tags;
        lessons.push(l);
    }
    append(&env, &lessons);
    assert_eq!(
        index(&env)["by_pattern"],
        json!({"a": ["L-3"], "b": ["L-3"]})
    );
}

/// A query reads no index: an unparseable one, which makes the reference's query fail with
/// `E_INVALID_JSON`, changes nothing.
#[test]
fn difference_query_ignores_the_index() {
    let env = TestEnv::new();
    append(&env, &[lesson("L-1", "2026-01-01", "g", &["rate"])]);
    write(&index_path(&env), "{not json");
    assert_eq!(ids(&query(&env, &["rate"])), ["L-1"]);
}

/// Equal scores are ordered by `created` with `localeCompare`; a `created` that is not a string
/// makes the reference's comparison throw. git-ucg compares `String(created)`.
#[test]
fn difference_a_created_that_is_not_a_string_is_compared_as_text() {
    let env = TestEnv::new();
    let mut numeric = lesson("L-num", "x", "g", &["tie"]);
    numeric["created"] = json!(2027);
    seed(
        &ledger_path(&env),
        &[
            numeric,
            lesson("L-a", "a", "g", &["tie"]),
            lesson("L-b", "B", "g", &["tie"]),
            lesson("L-e", "É", "g", &["tie"]),
        ],
    );
    // en-US collation: letters after digits, accents and case after the base letter.
    assert_eq!(ids(&query(&env, &["tie"])), ["L-e", "L-b", "L-a", "L-num"]);
}

/// A `null` line in the ledger makes the reference's `retroactive` throw (it reads the line's
/// `contract_gap`); git-ucg passes over it.
#[test]
fn difference_retro_passes_over_a_null_line() {
    let env = TestEnv::new();
    let old = lesson("L-old", "2026-01-01", OLD_GAP, &["astro"]);
    write(&ledger_path(&env), &format!("null\n{old}\n"));
    let contract = retro_contract(&env);
    let entry = retro_ok(&env, &ledger_path(&env), &contract, NEW_GAP);
    assert_eq!(entry["supersedes"], json!(["L-old"]));
}

/// The marker of a lesson whose `pattern` is not a list has no `pattern` (the reference writes
/// `[]`), so it is indexed under its tags: the index can find invalidations.
#[test]
fn difference_a_marker_carries_pattern_only_when_it_is_a_list() {
    let env = TestEnv::new();
    let mut bare = lesson("L-1", "2026-01-01", "g", &[]);
    bare["pattern"] = json!("rate limit");
    append(&env, &[bare, lesson("L-2", "2026-01-02", "g", &["cache"])]);
    for (id, want) in [("L-1", None), ("L-2", Some(json!(["cache"])))] {
        ok_json(&run(
            &env,
            &["invalidate", "--lesson", id, "--reason", "stale"],
        ));
        let marker = parsed_lines(&ledger_path(&env)).pop().unwrap();
        assert_eq!(marker.get("pattern").cloned(), want, "{id}");
    }
    let idx = index(&env);
    assert_eq!(
        idx["by_pattern"]["invalidation"].as_array().unwrap().len(),
        1
    );
    assert_eq!(idx["by_pattern"]["cache"].as_array().unwrap().len(), 2);
}

/// `--help` and `-h` print help (the reference refuses them as unknown flags); every other
/// unknown flag is refused as there.
#[test]
fn difference_help_flags_print_help() {
    let env = TestEnv::new();
    for args in [
        &["query", "rate", "--help"][..],
        &["retro", "-h"],
        &["append", "--help"],
    ] {
        let out = run(&env, args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(
            stdout(&out).contains("Usage: git ucg lesson"),
            "{args:?}: {}",
            stdout(&out)
        );
    }
    let doc = refusal(&run(&env, &["query", "rate", "--verbose"]));
    assert_eq!(doc["code"], "E_UNKNOWN_FLAG");
    assert_eq!(
        doc["details"],
        json!({"flag": "--verbose", "argv_index": 1})
    );
    let doc = refusal(&run(&env, &["invalidate", "--lesson", "L-1"]));
    assert_eq!(doc["code"], "E_MISSING_ARG");
    assert_eq!(doc["details"], json!({"flag": "--reason"}));
    let doc = refusal(&run(&env, &["nope"]));
    assert_eq!(doc["code"], "E_UNKNOWN_SUBCOMMAND");
    assert_eq!(
        doc["details"],
        json!({"subcommand": "ledger", "received": "nope"})
    );
}

/// A pattern value that is an object with its own `toString` key makes the reference's
/// `String(x)` throw; git-ucg writes `[object Object]` for every object.
#[test]
fn difference_an_object_with_its_own_tostring_is_an_object() {
    let env = TestEnv::new();
    let mut l = lesson("L-1", "2026-01-01", "g", &[]);
    l["pattern"] = json!([{"toString": 1}, "Rate"]);
    append(&env, &[l]);
    assert_eq!(
        index(&env)["by_pattern"],
        json!({"[object object]": ["L-1"], "rate": ["L-1"]})
    );
    assert_eq!(ids(&query(&env, &["object"])), ["L-1"]);
}

/// A `__proto__:` key in a contract's front matter would set the prototype of the reference's
/// parsed object (its keys then seem present); git-ucg leaves the key out.
#[test]
fn difference_a_proto_key_in_a_contract_is_left_out() {
    let env = TestEnv::new();
    let contract = env.path().join("contract.yml");
    write(
        &contract,
        &RETRO_CONTRACT.replace("goal: ", "__proto__:\n  x: 1\ngoal: "),
    );
    let entry = retro_ok(&env, &ledger_path(&env), &contract, "a gap");
    assert_eq!(entry["source_criterion_id"], "C1");
}

/// JSON nested deeper than 20,000 levels is malformed for git-ucg (the reference parses it, and
/// its `JSON.stringify` then overflows the stack): a query skips the line, an append refuses it.
#[test]
fn difference_json_nested_too_deep_is_malformed() {
    let env = TestEnv::new();
    let deep = format!("{}{}", "[".repeat(30_000), "]".repeat(30_000));
    let good = lesson("L-1", "2026-01-01", "g", &["rate"]);
    write(
        &ledger_path(&env),
        &format!("{{\"id\":\"L-0\",\"pattern\":[\"rate\"],\"x\":{deep}}}\n{good}\n"),
    );
    assert_eq!(ids(&query(&env, &["rate"])), ["L-1"]);
    let mut too_deep = lesson("L-2", "2026-01-02", "g", &["rate"]).to_string();
    too_deep.insert_str(1, &format!("\"x\":{deep},"));
    let doc = refusal(&append_text(&env, format!("{too_deep}\n").as_bytes()));
    assert_eq!(doc["code"], "E_IO");
    assert_eq!(doc["details"]["line"], 1);
}

/// Issue 16: a lesson append killed (SIGKILL) at any moment leaves the ledger as its old bytes
/// plus whole lines, and no reader hangs on a FIFO in the ledger's or the index's place.
#[test]
fn a_killed_append_leaves_whole_lines_and_fifos_do_not_hang() {
    let env = TestEnv::new();
    append(
        &env,
        &[lesson("L-0", "2026-01-01", "first gap", &["alpha"])],
    );
    let input = env.path().join("input.jsonl");
    for round in 0..20u64 {
        let before = read(&ledger_path(&env));
        let lines: Vec<Value> = (0..50)
            .map(|n| lesson(&format!("L-{round}-{n}"), "2026-01-02", "a gap", &["beta"]))
            .collect();
        std::fs::write(&input, jsonl(&lines)).unwrap();
        let mut child = cmd(&env)
            .args(["append", "--file", input.to_str().unwrap()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_micros(round * 600));
        let _ = child.kill();
        let _ = child.wait();
        let after = read(&ledger_path(&env));
        assert!(after.starts_with(&before), "round {round}: old bytes kept");
        let intended = jsonl(&lines);
        let added = &after[before.len()..];
        // Linux may stop a killed write() at a page boundary, so the batch can end in a torn
        // line: only ever a prefix of what was being appended, never anything else.
        assert!(
            intended.as_bytes().starts_with(added),
            "round {round}: only a prefix of the appended lines"
        );
        // The torn line is no lesson for a reader, and the next append cuts it off.
        assert!(
            run(&env, &["query", "beta"]).status.success(),
            "round {round}: query"
        );
        append(
            &env,
            &[lesson(
                &format!("L-{round}-next"),
                "2026-01-03",
                "next",
                &["beta"],
            )],
        );
        let healed = read(&ledger_path(&env));
        assert!(healed.starts_with(&before), "round {round}: old bytes kept");
        assert!(
            healed.ends_with(b"\n"),
            "round {round}: the torn tail is cut"
        );
        for line in String::from_utf8_lossy(&healed[before.len()..]).lines() {
            serde_json::from_str::<Value>(line).expect("a whole line");
        }
    }
    for which in [ledger_path, index_path] {
        let env = TestEnv::new();
        append(&env, &[lesson("L-0", "2026-01-01", "first gap", &["beta"])]);
        let path = which(&env);
        std::fs::remove_file(&path).unwrap();
        let status = Command::new("mkfifo").arg(&path).status().unwrap();
        assert!(status.success());
        for args in [&["query", "beta"][..], &["audit"]] {
            let mut child = cmd(&env)
                .args(args)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            let started = Instant::now();
            while child.try_wait().unwrap().is_none() {
                if started.elapsed() > Duration::from_secs(5) {
                    let _ = child.kill();
                    panic!("{args:?} hangs on a FIFO at {}", path.display());
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
}

/// Difference: a FIFO in place of the contract is refused at once (the reference waits on it).
#[test]
fn difference_a_fifo_contract_is_refused() {
    let env = TestEnv::new();
    let contract = env.path().join("contract.yml");
    let status = Command::new("mkfifo").arg(&contract).status().unwrap();
    assert!(status.success());
    let mut child = cmd(&env)
        .args([
            "retro",
            "--contract",
            contract.to_str().unwrap(),
            "--criterion",
            "C1",
            "--gap-note",
            "x",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(5) {
            let _ = child.kill();
            panic!("retro waits on a FIFO contract");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("a FIFO, not a regular file"),
        "{}",
        stderr(&out)
    );
}

/// The query index kept beside a large ledger (`.ledger.jsonl.git-ucg-query`): the first query
/// scans and keeps it, the next answers from it with the same output, warnings included. Any
/// write to the ledger makes it stale — an append as DG-Anvil makes it, a same-size edit in
/// place even with the modification time put back. Whatever stands in its place (a FIFO, a
/// symlink, garbage) is not believed, never waited on, and replaced, not written through. A small
/// ledger gets no index.
#[test]
fn query_keeps_an_index_of_a_large_ledger_while_the_ledger_is_unchanged() {
    use std::os::unix::fs::MetadataExt;
    let env = TestEnv::new();
    let kept = env.path().join(".anvil/.ledger.jsonl.git-ucg-query");
    append(&env, &[lesson("L-small", "2026-01-01", "g", &["rate"])]);
    assert_eq!(ids(&query(&env, &["rate"])), ["L-small"]);
    assert!(!kept.exists(), "no index for a small ledger");

    let mut text = String::new();
    for i in 0..4000 {
        let word = format!("w{}", i % 50);
        let date = format!("2026-01-{:02}", 1 + i % 28);
        let line = lesson(
            &format!("L-{i:05}"),
            &date,
            &"gap ".repeat(40),
            &[&word, "rate"],
        );
        text.push_str(&format!("{line}\n"));
        if i == 1000 {
            text.push_str("{oops\nnull\n");
        }
    }
    write(&ledger_path(&env), &text);
    let ask = || run(&env, &["query", "w7 rate", "--json"]);
    let shown = |out: &Output| (stdout(out), stderr(out));
    let first = ask();
    assert!(
        stderr(&first).contains(":1002: malformed line skipped"),
        "{}",
        stderr(&first)
    );
    assert!(
        stderr(&first).contains(":1003: a null line, skipped"),
        "{}",
        stderr(&first)
    );
    let ino = std::fs::metadata(&kept).expect("an index is kept").ino();
    let second = ask();
    assert_eq!(shown(&second), shown(&first));
    assert_eq!(
        std::fs::metadata(&kept).unwrap().ino(),
        ino,
        "answered from the index"
    );

    // An append as DG-Anvil makes it (no git-ucg involved).
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(ledger_path(&env))
        .unwrap();
    std::io::Write::write_all(
        &mut file,
        format!("{}\n", lesson("L-new", "2026-02-01", "g", &["w7", "rate"])).as_bytes(),
    )
    .unwrap();
    drop(file);
    let appended = ask();
    assert_eq!(ids(ok_json(&appended).as_array().unwrap())[0], "L-new");
    assert_ne!(std::fs::metadata(&kept).unwrap().ino(), ino, "rebuilt");

    // The same size, edited in place, its modification time put back.
    let before = std::fs::metadata(ledger_path(&env)).unwrap();
    let edited = read_text(&ledger_path(&env)).replace("\"id\":\"L-new\"", "\"id\":\"L-neW\"");
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(ledger_path(&env))
        .unwrap();
    std::io::Write::write_all(&mut &file, edited.as_bytes()).unwrap();
    file.set_modified(before.modified().unwrap()).unwrap();
    drop(file);
    let after = std::fs::metadata(ledger_path(&env)).unwrap();
    assert_eq!(
        (after.len(), after.ino(), after.mtime_nsec()),
        (before.len(), before.ino(), before.mtime_nsec())
    );
    assert_eq!(ids(ok_json(&ask()).as_array().unwrap())[0], "L-neW");
    let settled = shown(&ask());

    // Not an index: a FIFO, a symlink to something else, garbage.
    let decoy = env.path().join("decoy");
    write(&decoy, "not an index");
    for plant in ["fifo", "symlink", "garbage"] {
        std::fs::remove_file(&kept).unwrap();
        match plant {
            "fifo" => assert!(Command::new("mkfifo")
                .arg(&kept)
                .status()
                .unwrap()
                .success()),
            "symlink" => std::os::unix::fs::symlink(&decoy, &kept).unwrap(),
            _ => write(&kept, "git-ucg lessonq\nrest"),
        }
        let mut child = cmd(&env)
            .args(["query", "w7 rate", "--json"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > Duration::from_secs(10) {
                let _ = child.kill();
                panic!("query waits on a {plant} in the index's place");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(
            shown(&child.wait_with_output().unwrap()),
            settled,
            "{plant}"
        );
        assert!(
            std::fs::symlink_metadata(&kept).unwrap().is_file(),
            "{plant} replaced"
        );
        assert_eq!(read_text(&decoy), "not an index");
    }
}
