//! The run folder's `.decision-log.md`: the verdicts recorded under story headings, matched to
//! stories by the reference's heading rules (docs/formats/ucg.md §1.13).

use std::sync::LazyLock;
use ucg_store::pyjson;

pub const DECISION_LOG_FILE: &str = ".decision-log.md";

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
