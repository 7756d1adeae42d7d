//! The git hooks in real repositories: commits and pushes refused while decisions are pending,
//! the bypasses, every way of committing, pre-push on committed artifacts, the installer's
//! chaining and its refusals, the agent Stop hook, `git ucg gate`.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use ucg_git::hermetic;

const IMPL: &str = "_bmad-output/implementation-artifacts";

fn git_out(env: &TestEnv, cwd: &Path, args: &[&str]) -> Output {
    env.git_command(cwd).args(args).output().unwrap()
}

fn install(env: &TestEnv, dir: &Path, args: &[&str]) -> Output {
    env.ucg(dir)
        .args(["hooks", "install"])
        .args(args)
        .output()
        .unwrap()
}

/// The demo with its run committed on the epic branch, hooks installed, and a bare remote.
fn gated_demo(env: &TestEnv) -> (PathBuf, PathBuf) {
    let (dir, remote) = env.demo_with_remote();
    let out = install(env, &dir, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    (dir, remote)
}

fn change(dir: &Path, name: &str) {
    let path = dir.join(name);
    let mut text = std::fs::read_to_string(&path).unwrap_or_default();
    text.push_str("more\n");
    write(&path, &text);
}

#[test]
fn commits_and_pushes_wait_for_the_decisions() {
    let env = TestEnv::new();
    let (dir, _) = gated_demo(&env);
    change(&dir, "README.md");
    env.git(&dir, &["add", "README.md"]);
    let out = git_out(&env, &dir, &["commit", "-m", "blocked"]);
    assert_ne!(out.status.code(), Some(0));
    let message = stderr(&out);
    assert!(
        message.contains("git-ucg: commit refused: the run waits on 4 decisions"),
        "{message}"
    );
    assert!(
        message.contains("  RED         7662cf80acff  undecided-product  .preflight-reds.json"),
        "{message}"
    );
    assert!(
        message.contains("git ucg resolve") && message.contains("GIT_UCG_SKIP=1"),
        "{message}"
    );

    // Every way of committing reaches the same decision.
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    for (cwd, args) in [
        (dir.join("sub"), vec!["commit", "-m", "from a subdirectory"]),
        (dir.clone(), vec!["commit", "-m", "partial", "README.md"]),
        (dir.clone(), vec!["commit", "-a", "-m", "all"]),
    ] {
        let out = git_out(&env, &cwd, &args);
        assert_ne!(out.status.code(), Some(0), "{args:?}");
        assert!(
            stderr(&out).contains("commit refused"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    let linked = env.path().join("linked");
    env.git(
        &dir,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "side",
            linked.to_str().unwrap(),
        ],
    );
    change(&linked, "README.md");
    let out = git_out(
        &env,
        &linked,
        &["commit", "-a", "-m", "in a linked worktree"],
    );
    assert!(stderr(&out).contains("commit refused"), "{}", stderr(&out));
    // The linked worktree's copy of the run lands on the epic branch too: while it waits, so do
    // commits on that branch anywhere. It goes now, so that the answers below are the only ones.
    env.git(
        &dir,
        &["worktree", "remove", "--force", linked.to_str().unwrap()],
    );

    // The pushed commit's own artifacts decide: they hold the pending REDs.
    let out = git_out(&env, &dir, &["push", "origin", "HEAD:refs/heads/epic"]);
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("push refused"), "{}", stderr(&out));
    assert!(stderr(&out).contains("(HEAD at "), "{}", stderr(&out));

    // The bypasses.
    assert_eq!(
        git_out(&env, &dir, &["commit", "--no-verify", "-m", "bypass"])
            .status
            .code(),
        Some(0)
    );
    let mut skip = env.git_command(&dir);
    skip.args(["commit", "--allow-empty", "-m", "skip"])
        .env("GIT_UCG_SKIP", "1");
    assert!(skip.status().unwrap().success());

    // Answered: the work tree is clear, so commits pass; the branch's committed artifacts still
    // hold the REDs until the answers are committed too.
    env.close_everything(&dir);
    change(&dir, "README.md");
    let out = git_out(&env, &dir, &["commit", "-a", "-m", "now allowed"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = git_out(&env, &dir, &["push", "origin", "HEAD:refs/heads/epic"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "the answers were committed with -a: {}",
        stderr(&out)
    );
    // A deletion pushes nothing and passes.
    let out = git_out(&env, &dir, &["push", "origin", ":refs/heads/epic"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn pre_push_reads_the_pushed_commit_not_the_work_tree() {
    let env = TestEnv::new();
    let (dir, _) = gated_demo(&env);
    // The work tree is clear, the committed artifacts are not: refused.
    env.close_everything(&dir);
    let out = git_out(&env, &dir, &["push", "origin", "HEAD"]);
    assert_ne!(out.status.code(), Some(0), "committed REDs block");
    // The reverse: committed clear, work tree pending again.
    env.git(&dir, &["add", "-A"]);
    let out = git_out(&env, &dir, &["commit", "--no-verify", "-m", "answers"]);
    assert_eq!(out.status.code(), Some(0));
    write(
        &dir.join(IMPL).join(".decisions.json"),
        "{\"decisions\": []}\n",
    );
    env.git(
        &dir,
        &[
            "checkout",
            "HEAD~1",
            "--",
            &format!("{IMPL}/.preflight-reds.json"),
        ],
    );
    assert_ne!(
        env.ucg(&dir).args(["gate"]).output().unwrap().status.code(),
        Some(0)
    );
    let out = git_out(&env, &dir, &["push", "origin", "HEAD"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Garbage on the hook's stdin fails closed, without a panic.
    let out = output_with_stdin(
        env.ucg(&dir)
            .args(["hooks", "run", "pre-push", "origin", "url"]),
        b"not four fields
",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("refusing the push"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_installer_chains_restores_and_refuses() {
    let env = TestEnv::new();
    let dir = env.repo("r");
    let hooks = dir.join(".git/hooks");
    let foreign = "#!/bin/sh\necho foreign ran >&2\nexit 0\n";
    write_executable(&hooks.join("pre-commit"), foreign.as_bytes());
    assert_eq!(install(&env, &dir, &[]).status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-commit.pre-ucg")).unwrap(),
        foreign
    );
    // The kernel starts git-ucg itself for the hook: no shell.
    let installed = std::fs::read_to_string(hooks.join("pre-commit")).unwrap();
    assert!(
        installed.starts_with(&format!(
            "#!{BIN} __hook\n# git-ucg managed hook — id: git-ucg-hook-v1\n"
        )),
        "{installed}"
    );
    // Idempotent: no double chaining.
    let out = install(&env, &dir, &[]);
    assert!(stdout(&out).contains("up to date"), "{}", stdout(&out));
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-commit.pre-ucg")).unwrap(),
        foreign
    );
    // The chained hook runs first, and its failure blocks.
    change(&dir, "README.md");
    let out = git_out(&env, &dir, &["commit", "-a", "-m", "x"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("foreign ran"));
    write_executable(
        &hooks.join("pre-commit.pre-ucg"),
        b"#!/bin/sh\necho foreign says no >&2\nexit 3\n",
    );
    change(&dir, "README.md");
    let out = git_out(&env, &dir, &["commit", "-a", "-m", "y"]);
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("foreign says no"));
    write_executable(&hooks.join("pre-commit.pre-ucg"), foreign.as_bytes());
    // Uninstall restores it byte for byte.
    let out = env.ucg(&dir).args(["hooks", "uninstall"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-commit")).unwrap(),
        foreign
    );
    assert!(!hooks.join("pre-commit.pre-ucg").exists());
    assert!(!hooks.join("pre-push").exists());

    // core.hooksPath inside the repository is honoured; outside, refused with the options.
    env.git(&dir, &["config", "core.hooksPath", ".githooks"]);
    assert_eq!(install(&env, &dir, &[]).status.code(), Some(0));
    assert!(dir.join(".githooks/pre-push").is_file());
    let shared = env.path().join("shared-hooks");
    env.git(
        &dir,
        &["config", "core.hooksPath", shared.to_str().unwrap()],
    );
    let out = install(&env, &dir, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--hooks-path-ok"), "{}", stderr(&out));
    assert!(!shared.exists());

    // Another manager's directory inside the repository: refused too, with the options.
    env.git(&dir, &["config", "core.hooksPath", ".husky"]);
    let out = install(&env, &dir, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("husky") && stderr(&out).contains("hooks run pre-commit"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.join(".husky/pre-commit").exists());

    // Ours in .git/hooks while git looks elsewhere: installed but inactive.
    env.git(&dir, &["config", "--unset", "core.hooksPath"]);
    assert_eq!(
        install(&env, &dir, &["--only", "pre-push"]).status.code(),
        Some(0)
    );
    env.git(&dir, &["config", "core.hooksPath", ".githooks-empty"]);
    let out = env
        .ucg(&dir)
        .args(["hooks", "status", "--json"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let states = hook_states(&doc);
    assert!(states.contains(&("pre-push", "inactive")), "{states:?}");
}

/// A hook whose binary is gone: git cannot start it and refuses; `hooks status` says why.
#[test]
fn a_direct_hook_whose_binary_is_gone_fails_closed() {
    let env = TestEnv::new();
    let dir = env.demo();
    env.close_everything(&dir);
    let copy = env.path().join("bin/git-ucg");
    copy_executable(Path::new(BIN), &copy);
    let out = hermetic::isolate(&mut Command::new(&copy))
        .current_dir(&dir)
        .args(["hooks", "install", "--only", "pre-commit"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let commit = |message: &str| git_out(&env, &dir, &["commit", "--allow-empty", "-m", message]);
    let out = commit("passes");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    std::fs::remove_file(&copy).unwrap();
    let out = commit("refused");
    assert_ne!(
        out.status.code(),
        Some(0),
        "nothing pending, but no gate either"
    );
    assert!(stderr(&out).contains("pre-commit"), "{}", stderr(&out));
    let out = env
        .ucg(&dir)
        .args(["hooks", "status", "--json"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let pre_commit = &doc["hooks"][0];
    assert_eq!(pre_commit["hook"], "pre-commit");
    assert_eq!(pre_commit["state"], "broken");
    assert_eq!(pre_commit["runs"], copy.display().to_string());
    let out = env.ucg(&dir).args(["hooks", "status"]).output().unwrap();
    assert!(stdout(&out).contains("BROKEN"), "{}", stdout(&out));
    // Installed again from a binary that is there, it gates again.
    assert_eq!(
        install(&env, &dir, &["--only", "pre-commit"]).status.code(),
        Some(0)
    );
    assert_eq!(commit("passes again").status.code(), Some(0));
}

#[test]
fn a_missing_binary_fails_closed_with_the_bypass() {
    let env = TestEnv::new();
    let (dir, _) = (env.demo(), ());
    let bin = env.path().join("bin");
    let copy = bin.join("git-ucg");
    copy_executable(Path::new(BIN), &copy);
    let out = hermetic::isolate(&mut Command::new(&copy))
        .current_dir(&dir)
        .args(["hooks", "install", "--script", "--only", "pre-commit"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let script = std::fs::read_to_string(dir.join(".git/hooks/pre-commit")).unwrap();
    assert!(script.starts_with("#!/bin/sh\n# git-ucg managed hook — id: git-ucg-hook-v1\n"));
    std::fs::remove_file(&copy).unwrap();
    // PATH without any git-ucg: only the baked path, now gone.
    let mut commit = Command::new("git");
    commit.env_clear();
    hermetic::isolate(&mut commit)
        .current_dir(&dir)
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", env.path())
        .args([
            "-c",
            "user.name=A",
            "-c",
            "user.email=a@e",
            "commit",
            "--allow-empty",
            "-m",
            "x",
        ]);
    let out = commit.output().unwrap();
    assert_ne!(out.status.code(), Some(0));
    let message = stderr(&out);
    assert!(
        message.contains("cannot find git-ucg") && message.contains("GIT_UCG_SKIP=1"),
        "{message}"
    );
}

#[test]
fn the_agent_stop_hook_is_merged_once_and_removed_alone() {
    let env = TestEnv::new();
    let dir = env.repo("r");
    let settings = dir.join(".claude/settings.local.json");
    write(
        &settings,
        r#"{"permissions": {"allow": ["Bash(npm test:*)"]}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "other-stop"}]}], "PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "guard"}]}]}}"#,
    );
    for _ in 0..2 {
        assert_eq!(
            install(&env, &dir, &["--agent", "--only", "pre-push"])
                .status
                .code(),
            Some(0)
        );
    }
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&settings).unwrap()).unwrap();
    assert_eq!(doc["permissions"]["allow"][0], "Bash(npm test:*)");
    assert_eq!(
        doc["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "guard"
    );
    let stop = doc["hooks"]["Stop"].as_array().unwrap();
    assert_eq!(stop.len(), 2, "added once: {stop:?}");
    assert_eq!(stop[1]["hooks"][0]["command"], "git ucg budget tick");
    let out = env
        .ucg(&dir)
        .args(["hooks", "status", "--json"])
        .output()
        .unwrap();
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(status["agent_stop_hook"], true);
    let out = env
        .ucg(&dir)
        .args(["hooks", "uninstall", "--agent"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&settings).unwrap()).unwrap();
    assert_eq!(doc["hooks"]["Stop"].as_array().unwrap().len(), 1);
    assert_eq!(doc["hooks"]["Stop"][0]["hooks"][0]["command"], "other-stop");
}

#[test]
fn the_gate_command_and_what_blocks() {
    let env = TestEnv::new();
    let dir = env.demo();
    let gate = |args: &[&str]| env.ucg(&dir).arg("gate").args(args).output().unwrap();
    let out = gate(&["--json"]);
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["schema"], "git-ucg.gate/1");
    assert_eq!(doc["blocking"].as_array().unwrap().len(), 4);
    // Only the sources configured gate.
    env.git(&dir, &["config", "ucg.gate.sources", "decisions"]);
    let doc: serde_json::Value = serde_json::from_slice(&gate(&["--json"]).stdout).unwrap();
    assert_eq!(doc["blocking"].as_array().unwrap().len(), 1);
    // Every view marks the same items: pending and status list all four, the gate's one as
    // `blocks_gate`, and the table names the sources that do not gate.
    let ids = |items: &serde_json::Value, gated: bool| -> Vec<String> {
        let items = items.as_array().unwrap().iter();
        items
            .filter(|item| item["blocks_gate"] == gated)
            .map(|item| item["id"].as_str().unwrap().to_string())
            .collect()
    };
    let blocking = ids(&doc["blocking"], true);
    let json = |args: &[&str]| -> serde_json::Value {
        serde_json::from_slice(&env.ucg(&dir).args(args).output().unwrap().stdout).unwrap()
    };
    for (view, items) in [
        ("pending", json(&["pending", "--json"])["items"].clone()),
        (
            "status",
            json(&["status", "--json"])["pending"]["items"].clone(),
        ),
    ] {
        assert_eq!(ids(&items, true), blocking, "{view}");
        assert_eq!(ids(&items, false).len(), 3, "{view}");
    }
    let table = stdout(&env.ucg(&dir).arg("pending").output().unwrap());
    assert!(
        table.ends_with(
            "not gated   red, escalation: commits and pushes go ahead (ucg.gate.sources)\n"
        ),
        "{table}"
    );
    // An unreadable ledger does not block; a corrupt registry does, and says how to fix it.
    std::fs::write(dir.join(IMPL).join("deferred-work.md"), b"\xff\xfe").unwrap();
    assert_eq!(gate(&[]).status.code(), Some(0));
    write(&dir.join(IMPL).join(".preflight-reds.json"), "{");
    let out = gate(&[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("repair"), "{}", stderr(&out));
    // A commit without a run: open.
    let out = gate(&["--rev", "main"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn baselines_are_written_once_ends_refreshed_and_freshness_checked() {
    let env = TestEnv::new();
    let dir = env.repo("r");
    let impl_dir = dir.join(IMPL);
    let run = |args: &[&str]| env.ucg(&dir).args(args).output().unwrap();
    let head = env.git(&dir, &["rev-parse", "HEAD"]);
    let out = run(&["baseline", "start", "5-1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(impl_dir.join(".baseline-5-1")).unwrap(),
        format!("{head}\n")
    );
    change(&dir, "README.md");
    env.git(&dir, &["commit", "-q", "-am", "work"]);
    let out = run(&["baseline", "start", "5-1"]);
    assert!(stdout(&out).contains("mid-story, kept"), "{}", stdout(&out));
    assert_eq!(
        std::fs::read_to_string(impl_dir.join(".baseline-5-1")).unwrap(),
        format!("{head}\n")
    );
    let out = run(&["baseline", "end", "5-1"]);
    assert_eq!(out.status.code(), Some(0));
    let tip = env.git(&dir, &["rev-parse", "HEAD"]);
    assert_eq!(
        std::fs::read_to_string(impl_dir.join(".commit-5-1")).unwrap(),
        format!("{tip}\n")
    );
    let out = run(&["baseline", "show", "5-1", "--json"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["commits"], 1);
    // Freshness: missing, stale, fresh.
    assert_eq!(run(&["baseline", "check", "5-1"]).status.code(), Some(1));
    write(
        &impl_dir.join(".tests-ran-5-1"),
        &format!("green\nbaseline={}\n", &head[..7]),
    );
    let out = run(&["baseline", "check", "5-1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("stale"), "{}", stderr(&out));
    write(
        &impl_dir.join(".tests-ran-5-1"),
        &format!("green\nbaseline={head}\n"),
    );
    assert_eq!(run(&["baseline", "check", "5-1"]).status.code(), Some(0));
    // A story id that cannot name a file is refused.
    assert_eq!(run(&["baseline", "start", "../x"]).status.code(), Some(2));
}

/// A repository in strict mode with story 5-1 current, nothing pending, on main.
fn strict_repo(env: &TestEnv) -> PathBuf {
    let dir = env.repo("strict");
    write(&dir.join(IMPL).join(".current-story"), "5-1\n");
    let out = install(env, &dir, &["--strict", "--only", "pre-commit"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    dir
}

fn strict_refusal(env: &TestEnv, dir: &Path, extra_env: &[(&str, &str)]) -> Option<String> {
    let mut command = env.ucg(dir);
    command.args(["hooks", "run", "pre-commit"]);
    for (k, v) in extra_env {
        command.env(k, v);
    }
    let out = command.output().unwrap();
    match out.status.code() {
        Some(0) => None,
        Some(1) => Some(stderr(&out)),
        other => panic!("exit {other:?}: {}", stderr(&out)),
    }
}

#[test]
fn strict_mode_enforces_each_story_invariant() {
    let env = TestEnv::new();
    let dir = strict_repo(&env);
    let impl_dir = dir.join(IMPL);
    // 1. The protected branch refuses, a detached HEAD is not a branch (the probe fails open).
    change(&dir, "README.md");
    env.git(&dir, &["add", "README.md"]);
    let refused = strict_refusal(&env, &dir, &[]).unwrap();
    assert!(
        refused.contains("protected branch") && refused.contains("'main'"),
        "{refused}"
    );
    env.git(&dir, &["checkout", "-q", "--detach"]);
    assert!(!strict_refusal(&env, &dir, &[])
        .unwrap()
        .contains("protected branch"));
    env.git(&dir, &["checkout", "-q", "-b", "ultracode/epic-5"]);

    // 2-3. The tests-ran marker: missing, stale, fresh.
    let refused = strict_refusal(&env, &dir, &[]).unwrap();
    assert!(refused.contains(".tests-ran-5-1 is missing"), "{refused}");
    let out = env
        .ucg(&dir)
        .args(["baseline", "start", "5-1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    write(
        &impl_dir.join(".tests-ran-5-1"),
        "green\nbaseline=0000000\n",
    );
    assert!(strict_refusal(&env, &dir, &[]).unwrap().contains("stale"));
    let baseline = std::fs::read_to_string(impl_dir.join(".baseline-5-1")).unwrap();
    write(
        &impl_dir.join(".tests-ran-5-1"),
        &format!("green\nbaseline={baseline}"),
    );
    assert_eq!(strict_refusal(&env, &dir, &[]), None, "all invariants hold");

    // 4. Nothing staged refuses; an index that cannot be read refuses too (fail-closed).
    env.git(&dir, &["commit", "-q", "--no-verify", "-m", "staged work"]);
    assert!(strict_refusal(&env, &dir, &[])
        .unwrap()
        .contains("nothing is staged"));
    let garbage = env.path().join("garbage-index");
    write(&garbage, "not an index");
    let refused =
        strict_refusal(&env, &dir, &[("GIT_INDEX_FILE", garbage.to_str().unwrap())]).unwrap();
    assert!(refused.contains("could not be read"), "{refused}");

    // 5. A staged acceptance test that is still skipped refuses; un-skipped, it passes.
    let artifacts = env.path().join("test-artifacts");
    write(
        &artifacts.join("atdd-checklist-5-1.md"),
        "- [ ] `tests/login.spec.ts` covers AC1\n",
    );
    write(
        &dir.join("tests/login.spec.ts"),
        "test.skip('logs in', () => {});\n",
    );
    env.git(&dir, &["add", "tests/login.spec.ts"]);
    let with = [("ULTRACODE_TEST_ARTIFACTS", artifacts.to_str().unwrap())];
    let refused = strict_refusal(&env, &dir, &with).unwrap();
    assert!(
        refused.contains("test.skip(") && refused.contains("tests/login.spec.ts"),
        "{refused}"
    );
    write(
        &dir.join("tests/login.spec.ts"),
        "test('logs in', () => {});\n",
    );
    env.git(&dir, &["add", "tests/login.spec.ts"]);
    assert_eq!(strict_refusal(&env, &dir, &with), None);

    // The real commit goes through the same hook.
    let out = git_out(&env, &dir, &["commit", "-m", "story 5-1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Without a current story, strict mode is inert.
    std::fs::remove_file(impl_dir.join(".current-story")).unwrap();
    env.git(&dir, &["checkout", "-q", "main"]);
    assert_eq!(strict_refusal(&env, &dir, &[]), None);
}

#[test]
fn budget_counters_shown_and_reset() {
    let env = TestEnv::new();
    let dir = env.demo();
    let out = env
        .ucg(&dir)
        .args(["budget", "show", "--json"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["schema"], "git-ucg.budget/1");
    assert_eq!(doc["max_turns"], 25);
    assert_eq!(doc["stories"][0]["story"], "7-3");
    assert_eq!(doc["stories"][0]["turns"], 26);
    let out = env.ucg(&dir).args(["budget", "show"]).output().unwrap();
    assert_eq!(stdout(&out), "7-3  26/25  at the ceiling\n");
    let out = env
        .ucg(&dir)
        .args(["budget", "reset", "7-3"])
        .output()
        .unwrap();
    assert_eq!(stdout(&out), "7-3: counter reset (was 26 turns)\n");
    assert!(!dir.join(IMPL).join(".budget-7-3.json").exists());
    // A tick from the agent counts from zero again.
    let event = format!(r#"{{"cwd": "{}"}}"#, dir.display());
    let out = output_with_stdin(
        env.ucg(&dir)
            .args(["budget", "tick"])
            .env("ULTRACODE_STORY_ID", "7-3"),
        event.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(dir.join(IMPL).join(".budget-7-3.json")).unwrap(),
        "{\"turns\": 1}"
    );
}

#[test]
fn what_the_review_found_stays_fixed() {
    let env = TestEnv::new();
    let dir = env.demo();
    let gate = |dir: &Path| env.ucg(dir).args(["gate", "--json"]).output().unwrap();
    // A corrupt escalation sidecar blocks until repaired.
    env.git(&dir, &["config", "ucg.gate.sources", "escalations"]);
    write(&dir.join(IMPL).join("escalation-7-3.json"), "{");
    let out = gate(&dir);
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(doc["blockers"][0]["artifact"]
        .as_str()
        .unwrap()
        .ends_with("escalation-7-3.json"));

    // Ids do not depend on how the artifact directory is spelled.
    let ids = |cwd: &Path, args: &[&str]| -> Vec<String> {
        let out = env
            .ucg(cwd)
            .args(["pending", "--json"])
            .args(args)
            .output()
            .unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["id"].as_str().unwrap().to_string())
            .collect()
    };
    let plain = ids(&dir, &[]);
    assert_eq!(
        ids(&dir, &["--impl-artifacts", &format!("./{IMPL}/")]),
        plain
    );
    assert_eq!(
        ids(
            &dir.join("_bmad-output"),
            &["--impl-artifacts", "implementation-artifacts"]
        ),
        plain
    );

    // GIT_UCG_SKIP as a list names the hooks it skips.
    let hooks = dir.join(".git/hooks");
    let foreign = "#!/bin/sh\nexit 0\n";
    write(&hooks.join("pre-commit"), foreign);
    assert_eq!(install(&env, &dir, &[]).status.code(), Some(0));
    let run = |skip: &str| {
        env.ucg(&dir)
            .args(["hooks", "run", "pre-commit"])
            .env("GIT_UCG_SKIP", skip)
            .output()
            .unwrap()
            .status
            .code()
    };
    assert_eq!(run("pre-push"), Some(1), "only pre-push skipped");
    assert_eq!(run("pre-push,pre-commit"), Some(0));
    // The chained hook above is not executable: git would not run it, neither do we.
    assert!(hooks.join("pre-commit.pre-ucg").exists());
    assert_eq!(
        run(""),
        Some(1),
        "the decision still runs, the chained hook is skipped"
    );

    // A second foreign hook never overwrites the chained one; uninstall restores it even when
    // our hook was deleted by hand.
    write(&hooks.join("pre-commit"), "#!/bin/sh\n# another manager\n");
    let out = install(&env, &dir, &["--force"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-commit.pre-ucg")).unwrap(),
        foreign
    );
    std::fs::remove_file(hooks.join("pre-commit")).unwrap();
    let out = env.ucg(&dir).args(["hooks", "uninstall"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-commit")).unwrap(),
        foreign
    );
}

/// A reference-transaction hook chained before ours runs for every state git runs it for, as it
/// did before ours was installed — in either form of our hook.
#[test]
fn a_chained_reference_transaction_hook_sees_every_state() {
    for form in [&[][..], &["--script"][..]] {
        let env = TestEnv::new();
        let dir = env.repo("r");
        let log = env.path().join("states.log");
        let foreign = format!(
            "#!/bin/sh\necho \"$1 $(cat | wc -l)\" >> '{}'\n",
            log.display()
        );
        write_executable(
            &dir.join(".git/hooks/reference-transaction"),
            foreign.as_bytes(),
        );
        let mut args = vec!["--only", "reference-transaction"];
        args.extend_from_slice(form);
        assert_eq!(install(&env, &dir, &args).status.code(), Some(0));
        let out = git_out(&env, &dir, &["commit", "--allow-empty", "-m", "x"]);
        assert_eq!(out.status.code(), Some(0), "{form:?}: {}", stderr(&out));
        let states = std::fs::read_to_string(&log).unwrap();
        for state in ["prepared", "committed"] {
            assert!(
                states
                    .lines()
                    .any(|line| line.starts_with(state) && !line.ends_with(" 0")),
                "{form:?}: the chained hook ran for `{state}` with its ref lines: {states}"
            );
        }
    }
}

/// The commit hook remembers a pass (issue 18: a commit hook under 2 ms) and serves it while
/// every file the decision read is unchanged; anything that could change the decision makes the
/// next commit decide in full.
#[test]
fn a_remembered_pass_holds_until_anything_the_gate_read_changes() {
    use std::os::unix::fs::MetadataExt;
    let env = TestEnv::new();
    let dir = env.demo();
    let impl_dir = dir.join(IMPL);
    // The run as it waits, kept to put back later.
    let waiting: Vec<(PathBuf, Vec<u8>)> = snapshot(&impl_dir);
    env.close_everything(&dir);
    assert_eq!(
        install(&env, &dir, &["--only", "pre-commit"]).status.code(),
        Some(0)
    );
    let cache = dir.join(".git/ucg/gate-cache");
    let commit = |extra_env: &[(&str, &str)]| {
        let mut command = env.git_command(&dir);
        command.args(["commit", "-q", "--allow-empty", "-m", "x"]);
        for (name, value) in extra_env {
            command.env(name, value);
        }
        command.output().unwrap()
    };
    let identity = |path: &Path| {
        std::fs::metadata(path)
            .map(|m| (m.ino(), m.mtime_nsec()))
            .ok()
    };
    // Files changed within two seconds are not trusted to show a change by their stamps.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let out = commit(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written = identity(&cache);
    assert!(written.is_some(), "the pass is remembered");
    let text = std::fs::read_to_string(&cache).unwrap();
    for read in [
        ".preflight-reds.json",
        ".decisions.json",
        "deferred-work.md",
    ] {
        assert!(text.contains(&format!("{IMPL}/{read}\n")), "{text}");
    }
    // Served from memory: the full hook would have written the cache again.
    let out = commit(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(identity(&cache), written, "served, not decided again");
    // An active run rewrites its heartbeat (here by a rename) and its turn counters: nothing the
    // decision reads, so the pass still holds.
    write(&impl_dir.join("run-status.json.tmp"), "{\"epic\": \"7\"}\n");
    std::fs::rename(
        impl_dir.join("run-status.json.tmp"),
        impl_dir.join("run-status.json"),
    )
    .unwrap();
    write(&impl_dir.join(".budget-7-3.json"), "{\"turns\": 3}\n");
    let out = commit(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(identity(&cache), written, "still served");

    // A chained hook runs first, cache or not.
    let chained = dir.join(".git/hooks/pre-commit.pre-ucg");
    write_executable(&chained, b"#!/bin/sh\necho chained says no >&2\nexit 5\n");
    let out = commit(&[]);
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("chained says no"), "{}", stderr(&out));
    std::fs::remove_file(&chained).unwrap();

    // Another artifact directory in the environment: decided there.
    let elsewhere = env.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    for (path, bytes) in &waiting {
        let target = elsewhere.join(path.strip_prefix(&impl_dir).unwrap());
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(target, bytes).unwrap();
    }
    let out = commit(&[("ULTRACODE_IMPL_ARTIFACTS", elsewhere.to_str().unwrap())]);
    assert!(stderr(&out).contains("commit refused"), "{}", stderr(&out));
    assert_eq!(identity(&cache), written, "a refusal is not remembered");

    // A new escalation in the artifact directory: the directory's stamp changed.
    let sidecar = impl_dir.join("escalation-9-9.json");
    write(
        &sidecar,
        r#"{"kind": "product", "source": "x", "decision_needed": "which?", "evidence": "e"}"#,
    );
    let out = commit(&[]);
    assert!(stderr(&out).contains("commit refused"), "{}", stderr(&out));
    std::fs::remove_file(&sidecar).unwrap();

    // The registry written back in place as the run left it: refused.
    for (path, bytes) in &waiting {
        std::fs::write(path, bytes).unwrap();
    }
    let out = commit(&[]);
    assert!(stderr(&out).contains("commit refused"), "{}", stderr(&out));
    env.close_everything(&dir);
    // Passes again, but the files just written are too recent to be remembered.
    let out = commit(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(identity(&cache), written);

    // Git's configuration is read too: strict mode turned on refuses an empty commit of the
    // story the run is on.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let out = commit(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let rewritten = identity(&cache);
    assert_ne!(rewritten, written, "remembered anew");
    env.git(&dir, &["config", "ucg.gate.strict", "true"]);
    let out = commit(&[]);
    assert!(
        stderr(&out).contains("refused by strict mode"),
        "{}",
        stderr(&out)
    );
    assert_eq!(identity(&cache), rewritten);
    // A cache that is not one is decided in full, and written over.
    env.git(&dir, &["config", "--unset", "ucg.gate.strict"]);
    std::fs::write(&cache, b"\x00garbage\n").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let out = commit(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(std::fs::read_to_string(&cache)
        .unwrap()
        .starts_with("git-ucg gate cache"));

    // A file git's configuration includes, not there when the pass was remembered, is watched.
    env.git(&dir, &["config", "include.path", "extra.cfg"]);
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let out = commit(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(std::fs::read_to_string(&cache)
        .unwrap()
        .contains("- .git/extra.cfg\n"));
    write(
        &dir.join(".git/extra.cfg"),
        "[ucg \"gate\"]\n\tstrict = true\n",
    );
    let out = commit(&[]);
    assert!(
        stderr(&out).contains("refused by strict mode"),
        "{}",
        stderr(&out)
    );
}

/// prepare-commit-msg leaves `git commit` to pre-commit without a decision, but a chained
/// prepare-commit-msg of the project's own (one that edits the message) still runs.
#[test]
fn a_chained_prepare_commit_msg_still_runs_under_all_commits() {
    let env = TestEnv::new();
    let dir = env.repo("r");
    let hooks = dir.join(".git/hooks");
    write_executable(
        &hooks.join("prepare-commit-msg"),
        b"#!/bin/sh\nprintf 'ticket: UCG-1\\n' >> \"$1\"\n",
    );
    assert_eq!(
        install(&env, &dir, &["--all-commits"]).status.code(),
        Some(0)
    );
    assert!(hooks.join("prepare-commit-msg.pre-ucg").is_file());
    let out = git_out(&env, &dir, &["commit", "-q", "--allow-empty", "-m", "x"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        env.git(&dir, &["log", "-1", "--format=%B"]),
        "x\nticket: UCG-1"
    );
    // Without it, the commit passes as before.
    std::fs::remove_file(hooks.join("prepare-commit-msg.pre-ucg")).unwrap();
    let out = git_out(&env, &dir, &["commit", "-q", "--allow-empty", "-m", "y"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(env.git(&dir, &["log", "-1", "--format=%B"]), "y");
}
