//! `cargo bench --bench hooks`: what the hooks cost a commit when nothing is pending (against the
//! same commit in a repository without hooks), `git ucg gate` with 10,000 pending items, and the
//! pre-push hook on 100 answer-only commits (`-- answers` runs that one alone), and on a push of
//! 1,000 commits judged by what it carries (`-- carried`).

#[path = "support/mod.rs"]
mod support;

use std::path::Path;
use std::process::Command;
use support::{time_alternating, time_pair, time_runs_exiting, RepoShape, RunShape, BIN};

fn git(root: &Path, args: &[&str]) -> Command {
    let mut command = support::git_command(
        root,
        &[
            "-c",
            "user.name=Bench",
            "-c",
            "user.email=bench@example.com",
        ],
    );
    command.args(args).env("GIT_UCG_BIN", BIN);
    command
}

fn repo(root: &Path) {
    let shape = RepoShape::plain(1_000, 2);
    support::write_repo(root, shape);
}

fn main() {
    println!("| benchmark | input | git-ucg median | comparison median | ratio |");
    println!("|---|---|---|---|---|");
    let dir = tempfile::tempdir().expect("tempdir");
    // `cargo bench --bench hooks -- answers`: only the answer-only push.
    if std::env::args().skip(1).any(|arg| arg == "answers") {
        answer_only_push(dir.path());
        return;
    }
    // `cargo bench --bench hooks -- carried`: only the push judged by what it carries.
    if std::env::args().skip(1).any(|arg| arg == "carried") {
        carried_push(dir.path());
        return;
    }
    let (hooked, plain) = (dir.path().join("hooked"), dir.path().join("plain"));
    let scripted = dir.path().join("scripted");
    for root in [&hooked, &plain, &scripted] {
        std::fs::create_dir_all(root).expect("dir");
        repo(root);
        // A run with nothing pending: a heartbeat, an empty registry, a resolved ledger.
        support::write_run(
            root,
            RunShape {
                stories: 3,
                escalations: 0,
                ledger_rows: 0,
                reds: 0,
            },
            "0000000000000000000000000000000000000000",
        );
    }
    let status = support::ucg(&hooked, &["hooks", "install"])
        .output()
        .expect("install");
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    // A run at rest: nothing it holds changed in the last two seconds, so the first commit's
    // hook remembers its pass (README, "A remembered pass") and the timed ones are served by it.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let _ = git(&hooked, &["commit", "-q", "--allow-empty", "-m", "x"]).status();
    let (with, without) = time_pair(
        101,
        || git(&hooked, &["commit", "-q", "--allow-empty", "-m", "x"]),
        || git(&plain, &["commit", "-q", "--allow-empty", "-m", "x"]),
    );
    println!(
        "| `git commit` with the hooks, nothing pending | 1,000 files, a run with nothing pending | {with:.2} ms | {without:.2} ms (a twin repository without hooks) | +{:.2} ms |",
        with - without
    );
    // The shell-script form (`--script`): a shell start more per hook.
    let status = support::ucg(&scripted, &["hooks", "install", "--script"])
        .output()
        .expect("install");
    assert!(status.status.success());
    let (with, without) = time_pair(
        101,
        || git(&scripted, &["commit", "-q", "--allow-empty", "-m", "x"]),
        || git(&plain, &["commit", "-q", "--allow-empty", "-m", "x"]),
    );
    println!(
        "| `git commit` with the `--script` hooks, nothing pending | same | {with:.2} ms | {without:.2} ms (a twin repository without hooks) | +{:.2} ms |",
        with - without
    );
    // The same repository three ways, in turn: the hook (its remembered pass), `true` in its
    // place (what git's running of any hook costs) and the hook skipped (`--no-verify`) — the
    // hook's own cost, without two repositories' noise.
    let true_hooks = dir.path().join("true-hooks");
    std::fs::create_dir_all(&true_hooks).expect("dir");
    // Each hook a commit runs: the gate (pre-commit) and the one that records bypasses
    // (post-commit).
    for name in ["pre-commit", "post-commit"] {
        let _ = std::os::unix::fs::symlink(
            which_true().unwrap_or_else(|| "/bin/true".into()),
            true_hooks.join(name),
        );
    }
    let hooks_path = format!("core.hooksPath={}", true_hooks.display());
    let commit = |extra: &[&str]| {
        let mut args: Vec<&str> = extra.to_vec();
        args.extend(["commit", "-q", "--allow-empty", "-m", "x"]);
        git(&hooked, &args)
    };
    let medians = time_alternating(
        151,
        &mut [
            &mut || commit(&[]),
            &mut || commit(&["-c", &hooks_path]),
            &mut || {
                git(
                    &hooked,
                    &["commit", "-q", "--allow-empty", "--no-verify", "-m", "x"],
                )
            },
        ],
    );
    let [with, empty_hook, skipped] = medians[..] else {
        unreachable!("three commands, three medians")
    };
    println!(
        "| `git commit` with the hooks, nothing pending | same repository | {with:.2} ms | {skipped:.2} ms (`--no-verify`) | +{:.2} ms |",
        with - skipped
    );
    println!(
        "| `git commit` with `true` as its pre-commit and post-commit hooks (git's cost of running any hook) | same repository, same run | {empty_hook:.2} ms | {skipped:.2} ms (`--no-verify`) | +{:.2} ms (the hooks: {:+.2} ms over it) |",
        empty_hook - skipped,
        with - empty_hook
    );
    // The hook's process alone, as git starts it (its remembered pass), against an empty program.
    for name in ["pre-commit", "post-commit"] {
        let hook = hooked.join(".git/hooks").join(name);
        let hook_process = || {
            let mut command = Command::new(BIN);
            command.current_dir(&hooked).arg("__hook").arg(&hook);
            command
        };
        let _ = hook_process().status();
        let (alone, empty) = time_pair(201, hook_process, || Command::new("true"));
        println!(
            "| the hook's process alone (`git-ucg __hook .git/hooks/{name}`), nothing pending | same repository | {alone:.2} ms | {empty:.2} ms (`true`) | +{:.2} ms |",
            alone - empty
        );
    }

    // `--all-commits`: prepare-commit-msg runs for every commit, a start of git-ucg that leaves
    // at once when pre-commit judged the commit; checkouts run no hook of it.
    let all = dir.path().join("all");
    std::fs::create_dir_all(&all).expect("dir");
    repo(&all);
    support::write_run(
        &all,
        RunShape {
            stories: 3,
            escalations: 0,
            ledger_rows: 0,
            reds: 0,
        },
        "0000000000000000000000000000000000000000",
    );
    let status = support::ucg(&all, &["hooks", "install", "--all-commits"])
        .output()
        .expect("install");
    assert!(status.status.success());
    let (with, without) = time_pair(
        101,
        || git(&all, &["commit", "-q", "--allow-empty", "-m", "x"]),
        || git(&plain, &["commit", "-q", "--allow-empty", "-m", "x"]),
    );
    println!(
        "| `git commit` with `--all-commits` hooks, nothing pending | 1,000 files, a run with nothing pending | {with:.2} ms | {without:.2} ms (a twin repository without hooks) | +{:.2} ms |",
        with - without
    );
    let _ = git(&all, &["branch", "-q", "other"]).status();
    let _ = git(&plain, &["branch", "-q", "other"]).status();
    // Each side flips between its two branches.
    let (mut hooked_flip, mut plain_flip) = (false, false);
    let (with, without) = time_pair(
        101,
        || {
            hooked_flip = !hooked_flip;
            git(
                &all,
                &["checkout", "-q", if hooked_flip { "other" } else { "-" }],
            )
        },
        || {
            plain_flip = !plain_flip;
            git(
                &plain,
                &["checkout", "-q", if plain_flip { "other" } else { "-" }],
            )
        },
    );
    println!(
        "| `git checkout` of another branch with `--all-commits` hooks | same | {with:.2} ms | {without:.2} ms (a twin repository without hooks) | +{:.2} ms |",
        with - without
    );

    let busy = dir.path().join("busy");
    std::fs::create_dir_all(&busy).expect("dir");
    repo(&busy);
    support::write_run(
        &busy,
        RunShape {
            stories: 3,
            escalations: 1_000,
            ledger_rows: 10_000,
            reds: 8_000,
        },
        "0000000000000000000000000000000000000000",
    );
    let gate = time_runs_exiting(21, 1, || support::ucg(&busy, &["gate", "--json"]));
    println!("| `git ucg gate --json` (exit 1) | 10,000 pending: 8,000 REDs, 1,000 escalations, 1,000 ledger decisions | {gate:.1} ms | — | — |");

    answer_only_push(dir.path());
    carried_push(dir.path());
}

/// The pre-push hook on a push of 1,000 new commits under a new name while the run's decisions
/// wait (issue 32: under 50 ms): a branch off `main`, so the hook walks its commits and the
/// epic's own to find that they carry none of the epic's work. Against `git rev-list` of the
/// same commits.
fn carried_push(scratch: &Path) {
    let demo = scratch.join("carried");
    let status = support::ucg(scratch, &["demo", demo.to_str().expect("utf-8")])
        .stdout(std::process::Stdio::null())
        .status()
        .expect("demo");
    assert!(status.success());
    let base = rev_parse(&demo, "main");
    // 1,000 commits on a branch off main, made with plumbing (no work tree churn, no hooks).
    let tree = rev_parse(&demo, "main^{tree}");
    let mut tip = base.clone();
    for n in 0..1000 {
        let out = git(
            &demo,
            &["commit-tree", &tree, "-p", &tip, "-m", &format!("fix {n}")],
        )
        .output()
        .expect("commit-tree");
        tip = String::from_utf8_lossy(&out.stdout).trim().to_string();
    }
    let status = git(&demo, &["update-ref", "refs/heads/hotfixes", &tip])
        .status()
        .expect("update-ref");
    assert!(status.success());
    let line = format!(
        "refs/heads/hotfixes {tip} refs/heads/hotfixes {}\n",
        "0".repeat(40)
    );
    let stdin_file = scratch.join("carried-line");
    std::fs::write(&stdin_file, line).expect("write");
    let (hook, listing) = time_pair(
        21,
        || {
            let mut command = support::ucg(&demo, &["hooks", "run", "pre-push", "origin", "x"]);
            command.stdin(std::fs::File::open(&stdin_file).expect("open"));
            command
        },
        || git(&demo, &["rev-list", &tip, "--not", &base]),
    );
    println!(
        "| the pre-push hook, 1,000 new commits under a new name, 4 decisions waiting | the demo's run, a branch of 1,000 commits off main (loose) | {hook:.1} ms | {listing:.1} ms (`git rev-list` of the pushed commits) | {:.1}× |",
        hook / listing
    );
}

/// The pre-push hook on a push of 100 commits that only record answers while four decisions
/// wait (issue 31: under 50 ms), against `git rev-list` listing the same commits.
fn answer_only_push(scratch: &Path) {
    let demo = scratch.join("answers");
    let status = support::ucg(scratch, &["demo", demo.to_str().expect("utf-8")])
        .stdout(std::process::Stdio::null())
        .status()
        .expect("demo");
    assert!(status.success());
    let run = |args: &[&str]| {
        let status = git(&demo, args)
            .stdout(std::process::Stdio::null())
            .status()
            .expect("git");
        assert!(status.success(), "git {args:?}");
    };
    run(&["add", "-A", "-f"]);
    run(&["commit", "-q", "-m", "the run"]);
    let base = rev_parse(&demo, "HEAD");
    let id = "decision:_bmad-output/implementation-artifacts/deferred-work.md:86a2bcce9526";
    for n in 0..100 {
        let answer = format!("later ({n})");
        let status = support::ucg(&demo, &["resolve", "--defer", id, "--answer", &answer])
            .stdout(std::process::Stdio::null())
            .status()
            .expect("resolve");
        assert!(status.success());
        run(&["add", "-A", "-f"]);
        run(&["commit", "-q", "-m", &answer]);
    }
    let tip = rev_parse(&demo, "HEAD");
    let line = format!("refs/heads/ultracode/epic-7 {tip} refs/heads/ultracode/epic-7 {base}\n");
    let stdin_file = scratch.join("push-line");
    std::fs::write(&stdin_file, line).expect("write");
    let with_stdin = |mut command: Command| {
        command.stdin(std::fs::File::open(&stdin_file).expect("open"));
        command
    };
    // As they are just after the commits (loose objects), then packed (`git repack -ad`).
    for objects in ["loose objects", "packed"] {
        if objects == "packed" {
            run(&["repack", "-adq"]);
        }
        let (hook, listing) = time_pair(
            21,
            || {
                with_stdin(support::ucg(
                    &demo,
                    &["hooks", "run", "pre-push", "origin", "x"],
                ))
            },
            || git(&demo, &["rev-list", &tip, "--not", &base]),
        );
        println!(
            "| the pre-push hook, 100 answer-only commits, 4 decisions waiting | the demo's run, {objects} | {hook:.1} ms | {listing:.1} ms (`git rev-list` of the same commits) | {:.1}× |",
            hook / listing
        );
    }
}

fn rev_parse(root: &Path, rev: &str) -> String {
    let out = git(root, &["rev-parse", rev])
        .output()
        .expect("git rev-parse");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Where `true` is on `PATH`.
fn which_true() -> Option<std::path::PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join("true"))
        .find(|path| path.is_file())
}
