//! Property tests of the lesson ledger's format code: the index splice equals a rebuild, the
//! tokenizer and Jaccard follow their rules, validation never panics, the contract edit changes
//! nothing but the entry it adds.

use git_ucg::lesson::{contract, entry, index, ledger};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

fn entry() -> impl Strategy<Value = (String, String, Vec<String>)> {
    (
        "[A-Za-z0-9\\-\"\\\\é]{1,8}",
        "20[0-9]{2}-[0-9]{2}-[0-9]{2}",
        proptest::collection::vec("[a-zA-Z\"\\\\ ,é\\]\\[]{1,6}", 0..4),
    )
}

proptest! {
    /// Appending by splice gives, byte for byte, the index a full rebuild writes.
    #[test]
    fn the_splice_equals_a_rebuild(first in proptest::collection::vec(entry(), 0..6), more in proptest::collection::vec(entry(), 1..4)) {
        let mut index_map = Map::new();
        let mut seen = Vec::new();
        let as_entry = |(id, created, pattern): &(String, String, Vec<String>)| {
            json!({"id": id, "created": created, "pattern": pattern}).as_object().cloned().unwrap_or_default()
        };
        for e in &first {
            ledger::index_entry(&mut index_map, &as_entry(e));
            seen.push(e.0.clone());
        }
        let text = index::to_bytes(&index_map);
        let mut additions = Vec::new();
        for e in &more {
            if seen.contains(&e.0) {
                continue;
            }
            seen.push(e.0.clone());
            let entry = as_entry(e);
            ledger::index_entry(&mut index_map, &entry);
            additions.push((e.0.clone(), json!(e.1), entry::index_keys(&entry)));
        }
        let spliced = index::splice(&text, &additions).map(|s| s.apply(&text));
        prop_assert_eq!(spliced.map(String::from_utf8), Some(Ok(String::from_utf8(index::to_bytes(&index_map)).unwrap_or_default())));
    }

    /// Tokens are lowercase ASCII letters and digits; Jaccard is symmetric and in [0, 1].
    #[test]
    fn tokens_and_similarity(a in "\\PC{0,30}", b in "\\PC{0,30}") {
        for token in entry::tokens(&a) {
            prop_assert!(!token.is_empty() && token.bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()));
        }
        let s = entry::jaccard(&a, &b);
        prop_assert!((0.0..=1.0).contains(&s));
        prop_assert_eq!(s, entry::jaccard(&b, &a));
        prop_assert_eq!(entry::jaccard(&a, &a), 1.0);
    }

    /// Validation takes any JSON.
    #[test]
    fn validation_is_total(text in "\\PC{0,60}") {
        if let Ok(value) = serde_json::from_str::<Value>(&text) {
            let _ = entry::validate(&value);
        }
        let _ = ledger::lines(text.as_bytes());
    }

    /// Adding a counter-example keeps every other line, in order.
    #[test]
    fn the_contract_edit_adds_only_its_entry(value in "\\PC{0,30}", extra in "[a-z_]{1,8}".prop_filter("a key the contract already has", |k| !["id", "criteria", "counter_examples"].contains(&k.as_str()))) {
        let text = format!("id: c-1\ncriteria:\n  - id: C1\n    statement: works\ncounter_examples:\n  L-1: \"one\"\n{extra}: 1\n");
        let edited = contract::add_counter_example(&text, "L-2", &value);
        prop_assert!(edited.is_ok(), "{:?}", edited);
        let edited = edited.unwrap_or_default();
        let added: Vec<&str> = edited.lines().filter(|l| !text.lines().any(|t| t == *l)).collect();
        prop_assert_eq!(added.len(), 1);
        prop_assert!(added[0].starts_with("  \"L-2\": "));
    }
}
