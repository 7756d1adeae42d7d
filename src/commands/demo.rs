//! `git ucg demo [DIR]`: a deterministic sample repository with a stopped UltraCode Goal run, so a
//! newcomer can try every command on something real. Commits have fixed authors and dates, so the
//! same version of git-ucg always builds the same hashes.

use crate::cli::DemoArgs;
use crate::context::Context;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use ucg_ultracode::reds;

const EPIC: &str = "7";
const EPIC_BRANCH: &str = "ultracode/epic-7";
const RUN_FOLDER: &str = "epic-7-20260604T172512Z";
const IMPL: &str = "_bmad-output/implementation-artifacts";
const STORIES: [&str; 3] = ["7-1", "7-2", "7-3"];

/// The commands the demo suggests, in order. Only commands that exist are listed; later commands
/// join this list as they are built.
const NEXT_COMMANDS: &[(&str, &str)] = &[
    ("git ucg pending", "the decisions the run waits on"),
    ("git ucg resolve", "answer them, one at a time"),
    ("git ucg hooks install", "then a commit waits for them too:"),
    (
        "git commit --allow-empty -m try",
        "refused, with the list and the way",
    ),
    ("git ucg gate", "the same decision, for CI"),
    ("git ucg resume", "where the run re-enters once answered"),
];

pub(crate) fn run(_ctx: &Context, args: &DemoArgs) -> Result<u8> {
    let dir = prepare_dir(args.dir.as_deref())?;
    build(&dir)?;
    seed_pursuit(&dir)?;
    // The run as `git ucg status` shows it, its header and pending count: the whole dashboard is
    // one command away, and the path and what to try stay on the screen.
    let impl_dir = dir.join(IMPL);
    let runs_root = dir.join("_bmad-output/ultracode-goal");
    let run_dir = runs_root.join(RUN_FOLDER);
    let report = ucg_ultracode::status::gather(
        &ucg_ultracode::status::StatusInputs {
            source: &ucg_git::ArtifactSource::WorkTree,
            project_root: &dir,
            impl_dir: &impl_dir,
            run_dir: Some(&run_dir),
            runs_root: &runs_root,
            deferred_work: &impl_dir.join("deferred-work.md"),
            now: jiff::Timestamp::now(),
        },
        None,
    );
    let style = crate::render::status_human::Style {
        color: false,
        width: u16::try_from(crate::output::columns()).unwrap_or(u16::MAX),
        full_ids: false,
    };
    let status = crate::render::status_human::render(&report, &style);
    crate::output::print_prose(&introduction(&dir, &status))?;
    crate::output::print_prose(&next_steps(&dir))?;
    Ok(0)
}

/// An ultragoal pursuit mid-way, in `<dir>/.omt` (session `demo`): planned, two stories
/// confirmed, pursuing, a review asking for changes — made by the `goal` command itself.
fn seed_pursuit(dir: &Path) -> Result<()> {
    let omt = dir.join(".omt");
    let stories = r#"[{"id":"S1","story":"A token bucket per client","acceptance_criteria":["bursts over 10 per second are refused"],"verification_surface":"probe: 200 requests in 2 s"},{"id":"S2","story":"429 with Retry-After","acceptance_criteria":["every 429 carries Retry-After"],"verification_surface":"curl -i"}]"#;
    let steps: [&[&str]; 5] = [
        &[
            "set",
            "--phase",
            "planning",
            "--outcome",
            "Rate limiting on the public API",
            "--verification-surface",
            "probe: 200 requests in 2 s are throttled",
        ],
        &["set-stories", "--json", stories],
        &["confirm-all-stories"],
        &["set", "--phase", "pursuing"],
        &["set-verdict", "--verdict", "REQUEST_CHANGES"],
    ];
    for step in steps {
        let mut args: Vec<std::ffi::OsString> = vec![
            "git-ucg".into(),
            "-C".into(),
            dir.as_os_str().into(),
            "goal".into(),
            "--session".into(),
            "demo".into(),
            "--omt-dir".into(),
            omt.as_os_str().into(),
        ];
        args.extend(step.iter().map(std::ffi::OsString::from));
        if crate::run(args) != 0 {
            return Err(crate::error::Error::new(format!(
                "the demo's ultragoal pursuit could not be made (goal {})",
                step.first().copied().unwrap_or_default()
            )));
        }
    }
    Ok(())
}

fn prepare_dir(requested: Option<&Path>) -> Result<PathBuf> {
    let dir = match requested {
        Some(dir) => {
            let occupied = std::fs::read_dir(dir)
                .map(|mut d| d.next().is_some())
                .unwrap_or(false);
            if occupied {
                return Err(
                    Error::new(format!("{} exists and is not empty", dir.display())).hint(
                        "give a new or empty directory, or none to use a fresh temporary one",
                    ),
                );
            }
            ucg_store::create_dirs(dir)
                .map_err(|e| Error::new(format!("cannot create {}: {e}", dir.display())))?;
            dir.to_path_buf()
        }
        None => ucg_store::new_kept_temp_dir("git-ucg-demo-")
            .map_err(|e| Error::new(format!("cannot create a temporary directory: {e}")))?,
    };
    Ok(std::path::absolute(&dir).unwrap_or(dir))
}

/// Builds the repository.
fn build(dir: &Path) -> Result<()> {
    let mut repo = DemoRepo { dir, commits: 0 };
    repo.git(&["init", "--quiet", "--initial-branch=main"])?;
    repo.write(
        "README.md",
        "# Tasklist\n\nA small task-list service, the subject of the git-ucg demo.\n",
    )?;
    repo.write("docs/prd.md", PRD)?;
    repo.write("src/app.py", "def main():\n    print(\"tasklist\")\n")?;
    repo.commit("Initial commit: task-list service skeleton")?;
    repo.git(&["checkout", "--quiet", "-b", EPIC_BRANCH])?;

    let mut markers = Vec::new();
    let story_commits: [&[(&str, &str, &str)]; 3] = [
        &[
            ("src/login.py", "def login(user, password):\n    return check(user, password)\n", "7-1: login form"),
            ("tests/test_login.py", "def test_login():\n    assert login(\"a\", \"b\") is not None\n", "7-1: login form tests"),
        ],
        &[(
            "src/session.py",
            "SESSION_TTL_DAYS = None  # undecided: see docs/prd.md\n\ndef open_session(user):\n    return {\"user\": user}\n",
            "7-2: sessions",
        )],
        &[(
            "src/payments.py",
            "def charge(amount):\n    raise NotImplementedError(\"provider undecided\")\n",
            "7-3: payment stub (stopped on its turn budget)",
        )],
    ];
    for (story, commits) in STORIES.iter().zip(story_commits) {
        let baseline = repo.head()?;
        for (path, text, message) in commits {
            repo.write(path, text)?;
            repo.commit(message)?;
        }
        markers.push((format!(".baseline-{story}"), format!("{baseline}\n")));
        if *story != "7-3" {
            markers.push((format!(".commit-{story}"), format!("{}\n", repo.head()?)));
        }
    }
    let baseline_7_3 = markers
        .iter()
        .find(|(name, _)| name == ".baseline-7-3")
        .map(|(_, sha)| sha.trim().to_string())
        .unwrap_or_default();

    for (name, text) in &markers {
        repo.write(&format!("{IMPL}/{name}"), text)?;
    }
    repo.write(&format!("{IMPL}/.current-story"), "7-3\n")?;
    repo.write(
        &format!("{IMPL}/.tests-ran-7-3"),
        &format!("suite green\nbaseline={baseline_7_3}\n"),
    )?;
    let registry = red_registry()?;
    repo.write(
        &format!("{IMPL}/{}", reds::REGISTRY_FILE),
        &registry.to_pretty_json(),
    )?;
    repo.write(&format!("{IMPL}/escalation-7-3.json"), ESCALATION_SIDECAR)?;
    repo.write(&format!("{IMPL}/.escalation-7-3.md"), ESCALATION_MARKER)?;
    repo.write(&format!("{IMPL}/.budget-7-3.json"), "{\"turns\": 26}")?;
    repo.write(&format!("{IMPL}/deferred-work.md"), DEFERRED_WORK)?;
    repo.write(&format!("{IMPL}/run-status.json"), HEARTBEAT)?;
    repo.write(&format!("{IMPL}/sprint-status.yaml"), SPRINT_STATUS)?;
    repo.write(
        &format!("_bmad-output/ultracode-goal/{RUN_FOLDER}/.decision-log.md"),
        DECISION_LOG,
    )?;
    write_sdlc_runs(&repo)?;
    write_anvil(&repo)?;

    Ok(())
}

/// An agentic-sdlc event line, as the pipeline writes them.
fn sdlc_event(
    ts: &str,
    event: &str,
    run_id: &str,
    phase: Option<u8>,
    summary: &str,
    data: serde_json::Value,
) -> String {
    let line = serde_json::json!({"schema": 1, "ts": ts, "event": event, "run_id": run_id, "phase": phase,
        "actor": "sdlc-engine", "summary": summary, "artifacts": [], "data": data});
    format!("{line}\n")
}

/// Phase `n` of a demo run starts on the half hour from 09:00; `minutes` later.
fn sdlc_time(day: &str, n: u8, minutes: u8) -> String {
    let start = 9 * 60 + u32::from(n) * 30 + u32::from(minutes);
    format!("{day}T{:02}:{:02}:00Z", start / 60, start % 60)
}

/// The phases of a run: `done` completed (with times), then `current` in `state`, the rest pending.
fn sdlc_phases(day: &str, done: u8, current: Option<(u8, &str)>) -> serde_json::Value {
    let mut phases = serde_json::Map::new();
    for n in 0..=12u8 {
        let phase = if n < done {
            serde_json::json!({"status": "completed", "started_at": sdlc_time(day, n, 0),
                "completed_at": sdlc_time(day, n, 20)})
        } else if let Some((_, state)) = current.filter(|(c, _)| *c == n) {
            serde_json::json!({"status": state, "started_at": sdlc_time(day, n, 0)})
        } else {
            serde_json::json!({"status": "pending"})
        };
        phases.insert(n.to_string(), phase);
    }
    serde_json::Value::Object(phases)
}

/// Three agentic-sdlc runs under docs/superpowers/runs: one completed, one left running long ago
/// (shown as interrupted), one whose snapshot lags its event log, with a work item whose ledger
/// is ahead of its Markdown.
fn write_sdlc_runs(repo: &DemoRepo) -> Result<()> {
    use serde_json::json;
    let runs = "docs/superpowers/runs";
    let pretty = |v: &serde_json::Value| {
        format!("{}\n", serde_json::to_string_pretty(v).unwrap_or_default())
    };
    // A phase's start (on the half hour) or end (20 minutes later).
    let phase_event = |run_id: &str, day: &str, n: u8, ended: bool| {
        let (event, minutes, what) = match ended {
            true => ("phase.completed", 20, "completed"),
            false => ("phase.started", 0, "started"),
        };
        let summary = format!("Phase {n} {what}");
        sdlc_event(
            &sdlc_time(day, n, minutes),
            event,
            run_id,
            Some(n),
            &summary,
            json!({}),
        )
    };
    let events = |run_id: &str, day: &str, upto: u8, open: Option<u8>| {
        let mut log = String::new();
        for n in 0..upto {
            log += &phase_event(run_id, day, n, false);
            log += &phase_event(run_id, day, n, true);
        }
        if let Some(n) = open {
            log += &phase_event(run_id, day, n, false);
        }
        log
    };
    let done = "20260601-0900-feat-csv-export";
    repo.write(&format!("{runs}/{done}/meta.json"), &pretty(&json!({
        "run_id": done, "mode": "autonomous", "started_at": "2026-06-01T09:00:00Z",
        "task_input": "Export the task list as CSV", "branch": "feat-csv-export", "current_phase": 12,
        "status": "completed", "phases": sdlc_phases("2026-06-01", 13, None)})))?;
    repo.write(
        &format!("{runs}/{done}/events.jsonl"),
        &events(done, "2026-06-01", 13, None),
    )?;
    repo.write(&format!("{runs}/{done}/requirements.md"), "# CSV export\n\nUsers download their tasks as CSV.\n\n- one row per task\n- RFC 4180 quoting\n")?;
    repo.write(&format!("{runs}/{done}/complexity.json"), "{\"score\":8,\"routing\":\"writing-plans\",\"source\":\"heuristic\",\"rationale\":\"single-file\"}\n")?;
    repo.write(&format!("{runs}/{done}/decisions.jsonl"), "{\"ts\":\"2026-06-01T10:10:00Z\",\"gate_id\":\"plan.approved\",\"mode\":\"autonomous\",\"verdict\":{\"decision\":\"approve\",\"rationale\":\"small change\",\"source\":\"deterministic\"},\"escalated\":false}\n")?;
    repo.write(
        &format!("{runs}/{done}/qa-report.md"),
        "# QA report\n\nAll gates green.\n",
    )?;

    let stuck = "20260603-1400-fix-login-timeout";
    repo.write(&format!("{runs}/{stuck}/meta.json"), &pretty(&json!({
        "run_id": stuck, "mode": "hitl", "started_at": "2026-06-03T09:00:00Z",
        "task_input": "Login times out after 30 s on slow networks", "branch": "fix-login-timeout",
        "current_phase": 7, "status": "running", "phases": sdlc_phases("2026-06-03", 7, Some((7, "running")))})))?;
    repo.write(
        &format!("{runs}/{stuck}/events.jsonl"),
        &events(stuck, "2026-06-03", 7, Some(7)),
    )?;

    let lagging = "20260604-1000-feat-rate-limit";
    let canonical = "docs/superpowers/work-items/PROJ-1234.md";
    repo.write(&format!("{runs}/{lagging}/meta.json"), &pretty(&json!({
        "run_id": lagging, "mode": "hitl", "started_at": "2026-06-04T09:00:00Z",
        "task_input": "Add rate limiting to the public API (PROJ-1234)", "branch": "feat-rate-limit",
        "work_item": {"canonical_path": canonical, "run_mirror": format!("{runs}/{lagging}/work-item.md"),
            "event_ledger": format!("{runs}/{lagging}/work-item-events.jsonl")},
        "current_phase": 4, "status": "running", "phases": sdlc_phases("2026-06-04", 4, Some((4, "running")))})))?;
    let mut log = events(lagging, "2026-06-04", 5, Some(5));
    log += &sdlc_event(
        "2026-06-04T11:40:00Z",
        "work_item.transitioned",
        lagging,
        None,
        "PROJ-1234 moved to In progress",
        json!({"work_item_id": "PROJ-1234", "to": "In progress"}),
    );
    repo.write(&format!("{runs}/{lagging}/events.jsonl"), &log)?;
    let item = "# Rate limiting for the public API\n\n**Status**: Approved\n**Assignee**: Ada Operator\n\
**Reporter**: Product\n**Branch**: feat-rate-limit\n**External Ticket**: PROJ-1234\n\
**Source Story/Task**: docs/prd.md\n\n## Acceptance Criteria\n- 429 after 100 requests a minute\n\n\
## Linked Artifacts\n- docs/superpowers/runs/20260604-1000-feat-rate-limit/design.md\n\n## History\n\
- 2026-06-04T09:05:00Z - created\n- 2026-06-04T10:45:00Z ticket-sync: PROJ-1234 → DEV (pending)\n";
    repo.write(canonical, item)?;
    repo.write(&format!("{runs}/{lagging}/work-item.md"), item)?;
    let receipt = "{\"schema\":1,\"ts\":\"2026-06-04T11:00:00Z\",\"event\":\"work_item.adapter_receipt\",\
\"run_id\":\"20260604-1000-feat-rate-limit\",\"phase\":null,\"actor\":\"ticket-sync\",\"summary\":\
\"ticket-sync: PROJ-1234 → DEV (succeeded)\",\"artifacts\":[],\"data\":{\"status\":\"succeeded\",\
\"state\":\"DEV\",\"work_item_id\":\"PROJ-1234\",\"target_state\":\"DEV\",\"triggered_by\":\"hook\",\
\"response_excerpt\":\"moved\"}}\n";
    repo.write(
        "docs/superpowers/work-items/work-item-events.jsonl",
        receipt,
    )?;
    repo.write(&format!("{runs}/{lagging}/work-item-events.jsonl"), receipt)?;
    Ok(())
}

/// A small DG-Anvil lesson ledger (kept in the demo, not in ~/.anvil), a task state and a contract,
/// to try `lesson query` and `lesson reset` on.
fn write_anvil(repo: &DemoRepo) -> Result<()> {
    use serde_json::json;
    let lessons = [
        (
            "L-2026-06-01-a1b2c3d4",
            "2026-06-01",
            "the contract did not say the rate-limit window rolls",
            "probe: 101st request in a new minute passed",
            "count requests in a rolling sixty-second window per key",
            json!(["rate", "limit", "rolling", "window"]),
        ),
        (
            "L-2026-06-02-b2c3d4e5",
            "2026-06-02",
            "cache entries had no expiry in the contract",
            "probe: a stale entry was served after a day",
            "give every cache entry a time to live",
            json!(["cache", "expiry", "ttl"]),
        ),
        (
            "L-2026-06-03-c3d4e5f6",
            "2026-06-03",
            "the contract left the session lifetime open",
            "probe: a session survived a password change",
            "end sessions on password change",
            json!(["session", "auth", "expiry"]),
        ),
    ];
    let mut ledger = String::new();
    let mut by_pattern = serde_json::Map::new();
    let mut by_id = serde_json::Map::new();
    for (id, created, gap, evidence, remediation, pattern) in lessons {
        let line = json!({"anvil_ledger_entry_version": 1, "id": id, "created": created, "contract_gap": gap,
            "evidence": evidence, "remediation": remediation, "pattern": pattern});
        ledger += &format!("{line}\n");
        for key in pattern
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|k| k.as_str())
        {
            let ids = by_pattern
                .entry(key.to_string())
                .or_insert_with(|| json!([]));
            if let Some(ids) = ids.as_array_mut() {
                ids.push(json!(id));
            }
        }
        by_id.insert(id.to_string(), json!({"created": created}));
    }
    repo.write("anvil/ledger.jsonl", &ledger)?;
    repo.write(
        "anvil/ledger.index.json",
        &json!({"by_pattern": by_pattern, "by_id": by_id}).to_string(),
    )?;
    repo.write("anvil/state.json", "{\n  \"tasks\": {\n    \"T1\": {\n      \"status\": \"failed\",\n      \"loop_cap\": 3\n    }\n  }\n}\n")?;
    repo.write(
        "anvil/contract.yml",
        concat!(
            "---\nanvil_contract_version: 1\ngoal: \"Rate-limit the public API\"\n",
            "created: \"2026-06-01\"\nsource_intent: \"add rate limiting to the public API\"\n",
            "criteria:\n  - id: C1\n    statement: \"the 101st request in a minute gets 429\"\n",
            "    exists:\n      paths:\n        - \"src/ratelimit.js\"\n",
            "    substantive:\n      coverage_min: 0.8\n",
            "    wired:\n      entry_point: \"src/server.js\"\n",
            "    functional:\n      expected: \"HTTP 429 on the 101st request\"\n",
            "counter_examples:\n",
            "  L-2026-06-01-a1b2c3d4: \"count requests in a rolling sixty-second window per key\"\n",
            "---\n",
        ),
    )?;
    Ok(())
}

fn red_registry() -> Result<reds::Registry> {
    let scan = reds::parse_scan(SCAN.as_bytes()).map_err(|e| Error::new(e.to_string()))?;
    reds::apply(scan, &[], &ucg_ultracode::decisions::IdSet::default())
        .map_err(|e| Error::new(e.to_string()))
}

/// What the demo made: the run in a sentence, the head of its status (the header block and the
/// pending count), and where the repository is.
fn introduction(dir: &Path, status: &str) -> String {
    let header: Vec<&str> = status.lines().take_while(|l| !l.is_empty()).collect();
    let pending = status
        .lines()
        .find(|l| l.starts_with("Pending decisions:"))
        .unwrap_or("Pending decisions: none");
    let said = format!(
        "Created a sample repository with a stopped UltraCode Goal run: epic {EPIC} on branch \
         {EPIC_BRANCH} (checked out): 7-1 and 7-2 done, 7-3 stopped over its budget."
    );
    format!(
        "{}\n\n$ git ucg status   (its head)\n{}\n{pending}\n\nThe repository:\n  {}\n",
        said,
        header.join("\n"),
        dir.display()
    )
}

/// What to try next, after the status: the main loop, then where everything else is. How to run
/// `git ucg` before it is installed is said only when this binary is cargo's build.
fn next_steps(dir: &Path) -> String {
    let width = NEXT_COMMANDS
        .iter()
        .map(|(c, _)| c.len())
        .max()
        .unwrap_or(0);
    let mut out = format!("\nTry next:\n  cd {}\n", dir.display());
    for (command, what) in NEXT_COMMANDS {
        out.push_str(&format!("  {command:<width$}  # {what}\n"));
    }
    out.push_str(
        "More here: status (--watch), epic, diff --story 7-2, sdlc list, config, and the\n\
         neighbouring systems' state (`git ucg help` lists every command):\n\
         \x20 git ucg goal --session demo --omt-dir .omt show\n\
         \x20 git ucg lesson --ledger anvil/ledger.jsonl query rate limit\n",
    );
    let built_by_cargo = std::env::current_exe().ok().is_some_and(|exe| {
        let mut up = exe.ancestors().skip(2);
        up.next()
            .and_then(|p| p.file_name())
            .is_some_and(|n| n == "target")
    });
    out.push_str(match built_by_cargo {
        true => {
            "Not installed yet: `cargo run --release -- -C <dir> …` stands for `git ucg`;\n\
                 `cargo install --locked --path .` then `git ucg install-docs` install it.\n"
        }
        false => "`git ucg install-docs` installs the man pages and shell completions.\n",
    });
    out
}

/// Runs `git` in the demo repository, isolated from the user's configuration and from any
/// repository the demo was started in.
struct DemoRepo<'a> {
    dir: &'a Path,
    commits: u32,
}

impl DemoRepo<'_> {
    fn git(&self, args: &[&str]) -> Result<String> {
        let date = format!("2026-06-04T17:{:02}:12Z", 25 + self.commits * 7);
        let identity = ucg_git::hermetic::Identity {
            author: ("Ada Operator", "ada@example.com"),
            committer: ("UltraCode Goal", "ucg@example.com"),
            date: &date,
        };
        let mut command = ucg_git::hermetic::git(self.dir);
        let output = identity
            .apply(command.args([
                "-c",
                "commit.gpgsign=false",
                "-c",
                "core.hooksPath=/dev/null",
            ]))
            .args(args)
            .output()
            .map_err(|e| {
                Error::new(format!("cannot run git: {e}")).hint(
                    "the demo builds its repository with the git command; install git and retry",
                )
            })?;
        if !output.status.success() {
            return Err(Error::new(format!(
                "git {} failed in {}: {}",
                args.join(" "),
                self.dir.display(),
                String::from_utf8_lossy(&output.stderr).trim()
            )));
        }
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
    }

    fn write(&self, path: &str, text: &str) -> Result<()> {
        let full = self.dir.join(path);
        ucg_store::write_creating_dirs(&full, text.as_bytes())
            .map_err(|e| Error::new(format!("cannot write {}: {e}", full.display())))
    }

    fn commit(&mut self, message: &str) -> Result<()> {
        self.git(&["add", "--all"])?;
        self.git(&["commit", "--quiet", "-m", message])?;
        self.commits += 1;
        Ok(())
    }

    fn head(&self) -> Result<String> {
        self.git(&["rev-parse", "HEAD"])
    }
}

const PRD: &str = "# Tasklist — product requirements\n\
\n\
## Accounts\n\
\n\
Users sign in with an email and a password.\n\
\n\
## Sessions\n\
\n\
A signed-in user stays signed in across visits.\n\
\n\
Sessions: TBD\n\
\n\
## Payments\n\
\n\
Premium lists are paid monthly.\n\
\n\
Payment provider: TBD (Stripe or Adyen)\n";

const SCAN: &str = r#"{"reds": [
 {"source": "docs/prd.md:11", "kind": "undecided-product", "decision_needed": "Do sessions expire, and after how long?", "evidence": "\"Sessions: TBD\""},
 {"source": "docs/prd.md:17", "kind": "undecided-architecture", "decision_needed": "Which payment provider ships first: Stripe or Adyen?", "evidence": "\"Payment provider: TBD (Stripe or Adyen)\""}
], "concerns": []}"#;

const ESCALATION_SIDECAR: &str = "{\"source\": \".escalation-7-3.md\", \"kind\": \"budget-overrun\", \"decision_needed\": \"re-scope, split, or hand off the story\", \"evidence\": \"Story turn budget exceeded (turns 26/25).\"}";

const ESCALATION_MARKER: &str = "# Turn budget escalation \u{2014} story 7-3\n\nStory turn budget exceeded (turns 26/25). UltraCode-Goal stops this story and escalates: re-scope, split, or hand off. A Stop hook cannot interrupt a /goal condition mid-turn, so treat this as advisory \u{2014} the deterministic guard is the gate_eval re-loop budget.\n";

const DEFERRED_WORK: &str = "# Deferred Work \u{2014} epic-7\n\
\n\
| id | source | severity | story | reason | suggested_action | status |\n\
|----|--------|----------|-------|--------|------------------|--------|\n\
| d1 | gate | low | 7-1 | Login form lacks a rate limit on failed attempts. | Add a limiter before launch. | open |\n\
| d2 | decision | med | 7-2 | Operator sign-off on the session retry policy, batched to the end of the run. | Decide retries with the session expiry answer. | open |\n\
| d3 | code-review | low | 7-2 | Unused parameter flagged by the type checker. | Remove it. | resolved |\n";

const HEARTBEAT: &str = r#"{
  "epic": "7",
  "story": "7-3",
  "index": 3,
  "total": 3,
  "last_verdict": "escalate",
  "last_reasons": [
    "turn budget exceeded (turns 26/25)",
    "escalation-7-3.json promoted from the Stop-hook marker"
  ],
  "reloop_count": 1,
  "stories": [
    {"story": "7-1", "phase": "gated", "verdict": "advance", "dev_attempts": 1, "reloop_count": 0},
    {"story": "7-2", "phase": "gated", "verdict": "defer", "dev_attempts": 2, "reloop_count": 1},
    {"story": "7-3", "phase": "escalated", "verdict": "escalate", "dev_attempts": 1, "reloop_count": 0}
  ],
  "budget_used": {"turns": 26, "max_turns": 25},
  "profile": "production",
  "updated": "2026-06-04T19:02:11Z"
}
"#;

const SPRINT_STATUS: &str = "# generated by BMAD sprint planning\n\
development_status:\n\
\x20 epic-7: in-progress\n\
\x20 7-1: done\n\
\x20 7-2: done\n\
\x20 7-3: in-progress\n\
\x20 epic-7-retrospective: backlog\n";

const DECISION_LOG: &str = "---\n\
skill: ultracode-goal\n\
run: epic-7-20260604T172512Z\n\
profile: production\n\
---\n\
# Decision log \u{2014} epic 7\n\
\n\
### Story 7-1 \u{2014} advance\n\
- Baseline recorded, suite green, committed at green.\n\
gate-provenance: hand-authored\n\
```json\n\
{\"verdict\": \"advance\", \"gate_status\": \"PASS\"}\n\
```\n\
\n\
### Story 7-2 \u{2014} defer\n\
- One re-loop on a flaky session test; the retry policy is parked as deferred-work d2.\n\
```json\n\
{\"verdict\": \"defer\", \"gate_status\": \"CONCERNS\"}\n\
```\n\
\n\
### Story 7-3 \u{2014} escalate\n\
- Turn budget exceeded (26/25); the Stop-hook marker was promoted to escalation-7-3.json.\n\
```json\n\
{\"verdict\": \"escalate\", \"gate_status\": \"NOT_EVALUATED\"}\n\
```\n";

#[cfg(test)]
mod tests {
    #[test]
    fn the_sample_scan_is_valid() {
        let registry = super::red_registry().unwrap();
        assert_eq!(registry.reds.len(), 2);
    }
}
