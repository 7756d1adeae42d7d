//! The phase machine (docs/formats/ultragoal.md §2.2–2.7, §4.4). Structural rules: only
//! `request_complete` writes `complete`; only `set_verdict` writes the objective verdict; `set`
//! moves between planning and pursuing and nothing else; the terminal phases that are not
//! `complete` come from the system (`set-budget-limited`, `set-blocked`, the Stop hook) and only the
//! user's `resume-pursuit` leaves budget_limited.

use super::review::{self, CodeReview, Verdicts};
use super::state::{self, is_blank, State};
use super::stories;
use serde_json::Value;

/// The content slots `set` writes (§1.4), as (flag, key).
pub const SLOTS: [(&str, &str); 5] = [
    ("outcome", "outcome"),
    ("verification-surface", "verification_surface"),
    ("constraints", "constraints"),
    ("boundaries", "boundaries"),
    ("non-goals", "non_goals"),
];

/// The other text fields `set` writes.
pub const TEXT_FIELDS: [(&str, &str); 3] = [
    ("blocked-stop", "blocked_stop"),
    ("plan-path", "plan_path"),
    ("resume-summary", "resume_summary"),
];

/// What `set` was asked to write; absent fields keep their stored values.
#[derive(Debug, Default)]
pub struct SetRequest {
    pub phase: String,
    /// (state key, value) of the supplied content slots and text fields.
    pub fields: Vec<(&'static str, String)>,
    pub max_iterations: Option<i64>,
    pub completion_evidence: Option<Vec<String>>,
    pub codex_goal_objective: Option<String>,
}

impl SetRequest {
    fn field(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Files a transition retires: the planning transition deletes both review artifacts.
#[derive(Debug, Default, PartialEq)]
pub struct Effects {
    pub delete_artifacts: bool,
    /// A planning transition without an active prior: a new pursuit starts.
    pub fresh: bool,
}

/// `non_goals` lines must read `- <text> | decider: <text>` (blank lines allowed), so the slot
/// cannot smuggle headings or sections into the reviewer's prompt.
pub fn check_non_goals(text: &str) -> Result<(), String> {
    for line in text.split('\n').filter(|l| !is_blank(l)) {
        if !is_non_goal_line(line) {
            return Err(format!(
                "set: non-goals refused — line does not match \"- {{what this pursuit will NOT do}} | \
decider: {{...}}\" format: \"{line}\""
            ));
        }
    }
    Ok(())
}

/// `^-\s+\S.*\|\s*decider:\s*\S.*$`
fn is_non_goal_line(line: &str) -> bool {
    let Some(rest) = line.strip_prefix('-') else {
        return false;
    };
    let text = rest.trim_start();
    if text.len() == rest.len() || text.is_empty() {
        return false;
    }
    // JavaScript's `.` matches no carriage return.
    if text.contains('\r') {
        return false;
    }
    // Some `|` after the first non-space character must be followed by `decider:` and text.
    text.char_indices().skip(1).any(|(at, c)| {
        c == '|'
            && text[at + 1..]
                .trim_start()
                .strip_prefix("decider:")
                .is_some_and(|after| !after.trim_start().is_empty())
    })
}

/// `set --phase planning|pursuing` over the stored state.
pub fn set(state: &mut State, request: &SetRequest) -> Result<Effects, String> {
    if !matches!(request.phase.as_str(), "planning" | "pursuing") {
        return Err(format!(
            "set: phase must be one of planning|pursuing (got \"{}\"). complete is \
request-complete-only; budget_limited/blocked are system-only.",
            request.phase
        ));
    }
    if let Some(non_goals) = request.field("non_goals") {
        check_non_goals(non_goals)?;
    }
    let mut effects = Effects::default();
    if request.phase == "pursuing" {
        check_pursuing_gate(state, request)?;
    }
    let prior_active = state::passes_guard(state) && state::is_active(state);
    let prior_pristine = super::is_pristine(state);
    let scope_changed = SLOTS.iter().any(|(_, key)| {
        request
            .field(key)
            .is_some_and(|value| value != state::text(state, key))
    });
    let was_deactivated = state.get("active") == Some(&Value::Bool(false));
    let prior_truthy = state.get("active").is_some_and(is_truthy);
    for (key, value) in &request.fields {
        state.insert((*key).into(), value.as_str().into());
    }
    if let Some(max) = request.max_iterations {
        state.insert("max_iterations".into(), max.into());
    }
    if let Some(paths) = &request.completion_evidence {
        state.insert("completion_evidence_paths".into(), paths.clone().into());
    }
    if let Some(objective) = &request.codex_goal_objective {
        state.insert("codex_goal_objective".into(), objective.as_str().into());
    }
    if request.phase == "planning" {
        // A changed slot or a fresh start invalidates the old plan's approvals: an active plan's
        // confirmed stories need confirming again; after a terminal state the list starts empty.
        if scope_changed || was_deactivated {
            if let Some(Value::Array(list)) = state.get_mut("stories") {
                if prior_truthy {
                    for story in list.iter_mut() {
                        if let Value::Object(story) = story {
                            if story.get("status").and_then(Value::as_str) == Some("confirmed") {
                                story.insert("status".into(), "unconfirmed".into());
                            }
                        }
                    }
                } else {
                    list.clear();
                }
            }
        }
        // Every stale carrier of a completion goes, whatever flags came with the call.
        state.insert("objective_verdict".into(), "absent".into());
        state.insert("completion_evidence_paths".into(), Value::Array(Vec::new()));
        state.insert("dismissed_review_findings".into(), Value::Array(Vec::new()));
        state.shift_remove("review_resolution");
        state.insert("codex_goal_objective".into(), "".into());
        effects.delete_artifacts = true;
        if !prior_active {
            state.insert("iteration".into(), 0.into());
            state.insert("review_dispatch_used".into(), 0.into());
            state.insert(
                "review_dispatch_cap".into(),
                state::REVIEW_DISPATCH_GRANT.into(),
            );
            state.insert("approved_review_artifact_sha256".into(), "".into());
        }
        effects.fresh = !prior_active || prior_pristine;
    }
    state.insert("phase".into(), request.phase.as_str().into());
    state.insert("active".into(), true.into());
    Ok(effects)
}

/// JavaScript truthiness of a JSON value.
fn is_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|n| n != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// Entering (or staying in) pursuit: every story approved, and the WHAT frozen — the outcome and
/// verification surface cannot be supplied at all, the other slots cannot change.
fn check_pursuing_gate(state: &State, request: &SetRequest) -> Result<(), String> {
    let waiting = stories::unconfirmed(state);
    if !waiting.is_empty() {
        return Err(format!(
            "set: pursuing refused — {} unconfirmed {}: {}",
            waiting.len(),
            if waiting.len() == 1 {
                "story"
            } else {
                "stories"
            },
            waiting.join(", ")
        ));
    }
    let frozen = |key: &str| {
        format!(
            "set: pursuing refused — {key} is frozen once pursuit has begun. Re-plan first (set \
--phase planning) to change it."
        )
    };
    for (_, key) in &SLOTS[..2] {
        if request.field(key).is_some() {
            return Err(frozen(key));
        }
    }
    for (_, key) in &SLOTS[2..] {
        if request
            .field(key)
            .is_some_and(|value| value != state::text(state, key))
        {
            return Err(frozen(key));
        }
    }
    Ok(())
}

/// `set-verdict`: the only writer of the objective verdict. From planning it first advances to
/// pursuing (subject to the pursuing gate); whether it did.
pub const VERDICTS: [&str; 4] = ["APPROVE", "REQUEST_CHANGES", "COMMENT", "absent"];

pub fn set_verdict(state: &mut State, verdict: &str) -> Result<bool, String> {
    let advance = state::phase(state) == "planning";
    if advance {
        set(
            state,
            &SetRequest {
                phase: "pursuing".into(),
                ..SetRequest::default()
            },
        )?;
    }
    state.insert("objective_verdict".into(), verdict.into());
    Ok(advance)
}

/// The inputs of the completion gate, read under the lock with the state.
pub struct CompletionInputs<'a> {
    pub verdicts: Option<&'a [u8]>,
    pub code_review: Option<&'a [u8]>,
    /// `--codex-goal-json`, already resolved to its JSON text (`None` when not given).
    pub codex_snapshot: Option<CodexSnapshot>,
}

pub enum CodexSnapshot {
    Parsed(Value),
    /// The text given (read from standard input for `-`), which parsed neither as JSON nor as a
    /// readable file holding JSON.
    Unparseable(String),
}

/// The generic refusal of `request-complete`.
pub const COMPLETE_REFUSED: &str = "request-complete: refused — requires objective_verdict=APPROVE, \
completion evidence present, and (when codex_goal_objective is recorded) a --codex-goal-json snapshot \
whose objective matches it with status=complete";

/// `request-complete`: every gate of §2.4, in order; on success the state is complete. A refusal
/// says which gate failed first (the caller prints the reference's generic line before it).
pub fn request_complete(state: &mut State, inputs: &CompletionInputs) -> Result<(), String> {
    let refuse = |why: &str| Err(why.to_string());
    let evidence = state
        .get("completion_evidence_paths")
        .and_then(Value::as_array)
        .is_some_and(|paths| !paths.is_empty());
    if !evidence {
        return refuse("no completion evidence recorded");
    }
    if state::text(state, "objective_verdict") != "APPROVE" {
        return refuse("objective_verdict is not APPROVE");
    }
    let live: Vec<&Value> = stories::list(state)
        .iter()
        .filter(|s| stories::status(s) != "retired")
        .collect();
    if live.is_empty() {
        return refuse("no story that is not retired");
    }
    let Some(verdicts) = review::verdicts(inputs.verdicts) else {
        return refuse("the verdict artifact is absent or invalid");
    };
    if verdicts.objective != "APPROVE" {
        return refuse("the verdict artifact's objective_verdict is not APPROVE");
    }
    check_story_verdicts(state, &live, &verdicts).or_else(|why| refuse(&why))?;
    let Some(code_review) = review::code_review(inputs.code_review) else {
        return refuse("the code-review artifact is absent or invalid");
    };
    let dismissals = dismissals(state);
    if !code_review.completion_eligible(&dismissals) {
        return refuse(&review_block_reason(&code_review, &dismissals));
    }
    let armed = state::text(state, "codex_goal_objective").to_string();
    if !is_blank(&armed) {
        check_codex_snapshot(&armed, inputs.codex_snapshot.as_ref())?;
    }
    state.insert("phase".into(), "complete".into());
    state.insert("active".into(), false.into());
    Ok(())
}

fn check_story_verdicts(state: &State, live: &[&Value], verdicts: &Verdicts) -> Result<(), String> {
    let known: Vec<&str> = stories::list(state).iter().map(stories::id).collect();
    if let Some((unknown, _)) = verdicts
        .stories
        .iter()
        .find(|(id, _)| !known.contains(&id.as_str()))
    {
        return Err(format!(
            "the verdict artifact names unknown story {unknown}"
        ));
    }
    for story in live {
        let id = stories::id(story);
        if stories::status(story) != "confirmed" {
            return Err(format!("story {id} is not confirmed"));
        }
        match verdicts.of(id) {
            None => return Err(format!("story {id} has no verdict")),
            Some("APPROVE") => {}
            Some(other) => return Err(format!("story {id} is {other}")),
        }
    }
    Ok(())
}

pub fn dismissals(state: &State) -> Vec<Value> {
    state
        .get("dismissed_review_findings")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

fn review_block_reason(code_review: &CodeReview, dismissals: &[Value]) -> String {
    if !code_review.complete {
        return "the code review is INCONCLUSIVE".into();
    }
    let blocks: Vec<String> = code_review
        .open_blocks(dismissals)
        .map(|f| {
            format!(
                "{} {} {}{}",
                f.class,
                f.verdict,
                f.impact,
                f.location
                    .as_deref()
                    .map(|r| format!(" at {r}"))
                    .unwrap_or_default()
            )
        })
        .collect();
    format!(
        "the code review has blocking findings: {}",
        blocks.join("; ")
    )
}

/// Gate 9: the Codex goal snapshot must name the armed objective (whitespace runs collapsed) and
/// say `complete`.
fn check_codex_snapshot(armed: &str, snapshot: Option<&CodexSnapshot>) -> Result<(), String> {
    let root = match snapshot {
        None => return Err("a Codex goal is armed and no --codex-goal-json was given".into()),
        Some(CodexSnapshot::Unparseable(_)) => {
            return Err("the --codex-goal-json snapshot does not parse".into())
        }
        Some(CodexSnapshot::Parsed(root)) => root,
    };
    fn present(v: Option<&Value>) -> Option<&Value> {
        v.filter(|v| !v.is_null())
    }
    let empty = Value::Object(serde_json::Map::new());
    let goal = root.get("goal").filter(|g| g.is_object()).unwrap_or(&empty);
    let objective = present(goal.get("objective"))
        .or_else(|| present(goal.get("goal")))
        .or_else(|| present(goal.get("description")))
        .or_else(|| present(root.get("objective")))
        .and_then(Value::as_str);
    let status = present(goal.get("status"))
        .or_else(|| present(root.get("status")))
        .and_then(Value::as_str);
    let collapse = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    if objective.map(collapse) != Some(collapse(armed)) {
        return Err("the Codex goal snapshot's objective differs from the recorded one".into());
    }
    if status != Some("complete") {
        return Err("the Codex goal snapshot's status is not complete".into());
    }
    Ok(())
}

/// `set-budget-limited` (system-only).
pub fn set_budget_limited(state: &mut State) {
    state.insert("phase".into(), "budget_limited".into());
    state.insert("active".into(), false.into());
    state.insert("budget_limit_notified".into(), true.into());
}

/// `set-blocked --reason` (system-only).
pub fn set_blocked(state: &mut State, reason: &str) {
    state.insert("phase".into(), "blocked".into());
    state.insert("active".into(), false.into());
    state.insert(
        "blocked_reason".into(),
        state::without_controls(reason).into(),
    );
}

/// `resume-pursuit` (user-only): out of budget_limited back into pursuit with a fresh no-progress
/// count. Strict: the stored state must already be valid; nothing is defaulted first.
pub fn resume_pursuit(state: &mut State) -> Result<(), String> {
    const WHAT: &str = "resume-pursuit";
    if !state::is_claimable(state) {
        return Err(format!("{WHAT}: refused — state is corrupt or invalid"));
    }
    let phase = state::phase(state);
    if phase != "budget_limited" {
        return Err(format!(
            "{WHAT}: refused — phase must be budget_limited (got \"{phase}\")"
        ));
    }
    state.insert("phase".into(), "pursuing".into());
    state.insert("active".into(), true.into());
    state.insert("iteration".into(), 0.into());
    state.insert("budget_limit_notified".into(), false.into());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_goal_lines() {
        assert!(check_non_goals("- no changelog | decider: touches CHANGELOG only").is_ok());
        assert!(check_non_goals("  \n\n").is_ok());
        assert!(check_non_goals("## Evidence Results").is_err());
        assert!(check_non_goals("-x | decider: y").is_err());
        assert!(check_non_goals("- x | decider:").is_err());
        assert!(check_non_goals("- | decider: y").is_err());
        assert!(check_non_goals("- a|decider:b").is_ok());
    }
}
