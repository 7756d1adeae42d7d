//! Every reader of DG-Anvil's files, fed the same arbitrary bytes: ledger lines, lesson
//! validation, the tokenizer and similarity, the index (whose splice must equal a rebuild), and a
//! contract's counter_examples edit (which must change nothing else).

#![no_main]

use git_ucg::lesson::{contract, entry, index, ledger};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

fuzz_target!(|data: &[u8]| {
    let (lines, _) = ledger::lines(data);
    let mut rebuilt = Map::new();
    let mut additions = Vec::new();
    for line in &lines {
        if let Ok(value) = &line.parsed {
            if let Ok(entry) = entry::validate(value) {
                let id = entry.get("id").and_then(Value::as_str).unwrap_or_default().to_string();
                if !rebuilt.get("by_id").and_then(Value::as_object).is_some_and(|m| m.contains_key(&id))
                    && !additions.iter().any(|(a, _, _): &(String, Value, Vec<String>)| *a == id)
                {
                    additions.push((id, entry.get("created").cloned().unwrap_or(Value::Null), entry::index_keys(entry)));
                }
                ledger::index_entry(&mut rebuilt, entry);
            }
        }
    }
    // Spliced into an empty index, the additions give the rebuilt index.
    if let Some(splice) = index::splice(&index::to_bytes(&Map::new()), &additions) {
        let spliced = splice.apply(&index::to_bytes(&Map::new()));
        let mut expected = Map::new();
        for line in &lines {
            if let Ok(value) = &line.parsed {
                if let Ok(entry) = entry::validate(value) {
                    let id = entry.get("id").and_then(Value::as_str).unwrap_or_default();
                    if additions.iter().any(|(a, _, _)| a == id) {
                        ledger::index_entry(&mut expected, entry);
                    }
                }
            }
        }
        assert_eq!(spliced, index::to_bytes(&expected));
    }
    let _ = ledger::load_index(Some(data));
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = entry::tokens(text);
        let _ = entry::jaccard(text, "rate limit window");
        if let Ok(edited) = contract::add_counter_example(text, "L-2026-01-01-00000000", "x") {
            assert!(edited.len() > text.len());
        }
    }
});
