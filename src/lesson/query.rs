//! `query` over the ledger: lessons ranked by how many of the pattern's tokens their pattern
//! shares (docs/formats/lesson.md B.8). Only the fields the ranking needs are read from each line,
//! on every core; whole lessons are parsed for the few returned.

use super::entry::{self, LessonError};
use super::ledger::{self, Paths};
use super::record::io_error;
use serde_json::Value;
use std::collections::HashSet;

/// What `query` needs of a lesson, read without building the rest of it.
#[derive(serde::Deserialize)]
struct Light {
    #[serde(default)]
    id: Value,
    #[serde(default)]
    created: Value,
    #[serde(default)]
    pattern: Value,
    #[serde(default)]
    invalidates: Value,
    #[serde(default)]
    supersedes: Value,
}

/// A line's `Light`, when the line is a JSON object (serde would read an array as one too).
fn light(line: &[u8]) -> std::result::Result<Light, String> {
    if line.trim_ascii_start().first() != Some(&b'{') {
        return Err("not a JSON object".into());
    }
    serde_json::from_slice::<Light>(line).map_err(|e| e.to_string())
}

fn light_id(light: &Light) -> &str {
    light.id.as_str().unwrap_or("")
}

/// The lessons that match `pattern`, best first (score, then newest), at most `limit`, each with
/// its score and a `superseded_by` list when later lessons supersede it. Invalidated lessons and
/// invalidation markers never match; with `hide_superseded`, superseded ones do not either.
pub fn query(
    paths: &Paths,
    pattern: &str,
    limit: usize,
    hide_superseded: bool,
    warn: &mut dyn FnMut(String),
) -> Result<Vec<(usize, Value)>, LessonError> {
    let bytes = crate::store::read_if_present(&paths.ledger)
        .map_err(|e| io_error("cannot read", &paths.ledger, e))?
        .unwrap_or_default();
    // Only the fields the ranking needs are read, on every core; whole lessons are parsed for
    // the few that are printed.
    let (lines, torn) = ledger::raw_lines(&bytes);
    if let Some(line) = torn {
        warn(format!(
            "warning: {}:{line}: torn last line (no newline), skipped",
            paths.ledger.display()
        ));
    }
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    let chunk = lines.len().div_ceil(workers).max(1);
    type Parsed<'b> = Vec<(usize, &'b [u8], std::result::Result<Light, String>)>;
    let parsed: Parsed = std::thread::scope(|scope| {
        let handles: Vec<_> = lines
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|(n, line)| (*n, *line, light(line)))
                        .collect::<Parsed>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let mut lessons: Vec<(&[u8], Light)> = Vec::with_capacity(parsed.len());
    for (number, line, light) in parsed {
        match light {
            Ok(light) => lessons.push((line, light)),
            Err(e) => warn(format!(
                "warning: {}:{number}: malformed line skipped ({e})",
                paths.ledger.display()
            )),
        }
    }
    let invalidated: HashSet<&str> = lessons
        .iter()
        .filter_map(|(_, l)| l.invalidates.as_str())
        .collect();
    let mut superseded_by: std::collections::HashMap<&str, Vec<&str>> = Default::default();
    for (_, lesson) in &lessons {
        for old in lesson
            .supersedes
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            superseded_by.entry(old).or_default().push(light_id(lesson));
        }
    }
    let wanted = entry::tokens(pattern);
    let mut scored: Vec<(usize, &[u8], &Light)> = lessons
        .iter()
        .filter(|(_, l)| l.invalidates.is_null() && !invalidated.contains(light_id(l)))
        .filter(|(_, l)| !(hide_superseded && superseded_by.contains_key(light_id(l))))
        .filter_map(|(line, l)| {
            let have = entry::value_tokens(&l.pattern);
            let score = wanted.iter().filter(|t| have.contains(*t)).count();
            (score > 0).then_some((score, *line, l))
        })
        .collect();
    let created = |l: &Light| l.created.as_str().unwrap_or("").to_string();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| created(b.2).cmp(&created(a.2))));
    scored.truncate(limit);
    let flagged: Vec<Value> = scored
        .iter()
        .filter_map(|(_, line, l)| {
            let mut lesson = match serde_json::from_slice::<Value>(line) {
                Ok(Value::Object(lesson)) => lesson,
                _ => return None,
            };
            if let Some(by) = superseded_by.get(light_id(l)) {
                lesson.insert("superseded_by".into(), by.clone().into());
            }
            Some(Value::Object(lesson))
        })
        .collect();
    Ok(scored
        .iter()
        .map(|(score, _, _)| *score)
        .zip(flagged)
        .collect())
}
