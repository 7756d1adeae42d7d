//! JavaScript's view of JSON and text, as the ultragoal state CLI (TypeScript on Bun, whose engine
//! is JavaScriptCore) inherits it: `JSON.parse` with its error wording, `JSON.stringify` with
//! integer-like keys first and numbers written as JavaScript writes them, `String.prototype.trim`
//! and `\s` (their whitespace set: U+FEFF is whitespace, U+0085 is not), `Number()` of a string,
//! `String(x)` and truthiness. git-ucg reads and writes the reference's files through these, so
//! both tools agree on every value.
//!
//! Values are `serde_json::Value`s: a number is stored as an integer when it is integral and fits
//! (so `2.0` reads as 2, as it does in JavaScript), else as a float; `undefined` is `None`. A
//! JavaScript string may hold a lone surrogate (`"\ud800"` parses); a Rust string cannot, so one
//! is kept as the private-use character U+10F800 + (unit − U+D800) and written back as its `\u`
//! escape, as `JSON.stringify` writes it (and as U+FFFD in plain output, as JavaScript prints it).
//! A real character in U+10F800–U+10FFFF is taken for such a stand-in.

use serde_json::{Map, Value};
pub use ucg_store::js::ParseError;
use ucg_store::js::{Engine, JsObject, JsString, JsValue};

pub type Object = Map<String, Value>;

/// JavaScript's whitespace (`WhiteSpace` and `LineTerminator`): what `trim` removes and `\s`
/// matches.
pub fn is_space(c: char) -> bool {
    ucg_store::js::is_space(u32::from(c))
}

/// `String.prototype.trim`.
pub(crate) fn trim(text: &str) -> &str {
    text.trim_matches(is_space)
}

/// `text.trim() === ""`.
pub fn is_blank(text: &str) -> bool {
    trim(text).is_empty()
}

/// `text.split(/\s+/)` after a trim (`line.trim().split(/\s+/)`): the words.
pub fn words(text: &str) -> Vec<&str> {
    let trimmed = trim(text);
    if trimmed.is_empty() {
        return vec![""];
    }
    trimmed.split(is_space).filter(|w| !w.is_empty()).collect()
}

/// The first stand-in for a lone surrogate (U+D800 ↦ U+10F800).
const SURROGATE_BASE: u32 = 0x10_f800;

fn lone_surrogate(unit: u32) -> char {
    char::from_u32(SURROGATE_BASE + (unit - 0xd800)).unwrap_or('\u{fffd}')
}

/// The lone surrogate a character stands for, if it is a stand-in.
fn stand_in(c: char) -> Option<u32> {
    (c as u32 >= SURROGATE_BASE).then(|| c as u32 - SURROGATE_BASE + 0xd800)
}

/// Text as JavaScript prints it to a stream: a lone surrogate becomes U+FFFD.
pub fn printable(text: &str) -> String {
    if !text.chars().any(|c| stand_in(c).is_some()) {
        return text.to_string();
    }
    text.chars()
        .map(|c| if stand_in(c).is_some() { '\u{fffd}' } else { c })
        .collect()
}

/// A number as JSON wants it stored: integral values that fit as integers.
pub(crate) fn number(f: f64) -> Value {
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 9.2e18 {
        Value::from(f as i64)
    } else {
        serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
    }
}

/// `typeof v === "number" && Number.isInteger(v)`.
pub(crate) fn integer(value: Option<&Value>) -> Option<f64> {
    value
        .and_then(Value::as_f64)
        .filter(|f| f.is_finite() && f.fract() == 0.0)
}

/// `typeof v === "number" && Number.isInteger(v) && v >= min`.
pub(crate) fn integer_at_least(value: Option<&Value>, min: f64) -> Option<f64> {
    integer(value).filter(|f| *f >= min)
}

/// JavaScript truthiness (`undefined` is `None`).
pub fn truthy(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(_) | Value::Object(_)) => true,
    }
}

/// `a ?? b`: `None` and `null` fall through.
pub(crate) fn present(value: Option<&Value>) -> Option<&Value> {
    value.filter(|v| !v.is_null())
}

pub use ucg_store::js::number_to_string;

fn number_text(n: &serde_json::Number) -> String {
    // Beyond 2^53 an integer is what JavaScript's double makes of it.
    if let Some(i) = n.as_i64().filter(|i| i.unsigned_abs() <= 1 << 53) {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return number_to_string(u as f64);
    }
    n.as_f64().map_or("null".into(), |f| {
        if f.is_finite() {
            number_to_string(f)
        } else {
            "null".into()
        }
    })
}

/// `String(x)` (`None` is `undefined`).
pub(crate) fn string_of(value: Option<&Value>) -> String {
    match value {
        None => "undefined".into(),
        Some(Value::Null) => "null".into(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => number_text(n),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::Null => String::new(),
                other => string_of(Some(other)),
            })
            .collect::<Vec<_>>()
            .join(","),
        Some(Value::Object(_)) => "[object Object]".into(),
    }
}

/// `Number(text)` for a string: JavaScript whitespace around, `0x`/`0o`/`0b` integers,
/// `Infinity`, decimal literals; `NaN` for anything else. The empty string is 0.
pub fn number_of_text(text: &str) -> f64 {
    let t = trim(text);
    if t.is_empty() {
        return 0.0;
    }
    for (prefix, radix) in [
        ("0x", 16),
        ("0X", 16),
        ("0o", 8),
        ("0O", 8),
        ("0b", 2),
        ("0B", 2),
    ] {
        if let Some(digits) = t.strip_prefix(prefix) {
            if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
                return f64::NAN;
            }
            return digits.chars().fold(0.0, |acc, c| {
                acc * f64::from(radix) + f64::from(c.to_digit(radix).unwrap_or(0))
            });
        }
    }
    let (sign, unsigned) = match t.as_bytes()[0] {
        b'+' => (1.0, &t[1..]),
        b'-' => (-1.0, &t[1..]),
        _ => (1.0, t),
    };
    if unsigned == "Infinity" {
        return sign * f64::INFINITY;
    }
    if !is_decimal_literal(unsigned) {
        return f64::NAN;
    }
    unsigned.parse::<f64>().map_or(f64::NAN, |f| sign * f)
}

/// `digits [. digits] [e [+-] digits]` or `. digits [e …]`, at least one digit before the exponent.
fn is_decimal_literal(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut at = 0;
    let digits = |at: &mut usize| {
        let start = *at;
        while *at < bytes.len() && bytes[*at].is_ascii_digit() {
            *at += 1;
        }
        *at - start
    };
    let mut mantissa = digits(&mut at);
    if at < bytes.len() && bytes[at] == b'.' {
        at += 1;
        mantissa += digits(&mut at);
    }
    if mantissa == 0 {
        return false;
    }
    if at < bytes.len() && (bytes[at] == b'e' || bytes[at] == b'E') {
        at += 1;
        if at < bytes.len() && (bytes[at] == b'+' || bytes[at] == b'-') {
            at += 1;
        }
        if digits(&mut at) == 0 {
            return false;
        }
    }
    at == bytes.len()
}

/// `JSON.stringify(value)` (compact) or `JSON.stringify(value, null, 2)` (pretty).
pub fn stringify(value: &Value, pretty: bool) -> String {
    let value = to_js(value);
    match pretty {
        true => value.to_json_pretty(),
        false => value.to_json_string(),
    }
}

/// A value as the store's model holds it: each stand-in its lone surrogate again.
fn to_js(value: &Value) -> JsValue {
    match value {
        Value::Null => JsValue::Null,
        Value::Bool(b) => JsValue::Bool(*b),
        Value::Number(n) => JsValue::Number(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => JsValue::String(to_js_string(s)),
        Value::Array(items) => JsValue::Array(items.iter().map(to_js).collect()),
        Value::Object(object) => {
            let mut out = JsObject::new();
            for (key, item) in object {
                out.insert(to_js_string(key), to_js(item));
            }
            JsValue::Object(out)
        }
    }
}

fn to_js_string(text: &str) -> JsString {
    let mut out = JsString::new();
    for c in text.chars() {
        out.push_code_point(stand_in(c).unwrap_or(c as u32));
    }
    out
}

/// A parsed value as a `serde_json::Value`: each lone surrogate a stand-in.
fn from_js(value: JsValue) -> Value {
    match value {
        JsValue::Null => Value::Null,
        JsValue::Bool(b) => Value::Bool(b),
        JsValue::Number(f) => number(f),
        JsValue::String(s) => Value::String(from_js_string(&s)),
        JsValue::Array(items) => Value::Array(items.into_iter().map(from_js).collect()),
        JsValue::Object(object) => Value::Object(
            object
                .iter()
                .map(|(key, item)| (from_js_string(key), from_js(item.clone())))
                .collect(),
        ),
    }
}

fn from_js_string(text: &JsString) -> String {
    text.code_points()
        .map(|c| char::from_u32(c).unwrap_or_else(|| lone_surrogate(c)))
        .collect()
}

/// A file's text as `readFileSync(path, "utf8")` decodes it: invalid UTF-8 as U+FFFD.
pub fn decode(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `JSON.parse(text)` as Bun runs it.
pub fn parse(text: &str) -> Result<Value, ParseError> {
    ucg_store::js::parse(text, Engine::JavaScriptCore).map(from_js)
}

/// `JSON.parse` of a file's bytes: `None` where the reference's `try { JSON.parse } catch` reads
/// nothing.
pub(crate) fn parse_bytes(bytes: &[u8]) -> Option<Value> {
    parse(&decode(bytes)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_javascript_writes_them() {
        for (f, text) in [
            (1.0, "1"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1.5, "1.5"),
            (1e-7, "1e-7"),
            (0.000001, "0.000001"),
            (-0.0, "0"),
            (123.456, "123.456"),
            (1.2345e-10, "1.2345e-10"),
            (9007199254740993.0, "9007199254740992"),
        ] {
            assert_eq!(number_to_string(f), text);
        }
    }

    #[test]
    fn number_of_text_as_javascript() {
        for (text, n) in [
            ("0o7", 7.0),
            ("0b11", 3.0),
            ("0X1f", 31.0),
            (" 7 ", 7.0),
            ("\u{a0}7", 7.0),
            ("7\u{feff}", 7.0),
            ("4\n", 4.0),
            ("1e1", 10.0),
            (".5e1", 5.0),
            ("+5", 5.0),
            ("", 0.0),
            ("00012", 12.0),
            ("12.", 12.0),
        ] {
            assert_eq!(number_of_text(text), n, "{text:?}");
        }
        for text in ["\u{85} 7", "1_000", "0x", "-0x10", "inf", "nan", "1e", "."] {
            assert!(number_of_text(text).is_nan(), "{text:?}");
        }
        assert_eq!(number_of_text("-Infinity"), f64::NEG_INFINITY);
    }

    #[test]
    fn parse_errors_in_javascriptcore_words() {
        for (text, message) in [
            ("{", "Expected '}'"),
            ("[1,", "Unexpected EOF"),
            ("'single'", "Single quotes (') are not allowed in JSON"),
            ("{\"a\":1,}", "Property name must be a string literal"),
            ("nope", "Unexpected identifier \"nope\""),
            ("[1]x", "Unable to parse JSON string"),
            ("é", "Unrecognized token 'é'"),
            ("[1,]", "Unexpected comma at the end of array expression"),
            ("1.", "Invalid digits after decimal point"),
            ("-", "Invalid number"),
        ] {
            assert_eq!(
                parse(text).unwrap_err().to_string(),
                format!("JSON Parse error: {message}")
            );
        }
    }

    #[test]
    fn index_keys_first() {
        let v =
            parse(r#"{"b":1,"12":2,"0":3,"-1":4,"01":5,"4294967295":6,"4294967294":7}"#).unwrap();
        assert_eq!(
            stringify(&v, false),
            r#"{"0":3,"12":2,"4294967294":7,"b":1,"-1":4,"01":5,"4294967295":6}"#
        );
        assert_eq!(
            stringify(&parse("[2.0, 1e21, -0]").unwrap(), false),
            "[2,1e+21,0]"
        );
    }

    #[test]
    fn lone_surrogates_survive_a_round_trip() {
        let v = parse(r#"{"a":"x\ud800y","b":"\udc00","c":"\ud83d\ude80"}"#).unwrap();
        assert_eq!(
            stringify(&v, false),
            r#"{"a":"x\ud800y","b":"\udc00","c":"🚀"}"#
        );
        assert_eq!(printable(v["a"].as_str().unwrap()), "x\u{fffd}y");
    }

    #[test]
    fn trim_and_strings() {
        assert_eq!(trim("\u{feff} a\u{3000}"), "a");
        assert_eq!(trim("\u{85}"), "\u{85}");
        assert_eq!(string_of(parse("[1,[2,3],null]").ok().as_ref()), "1,2,3,");
        assert_eq!(string_of(parse("{}").ok().as_ref()), "[object Object]");
        assert_eq!(words(" a \u{85}b  c "), ["a", "\u{85}b", "c"]);
    }
}
