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
        r#"{"phase": "pursuing", "active": true}"#,
    );
    assert_eq!(stdout(&status(Some("S1"), &[])), "pursuing\n");
    // Terminal phases too; an unknown phase is absent.
    write(
        &omt.join("ultragoal-state-S2.json"),
        r#"{"phase": "complete", "active": false}"#,
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
        r#"{"phase": "blocked"}"#,
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
