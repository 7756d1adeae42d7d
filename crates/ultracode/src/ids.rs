//! Stable decision ids: the recipe of the reference `red_ids.py` (docs/formats/ucg.md §2.1).
//!
//! `id = strip(kind) ":" bare_path(source) ":" digest(decision_needed)`, where `digest` is the first
//! 12 lowercase hex digits of SHA-256 over the whitespace-normalized, NFC-normalized decision text.
//! This is the one place an id is minted; every command reads ids from here.

use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::sync::LazyLock;
use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

/// Python's `str.isspace()`: 29 code points. Rust's `char::is_whitespace` differs (it omits
/// U+001C–U+001F and adds none Python lacks), so the set is spelled out.
pub fn is_python_space(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{d}'
            | '\u{1c}'..='\u{20}'
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// Python's `str.strip()` with no argument.
pub fn py_strip(s: &str) -> &str {
    // Most text starts and ends with a printable ASCII character: nothing to strip.
    let printable = |b: Option<&u8>| b.is_some_and(|b| (b'!'..=b'~').contains(b));
    if printable(s.as_bytes().first()) && printable(s.as_bytes().last()) {
        return s;
    }
    s.trim_matches(is_python_space)
}

/// `strip(re.sub(r"\s+", " ", NFC(text)))`: runs of Python whitespace collapse to one space.
pub fn normalize_decision(text: &str) -> Cow<'_, str> {
    if is_plain_ascii_sentence(text) {
        // Already normal: ASCII is NFC, and there is no whitespace to collapse or strip.
        return Cow::Borrowed(text);
    }
    let nfc: Cow<str> = match is_nfc_quick(text.chars()) {
        IsNormalized::Yes => text.into(),
        _ => text.nfc().collect::<String>().into(),
    };
    let mut out = String::with_capacity(nfc.len());
    let mut pending_space = false;
    for c in py_strip(&nfc).chars() {
        if is_python_space(c) {
            pending_space = true;
        } else {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// ASCII with single spaces between words and none at the ends: the common case, already normal.
fn is_plain_ascii_sentence(text: &str) -> bool {
    let bytes = text.as_bytes();
    // Eight bytes at a time: printable ASCII, no two spaces side by side, none at either end.
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    if bytes.first() != Some(&b' ') && bytes.last() != Some(&b' ') {
        let mut previous_space = false;
        let mut plain = true;
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            let word = u64::from_le_bytes(word);
            let spaces = {
                let v = word ^ (ONES * u64::from(b' '));
                v.wrapping_sub(ONES) & !v & HIGH
            };
            let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
            if (word & HIGH) | below_space | (spaces & (spaces >> 8)) != 0
                || (previous_space && spaces & 0x80 != 0)
            {
                plain = false;
                break;
            }
            previous_space = spaces >> 63 != 0;
        }
        if plain {
            let mut previous = previous_space;
            for &b in chunks.remainder() {
                match b {
                    b' ' if previous => return false,
                    b' ' => previous = true,
                    0x00..=0x1f | 0x80..=0xff => {
                        plain = false;
                        break;
                    }
                    _ => previous = false,
                }
            }
            if plain {
                return true;
            }
        }
    }
    // Something to look at closely (a control character is not always whitespace).
    let mut previous_space = true; // a leading space is not plain
    for &b in bytes {
        match b {
            b' ' if previous_space => return false,
            b' ' => previous_space = true,
            0x09..=0x0d | 0x1c..=0x1f | 0x80..=0xff => return false,
            _ => previous_space = false,
        }
    }
    !previous_space || bytes.is_empty()
}

/// The 12-hex-digit digest of a decision text.
pub(crate) fn digest(decision_needed: &str) -> String {
    ucg_store::hex(&Sha256::digest(normalize_decision(decision_needed).as_bytes())[..6])
}

/// `re.sub(r":\d+$", "", strip(source))` with Unicode decimal digits: the source without its line.
pub fn bare_path(source: &str) -> &str {
    static LINE_SUFFIX: LazyLock<Option<regex::Regex>> =
        LazyLock::new(|| regex::Regex::new(r":\d+\z").ok());
    let stripped = py_strip(source);
    // The common case without the regex: ASCII digits after the last colon, or no digit at the
    // end. Only a non-ASCII character in the trailing run (perhaps a Unicode digit) needs it.
    let bytes = stripped.as_bytes();
    let digits = bytes
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_digit())
        .count();
    match bytes.len().checked_sub(digits + 1).map(|i| bytes[i]) {
        _ if digits == 0 && bytes.last().is_none_or(u8::is_ascii) => return stripped,
        Some(b':') if digits > 0 => return &stripped[..bytes.len() - digits - 1],
        Some(b) if b.is_ascii() => return stripped,
        None => return stripped,
        _ => {}
    }
    match LINE_SUFFIX.as_ref().and_then(|re| re.find(stripped)) {
        Some(m) => &stripped[..m.start()],
        None => stripped,
    }
}

/// The stable id of a decision (`red_ids.py --mint-one KIND SOURCE DECISION_NEEDED`).
pub fn mint(kind: &str, source: &str, decision_needed: &str) -> String {
    let digest = digest(decision_needed);
    [py_strip(kind), ":", bare_path(source), ":", &digest].concat()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_examples() {
        let cases = [
            (
                "undecided-product",
                "docs/prd.md:42",
                "Pick a session length",
                "undecided-product:docs/prd.md:63143e7ec840",
            ),
            (
                "contradiction",
                "prd.md:1",
                "Pick  one\n  storage  backend",
                "contradiction:prd.md:a971dfb7cd44",
            ),
            (
                " contradiction ",
                "  prd.md:1  ",
                "  Pick one storage backend  ",
                "contradiction:prd.md:a971dfb7cd44",
            ),
            (
                "undecided-product",
                "prd.md:abc",
                "Decide session expiry",
                "undecided-product:prd.md:abc:4f87a77b08cb",
            ),
            (
                "undecided-product",
                "prd.md:5:9",
                "Decide session expiry",
                "undecided-product:prd.md:5:4f87a77b08cb",
            ),
            (
                "undecided-product",
                "prd.md:\u{663}\u{664}",
                "Decide session expiry",
                "undecided-product:prd.md:4f87a77b08cb",
            ),
            (
                "undecided-product",
                "prd.md:5",
                "Cafe\u{301}",
                "undecided-product:prd.md:73473dcc12b7",
            ),
            ("k", "p.md", "a\u{1f}b", "k:p.md:c8687a08aa5d"),
            ("k", "p.md", "a\u{200b}b", "k:p.md:8df62aef5f92"),
            (
                "undecided-product",
                "prd.md:5",
                "",
                "undecided-product:prd.md:e3b0c44298fc",
            ),
            ("", "", "x", "::2d711642b726"),
        ];
        for (kind, source, decision, want) in cases {
            assert_eq!(mint(kind, source, decision), want);
        }
    }

    #[test]
    fn the_ascii_fast_path_agrees_with_the_general_one() {
        for text in [
            "a b",
            " a",
            "a ",
            "a  b",
            "a\tb",
            "",
            " ",
            "x\u{1f}y",
            "plain words here?",
        ] {
            assert_eq!(
                is_plain_ascii_sentence(text),
                normalize_general(text) == text,
                "{text:?}"
            );
        }
    }

    fn normalize_general(text: &str) -> String {
        let words: Vec<&str> = text
            .split(is_python_space)
            .filter(|w| !w.is_empty())
            .collect();
        words.join(" ")
    }

    #[test]
    fn whitespace_before_the_colon_survives() {
        assert_eq!(bare_path("prd.md :5"), "prd.md ");
        assert_eq!(bare_path(" a.md:12\n"), "a.md");
    }

    #[test]
    fn python_space_set_has_29_code_points() {
        let count = (0..=0x10FFFFu32)
            .filter_map(char::from_u32)
            .filter(|c| is_python_space(*c))
            .count();
        assert_eq!(count, 29);
    }
}
