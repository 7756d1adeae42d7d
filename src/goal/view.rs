//! The operator's reads of a pursuit: `goal current` (the derived current story, §4.1) and
//! `goal show` (everything at a glance). Neither writes anything.

use super::review::{self, Verdicts};
use super::session::{Read, Session};
use super::state::{self, State};
use super::{liveness, stories};
use crate::context::Context;
use crate::error::{Error, Result};
use serde_json::{json, Value};
use std::io::Write;

/// The current story: the first confirmed story, in stored order, without an APPROVE verdict.
/// (1-based index among the confirmed stories, their count.)
pub fn current<'s>(
    state: &'s State,
    verdicts: Option<&Verdicts>,
) -> (Option<&'s Value>, usize, usize) {
    let confirmed: Vec<&Value> = stories::list(state)
        .iter()
        .filter(|s| stories::status(s) == "confirmed")
        .collect();
    let approved =
        |story: &Value| verdicts.and_then(|v| v.of(stories::id(story))) == Some("APPROVE");
    match confirmed.iter().position(|s| !approved(s)) {
        Some(at) => (Some(confirmed[at]), at + 1, confirmed.len()),
        None => (None, 0, confirmed.len()),
    }
}

fn read(session: &Session) -> Result<Option<State>> {
    match session.read() {
        Read::Parsed(state) => Ok(Some(state)),
        Read::Absent => Ok(None),
        Read::Corrupt(message) => Err(Error::new(message)),
    }
}

fn verdicts_of(session: &Session) -> Option<Verdicts> {
    review::verdicts(std::fs::read(session.verdict_file()).ok().as_deref())
}

pub fn run_current(session: &Session, as_json: bool) -> Result<u8> {
    let state = read(session)?.unwrap_or_default();
    let verdicts = verdicts_of(session);
    let (story, index, total) = current(&state, verdicts.as_ref());
    let field = |key: &str| {
        story
            .and_then(|s| s.get(key))
            .cloned()
            .unwrap_or(Value::Null)
    };
    if as_json {
        return crate::commands::print_json(&json!({
            "schema": "git-ucg.goal-current/1",
            "id": story.map(stories::id),
            "story": field("story"),
            "acceptance_criteria": field("acceptance_criteria"),
            "verification_surface": field("verification_surface"),
            "index": story.map(|_| index),
            "total": total,
        }));
    }
    let mut out = std::io::stdout().lock();
    match story {
        Some(story) => {
            writeln!(
                out,
                "{} ({index}/{total}): {}",
                stories::id(story),
                text(&field("story"))
            )?;
            for criterion in field("acceptance_criteria")
                .as_array()
                .into_iter()
                .flatten()
            {
                writeln!(out, "  - {}", text(criterion))?;
            }
            writeln!(out, "  verify: {}", text(&field("verification_surface")))?;
        }
        None if total > 0 => writeln!(
            out,
            "every confirmed story is approved ({total}/{total}): the final code review is next"
        )?,
        None => writeln!(out, "no confirmed stories")?,
    }
    Ok(0)
}

fn text(value: &Value) -> &str {
    value.as_str().unwrap_or("")
}

/// Everything `goal show` says, as one JSON document (schema git-ucg.goal-show/1).
pub fn show_doc(session: &Session, state: Option<&State>, now: jiff::Timestamp) -> Value {
    let Some(state) = state else {
        return json!({"schema": "git-ucg.goal-show/1", "session": session.sid,
            "state_file": session.state_file().to_string_lossy(), "phase": "absent"});
    };
    let verdicts = verdicts_of(session);
    let (current_story, _, _) = current(state, verdicts.as_ref());
    let current_id = current_story.map(stories::id);
    let story_rows: Vec<Value> = stories::list(state)
        .iter()
        .map(|s| {
            json!({
                "id": stories::id(s),
                "status": stories::status(s),
                "story": s.get("story").and_then(Value::as_str).unwrap_or(""),
                "verdict": verdicts.as_ref().and_then(|v| v.of(stories::id(s))),
                "current": Some(stories::id(s)) == current_id,
            })
        })
        .collect();
    let review_bytes = std::fs::read(session.codereview_file()).ok();
    let code_review = review::code_review(review_bytes.as_deref());
    let dismissals = super::phase::dismissals(state);
    let review_status = match (&review_bytes, &code_review) {
        (None, _) => "absent",
        (Some(_), None) => "invalid",
        (Some(_), Some(r)) if !r.complete => "inconclusive",
        (Some(_), Some(r)) if r.completion_eligible(&dismissals) => "eligible",
        _ => "blocking",
    };
    let touched = liveness::touched(state);
    let progress = liveness::progress_touched(state);
    json!({
        "schema": "git-ucg.goal-show/1",
        "session": session.sid,
        "state_file": session.state_file().to_string_lossy(),
        "phase": state::phase(state),
        "active": state::is_active(state),
        "pristine": super::is_pristine(state),
        "outcome": state::text(state, "outcome"),
        "iteration": state::iteration(state),
        "max_iterations": state::max_iterations(state),
        "objective_verdict": state::text(state, "objective_verdict"),
        "current": current_id,
        "stories": story_rows,
        "completion_evidence_paths": state.get("completion_evidence_paths").cloned().unwrap_or(json!([])),
        "review": {
            "artifact": review_status,
            "blocking": code_review.as_ref().map(|r| r.open_blocks(&dismissals).count()),
            "dispatch_used": state::int_at_least(state.get("review_dispatch_used"), 0).unwrap_or(0),
            "dispatch_cap": state::int_at_least(state.get("review_dispatch_cap"), 0).unwrap_or(state::REVIEW_DISPATCH_GRANT),
            "dismissed": dismissals.len(),
        },
        "liveness": {
            "last_touched_at": state.get("last_touched_at"),
            "idle_secs": touched.map(|t| liveness::idle_secs(t, now)),
            "progress_idle_secs": progress.map(|t| liveness::idle_secs(t, now)),
            "live": liveness::is_live(state, touched, now),
        },
    })
}

pub fn run_show(ctx: &Context, session: &Session, as_json: bool) -> Result<u8> {
    let state = read(session)?;
    let doc = show_doc(session, state.as_ref(), jiff::Timestamp::now());
    if as_json {
        return crate::commands::print_json(&doc);
    }
    let mut out = ctx.paged_output();
    out.write_all(render(&doc).as_bytes())?;
    out.finish()?;
    Ok(0)
}

/// The human form of `show_doc`.
pub fn render(doc: &Value) -> String {
    let s = |v: &Value| match v {
        Value::String(text) => text.clone(),
        Value::Null => "-".into(),
        other => other.to_string(),
    };
    let mut out = format!("ultragoal session {}\n", s(&doc["session"]));
    if doc["phase"] == "absent" {
        out.push_str(&format!(
            "  no state ({} is absent)\n",
            s(&doc["state_file"])
        ));
        return out;
    }
    let liveness = &doc["liveness"];
    out.push_str(&format!(
        "  phase        {}{}{}\n  outcome      {}\n  no-progress  {}/{}\n  verdict      {}\n",
        s(&doc["phase"]),
        if doc["active"] == true {
            " (active)"
        } else {
            " (inactive)"
        },
        if doc["pristine"] == true {
            ", pristine"
        } else {
            ""
        },
        s(&doc["outcome"]),
        s(&doc["iteration"]),
        s(&doc["max_iterations"]),
        s(&doc["objective_verdict"]),
    ));
    out.push_str(&format!(
        "  touched      {} ({}s idle, {})\n",
        s(&liveness["last_touched_at"]),
        s(&liveness["idle_secs"]),
        if liveness["live"] == true {
            "live"
        } else {
            "past its TTL"
        },
    ));
    let stories = doc["stories"].as_array().cloned().unwrap_or_default();
    out.push_str(&format!("\nstories ({})\n", stories.len()));
    for story in &stories {
        out.push_str(&format!(
            "  {} {:<8} {:<12} {:<16} {}\n",
            if story["current"] == true { "▶" } else { " " },
            s(&story["id"]),
            s(&story["status"]),
            s(&story["verdict"]),
            s(&story["story"]),
        ));
    }
    let evidence: Vec<String> = doc["completion_evidence_paths"]
        .as_array()
        .into_iter()
        .flatten()
        .map(s)
        .collect();
    let review = &doc["review"];
    out.push_str(&format!(
        "\n  evidence     {}\n  review       {}{} — dispatches {}/{}, {} dismissed\n",
        if evidence.is_empty() {
            "-".to_string()
        } else {
            evidence.join(", ")
        },
        s(&review["artifact"]),
        match review["blocking"].as_u64() {
            Some(n) if n > 0 => format!(" ({n} blocking)"),
            _ => String::new(),
        },
        s(&review["dispatch_used"]),
        s(&review["dispatch_cap"]),
        s(&review["dismissed"]),
    ));
    out
}
