//! JavaScript's values as DG-Anvil's Node CLI sees them (docs/formats/lesson.md, "JavaScript
//! semantics are part of the format"): `JSON.parse` and `JSON.stringify` byte for byte (integer-like
//! keys first, numbers re-serialized, lone surrogates kept and escaped), strings as UTF-16 code
//! units (`slice` counts them), `String(x)`, `typeof`, truthiness, `trim` and `toLowerCase`.
//! Pure: bytes in, values out, values to bytes.

use indexmap::IndexMap;
use std::borrow::Cow;
use std::fmt::Write as _;

/// A JavaScript string: its code points in WTF-8 (UTF-8 that may also hold lone surrogates, each
/// as the three bytes UTF-8 would give its code point), so that every UTF-16 string round-trips.
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JsString(Vec<u8>);

impl std::fmt::Debug for JsString {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.to_lossy())
    }
}

impl From<&str> for JsString {
    fn from(text: &str) -> Self {
        JsString(text.as_bytes().to_vec())
    }
}

impl From<String> for JsString {
    fn from(text: String) -> Self {
        JsString(text.into_bytes())
    }
}

pub use ucg_store::js::is_space as is_js_space;

impl JsString {
    pub fn new() -> Self {
        JsString(Vec::new())
    }

    /// The WTF-8 bytes.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// A string from bytes [`JsString::as_bytes`] gave (kept by git-ucg, e.g. in its query
    /// index). Other bytes make a string that reads oddly but safely.
    pub(crate) fn from_wtf8(bytes: Vec<u8>) -> JsString {
        JsString(bytes)
    }

    /// The text, when it holds no lone surrogate.
    pub fn as_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.0).ok()
    }

    /// The text, each lone surrogate shown as U+FFFD.
    pub fn to_lossy(&self) -> Cow<'_, str> {
        match self.as_str() {
            Some(text) => Cow::Borrowed(text),
            None => Cow::Owned(
                self.code_points()
                    .map(|c| char::from_u32(c).unwrap_or('\u{FFFD}'))
                    .collect(),
            ),
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The code points (a lone surrogate is one).
    pub(crate) fn code_points(&self) -> CodePoints<'_> {
        CodePoints {
            bytes: &self.0,
            at: 0,
        }
    }

    /// Appends one code point (a surrogate too; a low surrogate right after a lone high one joins
    /// it, as concatenation does in JavaScript).
    pub(crate) fn push_code_point(&mut self, c: u32) {
        if (0xDC00..=0xDFFF).contains(&c) {
            if let Some(high) = self.last_lone_high() {
                self.0.truncate(self.0.len() - 3);
                let joined = 0x10000 + ((high - 0xD800) << 10) + (c - 0xDC00);
                return self.push_code_point(joined);
            }
        }
        match char::from_u32(c) {
            Some(ch) => {
                let mut buf = [0; 4];
                self.0
                    .extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
            None => {
                // A surrogate: the three bytes of its code point.
                self.0.push(0xE0 | (c >> 12) as u8);
                self.0.push(0x80 | ((c >> 6) & 0x3F) as u8);
                self.0.push(0x80 | (c & 0x3F) as u8);
            }
        }
    }

    fn last_lone_high(&self) -> Option<u32> {
        let n = self.0.len();
        if n < 3 {
            return None;
        }
        let tail = &self.0[n - 3..];
        (tail[0] == 0xED && (0xA0..=0xAF).contains(&tail[1])).then(|| {
            ((tail[0] as u32 & 0x0F) << 12)
                | ((tail[1] as u32 & 0x3F) << 6)
                | (tail[2] as u32 & 0x3F)
        })
    }

    pub(crate) fn push_str(&mut self, text: &str) {
        self.0.extend_from_slice(text.as_bytes());
    }

    /// `a + b`.
    pub(crate) fn push_js(&mut self, other: &JsString) {
        for c in other.code_points() {
            self.push_code_point(c);
        }
    }

    /// The UTF-16 code units.
    pub(crate) fn units(&self) -> Vec<u16> {
        let mut out = Vec::with_capacity(self.0.len());
        for c in self.code_points() {
            if c >= 0x10000 {
                let v = c - 0x10000;
                out.push(0xD800 + (v >> 10) as u16);
                out.push(0xDC00 + (v & 0x3FF) as u16);
            } else {
                out.push(c as u16);
            }
        }
        out
    }

    pub fn from_units(units: &[u16]) -> JsString {
        let mut out = JsString::new();
        for c in char::decode_utf16(units.iter().copied()) {
            match c {
                Ok(ch) => out.push_code_point(ch as u32),
                Err(e) => out.push_code_point(e.unpaired_surrogate() as u32),
            }
        }
        out
    }

    /// `s.slice(0, n)`: the first `n` UTF-16 code units (which may end in half a pair).
    pub(crate) fn slice_units(&self, n: usize) -> JsString {
        let units = self.units();
        JsString::from_units(&units[..n.min(units.len())])
    }

    /// `s.trim()`.
    pub(crate) fn trim(&self) -> JsString {
        let points: Vec<u32> = self.code_points().collect();
        let start = points
            .iter()
            .position(|c| !is_js_space(*c))
            .unwrap_or(points.len());
        let end = points
            .iter()
            .rposition(|c| !is_js_space(*c))
            .map_or(start, |i| i + 1);
        let mut out = JsString::new();
        for c in &points[start..end.max(start)] {
            out.push_code_point(*c);
        }
        out
    }

    /// `s.trim().length === 0`.
    pub fn is_blank(&self) -> bool {
        self.code_points().all(is_js_space)
    }

    /// `s.toLowerCase()`: Unicode's full mappings (U+212A → `k`, U+0130 → `i̇`, a final sigma),
    /// lone surrogates unchanged.
    pub(crate) fn to_lowercase(&self) -> JsString {
        if let Some(text) = self.as_str() {
            return JsString::from(text.to_lowercase());
        }
        // Each run between lone surrogates separately: a lone surrogate is neither cased nor
        // case-ignorable, so it ends a final sigma's context the way a run's end does.
        let mut out = JsString::new();
        let mut run = String::new();
        for c in self.code_points() {
            match char::from_u32(c) {
                Some(ch) => run.push(ch),
                None => {
                    out.push_str(&run.to_lowercase());
                    run.clear();
                    out.push_code_point(c);
                }
            }
        }
        out.push_str(&run.to_lowercase());
        out
    }

    /// Whether this key is an array index (`"0"`…`"4294967294"`, no leading zero): JavaScript
    /// orders such keys first, ascending.
    pub fn array_index(&self) -> Option<u32> {
        array_index(&self.0)
    }
}

fn array_index(bytes: &[u8]) -> Option<u32> {
    ucg_store::js::array_index(bytes)
}

/// The code points of a WTF-8 string.
pub(crate) struct CodePoints<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Iterator for CodePoints<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        let b = &self.bytes[self.at..];
        let first = *b.first()?;
        let (len, init) = match first {
            0x00..=0x7F => (1, first as u32),
            0xC0..=0xDF => (2, first as u32 & 0x1F),
            0xE0..=0xEF => (3, first as u32 & 0x0F),
            _ => (4, first as u32 & 0x07),
        };
        let len = len.min(b.len());
        let c = b[1..len]
            .iter()
            .fold(init, |c, byte| (c << 6) | (*byte as u32 & 0x3F));
        self.at += len;
        Some(c)
    }
}

/// An object's own properties in JavaScript's order: integer-like keys first, ascending, then the
/// others in the order they were first set.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JsObject {
    map: IndexMap<JsString, JsValue>,
    /// How many keys at the front are array indices.
    indices: usize,
}

impl JsObject {
    pub fn new() -> Self {
        Self::default()
    }

    /// `obj[key] = value` on an own data property: a key already there keeps its place.
    pub fn insert(&mut self, key: JsString, value: JsValue) {
        if let Some(slot) = self.map.get_mut(&key) {
            *slot = value;
            return;
        }
        match key.array_index() {
            Some(index) => {
                let at = self.map.as_slice()[..self.indices]
                    .keys()
                    .position(|k| k.array_index().is_some_and(|i| i > index))
                    .unwrap_or(self.indices);
                self.map.shift_insert(at, key, value);
                self.indices += 1;
            }
            None => {
                self.map.insert(key, value);
            }
        }
    }

    pub fn set(&mut self, key: &str, value: JsValue) {
        self.insert(JsString::from(key), value);
    }

    pub fn get(&self, key: &str) -> Option<&JsValue> {
        self.map.get(key.as_bytes())
    }

    pub(crate) fn get_js(&self, key: &JsString) -> Option<&JsValue> {
        self.map.get(key)
    }

    pub(crate) fn get_mut(&mut self, key: &str) -> Option<&mut JsValue> {
        self.map.get_mut(key.as_bytes())
    }

    pub(crate) fn get_js_mut(&mut self, key: &JsString) -> Option<&mut JsValue> {
        self.map.get_mut(key)
    }

    pub(crate) fn keys(&self) -> impl Iterator<Item = &JsString> {
        self.map.keys()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&JsString, &JsValue)> {
        self.map.iter()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

impl std::borrow::Borrow<[u8]> for JsString {
    fn borrow(&self) -> &[u8] {
        &self.0
    }
}

/// A JSON value as `JSON.parse` gives it.
#[derive(Clone, Debug, PartialEq)]
pub enum JsValue {
    Null,
    Bool(bool),
    Number(f64),
    String(JsString),
    Array(Vec<JsValue>),
    Object(JsObject),
}

impl JsValue {
    pub fn str(text: &str) -> JsValue {
        JsValue::String(JsString::from(text))
    }

    /// `typeof x`.
    pub(crate) fn type_of(&self) -> &'static str {
        match self {
            JsValue::Null | JsValue::Array(_) | JsValue::Object(_) => "object",
            JsValue::Bool(_) => "boolean",
            JsValue::Number(_) => "number",
            JsValue::String(_) => "string",
        }
    }

    /// `!!x`.
    pub fn truthy(&self) -> bool {
        match self {
            JsValue::Null => false,
            JsValue::Bool(b) => *b,
            JsValue::Number(n) => *n != 0.0 && !n.is_nan(),
            JsValue::String(s) => !s.is_empty(),
            JsValue::Array(_) | JsValue::Object(_) => true,
        }
    }

    /// `x.key` on a value read from JSON: an object's own property; nothing on anything else
    /// (whose properties are never the lesson fields asked for).
    pub fn get(&self, key: &str) -> Option<&JsValue> {
        match self {
            JsValue::Object(map) => map.get(key),
            _ => None,
        }
    }

    pub fn as_js_str(&self) -> Option<&JsString> {
        match self {
            JsValue::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&JsObject> {
        match self {
            JsValue::Object(map) => Some(map),
            _ => None,
        }
    }

    /// `String(x)`: numbers as JavaScript writes them, arrays joined with `,` (null as empty),
    /// objects `[object Object]`.
    pub fn to_js_string(&self) -> JsString {
        let mut out = JsString::new();
        self.write_js_string(&mut out);
        out
    }

    fn write_js_string(&self, out: &mut JsString) {
        match self {
            JsValue::Null => out.push_str("null"),
            JsValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            JsValue::Number(n) => out.push_str(&number_to_string(*n)),
            JsValue::String(s) => out.push_js(s),
            JsValue::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(",");
                    }
                    if !matches!(item, JsValue::Null) {
                        item.write_js_string(out);
                    }
                }
            }
            JsValue::Object(_) => out.push_str("[object Object]"),
        }
    }

    /// `JSON.stringify(x)`, compact.
    pub fn to_json(&self) -> Vec<u8> {
        let mut out = Vec::new();
        write_json(self, &mut out);
        out
    }

    /// `JSON.stringify(x)` as text (lone surrogates are escaped, so it is UTF-8).
    pub fn to_json_string(&self) -> String {
        String::from_utf8(self.to_json()).unwrap_or_default()
    }
}

impl From<serde_json::Value> for JsValue {
    fn from(value: serde_json::Value) -> Self {
        match value {
            serde_json::Value::Null => JsValue::Null,
            serde_json::Value::Bool(b) => JsValue::Bool(b),
            serde_json::Value::Number(n) => JsValue::Number(n.as_f64().unwrap_or(f64::NAN)),
            serde_json::Value::String(s) => JsValue::String(JsString::from(s)),
            serde_json::Value::Array(items) => {
                JsValue::Array(items.into_iter().map(JsValue::from).collect())
            }
            serde_json::Value::Object(map) => {
                let mut out = JsObject::new();
                for (k, v) in map {
                    out.insert(JsString::from(k), JsValue::from(v));
                }
                JsValue::Object(out)
            }
        }
    }
}

impl From<JsObject> for JsValue {
    fn from(map: JsObject) -> Self {
        JsValue::Object(map)
    }
}

impl From<&str> for JsValue {
    fn from(text: &str) -> Self {
        JsValue::str(text)
    }
}

impl From<JsString> for JsValue {
    fn from(text: JsString) -> Self {
        JsValue::String(text)
    }
}

pub use ucg_store::js::number_to_string;

fn write_json(value: &JsValue, out: &mut Vec<u8>) {
    match value {
        JsValue::Null => out.extend_from_slice(b"null"),
        JsValue::Bool(true) => out.extend_from_slice(b"true"),
        JsValue::Bool(false) => out.extend_from_slice(b"false"),
        JsValue::Number(n) if n.is_finite() => {
            out.extend_from_slice(number_to_string(*n).as_bytes())
        }
        JsValue::Number(_) => out.extend_from_slice(b"null"),
        JsValue::String(s) => write_json_string(s, out),
        JsValue::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_json(item, out);
            }
            out.push(b']');
        }
        JsValue::Object(map) => {
            out.push(b'{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_json_string(k, out);
                out.push(b':');
                write_json(v, out);
            }
            out.push(b'}');
        }
    }
}

/// A string as `JSON.stringify` quotes it: `"` `\` and the controls escaped (`\b \t \n \f \r`,
/// else `\u00xx`), a lone surrogate as `\udxxx`, everything else as it is.
pub(crate) fn write_json_string(s: &JsString, out: &mut Vec<u8>) {
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x09 => out.extend_from_slice(b"\\t"),
            0x0A => out.extend_from_slice(b"\\n"),
            0x0C => out.extend_from_slice(b"\\f"),
            0x0D => out.extend_from_slice(b"\\r"),
            0x00..=0x1F => {
                let _ = write!(VecWriter(out), "\\u{:04x}", b);
            }
            0xED if bytes.get(i + 1).is_some_and(|n| *n >= 0xA0) => {
                let c = ((b as u32 & 0x0F) << 12)
                    | ((bytes[i + 1] as u32 & 0x3F) << 6)
                    | (bytes.get(i + 2).copied().unwrap_or(0x80) as u32 & 0x3F);
                let _ = write!(VecWriter(out), "\\u{:04x}", c);
                i += 3;
                continue;
            }
            _ => out.push(b),
        }
        i += 1;
    }
    out.push(b'"');
}

struct VecWriter<'a>(&'a mut Vec<u8>);

impl std::fmt::Write for VecWriter<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// How deep `parse` nests before it gives up (DG-Anvil's `JSON.stringify` fails long before).
pub const MAX_DEPTH: usize = 20_000;

/// Bytes read as Node's `readFileSync(path, 'utf8')` reads them: ill-formed sequences become
/// U+FFFD; a byte order mark stays.
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

/// `JSON.parse(text)`; the error is a SyntaxError's message, in V8's words where it matters.
pub fn parse(text: &str) -> Result<JsValue, String> {
    let mut parser = Parser {
        text: text.as_bytes(),
        at: 0,
        depth: 0,
    };
    parser.space();
    let value = parser.value()?;
    parser.space();
    if parser.at < parser.text.len() {
        return Err(parser.unexpected());
    }
    Ok(value)
}

/// `JSON.parse` of bytes read as text.
pub fn parse_bytes(bytes: &[u8]) -> Result<JsValue, String> {
    parse(&decode(bytes))
}

struct Parser<'a> {
    text: &'a [u8],
    at: usize,
    depth: usize,
}

impl Parser<'_> {
    fn space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.text.get(self.at) {
            self.at += 1;
        }
    }

    fn unexpected(&self) -> String {
        match self.text.get(self.at) {
            None => "Unexpected end of JSON input".into(),
            Some(_) => {
                let rest = String::from_utf8_lossy(&self.text[self.at..]);
                let token = rest.chars().next().unwrap_or(' ');
                format!("Unexpected token '{token}' in JSON at position {}", self.at)
            }
        }
    }

    fn value(&mut self) -> Result<JsValue, String> {
        match self.text.get(self.at) {
            None => Err(self.unexpected()),
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => Ok(JsValue::String(self.string()?)),
            Some(b't') => self.literal(b"true", JsValue::Bool(true)),
            Some(b'f') => self.literal(b"false", JsValue::Bool(false)),
            Some(b'n') => self.literal(b"null", JsValue::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.unexpected()),
        }
    }

    fn literal(&mut self, word: &[u8], value: JsValue) -> Result<JsValue, String> {
        for &b in word {
            if self.text.get(self.at) != Some(&b) {
                return Err(self.unexpected());
            }
            self.at += 1;
        }
        Ok(value)
    }

    fn number(&mut self) -> Result<JsValue, String> {
        let start = self.at;
        if self.text.get(self.at) == Some(&b'-') {
            self.at += 1;
        }
        match self.text.get(self.at) {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.unexpected()),
        }
        if self.text.get(self.at) == Some(&b'.') {
            self.at += 1;
            if !self.text.get(self.at).is_some_and(u8::is_ascii_digit) {
                return Err(self.unexpected());
            }
            self.digits();
        }
        if let Some(b'e' | b'E') = self.text.get(self.at) {
            self.at += 1;
            if let Some(b'+' | b'-') = self.text.get(self.at) {
                self.at += 1;
            }
            if !self.text.get(self.at).is_some_and(u8::is_ascii_digit) {
                return Err(self.unexpected());
            }
            self.digits();
        }
        let literal = std::str::from_utf8(&self.text[start..self.at]).unwrap_or("0");
        Ok(JsValue::Number(literal.parse().unwrap_or(f64::NAN)))
    }

    fn digits(&mut self) {
        while self.text.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let mut c = 0;
        for _ in 0..4 {
            let digit = self
                .text
                .get(self.at)
                .and_then(|b| (*b as char).to_digit(16));
            match digit {
                Some(d) => c = c * 16 + d,
                None => {
                    return Err(match self.text.get(self.at) {
                        None => format!("Unterminated string in JSON at position {}", self.at),
                        Some(_) => format!("Bad Unicode escape in JSON at position {}", self.at),
                    })
                }
            }
            self.at += 1;
        }
        Ok(c)
    }

    fn string(&mut self) -> Result<JsString, String> {
        self.at += 1; // the opening quote
        let mut out = JsString::new();
        loop {
            let start = self.at;
            while let Some(&b) = self.text.get(self.at) {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.at += 1;
            }
            out.0.extend_from_slice(&self.text[start..self.at]);
            match self.text.get(self.at) {
                None => {
                    return Err(format!(
                        "Unterminated string in JSON at position {}",
                        self.at
                    ))
                }
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.at += 1;
                    let c = match self.text.get(self.at) {
                        Some(b'"') => '"' as u32,
                        Some(b'\\') => '\\' as u32,
                        Some(b'/') => '/' as u32,
                        Some(b'b') => 0x08,
                        Some(b'f') => 0x0C,
                        Some(b'n') => 0x0A,
                        Some(b'r') => 0x0D,
                        Some(b't') => 0x09,
                        Some(b'u') => {
                            self.at += 1;
                            let c = self.hex4()?;
                            out.push_code_point(c);
                            continue;
                        }
                        None => {
                            return Err(format!(
                                "Unterminated string in JSON at position {}",
                                self.at
                            ))
                        }
                        Some(_) => {
                            return Err(format!(
                                "Bad escaped character in JSON at position {}",
                                self.at
                            ))
                        }
                    };
                    self.at += 1;
                    out.push_code_point(c);
                }
                Some(_) => {
                    return Err(format!(
                        "Bad control character in string literal in JSON at position {}",
                        self.at
                    ))
                }
            }
        }
    }

    fn enter(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!(
                "nested deeper than {MAX_DEPTH} levels at position {}",
                self.at
            ));
        }
        Ok(())
    }

    fn array(&mut self) -> Result<JsValue, String> {
        self.enter()?;
        self.at += 1;
        let mut items = Vec::new();
        self.space();
        if self.text.get(self.at) == Some(&b']') {
            self.at += 1;
            self.depth -= 1;
            return Ok(JsValue::Array(items));
        }
        loop {
            self.space();
            items.push(self.value()?);
            self.space();
            match self.text.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    self.depth -= 1;
                    return Ok(JsValue::Array(items));
                }
                _ => return Err(self.unexpected()),
            }
        }
    }

    fn object(&mut self) -> Result<JsValue, String> {
        self.enter()?;
        self.at += 1;
        let mut map = JsObject::new();
        self.space();
        if self.text.get(self.at) == Some(&b'}') {
            self.at += 1;
            self.depth -= 1;
            return Ok(JsValue::Object(map));
        }
        loop {
            self.space();
            if self.text.get(self.at) != Some(&b'"') {
                return Err(match self.text.get(self.at) {
                    None => "Unexpected end of JSON input".into(),
                    Some(_) => format!(
                        "Expected property name or '}}' in JSON at position {}",
                        self.at
                    ),
                });
            }
            let key = self.string()?;
            self.space();
            if self.text.get(self.at) != Some(&b':') {
                return Err(match self.text.get(self.at) {
                    None => "Unexpected end of JSON input".into(),
                    Some(_) => format!(
                        "Expected ':' after property name in JSON at position {}",
                        self.at
                    ),
                });
            }
            self.at += 1;
            self.space();
            let value = self.value()?;
            map.insert(key, value);
            self.space();
            match self.text.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    self.depth -= 1;
                    return Ok(JsValue::Object(map));
                }
                None => return Err("Unexpected end of JSON input".into()),
                Some(_) => {
                    return Err(format!(
                        "Expected ',' or '}}' after property value in JSON at position {}",
                        self.at
                    ))
                }
            }
        }
    }
}

/// `a.localeCompare(b)` in the `en-US` locale of Node's ICU: the root collation (CLDR), variable
/// characters not ignored, three levels, equal strings equal. A lone surrogate compares as U+FFFD.
pub fn locale_compare(a: &JsString, b: &JsString) -> std::cmp::Ordering {
    thread_local! {
        static COLLATOR: std::cell::RefCell<feruca::Collator> = std::cell::RefCell::new(
            feruca::Collator::new(feruca::Tailoring::default(), false, false),
        );
    }
    if a == b {
        return std::cmp::Ordering::Equal;
    }
    // Digits and hyphens — the dates DG-Anvil writes — collate as their bytes do: one weight
    // each, `-` below the digits, the digits in order.
    let date_like = |s: &JsString| s.0.iter().all(|c| c.is_ascii_digit() || *c == b'-');
    if date_like(a) && date_like(b) {
        return a.0.cmp(&b.0);
    }
    let (a, b) = (a.to_lossy(), b.to_lossy());
    COLLATOR.with(|c| c.borrow_mut().collate(a.as_ref(), b.as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_javascript_writes_them() {
        for (n, text) in [
            (1.0, "1"),
            (-0.0, "0"),
            (1e21, "1e+21"),
            (1e-7, "1e-7"),
            (123e-20, "1.23e-18"),
            (0.1, "0.1"),
            (12345678901234567890.0, "12345678901234567000"),
            (5e-324, "5e-324"),
            (1.5e300, "1.5e+300"),
            (0.000001, "0.000001"),
            (-2.5, "-2.5"),
            (100.0, "100"),
        ] {
            assert_eq!(number_to_string(n), text);
        }
    }

    #[test]
    fn parse_and_stringify() {
        let v =
            parse(r#"{"b":1,"4294967295":2,"4294967294":3,"10":4,"01":5,"a":1.0,"b":[1e400,-0]}"#)
                .unwrap();
        assert_eq!(
            v.to_json_string(),
            r#"{"10":4,"4294967294":3,"b":[null,0],"4294967295":2,"01":5,"a":1}"#
        );
        let s = parse(r#""\ud800x\u2028\u007f\u0000\u001f\ud83d\ude00""#).unwrap();
        assert_eq!(
            s.to_json_string(),
            "\"\\ud800x\u{2028}\u{7f}\\u0000\\u001f😀\""
        );
        assert!(parse("").is_err());
        assert!(parse("{\"a\":1,}").is_err());
        assert!(parse("\u{feff}{}").is_err());
        assert_eq!(
            JsValue::from(serde_json::json!([1, [2, [3, null]], {"a": 1}, true, null]))
                .to_js_string()
                .to_lossy(),
            "1,2,3,,[object Object],true,"
        );
    }

    #[test]
    fn dates_collate_as_their_bytes() {
        let mut collator = feruca::Collator::new(feruca::Tailoring::default(), false, false);
        let mut collate = |a: &str, b: &str| collator.collate(a, b);
        let alphabet = ["-", "0", "1", "2", "5", "9"];
        let mut texts: Vec<String> = vec![String::new()];
        for _ in 0..3 {
            let longer: Vec<String> = texts
                .iter()
                .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
                .collect();
            texts.extend(longer);
        }
        texts.extend(
            [
                "2026-01-02",
                "2026-1-02",
                "2026-01-012",
                "-2026",
                "2025-12-31",
            ]
            .map(String::from),
        );
        for a in &texts {
            for b in &texts {
                let want = if a == b {
                    std::cmp::Ordering::Equal
                } else {
                    collate(a, b)
                };
                assert_eq!(
                    locale_compare(&a.as_str().into(), &b.as_str().into()),
                    want,
                    "{a:?} {b:?}"
                );
            }
        }
    }

    #[test]
    fn strings() {
        let s = JsString::from("\u{212A}elvin İx ΣΑΣ");
        assert_eq!(s.to_lowercase().to_lossy(), "kelvin i̇x σας");
        let units: Vec<u16> = "a😀".encode_utf16().collect();
        let cut = JsString::from_units(&units[..2]);
        assert_eq!(cut.to_json_string_value(), "\"a\\ud83d\"");
        assert_eq!(JsString::from("\u{feff} a\u{a0}").trim().to_lossy(), "a");
        assert!(!JsString::from("\u{85}").is_blank());
        let mut joined = cut.clone();
        joined.push_code_point(0xDE00);
        assert_eq!(joined.as_str(), Some("a😀"));
    }

    impl JsString {
        fn to_json_string_value(&self) -> String {
            let mut out = Vec::new();
            write_json_string(self, &mut out);
            String::from_utf8(out).unwrap()
        }
    }
}
