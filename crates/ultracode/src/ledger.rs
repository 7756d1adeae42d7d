//! The deferred-work ledger's pipe tables, read by the reference's rules (docs/formats/ucg.md §1.5,
//! `gate_trail._tables`): every table whose header has an `id` column, cells found by header
//! name, `\|` not honoured (it splits), rows without an id skipped. Fail-soft: no table, no rows.

use super::ids::{is_python_space, py_strip};
use indexmap::IndexMap;
use std::ops::Range;

/// The ledger's name in the artifact directory when the configuration names no other.
pub const LEDGER_FILE: &str = "deferred-work.md";

/// One ledger row: header name → cell, in header order.
pub(crate) type Row = IndexMap<String, String>;

/// Python's `str.splitlines()`: every line boundary Python knows, `\r\n` as one. Read a byte at a
/// time: each boundary is an ASCII byte or starts with `0xC2` (U+0085) or `0xE2` (U+2028, U+2029),
/// so every cut falls between characters.
pub(crate) fn py_splitlines(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut lines = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        let next = |k: usize| bytes.get(i + k).copied();
        let width = match byte {
            b'\n' | 0x0b | 0x0c | 0x1c..=0x1e => 1,
            b'\r' if next(1) == Some(b'\n') => 2,
            b'\r' => 1,
            0xc2 if next(1) == Some(0x85) => 2,
            0xe2 if next(1) == Some(0x80) && matches!(next(2), Some(0xa8 | 0xa9)) => 3,
            _ => {
                i += 1;
                continue;
            }
        };
        lines.push(text.get(start..i).unwrap_or_default());
        i += width;
        start = i;
    }
    if start < text.len() {
        lines.push(text.get(start..).unwrap_or_default());
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

/// The ledger's rows, from every table whose header has `id`; rows with an empty id are skipped.
pub fn rows(text: &str) -> Vec<Row> {
    let mut out = Vec::new();
    each_row(text, |row| out.push(row.to_row()));
    out
}

/// The ledger's rows as [`rows`] reads them, each with the byte range in `text` of its `status`
/// cell (the last `status` column, as a later duplicate header wins), for the one sanctioned edit:
/// flipping that cell and nothing else. The flip reads [`cells_with_status`]; this whole-row form
/// is what the tests and the fuzz target hold it to.
pub fn rows_with_status(text: &str) -> Vec<(Row, Option<Range<usize>>)> {
    let mut out = Vec::new();
    each_row(text, |row| out.push((row.to_row(), row.status())));
    out
}

/// [`rows_with_status`] without the rows built: for each row, the cells named in `wanted` (empty
/// where the row has none) and the range of its `status` cell.
pub fn cells_with_status<'a>(
    text: &'a str,
    wanted: &[&str],
) -> Vec<(Vec<&'a str>, Option<Range<usize>>)> {
    let mut out = Vec::new();
    each_row(text, |row| {
        let cells = wanted.iter().map(|name| row.cell(name)).collect();
        out.push((cells, row.status()));
    });
    out
}

/// A data row of a ledger table, as [`each_row`] finds it.
struct TableRow<'t, 'r> {
    headers: &'r [String],
    status_column: Option<usize>,
    line: &'t str,
    /// Where `line` starts in the text.
    offset: usize,
    spans: &'r [Range<usize>],
}

impl<'t> TableRow<'t, '_> {
    /// Header name → cell, a later duplicate header winning, as a dict built in order would have it.
    fn to_row(&self) -> Row {
        let mut row = Row::new();
        for (header, span) in self.headers.iter().zip(self.spans) {
            row.shift_remove(header);
            row.insert(header.clone(), self.line[span.clone()].to_string());
        }
        row
    }

    /// The cell under the last header called `name` that the row reaches (a dict built from the
    /// headers zipped with the cells, in order, would hold it); empty when there is none.
    fn cell(&self, name: &str) -> &'t str {
        let reached = &self.headers[..self.headers.len().min(self.spans.len())];
        reached
            .iter()
            .rposition(|h| h == name)
            .and_then(|column| self.line.get(self.spans.get(column)?.clone()))
            .unwrap_or_default()
    }

    /// The status cell's range in the text: the last `status` column's, when the row reaches it.
    fn status(&self) -> Option<Range<usize>> {
        let span = self.spans.get(self.status_column?)?;
        Some(self.offset + span.start..self.offset + span.end)
    }
}

/// Each table of `lines`: its header line and its rows (the `|` lines after the separator).
fn tables<'l, 't>(lines: &'l [&'t str]) -> impl Iterator<Item = (&'t str, &'l [&'t str])> {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i + 1 < lines.len() {
            if !(py_strip(lines[i]).starts_with('|') && is_separator(lines[i + 1])) {
                i += 1;
                continue;
            }
            let (header, first_row) = (lines[i], i + 2);
            i = first_row;
            while i < lines.len() && py_strip(lines[i]).starts_with('|') {
                i += 1;
            }
            return Some((header, &lines[first_row..i]));
        }
        None
    })
}

/// Visits every row of every table whose id cell is not empty.
fn each_row<'t>(text: &'t str, mut visit: impl FnMut(&TableRow<'t, '_>)) {
    let base = text.as_ptr() as usize;
    let lines = py_splitlines(text);
    for (header, rows) in tables(&lines) {
        let headers: Vec<String> = cells(header).iter().map(|c| normalize_header(c)).collect();
        let status_column = headers.iter().rposition(|h| h == "status");
        for &line in rows {
            let spans = cell_spans(line);
            let row = TableRow {
                headers: &headers,
                status_column,
                line,
                // Lines are slices of `text`: their offset is where they start in it.
                offset: line.as_ptr() as usize - base,
                spans: &spans,
            };
            if !row.cell("id").is_empty() {
                visit(&row);
            }
        }
    }
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

    /// The rows as the first reader built them — every cell as a string, then the row — which
    /// the row-at-a-time walk over cell spans must give the same.
    fn rows_by_tables(text: &str) -> Vec<Row> {
        let lines = py_splitlines(text);
        let mut out = Vec::new();
        for (header, lines) in tables(&lines) {
            let headers: Vec<String> = cells(header).iter().map(|c| normalize_header(c)).collect();
            for &line in lines {
                let mut row = Row::new();
                for (header, cell) in headers.iter().zip(cells(line)) {
                    row.shift_remove(header);
                    row.insert(header.clone(), cell);
                }
                if headers.iter().any(|h| h == "id")
                    && row.get("id").is_some_and(|id| !id.is_empty())
                {
                    out.push(row);
                }
            }
        }
        out
    }

    /// `str.splitlines()` a character at a time, as the byte reader must read it.
    fn splitlines_by_chars(text: &str) -> Vec<&str> {
        let mut lines = Vec::new();
        let mut start = 0;
        let mut chars = text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if !"\n\r\u{b}\u{c}\u{1c}\u{1d}\u{1e}\u{85}\u{2028}\u{2029}".contains(c) {
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

    proptest! {
        #[test]
        fn lines_split_as_python_splits_them(
            text in "([a\n\r\u{b}\u{c}\u{1c}\u{1d}\u{1e}\u{1f}\u{85}\u{84}\u{2028}\u{2029}\u{2027}\u{2030}\u{c5}é€]|\r\n){0,40}"
        ) {
            prop_assert_eq!(py_splitlines(&text), splitlines_by_chars(&text));
        }

        #[test]
        fn the_cells_are_the_rows_cells(text in "[|:\\- a-z*`_\\n\\r\u{2028}]{0,300}") {
            let wanted = ["id", "status", "source", "reason", "a", "b"];
            let rows = rows_with_status(&text);
            let cells = cells_with_status(&text, &wanted);
            prop_assert_eq!(rows.len(), cells.len());
            for ((row, span), (cells, cell_span)) in rows.iter().zip(&cells) {
                prop_assert_eq!(span, cell_span);
                for (name, cell) in wanted.iter().zip(cells) {
                    prop_assert_eq!(row.get(*name).map(String::as_str).unwrap_or(""), *cell);
                }
            }
        }

        #[test]
        fn status_spans_agree_with_the_rows(text in "[|:\\- a-z*`_\\n\\r\u{2028}]{0,300}") {
            let with = rows_with_status(&text);
            let plain = rows(&text);
            prop_assert_eq!(&plain, &rows_by_tables(&text));
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
