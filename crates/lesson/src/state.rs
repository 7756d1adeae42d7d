//! Anvil's task state (`anvil/state.json`): `{"tasks": {"<id>": {"status", "loop_cap"?,
//! "loop_count"?, "last_lesson_id"?, …}}}`. Only the fields the reset loop owns change; every other
//! key, and the key order, stays.

use super::entry::LessonError;
use serde_json::{json, Map, Value};

/// The loop cap when the task does not set one (the plan's default).
pub(crate) const DEFAULT_LOOP_CAP: i64 = 3;

fn state_error(message: impl Into<String>) -> LessonError {
    LessonError::new("E_STATE", message, Value::Null)
}

pub fn parse(bytes: &[u8]) -> Result<Map<String, Value>, LessonError> {
    match serde_json::from_slice(bytes) {
        Ok(Value::Object(state)) => Ok(state),
        _ => Err(state_error("state file is not a JSON object")),
    }
}

/// The task's object.
pub(crate) fn task<'s>(
    state: &'s Map<String, Value>,
    id: &str,
) -> Result<&'s Map<String, Value>, LessonError> {
    state
        .get("tasks")
        .and_then(Value::as_object)
        .and_then(|tasks| tasks.get(id))
        .and_then(Value::as_object)
        .ok_or_else(|| {
            LessonError::new(
                "E_STATE",
                format!("no task {id} in the state file"),
                json!({"task": id}),
            )
        })
}

pub(crate) fn task_mut<'s>(
    state: &'s mut Map<String, Value>,
    id: &str,
) -> Option<&'s mut Map<String, Value>> {
    state
        .get_mut("tasks")?
        .as_object_mut()?
        .get_mut(id)?
        .as_object_mut()
}

/// `loop_cap` (an integer ≥ 1, else the default) and `loop_count` (an integer ≥ 0, else 0).
pub(crate) fn loop_numbers(task: &Map<String, Value>) -> (i64, i64) {
    let number = |key, min, default| {
        let found = task.get(key).and_then(Value::as_i64);
        found.filter(|n| *n >= min).unwrap_or(default)
    };
    (
        number("loop_cap", 1, DEFAULT_LOOP_CAP),
        number("loop_count", 0, 0),
    )
}

/// The state file's bytes: two-space JSON with a final newline.
pub fn to_bytes(state: &Map<String, Value>) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(state).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}
