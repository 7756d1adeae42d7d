//! The turn budget (docs/formats/ucg.md §1.4, §1.11, §4.4, §5.4): the counter `.budget-<story>.json`,
//! the ceiling from `ULTRACODE_MAX_TURNS`, and the escalation marker and message the Stop hook
//! writes at the ceiling — byte for byte as `budget_stop.py`. Pure functions over text.

use crate::ids::py_strip;
use ucg_store::pyjson::{self, Object, Value};

/// The ceiling when `ULTRACODE_MAX_TURNS` is unset, empty or not an integer.
pub const DEFAULT_MAX_TURNS: i128 = 25;

pub fn counter_file(story: &str) -> String {
    format!(".budget-{story}.json")
}

/// The story whose turn counter is named `name`, if it is one.
pub fn counter_story(name: &str) -> Option<&str> {
    name.strip_prefix(".budget-")?.strip_suffix(".json")
}

pub fn marker_file(story: &str) -> String {
    format!(".escalation-{story}.md")
}

/// `int(value or 25)`, with 25 for anything Python's `int()` refuses: surrounding whitespace, a
/// sign, and `_` between digits are accepted; a value beyond 128 bits saturates.
pub fn max_turns(value: Option<&str>) -> i128 {
    let Some(text) = value.filter(|v| !v.is_empty()) else {
        return DEFAULT_MAX_TURNS;
    };
    let text = py_strip(text);
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let well_formed = !digits.is_empty()
        && !digits.starts_with('_')
        && !digits.ends_with('_')
        && !digits.contains("__")
        && digits.bytes().all(|b| b.is_ascii_digit() || b == b'_');
    if !well_formed {
        return DEFAULT_MAX_TURNS;
    }
    let magnitude = digits
        .bytes()
        .filter(u8::is_ascii_digit)
        .fold(0i128, |n, d| {
            n.saturating_mul(10).saturating_add(i128::from(d - b'0'))
        });
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

/// The turns a counter file holds: its `turns` when it is a JSON object with an integer there,
/// else 0 (an unreadable counter restarts, as the reference's does).
pub fn turns(bytes: Option<&[u8]>) -> i128 {
    let Some(doc) = bytes.and_then(pyjson::object_in) else {
        return 0;
    };
    match doc.get("turns") {
        Some(Value::Int(digits)) => digits.parse().unwrap_or(0),
        Some(Value::Bool(b)) => i128::from(*b),
        _ => 0,
    }
}

/// The counter file's bytes: `json.dumps({"turns": n})`, no newline.
pub fn counter(turns: i128) -> String {
    format!("{{\"turns\": {turns}}}")
}

/// The raw escalation marker the hook writes at the ceiling (em dashes included).
pub fn marker(story: &str, turns: i128, max: i128) -> String {
    format!(
        "# Turn budget escalation \u{2014} story {story}\n\nStory turn budget exceeded (turns {turns}/{max}). UltraCode-Goal stops this story and escalates: re-scope, split, or hand off. A Stop hook cannot interrupt a /goal condition mid-turn, so treat this as advisory \u{2014} the deterministic guard is the gate_eval re-loop budget.\n"
    )
}

/// The hook's one stdout line at the ceiling (`json.dumps`, ASCII-escaped), without the newline.
pub fn system_message(story: &str, turns: i128, max: i128, marker_path: &str) -> String {
    let mut doc = Object::default();
    doc.insert(
        "systemMessage".into(),
        Value::Str(format!(
            "UltraCode-Goal turn budget exceeded for story {story} (turns {turns}/{max}). Escalation marker written to {marker_path}. Stop and escalate this story; do not keep re-looping."
        )),
    );
    doc.insert("suppressOutput".into(), Value::Bool(false));
    pyjson::dumps_compact_ascii(&Value::Object(Box::new(doc)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_ceiling_as_python_reads_it() {
        for (value, max) in [
            (None, 25),
            (Some(""), 25),
            (Some("lots"), 25),
            (Some("0"), 0),
            (Some(" 7\n"), 7),
            (Some("-3"), -3),
            (Some("+4"), 4),
            (Some("1_000"), 1000),
            (Some("1__0"), 25),
            (Some("_1"), 25),
            (Some("3.5"), 25),
        ] {
            assert_eq!(max_turns(value), max, "{value:?}");
        }
    }

    #[test]
    fn counters_restart_when_unreadable() {
        assert_eq!(turns(Some(b"{\"turns\": 24}")), 24);
        for bad in [&b"not json"[..], b"[]", b"{\"turns\": \"3\"}", b"\xff"] {
            assert_eq!(turns(Some(bad)), 0);
        }
        assert_eq!(turns(None), 0);
        assert_eq!(counter(25), "{\"turns\": 25}");
    }

    proptest! {
        #[test]
        fn never_panics(text in ".{0,40}", bytes in prop::collection::vec(any::<u8>(), 0..64)) {
            let _ = max_turns(Some(&text));
            let _ = turns(Some(&bytes));
        }
    }
}
