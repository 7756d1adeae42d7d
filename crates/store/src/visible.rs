//! Control characters written visibly: what an artifact, a configuration or an answer holds must
//! not drive a terminal, whether it is printed or written to a log someone `cat`s later.

use std::fmt::Write;

/// Whether `c` is a control character other than the newline and the tab: what must not reach a
/// terminal as it is.
pub fn is_hostile(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// `c` written visibly, as `\xNN` (every control character is below U+0100), or `\u{NNNN}` for
/// anything else a caller cannot emit as it is.
pub fn push_escaped(out: &mut String, c: char) {
    let _ = match u32::from(c) {
        code @ 0..=0xff => write!(out, "\\x{code:02x}"),
        code => write!(out, "\\u{{{code:x}}}"),
    };
}

/// `text` with every hostile character (see [`is_hostile`]) written as `\xNN`.
pub fn escape_hostile(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(is_hostile) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match is_hostile(c) {
            true => push_escaped(&mut out, c),
            false => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}
