//! `git ucg status --format markdown`: byte for byte what the reference `status_render.py` prints
//! for the same files (docs/formats/ucg.md §3, Appendix A), quirks included: Python `str()` of values,
//! no blank line after an empty escalations section, a pathlib-normalized `no run:` path, the
//! ledger's table rules, the tolerant marker reader, the `hunk show` line when `hunk` is on PATH.
//! It lays out what `ucg_ultracode::reference_status::read` read.

use ucg_store::pathlib_display;
use ucg_store::pyjson::{self, Object, Value};
use ucg_ultracode::escalations::Found;
use ucg_ultracode::reference_status::{story_entries, ReferenceStatus, RunRead, StoryMarkers};

const NA: &str = "n/a";
const MACHINE: &str = "[machine-derived]";

/// The whole document, ending in exactly one newline. `hunk_viewer`: whether a `hunk` viewer is
/// on PATH (adds `hunk show <sha>` under each baseline).
pub(crate) fn render(status: &ReferenceStatus, hunk_viewer: bool) -> String {
    let mut lines: Vec<String> = Vec::new();
    let Some(run) = &status.run else {
        lines.push(format!(
            "no run: {} not found\n",
            pathlib_display(&status.heartbeat_path)
        ));
        runs_section(&mut lines, &status.runs);
        return finish(lines);
    };
    let status_object = run.heartbeat.as_ref();
    let field = |key: &str| scalar(status_object.and_then(|s| s.get(key)));
    lines.push("# Run status\n".into());
    lines.push(format!("- Epic: {}", field("epic")));
    lines.push(format!("- Story: {}", field("story")));
    lines.push(format!(
        "- Position: {} of {}",
        field("index"),
        field("total")
    ));
    lines.push(format!("- Phase: {}", current_phase(status_object)));
    lines.push(format!("- Last verdict: {}", field("last_verdict")));
    match status_object
        .and_then(|s| s.get("last_reasons"))
        .and_then(Value::as_array)
    {
        Some(reasons) if !reasons.is_empty() => {
            for reason in reasons {
                lines.push(format!(
                    "- Last reason: {} {MACHINE}",
                    pyjson::py_str(reason)
                ));
            }
        }
        _ => lines.push(format!("- Last reason: {NA} {MACHINE}")),
    }
    lines.push(budget_line(status_object));
    lines.push(format!("- Re-loops this run: {}", field("reloop_count")));
    lines.push(format!("- Profile: {}", field("profile")));
    lines.push(format!("- Updated: {}", field("updated")));
    lines.push(String::new());

    lines.push("## Stories\n".into());
    stories_section(&mut lines, status_object, &run.markers, hunk_viewer);
    lines.push(String::new());

    lines.push("## Escalations\n".into());
    escalations_section(&mut lines, run);

    lines.push("## Deferred work\n".into());
    let rows = &run.ledger_rows;
    if rows.is_empty() {
        lines.push(format!("- {NA}"));
    }
    for row in rows {
        let cell = |key: &str| {
            row.get(key)
                .filter(|v| !v.is_empty())
                .map_or(NA, String::as_str)
                .to_string()
        };
        let id = row.get("id").cloned().unwrap_or_default();
        lines.push(format!(
            "- {id} [{}] severity={} story={}: {}",
            cell("status"),
            cell("severity"),
            cell("story"),
            cell("reason")
        ));
    }
    lines.push(String::new());

    lines.push("## Decision log tail\n".into());
    let tail = &run.decision_log_tail;
    if tail.is_empty() {
        lines.push(format!("- {NA}"));
    }
    for line in tail {
        lines.push(format!("    {line}"));
    }
    lines.push(String::new());

    runs_section(&mut lines, &status.runs);
    finish(lines)
}

fn finish(lines: Vec<String>) -> String {
    let text = lines.join("\n");
    format!(
        "{}\n",
        text.trim_end_matches(ucg_ultracode::ids::is_python_space)
    )
}

/// `None` and `""` are `n/a`; anything else as Python's `str()` prints it.
fn scalar(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => NA.into(),
        Some(Value::Str(s)) if s.is_empty() => NA.into(),
        Some(v) => pyjson::py_str(v),
    }
}

/// Truthy values as `str()`, falsy ones `n/a`.
fn truthy(value: Option<&Value>) -> String {
    match value {
        Some(v) if v.is_truthy() => pyjson::py_str(v),
        _ => NA.into(),
    }
}

fn current_phase(status: Option<&Object>) -> String {
    let Some(story) = status
        .and_then(|s| s.get("story"))
        .filter(|v| v.is_truthy())
    else {
        return NA.into();
    };
    story_entries(status)
        .into_iter()
        .find(|entry| {
            entry.get("story") == Some(story) && entry.get("phase").is_some_and(Value::is_truthy)
        })
        .map_or_else(|| NA.into(), |entry| truthy(entry.get("phase")))
}

fn budget_line(status: Option<&Object>) -> String {
    let na = format!("- Budget used: {NA} {MACHINE}");
    let Some(budget) = status
        .and_then(|s| s.get("budget_used"))
        .and_then(Value::as_object)
    else {
        return na;
    };
    let side = |key: &str| budget.get(key).filter(|v| !matches!(v, Value::Null));
    if side("turns").is_none() && side("max_turns").is_none() {
        return na;
    }
    // Only None is `n/a` here: an empty string prints as itself (the reference's `is None` test).
    let shown = |key: &str| side(key).map_or_else(|| NA.to_string(), pyjson::py_str);
    format!(
        "- Budget used: {} of {} turns {MACHINE}",
        shown("turns"),
        shown("max_turns")
    )
}

fn stories_section(
    lines: &mut Vec<String>,
    status: Option<&Object>,
    markers: &[StoryMarkers],
    hunk_viewer: bool,
) {
    let entries = story_entries(status);
    if entries.is_empty() {
        lines.push(format!("- {NA}"));
    }
    // One read of markers for each entry with a story, in order.
    let mut markers = markers.iter();
    for entry in entries {
        let none_checked = |key: &str| match entry.get(key) {
            None | Some(Value::Null) => NA.to_string(),
            Some(v) => pyjson::py_str(v),
        };
        let story = entry.get("story").filter(|v| v.is_truthy());
        let label = story.map_or_else(|| NA.to_string(), pyjson::py_str);
        lines.push(format!(
            "- {label}: phase={} verdict={} attempts={} re-loops={}",
            truthy(entry.get("phase")),
            truthy(entry.get("verdict")),
            none_checked("dev_attempts"),
            none_checked("reloop_count")
        ));
        if story.is_none() {
            continue;
        }
        let Some(StoryMarkers {
            baseline: Some(baseline),
            commit,
            ..
        }) = markers.next()
        else {
            continue;
        };
        lines.push(format!("  - baseline `{baseline}`"));
        if hunk_viewer {
            lines.push(format!(
                "  - hunk show {}",
                commit.as_deref().unwrap_or(baseline)
            ));
        }
    }
}

fn escalations_section(lines: &mut Vec<String>, run: &RunRead) {
    let found = &run.escalations;
    if found.is_empty() {
        // The reference's quirk: no blank line follows an empty section.
        lines.push(format!("- {NA}"));
        return;
    }
    for (story, escalation) in found {
        lines.push(format!("### {story}\n"));
        match escalation {
            Found::Typed { payload, .. } => {
                for key in ["kind", "source", "decision_needed", "evidence"] {
                    lines.push(format!("- {key}: {}", truthy(payload.get(key))));
                }
            }
            Found::Unreadable { file } => {
                lines.push("- escalation (typed record present but unreadable)".into());
                lines.push(format!("- source: {file}"));
            }
            Found::Unpromoted { file } => {
                lines.push(
                    "- escalation (unpromoted: session ended before Execute promoted it)".into(),
                );
                lines.push(format!("- source: {file}"));
            }
        }
        lines.push(String::new());
    }
}

fn runs_section(lines: &mut Vec<String>, runs: &[(String, bool)]) {
    lines.push("## Runs\n".into());
    if runs.is_empty() {
        lines.push(format!("- {NA}"));
    }
    for (name, terminal) in runs {
        lines.push(format!(
            "- {name}: {}",
            if *terminal { "terminal" } else { "live" }
        ));
    }
}
