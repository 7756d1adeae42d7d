//! JavaScript as the ultragoal state CLI (TypeScript on Bun, whose engine is JavaScriptCore) sees
//! it: the store's values ([`ucg_store::js`]) parsed as JavaScriptCore parses them, and what the
//! CLI does with them and with its arguments — `String.prototype.trim` and `\s` (their whitespace
//! set: U+FEFF is whitespace, U+0085 is not), `Number()` of a string, `String(x)`, `??`,
//! `Number.isInteger` and truthiness. git-ucg reads and writes the reference's files through these,
//! so both tools agree on every value. `undefined` is `None`.

use regex::Regex;
use std::sync::LazyLock;
use ucg_store::js::Engine;
pub use ucg_store::js::{decode, JsObject, JsString, JsValue, ParseError};

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

/// `typeof v === "number" && Number.isInteger(v) && v >= min`.
pub(crate) fn integer_at_least(value: Option<&JsValue>, min: f64) -> Option<f64> {
    value
        .and_then(JsValue::as_f64)
        .filter(|f| f.is_finite() && f.fract() == 0.0 && *f >= min)
}

/// JavaScript truthiness (`undefined` is `None`).
pub fn truthy(value: Option<&JsValue>) -> bool {
    value.is_some_and(JsValue::truthy)
}

/// `a ?? b`: `None` and `null` fall through.
pub(crate) fn present(value: Option<&JsValue>) -> Option<&JsValue> {
    value.filter(|v| !v.is_null())
}

/// `String(x)` (`None` is `undefined`).
pub(crate) fn string_of(value: Option<&JsValue>) -> JsString {
    value.map_or_else(|| "undefined".into(), JsValue::to_js_string)
}

/// `Number(text)` for a string: JavaScript whitespace around, `0x`/`0o`/`0b` integers,
/// `Infinity`, decimal literals; `NaN` for anything else. The empty string is 0.
pub fn number_of_text(text: &str) -> f64 {
    let t = trim(text);
    if t.is_empty() {
        return 0.0;
    }
    let radix = match t.get(..2) {
        Some("0x" | "0X") => Some(16),
        Some("0o" | "0O") => Some(8),
        Some("0b" | "0B") => Some(2),
        _ => None,
    };
    if let Some(radix) = radix {
        let digits = &t[2..];
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return f64::NAN;
        }
        return digits.chars().fold(0.0, |acc, c| {
            acc * f64::from(radix) + f64::from(c.to_digit(radix).unwrap_or(0))
        });
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
    static DECIMAL: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"^(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$").ok());
    DECIMAL.as_ref().is_some_and(|re| re.is_match(text))
}

/// `JSON.parse(text)` as Bun runs it.
pub fn parse(text: &str) -> Result<JsValue, ParseError> {
    ucg_store::js::parse(text, Engine::JavaScriptCore)
}

/// `JSON.parse` of a file's bytes: `None` where the reference's `try { JSON.parse } catch` reads
/// nothing.
pub(crate) fn parse_bytes(bytes: &[u8]) -> Option<JsValue> {
    parse(&decode(bytes)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn trim_and_strings() {
        assert_eq!(trim("\u{feff} a\u{3000}"), "a");
        assert_eq!(trim("\u{85}"), "\u{85}");
        assert_eq!(
            string_of(parse("[1,[2,3],null]").ok().as_ref()).to_string(),
            "1,2,3,"
        );
        assert_eq!(
            string_of(parse("{}").ok().as_ref()).to_string(),
            "[object Object]"
        );
        assert_eq!(words(" a \u{85}b  c "), ["a", "\u{85}b", "c"]);
    }
}
