//! The fixtures every lesson test shares: the ledger and index paths, lessons, the reset loop's
//! project.

use crate::common::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `git ucg lesson` in the scratch directory (also the HOME).
pub(super) fn cmd(env: &TestEnv) -> Command {
    let mut command = env.ucg(env.path());
    command.arg("lesson");
    command
}

pub(super) fn run(env: &TestEnv, args: &[&str]) -> Output {
    cmd(env).args(args).output().expect("run git ucg lesson")
}

pub(super) fn ledger_path(env: &TestEnv) -> PathBuf {
    env.path().join(".anvil/ledger.jsonl")
}

pub(super) fn index_path(env: &TestEnv) -> PathBuf {
    env.path().join(".anvil/ledger.index.json")
}

pub(super) fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

pub(super) fn read_text(path: &Path) -> String {
    String::from_utf8(read(path)).expect("utf-8")
}

/// A valid lesson.
pub(super) fn lesson(id: &str, created: &str, gap: &str, pattern: &[&str]) -> Value {
    json!({
        "anvil_ledger_entry_version": 1, "id": id, "created": created,
        "contract_gap": gap, "evidence": format!("evidence for {id}"),
        "remediation": format!("remediation for {id}"), "pattern": pattern,
    })
}

/// Compact JSON lines, as DG-Anvil (`JSON.stringify`) and git-ucg write them.
pub(super) fn jsonl(values: &[Value]) -> String {
    values.iter().map(|v| format!("{v}\n")).collect()
}

/// The one JSON document a successful command prints (exit 0).
pub(super) fn ok_json(out: &Output) -> Value {
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
pub(super) fn refusal(out: &Output) -> Value {
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
pub(super) fn append(env: &TestEnv, values: &[Value]) -> Vec<String> {
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
pub(super) fn append_text(env: &TestEnv, text: &[u8]) -> Output {
    let file = env.path().join("input.jsonl");
    std::fs::write(&file, text).unwrap();
    run(env, &["append", "--file", file.to_str().unwrap()])
}

/// Every line of a ledger, parsed (all must parse).
pub(super) fn parsed_lines(path: &Path) -> Vec<Value> {
    read_text(path)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}")))
        .collect()
}

pub(super) fn audit(env: &TestEnv) -> (Value, i32) {
    let out = run(env, &["audit", "--json"]);
    let doc: Value = serde_json::from_str(stdout(&out).trim())
        .unwrap_or_else(|e| panic!("audit --json: {e}: {}{}", stdout(&out), stderr(&out)));
    (doc, out.status.code().unwrap())
}

pub(super) fn assert_audit_ok(env: &TestEnv) {
    let (doc, code) = audit(env);
    assert_eq!(doc["ok"], true, "{doc}");
    assert_eq!(code, 0);
}

pub(super) fn issue_kinds(doc: &Value) -> Vec<String> {
    doc["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["issue"].as_str().unwrap().to_string())
        .collect()
}

/// `query … --json`: the lessons it returns.
pub(super) fn query(env: &TestEnv, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["query"];
    all.extend_from_slice(args);
    all.push("--json");
    let out = run(env, &all);
    ok_json(&out).as_array().expect("a JSON array").clone()
}

pub(super) fn ids(lessons: &[Value]) -> Vec<&str> {
    lessons.iter().map(|l| l["id"].as_str().unwrap()).collect()
}

pub(super) fn index(env: &TestEnv) -> Value {
    serde_json::from_slice(&read(&index_path(env))).expect("the index is JSON")
}

/// Today's UTC date, as lesson ids and `created` carry it.
pub(super) fn utc_today() -> String {
    jiff::Timestamp::now().strftime("%Y-%m-%d").to_string()
}

pub(super) fn id_format() -> regex::Regex {
    regex::Regex::new(r"^L-\d{4}-\d{2}-\d{2}-[0-9a-f]{8}$").unwrap()
}

/// A contract for `retro`, as DG-Anvil's loader wants it: YAML front matter with two criteria,
/// each with its four levels. `RETRO_CONTRACT_END` closes it.
pub(super) const RETRO_CONTRACT_HEAD: &str = "\
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

pub(super) const RETRO_CONTRACT_END: &str = "---\n# Contract\n";

pub(super) const RETRO_CONTRACT: &str = concat!(
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

pub(super) fn retro_contract(env: &TestEnv) -> PathBuf {
    let path = env.path().join("project/anvil/contract.yml");
    write(&path, RETRO_CONTRACT);
    path
}

/// `retro --contract <contract> --criterion C1 --gap-note <gap>` (plus `extra`).
pub(super) fn retro(env: &TestEnv, contract: &Path, gap: &str, extra: &[&str]) -> Output {
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
pub(super) fn retro_ok(env: &TestEnv, ledger: &Path, contract: &Path, gap: &str) -> Value {
    let out = retro(env, contract, gap, &["--ledger", ledger.to_str().unwrap()]);
    let doc = ok_json(&out);
    let text = read_text(ledger);
    let entry: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(doc["lesson"]["id"], entry["id"]);
    entry
}

/// Every file under HOME with its bytes, but the input file `append_text` rewrites.
pub(super) fn files(env: &TestEnv) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = snapshot(env.path());
    files.retain(|(p, _)| !p.ends_with("input.jsonl"));
    files
}

/// Seeds a ledger file directly (as another tool or an older run left it).
pub(super) fn seed(path: &Path, values: &[Value]) {
    write(path, &jsonl(values));
}

// ---------------------------------------------------------------------------------------------
// The reset loop's project: Anvil's state file and a contract (YAML front matter + Markdown).

pub(super) const CONTRACT: &str = "\
---
anvil_contract_version: 1
goal: \"Rate-limit the public API\"
created: \"2026-04-15\"
source_intent: \"add a rolling-window rate limit to the public API\"
criteria:
  - id: C1
    statement: \"Counters reset after the window expires, observably.\"
    exists:
      paths:
        - \"src/ratelimit.js\"
    substantive:
      coverage_min: 0.8
    wired:
      entry_point: \"src/server.js\"
    functional:
      expected: \"the counter reads zero after the window\"
  - id: C2
    statement: \"The limit is read from configuration.\"
    exists:
      paths:
        - \"src/config.js\"
    substantive:
      coverage_min: 0.8
    wired:
      entry_point: \"src/server.js\"
    functional:
      expected: \"a configured limit applies\"
counter_examples:
  L-2026-04-15-fixture: \"Rolling-window reset must be observable: read the counter after the window.\"
invariants:
  no_new_dependencies: true
---
# Rate limit

The prose of the contract stays exactly as it is.
counter_examples: this line is Markdown, not YAML
";

/// A contract for `reset` whose front matter ends with `tail` (lines of its own, each ending in
/// a newline): the head of [`RETRO_CONTRACT_HEAD`], then `tail`, then the closing `---`.
pub(super) fn contract_ending(tail: &str) -> String {
    format!("{RETRO_CONTRACT_HEAD}{tail}---\n")
}

pub(super) const STATE: &str = r#"{"anvil_state_version": 1, "run_id": "r-11223344", "tasks": {"T1": {"status": "verifying", "worktree": "wt/T1", "loop_cap": 3}, "T2": {"status": "queued"}}, "notes": ["kept"]}"#;

pub(super) struct Project {
    pub(super) state: PathBuf,
    pub(super) contract: PathBuf,
}

pub(super) fn project(env: &TestEnv, contract: &str, state: &str) -> Project {
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
pub(super) fn reset(
    env: &TestEnv,
    p: &Project,
    task: &str,
    gap: &str,
    evidence: Option<&str>,
    remediation: &str,
) -> Output {
    let mut args = vec![
        "reset",
        "--json",
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

pub(super) fn task_state(p: &Project, task: &str) -> Value {
    let state: Value = serde_json::from_slice(&read(&p.state)).unwrap();
    state["tasks"][task].clone()
}

/// The contract's counter_examples, in order, read as DG-Anvil's YAML subset reads them (written
/// here from its rules, as an oracle independent of git-ucg's reader): a quoted scalar is its text
/// between the quotes, taken literally (no escapes); `|` and `>` take the more indented lines
/// after it, cut at the entry's indentation plus two, joined by newlines, trailing white space dropped.
pub(super) fn counter_examples(text: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let open = lines
        .iter()
        .position(|l| *l == "---")
        .expect("front matter");
    let close = open
        + 1
        + lines[open + 1..]
            .iter()
            .position(|l| *l == "---")
            .expect("its end");
    let front = &lines[open + 1..close];
    let key = front
        .iter()
        .position(|l| *l == "counter_examples:")
        .expect("counter_examples");
    let indent = |l: &str| l.len() - l.trim_start_matches(' ').len();
    let unquote = |s: &str| {
        let quoted = s.len() >= 2
            && ((s.starts_with('"') && s.ends_with('"'))
                || (s.starts_with('\'') && s.ends_with('\'')));
        if quoted {
            s[1..s.len() - 1].to_string()
        } else {
            s.to_string()
        }
    };
    let mut entries = Vec::new();
    let mut i = key + 1;
    let Some(pad) = front.get(i).map(|l| indent(l)).filter(|p| *p > 0) else {
        return entries;
    };
    while i < front.len() && (front[i].trim().is_empty() || indent(front[i]) >= pad) {
        let line = front[i];
        i += 1;
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let (k, v) = line.trim().split_once(':').expect("an entry");
        let v = v.trim();
        let value = if v == "|" || v == ">" {
            let mut parts = Vec::new();
            while i < front.len() && (front[i].trim().is_empty() || indent(front[i]) > pad) {
                parts.push(front[i].get(pad + 2..).unwrap_or(""));
                i += 1;
            }
            parts.join("\n").trim_end().to_string()
        } else {
            unquote(v)
        };
        entries.push((unquote(k.trim()), value));
    }
    entries
}

/// `new` is `old` with whole lines inserted: their positions (0-based, in `new`) and text.
pub(super) fn inserted_lines(old: &str, new: &str) -> Vec<(usize, String)> {
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
pub(super) struct Jitter(pub(super) u64);

impl Jitter {
    pub(super) fn next_below(&mut self, bound: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % bound.max(1)
    }
}

/// The reference's test pair: the old gap has 8 tokens, the new one adds "the" and "fully".
pub(super) const OLD_GAP: &str = "Astro Tailwind contracts must enumerate shadcn palette tokens";
pub(super) const NEW_GAP: &str =
    "Astro Tailwind contracts must enumerate the shadcn palette tokens fully";
