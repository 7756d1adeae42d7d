//! The RED identity registry `IMPL/.preflight-reds.json` and the reference `apply` algorithm
//! (docs/formats/ucg.md §1.1, §2.3). Pure functions over bytes: callers read and write the files.
//!
//! The registry gates: anything about it that is not exactly the expected shape is a hard error that
//! leaves the file untouched, because every answer already recorded is keyed to the ids it holds.

use super::decisions::IdRefs;
use super::ids;
use indexmap::IndexMap;
use std::borrow::{Borrow, Cow};
use std::collections::HashSet;
use std::hash::{BuildHasher, Hash};
use ucg_store::pyjson::{self, DecodeError, Object, Reader, Value};

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
    #[error("the registry's tombstone ids cannot be ordered (strings mixed with numbers, or ids that are lists, objects or NaN); refusing to overwrite the id registry")]
    TombstoneIdsUnorderable,
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

impl RedError {
    /// What is wrong with the registry, without its path or the writer's refusal (for a reader
    /// that names the file itself).
    pub(crate) fn reason(&self) -> String {
        match self {
            RedError::RegistryUnreadable { reason, .. } => reason.clone(),
            RedError::RegistryNotObject { .. } => "it is not a JSON object".into(),
            RedError::RegistryMalformed { field, .. } => {
                format!("its `{field}` is not a list of objects")
            }
            other => other.to_string(),
        }
    }
}

impl Registry {
    /// Reads the registry from its bytes (`None` = the file does not exist: a clean first run).
    /// `path` names the file in error messages.
    pub fn parse(bytes: Option<&[u8]>, path: &str) -> Result<Registry, RedError> {
        let (reds, resolved) = parse_lists(
            bytes,
            path,
            |reader, at| reader.value(at).map(|(v, end)| (Some(v), end)),
            |reader, at| reader.value(at),
        )?;
        Ok(Registry { reds, resolved })
    }

    /// The stored reds as `pending` reads them — the fields it shows of each, without a map per
    /// red — and the tombstones as [`Registry::parse`] reads them. Fails exactly when
    /// [`Registry::parse`] fails.
    pub fn parse_shown(
        bytes: Option<&[u8]>,
        path: &str,
    ) -> Result<(Vec<ShownRed>, Vec<Value>), RedError> {
        parse_lists(bytes, path, read_shown_red, |reader, at| reader.value(at))
    }

    /// [`Registry::parse`] for the writer: the tombstones as [`Tombstone`]s, borrowed from
    /// `bytes` where they hold no escape (what the writer carries forward, unchanged, is never
    /// turned into maps of values), and the stored reds as the fields `apply` reads of each
    /// ([`RedsAs::Stored`] reads them so too), or only checked ([`RedsAs::Checked`]).
    pub fn parse_for_apply<'a>(
        bytes: Option<&'a [u8]>,
        path: &str,
        reds_as: RedsAs,
    ) -> Result<(Vec<RedFields>, Vec<Tombstone<'a>>), RedError> {
        let read_red = |reader: &mut Reader<'a>, at| match reds_as {
            RedsAs::Stored => read_red_fields(reader, at).map(|(fields, end)| (Some(fields), end)),
            RedsAs::Checked => reader.skip(at).map(|end| (None, end)),
        };
        parse_lists(bytes, path, read_red, read_tombstone)
    }

    /// The ids of the reds, as stored (never re-derived).
    pub fn red_ids(&self) -> impl Iterator<Item = &str> {
        self.reds.iter().filter_map(crate::decisions::entry_id)
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

/// The registry's two lists: each red by `read_red` (kept when it returns one), each tombstone
/// by `read_tombstone`.
fn parse_lists<'a, R, T>(
    bytes: Option<&'a [u8]>,
    path: &str,
    mut read_red: impl FnMut(&mut Reader<'a>, usize) -> Result<(Option<R>, usize), DecodeError>,
    mut read_tombstone: impl FnMut(&mut Reader<'a>, usize) -> Result<(T, usize), DecodeError>,
) -> Result<(Vec<R>, Vec<T>), RedError> {
    let Some(bytes) = bytes else {
        return Ok((Vec::new(), Vec::new()));
    };
    let unreadable = |reason: String| RedError::RegistryUnreadable {
        path: path.to_string(),
        reason,
    };
    let text = std::str::from_utf8(bytes).map_err(|e| unreadable(utf8_reason(bytes, &e)))?;
    // Each field: absent, a list of objects (kept or not), or malformed; as in a dict, the last
    // occurrence of a duplicated key wins.
    let mut reds: Option<Option<Vec<R>>> = None;
    let mut resolved: Option<Option<Vec<T>>> = None;
    let is_object = Reader::document(text, |reader, pos| {
        if reader.peek(pos) != Some(b'{') {
            return Ok((false, reader.skip(pos)?));
        }
        let end = reader.object(pos, |reader, key, at| match key {
            "reds" => {
                let (list, end) = list_of_objects(reader, at, &mut read_red)?;
                reds = Some(list);
                Ok(end)
            }
            "resolved" => {
                let (list, end) = list_of_objects(reader, at, |reader, at| {
                    read_tombstone(reader, at).map(|(t, end)| (Some(t), end))
                })?;
                resolved = Some(list);
                Ok(end)
            }
            _ => reader.skip(at),
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
    // An absent list is empty; a list that is not one is malformed (`reds` named first).
    let reds = reds.map(|list| list.ok_or_else(|| malformed("reds")));
    let resolved = resolved.map(|list| list.ok_or_else(|| malformed("resolved")));
    Ok((
        reds.transpose()?.unwrap_or_default(),
        resolved.transpose()?.unwrap_or_default(),
    ))
}

/// The fields of a stored red that `pending` shows, in [`SHOWN_FIELDS`] order (`None`: absent).
pub(crate) type ShownRed = [Option<Value>; 5];

/// The keys of a [`ShownRed`].
pub const SHOWN_FIELDS: [&str; 5] = ["id", "source", "kind", "decision_needed", "evidence"];

/// The field `key` of a [`ShownRed`] (`None`: absent, or not one of [`SHOWN_FIELDS`]).
pub(crate) fn shown<'r>(red: &'r ShownRed, key: &str) -> Option<&'r Value> {
    let i = SHOWN_FIELDS.iter().position(|k| *k == key)?;
    red.get(i)?.as_ref()
}

/// Reads one stored red (an object) into its [`ShownRed`]. A red with any other key, or a key
/// that is not plain text, is read as [`Reader::value`] reads it — which also gives every error
/// exactly as [`Registry::parse`] does.
fn read_shown_red(
    reader: &mut Reader,
    pos: usize,
) -> Result<(Option<ShownRed>, usize), DecodeError> {
    let mut fields: ShownRed = Default::default();
    let mut usual = true;
    let attempt = reader.object(pos, |reader, key, at| {
        let slot = SHOWN_FIELDS.iter().position(|k| *k == key);
        match slot {
            Some(i) if usual && !reader.key_replaced() => {
                let (value, end) = reader.value(at)?;
                fields[i] = Some(value);
                Ok(end)
            }
            _ => {
                usual = false;
                reader.skip(at)
            }
        }
    });
    if let (Ok(end), true) = (attempt, usual) {
        return Ok((Some(fields), end));
    }
    let (value, end) = reader.value(pos)?;
    let shown = match value {
        Value::Object(mut red) => SHOWN_FIELDS.map(|key| red.swap_remove(key)),
        _ => Default::default(),
    };
    Ok((Some(shown), end))
}

/// A stored tombstone as the writer carries it forward.
#[derive(Debug, Clone, PartialEq)]
pub enum Tombstone<'a> {
    /// `{"id": …, "kind": …, "path": …}`, three strings in that order: every tombstone the
    /// writers make (held without a map; written back exactly as the map would be).
    Plain {
        id: Cow<'a, str>,
        kind: Cow<'a, str>,
        path: Cow<'a, str>,
    },
    /// Anything else, carried verbatim.
    Other(Value),
}

/// The keys of a [`Tombstone::Plain`], in order.
const TOMBSTONE_KEYS: [&str; 3] = ["id", "kind", "path"];

impl<'t> Tombstone<'t> {
    /// The tombstone as a [`Value`] (what the registry's readers see).
    pub fn into_value(self) -> Value {
        match self {
            Tombstone::Plain { id, kind, path } => {
                let mut map = Object::with_capacity_and_hasher(3, Default::default());
                for (key, text) in TOMBSTONE_KEYS.into_iter().zip([id, kind, path]) {
                    map.insert(key.to_string(), Value::Str(text.into_owned()));
                }
                Value::Object(Box::new(map))
            }
            Tombstone::Other(value) => value,
        }
    }

    /// Its dict key in the writer's tombstone map (`None`: no truthy id, so it is dropped; an
    /// unusable id is an error).
    fn key(&self) -> Result<Option<TombstoneKey<'t>>, RedError> {
        match self {
            Tombstone::Plain { id, .. } if id.is_empty() => Ok(None),
            Tombstone::Plain { id, .. } => Ok(Some(TombstoneKey::Text(id.clone()))),
            Tombstone::Other(value) => {
                let Some(id) = value.as_object().and_then(|t| t.get("id")) else {
                    return Ok(None);
                };
                if !id.is_truthy() {
                    return Ok(None);
                }
                TombstoneKey::of(id)
                    .map(Some)
                    .ok_or(RedError::TombstoneIdsUnorderable)
            }
        }
    }

    /// Writes it as `json.dumps(indent=2)` writes the object one level inside `resolved`.
    fn write(&self, out: &mut String) {
        match self {
            Tombstone::Plain { id, kind, path } => {
                for (i, (key, text)) in TOMBSTONE_KEYS.into_iter().zip([id, kind, path]).enumerate()
                {
                    out.push_str(if i == 0 { "{\n      \"" } else { ",\n      \"" });
                    out.push_str(key);
                    out.push_str("\": ");
                    pyjson::write_string(out, text, false);
                }
                out.push_str("\n    }");
            }
            Tombstone::Other(value) => pyjson::write_pretty_value(out, value, 2),
        }
    }
}

/// Reads one tombstone: plain when it has exactly that shape, else as [`Reader::value`] reads it
/// (which also gives every error exactly as before).
fn read_tombstone<'a>(
    reader: &mut Reader<'a>,
    pos: usize,
) -> Result<(Tombstone<'a>, usize), DecodeError> {
    let mut texts: [Option<Cow<'a, str>>; 3] = Default::default();
    let mut members = 0;
    let mut plain = true;
    let attempt = reader.object(pos, |reader, key, at| {
        let expected = TOMBSTONE_KEYS.get(members).is_some_and(|want| *want == key);
        members += 1;
        if !(plain && expected && reader.peek(at) == Some(b'"')) {
            plain = false;
            return reader.skip(at);
        }
        let (text, end) = reader.str(at)?;
        texts[members - 1] = Some(text);
        Ok(end)
    });
    if let (Ok(end), true, [Some(id), Some(kind), Some(path)]) = (attempt, plain, texts) {
        return Ok((Tombstone::Plain { id, kind, path }, end));
    }
    let (value, end) = reader.value(pos)?;
    Ok((Tombstone::Other(value), end))
}

/// A tombstone id as a dict key: text (always, for tombstones git-ucg writes) or a number, which
/// Python hashes and orders by value (`1`, `1.0` and `true` are one key).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum TombstoneKey<'a> {
    Text(Cow<'a, str>),
    /// The value's `f64` bits, made orderable (sign-magnitude to two's-complement order).
    Number(i64),
}

impl TombstoneKey<'_> {
    /// `None` for ids Python could not use (lists, objects: unhashable) or order (NaN).
    fn of(id: &Value) -> Option<TombstoneKey<'static>> {
        let number = match id {
            Value::Str(s) => return Some(TombstoneKey::Text(Cow::Owned(s.clone()))),
            Value::Bool(b) => f64::from(u8::from(*b)),
            Value::Int(digits) => digits.parse::<f64>().ok()?,
            Value::Float(f) if !f.is_nan() => *f,
            _ => return None,
        };
        let bits = (number + 0.0).to_bits() as i64; // + 0.0 folds -0.0 into 0.0
        Some(TombstoneKey::Number(if bits < 0 {
            bits ^ i64::MAX
        } else {
            bits
        }))
    }
}

/// How [`Registry::parse_for_apply`] reads the stored reds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedsAs {
    /// As stored: the fields `apply` reads (`--from-sidecar` re-applies answers to them).
    Stored,
    /// Checked to be a list of objects, not kept (a new scan replaces them).
    Checked,
}

/// The fields of a red `apply` reads, in [`RED_FIELDS`] order (`None`: absent); `None` for a red
/// that is not an object.
pub(crate) type RedFields = Option<[Option<Value>; 4]>;

const SOURCE: usize = 0;
const KIND: usize = 1;
const DECISION: usize = 2;

/// Reads one red into its [`RedFields`]; other keys are validated and passed over, so what they
/// hold (even a lone surrogate Python would keep) cannot fail the run.
fn read_red_fields(reader: &mut Reader, pos: usize) -> Result<(RedFields, usize), DecodeError> {
    if reader.peek(pos) != Some(b'{') {
        let (_, end) = reader.value(pos)?;
        return Ok((None, end));
    }
    let mut fields: [Option<Value>; 4] = Default::default();
    let end = reader.object(pos, |reader, key, at| {
        let Some(i) = RED_FIELDS.iter().position(|field| *field == key) else {
            return reader.skip(at);
        };
        let (value, end) = reader.value(at)?;
        fields[i] = Some(value);
        Ok(end)
    })?;
    Ok((Some(fields), end))
}

/// Reads the value at `pos` if it is a list of objects (`None` inside when it is anything else);
/// `read` reads each object, keeping what it returns (`None`: checked, not kept).
fn list_of_objects<'a, T>(
    reader: &mut Reader<'a>,
    pos: usize,
    mut read: impl FnMut(&mut Reader<'a>, usize) -> Result<(Option<T>, usize), DecodeError>,
) -> Result<(Option<Vec<T>>, usize), DecodeError> {
    if reader.peek(pos) != Some(b'[') {
        return Ok((None, reader.skip(pos)?));
    }
    // Room for an object every 64 bytes (a red or a tombstone is longer): a list of thousands
    // growing by doubling would copy itself over into fresh memory a dozen times, and room not
    // filled is never touched.
    let mut items = Some(Vec::with_capacity(reader.left_from(pos) / 64));
    let end = reader.array(pos, |reader, at| {
        if reader.peek(at) != Some(b'{') {
            items = None;
            return reader.skip(at);
        }
        let (value, end) = read(reader, at)?;
        if let (Some(items), Some(value)) = (items.as_mut(), value) {
            items.push(value);
        }
        Ok(end)
    })?;
    Ok((items, end))
}

/// Reads a scan document (`{"reds": [...], ...}`) and returns its reds, each as the
/// [`RedFields`] `apply` reads (no map is built per red).
pub fn parse_scan(bytes: &[u8]) -> Result<Vec<RedFields>, RedError> {
    let text =
        std::str::from_utf8(bytes).map_err(|e| RedError::ScanNotJson(utf8_reason(bytes, &e)))?;
    // `None`: not an object; `Some(None)`: no `reds` list (the last `reds` key wins, as in a dict).
    let reds: Option<Option<Vec<RedFields>>> = Reader::document(text, |reader, pos| {
        if reader.peek(pos) != Some(b'{') {
            return Ok((None, reader.skip(pos)?));
        }
        let mut reds = None;
        let end = reader.object(pos, |reader, key, at| {
            if key != "reds" {
                return reader.skip(at);
            }
            if reader.peek(at) != Some(b'[') {
                reds = None;
                return reader.skip(at);
            }
            // Room for as many reds as the text could hold (a red is far longer than 64 bytes):
            // room not filled is never touched, and a growing list would copy itself over.
            let mut items = Vec::with_capacity(text.len() / 64);
            let end = reader.array(at, |reader, item| {
                let (red, end) = read_red_fields(reader, item)?;
                items.push(red);
                Ok(end)
            })?;
            reds = Some(items);
            Ok(end)
        })?;
        Ok((Some(reds), end))
    })
    .map_err(|e| RedError::ScanNotJson(e.to_string()))?;
    reds.flatten().ok_or(RedError::ScanShape)
}

/// Checks every red before anything is minted (reference `validate_reds`).
pub fn validate_reds(reds: &[RedFields]) -> Result<(), RedError> {
    for red in reds {
        let Some(red) = red else {
            return Err(RedError::MissingKindOrSource);
        };
        let truthy = |i: usize| red[i].as_ref().is_some_and(Value::is_truthy);
        if !truthy(KIND) || !truthy(SOURCE) {
            return Err(RedError::MissingKindOrSource);
        }
        match red[DECISION].as_ref().and_then(Value::as_str) {
            Some(text) if !ids::normalize_decision(text).is_empty() => {}
            _ => return Err(RedError::BlankDecision),
        }
    }
    // The reference would crash on a non-string kind or source (exit 1); refuse cleanly instead.
    for red in reds.iter().flatten() {
        let text = |i: usize| red[i].as_ref().and_then(Value::as_str);
        if text(KIND).is_none() || text(SOURCE).is_none() {
            return Err(RedError::KindOrSourceNotString);
        }
    }
    Ok(())
}

/// The reference `apply`: mint ids for the scanned reds, drop those closed in `.decisions.json`,
/// and carry the tombstones forward (existing ones verbatim, one new `{id, kind, path}` per closed
/// scanned red; one per id, newest wins; sorted by id). Consumes the scan: its values move into the
/// new registry instead of being copied.
pub fn apply<K, S>(
    scan_reds: Vec<RedFields>,
    existing_resolved: &[Value],
    closed: &HashSet<K, S>,
) -> Result<Registry, RedError>
where
    K: Borrow<str> + Hash + Eq,
    S: BuildHasher,
{
    validate_reds(&scan_reds)?;
    let mut reds = Vec::with_capacity(scan_reds.len());
    let mut tombstones = tombstones_of(existing_resolved.iter().cloned().map(Tombstone::Other))?;
    // validate_reds admits objects only.
    for fields in scan_reds.into_iter().flatten() {
        let id = minted_id(&fields);
        if closed.contains(id.as_str()) {
            close(&mut tombstones, id, &fields);
            // What is let go goes with the process (see `Document::finish`).
            std::mem::forget(fields);
            continue;
        }
        let mut entry = Object::with_capacity_and_hasher(5, Default::default());
        entry.insert("id".into(), Value::Str(id));
        for (field, value) in RED_FIELDS.into_iter().zip(fields) {
            entry.insert(field.into(), value.unwrap_or(Value::Str(String::new())));
        }
        reds.push(Value::Object(Box::new(entry)));
    }
    Ok(Registry {
        reds,
        resolved: sorted_tombstones(tombstones)?
            .into_iter()
            .map(Tombstone::into_value)
            .collect(),
    })
}

/// [`apply`] to reds [`validate_reds`] has passed, written straight to the registry's
/// document (what `Registry::to_pretty_json` would make of [`apply`]'s registry, byte for byte),
/// without building the registry first. Consumes the tombstones: they move into the document.
pub fn apply_document<K, S>(
    scan_reds: Vec<RedFields>,
    existing_resolved: Vec<Tombstone<'_>>,
    closed: &HashSet<K, S>,
) -> Result<String, RedError>
where
    K: Borrow<str> + Hash + Eq,
    S: BuildHasher,
{
    Document::prepare(scan_reds, existing_resolved)?.finish(closed)
}

/// [`apply_document`] in two halves: everything that does not depend on the answers — the ids
/// minted, every red laid out as if none were closed, the stored tombstones keyed — then, once
/// the answers are known, the closed reds cut out of the text and their tombstones added. The
/// registry writer does the first half while the answers file is still being read.
pub(crate) struct Document<'t> {
    /// `{"reds": ` and every red laid out, each after a `,`.
    text: String,
    scan_reds: Vec<RedFields>,
    /// Each red's id and where its text ends (it starts where the previous one ends).
    laid_out: Vec<(String, usize)>,
    tombstones: Tombstones<'t>,
}

impl<'t> Document<'t> {
    pub(crate) fn prepare(
        scan_reds: Vec<RedFields>,
        existing_resolved: Vec<Tombstone<'t>>,
    ) -> Result<Document<'t>, RedError> {
        let tombstones = tombstones_of(existing_resolved.into_iter())?;
        let mut text = String::with_capacity(64 + 256 * (scan_reds.len() + tombstones.len()));
        text.push_str("{\n  \"reds\": ");
        let mut laid_out = Vec::with_capacity(scan_reds.len());
        for fields in scan_reds.iter().flatten() {
            let id = minted_id(fields);
            // As `pyjson::write_pretty_array` lays out an object of five members, one level down.
            text.push_str(",\n    {\n      \"id\": ");
            pyjson::write_string(&mut text, &id, false);
            for (field, value) in RED_FIELDS.into_iter().zip(fields) {
                text.push_str(",\n      \"");
                text.push_str(field);
                text.push_str("\": ");
                match value {
                    Some(value) => pyjson::write_pretty_value(&mut text, value, 3),
                    None => text.push_str("\"\""),
                }
            }
            text.push_str("\n    }");
            laid_out.push((id, text.len()));
        }
        Ok(Document {
            text,
            scan_reds,
            laid_out,
            tombstones,
        })
    }

    /// [`Document::finish`] with the ids an answers file closes, in any number and order: only
    /// those that name one of the reds are looked up again (a project's history of answers is
    /// mostly about reds long gone).
    pub(crate) fn finish_closing<'c>(
        self,
        closing: impl Iterator<Item = &'c str>,
    ) -> Result<String, RedError> {
        let minted: IdRefs = self.laid_out.iter().map(|(id, _)| id.as_str()).collect();
        let closed: IdRefs<'c> = closing.filter(|id| minted.contains(id)).collect();
        drop(minted);
        self.finish(&closed)
    }

    /// The document, the reds `closed` holds cut out and carried forward as tombstones (after the
    /// stored ones, in scan order: one per id, newest wins).
    pub(crate) fn finish<K, S>(mut self, closed: &HashSet<K, S>) -> Result<String, RedError>
    where
        K: Borrow<str> + Hash + Eq,
        S: BuildHasher,
    {
        let reds_from = "{\n  \"reds\": ".len();
        let mut bytes = std::mem::take(&mut self.text).into_bytes();
        let (mut kept_to, mut start) = (reds_from, reds_from);
        let scanned = self.scan_reds.iter().flatten();
        for ((id, end), fields) in std::mem::take(&mut self.laid_out).into_iter().zip(scanned) {
            let laid_out = start..end;
            start = end;
            if !closed.contains(id.as_str()) {
                bytes.copy_within(laid_out.clone(), kept_to);
                kept_to += laid_out.len();
                // Freed with the process: one by one, tens of thousands of strings cost more
                // than all of this (so are the scan, replaced tombstones and the tombstones).
                std::mem::forget(id);
                continue;
            }
            close(&mut self.tombstones, id, fields);
        }
        std::mem::forget(std::mem::take(&mut self.scan_reds));
        bytes.truncate(kept_to);
        // Whole reds moved whole: the text is still UTF-8 (checked, not assumed).
        let mut out = String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        match kept_to == reds_from {
            true => out.push_str("[]"),
            false => {
                // Every red was laid out after a `,`: the list's first one opens it instead.
                out.replace_range(reds_from..reds_from + 1, "[");
                out.push_str("\n  ]");
            }
        }
        out.push_str(",\n  \"resolved\": ");
        let resolved = sorted_tombstones(self.tombstones)?;
        // As `pyjson::write_pretty_array` lays out the list, one level down.
        for (i, tombstone) in resolved.iter().enumerate() {
            out.push_str(if i == 0 { "[\n    " } else { ",\n    " });
            tombstone.write(&mut out);
        }
        out.push_str(if resolved.is_empty() { "[]" } else { "\n  ]" });
        out.push_str("\n}\n");
        std::mem::forget(resolved);
        Ok(out)
    }
}

/// Tombstones as the writer carries them forward: those without a truthy id dropped, one per id
/// (a later one replaces an earlier one), sorted by id. The merge driver's union of several
/// sides' tombstones goes through this, so it writes them exactly as the writer would.
pub fn carried_tombstones(tombstones: impl Iterator<Item = Value>) -> Result<Vec<Value>, RedError> {
    let tombstones = tombstones_of(tombstones.map(Tombstone::Other))?;
    Ok(sorted_tombstones(tombstones)?
        .into_iter()
        .map(Tombstone::into_value)
        .collect())
}

/// Tombstones keyed by id as a Python dict would key them; those without a truthy id are dropped.
type Tombstones<'a> = IndexMap<TombstoneKey<'a>, Tombstone<'a>, foldhash::fast::RandomState>;

fn tombstones_of<'a>(
    existing: impl Iterator<Item = Tombstone<'a>>,
) -> Result<Tombstones<'a>, RedError> {
    let mut tombstones =
        Tombstones::with_capacity_and_hasher(existing.size_hint().0, Default::default());
    for tombstone in existing {
        if let Some(key) = tombstone.key()? {
            tombstones.insert(key, tombstone);
        }
    }
    Ok(tombstones)
}

/// The text of a red's field `i` (empty when absent or not a string).
fn field_str(fields: &[Option<Value>; 4], i: usize) -> &str {
    fields[i].as_ref().and_then(Value::as_str).unwrap_or("")
}

/// A red's id, minted from its fields.
fn minted_id(fields: &[Option<Value>; 4]) -> String {
    ids::mint(
        field_str(fields, KIND),
        field_str(fields, SOURCE),
        field_str(fields, DECISION),
    )
}

/// Records the `{id, kind, path}` tombstone of the red `id` with `fields`, closed (one per id,
/// newest wins; the one it replaces goes with the process, see `Document::finish`).
fn close(tombstones: &mut Tombstones<'_>, id: String, fields: &[Option<Value>; 4]) {
    let tombstone = Tombstone::Plain {
        id: Cow::Owned(id.clone()),
        kind: Cow::Owned(ids::py_strip(field_str(fields, KIND)).into()),
        path: Cow::Owned(ids::bare_path(field_str(fields, SOURCE)).into()),
    };
    std::mem::forget(tombstones.insert(TombstoneKey::Text(Cow::Owned(id)), tombstone));
}

/// The tombstones in id order; ids of both kinds cannot be ordered (Python's sort would compare
/// a str with a number and fail).
fn sorted_tombstones(mut tombstones: Tombstones<'_>) -> Result<Vec<Tombstone<'_>>, RedError> {
    let number = |k: &TombstoneKey| matches!(k, TombstoneKey::Number(_));
    if tombstones.keys().any(number) && !tombstones.keys().all(number) {
        return Err(RedError::TombstoneIdsUnorderable);
    }
    tombstones.sort_unstable_by(|a, _, b, _| a.cmp(b));
    Ok(tombstones.into_values().collect())
}

/// Python's wording for a UTF-8 decoding failure (`UnicodeDecodeError`).
pub(crate) fn utf8_reason(bytes: &[u8], err: &std::str::Utf8Error) -> String {
    let at = err.valid_up_to();
    let byte = |i: usize| bytes.get(i).copied().unwrap_or(0);
    let codec = "'utf-8' codec can't decode";
    match err.error_len() {
        // The input ends inside a sequence.
        None if bytes.len() - at > 1 => format!(
            "{codec} bytes in position {at}-{}: unexpected end of data",
            bytes.len() - 1
        ),
        None => format!(
            "{codec} byte 0x{:02x} in position {at}: unexpected end of data",
            byte(at)
        ),
        Some(_) if !matches!(byte(at), 0xc2..=0xf4) => {
            format!(
                "{codec} byte 0x{:02x} in position {at}: invalid start byte",
                byte(at)
            )
        }
        Some(1) => format!(
            "{codec} byte 0x{:02x} in position {at}: invalid continuation byte",
            byte(at)
        ),
        Some(len) => format!(
            "{codec} bytes in position {at}-{}: invalid continuation byte",
            at + len - 1
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(json: &str) -> Vec<RedFields> {
        parse_scan(json.as_bytes()).unwrap()
    }

    #[test]
    fn utf8_errors_are_worded_as_python_words_them() {
        let reason = |bytes: &[u8]| utf8_reason(bytes, &std::str::from_utf8(bytes).unwrap_err());
        assert_eq!(
            reason(b"ab\xff"),
            "'utf-8' codec can't decode byte 0xff in position 2: invalid start byte"
        );
        assert_eq!(
            reason(b"\xc3("),
            "'utf-8' codec can't decode byte 0xc3 in position 0: invalid continuation byte"
        );
        assert_eq!(
            reason(b"\xe2\x82("),
            "'utf-8' codec can't decode bytes in position 0-1: invalid continuation byte"
        );
        assert_eq!(
            reason(b"a\xe2\x82"),
            "'utf-8' codec can't decode bytes in position 1-2: unexpected end of data"
        );
        assert_eq!(
            reason(b"a\xe2"),
            "'utf-8' codec can't decode byte 0xe2 in position 1: unexpected end of data"
        );
    }

    #[test]
    fn a_parsed_registry_keeps_its_reds_as_stored() {
        let text = br#"{"reds": [{"id": "stored", "kind": "k", "x": 1}], "resolved": []}"#;
        let registry = Registry::parse(Some(text), "r").unwrap();
        assert_eq!(registry.red_ids().collect::<Vec<_>>(), ["stored"]);
        // Apply re-mints: the stored id is not input.
        let (for_apply, _) = Registry::parse_for_apply(Some(text), "r", RedsAs::Stored).unwrap();
        let kind = Value::Str("k".into());
        assert_eq!(for_apply, [Some([None, Some(kind), None, None])]);
        let checked = Registry::parse_for_apply(Some(text), "r", RedsAs::Checked).unwrap();
        assert!(checked.0.is_empty());
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
        ] {
            assert!(Registry::parse(Some(bad.as_bytes()), "r").is_err(), "{bad}");
        }
        assert_eq!(
            Registry::parse(Some(b"{}"), "r").unwrap(),
            Registry::default()
        );
        assert_eq!(Registry::parse(None, "r").unwrap(), Registry::default());
    }

    use crate::decisions::IdSet;

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
