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
    let mut sections: Vec<Vec<&str>> = vec![Vec::new()];
    for line in document.lines() {
        if line.trim().is_empty() {
            if sections.last().is_some_and(|s| !s.is_empty()) {
                sections.push(Vec::new());
            }
        } else if let Some(section) = sections.last_mut() {
            section.push(line);
        }
    }
    sections.retain(|s| !s.is_empty());
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
            hidden_sections.push(title(section.first().copied().unwrap_or_default()));
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

/// A section's name: its first line up to the colon, without colours.
fn title(line: &str) -> String {
    let plain = plain(line);
    plain
        .split(':')
        .next()
        .unwrap_or_default()
        .trim()
        .to_string()
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

fn visible_width(line: &str) -> usize {
    plain(line).chars().count()
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

#[cfg(test)]
mod tests {
    use super::*;

    const DASHBOARD: &str = "Epic 7  story 7-3 (3 of 3)  phase escalated\nLast verdict  escalate\nUpdated  now\n\nStories\n  7-1\n  7-2\n  7-3\n\nPending decisions: 2 (2 REDs)\n  RED  a\n  RED  b\n\nEscalations: 1\n  7-3\n\nRuns: 1\n  epic-7\n";

    #[test]
    fn wraps_at_words() {
        assert_eq!(wrap("a bb ccc dddd", 6), ["a bb", "ccc", "dddd"]);
        assert_eq!(wrap("", 6), [""]);
        assert_eq!(wrap("averylongword x", 4), ["averylongword", "x"]);
    }

    #[test]
    fn a_document_that_fits_is_unchanged() {
        assert_eq!(fit_to_height(DASHBOARD, 40, 80), DASHBOARD);
    }

    #[test]
    fn the_header_and_the_pending_count_stay_and_the_rest_is_counted() {
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
