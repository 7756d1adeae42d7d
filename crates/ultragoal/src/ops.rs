//! The state CLI's subcommands (docs/formats/ultragoal.md §2), rule for rule as the reference's G1
//! generation runs them on the same files — its validation order, its messages, its JavaScript
//! values (a field may hold any JSON value; where the reference would die on a TypeError, the
//! result is a [`Refusal::Crash`] instead). Each takes the parsed arguments and says what to print.
//!
//! Like the reference, a writer validates against the file as read, then seeds it if absent, takes
//! the lock and merges its fields into the file as it is under the lock.

use super::args::Parsed;
use super::js::{self, Object};
use super::review::{self, CodeReview, Outcome};
use super::session::{self, Session};
use super::state::{self, Crash, State};
use super::{Refusal, Reply};
use serde_json::Value;

type Result<T> = std::result::Result<T, Refusal>;

impl From<Crash> for Refusal {
    fn from(crash: Crash) -> Self {
        Refusal::Crash(crash.0)
    }
}

fn thrown(message: impl Into<String>) -> Refusal {
    Refusal::Thrown(message.into())
}

fn crash(what: impl Into<String>) -> Refusal {
    Refusal::Crash(what.into())
}

// ------------------------------------------------------------------ JavaScript access

/// `v.key`: an object's own key; `null` throws; any other value has no such property.
fn prop<'a>(v: &'a Value, key: &str) -> Result<Option<&'a Value>> {
    match v {
        Value::Object(object) => Ok(object.get(key)),
        Value::Null => Err(crash(format!(
            "null is not an object (evaluating '….{key}')"
        ))),
        _ => Ok(None),
    }
}

/// A value the reference calls an array method on (`.filter`, `.map`, `.some`, …).
fn list<'a>(v: &'a Value, what: &str) -> Result<&'a [Value]> {
    match v {
        Value::Array(items) => Ok(items),
        other => Err(crash(format!(
            "{what} is not an array ({} has no array methods)",
            kind(other)
        ))),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `v.trim()`: only strings have it.
fn trimmed<'a>(v: Option<&'a Value>, what: &str) -> Result<&'a str> {
    match v {
        Some(Value::String(text)) => Ok(js::trim(text)),
        Some(other) => Err(crash(format!(
            "{what} is {} (trim is not a function)",
            kind(other)
        ))),
        None => Err(crash(format!(
            "{what} is undefined (trim is not a function)"
        ))),
    }
}

/// `!v || v.trim() === ""`.
fn falsy_or_blank(v: Option<&Value>, what: &str) -> Result<bool> {
    Ok(!js::truthy(v) || trimmed(v, what)?.is_empty())
}

/// `prior.stories ?? []`.
fn stories_of(prior: &Value) -> Result<Value> {
    Ok(js::present(prop(prior, "stories")?)
        .cloned()
        .unwrap_or(Value::Array(Vec::new())))
}

/// `s.status === status` for a story (a `null` story throws).
fn status_is(story: &Value, status: &str) -> Result<bool> {
    Ok(prop(story, "status")?.and_then(Value::as_str) == Some(status))
}

/// `s.id === id` (ids compared strictly: only a string equals a string).
fn id_is(story: &Value, id: &str) -> Result<bool> {
    Ok(prop(story, "id")?.and_then(Value::as_str) == Some(id))
}

/// `(prior.phase ?? "planning")`, as text for a message (`String(x)`).
fn phase_or_planning(prior: &Value) -> Result<Option<&Value>> {
    Ok(js::present(prop(prior, "phase")?))
}

fn is_planning(prior: &Value) -> Result<bool> {
    Ok(match phase_or_planning(prior)? {
        None => true,
        Some(phase) => phase.as_str() == Some("planning"),
    })
}

/// `{...object, key: value, …}`: an object's copy with the fields set (existing keys keep their
/// place, new ones follow).
fn with_fields(story: &Value, fields: &[(&str, Value)]) -> Value {
    let mut object = match story {
        Value::Object(object) => object.clone(),
        _ => Object::new(),
    };
    for (key, value) in fields {
        object.insert((*key).into(), value.clone());
    }
    Value::Object(object)
}

fn without(story: &Object, keys: &[&str]) -> Object {
    story
        .iter()
        .filter(|(k, _)| !keys.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

const SPLIT: [&str; 2] = ["split_from", "split_into"];
const STEERING: [&str; 2] = ["steering_evidence", "steering_rationale"];
const STATUSES: [&str; 3] = ["unconfirmed", "confirmed", "retired"];

// ------------------------------------------------------------------ reading and writing

/// `mergeWrite`: seed if absent (and never adopted away), lock, merge, write.
fn merge_write(session: &Session, next: State) -> Result<State> {
    session.ensure_seed().map_err(thrown)?;
    let lock = session.lock().map_err(thrown)?;
    merge_write_locked(session, &lock, next)
}

fn merge_write_locked(
    session: &Session,
    lock: &ucg_store::mkdir_lock::StateLock,
    next: State,
) -> Result<State> {
    let prior = session.prior().map_err(Refusal::Crash)?;
    let merged = state::merged(&prior, &next, &state::now_stamp())?;
    session.write(lock, &merged).map_err(thrown)?;
    Ok(merged)
}

/// `readPrior` of a text (`{}` when absent, empty or unparseable).
fn prior_of(text: Option<&str>) -> Result<Value> {
    session::prior_of(text).map_err(Refusal::Crash)
}

/// A writer: `compute` validates against the file as read (refusing before anything is seeded
/// or locked, as the reference does) and says what to merge (`None`: nothing to write); then the
/// file is seeded if absent, locked and merged. Should another writer have changed the file in
/// between, `compute` runs again on what is under the lock — the reference would merge fields
/// computed from the older read and lose that writer's change.
fn mutate(
    session: &Session,
    compute: impl Fn(&Value, Option<&str>) -> Result<Option<State>>,
) -> Result<()> {
    session.use_dir().map_err(thrown)?;
    let before = session.text();
    let Some(fields) = compute(&prior_of(before.as_deref())?, before.as_deref())? else {
        return Ok(());
    };
    session.ensure_seed().map_err(thrown)?;
    let lock = session.lock().map_err(thrown)?;
    let locked = session.text();
    let changed = match &before {
        Some(before) => locked.as_ref() != Some(before),
        // Absent before: the seed this writer (or a racing one) made is what it expected.
        None => !locked
            .as_deref()
            .and_then(|text| js::parse(text).ok())
            .and_then(|v| v.as_object().map(is_pristine))
            .unwrap_or(false),
    };
    let fields = if changed {
        match compute(&prior_of(locked.as_deref())?, locked.as_deref())? {
            Some(fields) => fields,
            None => return Ok(()),
        }
    } else {
        fields
    };
    merge_write_locked(session, &lock, fields)?;
    Ok(())
}

fn prior(session: &Session) -> Result<Value> {
    session.use_dir().map_err(thrown)?;
    session.prior().map_err(Refusal::Crash)
}

fn next(fields: impl IntoIterator<Item = (&'static str, Value)>) -> State {
    fields
        .into_iter()
        .map(|(key, value)| (key.to_string(), value))
        .collect()
}

/// `readGoalStateRaw`: a state passing the readers' guard, with the review fields defaulted
/// (in place, else appended), terminal phases included.
pub(crate) fn read_raw(session: &Session) -> Result<Option<State>> {
    session.use_dir().map_err(thrown)?;
    Ok(raw_of(session.text().as_deref()))
}

pub fn raw_of(text: Option<&str>) -> Option<State> {
    let text = text.filter(|t| !t.is_empty())?;
    let Ok(Value::Object(mut state)) = js::parse(text) else {
        return None;
    };
    if !state::passes_guard(&state) {
        return None;
    }
    let used = state::int_at_least(state.get("review_dispatch_used"), 0).unwrap_or(0);
    let cap = state::int_at_least(state.get("review_dispatch_cap"), 0)
        .unwrap_or(state::REVIEW_DISPATCH_GRANT);
    let sha = match state.get("approved_review_artifact_sha256") {
        Some(Value::String(sha)) => sha.clone(),
        _ => String::new(),
    };
    state.insert("review_dispatch_used".into(), used.into());
    state.insert("review_dispatch_cap".into(), cap.into());
    state.insert("approved_review_artifact_sha256".into(), sha.into());
    Some(state)
}

/// `readGoalState`: the raw state when active.
fn read_active(session: &Session) -> Result<Option<State>> {
    Ok(read_raw(session)?.filter(state::is_active))
}

/// `isPristine`: planning, iteration 0 or absent, outcome `""` or absent.
pub(crate) fn is_pristine(state: &Object) -> bool {
    state.get("phase").and_then(Value::as_str) == Some("planning")
        && state
            .get("iteration")
            .is_none_or(|i| i.as_f64() == Some(0.0))
        && state.get("outcome").is_none_or(|o| o.as_str() == Some(""))
}

// ------------------------------------------------------------------ set

/// What `set` was given (absent flags are `None`).
#[derive(Debug, Default, Clone)]
pub struct SetOpts {
    pub phase: String,
    /// (state key, value) of the text fields given.
    pub fields: Vec<(&'static str, String)>,
    pub max_iterations: Option<f64>,
    pub completion_evidence: Option<Vec<String>>,
    pub codex_goal_objective: Option<String>,
}

impl SetOpts {
    fn field(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
    }
}

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

/// `^-\s+\S.*\|\s*decider:\s*\S.*$` in JavaScript's terms: `\s` its whitespace, `.` anything but a
/// line terminator.
pub fn is_non_goal_line(line: &str) -> bool {
    let chars: Vec<char> = line.chars().collect();
    let terminator = |c: char| matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}');
    if chars.first() != Some(&'-') {
        return false;
    }
    let mut at = 1;
    while at < chars.len() && js::is_space(chars[at]) {
        at += 1;
    }
    if at == 1 || at >= chars.len() {
        return false;
    }
    // chars[at] is the `\S`; `.*` runs until a line terminator.
    let first = at;
    let reach = (first + 1..chars.len())
        .find(|&i| terminator(chars[i]))
        .unwrap_or(chars.len());
    (first + 1..reach).any(|bar| chars[bar] == '|' && decider_tail(&chars[bar + 1..]))
}

/// `\s*decider:\s*\S.*$`
fn decider_tail(chars: &[char]) -> bool {
    let mut at = 0;
    while at < chars.len() && js::is_space(chars[at]) {
        at += 1;
    }
    let word: Vec<char> = "decider:".chars().collect();
    if chars.len() < at + word.len() || chars[at..at + word.len()] != word[..] {
        return false;
    }
    at += word.len();
    while at < chars.len() && js::is_space(chars[at]) {
        at += 1;
    }
    at < chars.len()
        && !chars[at + 1..]
            .iter()
            .any(|c| matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}'))
}

fn validate_non_goals(value: &str) -> Result<()> {
    if js::is_blank(value) {
        return Ok(());
    }
    for line in value.split('\n') {
        if js::is_blank(line) {
            continue;
        }
        if !is_non_goal_line(line) {
            return Err(thrown(format!(
                "set: non-goals refused — line does not match \"- {{what this pursuit will NOT do}} | \
decider: {{...}}\" format: \"{line}\""
            )));
        }
    }
    Ok(())
}

/// What a successful `set` did, for the git base it records.
#[derive(Debug, Default, PartialEq)]
pub struct SetEffects {
    /// A planning transition without an active prior, or over a pristine one: a new pursuit.
    pub fresh: bool,
}

/// `setGoalState`.
pub fn set(session: &Session, opts: &SetOpts) -> Result<SetEffects> {
    let phase = opts.phase.as_str();
    if !matches!(phase, "planning" | "pursuing") {
        return Err(thrown(format!(
            "set: phase must be one of planning|pursuing (got \"{phase}\"). complete is \
request-complete-only; budget_limited/blocked are system-only."
        )));
    }
    if let Some(non_goals) = opts.field("non_goals") {
        validate_non_goals(non_goals)?;
    }
    let mut base = next([("phase", phase.into()), ("active", true.into())]);
    for (key, value) in &opts.fields {
        base.insert((*key).into(), value.as_str().into());
    }
    if let Some(max) = opts.max_iterations {
        base.insert("max_iterations".into(), js::number(max));
    }
    if let Some(paths) = &opts.completion_evidence {
        base.insert("completion_evidence_paths".into(), paths.clone().into());
    }
    if let Some(objective) = &opts.codex_goal_objective {
        base.insert("codex_goal_objective".into(), objective.as_str().into());
    }
    if phase == "planning" {
        base.insert("objective_verdict".into(), "absent".into());
        base.insert("completion_evidence_paths".into(), Value::Array(Vec::new()));
        base.insert("dismissed_review_findings".into(), Value::Array(Vec::new()));
        base.insert("codex_goal_objective".into(), "".into());
        // Before the lock, as the reference: a re-plan that then fails has already dropped them.
        if session.use_dir().is_ok() {
            let _ = ucg_store::remove_if_present(&session.verdict_file());
            let _ = ucg_store::remove_if_present(&session.codereview_file());
        }
    }
    let fresh = std::cell::Cell::new(false);
    mutate(session, |prior: &Value, text: Option<&str>| {
        if phase == "pursuing" {
            pursuing_gate(prior, opts)?;
        }
        let mut fields = base.clone();
        if phase == "planning" {
            let active = raw_of(text).filter(state::is_active);
            if active.is_none() {
                fields.insert("iteration".into(), 0.into());
                fields.insert("review_dispatch_used".into(), 0.into());
                fields.insert(
                    "review_dispatch_cap".into(),
                    state::REVIEW_DISPATCH_GRANT.into(),
                );
                fields.insert("approved_review_artifact_sha256".into(), "".into());
            }
            fresh.set(active.as_ref().is_none_or(is_pristine));
        }
        Ok(Some(fields))
    })?;
    Ok(SetEffects { fresh: fresh.get() })
}

/// Entering (or staying in) pursuit: no story waits for confirmation, and the WHAT — outcome
/// and verification surface — cannot be supplied.
fn pursuing_gate(prior: &Value, opts: &SetOpts) -> Result<()> {
    let stories = stories_of(prior)?;
    let mut waiting = Vec::new();
    for story in list(&stories, "stories")? {
        if status_is(story, "unconfirmed")? {
            waiting.push(prop(story, "id")?.cloned());
        }
    }
    if !waiting.is_empty() {
        let ids: Vec<String> = waiting
            .iter()
            .map(|id| match id {
                None | Some(Value::Null) => String::new(),
                Some(id) => js::string_of(Some(id)),
            })
            .collect();
        return Err(thrown(format!(
            "set: pursuing refused — {} unconfirmed {}: {}",
            waiting.len(),
            if waiting.len() == 1 {
                "story"
            } else {
                "stories"
            },
            ids.join(", ")
        )));
    }
    for key in ["outcome", "verification_surface"] {
        if opts.field(key).is_some() {
            return Err(thrown(format!(
                "set: pursuing refused — {key} is frozen once pursuit has begun. Re-plan first \
(set --phase planning) to change it."
            )));
        }
    }
    Ok(())
}

// ------------------------------------------------------------------ verdict and terminal setters

/// `set-verdict` after its flag check: from planning it first advances to pursuing (a notice),
/// then writes the verdict. Whether it advanced.
pub fn set_verdict(session: &Session, verdict: &str, reply: &mut Reply) -> Result<bool> {
    let prior = prior(session)?;
    let advance = prop(&prior, "phase")?.and_then(Value::as_str) == Some("planning");
    if advance {
        set(
            session,
            &SetOpts {
                phase: "pursuing".into(),
                ..SetOpts::default()
            },
        )?;
        reply
            .notices
            .push("set-verdict: phase auto-advanced planning -> pursuing".into());
    }
    merge_write(session, next([("objective_verdict", verdict.into())]))?;
    Ok(advance)
}

pub fn set_budget_limited(session: &Session) -> Result<()> {
    merge_write(
        session,
        next([
            ("phase", "budget_limited".into()),
            ("active", false.into()),
            ("budget_limit_notified", true.into()),
        ]),
    )?;
    Ok(())
}

pub fn set_blocked(session: &Session, reason: &str) -> Result<()> {
    merge_write(
        session,
        next([
            ("phase", "blocked".into()),
            ("active", false.into()),
            ("blocked_reason", state::without_controls(reason).into()),
        ]),
    )?;
    Ok(())
}

/// `resume-pursuit` (user-only): under the lock, never seeding.
pub fn resume_pursuit(session: &Session) -> Result<()> {
    let lock = session.lock().map_err(thrown)?;
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

fn claimable(raw: &str) -> Option<State> {
    match js::parse(raw) {
        Ok(Value::Object(state)) if state::is_claimable(&state) => Some(state),
        _ => None,
    }
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
pub fn completion_allowed(prior: &Value, inputs: &GateInputs) -> Result<bool> {
    Ok(first_failed_gate(prior, inputs)?.is_none())
}

/// The first gate of `requestComplete` that does not hold, in words (`None`: every gate holds),
/// for `git ucg goal show` — the reference's refusal names none.
pub fn first_failed_gate(prior: &Value, inputs: &GateInputs) -> Result<Option<String>> {
    let fail = |why: &str| Ok(Some(why.to_string()));
    let evidence = match prop(prior, "completion_evidence_paths")? {
        Some(Value::Array(paths)) => paths.len(),
        _ => 0,
    };
    if evidence == 0 {
        return fail("no completion evidence recorded");
    }
    if prop(prior, "objective_verdict")?.and_then(Value::as_str) != Some("APPROVE") {
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
        if let Some(Value::String(id)) = prop(story, "id")? {
            known.push(id.as_str());
        }
    }
    if let Some((unknown, _)) = verdicts
        .stories
        .iter()
        .find(|(id, _)| !known.contains(&id.as_str()))
    {
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
            Some(Value::String(id)) => verdicts.of(id),
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
    let dismissals = dismissals(prior)?;
    if !code_review.completion_eligible(&dismissals)? {
        let blocks: Vec<String> = code_review
            .open_blocks(&dismissals)
            .map(|f| {
                let at = match &f.location {
                    Some(Value::String(at)) => format!(" at {at}"),
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
        None => "",
        Some(Value::String(text)) => text.as_str(),
        Some(other) => {
            return Err(crash(format!(
                "codex_goal_objective is {}, not a string (trim is not a function)",
                kind(other)
            )))
        }
    };
    if js::is_blank(armed) {
        return Ok(None);
    }
    let Some(arg) = inputs.codex_arg else {
        return fail("a Codex goal is armed and no --codex-goal-json was given");
    };
    let Some(snapshot) = codex_snapshot(arg, inputs.read_file) else {
        return fail("the --codex-goal-json snapshot does not parse");
    };
    let Some(objective) = snapshot_field(&snapshot, &["objective", "goal", "description"], true)
    else {
        return fail("the Codex goal snapshot's objective differs from the recorded one");
    };
    if collapse(&objective) != collapse(armed) {
        return fail("the Codex goal snapshot's objective differs from the recorded one");
    }
    if snapshot_field(&snapshot, &["status"], false).as_deref() != Some("complete") {
        return fail("the Codex goal snapshot's status is not complete");
    }
    Ok(None)
}

/// `readDismissals`: the array, or none.
fn dismissals(prior: &Value) -> Result<Vec<Value>> {
    Ok(match prop(prior, "dismissed_review_findings")? {
        Some(Value::Array(items)) => items.clone(),
        _ => Vec::new(),
    })
}

/// `s.replace(/\s+/g, " ").trim()`
fn collapse(text: &str) -> String {
    let mut out = String::new();
    let mut space = false;
    for c in text.chars() {
        if js::is_space(c) {
            space = true;
        } else {
            if space {
                out.push(' ');
            }
            space = false;
            out.push(c);
        }
    }
    if space {
        out.push(' ');
    }
    js::trim(&out).to_string()
}

/// `parseCodexGoalSnapshot`: inline JSON holding an object, else a file holding one.
pub fn codex_snapshot(arg: &str, read_file: &dyn Fn(&str) -> Option<String>) -> Option<Object> {
    if let Ok(Value::Object(object)) = js::parse(arg) {
        return Some(object);
    }
    match js::parse(&read_file(arg)?) {
        Ok(Value::Object(object)) => Some(object),
        _ => None,
    }
}

/// `goal.a ?? goal.b ?? … (?? root.a)` — a string, else nothing.
fn snapshot_field(snapshot: &Object, keys: &[&str], root_objective: bool) -> Option<String> {
    let empty = Object::new();
    let goal = match snapshot.get("goal") {
        Some(Value::Object(goal)) => goal,
        _ => &empty,
    };
    let mut found = keys.iter().find_map(|k| js::present(goal.get(*k)));
    if found.is_none() {
        let root_key = if root_objective { "objective" } else { keys[0] };
        found = snapshot.get(root_key);
    }
    found.and_then(Value::as_str).map(str::to_string)
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

// ------------------------------------------------------------------ the review lane

/// `{allowed, reason, used, cap}` on one line; exit 1 unless allowed.
fn claim_answer(reply: &mut Reply, allowed: bool, reason: &str, used: Value, cap: Value) {
    let mut doc = Object::new();
    doc.insert("allowed".into(), allowed.into());
    doc.insert("reason".into(), reason.into());
    doc.insert("used".into(), used);
    doc.insert("cap".into(), cap);
    reply.stdout = js::stringify(&Value::Object(doc), false) + "\n";
    reply.failed = !allowed;
}

fn counters(prior: &State) -> (f64, f64) {
    (
        js::integer_at_least(prior.get("review_dispatch_used"), 0.0).unwrap_or(0.0),
        js::integer_at_least(prior.get("review_dispatch_cap"), 0.0)
            .unwrap_or(state::REVIEW_DISPATCH_GRANT as f64),
    )
}

enum Lane {
    Answer(bool, &'static str, f64, f64),
}

fn review_of(session: &Session) -> Option<CodeReview> {
    review::code_review(
        ucg_store::read_file(session.codereview_file())
            .ok()
            .as_deref(),
    )
}

/// The locked, active, pursuing state of the lane's commands (else the lane's `failure`).
fn lane_state(session: &Session) -> std::result::Result<State, ()> {
    let raw = session.text().ok_or(())?;
    let prior = claimable(&raw).ok_or(())?;
    if !state::is_active(&prior) || state::phase(&prior) != "pursuing" {
        return Err(());
    }
    Ok(prior)
}

/// `claim-review-dispatch` (hook-only).
pub fn claim(session: &Session, reply: &mut Reply) {
    let run = || -> std::result::Result<Lane, ()> {
        session.ensure_seed().map_err(|_| ())?;
        let lock = session.lock().map_err(|_| ())?;
        let prior = lane_state(session)?;
        let (used, cap) = counters(&prior);
        if used >= cap {
            return Ok(Lane::Answer(false, "budget_exhausted", used, cap));
        }
        if let Some(reviewed) = review_of(session) {
            let approved = match js::present(prior.get("approved_review_artifact_sha256")) {
                Some(Value::String(sha)) => sha.clone(),
                Some(_) => return Err(()),
                None => String::new(),
            };
            let eligible = reviewed
                .completion_eligible(&dismissals_of(&prior))
                .map_err(|_| ())?;
            if eligible && reviewed.sha256 != approved {
                return Ok(Lane::Answer(false, "completion_eligible", used, cap));
            }
        }
        let written = merge_write_locked(
            session,
            &lock,
            next([("review_dispatch_used", js::number(used + 1.0))]),
        )
        .map_err(|_| ())?;
        let (used, cap) = counters(&written);
        Ok(Lane::Answer(true, "allowed", used, cap))
    };
    let Lane::Answer(allowed, reason, used, cap) =
        run().unwrap_or(Lane::Answer(false, "failure", 0.0, 0.0));
    claim_answer(reply, allowed, reason, js::number(used), js::number(cap));
}

fn dismissals_of(prior: &State) -> Vec<Value> {
    match prior.get("dismissed_review_findings") {
        Some(Value::Array(items)) => items.clone(),
        _ => Vec::new(),
    }
}

/// `approve-review-dispatch-renewal` (user-only).
pub fn renew(session: &Session, reply: &mut Reply) {
    let run = || -> std::result::Result<Lane, ()> {
        session.ensure_seed().map_err(|_| ())?;
        let lock = session.lock().map_err(|_| ())?;
        let reviewed = review_of(session);
        let prior = lane_state(session)?;
        let (used, cap) = counters(&prior);
        let mut fields = next([(
            "review_dispatch_cap",
            js::number(cap + state::REVIEW_DISPATCH_GRANT as f64),
        )]);
        if let Some(reviewed) = reviewed {
            fields.insert(
                "approved_review_artifact_sha256".into(),
                reviewed.sha256.into(),
            );
        }
        let written = merge_write_locked(session, &lock, fields).map_err(|_| ())?;
        Ok(Lane::Answer(true, "allowed", used, counters(&written).1))
    };
    let Lane::Answer(allowed, reason, used, cap) =
        run().unwrap_or(Lane::Answer(false, "failure", 0.0, 0.0));
    claim_answer(reply, allowed, reason, js::number(used), js::number(cap));
}

/// `dismissReviewFinding`: whether the dismissal is recorded (or already was).
pub fn dismiss(session: &Session, location: &str, class: &str, rationale: &str) -> bool {
    let rationale = js::trim(rationale);
    if rationale.is_empty() || js::is_blank(location) || !review::CLASSES.contains(&class) {
        return false;
    }
    let run = || -> std::result::Result<bool, ()> {
        session.ensure_seed().map_err(|_| ())?;
        let lock = session.lock().map_err(|_| ())?;
        let prior = lane_state(session).map_err(|_| ())?;
        let Some(reviewed) = review_of(session) else {
            return Ok(false);
        };
        let matches = reviewed
            .findings
            .iter()
            .filter(|f| {
                f.outcome == Outcome::Block
                    && f.class == class
                    && f.location.as_ref().and_then(Value::as_str) == Some(location)
            })
            .count();
        if matches != 1 {
            return Ok(false);
        }
        let mut recorded = dismissals_of(&prior);
        for d in &recorded {
            if d.is_null() {
                return Err(());
            }
            if d.get("artifact_sha256").and_then(Value::as_str) == Some(&reviewed.sha256)
                && d.get("ref").and_then(Value::as_str) == Some(location)
                && d.get("class").and_then(Value::as_str) == Some(class)
            {
                return Ok(true);
            }
        }
        let mut dismissal = Object::new();
        dismissal.insert("artifact_sha256".into(), reviewed.sha256.clone().into());
        dismissal.insert("ref".into(), location.into());
        dismissal.insert("class".into(), class.into());
        dismissal.insert("rationale".into(), rationale.into());
        recorded.push(Value::Object(dismissal));
        merge_write_locked(
            session,
            &lock,
            next([("dismissed_review_findings", Value::Array(recorded))]),
        )
        .map_err(|_| ())?;
        Ok(true)
    };
    run().unwrap_or(false)
}

/// After an adoption: the Codex objective is thread-scoped and stays behind (a merge-write).
pub fn clear_codex_objective(session: &Session) -> Result<()> {
    merge_write(session, next([("codex_goal_objective", "".into())]))?;
    Ok(())
}

// ------------------------------------------------------------------ reads

/// `get`: the active state with `stories` defaulted and `pristine`, or `null`.
pub fn get(session: &Session) -> Result<String> {
    let Some(mut state) = read_active(session)? else {
        return Ok("null\n".into());
    };
    let stories = js::present(state.get("stories"))
        .cloned()
        .unwrap_or(Value::Array(Vec::new()));
    let pristine = is_pristine(&state);
    state.insert("stories".into(), stories);
    state.insert("pristine".into(), pristine.into());
    Ok(js::stringify(&Value::Object(state), false) + "\n")
}

/// `status`: the phase token, or `absent`.
pub fn status(session: &Session) -> Result<String> {
    Ok(match read_raw(session)? {
        Some(state) => format!("{}\n", state::phase(&state)),
        None => "absent\n".into(),
    })
}

/// `serializeRequirements`.
pub fn requirements(session: &Session) -> Result<String> {
    let state = read_active(session)?;
    let state = state.map(Value::Object).unwrap_or(Value::Null);
    let field = |key: &str| -> Option<Value> {
        match &state {
            Value::Object(s) => js::present(s.get(key)).cloned(),
            _ => None,
        }
    };
    let stories = field("stories").unwrap_or(Value::Array(Vec::new()));
    let mut confirmed = Vec::new();
    for story in list(&stories, "stories")? {
        if status_is(story, "confirmed")? {
            confirmed.push(story);
        }
    }
    if confirmed.is_empty() {
        let outcome = field("outcome").unwrap_or_else(|| "".into());
        if trimmed(Some(&outcome), "outcome")?.is_empty() {
            return Ok(String::new());
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
        return Ok(format!("[outcome] {o} — AC: {c} — verify: {c}\n"));
    }
    let mut lines = Vec::new();
    for story in confirmed {
        let text = |key: &str| -> Result<String> { Ok(js::string_of(prop(story, key)?)) };
        let criteria = match prop(story, "acceptance_criteria")? {
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Value::Null => String::new(),
                    other => js::string_of(Some(other)),
                })
                .collect::<Vec<_>>()
                .join("; "),
            _ => return Err(crash(
                "a confirmed story's acceptance_criteria is not an array (join is not a function)",
            )),
        };
        lines.push(format!(
            "[{}] {} — AC: {criteria} — verify: {}",
            text("id")?,
            text("story")?,
            text("verification_surface")?
        ));
    }
    Ok(lines.join("\n") + "\n")
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
    let (outcome, summary, plan, constraints, boundaries, non_goals) = (
        field("outcome"),
        field("resume_summary"),
        field("plan_path"),
        field("constraints"),
        field("boundaries"),
        field("non_goals"),
    );
    let or_marker = |value: &Value, what: &str| -> Result<Value> {
        Ok(if trimmed(Some(value), what)?.is_empty() {
            NONE_PROVIDED.into()
        } else {
            value.clone()
        })
    };
    let joined = |parts: Vec<Value>, what: &str| -> Result<Value> {
        let mut kept = Vec::new();
        for part in parts {
            if !trimmed(Some(&part), what)?.is_empty() {
                kept.push(js::string_of(Some(&part)));
            }
        }
        Ok(if kept.is_empty() {
            NONE_PROVIDED.into()
        } else {
            kept.join("\n\n").into()
        })
    };
    let what_was_implemented = or_marker(&outcome, "outcome")?;
    let plan_line: Value = if trimmed(Some(&plan), "plan_path")?.is_empty() {
        "".into()
    } else {
        format!("plan: {}", js::string_of(Some(&plan))).into()
    };
    let description = joined(vec![summary, plan_line], "resume_summary")?;
    let requirements = match requirements(session)? {
        text if text.is_empty() => NONE_PROVIDED.to_string(),
        text => text,
    };
    let project_context = joined(vec![constraints, boundaries], "constraints")?;
    let non_goals = or_marker(&non_goals, "non_goals")?;
    let mut doc = Object::new();
    doc.insert("what_was_implemented".into(), what_was_implemented);
    doc.insert("description".into(), description);
    doc.insert("requirements".into(), requirements.into());
    doc.insert("project_context".into(), project_context);
    doc.insert("non_goals".into(), non_goals);
    Ok(js::stringify(&Value::Object(doc), false) + "\n")
}

// ------------------------------------------------------------------ stories

/// The steering reason of every mid-course change: evidence and rationale, non-blank.
pub struct Steering<'a> {
    pub evidence: &'a str,
    pub rationale: &'a str,
}

impl Steering<'_> {
    fn check(&self, what: &str) -> Result<()> {
        if js::is_blank(self.evidence) {
            return Err(thrown(format!(
                "{what}: refused — --evidence is required (what was observed that forces this change)"
            )));
        }
        if js::is_blank(self.rationale) {
            return Err(thrown(format!(
                "{what}: refused — --rationale is required (why this change is the right response)"
            )));
        }
        Ok(())
    }

    fn fields(&self) -> [(&'static str, Value); 2] {
        [
            ("steering_evidence", self.evidence.into()),
            ("steering_rationale", self.rationale.into()),
        ]
    }
}

/// `validateStoryFields`.
fn validate_story(story: &Value, what: &str) -> Result<()> {
    let id = match prop(story, "id")? {
        Some(Value::String(id)) if !js::is_blank(id) => id.clone(),
        _ => {
            return Err(thrown(format!(
                "{what}: refused — story is missing a non-empty id"
            )))
        }
    };
    match prop(story, "acceptance_criteria")? {
        Some(Value::Array(criteria)) if !criteria.is_empty() => {}
        _ => {
            return Err(thrown(format!(
                "{what}: refused — story \"{id}\" has no acceptance criteria"
            )))
        }
    }
    if falsy_or_blank(
        prop(story, "verification_surface")?,
        "a story's verification_surface",
    )? {
        return Err(thrown(format!(
            "{what}: refused — story \"{id}\" is missing verification_surface"
        )));
    }
    Ok(())
}

/// A new or revised story's status, when given, must be known and never `confirmed`.
fn check_given_status(status: Option<&Value>, what: &str) -> Result<()> {
    let Some(given) = status else {
        return Ok(());
    };
    if !given.as_str().is_some_and(|s| STATUSES.contains(&s)) {
        return Err(thrown(format!(
            "{what}: refused — invalid status \"{}\"",
            js::string_of(Some(given))
        )));
    }
    if given.as_str() == Some("confirmed") {
        return Err(thrown(format!(
            "{what}: refused — mutations cannot produce confirmed status (use confirm-story)"
        )));
    }
    Ok(())
}

fn require_planning(prior: &Value, what: &str) -> Result<()> {
    if is_planning(prior)? {
        return Ok(());
    }
    Err(thrown(format!(
        "{what}: refused — phase must be 'planning' (got \"{}\")",
        js::string_of(prop(prior, "phase")?)
    )))
}

fn require_outcome(prior: &Value, message: String) -> Result<()> {
    if falsy_or_blank(prop(prior, "outcome")?, "outcome")? {
        return Err(thrown(message));
    }
    Ok(())
}

fn stories_next(stories: Vec<Value>) -> State {
    next([("stories", Value::Array(stories))])
}

/// `setStories` (`set-stories --json`).
pub fn set_stories(session: &Session, stories: &[Value]) -> Result<()> {
    const WHAT: &str = "set-stories";
    mutate(session, |prior: &Value, _text: Option<&str>| {
        require_planning(prior, WHAT)?;
        require_outcome(
            prior,
            format!("{WHAT}: refused — outcome must be set before ingesting stories"),
        )?;
        if stories.is_empty() {
            return Err(thrown(format!(
                "{WHAT}: refused — story set must not be empty"
            )));
        }
        let mut seen: Vec<&str> = Vec::new();
        for story in stories {
            validate_story(story, WHAT)?;
            let id = story.get("id").and_then(Value::as_str).unwrap_or("");
            if seen.contains(&id) {
                return Err(thrown(format!(
                    "{WHAT}: refused — duplicate story id \"{id}\""
                )));
            }
            seen.push(id);
        }
        let normalized = stories
            .iter()
            .map(|story| {
                let object = story.as_object().cloned().unwrap_or_default();
                let rest = without(&without(&object, &STEERING), &SPLIT);
                with_fields(&Value::Object(rest), &[("status", "unconfirmed".into())])
            })
            .collect();
        Ok(Some(stories_next(normalized)))
    })
}

/// `setSingleStory` (`set-stories --single`).
pub fn set_single(session: &Session) -> Result<()> {
    const WHAT: &str = "set-stories --single";
    mutate(session, |prior: &Value, _text: Option<&str>| {
        require_planning(prior, WHAT)?;
        require_outcome(
            prior,
            format!("{WHAT}: refused — outcome must be set before auto-deriving a story"),
        )?;
        let surface = js::present(prop(prior, "verification_surface")?)
            .cloned()
            .unwrap_or_else(|| "".into());
        if trimmed(Some(&surface), "verification_surface")?.is_empty() {
            return Err(thrown(format!(
                "{WHAT}: refused — verification_surface must be set before auto-deriving a story"
            )));
        }
        let mut story = Object::new();
        story.insert("id".into(), "S1".into());
        story.insert(
            "story".into(),
            prop(prior, "outcome")?.cloned().unwrap_or(Value::Null),
        );
        story.insert(
            "acceptance_criteria".into(),
            Value::Array(vec![surface.clone()]),
        );
        story.insert("verification_surface".into(), surface);
        story.insert("status".into(), "confirmed".into());
        Ok(Some(stories_next(vec![Value::Object(story)])))
    })
}

/// The stories as stored and where `story_id` is among them; an unknown id refused as the
/// reference refuses it.
fn stories_with(prior: &Value, story_id: &str, what: &str) -> Result<(Vec<Value>, usize)> {
    let stories_value = stories_of(prior)?;
    let stories = list(&stories_value, "stories")?.to_vec();
    match find_index(&stories, story_id)? {
        Some(at) => Ok((stories, at)),
        None => Err(thrown(format!("{what}: unknown story id \"{story_id}\""))),
    }
}

fn find_index(stories: &[Value], id: &str) -> Result<Option<usize>> {
    for (at, story) in stories.iter().enumerate() {
        if id_is(story, id)? {
            return Ok(Some(at));
        }
    }
    Ok(None)
}

/// `confirmStory`: an already confirmed story is a no-op (nothing written, nothing seeded).
pub fn confirm(session: &Session, story_id: &str) -> Result<()> {
    const WHAT: &str = "confirm-story";
    mutate(session, |prior: &Value, _text: Option<&str>| {
        let (stories, at) = stories_with(prior, story_id, WHAT)?;
        let stories = stories.as_slice();
        if status_is(&stories[at], "retired")? {
            return Err(thrown(format!(
                "{WHAT}: refused — story \"{story_id}\" is retired"
            )));
        }
        if status_is(&stories[at], "confirmed")? {
            return Ok(None);
        }
        let mut updated = Vec::new();
        for story in stories {
            updated.push(if id_is(story, story_id)? {
                with_fields(story, &[("status", "confirmed".into())])
            } else {
                story.clone()
            });
        }
        Ok(Some(stories_next(updated)))
    })
}

/// `confirmAllStories`.
pub fn confirm_all(session: &Session) -> Result<()> {
    mutate(session, |prior: &Value, _text: Option<&str>| {
        let stories_value = stories_of(prior)?;
        let mut updated = Vec::new();
        for story in list(&stories_value, "stories")? {
            updated.push(if status_is(story, "unconfirmed")? {
                with_fields(story, &[("status", "confirmed".into())])
            } else {
                story.clone()
            });
        }
        Ok(Some(stories_next(updated)))
    })
}

/// A value's `.length` as a message shows it (`undefined` for what has none).
fn length_text(value: &Value) -> String {
    match value {
        Value::Array(items) => items.len().to_string(),
        Value::String(text) => text.encode_utf16().count().to_string(),
        Value::Object(object) => js::string_of(object.get("length")),
        _ => "undefined".into(),
    }
}

fn length_equals(value: &Value, n: usize) -> bool {
    match value {
        Value::Array(items) => items.len() == n,
        Value::String(text) => text.encode_utf16().count() == n,
        Value::Object(object) => object
            .get("length")
            .and_then(Value::as_f64)
            .is_some_and(|l| l == n as f64),
        _ => false,
    }
}

/// `reorderStories`.
pub fn reorder(session: &Session, order: &[String]) -> Result<()> {
    const WHAT: &str = "reorder-stories";
    mutate(session, |prior: &Value, _text: Option<&str>| {
        require_planning(prior, WHAT)?;
        let stories_value = stories_of(prior)?;
        if !length_equals(&stories_value, order.len()) {
            return Err(thrown(format!(
                "{WHAT}: refused — --order must list exactly the {} current story id(s) (got {})",
                length_text(&stories_value),
                order.len()
            )));
        }
        let stories = list(&stories_value, "stories")?;
        // `new Map(stories.map(s => [s.id, s]))`: the last story of an id wins.
        let mut by_id: Vec<(&str, &Value)> = Vec::new();
        for story in stories {
            if let Some(Value::String(id)) = prop(story, "id")? {
                by_id.retain(|(known, _)| *known != id.as_str());
                by_id.push((id.as_str(), story));
            }
        }
        let mut reordered = Vec::new();
        for (at, wanted) in order.iter().enumerate() {
            if order[..at].contains(wanted) {
                return Err(thrown(format!(
                    "{WHAT}: refused — duplicate story id \"{wanted}\" in --order"
                )));
            }
            let Some((_, story)) = by_id.iter().find(|(id, _)| id == wanted) else {
                return Err(thrown(format!(
                    "{WHAT}: refused — unknown story id \"{wanted}\" in --order"
                )));
            };
            reordered.push((*story).clone());
        }
        Ok(Some(stories_next(reordered)))
    })
}

/// `addStory`.
pub fn add(session: &Session, story: &Object, steering: &Steering) -> Result<()> {
    const WHAT: &str = "add-story";
    steering.check(WHAT)?;
    mutate(session, |prior: &Value, _text: Option<&str>| {
        let existing = stories_of(prior)?;
        require_outcome(
            prior,
            format!("{WHAT}: refused — outcome must be set before adding stories"),
        )?;
        check_given_status(story.get("status"), WHAT)?;
        let story_value = Value::Object(story.clone());
        validate_story(&story_value, WHAT)?;
        let id = story.get("id").and_then(Value::as_str).unwrap_or("");
        for known in list(&existing, "stories")? {
            if id_is(known, id)? {
                return Err(thrown(format!(
                    "{WHAT}: refused — story id \"{id}\" already exists"
                )));
            }
        }
        let mut fields = vec![("status", Value::from("unconfirmed"))];
        fields.extend(steering.fields());
        let normalized = with_fields(&Value::Object(without(story, &SPLIT)), &fields);
        let mut stories = list(&existing, "stories")?.to_vec();
        stories.push(normalized);
        Ok(Some(stories_next(stories)))
    })
}

/// `reviseStory`.
pub fn revise(
    session: &Session,
    story_id: &str,
    patch: &Object,
    steering: &Steering,
) -> Result<()> {
    const WHAT: &str = "revise-story";
    steering.check(WHAT)?;
    mutate(session, |prior: &Value, _text: Option<&str>| {
        let (stories, at) = stories_with(prior, story_id, WHAT)?;
        let stories = stories.as_slice();
        if status_is(&stories[at], "retired")? {
            return Err(thrown(format!(
                "{WHAT}: refused — story \"{story_id}\" is retired (no resurrect-via-revise)"
            )));
        }
        if let Some(new_id) = patch.get("id") {
            let differs = new_id.as_str() != Some(story_id);
            if differs {
                for story in stories {
                    if review::strict_equal(prop(story, "id")?, Some(new_id)) {
                        return Err(thrown(format!(
                            "{WHAT}: refused — story id \"{}\" already exists",
                            js::string_of(Some(new_id))
                        )));
                    }
                }
            }
        }
        check_given_status(patch.get("status"), WHAT)?;
        let mut fields: Vec<(&str, Value)> = Vec::new();
        let patch_rest = without(patch, &SPLIT);
        let mut updated = with_fields(&stories[at], &[]);
        if let Value::Object(object) = &mut updated {
            for (key, value) in patch_rest {
                object.insert(key, value);
            }
        }
        fields.push(("status", "unconfirmed".into()));
        fields.extend(steering.fields());
        let updated = with_fields(&updated, &fields);
        validate_story(&updated, WHAT)?;
        let mut all = stories.to_vec();
        all[at] = updated;
        Ok(Some(stories_next(all)))
    })
}

/// `retireStory`.
pub fn retire(session: &Session, story_id: &str, steering: &Steering) -> Result<()> {
    const WHAT: &str = "retire-story";
    steering.check(WHAT)?;
    mutate(session, |prior: &Value, _text: Option<&str>| {
        let (stories, at) = stories_with(prior, story_id, WHAT)?;
        let stories = stories.as_slice();
        check_removable(prior, &stories[at], story_id, WHAT, ("retire", "retired"))?;
        let mut fields = vec![("status", Value::from("retired"))];
        fields.extend(steering.fields());
        let mut all = stories.to_vec();
        all[at] = with_fields(&stories[at], &fields);
        Ok(Some(stories_next(all)))
    })
}

/// Retired already, or confirmed during pursuit (the anti-dodge fence: re-plan first).
fn check_removable(
    prior: &Value,
    story: &Value,
    story_id: &str,
    what: &str,
    (verb, participle): (&str, &str),
) -> Result<()> {
    if status_is(story, "retired")? {
        return Err(thrown(format!(
            "{what}: refused — story \"{story_id}\" is already retired"
        )));
    }
    let pursuing = match phase_or_planning(prior)? {
        None => false,
        Some(phase) => phase.as_str() == Some("pursuing"),
    };
    if status_is(story, "confirmed")? && pursuing {
        return Err(thrown(format!(
            "{what}: refused — confirmed story \"{story_id}\" cannot be {participle} during \
pursuit. Re-plan first (set --phase planning) to {verb} confirmed stories."
        )));
    }
    Ok(())
}

/// `splitStory`.
pub fn split(
    session: &Session,
    story_id: &str,
    children: &[Value],
    steering: &Steering,
) -> Result<()> {
    const WHAT: &str = "split-story";
    steering.check(WHAT)?;
    mutate(session, |prior: &Value, _text: Option<&str>| {
        let (stories, at) = stories_with(prior, story_id, WHAT)?;
        let stories = stories.as_slice();
        let parent = &stories[at];
        check_removable(prior, parent, story_id, WHAT, ("split", "split"))?;
        if children.len() < 2 {
            return Err(thrown(format!(
            "{WHAT}: refused — a split needs >=2 replacements (got {}); for a 1:1 change use revise-story",
            children.len()
        )));
        }
        let mut existing = Vec::new();
        for story in stories {
            if let Some(Value::String(id)) = prop(story, "id")? {
                existing.push(id.as_str());
            }
        }
        let mut seen: Vec<&str> = Vec::new();
        for child in children {
            check_given_status(prop(child, "status")?, WHAT)?;
            validate_story(child, WHAT)?;
            let id = child.get("id").and_then(Value::as_str).unwrap_or("");
            if existing.contains(&id) {
                return Err(thrown(format!(
                    "{WHAT}: refused — story id \"{id}\" already exists"
                )));
            }
            if seen.contains(&id) {
                return Err(thrown(format!(
                    "{WHAT}: refused — duplicate replacement id \"{id}\""
                )));
            }
            seen.push(id);
        }
        let child_ids: Vec<Value> = children
            .iter()
            .map(|c| c.get("id").cloned().unwrap_or(Value::Null))
            .collect();
        let mut parent_fields = vec![("status", Value::from("retired"))];
        parent_fields.extend(steering.fields());
        parent_fields.push(("split_into", Value::Array(child_ids)));
        let retired = with_fields(parent, &parent_fields);
        let parent_id = prop(parent, "id")?.cloned().unwrap_or(Value::Null);
        let mut all: Vec<Value> = stories[..at].to_vec();
        all.push(retired);
        for child in children {
            let rest = without(child.as_object().unwrap_or(&Object::new()), &SPLIT);
            let mut fields = vec![("status", Value::from("unconfirmed"))];
            fields.extend(steering.fields());
            fields.push(("split_from", parent_id.clone()));
            all.push(with_fields(&Value::Object(rest), &fields));
        }
        all.extend_from_slice(&stories[at + 1..]);
        Ok(Some(stories_next(all)))
    })
}

/// The flags `set` reads from the parsed arguments (after the command checked the valueless
/// ones).
pub fn set_opts(flags: &Parsed, codex_goal_objective: Option<String>, max: Option<f64>) -> SetOpts {
    let mut fields = Vec::new();
    for (flag, key) in SET_TEXT_FLAGS {
        if let Some(value) = flags.text(flag) {
            fields.push((key, value.to_string()));
        }
    }
    SetOpts {
        phase: flags.text("phase").unwrap_or("").to_string(),
        fields,
        max_iterations: max,
        completion_evidence: flags.text("completion-evidence").map(comma_list),
        codex_goal_objective,
    }
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
    fn comma_lists_trim_the_javascript_way() {
        assert_eq!(comma_list("\u{feff}, e1 ,,\u{3000}"), ["e1"]);
        assert_eq!(comma_list("\u{85},a"), ["\u{85}", "a"]);
    }
}
