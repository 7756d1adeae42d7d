//! Every reader of DG-Anvil's files, fed the same arbitrary bytes: ledger lines, lesson
//! validation, the tokenizer and similarity, the index (whose splice must equal a rebuild), and a
//! contract's counter_examples edit (which must change nothing else).

#![no_main]

use libfuzzer_sys::fuzz_target;
use ucg_lesson::js::{JsObject, JsString, JsValue};
use ucg_lesson::{contract, entry, index, ledger};

fuzz_target!(|data: &[u8]| {
    let (lines, _) = ledger::lines(data);
    // Every valid lesson indexed, in ledger order, and the same lessons as additions.
    let mut rebuilt = JsObject::new();
    let mut additions = Vec::new();
    for line in &lines {
        if let Ok(value) = &line.parsed {
            if let Ok(entry) = entry::validate(value) {
                if ledger::index_entry(&mut rebuilt, entry).is_ok() {
                    additions.push(index::Addition {
                        id: entry
                            .get("id")
                            .and_then(JsValue::as_js_str)
                            .cloned()
                            .unwrap_or_default(),
                        created: entry.get("created").cloned().unwrap_or(JsValue::Null),
                        keys: entry::index_keys(entry),
                    });
                }
            }
        }
    }
    // Spliced into an empty index, the additions give the rebuilt index (the splice declines a
    // repeated id, which the rebuild overwrites).
    let empty = index::to_bytes(&JsObject::new());
    if let Some(splice) = index::splice(&empty, &additions) {
        assert_eq!(splice.apply(&empty), index::to_bytes(&rebuilt));
    }
    let _ = ledger::load_index(Some(data));
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = entry::tokens(&JsString::from(text));
        let _ = entry::jaccard(text, "rate limit window");
        if let Ok(edited) = contract::add_counter_example(text, "L-2026-01-01-00000000", "x") {
            assert!(edited.len() > text.len());
        }
    }
});
