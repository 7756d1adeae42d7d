//! `IMPL/run-status.json`, the run's heartbeat (docs/formats/ucg.md §1.6): read fail-soft, every field
//! optional.

use ucg_store::pyjson::{self, Value};

pub const HEARTBEAT_FILE: &str = "run-status.json";

/// The heartbeat as far as the epic view needs it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Heartbeat {
    /// `epic`, as Python's `str()` prints it.
    pub epic: Option<String>,
    pub story: Option<String>,
    /// `stories[]`: story id and recorded verdict, in order.
    pub stories: Vec<(String, Option<String>)>,
    /// `updated`, when it is a string: when the run last beat (stopped, for a stopped run).
    pub updated: Option<String>,
}

/// The heartbeat of the artifact directory `impl_dir` in `source`; an absent or unreadable one
/// holds nothing.
pub fn read(source: &ucg_git::ArtifactSource, impl_dir: &std::path::Path) -> Heartbeat {
    source
        .read(&impl_dir.join(HEARTBEAT_FILE))
        .map_or_else(Heartbeat::default, |bytes| parse(&bytes))
}

/// Reads a heartbeat; anything unreadable is simply absent.
pub fn parse(bytes: &[u8]) -> Heartbeat {
    let Some(doc) = pyjson::object_in(bytes) else {
        return Heartbeat::default();
    };
    let text = |v: Option<&Value>| v.filter(|v| v.is_truthy()).map(pyjson::py_str);
    let stories = doc
        .get("stories")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_object)
                .filter_map(|s| Some((text(s.get("story"))?, text(s.get("verdict")))))
                .collect()
        })
        .unwrap_or_default();
    Heartbeat {
        epic: text(doc.get("epic")),
        story: text(doc.get("story")),
        stories,
        updated: doc
            .get("updated")
            .and_then(Value::as_str)
            .map(str::to_string),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_what_it_can() {
        let hb = super::parse(br#"{"epic": 7, "story": "7-3", "stories": [{"story": "7-1", "verdict": "advance"}, 3, {"verdict": "x"}, {"story": "7-2", "verdict": null}]}"#);
        assert_eq!(hb.epic.as_deref(), Some("7"));
        assert_eq!(
            hb.stories,
            [
                ("7-1".to_string(), Some("advance".to_string())),
                ("7-2".to_string(), None)
            ]
        );
        assert_eq!(super::parse(b"\xff"), super::Heartbeat::default());
    }
}
