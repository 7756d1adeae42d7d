//! A team runs a stopped run through git with every hook installed and no bypass (issue 31): a
//! bare origin with the server gate, four clones with their own `user.email`, the run committed
//! on its epic branch, `hooks install --merge-driver` everywhere. Every step is the command a
//! person types; none sets `GIT_UCG_SKIP` or passes `--no-verify` (the hermetic environment
//! clears the variable, and a bypass would show in the commands below).
//!
//! Also the answer-only judgement as a table: commits that only record answers pass while other
//! decisions wait; one byte elsewhere, a new RED or an answer taken back is refused.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Output;

const IMPL: &str = "_bmad-output/implementation-artifacts";
const EPIC: &str = "ultracode/epic-7";

struct Team {
    env: TestEnv,
    remote: PathBuf,
    alice: PathBuf,
}

impl Team {
    /// The demo's run committed on its epic branch and pushed (as the agent left it, before any
    /// hook), the server gate on the remote, and alice's clone with the hooks and the driver.
    fn new() -> Team {
        let env = TestEnv::new();
        let alice = env.demo();
        env.git(&alice, &["add", "-A", "-f"]);
        env.git(&alice, &["commit", "-q", "-m", "the run's artifacts"]);
        let remote = env.path().join("origin.git");
        env.git(env.path(), &["init", "-q", "--bare", path(&remote)]);
        env.git(&alice, &["remote", "add", "origin", path(&remote)]);
        env.git(&alice, &["push", "-q", "origin", "main", EPIC]);
        env.git(&alice, &["branch", "-q", "-u", &format!("origin/{EPIC}")]);
        env.git(&alice, &["config", "user.email", "alice@example.com"]);
        let team = Team { env, remote, alice };
        team.ucg_ok(&team.remote, &["hooks", "install", "--server"]);
        team.ucg_ok(&team.alice, &["hooks", "install", "--merge-driver"]);
        team
    }

    /// A clone of the remote on `branch`, with its own identity, the hooks and the driver.
    fn clone(&self, name: &str, branch: &str) -> PathBuf {
        let dir = self.env.path().join(name);
        self.env.git(
            self.env.path(),
            &["clone", "-q", "-b", branch, path(&self.remote), path(&dir)],
        );
        self.env
            .git(&dir, &["config", "user.email", &format!("{name}@example.com")]);
        self.ucg_ok(&dir, &["hooks", "install", "--merge-driver"]);
        dir
    }

    fn ucg_ok(&self, dir: &Path, args: &[&str]) -> String {
        let out = self.env.ucg(dir).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        stdout(&out)
    }

    /// A git command a person runs, with every hook: it must succeed.
    fn git_ok(&self, dir: &Path, args: &[&str]) -> Output {
        let out = self.env.git_command(dir).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "git {args:?} in {}: {}{}",
            dir.display(),
            stdout(&out),
            stderr(&out)
        );
        out
    }

    fn git(&self, dir: &Path, args: &[&str]) -> Output {
        self.env.git_command(dir).args(args).output().unwrap()
    }

    /// The pending items' ids whose id starts with `prefix`.
    fn pending(&self, dir: &Path, prefix: &str) -> Vec<String> {
        let doc: serde_json::Value =
            serde_json::from_str(&self.ucg_ok(dir, &["pending", "--json"])).unwrap();
        doc["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["id"].as_str().unwrap().to_string())
            .filter(|id| id.starts_with(prefix))
            .collect()
    }

    /// Answers `id` in the checkout `dir` and stages what the answer changed.
    fn answer_in_checkout(&self, dir: &Path, id: &str, answer: &str) {
        self.ucg_ok(dir, &["resolve", "--close", id, "--answer", answer]);
        self.git_ok(dir, &["add", "-A", "_bmad-output"]);
    }
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_team_answers_through_git_with_every_hook_and_no_bypass() {
    let team = Team::new();
    let alice = team.alice.clone();
    // The merge driver's lines are committed and pushed while four decisions wait.
    team.git_ok(&alice, &["add", ".gitattributes"]);
    team.git_ok(&alice, &["commit", "-q", "-m", "merge driver"]);
    team.git_ok(&alice, &["push", "-q", "origin", EPIC]);

    let bob = team.clone("bob", EPIC);
    let carol = team.clone("carol", "main");
    let dave = team.clone("dave", EPIC);
    let reds = team.pending(&alice, "undecided-");
    assert_eq!(reds.len(), 2, "{reds:?}");

    // Bob answers a RED in his checkout, commits and pushes it.
    team.answer_in_checkout(&bob, &reds[0], "24 hours");
    team.git_ok(&bob, &["commit", "-q", "-m", "answer: sessions"]);
    // Work is still refused while decisions wait.
    write(&bob.join("code.txt"), "work\n");
    team.git_ok(&bob, &["add", "code.txt"]);
    let refused = team.git(&bob, &["commit", "-q", "-m", "work"]);
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    team.git_ok(&bob, &["rm", "-q", "--cached", "code.txt"]);
    team.git_ok(&bob, &["push", "-q", "origin", EPIC]);

    // Alice answers the other RED, commits, and pulls Bob's answer: a merge commit.
    team.answer_in_checkout(&alice, &reds[1], "Stripe");
    team.git_ok(&alice, &["commit", "-q", "-m", "answer: payments"]);
    team.git_ok(&alice, &["pull", "-q", "--no-rebase", "--no-edit"]);
    assert_eq!(team.git(&alice, &["rev-list", "--merges", "--count", "HEAD"]).stdout, b"1\n");
    team.git_ok(&alice, &["push", "-q", "origin", EPIC]);
    assert!(team.pending(&alice, "undecided-").is_empty());

    // Carol, on main, answers the escalation on the epic branch and pushes it, her own
    // pre-push hook installed.
    let escalation = team.pending(&alice, "budget-overrun")[0].clone();
    team.ucg_ok(
        &carol,
        &[
            "resolve", "--branch", EPIC, "--close", &escalation, "--answer", "split it",
            "--push", "origin",
        ],
    );

    // Dave, behind everyone, answers the ledger decision and rebases onto their answers.
    let decision = team.pending(&dave, "decision:")[0].clone();
    team.answer_in_checkout(&dave, &decision, "retry twice");
    team.git_ok(&dave, &["commit", "-q", "-m", "answer: retries"]);
    team.git_ok(&dave, &["pull", "-q", "--rebase"]);
    team.git_ok(&dave, &["push", "-q", "origin", EPIC]);

    // Everything is answered: the epic lands on main through the server gate.
    team.git_ok(&alice, &["pull", "-q", "--no-rebase", "--no-edit"]);
    assert!(team.pending(&alice, "").is_empty());
    team.git_ok(&alice, &["push", "-q", "origin", &format!("{EPIC}:main")]);
    let on_main = team.env.git(&team.remote, &["rev-parse", "main"]);
    assert_eq!(on_main, team.env.git(&alice, &["rev-parse", "HEAD"]));
    assert!(!team.env.path().join("origin.git").join(IMPL).exists());
}
