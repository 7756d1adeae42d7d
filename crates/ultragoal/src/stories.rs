//! Reading the story list (docs/formats/ultragoal.md §1.4) for the operator's views; the story
//! commands themselves are in `ops`.

use super::state::State;
use serde_json::Value;

pub fn id(story: &Value) -> &str {
    story.get("id").and_then(Value::as_str).unwrap_or("")
}

pub fn status(story: &Value) -> &str {
    story.get("status").and_then(Value::as_str).unwrap_or("")
}

/// The stored stories (an absent or non-array value reads as none).
pub fn list(state: &State) -> &[Value] {
    state
        .get("stories")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}
