//! Edge cases a second reading of the implementation found: each was a real failure first.

use super::support::*;
use crate::common::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant, SystemTime};

fn stop(g: &Goal) -> Output {
    output_with_stdin(
        &mut g.command_as(&g.sid, &["stop-hook"]),
        json!({"session_id": g.sid, "cwd": g.repo})
            .to_string()
            .as_bytes(),
    )
}

use std::process::Output;

/// Adoption moves the state file only, as the reference does (issue 15, item 3): the adopter's
/// own verdict and code-review artifacts stay, and the source's stay under the source's name.
#[test]
fn adoption_leaves_the_artifacts_where_they_are() {
    let mut g = Goal::new();
    g.sid = "B".into();
    g.completable();
    g.ok(&["request-complete"]);
    let a = "A";
    let run_a = |args: &[&str]| {
        let out = g.run_as(a, args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    };
    run_a(&[
        "set",
        "--phase",
        "planning",
        "--outcome",
        "other work",
        "--verification-surface",
        "v",
    ]);
    run_a(&["set-stories", "--single"]);
    run_a(&["set", "--phase", "pursuing"]);
    std::fs::write(
        g.omt.join("ultragoal-verdict-A.json"),
        approving(&["S1"]).to_string(),
    )
    .unwrap();
    let verdict_b = std::fs::read(g.omt.join("ultragoal-verdict-B.json")).unwrap();
    let review_b = std::fs::read(g.codereview_path()).unwrap();
    let out = g.run_as("B", &["adopt", "--src", a]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(g.state()["outcome"], "other work");
    assert_eq!(
        std::fs::read(g.omt.join("ultragoal-verdict-B.json")).unwrap(),
        verdict_b
    );
    assert_eq!(std::fs::read(g.codereview_path()).unwrap(), review_b);
    assert!(g.omt.join("ultragoal-verdict-A.json").exists());
    assert!(!g.state_path_of(a).exists());
}

/// A dangling symbolic link where the lock belongs never hangs a writer: it is stale.
#[test]
fn a_dangling_symlink_lock_never_hangs() {
    let g = Goal::new();
    g.pursuing();
    let mut lock = g.state_path().into_os_string();
    lock.push(".lock");
    std::os::unix::fs::symlink("/nonexistent/ucg", &lock).unwrap();
    let started = Instant::now();
    // A lock that cannot be examined is stale (the reference's rule): set aside, then taken.
    g.ok(&["set-blocked", "--reason", "x"]);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(g.state()["phase"], "blocked");
    assert!(std::fs::symlink_metadata(&lock).is_err());
    let out = stop(&g);
    assert_eq!(out.status.code(), Some(0));
}

/// A live owner holds the lock — whatever its recorded start — until the lock is 30 s old (the
/// reference's rule: pid liveness or age, nothing else).
#[test]
fn a_live_pid_keeps_a_fresh_lock() {
    let g = Goal::new();
    g.pursuing();
    let lock = hold_lock(&g.state_path());
    let owner = json!({"ownerPid": std::process::id(), "token": "t", "startedAt": 1_000});
    std::fs::write(lock.join("owner.json"), owner.to_string()).unwrap();
    assert!(g
        .refused_unchanged(&["set-blocked", "--reason", "x"])
        .contains("state lock contended"));
    let dir = std::fs::File::open(&lock).unwrap();
    dir.set_modified(std::time::SystemTime::now() - Duration::from_secs(31))
        .unwrap();
    g.ok(&["set-blocked", "--reason", "x"]);
    assert_eq!(g.state()["phase"], "blocked");
    assert!(!lock.exists());
}

/// At the cap, a stop whose write keeps failing blocks five times, then lets the agent stop
/// (the reference would block forever).
#[test]
fn the_failure_escape_holds_at_the_cap_too() {
    let g = Goal::new();
    g.pursuing();
    let mut state = g.state();
    state["iteration"] = json!(9);
    g.write_state(&state);
    let lock = hold_lock(&g.state_path());
    let before = g.state_bytes();
    for _ in 0..5 {
        assert!(stdout(&stop(&g)).contains("NO-PROGRESS LIMIT REACHED 10/10"));
    }
    assert_eq!(stdout(&stop(&g)), "{\"continue\":true}\n");
    assert_eq!(g.state_bytes(), before);
    std::fs::remove_dir_all(lock).unwrap();
}

/// Numbers at the edge of what JSON integers hold neither panic nor wrap; they are JavaScript
/// doubles, as in the reference.
#[test]
fn counters_saturate() {
    let g = Goal::new();
    g.pursuing();
    let mut state = g.state();
    state["iteration"] = json!(i64::MAX);
    state["max_iterations"] = json!(i64::MAX);
    state["review_dispatch_cap"] = json!(i64::MAX);
    g.write_state(&state);
    let out = stop(&g);
    assert!(
        stdout(&out).contains("NO-PROGRESS LIMIT REACHED"),
        "{}",
        stdout(&out)
    );
    // JavaScript numbers: 2^63 - 1 is the double 2^63, written as JavaScript writes it.
    assert_eq!(g.state()["iteration"], json!(9223372036854776000u64));
    let mut state = g.state();
    state["phase"] = json!("pursuing");
    state["active"] = json!(true);
    g.write_state(&state);
    g.ok(&["approve-review-dispatch-renewal"]);
    assert_eq!(
        g.state()["review_dispatch_cap"],
        json!(9223372036854776000u64)
    );
}

/// GC leaves alone a state file that cannot be read yet (a seed being written, a file being
/// repaired): without a time in it, its modification time counts.
#[test]
fn gc_keeps_a_fresh_unreadable_state() {
    let g = Goal::new();
    g.seed();
    std::fs::write(g.state_path_of("HALF"), "").unwrap();
    std::fs::write(g.state_path_of("BROKEN"), "{\"phase\": ").unwrap();
    assert_eq!(g.stdout(&["gc"]), "");
    assert!(g.state_path_of("HALF").exists() && g.state_path_of("BROKEN").exists());
    let old = SystemTime::now() - Duration::from_secs(7 * 3600);
    for sid in ["HALF", "BROKEN"] {
        let file = std::fs::File::options()
            .write(true)
            .open(g.state_path_of(sid))
            .unwrap();
        file.set_modified(old).unwrap();
    }
    assert_eq!(g.stdout(&["gc"]).lines().count(), 2);
}

/// A state directory whose path is not UTF-8 is shown, not a panic.
#[test]
fn a_non_utf8_state_directory() {
    use std::os::unix::ffi::OsStrExt;
    let mut g = Goal::new();
    g.omt = g.env.path().join(std::ffi::OsStr::from_bytes(b"om\xfft"));
    std::fs::create_dir_all(&g.omt).unwrap();
    g.pursuing();
    let doc: Value = serde_json::from_str(&g.stdout(&["show", "--json"])).unwrap();
    assert!(doc["state_file"].as_str().unwrap().contains('\u{fffd}'));
    g.ok(&["gc", "--json"]);
}

/// `status` applies the readers' schema guard; `set-verdict` on an absent file leaves an inert
/// seed (the reference reads the absent file as `{}`, not as planning); a corrupt file's
/// `resume-pursuit` refusal is the reference's line, then the reason.
#[test]
fn reference_reads_of_odd_states() {
    let g = Goal::new();
    std::fs::write(g.state_path(), r#"{"phase": "pursuing", "active": "yes"}"#).unwrap();
    assert_eq!(g.stdout(&["status"]), "absent\n");
    std::fs::remove_file(g.state_path()).unwrap();
    g.ok(&["set-verdict", "--verdict", "APPROVE"]);
    let state = g.state();
    assert_eq!(
        (&state["phase"], &state["objective_verdict"]),
        (&json!("planning"), &json!("APPROVE"))
    );
    let doc: Value = serde_json::from_str(&g.stdout(&["get"])).unwrap();
    assert_eq!(doc["pristine"], true);
    std::fs::write(g.state_path(), "{").unwrap();
    let message = g.refused_unchanged(&["resume-pursuit"]);
    assert!(
        message.starts_with(
            "ultragoal-state: Error: resume-pursuit: refused — state is corrupt or invalid\n"
        ),
        "{message}"
    );
    // Stored values the reference would keep are kept (only null falls back to a default).
    g.write_state(&json!({"phase": "planning", "active": true, "outcome": 7, "iteration": 0}));
    g.ok(&["set", "--phase", "planning", "--plan-path", "p"]);
    assert_eq!(g.state()["outcome"], 7);
}

/// A pursuit that starts over on a re-seeded state (the old one reaped) records a new base.
#[test]
fn a_reseeded_pursuit_records_a_new_base() {
    let g = Goal::new();
    g.pursuing();
    write(&g.repo.join("one.txt"), "1\n");
    g.env.git(&g.repo, &["add", "."]);
    g.env.git(&g.repo, &["commit", "-qm", "one"]);
    std::fs::remove_file(g.state_path()).unwrap();
    g.pursuing();
    assert_eq!(g.stdout(&["diff", "--numstat"]), "");
}
