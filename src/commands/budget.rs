//! `git ucg budget`: the per-story turn budget. `tick` is the Claude Code Stop hook, byte-compatible
//! with UltraCode Goal's `budget_stop.py` (docs/formats/ucg.md §5.4): it never blocks a stop and never
//! fails one. `show` and `reset` are for the operator.

use crate::cli::{BudgetResetArgs, BudgetShowArgs};
use crate::context::{Context, IMPL_ARTIFACTS_ENV};
use crate::error::{cannot, Result};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use ucg_store::pyjson::{self, Value};
use ucg_store::{pathlib_display, DirLock};
use ucg_ultracode::budget::{self, DEFAULT_MAX_TURNS};
use ucg_ultracode::ids::py_strip;
use ucg_ultracode::STORY_ENV;

const MAX_TURNS_ENV: &str = "ULTRACODE_MAX_TURNS";

/// The Stop hook. Whatever happens, the exit status is 0: a failing Stop hook would wedge the agent.
pub(crate) fn run_tick() -> u8 {
    if let Err(problem) = tick() {
        let _ = writeln!(std::io::stderr(), "git ucg budget tick: {problem}");
    }
    0
}

fn tick() -> std::result::Result<(), String> {
    let mut input = Vec::new();
    // An unreadable or malformed event is an empty one.
    let _ = std::io::stdin().lock().read_to_end(&mut input);
    let event = pyjson::object_in(&input).unwrap_or_default();
    let impl_dir = match std::env::var_os(IMPL_ARTIFACTS_ENV).filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => match event.get("cwd").and_then(Value::as_str) {
            Some(cwd) if !cwd.is_empty() => Path::new(cwd).join(ucg_ultracode::DEFAULT_IMPL_DIR),
            // No artifact directory: nothing to count, silently.
            _ => return Ok(()),
        },
    };
    let story = story_id(&impl_dir);
    ucg_store::validate_story_id(&story).map_err(|e| format!("story {story:?}: {e}"))?;
    let max = budget::max_turns(std::env::var(MAX_TURNS_ENV).ok().as_deref());

    ucg_store::create_dirs(&impl_dir).map_err(|e| format!("{}: {e}", impl_dir.display()))?;
    let lock = ucg_store::lock_dir(&impl_dir).map_err(|e| e.to_string())?;
    let counter_name = budget::counter_file(&story);
    let counter = impl_dir.join(&counter_name);
    let turns = budget::turns(ucg_store::read_file(&counter).ok().as_deref()).saturating_add(1);
    // Saved best-effort, as the reference does: a count that cannot be saved still counts now.
    if let Err(e) = write(&lock, &impl_dir, &counter_name, &budget::counter(turns)) {
        let _ = writeln!(std::io::stderr(), "git ucg budget tick: {e}");
    }
    if turns < max {
        return Ok(());
    }
    let marker_name = budget::marker_file(&story);
    write(
        &lock,
        &impl_dir,
        &marker_name,
        &budget::marker(&story, turns, max),
    )?;
    let shown = pathlib_display(&impl_dir.join(&marker_name));
    let line = budget::system_message(&story, turns, max, &shown);
    let _ = crate::output::print(format!("{line}\n"));
    Ok(())
}

/// `ULTRACODE_STORY_ID`, else `.current-story`, else `unknown` (each stripped).
fn story_id(impl_dir: &Path) -> String {
    let from_env = std::env::var(STORY_ENV).ok().filter(|v| !v.is_empty());
    let story = match from_env {
        Some(story) => py_strip(&story).to_string(),
        None => ucg_store::read_file(impl_dir.join(ucg_ultracode::markers::CURRENT_STORY_FILE))
            .ok()
            .map(|b| py_strip(&String::from_utf8_lossy(&b)).to_string())
            .unwrap_or_default(),
    };
    match story.is_empty() {
        true => "unknown".into(),
        false => story,
    }
}

fn write(lock: &DirLock, dir: &Path, name: &str, text: &str) -> std::result::Result<(), String> {
    let target = ucg_store::write_target(dir, name, Vec::new).map_err(|e| e.to_string())?;
    ucg_store::write_atomic(lock, &target, text.as_bytes()).map_err(|e| e.to_string())
}

/// The ceiling an operator sees: `ULTRACODE_MAX_TURNS`, else `workflow.max_turns_per_story`.
fn ceiling(ctx: &Context) -> i128 {
    if let Ok(value) = std::env::var(MAX_TURNS_ENV) {
        return budget::max_turns(Some(&value));
    }
    ctx.config()
        .ok()
        .and_then(|c| c.expanded("max_turns_per_story").ok().flatten())
        .and_then(|v| v.as_integer())
        .map_or(DEFAULT_MAX_TURNS, i128::from)
}

pub(crate) fn run_show(ctx: &Context, args: &BudgetShowArgs) -> Result<u8> {
    let impl_dir = ctx.impl_artifacts(args.impl_artifacts.dir.as_deref())?;
    let max = ceiling(ctx);
    let mut stories: Vec<String> = match &args.story {
        Some(story) => vec![story.clone()],
        None => std::fs::read_dir(&impl_dir)
            .map(|d| {
                d.flatten()
                    .filter_map(|e| e.file_name().into_string().ok())
                    .filter_map(|n| budget::counter_story(&n).map(str::to_string))
                    .collect()
            })
            .unwrap_or_default(),
    };
    stories.sort();
    let rows: Vec<(String, i128, bool)> = stories
        .into_iter()
        .filter(|s| ucg_store::validate_story_id(s).is_ok())
        .map(|story| {
            let turns = budget::turns(
                ucg_store::read_file(impl_dir.join(budget::counter_file(&story)))
                    .ok()
                    .as_deref(),
            );
            let escalated = impl_dir.join(budget::marker_file(&story)).is_file();
            (story, turns, escalated)
        })
        .collect();
    if args.json.on {
        let stories: Vec<_> = rows
            .iter()
            .map(|(story, turns, escalated)| {
                serde_json::json!({"story": story, "turns": i64::try_from(*turns).unwrap_or(i64::MAX), "escalated": escalated})
            })
            .collect();
        return crate::output::print_json(&serde_json::json!({
            "schema": "git-ucg.budget/1",
            "max_turns": i64::try_from(max).unwrap_or(i64::MAX),
            "stories": stories,
        }));
    }
    let mut out = ctx.paged_output().prose();
    if rows.is_empty() {
        writeln!(out, "no turn counters in {}", impl_dir.display())?;
    }
    for (story, turns, escalated) in &rows {
        let note = match (turns >= &max, escalated) {
            (true, _) => "  at the ceiling",
            (false, true) => "  escalated",
            _ => "",
        };
        writeln!(out, "{story}  {turns}/{max}{note}")?;
    }
    out.finish()?;
    Ok(0)
}

pub(crate) fn run_reset(ctx: &Context, args: &BudgetResetArgs) -> Result<u8> {
    ucg_store::validate_story_id(&args.story)?;
    let impl_dir = ctx.impl_artifacts(args.impl_artifacts.dir.as_deref())?;
    let counter = impl_dir.join(budget::counter_file(&args.story));
    if !counter.exists() {
        println!("{}: no counter, nothing to reset", args.story);
        return Ok(0);
    }
    let _lock = ucg_store::lock_dir(&impl_dir)?;
    let was = budget::turns(ucg_store::read_file(&counter).ok().as_deref());
    ucg_store::remove_if_present(&counter).map_err(cannot("delete", &counter))?;
    println!("{}: counter reset (was {was} turns)", args.story);
    Ok(0)
}
