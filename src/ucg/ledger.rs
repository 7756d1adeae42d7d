//! The deferred-work ledger's pipe tables, read by the reference's rules (docs/formats/ucg.md §1.5,
//! `gate_trail._tables`): every table whose header has an `id` column, cells found by header
//! name, `\|` not honoured (it splits), rows without an id skipped. Fail-soft: no table, no rows.

use super::ids::{is_python_space, py_strip};
use indexmap::IndexMap;
use std::ops::Range;

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

/// Each cell's byte range in `line`, stripped: the line stripped, one leading and one trailing
/// `|` dropped, split on every `|`.
fn cell_spans(line: &str) -> Vec<Range<usize>> {
    let start = line.len() - line.trim_start_matches(is_python_space).len();
    let stripped = py_strip(line);
    let mut inner = start..start + stripped.len();
    if stripped.starts_with('|') {
        inner.start += 1;
    }
    if inner.end > inner.start && line[inner.clone()].ends_with('|') {
        inner.end -= 1;
    }
    let mut spans = Vec::new();
    let mut from = inner.start;
    for piece in line[inner.clone()].split('|') {
        let lead = piece.len() - piece.trim_start_matches(is_python_space).len();
        let kept = py_strip(piece).len();
        spans.push(from + lead..from + lead + kept);
        from += piece.len() + 1;
    }
    spans
}

fn cells(line: &str) -> Vec<String> {
    cell_spans(line)
        .into_iter()
        .map(|span| line[span].to_string())
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

/// The ledger's rows as [`rows`] reads them, each with the byte range in `text` of its `status`
/// cell (the last `status` column, as a later duplicate header wins), for the one sanctioned edit:
/// flipping that cell and nothing else.
pub fn rows_with_status(text: &str) -> Vec<(Row, Option<Range<usize>>)> {
    let base = text.as_ptr() as usize;
    let lines = py_splitlines(text);
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < lines.len() {
        if !(py_strip(lines[i]).starts_with('|') && is_separator(lines[i + 1])) {
            i += 1;
            continue;
        }
        let headers: Vec<String> = cells(lines[i])
            .iter()
            .map(|c| normalize_header(c))
            .collect();
        let status_column = headers.iter().rposition(|h| h == "status");
        let mut j = i + 2;
        while j < lines.len() && py_strip(lines[j]).starts_with('|') {
            let line = lines[j];
            // Lines are slices of `text`: their offset is where they start in it.
            let offset = line.as_ptr() as usize - base;
            let spans = cell_spans(line);
            let mut row = Row::new();
            for (header, span) in headers.iter().zip(&spans) {
                row.shift_remove(header);
                row.insert(header.clone(), line[span.clone()].to_string());
            }
            if headers.iter().any(|h| h == "id") && row.get("id").is_some_and(|id| !id.is_empty()) {
                let status = status_column
                    .and_then(|c| spans.get(c))
                    .map(|span| offset + span.start..offset + span.end);
                out.push((row, status));
            }
            j += 1;
        }
        i = j;
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

    #[test]
    fn status_cells_are_found_to_the_byte() {
        let text = "# L\r\n\r\n| id | status |  source |\n|--|--|--|\n|  d1 |  open  | decision |\n| d2 | resolved | x |\n";
        let found = rows_with_status(text);
        assert_eq!(found.len(), 2);
        let span = found[0].1.clone().unwrap();
        assert_eq!(&text[span], "open");
        assert_eq!(found[0].0, rows(text)[0]);
    }

    proptest! {
        #[test]
        fn never_panics(text in "[|:\\- a-z*`_\\n\\r]{0,200}") {
            let _ = rows(&text);
        }

        #[test]
        fn status_spans_agree_with_the_rows(text in "[|:\\- a-z*`_\\n\\r\u{2028}]{0,300}") {
            let with = rows_with_status(&text);
            let plain = rows(&text);
            prop_assert_eq!(with.len(), plain.len());
            for ((row, span), expected) in with.iter().zip(&plain) {
                prop_assert_eq!(row, expected);
                if let Some(span) = span {
                    prop_assert_eq!(&text[span.clone()], row.get("status").map(String::as_str).unwrap_or(""));
                }
            }
        }
    }
}
