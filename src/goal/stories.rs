//! The story layer (docs/formats/ultragoal.md §2.8): the planning commands that shape the ordered list
//! of stories, and the only producers of `confirmed`. Each is a function over the state (and the
//! already parsed JSON argument) that either changes it or refuses with the reference's message,
//! leaving it as it was. Stories keep their keys in order; a changed key keeps its place.

use super::state::{self, is_blank, State};
use serde_json::{Map, Value};

pub type Story = Map<String, Value>;
type Result<T> = std::result::Result<T, String>;

const STATUSES: [&str; 3] = ["unconfirmed", "confirmed", "retired"];
const STEERING: [&str; 2] = ["steering_evidence", "steering_rationale"];
const SPLIT: [&str; 2] = ["split_from", "split_into"];

pub fn id(story: &Value) -> &str {
    story.get("id").and_then(Value::as_str).unwrap_or("")
}

pub fn status(story: &Value) -> &str {
    story.get("status").and_then(Value::as_str).unwrap_or("")
}

/// The stored stories (an absent or non-array value reads as none).
pub fn list(state: &State) -> &[Value] {
    state
        .get("stories")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

fn replace_list(state: &mut State, stories: Vec<Value>) {
    state.insert("stories".into(), Value::Array(stories));
}

/// Ids of the stories still `unconfirmed`.
pub fn unconfirmed(state: &State) -> Vec<&str> {
    list(state)
        .iter()
        .filter(|s| status(s) == "unconfirmed")
        .map(id)
        .collect()
}

/// The fields every stored story has: a non-blank id, acceptance criteria, a verification surface.
fn check_fields(story: &Story, what: &str) -> Result<()> {
    let id = match story.get("id").and_then(Value::as_str) {
        Some(id) if !is_blank(id) => id,
        _ => return Err(format!("{what}: refused — story is missing a non-empty id")),
    };
    match story.get("acceptance_criteria").and_then(Value::as_array) {
        Some(criteria) if !criteria.is_empty() => {
            // Stricter than the reference, which would serialize `[object Object]` for the reviewer.
            if !criteria.iter().all(Value::is_string) {
                return Err(format!(
                    "{what}: refused — story \"{id}\" has an acceptance criterion that is not a string"
                ));
            }
        }
        _ => {
            return Err(format!(
                "{what}: refused — story \"{id}\" has no acceptance criteria"
            ))
        }
    }
    if story
        .get("verification_surface")
        .and_then(Value::as_str)
        .is_none_or(is_blank)
    {
        return Err(format!(
            "{what}: refused — story \"{id}\" is missing verification_surface"
        ));
    }
    Ok(())
}

/// A new or revised story's status may be given, but must be known and never `confirmed`.
fn check_given_status(story: &Story, what: &str) -> Result<()> {
    let Some(given) = story.get("status") else {
        return Ok(());
    };
    match given.as_str() {
        Some("confirmed") => Err(format!(
            "{what}: refused — mutations cannot produce confirmed status (use confirm-story)"
        )),
        Some(known) if STATUSES.contains(&known) => Ok(()),
        _ => Err(format!(
            "{what}: refused — invalid status \"{}\"",
            js_string(given)
        )),
    }
}

/// A value as JavaScript's `String()` renders it in a message.
fn js_string(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Array(items) => items.iter().map(js_string).collect::<Vec<_>>().join(","),
        Value::Object(_) => "[object Object]".into(),
        other => other.to_string(),
    }
}

fn require_planning(state: &State, what: &str) -> Result<()> {
    match state
        .get("phase")
        .and_then(Value::as_str)
        .unwrap_or("planning")
    {
        "planning" => Ok(()),
        other => Err(format!(
            "{what}: refused — phase must be 'planning' (got \"{other}\")"
        )),
    }
}

fn require_outcome(state: &State, message: String) -> Result<()> {
    match is_blank(state::text(state, "outcome")) {
        true => Err(message),
        false => Ok(()),
    }
}

/// The steering reason every mid-course change carries: evidence and rationale, non-blank.
pub struct Steering<'a> {
    pub evidence: &'a str,
    pub rationale: &'a str,
}

impl Steering<'_> {
    fn check(&self, what: &str) -> Result<()> {
        if is_blank(self.evidence) {
            return Err(format!(
                "{what}: refused — --evidence is required (what was observed that forces this change)"
            ));
        }
        if is_blank(self.rationale) {
            return Err(format!(
                "{what}: refused — --rationale is required (why this change is the right response)"
            ));
        }
        Ok(())
    }

    fn stamp(&self, story: &mut Story) {
        story.insert("steering_evidence".into(), self.evidence.into());
        story.insert("steering_rationale".into(), self.rationale.into());
    }
}

fn strip(story: &mut Story, keys: &[&str]) {
    for key in keys {
        story.shift_remove(*key);
    }
}

fn position(state: &State, story_id: &str, what: &str) -> Result<usize> {
    list(state)
        .iter()
        .position(|s| id(s) == story_id)
        .ok_or_else(|| format!("{what}: unknown story id \"{story_id}\""))
}

fn story_id_of(story: &Story) -> &str {
    story.get("id").and_then(Value::as_str).unwrap_or("")
}

/// `set-stories --json`: the whole list replaced, every story unconfirmed, provenance stripped.
pub fn set_stories(state: &mut State, mut stories: Vec<Story>) -> Result<()> {
    const WHAT: &str = "set-stories";
    require_planning(state, WHAT)?;
    require_outcome(
        state,
        format!("{WHAT}: refused — outcome must be set before ingesting stories"),
    )?;
    if stories.is_empty() {
        return Err(format!("{WHAT}: refused — story set must not be empty"));
    }
    for story in &stories {
        check_fields(story, WHAT)?;
    }
    for (at, story) in stories.iter().enumerate() {
        let story_id = story_id_of(story);
        if stories[..at].iter().any(|s| story_id_of(s) == story_id) {
            return Err(format!(
                "{WHAT}: refused — duplicate story id \"{story_id}\""
            ));
        }
    }
    for story in &mut stories {
        strip(story, &STEERING);
        strip(story, &SPLIT);
        story.insert("status".into(), "unconfirmed".into());
    }
    replace_list(state, stories.into_iter().map(Value::Object).collect());
    Ok(())
}

/// `set-stories --single`: the outcome as the one confirmed story S1 (the only auto-confirmation).
pub fn set_single(state: &mut State) -> Result<()> {
    const WHAT: &str = "set-stories --single";
    require_planning(state, WHAT)?;
    require_outcome(
        state,
        format!("{WHAT}: refused — outcome must be set before auto-deriving a story"),
    )?;
    if !list(state).is_empty() {
        return Err(format!(
            "{WHAT}: refused — stories already exist; use confirm-story after replanning"
        ));
    }
    let surface = state::text(state, "verification_surface").to_string();
    if is_blank(&surface) {
        return Err(format!(
            "{WHAT}: refused — verification_surface must be set before auto-deriving a story"
        ));
    }
    let story = serde_json::json!({
        "id": "S1",
        "story": state::text(state, "outcome"),
        "acceptance_criteria": [surface],
        "verification_surface": surface,
        "status": "confirmed",
    });
    replace_list(state, vec![story]);
    Ok(())
}

fn set_status(story: &mut Value, to: &str) {
    if let Value::Object(story) = story {
        story.insert("status".into(), to.into());
    }
}

/// `confirm-story <id>`: whether it changed anything (an already confirmed story is a no-op).
pub fn confirm(state: &mut State, story_id: &str) -> Result<bool> {
    const WHAT: &str = "confirm-story";
    let at = position(state, story_id, WHAT)?;
    let mut stories = list(state).to_vec();
    match status(&stories[at]) {
        "retired" => Err(format!("{WHAT}: refused — story \"{story_id}\" is retired")),
        "confirmed" => Ok(false),
        _ => {
            set_status(&mut stories[at], "confirmed");
            replace_list(state, stories);
            Ok(true)
        }
    }
}

/// `confirm-all-stories`: every unconfirmed story confirmed.
pub fn confirm_all(state: &mut State) {
    let mut stories = list(state).to_vec();
    for story in &mut stories {
        if status(story) == "unconfirmed" {
            set_status(story, "confirmed");
        }
    }
    replace_list(state, stories);
}

/// `reorder-stories --order a,b,…`: an exact permutation of every stored id, retired included.
pub fn reorder(state: &mut State, order: &[String]) -> Result<()> {
    const WHAT: &str = "reorder-stories";
    require_planning(state, WHAT)?;
    let stories = list(state);
    if order.len() != stories.len() {
        return Err(format!(
            "{WHAT}: refused — --order must list exactly the {} current story id(s) (got {})",
            stories.len(),
            order.len()
        ));
    }
    let mut reordered = Vec::with_capacity(order.len());
    for (at, wanted) in order.iter().enumerate() {
        if order[..at].contains(wanted) {
            return Err(format!(
                "{WHAT}: refused — duplicate story id \"{wanted}\" in --order"
            ));
        }
        let story = stories
            .iter()
            .find(|s| id(s) == wanted)
            .ok_or_else(|| format!("{WHAT}: refused — unknown story id \"{wanted}\" in --order"))?;
        reordered.push(story.clone());
    }
    replace_list(state, reordered);
    Ok(())
}

/// `add-story`: appended unconfirmed, with its steering reason; planning or pursuing.
pub fn add(state: &mut State, mut story: Story, steering: &Steering) -> Result<()> {
    const WHAT: &str = "add-story";
    steering.check(WHAT)?;
    require_outcome(
        state,
        format!("{WHAT}: refused — outcome must be set before adding stories"),
    )?;
    check_given_status(&story, WHAT)?;
    check_fields(&story, WHAT)?;
    let new_id = story_id_of(&story).to_string();
    if list(state).iter().any(|s| id(s) == new_id) {
        return Err(format!(
            "{WHAT}: refused — story id \"{new_id}\" already exists"
        ));
    }
    strip(&mut story, &SPLIT);
    story.insert("status".into(), "unconfirmed".into());
    steering.stamp(&mut story);
    let mut stories = list(state).to_vec();
    stories.push(Value::Object(story));
    replace_list(state, stories);
    Ok(())
}

/// `revise-story <id>`: the patch applied, the story back to unconfirmed (a revision needs a new
/// approval), never to a retired story.
pub fn revise(state: &mut State, story_id: &str, patch: Story, steering: &Steering) -> Result<()> {
    const WHAT: &str = "revise-story";
    steering.check(WHAT)?;
    let at = position(state, story_id, WHAT)?;
    let mut stories = list(state).to_vec();
    if status(&stories[at]) == "retired" {
        return Err(format!(
            "{WHAT}: refused — story \"{story_id}\" is retired (no resurrect-via-revise)"
        ));
    }
    if let Some(new_id) = patch.get("id") {
        let new_id = js_string(new_id);
        let collides = new_id != story_id && stories.iter().any(|s| id(s) == new_id);
        if collides {
            return Err(format!(
                "{WHAT}: refused — story id \"{new_id}\" already exists"
            ));
        }
    }
    check_given_status(&patch, WHAT)?;
    let Value::Object(mut story) = stories[at].clone() else {
        return Err(format!("{WHAT}: unknown story id \"{story_id}\""));
    };
    for (key, value) in patch {
        if !SPLIT.contains(&key.as_str()) {
            story.insert(key, value);
        }
    }
    story.insert("status".into(), "unconfirmed".into());
    steering.stamp(&mut story);
    check_fields(&story, WHAT)?;
    stories[at] = Value::Object(story);
    replace_list(state, stories);
    Ok(())
}

/// A story leaves the plan (retired or split) only once, and a confirmed one not during pursuit
/// (the anti-dodge fence: re-plan first).
fn check_removable(
    state: &State,
    at: usize,
    story_id: &str,
    what: &str,
    (verb, participle): (&str, &str),
) -> Result<()> {
    match status(&list(state)[at]) {
        "retired" => Err(format!(
            "{what}: refused — story \"{story_id}\" is already retired"
        )),
        "confirmed" if state::phase(state) == "pursuing" => Err(format!(
            "{what}: refused — confirmed story \"{story_id}\" cannot be {participle} during \
pursuit. Re-plan first (set --phase planning) to {verb} confirmed stories."
        )),
        _ => Ok(()),
    }
}

/// `retire-story <id>`: out of the pursuit, with its reason; a confirmed story cannot be retired
/// while pursuing (the anti-dodge fence: re-plan first).
pub fn retire(state: &mut State, story_id: &str, steering: &Steering) -> Result<()> {
    const WHAT: &str = "retire-story";
    steering.check(WHAT)?;
    let at = position(state, story_id, WHAT)?;
    check_removable(state, at, story_id, WHAT, ("retire", "retired"))?;
    let mut stories = list(state).to_vec();
    if let Value::Object(story) = &mut stories[at] {
        story.insert("status".into(), "retired".into());
        steering.stamp(story);
    }
    replace_list(state, stories);
    Ok(())
}

/// `split-story <id>`: the parent retired in place pointing at its children, the children (two or
/// more, unconfirmed) right after it pointing back.
pub fn split(
    state: &mut State,
    story_id: &str,
    mut children: Vec<Story>,
    steering: &Steering,
) -> Result<()> {
    const WHAT: &str = "split-story";
    steering.check(WHAT)?;
    let at = position(state, story_id, WHAT)?;
    check_removable(state, at, story_id, WHAT, ("split", "split"))?;
    let mut stories = list(state).to_vec();
    if children.len() < 2 {
        return Err(format!(
            "{WHAT}: refused — a split needs >=2 replacements (got {}); for a 1:1 change use revise-story",
            children.len()
        ));
    }
    for (n, child) in children.iter().enumerate() {
        check_given_status(child, WHAT)?;
        check_fields(child, WHAT)?;
        let child_id = story_id_of(child);
        if stories.iter().any(|s| id(s) == child_id) {
            return Err(format!(
                "{WHAT}: refused — story id \"{child_id}\" already exists"
            ));
        }
        if children[..n].iter().any(|c| story_id_of(c) == child_id) {
            return Err(format!(
                "{WHAT}: refused — duplicate replacement id \"{child_id}\""
            ));
        }
    }
    let child_ids: Vec<String> = children
        .iter()
        .map(|c| story_id_of(c).to_string())
        .collect();
    if let Value::Object(parent) = &mut stories[at] {
        parent.insert("status".into(), "retired".into());
        steering.stamp(parent);
        parent.insert("split_into".into(), child_ids.into());
    }
    for child in &mut children {
        strip(child, &SPLIT);
        child.insert("status".into(), "unconfirmed".into());
        steering.stamp(child);
        child.insert("split_from".into(), story_id.into());
    }
    let after = stories.split_off(at + 1);
    stories.extend(children.into_iter().map(Value::Object));
    stories.extend(after);
    replace_list(state, stories);
    Ok(())
}
