//! `git ucg notify --exec CMD` (issue 20 item 2): one run of CMD per change of the pending set,
//! never twice for one change, a failure retried with the next change, a crash before the
//! announcement made good after a restart.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

const IMPL: &str = "_bmad-output/implementation-artifacts";

/// The documents CMD received, one per line of `log`.
fn announcements(log: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn wait_for(log: &Path, count: usize) -> Vec<serde_json::Value> {
    let start = Instant::now();
    loop {
        let seen = announcements(log);
        if seen.len() >= count || start.elapsed() > Duration::from_secs(20) {
            return seen;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The id the registry writer gives a RED of ours with `decision`.
fn red_id(env: &TestEnv, dir: &Path, decision: &str) -> String {
    let out = env
        .ucg(dir)
        .args([
            "id",
            "mint",
            "--",
            "undecided-product",
            "docs/prd.md:40",
            decision,
        ])
        .output()
        .unwrap();
    stdout(&out).trim().to_string()
}

/// Adds a RED to the registry, as a preflight would.
fn add_red(dir: &Path, id: &str, decision: &str) {
    let path = dir.join(IMPL).join(".preflight-reds.json");
    let mut registry: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    registry["reds"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({
            "id": id,
            "source": "docs/prd.md:40",
            "kind": "undecided-product",
            "decision_needed": decision,
            "evidence": "\"TBD\"",
        }));
    let mut text = serde_json::to_string_pretty(&registry).unwrap();
    text.push('\n');
    // Replaced by a rename, as the registry writer does: the watcher sees one complete file.
    let temp = dir.join(IMPL).join(".reds.tmp");
    std::fs::write(&temp, text).unwrap();
    std::fs::rename(&temp, &path).unwrap();
}

struct Watcher(Child);

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn watcher(env: &TestEnv, dir: &Path, command: &str) -> Watcher {
    Watcher(
        env.ucg(dir)
            .args(["notify", "--watch", "--exec", command])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

fn setup() -> (TestEnv, PathBuf, PathBuf) {
    let env = TestEnv::new();
    let dir = env.demo();
    env.git(
        &dir,
        &[
            "config",
            "--add",
            "ucg.decider",
            "undecided-product=pm@example.com",
        ],
    );
    let log = env.path().join("announced.jsonl");
    (env, dir, log)
}

#[test]
fn a_new_red_a_close_and_another_red_are_three_announcements() {
    let (env, dir, log) = setup();
    let command = format!(
        "{{ tr -d '\\n'; echo; }} >> '{}'; echo \"$GIT_UCG_DECIDERS\" >> '{}.env'",
        log.display(),
        log.display()
    );
    // What is pending at the start is announced once, by a first check.
    let out = env
        .ucg(&dir)
        .args(["notify", "--exec", &command])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(announcements(&log).len(), 1);
    let out = env
        .ucg(&dir)
        .args(["notify", "--exec", &command])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        announcements(&log).len(),
        1,
        "a change is never announced twice"
    );
    std::fs::remove_file(&log).unwrap();

    let _watch = watcher(&env, &dir, &command);
    std::thread::sleep(Duration::from_millis(700));
    let red = red_id(&env, &dir, "Is there a free tier?");
    let red = red.as_str();
    add_red(&dir, red, "Is there a free tier?");
    let seen = wait_for(&log, 1);
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0]["schema"], "git-ucg.notify/1");
    assert_eq!(seen[0]["new"][0]["id"], red);
    assert_eq!(seen[0]["new"][0]["deciders"][0], "pm@example.com");
    assert_eq!(seen[0]["closed"], serde_json::json!([]));
    assert_eq!(seen[0]["pending"], 5);
    let out = env
        .ucg(&dir)
        .args(["resolve", "--close", red, "--answer", "no"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let seen = wait_for(&log, 2);
    assert_eq!(seen[1]["new"], serde_json::json!([]));
    assert_eq!(seen[1]["closed"], serde_json::json!([red]));
    assert_eq!(seen[1]["pending"], 4);
    let other = red_id(&env, &dir, "Which regions first?");
    let other = other.as_str();
    add_red(&dir, other, "Which regions first?");
    let seen = wait_for(&log, 3);
    assert_eq!(seen[2]["new"][0]["id"], other);
    // Nothing else happens: exactly three.
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(announcements(&log).len(), 3);
    let env_lines = std::fs::read_to_string(format!("{}.env", log.display())).unwrap();
    assert!(
        env_lines.lines().any(|l| l == "pm@example.com"),
        "{env_lines}"
    );
}

#[test]
fn a_change_made_while_the_watcher_is_down_is_announced_once_after_a_restart() {
    let (env, dir, log) = setup();
    let command = format!("{{ tr -d '\\n'; echo; }} >> '{}'", log.display());
    let watch = watcher(&env, &dir, &command);
    let seen = wait_for(&log, 1);
    assert_eq!(seen.len(), 1, "the start is announced");
    // The record is written once the command has run: a watcher killed in between announces
    // the start again (at least once, by design), which is not what this test is about.
    let record = dir.join(".git/ucg/notify.json");
    let start = Instant::now();
    while !record.is_file() && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    // Killed before it could announce what comes next.
    drop(watch);
    let red = red_id(&env, &dir, "Is there a free tier?");
    let red = red.as_str();
    add_red(&dir, red, "Is there a free tier?");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(announcements(&log).len(), 1);
    let _watch = watcher(&env, &dir, &command);
    let seen = wait_for(&log, 2);
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[1]["new"][0]["id"], red);
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(announcements(&log).len(), 2, "announced once");
}

#[test]
fn a_failing_command_is_reported_and_the_change_announced_with_the_next_one() {
    let (env, dir, log) = setup();
    let fail = env.path().join("fail");
    write(&fail, "");
    let command = format!(
        "if [ -e '{}' ]; then exit 7; fi; {{ tr -d '\\n'; echo; }} >> '{}'",
        fail.display(),
        log.display()
    );
    let out = env
        .ucg(&dir)
        .args(["notify", "--exec", &command])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("failed (exit status: 7)"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_file(&fail).unwrap();
    let red = red_id(&env, &dir, "Is there a free tier?");
    let red = red.as_str();
    add_red(&dir, red, "Is there a free tier?");
    let out = env
        .ucg(&dir)
        .args(["notify", "--exec", &command])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let seen = announcements(&log);
    assert_eq!(seen.len(), 1);
    // The failed change (the four of the start) and the new RED, in one announcement.
    assert_eq!(seen[0]["new"].as_array().unwrap().len(), 5, "{}", seen[0]);
    assert_eq!(seen[0]["pending"], 5);
}

/// `status --watch --exec CMD` announces as `notify --watch` does, beside its rendering.
#[test]
fn the_status_watch_announces_too() {
    let (env, dir, log) = setup();
    let command = format!("{{ tr -d '\\n'; echo; }} >> '{}'", log.display());
    let _watch = Watcher(
        env.ucg(&dir)
            .args(["status", "--watch", "--json", "--exec", &command])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let seen = wait_for(&log, 1);
    assert_eq!(seen.len(), 1, "the start is announced");
    assert_eq!(seen[0]["new"].as_array().unwrap().len(), 4);
    let red = red_id(&env, &dir, "Is there a free tier?");
    add_red(&dir, &red, "Is there a free tier?");
    let seen = wait_for(&log, 2);
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[1]["new"][0]["id"], red.as_str());
}

/// The record of what was announced is git-ucg's own: a FIFO, `/dev/zero` or a link out of the
/// project in its place is neither waited on, read whole nor written through, and the record
/// written in its place takes none of its permissions.
#[test]
fn the_announcement_record_is_replaced_not_followed() {
    use std::os::unix::fs::PermissionsExt;
    let (env, dir, log) = setup();
    let command = format!("cat >> '{}'", log.display());
    let record = dir.join(".git/ucg/notify.json");
    std::fs::create_dir_all(record.parent().unwrap()).unwrap();
    let outside = env.path().join("outside.txt");
    write(&outside, "keep\n");
    std::fs::set_permissions(&outside, std::fs::Permissions::from_mode(0o666)).unwrap();
    let planted: [&dyn Fn(&Path); 3] = [
        &|p| {
            let status = std::process::Command::new("mkfifo")
                .arg(p)
                .status()
                .unwrap();
            assert!(status.success());
        },
        &|p| std::os::unix::fs::symlink("/dev/zero", p).unwrap(),
        &|p| std::os::unix::fs::symlink(&outside, p).unwrap(),
    ];
    for plant in planted {
        let _ = std::fs::remove_file(&record);
        plant(&record);
        let start = Instant::now();
        let out = env
            .ucg(&dir)
            .args(["notify", "--exec", &command])
            .output()
            .unwrap();
        assert!(start.elapsed() < Duration::from_secs(5));
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let meta = std::fs::symlink_metadata(&record).unwrap();
        assert!(meta.is_file(), "{meta:?}");
        assert_eq!(meta.permissions().mode() & 0o022, 0, "writable by others");
    }
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep\n");
}

/// `notify --rev REV` (issue 31): a CI job or the shared remote announces what a branch waits on,
/// read from its tree — here in a bare repository, which has no work tree at all.
#[test]
fn notify_reads_a_branch_from_its_tree_even_in_a_bare_repository() {
    let env = TestEnv::new();
    let dir = env.demo();
    env.git(&dir, &["add", "-A", "-f"]);
    env.git(&dir, &["commit", "-q", "-m", "the run"]);
    let bare = env.path().join("origin.git");
    env.git(
        env.path(),
        &[
            "clone",
            "-q",
            "--bare",
            dir.to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );
    let log = env.path().join("announced.log");
    let exec = format!("cat >> {}", log.display());
    let notify = || {
        env.ucg(&bare)
            .args(["notify", "--rev", "ultracode/epic-7", "--exec", &exec])
            .output()
            .unwrap()
    };
    let out = notify();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let seen = announcements(&log);
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0]["pending"], 4);
    assert_eq!(seen[0]["new"].as_array().unwrap().len(), 4);
    // Nothing changed on the branch: nothing announced again.
    let out = notify();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(announcements(&log).len(), 1);
    // Without --rev, a bare repository has nothing to read.
    let out = env
        .ucg(&bare)
        .args(["notify", "--exec", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("git ucg notify --rev REV"),
        "{}",
        stderr(&out)
    );
}

/// Issue 32 item 13: a decider value that is not one address (a newline and a `Bcc:` header, a
/// second recipient, a command substitution) is ignored with a warning naming it: it reaches
/// neither `GIT_UCG_DECIDERS` nor `pending`'s "decided by" column.
#[test]
fn a_decider_value_that_is_not_one_address_reaches_no_one() {
    let env = TestEnv::new();
    let dir = env.demo();
    for value in [
        "undecided-product=pm@example.com\nBcc: evil@attacker.example",
        "undecided-architecture=a@x.com, evil@y.com",
        "budget-overrun=$(touch pwned)@x.com",
        "decision=lead@example.com",
    ] {
        env.git(&dir, &["config", "--add", "ucg.decider", value]);
    }
    let env_file = env.path().join("deciders.env");
    let command = format!(
        "printf '%s' \"$GIT_UCG_DECIDERS\" > '{}'",
        env_file.display()
    );
    let out = env
        .ucg(&dir)
        .args(["notify", "--exec", &command])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&env_file).unwrap(),
        "lead@example.com"
    );
    assert!(
        stderr(&out).contains("is not one address"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.join("pwned").exists());
    let out = env.ucg(&dir).args(["pending"]).output().unwrap();
    let shown = stdout(&out);
    assert!(
        !shown.contains("Bcc") && !shown.contains("evil@"),
        "{shown}"
    );
    assert!(shown.contains("lead@example.com"), "{shown}");
}
