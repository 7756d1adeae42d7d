//! `git ucg lesson`: DG-Anvil's lesson ledger (docs/formats/lesson.md) — the reference's
//! files, argument rules, codes and outputs, with its hazards fixed (see `ucg_lesson`).
//! Successful commands print one JSON line as DG-Anvil's CLI does (or, for `query` and `audit`
//! without `--json`, a table); refusals print `{"error", "code", "details"}` on stderr and exit 1.

use crate::cli::{LessonArgs, LessonCommand, LessonRawArgs};
use crate::context::Context;
use crate::error::Result;
use std::io::Write;
use std::path::{Path, PathBuf};
use ucg_lesson::argv::{self, opt, Kind, Parsed, Schema, Stop};
use ucg_lesson::audit::audit_doc;
use ucg_lesson::entry::{details, LessonError};
use ucg_lesson::js::{JsString, JsValue};
use ucg_lesson::ledger::{self, Paths};
use ucg_lesson::record::{self, Outcome, ResetRequest};

const LEDGER: argv::Opt = opt("ledger", Kind::Str, false);

const QUERY: Schema = Schema {
    options: &[
        opt("limit", Kind::Int, false),
        opt("json", Kind::Bool, false),
        opt("hide-superseded", Kind::Bool, false),
        LEDGER,
    ],
    short: &[('l', "limit")],
};

const APPEND: Schema = Schema {
    options: &[opt("file", Kind::Str, true), LEDGER],
    short: &[],
};

const INVALIDATE: Schema = Schema {
    options: &[
        opt("lesson", Kind::Str, true),
        opt("reason", Kind::Str, true),
        LEDGER,
    ],
    short: &[],
};

const RETRO: Schema = Schema {
    options: &[
        opt("contract", Kind::Str, true),
        opt("criterion", Kind::Str, true),
        opt("gap-note", Kind::Str, true),
        opt("patterns", Kind::Str, false),
        LEDGER,
    ],
    short: &[],
};

pub(crate) fn run(_ctx: &Context, args: &LessonArgs) -> Result<u8> {
    let Some(command) = &args.command else {
        return Ok(refuse(&LessonError::new(
            "E_NOT_IMPLEMENTED",
            "ledger not implemented",
            details([
                ("stage", Some(JsValue::Number(3.0))),
                ("subcommand", Some(JsValue::str("ledger"))),
            ]),
        )));
    };
    let words = |raw: &LessonRawArgs| -> Vec<String> {
        raw.args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    };
    // A subcommand read through its schema: `then` runs on its ledger and flags, unless they ask
    // for its help or are refused.
    let with = |raw, schema, name, then: &dyn Fn(&Paths, &Parsed) -> Result<u8>| {
        let parsed = match argv::parse(&words(raw), schema) {
            Ok(parsed) => parsed,
            Err(Stop::Help) => return help(name),
            Err(Stop::Refused(error)) => return Ok(refuse(&error)),
        };
        let ledger = parsed.string("ledger").map(Path::new);
        then(&ledger::paths(ledger.or(args.ledger.as_deref())), &parsed)
    };
    match command {
        LessonCommand::Append(raw) => with(raw, &APPEND, "append", &|paths, parsed| {
            print_outcome(append(paths, parsed.string("file").unwrap_or("")))
        }),
        LessonCommand::Query(raw) => with(raw, &QUERY, "query", &|paths, parsed| {
            query(
                paths,
                parsed.positional.first().map_or("", String::as_str),
                parsed.int("limit").unwrap_or(5.0),
                parsed.flag("hide-superseded"),
                parsed.flag("json"),
            )
        }),
        LessonCommand::Audit(raw) => {
            // The reference's audit reads no flags: git-ucg's own are picked out, the rest ignored.
            let words = words(raw);
            if words.iter().any(|w| w == "--help" || w == "-h") {
                return help("audit");
            }
            let mut ledger_flag: Option<PathBuf> = args.ledger.clone();
            for (i, w) in words.iter().enumerate() {
                if let Some(path) = w.strip_prefix("--ledger=") {
                    ledger_flag = Some(PathBuf::from(path));
                } else if w == "--ledger" {
                    if let Some(path) = words.get(i + 1) {
                        ledger_flag = Some(PathBuf::from(path));
                    }
                }
            }
            let paths = ledger::paths(ledger_flag.as_deref());
            if words.iter().any(|w| w == "--fix") {
                if let Err(error) = ledger::rebuild_index(&paths) {
                    return Ok(refuse(&error));
                }
            }
            audit(&paths, words.iter().any(|w| w == "--json"))
        }
        LessonCommand::Invalidate(raw) => with(raw, &INVALIDATE, "invalidate", &|paths, parsed| {
            print_outcome(record::invalidate(
                paths,
                parsed.string("lesson").unwrap_or(""),
                parsed.string("reason").unwrap_or(""),
                &mut warn,
            ))
        }),
        LessonCommand::Retro(raw) => with(raw, &RETRO, "retro", &|paths, parsed| {
            print_outcome(record::retro(
                paths,
                Path::new(parsed.string("contract").unwrap_or("")),
                parsed.string("criterion").unwrap_or(""),
                parsed.string("gap-note").unwrap_or(""),
                parsed.string("patterns"),
                &mut warn,
            ))
        }),
        LessonCommand::Reset(reset) => {
            let outcome = record::reset(
                &ledger::paths(reset.ledger.as_deref().or(args.ledger.as_deref())),
                &ResetRequest {
                    task: &reset.task,
                    state: &reset.state,
                    contract: &reset.contract,
                    gap: &reset.gap,
                    evidence: reset.evidence.as_deref(),
                    remediation: &reset.remediation,
                    verify_result: reset.verify_result.as_deref(),
                    court_result: reset.court_result.as_deref(),
                    criterion: reset.criterion.as_deref(),
                    pattern: &reset.pattern,
                },
                &mut warn,
            );
            // A sentence for a person; the JSON result, below, for `--json`.
            if let (Ok(doc), false) = (&outcome, reset.json.on) {
                crate::output::print(reset_said(reset, doc))?;
                return Ok(0);
            }
            print_outcome(outcome)
        }
        LessonCommand::Escalated(list) => {
            let paths = ledger::paths(list.ledger.as_deref().or(args.ledger.as_deref()));
            match record::escalated(&paths, &list.state, &mut warn) {
                Ok(tasks) => show_escalated(&list.state, &tasks, list.json.on),
                Err(error) => Ok(refuse(&error)),
            }
        }
        LessonCommand::Other(words) => {
            let name = words
                .first()
                .map(|w| w.to_string_lossy().into_owned())
                .unwrap_or_default();
            print_outcome(Err(LessonError::new(
                "E_UNKNOWN_SUBCOMMAND",
                format!("unknown ledger sub-subcommand: {name}"),
                details([
                    ("subcommand", Some(JsValue::str("ledger"))),
                    ("received", Some(JsValue::str(&name))),
                ]),
            )))
        }
    }
}

/// A command's result: its JSON line on stdout, or its refusal.
fn print_outcome(outcome: Outcome) -> Result<u8> {
    match outcome {
        Ok(doc) => {
            crate::output::print(format!("{}\n", doc.to_json_string()))?;
            Ok(0)
        }
        Err(error) => Ok(refuse(&error)),
    }
}

/// The refusal line on stderr; exit 1.
fn refuse(error: &LessonError) -> u8 {
    eprintln!("{}", error.to_line());
    1
}

/// A subcommand's help, as clap renders it.
fn help(name: &str) -> Result<u8> {
    let mut command = crate::cli::command_for_columns(crate::output::columns());
    let text = command
        .find_subcommand_mut("lesson")
        .and_then(|lesson| lesson.find_subcommand_mut(name))
        .map(|sub| sub.render_long_help().to_string())
        .unwrap_or_default();
    crate::output::print(text)?;
    Ok(0)
}

fn audit(paths: &Paths, as_json: bool) -> Result<u8> {
    let doc = audit_doc(paths);
    let ok = matches!(doc.get("ok"), Some(JsValue::Bool(true)));
    let mut out = std::io::stdout().lock();
    if as_json {
        writeln!(out, "{}", doc.to_json_string())?;
    } else {
        let issues = match doc.get("issues") {
            Some(JsValue::Array(issues)) => issues.as_slice(),
            _ => &[],
        };
        let checked = doc
            .get("checked")
            .and_then(|c| c.get("lessons"))
            .map(|n| n.to_js_string().to_lossy().into_owned())
            .unwrap_or_default();
        writeln!(
            out,
            "{}: {checked} lesson(s) checked, {}",
            paths.ledger.display(),
            if ok {
                "no issues".to_string()
            } else {
                format!("{} issue(s)", issues.len())
            }
        )?;
        for issue in issues {
            let field = |k: &str| {
                issue
                    .get(k)
                    .map(|v| format!(" {k}={}", v.to_json_string()))
                    .unwrap_or_default()
            };
            writeln!(
                out,
                "  {}{}{}{}",
                issue
                    .get("issue")
                    .map(|v| v.to_js_string().to_lossy().into_owned())
                    .unwrap_or_default(),
                field("line"),
                field("id"),
                field("details")
            )?;
        }
    }
    Ok(u8::from(!ok))
}

/// Warnings for the operator, on stderr as they come.
fn warn(warning: String) {
    eprintln!("{warning}");
}

fn append(paths: &Paths, file: &str) -> Outcome {
    let bytes = if file == "-" {
        crate::output::stdin_bytes()
            .map_err(|e| record::io_error("cannot read", Path::new("-"), e))?
    } else {
        std::fs::read(file).map_err(|e| record::node_read_error(Path::new(file), &e))?
    };
    record::append(paths, &bytes, &mut warn)
}

fn query(
    paths: &Paths,
    pattern: &str,
    limit: f64,
    hide_superseded: bool,
    as_json: bool,
) -> Result<u8> {
    // For people, a missing ledger is not "no match": say where it looked. `--json` keeps the
    // reference's answer (`[]`).
    if !as_json && std::fs::symlink_metadata(&paths.ledger).is_err() {
        crate::output::say(&format!(
            "no lesson ledger at {} (point at one with --ledger PATH or ANVIL_LEDGER)\n",
            paths.ledger.display()
        ));
        return Ok(1);
    }
    let found = match ucg_lesson::query::query(
        paths,
        &JsString::from(pattern),
        limit,
        hide_superseded,
        &mut warn,
    ) {
        Ok(found) => found,
        Err(error) => return Ok(refuse(&error)),
    };
    if as_json {
        let lessons = found.into_iter().map(|(_, lesson)| lesson).collect();
        crate::output::print(format!("{}\n", JsValue::Array(lessons).to_json_string()))?;
        return Ok(0);
    }
    // For a person: laid out in the terminal's columns, with what the ledger holds escaped.
    let mut out = String::new();
    if found.is_empty() {
        out = format!("no lesson matches {pattern:?}\n");
    }
    for (score, lesson) in &found {
        let text = |k: &str| match lesson.get(k) {
            Some(JsValue::String(s)) => s.to_lossy().into_owned(),
            _ => String::new(),
        };
        let superseded = match lesson.get("superseded_by") {
            Some(JsValue::Array(by)) => format!(
                "  (superseded by {})",
                by.iter()
                    .filter_map(JsValue::as_js_str)
                    .map(|s| s.to_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            _ => String::new(),
        };
        out.push_str(&format!(
            "{}  {}  score {score}{superseded}\n",
            text("id"),
            text("created")
        ));
        out.push_str(&format!("  gap:          {}\n", text("contract_gap")));
        out.push_str(&format!("  remediation:  {}\n", text("remediation")));
    }
    crate::output::print_prose(&crate::render::visible::escape_controls(&out, &[]))?;
    Ok(0)
}

/// `lesson escalated`: the escalated tasks, for a person or (`--json`) a script.
fn show_escalated(state: &Path, tasks: &[record::Escalated], json: bool) -> Result<u8> {
    if json {
        let doc = serde_json::json!({
            "schema": "git-ucg.lesson-escalated/1",
            "state": state.to_string_lossy(),
            "escalated": tasks,
            "options": record::ESCALATION_OPTIONS,
        });
        crate::output::print(format!("{doc}\n"))?;
        return Ok(0);
    }
    let mut out = String::new();
    if tasks.is_empty() {
        out.push_str(&format!("No escalated task in {}.\n", state.display()));
    } else {
        out.push_str(&format!(
            "Escalated, waiting on you ({}): {}\n",
            state.display(),
            tasks.len()
        ));
        for task in tasks {
            let last = task.last_lesson_id.as_deref().unwrap_or("none");
            out.push_str(&format!(
                "\n  {}  loop {} of {}  last lesson {last}\n",
                task.task, task.loop_count, task.loop_cap
            ));
            for (label, text) in [
                ("gap:         ", &task.contract_gap),
                ("remediation: ", &task.remediation),
            ] {
                if let Some(text) = text {
                    out.push_str(&format!("    {label} {text}\n"));
                }
            }
        }
        out.push_str(&format!(
            "\nOptions: {}.\n",
            record::ESCALATION_OPTIONS.join(", ")
        ));
    }
    crate::output::print_prose(&crate::render::visible::escape_controls(&out, &[]))?;
    Ok(0)
}

/// What a reset did, for a person: the lesson appended and the task queued again, or the task
/// escalated at its cap.
fn reset_said(reset: &crate::cli::LessonResetArgs, doc: &JsValue) -> String {
    let text = |key: &str| match doc.get(key) {
        Some(JsValue::String(s)) => s.to_lossy().into_owned(),
        Some(JsValue::Number(n)) => ucg_lesson::js::number_to_string(*n),
        _ => String::new(),
    };
    let said = match doc.get("appended") {
        Some(JsValue::Bool(true)) => format!(
            "Lesson {} appended; task {} queued again (loop {}). Its remediation is now a \
             counter-example in {}.",
            text("id"),
            reset.task,
            text("loop_count"),
            reset.contract.display()
        ),
        _ => format!(
            "Task {} escalated at its loop cap (loop {}): nothing appended. `git ucg lesson \
             escalated --state {}` shows it and the options.",
            reset.task,
            text("loop_count"),
            reset.state.display()
        ),
    };
    let said = crate::render::visible::escape_controls(&said, &[]);
    crate::render::fit::reflow(&format!("{said}\n"), crate::output::columns())
}
