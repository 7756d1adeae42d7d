//! `IMPL/.decisions.json`, the operator's answers (formats/ucg.md §1.2). Pure functions over bytes.

use crate::pyjson::{self, Value};
use std::collections::HashSet;

/// The answers file's name inside the implementation-artifacts directory.
pub const DECISIONS_FILE: &str = ".decisions.json";

/// The ids closed by the answers file, as the registry writer reads them: entries that are objects
/// with `action` exactly `"close"` and a string `id`. The reader is fail-open: a missing,
/// unreadable or malformed file closes nothing, so every RED stands.
pub fn closed_ids(bytes: Option<&[u8]>) -> HashSet<String> {
    let Some(text) = bytes.and_then(|b| std::str::from_utf8(b).ok()) else {
        return HashSet::new();
    };
    let Ok(Value::Object(mut doc)) = pyjson::loads(text) else {
        return HashSet::new();
    };
    let Some(Value::Array(entries)) = doc.shift_remove("decisions") else {
        return HashSet::new();
    };
    entries
        .into_iter()
        .filter_map(|entry| {
            let Value::Object(mut entry) = entry else {
                return None;
            };
            if entry.get("action").and_then(Value::as_str) != Some("close") {
                return None;
            }
            match entry.shift_remove("id") {
                Some(Value::Str(id)) => Some(id),
                _ => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_exact_close_with_string_id_counts() {
        let file = br#"{"decisions": [
            {"id": "a", "action": "close"}, {"id": "b", "action": "Close"},
            {"id": "c", "action": "defer"}, {"id": 4, "action": "close"}, "x"]}"#;
        assert_eq!(closed_ids(Some(file)), HashSet::from(["a".to_string()]));
    }

    #[test]
    fn corrupt_files_close_nothing() {
        for bad in [
            &b"{ this is not json"[..],
            b"[]",
            b"{\"decisions\": {}}",
            b"\xff",
        ] {
            assert!(closed_ids(Some(bad)).is_empty());
        }
        assert!(closed_ids(None).is_empty());
    }
}
