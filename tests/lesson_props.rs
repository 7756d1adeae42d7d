//! Property tests of the lesson ledger's format code against a model of what DG-Anvil's Node code
//! writes: a lesson line is `JSON.stringify(JSON.parse(line))` (integer-like keys first in numeric
//! order, a repeated key keeping its first place and its last value, numbers re-serialized, lone
//! surrogates kept and escaped); the index is `updateIndex` over those values (`String(p)
//! .toLowerCase()` keys) then `JSON.stringify`; the splice equals that rebuild; the tokenizer and
//! Jaccard follow their rules; validation and the readers never panic; the contract edit changes
//! nothing but the entry it adds.

use proptest::prelude::*;
use ucg_lesson::js::{self, JsObject, JsString, JsValue};
use ucg_lesson::{contract, entry, index, ledger};

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

    /// Adding a counter-example keeps every other line, in order, and DG-Anvil's reader gives the
    /// value back exactly; a value without quotes is always taken.
    #[test]
    fn the_contract_edit_adds_only_its_entry(value in "\\PC{0,30}", lines in prop::collection::vec("[ -~]{0,12}", 0..3), has_examples in any::<bool>()) {
        let examples = if has_examples { "counter_examples:\n  L-1: \"one\"\n" } else { "" };
        let notes: String = lines.iter().map(|l| format!("  # {l}\n")).collect();
        let text = format!("{CONTRACT_HEAD}{examples}notes: \"n\"\n{notes}---\n# Body\n");
        prop_assert!(contract::load(&text).is_ok());
        match contract::add_counter_example(&text, "L-2", &value) {
            Ok(edited) => {
                let mut kept = edited.lines();
                for line in text.lines() {
                    prop_assert!(kept.any(|l| l == line), "{} lost from {}", line, edited);
                }
                let loaded = contract::load(&edited);
                prop_assert!(loaded.is_ok(), "{:?}", loaded);
                let back = loaded.ok().and_then(|c| c.get("counter_examples").and_then(|e| e.get("L-2")).cloned());
                prop_assert_eq!(back, Some(JsValue::str(&value)));
            }
            Err(error) => {
                prop_assert!(value.contains(['"', '\'']), "{}: {:?}", value, error);
                prop_assert_eq!(error.details.get("rule").and_then(JsValue::as_str), Some("counter_examples_edit"));
            }
        }
    }
}

/// A contract DG-Anvil's loader accepts, open at the end of its front matter.
const CONTRACT_HEAD: &str = "---\nanvil_contract_version: 1\ngoal: \"g\"\ncreated: \"2026-04-15\"\nsource_intent: \"s\"\ncriteria:\n  - id: C1\n    statement: \"works\"\n    exists:\n      paths:\n        - \"a.js\"\n    substantive:\n      coverage_min: 0.8\n    wired:\n      entry_point: \"a.js\"\n    functional:\n      expected: \"ok\"\n";

// ---------------------------------------------------------------------------------------------
// `query`: the answer from git-ucg's query index (built by a scan, or read back from the file it
// keeps beside the ledger) against the scan it replaced, kept here as the oracle: every line
// parsed whole, in the reference's order.

mod oracle {
    use std::collections::{HashMap, HashSet};
    use ucg_lesson::js::{self, JsString, JsValue};
    use ucg_lesson::{entry, ledger};

    fn kept(len: usize, limit: f64) -> usize {
        let limit = if limit == 0.0 || limit.is_nan() {
            5.0
        } else {
            limit.trunc()
        };
        if limit < 0.0 {
            (len as f64 + limit).max(0.0) as usize
        } else {
            limit.min(len as f64) as usize
        }
    }

    /// The warnings (`name` for the ledger's path) and the lessons, as `query` answered before
    /// it had an index.
    pub fn query(
        bytes: &[u8],
        name: &str,
        pattern: &str,
        limit: f64,
        hide_superseded: bool,
    ) -> (Vec<String>, Vec<(usize, JsValue)>) {
        let mut warnings = Vec::new();
        let (lines, torn) = ledger::raw_lines(bytes);
        if let Some(line) = torn {
            warnings.push(format!(
                "warning: {name}:{line}: torn last line (no newline), skipped"
            ));
        }
        let mut lessons = Vec::new();
        for (number, line) in lines {
            if JsString::from(js::decode(line).as_ref()).is_blank() {
                continue;
            }
            match js::parse_bytes(line) {
                Ok(JsValue::Null) => {
                    warnings.push(format!("warning: {name}:{number}: a null line, skipped"))
                }
                Ok(value) => lessons.push(value),
                Err(e) => warnings.push(format!(
                    "warning: {name}:{number}: malformed line skipped ({e})"
                )),
            }
        }
        let id_of = |l: &JsValue| l.get("id").and_then(JsValue::as_js_str).cloned();
        let invalidated: HashSet<JsString> = lessons
            .iter()
            .filter_map(|l| l.get("invalidates").and_then(JsValue::as_js_str).cloned())
            .collect();
        let mut superseded_by: HashMap<JsString, Vec<JsString>> = HashMap::new();
        for lesson in &lessons {
            if let Some(JsValue::Array(old)) = lesson.get("supersedes") {
                for old in old.iter().filter_map(JsValue::as_js_str) {
                    superseded_by
                        .entry(old.clone())
                        .or_default()
                        .push(id_of(lesson).unwrap_or_default());
                }
            }
        }
        let wanted = entry::tokens(&JsString::from(pattern));
        let mut scored: Vec<(usize, JsString, JsValue)> = lessons
            .into_iter()
            .filter(|l| !id_of(l).is_some_and(|id| invalidated.contains(&id)))
            .filter(|l| !l.get("invalidates").is_some_and(JsValue::truthy))
            .filter(|l| {
                !(hide_superseded && id_of(l).is_some_and(|id| superseded_by.contains_key(&id)))
            })
            .filter_map(|l| {
                let have = entry::pattern_tokens(&l);
                let score = wanted.iter().filter(|t| have.contains(*t)).count();
                let created = match l.get("created") {
                    Some(c) if c.truthy() => c.to_js_string(),
                    _ => JsString::new(),
                };
                (score > 0).then_some((score, created, l))
            })
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| js::locale_compare(&b.1, &a.1)));
        scored.truncate(kept(scored.len(), limit));
        let found = scored
            .into_iter()
            .map(|(score, _, mut lesson)| {
                if let (Some(by), JsValue::Object(map)) = (
                    id_of(&lesson).and_then(|id| superseded_by.get(&id)),
                    &mut lesson,
                ) {
                    map.set(
                        "superseded_by",
                        JsValue::Array(by.iter().cloned().map(JsValue::String).collect()),
                    );
                }
                (score, lesson)
            })
            .collect();
        (warnings, found)
    }
}

const WORDS: &[&str] = &[
    "rate",
    "limit",
    "cache",
    "csv",
    "RATE",
    "rate-limit",
    "café",
    "\u{212A}ey",
    "x1",
];
const IDS: &[&str] = &["L1", "L2", "L3", "L-\u{e9}", "7", ""];
const DATES: &[&str] = &["2026-01-01", "2026-01-02", "2025-12-31", "b", "B", "É", ""];

/// A JSON string literal of `text`, escaped or not.
fn quoted(text: &str, escape: bool) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if escape && !c.is_ascii_alphanumeric() => {
                let mut buf = [0u16; 2];
                for u in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
            c if escape && c.is_ascii_lowercase() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A field's value as query-relevant lessons hold them: mostly strings, sometimes not.
fn field_value(pick: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (prop::sample::select(pick), any::<bool>()).prop_map(|(t, e)| quoted(t, e)),
        1 => prop::sample::select(vec!["null", "0", "1", "true", "false", "[]", "{}", "[\"L1\"]", "2027", "-0.0", "1e400", "{\"id\":\"L1\"}"])
            .prop_map(str::to_string),
    ]
}

fn pattern_value() -> impl Strategy<Value = String> {
    let element = prop_oneof![
        8 => (prop::sample::select(WORDS), any::<bool>()).prop_map(|(t, e)| quoted(t, e)),
        1 => prop::sample::select(vec!["null", "0", "5", "true", "[\"csv\",null]", "{\"a\":1}", "\"\""])
            .prop_map(str::to_string),
    ];
    prop_oneof![
        6 => (prop::collection::vec(element, 0..4), prop::sample::select(vec![",", " , ", ",\t"]))
            .prop_map(|(items, sep)| format!("[{}]", items.join(sep))),
        1 => (prop::sample::select(WORDS), any::<bool>()).prop_map(|(t, e)| quoted(&format!("{t} cache"), e)),
        1 => prop::sample::select(vec!["null", "3", "{}", "true"]).prop_map(str::to_string),
    ]
}

/// One ledger line: a lesson of any shape (repeated and escaped keys, nested look-alikes,
/// markers, supersessions), or anything else a ledger may hold.
fn ledger_line() -> impl Strategy<Value = Vec<u8>> {
    let key = |name: &'static str| prop_oneof![8 => Just(quoted(name, false)), 1 => Just(quoted(name, true))];
    let pair = prop_oneof![
        3 => (key("id"), field_value(IDS)).prop_map(|(k, v)| format!("{k}:{v}")),
        3 => (key("created"), field_value(DATES)).prop_map(|(k, v)| format!("{k}:{v}")),
        4 => (key("pattern"), pattern_value()).prop_map(|(k, v)| format!("{k} : {v}")),
        1 => (key("invalidates"), field_value(IDS)).prop_map(|(k, v)| format!("{k}:{v}")),
        1 => (key("supersedes"), prop::collection::vec(field_value(IDS), 0..3))
            .prop_map(|(k, v)| format!("{k}:[{}]", v.join(","))),
        1 => Just("\"tags\":[\"rate\"],\"x\":{\"id\":\"L9\",\"pattern\":[\"csv\"]}".to_string()),
        1 => Just("\"anvil_ledger_entry_version\":1,\"evidence\":\"e \\\" é\"".to_string()),
    ];
    let lesson = prop::collection::vec(pair, 0..7)
        .prop_map(|pairs| format!("{{{}}}", pairs.join(",")).into_bytes());
    prop_oneof![
        12 => lesson,
        1 => prop::sample::select(vec![
            &b"null"[..], b" null ", b"[\"L1\",\"2026-09-09\",[\"rate\"]]", b"\"text\"", b"5",
            b"{oops", b"{\"id\":\"L1\",}", b"", b"   ", b"\xc2\xa0", b"\xef\xbb\xbf{}",
            b"{\"id\":\"\xff\",\"pattern\":[\"rate\"]}", b"{\"pattern\":[\"ra\xffte\"]}",
            b"{\"pattern\":[\"rate\"]}\r", b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
        ])
        .prop_map(<[u8]>::to_vec),
    ]
}

/// A ledger: lines, each ended by `\n` or `\r\n`, the last one perhaps not ended at all.
fn ledger_bytes() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec((ledger_line(), any::<bool>()), 0..14),
        prop_oneof![3 => Just(None), 1 => Just(Some(&b""[..])), 1 => Just(Some(&b"{\"id\":\"L1\",\"pat"[..])), 1 => Just(Some(&b"{\"pattern\":[\"rate\"]}"[..]))],
    )
        .prop_map(|(lines, tail)| {
            let mut out = Vec::new();
            for (line, crlf) in lines {
                out.extend_from_slice(&line);
                out.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
            }
            if let Some(tail) = tail {
                out.extend_from_slice(tail);
            }
            out
        })
}

fn query_words() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "rate",
            "limit",
            "cache",
            "CSV",
            "key",
            "caf",
            "x1",
            "rate-limit",
            "zzz",
        ]),
        0..4,
    )
    .prop_map(|w| w.join(" "))
}

/// How a line is read for a query: skimmed, or parsed whole.
type ReadLine = for<'a> fn(
    &'a [u8],
    &mut Vec<std::borrow::Cow<'a, [u8]>>,
) -> ucg_lesson::query_index::Ranked<'a>;

/// A line's facts in a comparable form: its tokens as a set, in byte order.
fn comparable(line: &[u8], read: ReadLine) -> String {
    use ucg_lesson::query_index::Ranked;
    let mut tokens = Vec::new();
    match read(line, &mut tokens) {
        Ranked::Lesson(mut facts) => {
            let mut set: Vec<&[u8]> = tokens[facts.tokens.clone()]
                .iter()
                .map(|t| &t[..])
                .collect();
            set.sort();
            set.dedup();
            facts.tokens = 0..0;
            format!("{facts:?} {set:?}")
        }
        other => format!("{other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

    /// A line skimmed gives the facts of the line parsed whole.
    #[test]
    fn a_skimmed_line_reads_as_the_parsed_line(line in ledger_line(), bytes in prop::collection::vec(any::<u8>(), 0..40)) {
        use ucg_lesson::query_index::{read_line, read_line_parsed};
        for line in [&line[..], &bytes[..]] {
            prop_assert_eq!(comparable(line, read_line), comparable(line, read_line_parsed), "{}", String::from_utf8_lossy(line));
        }
    }

    /// `query` answers as the scan it replaced — warnings, lessons, order, scores — from the
    /// index a scan builds and from the index kept beside the ledger, read back.
    #[test]
    fn query_answers_as_the_scan(ledger in ledger_bytes(), pattern in query_words(), limit in prop::sample::select(vec![0.0, 1.0, 2.0, 5.0, -1.0, 100.0, f64::NAN]), hide in any::<bool>()) {
        use ucg_lesson::query;
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("ledger.jsonl");
        std::fs::write(&path, &ledger).unwrap_or_else(|e| panic!("{e}"));
        let paths = ledger::paths(Some(&path));
        let want = oracle::query(&ledger, &path.display().to_string(), &pattern, limit, hide);
        for round in ["scan", "kept index"] {
            let mut warnings = Vec::new();
            let got = query::query_keeping(&paths, &JsString::from(pattern.as_str()), limit, hide, 0, &mut |w| warnings.push(w));
            prop_assert!(got.is_ok(), "{round}: {got:?}");
            let got = got.unwrap_or_default();
            prop_assert_eq!(&warnings, &want.0, "{}", round);
            let show = |found: &[(usize, JsValue)]| found.iter().map(|(s, l)| format!("{s} {}", l.to_json_string())).collect::<Vec<_>>();
            prop_assert_eq!(show(&got), show(&want.1), "{}", round);
            prop_assert!(query::index_path(&path).exists(), "{}", round);
        }
    }

    /// Whatever stands where the index is kept, the query answers as the scan.
    #[test]
    fn a_damaged_kept_index_is_not_believed(ledger in ledger_bytes(), cut in any::<prop::sample::Index>(), flip in any::<prop::sample::Index>(), noise in prop::collection::vec(any::<u8>(), 0..64)) {
        use ucg_lesson::{query, query_index};
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("ledger.jsonl");
        std::fs::write(&path, &ledger).unwrap_or_else(|e| panic!("{e}"));
        let paths = ledger::paths(Some(&path));
        let want = oracle::query(&ledger, &path.display().to_string(), "rate cache", 5.0, false);
        let identity = ucg_store::Freshness::of(&std::fs::metadata(&path).unwrap_or_else(|e| panic!("{e}")));
        let good = query_index::build(&ledger, identity).unwrap_or_default();
        let mut flipped = good.clone();
        if !flipped.is_empty() {
            let at = flip.index(flipped.len());
            flipped[at] ^= 0x20;
        }
        for damaged in [good[..cut.index(good.len() + 1)].to_vec(), flipped, noise] {
            let _ = query_index::View::parse(&damaged).map(|v| v.answer(&JsString::from("rate cache"), 5.0, false));
            std::fs::write(query::index_path(&path), &damaged).unwrap_or_else(|e| panic!("{e}"));
            let mut warnings = Vec::new();
            let got = query::query_keeping(&paths, &JsString::from("rate cache"), 5.0, false, usize::MAX, &mut |w| warnings.push(w)).unwrap_or_default();
            prop_assert_eq!(&warnings, &want.0);
            prop_assert_eq!(got.iter().map(|(s, l)| format!("{s} {}", l.to_json_string())).collect::<Vec<_>>(), want.1.iter().map(|(s, l)| format!("{s} {}", l.to_json_string())).collect::<Vec<_>>());
        }
    }
}
