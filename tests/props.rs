//! Property tests of the pure format code: ids, the Python-compatible JSON, and the registry.

use git_ucg::pyjson::{self, Value};
use git_ucg::ucg::decisions::IdSet;
use git_ucg::ucg::{ids, reds};
use proptest::prelude::*;
use std::collections::HashSet;

/// Python's whitespace, including the four separators Rust does not count as whitespace.
const PY_SPACES: [char; 12] = [
    ' ', '\t', '\n', '\r', '\u{b}', '\u{c}', '\u{1c}', '\u{1f}', '\u{85}', '\u{a0}', '\u{2028}',
    '\u{3000}',
];

fn word() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9éü漢?!,.]{1,8}"
}

fn py_space_run() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(PY_SPACES.to_vec()), 1..4)
        .prop_map(|chars| chars.into_iter().collect())
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|i| Value::Int(i.to_string())),
        any::<f64>()
            .prop_filter("NaN never equals itself", |f| !f.is_nan())
            .prop_map(Value::Float),
        "\\PC{0,12}".prop_map(Value::Str),
        "[\\x00-\\x1f\"\\\\]{0,4}".prop_map(Value::Str),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec(("\\PC{0,6}", inner), 0..6)
                .prop_map(|pairs| Value::Object(Box::new(pairs.into_iter().collect()))),
        ]
    })
}

proptest! {
    #[test]
    fn mint_never_panics_and_is_deterministic(kind in "\\PC*", source in "\\PC*", decision in "\\PC*") {
        let id = ids::mint(&kind, &source, &decision);
        prop_assert_eq!(&id, &ids::mint(&kind, &source, &decision));
        let digest = id.rsplit(':').next().unwrap_or_default();
        prop_assert_eq!(digest.len(), 12);
        prop_assert!(digest.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    }

    #[test]
    fn mint_ignores_a_line_suffix(
        path in "[a-z/._-]{1,20}",
        line in prop_oneof!["[0-9]{1,6}", "[٠-٩]{1,3}", "[०-९]{1,3}"],
        decision in "\\PC{1,20}",
    ) {
        prop_assert_eq!(
            ids::mint("k", &format!("{path}:{line}"), &decision),
            ids::mint("k", &path, &decision)
        );
    }

    #[test]
    fn mint_ignores_how_the_decision_is_wrapped(
        words in proptest::collection::vec(word(), 1..8),
        gaps in proptest::collection::vec(py_space_run(), 8),
        lead in py_space_run(),
        trail in py_space_run(),
    ) {
        let plain = words.join(" ");
        let mut wrapped = lead.clone();
        for (i, w) in words.iter().enumerate() {
            if i > 0 {
                wrapped.push_str(&gaps[i % gaps.len()]);
            }
            wrapped.push_str(w);
        }
        wrapped.push_str(&trail);
        prop_assert_eq!(ids::mint("k", "p.md", &wrapped), ids::mint("k", "p.md", &plain));
    }

    #[test]
    fn json_loads_never_panics(text in "\\PC{0,64}") {
        let _ = pyjson::loads(&text);
    }

    #[test]
    fn json_written_is_json_read(value in json_value()) {
        let pretty = pyjson::dumps_pretty(&value);
        prop_assert_eq!(pyjson::loads(&pretty).unwrap(), value.clone());
        let compact = pyjson::dumps_compact_ascii(&value);
        prop_assert!(compact.is_ascii());
        prop_assert_eq!(pyjson::loads(&compact).unwrap(), value);
    }

    #[test]
    fn the_registry_parsers_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..128)) {
        let _ = reds::Registry::parse(Some(&bytes), "r");
        let _ = reds::parse_scan(&bytes);
        let _ = git_ucg::ucg::decisions::closed_ids(Some(&bytes));
    }

    #[test]
    fn the_run_artifact_readers_never_panic(text in "\\PC{0,160}", bytes in proptest::collection::vec(any::<u8>(), 0..96)) {
        use git_ucg::ucg::{decision_log, heartbeat, ledger, markers, sprint};
        let _ = heartbeat::parse(&bytes);
        let _ = heartbeat::parse(text.as_bytes());
        let _ = sprint::development_status(&text);
        let _ = markers::marker_sha(&text);
        let _ = ledger::rows(&text);
        let recorded = decision_log::recorded_verdicts(&text);
        let _ = decision_log::verdicts_for(&recorded, &["1-1".to_string(), "1-2".to_string()]);
    }

    #[test]
    fn apply_is_idempotent_and_its_output_reads_back(
        findings in proptest::collection::vec((word(), "[a-z]{1,4}\\.md:[0-9]{1,3}", "\\PC{1,12}"), 0..8),
        close_mask in any::<u16>(),
    ) {
        let scan: Vec<Value> = findings
            .iter()
            .map(|(kind, source, decision)| {
                let mut o = pyjson::Object::default();
                o.insert("kind".into(), Value::Str(kind.clone()));
                o.insert("source".into(), Value::Str(source.clone()));
                o.insert("decision_needed".into(), Value::Str(format!("Q {decision}")));
                Value::Object(Box::new(o))
            })
            .collect();
        let first = reds::apply(scan.clone(), &[], &IdSet::default()).unwrap();
        let closed: IdSet = first
            .red_ids()
            .enumerate()
            .filter(|(i, _)| close_mask & (1 << i) != 0)
            .map(|(_, id)| id.to_string())
            .collect();
        let second = reds::apply(scan.clone(), &first.resolved, &closed).unwrap();
        let third = reds::apply(scan, &second.resolved, &closed).unwrap();
        prop_assert_eq!(&second, &third);
        prop_assert!(second.red_ids().all(|id| !closed.contains(id)));
        let tombstone_ids: HashSet<&str> =
            second.resolved.iter().filter_map(|t| t.as_object()?.get("id")?.as_str()).collect();
        prop_assert_eq!(tombstone_ids.len(), second.resolved.len());
        let text = second.to_pretty_json();
        let reread = reds::Registry::parse(Some(text.as_bytes()), "r").unwrap();
        prop_assert_eq!(reread, second);
    }
}
