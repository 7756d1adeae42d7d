//! The work-item Markdown (docs/formats/sdlc.md A.5): header fields `**Key**: value` and the
//! `## History` list. Edits change only the bytes they mean to: a field's value, or one row added
//! at the end of the history.

use std::ops::Range;

/// The header fields, in order: (key, value, the value's byte range).
pub fn fields(md: &str) -> Vec<(String, String, Range<usize>)> {
    let mut out = Vec::new();
    let mut offset = 0;
    for line in md.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        if body.starts_with("## ") {
            break;
        }
        let Some(rest) = body.strip_prefix("**") else {
            continue;
        };
        let Some((key, after)) = rest.split_once("**:") else {
            continue;
        };
        let leading = after.len() - after.trim_start().len();
        let value_start = start + 2 + key.len() + 3 + leading;
        let value_end = start + body.len();
        out.push((
            key.trim().to_string(),
            after.trim().to_string(),
            value_start..value_end.max(value_start),
        ));
    }
    out
}

pub fn field(md: &str, key: &str) -> Option<String> {
    fields(md)
        .into_iter()
        .find(|(k, _, _)| k == key)
        .map(|(_, v, _)| v)
}

/// The document with `key` set to `value`: its value replaced in place, or a new field line after
/// the last one (after the title when there is none).
pub fn set_field(md: &str, key: &str, value: &str) -> String {
    let found = fields(md);
    if let Some((_, _, range)) = found.iter().find(|(k, _, _)| k == key) {
        let mut out = md.to_string();
        let value = if range.start > 0 && !md[..range.start].ends_with(' ') {
            format!(" {value}")
        } else {
            value.to_string()
        };
        out.replace_range(range.clone(), &value);
        return out;
    }
    let line = format!("**{key}**: {value}\n");
    let insert_at = match found.last() {
        Some((_, _, range)) => line_end(md, range.end),
        None => md
            .split_inclusive('\n')
            .next()
            .filter(|first| first.starts_with("# "))
            .map_or(0, str::len),
    };
    let mut out = md.to_string();
    insert_line(&mut out, insert_at, &line);
    out
}

/// Inserts `line` at `at`, after a newline put there first when `at` ends a line without one.
fn insert_line(out: &mut String, at: usize, line: &str) {
    if at > 0 && !out[..at].ends_with('\n') {
        out.insert(at, '\n');
        out.insert_str(at + 1, line);
    } else {
        out.insert_str(at, line);
    }
}

/// The byte just past the newline ending the line that holds `at`.
fn line_end(md: &str, at: usize) -> usize {
    // By bytes: `at` may fall inside a character (the last byte of one); a newline never does.
    md.as_bytes()
        .get(at..)
        .and_then(|rest| memchr::memchr(b'\n', rest))
        .map_or(md.len(), |i| at + i + 1)
}

/// The `## History` section's bounds: (just after its heading line, its end).
fn history_section(md: &str) -> Option<(usize, usize)> {
    let mut offset = 0;
    let mut start = None;
    for line in md.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        if let Some(start) = start {
            if body.starts_with("## ") || body.starts_with("# ") {
                return Some((start, offset));
            }
        } else if body.trim_end() == "## History" {
            start = Some(offset + line.len());
        }
        offset += line.len();
    }
    start.map(|start| (start, md.len()))
}

/// The history rows (list items of `## History`), without their `- `.
pub fn history(md: &str) -> Vec<String> {
    let Some((start, end)) = history_section(md) else {
        return Vec::new();
    };
    md[start..end]
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("- ").map(str::to_string))
        .collect()
}

/// The document with one more history row at the end of `## History` (the section is added at
/// the end when missing).
pub fn append_history(md: &str, row: &str) -> String {
    let line = format!("- {row}\n");
    let mut out = md.to_string();
    match history_section(md) {
        Some((start, end)) => {
            // After the section's last non-blank line, before the blank lines that end it.
            let section = &md[start..end];
            let kept = section.trim_end_matches(['\n', '\r', ' ', '\t']).len();
            let at = if kept == 0 {
                start
            } else {
                line_end(md, start + kept - 1)
            };
            insert_line(&mut out, at, &line);
        }
        None => {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str("## History\n");
            out.push_str(&line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const ITEM: &str = "# Rate limit\n\n**Status**: Draft\n**Assignee**: Unassigned\n\n## Acceptance Criteria\n- works\n\n## History\n- 2026-07-14T12:00:00Z - created\n\n## Notes\nx\n";

    #[test]
    fn edits_touch_only_their_bytes() {
        assert_eq!(field(ITEM, "Status").as_deref(), Some("Draft"));
        let edited = set_field(ITEM, "Status", "In progress");
        assert_eq!(
            edited,
            ITEM.replace("**Status**: Draft", "**Status**: In progress")
        );
        let added = set_field(ITEM, "Branch", "feat-x");
        assert_eq!(
            added,
            ITEM.replace("Unassigned\n", "Unassigned\n**Branch**: feat-x\n")
        );
        let row = append_history(ITEM, "2026-07-15T00:00:00Z - moved");
        assert_eq!(
            row,
            ITEM.replace("- created\n", "- created\n- 2026-07-15T00:00:00Z - moved\n")
        );
        assert_eq!(history(&row).len(), 2);
        let bare = append_history("# T\n", "r");
        assert_eq!(
            append_history("## History\n- a → b", "r"),
            "## History\n- a → b\n- r\n"
        );
        assert_eq!(bare, "# T\n\n## History\n- r\n");
    }
}
