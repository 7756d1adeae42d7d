//! Anvil's contract (docs/formats/lesson.md B.6, B.7): a YAML document, or YAML front matter
//! between `---` lines, read with yaml-rust2. The one edit git-ucg makes — a lesson added to the
//! top-level `counter_examples` map — changes only the lines it adds, and is checked by parsing
//! the result: it must be the old document plus exactly that entry, or nothing is written.

use super::entry::LessonError;
use serde_json::json;
use yaml_rust2::{Yaml, YamlLoader};

/// Where the YAML sits in the file: the whole file, or the front matter's byte range.
fn yaml_range(text: &str) -> std::ops::Range<usize> {
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return 0..text.len();
    };
    let start = text.len() - rest.len();
    let mut offset = start;
    for line in rest.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        if body == "---" || body == "..." {
            return start..offset;
        }
        offset += line.len();
    }
    start..text.len()
}

fn invalid(rule: &str, message: impl Into<String>) -> LessonError {
    LessonError::new("E_INVALID_CONTRACT", message, json!({"rule": rule}))
}

/// The contract's YAML document.
pub fn parse(text: &str) -> Result<Yaml, LessonError> {
    let yaml = &text[yaml_range(text)];
    let docs = YamlLoader::load_from_str(yaml)
        .map_err(|e| invalid("invalid_yaml", format!("contract is not YAML: {e}")))?;
    match docs.into_iter().next() {
        Some(doc @ Yaml::Hash(_)) => Ok(doc),
        _ => Err(invalid("not_a_mapping", "contract must be a YAML mapping")),
    }
}

pub(crate) fn str_at<'y>(doc: &'y Yaml, key: &str) -> Option<&'y str> {
    doc[key].as_str()
}

/// `counter_examples` must be a map of strings (or absent).
pub(crate) fn check_counter_examples(doc: &Yaml) -> Result<(), LessonError> {
    match &doc["counter_examples"] {
        Yaml::BadValue | Yaml::Null => Ok(()),
        Yaml::Hash(map) if map.values().all(|v| matches!(v, Yaml::String(_))) => Ok(()),
        Yaml::Hash(_) => Err(invalid(
            "counter_example_not_string",
            "counter_examples values must be strings",
        )),
        _ => Err(invalid(
            "counter_example_not_string",
            "counter_examples must be a map of lesson id to text",
        )),
    }
}

/// A YAML double-quoted scalar.
fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20
                || c == '\u{7f}'
                || c == '\u{85}'
                || c == '\u{2028}'
                || c == '\u{2029}'
                || c == '\u{feff}' =>
            {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The file with `id: text` added to `counter_examples` (created at the end of the YAML when
/// absent). Refused, with nothing to write, when the result would not be exactly that.
pub fn add_counter_example(text: &str, id: &str, value: &str) -> Result<String, LessonError> {
    let before = parse(text)?;
    check_counter_examples(&before)?;
    let range = yaml_range(text);
    let yaml = &text[range.clone()];
    // New lines end as the document's lines do.
    let newline = if yaml.contains("\r\n") { "\r\n" } else { "\n" };
    let entry = |indent: &str| format!("{indent}{}: {}{newline}", quoted(id), quoted(value));
    // The top-level key's line, if any.
    let mut offset = 0;
    let mut key_line = None;
    for line in yaml.split_inclusive('\n') {
        if line.starts_with("counter_examples:") {
            key_line = Some((offset, line));
            break;
        }
        offset += line.len();
    }
    let edited = match key_line {
        None => {
            let mut yaml = yaml.to_string();
            if !yaml.is_empty() && !yaml.ends_with('\n') {
                yaml.push_str(newline);
            }
            yaml + "counter_examples:" + newline + &entry("  ")
        }
        Some((at, line)) => {
            // The value after the key, without a trailing comment.
            let rest = &line["counter_examples:".len()..];
            let comment = rest
                .char_indices()
                .find(|(i, c)| *c == '#' && (*i == 0 || rest[..*i].ends_with([' ', '\t'])))
                .map_or(rest.len(), |(i, _)| i);
            let after_key = rest[..comment].trim();
            let line_end = at + line.len();
            let mut yaml = yaml.to_string();
            if !line.ends_with('\n') {
                yaml.push_str(newline);
            }
            match after_key {
                "" | "~" | "null" | "{}" => {
                    // A block mapping: after its last indented line, at its indentation.
                    let mut end = line_end.min(yaml.len());
                    let mut indent = None;
                    for next in yaml[end..].split_inclusive('\n') {
                        let body = next.trim_end_matches(['\n', '\r']);
                        if body.trim().is_empty() || body.trim_start().starts_with('#') {
                            if indent.is_some() {
                                // Blank lines inside the block stay inside only if more follows.
                                let rest = &yaml[end + next.len()..];
                                let continues = rest.split_inclusive('\n').find(|l| !l.trim().is_empty())
                                    .is_some_and(|l| l.starts_with(' ') || l.starts_with('\t'));
                                if !continues {
                                    break;
                                }
                            }
                            end += next.len();
                            continue;
                        }
                        if !(body.starts_with(' ') || body.starts_with('\t')) {
                            break;
                        }
                        indent.get_or_insert_with(|| body[..body.len() - body.trim_start().len()].to_string());
                        end += next.len();
                    }
                    if !after_key.is_empty() {
                        // `counter_examples: {}` (or null) becomes a block mapping.
                        yaml.replace_range(at..at + line.trim_end_matches(['\n', '\r']).len(), "counter_examples:");
                        end -= line.trim_end_matches(['\n', '\r']).len() - "counter_examples:".len();
                    }
                    let indent = indent.unwrap_or_else(|| "  ".to_string());
                    yaml.insert_str(end, &entry(&indent));
                    yaml
                }
                _ => {
                    return Err(invalid(
                        "counter_examples_flow_style",
                        "counter_examples is written in flow style; write it as a block mapping to let git-ucg add to it",
                    ))
                }
            }
        }
    };
    let mut out = String::with_capacity(text.len() + 256);
    out.push_str(&text[..range.start]);
    out.push_str(&edited);
    out.push_str(&text[range.end..]);
    // The result must be the old document plus this entry, nothing else.
    let after = parse(&out)?;
    let mut expected = before;
    if let Yaml::Hash(map) = &mut expected {
        let key = Yaml::String("counter_examples".into());
        // Replaced in place (an entry() lookup would move the key to the end of the map).
        match map.get_mut(&key) {
            Some(Yaml::Hash(examples)) => {
                examples.insert(Yaml::String(id.into()), Yaml::String(value.into()));
            }
            Some(slot) => {
                let mut examples = yaml_rust2::yaml::Hash::new();
                examples.insert(Yaml::String(id.into()), Yaml::String(value.into()));
                *slot = Yaml::Hash(examples);
            }
            None => {
                let mut examples = yaml_rust2::yaml::Hash::new();
                examples.insert(Yaml::String(id.into()), Yaml::String(value.into()));
                map.insert(key, Yaml::Hash(examples));
            }
        }
    }
    if after != expected {
        return Err(invalid(
            "counter_examples_edit",
            "cannot add to counter_examples without changing other content; nothing written",
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_only_the_entry() {
        let contract = "id: c1\ncriteria:\n  - id: C1\n    statement: works\ncounter_examples:\n  L-1: \"one\"\n\ninvariants: []\n";
        let out = add_counter_example(contract, "L-2", "two \"quoted\"\nline").unwrap();
        assert_eq!(
            out,
            contract.replace(
                "  L-1: \"one\"\n",
                "  L-1: \"one\"\n  \"L-2\": \"two \\\"quoted\\\"\\nline\"\n"
            )
        );
        let bare = "id: c1\ncriteria: []\n";
        assert_eq!(
            add_counter_example(bare, "L-9", "x").unwrap(),
            format!("{bare}counter_examples:\n  \"L-9\": \"x\"\n")
        );
        let front = "---\nid: c1\ncounter_examples: {}\n---\n# Body\n";
        assert_eq!(
            add_counter_example(front, "L-9", "x").unwrap(),
            "---\nid: c1\ncounter_examples:\n  \"L-9\": \"x\"\n---\n# Body\n"
        );
        assert!(add_counter_example("counter_examples:\n  L-1: 5\n", "L-2", "x").is_err());
        assert!(add_counter_example("counter_examples: [a]\n", "L-2", "x").is_err());
    }
}
