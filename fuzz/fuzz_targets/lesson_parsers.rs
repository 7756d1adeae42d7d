//! Every reader of DG-Anvil's files, fed the same arbitrary bytes: ledger lines, lesson
//! validation, the tokenizer and similarity, the index (whose splice must equal a rebuild), and a
//! contract's counter_examples edit (only an insertion, read back exactly).

#![no_main]

use libfuzzer_sys::fuzz_target;
use ucg_lesson::js::{JsObject, JsString, JsValue};
use ucg_lesson::{contract, entry, index, ledger};

const CONTRACT_HEAD: &str = "---\nanvil_contract_version: 1\ngoal: \"g\"\ncreated: \"2026-04-15\"\nsource_intent: \"s\"\ncriteria:\n  - id: C1\n    statement: \"works\"\n    exists:\n      paths:\n        - \"a.js\"\n    substantive:\n      coverage_min: 0.8\n    wired:\n      entry_point: \"a.js\"\n    functional:\n      expected: \"ok\"\n";

fuzz_target!(|data: &[u8]| {
    let (lines, _) = ledger::lines(data);
    // Every valid lesson indexed, in ledger order, and the same lessons as additions.
    let mut rebuilt = JsObject::new();
    let mut additions = Vec::new();
    for line in &lines {
        if let Ok(value) = &line.parsed {
            if let Ok(entry) = entry::validate(value) {
                if ledger::index_entry(&mut rebuilt, entry).is_ok() {
                    additions.push(index::Addition::of(entry));
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
        // The edit, on a contract DG-Anvil's loader takes with `text` at the end of its front
        // matter and the value after a NUL: nothing but an insertion, the value read back exactly.
        let (tail, value) = text.split_once('\0').unwrap_or((text, "x"));
        let contract = format!("{CONTRACT_HEAD}{tail}\n---\n");
        let _ = contract::load(text);
        if contract::load(&contract).is_ok() {
            if let Ok(edited) = contract::add_counter_example(&contract, "L-2", value) {
                // Only an insertion: the old text is a prefix of the new plus a suffix of it.
                let (old, new) = (contract.as_bytes(), edited.as_bytes());
                let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
                let suffix = old
                    .iter()
                    .rev()
                    .zip(new.iter().rev())
                    .take_while(|(a, b)| a == b);
                assert!(prefix + suffix.count() >= old.len() && new.len() > old.len());
                let loaded = contract::load(&edited).expect("the edit loads");
                let examples = loaded.get("counter_examples").expect("counter_examples");
                assert_eq!(examples.get("L-2"), Some(&JsValue::str(value)));
            }
        }
    }
});
