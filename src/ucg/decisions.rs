//! `IMPL/.decisions.json`, the operator's answers (docs/formats/ucg.md §1.2). Pure functions over bytes.

use crate::pyjson::{self, DecodeError, Object, Reader, Value};
use std::collections::HashSet;

/// The answers file's name inside the implementation-artifacts directory.
pub const DECISIONS_FILE: &str = ".decisions.json";

/// A set of decision ids.
pub type IdSet = HashSet<String, foldhash::fast::RandomState>;

/// The ids closed by the answers file, as the registry writer reads them: entries that are objects
/// with `action` exactly `"close"` and a string `id`. The reader is fail-open: a missing,
/// unreadable or malformed file closes nothing, so every RED stands.
///
/// The file can hold a whole project's history of answers, so it is read as a stream: only the
/// ids of closing entries are kept, everything else is validated and passed over.
pub fn closed_ids(bytes: Option<&[u8]>) -> IdSet {
    bytes
        .and_then(|b| std::str::from_utf8(b).ok())
        .and_then(|text| Reader::document(text, read_document).ok())
        .flatten()
        .unwrap_or_default()
}

/// The closed ids of a document, `None` when it is not an object with a list-valued `decisions`.
fn read_document(reader: &mut Reader, pos: usize) -> Result<(Option<IdSet>, usize), DecodeError> {
    if reader.peek(pos) != Some(b'{') {
        return Ok((None, reader.skip(pos)?));
    }
    // As in a dict, the last `decisions` key wins.
    let mut closed = None;
    let end = reader.object(pos, &mut |reader, key, at| {
        if key != "decisions" {
            return reader.skip(at);
        }
        if reader.peek(at) != Some(b'[') {
            closed = None;
            return reader.skip(at);
        }
        let mut ids = IdSet::default();
        let end = reader.array(at, &mut |reader, item| read_entry(reader, item, &mut ids))?;
        closed = Some(ids);
        Ok(end)
    })?;
    Ok((closed, end))
}

fn read_entry(reader: &mut Reader, pos: usize, ids: &mut IdSet) -> Result<usize, DecodeError> {
    if reader.peek(pos) != Some(b'{') {
        return reader.skip(pos);
    }
    // Duplicate keys: the last one wins, as in a dict. Strings are borrowed from the text, and an
    // id is copied only when its entry turns out to close.
    let mut id = None;
    let mut closes = false;
    let end = reader.object(pos, &mut |reader, key, at| {
        let is_string = reader.peek(at) == Some(b'"');
        match key {
            "id" | "action" if is_string => {
                // A lone surrogate (Python keeps it) can never equal a minted id or "close".
                let (text, end, replaced) = reader.str_lossy(at)?;
                if key == "id" {
                    id = (!replaced).then_some(text);
                } else {
                    closes = !replaced && text == "close";
                }
                Ok(end)
            }
            "id" | "action" => {
                if key == "id" {
                    id = None;
                } else {
                    closes = false;
                }
                reader.skip(at)
            }
            _ => reader.skip(at),
        }
    })?;
    if let (true, Some(id)) = (closes, id) {
        ids.insert(id.into_owned());
    }
    Ok(end)
}

/// Why `.decisions.json` cannot be written: it would lose what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorruptDecisions {
    pub reason: String,
}

/// The answers document as a writer (and whoever tells the operator to run one) must find it:
/// its other top-level keys and its entries. An absent file is
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_exact_close_with_string_id_counts() {
        let file = br#"{"decisions": [
            {"id": "a", "action": "close"}, {"id": "b", "action": "Close"},
            {"id": "c", "action": "defer"}, {"id": 4, "action": "close"}, "x",
            {"id": "d", "action": "close", "id": 5}, {"id": "e", "action": "close", "action": "no"},
            {"id": 6, "action": "close", "id": "f"}]}"#;
        assert_eq!(
            closed_ids(Some(file)),
            IdSet::from_iter(["a".to_string(), "f".to_string()])
        );
    }

    #[test]
    fn corrupt_files_close_nothing() {
        for bad in [
            &b"{ this is not json"[..],
            b"[]",
            b"{\"decisions\": {}}",
            b"\xff",
        ] {
            assert!(closed_ids(Some(bad)).is_empty());
        }
        assert!(closed_ids(None).is_empty());
    }
}
