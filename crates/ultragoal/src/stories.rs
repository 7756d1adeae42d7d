//! Reading the story list (docs/formats/ultragoal.md §1.4) for the operator's views; the story
//! commands themselves are in `ops`.

use super::js::{JsString, JsValue};
use super::state::State;

/// A story's id (`""` when it has none as text).
pub fn id(story: &JsValue) -> JsString {
    id_ref(story).clone()
}

/// [`id`], borrowed.
pub(crate) fn id_ref(story: &JsValue) -> &JsString {
    static NONE: JsString = JsString::new();
    story
        .get("id")
        .and_then(JsValue::as_js_str)
        .unwrap_or(&NONE)
}

pub fn status(story: &JsValue) -> &str {
    story.get("status").and_then(JsValue::as_str).unwrap_or("")
}

/// The stored stories (an absent or non-array value reads as none).
pub fn list(state: &State) -> &[JsValue] {
    state
        .get("stories")
        .and_then(JsValue::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}
