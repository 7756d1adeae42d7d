//! Property tests of the pure format code: ids, the Python-compatible JSON, and the registry.

use proptest::prelude::*;
use std::collections::HashSet;
use ucg_store::pyjson::{self, DecodeError, Reader, Value};
use ucg_ultracode::decisions::IdSet;
use ucg_ultracode::{ids, reds};

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
        let _ = ucg_ultracode::decisions::closed_ids(Some(&bytes));
    }

    #[test]
    fn the_run_artifact_readers_never_panic(text in "\\PC{0,160}", bytes in proptest::collection::vec(any::<u8>(), 0..96)) {
        use ucg_ultracode::{decision_log, heartbeat, ledger, markers, sprint};
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
        let scan = reds::parse_scan(
            pyjson::dumps_pretty(&Value::Object(Box::new(
                [("reds".to_string(), Value::Array(scan))].into_iter().collect(),
            )))
            .as_bytes(),
        )
        .unwrap();
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

/// The closing ids of an answers file as `pyjson::Reader` reads it (what the registry writer did
/// before it had a scanner of its own): the oracle the scanner must agree with, id for id.
fn closing_ids_by_reader(bytes: &[u8]) -> Vec<String> {
    fn entry(reader: &mut Reader, pos: usize, ids: &mut Vec<String>) -> Result<usize, DecodeError> {
        if reader.peek(pos) != Some(b'{') {
            return reader.skip(pos);
        }
        let (mut id, mut closes) = (None, false);
        let end = reader.object(pos, |reader, key, at| {
            let is_string = reader.peek(at) == Some(b'"');
            match key {
                "id" | "action" if is_string => {
                    let (text, end, replaced) = reader.str_lossy(at)?;
                    if key == "id" {
                        id = (!replaced).then(|| text.into_owned());
                    } else {
                        closes = !replaced && text == "close";
                    }
                    Ok(end)
                }
                "id" | "action" => {
                    if key == "id" {
                        id = None;
                    } else {
                        closes = false;
                    }
                    reader.skip(at)
                }
                _ => reader.skip(at),
            }
        })?;
        if let (true, Some(id)) = (closes, id) {
            ids.push(id);
        }
        Ok(end)
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Vec::new();
    };
    Reader::document(text, |reader, pos| {
        if reader.peek(pos) != Some(b'{') {
            return Ok((None, reader.skip(pos)?));
        }
        let mut closed = None;
        let end = reader.object(pos, |reader, key, at| {
            if key != "decisions" {
                return reader.skip(at);
            }
            if reader.peek(at) != Some(b'[') {
                closed = None;
                return reader.skip(at);
            }
            let mut ids = Vec::new();
            let end = reader.array(at, |reader, item| entry(reader, item, &mut ids))?;
            closed = Some(ids);
            Ok(end)
        })?;
        Ok((closed, end))
    })
    .ok()
    .flatten()
    .unwrap_or_default()
}

/// JSON text that is nearly an answers file: entries with ids, actions and other keys, escapes
/// (a lone surrogate among them), numbers at the edges of Python's grammar, nesting, and the
/// odd broken piece.
fn answers_text() -> impl Strategy<Value = String> {
    let string = prop_oneof![
        Just("\"close\"".to_string()),
        Just("\"defer\"".to_string()),
        Just("\"\\u0063lose\"".to_string()),
        Just("\"clos\\u00e9\"".to_string()),
        Just("\"\\ud800\"".to_string()),
        Just("\"\\ud83d\\ude00\"".to_string()),
        Just("\"\\ud800\\u0041\"".to_string()),
        Just("\"a\\\"b\"".to_string()),
        Just("\"\\x\"".to_string()),
        Just("\"tab\there\"".to_string()),
        "[a-z:/.0-9é漢]{0,20}".prop_map(|s| format!("\"{s}\"")),
    ];
    let scalar = prop_oneof![
        string.clone(),
        Just("null".to_string()),
        Just("true".to_string()),
        Just("NaN".to_string()),
        Just("-Infinity".to_string()),
        Just("-0".to_string()),
        Just("1.5e+3".to_string()),
        Just("01".to_string()),
        Just("1.".to_string()),
        Just("-".to_string()),
        Just("9".repeat(4301)),
        Just(format!("{}.5", "9".repeat(4301))),
    ];
    let value = scalar.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4)
                .prop_map(|v| format!("[{}]", v.join(", "))),
            proptest::collection::vec(("[a-z]{1,3}", inner), 0..4).prop_map(|m| {
                let members: Vec<String> = m
                    .into_iter()
                    .map(|(k, v)| format!("\"{k}\": {v}"))
                    .collect();
                format!("{{{}}}", members.join(","))
            }),
        ]
    });
    let key = prop_oneof![
        Just("\"id\"".to_string()),
        Just("\"action\"".to_string()),
        Just("\"answer\"".to_string()),
        Just("\"\\u0069d\"".to_string()),
        Just("\"\\udc00\"".to_string()),
    ];
    let entry = prop_oneof![
        proptest::collection::vec((key, value.clone()), 0..5).prop_map(|m| {
            let members: Vec<String> = m.into_iter().map(|(k, v)| format!("{k}: {v}")).collect();
            format!("{{{}}}", members.join(", "))
        }),
        value.clone(),
    ];
    let document = (
        proptest::collection::vec(entry, 0..6),
        proptest::collection::vec(value, 0..2),
        prop_oneof![Just(""), Just(" "), Just("\n"), Just("x"), Just("\u{feff}")],
    )
        .prop_map(|(entries, extra, tail)| {
            let mut doc = format!("{{\"decisions\": [{}]", entries.join(",\n "));
            for (i, value) in extra.iter().enumerate() {
                doc.push_str(&format!(", \"k{i}\": {value}"));
            }
            doc.push('}');
            doc.push_str(tail);
            doc
        });
    prop_oneof![
        4 => document,
        1 => "\\PC{0,40}",
    ]
}

/// `text` now and then cut short (`mutate` 0) or with a byte changed to one of `stray` (1), so
/// that refusals are compared too.
fn mutated(
    text: String,
    cut: prop::sample::Index,
    flip: prop::sample::Index,
    mutate: u8,
    stray: &[u8],
) -> Vec<u8> {
    let mut bytes = text.into_bytes();
    if !bytes.is_empty() {
        match mutate {
            0 => bytes.truncate(cut.index(bytes.len())),
            1 => {
                let at = flip.index(bytes.len());
                bytes[at] = stray[cut.index(stray.len())];
            }
            _ => {}
        }
    }
    bytes
}

/// The closing ids the windowed walk finds with the whole text in its window, owned.
fn closing_ids_of(bytes: &[u8]) -> Vec<String> {
    ucg_ultracode::decisions::closing_ids_read(bytes, bytes.len(), bytes.len() as u64)
        .iter()
        .map(str::to_string)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn the_answers_scanner_agrees_with_the_reader(
        text in answers_text(),
        cut in any::<prop::sample::Index>(),
        flip in any::<prop::sample::Index>(),
        mutate in 0..4u8,
    ) {
        let bytes = mutated(text, cut, flip, mutate, b"{}[],:\"\\ \x01");
        prop_assert_eq!(closing_ids_of(&bytes), closing_ids_by_reader(&bytes));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Passing over a value (iterative) accepts and refuses exactly as reading it (recursive)
    /// does, with the same error at the same place — but for a lone surrogate, which reading
    /// refuses and passing over lets through unless told to refuse it.
    #[test]
    fn skipping_a_value_agrees_with_reading_it(
        text in answers_text(),
        cut in any::<prop::sample::Index>(),
        flip in any::<prop::sample::Index>(),
        mutate in 0..4u8,
    ) {
        let bytes = mutated(text, cut, flip, mutate, b"{}[],:\"\\ \x01");
        let Ok(text) = std::str::from_utf8(&bytes) else { return Ok(()) };
        let read = pyjson::loads(text).map(drop);
        let skipped = Reader::document(text, |reader, pos| reader.skip(pos).map(|end| ((), end)));
        let strictly = Reader::document(text, |reader, pos| {
            reader.refuse_lone_surrogates();
            reader.skip(pos).map(|end| ((), end))
        });
        prop_assert_eq!(read.is_ok(), strictly.is_ok());
        let lone = |e: &DecodeError| e.message.starts_with("Lone surrogate");
        if !read.as_ref().is_err_and(lone) {
            prop_assert_eq!(read, skipped);
        }
    }
}

/// A reader that hands out at most `most` bytes a call (the file read in pieces the way a slow
/// disk or a pipe hands them out).
struct Trickle<'a> {
    bytes: &'a [u8],
    most: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.most).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// Whole answers documents of every top-level shape the windowed reader walks a step at a time:
/// members before and after `decisions`, `decisions` repeated or not a list, whitespace runs
/// longer than a window, a byte-order mark, characters of every UTF-8 length.
fn answers_shapes() -> impl Strategy<Value = String> {
    let ws = prop::sample::select(
        &[
            "",
            " ",
            "\n  ",
            "\t\r\n",
            "                                ",
        ][..],
    );
    let entry = prop_oneof![
        "[a-z:/.0-9é漢𝄞]{0,12}"
            .prop_map(|id| format!("{{\"id\": \"{id}\", \"action\": \"close\"}}")),
        "[a-z]{0,6}".prop_map(|id| format!(
            "{{\"action\":\"close\",\"answer\":[1,{{\"a\":null}}],\"id\":\"{id}\"}}"
        )),
        Just("{\"id\": \"k:\\u00e9:1\", \"action\": \"close\"}".to_string()),
        Just("{\"id\": \"kept\", \"action\": \"defer\"}".to_string()),
        Just("{\"id\": \"twice\", \"action\": \"close\", \"action\": \"keep\"}".to_string()),
        Just("12345".to_string()),
        Just("[[\"x\"], {}]".to_string()),
        Just("-1.5e-7".to_string()),
    ];
    let value = prop::sample::select(
        &[
            "{}",
            "null",
            "[1, [2, {\"a\": \"b\"}], -Infinity]",
            "\"str\\u00e9 漢\"",
            "123456789",
        ][..],
    );
    let member = prop_oneof![
        3 => (proptest::collection::vec((entry, ws.clone()), 0..6)).prop_map(|entries| {
            let items: Vec<String> = entries.into_iter().map(|(e, w)| format!("{w}{e}{w}")).collect();
            format!("\"decisions\": [{}]", items.join(","))
        }),
        1 => value.clone().prop_map(|v| format!("\"decisions\": {v}")),
        1 => ("[a-z]{1,4}", value).prop_map(|(k, v)| format!("\"{k}\" : {v}")),
    ];
    (
        prop_oneof![4 => Just(""), 1 => Just("\u{feff}"), 1 => Just("  \n"), 1 => Just("[")],
        proptest::collection::vec((member, ws.clone()), 0..4),
        ws,
        prop_oneof![4 => Just(""), 1 => Just("x"), 1 => Just("}")],
    )
        .prop_map(|(prefix, members, inner, tail)| {
            let members: Vec<String> = members
                .into_iter()
                .map(|(m, w)| format!("{w}{m}{w}"))
                .collect();
            format!("{prefix}{{{inner}{}}}{inner}{tail}", members.join(","))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn the_windowed_answers_scanner_agrees_with_the_whole_text_one(
        text in prop_oneof![answers_text(), answers_shapes()],
        cut in any::<prop::sample::Index>(),
        flip in any::<prop::sample::Index>(),
        mutate in 0..4u8,
        most in 1..40usize,
    ) {
        // Bytes that are no UTF-8 too: the windows end inside characters.
        let bytes = mutated(text, cut, flip, mutate, b"{}[],:\"\\ \x01\xff\xe6");
        let whole = closing_ids_of(&bytes);
        for window in [1, 2, 3, 4, 5, 7, 16, 61, 1 << 16] {
            let read = ucg_ultracode::decisions::closing_ids_read(Trickle { bytes: &bytes, most }, window, (most as u64) * 7);
            prop_assert_eq!(read.iter().collect::<Vec<_>>(), whole.clone(), "window {}", window);
        }
    }
}

#[test]
fn the_windowed_answers_scanner_closes_nothing_when_the_read_fails() {
    struct Failing<'a>(&'a [u8]);
    impl std::io::Read for Failing<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() {
                return Err(std::io::Error::other("disk gone"));
            }
            let n = buf.len().min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let text =
        br#"{"decisions": [{"id": "a", "action": "close"}, {"id": "b", "action": "close"}]}"#;
    let read = |bytes: &[u8]| ucg_ultracode::decisions::closing_ids_read(Failing(bytes), 8, 0);
    assert!(
        read(&text[..40]).is_empty(),
        "a read that fails part way closes nothing"
    );
    let whole = ucg_ultracode::decisions::closing_ids_read(
        Trickle {
            bytes: text,
            most: 3,
        },
        8,
        text.len() as u64,
    );
    assert_eq!(whole.iter().collect::<Vec<_>>(), ["a", "b"]);
}

#[test]
fn the_answers_scanner_keeps_python_s_depth_limit() {
    // The reader needs the command's stack for the deepest documents.
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(|| {
            for depth in [pyjson::MAX_DEPTH - 3, pyjson::MAX_DEPTH - 2, pyjson::MAX_DEPTH - 1, 100_000] {
                let nested = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
                for doc in [
                    format!("{{\"decisions\": [{{\"id\": \"a\", \"action\": \"close\", \"x\": {nested}}}]}}"),
                    format!("{{\"decisions\": [{{\"id\": \"a\", \"action\": \"close\"}}, {nested}]}}"),
                    format!("{{\"x\": {nested}, \"decisions\": [{{\"id\": \"a\", \"action\": \"close\"}}]}}"),
                ] {
                    let scanned = closing_ids_of(doc.as_bytes());
                    assert_eq!(scanned, closing_ids_by_reader(doc.as_bytes()), "depth {depth}");
                    let read = ucg_ultracode::decisions::closing_ids_read(doc.as_bytes(), 64, doc.len() as u64);
                    assert_eq!(read.iter().collect::<Vec<_>>(), scanned, "depth {depth}, windowed");
                }
            }
        })
        .map(|t| t.join().is_ok())
        .map_or_else(|e| panic!("{e}"), |ok| assert!(ok));
}

proptest! {
    #[test]
    fn the_registry_document_is_the_applied_registry_written(
        findings in proptest::collection::vec(
            (word(), "[a-z]{1,4}\\.md:[0-9]{1,3}", "\\PC{0,12}", json_value(), 0..4u8), 0..8),
        tombstones in proptest::collection::vec(prop_oneof![
            "[a-z:]{1,6}".prop_map(|id| vec![("id", Value::Str(id))]),
            json_value().prop_map(|id| vec![("id", id)]),
            // The writers' own shape, with text that needs escapes and an empty (falsy) id.
            ("[a-z:]{0,6}", "\\PC{0,6}", "[a-z\"\\\\\u{1}é]{0,6}").prop_map(|(id, kind, path)| vec![
                ("id", Value::Str(id)), ("kind", Value::Str(kind)), ("path", Value::Str(path)),
            ]),
            // Nearly that shape: a value that is not text, the keys in another order, one more.
            ("[a-z:]{1,6}", json_value()).prop_map(|(id, kind)| vec![
                ("id", Value::Str(id)), ("kind", kind), ("path", Value::Str("p".into())),
            ]),
            "[a-z:]{1,6}".prop_map(|id| vec![
                ("kind", Value::Str("k".into())), ("id", Value::Str(id)), ("path", Value::Str("p".into())),
            ]),
            "[a-z:]{1,6}".prop_map(|id| vec![
                ("id", Value::Str(id)), ("kind", Value::Str("k".into())), ("path", Value::Str("p".into())),
                ("note", Value::Null),
            ]),
        ], 0..5),
        close_mask in any::<u16>(),
    ) {
        // Reds with fields left out, values of every kind, and keys apply does not read.
        let scan: Vec<Value> = findings
            .iter()
            .map(|(kind, source, decision, evidence, shape)| {
                let mut o = pyjson::Object::default();
                o.insert("note".into(), Value::Null);
                o.insert("source".into(), Value::Str(source.clone()));
                o.insert("kind".into(), Value::Str(kind.clone()));
                if *shape != 1 {
                    o.insert("decision_needed".into(), Value::Str(format!("Q {decision}")));
                }
                if *shape >= 2 {
                    o.insert("evidence".into(), evidence.clone());
                }
                Value::Object(Box::new(o))
            })
            .collect();
        let resolved: Vec<Value> = tombstones
            .into_iter()
            .map(|members| {
                let mut o = pyjson::Object::default();
                for (key, value) in members {
                    o.insert(key.into(), value);
                }
                Value::Object(Box::new(o))
            })
            .collect();
        // The writer reads the stored tombstones from the registry's text, and the stored reds
        // as the fields apply reads of each, as the whole reader would give them.
        let stored = pyjson::dumps_pretty(&Value::Object(Box::new(
            [
                ("reds".to_string(), Value::Array(scan.clone())),
                ("resolved".to_string(), Value::Array(resolved.clone())),
            ]
            .into_iter()
            .collect(),
        )));
        let (stored_reds, _) =
            reds::Registry::parse_for_apply(Some(stored.as_bytes()), "r", reds::RedsAs::Stored)
                .unwrap();
        let as_values = reds::Registry::parse(Some(stored.as_bytes()), "r")
            .unwrap()
            .reds
            .into_iter()
            .map(|red| {
                let red = red.as_object()?;
                Some(["source", "kind", "decision_needed", "evidence"].map(|k| red.get(k).cloned()))
            })
            .collect::<Vec<_>>();
        // As text: a NaN is never equal to itself.
        prop_assert_eq!(format!("{stored_reds:?}"), format!("{as_values:?}"));
        let (_, stored_tombstones) =
            reds::Registry::parse_for_apply(Some(stored.as_bytes()), "r", reds::RedsAs::Checked)
                .unwrap();
        prop_assert_eq!(
            pyjson::dumps_pretty(&Value::Array(
                stored_tombstones.iter().cloned().map(reds::Tombstone::into_value).collect()
            )),
            pyjson::dumps_pretty(&Value::Array(resolved.clone()))
        );
        let text = pyjson::dumps_pretty(&Value::Object(Box::new(
            [("reds".to_string(), Value::Array(scan.clone()))].into_iter().collect(),
        )));
        let parsed = reds::parse_scan(text.as_bytes()).unwrap();
        let fields = parsed.clone();
        let first = reds::apply(parsed.clone(), &[], &IdSet::default());
        let closed: IdSet = first
            .iter()
            .flat_map(|r| r.red_ids())
            .enumerate()
            .filter(|(i, _)| close_mask & (1 << i) != 0)
            .map(|(_, id)| id.to_string())
            .collect();
        let whole = reds::apply(parsed, &resolved, &closed).map(|r| r.to_pretty_json());
        let document = match reds::validate_reds(&fields) {
            Ok(()) => reds::apply_document(fields, stored_tombstones, &closed),
            Err(e) => Err(e),
        };
        prop_assert_eq!(document, whole);
    }
}

/// An answer's field as the pending enumeration shows it: Python's `str()` of the value.
fn field_by_value(value: Option<&Value>) -> String {
    value.map(pyjson::py_str).unwrap_or_default()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn the_answer_entries_scanner_agrees_with_the_whole_document(
        text in answers_text(),
        cut in any::<prop::sample::Index>(),
        flip in any::<prop::sample::Index>(),
        mutate in 0..4u8,
    ) {
        use ucg_ultracode::decisions;
        let bytes = mutated(text, cut, flip, mutate, b"{}[],:\"\\ \x01");
        let scanned = decisions::answer_entries(&bytes, &|_| true).map(|entries| {
            entries
                .into_iter()
                .map(|e| (e.id.into_owned(), decisions::field_text(e.answer).into_owned(), decisions::field_text(e.action).into_owned()))
                .collect::<Vec<_>>()
        });
        let whole = decisions::decisions_for_write(Some(&bytes)).ok().map(|(_, entries)| {
            entries
                .iter()
                .filter_map(Value::as_object)
                .filter_map(|o| {
                    let id = o.get("id")?.as_str()?.to_string();
                    Some((id, field_by_value(o.get("answer")), field_by_value(o.get("action"))))
                })
                .collect::<Vec<_>>()
        });
        prop_assert_eq!(scanned, whole);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn the_answers_file_entry_by_entry_writes_what_the_whole_tree_writes(
        text in answers_text(),
        extra in proptest::collection::vec(("\"[a-z]{1,3}\"", prop_oneof![Just("1".to_string()), Just("[1, {\"a\": -0}]".to_string()), Just("\"\\u00e9\"".to_string())]), 0..3),
        answers in proptest::collection::vec((prop_oneof![Just("a".to_string()), Just("close".to_string()), "[a-d]"], "[a-z ]{0,4}", any::<bool>()), 0..4),
        cut in any::<prop::sample::Index>(),
        mutate in 0..5u8,
    ) {
        use ucg_ultracode::decisions::{decisions_for_write, AnswersFile};
        use ucg_ultracode::answer::{self, Action, Answer};
        // Top-level members around `decisions`, a second `decisions`, a document cut short.
        let mut text = text;
        if let Some(body) = text.strip_prefix('{') {
            let members: String = extra.iter().map(|(k, v)| format!("{k}: {v}, ")).collect();
            text = format!("{{{members}{body}");
        }
        if mutate == 0 {
            text = text.replacen("{\"decisions\"", "{\"decisions\": 7, \"decisions\"", 1);
        }
        let mut bytes = text.into_bytes();
        if mutate == 1 && !bytes.is_empty() {
            bytes.truncate(cut.index(bytes.len()));
        }
        let answers: Vec<Answer> = answers
            .into_iter()
            .map(|(id, answer, close)| Answer {
                by: close.then(|| "pm@example.com".into()),
                at: Some("2026-12-02T09:30:00Z".into()),
                ..Answer::new(id, answer, if close { Action::Close } else { Action::Defer })
            })
            .collect();
        // Answered before: the answers' ids an entry of the file already has.
        let whole = decisions_for_write(Some(&bytes)).map(|(mut doc, mut entries)| {
            let answered_before: std::collections::BTreeSet<String> = entries
                .iter()
                .filter_map(|e| e.as_object()?.get("id")?.as_str())
                .filter(|id| answers.iter().any(|a| a.id == *id))
                .map(str::to_string)
                .collect();
            answer::merge(&mut entries, &answers);
            let closed = answer::closed_in(&entries);
            (answer::render(&mut doc, &mut entries), closed, answered_before)
        });
        let by_entry = AnswersFile::read(Some(bytes.clone())).map(|file| {
            let merged = answer::merge_pieces(file.entries(), &answers);
            let closed: ucg_ultracode::decisions::IdSet =
                merged.closed.iter().map(|id| id.to_string()).collect();
            let answered_before = merged.answered_before.iter().map(|id| id.to_string()).collect();
            (file.render(&merged.pieces), closed, answered_before)
        });
        prop_assert_eq!(by_entry, whole);
    }
}

#[test]
fn a_new_answers_file_is_written_as_the_whole_tree_writes_it() {
    use ucg_ultracode::answer::{self, Action, Answer};
    use ucg_ultracode::decisions::{decisions_for_write, AnswersFile};
    let answers = [Answer::new(
        "k:p.md:0123456789ab",
        "yes \"quoted\" é",
        Action::Close,
    )];
    let (mut doc, mut entries) = decisions_for_write(None).unwrap_or_default();
    answer::merge(&mut entries, &answers);
    let file = AnswersFile::read(None).unwrap_or_default();
    let merged = answer::merge_pieces(file.entries(), &answers);
    assert_eq!(
        file.render(&merged.pieces),
        answer::render(&mut doc, &mut entries)
    );
    let closed: ucg_ultracode::decisions::IdSet =
        merged.closed.iter().map(|id| id.to_string()).collect();
    assert_eq!(closed, answer::closed_in(&entries));
}

proptest! {
    #[test]
    fn the_line_suffix_and_the_plain_sentence_shortcuts_agree_with_the_long_way(
        source in "[a-z:/. \t0-9٠-٩]{0,24}",
        text in "[a-z \t\n\u{1c}\u{1f}\u{7f}\u{1}é.?]{0,40}",
    ) {
        // `re.sub(r":\d+$", "", strip(source))`, with the regex.
        let re = regex::Regex::new(r":\d+\z").unwrap();
        let stripped = ids::py_strip(&source);
        let expected = re.find(stripped).map_or(stripped, |m| &stripped[..m.start()]);
        prop_assert_eq!(ids::bare_path(&source), expected);
        // Runs of Python whitespace collapsed, the ends stripped (the text is already NFC).
        let expected: Vec<&str> = text.split(ids::is_python_space).filter(|w| !w.is_empty()).collect();
        prop_assert_eq!(ids::normalize_decision(&text).into_owned(), expected.join(" "));
    }
}

/// Bytes a merge driver may be handed: nearly an answers file, nearly a registry, or anything.
fn merge_side() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => answers_text().prop_map(String::into_bytes),
        3 => registry_text(true).prop_map(String::into_bytes),
        1 => proptest::collection::vec(any::<u8>(), 0..64),
    ]
}

/// A registry as its writer writes it (when `overlap`, a red's id may also be tombstoned),
/// with an extra key or two on the odd red or tombstone.
fn registry_text(overlap: bool) -> impl Strategy<Value = String> {
    let red = ("r[a-d]", "[a-z ]{0,6}", any::<bool>()).prop_map(|(id, decision, extra)| {
        let extra = if extra { ", \"x\": [1, null]" } else { "" };
        format!("{{\"id\": \"{id}\", \"source\": \"p.md:1\", \"kind\": \"k\", \"decision_needed\": \"{decision}\", \"evidence\": \"\"{extra}}}")
    });
    let tombstone_id = if overlap { "[rt][a-d]" } else { "t[a-d]" };
    let tombstone = (tombstone_id, any::<bool>()).prop_map(|(id, extra)| {
        let extra = if extra { ", \"note\": \"é\"" } else { "" };
        format!("{{\"id\": \"{id}\", \"kind\": \"k\", \"path\": \"p.md\"{extra}}}")
    });
    (
        proptest::collection::vec(red, 0..5),
        proptest::collection::vec(tombstone, 0..5),
    )
        .prop_map(|(reds, resolved)| {
            format!(
                "{{\"reds\": [{}], \"resolved\": [{}]}}",
                reds.join(", "),
                resolved.join(", ")
            )
        })
}

/// An answers file of answers only: ids `a`–`e`, closes and defers, some stamped.
fn answers_doc() -> impl Strategy<Value = String> {
    let entry = (
        "[a-e]",
        "[xyz]{1,2}",
        any::<bool>(),
        proptest::option::of(0..3u8),
    )
        .prop_map(|(id, answer, close, at)| {
            let action = if close { "close" } else { "defer" };
            let at = at
                .map(|h| format!(", \"at\": \"2026-12-02T0{h}:00:00Z\""))
                .unwrap_or_default();
            format!("{{\"id\": \"{id}\", \"answer\": \"{answer}\", \"action\": \"{action}\"{at}}}")
        });
    proptest::collection::vec(entry, 0..6)
        .prop_map(|entries| format!("{{\"decisions\": [{}]}}", entries.join(", ")))
}

fn answer_ids(bytes: &[u8]) -> HashSet<String> {
    let (_, entries) = ucg_ultracode::decisions::decisions_for_write(Some(bytes)).unwrap();
    entries
        .iter()
        .filter_map(|e| Some(e.as_object()?.get("id")?.as_str()?.to_string()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn the_merge_driver_never_panics(base in merge_side(), ours in merge_side(), theirs in merge_side()) {
        use ucg_ultracode::merge::{merge, Kind};
        for kind in [Kind::Answers, Kind::Registry] {
            if let Ok(merged) = merge(kind, &base, &ours, &theirs) {
                // What it writes, it can merge again.
                prop_assert!(merge(kind, &base, merged.bytes.as_bytes(), &theirs).is_ok());
            }
        }
    }

    #[test]
    fn an_answers_file_merged_with_itself_is_written_as_its_writer_writes_it(text in answers_text()) {
        use ucg_ultracode::decisions::decisions_for_write;
        use ucg_ultracode::merge::merge_answers;
        let bytes = text.as_bytes();
        let Ok((mut doc, mut entries)) = decisions_for_write(Some(bytes)) else {
            prop_assert!(merge_answers(bytes, bytes, bytes).is_err());
            return Ok(());
        };
        let canonical = ucg_ultracode::answer::render(&mut doc, &mut entries);
        for base in [bytes, b""] {
            let merged = merge_answers(base, bytes, bytes).unwrap();
            prop_assert_eq!(&merged.bytes, &canonical);
            prop_assert!(merged.overridden.is_empty());
        }
    }

    #[test]
    fn a_registry_merged_with_itself_is_written_as_its_writer_writes_it(text in registry_text(false)) {
        use ucg_ultracode::merge::merge_registry;
        let bytes = text.as_bytes();
        let registry = reds::Registry::parse(Some(bytes), "r").unwrap();
        let canonical = reds::Registry {
            resolved: reds::carried_tombstones(registry.resolved.iter().cloned()).unwrap(),
            ..registry
        }
        .to_pretty_json();
        for base in [bytes, b""] {
            prop_assert_eq!(&merge_registry(base, bytes, bytes).unwrap().0, &canonical);
        }
    }

    #[test]
    fn merged_answers_keep_every_id_of_both_sides_once(
        base in answers_doc(),
        ours in answers_doc(),
        theirs in answers_doc(),
    ) {
        use ucg_ultracode::merge::merge_answers;
        let merged = merge_answers(base.as_bytes(), ours.as_bytes(), theirs.as_bytes()).unwrap();
        let mut expected = answer_ids(ours.as_bytes());
        expected.extend(answer_ids(theirs.as_bytes()));
        prop_assert_eq!(answer_ids(merged.bytes.as_bytes()), expected);
        // Without an ancestor (both sides added the file), a close on either side is never lost:
        // it stays a close, or — closed differently on the other side — both stay, contested.
        let merged = merge_answers(b"", ours.as_bytes(), theirs.as_bytes()).unwrap();
        let closed = |bytes: &[u8]| ucg_ultracode::decisions::closed_ids(Some(bytes));
        let merged_closed = closed(merged.bytes.as_bytes());
        let (_, entries) =
            ucg_ultracode::decisions::decisions_for_write(Some(merged.bytes.as_bytes())).unwrap();
        let contested: HashSet<String> = entries
            .iter()
            .filter_map(|e| e.as_object())
            .filter(|e| e.get("action").and_then(|a| a.as_str()) == Some("contested"))
            .filter_map(|e| Some(e.get("id")?.as_str()?.to_string()))
            .collect();
        for id in closed(ours.as_bytes()).iter().chain(closed(theirs.as_bytes()).iter()) {
            prop_assert!(
                merged_closed.contains(id) || contested.contains(id),
                "{} lost its close",
                id
            );
        }
        // What the merge contests it names, once each.
        let named: HashSet<String> = merged.overridden.iter().map(|o| o.id.clone()).collect();
        prop_assert_eq!(named.len(), merged.overridden.len());
        prop_assert!(named.iter().all(|id| contested.contains(id)));
    }

    #[test]
    fn merged_registries_keep_every_tombstone_and_no_tombstoned_red(
        base in registry_text(true),
        ours in registry_text(true),
        theirs in registry_text(true),
    ) {
        use ucg_ultracode::merge::merge_registry;
        let (merged, _) = merge_registry(base.as_bytes(), ours.as_bytes(), theirs.as_bytes()).unwrap();
        let parse = |text: &str| reds::Registry::parse(Some(text.as_bytes()), "r").unwrap();
        let tombstones = |r: &reds::Registry| -> HashSet<String> {
            r.resolved.iter().filter_map(|t| Some(t.as_object()?.get("id")?.as_str()?.to_string())).collect()
        };
        let merged = parse(&merged);
        let mut all = tombstones(&parse(&base));
        all.extend(tombstones(&parse(&ours)));
        all.extend(tombstones(&parse(&theirs)));
        prop_assert_eq!(tombstones(&merged), all.clone());
        prop_assert!(merged.red_ids().all(|id| !all.contains(id)));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// A close bound to an escalation's occurrence never clears a sidecar whose bytes differ from
    /// the ones it answered; one recorded without an occurrence answers every occurrence.
    #[test]
    fn an_occurrence_bound_close_never_clears_other_bytes(
        answered in proptest::collection::vec(any::<u8>(), 0..64),
        now in prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..64),
            Just(Vec::new()),
        ],
        same in any::<bool>(),
        bound in any::<bool>(),
    ) {
        use ucg_ultracode::pending::{self, Answers, OnRecord, Pending, PendingItem, Source};
        use std::borrow::Cow;
        let now = if same { answered.clone() } else { now };
        let item = PendingItem {
            decision_needed: "re-scope".into(),
            occurrence: Some(pending::occurrence(&now)),
            origin: ".escalation-7-3.md".into(),
            ..PendingItem::new(
                Source::Escalation,
                "budget-overrun:.escalation-7-3.md:0123456789ab".into(),
                "budget-overrun".into(),
                "impl/escalation-7-3.json".into(),
            )
        };
        let recorded = pending::occurrence(&answered);
        let mut answers = Answers::default();
        answers.insert(
            Cow::Borrowed(item.id.as_str()),
            OnRecord {
                answer: Cow::Borrowed("split"),
                action: Cow::Borrowed("close"),
                occurrence: bound.then_some(Cow::Borrowed(recorded.as_str())),
                contest: None,
            },
        );
        let laid = pending::with_answers(
            Pending { items: vec![item.clone()], ..Pending::default() },
            &answers,
        );
        let closes = laid.items[0].action.as_deref() == Some("close");
        if bound && answered != now {
            prop_assert!(!closes);
        }
        prop_assert_eq!(closes, !bound || answered == now);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// An earlier answer is offered only within its kind and source file, whatever the texts.
    #[test]
    fn reuse_never_crosses_kinds_or_source_files(
        earlier in proptest::collection::vec(
            (0..3usize, 0..3usize, "[a-f]{12}", proptest::collection::vec("(sessions|expire|after|how|long|do)", 1..6)),
            0..8,
        ),
        item in (0..3usize, 0..3usize, proptest::collection::vec("(sessions|expire|after|how|long|do)", 1..6)),
        threshold in 0.0..=1.0f64,
    ) {
        use ucg_ultracode::pending::{self, Earlier, Pending, PendingItem, Source};
        use ucg_ultracode::similarity;
        use std::borrow::Cow;
        const KINDS: [&str; 3] = ["undecided-product", "undecided-architecture", "budget-overrun"];
        const PATHS: [&str; 3] = ["docs/prd.md", "docs/arch.md", "docs/sub/prd.md"];
        let earlier: Vec<Earlier> = earlier
            .into_iter()
            .map(|(k, p, hash, words)| Earlier {
                id: Cow::Owned(format!("{}:{}:{hash}", KINDS[k], PATHS[p])),
                answer: Cow::Borrowed("yes"),
                action: Cow::Borrowed("close"),
                decision_needed: Cow::Owned(words.join(" ")),
            })
            .collect();
        let (k, p, words) = item;
        let id = format!("{}:{}:999999999999", KINDS[k], PATHS[p]);
        let mut found = Pending {
            items: vec![PendingItem {
                decision_needed: words.join(" "),
                origin: PATHS[p].into(),
                ..PendingItem::new(
                    Source::Red,
                    id.clone(),
                    KINDS[k].into(),
                    "impl/.preflight-reds.json".into(),
                )
            }],
            ..Pending::default()
        };
        pending::offer_similar(&mut found, &earlier, threshold);
        if let Some(offer) = &found.items[0].similar_to {
            prop_assert_eq!(similarity::scope(&offer.id), similarity::scope(&id));
            prop_assert!(offer.ratio >= threshold);
        }
        // Offered whenever some earlier question in scope is alike enough.
        let in_scope = earlier.iter().any(|e| {
            similarity::scope(&e.id) == similarity::scope(&id)
                && similarity::ratio(&e.decision_needed, &found.items[0].decision_needed) >= threshold
        });
        prop_assert_eq!(found.items[0].similar_to.is_some(), in_scope);
    }
}

proptest! {
    /// The reworded-question ratio counts the common subsequence itself for short texts: it must
    /// be `similar`'s ratio of the diff exactly (the threshold compares it to the last bit).
    #[test]
    fn the_word_ratio_is_similars_ratio(
        a in proptest::collection::vec("[abc]{1,2}", 0..40),
        b in proptest::collection::vec("[abc]{1,2}", 0..40),
    ) {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let b: Vec<&str> = b.iter().map(String::as_str).collect();
        let expected = if a.is_empty() && b.is_empty() {
            1.0
        } else {
            f64::from(similar::TextDiff::configure().diff_slices(&a, &b).ratio())
        };
        prop_assert_eq!(ucg_ultracode::similarity::words_ratio(&a, &b).to_bits(), expected.to_bits());
    }
}

proptest! {
    /// `pending` reads the stored reds' shown fields without a map per red: the same fields as
    /// the whole reader's, and a refusal exactly when it refuses — on registries, on registries
    /// with a red cut short or given a lone surrogate, duplicate or odd keys, and on noise.
    #[test]
    fn the_shown_reds_are_the_parsed_reds(
        text in prop_oneof![
            3 => registry_text(true),
            2 => (registry_text(false), 0..6usize, prop_oneof![
                Just(", \"id\": \"dup\""),
                Just(", \"kind\": \"\\ud800\""),
                Just(", \"\\ud800\": 1"),
                Just(", \"evidence\": [1, {\"a\": null}]"),
                Just(", \"id\": 7"),
                Just("\""),
            ]).prop_map(|(text, nth, extra)| {
                // After the nth `"evidence": ""` of the text.
                match text.match_indices("\"evidence\": \"\"").nth(nth) {
                    Some((at, found)) => {
                        let at = at + found.len();
                        format!("{}{extra}{}", &text[..at], &text[at..])
                    }
                    None => text,
                }
            }),
            1 => "[ -~]{0,40}",
        ],
    ) {
        let parsed = reds::Registry::parse(Some(text.as_bytes()), "r");
        let shown = reds::Registry::parse_shown(Some(text.as_bytes()), "r");
        match (parsed, shown) {
            (Ok(registry), Ok((reds_shown, resolved))) => {
                prop_assert_eq!(&resolved, &registry.resolved);
                let expected: Vec<Vec<Option<Value>>> = registry
                    .reds
                    .iter()
                    .map(|red| {
                        let red = red.as_object().unwrap();
                        reds::SHOWN_FIELDS.iter().map(|k| red.get(*k).cloned()).collect()
                    })
                    .collect();
                let got: Vec<Vec<Option<Value>>> =
                    reds_shown.into_iter().map(|red| red.to_vec()).collect();
                // Compared as text: a NaN is never equal to itself.
                prop_assert_eq!(format!("{got:?}"), format!("{expected:?}"));
            }
            (Err(a), Err(b)) => prop_assert_eq!(a, b),
            (a, b) => prop_assert!(false, "parse {:?} but parse_shown {:?}", a.is_ok(), b.is_ok()),
        }
    }
}
