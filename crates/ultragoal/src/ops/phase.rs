//! The phase operations: `set`, the verdict, budget and blocked states, resume, and the
//! completion gate with `request-complete`.

use super::*;
use regex::Regex;
use std::sync::LazyLock;

/// The text flags of `set`, as (flag, state key).
pub const SET_TEXT_FLAGS: [(&str, &str); 8] = [
    ("outcome", "outcome"),
    ("verification-surface", "verification_surface"),
    ("constraints", "constraints"),
    ("boundaries", "boundaries"),
    ("non-goals", "non_goals"),
    ("blocked-stop", "blocked_stop"),
    ("plan-path", "plan_path"),
    ("resume-summary", "resume_summary"),
];

/// `^-\s+\S.*\|\s*decider:\s*\S.*$` in JavaScript's terms: `\s` its whitespace (`js::is_space`),
/// `.` anything but a line terminator, `$` the end of the text.
pub fn is_non_goal_line(line: &str) -> bool {
    static NON_GOAL: LazyLock<Option<Regex>> = LazyLock::new(|| {
        const S: &str = r"\t-\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";
        const D: &str = r"[^\n\r\x{2028}\x{2029}]";
        Regex::new(&format!(
            r"^-[{S}]+[^{S}]{D}*\|[{S}]*decider:[{S}]*[^{S}]{D}*$"
        ))
        .ok()
    });
    NON_GOAL.as_ref().is_some_and(|re| re.is_match(line))
}

/// `setGoalState` with the fields given (see [`set_fields`]), then the git base of the pursuit
/// ([`crate::base::after_transition`]: a new pursuit — a planning transition without an active
/// prior, or over a pristine one — forgets it). The warning when the base cannot be recorded.
pub fn set(session: &Session, phase: &str, given: State) -> Result<Option<String>> {
    if !matches!(phase, "planning" | "pursuing") {
        return Err(thrown(format!(
            "set: phase must be one of planning|pursuing (got \"{phase}\"). complete is \
request-complete-only; budget_limited/blocked are system-only."
        )));
    }
    // Each non-blank line of the non-goals must be a non-goal line (blank non-goals have none).
    let non_goals = given
        .get("non_goals")
        .and_then(JsValue::as_str)
        .unwrap_or("");
    for line in non_goals.split('\n').filter(|line| !js::is_blank(line)) {
        if !is_non_goal_line(line) {
            return Err(thrown(format!(
                "set: non-goals refused — line does not match \"- {{what this pursuit will NOT do}} | \
decider: {{...}}\" format: \"{line}\""
            )));
        }
    }
    let mut base = given;
    base.set("phase", phase.into());
    base.set("active", true.into());
    if phase == "planning" {
        for (key, value) in [
            ("objective_verdict", "absent".into()),
            ("completion_evidence_paths", JsValue::Array(Vec::new())),
            ("dismissed_review_findings", JsValue::Array(Vec::new())),
            ("codex_goal_objective", "".into()),
        ] {
            base.set(key, value);
        }
        // Before the lock, as the reference: a re-plan that then fails has already dropped them.
        if session.use_dir().is_ok() {
            let _ = ucg_store::remove_if_present(&session.verdict_file());
            let _ = ucg_store::remove_if_present(&session.codereview_file());
        }
    }
    let fresh = std::cell::Cell::new(false);
    mutate(session, |prior: &JsValue, text: Option<&str>| {
        if phase == "pursuing" {
            pursuing_gate(prior, &base)?;
        }
        let mut fields = base.clone();
        if phase == "planning" {
            let active = raw_of(text).filter(state::is_active);
            if active.is_none() {
                fields.set("iteration", 0.into());
                fields.set("review_dispatch_used", 0.into());
                fields.set("review_dispatch_cap", state::REVIEW_DISPATCH_GRANT.into());
                fields.set("approved_review_artifact_sha256", "".into());
            }
            fresh.set(active.as_ref().is_none_or(is_pristine));
        }
        Ok(Some(fields))
    })?;
    Ok(crate::base::after_transition(session, phase, fresh.get()))
}

/// Entering (or staying in) pursuit: no story waits for confirmation, and the WHAT — outcome
/// and verification surface — cannot be supplied among the fields `given`.
fn pursuing_gate(prior: &JsValue, given: &State) -> Result<()> {
    let stories = stories_of(prior)?;
    let mut waiting = Vec::new();
    for story in list(&stories, "stories")? {
        if status_is(story, "unconfirmed")? {
            waiting.push(match prop(story, "id")? {
                None | Some(JsValue::Null) => String::new(),
                id => js::string_of(id).to_string(),
            });
        }
    }
    if !waiting.is_empty() {
        let noun = if waiting.len() == 1 {
            "story"
        } else {
            "stories"
        };
        return Err(thrown(format!(
            "set: pursuing refused — {} unconfirmed {noun}: {}",
            waiting.len(),
            waiting.join(", ")
        )));
    }
    for key in ["outcome", "verification_surface"] {
        if given.contains_key(key) {
            return Err(thrown(format!(
                "set: pursuing refused — {key} is frozen once pursuit has begun. Re-plan first \
(set --phase planning) to change it."
            )));
        }
    }
    Ok(())
}

// ------------------------------------------------------------------ verdict and terminal setters

/// `set-verdict` after its flag check: from planning it first advances to pursuing (a notice,
/// after any warning of the advance's), then writes the verdict.
pub fn set_verdict(session: &Session, verdict: &str, reply: &mut Reply) -> Result<()> {
    let prior = prior(session)?;
    if prop(&prior, "phase")?.and_then(JsValue::as_str) == Some("planning") {
        reply
            .notices
            .extend(set(session, "pursuing", State::new())?);
        reply
            .notices
            .push("set-verdict: phase auto-advanced planning -> pursuing".into());
    }
    merge_write(session, next([("objective_verdict", verdict.into())]))
}

pub fn set_budget_limited(session: &Session) -> Result<()> {
    merge_write(
        session,
        next([
            ("phase", "budget_limited".into()),
            ("active", false.into()),
            ("budget_limit_notified", true.into()),
        ]),
    )
}

pub fn set_blocked(session: &Session, reason: &str) -> Result<()> {
    merge_write(
        session,
        next([
            ("phase", "blocked".into()),
            ("active", false.into()),
            (
                "blocked_reason",
                state::without_controls(&reason.into()).into(),
            ),
        ]),
    )
}

/// `resume-pursuit` (user-only): under the lock, never seeding.
pub fn resume_pursuit(session: &Session) -> Result<()> {
    let lock = session.lock()?;
    let Some(raw) = session.text() else {
        return Err(thrown("resume-pursuit: refused — state file is absent"));
    };
    let prior = claimable(&raw)
        .ok_or_else(|| thrown("resume-pursuit: refused — state is corrupt or invalid"))?;
    if state::phase(&prior) != "budget_limited" {
        return Err(thrown(format!(
            "resume-pursuit: refused — phase must be budget_limited (got \"{}\")",
            js::string_of(prior.get("phase"))
        )));
    }
    merge_write_locked(
        session,
        &lock,
        next([
            ("phase", "pursuing".into()),
            ("active", true.into()),
            ("iteration", 0.into()),
            ("budget_limit_notified", false.into()),
        ]),
    )?;
    Ok(())
}

pub(super) fn claimable(raw: &str) -> Option<State> {
    state::parse(raw.as_bytes()).filter(state::is_claimable)
}

// ------------------------------------------------------------------ request-complete

/// The generic refusal of `request-complete`.
pub const COMPLETE_REFUSED: &str = "request-complete: refused — requires objective_verdict=APPROVE, \
completion evidence present, and (when codex_goal_objective is recorded) a --codex-goal-json snapshot \
whose objective matches it with status=complete";

/// What the completion gate reads besides the state.
pub struct GateInputs<'a> {
    /// `ultragoal-verdict-<sid>.json`'s text.
    pub verdicts: Option<&'a str>,
    /// `ultragoal-codereview-<sid>.json`'s text.
    pub code_review: Option<&'a str>,
    /// `--codex-goal-json`, resolved (standard input read for `-`).
    pub codex_arg: Option<&'a str>,
    /// Reads a file named by `--codex-goal-json` (`readFileOrNull`).
    pub read_file: &'a dyn Fn(&str) -> Option<String>,
}

/// Every gate of `requestComplete`, in its order, over `prior` (the state file as
/// `readPrior` gives it): whether completion is allowed. A value the reference would crash on is
/// the error.
pub fn completion_allowed(prior: &JsValue, inputs: &GateInputs) -> Result<bool> {
    Ok(first_failed_gate(prior, inputs)?.is_none())
}

/// The first gate of `requestComplete` that does not hold, in words (`None`: every gate holds),
/// for `git ucg goal show` — the reference's refusal names none.
pub fn first_failed_gate(prior: &JsValue, inputs: &GateInputs) -> Result<Option<String>> {
    let fail = |why: &str| Ok(Some(why.to_string()));
    let evidence = match prop(prior, "completion_evidence_paths")? {
        Some(JsValue::Array(paths)) => paths.len(),
        _ => 0,
    };
    if evidence == 0 {
        return fail("no completion evidence recorded");
    }
    if prop(prior, "objective_verdict")?.and_then(JsValue::as_str) != Some("APPROVE") {
        return fail("objective_verdict is not APPROVE");
    }
    let stories_value = stories_of(prior)?;
    let stories = list(&stories_value, "stories")?;
    let mut live = Vec::new();
    for story in stories {
        if !status_is(story, "retired")? {
            live.push(story);
        }
    }
    if live.is_empty() {
        return fail("no story that is not retired");
    }
    let Some(verdicts) = review::verdicts(inputs.verdicts.map(str::as_bytes)) else {
        return fail("the verdict artifact is absent or invalid");
    };
    if verdicts.objective != "APPROVE" {
        return fail("the verdict artifact's objective_verdict is not APPROVE");
    }
    let mut known = Vec::new();
    for story in stories {
        if let Some(JsValue::String(id)) = prop(story, "id")? {
            known.push(id);
        }
    }
    if let Some((unknown, _)) = verdicts.stories.iter().find(|(id, _)| !known.contains(&id)) {
        return fail(&format!(
            "the verdict artifact names unknown story {unknown}"
        ));
    }
    for story in live {
        let id = js::string_of(prop(story, "id")?);
        if !status_is(story, "confirmed")? {
            return fail(&format!("story {id} is not confirmed"));
        }
        let verdict = match prop(story, "id")? {
            Some(JsValue::String(id)) => verdicts.of(id),
            _ => None,
        };
        match verdict {
            Some("APPROVE") => {}
            None => return fail(&format!("story {id} has no verdict")),
            Some(other) => return fail(&format!("story {id} is {other}")),
        }
    }
    let Some(code_review) = review::code_review(inputs.code_review.map(str::as_bytes)) else {
        return fail("the code-review artifact is absent or invalid");
    };
    if !code_review.complete {
        return fail("the code review is INCONCLUSIVE");
    }
    // `readDismissals`: the array, or none.
    let dismissals = match prop(prior, "dismissed_review_findings")? {
        Some(JsValue::Array(items)) => items.as_slice(),
        _ => &[],
    };
    if !code_review.completion_eligible(dismissals)? {
        let blocks: Vec<String> = code_review
            .open_blocks(dismissals)
            .map(|f| {
                let at = match &f.location {
                    Some(JsValue::String(at)) => format!(" at {at}"),
                    _ => String::new(),
                };
                format!("{} {} {}{at}", f.class, f.verdict, f.impact)
            })
            .collect();
        return fail(&format!(
            "the code review has blocking findings: {}",
            blocks.join("; ")
        ));
    }
    let armed = js::present(prop(prior, "codex_goal_objective")?);
    let armed = match armed {
        None => JsString::new(),
        Some(JsValue::String(text)) => text.clone(),
        Some(other) => {
            return Err(crash(format!(
                "codex_goal_objective is {}, not a string (trim is not a function)",
                kind(other)
            )))
        }
    };
    if armed.is_blank() {
        return Ok(None);
    }
    let Some(arg) = inputs.codex_arg else {
        return fail("a Codex goal is armed and no --codex-goal-json was given");
    };
    let Some(snapshot) = codex_snapshot(arg, inputs.read_file) else {
        return fail("the --codex-goal-json snapshot does not parse");
    };
    let Some(objective) = snapshot_field(&snapshot, &["objective", "goal", "description"]) else {
        return fail("the Codex goal snapshot's objective differs from the recorded one");
    };
    if collapse(&objective) != collapse(&armed) {
        return fail("the Codex goal snapshot's objective differs from the recorded one");
    }
    let status = snapshot_field(&snapshot, &["status"]);
    if status.as_ref().and_then(JsString::as_str) != Some("complete") {
        return fail("the Codex goal snapshot's status is not complete");
    }
    Ok(None)
}

/// `s.replace(/\s+/g, " ").trim()`
fn collapse(text: &JsString) -> JsString {
    let mut out = JsString::new();
    let mut space = false;
    for c in text.code_points() {
        if ucg_store::js::is_space(c) {
            space = true;
        } else {
            if space && !out.is_empty() {
                out.push_code_point(0x20);
            }
            space = false;
            out.push_code_point(c);
        }
    }
    out
}

/// `parseCodexGoalSnapshot`: inline JSON holding an object, else a file holding one.
pub fn codex_snapshot(arg: &str, read_file: &dyn Fn(&str) -> Option<String>) -> Option<JsObject> {
    state::parse(arg.as_bytes()).or_else(|| state::parse(read_file(arg)?.as_bytes()))
}

/// `goal.a ?? goal.b ?? … ?? root.a` — a string, else nothing.
fn snapshot_field(snapshot: &JsObject, keys: &[&str]) -> Option<JsString> {
    let empty = JsObject::new();
    let goal = match snapshot.get("goal") {
        Some(JsValue::Object(goal)) => goal,
        _ => &empty,
    };
    keys.iter()
        .find_map(|k| js::present(goal.get(k)))
        .or_else(|| snapshot.get(keys[0]))
        .and_then(JsValue::as_js_str)
        .cloned()
}

/// `request-complete`: the gates, then the write. `Ok(false)` is the reference's refusal (the
/// caller prints its line).
pub fn request_complete(session: &Session, codex_arg: Option<&str>) -> Result<bool> {
    let prior = prior(session)?;
    let verdicts = session::read_text(&session.verdict_file());
    let code_review = session::read_text(&session.codereview_file());
    let read_file = |path: &str| session::read_text(std::path::Path::new(path));
    let allowed = completion_allowed(
        &prior,
        &GateInputs {
            verdicts: verdicts.as_deref(),
            code_review: code_review.as_deref(),
            codex_arg,
            read_file: &read_file,
        },
    )?;
    if allowed {
        merge_write(
            session,
            next([("phase", "complete".into()), ("active", false.into())]),
        )?;
    }
    Ok(allowed)
}

// ------------------------------------------------------------------ set's arguments

/// The fields `set` was given, from the parsed arguments (after the command checked the
/// valueless ones) and the checked `--codex-goal-objective` and `--max-iterations`; absent flags
/// give none.
pub fn set_fields(flags: &Parsed, codex_goal_objective: Option<String>, max: Option<f64>) -> State {
    let mut given = State::new();
    for (flag, key) in SET_TEXT_FLAGS {
        if let Some(value) = flags.text(flag) {
            given.set(key, value.into());
        }
    }
    if let Some(max) = max {
        given.set("max_iterations", max.into());
    }
    if let Some(paths) = flags.text("completion-evidence") {
        let paths = comma_list(paths).into_iter().map(JsValue::from).collect();
        given.set("completion_evidence_paths", JsValue::Array(paths));
    }
    if let Some(objective) = codex_goal_objective {
        given.set("codex_goal_objective", objective.into());
    }
    given
}

/// A comma list: split on `,`, trimmed (JavaScript's `trim`), empties dropped.
pub fn comma_list(text: &str) -> Vec<String> {
    text.split(',')
        .map(js::trim)
        .filter(|item| !item.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_goal_lines_in_javascript_regex_terms() {
        for good in [
            "- x | decider: y",
            "-\u{a0}x | decider: y",
            "-\u{feff}x | decider: y",
            "- x | decider:\u{3000}y",
            "- a|b | decider: c",
        ] {
            assert!(is_non_goal_line(good), "{good:?}");
        }
        for bad in [
            "-\u{85}x | decider: y",
            "- x | decider: \u{feff}",
            "- x\u{2028}y | decider: z",
            "- z\u{2029} | decider: w",
            "- x | decider: y\r",
            "-x | decider: y",
            "## Evidence",
            "- x decider: y",
        ] {
            assert!(!is_non_goal_line(bad), "{bad:?}");
        }
    }

    #[test]
    fn lone_surrogate_ids_are_told_apart() {
        let prior = js::parse(
            r#"{"completion_evidence_paths": ["e"], "objective_verdict": "APPROVE",
                "stories": [{"id": "\ud800", "status": "confirmed"}]}"#,
        )
        .unwrap();
        let verdicts = r#"{"objective_verdict": "APPROVE", "verifier": "v", "at": "t",
            "stories": [{"id": "\udc00", "verdict": "APPROVE", "evidence_refs": []}]}"#;
        let inputs = GateInputs {
            verdicts: Some(verdicts),
            code_review: None,
            codex_arg: None,
            read_file: &|_: &str| None,
        };
        let unknown = "the verdict artifact names unknown story \u{fffd}";
        assert_eq!(first_failed_gate(&prior, &inputs), Ok(Some(unknown.into())));
    }

    #[test]
    fn comma_lists_trim_the_javascript_way() {
        assert_eq!(comma_list("\u{feff}, e1 ,,\u{3000}"), ["e1"]);
        assert_eq!(comma_list("\u{85},a"), ["\u{85}", "a"]);
        assert_eq!(comma_list(" a, ,b ,"), ["a", "b"]);
    }
}
