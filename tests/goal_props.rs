//! Property tests of the ultragoal code: the completion gate never lets through what the reference
//! refuses (a model of its gates under JavaScript semantics), the merge-write's bytes, the
//! JavaScript JSON round trip, the argument rules, the non-goals gate, timestamps and the Stop
//! hook's event and digest.

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use ucg_ultragoal::js::{JsObject, JsValue};
use ucg_ultragoal::{args, hook, js, liveness, ops, review, state};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
        "\\PC{0,10}".prop_map(Value::from),
        prop_oneof![
            Just("planning"),
            Just("pursuing"),
            Just("complete"),
            Just("confirmed"),
            Just("APPROVE")
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 5, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::vec((key(), inner), 0..5)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
        ]
    })
}

/// Keys that are often the known ones, sometimes integer-like, sometimes anything.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(state::KEY_ORDER.to_vec()).prop_map(String::from),
        proptest::sample::select(vec![
            "id",
            "status",
            "story",
            "acceptance_criteria",
            "verification_surface",
            "verdict",
            "evidence_refs",
            "findings",
            "impact",
            "class",
            "ref"
        ])
        .prop_map(String::from),
        "(0|[1-9][0-9]{0,3}|0[0-9])",
        "[a-z_]{1,8}",
    ]
}

fn state_map() -> impl Strategy<Value = Map<String, Value>> {
    proptest::collection::vec((key(), json_value()), 0..12)
        .prop_map(|pairs| pairs.into_iter().collect())
}

// ------------------------------------------------------------------ the completion gate's model

/// JavaScript's whitespace, written out from the ECMAScript tables (WhiteSpace ∪ LineTerminator):
/// the model's own copy, so the implementation is checked against the spec, not itself.
const JS_WHITESPACE: &[char] = &[
    '\u{0009}', '\u{000A}', '\u{000B}', '\u{000C}', '\u{000D}', '\u{0020}', '\u{00A0}', '\u{1680}',
    '\u{2000}', '\u{2001}', '\u{2002}', '\u{2003}', '\u{2004}', '\u{2005}', '\u{2006}', '\u{2007}',
    '\u{2008}', '\u{2009}', '\u{200A}', '\u{2028}', '\u{2029}', '\u{202F}', '\u{205F}', '\u{3000}',
    '\u{FEFF}',
];

fn model_trim(text: &str) -> &str {
    text.trim_matches(|c| JS_WHITESPACE.contains(&c))
}

fn model_collapse(text: &str) -> String {
    text.split(|c| JS_WHITESPACE.contains(&c))
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Text that is tricky for a blank check: JavaScript whitespace, and characters that look like
/// whitespace elsewhere but are not (U+0085, U+180E, U+200B).
fn tricky_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("\u{85}"),
            Just("\u{feff}"),
            Just("\u{3000}"),
            Just("\u{2028}"),
            Just("\u{a0}"),
            Just("\u{180e}"),
            Just("\u{200b}"),
            Just(" "),
            Just("\t"),
            Just("ship"),
            Just("it"),
        ],
        0..5,
    )
    .prop_map(|parts| parts.concat())
}

#[derive(Debug, Clone)]
struct Story {
    id: String,
    status: &'static str,
}

#[derive(Debug, Clone)]
struct Case {
    evidence: Option<Value>,
    verdict: &'static str,
    stories: Vec<Story>,
    artifact_objective: &'static str,
    /// (story id, verdict) entries of the verdict artifact.
    artifact: Vec<(String, &'static str)>,
    artifact_valid: bool,
    review_status: &'static str,
    /// (verdict, impact, ref) of the code review's findings.
    findings: Vec<(&'static str, &'static str, &'static str)>,
    dismiss_first: bool,
    armed: Value,
    snapshot: Option<(Value, Value)>,
}

fn case() -> impl Strategy<Value = Case> {
    let id = proptest::sample::select(vec!["S1", "S2", "S3"]).prop_map(String::from);
    let status = proptest::sample::select(vec!["confirmed", "unconfirmed", "retired", "done"]);
    let text_or_other = prop_oneof![
        4 => tricky_text().prop_map(Value::from),
        1 => Just(Value::Null),
        1 => Just(json!(5)),
    ];
    (
        (
            prop_oneof![
                Just(None),
                Just(Some(json!([]))),
                Just(Some(json!(["e1"]))),
                Just(Some(json!("e1")))
            ],
            proptest::sample::select(vec!["APPROVE", "COMMENT", "absent"]),
            proptest::collection::vec(
                (id.clone(), status).prop_map(|(id, status)| Story { id, status }),
                0..4,
            ),
            proptest::sample::select(vec!["APPROVE", "REQUEST_CHANGES", "COMMENT"]),
            proptest::collection::vec(
                (
                    id,
                    proptest::sample::select(vec!["APPROVE", "REQUEST_CHANGES"]),
                ),
                0..4,
            ),
            proptest::bool::weighted(0.9),
        ),
        (
            proptest::sample::select(vec!["COMPLETE", "INCONCLUSIVE"]),
            proptest::collection::vec(
                (
                    proptest::sample::select(vec!["CONFIRMED", "PLAUSIBLE"]),
                    proptest::sample::select(vec!["HIGH", "MEDIUM", "LOW"]),
                    proptest::sample::select(vec!["a.rs:1", ""]),
                ),
                0..3,
            ),
            any::<bool>(),
            text_or_other.clone(),
            proptest::option::of((
                text_or_other,
                prop_oneof![
                    Just(json!("complete")),
                    Just(json!("active")),
                    Just(Value::Null)
                ],
            )),
        ),
    )
        .prop_map(
            |(
                (evidence, verdict, stories, artifact_objective, artifact, artifact_valid),
                (review_status, findings, dismiss_first, armed, snapshot),
            )| Case {
                evidence,
                verdict,
                stories,
                artifact_objective,
                artifact,
                artifact_valid,
                review_status,
                findings,
                dismiss_first,
                armed,
                snapshot,
            },
        )
}

fn review_text(case: &Case) -> String {
    let findings: Vec<Value> = case
        .findings
        .iter()
        .map(|(verdict, impact, location)| {
            json!({"class": "correctness", "verdict": verdict, "impact": impact, "ref": location})
        })
        .collect();
    json!({"status": case.review_status, "findings": findings, "reviewer": "r", "at": "t"})
        .to_string()
}

fn state_of(case: &Case, review_sha: &str) -> Value {
    let mut state = Map::new();
    if let Some(evidence) = &case.evidence {
        state.insert("completion_evidence_paths".into(), evidence.clone());
    }
    state.insert("objective_verdict".into(), case.verdict.into());
    let stories: Vec<Value> = case
        .stories
        .iter()
        .map(|s| json!({"id": s.id, "status": s.status}))
        .collect();
    state.insert("stories".into(), Value::Array(stories));
    state.insert("codex_goal_objective".into(), case.armed.clone());
    if case.dismiss_first {
        let dismissed = json!([{"artifact_sha256": review_sha, "ref": "a.rs:1",
            "class": "correctness", "rationale": "wrong"}]);
        state.insert("dismissed_review_findings".into(), dismissed);
    }
    Value::Object(state)
}

fn verdict_text(case: &Case) -> String {
    let entries: Vec<Value> = case
        .artifact
        .iter()
        .map(|(id, verdict)| json!({"id": id, "verdict": verdict, "evidence_refs": []}))
        .collect();
    let mut doc = json!({"objective_verdict": case.artifact_objective, "stories": entries,
        "verifier": "v", "at": "t"});
    if !case.artifact_valid {
        doc["verifier"] = json!(1);
    }
    doc.to_string()
}

fn snapshot_text(case: &Case) -> Option<String> {
    case.snapshot.as_ref().map(|(objective, status)| {
        json!({"goal": {"objective": objective, "status": status}}).to_string()
    })
}

/// The gates of §2.4 under JavaScript semantics: `Some(allowed)`, or `None` where the reference
/// throws (a non-string objective it calls `trim` on).
fn model(case: &Case) -> Option<bool> {
    let evidence = matches!(&case.evidence, Some(Value::Array(items)) if !items.is_empty());
    if !evidence || case.verdict != "APPROVE" {
        return Some(false);
    }
    let live: Vec<&Story> = case
        .stories
        .iter()
        .filter(|s| s.status != "retired")
        .collect();
    if live.is_empty() || !case.artifact_valid {
        return Some(false);
    }
    let ids: Vec<&str> = case.artifact.iter().map(|(id, _)| id.as_str()).collect();
    let duplicated = ids.iter().enumerate().any(|(n, id)| ids[..n].contains(id));
    if duplicated || case.artifact_objective != "APPROVE" {
        return Some(false);
    }
    if ids
        .iter()
        .any(|id| !case.stories.iter().any(|s| s.id == *id))
    {
        return Some(false);
    }
    for story in live {
        let entry = case.artifact.iter().find(|(id, _)| *id == story.id);
        if story.status != "confirmed" || entry.map(|(_, v)| *v) != Some("APPROVE") {
            return Some(false);
        }
    }
    if case.review_status != "COMPLETE" {
        return Some(false);
    }
    for (verdict, impact, location) in &case.findings {
        let blocks = (*verdict == "CONFIRMED" && *impact != "LOW")
            || (*verdict == "PLAUSIBLE" && *impact == "HIGH");
        let dismissed = case.dismiss_first && *location == "a.rs:1";
        if blocks && !dismissed {
            return Some(false);
        }
    }
    let armed = match &case.armed {
        Value::Null => "",
        Value::String(text) => text.as_str(),
        _ => return None,
    };
    if model_trim(armed).is_empty() {
        return Some(true);
    }
    let Some((objective, status)) = &case.snapshot else {
        return Some(false);
    };
    let Value::String(objective) = objective else {
        return Some(false);
    };
    Some(model_collapse(objective) == model_collapse(armed) && status == "complete")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Never a false completion: `request-complete` succeeds in git-ucg only where every gate of
    /// the reference holds under JavaScript semantics — and refuses, or reports the reference's
    /// crash, exactly where the model says so.
    #[test]
    fn request_complete_succeeds_only_when_every_gate_holds(case in case()) {
        let review = review_text(&case);
        let sha = review::sha256_hex(review.as_bytes());
        let prior = state_of(&case, &sha);
        let verdicts = verdict_text(&case);
        let snapshot = snapshot_text(&case);
        let no_files = |_: &str| None;
        let got = ops::completion_allowed(&JsValue::from(prior), &ops::GateInputs {
            verdicts: Some(&verdicts),
            code_review: Some(&review),
            codex_arg: snapshot.as_deref(),
            read_file: &no_files,
        });
        match model(&case) {
            Some(allowed) => prop_assert_eq!(got, Ok(allowed), "{:?}", case),
            None => prop_assert!(got.is_err(), "{:?}", case),
        }
    }

    /// Whatever a state file holds, the gate never panics and never completes a state without
    /// evidence and an APPROVE verdict.
    #[test]
    fn the_gate_takes_any_state(prior in json_value(), verdicts in json_value(), review_doc in json_value()) {
        let (v, r) = (verdicts.to_string(), review_doc.to_string());
        let no_files = |_: &str| None;
        let got = ops::completion_allowed(&JsValue::from(prior.clone()), &ops::GateInputs {
            verdicts: Some(&v), code_review: Some(&r), codex_arg: None, read_file: &no_files,
        });
        if got == Ok(true) {
            prop_assert_eq!(prior.get("objective_verdict"), Some(&json!("APPROVE")));
            prop_assert!(prior.get("completion_evidence_paths").and_then(Value::as_array).is_some_and(|e| !e.is_empty()));
        }
    }

    /// The merge-write: known keys in the reference's order, nothing else but the heartbeats,
    /// its bytes read back to the same document, integer-like keys of stories first.
    #[test]
    fn the_merge_write_is_the_reference_layout(prior in state_map()) {
        let Ok(once) = state::merged(&JsValue::from(Value::Object(prior)), &JsObject::new(), "T") else {
            return Ok(());
        };
        let bytes = state::to_bytes(&once);
        let reread = state::parse(&bytes).expect("written state parses");
        prop_assert_eq!(JsValue::Object(reread.clone()).to_json_pretty().into_bytes(), bytes.clone());
        let keys: Vec<&str> = once.keys().filter_map(|k| k.as_str()).collect();
        let order: Vec<&str> = state::KEY_ORDER
            .iter()
            .copied()
            .chain(["last_touched_at", "progress_touched_at"])
            .filter(|k| keys.contains(k))
            .collect();
        prop_assert_eq!(keys, order);
        prop_assert!(!bytes.ends_with(b"\n"));
        let again = state::merged(&JsValue::Object(reread), &JsObject::new(), "T").expect("merges again");
        prop_assert_eq!(state::to_bytes(&again), bytes);
    }

    /// `JSON.stringify(JSON.parse(x))` is a fixed point, integer-like keys first.
    #[test]
    fn javascript_json_round_trips(value in json_value()) {
        let text = JsValue::from(value).to_json_string();
        let parsed = js::parse(&text).expect("our own output parses");
        prop_assert_eq!(parsed.to_json_string(), text.clone());
        prop_assert_eq!(js::parse(&parsed.to_json_pretty()).unwrap().to_json_string(), text);
    }

    /// Every reader of state bytes takes anything without panicking.
    #[test]
    fn state_readers_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200), value in json_value()) {
        for input in [bytes.clone(), value.to_string().into_bytes()] {
            let _ = ucg_ultragoal::status_token(Some(&input));
            let _ = review::verdicts(Some(&input));
            let _ = review::code_review(Some(&input));
            let _ = hook::parse_event(&input);
            let _ = js::parse(&String::from_utf8_lossy(&input));
            if let Some(parsed) = state::parse(&input) {
                let _ = ucg_ultragoal::is_pristine(&parsed);
                let _ = hook::stories_digest(&parsed);
                let _ = liveness::touched(&parsed);
                let _ = state::merged(&JsValue::Object(parsed), &JsObject::new(), "T");
            }
        }
    }

    /// The argument rules: every token is a positional or a flag, nothing is lost or invented.
    #[test]
    fn argument_parsing_accounts_for_every_token(tokens in proptest::collection::vec(prop_oneof!["--[a-z-]{1,6}", "\\PC{0,6}"], 0..10)) {
        let parsed = args::parse(&tokens);
        for positional in &parsed.positionals {
            prop_assert!(!positional.starts_with("--"));
            prop_assert!(tokens.contains(positional));
        }
        for token in tokens.iter().filter(|t| t.starts_with("--")) {
            let name = &token[2..];
            let consumed_as_value = tokens.windows(2).any(|w| w[1] == *token && ["--evidence", "--rationale", "--codex-goal-objective"].contains(&w[0].as_str()));
            prop_assert!(parsed.has(name) || consumed_as_value, "{} lost", token);
        }
    }

    /// The non-goals gate, Number() and the timestamp parser take any text.
    #[test]
    fn text_checks_never_panic(text in "\\PC{0,80}") {
        let _ = ops::is_non_goal_line(&text);
        let _ = liveness::parse_stamp(&text);
        let _ = js::number_of_text(&text);
        let line = format!("- {text} | decider: {text}");
        let terminator = |c: char| matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}');
        if !model_trim(&text).is_empty() && !text.contains(terminator) {
            prop_assert!(ops::is_non_goal_line(&line), "{}", line);
        }
    }
}

#[test]
fn stamps_round_trip() {
    let stamp = state::now_stamp();
    let parsed = liveness::parse_stamp(&stamp).expect("our own stamp parses");
    let now = jiff::Timestamp::now();
    assert!(liveness::idle_secs(parsed, now) < 5);
    for (text, secs) in [
        ("2026-08-20T10:00:00+09:00", 1787187600),
        ("2026-08-20T10:00:00Z", 1787220000),
        ("2026-08-20T10:00:00.123Z", 1787220000),
        ("2026-08-20", 1787184000),
        ("Thu, 20 Aug 2026 10:00:00 GMT", 1787220000),
    ] {
        assert_eq!(
            liveness::parse_stamp(text).map(|t| t.as_second()),
            Some(secs),
            "{text}"
        );
    }
    assert_eq!(liveness::parse_stamp("garbage"), None);
}
