//! `goal current` and `goal show`: the operator's reads of a pursuit, as text or `--json`.

use crate::context::Context;
use crate::error::Result;
use crate::output::print_json;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::io::Write;
use ucg_ultragoal::js::{JsString, JsValue};
use ucg_ultragoal::session::Session;
use ucg_ultragoal::stories;
use ucg_ultragoal::view::{current, show_doc, verdicts_of};

pub(crate) fn run_current(session: &Session, as_json: bool) -> Result<u8> {
    let state = session.read()?.unwrap_or_default();
    let verdicts = verdicts_of(session);
    let (story, index, total) = current(&state, verdicts.as_ref());
    let field = |key: &str| {
        story
            .and_then(|s| s.get(key))
            .cloned()
            .unwrap_or(JsValue::Null)
    };
    if as_json {
        return print_json(&json!({
            "schema": "git-ucg.goal-current/1",
            "id": story.map(|story| stories::id(story).to_string()),
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

/// A text as it prints (a lone surrogate as U+FFFD); `""` for anything else.
fn text(value: &JsValue) -> Cow<'_, str> {
    value
        .as_js_str()
        .map_or(Cow::Borrowed(""), JsString::to_lossy)
}

pub(crate) fn run_show(ctx: &Context, session: &Session, as_json: bool) -> Result<u8> {
    let state = session.read()?;
    let doc = show_doc(session, state.as_ref(), jiff::Timestamp::now());
    if as_json {
        return print_json(&doc);
    }
    ctx.page_prose(&render(&doc))
}

/// The human form of `show_doc`.
pub(crate) fn render(doc: &Value) -> String {
    let s = crate::render::cell;
    // What a flag of the document says when it is `true`, and when it is anything else.
    let when =
        |flag: &Value, yes: &'static str, no: &'static str| if *flag == true { yes } else { no };
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
        when(&doc["active"], " (active)", " (inactive)"),
        when(&doc["pristine"], ", pristine", ""),
        s(&doc["outcome"]),
        s(&doc["iteration"]),
        s(&doc["max_iterations"]),
        s(&doc["objective_verdict"]),
    ));
    out.push_str(&format!(
        "  touched      {} ({}s idle, {})\n",
        s(&liveness["last_touched_at"]),
        s(&liveness["idle_secs"]),
        when(&liveness["live"], "live", "past its TTL"),
    ));
    let stories: &[Value] = doc["stories"].as_array().map_or(&[], Vec::as_slice);
    out.push_str(&format!("\nstories ({})\n", stories.len()));
    for story in stories {
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
    let completion = &doc["completion"];
    out.push_str(&match completion["first_failed_gate"].as_str() {
        Some(why) => format!("  completion   refused: {why}\n"),
        None => "  completion   every gate holds (request-complete would complete)\n".to_string(),
    });
    out
}
