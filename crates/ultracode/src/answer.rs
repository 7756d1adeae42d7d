//! An answer and how it is recorded: the entries of `.decisions.json` keyed by id, merged with
//! new answers and rendered as the reference writes the file (docs/formats/ucg.md §1.4). The
//! transaction that records and applies answers is `resolve`; the merge driver renders through
//! here too.

use crate::decisions::{entry_id, EntryPiece, FileEntry, IdRefs};
use indexmap::IndexMap;
use ucg_store::pyjson::{self, Object, Value};

/// What an answer does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// The decision is made: record it, then clear the artifact that carried it.
    Close,
    /// Not now: record it; the item is asked again.
    Defer,
}

impl Action {
    pub fn name(self) -> &'static str {
        match self {
            Action::Close => "close",
            Action::Defer => "defer",
        }
    }
}

/// Whether `text` says nothing: empty once whitespace, control characters and every character
/// that is invisible by definition are taken out (Unicode's `Default_Ignorable_Code_Point` and
/// format characters, `Cf`: a zero-width space, a direction mark, a lone escape). A close with
/// such an answer records no decision, on every path.
pub fn says_nothing(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_whitespace() || c.is_control() || is_invisible(c))
}

/// `Default_Ignorable_Code_Point` (Unicode 16, DerivedCoreProperties.txt) and the format
/// characters (`Cf`) outside it.
fn is_invisible(c: char) -> bool {
    matches!(c as u32,
        0x00AD | 0x034F | 0x061C | 0x115F..=0x1160 | 0x17B4..=0x17B5 | 0x180B..=0x180F
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0x3164 | 0xFE00..=0xFE0F
        | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFFB | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A
        | 0xE0000..=0xE0FFF
        // Cf outside Default_Ignorable: Arabic number signs and marks, the Syriac abbreviation
        // mark, Kaithi and Egyptian format controls.
        | 0x0600..=0x0605 | 0x06DD | 0x070F | 0x0890..=0x0891 | 0x08E2 | 0x110BD | 0x110CD
        | 0x13430..=0x1343F)
}

/// One answer to one pending item.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Answer {
    pub id: String,
    pub answer: String,
    pub action: Action,
    /// Who answered (`user.email`), stamped when the answer is recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// When (UTC, ISO-8601 to the second), stamped when the answer is recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// For an escalation, the occurrence answered (the SHA-256 of its sidecar's bytes as read),
    /// stamped when the answer is recorded: a later escalation with the same id is asked again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub occurrence: Option<String>,
    /// The question answered — its kind, source and decision text —, stamped when the answer is
    /// recorded, so that a reworded question can be offered this answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision_needed: Option<String>,
    /// The id whose answer this one reuses (a reworded question's earlier wording).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reused_from: Option<String>,
}

impl Answer {
    /// An answer not yet stamped with who gave it and when.
    pub fn new(id: impl Into<String>, answer: impl Into<String>, action: Action) -> Answer {
        Answer {
            id: id.into(),
            answer: answer.into(),
            action,
            by: None,
            at: None,
            occurrence: None,
            kind: None,
            source: None,
            decision_needed: None,
            reused_from: None,
        }
    }
}

/// The time an answer is recorded at, as its `at` gives it.
pub fn now_stamp() -> String {
    jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// The answers by id, each id where it was first answered, holding its last answer.
fn latest_by_id(answers: &[Answer]) -> IndexMap<&str, &Answer, foldhash::fast::RandomState> {
    answers.iter().map(|a| (a.id.as_str(), a)).collect()
}

/// Records `answers` in `entries`, keyed by id: an answered id keeps the position of its first
/// entry, holds the new answer, and appears once; every other entry is kept as it was; new ids
/// follow in the order they were first answered. A later answer for the same id wins.
pub fn merge(entries: &mut Vec<Value>, answers: &[Answer]) {
    let latest = latest_by_id(answers);
    let mut placed = IdRefs::default();
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

/// [`merge`] over an answers file read as an [`AnswersFile`]: the entries to write, each kept
/// from the file (by index) or new, in the same order `merge` gives them; which of the answers'
/// ids the file held already; and [`closed_in`] of the entries written — one look-up per entry.
pub fn merge_pieces<'a>(entries: &'a [FileEntry], answers: &'a [Answer]) -> MergedEntries<'a> {
    let latest = latest_by_id(answers);
    // Sized once: a set of tens of thousands growing by doubling would hash itself over.
    let closing = entries.iter().filter(|e| e.closes).count() + latest.len();
    let mut merged = MergedEntries {
        pieces: Vec::with_capacity(entries.len() + latest.len()),
        answered_before: IdRefs::default(),
        closed: IdRefs::with_capacity_and_hasher(closing, Default::default()),
    };
    let place = |merged: &mut MergedEntries<'a>, id: &'a str, answer: &Answer| {
        merged.pieces.push(EntryPiece::New(record(answer)));
        if answer.action == Action::Close {
            merged.closed.insert(id);
        }
    };
    for (index, entry) in entries.iter().enumerate() {
        let id = entry.id.as_deref();
        match id.and_then(|id| latest.get_key_value(id)) {
            Some((id, answer)) => {
                if merged.answered_before.insert(*id) {
                    place(&mut merged, id, answer);
                }
            }
            None => {
                merged.pieces.push(EntryPiece::Kept(index));
                if let (Some(id), true) = (id, entry.closes) {
                    merged.closed.insert(id);
                }
            }
        }
    }
    for (id, answer) in &latest {
        if !merged.answered_before.contains(id) {
            place(&mut merged, id, answer);
        }
    }
    merged
}

/// What [`merge_pieces`] gives.
pub struct MergedEntries<'a> {
    pub pieces: Vec<EntryPiece>,
    /// The answers' ids that the file held already.
    pub answered_before: IdRefs<'a>,
    /// The ids the merged entries close.
    pub closed: IdRefs<'a>,
}

/// The entry that records `answer`: `id`, `answer`, `action`, then `by`, `at`, `occurrence`,
/// `kind`, `source`, `decision_needed` and `reused_from` when stamped (keys the registry writer
/// and UltraCode Goal's readers ignore).
fn record(answer: &Answer) -> Value {
    let mut record = Object::default();
    record.insert("id".into(), Value::Str(answer.id.clone()));
    record.insert("answer".into(), Value::Str(answer.answer.clone()));
    record.insert("action".into(), Value::Str(answer.action.name().into()));
    for (key, value) in [
        ("by", &answer.by),
        ("at", &answer.at),
        ("occurrence", &answer.occurrence),
        ("kind", &answer.kind),
        ("source", &answer.source),
        ("decision_needed", &answer.decision_needed),
        ("reused_from", &answer.reused_from),
    ] {
        if let Some(value) = value {
            record.insert(key.into(), Value::Str(value.clone()));
        }
    }
    Value::Object(Box::new(record))
}

/// The ids the entries close, as the registry writer reads them (`decisions::closed_ids`):
/// objects whose `action` is exactly `"close"` and whose `id` is a string.
pub fn closed_in(entries: &[Value]) -> crate::decisions::IdSet {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decisions::decisions_for_write;
    use proptest::prelude::*;

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
                Answer::new("a", "yes", Action::Close),
                Answer::new("c", "later", Action::Defer),
            ],
        );
        let mut doc = doc;
        assert_eq!(
            render(&mut doc, &mut entries),
            "{\n  \"note\": \"kept\",\n  \"decisions\": [\n    {\n      \"id\": \"a\",\n      \"answer\": \"yes\",\n      \"action\": \"close\"\n    },\n    7,\n    {\n      \"id\": \"b\"\n    },\n    {\n      \"id\": \"c\",\n      \"answer\": \"later\",\n      \"action\": \"defer\"\n    }\n  ]\n}\n"
        );
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
                .map(|(id, text, close)| Answer::new(id, text, if close { Action::Close } else { Action::Defer }))
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
            prop_assert_eq!(closed_in(&entries), crate::decisions::closed_ids(Some(text.as_bytes())));
        }
    }

    #[test]
    fn invisible_answers_say_nothing_and_visible_ones_do() {
        for blank in [
            "",
            " ",
            "\t\n",
            "\u{200b}",
            "\u{200e}",
            "\u{1b}",
            "\u{feff}\u{2060}",
            "\u{e0041}",
            "\u{180e} \u{00ad}",
            "\u{3164}",
        ] {
            assert!(says_nothing(blank), "{blank:?}");
        }
        for said in ["24 hours", "x", "\u{200b}no", "\u{1b}[D ok", "日本", "0"] {
            assert!(!says_nothing(said), "{said:?}");
        }
    }
}
