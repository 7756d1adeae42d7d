//! BMAD's `sprint-status.yaml`: the `development_status:` map of story keys to statuses, read with
//! the reference's tolerant hand parser (docs/formats/ucg.md §1.15), not a YAML library: its readers
//! agree on exactly this much of the file.

use indexmap::IndexMap;

/// The file's name in the artifact directory.
pub const SPRINT_FILE: &str = "sprint-status.yaml";

/// Where the file is looked for, relative to the project root, after `IMPL/sprint-status.yaml`.
pub(crate) const FALLBACK_PATH: &str = "_bmad-output/sprint-status.yaml";

/// `development_status` in file order; a later duplicate key keeps the first one's place and takes
/// its value (as a dict does). Blank and `#` lines are skipped; the block ends at the first line
/// indented no deeper than its `development_status:` line; a value is cut at `#` and stripped of
/// whitespace and quotes; entries with an empty value are skipped.
pub fn development_status(text: &str) -> IndexMap<String, String> {
    let mut out = IndexMap::new();
    let mut block_indent: Option<usize> = None;
    for line in text.lines() {
        let stripped = line.trim();
        if stripped.is_empty() || stripped.starts_with('#') {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        match block_indent {
            None => {
                if stripped == "development_status:" {
                    block_indent = Some(indent);
                }
            }
            Some(key_indent) if indent <= key_indent => break,
            Some(_) => {
                let Some((key, value)) = stripped.split_once(':') else {
                    continue;
                };
                let value = value.split('#').next().unwrap_or("");
                let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
                let key = key.trim().trim_matches(|c| c == '"' || c == '\'');
                if !value.is_empty() && !key.is_empty() {
                    out.insert(key.to_string(), value.to_string());
                }
            }
        }
    }
    out
}

/// The epic a story key belongs to: its leading digits (`7` for `7-2-login`), if any.
pub fn epic_of(story: &str) -> Option<&str> {
    let digits = story.len() - story.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    (digits > 0).then(|| &story[..digits])
}

/// The stories of `epic` in file order: keys that start with a digit and whose epic is `epic`.
pub fn stories_of(status: &IndexMap<String, String>, epic: &str) -> Vec<(String, String)> {
    status
        .iter()
        .filter(|(key, _)| epic_of(key) == Some(epic))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn reads_the_block_as_the_reference_does() {
        let text = "# top\nproject: x\ndevelopment_status:\n  epic-7: in-progress  # note\n\n  # comment\n  7-1: done\n  \"7-2\": 'review'\n  7-3:\n  7-1: backlog\nother:\n  8-1: done\n";
        let status = development_status(text);
        let pairs: Vec<_> = status
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("epic-7", "in-progress"),
                ("7-1", "backlog"),
                ("7-2", "review")
            ]
        );
        assert_eq!(stories_of(&status, "7").len(), 2);
        assert_eq!(epic_of("12-3-x"), Some("12"));
        assert_eq!(epic_of("epic-7"), None);
    }

    proptest! {
        #[test]
        fn never_panics(text in "\\PC{0,200}") {
            let _ = development_status(&text);
        }
    }
}
