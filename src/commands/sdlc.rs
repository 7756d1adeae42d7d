//! `git ucg sdlc`: agentic-sdlc heavy-pipeline runs (docs/formats/sdlc.md). Listing,
//! status and the catalog never write; `repair` and `reconcile` ask first (forward sync of a
//! successful adapter receipt excepted), write snapshots atomically under the run directory's lock
//! and append — never rewrite — the ledgers; a completed run is never written; `resume` asks and
//! prints the handoff, and never runs a phase.

use crate::cli::{
    SdlcCommand, SdlcLayoutArgs, SdlcListArgs, SdlcResumeArgs, SdlcRunArgs, SdlcWriteArgs,
};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::render::{cell, table, table_lines};
use jiff::Timestamp;
use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;
use ucg_sdlc::events::Line;
use ucg_sdlc::layout::{run_dirs, select, Layout};
use ucg_sdlc::ledger;
use ucg_sdlc::list_cache::{self, Entry, ListCache};
use ucg_sdlc::loaded::{load, refuse_completed, summarize, Loaded, Summary};
use ucg_sdlc::project_state::{self, ProjectState};
use ucg_sdlc::run;

mod reconcile;

/// The command that brings a stale snapshot in line with its log, as its warning names it.
const REPAIR: &str = "git ucg sdlc repair";

pub(crate) fn run(ctx: &Context, command: &SdlcCommand) -> Result<u8> {
    match command {
        SdlcCommand::List(args) => list(ctx, args),
        SdlcCommand::Status(args) => status(ctx, args),
        SdlcCommand::Show(args) => show(ctx, args),
        SdlcCommand::Repair(args) => repair(ctx, args),
        SdlcCommand::Reconcile(args) => reconcile::run(ctx, args),
        SdlcCommand::Resume(args) => resume(ctx, args),
    }
}

/// One run as `list` shows it, and the entry to keep for it (the cache's, or a new one).
struct Listed {
    line: String,
    doc: Option<Value>,
    entry: Option<Entry>,
}

/// A run from the cache when its entry holds, else read and summarized.
fn list_one(id: &str, dir: &Path, cache: Option<&ListCache>, now: Timestamp, json: bool) -> Listed {
    let stamps = list_cache::stamps(dir);
    let kept = stamps
        .as_ref()
        .and_then(|s| cache?.get(id, s, now.as_second()));
    if let Some(entry) = kept {
        let doc = json
            .then(|| serde_json::from_str(&entry.doc).ok())
            .flatten();
        if doc.is_some() || !json {
            return Listed {
                line: entry.line.clone(),
                doc,
                entry: Some(entry.clone()),
            };
        }
    }
    let loaded = load(id, dir, true);
    let summary = summarize(&loaded, now, REPAIR);
    // Kept only when nothing wrote the run's files while they were read.
    let entry = stamps
        .filter(|before| list_cache::stamps(dir).as_ref() == Some(before))
        .map(|stamps| {
            let holds = loaded
                .meta
                .as_ref()
                .map_or((None, None), |meta| run::status_holds(meta, now));
            Entry::new(&summary, stamps, holds)
        });
    Listed {
        line: summary.line,
        doc: Some(summary.doc),
        entry,
    }
}

fn list(ctx: &Context, args: &SdlcListArgs) -> Result<u8> {
    let layout = layout(ctx, &args.layout)?;
    let dirs = run_dirs(&layout.runs, args.by_mtime)?;
    let now = Timestamp::now();
    let json = args.layout.json.on;
    // What the last listing showed, kept under the git directory.
    let kept_at = ctx
        .repo()
        .ok()
        .and_then(|repo| std::path::absolute(repo.git_dir()).ok())
        .map(|git_dir| ucg_store::ucg_dir(&git_dir));
    let cache = kept_at
        .as_ref()
        .and_then(|dir| ucg_store::read_file(dir.join(list_cache::FILE)).ok())
        .and_then(|bytes| ListCache::parse(&bytes, &layout.runs));
    // Each run is read on its own: split the list over the cores.
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    let chunk = dirs.len().div_ceil(workers).max(1);
    let mut listed: Vec<Listed> = std::thread::scope(|scope| {
        let handles: Vec<_> = dirs
            .chunks(chunk)
            .map(|part| {
                let cache = cache.as_ref();
                scope.spawn(move || {
                    part.iter()
                        .map(|(id, dir)| list_one(id, dir, cache, now, json))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    if let Some(dir) = kept_at {
        let mut fresh = ListCache::new(&layout.runs);
        for ((id, _), l) in dirs.iter().zip(&mut listed) {
            if let Some(entry) = l.entry.take() {
                fresh.insert(id.clone(), entry);
            }
        }
        // Written only when it changed (best effort: lost, it is rebuilt).
        if cache.as_ref() != Some(&fresh) && ucg_store::create_dirs(&dir).is_ok() {
            let _ = ucg_store::replace_cache(
                &dir.join(list_cache::FILE),
                ".sdlc-list",
                &fresh.to_bytes(),
            );
        }
    }
    if json {
        let runs: Vec<Value> = listed.into_iter().filter_map(|l| l.doc).collect();
        return crate::output::print_json(&json!({"schema": "git-ucg.sdlc-runs/1", "runs": runs}));
    }
    if listed.is_empty() {
        // Said to the person on stderr: stdout stays a list of status lines, empty.
        eprintln!("no runs in {}", layout.runs.display());
        return Ok(0);
    }
    // One write, not one per run (stdout is line-buffered).
    let text: String = listed.iter().map(|l| format!("{}\n", l.line)).collect();
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(0)
}

fn warn(run: &str, warnings: &[String]) {
    for warning in warnings {
        crate::output::say(&format!("warning: {run}: {warning}\n"));
    }
}

fn status(ctx: &Context, args: &SdlcRunArgs) -> Result<u8> {
    let layout = layout(ctx, &args.layout)?;
    let (id, dir) = select(&layout, &args.run)?;
    let summary = summarize(&load(&id, &dir, false), Timestamp::now(), REPAIR);
    // The project's own pipeline state, when its configuration names one: the authority on what
    // that pipeline runs, shown as it says.
    let project = ctx
        .try_project_root()
        .map_or(ProjectState::NotConfigured, |root| {
            project_state::read(&root)
        });
    if args.layout.json.on {
        let mut doc = summary.doc;
        doc["schema"] = "git-ucg.sdlc-status/1".into();
        doc["project_state"] = project.to_json();
        return crate::output::print_json(&doc);
    }
    warn(&id, &summary.warnings);
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", summary.line)?;
    match &project {
        ProjectState::NotConfigured => {}
        ProjectState::Unreadable { path, why } => {
            crate::output::say(&format!(
                "warning: the project's pipeline state {path} cannot be read: {why}\n"
            ));
        }
        ProjectState::Read { path, fields } => {
            let mut block = format!("\nProject pipeline (the authority: {path}):\n");
            for ((_, label), (_, value)) in project_state::FIELDS.iter().zip(fields) {
                let shown = match value {
                    Value::Null => "(not said)".to_string(),
                    Value::String(text) => text.clone(),
                    Value::Array(items) if items.iter().all(Value::is_string) => items
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(", "),
                    other => other.to_string(),
                };
                let shown = if shown.is_empty() { "none" } else { &shown };
                // Two spaces after the label: a long value continues under itself.
                block.push_str(&format!("  {label:<15}  {shown}\n"));
            }
            drop(out);
            crate::output::print_prose(&crate::render::visible::escape_controls(&block, &[]))?;
        }
    }
    Ok(0)
}

/// The first or last `n` lines of a text file.
fn lines_of(path: &Path, n: usize, last: bool) -> Option<Vec<String>> {
    let bytes = ucg_store::read_file(path).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    Some(if last {
        lines[lines.len().saturating_sub(n)..].to_vec()
    } else {
        lines.into_iter().take(n).collect()
    })
}

fn show(ctx: &Context, args: &SdlcRunArgs) -> Result<u8> {
    let layout = layout(ctx, &args.layout)?;
    let (id, dir) = select(&layout, &args.run)?;
    let loaded = load(&id, &dir, false);
    let summary = summarize(&loaded, Timestamp::now(), REPAIR);
    let doc = catalog(&loaded, &summary);
    if args.layout.json.on {
        return crate::output::print_json(&doc);
    }
    ctx.page(render_catalog(&doc, crate::output::columns()))
}

/// The catalog (A.6.11), in its fixed order, as one document.
fn catalog(loaded: &Loaded, summary: &Summary) -> Value {
    let dir = &loaded.dir;
    let meta = loaded.meta_or_empty();
    let recon = loaded.reconstruction();
    let complexity = ucg_store::read_file(dir.join("complexity.json")).ok().map(|bytes| {
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(value) => json!({"json": value}),
            Err(e) => json!({"text": String::from_utf8_lossy(&bytes), "warning": format!("not JSON ({e})")}),
        }
    });
    let phases: Vec<Value> = (0..=12u8)
        .map(|n| {
            let stored = run::meta_phase(&meta, n);
            // An absent field is `null`, as json! writes a `None`.
            let field = |key: &str| stored.and_then(|p| p.get(key));
            json!({
                "phase": n,
                "name": run::PHASE_NAMES[usize::from(n)],
                "status": field("status"),
                "started_at": field("started_at"),
                "completed_at": field("completed_at"),
                "logged": recon.phases.get(&n).map(|r| r.state.name()),
            })
        })
        .collect();
    let events: Vec<Value> = loaded
        .log
        .iter()
        .flat_map(|log| &log.lines)
        .map(|(n, line)| match line {
            Line::Event(event) => json!({
                "line": n,
                "ts": event.ts,
                "event": event.event,
                "phase": event.phase,
                "actor": event.raw.get("actor").and_then(Value::as_str),
                "summary": event.raw.get("summary").and_then(Value::as_str),
            }),
            Line::Malformed(why) => json!({"line": n, "malformed": why}),
        })
        .collect();
    let decisions: Vec<Value> = ucg_store::read_file(dir.join("decisions.jsonl"))
        .map(|bytes| {
            bytes
                .split(|b| *b == b'\n')
                .enumerate()
                .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace))
                .map(|(i, line)| match serde_json::from_slice::<Value>(line) {
                    Ok(Value::Object(d)) => {
                        let verdict = d.get("verdict");
                        let pick = |v: Option<&Value>, k: &str| v.and_then(|v| v.get(k)).cloned().unwrap_or(Value::Null);
                        json!({"line": i + 1, "ts": d.get("ts"), "gate_id": d.get("gate_id"),
                            "decision": pick(verdict, "decision"), "source": pick(verdict, "source"),
                            "escalated": d.get("escalated")})
                    }
                    _ => json!({"line": i + 1, "malformed": "not a JSON object"}),
                })
                .collect()
        })
        .unwrap_or_default();
    json!({
        "schema": "git-ucg.sdlc-run/1",
        "status": summary.doc,
        "requirements": lines_of(&dir.join("requirements.md"), 10, false),
        "complexity": complexity,
        "phases": phases,
        "events": events,
        "decisions": decisions,
        "qa_report": lines_of(&dir.join("qa-report.md"), 20, true),
    })
}

/// A table laid out in `columns`: the column of prose (`prose`) wraps at its words, every other
/// column keeps its cells whole (a timestamp, a name, a status is never split).
fn push_table(out: &mut String, table: &mut comfy_table::Table, columns: usize, prose: usize) {
    use comfy_table::{ColumnConstraint, ContentArrangement};
    table.set_content_arrangement(ContentArrangement::Dynamic);
    table.set_width(u16::try_from(columns).unwrap_or(u16::MAX));
    for column in table.column_iter_mut().filter(|c| c.index != prose) {
        column.set_constraint(ColumnConstraint::ContentWidth);
    }
    match table.row_count() {
        0 => out.push_str("(none)\n"),
        _ => out.push_str(&table_lines(table)),
    }
}

/// The catalog for people, in `columns`: the status line whole (its format says it is
/// machine-parsed), the tables fitted, the warnings and the files' prose lines wrapped at words;
/// complexity.json as it is.
fn render_catalog(doc: &Value, columns: usize) -> String {
    let flowed = |text: String| crate::render::fit::reflow(&text, columns);
    let mut out = format!("{}\n", cell(&doc["status"]["line"]));
    for warning in doc["status"]["warnings"].as_array().into_iter().flatten() {
        out.push_str(&flowed(format!("warning: {}\n", cell(warning))));
    }
    out.push_str("\n## requirements.md (first 10 lines)\n");
    match doc["requirements"].as_array() {
        Some(lines) => lines
            .iter()
            .for_each(|l| out.push_str(&flowed(format!("{}\n", cell(l))))),
        None => out.push_str("(absent)\n"),
    }
    out.push_str("\n## complexity.json\n");
    match &doc["complexity"] {
        Value::Null => out.push_str("(absent)\n"),
        c if c.get("json").is_some() => {
            out.push_str(&serde_json::to_string_pretty(&c["json"]).unwrap_or_default());
            out.push('\n');
        }
        c => out.push_str(&format!(
            "warning: {}\n{}\n",
            cell(&c["warning"]),
            cell(&c["text"])
        )),
    }
    out.push_str("\n## phases (meta.json)\n");
    // The two times side by side where they fit (105 columns), else one above the other.
    let stacked = columns < 105;
    let header = [
        "#",
        "phase",
        "status",
        "started_at",
        "completed_at",
        "events say",
    ];
    let mut phases = table(&stack(stacked, 3, header));
    let phase_keys = [
        "phase",
        "name",
        "status",
        "started_at",
        "completed_at",
        "logged",
    ];
    for phase in doc["phases"].as_array().into_iter().flatten() {
        phases.add_row(stack(stacked, 3, phase_keys.map(|k| cell(&phase[k]))));
    }
    push_table(&mut out, &mut phases, columns, 1);
    out.push_str("\n## events.jsonl\n");
    // The time above the event where the two do not fit side by side.
    let event_keys = ["line", "ts", "event", "phase", "actor", "summary"];
    let mut events = table(&stack(stacked, 1, event_keys));
    for event in doc["events"].as_array().into_iter().flatten() {
        if event.get("malformed").is_some() {
            // In the summary's column, which wraps: the others keep their cells whole.
            let mut row = vec![String::new(); if stacked { 5 } else { 6 }];
            row[0] = cell(&event["line"]);
            if let Some(last) = row.last_mut() {
                *last = format!("warning: malformed line ({})", cell(&event["malformed"]));
            }
            events.add_row(row);
            continue;
        }
        events.add_row(stack(stacked, 1, event_keys.map(|k| cell(&event[k]))));
    }
    push_table(&mut out, &mut events, columns, if stacked { 4 } else { 5 });
    out.push_str("\n## decisions.jsonl\n");
    let mut decisions = table(&["gate", "decision", "source", "escalated", "ts"]);
    for decision in doc["decisions"].as_array().into_iter().flatten() {
        if decision.get("malformed").is_some() {
            decisions.add_row([format!(
                "warning: line {} is malformed",
                cell(&decision["line"])
            )]);
        } else {
            decisions.add_row(
                ["gate_id", "decision", "source", "escalated", "ts"].map(|k| cell(&decision[k])),
            );
        }
    }
    push_table(&mut out, &mut decisions, columns, 1);
    if let Some(lines) = doc["qa_report"].as_array() {
        out.push_str("\n## qa-report.md (last 20 lines)\n");
        lines
            .iter()
            .for_each(|l| out.push_str(&flowed(format!("{}\n", cell(l)))));
    }
    out
}

/// `cells` with the one at `at` above the next, in one cell, when `stacked` (a row of a table
/// too wide for the terminal side by side).
fn stack<I: IntoIterator<Item: Into<String>>>(stacked: bool, at: usize, cells: I) -> Vec<String> {
    let mut cells: Vec<String> = cells.into_iter().map(Into::into).collect();
    if stacked {
        let below = cells.remove(at + 1);
        cells[at] = format!("{}\n{below}", cells[at]);
    }
    cells
}

/// Where the runs are, from `--runs-dir` or the project root.
fn layout(ctx: &Context, args: &SdlcLayoutArgs) -> Result<Layout> {
    ucg_sdlc::layout::locate(args.runs_dir.as_deref(), ctx.project_root())
}

/// Asks a yes/no question; only the explicit answer `yes` is yes ("On anything other than an
/// explicit yes, stop"): not `y`, `Yes` or ` yes `. The line's end is not part of the answer.
fn confirmed(prompt: &str) -> Result<bool> {
    let answer = crate::output::ask(&format!("{prompt} "))?;
    Ok(answer.is_some_and(|a| a == "yes"))
}

fn repair(ctx: &Context, args: &SdlcWriteArgs) -> Result<u8> {
    let layout = layout(ctx, &args.layout)?;
    let (id, dir) = select(&layout, &args.run)?;
    let lock = ucg_store::lock_dir(&dir).map_err(|e| Error::new(e.to_string()))?;
    let loaded = load(&id, &dir, false);
    refuse_completed(&loaded)?;
    warn(&id, &loaded.warnings);
    let Some(meta) = &loaded.meta else {
        return Err(Error::new(format!(
            "run {id}: meta.json cannot be read; nothing to repair"
        )));
    };
    if loaded.log.is_none() {
        return Err(Error::new(format!(
            "run {id}: events.jsonl is missing; nothing to repair from"
        )));
    }
    // A log that does not parse whole is not half-trusted: nothing was compared.
    if !loaded.log_is_whole() {
        return Err(Error::new(format!(
            "run {id}: events.jsonl has lines that do not parse (above): nothing compared, nothing repaired"
        ))
        .hint("repair or remove those lines by hand; the log is append-only, so git-ucg does not rewrite it"));
    }
    let recon = loaded.reconstruction();
    let changes = run::repairs(meta, &recon);
    if changes.is_empty() {
        println!("{id}: meta.json agrees with events.jsonl; nothing to repair");
        return Ok(0);
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{id}: meta.json disagrees with events.jsonl (the log wins):"
    )?;
    for change in &changes {
        writeln!(out, "  {}: {} -> {}", change.field, change.from, change.to)?;
    }
    out.flush()?;
    if !args.yes
        && !confirmed("Rewrite these fields of meta.json and append status.repaired? (yes/no)")?
    {
        eprintln!("{id}: not repaired");
        return Ok(1);
    }
    let meta_path = dir.join(run::META_FILE);
    let old_bytes = loaded.meta_bytes.clone().unwrap_or_default();
    // Only the phase fields change: every other byte of meta.json stays as written.
    let repaired = std::str::from_utf8(&old_bytes)
        .ok()
        .and_then(|text| run::apply_repairs_in_place(text, &changes))
        .ok_or_else(|| {
            Error::new(format!(
                "run {id}: meta.json cannot be edited in place (its phases are not an object); nothing repaired"
            ))
        })?;
    ucg_store::write_atomic(&lock, &meta_path, repaired.as_bytes())
        .map_err(|e| Error::new(e.to_string()))?;
    let changed: serde_json::Map<String, Value> = changes
        .iter()
        .map(|c| (c.field.clone(), json!({"from": c.from, "to": c.to})))
        .collect();
    let event = ledger::event_line(
        run::text(meta, "run_id").unwrap_or(&id),
        "status.repaired",
        "meta.json phases repaired from events.jsonl",
        &[run::META_FILE],
        json!({"changed": changed}),
    );
    // The log is appended to where it resolves, and only inside the run folder.
    let appended = ucg_store::write_target(&dir, ucg_sdlc::events::EVENTS_FILE, Vec::new)
        .map_err(|e| std::io::Error::other(e.to_string()))
        .and_then(|events| ucg_store::append_line_to_existing(&events, &event));
    if let Err(e) = appended {
        eprintln!(
            "warning: {id}: meta.json was repaired but status.repaired could not be appended: {e}"
        );
        if !confirmed("Keep the repaired meta.json without its audit line? (yes/no)")? {
            ucg_store::write_atomic(&lock, &meta_path, &old_bytes)
                .map_err(|e| Error::new(e.to_string()))?;
            eprintln!("{id}: meta.json restored; nothing changed");
        }
        return Ok(1);
    }
    writeln!(
        out,
        "{id}: repaired; status.repaired appended to events.jsonl"
    )?;
    Ok(0)
}

fn resume(ctx: &Context, args: &SdlcResumeArgs) -> Result<u8> {
    let layout = layout(ctx, &args.layout)?;
    let (id, dir) = select(&layout, &args.run)?;
    let loaded = load(&id, &dir, false);
    warn(&id, &loaded.warnings);
    let Some(meta) = &loaded.meta else {
        return Err(Error::new(format!(
            "run {id}: meta.json cannot be read; nothing to resume"
        )));
    };
    let status = run::display_status(meta, Timestamp::now(), &mut Vec::new());
    if !matches!(status.as_str(), "interrupted" | "aborted") {
        return Err(Error::new(format!(
            "run {id} is {status}: only an interrupted or aborted run is resumed"
        )));
    }
    // Step 8: the work item is reconciled before a resume; that asks its own confirmation, so
    // the resume stops and names it.
    if reconcile::needed(&layout, &id, &loaded) {
        return Err(Error::new(format!(
            "run {id}: its work item disagrees with its ledgers: reconcile it before resuming"
        ))
        .hint(format!(
            "git ucg sdlc reconcile {id} (it shows the changes and asks), then resume again"
        )));
    }
    let recon = loaded.reconstruction();
    let Some(phase) = run::resume_candidate(meta, &recon, args.allow_failed) else {
        return Err(Error::new(format!("run {id}: no resume candidate"))
            .hint("a failed phase is offered with --allow-failed"));
    };
    let name = run::PHASE_NAMES[usize::from(phase)];
    let prompt = format!(
        "Resume by re-running Phase {phase} ({name})? It will overwrite that phase's outputs and continue. (yes/no)"
    );
    // An aborted run is resumed only on the answer itself.
    let yes = if args.yes && status != "aborted" {
        eprintln!("{prompt} yes (--yes)");
        true
    } else {
        confirmed(&prompt)?
    };
    if !yes {
        eprintln!("{id}: not resumed");
        return Ok(1);
    }
    let handoff = json!({
        "schema": "git-ucg.sdlc-handoff/2",
        "run_id": run::text(meta, "run_id").unwrap_or(&id),
        "to": "sdlc-pipeline",
        "mode": run::text(meta, "mode"),
        "raw_input": run::text(meta, "task_input"),
        "resume_phase": phase,
        "phase_name": name,
        "resume_hint": format!("resume at Phase {phase} ({name}): re-run the whole phase, overwriting its outputs"),
        // What a resume re-runs, beyond the phase itself (A.6.9, the pipeline's reading).
        "special": match phase {
            7 => Some("skip sub-tasks already committed; dispatch only what is missing"),
            9 => Some("regenerate the review bundle from a fresh diff"),
            10 => Some("rebuild gate-plan.json from a fresh diff"),
            _ => None,
        },
    });
    if args.layout.json.on {
        return crate::output::print_json(&handoff);
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "Handoff to sdlc-pipeline (sdlc-engine at agentic-sdlc's head; it runs the phase, git-ucg does not):"
    )?;
    // Every field said but the schema and the receiver (the line above names it).
    for (key, value) in handoff.as_object().into_iter().flatten() {
        if !value.is_null() && !matches!(key.as_str(), "schema" | "to") {
            writeln!(out, "  {key}: {}", cell(value))?;
        }
    }
    Ok(0)
}
