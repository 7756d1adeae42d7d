//! The gate as an attacker or a broken machine meets it (issue 16): artifacts that are not regular
//! files, that never end, that have no id or a blank answer, or that are corrupt — the gate stays
//! closed, no reader hangs, and the operator is told what to repair.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const IMPL: &str = "_bmad-output/implementation-artifacts";

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

/// What can stand in an artifact's place.
#[derive(Debug, Clone, Copy)]
enum Hostile {
    Directory,
    Fifo,
    DevZero,
    Dangling,
}

fn plant(path: &Path, hostile: Hostile) {
    let _ = std::fs::remove_file(path);
    match hostile {
        Hostile::Directory => std::fs::create_dir(path).unwrap(),
        Hostile::Fifo => mkfifo(path),
        Hostile::DevZero => std::os::unix::fs::symlink("/dev/zero", path).unwrap(),
        Hostile::Dangling => std::os::unix::fs::symlink("/nonexistent/gone", path).unwrap(),
    }
}

/// Every artifact of the demo's run a command reads, by its name in the artifact directory.
const POSITIONS: [&str; 7] = [
    ".preflight-reds.json",
    ".decisions.json",
    "escalation-7-3.json",
    "deferred-work.md",
    "run-status.json",
    "sprint-status.yaml",
    ".current-story",
];

/// Every command that reads a run, as the sweeps run them.
const READERS: [&[&str]; 15] = [
    &["gate"],
    &["gate", "--json"],
    &["pending"],
    &["pending", "--json"],
    &["status", "--no-pager"],
    &["status", "--json"],
    &["status", "--format", "markdown"],
    &["status", "--prompt"],
    &["epic"],
    &["epic", "--json"],
    &["diff", "--story", "7-1", "--stat"],
    &["resume"],
    &["runs"],
    &["runs", "--json"],
    &["resolve", "--dry-run", "--close", "d1", "--answer", "yes"],
];

fn remove(path: &Path) {
    if path.is_dir() && !path.is_symlink() {
        std::fs::remove_dir_all(path).unwrap();
    } else {
        std::fs::remove_file(path).unwrap();
    }
}

/// Item 1: a registry that is there but cannot be read blocks, named, with the way out (it opened
/// the gate before: "nothing pending"). Item 8/9: no reader hangs on it or fills its memory.
#[test]
fn a_registry_that_cannot_be_read_keeps_the_gate_closed() {
    let env = TestEnv::new();
    let dir = env.demo();
    let registry = dir.join(IMPL).join(".preflight-reds.json");
    // Nothing else pending: only the registry can close the gate.
    std::fs::remove_file(dir.join(IMPL).join("escalation-7-3.json")).unwrap();
    std::fs::remove_file(dir.join(IMPL).join(".escalation-7-3.md")).unwrap();
    std::fs::remove_file(dir.join(IMPL).join("deferred-work.md")).unwrap();
    std::fs::remove_file(&registry).unwrap();
    let gate = |env: &TestEnv| within(env.ucg(&dir).arg("gate"), Duration::from_secs(10));
    let out = gate(&env).expect("gate returns");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for hostile in [Hostile::Directory, Hostile::Fifo, Hostile::DevZero] {
        plant(&registry, hostile);
        let started = Instant::now();
        let out = gate(&env).unwrap_or_else(|| panic!("gate hangs on a {hostile:?} registry"));
        assert!(started.elapsed() < Duration::from_secs(2), "{hostile:?}");
        assert_eq!(out.status.code(), Some(1), "{hostile:?}: {}", stderr(&out));
        let message = flat(&stderr(&out));
        assert!(
            message.contains("the RED registry cannot be read:")
                && message.contains("an artifact of the run cannot be read")
                && message.contains("Repair what cannot be read"),
            "{hostile:?}: {message}"
        );
        assert!(!message.contains("git ucg resolve"), "{message}");
        remove(&registry);
    }
    // A registry over the cap (ucg.maxArtifactBytes) is unreadable too.
    write(
        &registry,
        &format!("{{\"reds\": [], \"pad\": \"{}\"}}", "x".repeat(2000)),
    );
    env.git(&dir, &["config", "ucg.maxArtifactBytes", "1k"]);
    let out = gate(&env).unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("ucg.maxArtifactBytes"),
        "{}",
        stderr(&out)
    );
    env.git(&dir, &["config", "ucg.maxArtifactBytes", "1m"]);
    let out = gate(&env).unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The same registry committed, read from the commit: a loose object of a few dozen bytes
    // that inflates past a 1k cap is refused (its header is read), and read under a 1m cap
    // (its size on disk bounds it: no header read).
    env.git(&dir, &["add", "-f", "--", registry.to_str().unwrap()]);
    env.git(&dir, &["commit", "-q", "--no-verify", "-m", "registry"]);
    let gate_rev = || {
        within(
            env.ucg(&dir).args(["gate", "--rev", "HEAD"]),
            Duration::from_secs(10),
        )
        .unwrap()
    };
    env.git(&dir, &["config", "ucg.maxArtifactBytes", "1k"]);
    let out = gate_rev();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("ucg.maxArtifactBytes"),
        "{}",
        stderr(&out)
    );
    env.git(&dir, &["config", "ucg.maxArtifactBytes", "1m"]);
    let out = gate_rev();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// Items 8 and 9: every reader, against a FIFO and `/dev/zero` in each artifact position, returns
/// within a second — failing closed where it gates, `n/a` or "unreadable" where it reports.
#[test]
fn no_reader_hangs_on_a_fifo_or_an_endless_file() {
    let env = TestEnv::new();
    let dir = env.demo();
    let positions = POSITIONS;
    let commands: [&[&str]; 6] = [
        &["gate"],
        &["pending"],
        &["pending", "--json"],
        &["status", "--no-pager"],
        &["status", "--json"],
        &["status", "--format", "markdown"],
    ];
    for position in positions {
        let path = dir.join(IMPL).join(position);
        let saved = std::fs::read(&path).ok();
        for hostile in [Hostile::Fifo, Hostile::DevZero] {
            plant(&path, hostile);
            for args in commands {
                let started = Instant::now();
                let out = within(env.ucg(&dir).args(args), Duration::from_secs(10))
                    .unwrap_or_else(|| panic!("{args:?} hangs on a {hostile:?} {position}"));
                assert!(
                    started.elapsed() < Duration::from_secs(2),
                    "{args:?} {hostile:?} {position}"
                );
                let gates = !matches!(
                    position,
                    "run-status.json" | "sprint-status.yaml" | ".current-story"
                );
                if args == ["gate"] {
                    // The demo has decisions pending anyway: the gate is closed, and says why.
                    assert_eq!(out.status.code(), Some(1), "{position} {hostile:?}");
                    if gates {
                        assert!(
                            stderr(&out).contains("cannot be read"),
                            "{position} {hostile:?}: {}",
                            stderr(&out)
                        );
                    }
                } else {
                    assert!(
                        matches!(out.status.code(), Some(0 | 2)),
                        "{args:?} {position} {hostile:?}: {}",
                        stderr(&out)
                    );
                }
            }
            remove(&path);
        }
        if let Some(bytes) = saved {
            std::fs::write(&path, bytes).unwrap();
        }
    }
    // The prompt, with FIFOs for its cache and its refresher's lock: the prompt and the detached
    // refresher (the same command with GIT_UCG_PROMPT_BACKGROUND) return promptly.
    let ucg_dir = dir.join(".git/ucg");
    std::fs::create_dir_all(&ucg_dir).unwrap();
    for name in ["prompt-cache", "prompt-refresh.lock"] {
        let _ = std::fs::remove_file(ucg_dir.join(name));
        mkfifo(&ucg_dir.join(name));
    }
    for background in [false, true] {
        let mut command = env.ucg(&dir);
        command.args(["status", "--prompt"]);
        if background {
            command.env("GIT_UCG_PROMPT_BACKGROUND", "1");
        }
        let started = Instant::now();
        let out = within(&mut command, Duration::from_secs(10)).expect("the prompt returns");
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "background: {background}"
        );
        assert_eq!(out.status.code(), Some(0));
    }
}

/// Item 2: a registry entry without an id is pending under the id the registry writer gives it,
/// and `resolve` answers it.
#[test]
fn a_red_without_an_id_is_pending_and_answerable() {
    let env = TestEnv::new();
    let dir = env.demo();
    let registry = dir.join(IMPL).join(".preflight-reds.json");
    write(
        &registry,
        r#"{"reds": [{"kind": "undecided-product", "source": "prd.md:3", "decision_needed": "Which market first?", "evidence": "e"}, {"id": "", "kind": "undecided-architecture", "source": "arch.md:9", "decision_needed": "Queue or log?", "evidence": ""}], "resolved": []}"#,
    );
    let minted = |kind: &str, source: &str, decision: &str| {
        let out = env
            .ucg(&dir)
            .args(["id", "mint", "--", kind, source, decision])
            .output()
            .unwrap();
        stdout(&out).trim().to_string()
    };
    let first = minted("undecided-product", "prd.md:3", "Which market first?");
    let second = minted("undecided-architecture", "arch.md:9", "Queue or log?");
    let out = env.ucg(&dir).args(["pending", "--json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["source"] == "red")
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [first.as_str(), second.as_str()]);
    let out = env
        .ucg(&dir)
        .args(["resolve", "--close", &second, "--answer", "a log"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = env.ucg(&dir).args(["pending", "--json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        !doc["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["id"] == second.as_str()),
        "{doc}"
    );
}

/// Item 7: a close needs an answer on every path; a defer may stay answerless.
#[test]
fn a_blank_answer_closes_nothing() {
    let env = TestEnv::new();
    let dir = env.demo();
    let out = env.ucg(&dir).args(["pending", "--json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = doc["items"][0]["id"].as_str().unwrap().to_string();
    let before = snapshot(&dir.join(IMPL));
    // Issue 32 item 8: invisible answers say nothing either (they closed a RED before).
    for answer in [
        "",
        "   ",
        "\t\n",
        "\u{200b}",
        "\u{200e}",
        "\u{1b}",
        " \u{feff}\u{2060} ",
    ] {
        let out = env
            .ucg(&dir)
            .args(["resolve", "--close", &id, "--answer", answer])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{answer:?}");
        assert!(
            flat(&stderr(&out)).contains("blank answer"),
            "{}",
            stderr(&out)
        );
    }
    let answers = dir.join("answers.json");
    write(
        &answers,
        &format!(r#"{{"answers": [{{"id": "{id}", "answer": " ", "action": "close"}}]}}"#),
    );
    let out = env
        .ucg(&dir)
        .args(["resolve", "--answers"])
        .arg(&answers)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    write(
        &answers,
        &format!(r#"{{"answers": [{{"id": "{id}", "answer": "\u200b", "action": "close"}}]}}"#),
    );
    let out = env
        .ucg(&dir)
        .args(["resolve", "--answers"])
        .arg(&answers)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(snapshot(&dir.join(IMPL)), before, "nothing recorded");
    let out = env
        .ucg(&dir)
        .args(["resolve", "--defer", &id])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// Item 14: a corrupt answers file is said where the operator looks, and the gate does not send
/// them to a `resolve` that will refuse.
#[test]
fn a_corrupt_answers_file_is_shown_and_not_sent_to_resolve() {
    let env = TestEnv::new();
    let dir = env.demo();
    let decisions: PathBuf = dir.join(IMPL).join(".decisions.json");
    write(&decisions, "{\"decisions\": [");
    let out = env.ucg(&dir).args(["pending"]).output().unwrap();
    assert!(
        flat(&stdout(&out)).contains("the answers file cannot be read"),
        "{}",
        stdout(&out)
    );
    let out = env
        .ucg(&dir)
        .args(["status", "--no-pager"])
        .output()
        .unwrap();
    assert!(
        flat(&stdout(&out)).contains("the answers file cannot be read"),
        "{}",
        stdout(&out)
    );
    let out = env.ucg(&dir).args(["gate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let message = flat(&stderr(&out));
    assert!(
        message.contains("the answers file cannot be read"),
        "{message}"
    );
    assert!(
        message.contains("Repair what cannot be read (above) first"),
        "{message}"
    );
    let out = env
        .ucg(&dir)
        .args(["resolve", "--defer", "x"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "resolve refuses it: {}",
        stderr(&out)
    );
    // A corrupt registry is said once, without the writer's refusal or its path twice.
    write(&dir.join(IMPL).join(".preflight-reds.json"), "[1, 2]");
    let out = env.ucg(&dir).args(["gate"]).output().unwrap();
    let message = flat(&stderr(&out));
    assert!(
        message.contains("the RED registry cannot be read: it is not a JSON object"),
        "{message}"
    );
    assert_eq!(
        message.matches(".preflight-reds.json").count(),
        1,
        "{message}"
    );
    assert!(!message.contains("refusing to overwrite"), "{message}");
}

/// Item 12: artifact text cannot drive the terminal — escaped visibly in human output, dropped
/// from the prompt, exact in JSON.
#[test]
fn artifact_text_cannot_drive_the_terminal() {
    let env = TestEnv::new();
    let dir = env.demo();
    let hostile = "7\u{1b}]0;pwned\u{7}\u{1b}[2J\n8";
    let heartbeat = dir.join(IMPL).join("run-status.json");
    let mut doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&heartbeat).unwrap()).unwrap();
    doc["epic"] = hostile.into();
    write(&heartbeat, &doc.to_string());
    let decision = "Pick one\u{1b}[2J\r\u{85}";
    write(
        &dir.join(IMPL).join(".preflight-reds.json"),
        &serde_json::json!({"reds": [{"id": "r1", "kind": "k\u{1b}[31m", "source": "s", "decision_needed": decision, "evidence": ""}], "resolved": []}).to_string(),
    );
    let out = env.ucg(&dir).args(["status", "--prompt"]).output().unwrap();
    assert!(
        !stdout(&out)
            .trim_end_matches('\n')
            .chars()
            .any(char::is_control),
        "{:?}",
        stdout(&out)
    );
    for args in [&["status", "--no-pager"][..], &["pending"], &["gate"]] {
        let out = env.ucg(&dir).args(args).output().unwrap();
        let text = format!("{}{}", stdout(&out), stderr(&out));
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\n'),
            "{args:?}: {text:?}"
        );
        assert!(text.contains("\\x1b[2J"), "{args:?}: {text}");
    }
    let out = env.ucg(&dir).args(["status", "--json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["run"]["epic"], hostile, "{doc}");
}

/// Item 6: strict mode refuses a push from an epic branch to a protected one on the remote.
#[test]
fn strict_mode_checks_the_remote_branch_of_a_push() {
    let env = TestEnv::new();
    let dir = env.repo("strict");
    let remote = env.path().join("remote.git");
    env.git(
        env.path(),
        &["init", "-q", "--bare", remote.to_str().unwrap()],
    );
    env.git(&dir, &["remote", "add", "origin", remote.to_str().unwrap()]);
    env.git(&dir, &["checkout", "-q", "-b", "ultracode/epic-5"]);
    write(&dir.join(IMPL).join(".current-story"), "5-1\n");
    let out = env
        .ucg(&dir)
        .args(["hooks", "install", "--strict", "--only", "pre-push"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let push = |target: &str| {
        env.git_command(&dir)
            .args(["push", "-q", "origin", &format!("HEAD:refs/heads/{target}")])
            .output()
            .unwrap()
    };
    let out = push("main");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("refusing `git push` to 'main'"),
        "{}",
        stderr(&out)
    );
    let out = push("ultracode/epic-5");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// Item 11: a writer killed mid-write leaves a temporary file; the next locked write in that
/// directory removes it once it is old, whatever file it was for.
#[test]
fn a_killed_writers_temporary_is_swept_by_the_next_locked_write() {
    let env = TestEnv::new();
    let dir = env.demo();
    let impl_dir = dir.join(IMPL);
    let litter = impl_dir.join("..decisions.json.ucg-tmp-AbC123");
    let fresh = impl_dir.join(".run-status.json.ucg-tmp-XyZ789");
    write(&litter, "{\"decisions\": [");
    write(&fresh, "{");
    let status = Command::new("touch")
        .args(["-d", "2026-01-01T00:00:00"])
        .arg(&litter)
        .status()
        .unwrap();
    assert!(status.success());
    let out = env
        .ucg(&dir)
        .args(["baseline", "start", "7-9"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!litter.exists(), "the old temporary is swept");
    assert!(fresh.exists(), "a fresh one may be a live writer's");
}

/// Item 15: the small ones.
#[test]
fn story_ids_lock_timeouts_and_git_configuration_from_the_command_line() {
    let env = TestEnv::new();
    let dir = env.demo();
    // Story ids: no control characters; no id whose file names cannot exist.
    for story in ["7-9\nx", "7\u{1b}[2J", &"7".repeat(224)] {
        let out = env
            .ucg(&dir)
            .args(["baseline", "start", story])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{story:?}");
        assert!(
            stderr(&out).contains("invalid story id"),
            "{}",
            stderr(&out)
        );
        assert!(
            !stderr(&out).contains("File name too long"),
            "{}",
            stderr(&out)
        );
    }
    let out = env
        .ucg(&dir)
        .args(["baseline", "start", &"7".repeat(223)])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // A lock timeout that is not a number of seconds is refused.
    for value in ["-1", "abc", "1.5"] {
        let out = env
            .ucg(&dir)
            .args(["baseline", "start", "7-8"])
            .env("GIT_UCG_LOCK_TIMEOUT", value)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{value:?}");
        assert!(
            stderr(&out).contains("GIT_UCG_LOCK_TIMEOUT"),
            "{}",
            stderr(&out)
        );
    }
    // `git -c ucg.gate.sources=…` reaches git-ucg through GIT_CONFIG_PARAMETERS.
    let gate = |params: Option<&str>| {
        let mut command = env.ucg(&dir);
        command.args(["gate", "--json"]);
        if let Some(params) = params {
            command.env("GIT_CONFIG_PARAMETERS", params);
        }
        let out = command.output().unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["blocking"].as_array().unwrap().len()
    };
    assert_eq!(gate(None), 4);
    assert_eq!(gate(Some("'ucg.gate.sources'='red'")), 2);
    // A `.git` file whose directory is gone is named as such.
    let orphan = env.path().join("orphan");
    write(&orphan.join(".git"), "gitdir: /nonexistent/worktrees/x\n");
    let out = env.ucg(&orphan).args(["gate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        flat(&stderr(&out)).contains("points at /nonexistent/worktrees/x, which does not exist"),
        "{}",
        stderr(&out)
    );
    // An artifact directory that is not there opens the gate, with a word.
    let out = env
        .ucg(&dir)
        .args(["gate", "--impl-artifacts", "nowhere"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("does not exist: nothing to gate"),
        "{}",
        stderr(&out)
    );
}

/// Item 10: the decision log is never appended through a symlink out of the project; the pass is
/// refused before anything is recorded.
#[test]
fn resolve_never_appends_through_a_symlink_out_of_the_project() {
    let env = TestEnv::new();
    let dir = env.demo();
    let runs = dir.join("_bmad-output/ultracode-goal");
    let run = std::fs::read_dir(&runs)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let log = run.join(".decision-log.md");
    let outside = env.path().join("outside.md");
    std::fs::copy(&log, &outside).unwrap();
    std::fs::remove_file(&log).unwrap();
    std::os::unix::fs::symlink(&outside, &log).unwrap();
    let before = std::fs::read(&outside).unwrap();
    let decisions = snapshot(&dir.join(IMPL));
    let out = env.ucg(&dir).args(["pending", "--json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = doc["items"][0]["id"].as_str().unwrap().to_string();
    let out = env
        .ucg(&dir)
        .args(["resolve", "--close", &id, "--answer", "yes"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("outside"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&outside).unwrap(), before);
    assert_eq!(snapshot(&dir.join(IMPL)), decisions, "nothing recorded");
}

/// Acceptance: a resolve killed (SIGKILL) at any moment leaves the decision log as its old bytes
/// plus whole sections only.
#[test]
fn a_killed_resolve_appends_whole_sections_or_nothing() {
    let env = TestEnv::new();
    let dir = env.demo();
    let runs = dir.join("_bmad-output/ultracode-goal");
    let run = std::fs::read_dir(&runs)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let log = run.join(".decision-log.md");
    let original = std::fs::read(&log).unwrap();
    let out = env.ucg(&dir).args(["pending", "--json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = doc["items"][0]["id"].as_str().unwrap().to_string();
    for round in 0..24u64 {
        let mut child = env
            .ucg(&dir)
            .args([
                "resolve",
                "--defer",
                &id,
                "--answer",
                &format!("round {round}"),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Kill at a different moment each round: before, during and after the writes.
        std::thread::sleep(Duration::from_micros(round * 700));
        let _ = child.kill();
        let _ = child.wait();
        let now = std::fs::read(&log).unwrap();
        assert!(
            now.starts_with(&original),
            "round {round}: the old bytes are kept"
        );
        let added = String::from_utf8(now[original.len()..].to_vec()).unwrap();
        assert!(
            added.is_empty() || added.ends_with('\n'),
            "round {round}: {added:?}"
        );
        for section in added.split("## ucg-resolve").skip(1) {
            assert!(
                section.contains(&format!("`{id}`")),
                "round {round}: a torn section: {section:?}"
            );
        }
    }
}

/// Item 13: a copied repository's prompt is about the copy, not the original its cache came from.
#[test]
fn a_copied_repositorys_prompt_is_its_own() {
    let env = TestEnv::new();
    let dir = env.demo();
    // A deadline the test does not measure: a loaded machine must not make the prompt stale.
    let prompt = |at: &Path| {
        let out = env
            .ucg(at)
            .args(["status", "--prompt"])
            .env("GIT_CONFIG_COUNT", "1")
            .env("GIT_CONFIG_KEY_0", "ucg.prompt.timeoutMs")
            .env("GIT_CONFIG_VALUE_0", "600000")
            .output()
            .unwrap();
        stdout(&out)
    };
    let original = prompt(&dir);
    assert!(original.contains('R'), "{original}");
    assert_eq!(prompt(&dir), original, "served from the cache");
    let copy = env.path().join("copy");
    let status = Command::new("cp")
        .arg("-a")
        .arg(&dir)
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::remove_file(copy.join(IMPL).join(".preflight-reds.json")).unwrap();
    let copied = prompt(&copy);
    assert!(!copied.contains('R'), "the copy has no REDs: {copied}");
    assert_eq!(prompt(&dir), original, "the original is unchanged");
}

/// The demo's run committed on its epic branch, a branch `side` with one commit off it, and one
/// more commit on the epic (with the tests' fixed dates, a pick onto the side's own parent would
/// remake the very same commit), then `hooks install` with `hooks`. Returns the epic branch, checked
/// out.
fn epic_and_side(env: &TestEnv, dir: &Path, hooks: &[&str]) -> String {
    let ok = |args: &[&str]| {
        let out = env.git_command(dir).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    ok(&["add", "-A"]);
    ok(&["commit", "-q", "--no-verify", "-m", "run artifacts"]);
    let epic = ok(&["branch", "--show-current"]);
    ok(&["checkout", "-q", "-b", "side"]);
    write(&dir.join("side.txt"), "side\n");
    ok(&["add", "side.txt"]);
    ok(&["commit", "-q", "--no-verify", "-m", "side work"]);
    ok(&["checkout", "-q", &epic]);
    write(&dir.join("epic.txt"), "epic\n");
    ok(&["add", "epic.txt"]);
    ok(&["commit", "-q", "--no-verify", "-m", "epic work"]);
    let out = env
        .ucg(dir)
        .args(["hooks", "install"])
        .args(hooks)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    epic
}

/// Item 3: the commits `git commit` does not make are gated too — merge, am and rebase by their
/// own hooks, cherry-pick and revert through the prepare-commit-msg hook (`--all-commits`), also
/// through an alias — and ordinary ref updates (a new branch, a checkout) pass, as does the
/// `--no-verify` bypass of `git commit`, typed or through an alias.
#[test]
fn every_way_of_committing_is_gated() {
    let env = TestEnv::new();
    let dir = env.demo();
    let git = |args: &[&str]| env.git_command(&dir).args(args).output().unwrap();
    let ok = |args: &[&str]| {
        let out = git(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    };
    let epic = epic_and_side(&env, &dir, &["--all-commits"]);
    let patch = env.path().join("side.patch");
    let out = git(&["format-patch", "-1", "side", "--stdout"]);
    std::fs::write(&patch, &out.stdout).unwrap();

    let refused = |args: &[&str], verb: &str, cleanup: &[&str]| {
        let out = git(args);
        assert_ne!(out.status.code(), Some(0), "{args:?} went through");
        assert!(
            stderr(&out).contains(&format!("git-ucg: {verb} refused")),
            "{args:?}: {}",
            stderr(&out)
        );
        if !cleanup.is_empty() {
            let _ = git(cleanup);
        }
        let head = String::from_utf8(git(&["log", "-1", "--format=%s"]).stdout).unwrap();
        assert_eq!(head.trim(), "epic work", "{args:?} moved the branch");
    };
    refused(
        &["merge", "--no-edit", "side"],
        "merge",
        &["merge", "--abort"],
    );
    refused(&["am", patch.to_str().unwrap()], "am", &["am", "--abort"]);
    refused(&["rebase", "side"], "rebase", &[]);
    refused(
        &["cherry-pick", "side"],
        "cherry-pick",
        &["cherry-pick", "--abort"],
    );
    refused(
        &["-c", "alias.pick=cherry-pick", "pick", "side"],
        "cherry-pick",
        &["cherry-pick", "--abort"],
    );
    refused(
        &["revert", "--no-edit", "HEAD"],
        "revert",
        &["revert", "--abort"],
    );
    // `--no-verify` still bypasses a commit: prepare-commit-msg leaves `git commit` to pre-commit.
    for args in [
        &[
            "commit",
            "-q",
            "--no-verify",
            "--allow-empty",
            "-m",
            "bypassed",
        ][..],
        &[
            "-c",
            "alias.ci=commit -q",
            "ci",
            "--no-verify",
            "--allow-empty",
            "-m",
            "bypassed",
        ],
    ] {
        ok(args);
        ok(&["reset", "-q", "--hard", "HEAD~1"]);
    }
    // Ordinary ref updates are not commits.
    ok(&["checkout", "-q", "-b", "other"]);
    ok(&["checkout", "-q", &epic]);
    ok(&["branch", "-q", "-f", "other", "side"]);

    // Answered and committed: every way goes through.
    let out = env.ucg(&dir).args(["pending", "--json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut resolve = vec!["resolve".to_string()];
    for item in doc["items"].as_array().unwrap() {
        resolve.extend(["--close".into(), item["id"].as_str().unwrap().into()]);
        resolve.extend(["--answer".into(), "decided".into()]);
    }
    let out = env.ucg(&dir).args(&resolve).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    ok(&["add", "-A"]);
    ok(&["commit", "-q", "-m", "answers"]);
    ok(&["cherry-pick", "side"]);
    ok(&["revert", "--no-edit", "HEAD"]);
    ok(&["merge", "-q", "--no-edit", "side"]);
}

/// The reference-transaction hook (`--only reference-transaction`) refuses a new commit on a
/// branch whatever made it — a cherry-pick, plumbing's `commit-tree` + `update-ref` — and lets a
/// new branch and a fast-forward through.
#[test]
fn the_reference_transaction_hook_refuses_new_commits_on_a_branch() {
    let env = TestEnv::new();
    let dir = env.demo();
    let git = |args: &[&str]| env.git_command(&dir).args(args).output().unwrap();
    let ok = |args: &[&str]| {
        let out = git(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    let epic = epic_and_side(&env, &dir, &["--only", "reference-transaction"]);
    let before = ok(&["rev-parse", "HEAD"]);
    let out = git(&["cherry-pick", "side"]);
    assert_ne!(out.status.code(), Some(0), "the cherry-pick went through");
    assert!(
        stderr(&out).contains("git-ucg: commit refused"),
        "{}",
        stderr(&out)
    );
    let _ = git(&["cherry-pick", "--abort"]);
    let tree = ok(&["rev-parse", "HEAD^{tree}"]);
    let made = ok(&["commit-tree", &tree, "-p", "HEAD", "-m", "plumbing"]);
    let out = git(&["update-ref", &format!("refs/heads/{epic}"), &made]);
    assert_ne!(out.status.code(), Some(0), "update-ref went through");
    assert_eq!(ok(&["rev-parse", "HEAD"]), before, "the branch moved");
    ok(&["branch", "-q", "another", "side"]);
    ok(&["checkout", "-q", "-b", "behind", "HEAD~1"]);
    ok(&["merge", "-q", "--ff-only", &epic]);
}

/// Items 4 and 5: the run belongs to the repository. A linked worktree cannot commit or push the
/// epic branch while the main worktree's run waits; a push of an unrelated branch passes (unless
/// `ucg.gate.scope = all`).
#[test]
fn the_run_gates_its_epic_branch_from_every_worktree_and_only_it() {
    let env = TestEnv::new();
    let dir = env.demo();
    let remote = env.path().join("remote.git");
    env.git(
        env.path(),
        &["init", "-q", "--bare", remote.to_str().unwrap()],
    );
    env.git(&dir, &["remote", "add", "origin", remote.to_str().unwrap()]);
    let out = env.ucg(&dir).args(["hooks", "install"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The run stays in the main worktree (its artifacts are not tracked), which moves to main;
    // the epic branch is checked out in a linked worktree with no artifacts of its own.
    env.git(&dir, &["checkout", "-q", "main"]);
    let linked = env.path().join("linked");
    env.git(
        &dir,
        &[
            "worktree",
            "add",
            "-q",
            linked.to_str().unwrap(),
            "ultracode/epic-7",
        ],
    );
    let git = |cwd: &Path, args: &[&str]| env.git_command(cwd).args(args).output().unwrap();
    write(&linked.join("story.txt"), "work\n");
    git(&linked, &["add", "story.txt"]);
    let out = git(&linked, &["commit", "-m", "from the linked worktree"]);
    assert_ne!(
        out.status.code(),
        Some(0),
        "the epic branch was committed to"
    );
    assert!(
        stderr(&out).contains("whose epic branch is ultracode/epic-7"),
        "{}",
        stderr(&out)
    );
    let out = git(&linked, &["push", "origin", "ultracode/epic-7"]);
    assert_ne!(out.status.code(), Some(0), "the epic branch was pushed");
    assert!(stderr(&out).contains("push refused"), "{}", stderr(&out));

    // A hotfix on main is not the run's business.
    write(&dir.join("hotfix.txt"), "fix\n");
    git(&dir, &["add", "hotfix.txt"]);
    let out = git(&dir, &["commit", "--no-verify", "-m", "hotfix"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = git(&dir, &["push", "origin", "main"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // …unless the team wants every push held.
    env.git(&dir, &["config", "ucg.gate.scope", "all"]);
    let out = git(&dir, &["push", "origin", "main:refs/heads/other"]);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("ucg.gate.scope = all"),
        "{}",
        stderr(&out)
    );
}

/// Item 8 for the neighbouring systems: a FIFO, or a link to /dev/zero, in place of an ultragoal
/// state file does not hang `goal` (the reference waits on both for ever; the lesson ledger's case
/// is in tests/cli/lesson.rs).
#[test]
fn goal_does_not_hang_on_a_fifo_state_file() {
    let env = TestEnv::new();
    let dir = env.repo("project");
    let omt = env.path().join("omt");
    std::fs::create_dir_all(&omt).unwrap();
    let state = omt.join("ultragoal-state-s1.json");
    mkfifo(&state);
    let commands = [&["goal", "get"][..], &["goal", "status"], &["goal", "show"]];
    let fifo_then_zero = [false, true]
        .into_iter()
        .flat_map(|zero| commands.map(|a| (a, zero)));
    for (args, zero) in fifo_then_zero {
        if zero && !state.is_symlink() {
            std::fs::remove_file(&state).unwrap();
            std::os::unix::fs::symlink("/dev/zero", &state).unwrap();
        }
        let mut command = env.ucg(&dir);
        command
            .args(args)
            .env("OMT_SESSION_ID", "s1")
            .env("OMT_DIR", &omt);
        let started = Instant::now();
        let out = within(&mut command, Duration::from_secs(10))
            .unwrap_or_else(|| panic!("{args:?} hangs on a FIFO state file"));
        assert!(started.elapsed() < Duration::from_secs(2), "{args:?}");
        match out.status.code() {
            Some(0 | 1) => {}
            Some(2) => {
                let kind = if zero { "a device" } else { "a FIFO" };
                assert!(stderr(&out).contains(kind), "{}", stderr(&out));
            }
            other => panic!("{args:?}: exit {other:?}"),
        }
        if args[1] == "status" {
            assert_eq!(stdout(&out), "absent\n", "{args:?}, /dev/zero: {zero}");
        }
    }
}

/// Issue 32 items 6 and 7: something other than a directory in the artifact directory's place (a
/// file, a FIFO, a link to /dev/zero, a link to nothing), or a link to nothing in the registry's,
/// blocks the commit exactly as `gate` does — before, `gate` exited 1 while the hook let the
/// commit through ("nothing pending"), and `gate` also said the directory did not exist. A pass
/// remembered while nothing was there does not hold once something is.
#[test]
fn the_hook_and_gate_agree_on_what_is_in_the_artifacts_place() {
    let env = TestEnv::new();
    let dir = env.demo_with_hooks();
    let artifacts = dir.join(IMPL);
    let registry = artifacts.join(".preflight-reds.json");
    let limit = Duration::from_secs(10);
    let mut n = 0;
    let mut commit = |env: &TestEnv| {
        n += 1;
        write(&dir.join("work.txt"), &format!("{n}\n"));
        env.git(&dir, &["add", "work.txt"]);
        let mut command = env.git_command(&dir);
        command.args(["commit", "-q", "-m", "work"]);
        let started = Instant::now();
        let out = within(&mut command, limit).expect("the commit returns");
        assert!(started.elapsed() < Duration::from_secs(2));
        out
    };
    let gate = |env: &TestEnv| within(env.ucg(&dir).arg("gate"), limit).expect("gate returns");

    // Nothing there: nothing to gate, and the pass is remembered.
    std::fs::rename(&artifacts, dir.join("moved-aside")).unwrap();
    assert_eq!(gate(&env).status.code(), Some(0));
    assert_eq!(commit(&env).status.code(), Some(0));
    assert_eq!(commit(&env).status.code(), Some(0));
    type Plant = fn(&Path);
    let hostile: [(&str, Plant); 4] = [
        ("a file", |p| write(p, "not a directory\n")),
        ("a FIFO", mkfifo),
        ("a link to /dev/zero", |p| {
            std::os::unix::fs::symlink("/dev/zero", p).unwrap()
        }),
        ("a link to nothing", |p| {
            std::os::unix::fs::symlink("/nonexistent/run", p).unwrap()
        }),
    ];
    for (what, plant) in hostile {
        plant(&artifacts);
        let gated = gate(&env);
        let said = flat(&stderr(&gated));
        assert_eq!(gated.status.code(), Some(1), "{what}: {said}");
        assert!(
            said.contains("the artifact directory cannot be read"),
            "{what}: {said}"
        );
        assert!(!said.contains("does not exist"), "{what}: {said}");
        let out = commit(&env);
        assert_eq!(out.status.code(), Some(1), "{what}: {}", stderr(&out));
        assert!(
            flat(&stderr(&out)).contains("the artifact directory cannot be read"),
            "{what}: {}",
            stderr(&out)
        );
        env.git(&dir, &["reset", "-q"]);
        remove(&artifacts);
    }

    // The run back, everything answered, then a link to nothing in the registry's place.
    std::fs::rename(dir.join("moved-aside"), &artifacts).unwrap();
    env.close_everything(&dir);
    assert_eq!(commit(&env).status.code(), Some(0));
    remove(&registry);
    std::os::unix::fs::symlink(dir.join("gone.json"), &registry).unwrap();
    let gated = gate(&env);
    assert_eq!(gated.status.code(), Some(1), "{}", stderr(&gated));
    assert!(
        flat(&stderr(&gated))
            .contains("the RED registry cannot be read: it is a symbolic link to nothing"),
        "{}",
        stderr(&gated)
    );
    let out = commit(&env);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}

/// Issue 32 items 10 and 11: a FIFO, `/dev/zero` or a link to nothing in the place of each
/// cache under `.git/ucg/` and of `.git/HEAD`: every command returns within a second, and none
/// grows without end (a FIFO as the line-count cache hung `status`, `epic` and `diff --story`; a
/// HEAD linked to /dev/zero grew every command to gigabytes). A cache in a hostile state is
/// ignored (the command works); a hostile HEAD is refused, named, as git refuses it.
#[test]
fn no_command_hangs_or_grows_on_a_hostile_cache_or_head() {
    let env = TestEnv::new();
    let dir = env.demo_with_hooks();
    let commands = READERS;
    let run_all = |what: &str| -> Vec<Option<i32>> {
        commands
            .iter()
            .map(|args| {
                let started = Instant::now();
                let out = within(env.ucg(&dir).args(*args), Duration::from_secs(10))
                    .unwrap_or_else(|| panic!("{args:?} hangs on {what}"));
                assert!(
                    started.elapsed() < Duration::from_secs(2),
                    "{args:?} on {what}"
                );
                assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
                out.status.code()
            })
            .collect()
    };
    // Every cache there (a run of each command), then each replaced by each hostile thing.
    let expected = run_all("nothing hostile");
    let git_ucg = dir.join(".git/ucg");
    let mut caches: Vec<PathBuf> = std::fs::read_dir(&git_ucg)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    caches.push(git_ucg.join("gate-cache"));
    assert!(
        caches
            .iter()
            .any(|p| p.to_string_lossy().contains("line-counts-")),
        "{caches:?}"
    );
    let hostile = [Hostile::Fifo, Hostile::DevZero, Hostile::Directory];
    for cache in &caches {
        for thing in hostile {
            plant(cache, thing);
            let what = format!("{thing:?} as {}", cache.display());
            assert_eq!(run_all(&what), expected, "{what}");
            remove(cache);
        }
        std::os::unix::fs::symlink("/nonexistent", cache).unwrap();
        assert_eq!(run_all("a dangling cache"), expected);
        remove(cache);
    }
    // HEAD: refused, named, at once.
    let head = dir.join(".git/HEAD");
    let kept = std::fs::read(&head).unwrap();
    for thing in [Hostile::Fifo, Hostile::DevZero] {
        plant(&head, thing);
        for args in commands {
            let out = within(env.ucg(&dir).args(args), Duration::from_secs(10))
                .unwrap_or_else(|| panic!("{args:?} hangs on a {thing:?} HEAD"));
            if args.contains(&"--prompt") {
                // A prompt says nothing about a repository it cannot read.
                assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
                assert_eq!(stdout(&out), "", "{}", stderr(&out));
                continue;
            }
            assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
            assert!(
                flat(&stderr(&out)).contains(".git/HEAD is not a HEAD file"),
                "{args:?}: {}",
                stderr(&out)
            );
        }
        remove(&head);
        std::fs::write(&head, &kept).unwrap();
    }
}

/// Issue 32 item 1: a push is judged by the commits it carries, not by its names. From the epic
/// branch with decisions pending, `HEAD:refs/heads/y`, a sha or `HEAD~0` under a new name carry the
/// epic's own commits and are refused (they passed before); a hotfix on main, which carries none,
/// goes, under its name or another.
#[test]
fn a_push_carrying_the_epic_is_the_epics_whatever_its_name() {
    let env = TestEnv::new();
    let dir = env.demo();
    let remote = env.path().join("remote.git");
    env.git(
        env.path(),
        &["init", "-q", "--bare", remote.to_str().unwrap()],
    );
    env.git(&dir, &["remote", "add", "origin", remote.to_str().unwrap()]);
    env.git(&dir, &["push", "-q", "--no-verify", "origin", "main"]);
    let out = env.ucg(&dir).args(["hooks", "install"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let push = |refspec: &str| {
        env.git_command(&dir)
            .args(["push", "origin", refspec])
            .output()
            .unwrap()
    };
    let tip = env.git(&dir, &["rev-parse", "HEAD"]);
    for refspec in [
        "HEAD:refs/heads/y".to_string(),
        format!("{tip}:refs/heads/y2"),
        "HEAD~0:refs/heads/y3".to_string(),
        "HEAD~1:refs/heads/older".to_string(),
        "ultracode/epic-7".to_string(),
    ] {
        let out = push(&refspec);
        assert_eq!(out.status.code(), Some(1), "{refspec}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("git-ucg: push refused"),
            "{refspec}: {}",
            stderr(&out)
        );
    }
    // A hotfix on main carries no epic commit.
    env.git(&dir, &["checkout", "-q", "main"]);
    write(&dir.join("hotfix.txt"), "fix\n");
    env.git(&dir, &["add", "hotfix.txt"]);
    env.git(&dir, &["commit", "-q", "--no-verify", "-m", "hotfix"]);
    for refspec in ["main", "HEAD:refs/heads/hotfix"] {
        let out = push(refspec);
        assert_eq!(out.status.code(), Some(0), "{refspec}: {}", stderr(&out));
    }
}

/// Issue 32 item 2: on the server, a symbolic ref aliasing a protected branch is that branch: a
/// push through `refs/heads/trunk` → `refs/heads/main` of a commit with pending decisions is
/// refused (it put the commit on main before).
#[test]
fn the_server_gate_protects_a_branch_through_its_aliases() {
    let env = TestEnv::new();
    let dir = env.demo();
    env.git(&dir, &["add", "-A", "-f"]);
    env.git(&dir, &["commit", "-q", "-m", "the run's artifacts"]);
    let remote = env.path().join("origin.git");
    env.git(
        env.path(),
        &["init", "-q", "--bare", remote.to_str().unwrap()],
    );
    env.git(&dir, &["remote", "add", "origin", remote.to_str().unwrap()]);
    env.git(&dir, &["push", "-q", "origin", "main"]);
    env.git(
        &remote,
        &["symbolic-ref", "refs/heads/trunk", "refs/heads/main"],
    );
    let out = env
        .ucg(&remote)
        .args(["hooks", "install", "--server"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let main_before = env.git(&remote, &["rev-parse", "refs/heads/main"]);
    let out = env
        .git_command(&dir)
        .args(["push", "origin", "HEAD:refs/heads/trunk"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("refused"), "{}", stderr(&out));
    assert_eq!(
        env.git(&remote, &["rev-parse", "refs/heads/main"]),
        main_before
    );
}

/// Issue 32 item 12: writes never leave the project through a link at any level. A run folder
/// that is a link out of the project: `resolve` appended the decision log there; now it refuses,
/// naming the link, and records nothing. An artifact directory linked to elsewhere inside the
/// project is followed (a legitimate layout).
#[test]
fn no_write_leaves_the_project_through_a_linked_directory() {
    let env = TestEnv::new();
    let dir = env.demo();
    let runs = dir.join("_bmad-output/ultracode-goal");
    let run = std::fs::read_dir(&runs)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let elsewhere = env.path().join("elsewhere");
    std::fs::rename(&run, &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &run).unwrap();
    let log_before = std::fs::read(elsewhere.join(".decision-log.md")).unwrap();
    let artifacts_before = snapshot(&dir.join(IMPL));
    let red = "undecided-product:docs/prd.md:7662cf80acff";
    let out = env
        .ucg(&dir)
        .args(["resolve", "--close", red, "--answer", "24 hours"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        flat(&stderr(&out)).contains("a symlink on the way leads to")
            && flat(&stderr(&out)).contains("outside the project"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read(elsewhere.join(".decision-log.md")).unwrap(),
        log_before
    );
    assert_eq!(
        snapshot(&dir.join(IMPL)),
        artifacts_before,
        "nothing recorded"
    );
    // The run folder back; the artifact directory moved inside the project and linked: followed.
    std::fs::remove_file(&run).unwrap();
    std::fs::rename(&elsewhere, &run).unwrap();
    let moved = dir.join("artifacts-elsewhere-inside");
    std::fs::rename(dir.join(IMPL), &moved).unwrap();
    std::os::unix::fs::symlink(&moved, dir.join(IMPL)).unwrap();
    let out = env
        .ucg(&dir)
        .args(["resolve", "--close", red, "--answer", "24 hours"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(moved.join(".decisions.json").is_file());
}

/// Issue 32 item 9: no escape sequence from an artifact or an answer reaches a terminal or the
/// decision log. An OSC and a CSI in a RED's fields, an escalation, a ledger row and a story key;
/// every command run with `--color never` (so any ESC it prints is a leak), the guided pass over a
/// stdin that is not a terminal included; an answer holding one goes into the log visibly.
#[test]
fn no_escape_sequence_reaches_a_terminal_or_the_log() {
    const OSC: &str = "\u{1b}]0;PWN\u{7}";
    const CSI: &str = "\u{1b}[2J";
    let env = TestEnv::new();
    let dir = env.demo();
    let artifacts = dir.join(IMPL);
    let registry = artifacts.join(".preflight-reds.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&registry).unwrap()).unwrap();
    for red in doc["reds"].as_array_mut().unwrap() {
        for (field, sequence) in [("decision_needed", OSC), ("evidence", CSI)] {
            let text = format!("{}{sequence}", red[field].as_str().unwrap());
            red[field] = serde_json::Value::String(text);
        }
    }
    write(&registry, &serde_json::to_string_pretty(&doc).unwrap());
    let sidecar = artifacts.join("escalation-7-3.json");
    let mut escalation: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sidecar).unwrap()).unwrap();
    escalation["decision_needed"] = format!("split it{OSC}").into();
    write(&sidecar, &escalation.to_string());
    let ledger = artifacts.join("deferred-work.md");
    let text = std::fs::read_to_string(&ledger).unwrap();
    write(
        &ledger,
        &text.replace("Operator sign-off", &format!("Operator{CSI} sign-off{OSC}")),
    );
    let sprint = artifacts.join("sprint-status.yaml");
    let text = std::fs::read_to_string(&sprint).unwrap();
    write(
        &sprint,
        &text.replace(
            "  7-3: in-progress\n",
            &format!("  7-3: in-progress\n  7-4{OSC}: backlog\n"),
        ),
    );
    let leaks = |out: &Output| {
        let all = format!("{}{}", stdout(out), stderr(out));
        all.contains('\u{1b}') || all.contains('\u{7}')
    };
    let commands: [&[&str]; 9] = [
        &["status"],
        &["pending"],
        &["epic"],
        &["resume"],
        &["gate"],
        &["runs"],
        &["status", "--prompt"],
        &["diff", "--story", "7-1"],
        &["resolve", "--interactive"],
    ];
    for args in commands {
        let out = env
            .ucg(&dir)
            .args(["--color", "never"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                let _ = child.stdin.take().unwrap().write_all(b"s\ns\ns\ns\ns\n");
                child.wait_with_output()
            })
            .unwrap();
        assert!(
            !leaks(&out),
            "{args:?} leaks an escape:\n{}{}",
            stdout(&out),
            stderr(&out)
        );
        if args[0] == "resolve" || args[0] == "pending" {
            // The fields were shown, visibly.
            let all = format!("{}{}", stdout(&out), stderr(&out));
            assert!(all.contains("\\x1b]0;PWN\\x07"), "{args:?}: {all}");
        }
    }
    let red = "undecided-product:docs/prd.md:7662cf80acff";
    let out = env
        .ucg(&dir)
        .args([
            "resolve",
            "--close",
            red,
            "--answer",
            &format!("24 hours{OSC}"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!leaks(&out), "{}", stderr(&out));
    let runs = dir.join("_bmad-output/ultracode-goal");
    let run = std::fs::read_dir(&runs)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let log = std::fs::read_to_string(run.join(".decision-log.md")).unwrap();
    assert!(!log.contains('\u{1b}') && !log.contains('\u{7}'), "{log}");
    assert!(log.contains("24 hours\\x1b]0;PWN\\x07"), "{log}");
}

/// Issue 32 items 3 and 4: a remembered pass that cannot be fooled. A cache cut after any line
/// (the end line kept or not) or forged is decided in full: a RED added since is refused (the
/// registry's stamp line was cut away, and the pass was trusted). An include git places in
/// another user's home (`~user/…`, not expanded before) leaves no pass remembered.
#[test]
fn a_remembered_pass_cut_forged_or_unplaceable_is_decided_in_full() {
    let env = TestEnv::new();
    let dir = env.demo();
    env.close_everything(&dir);
    let out = env.ucg(&dir).args(["hooks", "install"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let commit = || {
        env.git_command(&dir)
            .args(["commit", "-q", "--allow-empty", "-m", "x"])
            .output()
            .unwrap()
    };
    let cache = dir.join(".git/ucg/gate-cache");
    // Files changed within two seconds are not trusted by their stamps.
    std::thread::sleep(Duration::from_millis(2100));
    assert_eq!(commit().status.code(), Some(0));
    let whole = std::fs::read_to_string(&cache).expect("the pass is remembered");
    let lines: Vec<&str> = whole.lines().collect();
    let end = lines[lines.len() - 1];
    let registry = dir.join(IMPL).join(".preflight-reds.json");
    let original = std::fs::read(&registry).unwrap();
    let mut doc: serde_json::Value = serde_json::from_slice(&original).unwrap();
    let mut red = doc["reds"][0].clone();
    red["id"] = "undecided-product:docs/prd.md:000000000000".into();
    red["decision_needed"] = "A new question?".into();
    doc["reds"].as_array_mut().unwrap().push(red);
    let with_red = serde_json::to_string_pretty(&doc).unwrap();
    for keep in 1..lines.len() - 1 {
        for with_end in [false, true] {
            let mut cut: String = lines[..keep].iter().map(|l| format!("{l}\n")).collect();
            if with_end {
                cut.push_str(&format!("{end}\n"));
            }
            std::fs::write(&cache, &cut).unwrap();
            write(&registry, &with_red);
            let out = commit();
            assert_eq!(
                out.status.code(),
                Some(1),
                "cut after {keep}: {}",
                stderr(&out)
            );
            std::fs::write(&registry, &original).unwrap();
        }
    }
    // Forged: well formed and sealed, its contents line (the last field) the hashes of what is
    // there now — the registry with the RED, the answers —, stamping one file the decision does
    // not read. Only the rule that a pass must stamp what it decided on refuses it.
    let fields: usize = end.split(' ').nth(1).unwrap().parse().unwrap();
    let hash = |bytes: &[u8]| -> String {
        use sha2::Digest;
        sha2::Sha256::digest(bytes)[..16]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    let answers = std::fs::read(dir.join(IMPL).join(".decisions.json")).unwrap();
    let mut forged: String = lines[..fields].iter().map(|l| format!("{l}\n")).collect();
    forged.push_str(&format!(
        "{} {}\n- nonexistent-file\nend {fields} 1 x\n",
        hash(with_red.as_bytes()),
        hash(&answers)
    ));
    std::fs::write(&cache, reseal_cache(&forged)).unwrap();
    write(&registry, &with_red);
    let out = commit();
    assert_eq!(out.status.code(), Some(1), "forged: {}", stderr(&out));
    std::fs::write(&registry, &original).unwrap();
    // An include in another user's home: no pass is remembered.
    env.git(
        &dir,
        &["config", "include.path", "~root/git-ucg-test-absent.cfg"],
    );
    let _ = std::fs::remove_file(&cache);
    std::thread::sleep(Duration::from_millis(2100));
    assert_eq!(commit().status.code(), Some(0));
    assert!(
        !cache.exists(),
        "a pass was remembered over an unplaceable include"
    );
}

/// Issue 32's sweep: a directory, a FIFO, `/dev/zero` or a link to nothing in each artifact's
/// place, with everything else answered: every command that reads the run returns within a
/// second or two, never panics, and the commit hook decides exactly as `gate` does (refusing
/// where the artifact gates, passing where it does not).
#[test]
fn every_reader_and_the_hook_agree_with_gate_on_every_hostile_artifact() {
    let env = TestEnv::new();
    let dir = env.demo_with_hooks();
    env.close_everything(&dir);
    let positions = POSITIONS;
    let limit = Duration::from_secs(10);
    let mut cases = 0;
    for position in positions {
        let path = dir.join(IMPL).join(position);
        let saved = std::fs::read(&path).ok();
        for hostile in [
            Hostile::Directory,
            Hostile::Fifo,
            Hostile::DevZero,
            Hostile::Dangling,
        ] {
            plant(&path, hostile);
            let what = format!("{hostile:?} as {position}");
            for args in READERS {
                let started = Instant::now();
                let out = within(env.ucg(&dir).args(args), limit)
                    .unwrap_or_else(|| panic!("{args:?} hangs on {what}"));
                assert!(
                    started.elapsed() < Duration::from_secs(2),
                    "{args:?} {what}"
                );
                assert!(!stderr(&out).contains("panicked"), "{args:?} {what}");
                assert!(
                    matches!(out.status.code(), Some(0..=2)),
                    "{args:?} {what}: {:?} {}",
                    out.status.code(),
                    stderr(&out)
                );
            }
            let gated = within(env.ucg(&dir).arg("gate"), limit).unwrap();
            let mut commit = env.git_command(&dir);
            commit.args(["commit", "-q", "--allow-empty", "-m", "sweep"]);
            let committed = within(&mut commit, limit).unwrap_or_else(|| panic!("commit: {what}"));
            assert_eq!(
                committed.status.code(),
                gated.status.code(),
                "{what}: the hook said {}, gate {}",
                stderr(&committed),
                stderr(&gated)
            );
            // The ones that gate refuse; the heartbeat, the sprint file and the story marker do not.
            let gates = !matches!(
                position,
                "run-status.json" | "sprint-status.yaml" | ".current-story"
            );
            // An answers file that cannot be read closes nothing (the REDs wait again).
            assert_eq!(gated.status.code(), Some(u8::from(gates).into()), "{what}");
            remove(&path);
            cases += 1;
        }
        if let Some(bytes) = saved {
            std::fs::write(&path, bytes).unwrap();
        }
    }
    assert_eq!(cases, 28);
}

/// Issue 32 item 5: an answers file rewritten in place through a shared memory mapping, whose page
/// was already dirty (so the kernel moves no change time), after a pass was remembered: the next
/// commit is decided on the new content and refused (before, the stamps matched and it passed).
/// The mapping is python3's (`mmap`), held open by a child across the two commits.
#[test]
fn a_write_through_a_shared_mapping_ends_the_remembered_pass() {
    use std::io::{BufRead, BufReader, Write};
    let env = TestEnv::new();
    let dir = env.demo_with_hooks();
    let artifacts = dir.join(IMPL);
    let registry = artifacts.join(".preflight-reds.json");
    let answers = artifacts.join(".decisions.json");
    let reds = std::fs::read(&registry).unwrap();
    env.close_everything(&dir);
    // The REDs back in the registry, closed by the answers file alone.
    std::fs::write(&registry, &reds).unwrap();
    assert_eq!(
        env.ucg(&dir).arg("gate").output().unwrap().status.code(),
        Some(0)
    );
    let text = std::fs::read_to_string(&answers).unwrap();
    let at = text.find("\"close\"").unwrap() + 1;
    // Maps the file, dirties its page (a write fault: the change time moves now), says so, then
    // writes `defer` over the first `close` when told, in place, without msync.
    let script = format!(
        "import mmap, sys\n\
         f = open(sys.argv[1], 'r+b')\n\
         m = mmap.mmap(f.fileno(), 0)\n\
         m[{at}] = m[{at}]\n\
         print('ready', flush=True)\n\
         sys.stdin.readline()\n\
         m[{at}:{end}] = b'defer'\n\
         print('written', flush=True)\n\
         sys.stdin.readline()\n",
        end = at + 5
    );
    let mut child = Command::new("python3")
        .args(["-c", &script])
        .arg(&answers)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let mut said = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    said.read_line(&mut line).unwrap();
    assert_eq!(line, "ready\n");
    // Past the racy window: the pass is remembered.
    std::thread::sleep(Duration::from_millis(2100));
    let commit = || {
        let mut command = env.git_command(&dir);
        command.args(["commit", "-q", "--allow-empty", "-m", "work"]);
        command.output().unwrap()
    };
    assert_eq!(commit().status.code(), Some(0));
    assert!(dir.join(".git/ucg/gate-cache").is_file());
    let stamp = |path: &Path| {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path).unwrap();
        (m.ctime(), m.ctime_nsec(), m.size(), m.ino())
    };
    let before = stamp(&answers);
    let mut input = child.stdin.take().unwrap();
    input.write_all(b"go\n").unwrap();
    line.clear();
    said.read_line(&mut line).unwrap();
    assert_eq!(line, "written\n");
    assert!(std::fs::read_to_string(&answers).unwrap()[at..].starts_with("defer"));
    let refused = commit();
    let after = stamp(&answers);
    drop(input);
    let _ = child.wait();
    assert_eq!(
        refused.status.code(),
        Some(1),
        "stamps {before:?} → {after:?}: {}",
        stderr(&refused)
    );
    assert!(
        stderr(&refused).contains("undecided-product"),
        "{}",
        stderr(&refused)
    );
}
