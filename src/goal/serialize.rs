//! What the final code reviewer is given (docs/formats/ultragoal.md §2.9): the requirements, one line
//! per confirmed story, and the five-slot review context as one line of JSON.

use super::state::{self, is_blank, State};
use super::stories;
use serde_json::Value;

const NONE_PROVIDED: &str = "(none provided)";

/// `serialize-requirements`: `[<id>] <story> — AC: <a>; <b> — verify: <surface>` per confirmed
/// story; without one, the outcome as the single requirement; nothing without an outcome.
pub fn requirements(state: &State) -> String {
    let mut out = String::new();
    for story in stories::list(state)
        .iter()
        .filter(|s| stories::status(s) == "confirmed")
    {
        let text = |key: &str| story.get(key).and_then(Value::as_str).unwrap_or("");
        let criteria: Vec<&str> = story
            .get("acceptance_criteria")
            .and_then(Value::as_array)
            .map(|c| c.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        out.push_str(&format!(
            "[{}] {} — AC: {} — verify: {}\n",
            stories::id(story),
            text("story"),
            criteria.join("; "),
            text("verification_surface")
        ));
    }
    if !out.is_empty() {
        return out;
    }
    let outcome = state::text(state, "outcome");
    if is_blank(outcome) {
        return String::new();
    }
    let surface = state::text(state, "verification_surface");
    let check = if is_blank(surface) { outcome } else { surface };
    format!("[outcome] {outcome} — AC: {check} — verify: {check}\n")
}

/// The non-blank parts joined by a blank line, or `(none provided)`.
fn joined(parts: &[String]) -> String {
    let present: Vec<&str> = parts
        .iter()
        .map(String::as_str)
        .filter(|p| !is_blank(p))
        .collect();
    if present.is_empty() {
        NONE_PROVIDED.to_string()
    } else {
        present.join("\n\n")
    }
}

/// `serialize-review-context`: exactly five keys, in this order, as one line of JSON.
pub fn review_context(state: &State) -> String {
    let text = |key: &str| state::text(state, key).to_string();
    let plan = text("plan_path");
    let plan = if is_blank(&plan) {
        String::new()
    } else {
        format!("plan: {plan}")
    };
    let mut doc = serde_json::Map::new();
    doc.insert(
        "what_was_implemented".into(),
        joined(&[text("outcome")]).into(),
    );
    doc.insert(
        "description".into(),
        joined(&[text("resume_summary"), plan]).into(),
    );
    doc.insert("requirements".into(), joined(&[requirements(state)]).into());
    doc.insert(
        "project_context".into(),
        joined(&[text("constraints"), text("boundaries")]).into(),
    );
    doc.insert("non_goals".into(), joined(&[text("non_goals")]).into());
    Value::Object(doc).to_string()
}
