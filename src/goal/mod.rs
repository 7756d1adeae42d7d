//! The ultragoal state machine (docs/formats/ultragoal.md), interoperable with its TypeScript state CLI
//! and Stop hook on the same files: where state lives, the phase machine and its gates, the story
//! layer, the review lane, liveness and adoption, the Stop hook's counter.

pub mod args;
pub mod base;
pub mod dir;
pub mod hook;
pub mod liveness;
pub mod phase;
pub mod review;
pub mod review_lane;
pub mod serialize;
pub mod session;
pub mod state;
pub mod stories;
pub mod view;

/// What a state CLI subcommand says: its stdout, its stderr notices, and whether it failed (exit 1
/// with the output still printed, as `claim-review-dispatch` does).
#[derive(Debug, Default)]
pub struct Reply {
    pub stdout: String,
    pub notices: Vec<String>,
    pub failed: bool,
}

impl Reply {
    pub fn out(text: impl Into<String>) -> Self {
        Reply {
            stdout: text.into(),
            ..Reply::default()
        }
    }
}

/// Why a subcommand refused, printed as the reference prints it: a thrown error carries the
/// `ultragoal-state: Error: ` prefix, a direct refusal is its own line. Both exit 1.
#[derive(Debug, PartialEq)]
pub enum Refusal {
    Thrown(String),
    Direct(String),
}

impl From<String> for Refusal {
    fn from(message: String) -> Self {
        Refusal::Thrown(message)
    }
}

impl From<&str> for Refusal {
    fn from(message: &str) -> Self {
        Refusal::Thrown(message.to_string())
    }
}

impl Refusal {
    pub fn direct(message: impl Into<String>) -> Self {
        Refusal::Direct(message.into())
    }

    /// The line for stderr.
    pub fn line(&self) -> String {
        match self {
            Refusal::Thrown(message) => format!("ultragoal-state: Error: {message}"),
            Refusal::Direct(message) => message.clone(),
        }
    }
}

/// The phases of the state machine (§1.4), as their tokens.
pub const PHASES: [&str; 5] = [
    "planning",
    "pursuing",
    "budget_limited",
    "blocked",
    "complete",
];

/// `status` (§2.9): the phase token of a state file's bytes, or `absent` when the file is missing,
/// is not a JSON object, or holds no known phase.
pub fn status_token(bytes: Option<&[u8]>) -> &'static str {
    let Some(state) = bytes.and_then(state::parse).filter(state::passes_guard) else {
        return "absent";
    };
    let phase = state::phase(&state);
    PHASES
        .iter()
        .find(|known| **known == phase)
        .copied()
        .unwrap_or("absent")
}

/// Whether a state is pristine (§3.1): planning, no iteration yet, no outcome — a seed nobody
/// has used, inert for every reader.
pub fn is_pristine(state: &serde_json::Map<String, serde_json::Value>) -> bool {
    use serde_json::Value;
    state.get("phase").and_then(Value::as_str) == Some("planning")
        && state
            .get("iteration")
            .is_none_or(|i| i.as_u64() == Some(0) && !i.is_f64())
        && state.get("outcome").is_none_or(|o| o.as_str() == Some(""))
}

/// `get` (§2.9): an active, schema-valid state with its computed `pristine`, and `stories` and
/// the review fields defaulted; `None` (printed `null`) for anything else — absent, unparseable,
/// terminal (inactive), or failing the schema guard (boolean `active`, a known phase, an integer
/// `iteration` ≥ 0 and `max_iterations` ≥ 1 where present).
pub fn get_view(bytes: Option<&[u8]>) -> Option<serde_json::Value> {
    use serde_json::Value;
    let mut state = state::parse(bytes?)?;
    if !(state::passes_guard(&state) && state::is_active(&state)) {
        return None;
    }
    // The review lane's fields, defaulted also when invalid (in place, else appended).
    for (key, default) in [("review_dispatch_used", 0), ("review_dispatch_cap", 5)] {
        let value = state::int_at_least(state.get(key), 0).unwrap_or(default);
        state.insert(key.into(), value.into());
    }
    if !state
        .get("approved_review_artifact_sha256")
        .is_some_and(Value::is_string)
    {
        state.insert("approved_review_artifact_sha256".into(), Value::from(""));
    }
    if !state.get("stories").is_some_and(Value::is_array) {
        state.insert("stories".into(), Value::Array(Vec::new()));
    }
    let pristine = is_pristine(&state);
    state.insert("pristine".into(), Value::Bool(pristine));
    Some(Value::Object(state))
}

#[cfg(test)]
mod tests {
    #[test]
    fn get_views() {
        let seed = br#"{"active": true, "phase": "planning", "iteration": 0, "outcome": "", "max_iterations": 10}"#;
        let view = super::get_view(Some(seed)).unwrap();
        assert_eq!(view["pristine"], true);
        assert_eq!(view["stories"], serde_json::json!([]));
        assert_eq!(view["review_dispatch_cap"], 5);
        let used = br#"{"active": true, "phase": "pursuing", "iteration": 2, "outcome": "x", "review_dispatch_used": -1}"#;
        let view = super::get_view(Some(used)).unwrap();
        assert_eq!(view["pristine"], false);
        assert_eq!(view["review_dispatch_used"], 0);
        for bad in [
            &br#"{"active": false, "phase": "complete"}"#[..],
            br#"{"active": "yes", "phase": "planning"}"#,
            br#"{"active": true, "phase": "done"}"#,
            br#"{"active": true, "phase": "planning", "iteration": -1}"#,
            br#"{"active": true, "phase": "planning", "max_iterations": 0}"#,
            br#"{"active": true, "phase": "planning", "iteration": 1.5}"#,
            b"[]",
            b"{",
        ] {
            assert_eq!(
                super::get_view(Some(bad)),
                None,
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        assert_eq!(super::get_view(None), None);
    }

    #[test]
    fn status_tokens() {
        assert_eq!(
            super::status_token(Some(br#"{"phase": "pursuing", "active": true}"#)),
            "pursuing"
        );
        assert_eq!(
            super::status_token(Some(br#"{"phase": "complete", "active": false}"#)),
            "complete"
        );
        for bad in [
            &br#"{"phase": "done", "active": true}"#[..],
            br#"{"phase": "pursuing", "active": "yes"}"#,
            br#"{"phase": "pursuing"}"#,
            b"{",
            b"[]",
            b"\xff",
        ] {
            assert_eq!(super::status_token(Some(bad)), "absent");
        }
        assert_eq!(super::status_token(None), "absent");
    }
}
