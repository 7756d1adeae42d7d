//! The shared remote's gate (`hooks install --server`): a bare repository's pre-receive hook,
//! real `git push`es to it over a local path, the protected refs, a run located by the pushed
//! tree's own configuration, chaining a foreign pre-receive hook, and `hooks status` there.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Output;

const IMPL: &str = "_bmad-output/implementation-artifacts";

/// One pending RED, as a registry holds it.
const ONE_RED: &str = r#"{
  "reds": [
    {
      "id": "undecided-product:docs/prd.md:0123456789ab",
      "source": "docs/prd.md:3",
      "kind": "undecided-product",
      "decision_needed": "Do sessions expire?",
      "evidence": "\"Sessions: TBD\""
    }
  ],
  "resolved": []
}
"#;

/// A bare repository with no branch yet (its HEAD names an unborn `main`).
fn bare(env: &TestEnv, name: &str) -> PathBuf {
    let remote = env.path().join(name);
    env.git(
        env.path(),
        &[
            "init",
            "-q",
            "--bare",
            "--initial-branch=main",
            remote.to_str().unwrap(),
        ],
    );
    remote
}

fn ucg_out(env: &TestEnv, cwd: &Path, args: &[&str]) -> Output {
    env.ucg(cwd).args(args).output().unwrap()
}

fn push(env: &TestEnv, dir: &Path, remote: &Path, refspec: &str) -> Output {
    env.git_command(dir)
        .args(["push", remote.to_str().unwrap(), refspec])
        .output()
        .unwrap()
}

/// The commit `reference` names in `repo`, if any.
fn tip(env: &TestEnv, repo: &Path, reference: &str) -> Option<String> {
    let out = env
        .git_command(repo)
        .args(["rev-parse", "--verify", "-q", reference])
        .output()
        .unwrap();
    out.status
        .success()
        .then(|| stdout(&out).trim().to_string())
}

/// The demo with its run committed: four decisions pending in the tree.
fn committed_demo(env: &TestEnv) -> PathBuf {
    let dir = env.demo();
    env.git(&dir, &["add", "-A"]);
    env.git(&dir, &["commit", "-q", "-m", "run artifacts"]);
    dir
}

#[test]
fn the_server_refuses_a_protected_push_until_the_answers_are_committed() {
    let env = TestEnv::new();
    let dir = committed_demo(&env);
    let remote = bare(&env, "remote.git");
    let out = ucg_out(&env, &remote, &["hooks", "install", "--server"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let hook = std::fs::read_to_string(remote.join("hooks/pre-receive")).unwrap();
    assert!(
        hook.starts_with(&format!(
            "#!{BIN} __hook\n# git-ucg managed hook — id: git-ucg-hook-v1\n"
        )),
        "{hook}"
    );

    // main, into a repository with no branch yet: refused, each decision listed to the pusher.
    let out = push(&env, &dir, &remote, "HEAD:refs/heads/main");
    assert_ne!(out.status.code(), Some(0));
    let message = stderr(&out);
    let short = &env.git(&dir, &["rev-parse", "HEAD"])[..7];
    // Wrapped to the 72 columns left after git's `remote: `.
    assert!(
        message.contains("remote: git-ucg: push to main refused: the run waits on 4 decisions")
            && message.contains(&format!("remote: (refs/heads/main at {short})")),
        "{message}"
    );
    assert!(
        message.lines().all(|l| l.trim_end().chars().count() <= 80),
        "{message}"
    );
    for listed in [
        "remote:   RED         7662cf80acff  undecided-product  .preflight-reds.json",
        "remote:               Do sessions expire, and after how long?",
        "remote:   ledger      86a2bcce9526 (d2)  decision  deferred-work.md",
        "remote: Then commit the answers and push again:",
        "(pre-receive hook declined)",
    ] {
        assert!(message.contains(listed), "{listed}\n{message}");
    }
    assert_eq!(tip(&env, &remote, "refs/heads/main"), None);

    // The pusher's bypass of the client hooks is not one here (a file:// URL as well).
    let out = env
        .git_command(&dir)
        .args([
            "push",
            &format!("file://{}", remote.display()),
            "HEAD:refs/heads/main",
        ])
        .env("GIT_UCG_SKIP", "1")
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("remote: git-ucg: push to main refused"),
        "{}",
        stderr(&out)
    );
    assert_eq!(tip(&env, &remote, "refs/heads/main"), None);

    // Another branch with the same decisions pending passes, silently.
    let out = push(&env, &dir, &remote, "HEAD:refs/heads/epic");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("git-ucg"), "{}", stderr(&out));
    // `gate --rev` in the bare repository is the same decision, from the same tree.
    let out = ucg_out(&env, &remote, &["gate", "--rev", "epic", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["blocking"].as_array().unwrap().len(), 4);
    let out = ucg_out(&env, &remote, &["gate"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--rev REV"), "{}", stderr(&out));

    // Answered in the clone but not committed: the pushed tree still waits.
    env.close_everything(&dir);
    let out = push(&env, &dir, &remote, "HEAD:refs/heads/main");
    assert_ne!(out.status.code(), Some(0), "{}", stderr(&out));
    // Committed: accepted, and main moves.
    env.git(&dir, &["add", "-A"]);
    env.git(&dir, &["commit", "-q", "-m", "answers"]);
    let out = push(&env, &dir, &remote, "HEAD:refs/heads/main");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        tip(&env, &remote, "refs/heads/main"),
        tip(&env, &dir, "HEAD")
    );
    assert_eq!(
        ucg_out(&env, &remote, &["gate", "--rev", "main"])
            .status
            .code(),
        Some(0)
    );

    // A new RED on top: refused, and main stays where it was.
    let answered = tip(&env, &remote, "refs/heads/main");
    write(&dir.join(IMPL).join(".preflight-reds.json"), ONE_RED);
    env.git(
        &dir,
        &["commit", "-q", "-a", "--no-verify", "-m", "a new RED"],
    );
    let out = push(&env, &dir, &remote, "HEAD:refs/heads/main");
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("push to main refused: the run waits on 1 decision")
            && stderr(&out).contains("RED         0123456789ab  undecided-product"),
        "{}",
        stderr(&out)
    );
    assert_eq!(tip(&env, &remote, "refs/heads/main"), answered);
}

#[test]
fn the_server_protects_the_configured_refs_and_reads_the_trees_configuration() {
    let env = TestEnv::new();
    let remote = bare(&env, "remote.git");
    let out = ucg_out(&env, &remote, &["hooks", "install", "--server", "--script"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let script = std::fs::read_to_string(remote.join("hooks/pre-receive")).unwrap();
    assert!(
        script.starts_with("#!/bin/sh\n# git-ucg managed hook — id: git-ucg-hook-v1\n"),
        "{script}"
    );
    assert!(
        !script.contains("case ,"),
        "no bypass in the script: {script}"
    );
    env.git(&remote, &["config", "ucg.gate.protect", "release"]);
    env.git(
        &remote,
        &["config", "--add", "ucg.gate.protect", "refs/heads/prod"],
    );

    // The run where the tree's own configuration puts it, one RED pending.
    let dir = env.repo("project");
    write(
        &dir.join("_bmad/custom/ultracode-goal.toml"),
        "[workflow]\nimplementation_artifacts = \"{project-root}/ops/run\"\n",
    );
    write(&dir.join("ops/run/.preflight-reds.json"), ONE_RED);
    env.git(&dir, &["add", "-A"]);
    env.git(&dir, &["commit", "-q", "-m", "a run elsewhere"]);

    // main is no longer protected once ucg.gate.protect is set; release and prod are.
    let out = push(&env, &dir, &remote, "HEAD:refs/heads/main");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for (branch, name) in [("release", "release"), ("prod", "prod")] {
        let out = push(&env, &dir, &remote, &format!("HEAD:refs/heads/{branch}"));
        assert_ne!(out.status.code(), Some(0), "{branch}");
        let message = stderr(&out);
        assert!(
            message.contains(&format!(
                "remote: git-ucg: push to {name} refused: the run waits on 1 decision"
            )) && message.contains("remote:               Do sessions expire?"),
            "{message}"
        );
        assert_eq!(tip(&env, &remote, &format!("refs/heads/{branch}")), None);
    }

    // A tree without the artifact directory passes.
    let plain = env.repo("plain");
    let out = push(&env, &plain, &remote, "HEAD:refs/heads/release");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // A tree whose configuration cannot be resolved may hide a decision: refused.
    write(
        &plain.join("_bmad/custom/ultracode-goal.toml"),
        "[workflow]\nimplementation_artifacts = \"{output}/run\"\n",
    );
    env.git(&plain, &["add", "-A"]);
    env.git(&plain, &["commit", "-q", "-m", "an unresolved token"]);
    let out = push(&env, &plain, &remote, "HEAD:refs/heads/release");
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("push to release refused: the run of refs/heads/release at"),
        "{}",
        stderr(&out)
    );
    // A deletion of a protected branch pushes no commit and passes.
    let out = push(&env, &plain, &remote, ":refs/heads/release");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(tip(&env, &remote, "refs/heads/release"), None);
}

#[test]
fn the_server_hook_chains_a_foreign_pre_receive() {
    let env = TestEnv::new();
    let dir = committed_demo(&env);
    let remote = bare(&env, "remote.git");
    let hooks = remote.join("hooks");
    let seen = env.path().join("foreign-saw");
    let foreign = format!(
        "#!/bin/sh\ncat > '{}'\necho foreign pre-receive ran >&2\nexit 0\n",
        seen.display()
    );
    write_executable(&hooks.join("pre-receive"), foreign.as_bytes());
    let out = ucg_out(&env, &remote, &["hooks", "install", "--server"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("chained: pre-receive"),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-receive.pre-ucg")).unwrap(),
        foreign
    );

    // `hooks status` in the bare repository: the server's hook, and what it chains.
    let out = ucg_out(&env, &remote, &["hooks", "status"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let hook_path = hooks.join("pre-receive");
    assert!(
        text.contains(&format!("git runs hooks from {}\n", hooks.display()))
            && text.contains("  pre-receive  installed, git runs it\n")
            && flat(&text).contains(&format!(
                "chains {}, run first",
                hooks.join("pre-receive.pre-ucg").display()
            )),
        "{text}"
    );
    assert!(
        !text.contains("pre-commit"),
        "a bare repository makes no commits: {text}"
    );
    assert!(
        text.ends_with("protected (git config ucg.gate.protect): main, master\n"),
        "{text}"
    );
    let out = ucg_out(&env, &remote, &["hooks", "status", "--json"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let states = hook_states(&doc);
    assert_eq!(states, [("pre-receive", "active")]);
    assert_eq!(doc["protected"], serde_json::json!(["main", "master"]));
    // A checkout lists it only when it is there.
    let out = ucg_out(&env, &dir, &["hooks", "status"]);
    assert!(!stdout(&out).contains("pre-receive"), "{}", stdout(&out));

    // The foreign hook runs first, with the same ref lines; then ours refuses.
    let out = push(&env, &dir, &remote, "HEAD:refs/heads/main");
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("remote: foreign pre-receive ran")
            && stderr(&out).contains("push to main refused"),
        "{}",
        stderr(&out)
    );
    let head = env.git(&dir, &["rev-parse", "HEAD"]);
    assert_eq!(
        std::fs::read_to_string(&seen).unwrap(),
        format!("{} {head} refs/heads/main\n", "0".repeat(40))
    );
    // Its refusal refuses, whatever the ref.
    write_executable(
        &hooks.join("pre-receive.pre-ucg"),
        b"#!/bin/sh\necho foreign says no >&2\nexit 3\n",
    );
    let out = push(&env, &dir, &remote, "HEAD:refs/heads/topic");
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("remote: foreign says no"),
        "{}",
        stderr(&out)
    );
    assert_eq!(tip(&env, &remote, "refs/heads/topic"), None);
    write_executable(&hooks.join("pre-receive.pre-ucg"), foreign.as_bytes());

    // Uninstalled: the foreign hook is back, byte for byte, and main is no longer gated.
    let out = ucg_out(&env, &remote, &["hooks", "uninstall"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&hook_path).unwrap(), foreign);
    assert!(!hooks.join("pre-receive.pre-ucg").exists());
    let out = push(&env, &dir, &remote, "HEAD:refs/heads/main");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}
