//! The phase machine and the state file: docs/formats/ultragoal.md §6 behaviours 1–24.

use super::support::*;
use crate::common::*;
use serde_json::json;

/// §6.1: entry seeds planning with max_iterations 10; `--max-iterations 25` on a fresh sid → 25.
#[test]
fn entry_seeds_planning_with_a_concrete_max_iterations() {
    let g = Goal::new();
    g.ok(&["set", "--phase", "planning"]);
    let state = g.state();
    assert_eq!(
        (state["phase"].clone(), state["max_iterations"].clone()),
        (json!("planning"), json!(10))
    );
    let out = g.run_as(
        "FRESH",
        &["set", "--phase", "planning", "--max-iterations", "25"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(g.state_of("FRESH")["max_iterations"], 25);
    // Success prints nothing, as the reference.
    assert_eq!((stdout(&out), stderr(&out)), (String::new(), String::new()));
}

/// §6.2: `set --phase complete` is refused; the phase is unchanged.
#[test]
fn complete_is_reached_only_through_request_complete() {
    let g = Goal::new();
    g.seed();
    let message = g.refused_unchanged(&["set", "--phase", "complete"]);
    assert_eq!(
        message,
        "ultragoal-state: Error: set: phase must be one of planning|pursuing (got \"complete\"). \
complete is request-complete-only; budget_limited/blocked are system-only.\n"
    );
    assert_eq!(g.state()["phase"], "planning");
    // Missing --phase is the empty phase, refused the same way.
    assert!(g.refused_unchanged(&["set"]).contains("(got \"\")"));
}

/// §6.3: `set` never writes the verdict.
#[test]
fn set_never_writes_the_verdict() {
    let g = Goal::new();
    g.planned();
    g.ok(&["set-verdict", "--verdict", "REQUEST_CHANGES"]);
    g.ok(&["set", "--phase", "pursuing"]);
    assert_eq!(g.state()["objective_verdict"], "REQUEST_CHANGES");
}

/// §6.4: planning resets the objective verdict to absent.
#[test]
fn planning_resets_the_verdict() {
    let g = Goal::new();
    g.pursuing();
    g.ok(&["set-verdict", "--verdict", "APPROVE"]);
    g.ok(&["set", "--phase", "planning"]);
    assert_eq!(g.state()["objective_verdict"], "absent");
}

/// §6.5: the terminal phases write active false; plain pursuing stays active.
#[test]
fn terminal_phases_are_inactive() {
    let g = Goal::new();
    g.pursuing();
    assert_eq!(g.state()["active"], true);
    g.ok(&["set-budget-limited"]);
    let state = g.state();
    assert_eq!(
        (
            &state["phase"],
            &state["active"],
            &state["budget_limit_notified"]
        ),
        (&json!("budget_limited"), &json!(false), &json!(true))
    );
    g.ok(&["set-blocked", "--reason", "tool\tchain\ngone"]);
    let state = g.state();
    assert_eq!(
        (&state["phase"], &state["active"], &state["blocked_reason"]),
        (&json!("blocked"), &json!(false), &json!("tool chain gone"))
    );
    let g = Goal::new();
    g.completable();
    g.ok(&["request-complete"]);
    assert_eq!(
        (g.state()["phase"].clone(), g.state()["active"].clone()),
        (json!("complete"), json!(false))
    );
}

/// §6.6: evidence present, verdict absent → refused, phase unchanged.
#[test]
fn request_complete_needs_the_approve_verdict() {
    let g = Goal::new();
    g.pursuing();
    g.write_verdicts(&approving(&["S1"]));
    g.write_code_review(&review(&[]));
    let message = g.refused_unchanged(&["request-complete"]);
    assert!(message.starts_with(
        "request-complete: refused — requires objective_verdict=APPROVE, completion evidence present, and \
(when codex_goal_objective is recorded) a --codex-goal-json snapshot whose objective matches it with status=complete\n"
    ), "{message}");
    assert_eq!(g.state()["phase"], "pursuing");
}

/// §6.7: the full happy path completes.
#[test]
fn the_happy_path_completes() {
    let g = Goal::new();
    g.completable();
    let out = g.ok(&["request-complete"]);
    assert_eq!((stdout(&out), stderr(&out)), (String::new(), String::new()));
    assert_eq!(g.stdout(&["status"]), "complete\n");
}

/// §6.8: request-complete wins over a prior budget_limited.
#[test]
fn completion_wins_over_budget_limited() {
    let g = Goal::new();
    g.completable();
    g.ok(&["set-budget-limited"]);
    g.ok(&["request-complete"]);
    assert_eq!(g.state()["phase"], "complete");
}

/// §6.9: a fresh plan over a terminal state resets the count, the review budget and the
/// evidence, and keeps the stories as the reference does.
#[test]
fn a_fresh_plan_over_a_terminal_state_starts_over() {
    let g = Goal::new();
    g.completable();
    g.ok(&["request-complete"]);
    let mut state = g.state();
    state["iteration"] = json!(10);
    state["review_dispatch_used"] = json!(4);
    g.write_state(&state);
    g.ok(&["set", "--phase", "planning"]);
    let state = g.state();
    assert_eq!(state["iteration"], 0);
    assert_eq!(state["completion_evidence_paths"], json!([]));
    assert_eq!(state["review_dispatch_used"], 0);
    assert_eq!(state["active"], true);
    // The stories stay, with their statuses (G1, as the reference: the user re-plans them).
    assert_eq!(state["stories"][0]["status"], "confirmed");
}

/// §6.10: re-planning an active pursuit keeps its no-progress count.
#[test]
fn replanning_keeps_the_count() {
    let g = Goal::new();
    g.pursuing();
    let mut state = g.state();
    state["iteration"] = json!(5);
    g.write_state(&state);
    g.ok(&["set", "--phase", "planning"]);
    assert_eq!(g.state()["iteration"], 5);
}

/// §6.11: a valueless `--max-iterations` is refused (not read as 1).
#[test]
fn a_valueless_max_iterations_is_refused() {
    let g = Goal::new();
    g.pursuing();
    let message = g.refused_unchanged(&["set", "--phase", "pursuing", "--max-iterations"]);
    assert_eq!(message, "set: --max-iterations requires a value\n");
    for bad in ["0", "abc", "2.5", "-3"] {
        let message = g.refused_unchanged(&["set", "--phase", "pursuing", "--max-iterations", bad]);
        assert_eq!(
            message,
            format!("set: invalid --max-iterations \"{bad}\" (positive integer required)\n")
        );
    }
    // JavaScript's Number() reads these as integers.
    for (given, stored) in [(" 7 ", 7), ("1e1", 10), ("0x10", 16), ("5.0", 5)] {
        g.ok(&["set", "--phase", "pursuing", "--max-iterations", given]);
        assert_eq!(g.state()["max_iterations"], stored, "{given:?}");
    }
}

/// §6.12: `--completion-evidence` followed by a flag is refused; a list is split and trimmed.
#[test]
fn completion_evidence_rejects_a_swallowed_flag() {
    let g = Goal::new();
    g.planned();
    let message = g.refused_unchanged(&[
        "set",
        "--phase",
        "pursuing",
        "--completion-evidence",
        "--plan-path",
        "/x/y",
    ]);
    assert_eq!(message, "set: --completion-evidence requires a value\n");
    let state = g.state();
    assert_eq!(
        (&state["completion_evidence_paths"], &state["plan_path"]),
        (&json!([]), &json!(""))
    );
    g.ok(&[
        "set",
        "--phase",
        "pursuing",
        "--completion-evidence",
        " p1, ,p2 ",
    ]);
    assert_eq!(g.state()["completion_evidence_paths"], json!(["p1", "p2"]));
}

/// §6.13: a corrupt stored max_iterations is written back as 10.
#[test]
fn a_corrupt_max_iterations_is_repaired_on_write() {
    let g = Goal::new();
    let mut state = seed_state();
    state["max_iterations"] = json!("abc");
    g.write_state(&state);
    g.ok(&["set", "--phase", "planning", "--outcome", "o"]);
    assert_eq!(g.state()["max_iterations"], 10);
}

/// §6.14: the non-goals declaration format.
#[test]
fn non_goals_must_be_declarations() {
    let g = Goal::new();
    g.seed();
    let message = g.refused_unchanged(&[
        "set",
        "--phase",
        "planning",
        "--non-goals",
        "## Evidence Results",
    ]);
    assert_eq!(
        message,
        "ultragoal-state: Error: set: non-goals refused — line does not match \"- {what this pursuit will \
NOT do} | decider: {...}\" format: \"## Evidence Results\"\n"
    );
    let valid = "- no changelog automation | decider: finding touches CHANGELOG only\n\n- no i18n | decider: strings";
    g.ok(&[
        "set",
        "--phase",
        "planning",
        "--outcome",
        "o",
        "--non-goals",
        valid,
    ]);
    assert_eq!(g.state()["non_goals"], valid);
    g.ok(&["set", "--phase", "planning", "--non-goals", "  \n "]);
    let context: serde_json::Value =
        serde_json::from_str(&g.stdout(&["serialize-review-context"])).unwrap();
    assert_eq!(context["non_goals"], "(none provided)");
}

/// §6.15: the readers' schema guard folds invalid states to null.
#[test]
fn get_folds_invalid_states_to_null() {
    let g = Goal::new();
    for (key, bad) in [
        ("active", json!("true")),
        ("iteration", json!(-1)),
        ("max_iterations", json!(0)),
        ("phase", json!("pursuit")),
    ] {
        let mut state = seed_state();
        state["outcome"] = json!("o");
        state[key] = bad;
        g.write_state(&state);
        assert_eq!(g.stdout(&["get"]), "null\n", "{key}");
    }
}

/// §6.16: an empty OMT_SESSION_ID refuses every subcommand.
#[test]
fn an_empty_session_id_is_refused() {
    let g = Goal::new();
    for args in [
        &["get"][..],
        &["status"],
        &["set", "--phase", "planning"],
        &["no-such"],
    ] {
        let out = g.run_as("", args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        if args != ["no-such"] {
            assert_eq!(
                stderr(&out),
                "ultragoal-state: Error: OMT_SESSION_ID \"\" is not a safe session id (must match \
^[A-Za-z0-9_-]+$, length 1..200).\n"
            );
        }
    }
    assert!(
        std::fs::read_dir(&g.omt).unwrap().next().is_none(),
        "nothing written"
    );
}

/// §6.17: an absent file (never adopted) self-seeds on a write.
#[test]
fn an_absent_state_file_self_seeds() {
    let g = Goal::new();
    assert!(g.state_bytes().is_none());
    g.ok(&["set", "--phase", "planning", "--outcome", "o"]);
    let state = g.state();
    assert_eq!(
        (&state["phase"], &state["outcome"]),
        (&json!("planning"), &json!("o"))
    );
    assert!(state["started_at"].as_str().unwrap().ends_with("+00:00"));
}

/// §6.18: after an adoption away the old session's file is not recreated.
#[test]
fn no_resurrection_after_adoption() {
    let g = Goal::new();
    g.pursuing();
    std::fs::rename(g.state_path(), g.state_path_of("B")).unwrap();
    std::fs::write(
        g.omt.join("adoption.log"),
        "2026-08-20T10:00:00+00:00 ultragoal S -> B\n",
    )
    .unwrap();
    let message = g.refused(&["set", "--phase", "pursuing"]);
    assert_eq!(
        message,
        "ultragoal-state: Error: ultragoal-state: state file absent for session \"S\". Possible causes: \
state adopted by another session, or seed missing. Re-invoke the ultragoal skill to re-seed.\n"
    );
    assert!(g.state_bytes().is_none(), "not recreated");
}

fn live_pursuit(g: &Goal, sid: &str, outcome: &str) {
    let mut state = seed_state();
    state["phase"] = json!("pursuing");
    state["outcome"] = json!(outcome);
    state["started_at"] = json!("2026-08-20T10:00:00+09:00");
    state["last_touched_at"] = json!(ago(30));
    state["progress_touched_at"] = json!(ago(30));
    state["stories"] = json!([{"id": "S1", "story": "x", "acceptance_criteria": ["a"],
        "verification_surface": "v", "status": "confirmed"}]);
    state["codex_goal_objective"] = json!("thread-scoped");
    g.write_state_of(sid, &state);
}

/// §6.19: list-others lists the other live pursuits.
#[test]
fn list_others_lists_live_pursuits() {
    let g = Goal::new();
    live_pursuit(&g, "A1234567890", "ship the flag");
    g.write_state_of("PRISTINE", &seed_state());
    let mut stale = seed_state();
    stale["outcome"] = json!("old");
    stale["last_touched_at"] = json!(ago(7 * 3600));
    g.write_state_of("STALE", &stale);
    g.seed();
    let out = g.stdout(&["list-others"]);
    let fields: Vec<&str> = out.trim_end().split('\t').collect();
    assert_eq!(
        fields[..4],
        [
            "A1234567",
            "A1234567890",
            "ship the flag",
            "2026-08-20T10:00:00+09:00"
        ]
    );
    let idle: i64 = fields[4].strip_suffix('s').unwrap().parse().unwrap();
    assert!((30..40).contains(&idle), "{idle}");
    assert_eq!(out.lines().count(), 1, "{out}");
    // Seen from A, this session is pristine: nothing to list.
    assert_eq!(stdout(&g.run_as("A1234567890", &["list-others"])), "");
}

/// §6.20: adopt moves the pursuit; refused over an active non-pristine current state.
#[test]
fn adopt_moves_a_pursuit() {
    let g = Goal::new();
    live_pursuit(&g, "A", "ship the flag");
    let mut busy = seed_state();
    busy["outcome"] = json!("mine");
    g.write_state_of("B", &busy);
    let before = (
        std::fs::read(g.state_path_of("A")).unwrap(),
        std::fs::read(g.state_path_of("B")).unwrap(),
    );
    let out = g.run_as("B", &["adopt", "--src", "A"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("adopt: current session has ACTIVE non-pristine state at"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        (
            std::fs::read(g.state_path_of("A")).unwrap(),
            std::fs::read(g.state_path_of("B")).unwrap()
        ),
        before
    );
    // A pristine current state may be replaced.
    g.write_state_of("B", &seed_state());
    let out = g.run_as("B", &["adopt", "--src", "A"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!g.state_path_of("A").exists());
    let adopted = g.state_of("B");
    assert_eq!(adopted["outcome"], "ship the flag");
    assert_eq!(adopted["phase"], "pursuing");
    assert_eq!(adopted["codex_goal_objective"], "");
    assert_eq!(adopted["stories"][0]["status"], "confirmed");
    let log = std::fs::read_to_string(g.omt.join("adoption.log")).unwrap();
    assert!(log.ends_with(" ultragoal A -> B\n"), "{log}");
    // A is never re-seeded.
    let out = g.run_as("A", &["set", "--phase", "planning"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!g.state_path_of("A").exists());
    // The other refusals.
    let out = g.run_as("B", &["adopt", "--src", "B"]);
    assert!(stderr(&out).contains("self-adopt refused"));
    let out = g.run_as("B", &["adopt"]);
    assert_eq!(
        (out.status.code(), stderr(&out)),
        (Some(1), "adopt: --src <sid> is required\n".into())
    );
    let out = g.run_as("B", &["adopt", "--src", "../x"]);
    assert!(stderr(&out).contains("fails safe-id validation"));
}

/// §6.21: `get` says whether the state is pristine.
#[test]
fn get_says_pristine() {
    let g = Goal::new();
    g.seed();
    let doc: serde_json::Value = serde_json::from_str(&g.stdout(&["get"])).unwrap();
    assert_eq!(doc["pristine"], true);
    g.ok(&["set", "--phase", "planning", "--outcome", "o"]);
    let doc: serde_json::Value = serde_json::from_str(&g.stdout(&["get"])).unwrap();
    assert_eq!(doc["pristine"], false);
    // One compact line, the stored keys first, then the defaulted ones, pristine last.
    let out = g.stdout(&["get"]);
    assert_eq!(out.lines().count(), 1);
    assert!(out.ends_with(",\"pristine\":false}\n"), "{out}");
}

/// §6.22: budget_limited shows in status, and get folds it to null.
#[test]
fn budget_limited_is_terminal_for_get() {
    let g = Goal::new();
    g.pursuing();
    g.ok(&["set-budget-limited"]);
    assert_eq!(g.stdout(&["status"]), "budget_limited\n");
    assert_eq!(g.stdout(&["get"]), "null\n");
}

/// §6.23: resume-pursuit restores pursuit with a fresh count and fresh heartbeats.
#[test]
fn resume_pursuit_restores_pursuit() {
    let g = Goal::new();
    g.pursuing();
    g.ok(&["set", "--phase", "pursuing", "--resume-summary", "halfway"]);
    g.ok(&["set-budget-limited"]);
    let mut state = g.state();
    state["iteration"] = json!(10);
    state["last_touched_at"] = json!("2026-01-01T00:00:00+00:00");
    state["progress_touched_at"] = json!("2026-01-01T00:00:00+00:00");
    g.write_state(&state);
    g.ok(&["resume-pursuit"]);
    let after = g.state();
    assert_eq!(
        (
            &after["phase"],
            &after["active"],
            &after["iteration"],
            &after["budget_limit_notified"]
        ),
        (&json!("pursuing"), &json!(true), &json!(0), &json!(false))
    );
    assert_eq!(after["outcome"], state["outcome"]);
    assert_eq!(after["resume_summary"], "halfway");
    assert_eq!(after["stories"], state["stories"]);
    assert_ne!(after["last_touched_at"], "2026-01-01T00:00:00+00:00");
    assert_ne!(after["progress_touched_at"], "2026-01-01T00:00:00+00:00");
}

/// §6.24: resume-pursuit anywhere but budget_limited, absent or corrupt → refused, nothing written.
#[test]
fn resume_pursuit_refuses_outside_budget_limited() {
    let g = Goal::new();
    let message = g.refused(&["resume-pursuit"]);
    assert_eq!(
        message,
        "ultragoal-state: Error: resume-pursuit: refused — state file is absent\n"
    );
    assert!(g.state_bytes().is_none(), "not created");
    g.pursuing();
    let message = g.refused_unchanged(&["resume-pursuit"]);
    assert_eq!(
        message,
        "ultragoal-state: Error: resume-pursuit: refused — phase must be budget_limited (got \"pursuing\")\n"
    );
    g.ok(&["set-blocked", "--reason", "x"]);
    g.refused_unchanged(&["resume-pursuit"]);
    let g = Goal::new();
    g.completable();
    g.ok(&["request-complete"]);
    g.refused_unchanged(&["resume-pursuit"]);
    std::fs::write(g.state_path(), "{not json").unwrap();
    let message = g.refused_unchanged(&["resume-pursuit"]);
    assert!(message.contains("resume-pursuit: refused"), "{message}");
    let mut state = seed_state();
    state["phase"] = json!("budget_limited");
    state["active"] = json!(false);
    state["max_iterations"] = json!(0);
    g.write_state(&state);
    let message = g.refused_unchanged(&["resume-pursuit"]);
    assert!(message.contains("state is corrupt or invalid"), "{message}");
}

/// The state CLI takes flags before its subcommand (issue 15, item 6); so does `git ucg goal`.
#[test]
fn flags_may_come_before_the_subcommand() {
    let g = Goal::new();
    g.ok(&["--phase", "planning", "--outcome", "ship", "set"]);
    assert_eq!(g.state()["outcome"], "ship");
    assert_eq!(g.state()["phase"], "planning");
    g.ok(&["--reason", "r", "set-blocked"]);
    assert_eq!(g.state()["blocked_reason"], "r");
    assert_eq!(g.stdout(&["--x", "y", "status"]), "blocked\n");
    // The usage line for flags without a subcommand.
    assert!(g
        .refused(&["--x", "y"])
        .starts_with("Usage: git ucg goal <"));
}
