//! `pending`, `resolve` and `resume` on real runs: the demo end to end, corrupt answers, unknown
//! ids, the interactive pass (stdin and a real terminal), concurrency and SIGKILL.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

const IMPL: &str = "_bmad-output/implementation-artifacts";

fn pending_ids(env: &TestEnv, dir: &Path, extra: &[&str]) -> Vec<(String, String)> {
    let out = env
        .ucg(dir)
        .args(["pending", "--json"])
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["schema"], "git-ucg.pending/1");
    doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["source"].as_str().unwrap().to_string(),
                i["id"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn run_ok(env: &TestEnv, dir: &Path, args: &[&str]) -> String {
    let out = env
        .ucg(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

#[test]
fn the_demo_end_to_end() {
    let env = TestEnv::new();
    let dir = env.demo();
    let impl_dir = dir.join(IMPL);
    let ids = pending_ids(&env, &dir, &[]);
    let sources: Vec<&str> = ids.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(sources, ["red", "red", "escalation", "decision"]);
    let (red1, red2, esc, row) = (&ids[0].1, &ids[1].1, &ids[2].1, &ids[3].1);
    let out = env
        .ucg(&dir)
        .args(["pending", "--exit-code"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "--exit-code with items pending");

    let ledger_before = std::fs::read_to_string(impl_dir.join("deferred-work.md")).unwrap();
    let log = dir.join("_bmad-output/ultracode-goal/epic-7-20260604T172512Z/.decision-log.md");
    let log_before = std::fs::read_to_string(&log).unwrap();
    let text = run_ok(
        &env,
        &dir,
        &[
            "resolve",
            "--close",
            red1,
            "--answer",
            "24 hours",
            "--defer",
            red2,
            "--answer",
            "after the pilot",
            "--close",
            esc,
            "--answer",
            "split 7-3",
            "--close",
            row,
            "--answer",
            "signed off",
        ],
    );
    assert!(text.contains("Closed: 3"), "{text}");
    assert!(
        text.contains("Resume re-enters execute at story 7-2"),
        "{text}"
    );

    // Exactly the deferred RED is left.
    assert_eq!(
        pending_ids(&env, &dir, &[]),
        [("red".to_string(), red2.clone())]
    );
    let registry: serde_json::Value =
        serde_json::from_slice(&std::fs::read(impl_dir.join(".preflight-reds.json")).unwrap())
            .unwrap();
    assert_eq!(registry["reds"].as_array().unwrap().len(), 1);
    assert_eq!(registry["reds"][0]["id"], red2.as_str());
    assert_eq!(registry["resolved"][0]["id"], red1.as_str());
    assert!(!impl_dir.join("escalation-7-3.json").exists());
    assert!(!impl_dir.join(".budget-7-3.json").exists());
    assert!(
        impl_dir.join(".escalation-7-3.md").exists(),
        "the residual stays"
    );
    // The ledger differs in exactly one cell.
    let ledger_after = std::fs::read_to_string(impl_dir.join("deferred-work.md")).unwrap();
    let changed: Vec<(&str, &str)> = ledger_before
        .lines()
        .zip(ledger_after.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(changed.len(), 1);
    assert_eq!(
        changed[0].0.replace("| open |", "| resolved |"),
        changed[0].1
    );
    assert_eq!(
        ledger_before.len() + "resolved".len() - "open".len(),
        ledger_after.len()
    );
    // The decision log gained one section, appended.
    let log_after = std::fs::read_to_string(&log).unwrap();
    assert!(log_after.starts_with(&log_before));
    assert_eq!(log_after.matches("## ucg-resolve ").count(), 1);
    assert_eq!(log_after[log_before.len()..].matches("\n- `").count(), 4);

    // A second pass asks only about the deferred RED.
    let out = output_with_stdin(
        env.ucg(&dir).args(["resolve", "--interactive"]),
        b"q
",
    );
    let asked = stderr(&out);
    let handle = red2.rsplit(':').next().unwrap();
    assert!(asked.contains(&format!("[1/1] RED {handle}\n")), "{asked}");
    assert!(
        asked.contains("deferred before: after the pilot"),
        "{asked}"
    );
}

#[test]
fn unknown_ids_and_missing_answers_write_nothing() {
    let env = TestEnv::new();
    let dir = env.demo();
    let before = snapshot(&dir.join("_bmad-output"));
    let ids = pending_ids(&env, &dir, &[]);
    for args in [
        vec!["resolve", "--close", "no:such:id", "--answer", "x"],
        vec!["resolve", "--close", &ids[0].1],
        vec!["resolve", "--answer", "x", "--close", &ids[0].1],
    ] {
        let out = env
            .ucg(&dir)
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).starts_with("error: "), "{}", stderr(&out));
        assert_eq!(snapshot(&dir.join("_bmad-output")), before, "{args:?}");
    }
}

#[test]
fn a_corrupt_answers_file_stops_everything() {
    let env = TestEnv::new();
    let dir = env.demo();
    let decisions = dir.join(IMPL).join(".decisions.json");
    let ids = pending_ids(&env, &dir, &[]);
    type Corruption<'a> = (&'a str, &'a dyn Fn(&Path));
    let cases: [Corruption; 5] = [
        ("not JSON", &|p| write(p, "{\"decisions\": [")),
        ("not a list", &|p| write(p, "{\"decisions\": {}}")),
        ("a directory", &|p| {
            std::fs::create_dir_all(p.join("x")).unwrap()
        }),
        ("unreadable", &|p| {
            write(p, "{\"decisions\": []}");
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o000)).unwrap();
        }),
        // Unreadable for root too: a link that leads to itself.
        ("a symlink loop", &|p| {
            std::os::unix::fs::symlink(p, p).unwrap();
        }),
    ];
    for (what, corrupt) in cases {
        let _ = std::fs::remove_file(&decisions);
        let _ = std::fs::remove_dir_all(&decisions);
        corrupt(&decisions);
        // Root reads anything: the permission case cannot be made here.
        if what == "unreadable" && std::fs::read(&decisions).is_ok() {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&decisions, std::fs::Permissions::from_mode(0o644)).unwrap();
            continue;
        }
        let before = snapshot(&dir.join("_bmad-output"));
        let out = env
            .ucg(&dir)
            .args(["resolve", "--close", &ids[2].1, "--answer", "x"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{what}");
        let message = stderr(&out);
        assert!(
            message.contains(&decisions.display().to_string()),
            "{what}: {message}"
        );
        assert!(
            message.contains("corrupt-"),
            "{what}: the way out: {message}"
        );
        assert_eq!(snapshot(&dir.join("_bmad-output")), before, "{what}");
    }
}

#[test]
fn the_interactive_pass_over_stdin() {
    let env = TestEnv::new();
    let dir = env.demo();
    let ids = pending_ids(&env, &dir, &[]);
    // Defer the first RED, skip the second, close the escalation (an empty answer is asked again),
    // then quit before the ledger row.
    let out = output_with_stdin(
        env.ucg(&dir).args(["resolve", "--interactive"]),
        b"d
not yet
s
c

split it
q
",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let prompts = stderr(&out);
    let order: Vec<usize> = ids
        .iter()
        .map(|(_, id)| prompts.find(id.rsplit(':').next().unwrap()).unwrap())
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "in order: {prompts}");
    assert_eq!(
        prompts.matches("answer (the decision, one line): ").count(),
        2
    );
    // Recorded and applied so far: the defer and the close; the rest still pending.
    let left: Vec<String> = pending_ids(&env, &dir, &[])
        .into_iter()
        .map(|(_, id)| id)
        .collect();
    assert_eq!(left, [ids[0].1.clone(), ids[1].1.clone(), ids[3].1.clone()]);
    let decisions = std::fs::read_to_string(dir.join(IMPL).join(".decisions.json")).unwrap();
    assert!(decisions.contains("\"not yet\"") && decisions.contains("\"split it\""));
    assert!(!dir.join(IMPL).join("escalation-7-3.json").exists());
}

#[test]
fn the_interactive_pass_in_a_real_terminal() {
    if std::process::Command::new("tmux")
        .arg("-V")
        .output()
        .is_err()
    {
        eprintln!("skipped: no tmux on this machine");
        return;
    }
    let env = TestEnv::new();
    let dir = env.demo();
    let socket = env.path().join("tmux.sock");
    let tmux = |args: &[&str]| {
        std::process::Command::new("tmux")
            .arg("-S")
            .arg(&socket)
            .args(args)
            .env("HOME", env.path())
            .output()
            .unwrap()
    };
    let done = env.path().join("done");
    let command = format!(
        "cd '{}' && env -i PATH=\"$PATH\" HOME='{}' GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null NO_COLOR=1 '{BIN}' resolve; echo $? > '{}'",
        dir.display(),
        env.path().display(),
        done.display()
    );
    let started = tmux(&["new-session", "-d", "-x", "120", "-y", "50", &command]);
    assert!(started.status.success(), "{}", stderr(&started));
    let screen = || stdout(&tmux(&["capture-pane", "-p", "-S", "-200"]));
    let wait_for = |needle: &str| {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            let text = screen();
            if text.contains(needle) {
                return text;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "waiting for {needle:?}:\n{text}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    wait_for("[1/4] RED");
    // One key, no Enter.
    tmux(&["send-keys", "c"]);
    wait_for("answer (the decision, one line):");
    tmux(&["send-keys", "24 hours", "Enter"]);
    // Shown back as it will be recorded; Enter records it.
    wait_for("  to record: close \"24 hours\"");
    tmux(&["send-keys", "Enter"]);
    wait_for("[2/4] RED");
    tmux(&["send-keys", "q"]);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !done.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "resolve did not end:\n{}",
            screen()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = tmux(&["kill-server"]);
    assert_eq!(std::fs::read_to_string(&done).unwrap().trim(), "0");
    assert_eq!(
        pending_ids(&env, &dir, &[]).len(),
        3,
        "the close was recorded and applied"
    );
}

/// A run of `reds` REDs, `escalations` typed escalations and `rows` open ledger decisions, in
/// `<dir>/impl` (outside any repository: every path is given).
fn big_run(env: &TestEnv, dir: &Path, reds: usize, escalations: usize, rows: usize) {
    let impl_dir = dir.join("impl");
    std::fs::create_dir_all(&impl_dir).unwrap();
    let scan: Vec<_> = (0..reds)
        .map(|i| serde_json::json!({"kind": "undecided-product", "source": format!("docs/p.md:{i}"), "decision_needed": format!("Question {i}?"), "evidence": "TBD"}))
        .collect();
    write(
        &dir.join("scan.json"),
        &serde_json::json!({"reds": scan}).to_string(),
    );
    run_ok(
        env,
        dir,
        &[
            "reds",
            "apply",
            "--impl-artifacts",
            "impl",
            "--scan",
            "scan.json",
        ],
    );
    for i in 0..escalations {
        write(
            &impl_dir.join(format!("escalation-s{i}.json")),
            &serde_json::json!({"kind": "budget-overrun", "source": format!(".escalation-s{i}.md"), "decision_needed": "re-scope", "evidence": "turns 26/25"}).to_string(),
        );
        write(
            &impl_dir.join(format!(".budget-s{i}.json")),
            "{\"turns\": 26}",
        );
    }
    let mut ledger = String::from("| id | source | status | reason |\n|---|---|---|---|\n");
    for i in 0..rows {
        ledger.push_str(&format!(
            "| d{i} | decision | open | Sign off item {i}. |\n"
        ));
    }
    write(&impl_dir.join("deferred-work.md"), &ledger);
}

fn answers_file(ids: &[String]) -> String {
    let answers: Vec<_> = ids
        .iter()
        .map(|id| serde_json::json!({"id": id, "answer": "ok", "action": "close"}))
        .collect();
    serde_json::json!({ "answers": answers }).to_string()
}

#[test]
fn eight_concurrent_passes_lose_nothing() {
    let env = TestEnv::new();
    let dir = env.path().join("run");
    big_run(&env, &dir, 200, 100, 100);
    let ids: Vec<String> = pending_ids(&env, &dir, &["--impl-artifacts", "impl"])
        .into_iter()
        .map(|(_, id)| id)
        .collect();
    assert_eq!(ids.len(), 400);
    // Each pass closes 50 items, interleaved across the sources.
    let files: Vec<PathBuf> = (0..8)
        .map(|p| {
            let mine: Vec<String> = ids.iter().skip(p).step_by(8).cloned().collect();
            let file = env.path().join(format!("answers-{p}.json"));
            write(&file, &answers_file(&mine));
            file
        })
        .collect();
    let children: Vec<_> = files
        .iter()
        .map(|file| {
            env.ucg(&dir)
                .env("GIT_UCG_LOCK_TIMEOUT", "120")
                .args(["resolve", "--impl-artifacts", "impl", "--answers"])
                .arg(file)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    assert!(pending_ids(&env, &dir, &["--impl-artifacts", "impl"]).is_empty());
    let decisions: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("impl/.decisions.json")).unwrap()).unwrap();
    assert_eq!(decisions["decisions"].as_array().unwrap().len(), 400);
    let registry: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("impl/.preflight-reds.json")).unwrap())
            .unwrap();
    assert!(registry["reds"].as_array().unwrap().is_empty());
    assert_eq!(registry["resolved"].as_array().unwrap().len(), 200);
    let ledger = std::fs::read_to_string(dir.join("impl/deferred-work.md")).unwrap();
    assert_eq!(ledger.matches("| resolved |").count(), 100);
}

#[test]
fn sigkill_during_resolve_loses_no_recorded_answer() {
    let env = TestEnv::new();
    let template = env.path().join("template");
    big_run(&env, &template, 600, 200, 200);
    let ids: Vec<String> = pending_ids(&env, &template, &["--impl-artifacts", "impl"])
        .into_iter()
        .map(|(_, id)| id)
        .collect();
    assert_eq!(ids.len(), 1000);
    let answers = env.path().join("answers.json");
    write(&answers, &answers_file(&ids));
    // How long an uninterrupted pass takes: kills land anywhere inside it.
    let timed = env.path().join("timed");
    copy(&template, &timed);
    let started = std::time::Instant::now();
    run_ok(
        &env,
        &timed,
        &[
            "resolve",
            "--impl-artifacts",
            "impl",
            "--answers",
            answers.to_str().unwrap(),
        ],
    );
    let full = started.elapsed().as_millis() as u64;
    let mut seed = 0x5eed_u64;
    let mut killed_between_record_and_apply = 0;
    for round in 0..100 {
        let dir = env.path().join(format!("round-{round}"));
        copy(&template, &dir);
        let mut child = env
            .ucg(&dir)
            .args(["resolve", "--impl-artifacts", "impl", "--answers"])
            .arg(&answers)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        std::thread::sleep(Duration::from_millis((seed >> 33) % (full + 5)));
        let _ = child.kill();
        let _ = child.wait();
        // The answers file is whole: absent (nothing recorded yet) or every answer.
        let recorded: usize = match std::fs::read(dir.join("impl/.decisions.json")) {
            Err(_) => 0,
            Ok(bytes) => {
                let doc: serde_json::Value = serde_json::from_slice(&bytes)
                    .unwrap_or_else(|e| panic!("round {round}: .decisions.json is torn: {e}"));
                doc["decisions"].as_array().unwrap().len()
            }
        };
        assert!(
            recorded == 0 || recorded == 1000,
            "round {round}: {recorded}"
        );
        let unapplied = pending_ids(&env, &dir, &["--impl-artifacts", "impl"]).len();
        if recorded == 1000 && unapplied > 0 {
            killed_between_record_and_apply += 1;
        }
        // The next pass finishes the application without being given anything (with nothing on
        // record, there is nothing to apply: it says it did not ask, without a terminal).
        let next = env
            .ucg(&dir)
            .args(["resolve", "--impl-artifacts", "impl"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let expected = if recorded == 0 { 2 } else { 0 };
        assert_eq!(next.status.code(), Some(expected), "{}", stderr(&next));
        let left = pending_ids(&env, &dir, &["--impl-artifacts", "impl"]).len();
        assert_eq!(left, 1000 - recorded, "round {round}");
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        killed_between_record_and_apply > 0,
        "no kill landed after the answers were recorded and before they were all applied"
    );
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A repository with an epic of three stories and a hand-written decision log.
fn resume_repo(env: &TestEnv, log: &str) -> PathBuf {
    let dir = env.repo("r");
    env.git(&dir, &["switch", "-q", "-c", "ultracode/epic-3"]);
    write(
        &dir.join(IMPL).join("sprint-status.yaml"),
        "development_status:\n  epic-3: in-progress\n  3-1-a: done\n  3-2-b: done\n  3-3-c: in-progress\n",
    );
    write(
        &dir.join(IMPL).join("run-status.json"),
        r#"{"epic": "3", "story": "3-3-c"}"#,
    );
    write(
        &dir.join("_bmad-output/ultracode-goal/epic-3/.decision-log.md"),
        log,
    );
    dir
}

fn route(env: &TestEnv, dir: &Path) -> serde_json::Value {
    let text = run_ok(env, dir, &["resume", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["schema"], "git-ucg.resume/1");
    doc
}

fn verdict(story: &str, verdict: &str) -> String {
    format!("### Story {story}\n\n```json\n{{\"verdict\": \"{verdict}\"}}\n```\n\n")
}

#[test]
fn resume_routes_by_the_last_stage_reached() {
    let env = TestEnv::new();
    // Blocked at preflight: no verdict anywhere.
    let dir = resume_repo(&env, "# Decision log\n\nStage 2: preflight RED, stopped.\n");
    assert_eq!(route(&env, &dir)["route"]["stage"], "preflight");

    // advance, advance, reloop: story 3.
    let env = TestEnv::new();
    let log = format!(
        "{}{}{}",
        verdict("3-1-a", "advance"),
        verdict("3-2-b", "advance"),
        verdict("3-3-c", "reloop")
    );
    let dir = resume_repo(&env, &log);
    let doc = route(&env, &dir);
    assert_eq!(doc["route"]["stage"], "execute");
    assert_eq!(doc["route"]["story"], "3-3-c");

    // A heading that matches two stories (`3`) is ignored for both; 3-1-a is then first.
    let env = TestEnv::new();
    let log = format!("{}{}", verdict("3", "advance"), verdict("3-2-b", "advance"));
    let dir = resume_repo(&env, &log);
    assert_eq!(route(&env, &dir)["route"]["story"], "3-1-a");

    // The checklist flips as the fixing commands run.
    let state = |doc: &serde_json::Value, item: &str| {
        doc["checklist"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["item"] == item)
            .unwrap()["state"]
            .as_str()
            .unwrap()
            .to_string()
    };
    env.git(&dir, &["switch", "-q", "main"]);
    let doc = route(&env, &dir);
    assert_eq!(state(&doc, "epic branch"), "missing");
    assert_eq!(state(&doc, "recall latch"), "missing");
    assert_eq!(state(&doc, "baseline"), "missing");
    env.git(&dir, &["switch", "-q", "ultracode/epic-3"]);
    write(
        &dir.join(IMPL).join(".mem-state.json"),
        r#"{"claude_mem": "present", "latch_version": 1, "recall": "on", "run_id": "r1", "schema_ok": true}"#,
    );
    // The baseline checked is the routed story's (3-1-a here), the one the resume re-enters.
    let head = env.git(&dir, &["rev-parse", "HEAD"]);
    write(
        &dir.join(IMPL).join(".baseline-3-1-a"),
        &format!("{head}\n"),
    );
    let doc = route(&env, &dir);
    assert_eq!(state(&doc, "epic branch"), "ok");
    assert_eq!(state(&doc, "recall latch"), "ok");
    assert_eq!(state(&doc, "baseline"), "ok");
    assert_eq!(state(&doc, "git hooks"), "missing");
    assert_eq!(state(&doc, "agent hooks"), "missing");
    // The hooks: git's by `hooks install`; the agent's guard by the preflight's arming (written
    // here as it writes it), its budget hook by `hooks install --agent`.
    write(
        &dir.join(".claude/settings.local.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "uv run guard_pretooluse.py"}]}]}}"#,
    );
    let out = env
        .ucg(&dir)
        .args(["hooks", "install", "--agent"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc = route(&env, &dir);
    assert_eq!(state(&doc, "git hooks"), "ok");
    assert_eq!(state(&doc, "agent hooks"), "ok");
}

/// The decisions the gate blocks on head what needs the operator before a resume, until every
/// one is answered.
#[test]
fn resume_needs_the_pending_decisions_answered_first() {
    let env = TestEnv::new();
    let dir = env.demo();
    let decisions = |env: &TestEnv| {
        let doc = route(env, &dir);
        doc["checklist"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["item"] == "decisions")
            .cloned()
            .unwrap()
    };
    let before = decisions(&env);
    assert_eq!(before["state"], "missing");
    assert_eq!(before["by_resume"], false);
    assert!(before["detail"].as_str().unwrap().starts_with("4 pending"));
    let text = run_ok(&env, &dir, &["resume"]);
    assert!(text.contains("Needs you:\n  missing  decisions"), "{text}");

    let ids = pending_ids(&env, &dir, &[]);
    let answers: Vec<String> = ids
        .iter()
        .map(|(_, id)| format!(r#"{{"id": "{id}", "answer": "done", "action": "close"}}"#))
        .collect();
    let answers = format!(r#"{{"answers": [{}]}}"#, answers.join(", "));
    let out = output_with_stdin(
        env.ucg(&dir).args(["resolve", "--answers", "-"]),
        answers.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let after = decisions(&env);
    assert_eq!(after["state"], "ok", "{after}");
    assert_eq!(after["detail"], "none pending");
    // A registry that cannot be read stops the run as a question does: it is named, with its
    // way out (it read "none pending" while the gate was blocked on it).
    let registry = dir.join(IMPL).join(".preflight-reds.json");
    std::fs::remove_file(&registry).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&registry)
        .status()
        .unwrap();
    assert!(made.success());
    let unreadable = decisions(&env);
    assert_eq!(unreadable["state"], "missing", "{unreadable}");
    assert!(
        unreadable["detail"]
            .as_str()
            .unwrap()
            .starts_with(".preflight-reds.json: the RED registry cannot be read"),
        "{unreadable}"
    );
    assert!(unreadable["fix"].as_str().unwrap().contains("regular file"));
}

/// Standard input that cannot be read (here a directory) is named in the refusal, as a file is.
#[test]
fn answers_on_unreadable_stdin_name_standard_input() {
    let env = TestEnv::new();
    let dir = env.demo();
    let before = snapshot(&dir.join("_bmad-output"));
    let out = env
        .ucg(&dir)
        .args(["resolve", "--answers", "-"])
        .stdin(std::fs::File::open("/").unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: cannot read the answers from standard input: Is a directory (os error 21)\n"
    );
    assert_eq!(
        snapshot(&dir.join("_bmad-output")),
        before,
        "nothing written"
    );
}

#[test]
fn dry_run_json_answers_on_stdin_and_the_run_folder_choice() {
    let env = TestEnv::new();
    let dir = env.demo();
    let ids = pending_ids(&env, &dir, &[]);
    let answers = format!(
        r#"{{"answers": [{{"id": "{}", "answer": "24 hours", "action": "close"}}, {{"id": "{}", "action": "defer"}}]}}"#,
        ids[0].1, ids[1].1
    );
    let feed = |args: &[&str]| output_with_stdin(env.ucg(&dir).args(args), answers.as_bytes());
    // --dry-run: the report, and not a byte written.
    let before = snapshot(&dir.join("_bmad-output"));
    let out = feed(&["resolve", "--answers", "-", "--dry-run", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["schema"], "git-ucg.resolve/1");
    assert_eq!(doc["dry_run"], true);
    assert_eq!(doc["recorded"].as_array().unwrap().len(), 2);
    assert_eq!(doc["applied"][0]["id"], ids[0].1.as_str());
    assert_eq!(
        snapshot(&dir.join("_bmad-output")),
        before,
        "--dry-run wrote nothing"
    );

    // Two run folders for the epic: without a terminal, resolve names them and stops.
    let runs = dir.join("_bmad-output/ultracode-goal");
    write(
        &runs.join("epic-7-20260701T000000Z/.decision-log.md"),
        "# later run\n",
    );
    let out = feed(&["resolve", "--answers", "-"]);
    assert_eq!(out.status.code(), Some(2));
    let message = stderr(&out);
    assert!(
        message.contains("epic-7-20260604T172512Z") && message.contains("epic-7-20260701T000000Z"),
        "{message}"
    );
    assert_eq!(
        snapshot(&dir.join("_bmad-output")).len(),
        before.len() + 1,
        "nothing else written"
    );
    // --run picks one; the answers come from standard input.
    let out = feed(&[
        "resolve",
        "--answers",
        "-",
        "--run",
        "epic-7-20260701T000000Z",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(doc["decision_log"]
        .as_str()
        .unwrap()
        .ends_with("epic-7-20260701T000000Z/.decision-log.md"));
    let log =
        std::fs::read_to_string(runs.join("epic-7-20260701T000000Z/.decision-log.md")).unwrap();
    assert!(log.starts_with("# later run\n\n## ucg-resolve "), "{log}");
    assert_eq!(doc["pending"].as_array().unwrap().len(), 3);
}

#[test]
fn only_deferring_hands_nothing_back_and_nothing_pending_points_at_status() {
    let env = TestEnv::new();
    let dir = env.demo();
    let ids = pending_ids(&env, &dir, &[]);
    let text = run_ok(&env, &dir, &["resolve", "--defer", &ids[0].1]);
    assert!(text.contains("Deferred: 1"), "{text}");
    assert!(
        !text.contains("Resume re-enters"),
        "a defer hands nothing back: {text}"
    );

    // A run whose decisions are all answered: nothing pending, and where to look.
    for (_, id) in &ids {
        run_ok(&env, &dir, &["resolve", "--close", id, "--answer", "done"]);
    }
    let text = run_ok(&env, &dir, &["resolve"]);
    assert!(text.starts_with("Nothing is pending"), "{text}");
    assert!(flat(&text).contains("git ucg status"), "{text}");
    // No run at all says so.
    let plain = env.repo("plain");
    let text = run_ok(&env, &plain, &["resolve"]);
    assert!(text.starts_with("There is no run here"), "{text}");
}

/// Item 5 of issue 17: on a terminal the pass takes one key (no Enter), Enter takes the default
/// (skip), a blank close explains why it asks again, each answer gets a confirmation line, and
/// Ctrl-D ends the pass on a line of its own with the terminal as it was.
#[test]
fn the_guided_pass_takes_single_keys_on_a_terminal() {
    use crate::pty::Terminal;
    let env = TestEnv::new();
    let dir = env.demo();
    let ids = pending_ids(&env, &dir, &[]);
    let mut command = env.ucg(&dir);
    command.arg("resolve");
    let mut t = Terminal::spawn(command, 50, 120);
    const KEYS: &str = "[c]lose, [d]efer, [s]kip, [q]uit (Enter: skip)? ";
    const LOOK: &str = "  [Enter] record it, [e]dit, [b]ack to the choice? ";
    t.wait_for("[1/4] RED");
    t.wait_for_nth(KEYS, 1);
    assert_eq!(t.local_modes() & libc::ICANON, 0, "a key, not a line");
    assert_eq!(t.local_modes() & libc::ECHO, 0);
    t.send(b"x");
    t.wait_for("c closes, d defers, s (or Enter) skips, q quits");
    t.wait_for_nth(KEYS, 2);
    t.send(b"c");
    t.wait_for("answer (the decision, one line): ");
    t.send(b"\r");
    t.wait_for("a close records the decision made, so it needs one");
    t.wait_for_nth("answer (the decision, one line): ", 2);
    t.send(b"24 hours\r");
    t.wait_for("  to record: close \"24 hours\"");
    t.wait_for(LOOK);
    t.send(b"\r");
    t.wait_for("  closed — removed from .preflight-reds.json, tombstone recorded");
    t.wait_for("[2/4] RED");
    t.wait_for_nth(KEYS, 3);
    t.send(b"\r");
    t.wait_for("  skipped — nothing recorded");
    t.wait_for("[3/4] escalation");
    t.wait_for_nth(KEYS, 4);
    t.send(b"D");
    t.wait_for("answer (optional): ");
    t.send(b"later\r");
    t.wait_for_nth(LOOK, 2);
    t.send(b"\r");
    t.wait_for("  deferred — recorded in .decisions.json; it is asked again next time");
    t.wait_for("[4/4] ledger decision");
    t.wait_for_nth(KEYS, 5);
    t.send(&[4]);
    // The screen reaches the test through a reader thread: the last line is waited for.
    t.wait_for("what was answered is kept\r\n");
    assert_eq!(t.wait().code(), Some(0), "{}", t.text());
    let text = t.text();
    // The keys chosen stay on screen, each prompt's line ended.
    assert!(text.contains(&format!("{KEYS}c\r\n")), "{text}");
    assert!(text.contains(&format!("{KEYS}d\r\n")), "{text}");
    assert!(
        text.contains(&format!(
            "{KEYS}\r\n  end of input — the pass stops here; what was answered is kept\r\n"
        )),
        "Ctrl-D ends on a line of its own: {text}"
    );
    assert!(t.is_restored(), "the terminal is as it was");
    let left: Vec<String> = pending_ids(&env, &dir, &[])
        .into_iter()
        .map(|(_, id)| id)
        .collect();
    assert_eq!(left, [ids[1].1.clone(), ids[2].1.clone(), ids[3].1.clone()]);
    let decisions = std::fs::read_to_string(dir.join(IMPL).join(".decisions.json")).unwrap();
    assert!(decisions.contains("\"24 hours\"") && decisions.contains("\"later\""));
}

/// Issue 34 item 1: the answer is typed in a line editor. An arrow moves the cursor instead of
/// becoming part of the decision; Home, Ctrl-U and Up (this pass's earlier answers) work; Esc
/// and Ctrl-C at the answer come back to the item's choice; the answer is shown back as it will
/// be recorded, `e` edits it again, `b` goes back, and Enter records exactly what was shown.
#[test]
fn answers_are_edited_on_a_line_and_looked_at_before_recording() {
    use crate::pty::Terminal;
    const LOOK: &str = "  [Enter] record it, [e]dit, [b]ack to the choice? ";
    const BACK: &str = "  back to the choice — nothing recorded";
    // The editor turns bracketed paste on as it starts to read a line: typing before that would
    // meet the terminal's own line discipline (Ctrl-U erasing, echo).
    const EDITING: &str = "\x1b[?2004h";
    let env = TestEnv::new();
    let dir = env.demo();
    let before = snapshot(&dir.join(IMPL));
    let mut command = env.ucg(&dir);
    command.arg("resolve");
    let mut t = Terminal::spawn(command, 50, 80);
    t.wait_for("[1/4] RED");
    t.wait_for("(Enter: skip)? ");
    // Esc at the answer: back to the choice, nothing typed is recorded.
    t.send(b"c");
    t.wait_for_nth(EDITING, 1);
    t.send(b"half a thought");
    t.wait_for("half a thought");
    t.send(b"\x1b");
    t.wait_for_nth(BACK, 1);
    // Ctrl-C at the answer: back to the choice as well, the pass goes on.
    t.wait_for_nth("(Enter: skip)? ", 2);
    t.send(b"c");
    t.wait_for_nth(EDITING, 2);
    t.send(&[3]);
    t.wait_for_nth(BACK, 2);
    assert_eq!(snapshot(&dir.join(IMPL)), before, "nothing recorded yet");
    // Left and Backspace fix a typo (a letter missing, one too many); Home goes to the start; the
    // arrow is no part of the answer.
    t.wait_for_nth("(Enter: skip)? ", 3);
    t.send(b"c");
    t.wait_for_nth(EDITING, 3);
    t.send(b"24 hous\x1b[Dr\x05x\x7f\x01Exactly ");
    t.send(b"\r");
    t.wait_for("  to record: close \"Exactly 24 hours\"");
    t.wait_for_nth(LOOK, 1);
    // `e` edits it again (the text is there); Ctrl-U clears it; `b` goes back without recording.
    t.send(b"e");
    t.wait_for_nth(EDITING, 4);
    t.send(&[0x15]);
    t.send(b"12 hours\r");
    t.wait_for("  to record: close \"12 hours\"");
    t.wait_for_nth(LOOK, 2);
    t.send(b"b");
    t.wait_for_nth(BACK, 3);
    // A pasted paragraph is one line; Enter records what was shown.
    t.wait_for_nth("(Enter: skip)? ", 4);
    t.send(b"c");
    t.wait_for_nth(EDITING, 5);
    t.send(b"\x1b[200~Sessions expire\nafter 24 hours\x1b[201~\r");
    t.wait_for("  to record: close \"Sessions expire after 24 hours\"");
    t.wait_for_nth(LOOK, 3);
    t.send(b"\r");
    t.wait_for("  closed — removed from .preflight-reds.json, tombstone recorded");
    // Up brings back this pass's earlier answer at the next item.
    t.wait_for("[2/4] RED");
    t.wait_for_nth("(Enter: skip)? ", 5);
    t.send(b"d");
    t.wait_for_nth(EDITING, 6);
    t.send(b"\x1b[A\r");
    t.wait_for("  to record: defer \"Sessions expire after 24 hours\"");
    t.wait_for_nth(LOOK, 4);
    t.send(b"\r");
    t.wait_for("  deferred — recorded");
    t.wait_for("[3/4] escalation");
    t.wait_for_nth("(Enter: skip)? ", 6);
    t.send(&[4]);
    t.wait_for("what was answered is kept\r\n");
    assert_eq!(t.wait().code(), Some(0), "{}", t.text());
    assert!(t.is_restored(), "the terminal is as it was");
    let decisions: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join(IMPL).join(".decisions.json")).unwrap(),
    )
    .unwrap();
    let answers: Vec<(&str, &str)> = decisions["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["action"].as_str().unwrap(), d["answer"].as_str().unwrap()))
        .collect();
    assert_eq!(
        answers,
        [
            ("close", "Sessions expire after 24 hours"),
            ("defer", "Sessions expire after 24 hours")
        ]
    );
    let log = std::fs::read_to_string(
        std::fs::read_dir(dir.join("_bmad-output/ultracode-goal"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path()
            .join(".decision-log.md"),
    )
    .unwrap();
    assert!(!log.contains('\x1b'), "no escape in the log: {log}");
}

/// Item 5: Ctrl-C at the one-key prompt interrupts the pass as it would any program, and the
/// terminal gets its line mode and echo back first.
#[test]
fn ctrl_c_in_the_guided_pass_restores_the_terminal() {
    use crate::pty::Terminal;
    use std::os::unix::process::ExitStatusExt;
    let env = TestEnv::new();
    let dir = env.demo();
    let before = snapshot(&dir.join(IMPL));
    let mut command = env.ucg(&dir);
    command.arg("resolve");
    let mut t = Terminal::spawn(command, 50, 120);
    t.wait_for("(Enter: skip)? ");
    assert!(!t.is_restored());
    t.send(&[3]);
    t.wait_for("(Enter: skip)? ^C\r\n");
    let status = t.wait();
    assert_eq!(status.signal(), Some(libc::SIGINT), "{}", t.text());
    assert!(t.is_restored(), "the terminal is as it was");
    assert_eq!(snapshot(&dir.join(IMPL)), before, "nothing recorded");
}

/// Item 5: without a terminal and without answers, resolve does not ask, says why and how to
/// answer instead, writes nothing and exits 2.
#[test]
fn without_a_terminal_resolve_says_it_did_not_ask() {
    let env = TestEnv::new();
    let dir = env.demo();
    let before = snapshot(&dir);
    let out = env
        .ucg(&dir)
        .arg("resolve")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
    insta::assert_snapshot!(stderr(&out), @r"
    error: did not ask: standard input is not a terminal (4 pending items)
    hint: ask over this input anyway: git ucg resolve --interactive
    hint: or answer with flags, the ids as `git ucg pending` lists them:
          git ucg resolve --close ID --answer TEXT [--defer ID …]
    ");
    assert_eq!(snapshot(&dir), before, "nothing written");
}

/// Item 6: the hand-back lists every file written, deleted or appended to, from the project root,
/// and says when git does not track them (so `git status` would not show the change).
#[test]
fn the_hand_back_lists_every_file_changed() {
    let env = TestEnv::new();
    let dir = env.demo();
    let ids = pending_ids(&env, &dir, &[]);
    let files = |text: &str| -> String {
        let start = text.find("Files ").expect("a list of files");
        text[start..]
            .lines()
            .take_while(|l| !l.starts_with("Resume "))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let mut args = vec!["resolve", "--dry-run"];
    for (_, id) in &ids {
        args.extend(["--close", id.as_str(), "--answer", "decided"]);
    }
    let before = snapshot(&dir);
    insta::assert_snapshot!("dry_run_files", files(&run_ok(&env, &dir, &args)));
    assert_eq!(snapshot(&dir), before, "a dry run writes nothing");

    args.remove(1);
    let text = run_ok(&env, &dir, &args);
    insta::assert_snapshot!("files_changed_untracked", files(&text));
    for gone in ["escalation-7-3.json", ".budget-7-3.json"] {
        assert!(!dir.join(IMPL).join(gone).exists(), "{gone}");
    }

    // Once git tracks the artifacts, `git status` shows the change: no note.
    env.git(&dir, &["add", "-A"]);
    env.git(&dir, &["commit", "-q", "-m", "artifacts"]);
    let text = run_ok(&env, &dir, &["resolve", "--defer", &ids[0].1]);
    assert!(text.contains("Files changed"), "{text}");
    assert!(!text.contains("Not tracked"), "{text}");
    let status = env.git(&dir, &["status", "--porcelain"]);
    assert!(status.contains(".decisions.json"), "{status}");
}

/// Issue 19 item 2: every answer recorded carries who gave it (git's author email) and when (UTC,
/// ISO-8601), the decision log's bullet names both, and the registry writer still reads the
/// answers file as before (the close removes the RED, the tombstone is written).
#[test]
fn answers_record_who_and_when() {
    let env = TestEnv::new();
    let dir = env.demo();
    env.git(&dir, &["config", "user.email", "pm@example.com"]);
    let ids = pending_ids(&env, &dir, &[]);
    let (_, red) = ids
        .iter()
        .find(|(source, _)| source == "red")
        .unwrap()
        .clone();
    run_ok(
        &env,
        &dir,
        &["resolve", "--close", &red, "--answer", "30 days"],
    );
    let decisions: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join(IMPL).join(".decisions.json")).unwrap())
            .unwrap();
    let entry = &decisions["decisions"][0];
    assert_eq!(
        object_keys(entry),
        [
            "id",
            "answer",
            "action",
            "by",
            "at",
            "kind",
            "source",
            "decision_needed"
        ],
        "{entry}"
    );
    assert_eq!(entry["by"], "pm@example.com");
    let at = entry["at"].as_str().unwrap();
    let shape: String = at
        .chars()
        .map(|c| if c.is_ascii_digit() { '0' } else { c })
        .collect();
    assert_eq!(shape, "0000-00-00T00:00:00Z", "{at}");
    let log = std::fs::read_to_string(walk_for(&dir, ".decision-log.md")).unwrap();
    assert!(
        log.contains(&format!(
            "`{red}` — close — 30 days — by pm@example.com at {at}"
        )),
        "{log}"
    );
    // The registry writer reads the file with the new keys as before: the close stands.
    let registry = std::fs::read(dir.join(IMPL).join(".preflight-reds.json")).unwrap();
    run_ok(&env, &dir, &["reds", "apply", "--from-sidecar"]);
    let again = std::fs::read(dir.join(IMPL).join(".preflight-reds.json")).unwrap();
    assert_eq!(
        again, registry,
        "the registry writer reads the close as before"
    );
    let registry: serde_json::Value = serde_json::from_slice(&registry).unwrap();
    let ids = |key: &str| -> Vec<String> {
        registry[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(!ids("reds").contains(&red) && ids("resolved").contains(&red));
}

/// The one file named `name` below `dir` (`.git` aside).
fn walk_for(dir: &Path, name: &str) -> PathBuf {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        for entry in std::fs::read_dir(&next).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() && entry.file_name() != ".git" {
                stack.push(path);
            } else if entry.file_name() == name {
                return path;
            }
        }
    }
    panic!("no {name} below {}", dir.display())
}

/// The lowercase hex SHA-256 of `bytes` (an escalation's occurrence).
fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The `.decisions.json` entries recorded for `id`.
fn entries_for(impl_dir: &Path, id: &str) -> Vec<serde_json::Value> {
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(impl_dir.join(".decisions.json")).unwrap()).unwrap();
    doc["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["id"] == id)
        .cloned()
        .collect()
}

/// The items of `pending --json`.
fn pending_items(env: &TestEnv, dir: &Path) -> Vec<serde_json::Value> {
    let out = env.ucg(dir).args(["pending", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["items"].as_array().cloned().unwrap_or_default()
}

/// The pending item `id` as `pending --json` gives it.
fn pending_item(env: &TestEnv, dir: &Path, id: &str) -> Option<serde_json::Value> {
    pending_items(env, dir).into_iter().find(|i| i["id"] == id)
}

/// The id of the demo's one escalation.
fn the_escalation(env: &TestEnv, dir: &Path) -> String {
    pending_ids(env, dir, &[])
        .into_iter()
        .find(|(source, _)| source == "escalation")
        .map(|(_, id)| id)
        .unwrap()
}

#[test]
fn a_recurring_escalation_is_asked_again() {
    let env = TestEnv::new();
    let dir = env.demo();
    let impl_dir = dir.join(IMPL);
    let sidecar = impl_dir.join("escalation-7-3.json");
    let first = std::fs::read(&sidecar).unwrap();
    let esc = the_escalation(&env, &dir);
    run_ok(
        &env,
        &dir,
        &["resolve", "--close", &esc, "--answer", "split 7-3"],
    );
    assert!(!sidecar.exists());
    let recorded = entries_for(&impl_dir, &esc);
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0]["occurrence"], sha256_hex(&first).as_str());

    // The story overruns its budget again: the Stop hook writes the raw marker, the run promotes
    // it into a typed sidecar with the same kind, source and decision (so the same id).
    let event = format!(r#"{{"cwd": "{}"}}"#, dir.display());
    for _ in 0..2 {
        let out = output_with_stdin(
            env.ucg(&dir)
                .args(["budget", "tick"])
                .env("ULTRACODE_STORY_ID", "7-3")
                .env("ULTRACODE_MAX_TURNS", "2"),
            event.as_bytes(),
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    assert!(std::fs::read_to_string(impl_dir.join(".escalation-7-3.md"))
        .unwrap()
        .contains("turns 2/2"));
    let second = "{\"source\": \".escalation-7-3.md\", \"kind\": \"budget-overrun\", \"decision_needed\": \"re-scope, split, or hand off the story\", \"evidence\": \"Story turn budget exceeded (turns 2/2).\"}";
    write(&sidecar, second);

    // Pending again, under the same id, with no answer on record.
    let item = pending_item(&env, &dir, &esc).expect("the new escalation is pending");
    assert!(item.get("action").is_none(), "{item}");
    let human = run_ok(&env, &dir, &["pending"]);
    assert!(!human.contains("close on record"), "{human}");
    // A pass with nothing given applies the closes on record: not this one.
    let out = env
        .ucg(&dir)
        .arg("resolve")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(stderr(&out).contains("did not ask"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&sidecar).unwrap(), second.as_bytes());
    assert!(impl_dir.join(".budget-7-3.json").exists());

    // Answering it again records the new occurrence in place of the old, and clears it.
    run_ok(
        &env,
        &dir,
        &["resolve", "--close", &esc, "--answer", "hand off 7-3"],
    );
    assert!(!sidecar.exists());
    assert!(!impl_dir.join(".budget-7-3.json").exists());
    let recorded = entries_for(&impl_dir, &esc);
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0]["answer"], "hand off 7-3");
    assert_eq!(
        recorded[0]["occurrence"],
        sha256_hex(second.as_bytes()).as_str()
    );
}

#[test]
fn a_close_recorded_before_occurrences_still_clears_its_escalation() {
    let env = TestEnv::new();
    let dir = env.demo();
    let impl_dir = dir.join(IMPL);
    let esc = the_escalation(&env, &dir);
    write(
        &impl_dir.join(".decisions.json"),
        &format!(
            "{{\"decisions\": [{{\"id\": \"{esc}\", \"answer\": \"split 7-3\", \"action\": \"close\"}}]}}\n"
        ),
    );
    let item = pending_item(&env, &dir, &esc).unwrap();
    assert_eq!(item["action"], "close");
    let text = run_ok(&env, &dir, &["resolve"]);
    assert!(text.contains("Closed: 1"), "{text}");
    assert!(!impl_dir.join("escalation-7-3.json").exists());
    assert!(!impl_dir.join(".budget-7-3.json").exists());
}

/// The `similar_to` of each pending item, by id (`None`: not offered).
fn offers(env: &TestEnv, dir: &Path) -> Vec<(String, Option<serde_json::Value>)> {
    pending_items(env, dir)
        .iter()
        .map(|i| {
            (
                i["id"].as_str().unwrap_or_default().to_string(),
                i.get("similar_to").cloned(),
            )
        })
        .collect()
}

/// The demo's sessions RED, as first worded.
const SESSIONS_RED: &str = "undecided-product:docs/prd.md:7662cf80acff";

/// Closes the demo's sessions RED, then has the next preflight word it differently (a new id)
/// and find an unrelated question in the same file.
fn reword_the_sessions_red(env: &TestEnv, dir: &Path) {
    let impl_dir = dir.join(IMPL);
    let old = SESSIONS_RED;
    run_ok(
        env,
        dir,
        &["resolve", "--close", "7662cf80acff", "--answer", "24 hours"],
    );
    // The answer keeps the question it answered.
    let recorded = entries_for(&impl_dir, old);
    assert_eq!(recorded[0]["kind"], "undecided-product");
    assert_eq!(recorded[0]["source"], "docs/prd.md:11");
    assert_eq!(
        recorded[0]["decision_needed"],
        "Do sessions expire, and after how long?"
    );

    // The next preflight words the question differently (a new id), and finds a new question.
    let scan = serde_json::json!({"reds": [
        {"kind": "undecided-product", "source": "docs/prd.md:11",
         "decision_needed": "Do sessions expire and, if so, after how long?", "evidence": "\"Sessions: TBD\""},
        {"kind": "undecided-architecture", "source": "docs/prd.md:17",
         "decision_needed": "Which payment provider ships first: Stripe or Adyen?", "evidence": "e"},
        {"kind": "undecided-product", "source": "docs/prd.md:30",
         "decision_needed": "Which locales ship at launch?", "evidence": "e"},
    ]});
    write(&dir.join("scan.json"), &scan.to_string());
    run_ok(env, dir, &["reds", "apply", "--scan", "scan.json"]);
}

#[test]
fn a_reworded_red_is_offered_its_earlier_answer() {
    let env = TestEnv::new();
    let dir = env.demo();
    let impl_dir = dir.join(IMPL);
    let old = SESSIONS_RED;
    reword_the_sessions_red(&env, &dir);
    let offered = offers(&env, &dir);
    let reworded = offered
        .iter()
        .find(|(id, _)| id.starts_with("undecided-product:docs/prd.md:") && id != old)
        .filter(|(_, offer)| offer.is_some())
        .expect("the reworded RED is offered the earlier answer");
    let new = reworded.0.clone();
    let offer = reworded.1.clone().unwrap();
    assert_eq!(offer["id"], old);
    assert_eq!(offer["action"], "close");
    assert_eq!(offer["answer"], "24 hours");
    assert!(offer["ratio"].as_f64().unwrap() >= 0.8, "{offer}");
    // Nothing else is: not the unrelated question in the same file, not another kind.
    assert_eq!(offered.iter().filter(|(_, o)| o.is_some()).count(), 1);
    let human = run_ok(&env, &dir, &["pending"]);
    assert!(
        flat(&human).contains("[reworded? 7662cf80acff was answered close: 24 hours]"),
        "{human}"
    );

    // The threshold is configurable: nearly the same words only, and this one is not offered.
    env.git(&dir, &["config", "ucg.similarity", "0.99"]);
    assert!(offers(&env, &dir).iter().all(|(_, o)| o.is_none()));
    let text = run_ok(&env, &dir, &["resolve", "--reuse-similar"]);
    assert!(text.contains("Reused: none"), "{text}");
    assert!(entries_for(&impl_dir, &new).is_empty());
    // A threshold outside 0..1 is refused by resolve, and pending warns and uses the default.
    env.git(&dir, &["config", "ucg.similarity", "1.5"]);
    let out = env
        .ucg(&dir)
        .args(["resolve", "--reuse-similar"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("ucg.similarity"), "{}", stderr(&out));
    let out = env.ucg(&dir).args(["pending"]).output().unwrap();
    assert!(
        stderr(&out).contains("warning: ucg.similarity"),
        "{}",
        stderr(&out)
    );

    // Reused without asking: the same answer and action, noting where it came from.
    env.git(&dir, &["config", "--unset", "ucg.similarity"]);
    let text = run_ok(&env, &dir, &["resolve", "--reuse-similar"]);
    assert!(text.contains("Reused: 1"), "{text}");
    assert!(
        flat(&text).contains(&format!("{new} close as {old}")),
        "{text}"
    );
    let recorded = entries_for(&impl_dir, &new);
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0]["answer"], "24 hours");
    assert_eq!(recorded[0]["action"], "close");
    assert_eq!(recorded[0]["reused_from"], old);
    let registry: serde_json::Value =
        serde_json::from_slice(&std::fs::read(impl_dir.join(".preflight-reds.json")).unwrap())
            .unwrap();
    let ids: Vec<&str> = registry["reds"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert!(!ids.contains(&new.as_str()), "{ids:?}");
    assert_eq!(ids.len(), 2);
}

#[test]
fn the_guided_pass_shows_the_rewording_and_reuses_the_answer() {
    let env = TestEnv::new();
    let dir = env.demo();
    reword_the_sessions_red(&env, &dir);
    let out = output_with_stdin(env.ucg(&dir).args(["resolve", "--interactive"]), b"r\nq\n");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("earlier   Do sessions expire, and after how long?"),
        "{err}"
    );
    // Not a terminal: the word diff is marked as git's --word-diff marks it.
    assert!(err.contains("[-expire,-]"), "{err}");
    assert!(err.contains("answered  close: 24 hours"), "{err}");
    assert!(err.contains("[r]euse"), "{err}");
    assert!(
        err.contains("closed — removed from .preflight-reds.json"),
        "{err}"
    );
    let reused: Vec<serde_json::Value> = pending_items(&env, &dir);
    assert!(reused
        .iter()
        .all(|i| i["kind"] != "undecided-product" || i.get("similar_to").is_none()));
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join(IMPL).join(".decisions.json")).unwrap())
            .unwrap();
    let entries = doc["decisions"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[1]["reused_from"], SESSIONS_RED);
    assert_eq!(entries[1]["answer"], "24 hours");
    assert_eq!(
        entries[1]["decision_needed"],
        "Do sessions expire and, if so, after how long?"
    );
}

/// Issue 34 item 2: an answer is changed by naming the closed item as `pending` named it (its
/// 12-hex handle, or any unique prefix of its id) — before, "not a pending decision" unless the
/// full id was given — and the change says what it replaced (old → new, by whom and when), in
/// the hand-back and in the decision log.
#[test]
fn an_answer_is_changed_by_its_handle_and_says_what_it_replaced() {
    let env = TestEnv::new();
    let dir = env.demo();
    run_ok(
        &env,
        &dir,
        &["resolve", "--close", "7662cf80acff", "--answer", "24 hours"],
    );
    let said = run_ok(
        &env,
        &dir,
        &["resolve", "--close", "7662cf80acff", "--answer", "12 hours"],
    );
    assert!(said.contains("Replaced an earlier answer: 1\n"), "{said}");
    assert!(said.contains("    was: close \"24 hours\" by "), "{said}");
    assert!(said.contains("    now: close \"12 hours\"\n"), "{said}");
    let answers =
        std::fs::read_to_string(dir.join("_bmad-output/implementation-artifacts/.decisions.json"))
            .unwrap();
    assert!(answers.contains("\"answer\": \"12 hours\""), "{answers}");
    assert!(!answers.contains("24 hours"), "{answers}");
    let log_dir = std::fs::read_dir(dir.join("_bmad-output/ultracode-goal"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.join(".decision-log.md").is_file())
        .unwrap();
    let log = std::fs::read_to_string(log_dir.join(".decision-log.md")).unwrap();
    assert!(
        log.contains("— 12 hours — by ") && log.contains("— replaces close \"24 hours\" by "),
        "{log}"
    );
    // By a unique prefix of the full id too.
    let said = run_ok(
        &env,
        &dir,
        &[
            "resolve",
            "--close",
            "undecided-product:docs/prd",
            "--answer",
            "6 hours",
        ],
    );
    assert!(said.contains("    was: close \"12 hours\" by "), "{said}");
}

/// An earlier answer that records no email is described by what it does record (it said `by ?`).
#[test]
fn a_replaced_answer_with_no_email_says_what_it_records() {
    let env = TestEnv::new();
    let dir = env.demo();
    let out = env
        .ucg(&dir)
        .args(["resolve", "--close", "7662cf80acff", "--answer", "24 hours"])
        .env_remove("GIT_AUTHOR_EMAIL")
        .env_remove("GIT_COMMITTER_EMAIL")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = run_ok(
        &env,
        &dir,
        &["resolve", "--close", "7662cf80acff", "--answer", "12 hours"],
    );
    assert!(said.contains("    was: close \"24 hours\" at 20"), "{said}");
}
