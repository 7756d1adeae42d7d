//! Keeping `ledger.index.json` in step without re-reading it whole (B.3). The index is rewritten
//! on every append; parsing a 100,000-lesson index each time costs more than the append itself.
//! When the file is exactly as git-ucg last wrote it — its length, modification time and inode
//! match the stamp recorded then — the new ids are spliced into its compact text. Any other file
//! (written by DG-Anvil, edited by hand, or not matching the expected layout) takes the full
//! path: parsed, checked, updated and rewritten in git-ucg's layout, the same compact JSON.

use serde_json::{Map, Value};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The stamp beside the index: what the index looked like when git-ucg wrote it.
pub fn stamp_path(index: &Path) -> PathBuf {
    let name = index
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    index.with_file_name(format!(".{name}.git-ucg-stamp"))
}

fn identity(meta: &std::fs::Metadata) -> String {
    format!(
        "{} {} {} {}",
        meta.len(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ino()
    )
}

/// Whether the index file is the one git-ucg wrote last.
pub fn is_ours(index: &Path) -> bool {
    let (Ok(meta), Ok(stamp)) = (
        std::fs::metadata(index),
        std::fs::read_to_string(stamp_path(index)),
    ) else {
        return false;
    };
    stamp.trim() == identity(&meta)
}

/// Whether an index is in the layout the splice relies on: exactly `by_pattern` (arrays of
/// strings) and `by_id` (objects). Any other is only ever rewritten whole.
pub fn is_canonical(index: &Map<String, Value>) -> bool {
    index.len() == 2
        && index
            .get("by_pattern")
            .and_then(Value::as_object)
            .is_some_and(|patterns| {
                patterns.values().all(|ids| {
                    ids.as_array()
                        .is_some_and(|ids| ids.iter().all(Value::is_string))
                })
            })
        && index
            .get("by_id")
            .and_then(Value::as_object)
            .is_some_and(|ids| ids.values().all(Value::is_object))
}

/// Forgets the stamp: the next append reads the index whole.
pub fn forget(index: &Path) {
    let _ = crate::store::remove_if_present(&stamp_path(index));
}

/// Records the index about to be put in place, from its temporary file (the inode, length and
/// modification time a swap or a rename keeps): the stamp is written before, not after.
pub fn record_file(index: &Path, file: &std::fs::File) {
    match file.metadata() {
        Ok(meta) => {
            let _ = crate::store::write_small(&stamp_path(index), identity(&meta).as_bytes());
        }
        Err(_) => {
            let _ = crate::store::remove_if_present(&stamp_path(index));
        }
    }
}

/// Records the index as just written. A stamp that cannot be written only costs the next append
/// its fast path.
pub fn record(index: &Path) {
    match std::fs::metadata(index) {
        Ok(meta) => {
            let _ = crate::store::write_small(&stamp_path(index), identity(&meta).as_bytes());
        }
        Err(_) => {
            let _ = crate::store::remove_if_present(&stamp_path(index));
        }
    }
}

const HEAD: &[u8] = b"{\"by_pattern\":{";
const MIDDLE: &[u8] = b"},\"by_id\":{";
const TAIL: &[u8] = b"}}";

/// Where the closing `]` of the array that starts at `open` (a `[`) is, skipping strings.
fn array_end(text: &[u8], open: usize) -> Option<usize> {
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in text.iter().enumerate().skip(open + 1) {
        match (in_string, escaped, b) {
            (true, true, _) => escaped = false,
            (true, false, b'\\') => escaped = true,
            (true, false, b'"') => in_string = false,
            (false, _, b'"') => in_string = true,
            (false, _, b']') => return Some(i),
            (false, _, b'[' | b'{') => return None,
            _ => {}
        }
    }
    None
}

/// `"<text>"` as compact JSON writes it.
fn quoted(text: &str) -> Vec<u8> {
    serde_json::to_vec(text).unwrap_or_default()
}

/// The compact index with the entries' ids added, spliced into `text` — or `None` when the text
/// is not in git-ucg's layout or an id is already in `by_id` (the full path handles those). The
/// insertions are found first; the result is then copied once.
pub fn splice(text: &[u8], entries: &[(String, Value, Vec<String>)]) -> Option<Splice> {
    if !(text.starts_with(HEAD) && text.ends_with(TAIL)) {
        return None;
    }
    let middle = memchr::memmem::find(text, MIDDLE)?;
    let pattern_range = HEAD.len()..middle;
    let id_range = middle + MIDDLE.len()..text.len() - TAIL.len();
    // (offset in `text`, bytes to insert there), kept in order of insertion.
    let mut inserts: Vec<(usize, Vec<u8>)> = Vec::new();
    // Keys new to by_pattern, with their ids, appended at its end.
    let mut new_keys: Vec<(Vec<u8>, Vec<Vec<u8>>)> = Vec::new();
    let mut new_ids: Vec<u8> = Vec::new();
    let mut pattern_has_entries = !pattern_range.is_empty();
    let mut id_has_entries = !id_range.is_empty();
    for (id, created, keys) in entries {
        let id_json = quoted(id);
        let mut id_key = id_json.clone();
        id_key.push(b':');
        if has_key(&text[id_range.clone()], &id_key) || contains_key_text(&new_ids, &id_key) {
            return None;
        }
        if id_has_entries {
            new_ids.push(b',');
        }
        id_has_entries = true;
        new_ids.extend_from_slice(&id_key);
        new_ids.extend_from_slice(b"{\"created\":");
        new_ids.extend_from_slice(&serde_json::to_vec(created).ok()?);
        new_ids.push(b'}');
        for key in keys {
            let mut key_open = quoted(key);
            key_open.extend_from_slice(b":[");
            if let Some((_, ids)) = new_keys.iter_mut().find(|(k, _)| *k == key_open) {
                if !ids.contains(&id_json) {
                    ids.push(id_json.clone());
                }
                continue;
            }
            let region = &text[pattern_range.clone()];
            match find_key(region, &key_open) {
                Some(at) => {
                    let open = pattern_range.start + at + key_open.len() - 1;
                    let close = array_end(text, open)?;
                    let queued = inserts.iter().any(|(o, b)| {
                        *o == close
                            && (*b == id_json || b[..] == [&b","[..], &id_json].concat()[..])
                    });
                    if !contains_element(&text[open..=close], &id_json) && !queued {
                        let filled = close > open + 1 || inserts.iter().any(|(o, _)| *o == close);
                        let mut insert = Vec::new();
                        if filled {
                            insert.push(b',');
                        }
                        insert.extend_from_slice(&id_json);
                        inserts.push((close, insert));
                    }
                }
                None => new_keys.push((key_open, vec![id_json.clone()])),
            }
        }
    }
    let mut tail_of_patterns = Vec::new();
    for (key_open, ids) in new_keys {
        if pattern_has_entries {
            tail_of_patterns.push(b',');
        }
        pattern_has_entries = true;
        tail_of_patterns.extend_from_slice(&key_open);
        tail_of_patterns.extend_from_slice(&ids.join(&b","[..]));
        tail_of_patterns.push(b']');
    }
    inserts.push((middle, tail_of_patterns));
    inserts.push((id_range.end, new_ids));
    // Stable by offset: several insertions at one offset keep their order.
    inserts.sort_by_key(|(offset, _)| *offset);
    Some(Splice { inserts })
}

/// Where new bytes go into the index text.
pub struct Splice {
    inserts: Vec<(usize, Vec<u8>)>,
}

impl Splice {
    /// Writes `text` with the insertions, piece by piece.
    pub fn write_to(&self, text: &[u8], out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut from = 0;
        for (offset, bytes) in &self.inserts {
            out.write_all(&text[from..*offset])?;
            out.write_all(bytes)?;
            from = *offset;
        }
        out.write_all(&text[from..])
    }

    pub fn apply(&self, text: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(text.len() + 256);
        let _ = self.write_to(text, &mut out);
        out
    }
}

/// Whether compact object text being built holds this key (at its start or after a comma).
fn contains_key_text(object: &[u8], key: &[u8]) -> bool {
    find_key(object, key).is_some()
}

/// A key at the top of this object: the match must start right after `{`-stripped text's start
/// or a `,` (compact JSON), so a key's text inside another string never counts.
fn find_key(object: &[u8], key: &[u8]) -> Option<usize> {
    memchr::memmem::find_iter(object, key).find(|&at| at == 0 || object[at - 1] == b',')
}

fn has_key(object: &[u8], key: &[u8]) -> bool {
    find_key(object, key).is_some()
}

/// Whether a compact array of strings holds this element.
fn contains_element(array: &[u8], element: &[u8]) -> bool {
    memchr::memmem::find_iter(array, element).any(|at| {
        let before = array.get(at.wrapping_sub(1)).copied();
        let after = array.get(at + element.len()).copied();
        matches!(before, Some(b'[' | b',')) && matches!(after, Some(b']' | b','))
    })
}

/// The full path's document, compact, in git-ucg's layout: `by_pattern` then `by_id` first, then
/// any other keys as they were.
pub fn to_bytes(index: &Map<String, Value>) -> Vec<u8> {
    let mut ordered = Map::new();
    for key in ["by_pattern", "by_id"] {
        ordered.insert(
            key.into(),
            index
                .get(key)
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new())),
        );
    }
    for (key, value) in index {
        if !ordered.contains_key(key) {
            ordered.insert(key.clone(), value.clone());
        }
    }
    serde_json::to_vec(&Value::Object(ordered)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn splicing_equals_rebuilding() {
        let mut index = Map::new();
        let first = json!({"id": "L1", "created": "2026-01-01", "pattern": ["rate", "limit"]});
        crate::lesson::ledger::index_entry(&mut index, first.as_object().unwrap());
        let text = to_bytes(&index);
        let second =
            json!({"id": "L2", "created": "2026-01-02", "pattern": ["limit", "new \"key\""]});
        crate::lesson::ledger::index_entry(&mut index, second.as_object().unwrap());
        let spliced = splice(
            &text,
            &[(
                "L2".into(),
                json!("2026-01-02"),
                vec!["limit".into(), "new \"key\"".into()],
            )],
        )
        .unwrap()
        .apply(&text);
        assert_eq!(
            String::from_utf8(spliced).unwrap(),
            String::from_utf8(to_bytes(&index)).unwrap()
        );
        // Two new ids, one ending like the other, under one existing key: both land.
        let two = splice(
            &text,
            &[
                ("x\"L2".into(), json!("d"), vec!["rate".into()]),
                ("L2".into(), json!("d"), vec!["rate".into()]),
            ],
        )
        .unwrap()
        .apply(&text);
        let doc: Value = serde_json::from_slice(&two).unwrap();
        assert_eq!(doc["by_pattern"]["rate"], json!(["L1", "x\"L2", "L2"]));
        // Only the splice's own layout is stamped for it.
        assert!(is_canonical(&index));
        let mut extra = index.clone();
        extra.insert("meta".into(), json!({"v": 1}));
        assert!(!is_canonical(&extra));
        // An id already in by_id takes the full path.
        assert!(splice(&text, &[("L1".into(), json!("x"), vec![])]).is_none());
        assert!(splice(b"{\"by_id\":{}}", &[]).is_none());
        let empty = to_bytes(&Map::new());
        assert_eq!(
            splice(&empty, &[("L9".into(), json!("d"), vec!["k".into()])])
                .unwrap()
                .apply(&empty),
            b"{\"by_pattern\":{\"k\":[\"L9\"]},\"by_id\":{\"L9\":{\"created\":\"d\"}}}".to_vec()
        );
    }
}
