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
    wiring: Wiring,
}

/// How a clone's hooks are wired: git-ucg's own, or a hook manager (the tool's path) running the
/// README's snippet, committed with the run as a team shares its manager's configuration.
enum Wiring {
    Own,
    Lefthook(PathBuf),
    Husky(PathBuf),
    PreCommit(PathBuf),
}

impl Wiring {
    /// The manager's tool, or `None` after saying loudly that `test` is skipped.
    fn manager(name: &str, test: &str) -> Option<Wiring> {
        use crate::managers::tool;
        match name {
            "lefthook" => tool(|t| &t.lefthook, name, test).map(Wiring::Lefthook),
            "husky" => tool(|t| &t.husky, name, test).map(Wiring::Husky),
            _ => tool(|t| &t.pre_commit, name, test).map(Wiring::PreCommit),
        }
    }

    /// Writes the manager's configuration, as the repository carries it; the paths written.
    fn configure(&self, dir: &Path) -> Vec<&'static str> {
        use crate::managers::snippet;
        let hooks = ["pre-commit", "pre-merge-commit", "pre-push"];
        match self {
            Wiring::Own => Vec::new(),
            Wiring::Lefthook(_) => {
                write(&dir.join("lefthook.yml"), &snippet("lefthook.yml"));
                for hook in hooks {
                    // Executable, as README says: lefthook sets the bit when it runs one.
                    let script = dir.join(".lefthook").join(hook).join("git-ucg-gate");
                    write(&script, &snippet(&format!("lefthook-{hook}")));
                    make_executable(&script);
                }
                vec!["lefthook.yml", ".lefthook"]
            }
            Wiring::Husky(_) => {
                for hook in hooks {
                    write(
                        &dir.join(".husky").join(hook),
                        &snippet(&format!("husky-{hook}")),
                    );
                }
                vec![".husky"]
            }
            Wiring::PreCommit(_) => {
                write(
                    &dir.join(".pre-commit-config.yaml"),
                    &snippet("pre-commit-config-local.yaml"),
                );
                vec![".pre-commit-config.yaml"]
            }
        }
    }

    /// PATH for every command of the walkthrough: the manager's hooks find the manager and `git
    /// ucg` there.
    fn path(&self) -> Option<std::ffi::OsString> {
        match self {
            Wiring::Own => None,
            Wiring::Lefthook(tool) | Wiring::Husky(tool) | Wiring::PreCommit(tool) => {
                Some(crate::managers::path_with(tool))
            }
        }
    }
}

impl Team {
    /// The demo's run committed on its epic branch and pushed (as the agent left it, before any
    /// hook), the server gate on the remote, and alice's clone with the hooks and the driver.
    fn new() -> Team {
        Team::wired(Wiring::Own)
    }

    /// As [`Team::new`], each clone's hooks wired as `wiring` says.
    fn wired(wiring: Wiring) -> Team {
        let env = TestEnv::new();
        let alice = env.demo();
        if !matches!(wiring, Wiring::Own) {
            // The manager's configuration is the project's: on main, merged into the epic.
            env.git(&alice, &["checkout", "-q", "main"]);
            let written = wiring.configure(&alice);
            env.git(&alice, &[&["add", "-f", "--"][..], &written].concat());
            env.git(&alice, &["commit", "-q", "-m", "hook manager"]);
            env.git(&alice, &["checkout", "-q", EPIC]);
            env.git(&alice, &["merge", "-q", "--no-edit", "main"]);
        }
        env.git(&alice, &["add", "-A", "-f"]);
        env.git(&alice, &["commit", "-q", "-m", "the run's artifacts"]);
        let remote = env.path().join("origin.git");
        env.git(env.path(), &["init", "-q", "--bare", path(&remote)]);
        env.git(&alice, &["remote", "add", "origin", path(&remote)]);
        env.git(&alice, &["push", "-q", "origin", "main", EPIC]);
        env.git(&alice, &["branch", "-q", "-u", &format!("origin/{EPIC}")]);
        env.git(&alice, &["config", "user.email", "alice@example.com"]);
        let team = Team {
            env,
            remote,
            alice,
            wiring,
        };
        team.ucg_ok(&team.remote, &["hooks", "install", "--server"]);
        team.install(&team.alice);
        team
    }

    /// What each person runs once in a clone: the manager's install, then `hooks install
    /// --merge-driver` (which, the manager running the gate, only sets up the driver).
    fn install(&self, dir: &Path) {
        let manager = match &self.wiring {
            Wiring::Own => None,
            Wiring::Lefthook(tool) => Some((tool, vec!["install"])),
            Wiring::Husky(tool) => Some((tool, vec![])),
            Wiring::PreCommit(tool) => Some((tool, vec!["install"])),
        };
        if let Some((tool, args)) = manager {
            let out = self
                .with_path(self.env.command(tool, dir))
                .args(&args)
                .output()
                .unwrap();
            assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
        }
        let said = self.ucg_ok(dir, &["hooks", "install", "--merge-driver"]);
        if !matches!(self.wiring, Wiring::Own) {
            assert!(said.contains("gated through"), "{said}");
        }
    }

    fn with_path(&self, mut command: std::process::Command) -> std::process::Command {
        if let Some(path) = self.wiring.path() {
            command.env("PATH", path);
        }
        command
    }

    /// Alice commits and pushes the merge driver's lines while four decisions wait (an
    /// answer-only commit: every hook lets it through).
    fn share_the_driver(&self) {
        self.git_ok(&self.alice, &["add", ".gitattributes"]);
        self.git_ok(&self.alice, &["commit", "-q", "-m", "merge driver"]);
        self.git_ok(&self.alice, &["push", "-q", "origin", EPIC]);
    }

    /// A clone of the remote on `branch`, with its own identity, the hooks and the driver.
    fn clone(&self, name: &str, branch: &str) -> PathBuf {
        let dir = self.env.path().join(name);
        self.env.git(
            self.env.path(),
            &["clone", "-q", "-b", branch, path(&self.remote), path(&dir)],
        );
        self.env.git(
            &dir,
            &["config", "user.email", &format!("{name}@example.com")],
        );
        self.install(&dir);
        dir
    }

    fn ucg_ok(&self, dir: &Path, args: &[&str]) -> String {
        let out = self
            .with_path(self.env.ucg(dir))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        stdout(&out)
    }

    /// A git command a person runs, with every hook: it must succeed.
    fn git_ok(&self, dir: &Path, args: &[&str]) -> Output {
        let out = self
            .with_path(self.env.git_command(dir))
            .args(args)
            .output()
            .unwrap();
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
        self.with_path(self.env.git_command(dir))
            .args(args)
            .output()
            .unwrap()
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
    /// (What `resolve` printed.)
    fn answer_in_checkout(&self, dir: &Path, id: &str, answer: &str) -> String {
        let said = self.ucg_ok(dir, &["resolve", "--close", id, "--answer", answer]);
        self.git_ok(dir, &["add", "-A", "_bmad-output"]);
        said
    }
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_team_answers_through_git_with_every_hook_and_no_bypass() {
    walk_through(Team::new());
}

/// The same walkthrough, each clone's hooks run by lefthook with the README's snippet.
#[test]
fn a_team_answers_through_git_under_lefthook() {
    let test = "a_team_answers_through_git_under_lefthook";
    if let Some(wiring) = Wiring::manager("lefthook", test) {
        walk_through(Team::wired(wiring));
    }
}

/// The same walkthrough under husky.
#[test]
fn a_team_answers_through_git_under_husky() {
    if let Some(wiring) = Wiring::manager("husky", "a_team_answers_through_git_under_husky") {
        walk_through(Team::wired(wiring));
    }
}

/// The same walkthrough under pre-commit (the local variant: nothing fetched).
#[test]
fn a_team_answers_through_git_under_pre_commit() {
    let test = "a_team_answers_through_git_under_pre_commit";
    if let Some(wiring) = Wiring::manager("pre-commit", test) {
        walk_through(Team::wired(wiring));
    }
}

fn walk_through(team: Team) {
    let alice = team.alice.clone();
    team.share_the_driver();

    let bob = team.clone("bob", EPIC);
    let carol = team.clone("carol", "main");
    let dave = team.clone("dave", EPIC);
    let reds = team.pending(&alice, "undecided-");
    assert_eq!(reds.len(), 2, "{reds:?}");

    // Bob answers a RED in his checkout, commits and pushes it.
    let said = team.answer_in_checkout(&bob, &reds[0], "24 hours");
    // The answers file is new in a directory git tracks: it is named for `git add`.
    assert!(
        flat(&said).contains(&format!(
            "New, and not yet in git (a `git commit -a` leaves it out): git add {IMPL}/.decisions.json"
        )),
        "{said}"
    );
    assert!(!said.contains("Not tracked by git"), "{said}");
    team.git_ok(&bob, &["commit", "-q", "-m", "answer: sessions"]);
    // Work is still refused while decisions wait.
    write(&bob.join("code.txt"), "work\n");
    team.git_ok(&bob, &["add", "code.txt"]);
    let refused = team.git(&bob, &["commit", "-q", "-m", "work"]);
    let said = format!("{}{}", stdout(&refused), stderr(&refused));
    assert!(!refused.status.success(), "{said}");
    assert!(said.contains("git-ucg: commit refused"), "{said}");
    team.git_ok(&bob, &["rm", "-q", "--cached", "code.txt"]);
    team.git_ok(&bob, &["push", "-q", "origin", EPIC]);

    // Alice answers the other RED, commits, and pulls Bob's answer: a merge commit.
    team.answer_in_checkout(&alice, &reds[1], "Stripe");
    team.git_ok(&alice, &["commit", "-q", "-m", "answer: payments"]);
    team.git_ok(&alice, &["pull", "-q", "--no-rebase", "--no-edit"]);
    // A merge commit (HEAD has a second parent).
    assert!(team
        .git(&alice, &["rev-parse", "-q", "--verify", "HEAD^2"])
        .status
        .success());
    team.git_ok(&alice, &["push", "-q", "origin", EPIC]);
    assert!(team.pending(&alice, "undecided-").is_empty());

    // Carol, on main, answers the escalation on the epic branch and pushes it, her own
    // pre-push hook installed.
    let escalation = team.pending(&alice, "budget-overrun")[0].clone();
    team.ucg_ok(
        &carol,
        &[
            "resolve",
            "--branch",
            EPIC,
            "--close",
            &escalation,
            "--answer",
            "split it",
            "--push",
            "origin",
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
    // post-commit and post-merge judged every commit of the walkthrough as its gate did: none
    // is on record as a bypass (issue 32 item 9).
    for clone in [&alice, &bob, &carol, &dave] {
        let notes = team.git(clone, &["notes", "--ref", "refs/notes/ucg-bypass", "list"]);
        assert_eq!(stdout(&notes), "", "{}", clone.display());
    }
}

/// One row of the answer-only table: what is done to the checkout before `git add -A; git
/// commit`, and whether the pre-commit hook lets the commit through while other decisions wait.
struct Case {
    name: &'static str,
    change: fn(&TestEnv, &Path, &Ids),
    passes: bool,
}

/// The demo's pending items by kind.
struct Ids {
    reds: Vec<String>,
    escalation: String,
    decision: String,
}

fn ids(env: &TestEnv, dir: &Path) -> Ids {
    let out = env.ucg(dir).args(["pending", "--json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let all: Vec<String> = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect();
    let first = |prefix: &str| {
        all.iter()
            .find(|id| id.starts_with(prefix))
            .unwrap()
            .clone()
    };
    Ids {
        reds: all
            .iter()
            .filter(|id| id.starts_with("undecided-"))
            .cloned()
            .collect(),
        escalation: first("budget-overrun"),
        decision: first("decision:"),
    }
}

fn answer(env: &TestEnv, dir: &Path, id: &str) {
    let out = env
        .ucg(dir)
        .args(["resolve", "--close", id, "--answer", "decided"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

fn edit(dir: &Path, file: &str, how: impl FnOnce(String) -> String) {
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    write(&path, &how(text));
}

fn registry(dir: &Path) -> String {
    format!("{}/{IMPL}/.preflight-reds.json", dir.display())
}

fn decision_log(dir: &Path) -> PathBuf {
    std::fs::read_dir(dir.join("_bmad-output/ultracode-goal"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join(".decision-log.md"))
        .find(|p| p.is_file())
        .unwrap()
}

const CASES: &[Case] = &[
    Case {
        name: "a RED answered",
        change: |env, dir, ids| answer(env, dir, &ids.reds[0]),
        passes: true,
    },
    Case {
        name: "every RED answered",
        change: |env, dir, ids| ids.reds.iter().for_each(|id| answer(env, dir, id)),
        passes: true,
    },
    Case {
        name: "an escalation answered (its sidecar and turn counter deleted)",
        change: |env, dir, ids| answer(env, dir, &ids.escalation),
        passes: true,
    },
    Case {
        name: "a ledger decision answered (its status cell resolved)",
        change: |env, dir, ids| answer(env, dir, &ids.decision),
        passes: true,
    },
    Case {
        name: "nothing (--allow-empty)",
        change: |_, _, _| {},
        passes: false,
    },
    Case {
        name: "a RED answered and one byte elsewhere",
        change: |env, dir, ids| {
            answer(env, dir, &ids.reds[0]);
            edit(dir, "README.md", |t| t + "x");
        },
        passes: false,
    },
    Case {
        name: "a RED answered and another one reworded",
        change: |env, dir, ids| {
            answer(env, dir, &ids.reds[0]);
            edit(Path::new("/"), &registry(dir), |t| {
                t.replacen("Adyen?", "Adyen?!", 1)
            });
        },
        passes: false,
    },
    Case {
        name: "a RED answered and a new one added",
        change: |env, dir, ids| {
            answer(env, dir, &ids.reds[0]);
            edit(Path::new("/"), &registry(dir), |t| {
                let mut doc: serde_json::Value = serde_json::from_str(&t).unwrap();
                let reds = doc["reds"].as_array_mut().unwrap();
                let mut new = reds[0].clone();
                new["id"] = "undecided-product:docs/prd.md:ffffffffffff".into();
                new["decision_needed"] = "Is there a free tier?".into();
                reds.push(new);
                serde_json::to_string_pretty(&doc).unwrap() + "\n"
            });
        },
        passes: false,
    },
    Case {
        name: "an escalation's sidecar deleted without an answer",
        change: |_, dir, _| {
            std::fs::remove_file(dir.join(IMPL).join("escalation-7-3.json")).unwrap();
        },
        passes: false,
    },
    Case {
        name: "a ledger decision answered and another ledger byte changed",
        change: |env, dir, ids| {
            answer(env, dir, &ids.decision);
            edit(dir, &format!("{IMPL}/deferred-work.md"), |t| t + "\n");
        },
        passes: false,
    },
    Case {
        name: "a RED answered and the decision log rewritten",
        change: |env, dir, ids| {
            answer(env, dir, &ids.reds[0]);
            let log = decision_log(dir);
            let text = std::fs::read_to_string(&log).unwrap();
            write(&log, &text[1..]);
        },
        passes: false,
    },
    Case {
        name: "a line other than the merge driver's in .gitattributes",
        change: |_, dir, _| write(&dir.join(".gitattributes"), "*.bin binary\n"),
        passes: false,
    },
];

#[test]
fn answer_only_commits_pass_and_anything_more_is_refused() {
    let env = TestEnv::new();
    let dir = env.demo();
    env.git(&dir, &["add", "-A", "-f"]);
    env.git(&dir, &["commit", "-q", "-m", "the run's artifacts"]);
    let out = env.ucg(&dir).args(["hooks", "install"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let base = env.git(&dir, &["rev-parse", "HEAD"]);
    let ids = ids(&env, &dir);
    for case in CASES {
        env.git(&dir, &["reset", "-q", "--hard", &base]);
        env.git(
            &dir,
            &[
                "clean",
                "-q",
                "-f",
                "-d",
                "-x",
                "_bmad-output",
                ".gitattributes",
            ],
        );
        (case.change)(&env, &dir, &ids);
        env.git(&dir, &["add", "-A"]);
        let out = env
            .git_command(&dir)
            .args(["commit", "-q", "--allow-empty", "-m", case.name])
            .output()
            .unwrap();
        assert_eq!(
            out.status.success(),
            case.passes,
            "{}: {}",
            case.name,
            stderr(&out)
        );
    }
    // An answer taken back in a later commit: the registry of before the answer restored, and
    // the close turned into a defer.
    env.git(&dir, &["reset", "-q", "--hard", &base]);
    answer(&env, &dir, &ids.reds[0]);
    env.git(&dir, &["add", "-A"]);
    env.git(&dir, &["commit", "-q", "-m", "answered"]);
    env.git(
        &dir,
        &[
            "checkout",
            &base,
            "--",
            &format!("{IMPL}/.preflight-reds.json"),
        ],
    );
    edit(&dir, &format!("{IMPL}/.decisions.json"), |t| {
        assert!(t.contains("\"action\": \"close\""), "{t}");
        t.replace("\"action\": \"close\"", "\"action\": \"defer\"")
    });
    env.git(&dir, &["add", "-A"]);
    let out = env
        .git_command(&dir)
        .args(["commit", "-q", "-m", "taken back"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is not answers only"),
        "{}",
        stderr(&out)
    );
}

/// The shared remote's gate on `main`, which already holds the run with its decisions (pushed
/// before the gate was installed): a push that only adds an answer goes in; work does not, and
/// neither does a new branch holding the pending run.
#[test]
fn the_server_gate_lets_answers_onto_a_protected_branch_and_nothing_else() {
    let env = TestEnv::new();
    let dir = env.demo();
    env.git(&dir, &["add", "-A", "-f"]);
    env.git(&dir, &["commit", "-q", "-m", "the run's artifacts"]);
    let remote = env.path().join("origin.git");
    env.git(env.path(), &["init", "-q", "--bare", path(&remote)]);
    env.git(&dir, &["remote", "add", "origin", path(&remote)]);
    env.git(&dir, &["push", "-q", "origin", "HEAD:refs/heads/main"]);
    let out = env
        .ucg(&remote)
        .args(["hooks", "install", "--server"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let push = |refspec: &str| {
        env.git_command(&dir)
            .args(["push", "origin", refspec])
            .output()
            .unwrap()
    };
    let red = ids(&env, &dir).reds[0].clone();
    answer(&env, &dir, &red);
    env.git(&dir, &["add", "-A", "-f"]);
    env.git(&dir, &["commit", "-q", "-m", "answer"]);
    let out = push("HEAD:refs/heads/main");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("answers only"), "{}", stderr(&out));
    write(&dir.join("code.txt"), "work\n");
    env.git(&dir, &["add", "code.txt"]);
    env.git(&dir, &["commit", "-q", "-m", "work"]);
    let out = push("HEAD:refs/heads/main");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("push to main refused"),
        "{}",
        stderr(&out)
    );
    env.git(&dir, &["reset", "-q", "--hard", "HEAD~1"]);
    let out = push("HEAD:refs/heads/master");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}

/// The same RED answered differently in two clones (issue 31 item 4): the pull does not settle it.
/// The merge comes back with the RED pending again as a contested decision, its commit waits for
/// the answer (the merge would add a pending item), and once it is answered the merge commits and
/// pushes with every hook.
#[test]
fn a_red_answered_differently_in_two_clones_is_decided_again() {
    let team = Team::new();
    let alice = team.alice.clone();
    team.share_the_driver();
    let bob = team.clone("bob", EPIC);
    let red = team.pending(&alice, "undecided-product")[0].clone();
    team.answer_in_checkout(&bob, &red, "24 hours");
    team.git_ok(&bob, &["commit", "-q", "-m", "bob: sessions"]);
    team.git_ok(&bob, &["push", "-q", "origin", EPIC]);
    team.answer_in_checkout(&alice, &red, "never");
    team.git_ok(&alice, &["commit", "-q", "-m", "alice: sessions"]);
    let pull = team.git(&alice, &["pull", "-q", "--no-rebase", "--no-edit"]);
    assert!(!pull.status.success(), "{}", stderr(&pull));
    let said = stderr(&pull);
    assert!(
        said.contains("It is pending again, a contested decision"),
        "{said}"
    );
    assert!(said.contains("git-ucg: merge refused"), "{said}");
    let contested = team.pending(&alice, &red);
    assert_eq!(contested, std::slice::from_ref(&red));
    // The prompt counts it.
    let prompt = team.ucg_ok(&alice, &["status", "--prompt"]);
    assert!(prompt.contains('D'), "{prompt}");
    team.answer_in_checkout(&alice, &red, "24 hours, sliding");
    team.git_ok(&alice, &["commit", "-q", "--no-edit"]);
    team.git_ok(&alice, &["push", "-q", "origin", EPIC]);
    assert!(team.pending(&alice, &red).is_empty());
}

/// An answer commit on top of pending work cannot leave under a new name: a new ref gets no
/// exemption, whatever the remote-tracking refs claim the remote has (a stale or hand-made one
/// is a cache that can lie).
#[test]
fn answers_on_pending_work_do_not_leave_under_a_new_name() {
    answers_do_not_carry_work_under_a_new_name(Team::new());
}

/// The same under pre-commit, which does not pass on whether the remote has the ref: the gate
/// asks the remote (pre-commit's PRE_COMMIT_FROM_REF would name the pending commit).
#[test]
fn answers_on_pending_work_do_not_leave_under_a_new_name_under_pre_commit() {
    let test = "answers_on_pending_work_do_not_leave_under_a_new_name_under_pre_commit";
    if let Some(wiring) = Wiring::manager("pre-commit", test) {
        answers_do_not_carry_work_under_a_new_name(Team::wired(wiring));
    }
}

fn answers_do_not_carry_work_under_a_new_name(team: Team) {
    let alice = team.alice.clone();
    let red = team.pending(&alice, "undecided-product")[0].clone();
    team.answer_in_checkout(&alice, &red, "24 hours");
    team.git_ok(&alice, &["commit", "-q", "-m", "answer"]);
    // Claim the remote has the pending commit under another name.
    team.git_ok(
        &alice,
        &["update-ref", "refs/remotes/origin/claimed", "HEAD~1"],
    );
    let out = team.git(&alice, &["push", "origin", "HEAD:refs/heads/elsewhere"]);
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert!(!out.status.success(), "{said}");
    assert!(said.contains("git-ucg: push refused"), "{said}");
    // Onto the branch it came from, it is an answer: it goes.
    team.git_ok(&alice, &["push", "-q", "origin", EPIC]);
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}
