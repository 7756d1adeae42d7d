//! `meta.json` edited in place: the seed lets a repair correct the phase fields and nothing else,
//! so only the bytes of the values it changes are replaced (or, for a field the snapshot does not
//! hold, a member inserted before its object's closing brace); every other byte — the indentation,
//! the key order, the number forms, the final newline — stays as written.

use serde_json::value::RawValue;

/// `text` (a JSON object) with the value at `path` (object keys, outermost first) set to
/// `value` (JSON text); `None` when `text` is not an object or a value on the way is not one.
pub fn set(text: &str, path: &[&str], value: &str) -> Option<String> {
    let (first, rest) = path.split_first()?;
    let members: std::collections::HashMap<String, &RawValue> = serde_json::from_str(text).ok()?;
    match members.get(*first) {
        Some(raw) => {
            let start = offset_in(text, raw.get())?;
            let end = start + raw.get().len();
            let replaced = match rest.is_empty() {
                true => value.to_string(),
                false => set(raw.get(), rest, value)?,
            };
            Some(format!("{}{replaced}{}", &text[..start], &text[end..]))
        }
        None => {
            // The member is added, built whole, before the object's closing brace.
            let mut built = value.to_string();
            for key in rest.iter().rev() {
                built = format!("{{{}: {built}}}", quoted(key));
            }
            let close = text.trim_end().len().checked_sub(1)?;
            if text.as_bytes().get(close) != Some(&b'}') {
                return None;
            }
            let comma = if members.is_empty() { "" } else { ", " };
            Some(format!(
                "{}{comma}{}: {built}{}",
                text[..close].trim_end(),
                quoted(first),
                &text[close..]
            ))
        }
    }
}

/// Where `part`, a slice borrowed from `text`, starts in it.
fn offset_in(text: &str, part: &str) -> Option<usize> {
    let start = (part.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    (start + part.len() <= text.len()).then_some(start)
}

fn quoted(key: &str) -> String {
    serde_json::to_string(key).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::set;

    #[test]
    fn only_the_changed_bytes_change() {
        let text = "{\n    \"run_id\": \"r\",\n    \"phases\": {\"4\": {\"status\": \"completed\", \"completed_at\": 1.50},\n  \"5\":{}},\n    \"current_phase\": 5\n}\n";
        let once = set(text, &["phases", "4", "status"], "\"running\"").unwrap();
        assert_eq!(once, text.replace("\"completed\"", "\"running\""));
        let twice = set(&once, &["current_phase"], "4").unwrap();
        assert_eq!(
            twice,
            once.replace("\"current_phase\": 5", "\"current_phase\": 4")
        );
        // Absent fields are inserted; nothing else moves.
        let added = set(&twice, &["phases", "5", "status"], "\"pending\"").unwrap();
        assert_eq!(
            added,
            twice.replace("\"5\":{}", "\"5\":{\"status\": \"pending\"}")
        );
        let added = set("{\"a\": 1}\n", &["phases", "2", "status"], "\"running\"").unwrap();
        assert_eq!(
            added,
            "{\"a\": 1, \"phases\": {\"2\": {\"status\": \"running\"}}}\n"
        );
        assert_eq!(
            set("{}", &["current_phase"], "1").unwrap(),
            "{\"current_phase\": 1}"
        );
        assert_eq!(set("[1]", &["x"], "1"), None);
        assert_eq!(
            set("{\"phases\": 3}", &["phases", "1", "status"], "\"x\""),
            None
        );
    }

    proptest::proptest! {
        #[test]
        fn any_text_is_edited_or_refused_without_a_panic(text in "\\PC{0,80}", key in "[a-z0-9]{1,3}") {
            if let Some(edited) = set(&text, &[key.as_str(), "status"], "\"x\"") {
                let doc: serde_json::Value = serde_json::from_str(&edited).unwrap_or_default();
                proptest::prop_assert_eq!(&doc[key.as_str()]["status"], "x");
            }
        }
    }
}
