//! Every decision to its decider (issue 20 item 1): `ucg.decider` rules and the layers'
//! `workflow.deciders` table, shown by `pending`, `status` and `gate`, filtered by `--mine` and
//! `--for`, walked by `resolve --mine`.

use crate::common::*;
use std::path::Path;

fn pending_json(env: &TestEnv, dir: &Path, extra: &[&str]) -> Vec<(String, Vec<String>)> {
    let out = env
        .ucg(dir)
        .args(["pending", "--json"])
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            let deciders = item["deciders"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_str().unwrap().to_string())
                .collect();
            (item["kind"].as_str().unwrap().to_string(), deciders)
        })
        .collect()
}

fn decider(env: &TestEnv, dir: &Path, rule: &str) {
    env.git(dir, &["config", "--add", "ucg.decider", rule]);
}

#[test]
fn exact_kinds_globs_and_several_deciders() {
    let env = TestEnv::new();
    let dir = env.demo();
    // No rule: every item has an empty list, and the table has no column for it.
    assert!(pending_json(&env, &dir, &[])
        .iter()
        .all(|(_, deciders)| deciders.is_empty()));
    let plain = stdout(&env.ucg(&dir).arg("pending").output().unwrap());
    assert!(!plain.contains("decided by"), "{plain}");
    decider(&env, &dir, "undecided-product=pm@example.com");
    decider(&env, &dir, "undecided-product=po@example.com");
    decider(&env, &dir, "undecided-*=arch@example.com");
    decider(&env, &dir, "*=lead@example.com");
    assert_eq!(
        pending_json(&env, &dir, &[]),
        [
            (
                "undecided-product".to_string(),
                vec!["pm@example.com".to_string(), "po@example.com".to_string()]
            ),
            (
                "undecided-architecture".to_string(),
                vec![
                    "arch@example.com".to_string(),
                    "lead@example.com".to_string()
                ]
            ),
            (
                "budget-overrun".to_string(),
                vec!["lead@example.com".to_string()]
            ),
            ("decision".to_string(), vec!["lead@example.com".to_string()]),
        ]
    );
    // A column where the terminal is wide enough; under each row, with its decision, where not.
    let table = stdout(
        &env.ucg(&dir)
            .arg("pending")
            .env("COLUMNS", "160")
            .output()
            .unwrap(),
    );
    let header = table.lines().next().unwrap();
    assert!(header.contains("decided by"), "{table}");
    assert!(table.contains("pm@example.com, po@example.com"), "{table}");
    let narrow = stdout(&env.ucg(&dir).arg("pending").output().unwrap());
    assert!(
        !narrow.lines().next().unwrap().contains("decided by"),
        "{narrow}"
    );
    assert!(
        flat(&narrow).contains("after how long? (decided by pm@example.com, po@example.com)"),
        "{narrow}"
    );
    assert!(narrow.lines().all(|l| l.chars().count() <= 80), "{narrow}");
    // The gate's refusal and the dashboard say who must decide.
    let out = env.ucg(&dir).arg("gate").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("decided by pm@example.com, po@example.com"),
        "{}",
        stderr(&out)
    );
    let status = stdout(
        &env.ucg(&dir)
            .args(["status", "--no-pager"])
            .output()
            .unwrap(),
    );
    assert!(status.contains("decided by lead@example.com"), "{status}");
    // A rule that is not one warns and is left out.
    decider(&env, &dir, "nonsense");
    let out = env.ucg(&dir).arg("pending").output().unwrap();
    assert!(
        stderr(&out).contains("ucg.decider \"nonsense\" is not <kind-or-glob>=<email>"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn mine_and_for_list_only_that_persons_items() {
    let env = TestEnv::new();
    let dir = env.demo();
    decider(&env, &dir, "undecided-product=pm@example.com");
    decider(&env, &dir, "budget-overrun=PM@example.com");
    decider(&env, &dir, "*=lead@example.com");
    let kinds = |extra: &[&str]| -> Vec<String> {
        pending_json(&env, &dir, extra)
            .into_iter()
            .map(|(kind, _)| kind)
            .collect()
    };
    assert_eq!(
        kinds(&["--for", "pm@example.com"]),
        ["undecided-product", "budget-overrun"]
    );
    assert_eq!(
        kinds(&["--for", "lead@example.com"]),
        ["undecided-architecture", "decision"]
    );
    assert!(kinds(&["--for", "nobody@example.com"]).is_empty());
    // The table says the others' items wait, not "nothing pending".
    let out = env
        .ucg(&dir)
        .args(["pending", "--for", "nobody@example.com"])
        .output()
        .unwrap();
    assert_eq!(
        stdout(&out),
        "nothing for nobody@example.com; 4 pending for others: `git ucg pending`\n"
    );
    // --mine is user.email, else git's author email (the tests' identity: it decides nothing).
    assert!(kinds(&["--mine"]).is_empty());
    env.git(&dir, &["config", "user.email", "pm@example.com"]);
    assert_eq!(kinds(&["--mine"]), ["undecided-product", "budget-overrun"]);
    // resolve --mine walks only those: two answers on stdin answer exactly them.
    let out = output_with_stdin(
        env.ucg(&dir).args(["resolve", "--mine", "--interactive"]),
        b"c\n30 days\nd\nlater\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("[1/2]") && stderr(&out).contains("[2/2]"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("decider   pm@example.com"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        kinds(&[]),
        ["undecided-architecture", "budget-overrun", "decision"]
    );
}

/// The layers' `workflow.deciders` table routes too; a pattern git's configuration names
/// replaces the same pattern of the layers.
#[test]
fn the_customization_layers_route_and_git_config_wins() {
    let env = TestEnv::new();
    let dir = env.demo();
    write(
        &dir.join("_bmad/custom/ultracode-goal.toml"),
        "[workflow.deciders]\n\"undecided-product\" = \"team-pm@example.com\"\ndecision = [\"a@example.com\", \"b@example.com\"]\n",
    );
    let items = pending_json(&env, &dir, &[]);
    assert_eq!(items[0].1, ["team-pm@example.com"]);
    assert_eq!(items[3].1, ["a@example.com", "b@example.com"]);
    decider(&env, &dir, "undecided-product=me@example.com");
    let items = pending_json(&env, &dir, &[]);
    assert_eq!(items[0].1, ["me@example.com"]);
    assert_eq!(items[3].1, ["a@example.com", "b@example.com"]);
}
