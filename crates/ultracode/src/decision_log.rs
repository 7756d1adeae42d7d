//! The run folder's `.decision-log.md`: the verdicts recorded under story headings, matched to
//! stories by the reference's heading rules (docs/formats/ucg.md §1.13); which run folder's log a
//! pass appends to; and the appends themselves, under the folder's lock.

use crate::error::{Error, Result};
use crate::heartbeat;
use crate::runs;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use ucg_store::pyjson;

pub const DECISION_LOG_FILE: &str = ".decision-log.md";

/// The run folders under `runs_root` in `source`, by name: each with whether it is terminal.
pub(crate) fn run_folders(
    source: &ucg_git::ArtifactSource,
    runs_root: &std::path::Path,
) -> Vec<(String, bool)> {
    let mut runs: Vec<(String, bool)> = source
        .list(runs_root)
        .into_iter()
        .filter(|name| source.is_dir(&runs_root.join(name)))
        .filter(|name| source.is_file(&runs_root.join(name).join(DECISION_LOG_FILE)))
        .map(|name| {
            let terminal = source.is_file(&runs_root.join(&name).join(runs::RUN_REPORT_FILE));
            (name, terminal)
        })
        .collect();
    runs.sort();
    runs
}

/// Verdicts by heading id, in log order: a heading `## Story <id>` (levels 2–4, any case) opens a
/// section up to the next one; within it, the first fenced JSON object with a truthy `verdict`
/// gives the verdict (Python `str()` of the value). The first section of an id that has one wins.
pub fn recorded_verdicts(log: &str) -> Vec<(String, String)> {
    static HEADING: LazyLock<Option<regex::Regex>> =
        LazyLock::new(|| regex::Regex::new(r"(?im)^#{2,4}\s+story\s+([0-9][\w.\-]*)").ok());
    static FENCE: LazyLock<Option<regex::Regex>> =
        LazyLock::new(|| regex::Regex::new(r"(?s)```(?:json)?\s*\n(\{.*?\})\s*\n```").ok());
    let (Some(heading), Some(fence)) = (HEADING.as_ref(), FENCE.as_ref()) else {
        return Vec::new();
    };
    let starts: Vec<(usize, String)> = heading
        .captures_iter(log)
        .filter_map(|c| Some((c.get(0)?.start(), c.get(1)?.as_str().to_string())))
        .collect();
    let mut out: Vec<(String, String)> = Vec::new();
    for (i, (start, id)) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(log.len(), |(next, _)| *next);
        let section = &log[*start..end];
        let verdict = fence.captures_iter(section).find_map(|c| {
            let object = pyjson::loads(c.get(1)?.as_str()).ok()?;
            let verdict = object.as_object()?.get("verdict")?;
            verdict.is_truthy().then(|| pyjson::py_str(verdict))
        });
        if let Some(verdict) = verdict {
            if !out.iter().any(|(known, _)| known == id) {
                out.push((id.clone(), verdict));
            }
        }
    }
    out
}

fn components(id: &str) -> Vec<&str> {
    id.split(['-', '.', '_'])
        .filter(|c| !c.is_empty())
        .collect()
}

/// The recorded verdict of each story: a heading matches a story when its components are a leading
/// run of the story's (`2-4` matches `2-4-login`); a heading matching several of `stories` is
/// ignored for all of them; among a story's matching headings the longest wins.
pub fn verdicts_for(recorded: &[(String, String)], stories: &[String]) -> Vec<Option<String>> {
    let matches = |heading: &str, story: &str| {
        let h = components(heading);
        let s = components(story);
        !h.is_empty() && h.len() <= s.len() && h[..] == s[..h.len()]
    };
    stories
        .iter()
        .map(|story| {
            recorded
                .iter()
                .filter(|(heading, _)| matches(heading, story))
                .filter(|(heading, _)| stories.iter().filter(|s| matches(heading, s)).count() == 1)
                .max_by_key(|(heading, _)| components(heading).len())
                .map(|(_, verdict)| verdict.clone())
        })
        .collect()
}

/// Picks one of several run folders (the operator, asked).
pub type Chooser<'a, E> = &'a dyn Fn(&[PathBuf]) -> Result<PathBuf, E>;

/// The run folder whose decision log gets the section: `--run NAME`, else the heartbeat epic's.
/// None found: `None` (nothing is appended; the hand-back says so). Several: `choose` picks one
/// (the operator, in the interactive pass), or, without it, the refusal lists them.
pub fn decision_log_folder<E: From<Error>>(
    impl_dir: &Path,
    runs_root: &Path,
    named: Option<&str>,
    choose: Option<Chooser<E>>,
) -> Result<Option<PathBuf>, E> {
    if let Some(name) = named {
        let dir = runs_root.join(name);
        if !dir.join(DECISION_LOG_FILE).is_file() {
            return Err(Error::NotARunFolder {
                dir,
                log: DECISION_LOG_FILE,
            }
            .into());
        }
        return Ok(Some(dir));
    }
    let Some(epic) = heartbeat::read(&ucg_git::ArtifactSource::WorkTree, impl_dir).epic else {
        return Ok(None);
    };
    let names: Vec<String> = std::fs::read_dir(runs_root)
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    let found: Vec<PathBuf> = runs::candidates_for_epic(&names, &epic)
        .into_iter()
        .map(|n| runs_root.join(n))
        .filter(|d| d.join(DECISION_LOG_FILE).is_file())
        .collect();
    match found.len() {
        0 => Ok(None),
        1 => Ok(found.into_iter().next()),
        _ if choose.is_some() => choose.map_or(Ok(None), |choose| choose(&found).map(Some)),
        _ => Err(Error::SeveralRunFolders {
            epic,
            names: found
                .iter()
                .filter_map(|d| d.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .collect(),
        }
        .into()),
    }
}

/// `text` on one line, its runs of whitespace one space (a bullet of the log is one line), and
/// any other control character written visibly (`\x1b`): the log is read in terminals.
pub(crate) fn one_line(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    ucg_store::visible::escape_hostile(&line).into_owned()
}

/// Appends `section` to the decision log in the run folder `dir`, under the folder's lock, where
/// the log resolves (only inside the run folder or `bounds_root`, as every writer). The log must
/// exist: a run folder is one because it has one. Returns the path appended to.
pub(crate) fn append_section(
    dir: &Path,
    bounds_root: Option<&Path>,
    mut section: String,
) -> Result<PathBuf> {
    let _lock = ucg_store::lock_dir(dir)?;
    let bounds = || bounds_root.map(Path::to_path_buf).into_iter().collect();
    let path = ucg_store::write_target(dir, DECISION_LOG_FILE, bounds)?;
    // A log that does not end its last line gets one first, so the heading starts a line.
    let ends_in_newline = ucg_store::read_file(&path)
        .map(|b| b.is_empty() || b.ends_with(b"\n"))
        .unwrap_or(true);
    if !ends_in_newline {
        section.insert(0, '\n');
    }
    ucg_store::append_existing_synced(&path, section.as_bytes())
        .map_err(|e| Error::io("append to", &path, e))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_heading_rules() {
        let log = "# log\n## Story 2\n```json\n{\"verdict\": \"advance\"}\n```\n### Story 2-4 — x\n```\nnot json\n```\n```json\n{\"verdict\": \"defer\", \"gate_status\": \"CONCERNS\"}\n```\n";
        let recorded = recorded_verdicts(log);
        assert_eq!(
            recorded,
            [
                ("2".into(), "advance".into()),
                ("2-4".into(), "defer".into())
            ]
        );
        let stories = ["2-4-slug".to_string(), "2-6".to_string()];
        assert_eq!(
            verdicts_for(&recorded, &stories),
            [Some("defer".into()), None]
        );
    }

    #[test]
    fn a_verdict_that_is_not_a_string_is_printed_as_python_would() {
        let log = "## story 1-1\n```\n{\"verdict\": true}\n```\n";
        assert_eq!(
            recorded_verdicts(log),
            [("1-1".to_string(), "True".to_string())]
        );
    }
}
