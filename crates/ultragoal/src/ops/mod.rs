//! The state CLI's subcommands (docs/formats/ultragoal.md §2), rule for rule as the reference's G1
//! generation runs them on the same files — its validation order, its messages, its JavaScript
//! values (a field may hold any JSON value; where the reference would die on a TypeError, the
//! result is a [`Refusal::Crash`] instead). Each takes the parsed arguments and says what to print.
//!
//! Like the reference, a writer validates against the file as read, then seeds it if absent, takes
//! the lock and merges its fields into the file as it is under the lock.

use super::args::Parsed;
use super::js::{self, JsObject, JsString, JsValue};
use super::review::{self, CodeReview, Outcome};
use super::session::{self, Session};
use super::state::{self, Crash, State};
use super::{Refusal, Reply};

type Result<T> = std::result::Result<T, Refusal>;

impl From<Crash> for Refusal {
    fn from(crash: Crash) -> Self {
        Refusal::Crash(crash.0)
    }
}

fn thrown(message: impl Into<String>) -> Refusal {
    Refusal::Thrown(message.into())
}

/// `"{what}: refused — {why}"`, thrown.
fn refused<T>(what: &str, why: impl std::fmt::Display) -> Result<T> {
    Err(thrown(format!("{what}: refused — {why}")))
}

fn crash(what: impl Into<String>) -> Refusal {
    Refusal::Crash(what.into())
}

// ------------------------------------------------------------------ JavaScript access

/// `v.key`: an object's own key; `null` throws; any other value has no such property.
fn prop<'a>(v: &'a JsValue, key: &str) -> Result<Option<&'a JsValue>> {
    match v {
        JsValue::Object(object) => Ok(object.get(key)),
        JsValue::Null => Err(crash(format!(
            "null is not an object (evaluating '….{key}')"
        ))),
        _ => Ok(None),
    }
}

/// A value the reference calls an array method on (`.filter`, `.map`, `.some`, …).
fn list<'a>(v: &'a JsValue, what: &str) -> Result<&'a [JsValue]> {
    match v {
        JsValue::Array(items) => Ok(items),
        other => Err(crash(format!(
            "{what} is not an array ({} has no array methods)",
            kind(other)
        ))),
    }
}

fn kind(v: &JsValue) -> &'static str {
    match v {
        JsValue::Null => "null",
        JsValue::Bool(_) => "a boolean",
        JsValue::Number(_) => "a number",
        JsValue::String(_) => "a string",
        JsValue::Array(_) => "an array",
        JsValue::Object(_) => "an object",
    }
}

/// `v.trim()`: only strings have it.
fn trimmed(v: Option<&JsValue>, what: &str) -> Result<JsString> {
    match v {
        Some(JsValue::String(text)) => Ok(text.trim()),
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
fn falsy_or_blank(v: Option<&JsValue>, what: &str) -> Result<bool> {
    Ok(!js::truthy(v) || trimmed(v, what)?.is_empty())
}

/// `prior.stories ?? []`.
fn stories_of(prior: &JsValue) -> Result<JsValue> {
    Ok(js::present(prop(prior, "stories")?)
        .cloned()
        .unwrap_or(JsValue::Array(Vec::new())))
}

/// `s.status === status` for a story (a `null` story throws).
fn status_is(story: &JsValue, status: &str) -> Result<bool> {
    Ok(prop(story, "status")?.and_then(JsValue::as_str) == Some(status))
}

/// `s.id === id` (ids compared strictly: only a string equals a string).
fn id_is(story: &JsValue, id: &JsString) -> Result<bool> {
    Ok(prop(story, "id")?.and_then(JsValue::as_js_str) == Some(id))
}

/// `(prior.phase ?? "planning")`, as text for a message (`String(x)`).
fn phase_or_planning(prior: &JsValue) -> Result<Option<&JsValue>> {
    Ok(js::present(prop(prior, "phase")?))
}

/// `{...object, key: value, …}`: an object's copy with the fields set (existing keys keep their
/// place, new ones follow).
fn with_fields(story: &JsValue, fields: &[(&str, JsValue)]) -> JsValue {
    let mut object = match story {
        JsValue::Object(object) => object.clone(),
        _ => JsObject::new(),
    };
    for (key, value) in fields {
        object.set(key, value.clone());
    }
    JsValue::Object(object)
}

fn without(story: &JsObject, keys: &[&str]) -> JsObject {
    story
        .iter()
        .filter(|(k, _)| !keys.iter().any(|key| **k == **key))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

const SPLIT: [&str; 2] = ["split_from", "split_into"];
const STEERING: [&str; 2] = ["steering_evidence", "steering_rationale"];
const STATUSES: [&str; 3] = ["unconfirmed", "confirmed", "retired"];

// ------------------------------------------------------------------ reading and writing

/// `mergeWrite`: seed if absent (and never adopted away), lock, merge, write.
fn merge_write(session: &Session, next: State) -> Result<()> {
    session.ensure_seed()?;
    let lock = session.lock()?;
    merge_write_locked(session, &lock, next)?;
    Ok(())
}

fn merge_write_locked(
    session: &Session,
    lock: &ucg_store::mkdir_lock::StateLock,
    next: State,
) -> Result<State> {
    let prior = session.prior()?;
    let merged = state::merged(&prior, &next, &state::now_stamp())?;
    session.write(lock, &merged)?;
    Ok(merged)
}

/// A writer: `compute` validates against the file as read (refusing before anything is seeded
/// or locked, as the reference does) and says what to merge (`None`: nothing to write); then the
/// file is seeded if absent, locked and merged. Should another writer have changed the file in
/// between, `compute` runs again on what is under the lock — the reference would merge fields
/// computed from the older read and lose that writer's change.
fn mutate(
    session: &Session,
    compute: impl Fn(&JsValue, Option<&str>) -> Result<Option<State>>,
) -> Result<()> {
    session.use_dir()?;
    let before = session.text();
    let Some(fields) = compute(&session::prior_of(before.as_deref())?, before.as_deref())? else {
        return Ok(());
    };
    session.ensure_seed()?;
    let lock = session.lock()?;
    let locked = session.text();
    let changed = match &before {
        Some(before) => locked.as_ref() != Some(before),
        // Absent before: the seed this writer (or a racing one) made is what it expected.
        None => !locked
            .as_deref()
            .and_then(|text| state::parse(text.as_bytes()))
            .is_some_and(|seed| is_pristine(&seed)),
    };
    let fields = match changed {
        true => compute(&session::prior_of(locked.as_deref())?, locked.as_deref())?,
        false => Some(fields),
    };
    if let Some(fields) = fields {
        merge_write_locked(session, &lock, fields)?;
    }
    Ok(())
}

fn prior(session: &Session) -> Result<JsValue> {
    session.use_dir()?;
    session.prior()
}

fn next(fields: impl IntoIterator<Item = (&'static str, JsValue)>) -> State {
    fields
        .into_iter()
        .map(|(key, value)| (key.into(), value))
        .collect()
}

/// `readGoalStateRaw` of a state file's text: a state passing the readers' guard, with the review
/// fields defaulted (in place, else appended), terminal phases included.
pub fn raw_of(text: Option<&str>) -> Option<State> {
    let mut state = state::parse(text?.as_bytes())?;
    if !state::passes_guard(&state) {
        return None;
    }
    let used = state::int_at_least(state.get("review_dispatch_used"), 0).unwrap_or(0);
    let cap = state::int_at_least(state.get("review_dispatch_cap"), 0)
        .unwrap_or(state::REVIEW_DISPATCH_GRANT);
    let sha = match state.get("approved_review_artifact_sha256") {
        Some(JsValue::String(sha)) => sha.clone(),
        _ => JsString::new(),
    };
    state.set("review_dispatch_used", (used as f64).into());
    state.set("review_dispatch_cap", (cap as f64).into());
    state.set("approved_review_artifact_sha256", sha.into());
    Some(state)
}

/// `readGoalState`: the raw state when active.
fn read_active(session: &Session) -> Result<Option<State>> {
    session.use_dir()?;
    Ok(raw_of(session.text().as_deref()).filter(state::is_active))
}

/// `isPristine` (§3.1): planning, iteration 0 or absent, outcome `""` or absent — a seed nobody
/// has used, inert for every reader.
pub fn is_pristine(state: &JsObject) -> bool {
    state.get("phase").and_then(JsValue::as_str) == Some("planning")
        && state
            .get("iteration")
            .is_none_or(|i| i.as_f64() == Some(0.0))
        && state.get("outcome").is_none_or(|o| o.as_str() == Some(""))
}

mod dispatch;
mod phase;
mod reads;
mod stories;

pub use dispatch::*;
pub use phase::*;
pub use reads::*;
pub use stories::*;
