//! The merge driver (`git ucg merge-file`, set up by `hooks install --merge-driver`) in real
//! clones of one bare remote: answers given in two clones merged by `git pull`, the same RED closed
//! differently on both sides, a close against a defer, a corrupt side, and the set-up itself.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Output;

const IMPL: &str = "_bmad-output/implementation-artifacts";
const ANSWERS: &str = "_bmad-output/implementation-artifacts/.decisions.json";
const REGISTRY: &str = "_bmad-output/implementation-artifacts/.preflight-reds.json";

/// git with the gate hooks skipped (the demo's run has decisions pending, and the hooks the
/// installer puts in would refuse these commits, merges and pushes).
fn git_out(env: &TestEnv, dir: &Path, args: &[&str]) -> Output {
    env.git_command(dir)
        .env("GIT_UCG_SKIP", "1")
        .args(args)
        .output()
        .unwrap()
}

fn git_ok(env: &TestEnv, dir: &Path, args: &[&str]) -> String {
    let out = git_out(env, dir, args);
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
    stdout(&out)
}

fn ucg_ok(env: &TestEnv, dir: &Path, args: &[&str]) -> String {
    let out = env
        .ucg(dir)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

/// Clone A (the demo, its run committed, pushed as `main` to a bare remote) and clone B, each
/// with the merge driver installed and its own user.email; the REDs' ids.
fn two_clones(env: &TestEnv) -> (PathBuf, PathBuf, Vec<String>) {
    let a = env.demo();
    ucg_ok(env, &a, &["hooks", "install", "--merge-driver"]);
    git_ok(env, &a, &["add", "-A"]);
    git_ok(
        env,
        &a,
        &["commit", "-q", "-m", "the run, and the merge driver"],
    );
    let remote = env.path().join("remote.git");
    let remote = remote.to_str().unwrap();
    git_ok(env, env.path(), &["init", "-q", "--bare", remote]);
    git_ok(env, &a, &["remote", "add", "origin", remote]);
    git_ok(env, &a, &["push", "-q", "origin", "HEAD:main"]);
    let b = env.path().join("b");
    git_ok(
        env,
        env.path(),
        &["clone", "-q", "-b", "main", remote, b.to_str().unwrap()],
    );
    // Each clone installs it: the configuration is not cloned, .gitattributes is.
    let out = ucg_ok(env, &b, &["hooks", "install", "--merge-driver"]);
    assert!(out.contains("up to date: "), "{out}");
    git_ok(env, &a, &["config", "user.email", "a@example.com"]);
    git_ok(env, &b, &["config", "user.email", "b@example.com"]);
    let pending = ucg_ok(env, &a, &["pending", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&pending).unwrap();
    let reds = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["source"] == "red")
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect();
    (a, b, reds)
}

/// Answers in `dir`, the answers file's `at` stamps set to `at` (the same second on both sides
/// otherwise), committed: the whole run with its decision log (which `.gitattributes` gives git's
/// union merge) when `with_log`, else only the artifact directory.
fn answer(env: &TestEnv, dir: &Path, args: &[&str], at: &str, with_log: bool) {
    let mut all = vec!["resolve"];
    all.extend_from_slice(args);
    ucg_ok(env, dir, &all);
    let path = dir.join(ANSWERS);
    let text = std::fs::read_to_string(&path).unwrap();
    let stamped = regex::Regex::new(r#""at": "[^"]*""#)
        .unwrap()
        .replace_all(&text, format!("\"at\": \"{at}\"").as_str())
        .into_owned();
    write(&path, &stamped);
    git_ok(env, dir, &["add", if with_log { "-A" } else { IMPL }]);
    git_ok(env, dir, &["commit", "-q", "-m", "answers"]);
}

fn pull(env: &TestEnv, dir: &Path) -> Output {
    git_out(
        env,
        dir,
        &["pull", "--no-rebase", "--no-edit", "origin", "main"],
    )
}

/// One answer: `--close` or `--defer`, which of the two REDs, the text, the `at` stamp.
struct Given<'a>(&'a str, usize, &'a str, &'a str);

/// Two clones; A answers and pushes, B answers and pulls (a merge). With `shared_log`, A commits
/// its decision log too and B drops its own log's change, so the merge takes A's log. Returns
/// the clones, the REDs' ids and the pull's output.
fn answered_in_both(
    env: &TestEnv,
    in_a: Given,
    in_b: Given,
    shared_log: bool,
    logs_committed: bool,
) -> (PathBuf, PathBuf, Vec<String>, Output) {
    let (a, b, reds) = two_clones(env);
    for (dir, Given(action, red, text, at)) in [(&a, in_a), (&b, in_b)] {
        answer(
            env,
            dir,
            &[action, &reds[red], "--answer", text],
            at,
            logs_committed,
        );
        if dir == &a {
            if shared_log {
                git_ok(env, &a, &["add", "-A"]);
                git_ok(env, &a, &["commit", "-q", "-m", "the log"]);
            }
            git_ok(env, &a, &["push", "-q", "origin", "HEAD:main"]);
        }
    }
    if shared_log {
        git_ok(env, &b, &["checkout", "--", "."]);
    }
    let out = pull(env, &b);
    (a, b, reds, out)
}

fn entries(dir: &Path) -> Vec<serde_json::Value> {
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join(ANSWERS)).unwrap()).unwrap();
    doc["decisions"].as_array().unwrap().clone()
}

fn registry_ids(dir: &Path, key: &str) -> Vec<String> {
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join(REGISTRY)).unwrap()).unwrap();
    doc[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

fn decision_log(dir: &Path) -> String {
    std::fs::read_to_string(
        dir.join("_bmad-output/ultracode-goal/epic-7-20260604T172512Z/.decision-log.md"),
    )
    .unwrap()
}

#[test]
fn answers_from_two_clones_merge_without_a_conflict() {
    let env = TestEnv::new();
    let (_, b, reds, out) = answered_in_both(
        &env,
        Given("--close", 0, "30 days", "2026-12-02T09:30:00Z"),
        Given("--close", 1, "Stripe", "2026-12-02T09:31:00Z"),
        false,
        true,
    );
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(
        git_ok(&env, &b, &["ls-files", "--unmerged"]).is_empty(),
        "no conflict"
    );
    assert!(!stderr(&out).contains("git-ucg"), "{}", stderr(&out));
    // Both answers on record, ours first.
    let answers: Vec<(String, String)> = entries(&b)
        .iter()
        .map(|e| {
            (
                e["id"].as_str().unwrap().to_string(),
                e["answer"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        answers,
        [
            (reds[1].clone(), "Stripe".to_string()),
            (reds[0].clone(), "30 days".to_string())
        ]
    );
    // Both tombstones, neither red.
    assert!(registry_ids(&b, "reds").is_empty());
    let mut sorted = reds.clone();
    sorted.sort();
    assert_eq!(registry_ids(&b, "resolved"), sorted);
    // The registry is what its writer leaves from the merged answers: re-applying changes nothing.
    let merged = std::fs::read(b.join(REGISTRY)).unwrap();
    ucg_ok(&env, &b, &["reds", "apply", "--from-sidecar"]);
    assert_eq!(std::fs::read(b.join(REGISTRY)).unwrap(), merged);
    assert!(git_ok(&env, &b, &["status", "--porcelain", IMPL]).is_empty());
    // Both clones' decision logs were committed: git's union merge keeps both sections.
    let log = decision_log(&b);
    for (red, text) in [(&reds[0], "30 days"), (&reds[1], "Stripe")] {
        assert!(log.contains(&format!("`{red}` — close — {text}")), "{log}");
    }
}

#[test]
fn the_same_red_closed_differently_comes_back_as_a_contested_decision() {
    let env = TestEnv::new();
    let (_, b, reds, out) = answered_in_both(
        &env,
        Given("--close", 0, "30 days", "2026-12-02T10:00:00Z"),
        Given(
            "--close",
            0,
            "sessions never expire",
            "2026-12-02T09:00:00Z",
        ),
        false,
        false,
    );
    let warning = stderr(&out);
    assert!(out.status.success(), "{}{warning}", stdout(&out));
    // Both answers on record, neither a close.
    let merged = entries(&b);
    let shown: Vec<(&str, &str, &str)> = merged
        .iter()
        .map(|e| {
            let text = |k: &str| e[k].as_str().unwrap_or_default();
            (text("action"), text("answer"), text("by"))
        })
        .collect();
    assert_eq!(
        shown,
        [
            ("contested", "sessions never expire", "b@example.com"),
            ("contested", "30 days", "a@example.com")
        ]
    );
    for part in [
        "git-ucg: warning: closed differently on both sides; both answers are kept\n".to_string(),
        format!("  item    {}\n  file    {ANSWERS}\n", reds[0]),
        "  ours    \"sessions never expire\" by b@example.com at 2026-12-02T09:00:00Z\n"
            .to_string(),
        "  theirs  \"30 days\" by a@example.com at 2026-12-02T10:00:00Z\n".to_string(),
        "  It is pending again, a contested decision: settle it with git ucg resolve\n".to_string(),
    ] {
        assert!(warning.contains(&part), "{part}\n---\n{warning}");
    }
    // The registry: the red closed once, its tombstone once.
    assert_eq!(registry_ids(&b, "reds"), [reds[1].clone()]);
    assert_eq!(registry_ids(&b, "resolved"), [reds[0].clone()]);
    // Pending again: in pending, status's count and the gate, naming both answers.
    let doc: serde_json::Value =
        serde_json::from_str(&ucg_ok(&env, &b, &["pending", "--json"])).unwrap();
    let item = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == reds[0].as_str())
        .unwrap_or_else(|| panic!("{doc}"))
        .clone();
    assert_eq!(item["kind"], "contested");
    assert_eq!(item["source"], "decision");
    assert_eq!(
        item["decision_needed"],
        "Do sessions expire, and after how long?"
    );
    let evidence = item["evidence"].as_str().unwrap();
    assert!(
        evidence.contains("\"sessions never expire\" (b@example.com, 2026-12-02T09:00:00Z)")
            && evidence.contains("\"30 days\" (a@example.com, 2026-12-02T10:00:00Z)"),
        "{evidence}"
    );
    let gate = env.ucg(&b).args(["gate", "--json"]).output().unwrap();
    assert_eq!(gate.status.code(), Some(1));
    assert!(stdout(&gate).contains("\"kind\": \"contested\""));
    // A third answer settles it: no longer pending; the answers file holds the answer (keyed by
    // id, as every answer), the merge commit the two it settled.
    ucg_ok(
        &env,
        &b,
        &["resolve", "--close", &reds[0], "--answer", "45 days"],
    );
    let pending = ucg_ok(&env, &b, &["pending", "--json"]);
    assert!(!pending.contains(&reds[0]), "{pending}");
    let merged = entries(&b);
    assert_eq!(merged.len(), 1, "{merged:?}");
    assert_eq!(merged[0]["action"], "close");
    assert_eq!(merged[0]["answer"], "45 days");
    let gate = env.ucg(&b).args(["gate", "--json"]).output().unwrap();
    assert!(!stdout(&gate).contains("contested"), "{}", stdout(&gate));
}

#[test]
fn a_contested_close_says_nothing_of_the_decision_log() {
    let env = TestEnv::new();
    // git takes A's log in the merge; the answers file holds both answers whatever the log does.
    let (_, b, _, out) = answered_in_both(
        &env,
        Given("--close", 0, "30 days", "2026-12-02T10:00:00Z"),
        Given("--close", 0, "90 days", "2026-12-02T11:00:00Z"),
        true,
        false,
    );
    let warning = stderr(&out);
    assert!(out.status.success(), "{warning}");
    let answers: Vec<String> = entries(&b)
        .iter()
        .map(|e| e["answer"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(answers, ["90 days", "30 days"]);
    assert!(!warning.contains("decision log"), "{warning}");
    assert!(!decision_log(&b).contains("ucg merge-file"));
}

#[test]
fn a_close_beats_a_later_defer() {
    let env = TestEnv::new();
    let (_, b, reds, out) = answered_in_both(
        &env,
        Given("--defer", 0, "ask legal", "2026-12-02T11:00:00Z"),
        Given("--close", 0, "30 days", "2026-12-02T10:00:00Z"),
        false,
        false,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("git-ucg"), "{}", stderr(&out));
    let merged = entries(&b);
    assert_eq!(merged.len(), 1);
    assert_eq!(
        (&merged[0]["answer"], &merged[0]["action"]),
        (&"30 days".into(), &"close".into())
    );
    assert_eq!(registry_ids(&b, "reds"), [reds[1].clone()]);
}

#[test]
fn a_corrupt_side_falls_back_to_conflict_markers() {
    let env = TestEnv::new();
    let (a, b, reds) = two_clones(&env);
    write(&a.join(ANSWERS), "{ \"decisions\": [ corrupt\n");
    git_ok(&env, &a, &["add", ANSWERS]);
    git_ok(&env, &a, &["commit", "-q", "-m", "broken answers"]);
    git_ok(&env, &a, &["push", "-q", "origin", "HEAD:main"]);
    answer(
        &env,
        &b,
        &["--close", &reds[0], "--answer", "30 days"],
        "2026-12-02T10:00:00Z",
        false,
    );
    let out = pull(&env, &b);
    assert!(!out.status.success(), "{}", stdout(&out));
    let said = stderr(&out);
    assert!(
        said.contains("theirs cannot be merged as an answers file (it is not JSON"),
        "{said}"
    );
    assert!(said.contains("merging it as text"), "{said}");
    let text = std::fs::read_to_string(b.join(ANSWERS)).unwrap();
    assert!(
        text.contains("<<<<<<< ours") && text.contains(">>>>>>> theirs"),
        "{text}"
    );
    assert!(!git_ok(&env, &b, &["ls-files", "--unmerged", ANSWERS]).is_empty());
}

#[test]
fn merge_file_on_its_own() {
    let env = TestEnv::new();
    let dir = env.path();
    let put = |name: &str, text: &str| write(&dir.join(name), text);
    // Another file: git's text merge, its exit code.
    put("o", "a\nb\nc\n");
    put("x", "A\nb\nc\n");
    put("y", "a\nb\nC\n");
    let out = env
        .ucg(dir)
        .args(["merge-file", "o", "x", "y", "notes.txt"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(dir.join("x")).unwrap(), "A\nb\nC\n");
    put("y", "B\nb\nc\n");
    let out = env
        .ucg(dir)
        .args(["merge-file", "o", "x", "y", "notes.txt"])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let text = std::fs::read_to_string(dir.join("x")).unwrap();
    assert!(
        text.contains("<<<<<<< ours\nA\n=======\nB\n>>>>>>> theirs\n"),
        "{text}"
    );
    // The registry: both sides added it (no ancestor: an empty file), each a tombstone.
    let registry =
        |reds: &str, resolved: &str| format!("{{\"reds\": [{reds}], \"resolved\": [{resolved}]}}");
    let red = |id: &str| {
        format!("{{\"id\": \"{id}\", \"source\": \"p.md:1\", \"kind\": \"k\", \"decision_needed\": \"{id}?\", \"evidence\": \"\"}}")
    };
    let tomb = |id: &str| format!("{{\"id\": \"{id}\", \"kind\": \"k\", \"path\": \"p.md\"}}");
    put("o", "");
    put("x", &registry(&red("r2"), &tomb("r1")));
    put(
        "y",
        &registry(&format!("{}, {}", red("r1"), red("r3")), &tomb("r2")),
    );
    let out = env
        .ucg(dir)
        .args([
            "merge-file",
            "o",
            "x",
            "y",
            &format!("{IMPL}/.preflight-reds.json"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let merged: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("x")).unwrap()).unwrap();
    assert_eq!(merged["reds"].as_array().unwrap().len(), 1);
    assert_eq!(merged["reds"][0]["id"], "r3");
    assert_eq!(merged["resolved"][0]["id"], "r1");
    assert_eq!(merged["resolved"][1]["id"], "r2");
    // A side that is not a file git-ucg can read: the text merge, which says why it cannot either.
    let out = env
        .ucg(dir)
        .args(["merge-file", "o", "x", "missing", ".decisions.json"])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("cannot read theirs"),
        "{}",
        stderr(&out)
    );
}

/// The merge driver, with one gate hook (the one that stays out of these tests' way).
fn install_driver(env: &TestEnv, dir: &Path) {
    ucg_ok(
        env,
        dir,
        &["hooks", "install", "--merge-driver", "--only", "pre-push"],
    );
}

fn status_json(env: &TestEnv, dir: &Path) -> serde_json::Value {
    let out = ucg_ok(env, dir, &["hooks", "status", "--json"]);
    serde_json::from_str(&out).unwrap()
}

#[test]
fn the_merge_driver_is_set_up_once_and_taken_out_byte_for_byte() {
    let env = TestEnv::new();
    let dir = env.repo("r");
    let ours = [
        format!("{IMPL}/.decisions.json merge=ucg"),
        format!("{IMPL}/.preflight-reds.json merge=ucg"),
        "_bmad-output/ultracode-goal/*/.decision-log.md merge=union".to_string(),
    ];
    let before = "*.png binary\r\n# ours below\n*.md text eol=lf\n";
    write(&dir.join(".gitattributes"), before);
    let status = status_json(&env, &dir);
    assert_eq!(status["merge_driver"]["configured"], false);
    assert_eq!(status["merge_driver"]["driver"], serde_json::Value::Null);
    let human = ucg_ok(&env, &dir, &["hooks", "status"]);
    assert!(
        flat(&human).contains("merge driver (.decisions.json, .preflight-reds.json): not set up; `git ucg hooks install --merge-driver` sets it up"),
        "{human}"
    );
    for _ in 0..2 {
        install_driver(&env, &dir);
        let text = std::fs::read_to_string(dir.join(".gitattributes")).unwrap();
        assert_eq!(
            text,
            format!("{before}{}\n{}\n{}\n", ours[0], ours[1], ours[2])
        );
    }
    let driver = env.git(&dir, &["config", "--local", "merge.ucg.driver"]);
    assert_eq!(
        driver,
        format!("'{BIN}' merge-file %O %A %B %P"),
        "the installing binary, quoted for sh"
    );
    assert!(!env
        .git(&dir, &["config", "--local", "merge.ucg.name"])
        .is_empty());
    // git reads our lines as we mean them.
    let attr = env.git(
        &dir,
        &["check-attr", "merge", "--", ANSWERS, REGISTRY, "x.json"],
    );
    assert_eq!(
        attr,
        format!("{ANSWERS}: merge: ucg\n{REGISTRY}: merge: ucg\nx.json: merge: unspecified")
    );
    let status = status_json(&env, &dir);
    assert_eq!(status["merge_driver"]["configured"], true, "{status}");
    assert_eq!(status["merge_driver"]["attributes"][0]["line"], ours[0]);
    assert_eq!(status["merge_driver"]["attributes"][1]["present"], true);
    let human = ucg_ok(&env, &dir, &["hooks", "status"]);
    assert!(
        human.contains("merge driver (.decisions.json, .preflight-reds.json): set up"),
        "{human}"
    );

    // Half taken out by hand: status says what is missing.
    env.git(&dir, &["config", "--local", "--unset", "merge.ucg.driver"]);
    let human = ucg_ok(&env, &dir, &["hooks", "status"]);
    assert!(
        flat(&human).contains("partly set up: merge.ucg.driver is unset"),
        "{human}"
    );
    install_driver(&env, &dir);

    // `--only` names hooks: the merge driver stays.
    ucg_ok(&env, &dir, &["hooks", "uninstall", "--only", "pre-push"]);
    assert_eq!(status_json(&env, &dir)["merge_driver"]["configured"], true);
    let out = ucg_ok(&env, &dir, &["hooks", "uninstall"]);
    assert!(
        out.contains("merge driver: unset merge.ucg.name, merge.ucg.driver"),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join(".gitattributes")).unwrap(),
        before,
        "every other byte as it was"
    );
    let unset = env
        .git_command(&dir)
        .args(["config", "--local", "--get-regexp", "^merge\\.ucg\\."])
        .output()
        .unwrap();
    assert_eq!(unset.status.code(), Some(1), "{}", stdout(&unset));
    // Uninstalling again changes nothing and says nothing of the driver.
    let out = ucg_ok(&env, &dir, &["hooks", "uninstall"]);
    assert!(!out.contains("merge driver"), "{out}");

    // A file without a final newline gets one before our lines, and keeps it; no file at all is
    // created, and left empty by the uninstall.
    for (start, left) in [(Some("*.png binary"), "*.png binary\n"), (None, "")] {
        let attributes = dir.join(".gitattributes");
        match start {
            Some(text) => write(&attributes, text),
            None => std::fs::remove_file(&attributes).unwrap(),
        }
        install_driver(&env, &dir);
        assert_eq!(
            std::fs::read_to_string(&attributes).unwrap(),
            format!("{left}{}\n{}\n{}\n", ours[0], ours[1], ours[2])
        );
        ucg_ok(&env, &dir, &["hooks", "uninstall"]);
        assert_eq!(std::fs::read_to_string(&attributes).unwrap(), left);
    }
}

/// A side that is not a regular file — a FIFO, `/dev/zero` — is a conflict with ours untouched,
/// on every path (the text merge included, which would hang on the one and empty ours with the
/// other), and it returns at once.
#[test]
fn a_side_that_is_not_a_file_is_a_conflict_and_ours_stays() {
    let env = TestEnv::new();
    let dir = env.path();
    write(&dir.join("base"), "{\"decisions\": []}\n");
    write(&dir.join("ours"), "{\"decisions\": []}\n");
    let status = std::process::Command::new("mkfifo")
        .arg(dir.join("fifo"))
        .status()
        .unwrap();
    assert!(status.success());
    for theirs in ["fifo", "/dev/zero"] {
        for path in [
            "_bmad-output/implementation-artifacts/.decisions.json",
            "notes.txt",
        ] {
            let start = std::time::Instant::now();
            let out = env
                .ucg(dir)
                .args(["merge-file", "base", "ours", theirs, path])
                .output()
                .unwrap();
            assert!(start.elapsed() < std::time::Duration::from_secs(5));
            assert_eq!(out.status.code(), Some(1), "{theirs} {path}");
            assert!(
                stderr(&out).contains("is not a regular file"),
                "{}",
                stderr(&out)
            );
            assert_eq!(
                std::fs::read_to_string(dir.join("ours")).unwrap(),
                "{\"decisions\": []}\n"
            );
        }
    }
}

/// Delete versus modify (issue 31 item 5): A removes a pending RED from the registry without a
/// tombstone or an answer, B rewords it; the pull keeps B's RED, says so, and it is pending.
#[test]
fn a_red_removed_on_one_side_and_reworded_on_the_other_stays_pending() {
    let env = TestEnv::new();
    let (a, b, reds) = two_clones(&env);
    let edit = |dir: &Path, how: &dyn Fn(serde_json::Value) -> serde_json::Value| {
        let path = dir.join(REGISTRY);
        let doc: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        write(
            &path,
            &(serde_json::to_string_pretty(&how(doc)).unwrap() + "\n"),
        );
        git_ok(&env, dir, &["commit", "-q", "-a", "-m", "registry"]);
    };
    let gone = reds[0].clone();
    edit(&a, &|mut doc| {
        let list = doc["reds"].as_array_mut().unwrap();
        list.retain(|r| r["id"] != gone.as_str());
        doc
    });
    git_ok(&env, &a, &["push", "-q", "origin", "HEAD:main"]);
    let reworded = reds[0].clone();
    edit(&b, &|mut doc| {
        for red in doc["reds"].as_array_mut().unwrap() {
            if red["id"] == reworded.as_str() {
                red["decision_needed"] = "Do sessions expire, and when (reworded)?".into();
            }
        }
        doc
    });
    let out = pull(&env, &b);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!(
            "git-ucg: warning: a RED one side removed and the other changed is kept;\n  item    {}\n  file    {REGISTRY}\n  It is still pending",
            reds[0]
        )),
        "{}",
        stderr(&out)
    );
    assert!(registry_ids(&b, "reds").contains(&reds[0]));
    let pending = ucg_ok(&env, &b, &["pending", "--json"]);
    assert!(pending.contains("(reworded)?"), "{pending}");
}

/// The guided pass offers a contested decision's answers as choices: `2` closes it with the
/// second (theirs), and `pending --json` lists both answers before.
#[test]
fn the_guided_pass_offers_both_contested_answers() {
    let env = TestEnv::new();
    let (_, b, reds, out) = answered_in_both(
        &env,
        Given("--close", 0, "30 days", "2026-12-02T10:00:00Z"),
        Given("--close", 0, "never", "2026-12-02T09:00:00Z"),
        false,
        false,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: serde_json::Value =
        serde_json::from_str(&ucg_ok(&env, &b, &["pending", "--json"])).unwrap();
    let items = doc["items"].as_array().unwrap();
    let last = items.last().unwrap();
    assert_eq!(last["id"], reds[0].as_str());
    let answers: Vec<&str> = last["contested"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["answer"].as_str().unwrap())
        .collect();
    assert_eq!(answers, ["never", "30 days"]);
    // Skip the others, take the second answer for the contested one.
    let skips = "s\n".repeat(items.len() - 1);
    let out = output_with_stdin(
        env.ucg(&b).args(["resolve", "--interactive"]),
        format!("{skips}2\n").as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("[2]       \"30 days\" (a@example.com"),
        "{}",
        stderr(&out)
    );
    let merged = entries(&b);
    assert_eq!(merged.len(), 1, "{merged:?}");
    assert_eq!(
        (merged[0]["action"].as_str(), merged[0]["answer"].as_str()),
        (Some("close"), Some("30 days"))
    );
}
