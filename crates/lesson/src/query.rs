//! `query` over the ledger (docs/formats/lesson.md B.8), as DG-Anvil ranks: each token of the
//! pattern found among a lesson's pattern tokens counts one; invalidated lessons and markers (a
//! truthy `invalidates`) left out; equal scores newest first by `created` (`localeCompare`); at
//! most `limit` (`0` is 5, a negative one drops that many from the end, as `slice` does). Beyond
//! the reference: a malformed or `null` line is skipped with a warning (the reference fails the
//! whole query), DG-Anvil's index is not read at all, and superseded lessons are flagged or
//! hidden.
//!
//! The answer comes from git-ucg's own index of the ledger ([`super::query_index`]): the one kept
//! beside a large ledger when it is of the ledger as it is now, else one built by scanning it
//! (and kept for the next query).

use super::entry::LessonError;
use super::js::{self, JsString, JsValue};
use super::ledger::Paths;
use super::query_index::{self, Answer, Ranked, Unbuilt, View, Warning};
use super::record::io_error;
use std::path::{Path, PathBuf};
use ucg_store::Freshness;

/// From this size on, the index built by a scan is kept for the next query.
const KEEP_FROM: usize = 1 << 20;

/// The lessons a query found, with their scores.
type Found = Vec<(usize, JsValue)>;

/// The query index's mark: its name ends in it and its temporary files start with it.
const INDEX_SUFFIX: &str = ".git-ucg-query";

/// Where the index of `ledger` is kept: `.<name>.git-ucg-query` beside it.
pub fn index_path(ledger: &Path) -> PathBuf {
    super::index::hidden_beside(ledger, INDEX_SUFFIX)
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
) -> Result<Found, LessonError> {
    query_keeping(paths, pattern, limit, hide_superseded, KEEP_FROM, warn)
}

/// [`query`], keeping the index a scan builds when the ledger has at least `keep_from` bytes (the
/// tests keep it for any ledger).
pub fn query_keeping(
    paths: &Paths,
    pattern: &JsString,
    limit: f64,
    hide_superseded: bool,
    keep_from: usize,
    warn: &mut dyn FnMut(String),
) -> Result<Found, LessonError> {
    let ledger = paths.ledger.display();
    let mut say = |w: Warning| {
        warn(match w {
            Warning::Torn(n) => super::ledger::torn_warning(&paths.ledger, n),
            Warning::Null(n) => format!("warning: {ledger}:{n}: a null line, skipped"),
            Warning::Malformed(n, e) => {
                format!("warning: {ledger}:{n}: malformed line skipped ({e})")
            }
        })
    };
    let kept = index_path(&paths.ledger);
    if let Some((warnings, found)) =
        from_kept_index(&paths.ledger, &kept, pattern, limit, hide_superseded)
    {
        warnings.into_iter().for_each(&mut say);
        return Ok(found);
    }
    let (bytes, identity) = match ucg_store::read_file_identified(&paths.ledger) {
        Ok(read) => read,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Vec::new(), None),
        Err(e) => return Err(io_error("cannot read", &paths.ledger, e)),
    };
    let index = query_index::build(&bytes, identity.unwrap_or_default()).map_err(|why| {
        let message = match why {
            Unbuilt::NoThreads => "cannot start the threads that read the ledger",
            Unbuilt::TooManyLessons => "more lessons than a query can rank (4,294,967,295)",
        };
        LessonError::new("E_IO", message, JsValue::Null)
    })?;
    let answer = View::parse(&index)
        .and_then(|view| view.answer(pattern, limit, hide_superseded))
        .ok_or_else(|| {
            LessonError::new("E_IO", "the ledger's index is unreadable", JsValue::Null)
        })?;
    // Kept only when nothing wrote the ledger while it was read.
    if identity.is_some() && bytes.len() >= keep_from {
        let _ = ucg_store::replace_cache(&kept, INDEX_SUFFIX, &index);
    }
    let Answer { warnings, kept } = answer;
    warnings.into_iter().for_each(&mut say);
    kept.into_iter()
        .map(|k| {
            let line = usize::try_from(k.line.start)
                .ok()
                .zip(usize::try_from(k.line.end).ok())
                .and_then(|(start, end)| bytes.get(start..end))
                .unwrap_or_default();
            // Scored from these bytes, which parse (the skim answers only for lines that do).
            let lesson = js::parse_bytes(line).map_err(|e| {
                LessonError::new(
                    "E_IO",
                    format!("a ledger line read once could not be read again: {e}"),
                    JsValue::Null,
                )
            })?;
            Ok((k.score, with_superseded_by(lesson, k.superseded_by)))
        })
        .collect()
}

fn with_superseded_by(mut lesson: JsValue, by: Option<Vec<JsString>>) -> JsValue {
    if let (Some(by), JsValue::Object(map)) = (by, &mut lesson) {
        map.set(
            "superseded_by",
            JsValue::Array(by.into_iter().map(JsValue::String).collect()),
        );
    }
    lesson
}

/// The answer from the index kept beside the ledger, when it is of the ledger as it is: the
/// same device, inode, size and times before the lessons kept are read and after. Each lesson
/// read back must be the one the index describes. `None` sends the query to a scan.
fn from_kept_index(
    ledger: &Path,
    kept: &Path,
    pattern: &JsString,
    limit: f64,
    hide_superseded: bool,
) -> Option<(Vec<Warning>, Found)> {
    let index = ucg_store::read_file(kept).ok()?;
    let view = View::parse(&index)?;
    let file = ucg_store::open_regular(ledger).ok()??;
    if Freshness::of(&file.metadata().ok()?) != view.identity() {
        return None;
    }
    let answer = view.answer(pattern, limit, hide_superseded)?;
    let wanted = super::entry::tokens(pattern);
    let mut found = Vec::with_capacity(answer.kept.len());
    for k in answer.kept {
        let len = k.line.end.checked_sub(k.line.start)?;
        let line = ucg_store::read_at(&file, k.line.start, len).ok()?;
        let mut tokens = Vec::new();
        let Ranked::Lesson(facts) = query_index::read_line(&line, &mut tokens) else {
            return None;
        };
        let score = wanted
            .iter()
            .filter(|t| {
                tokens[facts.tokens.clone()]
                    .iter()
                    .any(|have| have[..] == *t.as_bytes())
            })
            .count();
        if line.len() as u64 != len
            || score != k.score
            || facts.created[..] != *k.created.as_bytes()
        {
            return None;
        }
        let lesson = js::parse_bytes(&line).ok()?;
        found.push((k.score, with_superseded_by(lesson, k.superseded_by)));
    }
    if Freshness::of(&file.metadata().ok()?) != view.identity() {
        return None;
    }
    Some((answer.warnings, found))
}
