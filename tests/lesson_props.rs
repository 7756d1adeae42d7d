//! Property tests of the lesson ledger's format code against a model of what DG-Anvil's Node code
//! writes: a lesson line is `JSON.stringify(JSON.parse(line))` (integer-like keys first in numeric
//! order, a repeated key keeping its first place and its last value, numbers re-serialized, lone
//! surrogates kept and escaped); the index is `updateIndex` over those values (`String(p)
//! .toLowerCase()` keys) then `JSON.stringify`; the splice equals that rebuild; the tokenizer and
//! Jaccard follow their rules; validation and the readers never panic; the contract edit changes
//! nothing but the entry it adds.

use git_ucg::lesson::js::{self, JsObject, JsString, JsValue};
use git_ucg::lesson::{contract, entry, index, ledger};
use proptest::prelude::*;

/// Number literals and what `JSON.stringify(JSON.parse(literal))` gives for them (recorded from
/// Node 20).
const NUMBERS: &[(&str, &str)] = &[
    ("1.0", "1"),
    ("-0", "0"),
    ("1e21", "1e+21"),
    ("1E-7", "1e-7"),
    ("0.10", "0.1"),
    ("123e-20", "1.23e-18"),
    ("12345678901234567890", "12345678901234567000"),
    ("1e400", "null"),
    ("-1e400", "null"),
    ("5e-324", "5e-324"),
    ("2.50", "2.5"),
    ("100", "100"),
    ("1.5e300", "1.5e+300"),
    ("0.000001", "0.000001"),
    ("1e-6", "0.000001"),
    ("-2.5e-7", "-2.5e-7"),
    ("999999999999999999999", "1e+21"),
    ("1e20", "100000000000000000000"),
    ("4.35", "4.35"),
    ("0.1e1", "1"),
    ("7e0", "7"),
    ("-0.0", "0"),
    ("3.14159265358979323846", "3.141592653589793"),
    ("9007199254740993", "9007199254740992"),
    ("1e-400", "0"),
    ("0", "0"),
    ("42", "42"),
    ("-17", "-17"),
];

/// A JSON value as the model holds it: strings as UTF-16 code units, objects as the key/value
/// pairs in the order the text gives them (repeats included), numbers as a literal of the table.
#[derive(Clone, Debug)]
enum M {
    Null,
    Bool(bool),
    Num(usize),
    Str(Vec<u16>),
    Arr(Vec<M>),
    Obj(Vec<(Vec<u16>, M)>),
}

fn units() -> impl Strategy<Value = Vec<u16>> {
    let unit = prop_oneof![
        4 => 0x61u16..0x7B,
        1 => Just(0x41u16),
        1 => 0u16..0x20,
        1 => prop::sample::select(vec![0x22u16, 0x5C, 0x2F, 0x7F, 0x2028, 0xFEFF, 0x212A, 0x130, 0x3A3, 0xE9]),
        1 => 0xD800u16..0xE000,
    ];
    prop::collection::vec(unit, 0..6)
}

fn key() -> impl Strategy<Value = Vec<u16>> {
    prop_oneof![
        2 => units(),
        2 => prop::sample::select(vec!["0", "1", "10", "2", "01", "-1", "4294967294", "4294967295", "id", "__proto__", "constructor"])
            .prop_map(|k| k.encode_utf16().collect()),
    ]
}

fn model() -> impl Strategy<Value = M> {
    let leaf = prop_oneof![
        Just(M::Null),
        any::<bool>().prop_map(M::Bool),
        (0..NUMBERS.len()).prop_map(M::Num),
        units().prop_map(M::Str),
    ];
    leaf.prop_recursive(3, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(M::Arr),
            prop::collection::vec((key(), inner), 0..5).prop_map(M::Obj),
        ]
    })
}

/// The model written as input text, every unit escaped or not as `raw` says.
fn text(m: &M, raw: bool, out: &mut String) {
    match m {
        M::Null => out.push_str("null"),
        M::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        M::Num(i) => out.push_str(NUMBERS[*i].0),
        M::Str(s) => quote_input(s, raw, out),
        M::Arr(items) => {
            out.push_str("[ ");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(" ,");
                }
                text(item, !raw, out);
            }
            out.push(']');
        }
        M::Obj(pairs) => {
            out.push('{');
            for (i, (k, v)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                quote_input(k, raw, out);
                out.push_str(" : ");
                text(v, raw, out);
            }
            out.push_str("}\t");
        }
    }
}

fn quote_input(s: &[u16], raw: bool, out: &mut String) {
    out.push('"');
    for c in char::decode_utf16(s.iter().copied()) {
        match c {
            Ok(ch) if raw && ch != '"' && ch != '\\' && (ch as u32) >= 0x20 => out.push(ch),
            Ok(ch) => {
                let mut buf = [0u16; 2];
                for u in ch.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{:04X}", u));
                }
            }
            Err(e) => out.push_str(&format!("\\u{:04x}", e.unpaired_surrogate())),
        }
    }
    out.push('"');
}

/// An array index: JavaScript's integer-like keys.
fn index_of(k: &[u16]) -> Option<u64> {
    let s = String::from_utf16(k).ok()?;
    let ok = !s.is_empty()
        && s.bytes().all(|b| b.is_ascii_digit())
        && (s == "0" || !s.starts_with('0'))
        && s.len() <= 10;
    let n: u64 = if ok { s.parse().ok()? } else { return None };
    (n <= 4_294_967_294).then_some(n)
}

/// `JSON.stringify` of the model, by the rules, not by the code under test.
fn stringify(m: &M, out: &mut String) {
    match m {
        M::Null => out.push_str("null"),
        M::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        M::Num(i) => out.push_str(NUMBERS[*i].1),
        M::Str(s) => quote_output(s, out),
        M::Arr(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                stringify(item, out);
            }
            out.push(']');
        }
        M::Obj(pairs) => {
            // First place, last value.
            let mut props: Vec<(Vec<u16>, M)> = Vec::new();
            for (k, v) in pairs {
                match props.iter_mut().find(|(pk, _)| pk == k) {
                    Some(slot) => slot.1 = v.clone(),
                    None => props.push((k.clone(), v.clone())),
                }
            }
            let mut indexed: Vec<&(Vec<u16>, M)> = props
                .iter()
                .filter(|(k, _)| index_of(k).is_some())
                .collect();
            indexed.sort_by_key(|(k, _)| index_of(k));
            let named = props.iter().filter(|(k, _)| index_of(k).is_none());
            out.push('{');
            for (i, (k, v)) in indexed.into_iter().chain(named).enumerate() {
                if i > 0 {
                    out.push(',');
                }
                quote_output(k, out);
                out.push(':');
                stringify(v, out);
            }
            out.push('}');
        }
    }
}

fn quote_output(s: &[u16], out: &mut String) {
    out.push('"');
    for c in char::decode_utf16(s.iter().copied()) {
        match c {
            Ok('"') => out.push_str("\\\""),
            Ok('\\') => out.push_str("\\\\"),
            Ok('\u{8}') => out.push_str("\\b"),
            Ok('\u{c}') => out.push_str("\\f"),
            Ok('\n') => out.push_str("\\n"),
            Ok('\r') => out.push_str("\\r"),
            Ok('\t') => out.push_str("\\t"),
            Ok(ch) if (ch as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", ch as u32)),
            Ok(ch) => out.push(ch),
            Err(e) => out.push_str(&format!("\\u{:04x}", e.unpaired_surrogate())),
        }
    }
    out.push('"');
}

/// A lesson for the index: an id, a date and pattern values of any kind.
fn lesson() -> impl Strategy<Value = (Vec<u16>, String, M)> {
    (
        prop_oneof![3 => units().prop_filter("a non-empty id", |u| !u.is_empty()), 1 => Just("7".encode_utf16().collect())],
        "20[0-9]{2}-[0-9]{2}-[0-9]{2}",
        prop::collection::vec(model(), 0..4).prop_map(M::Arr),
    )
}

/// `updateIndex` by the rules on a model index (`by_pattern` and `by_id` as ordered pairs).
fn model_index(lessons: &[(Vec<u16>, String, M)]) -> String {
    let mut by_pattern: Vec<(Vec<u16>, Vec<Vec<u16>>)> = Vec::new();
    let mut by_id: Vec<(Vec<u16>, String)> = Vec::new();
    for (id, created, pattern) in lessons {
        match by_id.iter_mut().find(|(k, _)| k == id) {
            Some(slot) => slot.1 = created.clone(),
            None => by_id.push((id.clone(), created.clone())),
        }
        let M::Arr(items) = pattern else { continue };
        for p in items {
            let key: Vec<u16> = string_of(p).to_lowercase_units();
            match by_pattern.iter_mut().find(|(k, _)| *k == key) {
                Some((_, ids)) => {
                    if !ids.contains(id) {
                        ids.push(id.clone())
                    }
                }
                None => by_pattern.push((key, vec![id.clone()])),
            }
        }
    }
    let pairs = |list: Vec<(Vec<u16>, M)>| M::Obj(list);
    let doc = pairs(vec![
        (
            "by_pattern".encode_utf16().collect(),
            M::Obj(
                by_pattern
                    .into_iter()
                    .map(|(k, ids)| (k, M::Arr(ids.into_iter().map(M::Str).collect())))
                    .collect(),
            ),
        ),
        (
            "by_id".encode_utf16().collect(),
            M::Obj(
                by_id
                    .into_iter()
                    .map(|(k, c)| {
                        (
                            k,
                            M::Obj(vec![(
                                "created".encode_utf16().collect(),
                                M::Str(c.encode_utf16().collect()),
                            )]),
                        )
                    })
                    .collect(),
            ),
        ),
    ]);
    let mut out = String::new();
    stringify(&doc, &mut out);
    out
}

/// `String(x)` of the model, as code units.
struct Units(Vec<u16>);

impl Units {
    fn to_lowercase_units(&self) -> Vec<u16> {
        // Lowercase each run of valid text; lone surrogates stay.
        let mut out = Vec::new();
        let mut run = String::new();
        for c in char::decode_utf16(self.0.iter().copied()) {
            match c {
                Ok(ch) => run.push(ch),
                Err(e) => {
                    out.extend(run.to_lowercase().encode_utf16());
                    run.clear();
                    out.push(e.unpaired_surrogate());
                }
            }
        }
        out.extend(run.to_lowercase().encode_utf16());
        out
    }
}

fn string_of(m: &M) -> Units {
    let mut out = Vec::new();
    fn walk(m: &M, top: bool, out: &mut Vec<u16>) {
        match m {
            M::Null if top => out.extend("null".encode_utf16()),
            M::Null => {}
            M::Bool(b) => out.extend(if *b { "true" } else { "false" }.encode_utf16()),
            M::Num(i) => {
                let shown = NUMBERS[*i].1;
                let shown = if shown == "null" {
                    if NUMBERS[*i].0.starts_with('-') {
                        "-Infinity"
                    } else {
                        "Infinity"
                    }
                } else {
                    shown
                };
                out.extend(shown.encode_utf16())
            }
            M::Str(s) => out.extend_from_slice(s),
            M::Arr(items) => {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',' as u16);
                    }
                    walk(item, false, out);
                }
            }
            M::Obj(_) => out.extend("[object Object]".encode_utf16()),
        }
    }
    walk(m, true, &mut out);
    Units(out)
}

fn as_entry(id: &[u16], created: &str, pattern: &M) -> JsObject {
    let mut pattern_text = String::new();
    text(pattern, false, &mut pattern_text);
    let mut line = String::from("{\"id\":");
    quote_input(id, false, &mut line);
    line.push_str(&format!(
        ",\"created\":\"{created}\",\"pattern\":{pattern_text}}}"
    ));
    js::parse(&line)
        .ok()
        .and_then(|v| v.as_object().cloned())
        .unwrap_or_default()
}

proptest! {
    /// A lesson line is written as `JSON.stringify(JSON.parse(line))`.
    #[test]
    fn lines_are_rewritten_as_javascript_writes_them(m in model(), raw in any::<bool>()) {
        let mut input = String::new();
        text(&m, raw, &mut input);
        let mut want = String::new();
        stringify(&m, &mut want);
        let parsed = js::parse(&input);
        prop_assert!(parsed.is_ok(), "{input}: {parsed:?}");
        let got = parsed.map(|v| v.to_json_string()).unwrap_or_default();
        prop_assert_eq!(got, want);
    }

    /// The index after appends is `updateIndex` then `JSON.stringify`, by the full path and by the
    /// splice alike.
    #[test]
    fn the_index_is_updateindex_then_stringify(first in prop::collection::vec(lesson(), 0..5), more in prop::collection::vec(lesson(), 1..4)) {
        let mut index_map = JsObject::new();
        for (id, created, pattern) in &first {
            prop_assert!(ledger::index_entry(&mut index_map, &as_entry(id, created, pattern)).is_ok());
        }
        let text_before = index::to_bytes(&index_map);
        let mut additions = Vec::new();
        for (id, created, pattern) in &more {
            let entry = as_entry(id, created, pattern);
            prop_assert!(ledger::index_entry(&mut index_map, &entry).is_ok());
            additions.push(index::Addition {
                id: JsString::from_units(id),
                created: JsValue::str(created),
                keys: entry::index_keys(&entry),
            });
        }
        let all: Vec<_> = first.iter().chain(&more).cloned().collect();
        let want = model_index(&all);
        let rebuilt = String::from_utf8(index::to_bytes(&index_map)).unwrap_or_default();
        prop_assert_eq!(&rebuilt, &want);
        if let Some(splice) = index::splice(&text_before, &additions) {
            prop_assert_eq!(String::from_utf8(splice.apply(&text_before)).unwrap_or_default(), want);
        }
    }

    /// Tokens are lowercase ASCII letters and digits; Jaccard is symmetric and in [0, 1].
    #[test]
    fn tokens_and_similarity(a in "\\PC{0,30}", b in "\\PC{0,30}") {
        for token in entry::tokens(&JsString::from(a.as_str())) {
            prop_assert!(!token.is_empty() && token.bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()));
        }
        let want: Vec<String> = a
            .to_lowercase()
            .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect();
        prop_assert_eq!(entry::tokens(&JsString::from(a.as_str())), want);
        let s = entry::jaccard(&a, &b);
        prop_assert!((0.0..=1.0).contains(&s));
        prop_assert_eq!(s, entry::jaccard(&b, &a));
        prop_assert_eq!(entry::jaccard(&a, &a), 1.0);
    }

    /// Validation and the line reader take any text.
    #[test]
    fn validation_is_total(text in "\\PC{0,60}", bytes in prop::collection::vec(any::<u8>(), 0..80)) {
        if let Ok(value) = js::parse(&text) {
            let _ = entry::validate(&value);
        }
        let _ = ledger::lines(text.as_bytes());
        let _ = ledger::lines(&bytes);
        let _ = ledger::load_index(Some(&bytes));
    }

    /// Adding a counter-example keeps every other line, in order.
    #[test]
    fn the_contract_edit_adds_only_its_entry(value in "\\PC{0,30}", extra in "[a-z_]{1,8}".prop_filter("a key the contract already has", |k| !["id", "criteria", "counter_examples"].contains(&k.as_str()))) {
        let text = format!("id: c-1\ncriteria:\n  - id: C1\n    statement: works\ncounter_examples:\n  L-1: \"one\"\n{extra}: 1\n");
        let edited = contract::add_counter_example(&text, "L-2", &value);
        prop_assert!(edited.is_ok(), "{:?}", edited);
        let edited = edited.unwrap_or_default();
        let added: Vec<&str> = edited.lines().filter(|l| !text.lines().any(|t| t == *l)).collect();
        prop_assert_eq!(added.len(), 1);
        prop_assert!(added[0].starts_with("  \"L-2\": "));
    }
}
