//! The gate under the hook managers, with the real tools: pre-commit (the Python framework, through
//! the repository's `.pre-commit-hooks.yaml`), lefthook and husky (through the snippets README
//! shows, `hooks/managers/`). Each refuses a commit and a push while the demo's run waits, and lets
//! them through once everything is answered; `hooks install` prints the snippet instead of writing
//! over a manager's hooks, and `hooks status` says "gated through" it.
//!
//! The tools come from `$GIT_UCG_TEST_HOOK_TOOLS` (`.ci/run` installs them there: a venv with
//! pre-commit in `venv/`, lefthook and husky under `npm/`), else they are installed once per test
//! process into a directory under the system's temporary directory, keyed by their versions. A
//! tool that cannot be installed there skips its tests, loudly; under `$GIT_UCG_TEST_HOOK_TOOLS`, a
//! missing tool fails them.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const PRE_COMMIT_VERSION: &str = "4.7.0";
const LEFTHOOK_VERSION: &str = "2.2.2";
const HUSKY_VERSION: &str = "9.1.7";

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

pub(crate) struct Tools {
    pub(crate) pre_commit: Option<PathBuf>,
    pub(crate) lefthook: Option<PathBuf>,
    pub(crate) husky: Option<PathBuf>,
}

fn run_quietly(command: &mut Command) -> bool {
    command
        .output()
        .is_ok_and(|out| out.status.success() || panic_free_log(&out))
}

/// Logs a failed installation step (the caller skips); never true.
fn panic_free_log(out: &Output) -> bool {
    eprintln!(
        "installing a hook manager failed:\n{}{}",
        stdout(out),
        stderr(out)
    );
    false
}

fn tools() -> &'static Tools {
    static TOOLS: OnceLock<Tools> = OnceLock::new();
    TOOLS.get_or_init(|| {
        let given = std::env::var_os("GIT_UCG_TEST_HOOK_TOOLS").map(PathBuf::from);
        let root = given.clone().unwrap_or_else(|| {
            std::env::temp_dir().join(format!(
                "git-ucg-hook-tools-{PRE_COMMIT_VERSION}-{LEFTHOOK_VERSION}-{HUSKY_VERSION}"
            ))
        });
        let pre_commit = root.join("venv/bin/pre-commit");
        let lefthook = root.join("npm/node_modules/.bin/lefthook");
        let husky = root.join("npm/node_modules/.bin/husky");
        if given.is_none() {
            if !pre_commit.exists() {
                let venv = root.join("venv");
                let _ = run_quietly(Command::new("python3").arg("-m").arg("venv").arg(&venv))
                    && run_quietly(
                        Command::new(venv.join("bin/pip"))
                            .args(["install", "--quiet", "--disable-pip-version-check"])
                            .arg(format!("pre-commit=={PRE_COMMIT_VERSION}")),
                    );
            }
            if !lefthook.exists() || !husky.exists() {
                // Outside any repository, and without lefthook's install script (it runs
                // `lefthook install` in the directory npm was started from).
                let _ = std::fs::create_dir_all(&root);
                let _ = run_quietly(
                    Command::new("npm")
                        .current_dir(&root)
                        .args(["install", "--ignore-scripts", "--no-audit", "--no-fund"])
                        .args(["--silent", "--prefix"])
                        .arg(root.join("npm"))
                        .arg(format!("lefthook@{LEFTHOOK_VERSION}"))
                        .arg(format!("husky@{HUSKY_VERSION}")),
                );
            }
        }
        let usable = |path: PathBuf| {
            let there = path.is_file();
            assert!(
                there || given.is_none(),
                "GIT_UCG_TEST_HOOK_TOOLS is set, but {} is not there",
                path.display()
            );
            there.then_some(path)
        };
        Tools {
            pre_commit: usable(pre_commit),
            lefthook: usable(lefthook),
            husky: usable(husky),
        }
    })
}

/// The tool's path, or `None` after saying loudly that its test is skipped.
pub(crate) fn tool(
    which: fn(&Tools) -> &Option<PathBuf>,
    name: &str,
    test: &str,
) -> Option<PathBuf> {
    let found = which(tools()).clone();
    if found.is_none() {
        eprintln!(
            "\n*** SKIPPED {test}: {name} could not be installed (pip/npm unreachable?); \
set GIT_UCG_TEST_HOOK_TOOLS to a directory holding it (see .ci/run) ***\n"
        );
    }
    found
}

/// A test's scene: the tool (skipped loudly when it cannot be had), the demo with a bare remote,
/// and PATH with the built git-ucg and the tool.
struct Scene {
    env: TestEnv,
    dir: PathBuf,
    tool: PathBuf,
    path: std::ffi::OsString,
}

fn scene(which: fn(&Tools) -> &Option<PathBuf>, name: &str, test: &str) -> Option<Scene> {
    let tool = tool(which, name, test)?;
    let env = TestEnv::new();
    let (dir, _) = env.demo_with_remote();
    let path = path_with(&tool);
    Some(Scene {
        env,
        dir,
        tool,
        path,
    })
}

/// PATH with the built git-ucg and the tool's directory first.
pub(crate) fn path_with(tool: &Path) -> std::ffi::OsString {
    let mut dirs = vec![
        Path::new(BIN).parent().unwrap().to_path_buf(),
        tool.parent().unwrap().to_path_buf(),
    ];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).unwrap()
}

fn both(out: &Output) -> String {
    format!("{}{}", stdout(out), stderr(out))
}

/// `git ARGS` with `path` as PATH.
fn git_with(env: &TestEnv, dir: &Path, path: &std::ffi::OsStr, args: &[&str]) -> Output {
    env.git_command(dir)
        .env("PATH", path)
        .args(args)
        .output()
        .unwrap()
}

pub(crate) fn snippet(name: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join("hooks/managers").join(name)).unwrap()
}

/// A commit and a push refused while the demo's run waits; both through once it is answered
/// (the answers committed with the change, as the pushed commit's artifacts decide the push).
fn commits_and_pushes_wait(env: &TestEnv, dir: &Path, path: &std::ffi::OsStr, manager: &str) {
    let readme = dir.join("README.md");
    let mut text = std::fs::read_to_string(&readme).unwrap();
    text.push_str("more\n");
    write(&readme, &text);
    let out = git_with(env, dir, path, &["commit", "-a", "-m", "blocked"]);
    assert_ne!(out.status.code(), Some(0), "{manager}: {}", both(&out));
    assert!(
        both(&out).contains("git-ucg: commit refused: the run waits on 4 decisions")
            && both(&out).contains("RED         7662cf80acff  undecided-product"),
        "{manager}: {}",
        both(&out)
    );
    let out = git_with(env, dir, path, &["push", "origin", "HEAD:refs/heads/epic"]);
    assert_ne!(out.status.code(), Some(0), "{manager}: {}", both(&out));
    assert!(
        both(&out).contains("git-ucg: push refused"),
        "{manager}: {}",
        both(&out)
    );
    // An empty commit carries no answer: refused too (lefthook skipped it as a command).
    let out = git_with(env, dir, path, &["commit", "--allow-empty", "-m", "empty"]);
    assert_ne!(out.status.code(), Some(0), "{manager}: {}", both(&out));
    // A merge commit of work (a side branch made without the hooks): refused by the manager's
    // pre-merge-commit gate.
    let branch = env.git(dir, &["branch", "--show-current"]);
    env.git(dir, &["checkout", "-q", "-b", "work-to-merge"]);
    write(&dir.join("side.txt"), "side\n");
    env.git(dir, &["add", "side.txt"]);
    env.git(dir, &["commit", "-q", "--no-verify", "-m", "side"]);
    env.git(dir, &["checkout", "-q", &branch]);
    let out = git_with(
        env,
        dir,
        path,
        &["merge", "--no-ff", "--no-edit", "work-to-merge"],
    );
    assert_ne!(out.status.code(), Some(0), "{manager}: {}", both(&out));
    assert!(
        both(&out).contains("git-ucg: merge refused"),
        "{manager}: {}",
        both(&out)
    );
    let _ = git_with(env, dir, path, &["merge", "--abort"]);
    env.git(dir, &["branch", "-q", "-D", "work-to-merge"]);
    // A push of a commit the remote has under another name (put there without the hooks).
    let out = git_with(
        env,
        dir,
        path,
        &["push", "--no-verify", "origin", "HEAD:refs/heads/elsewhere"],
    );
    assert_eq!(out.status.code(), Some(0), "{manager}: {}", both(&out));
    let out = git_with(env, dir, path, &["push", "origin", "HEAD:refs/heads/epic"]);
    if manager == "pre-commit" {
        // pre-commit runs no hook for it (README says so, and names the server gate).
        assert_eq!(out.status.code(), Some(0), "{manager}: {}", both(&out));
        let _ = git_with(env, dir, path, &["push", "origin", ":refs/heads/epic"]);
    } else {
        assert_ne!(out.status.code(), Some(0), "{manager}: {}", both(&out));
        assert!(
            both(&out).contains("git-ucg: push refused"),
            "{manager}: {}",
            both(&out)
        );
    }

    env.close_everything(dir);
    let out = git_with(env, dir, path, &["commit", "-a", "-m", "answered"]);
    assert_eq!(out.status.code(), Some(0), "{manager}: {}", both(&out));
    let out = git_with(env, dir, path, &["push", "origin", "HEAD:refs/heads/epic"]);
    assert_eq!(out.status.code(), Some(0), "{manager}: {}", both(&out));
    // A push on top of what the remote has (pre-commit then gives PRE_COMMIT_TO_REF).
    let out = git_with(env, dir, path, &["commit", "--allow-empty", "-m", "next"]);
    assert_eq!(out.status.code(), Some(0), "{manager}: {}", both(&out));
    let out = git_with(env, dir, path, &["push", "origin", "HEAD:refs/heads/epic"]);
    assert_eq!(out.status.code(), Some(0), "{manager}: {}", both(&out));
}

/// pre-commit refuses to run with its configuration unstaged: the configuration committed (it
/// stays through branch switches), then `pre-commit install`.
fn commit_config_and_install(env: &TestEnv, dir: &Path, pre_commit: &Path, path: &std::ffi::OsStr) {
    env.git(dir, &["add", ".pre-commit-config.yaml"]);
    env.git(dir, &["commit", "-q", "--no-verify", "-m", "pre-commit"]);
    let out = env
        .command(pre_commit, dir)
        .env("PATH", path)
        .arg("install")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
}

fn install(env: &TestEnv, dir: &Path) -> Output {
    env.ucg(dir).args(["hooks", "install"]).output().unwrap()
}

fn status_json(env: &TestEnv, dir: &Path) -> serde_json::Value {
    let out = env
        .ucg(dir)
        .args(["hooks", "status", "--json"])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `hooks install` where a manager runs the hooks but not the gate: the snippet, exit 2, nothing
/// written; once the manager runs the gate: "gated through", exit 0, still nothing written.
fn install_prints_the_snippet_then_sees_the_gate(
    env: &TestEnv,
    dir: &Path,
    manager: &str,
    wire: impl FnOnce(),
    expected: &str,
) {
    let hooks = PathBuf::from(status_json(env, dir)["hooks_dir"].as_str().unwrap());
    let before = snapshot(&hooks);
    let out = install(env, dir);
    assert_eq!(out.status.code(), Some(2), "{}", both(&out));
    let message = stderr(&out);
    let indented: String = expected.lines().map(|l| format!("    {l}\n")).collect();
    assert!(
        message.contains(&format!("{manager} manages this repository's hooks"))
            && message.contains(&indented)
            && message.contains("--hooks-path-ok"),
        "{message}"
    );
    assert_eq!(snapshot(&hooks), before, "nothing written");
    let doc = status_json(env, dir);
    assert_eq!(doc["gated_through"], serde_json::json!([]), "{doc}");
    assert_eq!(doc["managers"][0]["manager"], manager, "{doc}");

    wire();
    let out = install(env, dir);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert!(
        stdout(&out).contains(&format!("gated through {manager}")),
        "{}",
        stdout(&out)
    );
    // husky's hooks are in place before its files are written; the others install theirs after.
    assert_eq!(
        stdout(&out).contains(&format!(
            "but {manager}'s own hooks are not where git runs hooks"
        )),
        manager != "husky",
        "{}",
        stdout(&out)
    );
    assert_eq!(snapshot(&hooks), before, "nothing written");
}

/// `hooks status` names the manager, in both forms.
fn status_says_gated_through(env: &TestEnv, dir: &Path, manager: &str) {
    let doc = status_json(env, dir);
    assert_eq!(doc["gated_through"], serde_json::json!([manager]), "{doc}");
    assert_eq!(doc["managers"][0]["installed"], true, "{doc}");
    let out = env.ucg(dir).args(["hooks", "status"]).output().unwrap();
    assert!(
        stdout(&out).contains(&format!("gated through {manager} (")),
        "{}",
        stdout(&out)
    );
}

#[test]
fn pre_commit_try_repo_runs_the_gate_of_this_repository() {
    let Some(pre_commit) = tool(
        |t| &t.pre_commit,
        "pre-commit",
        "pre_commit_try_repo_runs_the_gate_of_this_repository",
    ) else {
        return;
    };
    let env = TestEnv::new();
    let dir = env.demo();
    let path = path_with(&pre_commit);
    let try_repo = || {
        env.command(&pre_commit, &dir)
            .env("PATH", &path)
            .args([
                "try-repo",
                ROOT,
                "git-ucg-gate-system",
                "--hook-stage",
                "pre-commit",
            ])
            .output()
            .unwrap()
    };
    let out = try_repo();
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    assert!(
        both(&out).contains("git-ucg: commit refused: the run waits on 4 decisions")
            && both(&out).contains("RED         7662cf80acff  undecided-product"),
        "{}",
        both(&out)
    );
    env.close_everything(&dir);
    let out = try_repo();
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
}

#[test]
fn pre_commit_gates_commits_and_pushes() {
    let Some(Scene {
        env,
        dir,
        tool: pre_commit,
        path,
    }) = scene(
        |t| &t.pre_commit,
        "pre-commit",
        "pre_commit_gates_commits_and_pushes",
    )
    else {
        return;
    };
    // The hooks' repository as pre-commit fetches it: this repository's .pre-commit-hooks.yaml,
    // committed (a local clone: no network).
    let source = env.repo("hooks-source");
    std::fs::copy(
        Path::new(ROOT).join(".pre-commit-hooks.yaml"),
        source.join(".pre-commit-hooks.yaml"),
    )
    .unwrap();
    env.git(&source, &["add", "-A"]);
    env.git(&source, &["commit", "-q", "-m", "hooks"]);
    let rev = env.git(&source, &["rev-parse", "HEAD"]);
    let expected = snippet("pre-commit-config.yaml");
    let config = expected
        .replace("https://example.invalid/git-ucg", source.to_str().unwrap())
        .replace("rev: v0.1.0", &format!("rev: {rev}"));
    assert_ne!(config, expected, "the snippet names a repository and a rev");

    write(&dir.join(".pre-commit-config.yaml"), "repos: []\n");
    let wire = || write(&dir.join(".pre-commit-config.yaml"), &config);
    install_prints_the_snippet_then_sees_the_gate(&env, &dir, "pre-commit", wire, &expected);
    commit_config_and_install(&env, &dir, &pre_commit, &path);
    for hook in ["pre-commit", "pre-merge-commit", "pre-push"] {
        assert!(dir.join(".git/hooks").join(hook).is_file(), "{hook}");
    }
    status_says_gated_through(&env, &dir, "pre-commit");
    // A merge commit: pre-commit's pre-merge-commit stage is the merge gate (GIT_REFLOG_ACTION).
    env.git(&dir, &["checkout", "-q", "-b", "side"]);
    let out = git_with(
        &env,
        &dir,
        &path,
        &["commit", "--no-verify", "--allow-empty", "-m", "side"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    env.git(&dir, &["checkout", "-q", "-"]);
    let out = git_with(
        &env,
        &dir,
        &path,
        &["merge", "--no-ff", "--no-edit", "side"],
    );
    assert_ne!(out.status.code(), Some(0), "{}", both(&out));
    assert!(
        both(&out).contains("git-ucg: merge refused")
            && both(&out).contains("git merge --no-verify"),
        "{}",
        both(&out)
    );
    let _ = git_with(&env, &dir, &path, &["merge", "--abort"]);
    commits_and_pushes_wait(&env, &dir, &path, "pre-commit");
}

/// The `repo: local` variant: nothing fetched, the git-ucg on PATH.
#[test]
fn pre_commit_runs_the_local_variant() {
    let Some(Scene {
        env,
        dir,
        tool: pre_commit,
        path,
    }) = scene(
        |t| &t.pre_commit,
        "pre-commit",
        "pre_commit_runs_the_local_variant",
    )
    else {
        return;
    };
    write(
        &dir.join(".pre-commit-config.yaml"),
        &snippet("pre-commit-config-local.yaml"),
    );
    commit_config_and_install(&env, &dir, &pre_commit, &path);
    status_says_gated_through(&env, &dir, "pre-commit");
    commits_and_pushes_wait(&env, &dir, &path, "pre-commit");
}

#[test]
fn lefthook_runs_the_readme_snippet() {
    let Some(Scene {
        env,
        dir,
        tool: lefthook,
        path,
    }) = scene(
        |t| &t.lefthook,
        "lefthook",
        "lefthook_runs_the_readme_snippet",
    )
    else {
        return;
    };
    let expected = snippet("lefthook.yml");
    // The gate as a command, the README's snippet before: lefthook skips it when nothing is
    // staged, so it does not count as gated.
    write(
        &dir.join("lefthook.yml"),
        "pre-commit:\n  commands:\n    lint:\n      run: git ucg hooks run pre-commit\n",
    );
    let wire = || {
        write(&dir.join("lefthook.yml"), &expected);
        for hook in ["pre-commit", "pre-merge-commit", "pre-push"] {
            write(
                &dir.join(".lefthook").join(hook).join("git-ucg-gate"),
                &snippet(&format!("lefthook-{hook}")),
            );
        }
    };
    install_prints_the_snippet_then_sees_the_gate(&env, &dir, "lefthook", wire, &expected);
    let out = env
        .command(&lefthook, &dir)
        .env("PATH", &path)
        .arg("install")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    status_says_gated_through(&env, &dir, "lefthook");
    // resume's checklist counts the manager's gate as the git hooks.
    let out = env.ucg(&dir).args(["resume", "--json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let check = doc["checklist"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["item"] == "git hooks")
        .unwrap();
    assert_eq!(check["state"], "ok", "{check}");
    assert!(
        check["detail"]
            .as_str()
            .unwrap()
            .starts_with("pre-commit and pre-push gated through lefthook"),
        "{check}"
    );
    commits_and_pushes_wait(&env, &dir, &path, "lefthook");
}

#[test]
fn husky_runs_the_readme_snippet() {
    let Some(Scene {
        env,
        dir,
        tool: husky,
        path,
    }) = scene(|t| &t.husky, "husky", "husky_runs_the_readme_snippet")
    else {
        return;
    };
    // What `husky` (the `prepare` script `husky init` adds) does: .husky/_ and core.hooksPath.
    let out = env
        .command(&husky, &dir)
        .env("PATH", &path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert_eq!(env.git(&dir, &["config", "core.hooksPath"]), ".husky/_");
    let files = ["pre-commit", "pre-merge-commit", "pre-push"];
    let expected: Vec<String> = files
        .iter()
        .map(|hook| snippet(&format!("husky-{hook}")))
        .collect();
    let wire = || {
        for (hook, text) in files.iter().zip(&expected) {
            write(&dir.join(".husky").join(hook), text);
        }
    };
    install_prints_the_snippet_then_sees_the_gate(&env, &dir, "husky", wire, &expected[2]);
    status_says_gated_through(&env, &dir, "husky");
    commits_and_pushes_wait(&env, &dir, &path, "husky");
}

/// README's "Hooks" section shows each snippet as the tests run it, and the pre-commit entry names
/// this package's repository and version.
#[test]
fn the_readme_shows_the_tested_snippets() {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    for name in [
        "pre-commit-config.yaml",
        "pre-commit-config-local.yaml",
        "lefthook.yml",
        "lefthook-pre-commit",
        "lefthook-pre-merge-commit",
        "lefthook-pre-push",
        "husky-pre-commit",
        "husky-pre-merge-commit",
        "husky-pre-push",
    ] {
        let text = snippet(name);
        assert!(
            readme.contains(&format!("\n{text}```\n")),
            "README lacks hooks/managers/{name} verbatim in a code block"
        );
    }
    let pre_commit = snippet("pre-commit-config.yaml");
    assert!(pre_commit.contains(&format!("    rev: v{}\n", env!("CARGO_PKG_VERSION"))));
    assert!(pre_commit.contains(&format!("  - repo: {}\n", env!("CARGO_PKG_REPOSITORY"))));
    let hooks = std::fs::read_to_string(Path::new(ROOT).join(".pre-commit-hooks.yaml")).unwrap();
    for id in ["- id: git-ucg-gate\n", "- id: git-ucg-gate-system\n"] {
        assert!(hooks.contains(id), "{id}");
    }
    assert_eq!(
        hooks
            .matches("entry: git-ucg hooks run --from-env\n")
            .count(),
        2
    );
    assert!(hooks.contains("  language: rust\n") && hooks.contains("  language: system\n"));
}

/// `--from-env` outside pre-commit refuses rather than guess; under pre-commit's push variables
/// it judges the pushed ref (the root commit's push gives no PRE_COMMIT_TO_REF: the local ref is
/// read); `GIT_UCG_SKIP` bypasses it as it does the hooks.
#[test]
fn from_env_reads_pre_commits_environment() {
    let env = TestEnv::new();
    let (dir, _) = env.demo_with_remote();
    let out = env
        .ucg(&dir)
        .args(["hooks", "run", "--from-env"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", both(&out));
    assert!(stderr(&out).contains("PRE_COMMIT"), "{}", stderr(&out));

    let run = |vars: &[(&str, &str)]| {
        let mut command = env.ucg(&dir);
        command
            .args(["hooks", "run", "--from-env"])
            .env("PRE_COMMIT", "1");
        for (k, v) in vars {
            command.env(k, v);
        }
        command.output().unwrap()
    };
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("commit refused"), "{}", stderr(&out));
    let out = run(&[("GIT_REFLOG_ACTION", "merge side")]);
    assert!(
        stderr(&out).contains("git merge --no-verify"),
        "{}",
        stderr(&out)
    );
    let head = env.git(&dir, &["rev-parse", "HEAD"]);
    let push = [
        ("PRE_COMMIT_LOCAL_BRANCH", "HEAD"),
        ("PRE_COMMIT_REMOTE_BRANCH", "refs/heads/epic"),
        ("PRE_COMMIT_REMOTE_NAME", "origin"),
        ("PRE_COMMIT_REMOTE_URL", "remote.git"),
    ];
    let out = run(&push);
    assert_eq!(out.status.code(), Some(1));
    let short = &head[..7];
    assert!(
        stderr(&out).contains(&format!(
            "push refused: the run waits on 4 decisions (HEAD at {short})"
        )),
        "{}",
        stderr(&out)
    );
    let mut with_to_ref = push.to_vec();
    with_to_ref.push(("PRE_COMMIT_TO_REF", &head));
    assert_eq!(run(&with_to_ref).status.code(), Some(1));
    let mut skipped = push.to_vec();
    skipped.push(("GIT_UCG_SKIP", "pre-push"));
    assert_eq!(run(&skipped).status.code(), Some(0));
    // A ref no run lands on passes, as in git's own pre-push hook.
    env.git(&dir, &["checkout", "-q", "main"]);
    let out = run(&[
        ("PRE_COMMIT_LOCAL_BRANCH", "refs/heads/main"),
        ("PRE_COMMIT_REMOTE_BRANCH", "refs/heads/main"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
}
