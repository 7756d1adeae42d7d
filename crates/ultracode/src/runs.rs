//! Run folders under the runs root (docs/formats/ucg.md §1.13): a folder is a run when it holds a
//! `.decision-log.md`; it is terminal when it also holds `run-report.md`.

/// Where runs live, relative to the project root (no configuration scalar carries it).
pub const RUNS_ROOT: &str = "_bmad-output/ultracode-goal";

/// What a finished run leaves in its folder beside the decision log.
pub const RUN_REPORT_FILE: &str = "run-report.md";

/// The epic a run folder belongs to, by the naming convention (`epic-<id>` or
/// `epic-<id>-<yyyymmddThhmmssZ>`); `None` for other names.
pub fn epic_of_folder(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("epic-")?;
    let is_stamp = |s: &str| {
        let b = s.as_bytes();
        b.len() == 16
            && b[8] == b'T'
            && b[15] == b'Z'
            && b[..8].iter().chain(&b[9..15]).all(u8::is_ascii_digit)
    };
    let id = match rest.rsplit_once('-') {
        Some((id, stamp)) if is_stamp(stamp) => id,
        _ => rest,
    };
    (!id.is_empty()).then_some(id)
}

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

/// A run folder's state: `terminal` once it holds its report; `live` while the agent works on
/// it — the run the heartbeat names (`heartbeat_idle`, seconds since its `updated`, is given
/// for that run alone) within the shared liveness rule (`ucg_store::liveness`); else `stopped`.
pub fn folder_state(terminal: bool, heartbeat_idle: Option<i64>) -> &'static str {
    match (terminal, heartbeat_idle) {
        (true, _) => "terminal",
        (false, Some(idle)) if ucg_store::liveness::is_live(true, idle) => "live",
        _ => "stopped",
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn epics_of_run_folders() {
        assert_eq!(super::epic_of_folder("epic-7-20260604T172512Z"), Some("7"));
        assert_eq!(super::epic_of_folder("epic-2-4"), Some("2-4"));
        assert_eq!(super::epic_of_folder("epic-a"), Some("a"));
        assert_eq!(super::epic_of_folder("improvement-queue"), None);
        assert_eq!(super::epic_of_folder("epic-"), None);
    }

    #[test]
    fn newest_stamp_first_and_no_other_epic() {
        let names = [
            "epic-7",
            "epic-7-20260604T172512Z",
            "epic-7-20260701T000000Z",
            "epic-7-2",
            "epic-70",
        ]
        .map(String::from);
        assert_eq!(
            super::candidates_for_epic(&names, "7"),
            [
                "epic-7-20260701T000000Z",
                "epic-7-20260604T172512Z",
                "epic-7"
            ]
        );
    }

    #[test]
    fn a_run_is_live_only_while_its_heartbeat_is_recent() {
        assert_eq!(super::folder_state(true, Some(0)), "terminal");
        assert_eq!(super::folder_state(false, Some(60)), "live");
        assert_eq!(super::folder_state(false, Some(6 * 3600)), "stopped");
        assert_eq!(super::folder_state(false, None), "stopped");
    }
}
