//! The state document (docs/formats/ultragoal.md §1.4) as the reference's merge-write lays it out:
//! the enumerated keys in their order, each the new value, else the stored one, else its default
//! (`??`: `null` falls through), `max_iterations` and the review counters coerced to valid numbers,
//! the summary's control characters blanked, both heartbeats stamped. Keys it does not enumerate
//! are dropped, as the reference drops them, so both tools leave the same bytes.

use super::js;
use super::js::{JsObject, JsString, JsValue};
use std::borrow::Cow;

pub type State = JsObject;

/// The enumerated keys in the order the reference writes them (before the two heartbeats).
pub const KEY_ORDER: [&str; 26] = [
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
];

pub(crate) const DEFAULT_MAX_ITERATIONS: i64 = 10;
pub(crate) const REVIEW_DISPATCH_GRANT: i64 = 5;

/// Local time with its offset at seconds precision, as `date -Iseconds` prints it.
pub fn now_stamp() -> String {
    jiff::Zoned::now()
        .strftime("%Y-%m-%dT%H:%M:%S%:z")
        .to_string()
}

/// Parses a state file's bytes (or an artifact's, or any text's) as the reference does (invalid
/// UTF-8 replaced): `None` when they are not a JSON object.
pub fn parse(bytes: &[u8]) -> Option<State> {
    match js::parse_bytes(bytes) {
        Some(JsValue::Object(state)) => Some(state),
        _ => None,
    }
}

/// The pristine seed (§1.4), the same skeleton the PreToolUse hook writes.
pub(crate) fn seed(now: &str) -> State {
    let mut state = State::new();
    for (key, value) in [
        ("active", JsValue::Bool(true)),
        ("phase", "planning".into()),
        ("iteration", 0.0.into()),
        ("outcome", "".into()),
        ("verification_surface", "".into()),
        ("constraints", "".into()),
        ("boundaries", "".into()),
        ("max_iterations", (DEFAULT_MAX_ITERATIONS as f64).into()),
        ("blocked_stop", "".into()),
        ("objective_verdict", "absent".into()),
        ("plan_path", "".into()),
        ("resume_summary", "".into()),
        ("budget_limit_notified", false.into()),
        ("blocked_reason", "".into()),
        ("completion_evidence_paths", JsValue::Array(Vec::new())),
        ("schema_version", 1.0.into()),
        ("started_at", now.into()),
        ("last_touched_at", now.into()),
    ] {
        state.set(key, value);
    }
    state
}

/// An integer at least `min` (JavaScript numbers: `2.0` is the integer 2; `"1"` is no number).
pub(crate) fn int_at_least(value: Option<&JsValue>, min: i64) -> Option<i64> {
    js::integer_at_least(value, min as f64).map(|f| f as i64)
}

/// A string field as it prints (a lone surrogate as U+FFFD), `None` for anything else (the
/// reference's liveness fields, `toLivenessShape`, are strings only).
pub(crate) fn text_field<'s>(state: &'s State, key: &str) -> Option<Cow<'s, str>> {
    state
        .get(key)
        .and_then(JsValue::as_js_str)
        .map(JsString::to_lossy)
}

/// A text field as it prints; `""` for anything else.
pub fn text<'s>(state: &'s State, key: &str) -> Cow<'s, str> {
    text_field(state, key).unwrap_or_default()
}

/// `dismissed_review_findings` when it is an array, else none.
pub(crate) fn dismissals(state: &State) -> &[JsValue] {
    let found = state
        .get("dismissed_review_findings")
        .and_then(JsValue::as_array);
    found.map_or(&[], Vec::as_slice)
}

/// The phase, when it is text.
pub(crate) fn phase(state: &State) -> &str {
    state.get("phase").and_then(JsValue::as_str).unwrap_or("")
}

pub(crate) fn is_active(state: &State) -> bool {
    state.get("active") == Some(&JsValue::Bool(true))
}

/// The readers' schema guard (§2.9, `readGoalStateRaw`): boolean `active`, a known phase, an
/// integer `iteration` ≥ 0 and an integer `max_iterations` ≥ 1.
pub(crate) fn passes_guard(state: &State) -> bool {
    state.get("active").is_some_and(JsValue::is_boolean)
        && state
            .get("phase")
            .and_then(JsValue::as_str)
            .is_some_and(|p| super::PHASES.contains(&p))
        && int_at_least(state.get("iteration"), 0).is_some()
        && int_at_least(state.get("max_iterations"), 1).is_some()
}

pub(crate) fn max_iterations(state: &State) -> i64 {
    int_at_least(state.get("max_iterations"), 1).unwrap_or(DEFAULT_MAX_ITERATIONS)
}

pub(crate) fn iteration(state: &State) -> i64 {
    int_at_least(state.get("iteration"), 0).unwrap_or(0)
}

/// The strict parse of the claim, renewal and resume paths (`parseClaimableState`): the readers'
/// guard, and the review fields valid wherever present (`null` included).
pub(crate) fn is_claimable(state: &State) -> bool {
    let counter_ok = |key: &str| {
        state
            .get(key)
            .is_none_or(|v| int_at_least(Some(v), 0).is_some())
    };
    passes_guard(state)
        && counter_ok("review_dispatch_used")
        && counter_ok("review_dispatch_cap")
        && state
            .get("approved_review_artifact_sha256")
            .is_none_or(JsValue::is_string)
}

/// Control characters (code ≤ 0x1F) as spaces (the reference's `normalize`).
pub(crate) fn without_controls(text: &JsString) -> JsString {
    let mut out = JsString::new();
    for c in text.code_points() {
        out.push_code_point(if c <= 0x1f { 0x20 } else { c });
    }
    out
}

/// A crash of the reference (a JavaScript TypeError) that git-ucg reports instead.
#[derive(Debug, PartialEq, Eq)]
pub struct Crash(pub String);

/// `normalize(x)` of a value that may not be a string: JavaScript loops over `x.length` code units,
/// so a value without a positive length reads as `""`; one with a length has no `charCodeAt` and
/// throws.
fn normalized_summary(value: &JsValue) -> Result<JsValue, Crash> {
    match value {
        JsValue::String(text) => Ok(without_controls(text).into()),
        JsValue::Array(items) if !items.is_empty() => Err(Crash(
            "resume_summary is an array (s.charCodeAt is not a function)".into(),
        )),
        JsValue::Object(object)
            if object
                .get("length")
                .is_some_and(|l| js::number_of_text(&js::string_of(Some(l)).to_lossy()) > 0.0) =>
        {
            Err(Crash(
                "resume_summary has a length (s.charCodeAt is not a function)".into(),
            ))
        }
        _ => Ok("".into()),
    }
}

/// `mergeWriteLocked`: the document written over `prior` (any JSON value the file held; `{}`
/// when it was absent or unparseable) with the fields of `next`. A `null` prior crashes the
/// reference (`prior.max_iterations`).
pub fn merged(prior: &JsValue, next: &State, now: &str) -> Result<State, Crash> {
    let empty = JsObject::new();
    let prior = match prior {
        JsValue::Object(object) => object,
        JsValue::Null => {
            return Err(Crash(
                "the state file holds null (null is not an object)".into(),
            ))
        }
        _ => &empty,
    };
    let pick = |key: &str| {
        js::present(next.get(key))
            .or_else(|| js::present(prior.get(key)))
            .cloned()
    };
    let mut out = State::new();
    for key in KEY_ORDER {
        let value = match key {
            "max_iterations" | "review_dispatch_used" | "review_dispatch_cap" => {
                let (least, default) = match key {
                    "max_iterations" => (1.0, DEFAULT_MAX_ITERATIONS),
                    "review_dispatch_used" => (0.0, 0),
                    _ => (0.0, REVIEW_DISPATCH_GRANT),
                };
                let candidate = js::present(next.get(key)).or_else(|| prior.get(key));
                let n = js::integer_at_least(candidate, least);
                Some(JsValue::Number(n.unwrap_or(default as f64)))
            }
            "resume_summary" => Some(normalized_summary(&pick(key).unwrap_or_else(|| "".into()))?),
            "started_at" => Some(
                js::present(prior.get(key))
                    .cloned()
                    .unwrap_or_else(|| now.into()),
            ),
            // Kept as stored, `null` included; left out when never set.
            "last_seen_head" | "last_seen_stories_digest" => js::present(next.get(key))
                .or_else(|| prior.get(key))
                .cloned(),
            _ => Some(pick(key).unwrap_or_else(|| default_of(key))),
        };
        if let Some(value) = value {
            out.set(key, value);
        }
    }
    out.set("last_touched_at", now.into());
    out.set("progress_touched_at", now.into());
    Ok(out)
}

/// A known key's value when nothing is stored.
fn default_of(key: &str) -> JsValue {
    match key {
        "phase" => "planning".into(),
        "iteration" => 0.0.into(),
        "active" => true.into(),
        "objective_verdict" => "absent".into(),
        "budget_limit_notified" => false.into(),
        "completion_evidence_paths" | "stories" | "dismissed_review_findings" => {
            JsValue::Array(Vec::new())
        }
        "schema_version" => 1.0.into(),
        _ => "".into(),
    }
}

/// The file's bytes exactly as `JSON.stringify(state, null, 2)` lays them out: two-space indent,
/// integer-like keys first, numbers as JavaScript writes them, no final newline.
pub fn to_bytes(state: &State) -> Vec<u8> {
    JsValue::Object(state.clone()).to_json_pretty().into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_merge_orders_defaults_and_drops_foreign_keys() {
        let merge = |text: &str| merged(&js::parse(text).unwrap(), &State::new(), "T").unwrap();
        let out = merge(
            r#"{"zeta": 1, "phase": "pursuing", "max_iterations": "abc", "outcome": "o", "resume_summary": "a\nb", "last_seen_head": null}"#,
        );
        let keys: Vec<&str> = out.keys().filter_map(JsString::as_str).collect();
        assert_eq!(keys.first(), Some(&"outcome"));
        assert_eq!(keys.last(), Some(&"progress_touched_at"));
        assert!(!out.contains_key("zeta"));
        assert_eq!(out.get("last_seen_head"), Some(&JsValue::Null));
        assert!(!out.contains_key("last_seen_stories_digest"));
        assert_eq!(out.get("max_iterations"), Some(&10.into()));
        assert_eq!(out.get("resume_summary"), Some(&"a b".into()));
        assert_eq!(out.get("started_at"), Some(&"T".into()));
        let five = merge(r#"{"resume_summary": 5}"#);
        assert_eq!(five.get("resume_summary"), Some(&"".into()));
        assert!(merged(&JsValue::Null, &State::new(), "T").is_err());
        // `1e400` is Infinity, not null: `??` keeps it, and `JSON.stringify` writes it as null.
        let out = merge(r#"{"outcome": 1e400}"#);
        assert_eq!(out.get("outcome"), Some(&f64::INFINITY.into()));
        assert!(String::from_utf8(to_bytes(&out))
            .unwrap()
            .contains("\"outcome\": null"));
    }
}
