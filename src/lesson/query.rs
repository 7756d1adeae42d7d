//! `query` over the ledger (docs/formats/lesson.md B.8), as DG-Anvil ranks: each token of the
//! pattern found among a lesson's pattern tokens counts one; invalidated lessons and markers (a
//! truthy `invalidates`) left out; equal scores newest first by `created` (`localeCompare`); at
//! most `limit` (`0` is 5, a negative one drops that many from the end, as `slice` does). Beyond
//! the reference: a malformed or `null` line is skipped with a warning (the reference fails the
//! whole query), the index is not read at all, and superseded lessons are flagged or hidden.

use super::entry::{self, LessonError};
use super::js::{self, JsString, JsValue};
use super::ledger::{self, Paths};
use super::record::io_error;
use std::collections::{HashMap, HashSet};

/// How deep a worker's stack lets the parser go (`js::MAX_DEPTH` levels).
const WORKER_STACK: usize = 64 << 20;

/// `slice(0, limit)` after `limit || 5`.
fn kept(len: usize, limit: f64) -> usize {
    let limit = if limit == 0.0 || limit.is_nan() {
        5.0
    } else {
        limit.trunc()
    };
    if limit < 0.0 {
        (len as f64 + limit).max(0.0) as usize
    } else {
        limit.min(len as f64) as usize
    }
}

/// The lessons that match `pattern`, best first, at most `limit`, each with its score and a
/// `superseded_by` list when later lessons supersede it; with `hide_superseded`, superseded ones
/// are left out.
pub fn query(
    paths: &Paths,
    pattern: &JsString,
    limit: f64,
    hide_superseded: bool,
    warn: &mut dyn FnMut(String),
) -> Result<Vec<(usize, JsValue)>, LessonError> {
    let bytes = crate::store::read_if_present(&paths.ledger)
        .map_err(|e| io_error("cannot read", &paths.ledger, e))?
        .unwrap_or_default();
    let (lines, torn) = ledger::raw_lines(&bytes);
    if let Some(line) = torn {
        warn(format!(
            "warning: {}:{line}: torn last line (no newline), skipped",
            paths.ledger.display()
        ));
    }
    // The reference drops the lines `trim` leaves empty before parsing.
    let lines: Vec<(usize, &[u8])> = lines
        .into_iter()
        .filter(|(_, line)| !JsString::from(js::decode(line).as_ref()).is_blank())
        .collect();
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    let chunk = lines.len().div_ceil(workers).max(1);
    type Parsed = Vec<(usize, Result<JsValue, String>)>;
    let parsed: Parsed = std::thread::scope(|scope| {
        let handles: Vec<_> = lines
            .chunks(chunk)
            .map(|part| {
                let work = move || {
                    part.iter()
                        .map(|(n, line)| (*n, js::parse_bytes(line)))
                        .collect::<Parsed>()
                };
                std::thread::Builder::new()
                    .stack_size(WORKER_STACK)
                    .spawn_scoped(scope, work)
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| match h {
                Ok(handle) => handle.join().unwrap_or_default(),
                Err(_) => Vec::new(),
            })
            .collect()
    });
    if parsed.len() != lines.len() {
        // A worker could not be started: parse here.
        return Err(LessonError::new(
            "E_IO",
            "cannot start the threads that read the ledger",
            JsValue::Null,
        ));
    }
    let mut lessons: Vec<JsValue> = Vec::with_capacity(parsed.len());
    for (number, value) in parsed {
        match value {
            Ok(JsValue::Null) => warn(format!(
                "warning: {}:{number}: a null line, skipped",
                paths.ledger.display()
            )),
            Ok(value) => lessons.push(value),
            Err(e) => warn(format!(
                "warning: {}:{number}: malformed line skipped ({e})",
                paths.ledger.display()
            )),
        }
    }
    let id_of = |l: &JsValue| l.get("id").and_then(JsValue::as_js_str).cloned();
    let invalidated: HashSet<JsString> = lessons
        .iter()
        .filter_map(|l| l.get("invalidates").and_then(JsValue::as_js_str).cloned())
        .collect();
    let mut superseded_by: HashMap<JsString, Vec<JsString>> = HashMap::new();
    for lesson in &lessons {
        if let Some(JsValue::Array(old)) = lesson.get("supersedes") {
            for old in old.iter().filter_map(JsValue::as_js_str) {
                superseded_by
                    .entry(old.clone())
                    .or_default()
                    .push(id_of(lesson).unwrap_or_default());
            }
        }
    }
    let wanted = entry::tokens(pattern);
    let mut scored: Vec<(usize, JsString, JsValue)> = lessons
        .into_iter()
        .filter(|l| !id_of(l).is_some_and(|id| invalidated.contains(&id)))
        .filter(|l| !l.get("invalidates").is_some_and(JsValue::truthy))
        .filter(|l| {
            !(hide_superseded && id_of(l).is_some_and(|id| superseded_by.contains_key(&id)))
        })
        .filter_map(|l| {
            let have = entry::pattern_tokens(&l);
            let score = wanted.iter().filter(|t| have.contains(*t)).count();
            // `l.created || ''`; a non-string one (on which the reference's comparison throws)
            // compares as `String(created)`.
            let created = match l.get("created") {
                Some(c) if c.truthy() => c.to_js_string(),
                _ => JsString::new(),
            };
            (score > 0).then_some((score, created, l))
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| js::locale_compare(&b.1, &a.1)));
    let keep = kept(scored.len(), limit);
    scored.truncate(keep);
    Ok(scored
        .into_iter()
        .map(|(score, _, mut lesson)| {
            if let (Some(by), JsValue::Object(map)) = (
                id_of(&lesson).and_then(|id| superseded_by.get(&id)),
                &mut lesson,
            ) {
                map.set(
                    "superseded_by",
                    JsValue::Array(by.iter().cloned().map(JsValue::String).collect()),
                );
            }
            (score, lesson)
        })
        .collect())
}
