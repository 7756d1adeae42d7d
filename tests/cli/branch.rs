//! `resolve --branch`: answering on a branch from another clone without a checkout (issue 19 item
//! 1), with a bare remote and two clones, all local.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Output;

const IMPL: &str = "_bmad-output/implementation-artifacts";
const EPIC: &str = "ultracode/epic-7";

/// A bare remote, clone A (the demo's run, its artifacts committed on the epic branch and pushed)
/// and clone B (a fresh clone of the remote, on `main`, with its own user.email).
struct Team {
    env: TestEnv,
    remote: PathBuf,
    a: PathBuf,
    b: PathBuf,
}

impl Team {
    fn new() -> Team {
        let env = TestEnv::new();
        let a = env.demo();
        env.git(&a, &["add", "-A", "-f"]);
        env.git(
            &a,
            &["commit", "-q", "--no-verify", "-m", "the run's artifacts"],
        );
        let remote = env.path().join("remote.git");
        env.git(env.path(), &["init", "-q", "--bare", path(&remote)]);
        env.git(&a, &["remote", "add", "origin", path(&remote)]);
        env.git(&a, &["push", "-q", "origin", "main", EPIC]);
        let b = env.path().join("b");
        env.git(
            env.path(),
            &["clone", "-q", "-b", "main", path(&remote), path(&b)],
        );
        env.git(&b, &["config", "user.email", "pm@example.com"]);
        Team { env, remote, a, b }
    }

    fn ucg(&self, dir: &Path, args: &[&str]) -> Output {
        self.env.ucg(dir).args(args).output().unwrap()
    }

    fn ok(&self, dir: &Path, args: &[&str]) -> String {
        let out = self.ucg(dir, args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        stdout(&out)
    }

    /// The pending items' ids on `rev` (in A, which has every ref after a fetch).
    fn pending(&self, dir: &Path, rev: Option<&str>) -> Vec<String> {
        let mut args = vec!["pending", "--json"];
        args.extend(rev.map(|r| ["--rev", r]).into_iter().flatten());
        let doc: serde_json::Value = serde_json::from_str(&self.ok(dir, &args)).unwrap();
        doc["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["id"].as_str().unwrap().to_string())
            .collect()
    }

    fn remote_file(&self, file: &str) -> String {
        self.env
            .git_raw(&self.remote, &["show", &format!("{EPIC}:{IMPL}/{file}")])
    }
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every file of a work tree with its bytes and modification time, `.git` included: what "not
/// touched" means.
fn untouched_state(dir: &Path) -> Vec<(PathBuf, Vec<u8>, std::time::SystemTime)> {
    snapshot(dir)
        .into_iter()
        .map(|(p, bytes)| {
            let modified = std::fs::metadata(&p).unwrap().modified().unwrap();
            (p, bytes, modified)
        })
        .filter(|(p, _, _)| {
            // Objects, refs and logs move with the commit; the index, HEAD and the files do not.
            let git = p.strip_prefix(p.ancestors().find(|a| a.ends_with(".git")).unwrap_or(p));
            !(git.is_ok_and(|rest| {
                [
                    "objects",
                    "refs",
                    "logs",
                    "packed-refs",
                    "FETCH_HEAD",
                    "ORIG_HEAD",
                ]
                .iter()
                .any(|skip| rest.starts_with(skip))
            }))
        })
        .collect()
}

#[test]
fn a_teammate_answers_on_the_branch_from_another_clone_without_a_checkout() {
    let team = Team::new();
    let reds: Vec<String> = team
        .pending(&team.a, None)
        .into_iter()
        .filter(|id| id.starts_with("undecided-"))
        .collect();
    let before = untouched_state(&team.b);
    let head_before = team.env.git(&team.b, &["rev-parse", "HEAD"]);
    let out = team.ok(
        &team.b,
        &[
            "resolve",
            "--branch",
            EPIC,
            "--close",
            &reds[0],
            "--answer",
            "30 days, sliding",
            "--push",
            "origin",
        ],
    );
    assert!(out.contains(&format!("Committed on {EPIC}")), "{out}");
    assert!(out.contains("Pushed ultracode/epic-7 to origin."), "{out}");
    // B's HEAD, index and files are exactly as they were (bytes and times).
    assert_eq!(team.env.git(&team.b, &["rev-parse", "HEAD"]), head_before);
    assert_eq!(team.env.git(&team.b, &["branch", "--show-current"]), "main");
    assert!(
        untouched_state(&team.b) == before,
        "B's work tree, index or HEAD changed"
    );
    // The commit on the remote: B's identity, the answer in its message.
    let message = team
        .env
        .git(&team.remote, &["log", "-1", "--format=%ae%n%B", EPIC]);
    assert!(
        message.starts_with("author@example.com\nAnswer 1 decision"),
        "{message}"
    );
    assert!(
        message.contains(&format!("- close {}: 30 days, sliding", reds[0])),
        "{message}"
    );
    assert!(team
        .remote_file(".decisions.json")
        .contains("\"by\": \"pm@example.com\""));
    // A pulls: the RED is no longer pending, and the decision log names B's user.
    team.env
        .git(&team.a, &["pull", "-q", "--no-rebase", "origin", EPIC]);
    let pending = team.pending(&team.a, None);
    assert!(
        !pending.contains(&reds[0]) && pending.contains(&reds[1]),
        "{pending:?}"
    );
    let log = std::fs::read_to_string(
        std::fs::read_dir(team.a.join("_bmad-output/ultracode-goal"))
            .unwrap()
            .flatten()
            .map(|e| e.path().join(".decision-log.md"))
            .find(|p| p.is_file())
            .unwrap(),
    )
    .unwrap();
    assert!(
        log.contains(&format!(
            "`{}` — close — 30 days, sliding — by pm@example.com",
            reds[0]
        )),
        "{log}"
    );
}

/// The remote moved on meanwhile (A pushed another answer): B's push is refused, the answer is
/// applied again on the fetched tip and pushed — both answers are on record.
#[test]
fn a_refused_push_is_answered_again_on_the_remotes_tip() {
    let team = Team::new();
    let ids = team.pending(&team.a, None);
    // B sets up its branch first, so that it lags when A pushes.
    team.env
        .git(&team.b, &["branch", "-q", EPIC, &format!("origin/{EPIC}")]);
    team.ok(
        &team.a,
        &["resolve", "--close", &ids[0], "--answer", "from A"],
    );
    team.env.git(&team.a, &["add", "-A", "-f"]);
    team.env
        .git(&team.a, &["commit", "-q", "--no-verify", "-m", "A answers"]);
    team.env.git(&team.a, &["push", "-q", "origin", EPIC]);
    let out = team.ucg(
        &team.b,
        &[
            "resolve", "--branch", EPIC, "--close", &ids[1], "--answer", "from B", "--push",
            "origin",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("origin's ultracode/epic-7 moved on (now at "),
        "{}",
        stderr(&out)
    );
    let answers = team.remote_file(".decisions.json");
    assert!(
        answers.contains("\"from A\"") && answers.contains("\"from B\""),
        "{answers}"
    );
    let subjects = team
        .env
        .git(&team.remote, &["log", "--format=%s", "-3", EPIC]);
    assert!(
        subjects.starts_with("Answer 1 decision of the run (git ucg resolve)\nA answers"),
        "{subjects}"
    );
}

/// Two processes answer different REDs on one clone at once: the branch's compare-and-swap makes
/// the later one apply its answer again on the earlier one's commit, and both land.
#[test]
fn concurrent_answers_on_one_branch_both_land() {
    let team = Team::new();
    let ids = team.pending(&team.a, None);
    for round in 0..3 {
        let env = TestEnv::new();
        let clone = env.path().join("c");
        team.env.git(
            env.path(),
            &["clone", "-q", "-b", EPIC, path(&team.remote), path(&clone)],
        );
        team.env.git(&clone, &["checkout", "-q", "-b", "elsewhere"]);
        let children: Vec<_> = ids[..2]
            .iter()
            .map(|id| {
                team.env
                    .ucg(&clone)
                    .args([
                        "resolve", "--branch", EPIC, "--close", id, "--answer", "yes",
                    ])
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "round {round}: {}",
                stderr(&out)
            );
        }
        let answers = team
            .env
            .git_raw(&clone, &["show", &format!("{EPIC}:{IMPL}/.decisions.json")]);
        for id in &ids[..2] {
            assert!(
                answers.contains(id.as_str()),
                "round {round}: {id} lost: {answers}"
            );
        }
        let pending = team.pending(&clone, Some(EPIC));
        assert!(
            !pending.contains(&ids[0]) && !pending.contains(&ids[1]),
            "round {round}"
        );
    }
}

#[test]
fn a_branch_that_does_not_track_the_artifacts_is_refused_with_the_way_to_track_them() {
    let team = Team::new();
    let out = team.ucg(
        &team.b,
        &[
            "resolve", "--branch", "main", "--close", "abc", "--answer", "x",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = flat(&stderr(&out));
    assert!(
        err.contains("main does not track the artifact directory"),
        "{err}"
    );
    assert!(
        err.contains("git add -f _bmad-output/implementation-artifacts"),
        "{err}"
    );
    // A symlink committed where the answers file goes is not replaced by a file.
    let answers = team.a.join(IMPL).join(".decisions.json");
    let _ = std::fs::remove_file(&answers);
    std::os::unix::fs::symlink("../../README.md", &answers).unwrap();
    team.env.git(&team.a, &["add", "-A", "-f"]);
    team.env
        .git(&team.a, &["commit", "-q", "--no-verify", "-m", "a link"]);
    team.env.git(&team.a, &["push", "-q", "origin", EPIC]);
    team.env.git(&team.b, &["fetch", "-q", "origin"]);
    let red = team.pending(&team.a, Some(EPIC))[0].clone();
    let out = team.ucg(
        &team.b,
        &[
            "resolve", "--branch", EPIC, "--close", &red, "--answer", "x",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        flat(&stderr(&out)).contains(".decisions.json on ultracode/epic-7 is not a regular file"),
        "{}",
        stderr(&out)
    );
    let out = team.ucg(&team.b, &["resolve", "--branch", EPIC]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("needs the answers"),
        "{}",
        stderr(&out)
    );
    let out = team.ucg(
        &team.b,
        &[
            "resolve",
            "--branch",
            "no-such-branch",
            "--close",
            "x",
            "--answer",
            "y",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("there is no branch no-such-branch"),
        "{}",
        stderr(&out)
    );
}

/// The branch checked out in a work tree: answered when that work tree's copies of the changed
/// files are as committed (and told how to catch up); refused when one has edits of its own.
#[test]
fn a_checked_out_branch_is_answered_only_over_a_clean_copy() {
    let team = Team::new();
    let ids = team.pending(&team.a, None);
    let out = team.ok(
        &team.a,
        &[
            "resolve",
            "--branch",
            EPIC,
            "--close",
            &ids[0],
            "--answer",
            "from the branch",
        ],
    );
    assert!(out.contains("is checked out in"), "{out}");
    assert!(
        out.contains("restore --source=HEAD --staged --worktree --"),
        "{out}"
    );
    // A's files still hold the old answers; the command it is given catches up.
    let restore = out
        .lines()
        .find(|l| l.trim_start().starts_with("git -C"))
        .unwrap()
        .trim()
        .to_string();
    let words: Vec<&str> = restore.split(' ').skip(1).collect();
    team.env.git(&team.a, &words);
    assert_eq!(team.env.git(&team.a, &["status", "--porcelain"]), "");
    assert!(!team.pending(&team.a, None).contains(&ids[0]));
    // An edit of its own in a file the answer changes: refused, nothing committed.
    let decisions = team.a.join(IMPL).join(".decisions.json");
    let mut text = std::fs::read_to_string(&decisions).unwrap();
    text.push(' ');
    write(&decisions, &text);
    let tip = team.env.git(&team.a, &["rev-parse", EPIC]);
    let out = team.ucg(
        &team.a,
        &[
            "resolve", "--branch", EPIC, "--close", &ids[1], "--answer", "x",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        flat(&stderr(&out)).contains("has changes not committed"),
        "{}",
        stderr(&out)
    );
    assert_eq!(team.env.git(&team.a, &["rev-parse", EPIC]), tip);
}

/// An answer's control characters reach the commit message escaped: `git log` shows them, it
/// does not run them.
#[test]
fn control_characters_of_an_answer_do_not_reach_the_commit_message_raw() {
    let team = Team::new();
    let ids = team.pending(&team.a, None);
    team.ok(
        &team.b,
        &[
            "resolve",
            "--branch",
            EPIC,
            "--close",
            &ids[0],
            "--answer",
            "yes\u{1b}]0;pwned\u{7}",
        ],
    );
    let message = team.env.git(&team.b, &["log", "-1", "--format=%B", EPIC]);
    assert!(
        !message.contains('\u{1b}') && !message.contains('\u{7}'),
        "{message:?}"
    );
    assert!(message.contains("yes\\x1b]0;pwned\\x07"), "{message}");
}

/// The branch checked out here and behind the remote (issue 31 item 3): the refused first push
/// leaves nothing behind — the local branch goes back, the answers are applied again on the
/// remote's tip, the push goes, and the checkout is told how to catch up.
#[test]
fn a_checked_out_branch_behind_the_remote_is_answered_on_the_remotes_tip() {
    let team = Team::new();
    let ids = team.pending(&team.a, None);
    team.ok(
        &team.b,
        &[
            "resolve", "--branch", EPIC, "--close", &ids[0], "--answer", "from B", "--push",
            "origin",
        ],
    );
    let out = team.ucg(
        &team.a,
        &[
            "resolve", "--branch", EPIC, "--close", &ids[1], "--answer", "from A", "--push",
            "origin",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("Catch up with:"), "{}", stdout(&out));
    let answers = team.remote_file(".decisions.json");
    assert!(answers.contains("\"from A\"") && answers.contains("\"from B\""));
    let remote_tip = team.env.git(&team.remote, &["rev-parse", EPIC]);
    assert_eq!(team.env.git(&team.a, &["rev-parse", EPIC]), remote_tip);
}

/// A push the remote refuses, or one this repository's pre-push hook stops: the message says
/// which side, and the local branch is back where it was — the checkout consistent with it.
#[test]
fn a_push_that_does_not_go_leaves_the_branch_as_it_was() {
    let team = Team::new();
    let ids = team.pending(&team.a, None);
    let tip = team.env.git(&team.a, &["rev-parse", EPIC]);
    let answer = |team: &Team| {
        team.ucg(
            &team.a,
            &[
                "resolve", "--branch", EPIC, "--close", &ids[0], "--answer", "x", "--push",
                "origin",
            ],
        )
    };
    let remote_hook = team.remote.join("hooks/pre-receive");
    write_executable(
        &remote_hook,
        b"#!/bin/sh\necho 'the server says no' >&2\nexit 1\n",
    );
    let out = answer(&team);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("origin refused the push of ultracode/epic-7: [remote rejected]"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("the server says no"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("nothing changed here"),
        "{}",
        stderr(&out)
    );
    assert_eq!(team.env.git(&team.a, &["rev-parse", EPIC]), tip);
    assert_eq!(team.env.git(&team.a, &["status", "--porcelain"]), "");
    std::fs::remove_file(&remote_hook).unwrap();

    write_executable(
        &team.a.join(".git/hooks/pre-push"),
        b"#!/bin/sh\necho 'this clone says no' >&2\nexit 1\n",
    );
    let out = answer(&team);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("was stopped here, before it left"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("this clone says no"),
        "{}",
        stderr(&out)
    );
    assert_eq!(team.env.git(&team.a, &["rev-parse", EPIC]), tip);
    assert_eq!(team.env.git(&team.a, &["status", "--porcelain"]), "");
}

/// The guided pass on a branch (issue 31 item 7): the branch's own items asked, only yours with
/// `--mine`, the answers committed as one commit — the clone's work tree untouched.
#[test]
fn the_guided_pass_answers_on_a_branch_and_mine_walks_only_yours() {
    let team = Team::new();
    team.env.git(
        &team.b,
        &[
            "config",
            "--add",
            "ucg.decider",
            "undecided-product=pm@example.com",
        ],
    );
    let before = untouched_state(&team.b);
    let out = output_with_stdin(
        team.env
            .ucg(&team.b)
            .args(["resolve", "--branch", EPIC, "--mine", "--push", "origin"]),
        b"c\n24 hours\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("[1/1] RED 7662cf80acff"),
        "{}",
        stderr(&out)
    );
    assert!(untouched_state(&team.b) == before, "B's work tree changed");
    let answers = team.remote_file(".decisions.json");
    assert!(answers.contains("\"24 hours\""), "{answers}");
    // Without --mine: every item of the branch is asked; skipping all commits nothing.
    let out = output_with_stdin(
        team.env
            .ucg(&team.b)
            .args(["resolve", "--branch", EPIC, "--interactive"]),
        b"s\ns\ns\ns\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("Nothing answered"),
        "{}",
        stdout(&out)
    );
}
