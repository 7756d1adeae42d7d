//! Never-false-complete (docs/formats/ultragoal.md §4.4): random sequences of subcommands — failing
//! ones, garbage artifacts, and injected write failures (a lock held by a live owner, a read-only
//! state directory, a corrupt state file) — never reach `complete` except through a successful
//! `request-complete` whose gates held at that moment, judged here from the files themselves.

use super::support::*;
use proptest::prelude::*;
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;

#[derive(Debug, Clone)]
enum Step {
    Plan,
    Single,
    Stories,
    ConfirmAll,
    Retire,
    Pursue { evidence: bool },
    Verdict(&'static str),
    Verdicts(u8),
    Review(u8),
    RequestComplete,
    BudgetLimited,
    Blocked,
    Resume,
    HoldLock(bool),
    ReadOnly(bool),
    Corrupt,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        Just(Step::Plan),
        Just(Step::Single),
        Just(Step::Stories),
        Just(Step::ConfirmAll),
        Just(Step::Retire),
        any::<bool>().prop_map(|evidence| Step::Pursue { evidence }),
        prop_oneof![
            Just("APPROVE"),
            Just("REQUEST_CHANGES"),
            Just("COMMENT"),
            Just("absent")
        ]
        .prop_map(Step::Verdict),
        (0u8..5).prop_map(Step::Verdicts),
        (0u8..5).prop_map(Step::Review),
        Just(Step::RequestComplete),
        Just(Step::RequestComplete),
        Just(Step::BudgetLimited),
        Just(Step::Blocked),
        Just(Step::Resume),
        any::<bool>().prop_map(Step::HoldLock),
        any::<bool>().prop_map(Step::ReadOnly),
        Just(Step::Corrupt),
    ]
}

fn read_json(path: &std::path::Path) -> Option<Value> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// The completion gates, judged independently from the files.
fn gates_hold(g: &Goal) -> bool {
    let Some(state) = read_json(&g.state_path()) else {
        return false;
    };
    let evidence = state["completion_evidence_paths"]
        .as_array()
        .is_some_and(|p| !p.is_empty());
    let stories: Vec<&Value> = state["stories"]
        .as_array()
        .map(|s| s.iter().filter(|s| s["status"] != "retired").collect())
        .unwrap_or_default();
    let Some(verdicts) = read_json(&g.omt.join("ultragoal-verdict-S.json")) else {
        return false;
    };
    let approved = |id: &Value| {
        verdicts["stories"].as_array().is_some_and(|v| {
            v.iter()
                .any(|e| &e["id"] == id && e["verdict"] == "APPROVE")
        })
    };
    let Some(code_review) = read_json(&g.codereview_path()) else {
        return false;
    };
    let clean = code_review["status"] == "COMPLETE"
        && code_review["findings"]
            .as_array()
            .is_some_and(|f| f.is_empty());
    state["objective_verdict"] == "APPROVE"
        && evidence
        && !stories.is_empty()
        && stories
            .iter()
            .all(|s| s["status"] == "confirmed" && approved(&s["id"]))
        && verdicts["objective_verdict"] == "APPROVE"
        && clean
}

fn phase(g: &Goal) -> Option<String> {
    read_json(&g.state_path()).and_then(|s| s["phase"].as_str().map(str::to_string))
}

fn apply(g: &Goal, step: &Step) -> Option<bool> {
    let steer = ["--evidence", "e", "--rationale", "r"];
    let story = |id: &str| json!({"id": id, "story": id, "acceptance_criteria": ["a"], "verification_surface": "v"});
    let run = |args: &[&str]| Some(g.run(args).status.code() == Some(0));
    let lock = g.omt.join("ultragoal-state-S.json.lock");
    match step {
        Step::Plan => run(&[
            "set",
            "--phase",
            "planning",
            "--outcome",
            "o",
            "--verification-surface",
            "v",
        ]),
        Step::Single => run(&["set-stories", "--single"]),
        Step::Stories => run(&[
            "set-stories",
            "--json",
            &json!([story("S1"), story("S2")]).to_string(),
        ]),
        Step::ConfirmAll => run(&["confirm-all-stories"]),
        Step::Retire => run(&[&["retire-story", "S2"][..], &steer].concat()),
        Step::Pursue { evidence: true } => run(&[
            "set",
            "--phase",
            "pursuing",
            "--completion-evidence",
            "e.log",
        ]),
        Step::Pursue { evidence: false } => run(&["set", "--phase", "pursuing"]),
        Step::Verdict(v) => run(&["set-verdict", "--verdict", v]),
        Step::Verdicts(kind) => {
            let path = g.omt.join("ultragoal-verdict-S.json");
            let _ = match kind {
                0 => std::fs::write(&path, approving(&["S1", "S2"]).to_string()),
                1 => std::fs::write(&path, approving(&["S1"]).to_string()),
                2 => std::fs::write(&path, "{garbage"),
                3 => {
                    let mut doc = approving(&["S1", "S2"]);
                    doc["stories"][1]["verdict"] = json!("REQUEST_CHANGES");
                    std::fs::write(&path, doc.to_string())
                }
                _ => std::fs::remove_file(&path),
            };
            None
        }
        Step::Review(kind) => {
            let _ = match kind {
                0 => std::fs::write(g.codereview_path(), review(&[]).to_string()),
                1 => std::fs::write(
                    g.codereview_path(),
                    review(&[finding("correctness", "CONFIRMED", "HIGH", "a.rs:1")]).to_string(),
                ),
                2 => std::fs::write(g.codereview_path(), "[]"),
                3 => {
                    let mut doc = review(&[]);
                    doc["status"] = json!("INCONCLUSIVE");
                    std::fs::write(g.codereview_path(), doc.to_string())
                }
                _ => std::fs::remove_file(g.codereview_path()),
            };
            None
        }
        Step::RequestComplete => run(&["request-complete"]),
        Step::BudgetLimited => run(&["set-budget-limited"]),
        Step::Blocked => run(&["set-blocked", "--reason", "r"]),
        Step::Resume => run(&["resume-pursuit"]),
        Step::HoldLock(true) => {
            let _ = std::fs::create_dir(&lock);
            let now_ms = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_millis() as u64;
            let owner =
                json!({"ownerPid": std::process::id(), "token": "held", "startedAt": now_ms});
            let _ = std::fs::write(lock.join("owner.json"), owner.to_string());
            None
        }
        Step::HoldLock(false) => {
            let _ = std::fs::remove_dir_all(&lock);
            None
        }
        Step::ReadOnly(on) => {
            let mode = if *on { 0o555 } else { 0o755 };
            let _ = std::fs::set_permissions(&g.omt, std::fs::Permissions::from_mode(mode));
            None
        }
        Step::Corrupt => {
            let _ = std::fs::write(g.state_path(), "{\"phase\": ");
            None
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn complete_only_through_a_request_complete_whose_gates_held(
        steps in proptest::collection::vec(step(), 1..24)
    ) {
        let g = Goal::new();
        for step in &steps {
            let before = phase(&g);
            let eligible = gates_hold(&g);
            let succeeded = apply(&g, step);
            let after = phase(&g);
            if after.as_deref() == Some("complete") && before.as_deref() != Some("complete") {
                prop_assert!(matches!(step, Step::RequestComplete), "{step:?} completed");
                prop_assert_eq!(succeeded, Some(true));
                prop_assert!(eligible, "completed while a gate did not hold");
            }
            if matches!(step, Step::RequestComplete) && succeeded == Some(true) {
                prop_assert!(eligible, "request-complete succeeded while a gate did not hold");
                prop_assert_eq!(after.as_deref(), Some("complete"));
            }
        }
        let _ = std::fs::set_permissions(&g.omt, std::fs::Permissions::from_mode(0o755));
    }
}

/// The harness above can complete: the same steps in the right order reach `complete`, with the
/// gates judged to hold (so the property is not vacuous).
#[test]
fn the_harness_reaches_complete_when_every_gate_holds() {
    let g = Goal::new();
    let steps = [
        Step::Plan,
        Step::Stories,
        Step::ConfirmAll,
        Step::Pursue { evidence: true },
        Step::Verdict("APPROVE"),
        Step::Verdicts(0),
        Step::Review(0),
    ];
    for step in &steps {
        apply(&g, step);
    }
    assert!(gates_hold(&g));
    apply(&g, &Step::HoldLock(true));
    assert_eq!(
        apply(&g, &Step::RequestComplete),
        Some(false),
        "a held lock refuses"
    );
    apply(&g, &Step::HoldLock(false));
    assert_eq!(apply(&g, &Step::RequestComplete), Some(true));
    assert_eq!(phase(&g).as_deref(), Some("complete"));
}
