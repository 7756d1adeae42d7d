//! Run folders under the runs root (formats/ucg.md §1.13): a folder is a run when it holds a
//! `.decision-log.md`; it is terminal when it also holds `run-report.md`.

/// Where runs live, relative to the project root (no configuration scalar carries it).
pub const RUNS_ROOT: &str = "_bmad-output/ultracode-goal";

/// Which of the folder `names` under the runs root can be the run of `epic`, best first:
/// `epic-<id>` or `epic-<id>-<UTC stamp>`, the newest stamp first. (Whether each is a run, i.e.
/// holds a decision log, is for the caller to check.)
pub fn candidates_for_epic(names: &[String], epic: &str) -> Vec<String> {
    let exact = format!("epic-{epic}");
    let stamped = format!("epic-{epic}-");
    let mut found: Vec<(String, String)> = names
        .iter()
        .filter_map(|name| {
            if *name == exact {
                return Some((String::new(), name.clone()));
            }
            let stamp = name.strip_prefix(&stamped)?;
            // `epic-7-…` must not claim `epic-7-2` (another epic's folder): stamps are dates.
            (stamp.len() >= 8 && stamp.starts_with(|c: char| c.is_ascii_digit()))
                .then(|| (stamp.to_string(), name.clone()))
        })
        .collect();
    found.sort();
    found.into_iter().rev().map(|(_, name)| name).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn newest_stamp_first_and_no_other_epic() {
        let names: Vec<String> = [
            "epic-7",
            "epic-7-20260604T172512Z",
            "epic-7-20260701T000000Z",
            "epic-7-2",
            "epic-70",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            super::candidates_for_epic(&names, "7"),
            [
                "epic-7-20260701T000000Z",
                "epic-7-20260604T172512Z",
                "epic-7"
            ]
        );
    }
}
