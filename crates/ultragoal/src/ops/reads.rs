//! The reads: `get`, `status`, and the requirements and review context serialized for agents.

use super::*;

/// `get`: the active state with `stories` defaulted and `pristine`, or `null`.
pub fn get(session: &Session) -> Result<String> {
    let Some(mut state) = read_active(session)? else {
        return Ok("null\n".into());
    };
    let stories = js::present(state.get("stories"))
        .cloned()
        .unwrap_or(JsValue::Array(Vec::new()));
    let pristine = is_pristine(&state);
    state.set("stories", stories);
    state.set("pristine", pristine.into());
    Ok(JsValue::Object(state).to_json_string() + "\n")
}

/// `status`: the phase token, or `absent`.
pub fn status(session: &Session) -> Result<String> {
    session.use_dir()?;
    let bytes = ucg_store::read_file(session.state_file()).ok();
    Ok(format!("{}\n", crate::status_token(bytes.as_deref())))
}

/// `head + text₁ + tail₁ + text₂ + tail₂ + …` (a lone surrogate joining its other half).
fn spliced(head: &str, pieces: &[(&JsString, &str)]) -> JsString {
    let mut out = JsString::from(head);
    for (text, tail) in pieces {
        out.push_js(text);
        out.push_str(tail);
    }
    out
}

/// `serializeRequirements`.
pub fn requirements(session: &Session) -> Result<JsString> {
    let state = read_active(session)?;
    let field = |key: &str| js::present(state.as_ref()?.get(key)).cloned();
    let stories = field("stories").unwrap_or(JsValue::Array(Vec::new()));
    let mut confirmed = Vec::new();
    for story in list(&stories, "stories")? {
        if status_is(story, "confirmed")? {
            confirmed.push(story);
        }
    }
    if confirmed.is_empty() {
        let outcome = field("outcome").unwrap_or_else(|| "".into());
        if trimmed(Some(&outcome), "outcome")?.is_empty() {
            return Ok(JsString::new());
        }
        let surface = field("verification_surface").unwrap_or_else(|| "".into());
        let criterion = if trimmed(Some(&surface), "verification_surface")?.is_empty() {
            &outcome
        } else {
            &surface
        };
        let (o, c) = (
            js::string_of(Some(&outcome)),
            js::string_of(Some(criterion)),
        );
        let pieces = [(&o, " — AC: "), (&c, " — verify: "), (&c, "\n")];
        return Ok(spliced("[outcome] ", &pieces));
    }
    let mut lines = JsString::new();
    for story in confirmed {
        let text = |key: &str| -> Result<JsString> { Ok(js::string_of(prop(story, key)?)) };
        let criteria = match prop(story, "acceptance_criteria")? {
            Some(JsValue::Array(items)) => JsValue::join(items, "; "),
            _ => return Err(crash(
                "a confirmed story's acceptance_criteria is not an array (join is not a function)",
            )),
        };
        let (id, story, surface) = (text("id")?, text("story")?, text("verification_surface")?);
        let pieces = [(&id, "] "), (&story, " — AC: "), (&criteria, " — verify: ")];
        lines.push_js(&spliced("[", &pieces));
        lines.push_js(&spliced("", &[(&surface, "\n")]));
    }
    Ok(lines)
}

const NONE_PROVIDED: &str = "(none provided)";

/// `serializeReviewContext`: exactly five keys, one line of JSON.
pub fn review_context(session: &Session) -> Result<String> {
    let Some(state) = read_active(session)? else {
        return Err(thrown(format!(
            "serialize-review-context: no active ultragoal state for session \"{}\"",
            session.sid
        )));
    };
    let field = |key: &str| {
        js::present(state.get(key))
            .cloned()
            .unwrap_or_else(|| "".into())
    };
    let or_marker = |value: &JsValue, what: &str| -> Result<JsValue> {
        Ok(if trimmed(Some(value), what)?.is_empty() {
            NONE_PROVIDED.into()
        } else {
            value.clone()
        })
    };
    let joined = |parts: Vec<JsValue>, what: &str| -> Result<JsValue> {
        let mut kept = JsString::new();
        for part in parts {
            if !trimmed(Some(&part), what)?.is_empty() {
                if !kept.is_empty() {
                    kept.push_str("\n\n");
                }
                kept.push_js(&js::string_of(Some(&part)));
            }
        }
        Ok(if kept.is_empty() {
            NONE_PROVIDED.into()
        } else {
            kept.into()
        })
    };
    let what_was_implemented = or_marker(&field("outcome"), "outcome")?;
    let plan = field("plan_path");
    let plan_line: JsValue = if trimmed(Some(&plan), "plan_path")?.is_empty() {
        "".into()
    } else {
        spliced("plan: ", &[(&js::string_of(Some(&plan)), "")]).into()
    };
    let description = joined(vec![field("resume_summary"), plan_line], "resume_summary")?;
    let requirements = match requirements(session)? {
        text if text.is_empty() => NONE_PROVIDED.into(),
        text => text,
    };
    let project_context = joined(
        vec![field("constraints"), field("boundaries")],
        "constraints",
    )?;
    let non_goals = or_marker(&field("non_goals"), "non_goals")?;
    let mut doc = JsObject::new();
    doc.set("what_was_implemented", what_was_implemented);
    doc.set("description", description);
    doc.set("requirements", requirements.into());
    doc.set("project_context", project_context);
    doc.set("non_goals", non_goals);
    Ok(JsValue::Object(doc).to_json_string() + "\n")
}
