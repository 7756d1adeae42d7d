//! `git ucg sdlc`: agentic-sdlc heavy-pipeline runs (formats/sdlc-anvil.md part A). Listing,
//! status and the catalog never write; `repair` and `reconcile` ask first (forward sync of a
//! successful adapter receipt excepted), write snapshots atomically under the run directory's lock
//! and append — never rewrite — the ledgers; a completed run is never written; `resume` asks and
//! prints the handoff, and never runs a phase.

use crate::cli::{
    SdlcCommand, SdlcLayoutArgs, SdlcListArgs, SdlcResumeArgs, SdlcRunArgs, SdlcWriteArgs,
};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::sdlc::events::{self, Line, Log};
use crate::sdlc::run::{self, Change, Meta, Reconstruction};
use crate::sdlc::{ledger, workitem};
use crate::store;
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};

pub fn run(ctx: &Context, command: &SdlcCommand) -> Result<u8> {
    match command {
        SdlcCommand::List(args) => list(ctx, args),
        SdlcCommand::Status(args) => status(ctx, args),
        SdlcCommand::Show(args) => show(ctx, args),
        SdlcCommand::Repair(args) => repair(ctx, args),
        SdlcCommand::Reconcile(args) => workitem::run_reconcile(ctx, args),
        SdlcCommand::Resume(args) => resume(ctx, args),
    }
}

/// Where the runs and the canonical work items live.
pub struct Layout {
    pub runs: PathBuf,
    pub work_items: PathBuf,
    pub project_root: PathBuf,
}

pub fn layout(ctx: &Context, args: &SdlcLayoutArgs) -> Result<Layout> {
    let (runs, project_root) = match &args.runs_dir {
        Some(dir) => {
            let runs = std::path::absolute(dir)?;
            let root = ctx
                .project_root()
                .ok()
                .or_else(|| runs.ancestors().nth(3).map(Path::to_path_buf))
                .unwrap_or_else(|| runs.clone());
            (runs, root)
        }
        None => {
            let root = ctx.project_root()?;
            (root.join("docs/superpowers/runs"), root)
        }
    };
    let work_items = runs
        .parent()
        .map_or_else(|| runs.join("work-items"), |p| p.join("work-items"));
    Ok(Layout {
        runs,
        work_items,
        project_root,
    })
}

/// The run directories, newest first: by name (run ids start with `YYYYMMDD-HHMM`), or by
/// `meta.json`'s modification time.
pub fn run_dirs(runs: &Path, by_mtime: bool) -> Result<Vec<(String, PathBuf)>> {
    let entries = match std::fs::read_dir(runs) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::new(format!("cannot read {}: {e}", runs.display()))),
    };
    let mut dirs: Vec<(String, PathBuf)> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .collect();
    dirs.sort_by(|a, b| b.0.cmp(&a.0));
    if by_mtime {
        let mtime = |dir: &Path| {
            std::fs::metadata(dir.join("meta.json"))
                .and_then(|m| m.modified())
                .ok()
        };
        dirs.sort_by_cached_key(|(_, dir)| std::cmp::Reverse(mtime(dir)));
    }
    Ok(dirs)
}

/// `latest` (the newest by name) or a run directory by its name.
pub fn select(layout: &Layout, run: &str) -> Result<(String, PathBuf)> {
    if run == "latest" {
        return run_dirs(&layout.runs, false)?
            .into_iter()
            .next()
            .ok_or_else(|| Error::new(format!("no runs in {}", layout.runs.display())));
    }
    let dir = layout.runs.join(run);
    if run.is_empty() || run.contains('/') || run == "." || run == ".." || !dir.is_dir() {
        return Err(
            Error::new(format!("no run {run:?} in {}", layout.runs.display()))
                .hint("`git ucg sdlc list` shows the runs"),
        );
    }
    Ok((run.to_string(), dir))
}

/// A run as read: the snapshot, the log, and what could not be read.
pub struct Loaded {
    pub id: String,
    pub dir: PathBuf,
    pub meta: Option<Meta>,
    pub meta_bytes: Option<Vec<u8>>,
    pub log: Option<Log>,
    pub warnings: Vec<String>,
}

/// Reads a run; with `phase_lines_only`, only the log lines that could be phase events are parsed
/// (what the status line needs), and malformed lines are not reported.
pub fn load(id: &str, dir: &Path, phase_lines_only: bool) -> Loaded {
    let mut warnings = Vec::new();
    let meta_bytes = match std::fs::read(dir.join("meta.json")) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            warnings.push("meta.json is missing".to_string());
            None
        }
        Err(e) => {
            warnings.push(format!("meta.json cannot be read: {e}"));
            None
        }
    };
    let meta = meta_bytes
        .as_deref()
        .and_then(|bytes| match serde_json::from_slice(bytes) {
            Ok(Value::Object(meta)) => Some(meta),
            Ok(_) => {
                warnings.push("meta.json is not a JSON object".into());
                None
            }
            Err(e) => {
                warnings.push(format!("meta.json is not JSON ({e})"));
                None
            }
        });
    let log = match std::fs::read(dir.join("events.jsonl")) {
        Ok(bytes) if phase_lines_only => {
            Some(events::parse_filtered(&bytes, events::may_be_phase_event))
        }
        Ok(bytes) => Some(events::parse(&bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            warnings.push("events.jsonl is missing: meta.json alone is shown".into());
            None
        }
        Err(e) => {
            warnings.push(format!("events.jsonl cannot be read: {e}"));
            None
        }
    };
    if let Some(log) = &log {
        if !phase_lines_only {
            for malformed in log.malformed() {
                warnings.push(format!("events.jsonl {malformed}"));
            }
        }
        if !log.malformed().is_empty() {
            warnings.push(
                "events.jsonl does not parse whole: the phases are read from meta.json alone"
                    .into(),
            );
        }
        if log.torn_tail {
            warnings.push(
                "events.jsonl ends without a newline: its last line is torn (left as it is)".into(),
            );
        }
    }
    Loaded {
        id: id.to_string(),
        dir: dir.to_path_buf(),
        meta,
        meta_bytes,
        log,
        warnings,
    }
}

impl Loaded {
    /// The phases as the log has them — only from a log that parses whole: a log with lines that
    /// do not parse is not half-trusted (A.6.2), the snapshot stands alone.
    pub fn reconstruction(&self) -> Reconstruction {
        match &self.log {
            Some(log) if self.log_is_whole() => run::reconstruct(log.events()),
            _ => Reconstruction::default(),
        }
    }

    /// The log is present and every line of it parses.
    pub fn log_is_whole(&self) -> bool {
        self.log.as_ref().is_some_and(|log| {
            log.lines
                .iter()
                .all(|(_, line)| matches!(line, Line::Event(_)))
        })
    }

    pub fn meta_or_empty(&self) -> Meta {
        self.meta.clone().unwrap_or_default()
    }

    pub fn stored_status(&self) -> Option<&str> {
        self.meta.as_ref().and_then(|m| run::text(m, "status"))
    }
}

/// The status line and what stands behind it.
pub struct Summary {
    pub line: String,
    pub doc: Value,
    pub warnings: Vec<String>,
}

pub fn summarize(loaded: &Loaded, now: jiff::Timestamp) -> Summary {
    let mut warnings = loaded.warnings.clone();
    let meta = loaded.meta_or_empty();
    let recon = loaded.reconstruction();
    warnings.extend(recon.warnings.iter().map(|w| format!("events.jsonl: {w}")));
    let status = match &loaded.meta {
        Some(meta) => run::display_status(meta, now, &mut warnings),
        None => "unknown".into(),
    };
    let phase = run::shown_phase(&meta, &recon);
    let changes = run::repairs(&meta, &recon);
    if loaded.meta.is_some() && !changes.is_empty() {
        warnings.push(format!(
            "meta.json is stale against events.jsonl ({}): `git ucg sdlc repair {}`",
            describe(&changes),
            loaded.id
        ));
    }
    let run_id = run::text(&meta, "run_id").unwrap_or(&loaded.id).to_string();
    let line = run::status_line(&run_id, &meta, phase, &status);
    let doc = json!({
        "run_id": run_id,
        "dir": loaded.dir.to_string_lossy(),
        "mode": run::text(&meta, "mode"),
        "phase": phase,
        "status": status,
        "stored_status": loaded.stored_status(),
        "branch": run::text(&meta, "branch"),
        "line": line,
        "warnings": warnings,
    });
    Summary {
        line,
        doc,
        warnings,
    }
}

fn describe(changes: &[Change]) -> String {
    changes
        .iter()
        .map(|c| format!("{} {} -> {}", c.field, c.from, c.to))
        .collect::<Vec<_>>()
        .join(", ")
}

fn list(ctx: &Context, args: &SdlcListArgs) -> Result<u8> {
    let layout = layout(ctx, &args.layout)?;
    let dirs = run_dirs(&layout.runs, args.by_mtime)?;
    let now = jiff::Timestamp::now();
    // Each run is read on its own: split the list over the cores.
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    let chunk = dirs.len().div_ceil(workers).max(1);
    let summaries: Vec<Summary> = std::thread::scope(|scope| {
        let handles: Vec<_> = dirs
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|(id, dir)| summarize(&load(id, dir, true), now))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    if args.layout.json {
        let runs: Vec<Value> = summaries.into_iter().map(|s| s.doc).collect();
        return super::print_json(&json!({"schema": "git-ucg.sdlc-runs/1", "runs": runs}));
    }
    let mut out = std::io::stdout().lock();
    for summary in &summaries {
        writeln!(out, "{}", summary.line)?;
    }
    Ok(0)
}

fn warn(run: &str, warnings: &[String]) {
    for warning in warnings {
        eprintln!("warning: {run}: {warning}");
    }
}

fn status(ctx: &Context, args: &SdlcRunArgs) -> Result<u8> {
    let layout = layout(ctx, &args.layout)?;
    let (id, dir) = select(&layout, &args.run)?;
    let summary = summarize(&load(&id, &dir, false), jiff::Timestamp::now());
    if args.layout.json {
        let mut doc = summary.doc;
        doc["schema"] = "git-ucg.sdlc-status/1".into();
        return super::print_json(&doc);
    }
    warn(&id, &summary.warnings);
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", summary.line)?;
    Ok(0)
}

/// The first or last `n` lines of a text file.
fn lines_of(path: &Path, n: usize, last: bool) -> Option<Vec<String>> {
    let bytes = std::fs::read(path).ok()?;
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
    let summary = summarize(&loaded, jiff::Timestamp::now());
    let doc = catalog(&loaded, &summary);
    if args.layout.json {
        return super::print_json(&doc);
    }
    let mut out = ctx.paged_output();
    out.write_all(render_catalog(&doc).as_bytes())?;
    out.finish()?;
    Ok(0)
}

/// The catalog (A.6.11), in its fixed order, as one document.
fn catalog(loaded: &Loaded, summary: &Summary) -> Value {
    let dir = &loaded.dir;
    let meta = loaded.meta_or_empty();
    let recon = loaded.reconstruction();
    let complexity = std::fs::read(dir.join("complexity.json")).ok().map(|bytes| {
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(value) => json!({"json": value}),
            Err(e) => json!({"text": String::from_utf8_lossy(&bytes), "warning": format!("not JSON ({e})")}),
        }
    });
    let phases: Vec<Value> = (0..=12u8)
        .map(|n| {
            let stored = run::meta_phase(&meta, n);
            let field = |key: &str| {
                stored
                    .and_then(|p| p.get(key))
                    .cloned()
                    .unwrap_or(Value::Null)
            };
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
    let decisions: Vec<Value> = std::fs::read(dir.join("decisions.jsonl"))
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

fn table(header: &[&str]) -> comfy_table::Table {
    let mut table = comfy_table::Table::new();
    table.load_style(comfy_table::presets::NOTHING);
    table.set_header(header.to_vec());
    table
}

fn cell(value: &Value) -> String {
    match value {
        Value::Null => "-".into(),
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn push_table(out: &mut String, table: &comfy_table::Table) {
    if table.row_count() == 0 {
        out.push_str("(none)\n");
        return;
    }
    for line in table.to_string().lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
}

/// The catalog for people.
fn render_catalog(doc: &Value) -> String {
    let mut out = format!("{}\n", cell(&doc["status"]["line"]));
    for warning in doc["status"]["warnings"].as_array().into_iter().flatten() {
        out.push_str(&format!("warning: {}\n", cell(warning)));
    }
    out.push_str("\n## requirements.md (first 10 lines)\n");
    match doc["requirements"].as_array() {
        Some(lines) => lines
            .iter()
            .for_each(|l| out.push_str(&format!("{}\n", cell(l)))),
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
    let mut phases = table(&[
        "#",
        "phase",
        "status",
        "started_at",
        "completed_at",
        "events say",
    ]);
    for phase in doc["phases"].as_array().into_iter().flatten() {
        phases.add_row(
            [
                "phase",
                "name",
                "status",
                "started_at",
                "completed_at",
                "logged",
            ]
            .map(|k| cell(&phase[k])),
        );
    }
    push_table(&mut out, &phases);
    out.push_str("\n## events.jsonl\n");
    let mut events = table(&["line", "ts", "event", "phase", "actor", "summary"]);
    for event in doc["events"].as_array().into_iter().flatten() {
        if event.get("malformed").is_some() {
            events.add_row([
                cell(&event["line"]),
                format!("warning: malformed line ({})", cell(&event["malformed"])),
            ]);
        } else {
            events.add_row(
                ["line", "ts", "event", "phase", "actor", "summary"].map(|k| cell(&event[k])),
            );
        }
    }
    push_table(&mut out, &events);
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
    push_table(&mut out, &decisions);
    if let Some(lines) = doc["qa_report"].as_array() {
        out.push_str("\n## qa-report.md (last 20 lines)\n");
        lines
            .iter()
            .for_each(|l| out.push_str(&format!("{}\n", cell(l))));
    }
    out
}

/// Asks a yes/no question; only an explicit `yes` (or `y`) is yes.
pub fn confirmed(prompt: &str) -> Result<bool> {
    let answer = crate::output::ask(&format!("{prompt} "))?;
    Ok(answer.is_some_and(|a| matches!(a.trim().to_ascii_lowercase().as_str(), "yes" | "y")))
}

/// A completed run is never written, whatever the flags.
pub fn refuse_completed(loaded: &Loaded) -> Result<()> {
    if loaded.stored_status() == Some("completed") {
        return Err(Error::new(format!(
            "run {} is completed: completed runs are never written",
            loaded.id
        )));
    }
    Ok(())
}

fn repair(ctx: &Context, args: &SdlcWriteArgs) -> Result<u8> {
    let layout = layout(ctx, &args.layout)?;
    let (id, dir) = select(&layout, &args.run)?;
    let lock = store::lock_dir(&dir).map_err(|e| Error::new(e.to_string()))?;
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
    let repaired = run::apply_repairs(meta, &changes);
    let meta_path = dir.join("meta.json");
    let old_bytes = loaded.meta_bytes.clone().unwrap_or_default();
    store::write_atomic(&lock, &meta_path, &json_bytes(&repaired))
        .map_err(|e| Error::new(e.to_string()))?;
    let changed: serde_json::Map<String, Value> = changes
        .iter()
        .map(|c| (c.field.clone(), json!({"from": c.from, "to": c.to})))
        .collect();
    let event = ledger::event_line(
        run::text(meta, "run_id").unwrap_or(&id),
        "status.repaired",
        "meta.json phases repaired from events.jsonl",
        &["meta.json"],
        json!({"changed": changed}),
    );
    if let Err(e) = ledger::append(&dir.join("events.jsonl"), &event) {
        eprintln!(
            "warning: {id}: meta.json was repaired but status.repaired could not be appended: {e}"
        );
        if !confirmed("Keep the repaired meta.json without its audit line? (yes/no)")? {
            store::write_atomic(&lock, &meta_path, &old_bytes)
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

/// A rewritten snapshot: two-space JSON and a final newline, key order kept.
pub fn json_bytes(doc: &serde_json::Map<String, Value>) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(doc).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// What a resume re-runs, beyond the phase itself (A.6.9, the pipeline's reading).
fn special_behaviour(phase: u8) -> Option<&'static str> {
    match phase {
        7 => Some("skip sub-tasks already committed; dispatch only what is missing"),
        9 => Some("regenerate the review bundle from a fresh diff"),
        10 => Some("rebuild gate-plan.json from a fresh diff"),
        _ => None,
    }
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
    let status = run::display_status(meta, jiff::Timestamp::now(), &mut Vec::new());
    match status.as_str() {
        "interrupted" | "aborted" => {}
        other => {
            return Err(Error::new(format!(
                "run {id} is {other}: only an interrupted or aborted run is resumed"
            )))
        }
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
        "schema": "git-ucg.sdlc-handoff/1",
        "run_id": run::text(meta, "run_id").unwrap_or(&id),
        "to": "sdlc-engine",
        "mode": run::text(meta, "mode"),
        "raw_input": run::text(meta, "task_input"),
        "resume_phase": phase,
        "phase_name": name,
        "resume_hint": format!("resume at Phase {phase} ({name}): re-run the whole phase, overwriting its outputs"),
        "special": special_behaviour(phase),
    });
    if args.layout.json {
        return super::print_json(&handoff);
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "Handoff to sdlc-engine (the pipeline runs the phase; git-ucg does not):"
    )?;
    for key in [
        "run_id",
        "mode",
        "raw_input",
        "resume_phase",
        "phase_name",
        "resume_hint",
        "special",
    ] {
        if !handoff[key].is_null() {
            writeln!(out, "  {key}: {}", cell(&handoff[key]))?;
        }
    }
    Ok(0)
}
