//! Lessons (docs/formats/lesson.md B.2, B.4, B.5): validation with DG-Anvil's codes and order —
//! stricter where the reference accepts non-strings — the ASCII tokenizer, Jaccard similarity,
//! pattern normalization and lesson ids.

use serde_json::{json, Map, Value};

/// A refusal: DG-Anvil's error code, message and details.
#[derive(Debug, Clone, PartialEq)]
pub struct LessonError {
    pub code: &'static str,
    pub message: String,
    pub details: Value,
}

impl LessonError {
    pub fn new(code: &'static str, message: impl Into<String>, details: Value) -> Self {
        LessonError {
            code,
            message: message.into(),
            details,
        }
    }

    /// The one JSON line the CLI prints on stderr: `{"error", "code", "details"}`.
    pub fn to_line(&self) -> String {
        json!({"error": self.message, "code": self.code, "details": self.details}).to_string()
    }
}

pub const REQUIRED: [&str; 3] = ["contract_gap", "evidence", "remediation"];

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `validateEntry` (B.4), in its order; then, where the reference lets it through, a required
/// field that is not a string is refused too (`E_INVALID_LESSON`, rule `not_a_string`).
pub fn validate(entry: &Value) -> Result<&Map<String, Value>, LessonError> {
    let Value::Object(map) = entry else {
        return Err(LessonError::new(
            "E_INVALID_LESSON",
            "lesson must be an object",
            json!({"received": match entry { Value::Null => "object", other => type_name(other) }}),
        ));
    };
    let version = map.get("anvil_ledger_entry_version");
    // `=== 1` in the reference: the number one, written `1` or `1.0`.
    if version.and_then(Value::as_f64) != Some(1.0) {
        return Err(LessonError::new(
            "E_INVALID_LESSON",
            "anvil_ledger_entry_version must be 1",
            json!({"rule": "wrong_version", "value": version.cloned().unwrap_or(Value::Null)}),
        ));
    }
    let non_empty = |key: &str| {
        map.get(key)
            .and_then(Value::as_str)
            .is_some_and(|s| !s.is_empty())
    };
    if !non_empty("id") {
        return Err(LessonError::new(
            "E_INVALID_LESSON",
            "lesson id is required",
            json!({"rule": "missing_id"}),
        ));
    }
    if !non_empty("created") {
        return Err(LessonError::new(
            "E_INVALID_LESSON",
            "lesson created is required",
            json!({"rule": "missing_created"}),
        ));
    }
    for field in REQUIRED {
        match map.get(field) {
            None | Some(Value::Null) => {
                return Err(LessonError::new(
                    "E_NULL_LESSON",
                    format!("lesson field is null: {field}"),
                    json!({"field": field, "value": Value::Null}),
                ))
            }
            Some(Value::String(text)) if text.trim().is_empty() => {
                return Err(LessonError::new(
                    "E_NULL_LESSON",
                    format!("lesson field is empty: {field}"),
                    json!({"field": field, "value": text}),
                ))
            }
            Some(Value::String(_)) => {}
            Some(other) => {
                return Err(LessonError::new(
                    "E_INVALID_LESSON",
                    format!("lesson field must be a string: {field}"),
                    json!({"rule": "not_a_string", "field": field, "received": type_name(other)}),
                ))
            }
        }
    }
    Ok(map)
}

/// The anvil tokenizer: ASCII lowercase, split on every run outside `[a-z0-9]`, empties dropped
/// (so `café` is `caf`).
pub fn tokens(text: &str) -> Vec<String> {
    text.to_ascii_lowercase()
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// Jaccard similarity of two texts' token sets; two empty sets are identical (1).
pub fn jaccard(a: &str, b: &str) -> f64 {
    use std::collections::HashSet;
    let (a, b): (HashSet<String>, HashSet<String>) = (
        tokens(a).into_iter().collect(),
        tokens(b).into_iter().collect(),
    );
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let common = a.intersection(&b).count();
    let all = a.union(&b).count();
    common as f64 / all as f64
}

/// `normalizePatterns`: every element tokenized, the de-duplicated union in first-seen order.
pub fn normalize_patterns(patterns: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for token in patterns.iter().flat_map(|p| tokens(p)) {
        if !out.contains(&token) {
            out.push(token);
        }
    }
    out
}

/// Today's UTC date, `YYYY-MM-DD`.
pub fn today() -> String {
    jiff::Timestamp::now().strftime("%Y-%m-%d").to_string()
}

/// A new lesson id: `L-<UTC date>-<8 lowercase hex>` (4 random bytes).
pub fn new_id() -> String {
    let uuid = crate::store::mkdir_lock::random_uuid();
    format!("L-{}-{}", today(), &uuid[..8])
}

/// The index keys of a lesson (B.3): its `pattern` elements if it has an array of them, else its
/// `tags`, lowercased, not tokenized.
pub fn index_keys(entry: &Map<String, Value>) -> Vec<String> {
    let list = match entry.get("pattern") {
        Some(Value::Array(items)) => items,
        _ => match entry.get("tags") {
            Some(Value::Array(items)) => items,
            _ => return Vec::new(),
        },
    };
    list.iter()
        .map(|p| match p {
            Value::String(s) => s.to_lowercase(),
            other => other.to_string().to_lowercase(),
        })
        .collect()
}

/// The token set `query` scores against: the tokenized `pattern` elements (or the tokenized
/// `pattern` string).
pub fn pattern_tokens(entry: &Map<String, Value>) -> std::collections::HashSet<String> {
    entry.get("pattern").map(value_tokens).unwrap_or_default()
}

/// The token set of a `pattern` value.
pub fn value_tokens(pattern: &Value) -> std::collections::HashSet<String> {
    match Some(pattern) {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .flat_map(tokens)
            .collect(),
        Some(Value::String(text)) => tokens(text).into_iter().collect(),
        _ => Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_similarities() {
        assert_eq!(
            jaccard("astro tailwind shadcn", "astro tailwind shadcn colors"),
            0.75
        );
        assert_eq!(tokens("café Rate-limit 42"), ["caf", "rate", "limit", "42"]);
        assert_eq!(jaccard("", "  "), 1.0);
        let mut normalized = normalize_patterns(&["Astro-Tailwind".into(), "shadcn".into()]);
        normalized.sort();
        assert_eq!(normalized, ["astro", "shadcn", "tailwind"]);
    }

    #[test]
    fn validation_order() {
        let code = |v: Value| validate(&v).err().map(|e| (e.code, e.details));
        assert_eq!(code(json!(null)).unwrap().0, "E_INVALID_LESSON");
        assert_eq!(code(json!({"id": "x"})).unwrap().1["rule"], "wrong_version");
        assert_eq!(
            code(json!({"anvil_ledger_entry_version": "1"})).unwrap().1["rule"],
            "wrong_version"
        );
        assert_eq!(
            code(json!({"anvil_ledger_entry_version": 1, "created": "d"}))
                .unwrap()
                .1["rule"],
            "missing_id"
        );
        let base = json!({"anvil_ledger_entry_version": 1, "id": "L1", "created": "2026-01-01",
            "contract_gap": "g", "evidence": "  ", "remediation": "r"});
        assert_eq!(
            code(base.clone()).unwrap(),
            ("E_NULL_LESSON", json!({"field": "evidence", "value": "  "}))
        );
        let mut number = base;
        number["evidence"] = json!(5);
        assert_eq!(code(number).unwrap().1["rule"], "not_a_string");
    }
}
