//! The dashboard fitted to a terminal's height, for the live view (`status --watch`): the run
//! header and the pending count stay on screen, the other sections follow while they fit, and
//! the rest is elided with a count of its lines and the sections it belongs to.

/// `document` (the dashboard: sections separated by blank lines, the run header first) laid out
/// in at most `rows` terminal lines of `columns` columns, the last left for the cursor. A document
/// that fits is returned as it is; otherwise the header comes first, then the pending decisions
/// (whose first line is the count), then the other sections in their order, cut where the screen
/// ends, and one last line says how many lines are not shown and where `git ucg status` shows them.
pub(crate) fn fit_to_height(document: &str, rows: usize, columns: usize) -> String {
    let columns = columns.max(20);
    let budget = rows.saturating_sub(1).max(2);
    let height = |line: &str| visible_width(line).div_ceil(columns).max(1);
    if document.lines().map(height).sum::<usize>() <= budget {
        return document.to_string();
    }
    let lines: Vec<&str> = document.lines().collect();
    let mut sections: Vec<&[&str]> = lines
        .split(|line| line.trim().is_empty())
        .filter(|section| !section.is_empty())
        .collect();
    // The pending decisions right under the header: their count is what an operator watches for.
    if let Some(at) = sections.iter().skip(1).position(|s| {
        s.first()
            .is_some_and(|l| plain(l).starts_with("Pending decisions"))
    }) {
        let pending = sections.remove(at + 1);
        sections.insert(1.min(sections.len()), pending);
    }
    // One line is kept for the note.
    let room = budget - 1;
    let mut out = String::new();
    let mut used = 0;
    let mut hidden_lines = 0;
    let mut hidden_sections: Vec<String> = Vec::new();
    // Once a line does not fit, nothing after it is shown: the screen reads in order.
    let mut cut = false;
    for (n, section) in sections.iter().enumerate() {
        let mut hidden_here = false;
        for (i, line) in section.iter().enumerate() {
            // A blank line before every section but the first.
            let gap = usize::from(n > 0 && i == 0);
            // A section's title comes with its first line, or not at all (no orphaned title).
            let needed = gap
                + height(line)
                + if i == 0 {
                    section.get(1).map_or(0, |next| height(next))
                } else {
                    0
                };
            // The header and the pending count are kept even on a screen too small for them.
            let pinned = n == 0 || (n == 1 && i == 0);
            if !cut && (used + needed <= room || pinned) {
                if gap == 1 {
                    out.push('\n');
                }
                out.push_str(line);
                out.push('\n');
                used += gap + height(line);
            } else {
                cut = true;
                hidden_here = true;
                hidden_lines += 1;
            }
        }
        if hidden_here {
            // The section's name: its first line up to the colon, without colours.
            let first = plain(section.first().copied().unwrap_or_default());
            let name = first
                .split_once(':')
                .map_or(first.as_str(), |(name, _)| name);
            hidden_sections.push(name.trim().to_string());
        }
    }
    if hidden_lines > 0 {
        let note = format!(
            "… {hidden_lines} more {} — `git ucg status` shows them: {}",
            if hidden_lines == 1 { "line" } else { "lines" },
            hidden_sections.join(", ")
        );
        out.push_str(&truncate(&note, columns.saturating_sub(1)));
        out.push('\n');
    }
    out
}

/// `line` without the SGR sequences the dashboard paints with.
fn plain(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // CSI: parameters up to the final byte.
            for next in chars.by_ref() {
                if next.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The columns `line` takes on a terminal: colour sequences none, a wide character two.
pub(crate) fn visible_width(line: &str) -> usize {
    use unicode_width::UnicodeWidthStr;
    if line.is_ascii() && !line.contains('\x1b') {
        return line.len();
    }
    plain(line).width()
}

fn truncate(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut out: String = text.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Words of `text` in lines of at most `width` columns (a longer word gets a line of its own).
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// `text` laid out in `width` columns, the way every human output reaches a person: each line
/// wider than that is broken at its spaces, never inside a word, an id or a path (a word wider
/// than the room gets a line of its own). A continuation hangs under the line's last column
/// (the text after its last run of two or more spaces) when that column starts in the left
/// half, else under a list item's text (after its `-` or `1.`), else under the line's indent;
/// a word too wide to hang there starts two columns in from the indent, else further left.
/// A line that is a command to copy (it starts with `git `) is left whole, and so is a
/// `quoted command` within a line. SGR colour
/// sequences take no room; wide characters take two.
pub(crate) fn reflow(text: &str, width: usize) -> String {
    let width = width.max(20);
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for (n, line) in text.split('\n').enumerate() {
        if n > 0 {
            out.push('\n');
        }
        // A command to copy (it starts with `git `) stays whole: broken, it would not paste.
        if visible_width(line) <= width || line.trim_start().starts_with("git ") {
            out.push_str(line);
        } else {
            reflow_line(line, width, &mut out);
        }
    }
    out
}

/// An error's text (`error: …` and `hint: …` lines) laid out as [`reflow`] does, with two
/// differences: the command in a hint (`hint: git …`, `hint: …: git …`, up to a ` (` aside) goes
/// whole on a line of its own, and any other line (a snippet to copy, a list laid out by hand)
/// is left as it is.
pub(crate) fn reflow_error(text: &str, width: usize) -> String {
    const HINT: &str = "hint: ";
    let width = width.max(20);
    let under = " ".repeat(HINT.len());
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for (n, line) in text.split('\n').enumerate() {
        if n > 0 {
            out.push('\n');
        }
        if visible_width(line) <= width {
            out.push_str(line);
            continue;
        }
        if line.starts_with("error: ") {
            out.push_str(&reflow(line, width));
            continue;
        }
        let Some(body) = line.strip_prefix(HINT) else {
            out.push_str(line);
            continue;
        };
        let command_at = match body.starts_with("git ") {
            true => Some(0),
            false => body.find(": git ").map(|at| at + 2),
        };
        let Some(command_at) = command_at else {
            out.push_str(&reflow(line, width));
            continue;
        };
        let (lead, command) = body.split_at(command_at);
        let (command, aside) = command.split_at(command.find(" (").unwrap_or(command.len()));
        match lead.trim_end() {
            "" => out.push_str(HINT),
            lead => {
                out.push_str(&reflow(&format!("{HINT}{lead}"), width));
                out.push('\n');
                out.push_str(&under);
            }
        }
        out.push_str(command);
        let aside = aside.trim_start();
        if !aside.is_empty() {
            for part in reflow(aside, width - HINT.len()).split('\n') {
                out.push('\n');
                out.push_str(&under);
                out.push_str(part);
            }
        }
    }
    out
}

/// `-`, `*`, `•` or a number with its `.` or `)`: what starts an item of a list; or the label of
/// a message (`error:`, `warning:`, `hint:`), whose text hangs after it as a list item's does.
fn is_list_marker(word: &str) -> bool {
    matches!(word, "-" | "*" | "•" | "error:" | "warning:" | "hint:")
        || word
            .strip_suffix(['.', ')'])
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// One line wider than `width`, broken at its spaces into `out`.
fn reflow_line(line: &str, width: usize, out: &mut String) {
    let body = line.trim_start_matches(' ');
    let indent = line.len() - body.len();
    // Runs of spaces and the words between them, in order (the first piece is a word).
    let mut pieces: Vec<(&str, &str)> = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        // A `quoted command` is one word: it is copied whole.
        let word_end = match rest.strip_prefix('`').and_then(|r| r.find('`')) {
            Some(close) => rest[close + 2..]
                .find(' ')
                .map_or(rest.len(), |e| close + 2 + e),
            None => rest.find(' ').unwrap_or(rest.len()),
        };
        let (word, after) = rest.split_at(word_end);
        let gap_end = after.len() - after.trim_start_matches(' ').len();
        let (gap, next) = after.split_at(gap_end);
        pieces.push((word, gap));
        rest = next;
    }
    let last_column = {
        let mut column = indent;
        let mut hang = None;
        for (word, gap) in &pieces {
            column += visible_width(word);
            if gap.len() >= 2 {
                hang = Some(column + gap.len());
            }
            column += gap.len();
        }
        hang.filter(|c| *c <= width / 2)
    };
    // A list item's text hangs after its marker; any other line under its own indent.
    let marker = pieces
        .first()
        .filter(|(word, gap)| gap.len() == 1 && is_list_marker(word))
        .map(|(word, _)| word.len() + 1)
        .filter(|marker| indent + marker <= width / 2)
        .unwrap_or(0);
    let hang = last_column.unwrap_or(indent + marker);
    out.push_str(&line[..indent]);
    let mut column = indent;
    let mut gap_before = "";
    let mut first = true;
    for (word, gap) in pieces {
        let needed = visible_width(word);
        if !first && column + gap_before.len() + needed > width {
            // A word too wide to hang where the others do starts further left, if it fits there:
            // first a step in from the line's indent, so it does not read as a line of its own.
            // One that fits nowhere starts a step in, as near the left as a continuation can.
            let start = [hang, indent + 2, indent, 0]
                .into_iter()
                .find(|start| start + needed <= width)
                .unwrap_or(hang.min(indent + 2));
            out.push('\n');
            out.extend(std::iter::repeat_n(' ', start));
            column = start;
        } else {
            out.push_str(gap_before);
            column += gap_before.len();
        }
        out.push_str(word);
        column += needed;
        gap_before = gap;
        first = false;
    }
    // Trailing spaces are kept as they were: nothing is dropped but a break's own spaces.
    out.push_str(gap_before);
}

#[cfg(test)]
mod tests {
    use super::*;

    const DASHBOARD: &str = "Epic 7  story 7-3 (3 of 3)  phase escalated\nLast verdict  escalate\nUpdated  now\n\nStories\n  7-1\n  7-2\n  7-3\n\nPending decisions: 2 (2 REDs)\n  RED  a\n  RED  b\n\nEscalations: 1\n  7-3\n\nRuns: 1\n  epic-7\n";

    #[test]
    fn error_lines_hang_under_their_label() {
        // Any output's `warning:` line too.
        assert_eq!(
            reflow("warning: one two three four five", 27),
            "warning: one two three four\n         five"
        );
        let text = "error: one two three four five six\nhint: seven eight nine ten eleven\nplain";
        assert_eq!(
            reflow_error(text, 27),
            "error: one two three four\n       five six\nhint: seven eight nine ten\n      eleven\nplain"
        );
        // A line that fits is left as it is.
        assert_eq!(reflow_error("error: short", 27), "error: short");
        // A hint's command is kept whole, on a line of its own, an aside after it.
        assert_eq!(
            reflow_error(
                "hint: run it: git ucg resolve --close ID (`git ucg pending` lists them)",
                30
            ),
            "hint: run it:\n      git ucg resolve --close ID\n      (`git ucg pending` lists\n      them)"
        );
        assert_eq!(
            reflow_error("hint: git ucg sdlc reconcile RUN (it asks first)", 30),
            "hint: git ucg sdlc reconcile RUN\n      (it asks first)"
        );
        // An error's `: git` is words, not a command.
        assert_eq!(
            reflow_error(
                "error: needs your email: git config user.email is not set",
                30
            ),
            "error: needs your email: git\n       config user.email is\n       not set"
        );
        // A command it ends in is kept whole, on a line of its own.
        assert_eq!(
            reflow_error("hint: answer it: git ucg resolve --close ID", 27),
            "hint: answer it:\n      git ucg resolve --close ID"
        );
    }

    #[test]
    fn wraps_at_words() {
        assert_eq!(wrap("a bb ccc dddd", 6), ["a bb", "ccc", "dddd"]);
        assert_eq!(wrap("", 6), [""]);
        assert_eq!(wrap("averylongword x", 4), ["averylongword", "x"]);
    }

    #[test]
    fn reflow_breaks_at_spaces_and_hangs_under_the_last_column() {
        let row = "  decision  Which payment provider ships first, Stripe or Adyen, and when?";
        assert_eq!(
            reflow(row, 40),
            "  decision  Which payment provider ships\n            first, Stripe or Adyen, and\n            when?"
        );
        // A list item hangs under its text; an indented paragraph under its indent.
        assert_eq!(
            reflow("  - one two three four five six seven eight nine", 24),
            "  - one two three four\n    five six seven eight\n    nine"
        );
        assert_eq!(
            reflow("  one two three four five six seven eight nine ten", 24),
            "  one two three four\n  five six seven eight\n  nine ten"
        );
        assert_eq!(
            reflow("one two three four five six seven eight nine", 22),
            "one two three four\nfive six seven eight\nnine"
        );
        // A word too wide to hang under its column starts further left; one wider than the room
        // is never cut.
        assert_eq!(
            reflow("  appended      a/very/long/path/to/a/file.md", 32),
            "  appended\n  a/very/long/path/to/a/file.md"
        );
        let id = "decision:_bmad-output/implementation-artifacts/deferred-work.md:86a2bcce9526";
        assert_eq!(
            reflow(&format!("see {id} now"), 30),
            format!("see\n{id}\nnow")
        );
        // A quoted command is one word.
        assert_eq!(
            reflow("run `git ucg sdlc repair x` now", 22),
            "run\n`git ucg sdlc repair x`\nnow"
        );
        // Lines that fit, colours and blank lines are left as they are.
        let fits = "\x1b[31mred\x1b[m and plain\n\n  indented  \n";
        assert_eq!(reflow(fits, 20), fits);
    }

    proptest::proptest! {
        #[test]
        fn reflow_keeps_every_word_and_fits_what_can_fit(
            words in proptest::collection::vec("[a-z\\x{e9}\\x{4e00}]{1,12}", 0..40),
            indent in 0usize..8,
            width in 0usize..100,
        ) {
            let line = format!("{}{}", " ".repeat(indent), words.join(" "));
            let flowed = reflow(&line, width);
            let again: Vec<&str> = flowed.split_whitespace().collect();
            proptest::prop_assert_eq!(again, words.iter().map(String::as_str).collect::<Vec<_>>());
            for out_line in flowed.lines() {
                proptest::prop_assert!(
                    visible_width(out_line) <= width.max(20)
                        || out_line.split_whitespace().count() == 1,
                    "{:?} in {:?}", out_line, flowed
                );
            }
        }

        #[test]
        fn reflow_error_keeps_every_word_and_each_command_whole(
            label in proptest::sample::select(vec!["error: ", "hint: ", "warning: ", "  "]),
            lead in proptest::collection::vec("[a-z`]{1,10}", 0..12),
            command in proptest::collection::vec("[a-z-]{1,8}", 0..8),
            aside in proptest::collection::vec("[a-z)]{1,10}", 0..8),
            width in 0usize..100,
        ) {
            let mut line = format!("{label}{}", lead.join(" "));
            if !command.is_empty() {
                let command = format!("git {}", command.join(" "));
                line = match lead.is_empty() {
                    true => format!("{label}{command}"),
                    false => format!("{line}: {command}"),
                };
            }
            if !aside.is_empty() {
                line = format!("{line} ({})", aside.join(" "));
            }
            let flowed = reflow_error(&format!("{line}\nplain {line}"), width);
            let words = |text: &str| text.split_whitespace().map(str::to_string).collect::<Vec<_>>();
            proptest::prop_assert_eq!(words(&flowed), words(&format!("{line} plain {line}")));
            // A hint's command, on one line.
            if label == "hint: " && !command.is_empty() {
                let command = format!("git {}", command.join(" "));
                let hint = flowed.split("\nplain ").next().unwrap_or_default();
                proptest::prop_assert!(hint.lines().any(|l| l.contains(&command)), "{:?}", flowed);
            }
            // The line that is no message stays as it was.
            let plain = format!("\nplain {line}");
            proptest::prop_assert!(flowed.ends_with(&plain), "{:?}", flowed);
        }
    }

    #[test]
    fn the_header_and_the_pending_count_stay_and_the_rest_is_counted() {
        let fits = fit_to_height(DASHBOARD, 40, 80);
        assert_eq!(fits, DASHBOARD, "a document that fits is unchanged");
        let fitted = fit_to_height(DASHBOARD, 10, 80);
        assert_eq!(
            fitted,
            "Epic 7  story 7-3 (3 of 3)  phase escalated\nLast verdict  escalate\nUpdated  now\n\nPending decisions: 2 (2 REDs)\n  RED  a\n  RED  b\n… 8 more lines — `git ucg status` shows them: Stories, Escalations, Runs\n"
        );
        assert!(fitted.lines().count() <= 9);
    }

    #[test]
    fn a_tiny_screen_keeps_the_header_and_the_count() {
        let fitted = fit_to_height(DASHBOARD, 3, 30);
        assert!(fitted.starts_with("Epic 7"), "{fitted}");
        assert!(fitted.contains("Pending decisions: 2"), "{fitted}");
        assert!(fitted.lines().last().unwrap().starts_with("… "), "{fitted}");
        for rows in 0..30 {
            for columns in [0, 1, 20, 200] {
                let _ = fit_to_height(DASHBOARD, rows, columns);
                let _ = fit_to_height("", rows, columns);
                let _ = fit_to_height("\n\n\x1b[1m", rows, columns);
            }
        }
    }
}
