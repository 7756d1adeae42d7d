//! Recording and applying the operator's answers (PRODUCT.md §4). The answer is recorded first —
//! `.decisions.json`, read-modify-write keyed by id — and then applied: a closed RED leaves the
//! registry through the `reds apply --from-sidecar` path, a closed escalation's typed sidecar is
//! deleted (and a budget-overrun's turn counter), a closed ledger row's `status` cell turns
//! `resolved`. Application works from every close on record, so a close recorded by a pass that
//! died before applying it is applied by the next one without asking.

use crate::cli::Action;
use crate::pyjson::{self, Object, Value};
use crate::ucg::ledger;
use crate::ucg::pending::Source;
use std::path::Path;

/// One answer to one pending item.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Answer {
    pub id: String,
    pub answer: String,
    pub action: Action,
}

/// Why `.decisions.json` cannot be written: it would lose what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorruptDecisions {
    pub reason: String,
}

/// The answers document to write into: its other top-level keys and its entries. An absent file is
/// an empty document; anything that is not an object with a list-valued `decisions` is refused.
pub fn decisions_for_write(bytes: Option<&[u8]>) -> Result<(Object, Vec<Value>), CorruptDecisions> {
    let Some(bytes) = bytes else {
        return Ok((Object::default(), Vec::new()));
    };
    let corrupt = |reason: String| CorruptDecisions { reason };
    let text = std::str::from_utf8(bytes).map_err(|e| corrupt(format!("it is not UTF-8 ({e})")))?;
    let value = pyjson::loads(text).map_err(|e| corrupt(format!("it is not JSON ({e})")))?;
    let Value::Object(mut doc) = value else {
        return Err(corrupt("it is not a JSON object".into()));
    };
    match doc.get_mut("decisions") {
        Some(Value::Array(entries)) => {
            let entries = std::mem::take(entries);
            Ok((*doc, entries))
        }
        Some(_) => Err(corrupt("its `decisions` is not a list".into())),
        None => Err(corrupt("it has no `decisions` list".into())),
    }
}

fn entry_id(entry: &Value) -> Option<&str> {
    entry.as_object()?.get("id")?.as_str()
}

/// Records `answers` in `entries`, keyed by id: an answered id keeps the position of its first
/// entry, holds the new answer, and appears once; every other entry is kept as it was; new ids
/// follow in the order they were first answered. A later answer for the same id wins.
pub fn merge(entries: &mut Vec<Value>, answers: &[Answer]) {
    let mut latest: indexmap::IndexMap<&str, &Answer> = indexmap::IndexMap::new();
    for answer in answers {
        latest.insert(answer.id.as_str(), answer);
    }
    let record = |answer: &Answer| {
        let mut record = Object::default();
        record.insert("id".into(), Value::Str(answer.id.clone()));
        record.insert("answer".into(), Value::Str(answer.answer.clone()));
        record.insert("action".into(), Value::Str(answer.action.name().into()));
        Value::Object(Box::new(record))
    };
    let mut placed = std::collections::HashSet::new();
    let mut merged = Vec::with_capacity(entries.len() + latest.len());
    for entry in entries.drain(..) {
        let answered = entry_id(&entry).and_then(|id| latest.get_key_value(id));
        match answered {
            // The first entry of an answered id takes the answer; later duplicates go.
            Some((id, answer)) => {
                if placed.insert(*id) {
                    merged.push(record(answer));
                }
            }
            None => merged.push(entry),
        }
    }
    for (id, answer) in &latest {
        if !placed.contains(id) {
            merged.push(record(answer));
        }
    }
    *entries = merged;
}

/// The ids the entries close, as the registry writer reads them (`decisions::closed_ids`):
/// objects whose `action` is exactly `"close"` and whose `id` is a string.
pub fn closed_in(entries: &[Value]) -> crate::ucg::decisions::IdSet {
    entries
        .iter()
        .filter_map(Value::as_object)
        .filter(|e| e.get("action").and_then(Value::as_str) == Some("close"))
        .filter_map(|e| Some(e.get("id")?.as_str()?.to_string()))
        .collect()
}

/// The document as written: `decisions` in its place (first for a new file), 2-space JSON as
/// Python's `json.dumps(indent=2, ensure_ascii=False)` writes it, and a final newline. (Both
/// parts are lent to the document for the time of the writing, and handed back.)
pub fn render(doc: &mut Object, entries: &mut Vec<Value>) -> String {
    doc.insert("decisions".into(), Value::Array(std::mem::take(entries)));
    let whole = Value::Object(Box::new(std::mem::take(doc)));
    let mut text = pyjson::dumps_pretty(&whole);
    text.push('\n');
    if let Value::Object(mut whole) = whole {
        if let Some(Value::Array(back)) = whole.get_mut("decisions") {
            *entries = std::mem::take(back);
        }
        *doc = *whole;
    }
    text
}

/// What applying one close cleared.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Applied {
    pub id: String,
    pub source: Source,
    /// For people: what changed on disk.
    pub cleared: String,
}

/// The ledger with the `status` cell of each open decision row whose id is in `closed` turned
/// `resolved`; every other byte unchanged. `ledger_name` is the ledger's id path. Returns the new
/// text and the ids flipped (in row order).
pub fn flip_ledger_rows(
    text: &str,
    ledger_name: &str,
    closed: &dyn Fn(&str) -> bool,
) -> (String, Vec<String>) {
    let mut edits = Vec::new();
    let mut flipped = Vec::new();
    for (row, status) in ledger::rows_with_status(text) {
        let cell = |k: &str| row.get(k).map(String::as_str).unwrap_or("");
        let (Some(span), "decision", "open") = (status, cell("source"), cell("status")) else {
            continue;
        };
        let id = crate::ucg::ids::mint("decision", ledger_name, cell("reason"));
        if closed(&id) {
            edits.push(span);
            flipped.push(id);
        }
    }
    let mut out = text.to_string();
    // From the end, so earlier ranges stay where they are.
    for span in edits.into_iter().rev() {
        out.replace_range(span, "resolved");
    }
    (out, flipped)
}

/// `.budget-<story>.json` for an escalation sidecar `escalation-<story>.json`.
pub fn budget_file(sidecar: &Path) -> Option<std::path::PathBuf> {
    let name = sidecar.file_name()?.to_str()?;
    let story = crate::ucg::escalations::sidecar_story(name)?;
    Some(sidecar.with_file_name(format!(".budget-{story}.json")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn answer(id: &str, text: &str, action: Action) -> Answer {
        Answer {
            id: id.into(),
            answer: text.into(),
            action,
        }
    }

    #[test]
    fn corrupt_documents_are_refused() {
        for bad in [&b"{"[..], b"[]", b"{\"decisions\": {}}", b"{}", b"\xff"] {
            assert!(decisions_for_write(Some(bad)).is_err(), "{bad:?}");
        }
        assert!(decisions_for_write(None).unwrap().1.is_empty());
    }

    #[test]
    fn an_answer_replaces_in_place_and_keeps_the_rest() {
        let (doc, mut entries) = decisions_for_write(Some(
            br#"{"note": "kept", "decisions": [{"id": "a", "answer": "x", "action": "defer", "by": "me"}, 7, {"id": "b"}, {"id": "a", "answer": "dup"}]}"#,
        ))
        .unwrap();
        merge(
            &mut entries,
            &[
                answer("a", "yes", Action::Close),
                answer("c", "later", Action::Defer),
            ],
        );
        let mut doc = doc;
        assert_eq!(
            render(&mut doc, &mut entries),
            "{\n  \"note\": \"kept\",\n  \"decisions\": [\n    {\n      \"id\": \"a\",\n      \"answer\": \"yes\",\n      \"action\": \"close\"\n    },\n    7,\n    {\n      \"id\": \"b\"\n    },\n    {\n      \"id\": \"c\",\n      \"answer\": \"later\",\n      \"action\": \"defer\"\n    }\n  ]\n}\n"
        );
    }

    #[test]
    fn exactly_the_closed_rows_flip() {
        let text = "| id | source | status | reason |\n|---|---|---|---|\n| d1 | decision |  open | Sign off? |\n| d2 | gate | open | Sign off? |\n| d3 | decision | open | Other |\n";
        let id = crate::ucg::ids::mint("decision", "l.md", "Sign off?");
        let (out, flipped) = flip_ledger_rows(text, "l.md", &|i| i == id);
        assert_eq!(flipped, std::slice::from_ref(&id));
        assert_eq!(out, text.replacen("|  open |", "|  resolved |", 1));
    }

    fn entry() -> impl Strategy<Value = Value> {
        let id = prop_oneof!["[a-c]", "[a-c]:[ä😀 ]{0,3}"];
        (id, "[a-z ]{0,6}", prop::bool::ANY, prop::bool::ANY).prop_map(
            |(id, text, extra, close)| {
                let mut o = Object::default();
                o.insert("id".into(), Value::Str(id));
                o.insert("answer".into(), Value::Str(text));
                o.insert(
                    "action".into(),
                    Value::Str(if close { "close" } else { "defer" }.into()),
                );
                if extra {
                    o.insert("extra".into(), Value::Array(vec![Value::Null]));
                }
                Value::Object(Box::new(o))
            },
        )
    }

    proptest! {
        #[test]
        fn merging_loses_nothing(
            existing in prop::collection::vec(prop_oneof![entry(), Just(Value::Int("3".into()))], 0..12),
            answers in prop::collection::vec(("[a-e]", "[a-z]{0,4}", prop::bool::ANY), 0..6),
        ) {
            let answers: Vec<Answer> = answers
                .into_iter()
                .map(|(id, text, close)| answer(&id, &text, if close { Action::Close } else { Action::Defer }))
                .collect();
            let mut entries = existing.clone();
            merge(&mut entries, &answers);
            let answered = |v: &Value| entry_id(v).is_some_and(|id| answers.iter().any(|a| a.id == id));
            // Every entry not answered survives unchanged, in order.
            let kept: Vec<&Value> = existing.iter().filter(|v| !answered(v)).collect();
            let now: Vec<&Value> = entries.iter().filter(|v| !answered(v)).collect();
            prop_assert_eq!(kept, now);
            // Every answered id appears exactly once, with its last answer.
            for a in &answers {
                let last = answers.iter().rev().find(|b| b.id == a.id).unwrap();
                let found: Vec<&Value> = entries.iter().filter(|v| entry_id(v) == Some(a.id.as_str())).collect();
                prop_assert_eq!(found.len(), 1);
                let o = found[0].as_object().unwrap();
                prop_assert_eq!(o.get("answer").and_then(Value::as_str), Some(last.answer.as_str()));
                prop_assert_eq!(o.get("action").and_then(Value::as_str), Some(last.action.name()));
            }
            // The document reads back as written.
            let text = render(&mut Object::default(), &mut entries.clone());
            let (_, reread) = decisions_for_write(Some(text.as_bytes())).unwrap();
            prop_assert_eq!(&reread, &entries);
            // The closed ids applied are the ones the registry writer will read back.
            prop_assert_eq!(closed_in(&entries), crate::ucg::decisions::closed_ids(Some(text.as_bytes())));
        }
    }
}
