//! `cargo bench --bench goal`: the ultragoal reads a prompt or a hook runs on every turn —
//! `goal status` against `git rev-parse`, and `goal stop-hook` (the no-progress count with its
//! git fingerprint) against the three git commands the reference hook spawns for the same check —
//! on a repository of 10,000 files, in a state directory holding 50 other sessions.

#[path = "support/mod.rs"]
mod support;

use serde_json::json;
use std::path::Path;
use std::process::{Command, Stdio};
use support::{git_command, time_pair, RepoShape, BIN};

fn goal(root: &Path, omt: &Path, args: &[&str]) -> Command {
    let mut command = support::ucg(root, &["goal"]);
    command
        .args(args)
        .env("OMT_DIR", omt)
        .env("OMT_SESSION_ID", "S")
        .env("TZ", "UTC");
    command
}

fn pursuing_state(last_seen_head: &str) -> serde_json::Value {
    let stories: Vec<_> = (1..=20)
        .map(|i| json!({"id": format!("S{i}"), "story": format!("story {i}"),
            "acceptance_criteria": ["works"], "verification_surface": "tests", "status": "confirmed"}))
        .collect();
    json!({
        "outcome": "ship the feature", "verification_surface": "cargo test", "max_iterations": 1_000_000,
        "phase": "pursuing", "iteration": 0, "started_at": "2026-08-20T10:00:00+00:00", "active": true,
        "stories": stories, "last_seen_head": last_seen_head,
        "last_seen_stories_digest": "0", "last_touched_at": "2026-08-20T10:00:00+00:00",
    })
}

fn main() {
    println!("| benchmark | input | git-ucg median | comparison median | ratio |");
    println!("|---|---|---|---|---|");
    let (root, _keep) = support::scratch();
    let repo = root.join("repo");
    std::fs::create_dir_all(&repo).expect("dir");
    support::write_repo(&repo, RepoShape::plain(10_000, 3));
    let rev = |spec: &str| {
        let out = git_command(&repo, &["rev-parse", spec])
            .output()
            .expect("git");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    let (head, parent) = (rev("HEAD"), rev("HEAD~1"));
    let omt = root.join("omt");
    std::fs::create_dir_all(&omt).expect("dir");
    for i in 0..50 {
        let state = pursuing_state(&head);
        std::fs::write(
            omt.join(format!("ultragoal-state-other{i}.json")),
            state.to_string(),
        )
        .expect("write");
    }
    let state_file = omt.join("ultragoal-state-S.json");
    std::fs::write(
        &state_file,
        serde_json::to_string_pretty(&pursuing_state(&head)).expect("json"),
    )
    .expect("write");

    let (ours, git) = time_pair(
        201,
        || goal(&repo, &omt, &["status"]),
        || git_command(&repo, &["rev-parse", "--abbrev-ref", "HEAD"]),
    );
    println!(
        "| `goal status` | a pursuing state, 50 other sessions | {ours:.2} ms | {git:.2} ms (`git rev-parse --abbrev-ref HEAD`) | {:.2}× |",
        ours / git
    );

    let event = root.join("event.json");
    std::fs::write(&event, json!({"session_id": "S", "cwd": repo}).to_string()).expect("write");
    let hook = |last_seen: &str| {
        // Reset outside the timing: the stop to measure starts from this fingerprint.
        std::fs::write(
            &state_file,
            serde_json::to_string_pretty(&pursuing_state(last_seen)).expect("json"),
        )
        .expect("write");
        let mut command = goal(&repo, &omt, &["stop-hook"]);
        command.stdin(Stdio::from(std::fs::File::open(&event).expect("event")));
        command
    };
    let reference_check = |prior: &str| {
        let mut command = Command::new("sh");
        command.current_dir(&repo).arg("-c").arg(format!(
            "git rev-parse HEAD >/dev/null && git merge-base --is-ancestor {prior} HEAD && git diff --quiet {prior}..HEAD; true"
        ));
        command
    };
    let (ours, git) = time_pair(101, || hook(&head), || reference_check(&head));
    println!(
        "| `goal stop-hook`, no progress | 10,000 files, 20 stories | {ours:.2} ms | {git:.2} ms (the reference's git checks: rev-parse, merge-base --is-ancestor, diff --quiet) | {:.2}× |",
        ours / git
    );
    let (ours, git) = time_pair(101, || hook(&parent), || reference_check(&parent));
    println!(
        "| `goal stop-hook`, a new commit since the last stop | 10,000 files, 20 stories | {ours:.2} ms | {git:.2} ms (the same git checks) | {:.2}× |",
        ours / git
    );
    let _ = BIN;
}
