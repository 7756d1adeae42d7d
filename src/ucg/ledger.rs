//! The deferred-work ledger's pipe tables, read by the reference's rules (formats/ucg.md §1.5,
//! `gate_trail._tables`): every table whose header has an `id` column, cells found by header
//! name, `\|` not honoured (it splits), rows without an id skipped. Fail-soft: no table, no rows.

use super::ids::{is_python_space, py_strip};
use indexmap::IndexMap;

/// One ledger row: header name → cell, in header order.
pub type Row = IndexMap<String, String>;

/// Python's `str.splitlines()`: every line boundary Python knows, `\r\n` as one.
pub fn py_splitlines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let boundary = matches!(
            c,
            '\n' | '\r'
                | '\u{b}'
                | '\u{c}'
                | '\u{1c}'
                | '\u{1d}'
                | '\u{1e}'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        );
        if !boundary {
            continue;
        }
        lines.push(&text[start..i]);
        let mut end = i + c.len_utf8();
        if c == '\r' {
            if let Some(&(j, '\n')) = chars.peek() {
                chars.next();
                end = j + 1;
            }
        }
        start = end;
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// A separator row: only whitespace, `:`, `|` and `-`, with at least one `-`.
fn is_separator(line: &str) -> bool {
    let stripped = py_strip(line);
    stripped.contains('-')
        && stripped
            .chars()
            .all(|c| matches!(c, ':' | '|' | '-') || is_python_space(c))
}

fn cells(line: &str) -> Vec<String> {
    let stripped = py_strip(line);
    let inner = stripped.strip_prefix('|').unwrap_or(stripped);
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    inner
        .split('|')
        .map(|cell| py_strip(cell).to_string())
        .collect()
}

fn normalize_header(cell: &str) -> String {
    let trimmed = py_strip(cell).trim_matches(|c| matches!(c, '*' | '`' | '_'));
    py_strip(trimmed).to_lowercase()
}

/// Every table of the text: (headers, rows of cells).
pub fn tables(text: &str) -> Vec<(Vec<String>, Vec<Vec<String>>)> {
    let lines = py_splitlines(text);
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < lines.len() {
        if py_strip(lines[i]).starts_with('|') && is_separator(lines[i + 1]) {
            let headers = cells(lines[i])
                .iter()
                .map(|c| normalize_header(c))
                .collect();
            let mut rows = Vec::new();
            let mut j = i + 2;
            while j < lines.len() && py_strip(lines[j]).starts_with('|') {
                rows.push(cells(lines[j]));
                j += 1;
            }
            out.push((headers, rows));
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// The ledger's rows, from every table whose header has `id`; rows with an empty id are skipped.
pub fn rows(text: &str) -> Vec<Row> {
    let mut out = Vec::new();
    for (headers, rows) in tables(text) {
        if !headers.iter().any(|h| h == "id") {
            continue;
        }
        for cells in rows {
            let mut row = Row::new();
            for (header, cell) in headers.iter().zip(cells) {
                // A later duplicate header wins, as a dict built in order would have it.
                row.shift_remove(header);
                row.insert(header.clone(), cell);
            }
            if row.get("id").is_some_and(|id| !id.is_empty()) {
                out.push(row);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_reference_table_rules() {
        let text = "| **ID** | `Status` | reason |\n| :-- | --: | --- |\n| d1 | open | a \\| b |\n|  | open | no id |\n| d2 |\n";
        let rows = rows(text);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0]["status"], "open");
        assert_eq!(rows[0]["reason"], "a \\");
        assert_eq!(rows[1].get("status"), None);
        assert!(!is_separator("|:|"));
        assert!(is_separator("---"));
        assert_eq!(py_splitlines("a\r\nb\rc\u{2028}d\n"), ["a", "b", "c", "d"]);
    }

    proptest! {
        #[test]
        fn never_panics(text in "[|:\\- a-z*`_\\n\\r]{0,200}") {
            let _ = rows(&text);
        }
    }
}
