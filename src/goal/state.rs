//! The state document (docs/formats/ultragoal.md §1.4): a JSON object kept as its parsed map so keys
//! written by other tools survive every write (the reference's merge-write drops them — its "D-5
//! hazard"; git-ucg keeps them, after the known keys).

use serde_json::{Map, Value};

pub type State = Map<String, Value>;

/// The known keys in the order the reference writes them.
pub const KEY_ORDER: [&str; 29] = [
    "outcome",
    "verification_surface",
    "constraints",
    "boundaries",
    "non_goals",
    "max_iterations",
    "blocked_stop",
    "phase",
    "iteration",
    "started_at",
    "active",
    "objective_verdict",
    "plan_path",
    "resume_summary",
    "budget_limit_notified",
    "blocked_reason",
    "completion_evidence_paths",
    "schema_version",
    "stories",
    "codex_goal_objective",
    "last_seen_head",
    "last_seen_stories_digest",
    "review_dispatch_used",
    "review_dispatch_cap",
    "approved_review_artifact_sha256",
    "dismissed_review_findings",
    "review_resolution",
    "last_touched_at",
    "progress_touched_at",
];

/// Keys written only when they hold something (the reference leaves them out until set).
const OPTIONAL: [&str; 3] = [
    "last_seen_head",
    "last_seen_stories_digest",
    "review_resolution",
];

pub const DEFAULT_MAX_ITERATIONS: i64 = 10;
pub const REVIEW_DISPATCH_GRANT: i64 = 5;

/// Local time with its offset at seconds precision, as `date -Iseconds` prints it.
pub fn now_stamp() -> String {
    jiff::Zoned::now()
        .strftime("%Y-%m-%dT%H:%M:%S%:z")
        .to_string()
}

/// Parses a state file's bytes: `None` when they are not a JSON object.
pub fn parse(bytes: &[u8]) -> Option<State> {
    match serde_json::from_slice(bytes) {
        Ok(Value::Object(state)) => Some(state),
        _ => None,
    }
}

/// The pristine seed (§1.4), the same skeleton the PreToolUse hook writes.
pub fn seed(now: &str) -> State {
    let mut state = State::new();
    for (key, value) in [
        ("active", Value::Bool(true)),
        ("phase", "planning".into()),
        ("iteration", 0.into()),
        ("outcome", "".into()),
        ("verification_surface", "".into()),
        ("constraints", "".into()),
        ("boundaries", "".into()),
        ("max_iterations", DEFAULT_MAX_ITERATIONS.into()),
        ("blocked_stop", "".into()),
        ("objective_verdict", "absent".into()),
        ("plan_path", "".into()),
        ("resume_summary", "".into()),
        ("budget_limit_notified", false.into()),
        ("blocked_reason", "".into()),
        ("completion_evidence_paths", Value::Array(Vec::new())),
        ("schema_version", 1.into()),
        ("started_at", now.into()),
        ("last_touched_at", now.into()),
    ] {
        state.insert(key.into(), value);
    }
    state
}

/// A non-negative integer (JSON integers only: `1.0` and `"1"` are not).
pub fn int_at_least(value: Option<&Value>, min: i64) -> Option<i64> {
    value.and_then(Value::as_i64).filter(|n| *n >= min)
}

pub fn text<'s>(state: &'s State, key: &str) -> &'s str {
    state.get(key).and_then(Value::as_str).unwrap_or("")
}

pub fn is_blank(text: &str) -> bool {
    text.trim().is_empty()
}

pub fn phase(state: &State) -> &str {
    text(state, "phase")
}

pub fn is_active(state: &State) -> bool {
    state.get("active") == Some(&Value::Bool(true))
}

/// The schema guard of the readers (§2.9): boolean `active`, a known phase, integer `iteration`
/// ≥ 0 and `max_iterations` ≥ 1 where present.
pub fn passes_guard(state: &State) -> bool {
    let integer_or_absent = |key: &str, min| {
        state
            .get(key)
            .is_none_or(|v| int_at_least(Some(v), min).is_some())
    };
    state.get("active").is_some_and(Value::is_boolean)
        && super::PHASES.contains(&phase(state))
        && integer_or_absent("iteration", 0)
        && integer_or_absent("max_iterations", 1)
}

pub fn max_iterations(state: &State) -> i64 {
    int_at_least(state.get("max_iterations"), 1).unwrap_or(DEFAULT_MAX_ITERATIONS)
}

pub fn iteration(state: &State) -> i64 {
    int_at_least(state.get("iteration"), 0).unwrap_or(0)
}

/// Control characters (code ≤ 0x1F) as spaces, as the reference stores free-text summaries.
pub fn without_controls(text: &str) -> String {
    text.chars()
        .map(|c| if (c as u32) <= 0x1f { ' ' } else { c })
        .collect()
}

/// The document as the reference's merge-write leaves it: every known key in its order, a stored
/// value kept unless null, the defaults filled in, `max_iterations` and the review counters
/// coerced to valid numbers, the summary's control characters blanked, both heartbeats stamped;
/// then the keys other tools wrote, in their stored order.
pub fn normalized(mut prior: State, now: &str) -> State {
    let mut out = State::new();
    for key in KEY_ORDER {
        let stored = prior.shift_remove(key).filter(|v| !v.is_null());
        let value = match key {
            "max_iterations" => Some(
                int_at_least(stored.as_ref(), 1)
                    .unwrap_or(DEFAULT_MAX_ITERATIONS)
                    .into(),
            ),
            "review_dispatch_used" => Some(int_at_least(stored.as_ref(), 0).unwrap_or(0).into()),
            "review_dispatch_cap" => Some(
                int_at_least(stored.as_ref(), 0)
                    .unwrap_or(REVIEW_DISPATCH_GRANT)
                    .into(),
            ),
            "resume_summary" => Some(match stored {
                Some(Value::String(summary)) => without_controls(&summary).into(),
                other => other.unwrap_or_else(|| "".into()),
            }),
            "last_touched_at" | "progress_touched_at" => Some(now.into()),
            _ if OPTIONAL.contains(&key) => stored,
            _ => Some(stored.unwrap_or_else(|| default_of(key, now))),
        };
        if let Some(value) = value {
            out.insert(key.into(), value);
        }
    }
    out.extend(prior);
    out
}

/// A known key's value when nothing is stored.
fn default_of(key: &str, now: &str) -> Value {
    match key {
        "phase" => "planning".into(),
        "iteration" => 0.into(),
        "started_at" => now.into(),
        "active" => true.into(),
        "objective_verdict" => "absent".into(),
        "budget_limit_notified" => false.into(),
        "completion_evidence_paths" | "stories" | "dismissed_review_findings" => {
            Value::Array(Vec::new())
        }
        "schema_version" => 1.into(),
        _ => "".into(),
    }
}

/// The file's bytes exactly as `JSON.stringify(state, null, 2)` lays them out: two-space indent,
/// no final newline.
pub fn to_bytes(state: &State) -> Vec<u8> {
    serde_json::to_vec_pretty(state).unwrap_or_default()
}

/// The strict parse of the claim, renewal and resume paths: besides the readers' guard, an
/// `iteration` and `max_iterations` must be there, and the review fields valid where present.
pub fn is_claimable(state: &State) -> bool {
    let counter_ok = |key: &str| {
        state
            .get(key)
            .is_none_or(|v| int_at_least(Some(v), 0).is_some())
    };
    passes_guard(state)
        && int_at_least(state.get("iteration"), 0).is_some()
        && int_at_least(state.get("max_iterations"), 1).is_some()
        && counter_ok("review_dispatch_used")
        && counter_ok("review_dispatch_cap")
        && state
            .get("approved_review_artifact_sha256")
            .is_none_or(Value::is_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization_orders_defaults_and_keeps_foreign_keys() {
        let prior = parse(
            br#"{"zeta": 1, "phase": "pursuing", "max_iterations": "abc", "outcome": "o", "resume_summary": "a\nb"}"#,
        )
        .unwrap();
        let out = normalized(prior, "T");
        let keys: Vec<&str> = out.keys().map(String::as_str).collect();
        assert_eq!(keys.first(), Some(&"outcome"));
        assert_eq!(keys.last(), Some(&"zeta"));
        assert!(!out.contains_key("last_seen_head"));
        assert_eq!(out["max_iterations"], 10);
        assert_eq!(out["resume_summary"], "a b");
        assert_eq!(out["progress_touched_at"], "T");
    }
}
