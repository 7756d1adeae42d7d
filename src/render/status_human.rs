//! `git ucg status`: the dashboard an operator reads cold. The run header, the stories table,
//! what is pending (with the ids `resolve` takes), escalations, deferred work, the decision log's
//! tail and the runs index, in that order; tables by comfy-table, fitted to the width given.

use super::fit::wrap;
use comfy_table::{ContentArrangement, Table};
use serde_json::Value as Json;
use std::fmt::Write as _;
use ucg_ultracode::status::{EscalationState, Report, Run, SourceState, Story};

const NA: &str = "n/a";
/// How many rows that are not open the deferred-work table shows.
const CLOSED_ROWS_SHOWN: usize = 10;

/// How to draw: colour (ANSI SGR) or not, and the width tables are fitted to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Style {
    pub color: bool,
    pub width: u16,
    /// Whole ids and paths in the pending list (`--full`), else handles and file names.
    pub full_ids: bool,
}

impl Style {
    fn paint(&self, sgr: &str, text: &str) -> String {
        if self.color && !text.is_empty() {
            format!("\x1b[{sgr}m{text}\x1b[m")
        } else {
            text.to_string()
        }
    }

    fn title(&self, text: &str) -> String {
        self.paint("1", text)
    }

    fn verdict(&self, verdict: &str) -> String {
        let sgr = match verdict {
            "advance" => "32",
            "defer" | "reloop" => "33",
            "escalate" => "31",
            _ => return verdict.to_string(),
        };
        self.paint(sgr, verdict)
    }
}

/// A raw value for people: strings bare, `null` and `""` as `n/a`, the rest as JSON.
fn text(value: &Json) -> String {
    match value {
        Json::Null => NA.into(),
        Json::String(s) if s.is_empty() => NA.into(),
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn table(style: &Style, header: &[&str]) -> Table {
    let mut table = super::table(header);
    table.set_content_arrangement(ContentArrangement::Dynamic);
    // Two columns of the width go to the indent the rows get.
    table.set_width(style.width.saturating_sub(2).max(40));
    table
}

fn push_table(out: &mut String, style: &Style, table: &Table) {
    for (i, line) in table.to_string().lines().enumerate() {
        let line = line.trim_end();
        // comfy-table pads its borderless cells by one column; the indent takes its place.
        let line = line.strip_prefix(' ').unwrap_or(line);
        let _ = match i {
            0 => writeln!(out, "  {}", style.title(line)),
            _ => writeln!(out, "  {line}"),
        };
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// "5 minutes ago" and the like; coarse on purpose, the timestamp is beside it.
pub(crate) fn age(seconds: i64) -> String {
    if seconds < 0 {
        return "in the future".into();
    }
    let n = |x: i64| usize::try_from(x).unwrap_or(usize::MAX);
    match seconds {
        0..60 => "just now".into(),
        60..3_600 => format!("{} ago", plural(n(seconds / 60), "minute", "minutes")),
        3_600..172_800 => format!("{} ago", plural(n(seconds / 3_600), "hour", "hours")),
        _ => format!("{} ago", plural(n(seconds / 86_400), "day", "days")),
    }
}

pub(crate) fn render(report: &Report, style: &Style) -> String {
    let mut out = String::new();
    if let Some(rev) = &report.rev {
        let _ = writeln!(out, "(artifacts as of {rev})");
    }
    match &report.run {
        Some(run) => header(&mut out, style, run),
        None => {
            let why = match report.sources.heartbeat {
                SourceState::Absent => "not found",
                _ => "unreadable",
            };
            let _ = writeln!(
                out,
                "{} {} {why}",
                style.title("No run:"),
                report.paths.heartbeat
            );
        }
    }
    if report.run.is_some() {
        stories(&mut out, style, &report.stories);
    }
    if let Some(route) = &report.resume {
        let at = super::restart::at_story(route);
        let _ = writeln!(out, "\n{} {}{at}", style.title("Resume:"), route.stage);
        for line in wrap(
            &route.why,
            usize::from(style.width).saturating_sub(2).max(20),
        ) {
            let _ = writeln!(out, "  {line}");
        }
    }
    pending(&mut out, style, report);
    if !report.bypasses.is_empty() {
        let _ = writeln!(out);
        out.push_str(&super::bypass::describe(&report.bypasses));
    }
    escalations(&mut out, style, report);
    deferred(&mut out, style, report);
    decision_log(&mut out, style, report);
    runs(&mut out, style, report);
    // Artifact text cannot drive the terminal: only the colours drawn above stay escapes.
    let ours: &[&str] = if style.color { &OUR_SGR } else { &[] };
    super::visible::escape_controls(&out, ours).into_owned()
}

/// Every escape sequence [`Style::paint`] emits.
const OUR_SGR: [&str; 6] = [
    "\x1b[1m",
    "\x1b[1;31m",
    "\x1b[31m",
    "\x1b[32m",
    "\x1b[33m",
    "\x1b[m",
];

fn header(out: &mut String, style: &Style, run: &Run) {
    // The heartbeat keeps the phase the run stopped in; an answer on record is said beside it.
    let answered = match run.escalation_answered {
        true => " (answered: waits for the resume)",
        false => "",
    };
    let _ = writeln!(
        out,
        "{} {}  story {} ({} of {})  phase {}{answered}",
        style.title("Epic"),
        style.title(&text(&run.epic)),
        text(&run.story),
        text(&run.index),
        text(&run.total),
        text(&run.phase)
    );
    let _ = writeln!(
        out,
        "Last verdict  {}",
        style.verdict(&text(&run.last_verdict))
    );
    for reason in &run.last_reasons {
        let _ = writeln!(out, "  - {}", text(reason));
    }
    let budget = match (&run.budget.turns, &run.budget.max_turns) {
        (Json::Null, Json::Null) => NA.to_string(),
        (turns, max) => {
            let figure = format!("{}/{} turns", text(turns), text(max));
            match run.budget.numbers() {
                _ if run.budget.reset_by_close => format!("{figure} when it stopped"),
                Some((used, ceiling)) if used >= ceiling => {
                    style.paint("1;31", &format!("{figure} (at the ceiling)"))
                }
                Some((used, ceiling)) if used >= 0.8 * ceiling => style.paint("33", &figure),
                _ => figure,
            }
        }
    };
    let _ = writeln!(
        out,
        "Budget        {budget}  re-loops {}  profile {}",
        text(&run.reloop_count),
        text(&run.profile)
    );
    if run.budget.reset_by_close {
        let _ = writeln!(
            out,
            "              reset by the close of {}'s escalation: the resumed story counts from 0",
            text(&run.story)
        );
    }
    let age = run.age_seconds.map(|s| format!(" ({})", age(s)));
    let _ = writeln!(
        out,
        "Updated       {}{}",
        text(&run.updated),
        age.unwrap_or_default()
    );
}

fn stories(out: &mut String, style: &Style, stories: &[Story]) {
    let _ = writeln!(out, "\n{}", style.title("Stories"));
    if stories.is_empty() {
        let _ = writeln!(out, "  {NA}");
        return;
    }
    let counted = stories.iter().any(|s| s.commits.is_some());
    let mut header = vec![
        "story", "phase", "verdict", "attempts", "re-loops", "baseline",
    ];
    if counted {
        header.extend(["commits", "+/-"]);
    }
    let mut t = table(style, &header);
    for story in stories {
        let mut row = vec![
            story.id().unwrap_or_else(|| NA.into()),
            text(&story.phase),
            text(&story.verdict),
            text(&story.dev_attempts),
            text(&story.reloop_count),
            story
                .baseline
                .as_deref()
                .map_or(NA.into(), |sha| sha.chars().take(7).collect()),
        ];
        if counted {
            row.push(story.commits.map_or(NA.into(), |n| n.to_string()));
            row.push(match (story.insertions, story.deletions) {
                (Some(add), Some(del)) => format!("+{add} -{del}"),
                _ => NA.into(),
            });
        }
        t.add_row(row);
    }
    push_table(out, style, &t);
    for story in stories {
        for problem in &story.problems {
            let id = story.id().unwrap_or_else(|| NA.into());
            let _ = writeln!(out, "  ! {id}: {problem}");
        }
    }
}

fn pending(out: &mut String, style: &Style, report: &Report) {
    let view = &report.pending;
    let counts = &view.counts;
    let title = style.title("Pending decisions:");
    if counts.total() == 0 {
        let _ = writeln!(out, "\n{title} {}", style.paint("32", "none"));
    } else {
        let mut by_source = Vec::new();
        for (n, one, many) in [
            (counts.red, "RED", "REDs"),
            (counts.escalation, "escalation", "escalations"),
            (counts.decision, "decision", "decisions"),
        ] {
            if n > 0 {
                by_source.push(plural(n, one, many));
            }
        }
        let _ = writeln!(
            out,
            "\n{title} {} ({})",
            style.paint("1;31", &counts.total().to_string()),
            by_source.join(", ")
        );
        // A list, not a table: each handle whole on its line, to be copied into `resolve`.
        for item in &view.pending.items {
            out.push_str(&super::items::describe(item, style.full_ids));
        }
    }
    for blocker in &view.pending.blockers {
        let _ = writeln!(
            out,
            "  {} {}: {}",
            style.paint("1;31", "blocked:"),
            blocker.artifact,
            blocker.reason
        );
        let _ = writeln!(out, "    {}", blocker.way_out);
    }
}

fn escalations(out: &mut String, style: &Style, report: &Report) {
    let title = style.title("Escalations:");
    if report.escalations.is_empty() {
        let _ = writeln!(out, "\n{title} none");
        return;
    }
    let _ = writeln!(out, "\n{title} {}", report.escalations.len());
    let mut t = table(style, &["story", "state", "kind", "file"]);
    for escalation in &report.escalations {
        let state = match escalation.state {
            EscalationState::Typed => "typed",
            EscalationState::Unpromoted => "unpromoted",
            EscalationState::Unreadable => "unreadable",
            EscalationState::Closed => "closed",
        };
        t.add_row([
            escalation.story.clone(),
            state.to_string(),
            text(&escalation.kind),
            // They all live in the artifact directory: the name says which.
            super::file_name(&escalation.file).to_string(),
        ]);
    }
    push_table(out, style, &t);
}

fn deferred(out: &mut String, style: &Style, report: &Report) {
    let rows = &report.deferred_work;
    let open = rows
        .iter()
        .filter(|r| r.get("status").map(String::as_str) == Some("open"))
        .count();
    let state = match report.sources.deferred_work {
        SourceState::Ok => format!("{}, {open} open", plural(rows.len(), "row", "rows")),
        SourceState::Absent => "no ledger".into(),
        SourceState::Unreadable => "ledger unreadable".into(),
    };
    let _ = writeln!(out, "\n{} {state}", style.title("Deferred work:"));
    if rows.is_empty() {
        return;
    }
    // Every open row; of the rest (done, most of a long ledger) only the first few.
    let shown = rows.len().min(open + CLOSED_ROWS_SHOWN);
    const COLUMNS: [&str; 5] = ["id", "status", "severity", "story", "reason"];
    let mut t = table(style, &COLUMNS);
    for row in &rows[..shown] {
        let cell = |key: &str| {
            row.get(key)
                .filter(|v| !v.is_empty())
                .map_or(NA.to_string(), String::clone)
        };
        t.add_row(COLUMNS.map(cell));
    }
    push_table(out, style, &t);
    if shown < rows.len() {
        let _ = writeln!(
            out,
            "  … and {} more (`git ucg status --json` lists every row)",
            plural(rows.len() - shown, "row", "rows")
        );
    }
}

fn decision_log(out: &mut String, style: &Style, report: &Report) {
    let log = &report.decision_log;
    let Some(run) = &log.run else {
        return;
    };
    let _ = writeln!(out, "\n{} {run}", style.title("Decision log tail:"));
    if log.lines.is_empty() {
        let _ = writeln!(out, "  {NA}");
    }
    // Long lines wrap at words to the terminal's width, under their indent.
    let width = usize::from(style.width).saturating_sub(2).max(20);
    for line in &log.lines {
        if line.chars().count() <= width {
            let _ = writeln!(out, "  {line}");
            continue;
        }
        let indent: String = line.chars().take_while(|c| *c == ' ').collect();
        for (n, piece) in wrap(line, width.saturating_sub(indent.len() + 2))
            .into_iter()
            .enumerate()
        {
            let lead = if n == 0 { "" } else { "  " };
            let _ = writeln!(out, "  {indent}{lead}{piece}");
        }
    }
}

fn runs(out: &mut String, style: &Style, report: &Report) {
    let title = style.title("Runs:");
    if report.runs.is_empty() {
        let _ = writeln!(out, "\n{title} none under {}", report.paths.runs_root);
        return;
    }
    let _ = writeln!(out, "\n{title} {}", report.runs.len());
    let mut t = table(style, &["run", "state", "epic"]);
    for run in &report.runs {
        let current = if run.current { " (current)" } else { "" };
        t.add_row([
            format!("{}{current}", run.name),
            run.state.to_string(),
            run.epic.clone().unwrap_or_else(|| NA.into()),
        ]);
    }
    push_table(out, style, &t);
}

#[cfg(test)]
mod tests {
    #[test]
    fn ages_are_coarse() {
        assert_eq!(super::age(-5), "in the future");
        assert_eq!(super::age(59), "just now");
        assert_eq!(super::age(60), "1 minute ago");
        assert_eq!(super::age(7_200), "2 hours ago");
        assert_eq!(super::age(172_800), "2 days ago");
    }
}
