//! The review lane: claiming and renewing a review dispatch, dismissing findings, clearing the
//! Codex objective.

use super::*;

/// The lane's answer: allowed, why, and the dispatches used and allowed; `None` for a `failure`.
type Answer = Option<(bool, &'static str, f64, f64)>;

/// `{allowed, reason, used, cap}` on one line; exit 1 unless allowed.
fn claim_answer(reply: &mut Reply, answer: Answer) {
    let (allowed, reason, used, cap) = answer.unwrap_or((false, "failure", 0.0, 0.0));
    let mut doc = JsObject::new();
    doc.set("allowed", allowed.into());
    doc.set("reason", reason.into());
    doc.set("used", used.into());
    doc.set("cap", cap.into());
    reply.stdout = JsValue::Object(doc).to_json_string() + "\n";
    reply.failed = !allowed;
}

fn counters(prior: &State) -> (f64, f64) {
    (
        js::integer_at_least(prior.get("review_dispatch_used"), 0.0).unwrap_or(0.0),
        js::integer_at_least(prior.get("review_dispatch_cap"), 0.0)
            .unwrap_or(state::REVIEW_DISPATCH_GRANT as f64),
    )
}

fn review_of(session: &Session) -> Option<CodeReview> {
    review::code_review(
        ucg_store::read_file(session.codereview_file())
            .ok()
            .as_deref(),
    )
}

/// The lane's commands begin alike: seed if absent, lock, and read a state that must be active
/// and pursuing (else the lane's `failure`).
fn lane_state(session: &Session) -> Option<(ucg_store::mkdir_lock::StateLock, State)> {
    session.ensure_seed().ok()?;
    let lock = session.lock().ok()?;
    let prior = claimable(&session.text()?)?;
    if !state::is_active(&prior) || state::phase(&prior) != "pursuing" {
        return None;
    }
    Some((lock, prior))
}

/// `claim-review-dispatch` (hook-only).
pub fn claim(session: &Session, reply: &mut Reply) {
    let run = || -> Answer {
        let (lock, prior) = lane_state(session)?;
        let (used, cap) = counters(&prior);
        if used >= cap {
            return Some((false, "budget_exhausted", used, cap));
        }
        if let Some(reviewed) = review_of(session) {
            let approved = match js::present(prior.get("approved_review_artifact_sha256")) {
                Some(JsValue::String(sha)) => sha.clone(),
                Some(_) => return None,
                None => JsString::new(),
            };
            let eligible = reviewed
                .completion_eligible(state::dismissals(&prior))
                .ok()?;
            if eligible && approved != *reviewed.sha256 {
                return Some((false, "completion_eligible", used, cap));
            }
        }
        let written = merge_write_locked(
            session,
            &lock,
            next([("review_dispatch_used", JsValue::Number(used + 1.0))]),
        )
        .ok()?;
        let (used, cap) = counters(&written);
        Some((true, "allowed", used, cap))
    };
    claim_answer(reply, run());
}

/// `approve-review-dispatch-renewal` (user-only).
pub fn renew(session: &Session, reply: &mut Reply) {
    let run = || -> Answer {
        let (lock, prior) = lane_state(session)?;
        let reviewed = review_of(session);
        let (used, cap) = counters(&prior);
        let mut fields = next([(
            "review_dispatch_cap",
            JsValue::Number(cap + state::REVIEW_DISPATCH_GRANT as f64),
        )]);
        if let Some(reviewed) = reviewed {
            fields.set("approved_review_artifact_sha256", reviewed.sha256.into());
        }
        let written = merge_write_locked(session, &lock, fields).ok()?;
        Some((true, "allowed", used, counters(&written).1))
    };
    claim_answer(reply, run());
}

/// `dismissReviewFinding`: whether the dismissal is recorded (or already was).
pub fn dismiss(session: &Session, location: &str, class: &str, rationale: &str) -> bool {
    let rationale = js::trim(rationale);
    if rationale.is_empty() || js::is_blank(location) || !review::CLASSES.contains(&class) {
        return false;
    }
    let run = || -> Option<bool> {
        let (lock, prior) = lane_state(session)?;
        let Some(reviewed) = review_of(session) else {
            return Some(false);
        };
        let matches = reviewed
            .findings
            .iter()
            .filter(|f| {
                f.outcome == Outcome::Block
                    && f.class == class
                    && f.location.as_ref().and_then(JsValue::as_str) == Some(location)
            })
            .count();
        if matches != 1 {
            return Some(false);
        }
        let mut recorded = state::dismissals(&prior).to_vec();
        for d in &recorded {
            if d.is_null() {
                return None;
            }
            if d.get("artifact_sha256").and_then(JsValue::as_str) == Some(&reviewed.sha256)
                && d.get("ref").and_then(JsValue::as_str) == Some(location)
                && d.get("class").and_then(JsValue::as_str) == Some(class)
            {
                return Some(true);
            }
        }
        let mut dismissal = JsObject::new();
        dismissal.set("artifact_sha256", reviewed.sha256.clone().into());
        dismissal.set("ref", location.into());
        dismissal.set("class", class.into());
        dismissal.set("rationale", rationale.into());
        recorded.push(JsValue::Object(dismissal));
        merge_write_locked(
            session,
            &lock,
            next([("dismissed_review_findings", JsValue::Array(recorded))]),
        )
        .ok()?;
        Some(true)
    };
    run().unwrap_or(false)
}

/// After an adoption: the Codex objective is thread-scoped and stays behind (a merge-write).
pub fn clear_codex_objective(session: &Session) -> Result<()> {
    merge_write(session, next([("codex_goal_objective", "".into())]))
}
