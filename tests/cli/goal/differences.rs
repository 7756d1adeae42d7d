//! The README's "Differences from the reference (goal)": one test per row. Everything else is the
//! reference's behaviour, checked by the recorded conformance cases and the other tests.
//! (The row on two writers at once is tested by `locking::concurrent_writers_*_lose_nothing`.)

use super::support::*;
use crate::common::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// Row 1: a valueless flag the reference would take as the text `true` is refused, nothing
/// written; one the reference refuses itself keeps the reference's refusal.
#[test]
fn a_valueless_flag_is_refused_not_read_as_true() {
    let g = Goal::new();
    g.pursuing();
    for args in [
        &["set", "--phase", "planning", "--outcome"][..],
        &["set", "--phase", "pursuing", "--constraints"],
        &["set", "--phase", "pursuing", "--codex-goal-objective"],
        &["set-blocked", "--reason"],
        &["adopt", "--src"],
        &["request-complete", "--codex-goal-json"],
        &[
            "dismiss-review-finding",
            "--ref",
            "a:1",
            "--class",
            "correctness",
            "--rationale",
        ],
        &[
            "dismiss-review-finding",
            "--ref",
            "--class",
            "correctness",
            "--rationale",
            "r",
        ],
    ] {
        let message = g.refused_unchanged(args);
        let flag = args.iter().rev().find(|a| a.starts_with("--")).copied();
        assert!(
            message.starts_with(&format!("{}: --", args[0]))
                && message.ends_with(
                    " requires a value (the ultragoal state CLI would take it as the text \"true\")\n"
                )
                && message.lines().count() == 1,
            "{args:?} ({flag:?}): {message}"
        );
    }
    // The reference refuses `true` as a verdict or a phase itself: its refusal stands.
    assert_eq!(
        g.refused_unchanged(&["set-verdict", "--verdict"]),
        "set-verdict: invalid --verdict \"true\" (one of APPROVE|REQUEST_CHANGES|COMMENT|absent)\n"
    );
    assert_eq!(
        g.refused_unchanged(&["set", "--phase"]),
        "ultragoal-state: Error: set: phase must be one of planning|pursuing (got \"true\"). \
complete is request-complete-only; budget_limited/blocked are system-only.\n"
    );
}

fn crashed(message: &str) -> bool {
    message.starts_with("ultragoal-state: refused — ")
        && message.ends_with("the ultragoal state CLI dies on (a TypeError or RangeError)\n")
        && message.lines().count() == 1
}

/// Row 2: where the reference dies on a TypeError, git-ucg refuses with one line and writes
/// nothing.
#[test]
fn a_value_the_reference_dies_on_is_refused_in_one_line() {
    let g = Goal::new();
    g.pursuing();
    // A state file holding `null`.
    std::fs::write(g.state_path(), "null").unwrap();
    let message = g.refused_unchanged(&["set-verdict", "--verdict", "APPROVE"]);
    assert!(crashed(&message), "{message}");
    // A story that is `null`.
    let g = Goal::new();
    g.ok(&["set", "--phase", "planning", "--outcome", "o"]);
    let list = json!([story("S1"), null]).to_string();
    let message = g.refused_unchanged(&["set-stories", "--json", &list]);
    assert!(crashed(&message), "{message}");
    // A verification surface that is not a string.
    let mut five = story("S1");
    five["verification_surface"] = json!(5);
    let list = json!([five]).to_string();
    assert!(crashed(&g.refused_unchanged(&[
        "set-stories",
        "--json",
        &list
    ])));
    // A Codex objective that is not a string, every other gate holding: no completion.
    let g = Goal::new();
    g.completable();
    let mut state = g.state();
    state["codex_goal_objective"] = json!(5);
    g.write_state(&state);
    let message = g.refused_unchanged(&["request-complete"]);
    assert!(
        message.contains("codex_goal_objective is a number, not a string"),
        "{message}"
    );
    assert!(crashed(&message), "{message}");
    assert_eq!(g.state()["phase"], "pursuing");
}

/// Row 3: a value nested deeper than 10,000 levels, which the reference parses but can never
/// write back (`JSON.stringify` overflows): readers take the file as unreadable, writers refuse,
/// nothing is written, nothing overflows.
#[test]
fn a_value_nested_too_deep_is_refused_without_overflowing() {
    let g = Goal::new();
    g.pursuing();
    let deep = format!("{}{}", "[".repeat(50_000), "]".repeat(50_000));
    let text = std::fs::read_to_string(g.state_path()).unwrap().replacen(
        "\"outcome\": \"CLI prints version\"",
        &format!("\"outcome\": {deep}"),
        1,
    );
    std::fs::write(g.state_path(), &text).unwrap();
    assert_eq!(g.stdout(&["get"]), "null\n");
    assert_eq!(g.stdout(&["status"]), "absent\n");
    let message = g.refused_unchanged(&["set-verdict", "--verdict", "APPROVE"]);
    assert!(crashed(&message), "{message}");
    let json = format!("[{deep}]");
    let message = g.refused_unchanged(&["add-story", "--json", &json]);
    assert_eq!(
        message,
        "add-story: invalid JSON — SyntaxError: JSON Parse error: nested deeper than 10000 levels\n"
    );
}

/// Row 4: the usage line names git-ucg's own subcommands too.
#[test]
fn the_usage_line_names_the_extra_subcommands() {
    let g = Goal::new();
    for args in [&["frobnicate"][..], &[]] {
        let message = g.refused(args);
        assert!(
            message.starts_with("Usage: git ucg goal <set|")
                && message.contains("|current|show|gc|stop-hook|diff> [options]"),
            "{message}"
        );
    }
}

/// Row 5: outside a git repository without `OMT_DIR`, the warning is printed once per command,
/// and only when a file is named (a refusal before that prints none, as the reference).
#[test]
fn the_outside_git_warning_is_printed_once() {
    let env = TestEnv::new();
    let dir = env.path().join("plain proj");
    std::fs::create_dir_all(&dir).unwrap();
    let run = |args: &[&str]| {
        env.ucg(&dir)
            .arg("goal")
            .args(args)
            .env("HOME", env.path())
            .env_remove("OMT_DIR")
            .env("OMT_SESSION_ID", "S")
            .output()
            .unwrap()
    };
    let warning = format!(
        "omt-dir: non-canonical project 'plain-proj' from non-git path {}",
        dir.display()
    );
    // Names the state file several times (read, seed, lock, write) and the review artifacts.
    let out = run(&["set", "--phase", "planning", "--outcome", "o"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), format!("{warning}\n"));
    assert!(env
        .path()
        .join(".omt/plain-proj/ultragoal-state-S.json")
        .is_file());
    // A refusal before any file is named prints no warning.
    let out = run(&["set", "--phase", "complete"]);
    assert!(!stderr(&out).contains("omt-dir"), "{}", stderr(&out));
}

/// Row 6: `--help` and `-h` print help.
#[test]
fn help_prints_help() {
    let g = Goal::new();
    for args in [
        &["--help"][..],
        &["-h"],
        &["set", "--help"],
        &["request-complete", "-h"],
    ] {
        let out = g.run(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert!(
            stdout(&out).contains("Usage:"),
            "{args:?}: {}",
            stdout(&out)
        );
    }
    assert_eq!(g.state_bytes(), None);
}

/// Row 8: a recovery guard that stays fresh does not stall a writer's release: after the lock's
/// wait the writer removes its own lock without it.
#[test]
fn a_fresh_recovery_guard_does_not_stall_the_release() {
    let g = Goal::new();
    g.pursuing();
    let mut guard = g.state_path().into_os_string();
    guard.push(".lock.recovery");
    std::fs::create_dir(&guard).unwrap();
    let started = Instant::now();
    g.ok(&["set-blocked", "--reason", "x"]);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(g.state()["phase"], "blocked");
    let mut lock = g.state_path().into_os_string();
    lock.push(".lock");
    assert!(!std::path::Path::new(&lock).exists());
    assert!(std::path::Path::new(&guard).is_dir());
}

/// A lone surrogate of the file is kept, and a character of U+10F800–U+10FFFF is kept as itself
/// (as the reference keeps both).
#[test]
fn lone_surrogates_and_the_last_characters_round_trip() {
    let g = Goal::new();
    g.pursuing();
    let text = std::fs::read_to_string(g.state_path()).unwrap();
    let text = text.replacen(
        "\"outcome\": \"CLI prints version\"",
        "\"outcome\": \"a\\ud800b\"",
        1,
    );
    std::fs::write(g.state_path(), text).unwrap();
    g.ok(&["set-verdict", "--verdict", "COMMENT"]);
    let written = std::fs::read_to_string(g.state_path()).unwrap();
    assert!(written.contains("\"outcome\": \"a\\ud800b\""), "{written}");
    let text = written.replacen("a\\ud800b", "\u{10f800}", 1);
    std::fs::write(g.state_path(), text).unwrap();
    g.ok(&["set-verdict", "--verdict", "COMMENT"]);
    let written = std::fs::read_to_string(g.state_path()).unwrap();
    assert!(written.contains("\"outcome\": \"\u{10f800}\""), "{written}");
}

/// Row 9: git-ucg's own flags: `--session`, `--omt-dir`, `list-others --json`.
#[test]
fn git_ucgs_own_flags() {
    let g = Goal::new();
    g.pursuing();
    let out = g.run_as("T", &["list-others", "--json"]);
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["schema"], "git-ucg.goal-others/1");
    assert_eq!(doc["sessions"][0]["session"], "S");
    assert_eq!(g.stdout(&["--session", "S", "status"]), "pursuing\n");
    let elsewhere = g.env.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    assert_eq!(
        g.stdout(&["--omt-dir", elsewhere.to_str().unwrap(), "status"]),
        "absent\n"
    );
}
