//! Anvil's contract (docs/formats/lesson.md B.6, B.7), read one way for `retro` and `reset`: the
//! YAML front matter as DG-Anvil's own loader reads it ([`anvil_yaml`]), checked by its contract
//! rules. The one edit git-ucg makes — a lesson added to the top-level `counter_examples` map —
//! changes only the lines it adds, written so that the same reader reads the value back unchanged
//! (Anvil's quoted scalars have no escapes), and is checked by reading the result: it must be the
//! old contract plus exactly that entry, or nothing is written.

use super::anvil_yaml;
use super::entry::{details, LessonError};
use super::js::{JsObject, JsString, JsValue};

/// The contract as DG-Anvil's `loadAndValidate` takes it: its front matter, checked by its rules.
pub fn load(text: &str) -> Result<JsObject, LessonError> {
    let doc = anvil_yaml::front_matter(text)?;
    anvil_yaml::validate(&doc).cloned()
}

fn indent(body: &str) -> usize {
    body.len() - body.trim_start_matches(' ').len()
}

fn is_counter_examples_key(line: &anvil_yaml::YamlLine) -> bool {
    let t = line.trimmed();
    [
        "counter_examples:",
        "\"counter_examples\":",
        "'counter_examples':",
    ]
    .iter()
    .any(|key| t.starts_with(key))
}

fn refused(message: &str) -> LessonError {
    LessonError::new(
        "E_INVALID_CONTRACT",
        message,
        details([("rule", Some(JsValue::str("counter_examples_edit")))]),
    )
}

/// The contract with `id: value` added to `counter_examples` (the map created at the end of the
/// front matter when absent). Refused, with nothing to write, when the contract does not load or
/// when no way of writing the value reads back as exactly that entry.
pub fn add_counter_example(text: &str, id: &str, value: &str) -> Result<String, LessonError> {
    let mut expected = load(text)?;
    if !matches!(expected.get("counter_examples"), Some(JsValue::Object(_))) {
        expected.set("counter_examples", JsValue::Object(JsObject::new()));
    }
    if let Some(JsValue::Object(examples)) = expected.get_mut("counter_examples") {
        examples.insert(JsString::from(id), JsValue::str(value));
    }
    let lines = anvil_yaml::lines(text);
    // A contract that loads has front matter: an opening `---` after blank and comment lines.
    let (open, close) = anvil_yaml::front_matter_bounds(&lines)
        .ok_or_else(|| refused("the contract has no front matter to add to"))?;
    let newline = match &text[lines[open].start + lines[open].body.len()..lines[open].end] {
        "" => "\n",
        ending => ending,
    };
    let body = &lines[open + 1..close.unwrap_or(lines.len())];
    let top = body
        .iter()
        .find(|l| !l.blank_or_comment())
        .map_or(0, |l| indent(l.body));
    let key = body
        .iter()
        .position(|l| indent(l.body) == top && is_counter_examples_key(l));
    // Where the entry goes (Anvil reads a map's entries at exactly two spaces more than its key),
    // and the key's line when it is new.
    let (at, header) = match key {
        None => (
            close.map_or(text.len(), |c| lines[c].start),
            format!("{}counter_examples:{newline}", " ".repeat(top)),
        ),
        Some(key) => {
            // After the block's last entry line; blank and comment lines after it stay after.
            let mut last = key;
            for (j, line) in body.iter().enumerate().skip(key + 1) {
                if line.blank_or_comment() {
                    continue;
                }
                if indent(line.body) <= top {
                    break;
                }
                last = j;
            }
            (body[last].end, String::new())
        }
    };
    // The last line of a file without a closing `---` may have no line ending.
    let lead = if at == text.len() && !text.is_empty() && !text.ends_with(['\n', '\r']) {
        newline
    } else {
        ""
    };
    let indent = " ".repeat(top + 2);
    let block = value
        .split('\n')
        .map(|line| format!("{newline}{indent}  {line}"))
        .collect::<String>();
    for scalar in [
        format!("\"{value}\""),
        format!("'{value}'"),
        format!("|{block}"),
    ] {
        let entry = format!("{indent}\"{id}\": {scalar}{newline}");
        let edited = [&text[..at], lead, &header, &entry, &text[at..]].concat();
        if load(&edited).is_ok_and(|after| after == expected) {
            return Ok(edited);
        }
    }
    Err(refused(
        "cannot add this remediation to counter_examples so that DG-Anvil reads it back \
         unchanged: its YAML has no escapes, so a value of several lines cannot end in white \
         space, hold a carriage return or a line `---`; nothing written",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "---\nanvil_contract_version: 1\ngoal: \"g\"\ncreated: \"2026-04-15\"\nsource_intent: \"s\"\ncriteria:\n  - id: C1\n    statement: \"works\"\n    exists:\n      paths:\n        - \"a.js\"\n    substantive:\n      coverage_min: 0.8\n    wired:\n      entry_point: \"a.js\"\n    functional:\n      expected: \"ok\"\n";

    fn examples(text: &str) -> Vec<(String, String)> {
        let contract = load(text).unwrap();
        let Some(JsValue::Object(map)) = contract.get("counter_examples") else {
            return Vec::new();
        };
        map.iter()
            .map(|(k, v)| (k.to_lossy().into(), v.as_str().unwrap_or("?").into()))
            .collect()
    }

    #[test]
    fn adds_only_the_entry_and_reads_back_what_it_wrote() {
        let contract =
            format!("{HEAD}counter_examples:\n  L-1: \"one\"\n\nnotes: \"n\"\n---\n# Body\n");
        let value = "say \"hi\" \\n # not a comment";
        let out = add_counter_example(&contract, "L-2", value).unwrap();
        let added = format!("  L-1: \"one\"\n  \"L-2\": \"{value}\"\n");
        assert_eq!(out, contract.replace("  L-1: \"one\"\n", &added));
        assert_eq!(examples(&out).last(), Some(&("L-2".into(), value.into())));

        let bare = format!("{HEAD}---\n");
        assert_eq!(
            add_counter_example(&bare, "L-9", "x").unwrap(),
            format!("{HEAD}counter_examples:\n  \"L-9\": \"x\"\n---\n")
        );
        let multi = add_counter_example(&bare, "L-9", "two\n  lines").unwrap();
        assert!(
            multi.ends_with("  \"L-9\": |\n    two\n      lines\n---\n"),
            "{multi}"
        );
        assert_eq!(examples(&multi), [("L-9".into(), "two\n  lines".into())]);
        // A lone CR ends a line for Anvil: the closing `---` after it is found, the entry goes
        // before it.
        let cr = add_counter_example(&format!("{HEAD}\r---\n"), "L-9", "x").unwrap();
        assert_eq!(
            cr,
            format!("{HEAD}\rcounter_examples:\n  \"L-9\": \"x\"\n---\n")
        );
        // What Anvil's reader cannot give back is refused, and so is what it refuses to load.
        let quoted = add_counter_example(&bare, "L-9", " spaces kept ").unwrap();
        assert_eq!(examples(&quoted), [("L-9".into(), " spaces kept ".into())]);
        assert!(add_counter_example(&bare, "L-9", "two lines\nand a trailing space ").is_err());
        assert!(add_counter_example(&bare, "L-9", "a carriage\rreturn").is_err());
        let braces = format!("{HEAD}counter_examples: {{}}\n---\n");
        assert!(add_counter_example(&braces, "L-9", "x").is_err());
        let no_front_matter = "id: c\ncounter_examples:\n  L-1: \"x\"\n";
        assert!(add_counter_example(no_front_matter, "L-2", "x").is_err());
    }
}
