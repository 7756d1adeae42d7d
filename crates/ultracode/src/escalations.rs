//! Escalation files (docs/formats/ucg.md §1.3–1.4): the typed sidecar `escalation-<story>.json` and
//! the raw Stop-hook marker `.escalation-<story>.md`. Pure functions over names and bytes.

use ucg_store::pyjson::{self, Object};

/// The story a typed sidecar's file name carries (`escalation-7-3.json` → `7-3`); `None` for other
/// names and for an empty story.
pub(crate) fn sidecar_story(file_name: &str) -> Option<&str> {
    file_name
        .strip_prefix("escalation-")?
        .strip_suffix(".json")
        .filter(|s| !s.is_empty())
}

/// The story a raw marker's file name carries (`.escalation-7-3.md` → `7-3`).
pub(crate) fn marker_story(file_name: &str) -> Option<&str> {
    file_name
        .strip_prefix(".escalation-")?
        .strip_suffix(".md")
        .filter(|s| !s.is_empty())
}

/// What the artifact directory says about one story's escalation.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    /// A sidecar whose payload is a JSON object (its fields may still be missing or odd).
    Typed { file: String, payload: Object },
    /// A raw Stop-hook marker with no readable sidecar: the session ended before Execute
    /// promoted it.
    Unpromoted { file: String },
    /// A sidecar that holds no JSON object, and no marker beside it.
    Unreadable { file: String },
}

impl Found {
    pub(crate) fn file(&self) -> &str {
        match self {
            Found::Typed { file, .. } | Found::Unpromoted { file } | Found::Unreadable { file } => {
                file
            }
        }
    }
}

/// Every story with an escalation among the directory entries `names`, by story (sorted), as the
/// reference status renderer pairs them: a readable sidecar wins; an unreadable one leaves a
/// raw marker standing as unpromoted. `read` gives a file's bytes by name.
pub fn collect(
    names: &[String],
    read: impl Fn(&str) -> Option<Vec<u8>>,
) -> std::collections::BTreeMap<String, Found> {
    let mut found = std::collections::BTreeMap::new();
    for name in names {
        if let Some(story) = marker_story(name) {
            let marker = Found::Unpromoted { file: name.clone() };
            found.insert(story.to_string(), marker);
        }
    }
    for name in names {
        let Some(story) = sidecar_story(name) else {
            continue;
        };
        let payload = read(name).and_then(|bytes| pyjson::object_in(&bytes));
        let has_marker = found.contains_key(story);
        let entry = match payload {
            Some(payload) => Found::Typed {
                file: name.clone(),
                payload,
            },
            None if has_marker => continue,
            None => Found::Unreadable { file: name.clone() },
        };
        found.insert(story.to_string(), entry);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_payloads() {
        assert_eq!(sidecar_story("escalation-7-3.json"), Some("7-3"));
        assert_eq!(sidecar_story("escalation-.json"), None);
        assert_eq!(marker_story(".escalation-delta.md"), Some("delta"));
        assert_eq!(marker_story("escalation-delta.md"), None);
        assert!(pyjson::object_in(b"{\"kind\": \"k\"}").is_some());
        for bad in [&b""[..], b"\n", b"[1]", b"{", b"\xff"] {
            assert!(pyjson::object_in(bad).is_none());
        }
    }
}
