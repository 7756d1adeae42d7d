//! The RED identity registry `IMPL/.preflight-reds.json` and the reference `apply` algorithm
//! (formats/ucg.md §1.1, §2.3). Pure functions over bytes: callers read and write the files.
//!
//! The registry gates: anything about it that is not exactly the expected shape is a hard error that
//! leaves the file untouched, because every answer already recorded is keyed to the ids it holds.

use super::decisions::IdSet;
use super::ids;
use crate::pyjson::{self, DecodeError, Object, Reader, Value};
use indexmap::IndexMap;

/// The registry's file name inside the implementation-artifacts directory.
pub const REGISTRY_FILE: &str = ".preflight-reds.json";

/// The fields a registry red carries after its `id`, in the order they are written.
const RED_FIELDS: [&str; 4] = ["source", "kind", "decision_needed", "evidence"];

/// Why the registry could not be read or a scan could not be applied. The texts are the reference's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RedError {
    #[error("{path} is unreadable ({reason}); refusing to overwrite the id registry, because every answer already recorded is keyed to the ids it holds")]
    RegistryUnreadable { path: String, reason: String },
    #[error("{path} is not a JSON object; refusing to overwrite the id registry")]
    RegistryNotObject { path: String },
    #[error("{path} has a malformed `{field}`: expected a list of objects. Refusing to overwrite the id registry, because treating it as empty would discard every decision it holds")]
    RegistryMalformed { path: String, field: &'static str },
    #[error(
        "{path} has a tombstone whose `id` is not a string; refusing to overwrite the id registry"
    )]
    TombstoneIdNotString { path: String },
    #[error("every red must be an object carrying `kind` and `source`")]
    MissingKindOrSource,
    #[error("every red must carry `kind` and `source` as strings")]
    KindOrSourceNotString,
    #[error("every red must carry a non-empty string `decision_needed`: the id's digest is minted from it, and without it two distinct decisions collapse onto one id and a single answer suppresses both")]
    BlankDecision,
    #[error("scan input is not valid JSON: {0}")]
    ScanNotJson(String),
    #[error("scan input must be an object carrying a \"reds\" list")]
    ScanShape,
}

/// The registry document: the pending reds and the tombstones of closed ones.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Registry {
    /// Each an object; after `apply`, exactly `id` plus [`RED_FIELDS`].
    pub reds: Vec<Value>,
    /// Tombstones, each an object, carried verbatim.
    pub resolved: Vec<Value>,
}

impl Registry {
    /// Reads the registry from its bytes (`None` = the file does not exist: a clean first run).
    /// `path` names the file in error messages.
    pub fn parse(bytes: Option<&[u8]>, path: &str) -> Result<Registry, RedError> {
        Self::parse_keeping(bytes, path, true)
    }

    /// Reads the registry; with `keep_reds` false the stored reds are checked (a list of objects)
    /// but not kept, which is all a new scan needs of them.
    pub fn parse_keeping(
        bytes: Option<&[u8]>,
        path: &str,
        keep_reds: bool,
    ) -> Result<Registry, RedError> {
        let Some(bytes) = bytes else {
            return Ok(Registry::default());
        };
        let unreadable = |reason: String| RedError::RegistryUnreadable {
            path: path.to_string(),
            reason,
        };
        let text = std::str::from_utf8(bytes).map_err(|e| unreadable(utf8_reason(bytes, &e)))?;
        // Each field: absent, a list of objects (kept or not), or malformed; as in a dict, the last
        // occurrence of a duplicated key wins.
        let mut reds: Option<Option<Vec<Value>>> = None;
        let mut resolved: Option<Option<Vec<Value>>> = None;
        let is_object = Reader::document(text, |reader, pos| {
            if reader.peek(pos) != Some(b'{') {
                return Ok((false, reader.skip(pos)?));
            }
            let end = reader.object(pos, &mut |reader, key, at| {
                let (slot, keep) = match key {
                    "reds" => (&mut reds, keep_reds),
                    "resolved" => (&mut resolved, true),
                    _ => return reader.skip(at),
                };
                let (list, end) = list_of_objects(reader, at, keep)?;
                *slot = Some(list);
                Ok(end)
            })?;
            Ok((true, end))
        })
        .map_err(|e| unreadable(e.to_string()))?;
        if !is_object {
            return Err(RedError::RegistryNotObject {
                path: path.to_string(),
            });
        }
        let malformed = |field| RedError::RegistryMalformed {
            path: path.to_string(),
            field,
        };
        let reds = match reds {
            None => Vec::new(),
            Some(list) => list.ok_or_else(|| malformed("reds"))?,
        };
        let resolved = match resolved {
            None => Vec::new(),
            Some(list) => list.ok_or_else(|| malformed("resolved"))?,
        };
        // The reference sorts tombstones by id; an id that is truthy but not a string would make that
        // sort fail, so such a registry is refused like any other malformed one.
        if resolved
            .iter()
            .filter_map(|t| t.as_object()?.get("id"))
            .any(|id| id.is_truthy() && id.as_str().is_none())
        {
            return Err(RedError::TombstoneIdNotString {
                path: path.to_string(),
            });
        }
        Ok(Registry { reds, resolved })
    }

    /// The ids of the reds, as stored (never re-derived).
    pub fn red_ids(&self) -> impl Iterator<Item = &str> {
        self.reds
            .iter()
            .filter_map(|r| r.as_object()?.get("id")?.as_str())
    }

    /// The document exactly as the reference writes it: 2-space indent, raw non-ASCII, trailing newline.
    pub fn to_pretty_json(&self) -> String {
        let mut out = String::with_capacity(64 + 256 * (self.reds.len() + self.resolved.len()));
        out.push_str("{\n  \"reds\": ");
        pyjson::write_pretty_array(&mut out, &self.reds, 1);
        out.push_str(",\n  \"resolved\": ");
        pyjson::write_pretty_array(&mut out, &self.resolved, 1);
        out.push_str("\n}\n");
        out
    }
}

/// Reads the value at `pos` if it is a list of objects (`None` inside when it is anything else);
/// the objects themselves are kept only when asked for.
fn list_of_objects(
    reader: &mut Reader,
    pos: usize,
    keep: bool,
) -> Result<(Option<Vec<Value>>, usize), DecodeError> {
    if reader.peek(pos) != Some(b'[') {
        return Ok((None, reader.skip(pos)?));
    }
    let mut items = Some(Vec::new());
    let end = reader.array(pos, &mut |reader, at| {
        if reader.peek(at) != Some(b'{') {
            items = None;
            return reader.skip(at);
        }
        if !keep {
            return reader.skip(at);
        }
        let (value, end) = reader.value(at)?;
        if let Some(items) = items.as_mut() {
            items.push(value);
        }
        Ok(end)
    })?;
    Ok((items, end))
}

/// Reads a scan document (`{"reds": [...], ...}`) and returns its reds.
pub fn parse_scan(bytes: &[u8]) -> Result<Vec<Value>, RedError> {
    let text =
        std::str::from_utf8(bytes).map_err(|e| RedError::ScanNotJson(utf8_reason(bytes, &e)))?;
    let value = pyjson::loads(text).map_err(|e| RedError::ScanNotJson(e.to_string()))?;
    match value {
        Value::Object(mut doc) => match doc.shift_remove("reds") {
            Some(Value::Array(reds)) => Ok(reds),
            _ => Err(RedError::ScanShape),
        },
        _ => Err(RedError::ScanShape),
    }
}

/// Checks every red before anything is minted (reference `validate_reds`).
pub fn validate_reds(reds: &[Value]) -> Result<(), RedError> {
    for red in reds {
        let Some(red) = red.as_object() else {
            return Err(RedError::MissingKindOrSource);
        };
        let truthy = |key| red.get(key).is_some_and(Value::is_truthy);
        if !truthy("kind") || !truthy("source") {
            return Err(RedError::MissingKindOrSource);
        }
        match red.get("decision_needed").and_then(Value::as_str) {
            Some(text) if !ids::normalize_decision(text).is_empty() => {}
            _ => return Err(RedError::BlankDecision),
        }
    }
    // The reference would crash on a non-string kind or source (exit 1); refuse cleanly instead.
    for red in reds.iter().filter_map(Value::as_object) {
        if red.get("kind").and_then(Value::as_str).is_none()
            || red.get("source").and_then(Value::as_str).is_none()
        {
            return Err(RedError::KindOrSourceNotString);
        }
    }
    Ok(())
}

/// The reference `apply`: mint ids for the scanned reds, drop those closed in `.decisions.json`,
/// and carry the tombstones forward (existing ones verbatim, one new `{id, kind, path}` per closed
/// scanned red; one per id, newest wins; sorted by id). Consumes the scan: its values move into the
/// new registry instead of being copied.
pub fn apply(
    scan_reds: Vec<Value>,
    existing_resolved: &[Value],
    closed: &IdSet,
) -> Result<Registry, RedError> {
    validate_reds(&scan_reds)?;
    let mut reds = Vec::with_capacity(scan_reds.len());
    let mut tombstones: IndexMap<String, Value, foldhash::fast::RandomState> = IndexMap::default();
    for tombstone in existing_resolved {
        if let Some(id) = tombstone.as_object().and_then(|t| t.get("id")?.as_str()) {
            if !id.is_empty() {
                tombstones.insert(id.to_string(), tombstone.clone());
            }
        }
    }
    for red in scan_reds {
        let Value::Object(mut red) = red else {
            continue; // validate_reds admits objects only
        };
        let text = |key: &str| red.get(key).and_then(Value::as_str).unwrap_or("");
        let id = ids::mint(text("kind"), text("source"), text("decision_needed"));
        if closed.contains(&id) {
            let mut tombstone = Object::default();
            tombstone.insert("id".into(), Value::Str(id.clone()));
            tombstone.insert(
                "kind".into(),
                Value::Str(ids::py_strip(text("kind")).into()),
            );
            tombstone.insert(
                "path".into(),
                Value::Str(ids::bare_path(text("source")).into()),
            );
            tombstones.insert(id, Value::Object(Box::new(tombstone)));
            continue;
        }
        let mut entry = Object::with_capacity_and_hasher(5, Default::default());
        entry.insert("id".into(), Value::Str(id));
        for field in RED_FIELDS {
            let value = red.swap_remove(field).unwrap_or(Value::Str(String::new()));
            entry.insert(field.into(), value);
        }
        reds.push(Value::Object(Box::new(entry)));
    }
    tombstones.sort_unstable_keys();
    Ok(Registry {
        reds,
        resolved: tombstones.into_values().collect(),
    })
}

fn utf8_reason(bytes: &[u8], err: &std::str::Utf8Error) -> String {
    let at = err.valid_up_to();
    format!(
        "'utf-8' codec can't decode byte 0x{:02x} in position {at}: invalid UTF-8",
        bytes.get(at).copied().unwrap_or(0)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(json: &str) -> Vec<Value> {
        parse_scan(json.as_bytes()).unwrap()
    }

    #[test]
    fn registry_shapes_that_are_refused() {
        for bad in [
            "{ corrupt",
            "[]",
            "{\"reds\": {}}",
            "{\"reds\": \"none\"}",
            "{\"reds\": [1, 2]}",
            "{\"reds\": [], \"resolved\": \"x\"}",
            "{\"resolved\": [{\"id\": 5}]}",
        ] {
            assert!(Registry::parse(Some(bad.as_bytes()), "r").is_err(), "{bad}");
        }
        assert_eq!(
            Registry::parse(Some(b"{}"), "r").unwrap(),
            Registry::default()
        );
        assert_eq!(Registry::parse(None, "r").unwrap(), Registry::default());
    }

    #[test]
    fn two_findings_at_one_key_one_closed_clears_exactly_one() {
        let reds = scan(
            r#"{"reds": [
            {"kind": "k", "source": "p.md:1", "decision_needed": "A"},
            {"kind": "k", "source": "p.md:2", "decision_needed": "B"}]}"#,
        );
        let first = apply(reds.clone(), &[], &IdSet::default()).unwrap();
        let closed = IdSet::from_iter([first.red_ids().next().unwrap().to_string()]);
        let second = apply(reds, &first.resolved, &closed).unwrap();
        assert_eq!(second.reds.len(), 1);
        assert_eq!(second.resolved.len(), 1);
        assert_eq!(second.red_ids().next(), first.red_ids().nth(1));
    }
}
