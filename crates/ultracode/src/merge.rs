//! The merge driver's three-way merges (docs/product.md §5.4): the answers file `.decisions.json`
//! and the RED registry `.preflight-reds.json`, answered from different clones, merged entry by
//! entry instead of line by line. Pure functions over the three sides' bytes; the result is what
//! each file's own writer writes (`answer::render`, `Registry::to_pretty_json`), so a merged file
//! is never in a shape only the merge makes. A side that is not a document of its kind is
//! refused, and the caller falls back to git's text merge.

use crate::decisions::{decisions_for_write, entry_id, DECISIONS_FILE};
use crate::reds::{self, Registry, REGISTRY_FILE};
use std::collections::{HashMap, HashSet};
use ucg_store::pyjson::{self, Value};

/// The files the driver merges itself, by their name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `.decisions.json`.
    Answers,
    /// `.preflight-reds.json`.
    Registry,
}

impl Kind {
    /// The merge for a file named `name` (the last component of its path), if there is one.
    pub fn of(name: &str) -> Option<Kind> {
        match name {
            DECISIONS_FILE => Some(Kind::Answers),
            REGISTRY_FILE => Some(Kind::Registry),
            _ => None,
        }
    }
}

/// Which side of a merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Base,
    Ours,
    Theirs,
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::Base => "the common ancestor",
            Side::Ours => "ours",
            Side::Theirs => "theirs",
        }
    }
}

/// Why the sides cannot be merged as their kind (the text merge then takes over).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmergeable {
    /// The side that is not a document of its kind; `None` when each is, but not together.
    pub side: Option<Side>,
    pub reason: String,
}

/// A merge's result: the file's new bytes, the closes it let go, and the REDs one side removed
/// and the other changed, which it kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged {
    pub bytes: String,
    pub overridden: Vec<Overridden>,
    /// A merge never makes a RED disappear that one side still changed: kept, by id (the caller
    /// warns).
    pub kept_changed: Vec<String>,
}

/// One answer as the warning and the decision log show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    pub side: Side,
    /// The answer's text (`str()` of a value that is not a string; empty when absent).
    pub answer: String,
    pub by: Option<String>,
    pub at: Option<String>,
}

/// The same id closed with different answers on both sides: both are kept, contested (`kept` is
/// the later, `lost` the earlier, as the decision log records them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overridden {
    pub id: String,
    pub kept: Seen,
    pub lost: Seen,
}

/// The merge of `kind` over the three sides. An empty `base` is no ancestor (git gives an empty
/// file when both sides added the file).
pub fn merge(kind: Kind, base: &[u8], ours: &[u8], theirs: &[u8]) -> Result<Merged, Unmergeable> {
    match kind {
        Kind::Answers => merge_answers(base, ours, theirs),
        Kind::Registry => merge_registry(base, ours, theirs).map(|(bytes, kept_changed)| Merged {
            bytes,
            overridden: Vec::new(),
            kept_changed,
        }),
    }
}

/// What `value` is, for telling entries apart: its compact JSON (two values are the same entry
/// when they would be written the same; a NaN equals itself here).
fn text_of(value: &Value) -> String {
    pyjson::dumps_compact_ascii(value)
}

fn same(a: &Value, b: &Value) -> bool {
    a == b || text_of(a) == text_of(b)
}

/// The answers files merged entry by entry, keyed by id (see docs/product.md §5.4 for the rules).
pub fn merge_answers(base: &[u8], ours: &[u8], theirs: &[u8]) -> Result<Merged, Unmergeable> {
    let read = |side: Side, bytes: Option<&[u8]>| {
        decisions_for_write(bytes).map_err(|e| Unmergeable {
            side: Some(side),
            reason: e.reason,
        })
    };
    let (base_doc, base) = read(Side::Base, (!base.is_empty()).then_some(base))?;
    let (mut doc, ours) = read(Side::Ours, Some(ours))?;
    let (their_doc, theirs) = read(Side::Theirs, Some(theirs))?;

    let (base_ids, our_ids, their_ids) = (by_id(&base), by_id(&ours), by_id(&theirs));
    let mut overridden = Vec::new();
    let mut merged = Vec::with_capacity(ours.len() + theirs.len());
    for (index, entry) in ours.iter().enumerate() {
        // An id's answer holds the merged answer; any other entry of the id stays as it is.
        let answered = entry_id(entry).filter(|id| our_ids.get(id).is_some_and(|a| a.0 == index));
        let resolved = match answered.and_then(|id| Some((id, their_ids.get(id)?))) {
            None => Resolved::Keep(entry),
            Some((id, theirs)) => resolve_id(
                id,
                base_ids.get(id).map(|a| a.1),
                entry,
                theirs.1,
                &mut overridden,
            ),
        };
        match resolved {
            Resolved::Keep(entry) => merged.push(entry.clone()),
            // Both answers stay on record, neither a close: the item is pending again.
            Resolved::Contested(ours, theirs) => {
                merged.push(contested(ours));
                merged.push(contested(theirs));
            }
        }
    }
    merged.extend(new_in_theirs(&ours, &theirs).cloned());
    // Other top-level members: ours, and those theirs added.
    for (key, value) in their_doc {
        if !doc.contains_key(&key) && !base_doc.contains_key(&key) {
            doc.insert(key, value);
        }
    }
    let bytes = crate::answer::render(&mut doc, &mut merged);
    Ok(Merged {
        bytes,
        overridden,
        kept_changed: Vec::new(),
    })
}

/// Theirs' entries with an id ours lacks, and those without an id that are not already ours, in
/// their order.
fn new_in_theirs<'v>(ours: &'v [Value], theirs: &'v [Value]) -> impl Iterator<Item = &'v Value> {
    let our_ids: HashSet<&str> = ours.iter().filter_map(entry_id).collect();
    let ours_unkeyed: HashSet<String> = ours
        .iter()
        .filter(|e| entry_id(e).is_none())
        .map(text_of)
        .collect();
    theirs.iter().filter(move |entry| match entry_id(entry) {
        Some(id) => !our_ids.contains(id),
        None => !ours_unkeyed.contains(&text_of(entry)),
    })
}

/// Each id's answer on one side, with its index: its first close (the registry writer takes any
/// close of an id for a close), else its first entry.
fn by_id(entries: &[Value]) -> HashMap<&str, (usize, &Value)> {
    let mut ids: HashMap<&str, (usize, &Value)> = HashMap::with_capacity(entries.len());
    for (index, entry) in entries.iter().enumerate() {
        if let Some(id) = entry_id(entry) {
            let answer = ids.entry(id).or_insert((index, entry));
            if closes(entry) && !closes(answer.1) {
                *answer = (index, entry);
            }
        }
    }
    ids
}

/// How one id answered on both sides merges.
enum Resolved<'v> {
    Keep(&'v Value),
    /// Closed differently on both sides: both kept as `contested` (ours, theirs).
    Contested(&'v Value, &'v Value),
}

/// The action that marks an answer given differently on two sides of a merge: kept on record,
/// and the item pending again until a later close settles it.
pub(crate) const CONTESTED: &str = "contested";

/// `entry` with its action `contested`.
fn contested(entry: &Value) -> Value {
    let mut entry = entry.clone();
    if let Value::Object(object) = &mut entry {
        object.insert("action".to_string(), Value::Str(CONTESTED.to_string()));
    }
    entry
}

/// One id answered on both sides: the same answer once; a side unchanged from the ancestor gives
/// way to the other; both changed, a close beats a defer (a defer is no answer to contest), and
/// of two defers the later `at` wins (ours when equal or when neither says). Two closes with
/// different answers are never settled here: both stay, contested, noted in `overridden`; two
/// closes that say the same thing keep the later.
fn resolve_id<'v>(
    id: &str,
    base: Option<&'v Value>,
    ours: &'v Value,
    theirs: &'v Value,
    overridden: &mut Vec<Overridden>,
) -> Resolved<'v> {
    if same(ours, theirs) {
        return Resolved::Keep(ours);
    }
    match base {
        Some(base) if same(base, ours) => return Resolved::Keep(theirs),
        Some(base) if same(base, theirs) => return Resolved::Keep(ours),
        _ => {}
    }
    match (closes(ours), closes(theirs)) {
        (true, false) => return Resolved::Keep(ours),
        (false, true) => return Resolved::Keep(theirs),
        _ => {}
    }
    let theirs_later = answered_at(theirs) > answered_at(ours);
    let (kept, lost) = match theirs_later {
        true => (seen(Side::Theirs, theirs), seen(Side::Ours, ours)),
        false => (seen(Side::Ours, ours), seen(Side::Theirs, theirs)),
    };
    if closes(ours) && kept.answer != lost.answer {
        overridden.push(Overridden {
            id: id.to_string(),
            kept,
            lost,
        });
        return Resolved::Contested(ours, theirs);
    }
    Resolved::Keep(if theirs_later { theirs } else { ours })
}

fn field<'v>(entry: &'v Value, key: &str) -> Option<&'v Value> {
    entry.as_object()?.get(key)
}

/// The entry closes its id, as the registry writer reads it (`action` exactly `"close"`).
fn closes(entry: &Value) -> bool {
    field(entry, "action").and_then(Value::as_str) == Some("close")
}

/// When the entry was answered: `None` (the oldest) when it does not say, or not as a time.
fn answered_at(entry: &Value) -> Option<jiff::Timestamp> {
    field(entry, "at")?.as_str()?.parse().ok()
}

fn seen(side: Side, entry: &Value) -> Seen {
    let text = |key: &str| field(entry, key).map(pyjson::py_str);
    Seen {
        side,
        answer: text("answer").unwrap_or_default(),
        by: text("by"),
        at: text("at"),
    }
}

/// The registries merged: the tombstones of every side (one per id, as the writer keeps them);
/// ours' reds, then theirs' that ours has not, leaving out any red tombstoned on either side and
/// any red of the ancestor that either side removed — unless the other side changed it (a
/// reworded question): a pending RED is not dropped for a removal its change did not see, and
/// its id is returned for a warning. The bytes are the registry writer's.
pub fn merge_registry(
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
) -> Result<(String, Vec<String>), Unmergeable> {
    let read = |side: Side, bytes: Option<&[u8]>| {
        Registry::parse(bytes, REGISTRY_FILE).map_err(|e| Unmergeable {
            side: Some(side),
            reason: e.reason(),
        })
    };
    let base = read(Side::Base, (!base.is_empty()).then_some(base))?;
    let ours = read(Side::Ours, Some(ours))?;
    let theirs = read(Side::Theirs, Some(theirs))?;

    // Later sides replace earlier ones for the same id: ours' tombstone is the one kept.
    let sides = [&base, &theirs, &ours];
    let tombstones = sides.iter().flat_map(|r| r.resolved.iter().cloned());
    // Each side's ids may be of one kind, and yet the sides' together of two.
    let resolved = reds::carried_tombstones(tombstones).map_err(|e| Unmergeable {
        side: None,
        reason: e.to_string(),
    })?;
    let tombstoned: HashSet<&str> = resolved
        .iter()
        .filter_map(|t| field(t, "id")?.as_str())
        .collect();
    let (our_ids, their_ids): (HashSet<&str>, HashSet<&str>) =
        (ours.red_ids().collect(), theirs.red_ids().collect());
    let red_of = |registry: &Registry, id: &str| -> Option<Value> {
        registry
            .reds
            .iter()
            .find(|r| entry_id(r) == Some(id))
            .cloned()
    };
    // Removed on one side and changed on the other: kept (delete versus modify).
    let changed_by_one = |id: &str| {
        let (base_red, ours_red, theirs_red) =
            (red_of(&base, id), red_of(&ours, id), red_of(&theirs, id));
        let changed = |side: &Option<Value>| match (side, &base_red) {
            (Some(side), Some(base)) => !same(side, base),
            _ => false,
        };
        !tombstoned.contains(id)
            && ((ours_red.is_none() && changed(&theirs_red))
                || (theirs_red.is_none() && changed(&ours_red)))
    };
    let kept_changed: Vec<String> = base
        .red_ids()
        .filter(|id| changed_by_one(id))
        .map(str::to_string)
        .collect();
    let removed: HashSet<&str> = base
        .red_ids()
        .filter(|id| !our_ids.contains(id) || !their_ids.contains(id))
        .filter(|id| !kept_changed.iter().any(|k| k == id))
        .collect();
    let stays = |red: &Value| {
        entry_id(red).is_none_or(|id| !tombstoned.contains(id) && !removed.contains(id))
    };
    let mut kept: Vec<Value> = ours.reds.iter().filter(|r| stays(r)).cloned().collect();
    kept.extend(
        new_in_theirs(&ours.reds, &theirs.reds)
            .filter(|r| stays(r))
            .cloned(),
    );
    let bytes = Registry {
        reds: kept,
        resolved,
    }
    .to_pretty_json();
    Ok((bytes, kept_changed))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An answer entry; `at` left out when empty.
    fn answer(id: &str, text: &str, action: &str, at: &str) -> String {
        let at = match at {
            "" => String::new(),
            at => format!(", \"at\": \"{at}\""),
        };
        format!("{{\"id\": \"{id}\", \"answer\": \"{text}\", \"action\": \"{action}\", \"by\": \"{id}@x\"{at}}}")
    }

    fn answers(entries: &[String]) -> Vec<u8> {
        format!("{{\"decisions\": [{}]}}", entries.join(", ")).into_bytes()
    }

    /// The merged entries' [`key`, answer].
    fn merged_fields(merged: &Merged, key: &str) -> Vec<[String; 2]> {
        let (_, entries) = decisions_for_write(Some(merged.bytes.as_bytes())).unwrap();
        entries
            .iter()
            .map(|e| {
                let text = |k| field(e, k).map(pyjson::py_str).unwrap_or_default();
                [text(key), text("answer")]
            })
            .collect()
    }

    #[test]
    fn answers_on_one_side_each_are_both_kept_ours_first() {
        let a = answer("a", "x", "defer", "");
        let ours = answers(&[a.clone(), answer("b", "yes", "close", "")]);
        let theirs = answers(&[a.clone(), answer("c", "no", "close", "")]);
        let base = answers(&[a]);
        let merged = merge_answers(&base, &ours, &theirs).unwrap();
        assert_eq!(
            merged_fields(&merged, "id"),
            [["a", "x"], ["b", "yes"], ["c", "no"]]
        );
        assert!(merged.overridden.is_empty());
        // The bytes are the answers writer's.
        let (mut doc, mut entries) = decisions_for_write(Some(merged.bytes.as_bytes())).unwrap();
        assert_eq!(crate::answer::render(&mut doc, &mut entries), merged.bytes);
    }

    #[test]
    fn the_side_that_changed_an_answer_wins() {
        let base = answers(&[answer("a", "later", "defer", "")]);
        let changed = answers(&[answer("a", "30 days", "close", "2026-01-01T00:00:00Z")]);
        for (ours, theirs) in [(&base, &changed), (&changed, &base)] {
            let merged = merge_answers(&base, ours, theirs).unwrap();
            assert_eq!(merged_fields(&merged, "id")[0][1], "30 days");
        }
    }

    #[test]
    fn a_close_beats_a_defer_and_two_different_closes_are_contested() {
        let close = answers(&[answer("a", "yes", "close", "2026-01-01T00:00:00Z")]);
        let defer = answers(&[answer("a", "not now", "defer", "2026-06-01T00:00:00Z")]);
        for (ours, theirs) in [(&defer, &close), (&close, &defer)] {
            let merged = merge_answers(b"", ours, theirs).unwrap();
            assert_eq!(merged_fields(&merged, "id")[0][1], "yes");
        }

        let later = answers(&[answer("a", "no", "close", "2026-02-01T00:00:00+01:00")]);
        let merged = merge_answers(b"", &close, &later).unwrap();
        // Both kept, ours first, neither a close.
        assert_eq!(
            merged_fields(&merged, "action"),
            [[CONTESTED, "yes"], [CONTESTED, "no"]]
        );
        let [Overridden { id, kept, lost }] = &merged.overridden[..] else {
            panic!("{:?}", merged.overridden)
        };
        assert_eq!(id, "a");
        assert_eq!((kept.side, kept.answer.as_str()), (Side::Theirs, "no"));
        assert_eq!((lost.side, lost.answer.as_str()), (Side::Ours, "yes"));
        assert_eq!(lost.by.as_deref(), Some("a@x"));
        // Two closes that say the same thing: the later kept, nothing contested.
        let same_answer = answers(&[answer("a", "yes", "close", "2026-03-01T00:00:00Z")]);
        let merged = merge_answers(b"", &close, &same_answer).unwrap();
        assert_eq!(merged_fields(&merged, "action"), [["close", "yes"]]);
        assert!(merged.overridden.is_empty());
    }

    #[test]
    fn an_ids_answer_is_its_close_and_its_other_entries_stay() {
        let ours = answers(&[
            answer("a", "first", "defer", ""),
            answer("a", "yes", "close", "2026-01-01T00:00:00Z"),
        ]);
        let theirs = answers(&[answer("a", "no", "close", "2026-02-01T00:00:00Z")]);
        let merged = merge_answers(b"", &ours, &theirs).unwrap();
        assert_eq!(
            merged_fields(&merged, "action"),
            [["defer", "first"], [CONTESTED, "yes"], [CONTESTED, "no"]]
        );
        assert_eq!(merged.overridden[0].lost.answer, "yes");
    }

    #[test]
    fn entries_that_are_not_answers_are_kept_once() {
        let ours = br#"{"note": 1, "decisions": [7, {"answer": "no id"}, {"id": "a", "action": "close"}]}"#;
        let theirs = br#"{"decisions": [{"answer": "no id"}, "new", {"id": "a", "action": "close"}], "extra": true}"#;
        let merged = merge_answers(b"", ours, theirs).unwrap();
        assert_eq!(
            merged.bytes,
            "{\n  \"note\": 1,\n  \"decisions\": [\n    7,\n    {\n      \"answer\": \"no id\"\n    },\n    {\n      \"id\": \"a\",\n      \"action\": \"close\"\n    },\n    \"new\"\n  ],\n  \"extra\": true\n}\n"
        );
    }

    #[test]
    fn a_side_that_is_not_an_answers_file_is_refused() {
        let good = &answers(&[])[..];
        for (base, ours, theirs, side) in [
            (good, &b"{ corrupt"[..], good, Side::Ours),
            (b"[]", good, good, Side::Base),
            (good, good, b"", Side::Theirs),
        ] {
            let refused = merge_answers(base, ours, theirs).unwrap_err();
            assert_eq!(refused.side, Some(side));
        }
    }

    fn red(id: &str) -> String {
        format!("{{\"id\": \"{id}\", \"source\": \"p.md:1\", \"kind\": \"k\", \"decision_needed\": \"{id}?\", \"evidence\": \"\"}}")
    }

    fn tombstone(id: &str) -> String {
        format!("{{\"id\": \"{id}\", \"kind\": \"k\", \"path\": \"p.md\"}}")
    }

    fn registry(reds: &[&str], resolved: &[&str]) -> Vec<u8> {
        let listed = |ids: &[&str], entry: fn(&str) -> String| {
            ids.iter()
                .map(|id| entry(id))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let (reds, resolved) = (listed(reds, red), listed(resolved, tombstone));
        format!("{{\"reds\": [{reds}], \"resolved\": [{resolved}]}}").into_bytes()
    }

    /// The ids of the reds the merge of the three sides keeps.
    fn merged_reds(base: &[u8], ours: &[u8], theirs: &[u8]) -> Vec<String> {
        parsed(merge_registry(base, ours, theirs).unwrap().0.as_bytes()).0
    }

    fn parsed(bytes: &[u8]) -> (Vec<String>, Vec<String>) {
        let registry = Registry::parse(Some(bytes), "r").unwrap();
        let resolved = registry
            .resolved
            .iter()
            .filter_map(|t| entry_id(t).map(str::to_string))
            .collect();
        (registry.red_ids().map(str::to_string).collect(), resolved)
    }

    #[test]
    fn each_side_closing_one_red_leaves_both_closed() {
        let base = registry(&["r1", "r2", "r3"], &["r0"]);
        let ours = registry(&["r2", "r3"], &["r0", "r1"]);
        let theirs = registry(&["r1", "r3", "r4"], &["r2", "r0"]);
        let (merged, _) = merge_registry(&base, &ours, &theirs).unwrap();
        let (reds, resolved) = parsed(merged.as_bytes());
        assert_eq!(reds, ["r3", "r4"]);
        assert_eq!(resolved, ["r0", "r1", "r2"]);
        // Written as the registry writer writes it.
        let again = Registry::parse(Some(merged.as_bytes()), "r").unwrap();
        assert_eq!(again.to_pretty_json(), merged);
    }

    #[test]
    fn a_red_removed_on_one_side_and_reworded_on_the_other_is_kept() {
        let base = registry(&["r1", "r2"], &[]);
        let removed = registry(&["r2"], &[]);
        let reworded = String::from_utf8(registry(&["r1", "r2"], &[]))
            .unwrap()
            .replacen("r1?", "r1, reworded?", 1)
            .into_bytes();
        for (ours, theirs) in [(&removed, &reworded), (&reworded, &removed)] {
            let (merged, kept) = merge_registry(&base, ours, theirs).unwrap();
            assert_eq!(kept, ["r1"]);
            let mut ids = parsed(merged.as_bytes()).0;
            ids.sort();
            assert_eq!(ids, ["r1", "r2"]);
            assert!(merged.contains("r1, reworded?"), "{merged}");
        }
        let closed = registry(&["r2"], &["r1"]);
        // Removed on one side, unchanged on the other; a tombstone (an answer) on the removing
        // side wins over the rewording: removed, nothing to warn of.
        for (ours, theirs) in [(&removed, &base), (&closed, &reworded)] {
            let (merged, kept) = merge_registry(&base, ours, theirs).unwrap();
            assert_eq!(parsed(merged.as_bytes()).0, ["r2"]);
            assert!(kept.is_empty());
        }
    }

    #[test]
    fn a_red_removed_on_one_side_stays_removed_and_a_tombstone_anywhere_removes_it() {
        let base = registry(&["r1", "r2"], &[]);
        let ours = registry(&["r1", "r2"], &[]);
        let theirs = registry(&["r2"], &[]);
        assert_eq!(merged_reds(&base, &ours, &theirs), ["r2"]);
        let tombstoned_in_base = registry(&["r1"], &["r1"]);
        assert_eq!(merged_reds(&tombstoned_in_base, &ours, &ours), ["r2"]);
    }

    #[test]
    fn a_registry_that_cannot_be_read_is_refused() {
        let good = registry(&[], &[]);
        // Ok when the three merge, else the side refused.
        let refused = |base: &[u8], ours: &[u8], theirs: &[u8]| {
            merge_registry(base, ours, theirs)
                .map(drop)
                .map_err(|e| e.side)
        };
        assert_eq!(
            refused(&good, &good, b"{\"reds\": 1}"),
            Err(Some(Side::Theirs))
        );
        assert_eq!(refused(b"", &good, &good), Ok(()));
        // Numbers for ids on one side, text on another: each reads, together they cannot be sorted.
        let numbered = br#"{"resolved": [{"id": 1}]}"#;
        assert_eq!(refused(b"", &good, &registry(&[], &["a"])), Ok(()));
        assert_eq!(refused(numbered, &good, &registry(&[], &["a"])), Err(None));
    }

    #[test]
    fn kinds_go_by_file_name() {
        assert_eq!(Kind::of(".decisions.json"), Some(Kind::Answers));
        assert_eq!(Kind::of(".preflight-reds.json"), Some(Kind::Registry));
        assert_eq!(Kind::of("decisions.json"), None);
    }
}
