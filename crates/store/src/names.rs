//! Story ids become parts of file names (`.baseline-<story>`, `escalation-<story>.json`), so an id
//! that could climb out of the artifact directory or pass for an option is refused.

use super::StoreError;

/// The longest story id whose file names fit in a 255-byte name: the longest name built from one,
/// `escalation-<story>.json` (16 bytes more), inside a writer's temporary name (16 more).
const MAX_STORY_ID_BYTES: usize = 255 - 32;

/// Accepts a story id that is safe as a file-name component.
pub fn validate_story_id(id: &str) -> Result<(), StoreError> {
    let reason = if id.is_empty() {
        Some("it is empty")
    } else if id.contains('/') || id.contains('\\') {
        Some("it contains a path separator")
    } else if id == "." {
        Some("it names the directory itself")
    } else if id.contains("..") {
        Some("it contains `..`")
    } else if id.contains('\0') {
        Some("it contains a NUL byte")
    } else if id.starts_with('-') {
        Some("it starts with `-`")
    } else if id.chars().any(char::is_control) {
        Some("it contains a control character (a newline, a tab, an escape…)")
    } else if id.len() > MAX_STORY_ID_BYTES {
        Some("it is too long: the file names built from it (and their temporary names) would pass the 255-byte limit of a file name; at most 223 bytes")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(StoreError::InvalidStoryId {
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
