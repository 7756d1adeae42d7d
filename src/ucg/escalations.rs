//! Escalation files (formats/ucg.md §1.3–1.4): the typed sidecar `escalation-<story>.json` and
//! the raw Stop-hook marker `.escalation-<story>.md`. Pure functions over names and bytes.

use crate::pyjson::{self, Object, Value};

/// The story a typed sidecar's file name carries (`escalation-7-3.json` → `7-3`); `None` for other
/// names and for an empty story.
pub fn sidecar_story(file_name: &str) -> Option<&str> {
    file_name
        .strip_prefix("escalation-")?
        .strip_suffix(".json")
        .filter(|s| !s.is_empty())
}

/// The story a raw marker's file name carries (`.escalation-7-3.md` → `7-3`).
pub fn marker_story(file_name: &str) -> Option<&str> {
    file_name
        .strip_prefix(".escalation-")?
        .strip_suffix(".md")
        .filter(|s| !s.is_empty())
}

/// A sidecar's payload: the JSON object it holds, or `None` when it is empty, not JSON, not UTF-8
/// or not an object (the readers' "no payload").
pub fn sidecar_payload(bytes: &[u8]) -> Option<Object> {
    let text = std::str::from_utf8(bytes).ok().filter(|t| !t.is_empty())?;
    match pyjson::loads(text).ok()? {
        Value::Object(object) => Some(*object),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_payloads() {
        assert_eq!(sidecar_story("escalation-7-3.json"), Some("7-3"));
        assert_eq!(sidecar_story("escalation-.json"), None);
        assert_eq!(marker_story(".escalation-delta.md"), Some("delta"));
        assert_eq!(marker_story("escalation-delta.md"), None);
        assert!(sidecar_payload(b"{\"kind\": \"k\"}").is_some());
        for bad in [&b""[..], b"\n", b"[1]", b"{", b"\xff"] {
            assert!(sidecar_payload(bad).is_none());
        }
    }
}
