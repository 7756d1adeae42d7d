//! Story markers: `.baseline-<story>` (the story's anchor) and `.commit-<story>` (its end), each one
//! line holding a full commit id (docs/formats/ucg.md §1.7–1.8).

use std::path::Path;
use ucg_git::ArtifactSource;

/// The story the run is on (one line), written by the run and read when no story is named.
pub const CURRENT_STORY_FILE: &str = ".current-story";

const BASELINE_PREFIX: &str = ".baseline-";

pub fn baseline_file(story: &str) -> String {
    format!("{BASELINE_PREFIX}{story}")
}

/// The story a baseline marker named `name` anchors, if it is one.
pub fn baseline_story(name: &str) -> Option<&str> {
    name.strip_prefix(BASELINE_PREFIX)
}

pub fn commit_file(story: &str) -> String {
    format!(".commit-{story}")
}

/// The reference's tolerant reader (`gate_trail._marker_sha`, `\b([0-9a-f]{7,40})\b` ignoring
/// case): the first 7–40 hex-digit word of the first line that has one, as written.
/// `baseline=<sha>` and prose like `commit deadbeef1` both yield a sha.
///
/// A hex run bounded by `\b` on both sides is a whole word, so this looks at words (runs of
/// Unicode word characters, as Python's `\w`), without a regex: compiling a Unicode-aware one
/// costs more than reading every marker of an epic.
pub fn marker_sha(text: &str) -> Option<&str> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    text.lines().find_map(|line| {
        line.split(|c: char| !is_word(c)).find(|word| {
            (7..=40).contains(&word.len()) && word.bytes().all(|b| b.is_ascii_hexdigit())
        })
    })
}

/// The sha in the marker `name` of `impl_dir` (its bytes read as lossy UTF-8), by [`marker_sha`].
pub(crate) fn read_sha(source: &ArtifactSource, impl_dir: &Path, name: &str) -> Option<String> {
    let bytes = source.read(&impl_dir.join(name))?;
    marker_sha(&String::from_utf8_lossy(&bytes)).map(str::to_string)
}

/// What is wrong with a marker's form, if anything: real markers hold one full 40-hex id and a
/// newline, and readers that compare whole files (the guard) fail on anything else.
pub fn form_problem(text: &str) -> Option<String> {
    match marker_sha(text) {
        None => Some("holds no commit id".into()),
        Some(sha) if sha.len() < 40 => Some(format!(
            "holds an abbreviated id `{sha}` (markers hold all 40 hex digits)"
        )),
        Some(_) => None,
    }
}

pub fn tests_ran_file(story: &str) -> String {
    format!(".tests-ran-{story}")
}

/// Whether a tests-ran marker is fresh for a baseline (docs/formats/ucg.md §1.10, the guard's rule):
/// its first `^baseline=(.*)$` line, stripped, equals the whole baseline file, stripped — byte for
/// byte, no short ids, no case folding. The reason when it is not.
pub fn tests_ran_fresh(marker: &str, baseline: &str) -> Result<(), String> {
    let value = marker
        .split('\n')
        .find_map(|line| line.strip_prefix("baseline="))
        .ok_or("the tests-ran marker has no `baseline=` line")?;
    let (value, baseline) = (crate::ids::py_strip(value), crate::ids::py_strip(baseline));
    if baseline.is_empty() {
        return Err("the baseline marker is empty".into());
    }
    if value != baseline {
        return Err(format!(
            "the tests ran against baseline `{value}`, the story's baseline is `{baseline}`: run the tests again"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn freshness_is_byte_for_byte() {
        let sha = "0123456789abcdef0123456789abcdef01234567";
        let marker = format!("suite green\nbaseline= {sha} \nbaseline=other\n");
        assert_eq!(super::tests_ran_fresh(&marker, &format!("{sha}\n")), Ok(()));
        assert!(super::tests_ran_fresh(&marker, &sha.to_uppercase()).is_err());
        assert!(super::tests_ran_fresh(&marker, &sha[..7]).is_err());
        assert!(super::tests_ran_fresh("no line", sha).is_err());
        assert!(super::tests_ran_fresh(&marker, " \n").is_err());
    }

    use super::*;

    #[test]
    fn the_tolerant_reader_finds_what_the_reference_finds() {
        let sha = "1111111111111111111111111111111111111111";
        assert_eq!(marker_sha(&format!("{sha}\n")), Some(sha));
        assert_eq!(marker_sha(&format!("baseline={sha}\n")), Some(sha));
        assert_eq!(marker_sha("sha: ABCDEF1234567"), Some("ABCDEF1234567"));
        assert_eq!(marker_sha("commit deadbeefcafe here"), Some("deadbeefcafe"));
        assert_eq!(marker_sha("abc12\n"), None);
        assert_eq!(
            marker_sha(&"a".repeat(64)),
            None,
            "a SHA-256 name is no 7-40 hex word"
        );
        assert_eq!(form_problem(&format!("{sha}\n")), None);
        assert!(form_problem("abcdef1\n").is_some());
    }
}
