//! Property tests of the ultragoal format code: the state document, the artifacts, the argument
//! rules, the non-goals gate, timestamps and the Stop hook's event and digest.

use git_ucg::goal::{self, args, hook, liveness, phase, review, serialize, state, stories};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

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

/// Keys that are often the known ones, sometimes anything.
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
        "[a-z_]{1,8}",
    ]
}

fn state_map() -> impl Strategy<Value = Map<String, Value>> {
    proptest::collection::vec((key(), json_value()), 0..12)
        .prop_map(|pairs| pairs.into_iter().collect())
}

proptest! {
    /// The merge-write is idempotent, its bytes read back to the same document, known keys come
    /// first in the reference's order, and every foreign key survives with its value.
    #[test]
    fn normalization_is_idempotent_and_keeps_foreign_keys(prior in state_map()) {
        let once = state::normalized(prior.clone(), "T");
        let bytes = state::to_bytes(&once);
        let reread = state::parse(&bytes).expect("written state parses");
        prop_assert_eq!(&reread, &once);
        prop_assert_eq!(state::normalized(reread, "T"), once.clone());
        let known: Vec<&str> = once.keys().map(String::as_str).filter(|k| state::KEY_ORDER.contains(k)).collect();
        let order: Vec<&str> = state::KEY_ORDER.iter().copied().filter(|k| known.contains(k)).collect();
        prop_assert_eq!(known, order);
        for (k, v) in &prior {
            if !state::KEY_ORDER.contains(&k.as_str()) {
                prop_assert_eq!(once.get(k), Some(v));
            }
        }
        prop_assert!(!bytes.ends_with(b"\n"));
    }

    /// Every reader of state bytes takes anything without panicking.
    #[test]
    fn state_readers_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200), value in json_value()) {
        for input in [bytes.clone(), value.to_string().into_bytes()] {
            let _ = goal::status_token(Some(&input));
            let _ = goal::get_view(Some(&input));
            let _ = review::verdicts(Some(&input));
            let _ = review::code_review(Some(&input));
            let _ = hook::parse_event(&input);
            if let Some(mut parsed) = state::parse(&input) {
                let _ = goal::is_pristine(&parsed);
                let _ = serialize::requirements(&parsed);
                let _ = serialize::review_context(&parsed);
                let _ = hook::stories_digest(&parsed);
                let _ = liveness::touched(&parsed);
                let _ = stories::confirm(&mut parsed, "S1");
                let _ = phase::resume_pursuit(&mut parsed);
                let _ = phase::request_complete(&mut parsed, &phase::CompletionInputs {
                    verdicts: Some(&input), code_review: Some(&input), codex_snapshot: None,
                });
            }
        }
    }

    /// A gate's refusal leaves the state as it was; success is the only way to complete.
    #[test]
    fn request_complete_changes_nothing_unless_it_completes(
        prior in state_map(), verdicts in json_value(), code_review in json_value()
    ) {
        let mut state = prior.clone();
        let (v, r) = (verdicts.to_string(), code_review.to_string());
        let result = phase::request_complete(&mut state, &phase::CompletionInputs {
            verdicts: Some(v.as_bytes()), code_review: Some(r.as_bytes()), codex_snapshot: None,
        });
        match result {
            Ok(()) => prop_assert_eq!(state::phase(&state), "complete"),
            Err(_) => prop_assert_eq!(state, prior),
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

    /// The non-goals gate and the timestamp parser take any text.
    #[test]
    fn text_checks_never_panic(text in "\\PC{0,80}") {
        let _ = phase::check_non_goals(&text);
        let _ = liveness::parse_stamp(&text);
        let line = format!("- {text} | decider: {text}");
        if !text.trim().is_empty() && !text.contains('\n') && !text.contains('\r') {
            prop_assert!(phase::check_non_goals(&line).is_ok(), "{}", line);
        }
    }
}

#[test]
fn stamps_round_trip() {
    let stamp = state::now_stamp();
    let parsed = liveness::parse_stamp(&stamp).expect("our own stamp parses");
    let now = jiff::Timestamp::now();
    assert!(liveness::idle_secs(parsed, now) < 5);
    assert_eq!(
        liveness::parse_stamp("2026-08-20T10:00:00+09:00").map(|t| t.as_second()),
        Some(1787187600)
    );
}
