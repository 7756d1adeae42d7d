//! The merge driver's lines in the project's `.gitattributes` (docs/product.md §5.4): one
//! `merge=ucg` line per merged file of the artifact directory, and the union merge for the run
//! folders' decision logs. Adding them keeps every other byte; taking them out removes exactly
//! ours, whatever artifact directory they were written for.

use crate::decision_log::DECISION_LOG_FILE;
use crate::decisions::DECISIONS_FILE;
use crate::error::{Error, Result};
use crate::reds::REGISTRY_FILE;
use crate::runs::RUNS_ROOT;

/// The attribute our lines give.
const ATTRIBUTE: &str = "merge=ucg";
pub use ucg_git::ATTRIBUTES_FILE;
/// The files the driver merges.
pub const MERGED_FILES: [&str; 2] = [DECISIONS_FILE, REGISTRY_FILE];

/// The run folders' decision logs are appended to in every clone: git's built-in union merge
/// keeps both sides' sections instead of a conflict.
const LOG_ATTRIBUTE: &str = "merge=union";

/// The line that gives the run folders' decision logs the union merge.
fn log_line() -> String {
    format!("{}/*/{} {LOG_ATTRIBUTE}", RUNS_ROOT, DECISION_LOG_FILE)
}

/// Our `.gitattributes` lines for the artifact directory `dir` (relative to the root, `/`
/// separators; empty for the root itself), then the decision logs' line.
pub fn lines_for(dir: &str) -> Result<Vec<String>> {
    let mut lines = MERGED_FILES
        .iter()
        .map(|file| {
            let path = match dir {
                "" => format!("/{file}"),
                dir => format!("{dir}/{file}"),
            };
            Ok(format!("{} {ATTRIBUTE}", pattern(&path)?))
        })
        .collect::<Result<Vec<String>>>()?;
    lines.push(log_line());
    Ok(lines)
}

/// `path` as a `.gitattributes` pattern matching exactly it: glob characters escaped, and the
/// whole in git's double quotes when it holds a blank or a quote.
fn pattern(path: &str) -> Result<String> {
    if path.chars().any(char::is_control) {
        return Err(Error::UnnamableInAttributes {
            path: path.to_string(),
        });
    }
    let mut escaped = String::with_capacity(path.len() + 8);
    for (i, c) in path.chars().enumerate() {
        if matches!(c, '*' | '?' | '[' | '\\') || (i == 0 && matches!(c, '#' | '!')) {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    if escaped.contains(|c: char| c.is_whitespace() || c == '"') {
        escaped = format!("\"{}\"", escaped.replace('\\', "\\\\").replace('"', "\\\""));
    }
    Ok(escaped)
}

/// Whether a `.gitattributes` line is one of ours, for any artifact directory: a pattern naming
/// one of the merged files, then `merge=ucg`, nothing else.
fn is_ours(line: &[u8]) -> bool {
    let Ok(line) = std::str::from_utf8(line) else {
        return false;
    };
    if line.trim_end() == log_line() {
        return true;
    }
    let Some(pattern) = line
        .trim_end()
        .strip_suffix(ATTRIBUTE)
        .and_then(|p| p.strip_suffix(' '))
    else {
        return false;
    };
    // Quoted (a path with blanks), or bare: one pattern without blanks.
    let path = match pattern.strip_prefix('"').and_then(|p| p.strip_suffix('"')) {
        Some(quoted) => quoted,
        None if !pattern.contains(char::is_whitespace) => pattern,
        None => return false,
    };
    MERGED_FILES
        .iter()
        .any(|f| path.ends_with(&format!("/{f}")))
}

/// A line's text without its line ending.
fn line_text(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// `text` with those of `lines` it lacks appended, one per line (after a newline ending its last
/// line, if it did not end in one); `None` when it has them all.
pub fn with_lines(text: &[u8], lines: &[String]) -> Option<Vec<u8>> {
    let present = present_lines(text);
    let missing: Vec<&String> = lines
        .iter()
        .filter(|l| !present.contains(&l.as_bytes()))
        .collect();
    if missing.is_empty() {
        return None;
    }
    let mut out = text.to_vec();
    if !out.is_empty() && !out.ends_with(b"\n") {
        out.push(b'\n');
    }
    for line in missing {
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
    }
    Some(out)
}

/// `text` without our lines (every other byte as it was), and the lines taken out.
pub fn without_ours(text: &[u8]) -> (Vec<u8>, Vec<String>) {
    let mut kept = Vec::with_capacity(text.len());
    let mut removed = Vec::new();
    for line in text.split_inclusive(|b| *b == b'\n') {
        if is_ours(line_text(line)) {
            removed.push(String::from_utf8_lossy(line_text(line)).into_owned());
        } else {
            kept.extend_from_slice(line);
        }
    }
    (kept, removed)
}

/// The lines of `text`, without their endings: what a line is compared by.
pub fn present_lines(text: &[u8]) -> Vec<&[u8]> {
    text.split(|b| *b == b'\n').map(line_text).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ours() -> Vec<String> {
        lines_for("_bmad-output/implementation-artifacts").unwrap()
    }

    #[test]
    fn the_lines_name_exactly_the_two_files_and_the_decision_logs() {
        assert_eq!(
            ours(),
            [
                "_bmad-output/implementation-artifacts/.decisions.json merge=ucg",
                "_bmad-output/implementation-artifacts/.preflight-reds.json merge=ucg",
                "_bmad-output/ultracode-goal/*/.decision-log.md merge=union"
            ]
        );
        assert_eq!(lines_for("").unwrap()[0], "/.decisions.json merge=ucg");
        assert_eq!(
            lines_for("a b/[x]*").unwrap()[0],
            "\"a b/\\\\[x]\\\\*/.decisions.json\" merge=ucg"
        );
        assert_eq!(
            lines_for("#odd").unwrap()[1],
            "\\#odd/.preflight-reds.json merge=ucg"
        );
        assert!(lines_for("a\nb").is_err());
        for line in ours().iter().chain(&lines_for("a b/\"q\"").unwrap()) {
            assert!(is_ours(line.as_bytes()), "{line}");
        }
        assert!(!is_ours(b"x/.decisions.json merge=union"));
        assert!(!is_ours(b"*.json merge=ucg"));
        assert!(!is_ours(b"x/.decisions.json merge=ucg diff"));
    }

    #[test]
    fn lines_are_added_once_and_taken_out_byte_for_byte() {
        let lines = ours();
        let before = b"*.png binary\r\n# keep\n*.md text";
        let added = with_lines(before, &lines).unwrap();
        let expected = format!(
            "*.png binary\r\n# keep\n*.md text\n{}\n{}\n{}\n",
            lines[0], lines[1], lines[2]
        );
        assert_eq!(String::from_utf8_lossy(&added), expected);
        assert_eq!(with_lines(&added, &lines), None);
        let (back, removed) = without_ours(&added);
        assert_eq!(removed, lines);
        assert_eq!(back, b"*.png binary\r\n# keep\n*.md text\n");
        // One already there: only the others are added.
        let half = format!("{}\n", lines[1]);
        assert_eq!(
            with_lines(half.as_bytes(), &lines).unwrap(),
            format!("{}\n{}\n{}\n", lines[1], lines[0], lines[2]).into_bytes()
        );
        assert_eq!(
            with_lines(b"", &lines).unwrap(),
            format!("{}\n{}\n{}\n", lines[0], lines[1], lines[2]).into_bytes()
        );
        assert_eq!(without_ours(b"a\nb"), (b"a\nb".to_vec(), Vec::new()));
    }
}
