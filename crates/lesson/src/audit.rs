//! `audit` of the ledger (docs/formats/lesson.md B.8): every line judged as the reference judges it
//! (a whitespace-only line is `invalid_json` and counted; a line that fails validation takes no part
//! in the duplicate check), the index's ids checked against the ledger — and, beyond the reference,
//! physical line numbers, `null` and torn lines reported (the reference crashes on the one and
//! misreads the other), and the ledger's ids checked against the index. Reads only.

use super::entry::{self, details as issue};
use super::js::{self, JsObject, JsString, JsValue};
use super::ledger::{self, Paths};
use std::collections::HashSet;

fn line_no(n: usize) -> Option<JsValue> {
    Some(JsValue::Number(n as f64))
}

fn text(s: &str) -> Option<JsValue> {
    Some(JsValue::str(s))
}

/// `Object.keys(x)` of a parsed value: an object's keys, an array's or a string's indices.
fn keys_of(value: &JsValue) -> Vec<JsString> {
    let indices = match value {
        JsValue::Object(map) => return map.keys().cloned().collect(),
        JsValue::Array(items) => items.len(),
        JsValue::String(s) => s.units().len(),
        _ => 0,
    };
    (0..indices)
        .map(|i| JsString::from(i.to_string()))
        .collect()
}

/// `{ok, issues, checked: {lessons}}`, as the reference's `audit()` builds it, with git-ucg's
/// additions (physical lines, `null` and torn lines, ids missing from the index, a missing index).
pub fn audit_doc(paths: &Paths) -> JsValue {
    let doc = |issues: Vec<JsValue>, checked: usize| {
        let mut out = JsObject::new();
        out.set("ok", JsValue::Bool(issues.is_empty()));
        out.set("issues", JsValue::Array(issues));
        let mut count = JsObject::new();
        count.set("lessons", JsValue::Number(checked as f64));
        out.set("checked", JsValue::Object(count));
        JsValue::Object(out)
    };
    let bytes = match ucg_store::read_if_present(&paths.ledger) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return doc(Vec::new(), 0),
        Err(e) => {
            return doc(
                vec![issue([
                    ("issue", text("unreadable")),
                    ("details", text(&e.to_string())),
                ])],
                0,
            )
        }
    };
    let (lines, torn) = ledger::lines(&bytes);
    let mut issues = Vec::new();
    let mut seen: HashSet<JsString> = HashSet::new();
    let mut all_ids: HashSet<JsString> = HashSet::new();
    let mut checked = 0;
    for line in &lines {
        checked += 1;
        let value = match &line.parsed {
            Ok(value) => value,
            Err(_) => {
                issues.push(issue([
                    ("line", line_no(line.number)),
                    ("issue", text("invalid_json")),
                ]));
                continue;
            }
        };
        if let Some(JsValue::String(id)) = value.get("id") {
            all_ids.insert(id.clone());
        }
        if let Err(e) = entry::validate(value) {
            let beyond = e.is_beyond_reference();
            issues.push(issue([
                ("line", line_no(line.number)),
                ("id", value.get("id").cloned()),
                ("issue", text(e.code)),
                ("details", Some(e.details)),
            ]));
            // A lesson only git-ucg refuses still counts as the reference's for the rest.
            if !beyond {
                continue;
            }
        }
        let id = value
            .get("id")
            .and_then(JsValue::as_js_str)
            .cloned()
            .unwrap_or_default();
        if !seen.insert(id.clone()) {
            issues.push(issue([
                ("line", line_no(line.number)),
                ("id", Some(JsValue::String(id))),
                ("issue", text("duplicate_id")),
            ]));
        }
    }
    if let Some(line) = torn {
        issues.push(issue([
            ("line", line_no(line)),
            ("issue", text("torn_line")),
        ]));
    }
    match ucg_store::read_if_present(&paths.index) {
        Ok(Some(index_bytes)) => match js::parse_bytes(&index_bytes) {
            Ok(JsValue::Object(index)) => {
                let by_id = index.get("by_id").filter(|v| v.truthy());
                let listed = by_id.map(keys_of).unwrap_or_default();
                for id in &listed {
                    if !seen.contains(id) {
                        issues.push(issue([
                            ("id", Some(JsValue::String(id.clone()))),
                            ("issue", text("index_desync_missing_entry")),
                        ]));
                    }
                }
                let listed: HashSet<&JsString> = listed.iter().collect();
                let mut ids: Vec<&JsString> = all_ids.iter().collect();
                ids.sort();
                for id in ids {
                    if !listed.contains(id) {
                        issues.push(issue([
                            ("id", Some(JsValue::String(id.clone()))),
                            ("issue", text("index_desync_missing_from_index")),
                        ]));
                    }
                }
            }
            // An index that is an array, `null` or another non-object: no ids, as the reference
            // reads it.
            Ok(_) => {}
            Err(_) => issues.push(issue([("issue", text("index_invalid_json"))])),
        },
        Ok(None) => {
            if !all_ids.is_empty() {
                issues.push(issue([("issue", text("index_missing"))]));
            }
        }
        Err(e) => issues.push(issue([
            ("issue", text("index_unreadable")),
            ("details", text(&e.to_string())),
        ])),
    }
    doc(issues, checked)
}
