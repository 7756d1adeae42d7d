//! git-ucg's own reads and tools around the state machine: `goal current`, `goal show`, `goal gc`,
//! `goal diff`, and the refusals of bad input.

use super::support::*;
use crate::common::*;
use serde_json::{json, Value};

fn three_stories(g: &Goal) {
    g.ok(&[
        "set",
        "--phase",
        "planning",
        "--outcome",
        "ship",
        "--verification-surface",
        "v",
    ]);
    let stories: Vec<Value> = ["S1", "S2", "S3"]
        .iter()
        .map(|id| json!({"id": id, "story": format!("do {id}"), "acceptance_criteria": [format!("{id} ok")],
            "verification_surface": format!("test {id}")}))
        .collect();
    g.ok(&["set-stories", "--json", &Value::from(stories).to_string()]);
    g.ok(&["confirm-all-stories"]);
    g.ok(&["set", "--phase", "pursuing"]);
}

/// The current story is derived: the first confirmed story without an APPROVE verdict.
#[test]
fn current_story_is_derived_from_the_verdicts() {
    let g = Goal::new();
    three_stories(&g);
    let current =
        |g: &Goal| -> Value { serde_json::from_str(&g.stdout(&["current", "--json"])).unwrap() };
    assert_eq!(
        current(&g),
        json!({"schema": "git-ucg.goal-current/1", "id": "S1", "story": "do S1",
            "acceptance_criteria": ["S1 ok"], "verification_surface": "test S1", "index": 1, "total": 3})
    );
    let mut verdicts = approving(&["S1"]);
    verdicts["stories"]
        .as_array_mut()
        .unwrap()
        .push(json!({"id": "S2", "verdict": "REQUEST_CHANGES", "evidence_refs": []}));
    g.write_verdicts(&verdicts);
    assert_eq!(current(&g)["id"], "S2");
    assert_eq!(
        g.stdout(&["current"]),
        "S2 (2/3): do S2\n  - S2 ok\n  verify: test S2\n"
    );
    g.write_verdicts(&approving(&["S1", "S2", "S3"]));
    assert_eq!(current(&g)["id"], Value::Null);
    assert_eq!(
        g.stdout(&["current"]),
        "every confirmed story is approved (3/3): the final code review is next\n"
    );
    // An invalid verdict artifact approves nothing.
    std::fs::write(g.omt.join("ultragoal-verdict-S.json"), "{").unwrap();
    assert_eq!(current(&g)["id"], "S1");
    // Nothing stored: the file is unchanged by every read.
    let before = g.state_bytes();
    g.ok(&["current"]);
    g.ok(&["show"]);
    g.ok(&["show", "--json"]);
    assert_eq!(g.state_bytes(), before);
}

/// `goal show`: the pursuit at a glance.
#[test]
fn show_summarizes_the_pursuit() {
    let g = Goal::new();
    three_stories(&g);
    g.ok(&[
        "set",
        "--phase",
        "pursuing",
        "--completion-evidence",
        "e/1.log",
    ]);
    g.write_verdicts(&approving(&["S1"]));
    g.write_code_review(&review(&[finding(
        "correctness",
        "CONFIRMED",
        "HIGH",
        "src/a.rs:3",
    )]));
    g.ok(&["claim-review-dispatch"]);
    let doc: Value = serde_json::from_str(&g.stdout(&["show", "--json"])).unwrap();
    assert_eq!(doc["schema"], "git-ucg.goal-show/1");
    assert_eq!(
        (&doc["phase"], &doc["current"]),
        (&json!("pursuing"), &json!("S2"))
    );
    assert_eq!(doc["stories"][0]["verdict"], "APPROVE");
    assert_eq!(
        doc["review"],
        json!({"artifact": "blocking", "blocking": 1, "dispatch_used": 1,
        "dispatch_cap": 5, "dismissed": 0})
    );
    assert_eq!(doc["liveness"]["live"], true);
    let human = g.stdout(&["show"]);
    let stable: String = human
        .lines()
        .filter(|l| !l.trim_start().starts_with("touched"))
        .map(|l| format!("{l}\n"))
        .collect();
    insta::assert_snapshot!(stable);
    let g = Goal::new();
    assert!(g.stdout(&["show"]).contains("no state"));
}

/// `goal gc` removes other sessions' state past its TTL, and their old artifacts; never this
/// session's, never a live one.
#[test]
fn gc_reaps_what_is_past_its_ttl() {
    let g = Goal::new();
    g.seed();
    let mut dead = seed_state();
    dead["outcome"] = json!("old");
    dead["last_touched_at"] = json!(ago(7 * 3600));
    g.write_state_of("DEAD", &dead);
    let mut finished = dead.clone();
    finished["active"] = json!(false);
    finished["phase"] = json!("complete");
    finished["last_touched_at"] = json!(ago(31 * 60));
    g.write_state_of("DONE", &finished);
    let mut live = dead.clone();
    live["last_touched_at"] = json!(ago(5 * 3600));
    g.write_state_of("LIVE", &live);
    let old_artifact = g.omt.join("ultragoal-verdict-DEAD.json");
    std::fs::write(&old_artifact, "{}").unwrap();
    let seven_hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(7 * 3600);
    std::fs::File::options()
        .write(true)
        .open(&old_artifact)
        .unwrap()
        .set_modified(seven_hours_ago)
        .unwrap();
    let out = g.stdout(&["gc", "--dry-run"]);
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(
        g.state_path_of("DEAD").exists(),
        "a dry run removes nothing"
    );
    let doc: Value = serde_json::from_str(&g.stdout(&["gc", "--json"])).unwrap();
    let removed: Vec<String> = doc["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            std::path::Path::new(r["path"].as_str().unwrap())
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(
        removed,
        [
            "ultragoal-state-DEAD.json",
            "ultragoal-state-DONE.json",
            "ultragoal-verdict-DEAD.json"
        ]
    );
    assert!(g.state_path_of("LIVE").exists());
    assert!(g.state_path().exists());
}

/// `goal diff`: the whole pursuit's diff from the HEAD recorded when it entered pursuing.
#[test]
fn diff_shows_the_whole_pursuit() {
    let g = Goal::new();
    let refusal = g.run(&["diff"]);
    assert_eq!(refusal.status.code(), Some(2));
    assert!(
        stderr(&refusal).contains("no recorded base for session S"),
        "{}",
        stderr(&refusal)
    );
    g.pursuing();
    let base = g.env.git(&g.repo, &["rev-parse", "HEAD"]);
    write(&g.repo.join("src/flag.rs"), "pub fn version() {}\n");
    g.env.git(&g.repo, &["add", "."]);
    g.env.git(&g.repo, &["commit", "-qm", "story 1"]);
    write(
        &g.repo.join("src/flag.rs"),
        "pub fn version() -> &'static str { \"1\" }\n",
    );
    g.env.git(&g.repo, &["commit", "-qam", "story 2"]);
    // Re-entering pursuit keeps the first base.
    g.ok(&["set", "--phase", "pursuing"]);
    let ours = g.stdout(&["diff", "--numstat"]);
    let git = g
        .env
        .git_raw(&g.repo, &["diff", "--numstat", &format!("{base}..HEAD")]);
    assert_eq!(ours, git);
    let same = g.stdout(&["diff", "--numstat", "--base", &base]);
    assert_eq!(same, git);
    // A fresh pursuit after a terminal state starts from its own HEAD.
    g.ok(&["set-blocked", "--reason", "x"]);
    g.ok(&[
        "set",
        "--phase",
        "planning",
        "--outcome",
        "again",
        "--verification-surface",
        "v",
    ]);
    g.ok(&["set-stories", "--single"]);
    g.ok(&["set", "--phase", "pursuing"]);
    assert_eq!(g.stdout(&["diff", "--numstat"]), "");
}

/// Bad input: clear refusals, exit 1, nothing changed.
#[test]
fn bad_input_is_refused_without_changing_anything() {
    let g = Goal::new();
    g.pursuing();
    // Unsafe session ids.
    for sid in ["../S", "a b", "a/b", &"x".repeat(201)] {
        let out = g.run_as(sid, &["set", "--phase", "planning"]);
        assert_eq!(out.status.code(), Some(1));
        assert!(stderr(&out).contains("is not a safe session id"), "{sid}");
    }
    let out = g
        .env
        .ucg(&g.repo)
        .args(["goal", "--session", "..", "get"])
        .output()
        .unwrap();
    assert_eq!(stderr(&out), "ultragoal-state: Error: --session \"..\" is not a safe session id (must match ^[A-Za-z0-9_-]+$, length 1..200).\n");
    // A corrupt verdict artifact: completion refused, nothing written.
    g.ok(&["set-verdict", "--verdict", "APPROVE"]);
    g.write_code_review(&review(&[]));
    std::fs::write(
        g.omt.join("ultragoal-verdict-S.json"),
        "{\"objective_verdict\": \"APPROVE\", ",
    )
    .unwrap();
    let message = g.refused_unchanged(&["request-complete"]);
    assert!(
        message.starts_with("request-complete: refused — requires objective_verdict=APPROVE"),
        "{message}"
    );
    assert!(stdout(&g.ok(&["show"]))
        .contains("completion   refused: the verdict artifact is absent or invalid"));
    // A state file that does not parse reads as `{}` and is rewritten whole, as the reference
    // rewrites it (issue 15, item 5); readers see no state meanwhile.
    for args in [
        &["set", "--phase", "planning"][..],
        &["set-verdict", "--verdict", "absent"],
        &["confirm-all-stories"],
    ] {
        std::fs::write(g.state_path(), "{\"phase\": \"pursuing\",").unwrap();
        assert_eq!(g.stdout(&["status"]), "absent\n");
        g.ok(args);
        assert_eq!(g.state()["schema_version"], 1, "{args:?}");
    }
    // A state file that is a directory.
    std::fs::remove_file(g.state_path()).unwrap();
    std::fs::create_dir(g.state_path()).unwrap();
    let message = g.refused(&["set", "--phase", "planning"]);
    assert!(message.contains("cannot open"), "{message}");
    assert!(g.state_path().is_dir());
    assert_eq!(g.stdout(&["get"]), "null\n");
    assert_eq!(g.stdout(&["status"]), "absent\n");
}
