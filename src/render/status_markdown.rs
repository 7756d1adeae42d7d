//! `git ucg status --format markdown`: byte for byte what the reference `status_render.py` prints
//! for the same files (docs/formats/ucg.md §3, Appendix A), quirks included: Python `str()` of values,
//! no blank line after an empty escalations section, a pathlib-normalized `no run:` path, the
//! ledger's table rules, the tolerant marker reader, the `hunk show` line when `hunk` is on PATH.
//! It reads and never writes.

use std::path::{Path, PathBuf};
use ucg_git::ArtifactSource;
use ucg_store::pathlib_display;
use ucg_store::pyjson::{self, Object, Value};
use ucg_ultracode::escalations::{self, Found};
use ucg_ultracode::{ledger, markers};

const NA: &str = "n/a";
const MACHINE: &str = "[machine-derived]";

/// Where the renderer reads from.
pub(crate) struct StatusPaths<'s> {
    /// The work tree, or the tree of a commit (`--rev`).
    pub source: &'s ArtifactSource<'s>,
    pub impl_dir: PathBuf,
    pub run_dir: Option<PathBuf>,
    pub runs_root: PathBuf,
    pub deferred_work: PathBuf,
    /// Whether a `hunk` viewer is on PATH (adds `hunk show <sha>` under each baseline).
    pub hunk_viewer: bool,
}

/// The whole document, ending in exactly one newline.
pub(crate) fn render(paths: &StatusPaths) -> String {
    let source = paths.source;
    let heartbeat_path = paths.impl_dir.join("run-status.json");
    let mut lines: Vec<String> = Vec::new();
    if !source.exists(&heartbeat_path) {
        lines.push(format!(
            "no run: {} not found",
            pathlib_display(&heartbeat_path)
        ));
        lines.push(String::new());
        runs_section(&mut lines, source, &paths.runs_root);
        return finish(lines);
    }
    let status = read_heartbeat(source.read(&heartbeat_path));
    let field = |key: &str| scalar(status.as_ref().and_then(|s| s.get(key)));
    lines.push("# Run status".into());
    lines.push(String::new());
    lines.push(format!("- Epic: {}", field("epic")));
    lines.push(format!("- Story: {}", field("story")));
    lines.push(format!(
        "- Position: {} of {}",
        field("index"),
        field("total")
    ));
    lines.push(format!("- Phase: {}", current_phase(status.as_ref())));
    lines.push(format!("- Last verdict: {}", field("last_verdict")));
    match status
        .as_ref()
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
    lines.push(budget_line(status.as_ref()));
    lines.push(format!("- Re-loops this run: {}", field("reloop_count")));
    lines.push(format!("- Profile: {}", field("profile")));
    lines.push(format!("- Updated: {}", field("updated")));
    lines.push(String::new());

    lines.push("## Stories".into());
    lines.push(String::new());
    stories_section(&mut lines, status.as_ref(), paths);
    lines.push(String::new());

    lines.push("## Escalations".into());
    lines.push(String::new());
    escalations_section(&mut lines, source, &paths.impl_dir);

    lines.push("## Deferred work".into());
    lines.push(String::new());
    let rows = source
        .read(&paths.deferred_work)
        .and_then(|b| String::from_utf8(b).ok())
        .map(|text| ledger::rows(&text))
        .unwrap_or_default();
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

    lines.push("## Decision log tail".into());
    lines.push(String::new());
    let tail = paths
        .run_dir
        .as_ref()
        .and_then(|run| source.read(&run.join(".decision-log.md")))
        .and_then(|b| String::from_utf8(b).ok())
        .map(|text| {
            let non_blank: Vec<String> = ledger::py_splitlines(&text)
                .into_iter()
                .filter(|l| !ucg_ultracode::ids::py_strip(l).is_empty())
                .map(|l| {
                    l.trim_end_matches(ucg_ultracode::ids::is_python_space)
                        .to_string()
                })
                .collect();
            non_blank[non_blank.len().saturating_sub(12)..].to_vec()
        })
        .unwrap_or_default();
    if tail.is_empty() {
        lines.push(format!("- {NA}"));
    }
    for line in tail {
        lines.push(format!("    {line}"));
    }
    lines.push(String::new());

    runs_section(&mut lines, source, &paths.runs_root);
    finish(lines)
}

fn finish(lines: Vec<String>) -> String {
    let text = lines.join("\n");
    let mut out = text
        .trim_end_matches(ucg_ultracode::ids::is_python_space)
        .to_string();
    out.push('\n');
    out
}

/// The heartbeat object, or `None` when it is unreadable, blank, not JSON, not an object, or `{}`.
fn read_heartbeat(bytes: Option<Vec<u8>>) -> Option<Object> {
    let text = String::from_utf8(bytes?).ok()?;
    if ucg_ultracode::ids::py_strip(&text).is_empty() {
        return None;
    }
    match pyjson::loads(&text).ok()? {
        Value::Object(object) if !object.is_empty() => Some(*object),
        _ => None,
    }
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

fn story_entries(status: Option<&Object>) -> Vec<&Object> {
    status
        .and_then(|s| s.get("stories"))
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(Value::as_object).collect())
        .unwrap_or_default()
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

fn stories_section(lines: &mut Vec<String>, status: Option<&Object>, paths: &StatusPaths) {
    let entries = story_entries(status);
    if entries.is_empty() {
        lines.push(format!("- {NA}"));
    }
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
        let Some(story) = story.map(pyjson::py_str) else {
            continue;
        };
        let marker = |name: String| {
            paths
                .source
                .read(&paths.impl_dir.join(name))
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .and_then(|text| markers::marker_sha(&text).map(str::to_string))
        };
        if let Some(baseline) = marker(markers::baseline_file(&story)) {
            lines.push(format!("  - baseline `{baseline}`"));
            if paths.hunk_viewer {
                let end = marker(markers::commit_file(&story)).unwrap_or(baseline);
                lines.push(format!("  - hunk show {end}"));
            }
        }
    }
}

fn escalations_section(lines: &mut Vec<String>, source: &ArtifactSource, impl_dir: &Path) {
    let mut names = source.list(impl_dir);
    names.sort();
    let found = escalations::collect(&names, |name| source.read(&impl_dir.join(name)));
    if found.is_empty() {
        // The reference's quirk: no blank line follows an empty section.
        lines.push(format!("- {NA}"));
        return;
    }
    for (story, escalation) in found {
        lines.push(format!("### {story}"));
        lines.push(String::new());
        match &escalation {
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

fn runs_section(lines: &mut Vec<String>, source: &ArtifactSource, runs_root: &Path) {
    lines.push("## Runs".into());
    lines.push(String::new());
    let mut runs: Vec<(String, bool)> = source
        .list(runs_root)
        .into_iter()
        .filter(|name| source.is_dir(&runs_root.join(name)))
        .filter(|name| source.is_file(&runs_root.join(name).join(".decision-log.md")))
        .map(|name| {
            let terminal = source.is_file(&runs_root.join(&name).join("run-report.md"));
            (name, terminal)
        })
        .collect();
    runs.sort();
    if runs.is_empty() {
        lines.push(format!("- {NA}"));
    }
    for (name, terminal) in runs {
        lines.push(format!(
            "- {name}: {}",
            if terminal { "terminal" } else { "live" }
        ));
    }
}
