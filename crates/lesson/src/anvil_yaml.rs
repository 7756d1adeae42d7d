//! A contract as DG-Anvil's own loader reads it (`loadAndValidate`: its YAML subset's front
//! matter, then its contract rules), so that `lesson retro` accepts and refuses exactly the
//! contracts the reference does, with its codes and details (`E_INVALID_YAML {line, column,
//! feature}`, `E_INVALID_CONTRACT {rule, path, expected, actual}`). Strings are JavaScript's:
//! UTF-16 code units, which the subset's columns and slices count.

use super::entry::{details, LessonError};
use super::js::{JsObject, JsString, JsValue};
use ucg_store::js::is_space as is_js_space;

type Units = Vec<u16>;

fn units(text: &str) -> Units {
    text.encode_utf16().collect()
}

fn trim(s: &[u16]) -> &[u16] {
    let start = s.iter().position(|c| !is_space_unit(*c)).unwrap_or(s.len());
    // A last unit that is not space is at or after the first one.
    let end = s
        .iter()
        .rposition(|c| !is_space_unit(*c))
        .map_or(start, |i| i + 1);
    &s[start..end]
}

fn eq(s: &[u16], text: &str) -> bool {
    s.iter().copied().eq(text.encode_utf16())
}

fn starts_with(s: &[u16], text: &str) -> bool {
    s.starts_with(&units(text))
}

fn ends_with(s: &[u16], text: &str) -> bool {
    s.ends_with(&units(text))
}

fn find(s: &[u16], c: char) -> Option<usize> {
    s.iter().position(|u| u32::from(*u) == c as u32)
}

fn js(s: &[u16]) -> JsValue {
    JsValue::String(JsString::from_units(s))
}

fn yaml_error(line: usize, column: usize, feature: &str, message: &str) -> LessonError {
    LessonError::new(
        "E_INVALID_YAML",
        message,
        details([
            ("line", Some(JsValue::Number(line as f64))),
            ("column", Some(JsValue::Number(column as f64))),
            ("feature", Some(JsValue::str(feature))),
        ]),
    )
}

fn is_digits(s: &[u16]) -> bool {
    !s.is_empty() && s.iter().all(|c| (0x30..=0x39).contains(c))
}

fn parse_scalar(raw: &[u16], line: usize, column: usize) -> Result<JsValue, LessonError> {
    let s = trim(raw);
    for (words, value) in [
        (&["", "~", "null", "Null", "NULL"][..], JsValue::Null),
        (&["true", "True", "TRUE"], JsValue::Bool(true)),
        (&["false", "False", "FALSE"], JsValue::Bool(false)),
    ] {
        if words.iter().any(|w| eq(s, w)) {
            return Ok(value);
        }
    }
    let unsigned = s.strip_prefix(&[0x2D][..]).unwrap_or(s);
    let decimal = |dot| is_digits(&unsigned[..dot]) && is_digits(&unsigned[dot + 1..]);
    if is_digits(unsigned) || find(unsigned, '.').is_some_and(decimal) {
        let text = String::from_utf16_lossy(s);
        return Ok(JsValue::Number(text.parse::<f64>().unwrap_or(f64::NAN)));
    }
    if (starts_with(s, "\"") && ends_with(s, "\"")) || (starts_with(s, "'") && ends_with(s, "'")) {
        // A lone quote is both ends: the empty string.
        return Ok(js(s.get(1..s.len() - 1).unwrap_or(&[])));
    }
    // What a scalar may not start with (`!!str` aside), by its first character, in Anvil's order.
    let unsupported = [
        (
            "{[",
            "flow-style",
            "flow-style collections are not supported",
        ),
        (
            "&*",
            "anchors",
            "YAML anchors and aliases are not supported",
        ),
        (
            "!",
            "tags-beyond-implicit-scalars",
            "non-implicit YAML tags are not supported",
        ),
    ];
    let first = |leads: &str| {
        s.first()
            .is_some_and(|c| leads.encode_utf16().any(|l| l == *c))
    };
    match unsupported.iter().find(|(leads, ..)| first(leads)) {
        Some((_, feature, message)) if !starts_with(s, "!!str") => {
            Err(yaml_error(line, column, feature, message))
        }
        _ => Ok(js(s)),
    }
}

fn is_space_unit(c: u16) -> bool {
    is_js_space(u32::from(c))
}

fn is_word(c: u16) -> bool {
    c < 0x80 && ((c as u8).is_ascii_alphanumeric() || c == 0x5F || c == 0x2D)
}

fn check_unsupported(raw: &[u16], line_index: usize) -> Result<(), LessonError> {
    if blank_or_comment(raw) {
        return Ok(());
    }
    // The line with its quoted regions blanked and its comment cut.
    let mut scan: Units = Vec::with_capacity(raw.len());
    let mut i = 0;
    let space = 0x20;
    while i < raw.len() {
        let c = raw[i];
        if c == 0x22 || c == 0x27 {
            scan.push(space);
            i += 1;
            while i < raw.len() && raw[i] != c {
                if raw[i] == 0x5C && i + 1 < raw.len() {
                    scan.extend([space, space]);
                    i += 2;
                    continue;
                }
                scan.push(space);
                i += 1;
            }
            scan.push(space);
            i += 1;
            continue;
        }
        if c == 0x23 {
            break;
        }
        scan.push(c);
        i += 1;
    }
    let is_anchor = |c: u16| c == 0x26 || c == 0x2A;
    let anchor = (0..scan.len()).find(|&i| {
        (i == 0 && is_anchor(scan[0]) && scan.get(1).is_some_and(|c| is_word(*c)))
            || ((is_space_unit(scan[i]) || scan[i] == 0x3A)
                && scan.get(i + 1).is_some_and(|c| is_anchor(*c))
                && scan.get(i + 2).is_some_and(|c| is_word(*c)))
    });
    let bang = |i: usize| scan.get(i) == Some(&0x21);
    let tag = (0..scan.len()).any(|i| {
        (i == 0 || is_space_unit(scan[i - 1]))
            && bang(i)
            && bang(i + 1)
            && scan.get(i + 2).is_some_and(|c| is_word(*c))
    });
    let tag = tag.then(|| {
        (0..scan.len())
            .find(|&i| bang(i) && bang(i + 1))
            .unwrap_or(0)
    });
    // The first that the line has, in Anvil's order, at its column.
    [
        (anchor, "anchors", "YAML anchors/aliases are not supported"),
        (
            find(&scan, '{'),
            "flow-style",
            "flow-style mappings are not supported",
        ),
        (
            find(&scan, '['),
            "flow-style",
            "flow-style sequences are not supported",
        ),
        (
            tag,
            "tags-beyond-implicit-scalars",
            "non-implicit YAML tags are not supported",
        ),
    ]
    .into_iter()
    .find_map(|(at, feature, message)| {
        at.map(|at| yaml_error(line_index + 1, at + 1, feature, message))
    })
    .map_or(Ok(()), Err)
}

/// A line as Anvil's reader splits the text (at `\r\n`, `\r` or `\n`): where it starts, its
/// content, and where the next line starts.
pub(crate) struct YamlLine<'t> {
    pub start: usize,
    pub body: &'t str,
    pub end: usize,
}

impl YamlLine<'_> {
    /// The content without JavaScript's white space around it (the same on UTF-16 units: every
    /// JavaScript space is one unit).
    pub fn trimmed(&self) -> &str {
        self.body.trim_matches(|c| is_js_space(u32::from(c)))
    }

    pub(crate) fn blank_or_comment(&self) -> bool {
        let t = self.trimmed();
        t.is_empty() || t.starts_with('#')
    }
}

pub(crate) fn lines(text: &str) -> Vec<YamlLine<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        if matches!(bytes[i], b'\r' | b'\n') {
            let end = i + 1 + usize::from(bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n'));
            out.push(YamlLine {
                start,
                body: &text[start..i],
                end,
            });
            (start, i) = (end, end);
        } else {
            i += 1;
        }
    }
    out.push(YamlLine {
        start,
        body: &text[start..],
        end: text.len(),
    });
    out
}

/// Where `parseFrontmatter` finds the front matter among `lines`: the opening `---` line (the
/// first that is not blank or a comment), and the closing one when there is one.
pub(crate) fn front_matter_bounds(lines: &[YamlLine]) -> Option<(usize, Option<usize>)> {
    let open = lines.iter().position(|l| !l.blank_or_comment());
    let open = open.filter(|&i| lines[i].trimmed() == "---")?;
    Some((
        open,
        (open + 1..lines.len()).find(|&j| lines[j].trimmed() == "---"),
    ))
}

fn indent_of(line: &[u16]) -> usize {
    line.iter().take_while(|c| **c == 0x20).count()
}

fn blank_or_comment(line: &[u16]) -> bool {
    let t = trim(line);
    t.is_empty() || starts_with(t, "#")
}

/// The block's next line at `indent`, past blank and comment lines (`*i` then stands at it); `None`
/// where the block ends (`*i` at the line that ends it, or past the last line).
fn next_in_block(lines: &[Units], i: &mut usize, indent: usize) -> Option<Units> {
    while lines.get(*i).is_some_and(|line| blank_or_comment(line)) {
        *i += 1;
    }
    lines
        .get(*i)
        .filter(|line| indent_of(line) == indent)
        .cloned()
}

fn collapse_block_scalar(lines: &[Units], start: usize, base: usize) -> (JsValue, usize) {
    let mut parts: Vec<&[u16]> = Vec::new();
    let mut i = start;
    while i < lines.len() {
        let line = &lines[i];
        if trim(line).is_empty() {
            parts.push(&[]);
            i += 1;
            continue;
        }
        if indent_of(line) <= base {
            break;
        }
        parts.push(&line[(base + 2).min(line.len())..]);
        i += 1;
    }
    let mut joined: Units = parts.join(&[0x0A][..]);
    // `.replace(/\s+$/, '')`
    while joined.last().is_some_and(|c| is_space_unit(*c)) {
        joined.pop();
    }
    (js(&joined), i)
}

/// `/^[A-Za-z0-9_"'][^:]*:\s*($|[^\n])/.test(s) && s.includes(':')`.
fn looks_like_mapping(s: &[u16]) -> bool {
    let first = s.first().copied().unwrap_or(0);
    let starts = first < 0x80
        && ((first as u8).is_ascii_alphanumeric()
            || first == 0x5F
            || first == 0x22
            || first == 0x27);
    starts && find(s, ':').is_some()
}

fn find_key_colon(line: &[u16]) -> Option<usize> {
    let mut in_str: Option<u16> = None;
    for (i, &c) in line.iter().enumerate() {
        if let Some(quote) = in_str {
            if c == quote && (i == 0 || line[i - 1] != 0x5C) {
                in_str = None;
            }
            continue;
        }
        if c == 0x22 || c == 0x27 {
            in_str = Some(c);
            continue;
        }
        if c == 0x23 {
            break;
        }
        if c == 0x3A {
            return Some(i);
        }
    }
    None
}

fn strip_key_quotes(key: &[u16]) -> &[u16] {
    let key = match key {
        [0x22 | 0x27, rest @ ..] => rest,
        _ => key,
    };
    match key {
        [rest @ .., 0x22 | 0x27] => rest,
        _ => key,
    }
}

/// `parseBlock`: the value at `indent` from line `start`, `None` for the reference's `null`.
fn parse_block(
    lines: &mut Vec<Units>,
    start: usize,
    indent: usize,
    depth: usize,
) -> Result<(Option<JsValue>, usize), LessonError> {
    if depth > 10_000 {
        return Err(yaml_error(start + 1, 1, "nesting", "nested too deeply"));
    }
    let mut i = start;
    while i < lines.len() && blank_or_comment(&lines[i]) {
        i += 1;
    }
    if lines.get(i).is_none_or(|line| indent_of(line) < indent) {
        return Ok((None, i));
    }
    let trimmed = trim(&lines[i]).to_vec();
    check_unsupported(&lines[i], i)?;

    if starts_with(&trimmed, "- ") || eq(&trimmed, "-") {
        let mut arr = Vec::new();
        while let Some(cur) = next_in_block(lines, &mut i, indent) {
            let rest = trim(&cur).to_vec();
            if !starts_with(&rest, "-") {
                break;
            }
            check_unsupported(&cur, i)?;
            let after: Units = if eq(&rest, "-") {
                Vec::new()
            } else {
                rest.get(2..).unwrap_or(&[]).to_vec()
            };
            let (value, next) = if after.is_empty() {
                let (value, next) = parse_block(lines, i + 1, indent + 2, depth + 1)?;
                (value.unwrap_or_else(|| JsObject::new().into()), next)
            } else if looks_like_mapping(&after) {
                // The reference parses a copy of the lines with this one rewritten; the copy's
                // later lines are the same.
                let original = std::mem::replace(
                    &mut lines[i],
                    std::iter::repeat_n(0x20, indent + 2)
                        .chain(after.iter().copied())
                        .collect(),
                );
                let parsed = parse_block(lines, i, indent + 2, depth + 1);
                lines[i] = original;
                let (value, next) = parsed?;
                // A `key:` with no key to read (its `:` after a `#` or inside quotes) is not
                // taken, and the item would be read again for ever: the reference's loop runs
                // until the heap is exhausted. An error instead.
                if next == i {
                    return Err(yaml_error(
                        i + 1,
                        indent + 3,
                        "sequence-item",
                        "a list item that looks like `key: value` has no key to read",
                    ));
                }
                (value.unwrap_or(JsValue::Null), next)
            } else {
                (parse_scalar(&after, i + 1, indent + 1)?, i + 1)
            };
            arr.push(value);
            i = next;
        }
        return Ok((Some(JsValue::Array(arr)), i));
    }

    let mut obj = JsObject::new();
    while let Some(cur) = next_in_block(lines, &mut i, indent) {
        check_unsupported(&cur, i)?;
        let t = trim(&cur).to_vec();
        let Some(colon) = find_key_colon(&t) else {
            break;
        };
        let key = strip_key_quotes(trim(&t[..colon])).to_vec();
        let after = trim(&t[colon + 1..]).to_vec();
        let (value, next) = if after.is_empty() {
            let (value, next) = parse_block(lines, i + 1, indent + 2, depth + 1)?;
            (value.unwrap_or(JsValue::Null), next)
        } else if eq(&after, "|") || eq(&after, ">") {
            collapse_block_scalar(lines, i + 1, indent)
        } else if eq(&after, "\"\"\"") || eq(&after, "'''") {
            let end = (i + 1..lines.len())
                .find(|&j| trim(&lines[j]) == after.as_slice())
                .ok_or_else(|| {
                    let (line, feature) = (lines.len() + 1, "triple-quoted-string");
                    yaml_error(line, 1, feature, "unterminated triple-quoted string")
                })?;
            (js(&lines[i + 1..end].join(&[0x0A][..])), end + 1)
        } else {
            (parse_scalar(&after, i + 1, indent + 1)?, i + 1)
        };
        // `obj[key] = value` on a fresh object: `__proto__` would set its prototype (or
        // nothing), not a property, and is left out.
        if !eq(&key, "__proto__") {
            obj.insert(JsString::from_units(&key), value);
        }
        i = next;
    }
    Ok((Some(JsValue::Object(obj)), i))
}

/// `yaml.parse`, of the text's lines.
fn parse(mut lines: Vec<Units>) -> Result<JsValue, LessonError> {
    // Without a line to read, `parseBlock` reads nothing: an empty object.
    let first = lines.iter().position(|l| !blank_or_comment(l));
    let first = first.unwrap_or(lines.len());
    let indent = lines.get(first).map_or(0, |line| indent_of(line));
    let (value, _) = parse_block(&mut lines, first, indent, 0)?;
    Ok(value.unwrap_or_else(|| JsValue::Object(JsObject::new())))
}

/// `parseFrontmatter(text).frontmatter`: the YAML between the first `---` line (after blank and
/// comment lines) and the next; without that opening line, an empty object.
pub(crate) fn front_matter(text: &str) -> Result<JsValue, LessonError> {
    let lines = lines(text);
    let Some((open, close)) = front_matter_bounds(&lines) else {
        return Ok(JsValue::Object(JsObject::new()));
    };
    let body = &lines[open + 1..close.unwrap_or(lines.len())];
    parse(body.iter().map(|l| units(l.body)).collect())
}

fn reject(rule: &str, path: &str, expected: &str, actual: Option<JsValue>) -> LessonError {
    LessonError::new(
        "E_INVALID_CONTRACT",
        format!("contract invalid: {rule}"),
        details([
            ("rule", Some(JsValue::str(rule))),
            ("path", Some(JsValue::str(path))),
            ("expected", Some(JsValue::str(expected))),
            ("actual", actual),
        ]),
    )
}

const ALLOWED_TOP: [&str; 12] = [
    "anvil_contract_version",
    "goal",
    "created",
    "source_intent",
    "criteria",
    "invariants",
    "notes",
    "counter_examples",
    "ledger_queried",
    "ledger_hits",
    "shipped_gap_note",
    "shipped_gap_note_draft",
];

fn non_empty_string(v: Option<&JsValue>) -> bool {
    matches!(v, Some(JsValue::String(s)) if !s.is_empty())
}

/// The contract rules of `contract.validate`, in their order, on the front matter.
pub(crate) fn validate(root: &JsValue) -> Result<&JsObject, LessonError> {
    static EMPTY: std::sync::OnceLock<JsObject> = std::sync::OnceLock::new();
    let obj = match root {
        JsValue::Object(map) => map,
        // An array: none of the keys are there.
        _ => EMPTY.get_or_init(JsObject::new),
    };
    let field = |k: &str| obj.get(k).cloned();
    let version = obj.get("anvil_contract_version");
    if !matches!(version, Some(JsValue::Number(n)) if *n == 1.0 || *n == 2.0) {
        let (rule, expected) = match version {
            None => ("missing_version", "integer"),
            Some(_) => ("wrong_version", "1 or 2"),
        };
        let path = "$.anvil_contract_version";
        return Err(reject(rule, path, expected, version.cloned()));
    }
    for (key, rule) in [
        ("goal", "missing_goal"),
        ("created", "missing_created"),
        ("source_intent", "missing_source_intent"),
    ] {
        if !non_empty_string(obj.get(key)) {
            return Err(reject(
                rule,
                &format!("$.{key}"),
                "non-empty string",
                field(key),
            ));
        }
    }
    let criteria = match obj.get("criteria") {
        Some(JsValue::Array(items)) if !items.is_empty() => items,
        _ => {
            return Err(reject(
                "missing_criteria",
                "$.criteria",
                "non-empty array",
                field("criteria"),
            ))
        }
    };
    let allowed = ALLOWED_TOP.join("|");
    for key in obj.keys() {
        if !ALLOWED_TOP.iter().any(|k| k.as_bytes() == key.as_bytes()) {
            return Err(reject(
                "unknown_top_level_key",
                &format!("$.{}", key.to_lossy()),
                &format!("one of {allowed}"),
                Some(JsValue::String(key.clone())),
            ));
        }
    }
    for (idx, c) in criteria.iter().enumerate() {
        let at = format!("$.criteria[{idx}]");
        if !c.truthy() || !matches!(c, JsValue::Object(_) | JsValue::Array(_)) {
            return Err(reject(
                "criterion_missing_id",
                &at,
                "object",
                Some(JsValue::str(c.type_of())),
            ));
        }
        if !non_empty_string(c.get("id")) {
            return Err(reject(
                "criterion_missing_id",
                &format!("{at}.id"),
                "non-empty string",
                c.get("id").cloned(),
            ));
        }
        if !matches!(c.get("statement"), Some(JsValue::String(_))) {
            return Err(reject(
                "criterion_missing_statement",
                &format!("{at}.statement"),
                "string",
                c.get("statement").cloned(),
            ));
        }
        for slot in ["exists", "substantive", "wired", "functional"] {
            let Some(val) = c.get(slot) else {
                return Err(reject(
                    &format!("criterion_missing_{slot}"),
                    &format!("{at}.{slot}"),
                    "object",
                    None,
                ));
            };
            if !matches!(val, JsValue::Object(map) if !map.is_empty()) {
                return Err(reject(
                    "criterion_empty_level",
                    &format!("{at}.{slot}"),
                    "non-empty object",
                    Some(val.clone()),
                ));
            }
        }
    }
    if let Some(examples) = obj.get("counter_examples") {
        let JsValue::Object(map) = examples else {
            return Err(reject(
                "counter_example_not_string",
                "$.counter_examples",
                "object<string,string>",
                Some(JsValue::str(examples.type_of())),
            ));
        };
        for (k, v) in map.iter() {
            if !matches!(v, JsValue::String(_)) {
                return Err(reject(
                    "counter_example_not_string",
                    &format!("$.counter_examples.{}", k.to_lossy()),
                    "string",
                    Some(JsValue::str(v.type_of())),
                ));
            }
        }
    }
    Ok(obj)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "---\nanvil_contract_version: 1\ngoal: \"g\"\ncreated: \"2021-04-15\"\nsource_intent: \"arr probe\"\ncriteria:\n  - id: C1\n    statement: \"s\"\n    exists:\n      paths:\n        - \"src/a.js\"\n    substantive:\n      coverage_min: 0.8\n    wired:\n      entry_point: \"src/server.js\"\n    functional:\n      expected: \"ok\"\n---\n";

    #[test]
    fn reads_a_contract_as_the_reference() {
        let doc = front_matter(GOOD).unwrap();
        let contract = validate(&doc).unwrap();
        assert_eq!(
            JsValue::Object(contract.clone()).to_json_string(),
            r#"{"anvil_contract_version":1,"goal":"g","created":"2021-04-15","source_intent":"arr probe","criteria":[{"id":"C1","statement":"s","exists":{"paths":["src/a.js"]},"substantive":{"coverage_min":0.8},"wired":{"entry_point":"src/server.js"},"functional":{"expected":"ok"}}]}"#
        );
        // A lone quote opens and closes the empty string.
        assert_eq!(
            parse_scalar(&units("\""), 1, 1).ok(),
            Some(JsValue::str(""))
        );
        // No front matter: an empty contract.
        let e = validate(&front_matter("anvil_contract_version: 1\n").unwrap()).unwrap_err();
        assert_eq!(
            e.details.to_json_string(),
            r#"{"rule":"missing_version","path":"$.anvil_contract_version","expected":"integer"}"#
        );
        let e = front_matter("---\na: [1]\n---\n").unwrap_err();
        assert_eq!(
            e.details.to_json_string(),
            r#"{"line":1,"column":4,"feature":"flow-style"}"#
        );
    }
}
