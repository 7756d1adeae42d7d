//! JavaScript's values as both JavaScript references see them — the ultragoal state CLI (TypeScript
//! on Bun, whose engine is JavaScriptCore) and DG-Anvil (Node, V8) — so that git-ucg reads and
//! writes their files as they do: `JSON.parse` (its messages in each [`Engine`]'s words) and
//! `JSON.stringify` byte for byte (integer-like keys first, numbers re-serialized, lone surrogates
//! kept and escaped), strings as UTF-16 code units (`slice` counts them), `String(x)`, `typeof`,
//! truthiness, `trim` (which characters it removes) and `toLowerCase`. Pure: bytes in, values out,
//! values to bytes.

use indexmap::IndexMap;
use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::Write as _;

/// JavaScript's `WhiteSpace` and `LineTerminator`: what `trim` removes and `\s` matches (U+FEFF and
/// U+00A0 are in, U+0085 and U+180E are not).
pub fn is_space(c: u32) -> bool {
    matches!(
        c,
        0x09..=0x0D
            | 0x20
            | 0xA0
            | 0x1680
            | 0x2000..=0x200A
            | 0x2028
            | 0x2029
            | 0x202F
            | 0x205F
            | 0x3000
            | 0xFEFF
    )
}

/// `Number.prototype.toString()` (and `String(n)`, and a number in `JSON.stringify`): the
/// shortest digits that read back, in JavaScript's layout (`1e+21`, `1e-7`, `0.000001`, `-0` as
/// `0`).
pub fn number_to_string(n: f64) -> String {
    // Either zero as the positive one: JavaScript writes no sign on `-0`.
    let n = if n == 0.0 { 0.0 } else { n };
    decimal(n, -5..=21, "", 1)
}

/// The shortest decimal digits that read back as the finite `f` (without its sign), and the
/// decimal point's place in them (JavaScript's n: `0.DIGITS × 10^point`). Where two candidates
/// of that length are equally close, both JavaScript and Python take the even one: `{:e}` finds
/// the length but breaks such a tie upwards, so the digits come from `{:.N$e}`, which rounds the
/// exact value half to even.
fn shortest_decimal(f: f64) -> (String, i64) {
    let shortest = format!("{f:e}");
    let digit_count = shortest
        .split('e')
        .next()
        .map_or(1, |m| m.chars().filter(char::is_ascii_digit).count());
    let sci = format!("{f:.prec$e}", prec = digit_count.saturating_sub(1));
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i64 = exponent.parse().unwrap_or(0);
    (
        mantissa.chars().filter(char::is_ascii_digit).collect(),
        exponent + 1,
    )
}

/// `f` as JavaScript and Python write numbers: `NaN`, `Infinity` and `-Infinity` by name, else
/// its sign (`-0` keeps it) and the [`shortest_decimal`] digits with their decimal point `point`
/// places into them (before them when 0 or less): in fixed notation when `point` is in `fixed` (a
/// whole number followed by `whole_tail`), else in exponent notation (`1.5e+21`), the exponent of
/// at least `exponent_width` digits.
pub(crate) fn decimal(
    f: f64,
    fixed: std::ops::RangeInclusive<i64>,
    whole_tail: &str,
    exponent_width: usize,
) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let (digits, point) = shortest_decimal(f.abs());
    let mut out = String::from(if f.is_sign_negative() { "-" } else { "" });
    let k = digits.len() as i64;
    if !fixed.contains(&point) {
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let sign = if point > 0 { '+' } else { '-' };
        let _ = write!(out, "e{sign}{:0exponent_width$}", (point - 1).abs());
    } else if point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-point) as usize));
        out.push_str(&digits);
    } else if k <= point {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (point - k) as usize));
        out.push_str(whole_tail);
    } else {
        out.push_str(&digits[..point as usize]);
        out.push('.');
        out.push_str(&digits[point as usize..]);
    }
    out
}

/// A JavaScript string: its code points in WTF-8 (UTF-8 that may also hold lone surrogates, each
/// as the three bytes UTF-8 would give its code point), so that every UTF-16 string round-trips.
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JsString(Vec<u8>);

impl std::fmt::Debug for JsString {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.to_lossy())
    }
}

/// The text, each lone surrogate shown as U+FFFD (as JavaScript prints it to a stream).
impl std::fmt::Display for JsString {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_lossy())
    }
}

impl PartialEq<str> for JsString {
    fn eq(&self, other: &str) -> bool {
        self.0 == other.as_bytes()
    }
}

impl JsString {
    pub const fn new() -> Self {
        JsString(Vec::new())
    }

    /// The WTF-8 bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// A string from bytes [`JsString::as_bytes`] gave (kept by git-ucg, e.g. in its query
    /// index). Other bytes make a string that reads oddly but safely.
    pub fn from_wtf8(bytes: Vec<u8>) -> JsString {
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

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The code points (a lone surrogate is one).
    pub fn code_points(&self) -> CodePoints<'_> {
        CodePoints {
            bytes: &self.0,
            at: 0,
        }
    }

    /// Appends one code point (a surrogate too; a low surrogate right after a lone high one joins
    /// it, as concatenation does in JavaScript).
    pub fn push_code_point(&mut self, c: u32) {
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
        let [first, second, third] = self.0.last_chunk::<3>()?.map(u32::from);
        let point = ((first & 0x0F) << 12) | ((second & 0x3F) << 6) | (third & 0x3F);
        (first == 0xED && (0xA0..=0xAF).contains(&second)).then_some(point)
    }

    pub fn push_str(&mut self, text: &str) {
        self.0.extend_from_slice(text.as_bytes());
    }

    /// `a + b`.
    pub fn push_js(&mut self, other: &JsString) {
        for c in other.code_points() {
            self.push_code_point(c);
        }
    }

    /// The UTF-16 code units.
    pub fn units(&self) -> Vec<u16> {
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
        char::decode_utf16(units.iter().copied())
            .map(|c| c.map_or_else(|e| u32::from(e.unpaired_surrogate()), u32::from))
            .collect()
    }

    /// `s.slice(0, n)`: the first `n` UTF-16 code units (which may end in half a pair).
    pub fn slice_units(&self, n: usize) -> JsString {
        let units = self.units();
        JsString::from_units(&units[..n.min(units.len())])
    }

    /// `s.trim()`.
    pub fn trim(&self) -> JsString {
        let mut points: Vec<u32> = self.code_points().skip_while(|c| is_space(*c)).collect();
        while points.last().is_some_and(|c| is_space(*c)) {
            points.pop();
        }
        points.into_iter().collect()
    }

    /// `s.trim().length === 0`.
    pub fn is_blank(&self) -> bool {
        self.code_points().all(is_space)
    }

    /// `s.toLowerCase()`: Unicode's full mappings (U+212A → `k`, U+0130 → `i̇`, a final sigma),
    /// lone surrogates unchanged.
    pub fn to_lowercase(&self) -> JsString {
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
        let key = &self.0;
        let leading_zero = key.len() > 1 && key[0] == b'0';
        if key.is_empty() || key.len() > 10 || !key.iter().all(u8::is_ascii_digit) || leading_zero {
            return None;
        }
        let value: u64 = key.iter().fold(0, |n, b| n * 10 + u64::from(b - b'0'));
        u32::try_from(value).ok().filter(|&v| v <= 4_294_967_294)
    }
}

/// A string of these code points, each appended by [`JsString::push_code_point`].
impl FromIterator<u32> for JsString {
    fn from_iter<I: IntoIterator<Item = u32>>(points: I) -> Self {
        let mut out = JsString::new();
        for c in points {
            out.push_code_point(c);
        }
        out
    }
}

/// The code points of a WTF-8 string.
pub struct CodePoints<'a> {
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

    pub fn get_js(&self, key: &JsString) -> Option<&JsValue> {
        self.map.get(key)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut JsValue> {
        self.map.get_mut(key.as_bytes())
    }

    pub fn get_js_mut(&mut self, key: &JsString) -> Option<&mut JsValue> {
        self.map.get_mut(key)
    }

    pub fn keys(&self) -> impl Iterator<Item = &JsString> {
        self.map.keys()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&JsString, &JsValue)> {
        self.map.iter()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.map.contains_key(key.as_bytes())
    }
}

impl IntoIterator for JsObject {
    type Item = (JsString, JsValue);
    type IntoIter = indexmap::map::IntoIter<JsString, JsValue>;
    fn into_iter(self) -> Self::IntoIter {
        self.map.into_iter()
    }
}

impl FromIterator<(JsString, JsValue)> for JsObject {
    fn from_iter<I: IntoIterator<Item = (JsString, JsValue)>>(pairs: I) -> Self {
        let mut object = JsObject::new();
        for (key, value) in pairs {
            object.insert(key, value);
        }
        object
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
    pub fn type_of(&self) -> &'static str {
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

    /// The text of a string that holds no lone surrogate.
    pub fn as_str(&self) -> Option<&str> {
        self.as_js_str().and_then(JsString::as_str)
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            JsValue::Number(n) => Some(*n),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&Vec<JsValue>> {
        match self {
            JsValue::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, JsValue::Null)
    }

    pub fn is_boolean(&self) -> bool {
        matches!(self, JsValue::Bool(_))
    }

    pub fn is_string(&self) -> bool {
        matches!(self, JsValue::String(_))
    }

    pub fn is_array(&self) -> bool {
        matches!(self, JsValue::Array(_))
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
        match self {
            JsValue::Null => out.push_str("null"),
            JsValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            JsValue::Number(n) => out.push_str(&number_to_string(*n)),
            JsValue::String(s) => out.push_js(s),
            JsValue::Array(items) => return JsValue::join(items, ","),
            JsValue::Object(_) => out.push_str("[object Object]"),
        }
        out
    }

    /// `items.join(separator)`: `null` as the empty string.
    pub fn join(items: &[JsValue], separator: &str) -> JsString {
        let mut out = JsString::new();
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push_str(separator);
            }
            if !item.is_null() {
                out.push_js(&item.to_js_string());
            }
        }
        out
    }

    /// `JSON.stringify(x)`, compact.
    pub fn to_json(&self) -> Vec<u8> {
        let mut out = Vec::new();
        write_json(self, &mut out, None, 0);
        out
    }

    /// `JSON.stringify(x, null, 2)`.
    pub fn to_json_pretty(&self) -> String {
        let mut out = Vec::new();
        write_json(self, &mut out, Some(2), 0);
        String::from_utf8(out).unwrap_or_default()
    }

    /// `JSON.stringify(x)` as text (lone surrogates are escaped, so it is UTF-8).
    pub fn to_json_string(&self) -> String {
        String::from_utf8(self.to_json()).unwrap_or_default()
    }
}

/// git-ucg's own JSON output of a value, in serde's layout (an integral number as an integer, a
/// lone surrogate as U+FFFD).
impl serde::Serialize for JsValue {
    fn serialize<S: serde::Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        match self {
            JsValue::Null => out.serialize_unit(),
            JsValue::Bool(b) => out.serialize_bool(*b),
            JsValue::Number(n) if n.fract() == 0.0 && n.abs() < 9.2e18 => {
                out.serialize_i64(*n as i64)
            }
            JsValue::Number(n) => out.serialize_f64(*n),
            JsValue::String(text) => out.serialize_str(&text.to_lossy()),
            JsValue::Array(items) => out.collect_seq(items),
            JsValue::Object(map) => out.collect_map(map.iter().map(|(k, v)| (k.to_lossy(), v))),
        }
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
                JsValue::Object(map.into_iter().map(|(k, v)| (k.into(), v.into())).collect())
            }
        }
    }
}

/// `impl From<$from> for $to` by the conversion `$convert`, for each pair given.
macro_rules! from_impls {
    ($to:ty: $($from:ty => $convert:expr),+ $(,)?) => {
        $(impl From<$from> for $to {
            fn from(value: $from) -> Self {
                $convert(value)
            }
        })+
    };
}

from_impls!(JsValue:
    JsObject => JsValue::Object,
    &str => JsValue::str,
    String => |text| JsValue::String(JsString::from(text)),
    bool => JsValue::Bool,
    f64 => JsValue::Number,
    // A JavaScript number: every integer is a double.
    i64 => |n| JsValue::Number(n as f64),
    Vec<JsValue> => JsValue::Array,
    JsString => JsValue::String,
);
from_impls!(JsString:
    &str => |text: &str| JsString(text.as_bytes().to_vec()),
    String => |text: String| JsString(text.into_bytes()),
);

/// `JSON.stringify(value)`, or with `indent` (`JSON.stringify(value, null, 2)` is `Some(2)`) each
/// item on a line of its own, `depth` levels in.
fn write_json(value: &JsValue, out: &mut Vec<u8>, indent: Option<usize>, depth: usize) {
    let newline = |out: &mut Vec<u8>, depth: usize| {
        if let Some(width) = indent {
            out.push(b'\n');
            out.extend(std::iter::repeat_n(b' ', width * depth));
        }
    };
    match value {
        JsValue::Bool(true) => out.extend_from_slice(b"true"),
        JsValue::Bool(false) => out.extend_from_slice(b"false"),
        JsValue::Number(n) if n.is_finite() => {
            out.extend_from_slice(number_to_string(*n).as_bytes())
        }
        JsValue::Null | JsValue::Number(_) => out.extend_from_slice(b"null"),
        JsValue::String(s) => write_json_string(s, out),
        JsValue::Array(items) if items.is_empty() => out.extend_from_slice(b"[]"),
        JsValue::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                newline(out, depth + 1);
                write_json(item, out, indent, depth + 1);
            }
            newline(out, depth);
            out.push(b']');
        }
        JsValue::Object(map) if map.is_empty() => out.extend_from_slice(b"{}"),
        JsValue::Object(map) => {
            out.push(b'{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                newline(out, depth + 1);
                write_json_string(k, out);
                out.push(b':');
                if indent.is_some() {
                    out.push(b' ');
                }
                write_json(v, out, indent, depth + 1);
            }
            newline(out, depth);
            out.push(b'}');
        }
    }
}

/// A string as `JSON.stringify` quotes it: `"` `\` and the controls escaped (`\b \t \n \f \r`,
/// else `\u00xx`), a lone surrogate as `\udxxx`, everything else as it is.
pub fn write_json_string(s: &JsString, out: &mut Vec<u8>) {
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
                let _ = write!(out, "\\u{:04x}", b);
            }
            0xED if bytes.get(i + 1).is_some_and(|n| *n >= 0xA0) => {
                let c = ((b as u32 & 0x0F) << 12)
                    | ((bytes[i + 1] as u32 & 0x3F) << 6)
                    | (bytes.get(i + 2).copied().unwrap_or(0x80) as u32 & 0x3F);
                let _ = write!(out, "\\u{:04x}", c);
                i += 3;
                continue;
            }
            _ => out.push(b),
        }
        i += 1;
    }
    out.push(b'"');
}

/// Bytes read as `readFileSync(path, "utf8")` reads them (in Node and in Bun): ill-formed
/// sequences become U+FFFD; a byte order mark stays.
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

/// The engine whose `JSON.parse` a reference runs on. Both accept the same texts and build the same
/// values; they word a rejection differently, and git-ucg stops at a different depth for each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// Bun's: the ultragoal state CLI.
    JavaScriptCore,
    /// Node's: DG-Anvil.
    V8,
}

impl Engine {
    /// How deep `parse` nests before it gives up. Neither engine has this limit, but neither can
    /// write a deeper value back: JavaScriptCore's `JSON.stringify` overflows between ten and a
    /// hundred thousand levels, DG-Anvil's long before twenty thousand.
    pub const fn max_depth(self) -> usize {
        match self {
            Engine::JavaScriptCore => 10_000,
            Engine::V8 => 20_000,
        }
    }
}

/// Why `JSON.parse` refused a text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The engine's SyntaxError, in its words.
    #[error("{0}")]
    Syntax(String),
    /// Nested deeper than [`Engine::max_depth`] (a text the engine itself would take).
    #[error("{}", too_deep_message(*.engine, *.at))]
    TooDeep { engine: Engine, at: usize },
}

fn too_deep_message(engine: Engine, at: usize) -> String {
    let depth = engine.max_depth();
    match engine {
        Engine::JavaScriptCore => format!("JSON Parse error: nested deeper than {depth} levels"),
        Engine::V8 => format!("nested deeper than {depth} levels at position {at}"),
    }
}

/// `JSON.parse(text)` as `engine` runs it.
pub fn parse(text: &str, engine: Engine) -> Result<JsValue, ParseError> {
    let mut parser = Parser {
        text,
        at: 0,
        depth: 0,
        engine,
    };
    let value = parser.value(Place::Value).and_then(|value| {
        parser.space();
        match parser.at < text.len() {
            true => Err(parser.unexpected(Place::End)),
            false => Ok(value),
        }
    });
    value.map_err(|fault| parser.word(fault))
}

/// Where the parser stands when it meets what it cannot take: the engines word it by this.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Value,
    /// A value after an array's comma (JavaScriptCore names a trailing comma).
    ValueAfterComma,
    /// After an array's item: `,` or `]`.
    ArrayNext,
    /// Right after `{`: a key or `}`.
    FirstKey,
    /// After an object's comma: a key.
    Key,
    Colon,
    /// After an object's value: `,` or `}`.
    ObjectNext,
    /// After the whole value: nothing more.
    End,
}

#[derive(Clone, Copy)]
enum Kind {
    /// A token (or the end) the place does not take.
    Unexpected(Place),
    /// The text ends inside a string.
    Unterminated,
    /// A control character inside a string.
    Control,
    /// A backslash before a character that escapes nothing.
    Escape,
    /// `\u` not followed by four hex digits, which should start at `digits`.
    Unicode {
        digits: usize,
    },
    /// `-` without a digit.
    Minus,
    /// `.` without a digit.
    Fraction,
    /// An exponent without a digit (JavaScriptCore ends the number before the `e` instead).
    Exponent,
    TooDeep,
}

/// What went wrong: `at` the byte V8 names, `token` the start of the token JavaScriptCore's lexer
/// was reading (it words an error by the whole token).
struct Fault {
    token: usize,
    at: usize,
    kind: Kind,
}

/// A token as JavaScriptCore's lexer reads it, for its messages.
enum Token<'a> {
    End,
    Punct(char),
    Ident(&'a str),
    /// A string, number or literal.
    Other,
}

struct Parser<'a> {
    text: &'a str,
    at: usize,
    depth: usize,
    engine: Engine,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    /// Steps over `b` when it comes next; whether it did.
    fn eat(&mut self, b: u8) -> bool {
        let next = self.peek() == Some(b);
        self.at += usize::from(next);
        next
    }

    fn fault(&self, token: usize, kind: Kind) -> Fault {
        Fault {
            token,
            at: self.at,
            kind,
        }
    }

    fn unexpected(&self, place: Place) -> Fault {
        self.fault(self.at, Kind::Unexpected(place))
    }

    fn value(&mut self, place: Place) -> Result<JsValue, Fault> {
        self.space();
        match self.peek() {
            Some(b'{' | b'[') if self.depth == self.engine.max_depth() => {
                Err(self.fault(self.at, Kind::TooDeep))
            }
            Some(open @ (b'{' | b'[')) => {
                self.at += 1;
                self.depth += 1;
                let nested = if open == b'{' {
                    self.object()
                } else {
                    self.array()
                };
                self.depth -= 1;
                nested
            }
            Some(b'"') => self.string().map(JsValue::String),
            Some(b't') => self.literal("true", JsValue::Bool(true)),
            Some(b'f') => self.literal("false", JsValue::Bool(false)),
            Some(b'n') => self.literal("null", JsValue::Null),
            Some(b'-' | b'0'..=b'9') => self.number().map(JsValue::Number),
            _ => Err(self.unexpected(place)),
        }
    }

    fn literal(&mut self, word: &str, value: JsValue) -> Result<JsValue, Fault> {
        let start = self.at;
        for &b in word.as_bytes() {
            if self.peek() != Some(b) {
                return Err(self.fault(start, Kind::Unexpected(Place::Value)));
            }
            self.at += 1;
        }
        Ok(value)
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
        self.at - start
    }

    fn number(&mut self) -> Result<f64, Fault> {
        let start = self.at;
        self.eat(b'-');
        match self.peek() {
            Some(b'0') => self.at += 1,
            _ if self.digits() > 0 => {}
            _ => return Err(self.fault(start, Kind::Minus)),
        }
        if self.eat(b'.') && self.digits() == 0 {
            return Err(self.fault(start, Kind::Fraction));
        }
        if let Some(b'e' | b'E') = self.peek() {
            let before = self.at;
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            if self.digits() == 0 {
                match self.engine {
                    Engine::JavaScriptCore => self.at = before,
                    Engine::V8 => return Err(self.fault(start, Kind::Exponent)),
                }
            }
        }
        Ok(self.text[start..self.at].parse().unwrap_or(f64::NAN))
    }

    fn string(&mut self) -> Result<JsString, Fault> {
        let start = self.at;
        self.at += 1; // the opening quote
        let mut out = JsString::new();
        loop {
            let run = self.at;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.at += 1;
            }
            out.0.extend_from_slice(&self.text.as_bytes()[run..self.at]);
            let escaped = match self.peek() {
                None => return Err(self.fault(start, Kind::Unterminated)),
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.at += 1;
                    match self.peek() {
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
                            let unit = self.hex4(start)?;
                            out.push_code_point(unit);
                            continue;
                        }
                        None => return Err(self.fault(start, Kind::Unterminated)),
                        Some(_) => return Err(self.fault(start, Kind::Escape)),
                    }
                }
                Some(_) => return Err(self.fault(start, Kind::Control)),
            };
            self.at += 1;
            out.push_code_point(escaped);
        }
    }

    fn hex4(&mut self, token: usize) -> Result<u32, Fault> {
        let digits = self.at;
        let mut unit = 0;
        for _ in 0..4 {
            match self.peek().and_then(|b| (b as char).to_digit(16)) {
                Some(d) => unit = unit * 16 + d,
                None => return Err(self.fault(token, Kind::Unicode { digits })),
            }
            self.at += 1;
        }
        Ok(unit)
    }

    /// The items of the array whose `[` was just read.
    fn array(&mut self) -> Result<JsValue, Fault> {
        let mut items = Vec::new();
        self.space();
        if self.eat(b']') {
            return Ok(JsValue::Array(items));
        }
        let mut place = Place::Value;
        loop {
            items.push(self.value(place)?);
            self.space();
            if self.eat(b']') {
                return Ok(JsValue::Array(items));
            }
            if !self.eat(b',') {
                return Err(self.unexpected(Place::ArrayNext));
            }
            place = Place::ValueAfterComma;
        }
    }

    /// The members of the object whose `{` was just read.
    fn object(&mut self) -> Result<JsValue, Fault> {
        let mut map = JsObject::new();
        let mut place = Place::FirstKey;
        loop {
            self.space();
            if place == Place::FirstKey && self.eat(b'}') {
                return Ok(JsValue::Object(map));
            }
            if self.peek() != Some(b'"') {
                return Err(self.unexpected(place));
            }
            let key = self.string()?;
            self.space();
            if !self.eat(b':') {
                return Err(self.unexpected(Place::Colon));
            }
            let value = self.value(Place::Value)?;
            map.insert(key, value);
            self.space();
            if self.eat(b'}') {
                return Ok(JsValue::Object(map));
            }
            if !self.eat(b',') {
                return Err(self.unexpected(Place::ObjectNext));
            }
            place = Place::Key;
        }
    }

    /// The engine's message for a fault.
    fn word(&self, fault: Fault) -> ParseError {
        if let Kind::TooDeep = fault.kind {
            return ParseError::TooDeep {
                engine: self.engine,
                at: fault.at,
            };
        }
        ParseError::Syntax(match self.engine {
            Engine::JavaScriptCore => format!("JSON Parse error: {}", self.jsc_words(&fault)),
            Engine::V8 => self.v8_words(&fault),
        })
    }

    fn char_at(&self, at: usize) -> char {
        self.text[at..].chars().next().unwrap_or(' ')
    }

    fn v8_words(&self, fault: &Fault) -> String {
        let at = fault.at;
        if at == self.text.len() {
            return match fault.kind {
                Kind::Unterminated | Kind::Unicode { .. } => {
                    format!("Unterminated string in JSON at position {at}")
                }
                _ => "Unexpected end of JSON input".into(),
            };
        }
        let what = match fault.kind {
            Kind::Unterminated => "Unterminated string",
            Kind::Control => "Bad control character in string literal",
            Kind::Escape => "Bad escaped character",
            Kind::Unicode { .. } => "Bad Unicode escape",
            Kind::Unexpected(Place::FirstKey | Place::Key) => "Expected property name or '}'",
            Kind::Unexpected(Place::Colon) => "Expected ':' after property name",
            Kind::Unexpected(Place::ObjectNext) => "Expected ',' or '}' after property value",
            _ => {
                return format!(
                    "Unexpected token '{}' in JSON at position {at}",
                    self.char_at(at)
                )
            }
        };
        format!("{what} in JSON at position {at}")
    }

    /// JavaScriptCore's lexer reads a whole token before its parser looks at it: the message
    /// names the token at the fault's start, or what is wrong inside it.
    fn jsc_words(&self, fault: &Fault) -> String {
        let token = match self.jsc_token(fault.token) {
            Ok(token) => token,
            Err(message) => return message,
        };
        // A fault inside a token faults again when the token is read: only a whole token the
        // place does not take reaches here.
        let Kind::Unexpected(place) = fault.kind else {
            return "Unable to parse JSON string".into();
        };
        match (place, token) {
            (Place::Value | Place::ValueAfterComma, Token::End) => "Unexpected EOF".into(),
            (Place::Value | Place::ValueAfterComma, Token::Ident(name)) => {
                format!("Unexpected identifier \"{name}\"")
            }
            (Place::ValueAfterComma, Token::Punct(']')) => {
                "Unexpected comma at the end of array expression".into()
            }
            (Place::Value | Place::ValueAfterComma, _) => {
                format!("Unexpected token '{}'", self.char_at(fault.token))
            }
            (Place::ArrayNext, _) => "Expected ']'".into(),
            (Place::FirstKey | Place::ObjectNext, _) => "Expected '}'".into(),
            (Place::Key, _) => "Property name must be a string literal".into(),
            (Place::Colon, _) => "Expected ':' before value in object property definition".into(),
            (Place::End, _) => "Unable to parse JSON string".into(),
        }
    }

    /// The token at `at` as JavaScriptCore's lexer reads it, or its lexer's error.
    fn jsc_token(&self, at: usize) -> Result<Token<'a>, String> {
        let mut lexer = Parser {
            text: self.text,
            at,
            depth: 0,
            engine: Engine::JavaScriptCore,
        };
        let rest = &self.text[at..];
        let Some(c) = rest.chars().next() else {
            return Ok(Token::End);
        };
        let inside = match c {
            '"' => lexer.string().err(),
            '-' | '0'..='9' => lexer.number().err(),
            '\'' => return Err("Single quotes (') are not allowed in JSON".into()),
            '[' | ']' | '{' | '}' | ',' | ':' | '.' | '(' | ')' | '=' | ';' => {
                return Ok(Token::Punct(c))
            }
            _ if ["true", "false", "null"]
                .iter()
                .any(|w| rest.starts_with(w)) =>
            {
                None
            }
            _ if c.is_ascii_alphabetic() || c == '_' || c == '$' => {
                let end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
                    .unwrap_or(rest.len());
                return Ok(Token::Ident(&rest[..end]));
            }
            _ => return Err(format!("Unrecognized token '{c}'")),
        };
        let Some(fault) = inside else {
            return Ok(Token::Other);
        };
        Err(match fault.kind {
            Kind::Escape => format!("Invalid escape character {}", self.char_at(fault.at)),
            Kind::Unicode { digits } => {
                let hex: String = self.text[digits..].chars().take(4).collect();
                match hex.chars().count() {
                    4 => format!("\"\\u{hex}\" is not a valid unicode escape"),
                    _ => "\\u must be followed by 4 hex digits".into(),
                }
            }
            Kind::Minus => "Invalid number".into(),
            Kind::Fraction => "Invalid digits after decimal point".into(),
            _ => "Unterminated string".into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_keys_as_javascript_has_them() {
        for (n, text) in [
            (1.0, "1"),
            (-0.0, "0"),
            (1e21, "1e+21"),
            (1e-7, "1e-7"),
            (0.000001, "0.000001"),
            (123.456, "123.456"),
            (-1.5e300, "-1.5e+300"),
            (1e20, "100000000000000000000"),
            (1.2345e-10, "1.2345e-10"),
            (9007199254740993.0, "9007199254740992"),
            (123e-20, "1.23e-18"),
            (0.1, "0.1"),
            (12345678901234567890.0, "12345678901234567000"),
            (5e-324, "5e-324"),
            (-2.5, "-2.5"),
            (100.0, "100"),
            // An exact tie between two shortest candidates goes to the even digit, as Node does.
            (2f64.powi(50) + 0.25, "1125899906842624.2"),
            (-(2f64.powi(50) + 0.75), "-1125899906842624.8"),
        ] {
            assert_eq!(number_to_string(n), text);
        }
        for (key, index) in [
            ("0", Some(0)),
            ("4294967294", Some(4_294_967_294)),
            ("4294967295", None),
            ("01", None),
        ] {
            assert_eq!(JsString::from(key).array_index(), index, "{key}");
        }
        assert!(is_space(0xFEFF) && !is_space(0x85));
    }
    fn jsc(text: &str) -> Result<JsValue, ParseError> {
        parse(text, Engine::JavaScriptCore)
    }

    fn v8(text: &str) -> Result<JsValue, ParseError> {
        parse(text, Engine::V8)
    }

    #[test]
    fn parse_errors_in_each_engines_words() {
        // Each line: the text, JavaScriptCore's words, V8's (`@n` is its " in JSON at position
        // n"), tab-separated.
        let cases = concat!(
            "\tUnexpected EOF\tUnexpected end of JSON input\n",
            "{\tExpected '}'\tUnexpected end of JSON input\n",
            "[1,\tUnexpected EOF\tUnexpected end of JSON input\n",
            "'single'\tSingle quotes (') are not allowed in JSON\tUnexpected token ''' @0\n",
            "{\"a\":1,}\tProperty name must be a string literal\tExpected property name or '}' @7\n",
            "{\"a\" 1}\tExpected ':' before value in object property definition\tExpected ':' after property name @5\n",
            "{\"a\":1 2}\tExpected '}'\tExpected ',' or '}' after property value @7\n",
            "nope\tUnexpected identifier \"nope\"\tUnexpected token 'o' @1\n",
            "[1]x\tUnable to parse JSON string\tUnexpected token 'x' @3\n",
            "é\tUnrecognized token 'é'\tUnexpected token 'é' @0\n",
            "[1,]\tUnexpected comma at the end of array expression\tUnexpected token ']' @3\n",
            "[1 2]\tExpected ']'\tUnexpected token '2' @3\n",
            "[1 \"a]\tUnterminated string\tUnexpected token '\"' @3\n",
            "1.\tInvalid digits after decimal point\tUnexpected end of JSON input\n",
            "-\tInvalid number\tUnexpected end of JSON input\n",
            "[1e]\tExpected ']'\tUnexpected token ']' @3\n",
            "\"a\u{1}\"\tUnterminated string\tBad control character in string literal @2\n",
            "\"\\x\"\tInvalid escape character x\tBad escaped character @2\n",
            "\"\\u12\"}\t\"\\u12\"}\" is not a valid unicode escape\tBad Unicode escape @5\n",
            "\"\\u12\t\\u must be followed by 4 hex digits\tUnterminated string @5\n",
            "\u{feff}{}\tUnrecognized token '\u{feff}'\tUnexpected token '\u{feff}' @0\n",
        );
        for case in cases.lines() {
            let [text, core, v8_words] = case.split('\t').collect::<Vec<_>>()[..] else {
                panic!("not three fields: {case:?}");
            };
            let core = format!("JSON Parse error: {core}");
            assert_eq!(jsc(text).unwrap_err().to_string(), core, "{text:?}");
            let v8_words = v8_words.replace(" @", " in JSON at position ");
            assert_eq!(v8(text).unwrap_err().to_string(), v8_words, "{text:?}");
        }
    }

    #[test]
    fn each_engine_nests_to_its_depth() {
        for engine in [Engine::JavaScriptCore, Engine::V8] {
            let depth = engine.max_depth();
            let nested = move |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
            let deep = std::thread::Builder::new()
                .stack_size(1 << 28)
                .spawn(move || {
                    let ok = parse(&nested(depth), engine).is_ok();
                    (ok, parse(&nested(depth + 1), engine))
                })
                .unwrap()
                .join()
                .unwrap();
            assert!(deep.0);
            assert!(matches!(deep.1, Err(ParseError::TooDeep { .. })));
        }
        assert_eq!(
            too_deep_message(Engine::V8, 7),
            "nested deeper than 20000 levels at position 7"
        );
        assert_eq!(
            too_deep_message(Engine::JavaScriptCore, 7),
            "JSON Parse error: nested deeper than 10000 levels"
        );
    }

    #[test]
    fn parse_and_stringify() {
        let v = v8(r#"{"b":1,"4294967295":2,"4294967294":3,"10":4,"01":5,"a":1.0,"b":[1e400,-0]}"#)
            .unwrap();
        assert_eq!(
            v.to_json_string(),
            r#"{"10":4,"4294967294":3,"b":[null,0],"4294967295":2,"01":5,"a":1}"#
        );
        let s = v8(r#""\ud800x\u2028\u007f\u0000\u001f\ud83d\ude00""#).unwrap();
        assert_eq!(
            s.to_json_string(),
            "\"\\ud800x\u{2028}\u{7f}\\u0000\\u001f😀\""
        );
        assert_eq!(
            JsValue::from(serde_json::json!([1, [2, [3, null]], {"a": 1}, true, null]))
                .to_js_string()
                .to_lossy(),
            "1,2,3,,[object Object],true,"
        );
        let pretty = jsc(r#"{"a":[1,{}],"b":[],"c":{"d":null}}"#).unwrap();
        assert_eq!(
            pretty.to_json_pretty(),
            "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": [],\n  \"c\": {\n    \"d\": null\n  }\n}"
        );
    }

    #[test]
    fn index_keys_first() {
        let v = jsc(r#"{"b":1,"12":2,"0":3,"-1":4,"01":5,"4294967295":6,"4294967294":7}"#).unwrap();
        assert_eq!(
            v.to_json_string(),
            r#"{"0":3,"12":2,"4294967294":7,"b":1,"-1":4,"01":5,"4294967295":6}"#
        );
        let numbers = jsc("[2.0, 1e21, -0, 1.5]").unwrap().to_json_string();
        assert_eq!(numbers, "[2,1e+21,0,1.5]");
    }

    #[test]
    fn lone_surrogates_survive_a_round_trip_and_the_last_planes_are_characters() {
        let v =
            jsc(r#"{"a":"x\ud800y","b":"\udc00","c":"\ud83d\ude80","d":"\udbfe\udc00"}"#).unwrap();
        assert_eq!(
            v.to_json_string(),
            "{\"a\":\"x\\ud800y\",\"b\":\"\\udc00\",\"c\":\"🚀\",\"d\":\"\u{10f800}\"}"
        );
        let a = v.get("a").and_then(JsValue::as_js_str).unwrap();
        assert_eq!(a.to_lossy(), "x\u{fffd}y");
        let d = v.get("d").and_then(JsValue::as_js_str).unwrap();
        assert_eq!(d.as_str(), Some("\u{10f800}"));
    }

    #[test]
    fn strings() {
        let s = JsString::from("\u{212A}elvin İx ΣΑΣ");
        assert_eq!(s.to_lowercase().to_lossy(), "kelvin i̇x σας");
        let units: Vec<u16> = "a😀".encode_utf16().collect();
        let cut = JsString::from_units(&units[..2]);
        assert_eq!(JsValue::from(cut.clone()).to_json_string(), "\"a\\ud83d\"");
        assert_eq!(JsString::from("\u{feff} a\u{a0}").trim().to_lossy(), "a");
        assert!(!JsString::from("\u{85}").is_blank());
        let mut joined = cut.clone();
        joined.push_code_point(0xDE00);
        assert_eq!(joined.as_str(), Some("a😀"));
    }
}
