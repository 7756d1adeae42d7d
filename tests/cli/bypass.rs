//! Issue 32 item 9, bypasses on record: a commit made past the gate (`--no-verify`,
//! `GIT_UCG_SKIP`), a merge made so, and a push sent under `GIT_UCG_SKIP` leave a note under
//! `refs/notes/ucg-bypass` naming who, when, how and what was pending; `status`, `gate` and the
//! dashboard show them; the shared remote reports them, refuses them or lets them be.

use crate::common::*;
use std::path::Path;

const NOTES: &str = "refs/notes/ucg-bypass";

/// The note on `rev` under the bypass ref (empty when there is none).
fn note(env: &TestEnv, dir: &Path, rev: &str) -> String {
    let out = env
        .git_command(dir)
        .args(["notes", "--ref", NOTES, "show", rev])
        .output()
        .unwrap();
    stdout(&out)
}

fn commit(env: &TestEnv, dir: &Path, extra: &[&str], skip: bool) -> std::process::Output {
    let mut command = env.git_command(dir);
    command.args(["commit", "-q", "--allow-empty", "-m", "work"]);
    command.args(extra);
    if skip {
        command.env("GIT_UCG_SKIP", "1");
    }
    command.output().unwrap()
}

fn head(env: &TestEnv, dir: &Path) -> String {
    env.git(dir, &["rev-parse", "HEAD"]).trim().to_string()
}

#[test]
fn a_commit_past_the_gate_is_on_record_and_shown() {
    let env = TestEnv::new();
    let dir = env.demo_with_hooks();

    // Refused: nothing made, nothing recorded.
    let before = head(&env, &dir);
    assert_eq!(commit(&env, &dir, &[], false).status.code(), Some(1));
    assert_eq!(head(&env, &dir), before);

    // Past the gate, both ways: each commit noted, and the committer told.
    let out = commit(&env, &dir, &["--no-verify"], false);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("went past the gate"),
        "{}",
        stderr(&out)
    );
    let first = head(&env, &dir);
    let text = note(&env, &dir, &first);
    assert!(text.starts_with("git-ucg bypass\nby: "), "{text}");
    assert!(text.contains("\nvia: commit\npending: 4\n"), "{text}");
    assert!(
        text.contains("\n  undecided-product:docs/prd.md:7662cf80acff\n"),
        "{text}"
    );
    assert!(text.contains("\nat: 20"), "{text}");
    let out = commit(&env, &dir, &[], true);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let second = head(&env, &dir);
    assert!(note(&env, &dir, &second).contains("pending: 4"));

    // Shown: gate (text and JSON), status (human and JSON).
    let out = env.ucg(&dir).arg("gate").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("Bypassed: 2 commit(s) went past the gate since the run stopped"),
        "{}",
        stderr(&out)
    );
    let out = env.ucg(&dir).args(["gate", "--json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let commits: Vec<&str> = doc["bypasses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["commit"].as_str().unwrap())
        .collect();
    assert_eq!(commits.len(), 2);
    assert!(commits.contains(&first.as_str()) && commits.contains(&second.as_str()));
    assert_eq!(doc["bypasses"][0]["pending"], 4);
    let out = env.ucg(&dir).args(["status", "--json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["bypasses"].as_array().unwrap().len(), 2);
    let out = env
        .ucg(&dir)
        .args(["status", "--no-pager"])
        .output()
        .unwrap();
    let shown = stdout(&out);
    assert!(shown.contains("Bypassed: 2 commit(s)"), "{shown}");
    assert!(shown.contains(&first[..12]), "{shown}");
    let section: Vec<&str> = shown
        .lines()
        .skip_while(|l| !l.starts_with("Bypassed:"))
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(section.len(), 6, "{shown}");
    assert!(section.iter().all(|l| l.chars().count() <= 80), "{shown}");

    // Nothing pending any more: a commit is no bypass, and nothing is added.
    env.close_everything(&dir);
    let out = commit(&env, &dir, &["--no-verify"], false);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("went past"), "{}", stderr(&out));
    assert_eq!(note(&env, &dir, "HEAD"), "");
    let out = env.ucg(&dir).args(["gate", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["bypasses"].as_array().unwrap().len(), 2);
}

#[test]
fn a_merge_past_the_gate_is_on_record_and_a_fast_forward_is_not() {
    let env = TestEnv::new();
    let dir = env.demo_with_hooks();
    let epic = env.git(&dir, &["branch", "--show-current"]);
    let epic = epic.trim();
    env.git(&dir, &["checkout", "-q", "-b", "side"]);
    write(&dir.join("side.txt"), "side\n");
    env.git(&dir, &["add", "side.txt"]);
    assert_eq!(
        commit(&env, &dir, &["--no-verify"], false).status.code(),
        Some(0)
    );
    let side = head(&env, &dir);
    env.git(&dir, &["checkout", "-q", epic]);
    write(&dir.join("main.txt"), "main\n");
    env.git(&dir, &["add", "main.txt"]);
    assert_eq!(
        commit(&env, &dir, &["--no-verify"], false).status.code(),
        Some(0)
    );
    // A merge refused, then made past the gate.
    let mut merge = env.git_command(&dir);
    merge.args(["merge", "-q", "--no-edit", "side"]);
    assert_eq!(merge.output().unwrap().status.code(), Some(1));
    env.git(&dir, &["merge", "--abort"]);
    let mut merge = env.git_command(&dir);
    let out = merge
        .args(["merge", "-q", "--no-edit", "--no-verify", "side"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = note(&env, &dir, "HEAD");
    assert!(text.contains("\nvia: merge\n"), "{text}");
    // A fast-forward to a commit made before records nothing more.
    env.git(&dir, &["checkout", "-q", "-b", "behind", &side]);
    env.git(&dir, &["merge", "-q", "--ff-only", epic]);
    let notes = env.git(&dir, &["notes", "--ref", NOTES, "list"]);
    assert_eq!(notes.lines().count(), 3, "{notes}");
}

#[test]
fn a_skipped_push_is_on_record_and_the_server_reports_or_refuses_records() {
    let env = TestEnv::new();
    let (dir, remote) = env.demo_with_remote();
    let out = env.ucg(&dir).args(["hooks", "install"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = env
        .ucg(&remote)
        .args(["hooks", "install", "--server"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let push = |args: &[&str], skip: bool| {
        let mut command = env.git_command(&dir);
        command.arg("push").args(args);
        if skip {
            command.env("GIT_UCG_SKIP", "1");
        }
        command.output().unwrap()
    };

    // Refused by the pusher's hook; then sent under GIT_UCG_SKIP, and noted on the tip.
    assert_eq!(
        push(&["-q", "origin", "HEAD:refs/heads/topic"], false)
            .status
            .code(),
        Some(1)
    );
    let out = push(&["-q", "origin", "HEAD:refs/heads/topic"], true);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = note(&env, &dir, "HEAD");
    assert!(
        text.contains("\nvia: push to origin refs/heads/topic under GIT_UCG_SKIP\n"),
        "{text}"
    );

    // A commit past the gate, pushed with its record: the server reports it (the default).
    assert_eq!(
        commit(&env, &dir, &["--no-verify"], false).status.code(),
        Some(0)
    );
    let bypassed = head(&env, &dir);
    let out = push(
        &["--no-verify", "origin", "HEAD:refs/heads/topic", NOTES],
        false,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("remote: git-ucg: this push carries commits that went past the gate:"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains(&bypassed[..12]), "{}", stderr(&out));

    // Refused where the server says so, the notes with it; let be where it allows them.
    env.git(&remote, &["config", "ucg.gate.bypass", "refuse"]);
    assert_eq!(
        commit(&env, &dir, &["--no-verify"], false).status.code(),
        Some(0)
    );
    let out = push(
        &["--no-verify", "origin", "HEAD:refs/heads/topic", NOTES],
        false,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("git-ucg: push refused: it carries commits that went past"));
    assert_eq!(
        env.git(&remote, &["rev-parse", "topic"]).trim(),
        bypassed,
        "the refused push moved nothing"
    );
    env.git(&remote, &["config", "ucg.gate.bypass", "allow"]);
    let out = push(
        &["--no-verify", "origin", "HEAD:refs/heads/topic", NOTES],
        false,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("went past"), "{}", stderr(&out));
}

/// The records attacked: a FIFO or `/dev/zero` as the notes ref (git itself hangs on the FIFO)
/// stops no command and hangs none — the records are said to be unreadable, the commit is made,
/// its record not written —, and a committer's name with an escape sequence reaches neither the
/// note nor the terminal raw.
#[test]
fn a_hostile_notes_ref_or_name_hangs_and_drives_nothing() {
    let env = TestEnv::new();
    let dir = env.demo_with_hooks();
    let out = env
        .git_command(&dir)
        .env("GIT_COMMITTER_NAME", "Eve\u{1b}]0;PWN\u{7}")
        .args(["commit", "-q", "--allow-empty", "--no-verify", "-m", "past"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = note(&env, &dir, "HEAD");
    assert!(text.contains("by: Eve ]0;PWN"), "{text:?}");
    assert!(!text.contains('\u{1b}'), "{text:?}");
    for args in [&["gate"][..], &["status", "--no-pager"]] {
        let out = env.ucg(&dir).args(args).output().unwrap();
        let shown = format!("{}{}", stdout(&out), stderr(&out));
        assert!(shown.contains("Bypassed: 1 commit(s)"), "{shown}");
        assert!(!shown.contains('\u{1b}'), "{shown:?}");
    }
    let notes_ref = dir.join(".git").join(NOTES);
    for hostile in ["fifo", "zero"] {
        let _ = std::fs::remove_file(&notes_ref);
        match hostile {
            "fifo" => {
                let made = std::process::Command::new("mkfifo")
                    .arg(&notes_ref)
                    .status()
                    .unwrap();
                assert!(made.success());
            }
            _ => std::os::unix::fs::symlink("/dev/zero", &notes_ref).unwrap(),
        }
        let readers: [&[&str]; 4] = [
            &["gate"],
            &["gate", "--json"],
            &["status", "--json"],
            &["status", "--no-pager"],
        ];
        for args in readers {
            let out = run_within(env.ucg(&dir).args(args), hostile);
            assert!(
                stderr(&out).contains("cannot read the bypass records"),
                "{args:?} {hostile}: {}",
                stderr(&out)
            );
        }
        let mut commit = env.git_command(&dir);
        commit.args([
            "commit",
            "-q",
            "--allow-empty",
            "--no-verify",
            "-m",
            "again",
        ]);
        let out = run_within(&mut commit, hostile);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("the record could not be written"),
            "{}",
            stderr(&out)
        );
    }
    let _ = std::fs::remove_file(&notes_ref);
}

/// Runs `command`, killed after ten seconds, insisting it returns within two.
fn run_within(command: &mut std::process::Command, what: &str) -> std::process::Output {
    let started = std::time::Instant::now();
    let described = format!("{command:?}");
    let out = within(command, std::time::Duration::from_secs(10))
        .unwrap_or_else(|| panic!("{described} hangs on a {what} notes ref"));
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "{described} on a {what} notes ref"
    );
    out
}
