//! Run folders under the runs root (formats/ucg.md §1.13): a folder is a run when it holds a
//! `.decision-log.md`; it is terminal when it also holds `run-report.md`.

use std::path::{Path, PathBuf};

/// Where runs live, relative to the project root (no configuration scalar carries it).
pub const RUNS_ROOT: &str = "_bmad-output/ultracode-goal";

/// The run folder of `epic`: `epic-<id>` or `epic-<id>-<UTC stamp>`, the newest stamp first.
pub fn run_of_epic(runs_root: &Path, epic: &str) -> Option<PathBuf> {
    let exact = format!("epic-{epic}");
    let stamped = format!("epic-{epic}-");
    let mut candidates: Vec<(String, PathBuf)> = std::fs::read_dir(runs_root)
        .ok()?
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let stamp = if name == exact {
                String::new()
            } else {
                let stamp = name.strip_prefix(&stamped)?;
                // `epic-7-…` must not claim `epic-7-2` (another epic's folder): stamps start with a year.
                if !stamp.starts_with(|c: char| c.is_ascii_digit()) || stamp.len() < 8 {
                    return None;
                }
                stamp.to_string()
            };
            let path = entry.path();
            path.join(super::decision_log::DECISION_LOG_FILE)
                .is_file()
                .then_some((stamp, path))
        })
        .collect();
    candidates.sort();
    candidates.pop().map(|(_, path)| path)
}
