//! Artifacts must not drive the terminal. A committed heartbeat whose `epic` holds `ESC ] 0 ; …
//! BEL` or `ESC [ 2 J` would otherwise run at every prompt of everyone who clones the repository.
//! Human output shows control characters visibly (`\x1b`); the prompt drops them; JSON keeps the
//! exact values (its encoder escapes them anyway).

use std::borrow::Cow;

/// `text` with every C0 and C1 control character but the newline and the tab written as `\xNN`,
/// except the escape sequences listed in `ours` (the colours the renderer itself emitted).
pub(crate) fn escape_controls<'t>(text: &'t str, ours: &[&str]) -> Cow<'t, str> {
    if !text.chars().any(is_hostile) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '\x1b' {
            if let Some(sequence) = ours.iter().find(|s| rest.starts_with(**s)) {
                out.push_str(sequence);
                rest = &rest[sequence.len()..];
                continue;
            }
        }
        if is_hostile(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    Cow::Owned(out)
}

/// `text` without any control character at all (a prompt segment is one line, drawn by the shell).
pub(crate) fn strip_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().filter(|c| !c.is_control()).collect())
}

pub(crate) use ucg_store::visible::{is_hostile, push_escaped};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_shown_and_our_colours_kept() {
        let ours = ["\x1b[1m", "\x1b[m"];
        assert_eq!(
            escape_controls(
                "\x1b[1mEpic\x1b[m 7\x1b]0;pwned\x07\x1b[2J\r\u{85}\n",
                &ours
            ),
            "\x1b[1mEpic\x1b[m 7\\x1b]0;pwned\\x07\\x1b[2J\\x0d\\x85\n"
        );
        assert!(matches!(
            escape_controls("plain\ttext\n", &ours),
            Cow::Borrowed(_)
        ));
        assert_eq!(strip_controls("ucg 7\x1b[2J\n8"), "ucg 7[2J8");
    }
}
