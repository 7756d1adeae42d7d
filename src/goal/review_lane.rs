//! The final code-review lane's budget and escape hatch (docs/formats/ultragoal.md §2.10, G1): the
//! hook-only dispatch claim, the user's renewal and the user's dismissal of a wrong finding.

use super::args::Parsed;
use super::review::{self, Outcome};
use super::session::Session;
use super::state::{self, is_blank, State};
use super::{Refusal, Reply};
use serde_json::Value;

/// The answer of a claim or a renewal: `{allowed, reason, used, cap}` on one line.
fn answer(allowed: bool, reason: &str, used: i64, cap: i64) -> Reply {
    let doc = serde_json::json!({"allowed": allowed, "reason": reason, "used": used, "cap": cap});
    let mut reply = Reply::out(format!("{doc}\n"));
    reply.failed = !allowed;
    reply
}

fn failure() -> Reply {
    answer(false, "failure", 0, 0)
}

fn pursuing(state: &State) -> bool {
    state::is_claimable(state) && state::is_active(state) && state::phase(state) == "pursuing"
}

fn counters(state: &State) -> (i64, i64) {
    (
        state::int_at_least(state.get("review_dispatch_used"), 0).unwrap_or(0),
        state::int_at_least(state.get("review_dispatch_cap"), 0)
            .unwrap_or(state::REVIEW_DISPATCH_GRANT),
    )
}

/// The seeded state under its lock, when it is a valid, active pursuit (else the lane's `failure`).
fn locked_pursuit(session: &Session) -> Option<(crate::store::mkdir_lock::StateLock, State)> {
    match session.locked(true) {
        Ok((lock, Some(state))) if pursuing(&state) => Some((lock, state)),
        _ => None,
    }
}

/// `claim-review-dispatch` (hook-only): consume one dispatch — unless the budget is spent, or the
/// artifact on disk already allows completion (and the user did not pay for a re-review of
/// exactly those bytes).
pub fn claim(session: &Session) -> Reply {
    let Some((lock, mut state)) = locked_pursuit(session) else {
        return failure();
    };
    let (used, cap) = counters(&state);
    if used >= cap {
        return answer(false, "budget_exhausted", used, cap);
    }
    let bytes = std::fs::read(session.codereview_file()).ok();
    if let Some(artifact) = review::code_review(bytes.as_deref()) {
        let approved = state::text(&state, "approved_review_artifact_sha256");
        let dismissals = super::phase::dismissals(&state);
        if artifact.completion_eligible(&dismissals) && artifact.sha256 != approved {
            return answer(false, "completion_eligible", used, cap);
        }
    }
    let used = used.saturating_add(1);
    state.insert("review_dispatch_used".into(), used.into());
    match session.commit(&lock, state) {
        Ok(()) => answer(true, "allowed", used, cap),
        Err(_) => failure(),
    }
}

/// `approve-review-dispatch-renewal` (user-only): five more dispatches, pinned to the artifact's
/// bytes when a valid one exists (so exactly that review may be redone).
pub fn renew(session: &Session) -> Reply {
    let Some((lock, mut state)) = locked_pursuit(session) else {
        return failure();
    };
    let (used, cap) = counters(&state);
    let cap = cap.saturating_add(state::REVIEW_DISPATCH_GRANT);
    let bytes = std::fs::read(session.codereview_file()).ok();
    state.insert("review_dispatch_cap".into(), cap.into());
    if let Some(artifact) = review::code_review(bytes.as_deref()) {
        state.insert(
            "approved_review_artifact_sha256".into(),
            artifact.sha256.into(),
        );
    }
    match session.commit(&lock, state) {
        Ok(()) => answer(true, "allowed", used, cap),
        Err(_) => failure(),
    }
}

/// `dismiss-review-finding` (user-only): exactly one blocking finding of the current artifact,
/// pinned to its bytes, with the user's rationale. Every refusal is the reference's one line;
/// `why` says which condition failed.
pub fn dismiss(session: &Session, flags: &Parsed) -> Result<Reply, Refusal> {
    const WHAT: &str = "dismiss-review-finding";
    let class = flags.text("class").unwrap_or("");
    if !review::CLASSES.contains(&class) {
        return Err(Refusal::direct(format!(
            "{WHAT}: --class must be one of correctness, regression, cleanup, requirement-gap"
        )));
    }
    // A valueless flag is refused, not read as the text "true".
    let location = flags.value("ref").unwrap_or("");
    let rationale = flags.value("rationale").unwrap_or("");
    let refused = |why: &str| {
        Refusal::direct(format!(
            "{WHAT}: refused — requires an active pursuing goal, a non-empty --ref and --rationale, \
and a blocking (BLOCK-outcome) {class} finding at \"{location}\" in the current code-review artifact\n\
{WHAT}: {why}"
        ))
    };
    if is_blank(location) || is_blank(rationale) {
        return Err(refused("--ref and --rationale need non-blank values"));
    }
    let (lock, state) = session.locked(true).map_err(|e| refused(&e))?;
    let mut state = state.ok_or_else(|| refused("the state file is absent"))?;
    if !pursuing(&state) {
        return Err(refused("the pursuit is not active in phase pursuing"));
    }
    let bytes = std::fs::read(session.codereview_file()).ok();
    let artifact = review::code_review(bytes.as_deref())
        .ok_or_else(|| refused("the code-review artifact is absent or invalid"))?;
    let at = |f: &&review::Finding| f.location.as_deref() == Some(location) && f.class == class;
    let blocking = artifact
        .findings
        .iter()
        .filter(at)
        .filter(|f| f.outcome == Outcome::Block)
        .count();
    match blocking {
        1 => {}
        0 if artifact.findings.iter().any(|f| at(&f)) => {
            return Err(refused("that finding does not block completion"))
        }
        0 => return Err(refused("no such finding in the current review")),
        _ => {
            return Err(refused(
                "more than one blocking finding matches; a dismissal names exactly one",
            ))
        }
    }
    let done = Reply::out(format!("dismissed {class} finding at {location}\n"));
    let mut dismissals = super::phase::dismissals(&state);
    let recorded = dismissals.iter().any(|d| {
        d.get("artifact_sha256").and_then(Value::as_str) == Some(&artifact.sha256)
            && d.get("ref").and_then(Value::as_str) == Some(location)
            && d.get("class").and_then(Value::as_str) == Some(class)
    });
    if recorded {
        return Ok(done);
    }
    dismissals.push(serde_json::json!({
        "artifact_sha256": artifact.sha256,
        "ref": location,
        "class": class,
        "rationale": rationale.trim(),
    }));
    state.insert("dismissed_review_findings".into(), dismissals.into());
    session.commit(&lock, state).map_err(|e| refused(&e))?;
    Ok(done)
}
