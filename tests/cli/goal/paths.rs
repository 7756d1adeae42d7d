//! `git ucg goal`: where ultragoal state lives, the session rules, `status`.

use crate::common::*;

#[test]
fn status_reads_the_sessions_state_file() {
    let env = TestEnv::new();
    let dir = env.repo("my project");
    let omt = env.path().join(".omt/my-project");
    let status = |sid: Option<&str>, extra: &[&str]| {
        let mut command = env.ucg(&dir);
        command.args(["goal", "status"]).args(extra);
        if let Some(sid) = sid {
            command.env("OMT_SESSION_ID", sid);
        }
        command.output().unwrap()
    };
    // No state yet: absent.
    let out = status(Some("S1"), &[]);
    assert_eq!(
        (out.status.code(), stdout(&out)),
        (Some(0), "absent\n".to_string())
    );
    // The default directory is $HOME/.omt/<project, spaces as dashes>.
    write(
        &omt.join("ultragoal-state-S1.json"),
        r#"{"phase": "pursuing", "active": true, "iteration": 0, "max_iterations": 10}"#,
    );
    assert_eq!(stdout(&status(Some("S1"), &[])), "pursuing\n");
    // Terminal phases too; an unknown phase is absent.
    write(
        &omt.join("ultragoal-state-S2.json"),
        r#"{"phase": "complete", "active": false, "iteration": 0, "max_iterations": 10}"#,
    );
    assert_eq!(
        stdout(&status(Some("S1"), &["--session", "S2"])),
        "complete\n"
    );
    write(
        &omt.join("ultragoal-state-S3.json"),
        r#"{"phase": "finished"}"#,
    );
    assert_eq!(stdout(&status(Some("S3"), &[])), "absent\n");
    // A linked worktree shares the repository's directory.
    let linked = env.path().join("wt");
    env.git(&dir, &["worktree", "add", "-q", linked.to_str().unwrap()]);
    let out = env
        .ucg(&linked)
        .args(["goal", "status"])
        .env("OMT_SESSION_ID", "S1")
        .output()
        .unwrap();
    assert_eq!(stdout(&out), "pursuing\n");
    // OMT_DIR and --omt-dir override it.
    let elsewhere = env.path().join("elsewhere");
    write(
        &elsewhere.join("ultragoal-state-S1.json"),
        r#"{"phase": "blocked", "active": false, "iteration": 0, "max_iterations": 10}"#,
    );
    let out = env
        .ucg(&dir)
        .args(["goal", "status"])
        .env("OMT_SESSION_ID", "S1")
        .env("OMT_DIR", &elsewhere)
        .output()
        .unwrap();
    assert_eq!(stdout(&out), "blocked\n");
    assert_eq!(
        stdout(&status(
            Some("S1"),
            &["--omt-dir", elsewhere.to_str().unwrap()]
        )),
        "blocked\n"
    );
}

#[test]
fn session_ids_are_checked_before_anything_runs() {
    let env = TestEnv::new();
    let dir = env.repo("r");
    let run = |vars: &[(&str, &str)]| {
        let mut command = env.ucg(&dir);
        command.args(["goal", "status"]);
        for (k, v) in vars {
            command.env(k, v);
        }
        command.output().unwrap()
    };
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "ultragoal-state: Error: No session id: neither OMT_SESSION_ID (Claude) nor CODEX_THREAD_ID (Codex) is set.\n"
    );
    // OMT_SESSION_ID is authoritative even when unsafe: no fall-through to CODEX_THREAD_ID.
    let out = run(&[("OMT_SESSION_ID", "../x"), ("CODEX_THREAD_ID", "ok")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("is not a safe session id"),
        "{}",
        stderr(&out)
    );
    let out = run(&[("CODEX_THREAD_ID", "T1")]);
    assert_eq!(
        (out.status.code(), stdout(&out)),
        (Some(0), "absent\n".to_string())
    );
}

#[test]
fn get_prints_an_active_state_or_null() {
    let env = TestEnv::new();
    let dir = env.repo("r");
    let omt = env.path().join("omt");
    let get = || {
        let out = env
            .ucg(&dir)
            .args(["goal", "get", "--omt-dir", omt.to_str().unwrap()])
            .env("OMT_SESSION_ID", "S")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stdout(&out)
    };
    assert_eq!(get(), "null\n", "no state");
    // The pristine seed the hook writes: pristine, stories defaulted.
    write(
        &omt.join("ultragoal-state-S.json"),
        r#"{"active": true, "phase": "planning", "iteration": 0, "outcome": "", "verification_surface": "", "max_iterations": 10, "started_at": "2026-08-20T10:00:00+09:00"}"#,
    );
    let doc: serde_json::Value = serde_json::from_str(&get()).unwrap();
    assert_eq!(doc["pristine"], true);
    assert_eq!(doc["stories"], serde_json::json!([]));
    assert_eq!(doc["started_at"], "2026-08-20T10:00:00+09:00");
    // In pursuit: not pristine, so a second pursuit must be refused.
    write(
        &omt.join("ultragoal-state-S.json"),
        r#"{"active": true, "phase": "pursuing", "iteration": 1, "outcome": "ship it", "max_iterations": 10}"#,
    );
    let doc: serde_json::Value = serde_json::from_str(&get()).unwrap();
    assert_eq!(
        (doc["pristine"].clone(), doc["phase"].clone()),
        (false.into(), "pursuing".into())
    );
    // Terminal states read as inactive.
    write(
        &omt.join("ultragoal-state-S.json"),
        r#"{"active": false, "phase": "complete", "iteration": 1, "outcome": "ship it", "max_iterations": 10}"#,
    );
    assert_eq!(get(), "null\n");
}
