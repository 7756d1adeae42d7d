//! What the operator's reads of a pursuit show: the derived current story (§4.1) and everything
//! at a glance, as one JSON document. Neither writes anything.

use super::js::{JsString, JsValue};
use super::review::{self, Verdicts};
use super::session::Session;
use super::state::{self, State};
use super::{liveness, stories};
use serde_json::{json, Value};

/// The current story: the first confirmed story, in stored order, without an APPROVE verdict.
/// (1-based index among the confirmed stories, their count.)
pub fn current<'s>(
    state: &'s State,
    verdicts: Option<&Verdicts>,
) -> (Option<&'s JsValue>, usize, usize) {
    let confirmed: Vec<&JsValue> = stories::list(state)
        .iter()
        .filter(|s| stories::status(s) == "confirmed")
        .collect();
    let approved =
        |story: &JsValue| verdicts.and_then(|v| v.of(&stories::id(story))) == Some("APPROVE");
    match confirmed.iter().position(|s| !approved(s)) {
        Some(at) => (Some(confirmed[at]), at + 1, confirmed.len()),
        None => (None, 0, confirmed.len()),
    }
}

pub fn verdicts_of(session: &Session) -> Option<Verdicts> {
    review::verdicts(ucg_store::read_file(session.verdict_file()).ok().as_deref())
}

/// Everything `goal show` says, as one JSON document (schema git-ucg.goal-show/1).
pub fn show_doc(session: &Session, state: Option<&State>, now: jiff::Timestamp) -> Value {
    let Some(state) = state else {
        return json!({"schema": "git-ucg.goal-show/1", "session": session.sid,
            "state_file": session.state_file().to_string_lossy(), "phase": "absent"});
    };
    let verdicts = verdicts_of(session);
    let (current_story, _, _) = current(state, verdicts.as_ref());
    let current_id = current_story.map(stories::id);
    let story_rows: Vec<Value> = stories::list(state)
        .iter()
        .map(|s| {
            json!({
                "id": stories::id(s).to_string(),
                "status": stories::status(s),
                "story": s.get("story").and_then(JsValue::as_js_str).map(JsString::to_lossy).unwrap_or_default(),
                "verdict": verdicts.as_ref().and_then(|v| v.of(&stories::id(s))),
                "current": Some(stories::id(s)) == current_id,
            })
        })
        .collect();
    let review_bytes = ucg_store::read_file(session.codereview_file()).ok();
    let code_review = review::code_review(review_bytes.as_deref());
    let dismissals = state::dismissals(state);
    let review_status = match (&review_bytes, &code_review) {
        (None, _) => "absent",
        (Some(_), None) => "invalid",
        (Some(_), Some(r)) if !r.complete => "inconclusive",
        (Some(_), Some(r)) if r.completion_eligible(dismissals) == Ok(true) => "eligible",
        _ => "blocking",
    };
    let touched = liveness::touched(state);
    let progress = liveness::progress_touched(state);
    let verdict_text = super::session::read_text(&session.verdict_file());
    let review_text = review_bytes.as_deref().map(super::js::decode);
    let no_files = |_: &str| None;
    let gate = super::ops::first_failed_gate(
        &JsValue::Object(state.clone()),
        &super::ops::GateInputs {
            verdicts: verdict_text.as_deref(),
            code_review: review_text.as_deref(),
            codex_arg: None,
            read_file: &no_files,
        },
    );
    let first_failed_gate = match gate {
        Ok(None) => Value::Null,
        Ok(Some(why)) => why.into(),
        Err(refusal) => refusal.line().into(),
    };
    json!({
        "schema": "git-ucg.goal-show/1",
        "session": session.sid,
        "state_file": session.state_file().to_string_lossy(),
        "phase": state::text(state, "phase"),
        "active": state::is_active(state),
        "pristine": super::is_pristine(state),
        "outcome": state::text(state, "outcome"),
        "iteration": state::iteration(state),
        "max_iterations": state::max_iterations(state),
        "objective_verdict": state::text(state, "objective_verdict"),
        "current": current_id.map(|id| id.to_string()),
        "stories": story_rows,
        "completion_evidence_paths": state.get("completion_evidence_paths").cloned().unwrap_or(JsValue::Array(Vec::new())),
        "completion": {
            "ready": first_failed_gate.is_null(),
            "first_failed_gate": first_failed_gate,
        },
        "review": {
            "artifact": review_status,
            "blocking": code_review.as_ref().map(|r| r.open_blocks(dismissals).count()),
            "dispatch_used": state::int_at_least(state.get("review_dispatch_used"), 0).unwrap_or(0),
            "dispatch_cap": state::int_at_least(state.get("review_dispatch_cap"), 0).unwrap_or(state::REVIEW_DISPATCH_GRANT),
            "dismissed": dismissals.len(),
        },
        "liveness": {
            "last_touched_at": state.get("last_touched_at"),
            "idle_secs": touched.map(|t| liveness::idle_secs(t, now)),
            "progress_idle_secs": progress.map(|t| liveness::idle_secs(t, now)),
            "live": liveness::live_for(state::is_active(state), touched, now),
        },
    })
}
