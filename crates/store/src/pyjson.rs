//! JSON exactly as Python's `json` module reads and writes it.
//!
//! The reference tools are Python scripts, and the files they write are part of our contract byte for
//! byte: `json.dumps(obj, indent=2, ensure_ascii=False)` for the RED registry, compact
//! `json.dumps(obj)` for error lines. serde_json differs from Python in the places that matter here:
//! it rejects `NaN`/`Infinity` (Python accepts them), it formats floats differently (`1e16` against
//! Python's `1e+16`, `2` against `2.0`), and its error messages are not Python's. So this module is a
//! small, self-contained reader and writer with Python's semantics:
//!
//! * objects keep their key order; a duplicate key keeps its first position and takes the last value;
//! * integers keep arbitrary precision (as decimal text, up to Python's 4300-digit limit);
//! * floats are `f64` and are written with Python's `repr` rules;
//! * error messages carry Python's wording and its `line L column C (char P)` position, where `P`
//!   counts code points.
//!
//! It is a pure function over text: it never touches a file.

use indexmap::IndexMap;
use std::borrow::Cow;
use std::fmt::Write as _;

/// Python refuses to convert integers with more digits than this (`sys.int_info.default_max_str_digits`).
pub(crate) const MAX_INT_DIGITS: usize = 4300;
/// Nesting deeper than this is refused instead of risking the stack. Python's decoder stops near
/// the same depth (its recursion limit of 1000, less the frames of the script around it).
pub const MAX_DEPTH: usize = 990;

/// The stack of a thread that reads JSON. The reader recurses once per nesting level, up to
/// Python's own depth limit ([`MAX_DEPTH`]); this leaves ample room even in a debug build.
/// Untouched stack costs nothing but address space.
pub const STACK_SIZE: usize = 256 << 20;

/// Why a lone surrogate is refused where the text would be written back (Python keeps it).
const LONE_SURROGATE: &str = "Lone surrogate in \\uXXXX escape (cannot be written as UTF-8)";

/// A JSON object: insertion-ordered, like a Python `dict`.
pub type Object = IndexMap<String, Value, foldhash::fast::RandomState>;

/// A JSON value as Python's `json.loads` produces it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    /// An integer, as normalized decimal text (`-0` becomes `0`).
    Int(String),
    Float(f64),
    Str(String),
    Array(Vec<Value>),
    /// Boxed to keep every value small: most values are strings.
    Object(Box<Object>),
}

impl Value {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// Python truthiness (`bool(value)`).
    pub fn is_truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Int(digits) => digits != "0",
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::Array(a) => !a.is_empty(),
            Value::Object(o) => !o.is_empty(),
        }
    }
}

/// A decoding error, worded and positioned as Python's `json.JSONDecodeError` (positions count code
/// points, after Python's text-mode newline translation).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DecodeError {
    pub message: String,
    /// `(line, column, char index)`; `None` for Python's plain `ValueError`s, which carry none.
    pub position: Option<(usize, usize, usize)>,
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)?;
        match self.position {
            Some((line, column, index)) => {
                write!(f, ": line {line} column {column} (char {index})")
            }
            None => Ok(()),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Parses `text` as Python's `json.loads` does.
pub fn loads(text: &str) -> Result<Value, DecodeError> {
    Reader::document(text, |reader, pos| reader.value(pos))
}

/// The JSON object `bytes` hold: `None` when they are not UTF-8, not JSON or not an object (what
/// every reader of a small JSON artifact takes as "nothing there").
pub fn object_in(bytes: &[u8]) -> Option<Object> {
    match loads(std::str::from_utf8(bytes).ok()?) {
        Ok(Value::Object(object)) => Some(*object),
        _ => None,
    }
}

/// A streaming reader over JSON text with Python's grammar, for callers that need only part of a
/// large document: [`Reader::object`] and [`Reader::array`] hand each member to a callback, which
/// reads it ([`Reader::value`], [`Reader::str`], nested walks) or passes over it
/// ([`Reader::skip`]) without building anything. Every byte is still validated, so a document is
/// accepted or refused exactly as `json.loads` would.
pub struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    depth: usize,
    /// The key handed to the current object callback held a lone surrogate (shown as U+FFFD).
    key_replaced: bool,
    /// A lone surrogate anywhere refuses the text, as [`loads`] refuses it (which cannot write
    /// it back); otherwise it reads as U+FFFD, as Python (which keeps it) compares it.
    strict: bool,
    /// Errors carry no position (the walk of a window, whose failures are tried again with more
    /// of the file, would count every window's characters at every failure).
    quiet: bool,
}

/// A parsed value and the byte position just past it.
type Parsed = Result<(Value, usize), DecodeError>;

impl<'a> Reader<'a> {
    fn new(text: &'a str) -> Self {
        Reader {
            text,
            bytes: text.as_bytes(),
            depth: 0,
            key_replaced: false,
            strict: false,
            quiet: false,
        }
    }

    /// A reader over a window of a larger document — text that may stop anywhere — for a walker
    /// that steps through it a piece at a time: nothing before or
    /// after what is walked is checked, and errors carry no position (a step that fails is tried
    /// again with more of the file).
    pub fn window(text: &'a str) -> Self {
        Reader {
            quiet: true,
            ..Reader::new(text)
        }
    }

    /// Walks on as if `depth` levels of nesting were open (for a walker that opened them itself).
    pub fn set_depth(&mut self, depth: usize) {
        self.depth = depth;
    }

    /// The text of `range`, when it lies on character boundaries.
    pub fn slice(&self, range: std::ops::Range<usize>) -> Option<&'a str> {
        self.text.get(range)
    }

    /// Refuses a lone surrogate anywhere from here on, as [`loads`] does.
    pub fn refuse_lone_surrogates(&mut self) {
        self.strict = true;
    }

    /// Reads a whole document: `read` gets the position of the top-level value and returns what it
    /// made of it and where the value ends; trailing data other than whitespace is an error.
    pub fn document<T>(
        text: &'a str,
        read: impl FnOnce(&mut Reader<'a>, usize) -> Result<(T, usize), DecodeError>,
    ) -> Result<T, DecodeError> {
        let mut reader = Reader::new(text);
        if text.starts_with('\u{feff}') {
            return Err(reader.error("Unexpected UTF-8 BOM (decode using utf-8-sig)", 0));
        }
        let start = reader.skip_ws(0);
        let (result, end) = read(&mut reader, start)?;
        let end = reader.skip_ws(end);
        if end != reader.bytes.len() {
            return Err(reader.error("Extra data", end));
        }
        Ok(result)
    }

    /// Whether the key last handed to an object callback held a lone surrogate (which
    /// [`Reader::value`] refuses in a key, as `json.loads` cannot write it back).
    pub fn key_replaced(&self) -> bool {
        self.key_replaced
    }

    /// How many bytes of the text lie from `pos` on (a bound on what a list there can hold).
    pub fn left_from(&self, pos: usize) -> usize {
        self.bytes.len().saturating_sub(pos)
    }

    /// The byte at `pos`, if any (`{`, `[`, `"` tell a caller what kind of value starts there).
    pub fn peek(&self, pos: usize) -> Option<u8> {
        self.bytes.get(pos).copied()
    }

    /// An error at `byte_pos`, positioned as Python reports it. Python reads these files in text
    /// mode, which turns `\r\n` and a lone `\r` into `\n` before decoding, so they count so here.
    fn error(&self, message: &str, byte_pos: usize) -> DecodeError {
        let position = (!self.quiet).then(|| {
            let before = self.text.get(..byte_pos).unwrap_or(self.text);
            let (mut index, mut line, mut column) = (0, 1, 1);
            let mut chars = before.chars().peekable();
            while let Some(c) = chars.next() {
                if c == '\r' && chars.peek() == Some(&'\n') {
                    continue; // counted once, with the '\n'
                }
                index += 1;
                if c == '\n' || c == '\r' {
                    line += 1;
                    column = 1;
                } else {
                    column += 1;
                }
            }
            (line, column, index)
        });
        DecodeError {
            message: message.to_string(),
            position,
        }
    }

    /// The position of the first byte at or after `pos` that is not JSON whitespace.
    #[inline]
    pub fn skip_ws(&self, mut pos: usize) -> usize {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(pos) {
            pos += 1;
        }
        pos
    }

    /// Reads the value starting at `pos`.
    pub fn value(&mut self, pos: usize) -> Parsed {
        match self.peek(pos) {
            Some(b'"') => {
                let (s, end) = self.str(pos)?;
                Ok((Value::Str(s.into_owned()), end))
            }
            Some(b'{') => {
                let mut map = Object::default();
                let end = self.object(pos, |reader, key, at| {
                    if reader.key_replaced {
                        return Err(reader.error(LONE_SURROGATE, at));
                    }
                    let (value, end) = reader.value(at)?;
                    // A duplicate key keeps its first position and takes the last value, as in a dict.
                    map.insert(key.to_string(), value);
                    Ok(end)
                })?;
                Ok((Value::Object(Box::new(map)), end))
            }
            Some(b'[') => {
                let mut items = Vec::new();
                let end = self.array(pos, |reader, at| {
                    let (value, end) = reader.value(at)?;
                    items.push(value);
                    Ok(end)
                })?;
                Ok((Value::Array(items), end))
            }
            _ => self.scalar(pos),
        }
    }

    /// Validates the value starting at `pos` without keeping it; returns where it ends.
    /// Iterative: nesting costs a byte of `open`, not a stack frame.
    pub fn skip(&mut self, mut pos: usize) -> Result<usize, DecodeError> {
        // Most values passed over are strings.
        if self.peek(pos) == Some(b'"') {
            return self.string_end(pos);
        }
        let mut open: Vec<u8> = Vec::new();
        loop {
            // A value starts here.
            match self.peek(pos) {
                Some(b'"') => pos = self.string_end(pos)?,
                Some(bracket @ (b'{' | b'[')) => {
                    if self.depth + open.len() >= MAX_DEPTH {
                        return Err(self.error("Nesting too deep", pos));
                    }
                    let close = if bracket == b'{' { b'}' } else { b']' };
                    pos = self.skip_ws(pos + 1);
                    if self.peek(pos) == Some(close) {
                        pos += 1;
                    } else {
                        open.push(close);
                        if close == b'}' {
                            pos = self.member_key(pos)?.2;
                        }
                        continue;
                    }
                }
                _ => pos = self.scalar(pos)?.1,
            }
            // After a value: close what ends here, or go on to the next member or item.
            loop {
                let Some(&close) = open.last() else {
                    return Ok(pos);
                };
                pos = self.skip_ws(pos);
                match self.peek(pos) {
                    Some(b',') => {
                        pos = self.skip_ws(pos + 1);
                        if close == b'}' {
                            pos = self.member_key(pos)?.2;
                        }
                        break;
                    }
                    Some(byte) if byte == close => {
                        pos += 1;
                        open.pop();
                    }
                    _ => return Err(self.error("Expecting ',' delimiter", pos)),
                }
            }
        }
    }

    fn scalar(&self, pos: usize) -> Parsed {
        let rest = &self.bytes[pos.min(self.bytes.len())..];
        match rest.first() {
            Some(b'n') if rest.starts_with(b"null") => Ok((Value::Null, pos + 4)),
            Some(b't') if rest.starts_with(b"true") => Ok((Value::Bool(true), pos + 4)),
            Some(b'f') if rest.starts_with(b"false") => Ok((Value::Bool(false), pos + 5)),
            Some(b'N') if rest.starts_with(b"NaN") => Ok((Value::Float(f64::NAN), pos + 3)),
            Some(b'I') if rest.starts_with(b"Infinity") => {
                Ok((Value::Float(f64::INFINITY), pos + 8))
            }
            Some(b'-') if rest.starts_with(b"-Infinity") => {
                Ok((Value::Float(f64::NEG_INFINITY), pos + 9))
            }
            Some(b'-' | b'0'..=b'9') => self.number(pos),
            _ => Err(self.error("Expecting value", pos)),
        }
    }

    fn enter(&mut self, pos: usize) -> Result<(), DecodeError> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error("Nesting too deep", pos));
        }
        self.depth += 1;
        Ok(())
    }

    /// Walks the object starting at `pos` (its `{`): `entry(reader, key, value_pos)` must read or
    /// skip the member's value and return where it ends. Returns the end of the object.
    pub fn object(
        &mut self,
        pos: usize,
        mut entry: impl FnMut(&mut Self, &str, usize) -> Result<usize, DecodeError>,
    ) -> Result<usize, DecodeError> {
        self.members(pos, b'}', |reader, pos| {
            let (key, replaced, at) = reader.member_key(pos)?;
            reader.key_replaced = replaced;
            entry(reader, &key, at)
        })
    }

    /// The members of the container opening at `pos`, up to its `close`: `member(reader, pos)`
    /// reads each and returns where it ends. Returns the end of the container.
    fn members(
        &mut self,
        pos: usize,
        close: u8,
        mut member: impl FnMut(&mut Self, usize) -> Result<usize, DecodeError>,
    ) -> Result<usize, DecodeError> {
        self.enter(pos)?;
        let mut pos = self.skip_ws(pos + 1);
        let end = match self.peek(pos) == Some(close) {
            true => Ok(pos + 1),
            false => loop {
                let end = match member(self, pos) {
                    Ok(end) => self.skip_ws(end),
                    Err(e) => break Err(e),
                };
                match self.peek(end) {
                    Some(c) if c == close => break Ok(end + 1),
                    Some(b',') => pos = self.skip_ws(end + 1),
                    _ => break Err(self.error("Expecting ',' delimiter", end)),
                }
            },
        };
        self.depth -= 1;
        end
    }

    /// The member key at `pos` (its opening quote, else an error), its `:` and the whitespace
    /// after: the key (a lone surrogate as U+FFFD), whether it held one, and where its value
    /// starts.
    #[inline(always)]
    pub fn member_key(&self, pos: usize) -> Result<(Cow<'a, str>, bool, usize), DecodeError> {
        if self.peek(pos) != Some(b'"') {
            return Err(self.error("Expecting property name enclosed in double quotes", pos));
        }
        let (key, end, replaced) = self.str_lossy(pos)?;
        let pos = self.skip_ws(end);
        if self.peek(pos) != Some(b':') {
            return Err(self.error("Expecting ':' delimiter", pos));
        }
        Ok((key, replaced, self.skip_ws(pos + 1)))
    }

    /// Walks the array starting at `pos` (its `[`): `item(reader, value_pos)` must read or skip
    /// the item and return where it ends. Returns the end of the array.
    pub fn array(
        &mut self,
        pos: usize,
        item: impl FnMut(&mut Self, usize) -> Result<usize, DecodeError>,
    ) -> Result<usize, DecodeError> {
        self.members(pos, b']', item)
    }

    fn number(&self, start: usize) -> Parsed {
        let b = self.bytes;
        let digits_from = |mut p: usize| {
            while p < b.len() && b[p].is_ascii_digit() {
                p += 1;
            }
            p
        };
        let mut pos = start;
        if b[pos] == b'-' {
            pos += 1;
        }
        match b.get(pos) {
            Some(b'0') => pos += 1,
            Some(b'1'..=b'9') => pos = digits_from(pos),
            _ => return Err(self.error("Expecting value", start)),
        }
        let mut is_float = false;
        if b.get(pos) == Some(&b'.') && b.get(pos + 1).is_some_and(u8::is_ascii_digit) {
            pos = digits_from(pos + 1);
            is_float = true;
        }
        if let Some(b'e' | b'E') = b.get(pos) {
            let mut p = pos + 1;
            if let Some(b'+' | b'-') = b.get(p) {
                p += 1;
            }
            if b.get(p).is_some_and(u8::is_ascii_digit) {
                pos = digits_from(p);
                is_float = true;
            }
        }
        let literal = &self.text[start..pos];
        if is_float {
            // Rust's parser is correctly rounded like Python's `float()`, and overflows to infinity.
            let value: f64 = literal
                .parse()
                .map_err(|_| self.error("Expecting value", start))?;
            return Ok((Value::Float(value), pos));
        }
        let negative = literal.starts_with('-');
        let magnitude = literal.trim_start_matches('-');
        if magnitude.len() > MAX_INT_DIGITS {
            return Err(DecodeError {
                message: format!(
                    "Exceeds the limit ({MAX_INT_DIGITS} digits) for integer string conversion: value has {} digits; use sys.set_int_max_str_digits() to increase the limit",
                    magnitude.len()
                ),
                position: None,
            });
        }
        let text = if negative && magnitude != "0" {
            literal.to_string()
        } else {
            magnitude.to_string()
        };
        Ok((Value::Int(text), pos))
    }

    /// Reads the string starting at `pos` (its opening quote), borrowing it from the input when it
    /// holds no escape, as nearly every string does. A lone UTF-16 surrogate (`"\ud800"`), which
    /// Python keeps but cannot write back as UTF-8, is an error here.
    pub fn str(&self, pos: usize) -> Result<(Cow<'a, str>, usize), DecodeError> {
        let (text, end, replaced) = self.str_lossy(pos)?;
        if replaced {
            return Err(self.error(LONE_SURROGATE, pos));
        }
        Ok((text, end))
    }

    /// [`Self::str`] that turns a lone surrogate into U+FFFD (and says so), for strings that are
    /// only compared, never written back.
    #[inline(always)]
    pub fn str_lossy(&self, pos: usize) -> Result<(Cow<'a, str>, usize, bool), DecodeError> {
        // Nearly every string is plain text up to its closing quote.
        let end = plain_run_end(self.bytes, pos + 1);
        if let (Some(b'"'), Some(text)) = (self.bytes.get(end), self.text.get(pos + 1..end)) {
            return Ok((Cow::Borrowed(text), end + 1, false));
        }
        // Else the run stopped at a backslash (the string has an escape) or at an error.
        let mut out = String::with_capacity(end - pos);
        let (end, replaced) = self.scan_string(pos, Some(&mut out))?;
        Ok((Cow::Owned(out), end, replaced))
    }

    /// Checks the string starting at `pos` (its opening quote) without decoding it; returns the
    /// position past its closing quote.
    #[inline]
    fn string_end(&self, pos: usize) -> Result<usize, DecodeError> {
        let end = plain_run_end(self.bytes, pos + 1);
        if self.bytes.get(end) == Some(&b'"') {
            return Ok(end + 1);
        }
        Ok(self.scan_string(pos, None)?.0)
    }

    /// The scanner behind every string read, with Python's rules and error positions: the
    /// position past the closing quote, and whether a lone surrogate was decoded (as U+FFFD; it is
    /// accepted, as Python does).
    fn scan_string(
        &self,
        pos: usize,
        mut out: Option<&mut String>,
    ) -> Result<(usize, bool), DecodeError> {
        let b = self.bytes;
        // Every caller stands on the opening quote. One that does not may be read a string from
        // where it stands by the plain-run fast paths above this scanner, or an error here, but
        // never a slice through a character.
        if b.get(pos) != Some(&b'"') {
            return Err(self.error("Expecting '\"'", pos));
        }
        let begin = pos + 1;
        let mut pos = begin;
        let mut replaced = false;
        loop {
            let chunk_start = pos;
            pos = plain_run_end(b, pos);
            if let Some(out) = out.as_deref_mut() {
                out.push_str(&self.text[chunk_start..pos]);
            }
            match b.get(pos) {
                None => return Err(self.error("Unterminated string starting at", begin - 1)),
                Some(b'"') => return Ok((pos + 1, replaced)),
                Some(b'\\') => {}
                Some(_) => return Err(self.error("Invalid control character at", pos)),
            }
            let escape_at = pos;
            let Some(&c) = b.get(pos + 1) else {
                return Err(self.error("Unterminated string starting at", begin - 1));
            };
            pos += 2;
            let simple = match c {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => '\0',
                _ => return Err(self.error("Invalid \\escape", escape_at)),
            };
            if c != b'u' {
                if let Some(out) = out.as_deref_mut() {
                    out.push(simple);
                }
                continue;
            }
            // `pos` is past the `u`; Python wants four hex digits and at least one more character.
            let unit = self.hex4(pos)?;
            pos += 4;
            let mut ch = char::from_u32(unit);
            if (0xD800..0xDC00).contains(&unit)
                && pos + 6 < b.len()
                && b[pos] == b'\\'
                && b[pos + 1] == b'u'
            {
                let low = self.hex4(pos + 2)?;
                if (0xDC00..0xE000).contains(&low) {
                    pos += 6;
                    ch = char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00));
                }
            }
            if ch.is_none() {
                if self.strict {
                    return Err(self.error(LONE_SURROGATE, escape_at));
                }
                replaced = true;
            }
            if let Some(out) = out.as_deref_mut() {
                out.push(ch.unwrap_or(char::REPLACEMENT_CHARACTER));
            }
        }
    }

    /// The four hex digits after a `\\u` (`pos` is just past the `u`). Errors point at the `u`.
    fn hex4(&self, pos: usize) -> Result<u32, DecodeError> {
        self.text
            .get(pos..pos + 4)
            .filter(|d| pos + 4 < self.bytes.len() && d.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|digits| u32::from_str_radix(digits, 16).ok())
            .ok_or_else(|| self.error("Invalid \\uXXXX escape", pos - 1))
    }
}

/// The bytes of `word` (little-endian) that end a string's plain run — a quote, a backslash or a
/// control character — each marked by its high bit. SWAR: each test sets the high bit of a byte
/// that matches, and a borrow can only add false marks above a true one, so the lowest mark is
/// exact (`trailing_zeros() / 8` is the first such byte).
pub(crate) fn stop_bytes(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    let quote = zero_byte(word ^ (ONES * u64::from(b'"')));
    let backslash = zero_byte(word ^ (ONES * u64::from(b'\\')));
    let control = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    quote | backslash | control
}

/// The position of the first byte at or after `pos` that ends a string's plain run (a quote, a
/// backslash or a control character), or `bytes.len()` when none does.
#[inline]
pub(crate) fn plain_run_end(bytes: &[u8], mut pos: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
            _mm_set1_epi8,
        };
        // Sixteen bytes at a time (SSE2 is part of x86_64): a quote, a backslash, or a byte
        // that is its own minimum with 0x1f (a control character).
        while pos + 16 <= bytes.len() {
            // SAFETY: SSE2 is always present on x86_64, and the unaligned load reads the 16
            // bytes at `pos`, which the loop condition keeps inside `bytes`.
            let stops = unsafe {
                let v = _mm_loadu_si128(bytes.as_ptr().add(pos).cast());
                let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
                let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
                let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
                _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)) as u32
            };
            if stops != 0 {
                return pos + stops.trailing_zeros() as usize;
            }
            pos += 16;
        }
    }
    while let Some(chunk) = bytes.get(pos..pos + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let stops = stop_bytes(u64::from_le_bytes(word));
        if stops != 0 {
            return pos + (stops.trailing_zeros() / 8) as usize;
        }
        pos += 8;
    }
    while let Some(&c) = bytes.get(pos) {
        if c == b'"' || c == b'\\' || c < 0x20 {
            return pos;
        }
        pos += 1;
    }
    pos
}

/// `json.dumps(value, indent=2, ensure_ascii=False)`.
pub fn dumps_pretty(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, Some(0), false);
    out
}

/// `json.dumps(value)`: compact with Python's `", "` and `": "` separators, ASCII-escaped.
pub fn dumps_compact_ascii(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, None, true);
    out
}

/// Writes `value` as `json.dumps(..., indent=2, ensure_ascii=False)` would write it nested `level`
/// deep (its members indented one level more).
pub fn write_pretty_value(out: &mut String, value: &Value, level: usize) {
    write_value(out, value, Some(level), false);
}

/// Writes `items` as `json.dumps(..., indent=2)` would write a list nested `level` deep, without
/// first gathering them into one value.
pub fn write_pretty_array<'v>(
    out: &mut String,
    items: impl IntoIterator<Item = &'v Value>,
    level: usize,
) {
    write_members(out, items, Some(level), ['[', ']'], |out, item| {
        write_value(out, item, Some(level + 1), false)
    });
}

fn write_value(out: &mut String, value: &Value, level: Option<usize>, ascii: bool) {
    let inner = level.map(|level| level + 1);
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Int(digits) => out.push_str(digits),
        Value::Float(f) => out.push_str(&float_repr(*f)),
        Value::Str(s) => write_string(out, s, ascii),
        Value::Array(items) => write_members(out, items, level, ['[', ']'], |out, item| {
            write_value(out, item, inner, ascii)
        }),
        Value::Object(map) => {
            write_members(out, map.iter(), level, ['{', '}'], |out, (key, item)| {
                write_string(out, key, ascii);
                out.push_str(": ");
                write_value(out, item, inner, ascii);
            })
        }
    }
}

/// Writes a list's or a dict's `members` between its `brackets`, each by `write_member`, as
/// Python lays them out: nested `level` deep as `indent=2` writes them, each on a line of its own;
/// without a level on one line, after `", "`. An empty one is its two brackets alone.
fn write_members<T>(
    out: &mut String,
    members: impl IntoIterator<Item = T>,
    level: Option<usize>,
    [open, close]: [char; 2],
    mut write_member: impl FnMut(&mut String, T),
) {
    out.push(open);
    let mut empty = true;
    for member in members {
        match level {
            Some(level) => {
                out.push_str(if empty { "\n" } else { ",\n" });
                out.extend(std::iter::repeat_n("  ", level + 1));
            }
            None if !empty => out.push_str(", "),
            None => {}
        }
        write_member(out, member);
        empty = false;
    }
    if let Some(level) = level.filter(|_| !empty) {
        out.push('\n');
        out.extend(std::iter::repeat_n("  ", level));
    }
    out.push(close);
}

/// Writes `s` as a JSON string literal with Python's escapes.
pub fn write_string(out: &mut String, s: &str, ascii: bool) {
    out.push('"');
    // Most strings need no escape at all: find that out without decoding, eight bytes at a time
    // when non-ASCII text is written as it is.
    let clean = if ascii {
        let plain = |b: &u8| *b >= b' ' && *b != b'"' && *b != b'\\' && *b <= b'~';
        s.as_bytes()
            .iter()
            .position(|b| !plain(b))
            .unwrap_or(s.len())
    } else {
        plain_run_end(s.as_bytes(), 0)
    };
    out.push_str(&s[..clean]);
    let mut from = clean;
    for (i, ch) in s[clean..].char_indices().map(|(i, ch)| (i + clean, ch)) {
        let needs_escape =
            matches!(ch, '"' | '\\') || ch < ' ' || (ascii && !(' '..='~').contains(&ch));
        if !needs_escape {
            continue;
        }
        out.push_str(&s[from..i]);
        from = i + ch.len_utf8();
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            _ => {
                let mut units = [0u16; 2];
                for unit in ch.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push_str(&s[from..]);
    out.push('"');
}

/// A value as Python's `str()` prints it (the reference tools interpolate values with f-strings):
/// `True`, `None`, `2.0`, `1e+16`, `['a', 1]`, `{'k': None}`.
pub fn py_str(value: &Value) -> String {
    match value {
        Value::Str(s) => s.clone(),
        other => {
            let mut out = String::new();
            write_repr(&mut out, other);
            out
        }
    }
}

/// Python's `repr()` of a value.
fn write_repr(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Int(digits) => out.push_str(digits),
        Value::Float(f) if f.is_nan() => out.push_str("nan"),
        Value::Float(f) if f.is_infinite() => out.push_str(if *f > 0.0 { "inf" } else { "-inf" }),
        Value::Float(f) => out.push_str(&float_repr(*f)),
        Value::Str(s) => write_str_repr(out, s),
        Value::Array(items) => write_members(out, items, None, ['[', ']'], write_repr),
        Value::Object(map) => {
            write_members(out, map.iter(), None, ['{', '}'], |out, (key, item)| {
                write_str_repr(out, key);
                out.push_str(": ");
                write_repr(out, item);
            })
        }
    }
}

/// Python's `repr(str)`: single quotes unless the text has one and no double quote; escapes for
/// the quote, backslash, `\t\n\r`, and characters Python does not print (controls, separators
/// other than the space, format characters).
fn write_str_repr(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for ch in s.chars() {
        match ch {
            c if c == quote || c == '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if !python_prints(c) => {
                let code = u32::from(c);
                let _ = match code {
                    0..=0xff => write!(out, "\\x{code:02x}"),
                    0x100..=0xffff => write!(out, "\\u{code:04x}"),
                    _ => write!(out, "\\U{code:08x}"),
                };
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

/// `str.isprintable()` for the characters that occur in practice: controls (Cc), separators
/// other than the ASCII space (Zs, Zl, Zp) and the common format characters (Cf) are not printed.
fn python_prints(c: char) -> bool {
    !matches!(
        c,
        '\u{0}'..='\u{1f}'
            | '\u{7f}'..='\u{a0}'
            | '\u{ad}'
            | '\u{600}'..='\u{605}'
            | '\u{1680}'
            | '\u{180e}'
            | '\u{2000}'..='\u{200f}'
            | '\u{2028}'..='\u{202f}'
            | '\u{205f}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{3000}'
            | '\u{e000}'..='\u{f8ff}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
    )
}

/// Python's `repr(float)`: the shortest round-tripping digits, fixed notation for decimal exponents
/// in `-4 ..= 15`, else scientific with a signed, at-least-two-digit exponent.
pub(crate) fn float_repr(f: f64) -> String {
    crate::js::decimal(f, -3..=16, ".0", 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::excessive_precision)] // the ties below are exact binary values, written out
    fn float_repr_matches_python() {
        let cases = [
            (2.0, "2.0"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (1.5e16, "1.5e+16"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-0.0, "-0.0"),
            (0.1, "0.1"),
            (123.456, "123.456"),
            (1.5e-7, "1.5e-07"),
            (1e100, "1e+100"),
            (1234567890123456.7, "1234567890123456.8"),
            (12345678901234567.0, "1.2345678901234568e+16"),
            (1125899906842624.25, "1125899906842624.2"),
            (1466214340994.28125, "1466214340994.2812"),
        ];
        for (f, want) in cases {
            assert_eq!(float_repr(f), want, "{f:?}");
        }
    }

    #[test]
    fn a_string_read_off_its_quote_is_an_error_not_a_panic() {
        let reader = Reader::window("[\"\u{e9}\\n\u{e9}\"]");
        for pos in 0..6 {
            let _ = reader.str(pos);
            let _ = reader.str_lossy(pos);
        }
        assert!(reader.str(2).is_err());
    }

    #[test]
    fn errors_carry_python_wording() {
        let e = loads("not json at all").unwrap_err();
        assert_eq!(e.to_string(), "Expecting value: line 1 column 1 (char 0)");
        let e = loads("{ corrupt").unwrap_err();
        assert_eq!(
            e.to_string(),
            "Expecting property name enclosed in double quotes: line 1 column 3 (char 2)"
        );
        let e = loads("{\"a\": 1}\nx").unwrap_err();
        assert_eq!(e.to_string(), "Extra data: line 2 column 1 (char 9)");
        let e = loads("[1,]").unwrap_err();
        assert_eq!(e.to_string(), "Expecting value: line 1 column 4 (char 3)");
        let e = loads("\"é\u{1}\"").unwrap_err();
        assert_eq!(
            e.to_string(),
            "Invalid control character at: line 1 column 3 (char 2)"
        );
        assert!(loads("").is_err());
    }

    #[test]
    fn python_values_round_trip() {
        let v = loads(r#"{"a": NaN, "b": -Infinity, "c": -0, "d": 1E5, "a": [1, 2.50, "\u00e9\ud83d\ude00"]}"#)
            .unwrap();
        assert_eq!(
            dumps_compact_ascii(&v),
            r#"{"a": [1, 2.5, "\u00e9\ud83d\ude00"], "b": -Infinity, "c": 0, "d": 100000.0}"#
        );
        assert_eq!(
            dumps_pretty(&v),
            "{\n  \"a\": [\n    1,\n    2.5,\n    \"é😀\"\n  ],\n  \"b\": -Infinity,\n  \"c\": 0,\n  \"d\": 100000.0\n}"
        );
        assert_eq!(
            dumps_pretty(&loads("{\"x\": [], \"y\": {}}").unwrap()),
            "{\n  \"x\": [],\n  \"y\": {}\n}"
        );
    }

    #[test]
    fn str_and_repr_like_python() {
        let v = loads(
            r#"[true, null, 2.0, 1e16, "it's", "a\"b'c", {"k": null}, "tab\there\u0001\u00a0é"]"#,
        )
        .unwrap();
        assert_eq!(
            py_str(&v),
            r#"[True, None, 2.0, 1e+16, "it's", 'a"b\'c', {'k': None}, 'tab\there\x01\xa0é']"#
        );
        assert_eq!(py_str(&Value::Str("plain".into())), "plain");
    }

    #[test]
    fn escapes_like_python() {
        let v = Value::Str("a\"\\\n\u{1f}\u{7f}é".into());
        assert_eq!(dumps_pretty(&v), "\"a\\\"\\\\\\n\\u001f\u{7f}é\"");
        assert_eq!(
            dumps_compact_ascii(&v),
            "\"a\\\"\\\\\\n\\u001f\\u007f\\u00e9\""
        );
    }

    #[test]
    fn the_word_test_finds_every_stop_byte() {
        for stop in [b'"', b'\\', 0x00, 0x1f] {
            for at in 0..8 {
                let mut word = *b"abcdefgh";
                word[at] = stop;
                assert_ne!(stop_bytes(u64::from_le_bytes(word)), 0, "{stop:#x} at {at}");
            }
        }
        for plain in [
            *b"a b~\x7f\xc3\xa9!",
            [0x20, 0x21, 0x5b, 0x5d, 0x80, 0xff, 0x7e, 0x23],
        ] {
            assert_eq!(stop_bytes(u64::from_le_bytes(plain)), 0, "{plain:?}");
        }
    }

    #[test]
    fn the_plain_run_ends_at_the_first_stop_byte() {
        let naive = |b: &[u8], from: usize| {
            (from..b.len())
                .find(|&i| b[i] == b'"' || b[i] == b'\\' || b[i] < 0x20)
                .unwrap_or(b.len())
        };
        let mut text: Vec<u8> = (0..70u8).map(|i| b'a' + i % 26).collect();
        text.extend_from_slice("é漢\u{7f}".as_bytes());
        for stop in [b'"', b'\\', 0x00, 0x1f, 0x0a] {
            for at in 0..text.len() {
                let mut bytes = text.clone();
                bytes[at] = stop;
                // A false mark above a true one (a borrow) must not move the answer.
                if at + 1 < bytes.len() {
                    bytes[at + 1] = 0x01;
                }
                for from in [0, 1, 7, 8, 15, 16, at] {
                    assert_eq!(
                        plain_run_end(&bytes, from),
                        naive(&bytes, from),
                        "{stop} {at} {from}"
                    );
                }
            }
        }
        assert_eq!(plain_run_end(&text, 0), text.len());
        assert_eq!(plain_run_end(b"", 0), 0);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        // On a thread with the stack commands get (see `crate::run`).
        let check = || {
            let deep = "[".repeat(100_000);
            assert!(loads(&deep).is_err());
            let limit = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
            assert!(loads(&limit).is_ok());
            let over = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
            assert!(loads(&over).is_err());
        };
        let thread = std::thread::Builder::new().stack_size(STACK_SIZE);
        thread.spawn(check).unwrap().join().unwrap();
    }
}
