//! Keeping `ledger.index.json` in step without re-reading it whole (B.3). The index is rewritten
//! on every append; parsing a 100,000-lesson index each time costs more than the append itself.
//! When the file is exactly as git-ucg last wrote it — its length, modification time and inode
//! match the stamp recorded then — the new ids are spliced into its compact text. Any other file
//! (written by DG-Anvil, edited by hand, or not matching the expected layout) takes the full
//! path: parsed, checked, updated as the reference updates it and rewritten as `JSON.stringify`
//! writes it. The splice gives up (to the full path) wherever JavaScript would not simply append:
//! an integer-like key or id (those go first, in numeric order) or an id already indexed.

use super::js::{self, JsObject, JsString, JsValue};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The stamp beside the index: what the index looked like when git-ucg wrote it.
pub(crate) fn stamp_path(index: &Path) -> PathBuf {
    hidden_beside(index, ".git-ucg-stamp")
}

/// `.<name><suffix>` beside the file `path` names: where git-ucg keeps what it derives from it.
pub(crate) fn hidden_beside(path: &Path, suffix: &str) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}{suffix}"))
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
        ucg_store::read_text(stamp_path(index)),
    ) else {
        return false;
    };
    stamp.trim() == identity(&meta)
}

/// Whether an index is in the layout the splice relies on: exactly `by_pattern` (arrays of
/// strings) then `by_id` (objects). Any other is only ever rewritten whole.
pub(crate) fn is_canonical(index: &JsObject) -> bool {
    let keys: Vec<&[u8]> = index.keys().map(JsString::as_bytes).collect();
    keys == [&b"by_pattern"[..], &b"by_id"[..]]
        && index
            .get("by_pattern")
            .and_then(JsValue::as_object)
            .is_some_and(|patterns| {
                patterns.iter().all(|(_, ids)| {
                    matches!(ids, JsValue::Array(ids) if ids.iter().all(|v| v.as_js_str().is_some()))
                })
            })
        && index
            .get("by_id")
            .and_then(JsValue::as_object)
            .is_some_and(|ids| ids.iter().all(|(_, v)| v.as_object().is_some()))
}

/// Forgets the stamp: the next append reads the index whole.
pub(crate) fn forget(index: &Path) {
    let _ = ucg_store::remove_if_present(&stamp_path(index));
}

/// Records the index about to be put in place, from its temporary file (the inode, length and
/// modification time a swap or a rename keeps): the stamp is written before, not after.
pub(crate) fn record_file(index: &Path, file: &std::fs::File) {
    stamp(index, file.metadata());
}

/// Records the index as just written. A stamp that cannot be written only costs the next append
/// its fast path.
pub(crate) fn record(index: &Path) {
    stamp(index, std::fs::metadata(index));
}

/// The stamp of the index `meta` describes, or none when it could not be read.
fn stamp(index: &Path, meta: std::io::Result<std::fs::Metadata>) {
    match meta {
        Ok(meta) => {
            let _ = ucg_store::write_small(&stamp_path(index), identity(&meta).as_bytes());
        }
        Err(_) => forget(index),
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

/// `"<text>"` as `JSON.stringify` writes it.
fn quoted(text: &JsString) -> Vec<u8> {
    let mut out = Vec::new();
    js::write_json_string(text, &mut out);
    out
}

/// One lesson's part of the index: its id, its `created`, its keys.
pub struct Addition {
    pub id: JsString,
    pub created: JsValue,
    pub keys: Vec<JsString>,
}

impl Addition {
    /// A lesson's: its id (empty unless a string), its `created` (`null` when absent), its keys.
    pub fn of(entry: &JsObject) -> Addition {
        Addition {
            id: entry
                .get("id")
                .and_then(JsValue::as_js_str)
                .cloned()
                .unwrap_or_default(),
            created: entry.get("created").cloned().unwrap_or(JsValue::Null),
            keys: super::entry::index_keys(entry),
        }
    }
}

/// The compact index with the entries' ids added, spliced into `text` — or `None` when the text
/// is not in git-ucg's layout or an id is already in `by_id` (the full path handles those). The
/// insertions are found first; the result is then copied once.
pub fn splice(text: &[u8], entries: &[Addition]) -> Option<Splice> {
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
    for Addition { id, created, keys } in entries {
        // JavaScript puts integer-like keys first: not an append.
        if id.array_index().is_some() || keys.iter().any(|k| k.array_index().is_some()) {
            return None;
        }
        let id_json = quoted(id);
        let mut id_key = id_json.clone();
        id_key.push(b':');
        if has_key(&text[id_range.clone()], &id_key) || has_key(&new_ids, &id_key) {
            return None;
        }
        if id_has_entries {
            new_ids.push(b',');
        }
        id_has_entries = true;
        new_ids.extend_from_slice(&id_key);
        new_ids.extend_from_slice(b"{\"created\":");
        new_ids.extend_from_slice(&created.to_json());
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
                        let comma: &[u8] = if filled { b"," } else { b"" };
                        inserts.push((close, [comma, &id_json].concat()));
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

/// The full path's document: `JSON.stringify(index)`.
pub fn to_bytes(index: &JsObject) -> Vec<u8> {
    if index.is_empty() {
        return b"{\"by_pattern\":{},\"by_id\":{}}".to_vec();
    }
    JsValue::Object(index.clone()).to_json()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(text: &str) -> JsObject {
        js::parse(text).unwrap().as_object().unwrap().clone()
    }

    fn addition(id: &str, created: &str, keys: &[&str]) -> Addition {
        Addition {
            id: id.into(),
            created: JsValue::str(created),
            keys: keys.iter().map(|k| JsString::from(*k)).collect(),
        }
    }

    #[test]
    fn splicing_equals_rebuilding() {
        let mut index = JsObject::new();
        let first = entry(r#"{"id": "L1", "created": "2026-01-01", "pattern": ["rate", "limit"]}"#);
        crate::ledger::index_entry(&mut index, &first).unwrap();
        let text = to_bytes(&index);
        let apply = |text: &[u8], adds: &[Addition]| splice(text, adds).unwrap().apply(text);
        let second =
            entry(r#"{"id": "L2", "created": "2026-01-02", "pattern": ["limit", "new \"key\""]}"#);
        crate::ledger::index_entry(&mut index, &second).unwrap();
        let spliced = apply(
            &text,
            &[addition("L2", "2026-01-02", &["limit", "new \"key\""])],
        );
        assert_eq!(
            String::from_utf8(spliced).unwrap(),
            String::from_utf8(to_bytes(&index)).unwrap()
        );
        // Two new ids, one ending like the other, under one existing key: both land.
        let two = ["x\"L2", "L2"].map(|id| addition(id, "d", &["rate"]));
        let doc = js::parse_bytes(&apply(&text, &two)).unwrap();
        let rate = doc
            .get("by_pattern")
            .and_then(|ids| ids.get("rate"))
            .unwrap();
        assert_eq!(rate.to_json_string(), r#"["L1","x\"L2","L2"]"#);
        // Only the splice's own layout is stamped for it.
        assert!(is_canonical(&index));
        let mut extra = index.clone();
        extra.set("meta", JsValue::Null);
        assert!(!is_canonical(&extra));
        // An id already in by_id, or an integer-like key, takes the full path.
        assert!(splice(&text, &[addition("L1", "x", &[])]).is_none());
        assert!(splice(&text, &[addition("L9", "x", &["2024"])]).is_none());
        assert!(splice(&text, &[addition("7", "x", &[])]).is_none());
        assert!(splice(b"{\"by_id\":{}}", &[]).is_none());
        let empty = to_bytes(&JsObject::new());
        assert_eq!(
            apply(&empty, &[addition("L9", "d", &["k"])]),
            b"{\"by_pattern\":{\"k\":[\"L9\"]},\"by_id\":{\"L9\":{\"created\":\"d\"}}}".to_vec()
        );
    }
}
