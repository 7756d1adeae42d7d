//! `lesson query`'s readers fed arbitrary bytes: each line skimmed reads as the line parsed whole
//! (the skim only answers where it is sure); the query index built from any ledger reads back and
//! answers; any bytes read as an index are refused, or answer, without panicking.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::borrow::Cow;
use ucg_lesson::js::JsString;
use ucg_lesson::query_index::{self, read_line, read_line_parsed, Ranked, View};
use ucg_store::Freshness;

type ReadLine = for<'a> fn(&'a [u8], &mut Vec<Cow<'a, [u8]>>) -> Ranked<'a>;

/// A line's facts with its tokens as a set.
fn comparable(line: &[u8], read: ReadLine) -> String {
    let mut tokens = Vec::new();
    match read(line, &mut tokens) {
        Ranked::Lesson(mut facts) => {
            let mut set: Vec<&[u8]> = tokens[facts.tokens.clone()]
                .iter()
                .map(|t| &t[..])
                .collect();
            set.sort();
            set.dedup();
            facts.tokens = 0..0;
            format!("{facts:?} {set:?}")
        }
        other => format!("{other:?}"),
    }
}

fuzz_target!(|data: &[u8]| {
    for line in data.split(|b| *b == b'\n') {
        assert_eq!(
            comparable(line, read_line),
            comparable(line, read_line_parsed)
        );
    }
    let index = query_index::build(data, Freshness::default()).expect("threads");
    let view = View::parse(&index).expect("a built index reads back");
    for pattern in ["rate", "a b a", ""] {
        assert!(view.answer(&JsString::from(pattern), 5.0, false).is_some());
    }
    if let Some(view) = View::parse(data) {
        let _ = view.answer(&JsString::from("a"), -1.0, true);
    }
});
