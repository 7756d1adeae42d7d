//! `audit` of the ledger (docs/formats/lesson.md B.8): every line judged, duplicate ids, the index
//! checked both ways. Reads only.

use super::entry;
use super::ledger::{self, Paths};
use serde_json::{json, Value};
use std::collections::HashSet;

/// `{ok, issues, checked: {lessons}}`: every line judged (a JSON `null` line too, which crashes the
/// reference), duplicate ids, the index checked both ways. Lines are physical, 1-based.
pub fn audit_doc(paths: &Paths) -> Value {
    let bytes = match crate::store::read_if_present(&paths.ledger) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => {
            return json!({"ok": true, "issues": [], "checked": {"lessons": 0}});
        }
        Err(e) => {
            return json!({"ok": false, "issues": [{"issue": "unreadable", "details": e.to_string()}], "checked": {"lessons": 0}});
        }
    };
    let (lines, torn) = ledger::lines(&bytes);
    let mut issues = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut checked = 0;
    for line in &lines {
        checked += 1;
        let value = match &line.parsed {
            Ok(value) => value,
            Err(_) => {
                issues.push(json!({"line": line.number, "issue": "invalid_json"}));
                continue;
            }
        };
        let id = value.get("id").and_then(Value::as_str).map(str::to_string);
        if let Err(e) = entry::validate(value) {
            issues.push(
                json!({"line": line.number, "id": id, "issue": e.code, "details": e.details}),
            );
        }
        if let Some(id) = id {
            if !seen.insert(id.clone()) {
                issues.push(json!({"line": line.number, "id": id, "issue": "duplicate_id"}));
            }
        }
    }
    if let Some(line) = torn {
        issues.push(json!({"line": line, "issue": "torn_line"}));
    }
    match crate::store::read_if_present(&paths.index) {
        Ok(Some(index_bytes)) => match ledger::load_index(Some(&index_bytes)) {
            Ok(index) => {
                let by_id = index.get("by_id").and_then(Value::as_object);
                for id in by_id.into_iter().flat_map(|m| m.keys()) {
                    if !seen.contains(id) {
                        issues.push(json!({"id": id, "issue": "index_desync_missing_entry"}));
                    }
                }
                let mut ids: Vec<&String> = seen.iter().collect();
                ids.sort();
                for id in ids {
                    if !by_id.is_some_and(|m| m.contains_key(id)) {
                        issues.push(json!({"id": id, "issue": "index_desync_missing_from_index"}));
                    }
                }
            }
            Err(_) => issues.push(json!({"issue": "index_invalid_json"})),
        },
        Ok(None) => {
            if !seen.is_empty() {
                issues.push(json!({"issue": "index_missing"}));
            }
        }
        Err(e) => issues.push(json!({"issue": "index_unreadable", "details": e.to_string()})),
    }
    json!({"ok": issues.is_empty(), "issues": issues, "checked": {"lessons": checked}})
}
