//! The two artifacts the completion gate reads (docs/formats/ultragoal.md §1.5–1.6, §4.3): the
//! orchestrator's per-story verdicts and the final code review. Both are validated whole — any
//! violation reads as absent, which blocks — and the review's findings are classified by the G1
//! verdict × impact diagonal. The classifier is this module's one policy; a later generation of
//! the review lane replaces `classify` and `completion_eligible`, nothing else.

use super::js;
use super::js::{JsString, JsValue};
use super::state;
use sha2::{Digest, Sha256};

/// The verdict artifact: the objective's verdict and each story's.
#[derive(Debug, PartialEq)]
pub struct Verdicts {
    pub objective: String,
    /// (story id, verdict) in the artifact's order.
    pub stories: Vec<(JsString, String)>,
}

/// Parses `ultragoal-verdict-<sid>.json`; `None` when absent, empty or invalid in any part.
pub fn verdicts(bytes: Option<&[u8]>) -> Option<Verdicts> {
    let doc = state::parse(bytes.filter(|b| !b.is_empty())?)?;
    let objective = doc.get("objective_verdict")?.as_str()?;
    if !matches!(objective, "APPROVE" | "REQUEST_CHANGES" | "COMMENT")
        || !doc.get("verifier")?.is_string()
        || !doc.get("at")?.is_string()
    {
        return None;
    }
    let mut stories: Vec<(JsString, String)> = Vec::new();
    for entry in doc.get("stories")?.as_array()? {
        let id = entry.get("id")?.as_js_str()?;
        let verdict = entry.get("verdict")?.as_str()?;
        if !matches!(verdict, "APPROVE" | "REQUEST_CHANGES")
            || !entry.get("evidence_refs")?.is_array()
            || stories.iter().any(|(seen, _)| seen == id)
        {
            return None;
        }
        stories.push((id.clone(), verdict.to_string()));
    }
    Some(Verdicts {
        objective: objective.to_string(),
        stories,
    })
}

impl Verdicts {
    pub fn of(&self, id: &JsString) -> Option<&str> {
        self.stories
            .iter()
            .find(|(story, _)| story == id)
            .map(|(_, verdict)| verdict.as_str())
    }
}

/// What a finding asks of the pursuit (G1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Blocks completion until repaired, re-reviewed or dismissed by the user.
    Block,
    /// Batch-repaired once, without a re-review.
    Fix,
    /// Reported only.
    Note,
}

pub const CLASSES: [&str; 4] = ["correctness", "regression", "cleanup", "requirement-gap"];

#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub class: String,
    pub verdict: String,
    pub impact: String,
    /// `ref`, any JSON value (the reference does not check it); only a string can be dismissed.
    pub location: Option<JsValue>,
    pub outcome: Outcome,
}

/// The code-review artifact, valid under the G1 schema.
#[derive(Debug, Clone, PartialEq)]
pub struct CodeReview {
    pub complete: bool,
    pub findings: Vec<Finding>,
    /// sha256 of the artifact's exact bytes (dismissals and renewals are pinned to it).
    pub sha256: String,
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    ucg_store::hex(&Sha256::digest(bytes))
}

/// The G1 diagonal: CONFIRMED × {HIGH, MEDIUM} and PLAUSIBLE × HIGH block, CONFIRMED × LOW is
/// fixed in a batch, the rest are notes.
pub(crate) fn classify(verdict: &str, impact: &str) -> Outcome {
    match (verdict, impact) {
        ("CONFIRMED", "HIGH" | "MEDIUM") | ("PLAUSIBLE", "HIGH") => Outcome::Block,
        ("CONFIRMED", _) => Outcome::Fix,
        _ => Outcome::Note,
    }
}

/// Parses `ultragoal-codereview-<sid>.json`; `None` when absent or invalid in any part. The
/// bytes are read as the reference reads them (invalid UTF-8 as U+FFFD), and its sha256 is of
/// that text.
pub fn code_review(bytes: Option<&[u8]>) -> Option<CodeReview> {
    let text = js::decode(bytes?);
    let doc = state::parse(text.as_bytes())?;
    let complete = match doc.get("status")?.as_str()? {
        "COMPLETE" => true,
        "INCONCLUSIVE" => false,
        _ => return None,
    };
    let reviewer_named = doc
        .get("reviewer")?
        .as_js_str()
        .is_some_and(|r| !r.is_empty());
    let report_ok = doc.get("findings_report").is_none_or(JsValue::is_string);
    if !reviewer_named || !doc.get("at")?.is_string() || !report_ok {
        return None;
    }
    let mut findings = Vec::new();
    for entry in doc.get("findings")?.as_array()? {
        let field = |key: &str, allowed: &[&str]| {
            entry
                .get(key)
                .and_then(JsValue::as_str)
                .filter(|v| allowed.contains(v))
                .map(str::to_string)
        };
        let class = field("class", &CLASSES)?;
        let verdict = field("verdict", &["CONFIRMED", "PLAUSIBLE"])?;
        let impact = field("impact", &["HIGH", "MEDIUM", "LOW"])?;
        let location = entry.get("ref").cloned();
        let outcome = classify(&verdict, &impact);
        findings.push(Finding {
            class,
            verdict,
            impact,
            location,
            outcome,
        });
    }
    Some(CodeReview {
        complete,
        findings,
        sha256: sha256_hex(text.as_bytes()),
    })
}

impl CodeReview {
    /// The blocking findings the user has not dismissed (dismissals pinned to these exact bytes).
    pub(crate) fn open_blocks<'r>(
        &'r self,
        dismissals: &'r [JsValue],
    ) -> impl Iterator<Item = &'r Finding> {
        self.findings
            .iter()
            .filter(|f| f.outcome == Outcome::Block)
            .filter(move |f| !dismissals.iter().any(|d| self.dismisses(d, f)))
    }

    /// `isDismissed`: a finding without a truthy `ref` never is; else a dismissal of these bytes
    /// with that `ref` and class (strict equality).
    fn dismisses(&self, dismissal: &JsValue, finding: &Finding) -> bool {
        if !js::truthy(finding.location.as_ref()) {
            return false;
        }
        dismissal.get("artifact_sha256").and_then(JsValue::as_str) == Some(&self.sha256)
            && strict_equal(dismissal.get("ref"), finding.location.as_ref())
            && dismissal.get("class").and_then(JsValue::as_str) == Some(&finding.class)
    }

    /// Completion-eligible (`isCompletionEligibleCodeReview`): the review completed and no
    /// blocking finding stands undismissed. A `null` among the dismissals that the reference
    /// reaches while looking crashes it; that is the error.
    pub(crate) fn completion_eligible(
        &self,
        dismissals: &[JsValue],
    ) -> Result<bool, super::state::Crash> {
        if !self.complete {
            return Ok(false);
        }
        'findings: for finding in self.findings.iter().filter(|f| f.outcome == Outcome::Block) {
            if !js::truthy(finding.location.as_ref()) {
                return Ok(false);
            }
            for dismissal in dismissals {
                if dismissal.is_null() {
                    return Err(super::state::Crash(
                        "a dismissal is null (null is not an object)".into(),
                    ));
                }
                if self.dismisses(dismissal, finding) {
                    continue 'findings;
                }
            }
            // A blocking finding no dismissal covers.
            return Ok(false);
        }
        Ok(true)
    }
}

/// JavaScript's `===` between JSON values: primitives by value, objects and arrays never (two
/// parses are two objects).
pub(crate) fn strict_equal(a: Option<&JsValue>, b: Option<&JsValue>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(JsValue::Number(x)), Some(JsValue::Number(y))) => x == y,
        (Some(JsValue::Array(_) | JsValue::Object(_)), _)
        | (_, Some(JsValue::Array(_) | JsValue::Object(_))) => false,
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_g1_diagonal() {
        assert_eq!(classify("CONFIRMED", "HIGH"), Outcome::Block);
        assert_eq!(classify("CONFIRMED", "MEDIUM"), Outcome::Block);
        assert_eq!(classify("CONFIRMED", "LOW"), Outcome::Fix);
        assert_eq!(classify("PLAUSIBLE", "HIGH"), Outcome::Block);
        assert_eq!(classify("PLAUSIBLE", "MEDIUM"), Outcome::Note);
        assert_eq!(classify("PLAUSIBLE", "LOW"), Outcome::Note);
    }

    #[test]
    fn invalid_verdict_artifacts_read_as_absent() {
        let ok = br#"{"objective_verdict":"APPROVE","stories":[{"id":"S1","verdict":"APPROVE","evidence_refs":[]}],"verifier":"v","at":"t"}"#;
        assert_eq!(
            verdicts(Some(ok)).unwrap().of(&"S1".into()),
            Some("APPROVE")
        );
        for bad in [
            &br#"{"objective_verdict":"MAYBE","stories":[],"verifier":"v","at":"t"}"#[..],
            br#"{"objective_verdict":"APPROVE","stories":[{"id":"S1","verdict":"APPROVE","evidence_refs":[]},{"id":"S1","verdict":"APPROVE","evidence_refs":[]}],"verifier":"v","at":"t"}"#,
            br#"{"objective_verdict":"APPROVE","stories":[{"id":"S1","verdict":"COMMENT","evidence_refs":[]}],"verifier":"v","at":"t"}"#,
            br#"{"objective_verdict":"APPROVE","stories":[],"at":"t"}"#,
            b"",
            b"[]",
        ] {
            assert_eq!(verdicts(Some(bad)), None);
        }
    }
}
