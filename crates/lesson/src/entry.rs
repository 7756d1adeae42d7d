//! Lessons (docs/formats/lesson.md B.2, B.4, B.5): validation with DG-Anvil's codes, order and
//! details — stricter where the reference accepts non-strings — the tokenizer (JavaScript's
//! `toLowerCase`, then ASCII letters and digits), Jaccard similarity, pattern normalization, the
//! index keys and lesson ids.

use super::js::{JsObject, JsString, JsValue};
use std::collections::HashSet;

/// A refusal: DG-Anvil's error code, message and details (`null` when it has none).
#[derive(Debug, Clone, PartialEq)]
pub struct LessonError {
    pub code: &'static str,
    pub message: String,
    pub details: JsValue,
}

/// A store failure is E_IO with the store's message and no details.
impl From<ucg_store::StoreError> for LessonError {
    fn from(e: ucg_store::StoreError) -> Self {
        LessonError::new("E_IO", e.to_string(), JsValue::Null)
    }
}

impl LessonError {
    pub fn new(
        code: &'static str,
        message: impl Into<String>,
        details: impl Into<JsValue>,
    ) -> Self {
        LessonError {
            code,
            message: message.into(),
            details: details.into(),
        }
    }

    /// The one JSON line the CLI prints on stderr: `{"error", "code", "details"}`, as
    /// `JSON.stringify` writes it.
    pub fn to_line(&self) -> String {
        let mut doc = JsObject::new();
        doc.set("error", JsValue::str(&self.message));
        doc.set("code", JsValue::str(self.code));
        doc.set("details", self.details.clone());
        JsValue::Object(doc).to_json_string()
    }

    /// The details object, made one if it was `null`, to add a key to.
    pub(crate) fn details_mut(&mut self) -> &mut JsObject {
        if !matches!(self.details, JsValue::Object(_)) {
            self.details = JsValue::Object(JsObject::new());
        }
        match &mut self.details {
            JsValue::Object(map) => map,
            _ => unreachable!("made an object above"),
        }
    }

    /// Whether only git-ucg refuses this lesson (the reference would take it).
    pub(crate) fn is_beyond_reference(&self) -> bool {
        matches!(self.details.get("rule"), Some(JsValue::String(r)) if r.as_bytes() == NOT_A_STRING.as_bytes())
    }
}

/// Details built key by key; a value that is `None` is left out, as `JSON.stringify` leaves out
/// `undefined`.
pub fn details<'a>(pairs: impl IntoIterator<Item = (&'a str, Option<JsValue>)>) -> JsValue {
    let mut map = JsObject::new();
    for (key, value) in pairs {
        if let Some(value) = value {
            map.set(key, value);
        }
    }
    JsValue::Object(map)
}

/// What a refusal says it received: `typeof` the value, but `array` for an array.
pub(crate) fn kind_of(value: &JsValue) -> &'static str {
    match value {
        JsValue::Array(_) => "array",
        other => other.type_of(),
    }
}

/// An `E_INVALID_LESSON` refusal with these details.
pub(crate) fn invalid<'a>(
    message: impl Into<String>,
    pairs: impl IntoIterator<Item = (&'a str, Option<JsValue>)>,
) -> LessonError {
    LessonError::new("E_INVALID_LESSON", message, details(pairs))
}

pub(crate) const REQUIRED: [&str; 3] = ["contract_gap", "evidence", "remediation"];

/// The rule of git-ucg's one check beyond the reference's: a required field that is not a string.
pub(crate) const NOT_A_STRING: &str = "not_a_string";

/// `validateEntry` (B.4), in its order and with its details; then, where the reference lets it
/// through, a required field that is not a string is refused too (`E_INVALID_LESSON`, rule
/// `not_a_string`).
pub fn validate(entry: &JsValue) -> Result<&JsObject, LessonError> {
    if !entry.truthy() || !matches!(entry, JsValue::Array(_) | JsValue::Object(_)) {
        let received = JsValue::str(entry.type_of());
        return Err(invalid(
            "lesson must be an object",
            [("received", Some(received))],
        ));
    }
    let version = entry.get("anvil_ledger_entry_version");
    // An array has no version: only an object gets past this.
    let is_version_1 = matches!(version, Some(JsValue::Number(n)) if *n == 1.0);
    let Some(map) = entry.as_object().filter(|_| is_version_1) else {
        return Err(invalid(
            "wrong version",
            [
                ("rule", Some(JsValue::str("wrong_version"))),
                ("value", version.cloned()),
            ],
        ));
    };
    for key in ["id", "created"] {
        if !matches!(map.get(key), Some(JsValue::String(s)) if !s.is_empty()) {
            let rule = JsValue::str(&format!("missing_{key}"));
            return Err(invalid(format!("{key} required"), [("rule", Some(rule))]));
        }
    }
    for field in REQUIRED {
        let value = map.get(field);
        let what = match value {
            None | Some(JsValue::Null) => "null",
            Some(JsValue::String(text)) if text.is_blank() => "empty",
            _ => continue,
        };
        return Err(LessonError::new(
            "E_NULL_LESSON",
            format!("lesson field is {what}: {field}"),
            details([
                ("field", Some(JsValue::str(field))),
                ("value", value.cloned()),
            ]),
        ));
    }
    // The reference accepts the lesson: git-ucg also wants the three fields to be strings.
    for field in REQUIRED {
        if let Some(other) = map.get(field).filter(|v| !matches!(v, JsValue::String(_))) {
            let received = kind_of(other);
            return Err(invalid(
                format!("lesson field must be a string: {field}"),
                [
                    ("rule", Some(JsValue::str(NOT_A_STRING))),
                    ("field", Some(JsValue::str(field))),
                    ("received", Some(JsValue::str(received))),
                ],
            ));
        }
    }
    Ok(map)
}

/// The anvil tokenizer on a string: `toLowerCase` (Unicode's rules), then every run outside
/// `[a-z0-9]` splits, empties dropped (so `café` is `caf`, and U+212A KELVIN SIGN is a `k`).
pub fn tokens(text: &JsString) -> Vec<String> {
    text.to_lowercase()
        .as_bytes()
        .split(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
        .filter(|t| !t.is_empty())
        .map(|t| String::from_utf8_lossy(t).into_owned())
        .collect()
}

/// `tokenize(x)`: `String(x || '')` tokenized — a falsy value has no tokens, anything else is
/// `String(x)` (`[object Object]`, `a,b`, `1e+21`).
pub(crate) fn value_tokens(value: Option<&JsValue>) -> Vec<String> {
    match value {
        Some(v) if v.truthy() => tokens(&v.to_js_string()),
        _ => Vec::new(),
    }
}

/// Jaccard similarity of two texts' token sets; two empty sets are identical (1).
pub(crate) fn jaccard_tokens(a: &[String], b: &[String]) -> f64 {
    let (a, b): (HashSet<&String>, HashSet<&String>) = (a.iter().collect(), b.iter().collect());
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let common = a.intersection(&b).count();
    // Not both empty: the union has at least one token.
    common as f64 / (a.len() + b.len() - common) as f64
}

/// Jaccard similarity of two strings.
pub fn jaccard(a: &str, b: &str) -> f64 {
    jaccard_tokens(&tokens(&JsString::from(a)), &tokens(&JsString::from(b)))
}

/// `normalizePatterns`: every element tokenized, the de-duplicated union in first-seen order.
pub(crate) fn normalize_patterns(patterns: &[JsValue]) -> Vec<String> {
    let tokens = patterns.iter().flat_map(|p| value_tokens(Some(p)));
    tokens
        .collect::<indexmap::IndexSet<String>>()
        .into_iter()
        .collect()
}

/// Today's UTC date, `YYYY-MM-DD`.
pub(crate) fn today() -> String {
    jiff::Timestamp::now().strftime("%Y-%m-%d").to_string()
}

/// A new lesson id: `L-<UTC date>-<8 lowercase hex>` (4 random bytes).
pub(crate) fn new_id() -> String {
    let uuid = ucg_store::mkdir_lock::random_uuid();
    format!("L-{}-{}", today(), &uuid[..8])
}

/// The index keys of a lesson (`updateIndex`, B.3): its `pattern` elements if `pattern` is an
/// array, else its `tags` (an array's elements, a string's characters; a falsy `tags` none),
/// each `String(x).toLowerCase()`, not tokenized. A `tags` that cannot be iterated (a number,
/// `true`, an object), which crashes the reference, gives no keys.
pub fn index_keys(entry: &JsObject) -> Vec<JsString> {
    let items: Vec<JsValue> = match (entry.get("pattern"), entry.get("tags")) {
        (Some(JsValue::Array(items)), _) => items.clone(),
        (_, Some(JsValue::Array(items))) => items.clone(),
        (_, Some(JsValue::String(text))) => text
            .code_points()
            .map(|c| JsValue::String(std::iter::once(c).collect()))
            .collect(),
        _ => Vec::new(),
    };
    items
        .iter()
        .map(|p| p.to_js_string().to_lowercase())
        .collect()
}

/// The token set `query` scores against: the tokenized `pattern` elements when it is an array,
/// else the tokenized `pattern`.
pub fn pattern_tokens(lesson: &JsValue) -> HashSet<String> {
    tokens_of_pattern(lesson.get("pattern"))
}

/// [`pattern_tokens`] of a lesson whose `pattern` is this value.
pub(crate) fn tokens_of_pattern(pattern: Option<&JsValue>) -> HashSet<String> {
    match pattern {
        Some(JsValue::Array(items)) => items.iter().flat_map(|p| value_tokens(Some(p))).collect(),
        other => value_tokens(other).into_iter().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js;

    #[test]
    fn golden_similarities() {
        assert_eq!(
            jaccard("astro tailwind shadcn", "astro tailwind shadcn colors"),
            0.75
        );
        assert_eq!(
            tokens(&"café Rate-limit 42".into()),
            ["caf", "rate", "limit", "42"]
        );
        assert_eq!(tokens(&"\u{212A}ey İndex".into()), ["key", "i", "ndex"]);
        assert_eq!(jaccard("", "  "), 1.0);
        let mut normalized =
            normalize_patterns(&[JsValue::str("Astro-Tailwind"), JsValue::str("shadcn")]);
        normalized.sort();
        assert_eq!(normalized, ["astro", "shadcn", "tailwind"]);
    }

    #[test]
    fn validation_order() {
        let base = r#"{"anvil_ledger_entry_version": 1.0, "id": "L1", "created": "2026-01-01",
            "contract_gap": "g", "evidence": "\ufeff ", "remediation": "r"}"#;
        let blank = r#""\ufeff ""#;
        let not_string =
            r#"E_INVALID_LESSON {"rule":"not_a_string","field":"evidence","received":"number"}"#;
        // U+0085 is no blank for JavaScript (no refusal); a number is a string for the reference
        // only.
        for (lesson, want) in [
            ("null".into(), r#"E_INVALID_LESSON {"received":"object"}"#),
            ("[]".into(), r#"E_INVALID_LESSON {"rule":"wrong_version"}"#),
            (
                r#"{"id": "x"}"#.into(),
                r#"E_INVALID_LESSON {"rule":"wrong_version"}"#,
            ),
            (
                r#"{"anvil_ledger_entry_version": "1"}"#.into(),
                r#"E_INVALID_LESSON {"rule":"wrong_version","value":"1"}"#,
            ),
            (
                r#"{"anvil_ledger_entry_version": 1, "created": "d"}"#.into(),
                r#"E_INVALID_LESSON {"rule":"missing_id"}"#,
            ),
            (
                base.to_string(),
                "E_NULL_LESSON {\"field\":\"evidence\",\"value\":\"\u{feff} \"}",
            ),
            (
                base.replace(r#""evidence": "\ufeff ","#, ""),
                r#"E_NULL_LESSON {"field":"evidence"}"#,
            ),
            (base.replace(blank, r#""\u0085""#), ""),
            (base.replace(blank, "5"), not_string),
            (
                base.replace(blank, "5").replace(r#""r""#, "null"),
                r#"E_NULL_LESSON {"field":"remediation","value":null}"#,
            ),
        ] {
            let refusal = validate(&js::parse(&lesson).unwrap())
                .err()
                .map(|e| format!("{} {}", e.code, e.details.to_json_string()));
            assert_eq!(refusal.as_deref().unwrap_or(""), want, "{lesson}");
        }
    }

    #[test]
    fn index_keys_and_tokens_of_any_value() {
        let keys = |v: &str| {
            index_keys(js::parse(v).unwrap().as_object().unwrap())
                .iter()
                .map(|k| k.to_lossy().into_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            keys(r#"{"pattern": [{"a": 1}, ["A", "b"], 1.0, null, "\u212A"]}"#),
            ["[object object]", "a,b", "1", "null", "k"]
        );
        assert_eq!(keys(r#"{"pattern": "x", "tags": "Ab"}"#), ["a", "b"]);
        assert!(keys(r#"{"tags": 5}"#).is_empty());
        let lesson = js::parse(r#"{"pattern": [0, "Rate-LIMIT", {"x": 1}]}"#).unwrap();
        let mut have: Vec<String> = pattern_tokens(&lesson).into_iter().collect();
        have.sort();
        assert_eq!(have, ["limit", "object", "rate"]);
    }
}
