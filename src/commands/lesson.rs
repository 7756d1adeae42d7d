//! `git ucg lesson`: DG-Anvil's lesson ledger (docs/formats/lesson.md) — the reference's
//! files, codes and outputs, with its hazards fixed (see `crate::lesson`). Successful commands
//! print one JSON line as DG-Anvil's CLI does (or, for `query` and `audit` without `--json`, a
//! table); refusals print `{"error", "code", "details"}` on stderr and exit 1.

use crate::cli::{LessonArgs, LessonCommand};
use crate::context::Context;
use crate::error::Result;
use crate::lesson::audit::audit_doc;
use crate::lesson::ledger::{self, Paths};
use crate::lesson::record::{self, Outcome, ResetRequest};
use serde_json::Value;
use std::io::{Read, Write};
use std::path::Path;

pub fn run(_ctx: &Context, args: &LessonArgs) -> Result<u8> {
    let paths = ledger::paths(args.ledger.as_deref());
    let outcome = match &args.command {
        LessonCommand::Append { file } => append(&paths, file),
        LessonCommand::Query {
            pattern,
            limit,
            hide_superseded,
            json,
        } => return query(&paths, &pattern.join(" "), *limit, *hide_superseded, *json),
        LessonCommand::Audit { json, fix } => {
            if *fix {
                if let Err(error) = ledger::rebuild_index(&paths) {
                    eprintln!("{}", error.to_line());
                    return Ok(1);
                }
            }
            return audit(&paths, *json);
        }
        LessonCommand::Invalidate { lesson, reason } => {
            record::invalidate(&paths, lesson, reason, &mut warn)
        }
        LessonCommand::Retro {
            contract,
            criterion,
            gap_note,
            patterns,
        } => record::retro(
            &paths,
            contract,
            criterion,
            gap_note,
            patterns.as_deref(),
            &mut warn,
        ),
        LessonCommand::Reset(reset) => record::reset(
            &paths,
            &ResetRequest {
                task: &reset.task,
                state: &reset.state,
                contract: &reset.contract,
                gap: &reset.gap,
                evidence: reset.evidence.as_deref(),
                remediation: &reset.remediation,
                verify_result: reset.verify_result.as_deref(),
            },
            &mut warn,
        ),
    };
    match outcome {
        Ok(doc) => {
            let mut out = std::io::stdout().lock();
            writeln!(out, "{doc}")?;
            Ok(0)
        }
        Err(error) => {
            eprintln!("{}", error.to_line());
            Ok(1)
        }
    }
}

fn audit(paths: &Paths, as_json: bool) -> Result<u8> {
    let doc = audit_doc(paths);
    let ok = doc["ok"] == true;
    let mut out = std::io::stdout().lock();
    if as_json {
        writeln!(out, "{doc}")?;
    } else {
        writeln!(
            out,
            "{}: {} lesson(s) checked, {}",
            paths.ledger.display(),
            doc["checked"]["lessons"],
            if ok {
                "no issues".to_string()
            } else {
                format!("{} issue(s)", doc["issues"].as_array().map_or(0, Vec::len))
            }
        )?;
        for issue in doc["issues"].as_array().into_iter().flatten() {
            let field = |k: &str| {
                issue
                    .get(k)
                    .map(|v| format!(" {k}={v}"))
                    .unwrap_or_default()
            };
            writeln!(
                out,
                "  {}{}{}{}",
                issue["issue"].as_str().unwrap_or(""),
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
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| record::io_error("cannot read", Path::new("-"), e))?;
        bytes
    } else {
        std::fs::read(file).map_err(|e| record::io_error("cannot read", Path::new(file), e))?
    };
    record::append(paths, &bytes, &mut warn)
}

fn query(
    paths: &Paths,
    pattern: &str,
    limit: usize,
    hide_superseded: bool,
    as_json: bool,
) -> Result<u8> {
    let found = match crate::lesson::query::query(paths, pattern, limit, hide_superseded, &mut warn)
    {
        Ok(found) => found,
        Err(error) => {
            eprintln!("{}", error.to_line());
            return Ok(1);
        }
    };
    let mut out = std::io::stdout().lock();
    if as_json {
        let lessons = found.into_iter().map(|(_, lesson)| lesson).collect();
        writeln!(out, "{}", Value::Array(lessons))?;
        return Ok(0);
    }
    if found.is_empty() {
        writeln!(out, "no lesson matches {pattern:?}")?;
        return Ok(0);
    }
    for (score, lesson) in &found {
        let text = |k: &str| lesson[k].as_str().unwrap_or("").to_string();
        let superseded = match lesson.get("superseded_by").and_then(Value::as_array) {
            Some(by) => format!(
                "  (superseded by {})",
                by.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => String::new(),
        };
        writeln!(
            out,
            "{}  {}  score {score}{superseded}",
            text("id"),
            text("created")
        )?;
        writeln!(out, "  gap:         {}", text("contract_gap"))?;
        writeln!(out, "  remediation: {}", text("remediation"))?;
    }
    Ok(0)
}
