//! JavaScript as DG-Anvil's Node CLI sees it (docs/formats/lesson.md, "JavaScript semantics are
//! part of the format"): the values are the store's ([`ucg_store::js`]), parsed as V8 parses them;
//! `localeCompare` is DG-Anvil's alone.

use ucg_store::js::Engine;
pub use ucg_store::js::{
    decode, number_to_string, write_json_string, JsObject, JsString, JsValue, ParseError,
};

/// `JSON.parse(text)` as Node runs it.
pub fn parse(text: &str) -> Result<JsValue, ParseError> {
    ucg_store::js::parse(text, Engine::V8)
}

/// `JSON.parse` of bytes read as text.
pub fn parse_bytes(bytes: &[u8]) -> Result<JsValue, ParseError> {
    parse(&decode(bytes))
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
    let date_like = |s: &JsString| {
        s.as_bytes()
            .iter()
            .all(|c| c.is_ascii_digit() || *c == b'-')
    };
    if date_like(a) && date_like(b) {
        return a.as_bytes().cmp(b.as_bytes());
    }
    let (a, b) = (a.to_lossy(), b.to_lossy());
    COLLATOR.with(|c| c.borrow_mut().collate(a.as_ref(), b.as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
