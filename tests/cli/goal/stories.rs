//! The story layer: docs/formats/ultragoal.md §6 behaviours 28–36.

use super::support::*;
use serde_json::{json, Value};

fn ids_and_statuses(g: &Goal) -> Vec<(String, String)> {
    g.state()["stories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap().into(),
                s["status"].as_str().unwrap().into(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// §6.28: set-stories refuses an empty list, missing criteria or surface, an empty outcome,
/// duplicate or missing ids — the file unchanged.
#[test]
fn set_stories_validates_the_whole_list() {
    let g = Goal::new();
    g.seed();
    let message =
        g.refused_unchanged(&["set-stories", "--json", &json!([story("S1")]).to_string()]);
    assert_eq!(message, "ultragoal-state: Error: set-stories: refused — outcome must be set before ingesting stories\n");
    g.ok(&["set", "--phase", "planning", "--outcome", "o"]);
    let mut no_ac = story("S2");
    no_ac["acceptance_criteria"] = json!([]);
    let mut no_surface = story("S2");
    no_surface["verification_surface"] = json!("  ");
    let mut blank_id = story("S2");
    blank_id["id"] = json!(" ");
    let mut no_id = story("S2");
    no_id.as_object_mut().unwrap().remove("id");
    for (list, expected) in [
        (
            json!([]),
            "set-stories: refused — story set must not be empty",
        ),
        (
            json!([story("S1"), no_ac]),
            "set-stories: refused — story \"S2\" has no acceptance criteria",
        ),
        (
            json!([no_surface]),
            "set-stories: refused — story \"S2\" is missing verification_surface",
        ),
        (
            json!([story("S1"), story("S1")]),
            "set-stories: refused — duplicate story id \"S1\"",
        ),
        (
            json!([blank_id]),
            "set-stories: refused — story is missing a non-empty id",
        ),
        (
            json!([no_id]),
            "set-stories: refused — story is missing a non-empty id",
        ),
    ] {
        let message = g.refused_unchanged(&["set-stories", "--json", &list.to_string()]);
        assert_eq!(message, format!("ultragoal-state: Error: {expected}\n"));
    }
    assert_eq!(
        g.refused_unchanged(&["set-stories", "--json", "{\"id\": 1}"]),
        "set-stories: invalid JSON — Error: expected JSON array\n"
    );
    assert!(g
        .refused_unchanged(&["set-stories", "--json", "[{"])
        .starts_with("set-stories: invalid JSON — SyntaxError"));
    assert_eq!(
        g.refused_unchanged(&["set-stories"]),
        "set-stories: --json <array> or --single is required\n"
    );
}

/// §6.29: steering and split provenance are stripped; every status unconfirmed.
#[test]
fn set_stories_strips_provenance() {
    let g = Goal::new();
    let mut carried = story("S1");
    carried["status"] = json!("confirmed");
    carried["steering_evidence"] = json!("e");
    carried["steering_rationale"] = json!("r");
    carried["split_from"] = json!("S0");
    carried["custom"] = json!({"kept": true});
    g.plan_with(&[carried, story("S2")]);
    let stories = g.state()["stories"].clone();
    let first = stories[0].as_object().unwrap();
    // Key order kept, status replaced in place, the rest dropped.
    assert_eq!(
        first.keys().map(String::as_str).collect::<Vec<_>>(),
        [
            "id",
            "story",
            "acceptance_criteria",
            "verification_surface",
            "status",
            "custom"
        ]
    );
    assert_eq!(
        ids_and_statuses(&g),
        pairs(&[("S1", "unconfirmed"), ("S2", "unconfirmed")])
    );
}

/// §6.30: the single-WHAT derivation.
#[test]
fn single_what_derives_one_confirmed_story() {
    let g = Goal::new();
    g.planned();
    assert_eq!(
        g.state()["stories"],
        json!([{"id": "S1", "story": "CLI prints version", "acceptance_criteria": ["cargo test version_flag"],
            "verification_surface": "cargo test version_flag", "status": "confirmed"}])
    );
    // Derived again over existing stories, replacing them (G1, as the reference).
    g.ok(&["set-stories", "--json", &json!([story("S7")]).to_string()]);
    g.ok(&["set-stories", "--single"]);
    assert_eq!(g.state()["stories"][0]["id"], "S1");
    assert_eq!(g.state()["stories"].as_array().map(Vec::len), Some(1));
    let g = Goal::new();
    g.ok(&["set", "--phase", "planning", "--outcome", "o"]);
    assert_eq!(
        g.refused_unchanged(&["set-stories", "--single"]),
        "ultragoal-state: Error: set-stories --single: refused — verification_surface must be set before auto-deriving a story\n"
    );
}

/// §6.31: unconfirmed stories block pursuit until confirmed.
#[test]
fn pursuit_waits_for_confirmation() {
    let g = Goal::new();
    g.plan_with(&[story("S1"), story("S2")]);
    assert_eq!(
        g.refused_unchanged(&["set", "--phase", "pursuing"]),
        "ultragoal-state: Error: set: pursuing refused — 2 unconfirmed stories: S1, S2\n"
    );
    g.ok(&["confirm-story", "S1"]);
    assert_eq!(
        g.refused_unchanged(&["set", "--phase", "pursuing"]),
        "ultragoal-state: Error: set: pursuing refused — 1 unconfirmed story: S2\n"
    );
    g.ok(&["confirm-all-stories"]);
    g.ok(&["set", "--phase", "pursuing"]);
    assert_eq!(g.state()["phase"], "pursuing");
}

/// §6.32: confirm-all leaves retired stories alone, is idempotent, and a no-op without stories.
#[test]
fn confirm_all_stories() {
    let g = Goal::new();
    g.plan_with(&[story("S1"), story("S2"), story("S3")]);
    g.ok(&["retire-story", "S2", "--evidence", "e", "--rationale", "r"]);
    g.ok(&["confirm-all-stories"]);
    let expected = pairs(&[("S1", "confirmed"), ("S2", "retired"), ("S3", "confirmed")]);
    assert_eq!(ids_and_statuses(&g), expected);
    g.ok(&["confirm-all-stories"]);
    assert_eq!(ids_and_statuses(&g), expected);
    let g = Goal::new();
    g.seed();
    g.ok(&["confirm-all-stories"]);
    assert_eq!(g.state()["stories"], json!([]));
    // confirm-story: unknown, retired, already confirmed (no write at all).
    let g = Goal::new();
    g.plan_with(&[story("S1"), story("S2")]);
    g.ok(&["retire-story", "S2", "--evidence", "e", "--rationale", "r"]);
    assert_eq!(
        g.refused_unchanged(&["confirm-story", "S9"]),
        "ultragoal-state: Error: confirm-story: unknown story id \"S9\"\n"
    );
    assert_eq!(
        g.refused_unchanged(&["confirm-story", "S2"]),
        "ultragoal-state: Error: confirm-story: refused — story \"S2\" is retired\n"
    );
    assert_eq!(
        g.refused_unchanged(&["confirm-story"]),
        "confirm-story: <id> argument is required\n"
    );
    g.ok(&["confirm-story", "S1"]);
    let before = g.state_bytes();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    g.ok(&["confirm-story", "S1"]);
    assert_eq!(
        g.state_bytes(),
        before,
        "an already confirmed story is not even heartbeated"
    );
}

/// §6.33: reorder-stories takes an exact permutation, in planning only.
#[test]
fn reorder_stories() {
    let g = Goal::new();
    g.plan_with(&[story("S1"), story("S2"), story("S3")]);
    g.ok(&["retire-story", "S3", "--evidence", "e", "--rationale", "r"]);
    g.ok(&["reorder-stories", "--order", "S3, S1,S2"]);
    let order: Vec<String> = ids_and_statuses(&g).into_iter().map(|(id, _)| id).collect();
    assert_eq!(order, ["S3", "S1", "S2"]);
    for (order, expected) in [
        ("S1,S2", "reorder-stories: refused — --order must list exactly the 3 current story id(s) (got 2)"),
        ("S1,S1,S2", "reorder-stories: refused — duplicate story id \"S1\" in --order"),
        ("S1,S2,S9", "reorder-stories: refused — unknown story id \"S9\" in --order"),
    ] {
        assert_eq!(
            g.refused_unchanged(&["reorder-stories", "--order", order]),
            format!("ultragoal-state: Error: {expected}\n")
        );
    }
    assert_eq!(
        g.refused_unchanged(&["reorder-stories", "--order"]),
        "reorder-stories: --order requires a value\n"
    );
    assert_eq!(
        g.refused_unchanged(&["reorder-stories"]),
        "reorder-stories: --order <id1,id2,...> is required\n"
    );
    g.ok(&["confirm-all-stories"]);
    g.ok(&["set", "--phase", "pursuing"]);
    assert_eq!(
        g.refused_unchanged(&["reorder-stories", "--order", "S1,S2,S3"]),
        "ultragoal-state: Error: reorder-stories: refused — phase must be 'planning' (got \"pursuing\")\n"
    );
}

/// §6.34: revise resets confirmation; the retire fence; steering reasons required (and may begin
/// with dashes).
#[test]
fn revise_and_retire() {
    let g = Goal::new();
    g.plan_with(&[story("S1"), story("S2"), story("S3")]);
    g.ok(&["confirm-all-stories"]);
    g.ok(&[
        "revise-story",
        "S1",
        "--json",
        "{\"story\": \"sharper\"}",
        "--evidence",
        "--seen in review",
        "--rationale",
        "r",
    ]);
    let s1 = g.state()["stories"][0].clone();
    assert_eq!(
        (&s1["story"], &s1["status"]),
        (&json!("sharper"), &json!("unconfirmed"))
    );
    assert_eq!(
        (&s1["steering_evidence"], &s1["steering_rationale"]),
        (&json!("--seen in review"), &json!("r"))
    );
    fn with<'a>(args: &[&'a str]) -> Vec<&'a str> {
        [args, &["--evidence", "e", "--rationale", "r"][..]].concat()
    }
    g.ok(&with(&["retire-story", "S3"]));
    assert_eq!(
        g.refused_unchanged(&with(&["revise-story", "S3", "--json", "{}"])),
        "ultragoal-state: Error: revise-story: refused — story \"S3\" is retired (no resurrect-via-revise)\n"
    );
    assert_eq!(
        g.refused_unchanged(&with(&["revise-story", "S1", "--json", "{\"id\": \"S2\"}"])),
        "ultragoal-state: Error: revise-story: refused — story id \"S2\" already exists\n"
    );
    assert_eq!(
        g.refused_unchanged(&with(&["revise-story", "S1", "--json", "{\"status\": \"confirmed\"}"])),
        "ultragoal-state: Error: revise-story: refused — mutations cannot produce confirmed status (use confirm-story)\n"
    );
    assert_eq!(
        g.refused_unchanged(&["revise-story", "S1", "--json", "{}", "--evidence", " ", "--rationale", "r"]),
        "ultragoal-state: Error: revise-story: refused — --evidence is required (what was observed that forces this change)\n"
    );
    assert_eq!(
        g.refused_unchanged(&["retire-story", "S2", "--evidence", "e"]),
        "ultragoal-state: Error: retire-story: refused — --rationale is required (why this change is the right response)\n"
    );
    g.ok(&["confirm-all-stories"]);
    g.ok(&["set", "--phase", "pursuing"]);
    assert_eq!(
        g.refused_unchanged(&with(&["retire-story", "S2"])),
        "ultragoal-state: Error: retire-story: refused — confirmed story \"S2\" cannot be retired during pursuit. \
Re-plan first (set --phase planning) to retire confirmed stories.\n"
    );
    // add-story works while pursuing, unconfirmed, and then gates pursuit again.
    g.ok(&with(&["add-story", "--json", &story("S4").to_string()]));
    assert_eq!(
        ids_and_statuses(&g).last().unwrap(),
        &("S4".into(), "unconfirmed".into())
    );
    assert!(g
        .refused_unchanged(&["set", "--phase", "pursuing"])
        .contains("1 unconfirmed story: S4"));
    assert_eq!(
        g.refused_unchanged(&with(&["add-story", "--json", &story("S4").to_string()])),
        "ultragoal-state: Error: add-story: refused — story id \"S4\" already exists\n"
    );
    assert_eq!(
        g.refused_unchanged(&["add-story"]),
        "add-story: --json <story> is required\n"
    );
}

/// §6.35: split-story.
#[test]
fn split_story() {
    let g = Goal::new();
    g.plan_with(&[story("S1"), story("S2")]);
    let steer = ["--evidence", "too big", "--rationale", "two seams"];
    let split = |id: &str, children: Value| {
        [
            &["split-story", id, "--json", &children.to_string()][..],
            &steer[..],
        ]
        .concat()
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<String>>()
    };
    let run = |args: Vec<String>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        g.refused_unchanged(&args)
    };
    let mut confirmed_child = story("S1b");
    confirmed_child["status"] = json!("confirmed");
    let mut no_ac = story("S1b");
    no_ac["acceptance_criteria"] = json!([]);
    for (id, children, expected) in [
        ("S1", json!([story("S1a")]), "split-story: refused — a split needs >=2 replacements (got 1); for a 1:1 change use revise-story"),
        ("S9", json!([story("S1a"), story("S1b")]), "split-story: unknown story id \"S9\""),
        ("S1", json!([story("S1a"), story("S2")]), "split-story: refused — story id \"S2\" already exists"),
        ("S1", json!([story("S1"), story("S1b")]), "split-story: refused — story id \"S1\" already exists"),
        ("S1", json!([story("S1a"), story("S1a")]), "split-story: refused — duplicate replacement id \"S1a\""),
        ("S1", json!([story("S1a"), confirmed_child]), "split-story: refused — mutations cannot produce confirmed status (use confirm-story)"),
        ("S1", json!([story("S1a"), no_ac]), "split-story: refused — story \"S1b\" has no acceptance criteria"),
    ] {
        assert_eq!(run(split(id, children)), format!("ultragoal-state: Error: {expected}\n"), "{id}");
    }
    assert!(g
        .refused_unchanged(&[
            "split-story",
            "S1",
            "--json",
            &json!([story("S1a"), story("S1b")]).to_string(),
            "--evidence",
            "e"
        ])
        .contains("--rationale is required"));
    let args = split("S1", json!([story("S1a"), story("S1b")]));
    g.ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let stories = g.state()["stories"].clone();
    assert_eq!(
        ids_and_statuses(&g),
        pairs(&[
            ("S1", "retired"),
            ("S1a", "unconfirmed"),
            ("S1b", "unconfirmed"),
            ("S2", "unconfirmed")
        ])
    );
    assert_eq!(stories[0]["split_into"], json!(["S1a", "S1b"]));
    assert_eq!(
        (&stories[1]["split_from"], &stories[2]["split_from"]),
        (&json!("S1"), &json!("S1"))
    );
    assert_eq!(stories[1]["steering_rationale"], "two seams");
    assert_eq!(
        run(split("S1", json!([story("S1c"), story("S1d")]))),
        "ultragoal-state: Error: split-story: refused — story \"S1\" is already retired\n"
    );
    // A confirmed parent splits only while planning.
    g.ok(&["confirm-all-stories"]);
    g.ok(&["set", "--phase", "pursuing"]);
    assert_eq!(
        run(split("S2", json!([story("S2a"), story("S2b")]))),
        "ultragoal-state: Error: split-story: refused — confirmed story \"S2\" cannot be split during pursuit. \
Re-plan first (set --phase planning) to split confirmed stories.\n"
    );
}

/// §6.36: re-planning keeps the stories and their confirmations — with a changed slot too (G1,
/// as the reference; G2/G3 would ask again) — and resets the verdict and the evidence.
#[test]
fn replanning_keeps_the_stories() {
    let g = Goal::new();
    g.completable();
    g.ok(&["set", "--phase", "planning"]);
    let state = g.state();
    assert_eq!(
        (
            &state["objective_verdict"],
            &state["completion_evidence_paths"]
        ),
        (&json!("absent"), &json!([]))
    );
    assert_eq!(ids_and_statuses(&g), pairs(&[("S1", "confirmed")]));
    assert!(!g.omt.join("ultragoal-verdict-S.json").exists());
    assert!(!g.codereview_path().exists());
    g.ok(&[
        "set",
        "--phase",
        "planning",
        "--constraints",
        "no new dependencies",
    ]);
    // G1, as the reference: a changed slot keeps the confirmations too.
    assert_eq!(ids_and_statuses(&g), pairs(&[("S1", "confirmed")]));
}
