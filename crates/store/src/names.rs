//! Story ids become parts of file names (`.baseline-<story>`, `escalation-<story>.json`), so an id
//! that could climb out of the artifact directory or pass for an option is refused.

use super::StoreError;

/// The longest story id whose file names fit in a 255-byte name: the longest name built from one,
/// `escalation-<story>.json` (16 bytes more), inside a writer's temporary name (16 more).
const MAX_STORY_ID_BYTES: usize = 255 - 32;

/// Accepts a story id that is safe as a file-name component.
pub fn validate_story_id(id: &str) -> Result<(), StoreError> {
    // The first that holds is the reason; each is cheap, so all are asked.
    let refusals = [
        (id.is_empty(), "it is empty"),
        (id.contains(['/', '\\']), "it contains a path separator"),
        (id == ".", "it names the directory itself"),
        (id.contains(".."), "it contains `..`"),
        (id.contains('\0'), "it contains a NUL byte"),
        (id.starts_with('-'), "it starts with `-`"),
        (
            id.chars().any(char::is_control),
            "it contains a control character (a newline, a tab, an escape…)",
        ),
        (
            id.len() > MAX_STORY_ID_BYTES,
            "it is too long: the file names built from it (and their temporary names) would pass the 255-byte limit of a file name; at most 223 bytes",
        ),
    ];
    match refusals.into_iter().find(|(refused, _)| *refused) {
        Some((_, reason)) => Err(StoreError::InvalidStoryId {
            id: id.to_string(),
            reason,
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn refuses_what_could_escape() {
        for bad in [
            "",
            ".",
            "../../etc",
            "a/b",
            "a\\b",
            "..",
            "x..y",
            "a\0b",
            "-rf",
        ] {
            assert!(validate_story_id(bad).is_err(), "{bad:?}");
        }
        for good in ["1-2", "2.3", "alpha", "epic-7-story_3", "é"] {
            assert!(validate_story_id(good).is_ok(), "{good:?}");
        }
    }

    proptest! {
        #[test]
        fn an_accepted_id_is_one_plain_path_component(id in "\\PC{0,12}") {
            if validate_story_id(&id).is_ok() {
                let path = std::path::Path::new(&id);
                let components: Vec<_> = path.components().collect();
                prop_assert_eq!(components.len(), 1);
                prop_assert!(matches!(components[0], std::path::Component::Normal(_)));
            }
        }
    }
}
