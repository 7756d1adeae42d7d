//! What a newcomer stumbled on in the first hour (issue 17), each fixed and kept fixed.

use crate::common::*;

/// Item 1: a closed escalation's raw marker is the residual the close leaves, not unpromoted.
#[test]
fn a_closed_escalation_is_not_shown_as_unpromoted() {
    let env = TestEnv::new();
    let dir = env.demo();
    let out = env
        .ucg(&dir)
        .args([
            "resolve",
            "--close",
            "budget-overrun:.escalation-7-3.md:4b4fc07b24b2",
            "--answer",
            "split the story",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = env.ucg(&dir).args(["status", "--json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let states: Vec<&str> = doc["escalations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["closed"]);
    let out = env
        .ucg(&dir)
        .args(["status", "--no-pager"])
        .output()
        .unwrap();
    assert!(!stdout(&out).contains("unpromoted"), "{}", stdout(&out));
}

/// Items 2 and 3: a named epic that does not exist is an error naming what exists, with one
/// spelling of the flag everywhere (`--epic ID`; `diff --epic` alone and `--epic-id` still work).
#[test]
fn a_missing_epic_is_refused_and_the_epic_flag_is_one() {
    let env = TestEnv::new();
    let dir = env.demo();
    for args in [
        &["epic", "--epic", "8"][..],
        &["diff", "--epic", "8", "--stat"],
        &["diff", "--epic-id", "8", "--stat"],
    ] {
        let out = env.ucg(&dir).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stdout(&out));
        assert!(stdout(&out).is_empty(), "{args:?}");
        assert!(
            stderr(&out).contains("epic 8 does not exist") && stderr(&out).contains("know: 7"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    let stat = |args: &[&str]| {
        let out = env.ucg(&dir).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        stdout(&out)
    };
    let accumulated = stat(&["diff", "--stat"]);
    assert_eq!(stat(&["diff", "--epic", "--stat"]), accumulated);
    assert_eq!(stat(&["diff", "--epic", "7", "--stat"]), accumulated);
    assert_eq!(
        stat(&["diff", "--story", "7-1", "--epic", "7", "--stat"]),
        stat(&["diff", "--story", "7-1", "--stat"])
    );
}

/// Item 4 (in part): an id may be given by its 12-hex hash or any unique prefix of it or of the
/// whole id; an ambiguous one lists the candidates and records nothing.
#[test]
fn short_ids_name_their_item() {
    let env = TestEnv::new();
    let dir = env.demo();
    let impl_dir = dir.join("_bmad-output/implementation-artifacts");
    let before = snapshot(&impl_dir);
    let out = env
        .ucg(&dir)
        .args(["resolve", "--defer", "undecided"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("names several pending items")
            && stderr(&out).contains("undecided-product:docs/prd.md:7662cf80acff")
            && stderr(&out).contains("undecided-architecture:docs/prd.md:7285281403bc"),
        "{}",
        stderr(&out)
    );
    assert_eq!(snapshot(&impl_dir), before, "nothing recorded");
    for (given, whole) in [
        (
            "7285281403bc",
            "undecided-architecture:docs/prd.md:7285281403bc",
        ),
        (
            "86a2",
            "decision:_bmad-output/implementation-artifacts/deferred-work.md:86a2bcce9526",
        ),
        (
            "budget-over",
            "budget-overrun:.escalation-7-3.md:4b4fc07b24b2",
        ),
    ] {
        let out = env
            .ucg(&dir)
            .args(["resolve", "--defer", given, "--json"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{given}: {}", stderr(&out));
        assert!(stdout(&out).contains(whole), "{given}: {}", stdout(&out));
    }
}

/// Item 10 (in part): the words people meet first.
#[test]
fn the_first_words_say_what_is_so() {
    let env = TestEnv::new();
    // `resolve` where there is no run says so.
    let repo = env.repo("empty");
    let out = env.ucg(&repo).args(["resolve"]).output().unwrap();
    assert!(
        stdout(&out).starts_with("There is no run here: the artifact directory"),
        "{}",
        stdout(&out)
    );
    // `lesson query` without a ledger says where it looked (exit 1); `--json` stays the
    // reference's `[]`.
    let out = env
        .ucg(&repo)
        .args(["lesson", "query", "auth"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no lesson ledger at")
            && stderr(&out).contains(".anvil/ledger.jsonl"),
        "{}",
        stderr(&out)
    );
    let out = env
        .ucg(&repo)
        .args(["lesson", "query", "auth", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        (out.status.code(), stdout(&out).as_str()),
        (Some(0), "[]\n")
    );
    // `git ucg help COMMAND` is the command's full help.
    let out = env
        .ucg(&repo)
        .args(["help", "hooks", "install"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let help = env
        .ucg(&repo)
        .args(["hooks", "install", "--help"])
        .output()
        .unwrap();
    assert_eq!(stdout(&out), stdout(&help));
    let out = env.ucg(&repo).args(["help", "nope"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no such command"), "{}", stderr(&out));
}

/// Item 8: the demo leads to the main job — its "Try next" starts with pending, resolve, the
/// hooks and a refused commit, gate and resume; it has an ultragoal pursuit to show; its lesson
/// reset example writes a lesson the query after it finds.
#[test]
fn the_demo_leads_to_the_main_job() {
    let env = TestEnv::new();
    let out = env.ucg(env.path()).args(["demo", "d"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let tried: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("Try next"))
        .skip(2)
        .take(6)
        .map(|l| l.split('#').next().unwrap_or_default().trim())
        .collect();
    assert_eq!(
        tried,
        [
            "git ucg pending",
            "git ucg resolve",
            "git ucg hooks install",
            "git commit --allow-empty -m try",
            "git ucg gate",
            "git ucg resume"
        ]
    );
    let dir = env.path().join("d");
    // The neighbouring systems' commands it names run as shown and find something.
    let named: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("  git ucg "))
        .filter(|l| l.starts_with("goal ") || l.starts_with("lesson "))
        .collect();
    assert_eq!(named.len(), 2, "{text}");
    for command in named {
        let out = env.ucg(&dir).args(command.split(' ')).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{command}: {}", stderr(&out));
        assert!(
            !stdout(&out).contains("no lesson"),
            "{command}: {}",
            stdout(&out)
        );
        assert!(
            !stdout(&out).contains("no state"),
            "{command}: {}",
            stdout(&out)
        );
    }
    let out = env
        .ucg(&dir)
        .args([
            "goal",
            "--session",
            "demo",
            "--omt-dir",
            ".omt",
            "show",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("pursuing"), "{}", stdout(&out));
    let lesson = |args: &[&str]| {
        env.ucg(&dir)
            .args(["lesson", "--ledger", "anvil/ledger.jsonl"])
            .args(args)
            .output()
            .unwrap()
    };
    let out = lesson(&[
        "reset",
        "--json",
        "--task",
        "T1",
        "--state",
        "anvil/state.json",
        "--contract",
        "anvil/contract.yml",
        "--gap",
        "bursts at the window edge",
        "--evidence",
        "probe",
        "--remediation",
        "cap bursts at 10 per second",
        "--pattern",
        "rate,limit,burst",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let added: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let out = lesson(&["query", "rate limit", "--json"]);
    assert!(
        stdout(&out).contains(added["id"].as_str().unwrap()),
        "{}",
        stdout(&out)
    );
}

/// Item 11 (in part): the man pages' SYNOPSIS shows each option's placeholder, a command's help
/// lists the global options after its own, and `resolve --help` explains the guided pass.
#[test]
fn the_docs_show_placeholders_and_order() {
    let man = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("man/git-ucg-resolve.1"),
    )
    .unwrap();
    let synopsis = man
        .lines()
        .skip_while(|l| *l != ".SH SYNOPSIS")
        .nth(1)
        .unwrap_or_default()
        .to_string();
    assert!(
        synopsis.starts_with("\\fBgit ucg resolve\\fR") && synopsis.contains("[\\-\\-close <ID>]"),
        "{synopsis}"
    );
    let top = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("man/git-ucg.1"),
    )
    .unwrap();
    assert!(top.contains("[\\-C <PATH>]"), "the -C placeholder");
    let env = TestEnv::new();
    let out = env
        .ucg(env.path())
        .args(["resolve", "--help"])
        .output()
        .unwrap();
    let help = stdout(&out);
    let own = help.find("--close <ID>").unwrap();
    let global = help.find("Global options:").unwrap();
    assert!(own < global && help[global..].contains("--color"), "{help}");
    assert!(help.contains("`c` closes it"), "{help}");
    // Hidden commands are not offered for completion.
    let offered = regex::Regex::new(r"\bgenerate\b").unwrap();
    for file in ["git-ucg.bash", "_git-ucg", "git-ucg.fish"] {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("completions")
                .join(file),
        )
        .unwrap();
        assert!(!offered.is_match(&text), "{file} offers generate");
    }
}

/// Item 4 (in part): `pending` is a table with a header and a short handle per item, and the
/// handle — or a ledger row's own id — is what `resolve` takes.
#[test]
fn pending_shows_handles_resolve_takes() {
    let env = TestEnv::new();
    let dir = env.demo();
    // Wide enough for the decision beside its row (at 80 columns it goes under it).
    let out = env
        .ucg(&dir)
        .args(["pending"])
        .env("COLUMNS", "140")
        .output()
        .unwrap();
    let text = stdout(&out);
    let mut lines = text.lines();
    let header = lines.next().unwrap_or_default();
    assert!(
        header.starts_with("handle") && header.contains("decision"),
        "{text}"
    );
    let decision = header.find("decision").unwrap();
    // Aligned: every row's decision starts in the header's column.
    for line in lines {
        let at: String = line.chars().take(decision).collect();
        assert!(
            at.ends_with("  ") && line.chars().count() > decision,
            "{line}"
        );
    }
    assert!(text.contains("86a2bcce9526 (d2)"), "{text}");
    let out = env
        .ucg(&dir)
        .args([
            "resolve",
            "--close",
            "d2",
            "--answer",
            "three retries",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(
            "decision:_bmad-output/implementation-artifacts/deferred-work.md:86a2bcce9526"
        ),
        "{}",
        stdout(&out)
    );
    let out = env.ucg(&dir).args(["pending", "--json"]).output().unwrap();
    assert!(
        !stdout(&out).contains("86a2bcce9526"),
        "closed: {}",
        stdout(&out)
    );
}

/// Item 7: one resume route, with its reason, in the hand-back, `resume` and `status`; the
/// baseline `resume` checks is the routed story's.
#[test]
fn one_resume_route_everywhere() {
    let env = TestEnv::new();
    let dir = env.demo();
    let out = env
        .ucg(&dir)
        .args([
            "resolve", "--close", "7662", "--answer", "a", "--close", "7285", "--answer", "b",
            "--close", "4b4f", "--answer", "c", "--close", "d2", "--answer", "d",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let hand_back = stdout(&out);
    let out = env.ucg(&dir).args(["resume", "--json"]).output().unwrap();
    let resume: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let out = env.ucg(&dir).args(["status", "--json"]).output().unwrap();
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let route = &status["resume"];
    assert_eq!(route["stage"], resume["route"]["stage"], "{resume}");
    assert_eq!(route["story"], resume["route"]["story"], "{resume}");
    assert_eq!(route["why"], resume["route"]["why"], "{resume}");
    let story = route["story"].as_str().unwrap();
    assert!(
        flat(&hand_back).contains(&format!(
            "Resume re-enters {} at story {story}: {}",
            route["stage"].as_str().unwrap(),
            route["why"].as_str().unwrap()
        )),
        "{hand_back}"
    );
    let baseline = resume["checklist"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["item"] == "baseline")
        .unwrap();
    assert!(
        baseline["detail"]
            .as_str()
            .unwrap()
            .contains(&format!(".baseline-{story}")),
        "{baseline}"
    );
}

/// Item 4 (the rest): the completions offer the run's own values — pending handles for
/// `resolve --close/--defer`, story ids for `diff --story`, run folders for `resolve --run` —
/// through the hidden `git-ucg __complete`, here driven as git's bash completion drives it.
#[test]
fn completion_offers_the_runs_own_values() {
    let env = TestEnv::new();
    let dir = env.demo();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("completions/git-ucg.bash");
    let bin_dir = std::path::Path::new(BIN).parent().unwrap().to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let complete = |words: &str, cword: usize| {
        let probe = format!(
            "source '{}'; words=({words}); cword={cword}; cur=${{words[cword]}}; prev=${{words[cword-1]}}; _git_ucg; echo \"${{COMPREPLY[*]}}\"",
            script.display()
        );
        let out = std::process::Command::new("bash")
            .current_dir(&dir)
            .env_clear()
            .env("PATH", &path)
            .env("HOME", env.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .args(["-c", &probe])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out).trim().to_string()
    };
    assert_eq!(
        complete("git ucg resolve --close ''", 4),
        "7662cf80acff 7285281403bc 4b4fc07b24b2 86a2bcce9526"
    );
    assert_eq!(complete("git ucg resolve --defer 72", 4), "7285281403bc");
    assert_eq!(complete("git ucg diff --story ''", 4), "7-1 7-2 7-3");
    assert!(
        complete("git ucg baseline start ''", 4).ends_with("7-1 7-2 7-3"),
        "a story operand"
    );
    assert!(complete("git ucg budget show 7-", 4) == "7-1 7-2 7-3");
    let runs = complete("git ucg sdlc show ''", 4);
    assert!(
        runs.contains("20260604-1000-feat-rate-limit") && runs.ends_with("latest"),
        "{runs}"
    );
    assert_eq!(
        complete("git ucg resolve --run ''", 4),
        "epic-7-20260604T172512Z"
    );
}

/// Item 10: `goal` without a session names `--session` to a person at a terminal; the
/// reference's refusal line itself is unchanged (and alone when stderr is not a terminal).
#[test]
fn goal_without_a_session_mentions_the_flag_on_a_terminal() {
    let env = TestEnv::new();
    let repo = env.repo("p");
    let mut command = env.ucg(&repo);
    command.args(["goal", "status"]);
    let mut terminal = crate::pty::Terminal::spawn(command, 24, 100);
    // What the program wrote reaches the test through a reader thread: wait for it, not for the exit.
    let text = terminal.wait_for("hint: name the session");
    terminal.wait();
    assert!(text.contains("No session id"), "{text}");
    assert!(
        text.contains("hint: name the session with --session ID"),
        "{text}"
    );
    let out = env.ucg(&repo).args(["goal", "status"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(!stderr(&out).contains("--session"), "{}", stderr(&out));
}

/// The pending table as people see it.
#[test]
fn the_pending_table() {
    let env = TestEnv::new();
    let dir = env.demo();
    let out = env.ucg(&dir).args(["pending"]).output().unwrap();
    insta::assert_snapshot!(stdout(&out));
}

/// Issue 34 item 7: `-h` is the short help and `--help` the long one (the explanation after the
/// options), both fitted to 80 columns when there is no terminal.
#[test]
fn short_and_long_help_differ() {
    let env = TestEnv::new();
    let help = |flag: &str| {
        let out = env
            .ucg(env.path())
            .args(["pending", flag])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stdout(&out)
    };
    let (short, long) = (help("-h"), help("--help"));
    assert!(short.contains("(see more with '--help')"), "{short}");
    assert!(!short.contains("Exactly three sources"), "{short}");
    assert!(flat(&long).contains("Exactly three sources"), "{long}");
    for text in [&short, &long] {
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    }
}

/// Issue 34 item 7: `goal show` without --omt-dir looks where the state CLI does
/// (~/.omt/<project>); when that holds nothing and the project keeps its own `.omt` (the demo
/// does), it says so and gives the command that reads it.
#[test]
fn goal_show_points_at_the_projects_own_state() {
    let env = TestEnv::new();
    let dir = env.demo();
    let out = env
        .ucg(&dir)
        .args(["goal", "--session", "demo", "show"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("no state ("), "{}", stdout(&out));
    assert_eq!(
        stderr(&out),
        "hint: .omt holds this session's state; read it with\n  git ucg goal --session demo --omt-dir .omt show\n"
    );
    let out = env
        .ucg(&dir)
        .args(["goal", "--session", "demo", "--omt-dir", ".omt", "show"])
        .output()
        .unwrap();
    assert!(
        stdout(&out).contains("phase        pursuing (active)"),
        "{}",
        stdout(&out)
    );
    assert_eq!(stderr(&out), "");
}
