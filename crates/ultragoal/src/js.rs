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

/// Whether a key is an array index (a canonical integer below 2³² − 1): JavaScript objects
/// enumerate those first, ascending.
pub(crate) fn is_index_key(key: &str) -> bool {
    ucg_store::js::array_index(key.as_bytes()).is_some()
}

/// An object's keys in JavaScript's enumeration order.
pub(crate) fn ordered_keys(object: &Object) -> Vec<&String> {
    let mut index: Vec<&String> = object.keys().filter(|k| is_index_key(k)).collect();
    index.sort_by_key(|k| k.parse::<u64>().unwrap_or(0));
    index.extend(object.keys().filter(|k| !is_index_key(k)));
    index
}

/// Puts an object's keys in JavaScript's order in place (after a `JSON.parse`-like build).
pub fn reorder(object: &mut Object) {
    if !object.keys().any(|k| is_index_key(k)) {
        return;
    }
    let keys: Vec<String> = ordered_keys(object).into_iter().cloned().collect();
    let mut sorted = Object::new();
    for key in keys {
        if let Some(value) = object.shift_remove(&key) {
            sorted.insert(key, value);
        }
    }
    *object = sorted;
}

/// `JSON.stringify(value)` (compact) or `JSON.stringify(value, null, 2)` (pretty).
pub fn stringify(value: &Value, pretty: bool) -> String {
    let mut out = String::new();
    write_value(&mut out, value, pretty, 0);
    out
}

fn newline(out: &mut String, pretty: bool, depth: usize) {
    if pretty {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    }
}

fn write_value(out: &mut String, value: &Value, pretty: bool, depth: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&number_text(n)),
        Value::String(s) => write_string(out, s),
        Value::Array(items) if items.is_empty() => out.push_str("[]"),
        Value::Array(items) => {
            out.push('[');
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                newline(out, pretty, depth + 1);
                write_value(out, item, pretty, depth + 1);
            }
            newline(out, pretty, depth);
            out.push(']');
        }
        Value::Object(object) if object.is_empty() => out.push_str("{}"),
        Value::Object(object) => {
            out.push('{');
            for (n, key) in ordered_keys(object).into_iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                newline(out, pretty, depth + 1);
                write_string(out, key);
                out.push(':');
                if pretty {
                    out.push(' ');
                }
                if let Some(item) = object.get(key) {
                    write_value(out, item, pretty, depth + 1);
                }
            }
            newline(out, pretty, depth);
            out.push('}');
        }
    }
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => match stand_in(c) {
                Some(unit) => out.push_str(&format!("\\u{unit:04x}")),
                None => out.push(c),
            },
        }
    }
    out.push('"');
}

/// A file's text as `readFileSync(path, "utf8")` decodes it: invalid UTF-8 as U+FFFD.
pub fn decode(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// How deep git-ucg nests: JavaScriptCore parses deeper, but its `JSON.stringify` overflows
/// between ten and a hundred thousand levels, so a deeper value can never be written back.
pub const MAX_DEPTH: usize = 10_000;

/// The message of a value nested deeper than [`MAX_DEPTH`] (not JavaScriptCore's: it parses it).
pub(crate) const TOO_DEEP: &str = "JSON Parse error: nested deeper than 10000 levels";

/// `JSON.parse(text)`: the value, or JavaScriptCore's message (`JSON Parse error: …`); a value
/// nested deeper than [`MAX_DEPTH`] is [`TOO_DEEP`].
pub fn parse(text: &str) -> Result<Value, String> {
    let mut parser = Parser {
        chars: text.chars().collect(),
        at: 0,
        depth: 0,
    };
    let value = parser.value().map_err(|e| match e.as_str() {
        TOO_DEEP => e,
        _ => format!("JSON Parse error: {e}"),
    })?;
    match parser.token() {
        Ok(Token::End) => Ok(value),
        Ok(_) => Err("JSON Parse error: Unable to parse JSON string".into()),
        Err(e) => Err(format!("JSON Parse error: {e}")),
    }
}

/// `JSON.parse` of a file's bytes: `None` where the reference's `try { JSON.parse } catch` reads
/// nothing.
pub(crate) fn parse_bytes(bytes: &[u8]) -> Option<Value> {
    parse(&decode(bytes)).ok()
}

#[derive(Debug, PartialEq)]
enum Token {
    End,
    Punct(char),
    Str(String),
    Num(f64),
    True,
    False,
    Null,
    Ident(String),
}

struct Parser {
    chars: Vec<char>,
    at: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn starts_with(&self, word: &str) -> bool {
        word.chars()
            .enumerate()
            .all(|(n, c)| self.chars.get(self.at + n) == Some(&c))
    }

    fn token(&mut self) -> Result<Token, String> {
        while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r')) {
            self.at += 1;
        }
        let Some(c) = self.peek() else {
            return Ok(Token::End);
        };
        match c {
            '[' | ']' | '{' | '}' | ',' | ':' | '.' | '(' | ')' | '=' | ';' => {
                self.at += 1;
                Ok(Token::Punct(c))
            }
            '"' => self.string(),
            '\'' => Err("Single quotes (') are not allowed in JSON".into()),
            '-' | '0'..='9' => self.number(),
            _ => {
                for (word, token) in [
                    ("true", Token::True),
                    ("false", Token::False),
                    ("null", Token::Null),
                ] {
                    if self.starts_with(word) {
                        self.at += word.len();
                        return Ok(token);
                    }
                }
                if c.is_ascii_alphabetic() || c == '_' || c == '$' {
                    let start = self.at;
                    while self
                        .peek()
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
                    {
                        self.at += 1;
                    }
                    return Ok(Token::Ident(self.chars[start..self.at].iter().collect()));
                }
                Err(format!("Unrecognized token '{c}'"))
            }
        }
    }

    fn string(&mut self) -> Result<Token, String> {
        self.at += 1;
        let mut out = String::new();
        let mut pending_high: Option<u32> = None;
        let flush = |out: &mut String, pending: &mut Option<u32>| {
            if let Some(high) = pending.take() {
                out.push(lone_surrogate(high));
            }
        };
        loop {
            let Some(c) = self.peek() else {
                return Err("Unterminated string".into());
            };
            self.at += 1;
            match c {
                '"' => {
                    flush(&mut out, &mut pending_high);
                    return Ok(Token::Str(out));
                }
                c if (c as u32) < 0x20 => return Err("Unterminated string".into()),
                '\\' => {
                    let Some(e) = self.peek() else {
                        return Err("Unterminated string".into());
                    };
                    self.at += 1;
                    let simple = match e {
                        '"' => Some('"'),
                        '\\' => Some('\\'),
                        '/' => Some('/'),
                        'b' => Some('\u{8}'),
                        'f' => Some('\u{c}'),
                        'n' => Some('\n'),
                        'r' => Some('\r'),
                        't' => Some('\t'),
                        'u' => None,
                        other => return Err(format!("Invalid escape character {other}")),
                    };
                    if let Some(simple) = simple {
                        flush(&mut out, &mut pending_high);
                        out.push(simple);
                        continue;
                    }
                    if self.at + 4 > self.chars.len() {
                        return Err("\\u must be followed by 4 hex digits".into());
                    }
                    let hex: String = self.chars[self.at..self.at + 4].iter().collect();
                    let Ok(unit) = u32::from_str_radix(&hex, 16).map_err(|_| ()).and_then(|u| {
                        if hex.chars().all(|c| c.is_ascii_hexdigit()) {
                            Ok(u)
                        } else {
                            Err(())
                        }
                    }) else {
                        return Err(format!("\"\\u{hex}\" is not a valid unicode escape"));
                    };
                    self.at += 4;
                    match unit {
                        0xd800..=0xdbff => {
                            flush(&mut out, &mut pending_high);
                            pending_high = Some(unit);
                        }
                        0xdc00..=0xdfff => match pending_high.take() {
                            Some(high) => {
                                let code = 0x10000 + ((high - 0xd800) << 10) + (unit - 0xdc00);
                                out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                            }
                            None => out.push(lone_surrogate(unit)),
                        },
                        unit => {
                            flush(&mut out, &mut pending_high);
                            out.push(char::from_u32(unit).unwrap_or('\u{fffd}'));
                        }
                    }
                }
                c => {
                    flush(&mut out, &mut pending_high);
                    out.push(c);
                }
            }
        }
    }

    fn number(&mut self) -> Result<Token, String> {
        let start = self.at;
        if self.peek() == Some('-') {
            self.at += 1;
        }
        let digit = |p: &Parser| p.peek().is_some_and(|c| c.is_ascii_digit());
        if !digit(self) {
            return Err("Invalid number".into());
        }
        if self.peek() == Some('0') {
            self.at += 1;
        } else {
            while digit(self) {
                self.at += 1;
            }
        }
        if self.peek() == Some('.') {
            self.at += 1;
            if !digit(self) {
                return Err("Invalid digits after decimal point".into());
            }
            while digit(self) {
                self.at += 1;
            }
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            let mut probe = self.at + 1;
            if matches!(self.chars.get(probe), Some('+' | '-')) {
                probe += 1;
            }
            if self.chars.get(probe).is_some_and(|c| c.is_ascii_digit()) {
                self.at = probe;
                while digit(self) {
                    self.at += 1;
                }
            }
        }
        let text: String = self.chars[start..self.at].iter().collect();
        Ok(Token::Num(text.parse::<f64>().unwrap_or(f64::NAN)))
    }

    fn value(&mut self) -> Result<Value, String> {
        let token = self.token()?;
        self.value_from(token)
    }

    fn value_from(&mut self, token: Token) -> Result<Value, String> {
        match token {
            Token::End => Err("Unexpected EOF".into()),
            Token::Str(s) => Ok(Value::String(s)),
            Token::Num(f) => Ok(number(f)),
            Token::True => Ok(Value::Bool(true)),
            Token::False => Ok(Value::Bool(false)),
            Token::Null => Ok(Value::Null),
            Token::Ident(name) => Err(format!("Unexpected identifier \"{name}\"")),
            Token::Punct('[' | '{') if self.depth >= MAX_DEPTH => Err(TOO_DEEP.into()),
            Token::Punct('[') => {
                self.depth += 1;
                let array = self.array();
                self.depth -= 1;
                array
            }
            Token::Punct('{') => {
                self.depth += 1;
                let object = self.object();
                self.depth -= 1;
                object
            }
            Token::Punct(c) => Err(format!("Unexpected token '{c}'")),
        }
    }

    fn array(&mut self) -> Result<Value, String> {
        let mut items = Vec::new();
        let mut token = self.token()?;
        if token == Token::Punct(']') {
            return Ok(Value::Array(items));
        }
        loop {
            items.push(self.value_from(token)?);
            match self.token()? {
                Token::Punct(',') => {
                    token = self.token()?;
                    if token == Token::Punct(']') {
                        return Err("Unexpected comma at the end of array expression".into());
                    }
                }
                Token::Punct(']') => return Ok(Value::Array(items)),
                _ => return Err("Expected ']'".into()),
            }
        }
    }

    fn object(&mut self) -> Result<Value, String> {
        let mut object = Object::new();
        let mut token = self.token()?;
        if token == Token::Punct('}') {
            return Ok(Value::Object(object));
        }
        if !matches!(token, Token::Str(_)) {
            return Err("Expected '}'".into());
        }
        loop {
            let Token::Str(key) = token else {
                return Err("Property name must be a string literal".into());
            };
            if self.token()? != Token::Punct(':') {
                return Err("Expected ':' before value in object property definition".into());
            }
            let value = self.value()?;
            object.insert(key, value);
            match self.token()? {
                Token::Punct(',') => token = self.token()?,
                Token::Punct('}') => {
                    reorder(&mut object);
                    return Ok(Value::Object(object));
                }
                _ => return Err("Expected '}'".into()),
            }
        }
    }
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
            assert_eq!(parse(text), Err(format!("JSON Parse error: {message}")));
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
