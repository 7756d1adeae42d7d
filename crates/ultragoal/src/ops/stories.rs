//! The story operations: setting, confirming, reordering, adding, revising, retiring and
//! splitting stories, steering evidence included.

use super::*;

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

    /// A steered story's new `status`, then the steering reason.
    fn fields(&self, status: &str) -> Vec<(&'static str, JsValue)> {
        vec![
            ("status", status.into()),
            ("steering_evidence", self.evidence.into()),
            ("steering_rationale", self.rationale.into()),
        ]
    }
}

/// `validateStoryFields`.
fn validate_story(story: &JsValue, what: &str) -> Result<()> {
    let id = match prop(story, "id")? {
        Some(JsValue::String(id)) if !id.is_blank() => id.clone(),
        _ => return refused(what, "story is missing a non-empty id"),
    };
    match prop(story, "acceptance_criteria")? {
        Some(JsValue::Array(criteria)) if !criteria.is_empty() => {}
        _ => return refused(what, format!("story \"{id}\" has no acceptance criteria")),
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
fn check_given_status(status: Option<&JsValue>, what: &str) -> Result<()> {
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

fn require_planning(prior: &JsValue, what: &str) -> Result<()> {
    match phase_or_planning(prior)? {
        Some(phase) if phase.as_str() != Some("planning") => {
            let phase = js::string_of(Some(phase));
            refused(what, format!("phase must be 'planning' (got \"{phase}\")"))
        }
        _ => Ok(()),
    }
}

fn require_outcome(prior: &JsValue, what: &str, before: &str) -> Result<()> {
    if falsy_or_blank(prop(prior, "outcome")?, "outcome")? {
        return refused(what, format!("outcome must be set before {before}"));
    }
    Ok(())
}

fn stories_next(stories: Vec<JsValue>) -> State {
    next([("stories", JsValue::Array(stories))])
}

/// `setStories` (`set-stories --json`).
pub fn set_stories(session: &Session, stories: &[JsValue]) -> Result<()> {
    const WHAT: &str = "set-stories";
    mutate(session, |prior: &JsValue, _text: Option<&str>| {
        require_planning(prior, WHAT)?;
        require_outcome(prior, WHAT, "ingesting stories")?;
        if stories.is_empty() {
            return refused(WHAT, "story set must not be empty");
        }
        let mut seen: Vec<&JsString> = Vec::new();
        for story in stories {
            validate_story(story, WHAT)?;
            let id = crate::stories::id_ref(story);
            if seen.contains(&id) {
                return refused(WHAT, format!("duplicate story id \"{id}\""));
            }
            seen.push(id);
        }
        let normalized = stories
            .iter()
            .map(|story| {
                let object = story.as_object().cloned().unwrap_or_default();
                let rest = without(&without(&object, &STEERING), &SPLIT);
                with_fields(&JsValue::Object(rest), &[("status", "unconfirmed".into())])
            })
            .collect();
        Ok(Some(stories_next(normalized)))
    })
}

/// `setSingleStory` (`set-stories --single`).
pub fn set_single(session: &Session) -> Result<()> {
    const WHAT: &str = "set-stories --single";
    mutate(session, |prior: &JsValue, _text: Option<&str>| {
        require_planning(prior, WHAT)?;
        require_outcome(prior, WHAT, "auto-deriving a story")?;
        let surface = js::present(prop(prior, "verification_surface")?)
            .cloned()
            .unwrap_or_else(|| "".into());
        if trimmed(Some(&surface), "verification_surface")?.is_empty() {
            return Err(thrown(format!(
                "{WHAT}: refused — verification_surface must be set before auto-deriving a story"
            )));
        }
        let story = next([
            ("id", "S1".into()),
            (
                "story",
                prop(prior, "outcome")?.cloned().unwrap_or(JsValue::Null),
            ),
            ("acceptance_criteria", JsValue::Array(vec![surface.clone()])),
            ("verification_surface", surface),
            ("status", "confirmed".into()),
        ]);
        Ok(Some(stories_next(vec![JsValue::Object(story)])))
    })
}

/// The stories as stored and where `story_id` is among them; an unknown id refused as the
/// reference refuses it.
fn stories_with(prior: &JsValue, story_id: &str, what: &str) -> Result<(Vec<JsValue>, usize)> {
    let stories_value = stories_of(prior)?;
    let stories = list(&stories_value, "stories")?.to_vec();
    let id = JsString::from(story_id);
    for (at, story) in stories.iter().enumerate() {
        if id_is(story, &id)? {
            return Ok((stories, at));
        }
    }
    Err(thrown(format!("{what}: unknown story id \"{story_id}\"")))
}

/// `confirmStory`: an already confirmed story is a no-op (nothing written, nothing seeded).
pub fn confirm(session: &Session, story_id: &str) -> Result<()> {
    const WHAT: &str = "confirm-story";
    mutate(session, |prior: &JsValue, _text: Option<&str>| {
        let (stories, at) = stories_with(prior, story_id, WHAT)?;
        if status_is(&stories[at], "retired")? {
            return refused(WHAT, format!("story \"{story_id}\" is retired"));
        }
        if status_is(&stories[at], "confirmed")? {
            return Ok(None);
        }
        confirming(&stories, |story| id_is(story, &story_id.into()))
    })
}

/// `confirmAllStories`.
pub fn confirm_all(session: &Session) -> Result<()> {
    mutate(session, |prior: &JsValue, _text: Option<&str>| {
        let stories_value = stories_of(prior)?;
        let stories = list(&stories_value, "stories")?;
        confirming(stories, |story| status_is(story, "unconfirmed"))
    })
}

/// The stories, those `pick` picks confirmed, as the write's fields.
fn confirming(
    stories: &[JsValue],
    pick: impl Fn(&JsValue) -> Result<bool>,
) -> Result<Option<State>> {
    let mut updated = Vec::new();
    for story in stories {
        updated.push(if pick(story)? {
            with_fields(story, &[("status", "confirmed".into())])
        } else {
            story.clone()
        });
    }
    Ok(Some(stories_next(updated)))
}

/// `reorderStories`.
pub fn reorder(session: &Session, order: &[String]) -> Result<()> {
    const WHAT: &str = "reorder-stories";
    mutate(session, |prior: &JsValue, _text: Option<&str>| {
        require_planning(prior, WHAT)?;
        let stories_value = stories_of(prior)?;
        // `stories.length !== order.length`: strict, so only a number can match. (`None` is
        // `undefined`; an object's length is whatever it holds there.)
        let length = match &stories_value {
            JsValue::Array(items) => Some((items.len() as f64).into()),
            JsValue::String(text) => Some((text.units().len() as f64).into()),
            JsValue::Object(object) => object.get("length").cloned(),
            _ => None,
        };
        if length.as_ref().and_then(JsValue::as_f64) != Some(order.len() as f64) {
            return Err(thrown(format!(
                "{WHAT}: refused — --order must list exactly the {} current story id(s) (got {})",
                js::string_of(length.as_ref()),
                order.len()
            )));
        }
        let stories = list(&stories_value, "stories")?;
        // `new Map(stories.map(s => [s.id, s]))`: the last story of an id wins.
        let mut by_id: Vec<(&JsString, &JsValue)> = Vec::new();
        for story in stories {
            if let Some(JsValue::String(id)) = prop(story, "id")? {
                by_id.retain(|(known, _)| *known != id);
                by_id.push((id, story));
            }
        }
        let mut reordered = Vec::new();
        for (at, wanted) in order.iter().enumerate() {
            if order[..at].contains(wanted) {
                return refused(WHAT, format!("duplicate story id \"{wanted}\" in --order"));
            }
            let Some((_, story)) = by_id.iter().find(|(id, _)| **id == **wanted) else {
                return refused(WHAT, format!("unknown story id \"{wanted}\" in --order"));
            };
            reordered.push((*story).clone());
        }
        Ok(Some(stories_next(reordered)))
    })
}

/// `addStory`.
pub fn add(session: &Session, story: &JsObject, steering: &Steering) -> Result<()> {
    const WHAT: &str = "add-story";
    steering.check(WHAT)?;
    mutate(session, |prior: &JsValue, _text: Option<&str>| {
        let existing = stories_of(prior)?;
        require_outcome(prior, WHAT, "adding stories")?;
        check_given_status(story.get("status"), WHAT)?;
        let story_value = JsValue::Object(story.clone());
        validate_story(&story_value, WHAT)?;
        let id = crate::stories::id_ref(&story_value);
        for known in list(&existing, "stories")? {
            if id_is(known, id)? {
                return refused(WHAT, format!("story id \"{id}\" already exists"));
            }
        }
        let fields = steering.fields("unconfirmed");
        let normalized = with_fields(&JsValue::Object(without(story, &SPLIT)), &fields);
        let mut stories = list(&existing, "stories")?.to_vec();
        stories.push(normalized);
        Ok(Some(stories_next(stories)))
    })
}

/// `reviseStory`.
pub fn revise(
    session: &Session,
    story_id: &str,
    patch: &JsObject,
    steering: &Steering,
) -> Result<()> {
    const WHAT: &str = "revise-story";
    steering.check(WHAT)?;
    mutate(session, |prior: &JsValue, _text: Option<&str>| {
        let (mut stories, at) = stories_with(prior, story_id, WHAT)?;
        if status_is(&stories[at], "retired")? {
            return Err(thrown(format!(
                "{WHAT}: refused — story \"{story_id}\" is retired (no resurrect-via-revise)"
            )));
        }
        if let Some(new_id) = patch.get("id").filter(|id| id.as_str() != Some(story_id)) {
            for story in &stories {
                if review::strict_equal(prop(story, "id")?, Some(new_id)) {
                    let id = js::string_of(Some(new_id));
                    return refused(WHAT, format!("story id \"{id}\" already exists"));
                }
            }
        }
        check_given_status(patch.get("status"), WHAT)?;
        let mut updated = stories[at].as_object().cloned().unwrap_or_default();
        for (key, value) in without(patch, &SPLIT) {
            updated.insert(key, value);
        }
        let updated = with_fields(&updated.into(), &steering.fields("unconfirmed"));
        validate_story(&updated, WHAT)?;
        stories[at] = updated;
        Ok(Some(stories_next(stories)))
    })
}

/// `retireStory`.
pub fn retire(session: &Session, story_id: &str, steering: &Steering) -> Result<()> {
    const WHAT: &str = "retire-story";
    steering.check(WHAT)?;
    mutate(session, |prior: &JsValue, _text: Option<&str>| {
        let (mut stories, at) = stories_with(prior, story_id, WHAT)?;
        check_removable(prior, &stories[at], story_id, WHAT, ("retire", "retired"))?;
        stories[at] = with_fields(&stories[at], &steering.fields("retired"));
        Ok(Some(stories_next(stories)))
    })
}

/// Retired already, or confirmed during pursuit (the anti-dodge fence: re-plan first).
fn check_removable(
    prior: &JsValue,
    story: &JsValue,
    story_id: &str,
    what: &str,
    (verb, participle): (&str, &str),
) -> Result<()> {
    if status_is(story, "retired")? {
        return refused(what, format!("story \"{story_id}\" is already retired"));
    }
    let pursuing =
        phase_or_planning(prior)?.is_some_and(|phase| phase.as_str() == Some("pursuing"));
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
    children: &[JsValue],
    steering: &Steering,
) -> Result<()> {
    const WHAT: &str = "split-story";
    steering.check(WHAT)?;
    mutate(session, |prior: &JsValue, _text: Option<&str>| {
        let (mut stories, at) = stories_with(prior, story_id, WHAT)?;
        let parent = &stories[at];
        check_removable(prior, parent, story_id, WHAT, ("split", "split"))?;
        if children.len() < 2 {
            return Err(thrown(format!(
            "{WHAT}: refused — a split needs >=2 replacements (got {}); for a 1:1 change use revise-story",
            children.len()
        )));
        }
        let mut existing = Vec::new();
        for story in &stories {
            if let Some(JsValue::String(id)) = prop(story, "id")? {
                existing.push(id);
            }
        }
        let mut seen: Vec<&JsString> = Vec::new();
        for child in children {
            check_given_status(prop(child, "status")?, WHAT)?;
            validate_story(child, WHAT)?;
            let id = crate::stories::id_ref(child);
            if existing.contains(&id) {
                return refused(WHAT, format!("story id \"{id}\" already exists"));
            }
            if seen.contains(&id) {
                return refused(WHAT, format!("duplicate replacement id \"{id}\""));
            }
            seen.push(id);
        }
        let child_ids: Vec<JsValue> = children
            .iter()
            .map(|c| c.get("id").cloned().unwrap_or(JsValue::Null))
            .collect();
        let mut parent_fields = steering.fields("retired");
        parent_fields.push(("split_into", JsValue::Array(child_ids)));
        let parent_id = prop(parent, "id")?.cloned().unwrap_or(JsValue::Null);
        stories[at] = with_fields(parent, &parent_fields);
        // The replacements follow their retired parent.
        let replacements = children.iter().map(|child| {
            let rest = without(child.as_object().unwrap_or(&JsObject::new()), &SPLIT);
            let mut fields = steering.fields("unconfirmed");
            fields.push(("split_from", parent_id.clone()));
            with_fields(&JsValue::Object(rest), &fields)
        });
        stories.splice(at + 1..at + 1, replacements);
        Ok(Some(stories_next(stories)))
    })
}
