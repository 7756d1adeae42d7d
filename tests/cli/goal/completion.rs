//! The completion gate and the final code-review lane: docs/formats/ultragoal.md §6 behaviours 37–44,
//! 47 and 48 (the last two as what holds for the G1 review lane git-ucg implements).

use super::support::*;
use crate::common::*;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::process::{Output, Stdio};

/// The reference's generic `request-complete` refusal line.
const COMPLETE_REFUSED: &str = "request-complete: refused — requires objective_verdict=APPROVE, \
completion evidence present, and (when codex_goal_objective is recorded) a --codex-goal-json \
snapshot whose objective matches it with status=complete";

/// The stderr of a refused `request-complete`: the reference's one line (which gate failed is
/// for `goal show` to say).
fn complete_refused() -> String {
    format!("{COMPLETE_REFUSED}\n")
}

/// The stderr of a `request-complete` whose `--codex-goal-json` did not parse.
fn snapshot_unparseable(arg: &str) -> String {
    format!(
        "request-complete: refused — --codex-goal-json could not be parsed as JSON or read as a file \
path: \"{arg}\"\n"
    )
}

/// The stderr of a refused `dismiss-review-finding`: the reference's one line, whatever the
/// reason (`_why`, kept to say which condition each case exercises).
fn dismiss_refused(class: &str, location: &str, _why: &str) -> String {
    format!(
        "dismiss-review-finding: refused — requires an active pursuing goal, a non-empty --ref and \
--rationale, and a blocking (BLOCK-outcome) {class} finding at \"{location}\" in the current \
code-review artifact\n"
    )
}

/// One line of a claim or renewal answer.
fn answer(allowed: bool, reason: &str, used: i64, cap: i64) -> String {
    format!("{{\"allowed\":{allowed},\"reason\":\"{reason}\",\"used\":{used},\"cap\":{cap}}}\n")
}

/// Runs a claim or a renewal and insists on its answer: the JSON line on stdout, nothing on
/// stderr, exit 0 exactly when allowed.
fn expect_answer(g: &Goal, command: &str, allowed: bool, reason: &str, used: i64, cap: i64) {
    let out = g.run(&[command]);
    assert_eq!(
        (out.status.code(), stdout(&out), stderr(&out)),
        (
            Some(if allowed { 0 } else { 1 }),
            answer(allowed, reason, used, cap),
            String::new()
        ),
        "goal {command}"
    );
}

/// As `expect_answer`, and the state file is byte-identical afterwards.
fn expect_answer_unchanged(g: &Goal, command: &str, reason: &str, used: i64, cap: i64) {
    let before = g.state_bytes();
    expect_answer(g, command, false, reason, used, cap);
    assert_eq!(
        g.state_bytes(),
        before,
        "goal {command} changed the state file"
    );
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn code_review_bytes(g: &Goal) -> Vec<u8> {
    std::fs::read(g.codereview_path()).expect("a code-review artifact")
}

fn verdict_path(g: &Goal) -> std::path::PathBuf {
    g.omt.join(format!("ultragoal-verdict-{}.json", g.sid))
}

/// A verdict artifact with the given objective verdict and (id, verdict) entries.
fn verdicts(objective: &str, entries: &[(&str, &str)]) -> Value {
    let stories: Vec<Value> = entries
        .iter()
        .map(|(id, verdict)| json!({"id": id, "verdict": verdict, "evidence_refs": []}))
        .collect();
    json!({"objective_verdict": objective, "stories": stories,
        "verifier": "orchestrator objective self-check", "at": "2026-08-20T11:00:00+09:00"})
}

/// `request-complete` succeeds silently and leaves the state complete and inactive.
fn completes(g: &Goal, args: &[&str]) {
    let mut full = vec!["request-complete"];
    full.extend_from_slice(args);
    let out = g.run(&full);
    assert_eq!(
        (out.status.code(), stdout(&out), stderr(&out)),
        (Some(0), String::new(), String::new()),
        "goal {full:?}"
    );
    let state = g.state();
    assert_eq!(
        (&state["phase"], &state["active"]),
        (&json!("complete"), &json!(false))
    );
}

/// `request-complete` is refused with the reference's one line, the state untouched and still
/// in pursuit; `goal show` names `why` as the first failed gate (without a snapshot to judge).
fn refused_because(g: &Goal, args: &[&str], why: &str) {
    let mut full = vec!["request-complete"];
    full.extend_from_slice(args);
    assert_eq!(
        g.refused_unchanged(&full),
        complete_refused(),
        "goal {full:?}"
    );
    assert_eq!(g.state()["phase"], "pursuing");
    if args.is_empty() {
        let shown: Value = serde_json::from_str(&stdout(&g.ok(&["show", "--json"]))).unwrap();
        assert_eq!(shown["completion"]["first_failed_gate"], why, "goal show");
    }
}

/// Two stories: S1 flag parsed, S2 version printed.
const TWO_STORIES: &str = r#"[{"id":"S1","story":"flag parsed","acceptance_criteria":["--version accepted"],"verification_surface":"unit test"},{"id":"S2","story":"version printed","acceptance_criteria":["prints semver"],"verification_surface":"integration test"}]"#;

/// Planning with an outcome and the two stories, both still unconfirmed.
fn two_stories_planned(g: &Goal) {
    g.ok(&[
        "set",
        "--phase",
        "planning",
        "--outcome",
        "CLI prints version",
        "--verification-surface",
        "cargo test version_flag",
    ]);
    g.ok(&["set-stories", "--json", TWO_STORIES]);
}

/// Both stories confirmed, in pursuit with evidence, APPROVE recorded and a clean code review:
/// only the verdict artifact is left to write.
fn two_stories_pursuing(g: &Goal) {
    two_stories_planned(g);
    g.ok(&["confirm-all-stories"]);
    g.ok(&[
        "set",
        "--phase",
        "pursuing",
        "--completion-evidence",
        "e/1.log",
    ]);
    g.ok(&["set-verdict", "--verdict", "APPROVE"]);
    g.write_code_review(&review(&[]));
}

/// A state every gate passes but the code review's, which `findings` decide.
fn reviewed(findings: &[Value]) -> Goal {
    let g = Goal::new();
    g.completable();
    g.write_code_review(&review(findings));
    g
}

/// §6.37: the story-layer verdict gate refuses, with no state change: no verdict artifact, one
/// story REQUEST_CHANGES, an unconfirmed story, a story without an entry, an entry for an
/// unknown story, duplicate ids (either order), and an artifact whose objective verdict is
/// REQUEST_CHANGES or COMMENT even when everything else is APPROVE.
#[test]
fn request_complete_refuses_until_every_story_is_approved() {
    let absent = "the verdict artifact is absent or invalid";
    let not_approved = "the verdict artifact's objective_verdict is not APPROVE";
    let cases: [(&str, Option<Value>, &str); 8] = [
        ("no artifact", None, absent),
        (
            "S2 REQUEST_CHANGES",
            Some(verdicts(
                "APPROVE",
                &[("S1", "APPROVE"), ("S2", "REQUEST_CHANGES")],
            )),
            "story S2 is REQUEST_CHANGES",
        ),
        (
            "S2 without an entry",
            Some(verdicts("APPROVE", &[("S1", "APPROVE")])),
            "story S2 has no verdict",
        ),
        (
            "an unknown story",
            Some(verdicts(
                "APPROVE",
                &[("S1", "APPROVE"), ("S2", "APPROVE"), ("S9", "APPROVE")],
            )),
            "the verdict artifact names unknown story S9",
        ),
        (
            "duplicate ids, approval first",
            Some(verdicts(
                "APPROVE",
                &[
                    ("S1", "APPROVE"),
                    ("S2", "APPROVE"),
                    ("S2", "REQUEST_CHANGES"),
                ],
            )),
            absent,
        ),
        (
            "duplicate ids, approval last",
            Some(verdicts(
                "APPROVE",
                &[
                    ("S1", "APPROVE"),
                    ("S2", "REQUEST_CHANGES"),
                    ("S2", "APPROVE"),
                ],
            )),
            absent,
        ),
        (
            "objective REQUEST_CHANGES",
            Some(verdicts(
                "REQUEST_CHANGES",
                &[("S1", "APPROVE"), ("S2", "APPROVE")],
            )),
            not_approved,
        ),
        (
            "objective COMMENT",
            Some(verdicts("COMMENT", &[("S1", "APPROVE"), ("S2", "APPROVE")])),
            not_approved,
        ),
    ];
    for (case, artifact, why) in cases {
        let g = Goal::new();
        two_stories_pursuing(&g);
        if let Some(artifact) = &artifact {
            g.write_verdicts(artifact);
        }
        let _ = case;
        refused_because(&g, &[], why);
    }

    // An unconfirmed story (added during pursuit) blocks even with an APPROVE entry.
    let g = Goal::new();
    g.pursuing();
    g.ok(&["set-verdict", "--verdict", "APPROVE"]);
    g.write_code_review(&review(&[]));
    g.ok(&[
        "add-story",
        "--json",
        r#"{"id":"S2","story":"help text","acceptance_criteria":["--help lists --version"],"verification_surface":"unit test"}"#,
        "--evidence",
        "the help test fails",
        "--rationale",
        "the flag must be discoverable",
    ]);
    g.write_verdicts(&verdicts(
        "APPROVE",
        &[("S1", "APPROVE"), ("S2", "APPROVE")],
    ));
    refused_because(&g, &[], "story S2 is not confirmed");

    // Every story retired: nothing is left to complete.
    let g = Goal::new();
    g.ok(&[
        "set",
        "--phase",
        "planning",
        "--outcome",
        "CLI prints version",
    ]);
    g.ok(&[
        "set-stories",
        "--json",
        r#"[{"id":"S1","story":"flag parsed","acceptance_criteria":["x"],"verification_surface":"unit test"}]"#,
    ]);
    g.ok(&[
        "retire-story",
        "S1",
        "--evidence",
        "already shipped",
        "--rationale",
        "nothing to do",
    ]);
    g.ok(&[
        "set",
        "--phase",
        "pursuing",
        "--completion-evidence",
        "e/1.log",
    ]);
    g.ok(&["set-verdict", "--verdict", "APPROVE"]);
    g.write_verdicts(&approving(&["S1"]));
    g.write_code_review(&review(&[]));
    refused_because(&g, &[], "no story that is not retired");
}

/// §6.37: (the other side) with both stories approved the gate opens; a retired story's id is
/// still known and its entry, whatever it says, is ignored.
#[test]
fn request_complete_ignores_retired_stories_entries() {
    let g = Goal::new();
    two_stories_planned(&g);
    g.ok(&["confirm-story", "S1"]);
    g.ok(&[
        "retire-story",
        "S2",
        "--evidence",
        "S1 prints it already",
        "--rationale",
        "duplicate of S1",
    ]);
    g.ok(&[
        "set",
        "--phase",
        "pursuing",
        "--completion-evidence",
        "e/1.log",
    ]);
    g.ok(&["set-verdict", "--verdict", "APPROVE"]);
    g.write_code_review(&review(&[]));
    g.write_verdicts(&verdicts(
        "APPROVE",
        &[("S1", "APPROVE"), ("S2", "REQUEST_CHANGES")],
    ));
    completes(&g, &[]);
    let state = g.state();
    assert_eq!(state["stories"][1]["status"], "retired");
    assert_eq!(state["completion_evidence_paths"], json!(["e/1.log"]));
    assert_eq!(state["objective_verdict"], "APPROVE");
}

/// §6.38: the G1 diagonal decides — CONFIRMED × {HIGH, MEDIUM} and PLAUSIBLE × HIGH block,
/// CONFIRMED × LOW (FIX) and PLAUSIBLE × {MEDIUM, LOW} (NOTE) do not; class plays no part.
#[test]
fn the_code_review_blocks_on_the_verdict_impact_diagonal() {
    let cells = [
        ("CONFIRMED", "HIGH", true),
        ("CONFIRMED", "MEDIUM", true),
        ("CONFIRMED", "LOW", false),
        ("PLAUSIBLE", "HIGH", true),
        ("PLAUSIBLE", "MEDIUM", false),
        ("PLAUSIBLE", "LOW", false),
    ];
    for (verdict, impact, blocks) in cells {
        for class in ["correctness", "cleanup"] {
            let g = reviewed(&[finding(class, verdict, impact, "src/a.rs:10")]);
            if blocks {
                refused_because(
                    &g,
                    &[],
                    &format!(
                        "the code review has blocking findings: {class} {verdict} {impact} at \
src/a.rs:10"
                    ),
                );
            } else {
                completes(&g, &[]);
            }
        }
    }
    // Every open block is named; a finding without a ref is named without a place.
    let g = reviewed(&[
        finding("regression", "CONFIRMED", "HIGH", "src/api.rs:88"),
        finding("cleanup", "CONFIRMED", "LOW", "src/log.rs:8"),
        json!({"class": "requirement-gap", "verdict": "PLAUSIBLE", "impact": "HIGH"}),
    ]);
    refused_because(
        &g,
        &[],
        "the code review has blocking findings: regression CONFIRMED HIGH at src/api.rs:88; \
requirement-gap PLAUSIBLE HIGH",
    );
}

/// §6.38: a clean review completes: no findings, a FIX-only review, a NOTE-only review, and a
/// review naming its findings report.
#[test]
fn a_review_without_blocking_findings_completes() {
    completes(&reviewed(&[]), &[]);
    completes(
        &reviewed(&[finding("cleanup", "CONFIRMED", "LOW", "src/log.rs:8")]),
        &[],
    );
    completes(
        &reviewed(&[
            finding("regression", "PLAUSIBLE", "MEDIUM", "src/b.rs:7"),
            finding("cleanup", "PLAUSIBLE", "LOW", "src/c.rs:9"),
        ]),
        &[],
    );
    let g = Goal::new();
    g.completable();
    g.write_code_review(
        &json!({"status": "COMPLETE", "findings_report": "/r/findings.md",
        "findings": [], "reviewer": "code-reviewer", "at": "2026-08-20T12:00:00Z"}),
    );
    completes(&g, &[]);
}

/// §6.38: an absent or invalid review blocks (never read as clean): absent, corrupt, an unknown
/// verdict, class or impact, a missing impact, an empty reviewer, a missing status, a
/// non-string findings report; an INCONCLUSIVE review blocks too.
#[test]
fn an_absent_invalid_or_inconclusive_review_blocks() {
    let invalid = "the code-review artifact is absent or invalid";
    let g = Goal::new();
    g.completable();
    std::fs::remove_file(g.codereview_path()).unwrap();
    refused_because(&g, &[], invalid);
    let good = finding("correctness", "PLAUSIBLE", "LOW", "src/a.rs:1");
    let with = |key: &str, value: Value| {
        let mut finding = good.clone();
        finding[key] = value;
        review(&[finding])
    };
    let mut without_impact = good.clone();
    without_impact.as_object_mut().unwrap().remove("impact");
    let mut without_status = review(&[]);
    without_status.as_object_mut().unwrap().remove("status");
    let mut anonymous = review(&[]);
    anonymous["reviewer"] = json!("");
    let mut report = review(&[]);
    report["findings_report"] = json!(7);
    let mut unknown_status = review(&[]);
    unknown_status["status"] = json!("DONE");
    let bad: [(&str, Option<Value>); 9] = [
        ("corrupt", None),
        ("unknown verdict", Some(with("verdict", json!("REFUTED")))),
        ("unknown class", Some(with("class", json!("style")))),
        ("unknown impact", Some(with("impact", json!("CRITICAL")))),
        ("missing impact", Some(review(&[without_impact]))),
        ("empty reviewer", Some(anonymous)),
        ("missing status", Some(without_status)),
        ("unknown status", Some(unknown_status)),
        ("non-string findings report", Some(report)),
    ];
    for (case, artifact) in bad {
        let g = Goal::new();
        g.completable();
        match artifact {
            Some(artifact) => g.write_code_review(&artifact),
            None => std::fs::write(g.codereview_path(), "{\"status\": \"COMPLETE\", ").unwrap(),
        }
        let _ = case;
        refused_because(&g, &[], invalid);
    }
    let g = Goal::new();
    g.completable();
    let mut inconclusive = review(&[]);
    inconclusive["status"] = json!("INCONCLUSIVE");
    g.write_code_review(&inconclusive);
    refused_because(&g, &[], "the code review is INCONCLUSIVE");
}

/// §6.38: re-planning deletes both artifacts, so an old review never completes a new plan.
#[test]
fn replanning_deletes_the_review_artifacts() {
    let g = Goal::new();
    g.completable();
    assert!(g.codereview_path().exists() && verdict_path(&g).exists());
    g.ok(&["set", "--phase", "planning"]);
    assert!(!g.codereview_path().exists(), "the code review survived");
    assert!(!verdict_path(&g).exists(), "the verdict artifact survived");
    // Back in pursuit with the same evidence and verdict, the missing artifacts block.
    g.ok(&[
        "set",
        "--phase",
        "pursuing",
        "--completion-evidence",
        "e/1.log",
    ]);
    g.ok(&["set-verdict", "--verdict", "APPROVE"]);
    refused_because(&g, &[], "the verdict artifact is absent or invalid");
}

/// §6.39: the user dismisses one wrong blocking finding, pinned to the artifact's bytes with a
/// trimmed rationale; completion then passes. Dismissing it again is an idempotent no-op.
#[test]
fn a_dismissed_blocking_finding_no_longer_blocks() {
    let g = reviewed(&[
        finding("correctness", "CONFIRMED", "HIGH", "src/a.rs:10"),
        finding("cleanup", "CONFIRMED", "LOW", "src/log.rs:8"),
    ]);
    refused_because(
        &g,
        &[],
        "the code review has blocking findings: correctness CONFIRMED HIGH at src/a.rs:10",
    );
    let dismiss = [
        "dismiss-review-finding",
        "--ref",
        "src/a.rs:10",
        "--class",
        "correctness",
        "--rationale",
        "  line 10 is unreachable since the guard above  ",
    ];
    let out = g.ok(&dismiss);
    assert_eq!(
        (stdout(&out), stderr(&out)),
        (
            "dismissed correctness finding at src/a.rs:10\n".to_string(),
            String::new()
        )
    );
    let sha = sha256_hex(&code_review_bytes(&g));
    assert_eq!(
        g.state()["dismissed_review_findings"],
        json!([{"artifact_sha256": sha, "ref": "src/a.rs:10", "class": "correctness",
            "rationale": "line 10 is unreachable since the guard above"}])
    );
    // Already recorded: the same answer, nothing written.
    let before = g.state_bytes();
    assert_eq!(
        stdout(&g.ok(&dismiss)),
        "dismissed correctness finding at src/a.rs:10\n"
    );
    assert_eq!(g.state_bytes(), before);
    completes(&g, &[]);
    assert_eq!(
        g.state()["dismissed_review_findings"][0]["artifact_sha256"],
        sha
    );
}

/// §6.39: a dismissal lapses when the artifact's bytes change, and re-planning clears every
/// dismissal.
#[test]
fn dismissals_lapse_with_new_artifact_bytes_and_on_replanning() {
    let g = reviewed(&[finding(
        "regression",
        "CONFIRMED",
        "MEDIUM",
        "src/api.rs:88",
    )]);
    g.ok(&[
        "dismiss-review-finding",
        "--ref",
        "src/api.rs:88",
        "--class",
        "regression",
        "--rationale",
        "the signature is unchanged from the base branch",
    ]);
    // One more byte: a new review, and the old dismissal no longer matches it.
    let mut bytes = code_review_bytes(&g);
    bytes.push(b'\n');
    std::fs::write(g.codereview_path(), &bytes).unwrap();
    refused_because(
        &g,
        &[],
        "the code review has blocking findings: regression CONFIRMED MEDIUM at src/api.rs:88",
    );
    assert_eq!(
        g.state()["dismissed_review_findings"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    g.ok(&["set", "--phase", "planning"]);
    assert_eq!(g.state()["dismissed_review_findings"], json!([]));
}

/// §6.39: dismissals are refused — state byte-identical — without a matching blocking finding,
/// for a FIX finding, with an empty or blank rationale or ref, with two identical ref+class
/// blocking findings, without a valid artifact, outside pursuit, and for an unknown class.
#[test]
fn dismissals_are_refused_unless_exactly_one_blocking_finding_matches() {
    let location = "src/a.rs:10";
    let block = finding("correctness", "CONFIRMED", "HIGH", location);
    let dismiss = |g: &Goal, location: &str, class: &str, rationale: &str| {
        g.refused_unchanged(&[
            "dismiss-review-finding",
            "--ref",
            location,
            "--class",
            class,
            "--rationale",
            rationale,
        ])
    };
    let g = reviewed(&[
        block.clone(),
        finding("cleanup", "CONFIRMED", "LOW", "src/b.rs:2"),
    ]);
    assert_eq!(
        dismiss(&g, "src/a.rs:11", "correctness", "wrong"),
        dismiss_refused(
            "correctness",
            "src/a.rs:11",
            "no such finding in the current review"
        )
    );
    // The same place under another class is another finding.
    assert_eq!(
        dismiss(&g, location, "regression", "wrong"),
        dismiss_refused(
            "regression",
            location,
            "no such finding in the current review"
        )
    );
    assert_eq!(
        dismiss(&g, "src/b.rs:2", "cleanup", "wrong"),
        dismiss_refused(
            "cleanup",
            "src/b.rs:2",
            "that finding does not block completion"
        )
    );
    let blank = "--ref and --rationale need non-blank values";
    for rationale in ["", "   "] {
        assert_eq!(
            dismiss(&g, location, "correctness", rationale),
            dismiss_refused("correctness", location, blank)
        );
    }
    assert_eq!(
        dismiss(&g, " ", "correctness", "wrong"),
        dismiss_refused("correctness", " ", blank)
    );
    // `--rationale` always takes the next token: the `--ref` after it is its value, and no ref
    // is left.
    assert_eq!(
        g.refused_unchanged(&[
            "dismiss-review-finding",
            "--class",
            "correctness",
            "--rationale",
            "--ref",
            location,
        ]),
        dismiss_refused("correctness", "", blank)
    );
    assert_eq!(
        dismiss(&g, location, "style", "wrong"),
        "dismiss-review-finding: --class must be one of correctness, regression, cleanup, \
requirement-gap\n"
    );
    assert_eq!(g.state()["dismissed_review_findings"], json!([]));

    // Two indistinguishable blocking findings: dismissing one would clear its twin.
    let g = reviewed(&[block.clone(), block.clone()]);
    assert_eq!(
        dismiss(&g, location, "correctness", "wrong"),
        dismiss_refused(
            "correctness",
            location,
            "more than one blocking finding matches; a dismissal names exactly one"
        )
    );

    // No valid artifact.
    let g = reviewed(std::slice::from_ref(&block));
    std::fs::write(g.codereview_path(), "{").unwrap();
    assert_eq!(
        dismiss(&g, location, "correctness", "wrong"),
        dismiss_refused(
            "correctness",
            location,
            "the code-review artifact is absent or invalid"
        )
    );

    // Outside an active pursuit (terminal, or planning) nothing is recorded.
    let g = reviewed(std::slice::from_ref(&block));
    g.ok(&["set-budget-limited"]);
    assert_eq!(
        dismiss(&g, location, "correctness", "wrong"),
        dismiss_refused(
            "correctness",
            location,
            "the pursuit is not active in phase pursuing"
        )
    );
    let g = Goal::new();
    g.planned();
    g.write_code_review(&review(&[block]));
    assert_eq!(
        dismiss(&g, location, "correctness", "wrong"),
        dismiss_refused(
            "correctness",
            location,
            "the pursuit is not active in phase pursuing"
        )
    );
}

/// §6.39: (with §2.10) the match is exactly one finding with that ref and class *whose outcome is
/// BLOCK*; a non-blocking finding at the same place does not make the dismissal ambiguous.
#[test]
fn a_fix_finding_beside_the_blocking_one_does_not_make_the_dismissal_ambiguous() {
    let g = reviewed(&[
        finding("correctness", "CONFIRMED", "HIGH", "src/a.rs:10"),
        finding("correctness", "CONFIRMED", "LOW", "src/a.rs:10"),
    ]);
    let out = g.run(&[
        "dismiss-review-finding",
        "--ref",
        "src/a.rs:10",
        "--class",
        "correctness",
        "--rationale",
        "the guard above makes it unreachable",
    ]);
    assert_eq!(
        (out.status.code(), stdout(&out), stderr(&out)),
        (
            Some(0),
            "dismissed correctness finding at src/a.rs:10\n".to_string(),
            String::new()
        )
    );
    completes(&g, &[]);
}

/// §6.39: a valueless `--rationale` (or `--ref`) is refused, as the spec says and the reference's
/// "valueless flag `true` rejection" hardening intends — not recorded as the text "true".
#[test]
fn a_valueless_rationale_or_ref_is_refused() {
    let g = reviewed(&[finding("correctness", "CONFIRMED", "HIGH", "src/a.rs:10")]);
    for args in [
        &[
            "dismiss-review-finding",
            "--ref",
            "src/a.rs:10",
            "--class",
            "correctness",
            "--rationale",
        ][..],
        &[
            "dismiss-review-finding",
            "--class",
            "correctness",
            "--rationale",
            "r",
            "--ref",
        ],
    ] {
        // The reference would record the text "true" as the ref or the rationale.
        let message = g.refused_unchanged(args);
        assert!(
            message.starts_with("dismiss-review-finding: --")
                && message.ends_with(
                    " requires a value (the ultragoal state CLI would take it as the text \"true\")\n"
                ),
            "{message}"
        );
    }
}

/// §6.40: five dispatches are allowed (a malformed artifact does not stop them), each counted
/// and persisted; the sixth is `budget_exhausted`, exit 1, nothing written.
#[test]
fn the_review_budget_allows_five_dispatches() {
    let g = Goal::new();
    g.pursuing();
    std::fs::write(g.codereview_path(), "{\"status\": ").unwrap();
    for used in 1..=5 {
        expect_answer(&g, "claim-review-dispatch", true, "allowed", used, 5);
        assert_eq!(g.state()["review_dispatch_used"], used);
    }
    expect_answer_unchanged(&g, "claim-review-dispatch", "budget_exhausted", 5, 5);
    let state = g.state();
    assert_eq!(
        (
            &state["review_dispatch_used"],
            &state["review_dispatch_cap"]
        ),
        (&json!(5), &json!(5))
    );
}

/// §6.40: a completion-eligible review is not reviewed again (`completion_eligible`, nothing
/// consumed) until the user renews: +5 dispatches, pinned to the artifact's sha256, after which
/// exactly those bytes may be reviewed once more; one more byte makes a new, eligible review.
#[test]
fn an_eligible_review_needs_the_users_renewal_to_be_redone() {
    let g = Goal::new();
    g.completable();
    expect_answer_unchanged(&g, "claim-review-dispatch", "completion_eligible", 0, 5);
    expect_answer(
        &g,
        "approve-review-dispatch-renewal",
        true,
        "allowed",
        0,
        10,
    );
    let state = g.state();
    assert_eq!(state["review_dispatch_cap"], 10);
    assert_eq!(
        state["approved_review_artifact_sha256"],
        sha256_hex(&code_review_bytes(&g))
    );
    expect_answer(&g, "claim-review-dispatch", true, "allowed", 1, 10);
    let mut bytes = code_review_bytes(&g);
    bytes.push(b' ');
    std::fs::write(g.codereview_path(), &bytes).unwrap();
    expect_answer_unchanged(&g, "claim-review-dispatch", "completion_eligible", 1, 10);
    // A FIX-only review is eligible too.
    let g = reviewed(&[finding("cleanup", "CONFIRMED", "LOW", "src/log.rs:8")]);
    expect_answer_unchanged(&g, "claim-review-dispatch", "completion_eligible", 0, 5);
}

/// §6.40: an INCONCLUSIVE review, or one with a blocking finding, consumes a dispatch.
#[test]
fn an_inconclusive_or_blocking_review_consumes_a_dispatch() {
    let g = Goal::new();
    g.completable();
    let mut inconclusive = review(&[]);
    inconclusive["status"] = json!("INCONCLUSIVE");
    g.write_code_review(&inconclusive);
    expect_answer(&g, "claim-review-dispatch", true, "allowed", 1, 5);
    g.write_code_review(&review(&[finding(
        "correctness",
        "PLAUSIBLE",
        "HIGH",
        "src/a.rs:1",
    )]));
    expect_answer(&g, "claim-review-dispatch", true, "allowed", 2, 5);
    assert_eq!(g.state()["review_dispatch_used"], 2);
}

/// §6.40: renewal works without a valid artifact (the only recovery when every dispatch died
/// before writing one): +5 each time, no hash recorded.
#[test]
fn renewal_without_a_valid_artifact_still_grants_five_more() {
    let g = Goal::new();
    g.pursuing();
    for used in 1..=5 {
        expect_answer(&g, "claim-review-dispatch", true, "allowed", used, 5);
    }
    expect_answer(&g, "claim-review-dispatch", false, "budget_exhausted", 5, 5);
    expect_answer(
        &g,
        "approve-review-dispatch-renewal",
        true,
        "allowed",
        5,
        10,
    );
    std::fs::write(g.codereview_path(), "not json").unwrap();
    expect_answer(
        &g,
        "approve-review-dispatch-renewal",
        true,
        "allowed",
        5,
        15,
    );
    let state = g.state();
    assert_eq!(
        (
            &state["review_dispatch_used"],
            &state["review_dispatch_cap"],
            &state["approved_review_artifact_sha256"]
        ),
        (&json!(5), &json!(15), &json!(""))
    );
    expect_answer(&g, "claim-review-dispatch", true, "allowed", 6, 15);
}

/// §6.40: outside an active pursuit (planning, terminal, a corrupt state) claims and renewals
/// are `failure` with used and cap 0, exit 1, and change nothing.
#[test]
fn claims_and_renewals_outside_active_pursuit_fail() {
    let planning = Goal::new();
    planning.planned();
    let limited = Goal::new();
    limited.pursuing();
    limited.ok(&["set-budget-limited"]);
    let complete = Goal::new();
    complete.completable();
    complete.ok(&["request-complete"]);
    let blocked = Goal::new();
    blocked.pursuing();
    blocked.ok(&["set-blocked", "--reason", "toolchain unavailable"]);
    let corrupt = Goal::new();
    corrupt.pursuing();
    let mut state = corrupt.state();
    state["iteration"] = json!(-1);
    corrupt.write_state(&state);
    for g in [&planning, &limited, &complete, &blocked, &corrupt] {
        for command in ["claim-review-dispatch", "approve-review-dispatch-renewal"] {
            expect_answer_unchanged(g, command, "failure", 0, 0);
        }
    }
    // No state at all: the pristine seed is created (as the reference's ensureSeed does), and
    // a pristine plan is not a pursuit.
    let absent = Goal::new();
    expect_answer(&absent, "claim-review-dispatch", false, "failure", 0, 0);
    assert_eq!(absent.state()["phase"], "planning");
    assert_eq!(absent.state()["review_dispatch_used"], Value::Null);
}

/// §6.40: ten concurrent CLI claims against a fresh budget: exactly five are allowed, and the
/// state says five were used.
#[test]
fn ten_concurrent_claims_allow_exactly_five() {
    let g = Goal::new();
    g.pursuing();
    let children: Vec<_> = (0..10)
        .map(|_| {
            g.command_as(&g.sid, &["claim-review-dispatch"])
                .env("GIT_UCG_GOAL_LOCK_MS", "5000")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn a claim")
        })
        .collect();
    let outputs: Vec<Output> = children
        .into_iter()
        .map(|child| child.wait_with_output().expect("wait for a claim"))
        .collect();
    let mut allowed_used = Vec::new();
    for out in &outputs {
        let line: Value = serde_json::from_str(&stdout(out)).expect("one JSON line");
        match line["reason"].as_str() {
            Some("allowed") => {
                assert_eq!(out.status.code(), Some(0));
                allowed_used.push(line["used"].as_i64().unwrap());
            }
            Some("budget_exhausted") => {
                assert_eq!(out.status.code(), Some(1));
                assert_eq!(stdout(out), answer(false, "budget_exhausted", 5, 5));
            }
            other => panic!("unexpected claim answer {other:?}: {}", stderr(out)),
        }
    }
    allowed_used.sort_unstable();
    assert_eq!(allowed_used, [1, 2, 3, 4, 5]);
    assert_eq!(g.state()["review_dispatch_used"], 5);
}

/// A completable pursuit with the Codex goal `objective` armed.
fn armed(objective: &str) -> Goal {
    let g = Goal::new();
    g.completable();
    g.ok(&[
        "set",
        "--phase",
        "pursuing",
        "--codex-goal-objective",
        objective,
    ]);
    assert_eq!(g.state()["codex_goal_objective"], objective);
    g
}

/// `request-complete` with `input` on standard input.
fn request_complete_with_stdin(g: &Goal, input: &[u8]) -> Output {
    output_with_stdin(
        &mut g.command_as(&g.sid, &["request-complete", "--codex-goal-json", "-"]),
        input,
    )
}

/// §6.41: `set --phase pursuing --codex-goal-objective X` arms Gate 9 and a later one
/// overwrites it; a bare `set --phase pursuing` keeps it; `set --phase planning` clears it.
#[test]
fn the_codex_goal_objective_is_armed_kept_and_cleared() {
    let g = armed("Ship the version flag");
    g.ok(&[
        "set",
        "--phase",
        "pursuing",
        "--codex-goal-objective",
        "--version prints the crate version",
    ]);
    // A free-text flag: the value may begin with dashes.
    assert_eq!(
        g.state()["codex_goal_objective"],
        "--version prints the crate version"
    );
    g.ok(&["set", "--phase", "pursuing"]);
    assert_eq!(
        g.state()["codex_goal_objective"],
        "--version prints the crate version"
    );
    g.ok(&["set", "--phase", "planning"]);
    assert_eq!(g.state()["codex_goal_objective"], "");
    // Disarmed: every other gate holding again, completion needs no snapshot.
    g.ok(&[
        "set",
        "--phase",
        "pursuing",
        "--completion-evidence",
        "e/1.log",
    ]);
    g.ok(&["set-verdict", "--verdict", "APPROVE"]);
    g.write_verdicts(&approving(&["S1"]));
    g.write_code_review(&review(&[]));
    completes(&g, &[]);
}

/// §6.41: armed, completion is refused without a snapshot, with another objective, or with a
/// status other than `complete` — the state untouched.
#[test]
fn gate_9_refuses_a_missing_or_mismatched_snapshot() {
    let g = armed("Ship the version flag");
    refused_because(
        &g,
        &[],
        "a Codex goal is armed and no --codex-goal-json was given",
    );
    let differs = "the Codex goal snapshot's objective differs from the recorded one";
    let not_complete = "the Codex goal snapshot's status is not complete";
    let cases = [
        (
            json!({"goal": {"objective": "Ship the help flag", "status": "complete"}}),
            differs,
        ),
        (json!({"goal": {"status": "complete"}}), differs),
        (
            json!({"goal": {"objective": 7, "status": "complete"}}),
            differs,
        ),
        (
            json!({"goal": {"objective": "Ship the version flag", "status": "active"}}),
            not_complete,
        ),
        (
            json!({"goal": {"objective": "Ship the version flag"}}),
            not_complete,
        ),
        (
            json!({"goal": {"objective": "Ship the version flag", "status": "Complete"}}),
            not_complete,
        ),
    ];
    for (snapshot, why) in cases {
        refused_because(&g, &["--codex-goal-json", &snapshot.to_string()], why);
    }
    // The snapshot is only consulted once every earlier gate holds.
    g.ok(&["set-verdict", "--verdict", "COMMENT"]);
    refused_because(
        &g,
        &[
            "--codex-goal-json",
            r#"{"goal":{"objective":"Ship the version flag","status":"complete"}}"#,
        ],
        "objective_verdict is not APPROVE",
    );
}

/// §6.41: whitespace differences pass, and the objective falls back through `goal.objective`,
/// `goal.goal`, `goal.description` and the root `objective` (the status through `goal.status`
/// and the root `status`).
#[test]
fn gate_9_accepts_a_matching_snapshot_in_every_documented_shape() {
    let snapshots = [
        json!({"goal": {"objective": "  Ship the\nversion   flag ", "status": "complete"}}),
        json!({"goal": {"goal": "Ship the version flag", "status": "complete"}}),
        json!({"goal": {"description": "Ship the version flag"}, "status": "complete"}),
        json!({"objective": "Ship the version flag", "status": "complete"}),
        json!({"goal": "not an object", "objective": "Ship the version flag",
            "status": "complete"}),
        json!({"goal": {"objective": "Ship the version flag", "goal": "something else",
            "status": "complete"}}),
    ];
    for snapshot in snapshots {
        let g = armed("Ship  the\tversion flag");
        completes(&g, &["--codex-goal-json", &snapshot.to_string()]);
    }
}

/// §6.41: the snapshot may be a file path, or `-` for standard input (one trailing newline
/// stripped).
#[test]
fn gate_9_reads_the_snapshot_from_a_file_or_standard_input() {
    let g = armed("Ship the version flag");
    let file = g.env.path().join("snapshot.json");
    write(
        &file,
        r#"{"goal": {"objective": "Ship the version flag", "status": "complete"}}"#,
    );
    completes(&g, &["--codex-goal-json", file.to_str().unwrap()]);

    let g = armed("Ship the version flag");
    let out = request_complete_with_stdin(
        &g,
        b"{\"goal\": {\"objective\": \"Ship the version flag\", \"status\": \"complete\"}}\n",
    );
    assert_eq!(
        (out.status.code(), stdout(&out), stderr(&out)),
        (Some(0), String::new(), String::new())
    );
    assert_eq!(g.state()["phase"], "complete");
}

/// §6.41: a snapshot that is neither JSON nor a readable file holding a JSON object is refused
/// with the parse-failure line quoting the argument.
#[test]
fn gate_9_refuses_an_unparseable_snapshot_naming_it() {
    let g = armed("Ship the version flag");
    let missing = g.env.path().join("no-such-snapshot.json");
    let not_object = g.env.path().join("array.json");
    write(&not_object, "[1, 2]");
    for arg in [
        "not json at all",
        missing.to_str().unwrap(),
        not_object.to_str().unwrap(),
        "[\"complete\"]",
    ] {
        assert_eq!(
            g.refused_unchanged(&["request-complete", "--codex-goal-json", arg]),
            snapshot_unparseable(arg),
            "{arg}"
        );
    }
    assert_eq!(g.state()["phase"], "pursuing");
}

/// §6.41: (digest §7) the parse-failure line quotes the argument after standard-input
/// resolution — the text read, not `-`.
#[test]
fn gate_9_quotes_unparseable_standard_input_as_read() {
    let g = armed("Ship the version flag");
    let before = g.state_bytes();
    let out = request_complete_with_stdin(&g, b"garbage from a heredoc\n");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), snapshot_unparseable("garbage from a heredoc"));
    assert_eq!(g.state_bytes(), before);
}

/// §6.41: an objective that resolves to nothing (an empty heredoc on standard input, or blank
/// text) is refused rather than disarming the gate; the prior arming is kept.
#[test]
fn an_empty_codex_goal_objective_is_refused_and_keeps_the_arming() {
    const EMPTY: &str =
        "set: --codex-goal-objective was supplied but resolved to an empty value — \
refusing rather than disarming the completion cross-check (a quoted heredoc whose payload contains \
a line equal to its delimiter produces exactly this)\n";
    let g = armed("Ship the version flag");
    let before = g.state_bytes();
    for input in [&b"\n"[..], b"", b"  \t \n"] {
        let out = output_with_stdin(
            &mut g.command_as(
                &g.sid,
                &["set", "--phase", "pursuing", "--codex-goal-objective", "-"],
            ),
            input,
        );
        assert_eq!(
            (out.status.code(), stderr(&out)),
            (Some(1), EMPTY.to_string())
        );
        assert_eq!(g.state_bytes(), before);
    }
    for blank in ["", "   "] {
        assert_eq!(
            g.refused_unchanged(&[
                "set",
                "--phase",
                "pursuing",
                "--codex-goal-objective",
                blank
            ]),
            EMPTY
        );
    }
    assert_eq!(g.state()["codex_goal_objective"], "Ship the version flag");
}

/// §6.41: an objective with apostrophes and quotes arrives intact through standard input (one
/// trailing newline stripped) and is matched by a snapshot through standard input too.
#[test]
fn an_objective_with_apostrophes_survives_standard_input() {
    let objective = "Ship Bob's \"--version\" flag, don't break 'help'";
    let g = Goal::new();
    g.completable();
    let out = output_with_stdin(
        &mut g.command_as(
            &g.sid,
            &["set", "--phase", "pursuing", "--codex-goal-objective", "-"],
        ),
        format!("{objective}\n").as_bytes(),
    );
    assert_eq!((out.status.code(), stderr(&out)), (Some(0), String::new()));
    assert_eq!(g.state()["codex_goal_objective"], objective);
    let snapshot = json!({"goal": {"objective": objective, "status": "complete"}});
    let out = request_complete_with_stdin(&g, format!("{snapshot}\n").as_bytes());
    assert_eq!((out.status.code(), stderr(&out)), (Some(0), String::new()));
    assert_eq!(g.state()["phase"], "complete");
}

/// §6.42: `set-verdict` in planning first moves the pursuit into pursuing (saying so on
/// stderr), then records the verdict — `absent` included; in pursuit it only records.
#[test]
fn set_verdict_from_planning_auto_advances_to_pursuing() {
    let g = Goal::new();
    g.planned();
    let out = g.ok(&["set-verdict", "--verdict", "APPROVE"]);
    assert_eq!(
        (stdout(&out), stderr(&out)),
        (
            String::new(),
            "set-verdict: phase auto-advanced planning -> pursuing\n".to_string()
        )
    );
    let state = g.state();
    assert_eq!(
        (
            &state["phase"],
            &state["active"],
            &state["objective_verdict"]
        ),
        (&json!("pursuing"), &json!(true), &json!("APPROVE"))
    );
    // Already pursuing: no notice.
    let out = g.ok(&["set-verdict", "--verdict", "REQUEST_CHANGES"]);
    assert_eq!(stderr(&out), "");
    assert_eq!(g.state()["objective_verdict"], "REQUEST_CHANGES");
    // A missing --verdict is `absent`, and it advances too.
    let g = Goal::new();
    g.planned();
    let out = g.ok(&["set-verdict"]);
    assert_eq!(
        stderr(&out),
        "set-verdict: phase auto-advanced planning -> pursuing\n"
    );
    let state = g.state();
    assert_eq!(
        (&state["phase"], &state["objective_verdict"]),
        (&json!("pursuing"), &json!("absent"))
    );
    // An invalid verdict is refused before anything happens.
    let g = Goal::new();
    g.planned();
    assert_eq!(
        g.refused_unchanged(&["set-verdict", "--verdict", "LGTM"]),
        "set-verdict: invalid --verdict \"LGTM\" (one of APPROVE|REQUEST_CHANGES|COMMENT|absent)\n"
    );
    assert_eq!(
        g.refused_unchanged(&["set-verdict", "--verdict"]),
        "set-verdict: invalid --verdict \"true\" (one of APPROVE|REQUEST_CHANGES|COMMENT|absent)\n"
    );
    assert_eq!(g.state()["phase"], "planning");
}

/// §6.42: the auto-advance is subject to the pursuing gate: with unconfirmed stories it is
/// refused and the verdict is not written.
#[test]
fn set_verdict_does_not_advance_past_unconfirmed_stories() {
    let g = Goal::new();
    two_stories_planned(&g);
    assert_eq!(
        g.refused_unchanged(&["set-verdict", "--verdict", "APPROVE"]),
        "ultragoal-state: Error: set: pursuing refused — 2 unconfirmed stories: S1, S2\n"
    );
    g.ok(&["confirm-story", "S1"]);
    assert_eq!(
        g.refused_unchanged(&["set-verdict", "--verdict", "APPROVE"]),
        "ultragoal-state: Error: set: pursuing refused — 1 unconfirmed story: S2\n"
    );
    let state = g.state();
    assert_eq!(
        (&state["phase"], &state["objective_verdict"]),
        (&json!("planning"), &json!("absent"))
    );
}

/// §6.42: in a terminal phase the verdict is written and the phase and `active` are left as
/// they are (never resurrected).
#[test]
fn set_verdict_leaves_terminal_phases_alone() {
    let limited = Goal::new();
    limited.pursuing();
    limited.ok(&["set-budget-limited"]);
    let blocked = Goal::new();
    blocked.pursuing();
    blocked.ok(&["set-blocked", "--reason", "toolchain unavailable"]);
    let complete = Goal::new();
    complete.completable();
    complete.ok(&["request-complete"]);
    for (g, phase) in [
        (&limited, "budget_limited"),
        (&blocked, "blocked"),
        (&complete, "complete"),
    ] {
        let out = g.ok(&["set-verdict", "--verdict", "REQUEST_CHANGES"]);
        assert_eq!(stderr(&out), "", "{phase}");
        let state = g.state();
        assert_eq!(
            (
                &state["phase"],
                &state["active"],
                &state["objective_verdict"]
            ),
            (&json!(phase), &json!(false), &json!("REQUEST_CHANGES")),
            "{phase}"
        );
    }
}

/// §6.43: in pursuit the WHAT is frozen: `--outcome` and `--verification-surface` are refused
/// even with the stored value, and the stored values stay; the other slots may change (G1, as
/// the reference: `set --phase pursuing --constraints c` goes through). `--completion-evidence`
/// alone is accepted.
#[test]
fn the_what_is_frozen_during_pursuit() {
    let g = Goal::new();
    g.ok(&[
        "set",
        "--phase",
        "planning",
        "--outcome",
        "CLI prints version",
        "--verification-surface",
        "cargo test version_flag",
        "--constraints",
        "existing tests stay green",
    ]);
    g.ok(&["set-stories", "--single"]);
    g.ok(&["set", "--phase", "pursuing"]);
    let frozen = |slot: &str| {
        format!(
            "ultragoal-state: Error: set: pursuing refused — {slot} is frozen once pursuit has \
begun. Re-plan first (set --phase planning) to change it.\n"
        )
    };
    let cases: [(&[&str], &str); 3] = [
        (&["--outcome", "CLI prints version"], "outcome"),
        (&["--outcome", "CLI prints help"], "outcome"),
        (
            &["--verification-surface", "cargo test version_flag"],
            "verification_surface",
        ),
    ];
    for (flags, slot) in cases {
        let mut args = vec![
            "set",
            "--phase",
            "pursuing",
            "--completion-evidence",
            "e/1.log",
        ];
        args.extend_from_slice(flags);
        assert_eq!(g.refused_unchanged(&args), frozen(slot), "{flags:?}");
    }
    let state = g.state();
    assert_eq!(state["outcome"], "CLI prints version");
    assert_eq!(state["verification_surface"], "cargo test version_flag");
    assert_eq!(state["completion_evidence_paths"], json!([]));
    // G1 freezes only the WHAT: the other slots may change in pursuit; evidence alone goes
    // through.
    g.ok(&[
        "set",
        "--phase",
        "pursuing",
        "--constraints",
        "no new dependencies",
        "--non-goals",
        "- no changelog | decider: touches CHANGELOG only",
    ]);
    assert_eq!(g.state()["constraints"], "no new dependencies");
    g.ok(&[
        "set",
        "--phase",
        "pursuing",
        "--completion-evidence",
        " e/1.log, ,e/2.log ",
    ]);
    let state = g.state();
    assert_eq!(
        state["completion_evidence_paths"],
        json!(["e/1.log", "e/2.log"])
    );
    assert_eq!(state["outcome"], "CLI prints version");
    assert_eq!(state["phase"], "pursuing");
}

/// §6.44: one line per confirmed story, `[<id>] <story> — AC: <a>; <b> — verify: <surface>`,
/// in stored order; unconfirmed and retired stories are left out.
#[test]
fn serialize_requirements_prints_one_line_per_confirmed_story() {
    let g = Goal::new();
    g.ok(&[
        "set",
        "--phase",
        "planning",
        "--outcome",
        "CLI prints version",
    ]);
    g.ok(&[
        "set-stories",
        "--json",
        r#"[{"id":"S1","story":"flag parsed","acceptance_criteria":["--version accepted","-V accepted"],"verification_surface":"unit test"},
            {"id":"S2","story":"version printed","acceptance_criteria":["prints semver"],"verification_surface":"integration test"},
            {"id":"S3","story":"help lists it","acceptance_criteria":["--help"],"verification_surface":"snapshot"},
            {"id":"S4","story":"man page","acceptance_criteria":["man"],"verification_surface":"manual"}]"#,
    ]);
    g.ok(&["confirm-story", "S2"]);
    g.ok(&["confirm-story", "S1"]);
    g.ok(&[
        "retire-story",
        "S4",
        "--evidence",
        "no man pages here",
        "--rationale",
        "out of scope",
    ]);
    assert_eq!(
        g.stdout(&["serialize-requirements"]),
        "[S1] flag parsed — AC: --version accepted; -V accepted — verify: unit test\n\
[S2] version printed — AC: prints semver — verify: integration test\n"
    );
}

/// §6.44: without a confirmed story the outcome stands in (checked by the verification surface,
/// else by itself); without an outcome, or without an active state, the output is empty.
#[test]
fn serialize_requirements_falls_back_to_the_outcome() {
    let g = Goal::new();
    g.ok(&[
        "set",
        "--phase",
        "planning",
        "--outcome",
        "CLI prints version",
        "--verification-surface",
        "cargo test version_flag",
    ]);
    g.ok(&[
        "set-stories",
        "--json",
        r#"[{"id":"S1","story":"flag parsed","acceptance_criteria":["x"],"verification_surface":"unit test"}]"#,
    ]);
    g.ok(&[
        "retire-story",
        "S1",
        "--evidence",
        "merged into the outcome",
        "--rationale",
        "one story is the outcome",
    ]);
    assert_eq!(
        g.stdout(&["serialize-requirements"]),
        "[outcome] CLI prints version — AC: cargo test version_flag — verify: cargo test \
version_flag\n"
    );
    let g = Goal::new();
    g.ok(&[
        "set",
        "--phase",
        "planning",
        "--outcome",
        "CLI prints version",
    ]);
    assert_eq!(
        g.stdout(&["serialize-requirements"]),
        "[outcome] CLI prints version — AC: CLI prints version — verify: CLI prints version\n"
    );
    let g = Goal::new();
    g.seed();
    assert_eq!(g.stdout(&["serialize-requirements"]), "");
    let g = Goal::new();
    g.completable();
    g.ok(&["request-complete"]);
    assert_eq!(g.stdout(&["serialize-requirements"]), "");
    assert_eq!(Goal::new().stdout(&["serialize-requirements"]), "");
}

/// §6.44: the review context is one line of JSON with exactly five keys; every slot lands in
/// its own key (non-goals are not merged into the project context), blank sources become
/// `(none provided)`.
#[test]
fn serialize_review_context_routes_each_slot_to_its_key() {
    let g = Goal::new();
    g.ok(&[
        "set",
        "--phase",
        "planning",
        "--outcome",
        "SENTINEL-OUTCOME",
        "--verification-surface",
        "SENTINEL-SURFACE",
        "--constraints",
        "SENTINEL-CONSTRAINTS",
        "--boundaries",
        "SENTINEL-BOUNDARIES",
        "--non-goals",
        "- SENTINEL-NON-GOAL | decider: SENTINEL-DECIDER",
        "--resume-summary",
        "SENTINEL-SUMMARY",
        "--plan-path",
        "/plans/SENTINEL.md",
    ]);
    g.ok(&["set-stories", "--single"]);
    let expected = json!({
        "what_was_implemented": "SENTINEL-OUTCOME",
        "description": "SENTINEL-SUMMARY\n\nplan: /plans/SENTINEL.md",
        "requirements": "[S1] SENTINEL-OUTCOME — AC: SENTINEL-SURFACE — verify: SENTINEL-SURFACE\n",
        "project_context": "SENTINEL-CONSTRAINTS\n\nSENTINEL-BOUNDARIES",
        "non_goals": "- SENTINEL-NON-GOAL | decider: SENTINEL-DECIDER",
    });
    assert_eq!(
        g.stdout(&["serialize-review-context"]),
        format!("{expected}\n")
    );

    // Blank everywhere but the outcome; a blank half of a pair is dropped, not joined.
    let g = Goal::new();
    g.ok(&[
        "set",
        "--phase",
        "planning",
        "--outcome",
        "CLI prints version",
        "--non-goals",
        "  \n ",
        "--boundaries",
        "src/cli.rs",
        "--plan-path",
        "/p.md",
    ]);
    let expected = json!({
        "what_was_implemented": "CLI prints version",
        "description": "plan: /p.md",
        "requirements": "[outcome] CLI prints version — AC: CLI prints version — verify: CLI prints version\n",
        "project_context": "src/cli.rs",
        "non_goals": "(none provided)",
    });
    assert_eq!(
        g.stdout(&["serialize-review-context"]),
        format!("{expected}\n")
    );
    let g = Goal::new();
    g.seed();
    let expected = json!({
        "what_was_implemented": "(none provided)",
        "description": "(none provided)",
        "requirements": "(none provided)",
        "project_context": "(none provided)",
        "non_goals": "(none provided)",
    });
    assert_eq!(
        g.stdout(&["serialize-review-context"]),
        format!("{expected}\n")
    );
}

/// §6.44: without an active state there is no review context: exit 1.
#[test]
fn serialize_review_context_needs_an_active_state() {
    let g = Goal::new();
    g.completable();
    g.ok(&["request-complete"]);
    let before = g.state_bytes();
    assert_eq!(
        g.refused(&["serialize-review-context"]),
        "ultragoal-state: Error: serialize-review-context: no active ultragoal state for session \
\"S\"\n"
    );
    assert_eq!(g.state_bytes(), before);
    let g = Goal::new();
    assert_eq!(
        g.refused(&["serialize-review-context"]),
        "ultragoal-state: Error: serialize-review-context: no active ultragoal state for session \
\"S\"\n"
    );
    assert_eq!(g.state_bytes(), None);
}

/// §6.47: (G2 `review_resolution`; what holds for G1) a `review_resolution` another tool wrote
/// is not a G1 field: like the reference, every merge-write drops it; re-planning deletes the
/// code-review artifact.
#[test]
fn replanning_clears_a_review_resolution_and_the_review() {
    let g = Goal::new();
    g.completable();
    let resolution = json!({"artifact_sha256": sha256_hex(&code_review_bytes(&g)),
        "evidence": ["e/fix.log"], "evidence_sha256": {"e/fix.log": "0".repeat(64)},
        "at": "2026-08-20T12:30:00.000Z"});
    let mut state = g.state();
    state["review_resolution"] = resolution.clone();
    g.write_state(&state);
    expect_answer(
        &g,
        "approve-review-dispatch-renewal",
        true,
        "allowed",
        0,
        10,
    );
    assert_eq!(g.state().get("review_resolution"), None);
    let mut state = g.state();
    state["review_resolution"] = resolution.clone();
    g.write_state(&state);
    g.ok(&["set", "--phase", "planning"]);
    let state = g.state();
    assert!(
        state.get("review_resolution").is_none(),
        "review_resolution survived re-planning: {state}"
    );
    assert!(!g.codereview_path().exists());
    assert_eq!(state["objective_verdict"], "absent");
    assert_eq!(state["completion_evidence_paths"], json!([]));
}

/// §6.47: (G2 COMMENT resolutions; what holds for G1) a FIX-only review completes without any
/// resolution evidence — the G1 lane has no COMMENT result to resolve.
#[test]
fn a_fix_only_review_needs_no_resolution_evidence() {
    let g = reviewed(&[
        finding("cleanup", "CONFIRMED", "LOW", "src/log.rs:8"),
        finding("requirement-gap", "CONFIRMED", "LOW", "docs/cli.md:3"),
    ]);
    assert!(g.state().get("review_resolution").is_none());
    completes(&g, &[]);
}

/// §6.47: (G2 `submit-review`; what holds for G1) git-ucg has no `submit-review`; the call is
/// refused, leaves the artifact and the state byte-identical, and creates no state file for the
/// session named in the artifact path.
#[test]
fn submit_review_is_not_a_subcommand_and_changes_nothing() {
    let g = Goal::new();
    g.completable();
    let artifact = code_review_bytes(&g);
    let state = g.state_bytes();
    let child = g.omt.join("ultragoal-codereview-CHILD.json");
    let out = output_with_stdin(
        &mut g.command_as(
            &g.sid,
            &[
                "submit-review",
                "--artifact",
                child.to_str().unwrap(),
                "--json",
                "-",
            ],
        ),
        b"{\"status\": \"COMPLETE\", ",
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    assert!(stderr(&out).starts_with("Usage: "), "{}", stderr(&out));
    assert_eq!(code_review_bytes(&g), artifact);
    assert_eq!(g.state_bytes(), state);
    assert!(!child.exists());
    assert!(!g.state_path_of("CHILD").exists());
}

/// A G3 finding: the G1 keys plus a reviewer `priority` and the five-slot `assessment`.
fn g3_finding(verdict: &str, impact: &str, priority: &str, location: &str) -> Value {
    let mut finding = finding("correctness", verdict, impact, location);
    finding["priority"] = json!(priority);
    finding["assessment"] = json!({"unfixed_cost": "a wrong answer", "exposure": "every call",
        "remedy": "one guard", "added_cost": "none", "rationale": "cheap to fix"});
    finding["scope"] = json!("IN_SCOPE");
    finding
}

/// §6.48: (G3 priority routing; what holds for G1) the G3 keys pass through and `impact`
/// decides — CONFIRMED × LOW with priority HIGH completes, CONFIRMED × HIGH with priority LOW
/// blocks; a missing assessment or priority does not invalidate the artifact.
#[test]
fn a_g3_priority_does_not_route_a_g1_finding() {
    completes(
        &reviewed(&[g3_finding("CONFIRMED", "LOW", "HIGH", "src/a.rs:10")]),
        &[],
    );
    refused_because(
        &reviewed(&[g3_finding("CONFIRMED", "HIGH", "LOW", "src/a.rs:10")]),
        &[],
        "the code review has blocking findings: correctness CONFIRMED HIGH at src/a.rs:10",
    );
    let mut partial = g3_finding("CONFIRMED", "LOW", "MEDIUM", "src/a.rs:10");
    partial.as_object_mut().unwrap().remove("assessment");
    completes(&reviewed(&[partial]), &[]);
    let mut blank = g3_finding("PLAUSIBLE", "MEDIUM", "", "src/a.rs:10");
    blank["assessment"]["remedy"] = json!("");
    completes(&reviewed(&[blank]), &[]);
}

/// §6.48: (G3 dispatch and dismissal rules; what holds for G1) a review with priority HIGH but
/// no blocking impact is completion-eligible, not dispatched again; a PLAUSIBLE × HIGH finding
/// blocks and — unlike G3 — may be dismissed by the user.
#[test]
fn g1_dispatch_and_dismissal_follow_impact_not_priority() {
    let g = reviewed(&[g3_finding("CONFIRMED", "LOW", "HIGH", "src/a.rs:10")]);
    expect_answer_unchanged(&g, "claim-review-dispatch", "completion_eligible", 0, 5);
    let g = reviewed(&[g3_finding("CONFIRMED", "MEDIUM", "LOW", "src/a.rs:10")]);
    expect_answer(&g, "claim-review-dispatch", true, "allowed", 1, 5);

    let g = reviewed(&[g3_finding("PLAUSIBLE", "HIGH", "LOW", "src/pay.rs:42")]);
    refused_because(
        &g,
        &[],
        "the code review has blocking findings: correctness PLAUSIBLE HIGH at src/pay.rs:42",
    );
    let out = g.ok(&[
        "dismiss-review-finding",
        "--ref",
        "src/pay.rs:42",
        "--class",
        "correctness",
        "--rationale",
        "the amount is validated upstream",
    ]);
    assert_eq!(
        stdout(&out),
        "dismissed correctness finding at src/pay.rs:42\n"
    );
    completes(&g, &[]);
}
