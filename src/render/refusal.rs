//! The gate's refusal as a person reads it — in a hook's output, or from `git ucg gate`: each
//! blocking item, each artifact that cannot be read, and the way forward.

use ucg_ultracode::gate::Decision;

/// The refusal (`action`: what a hook refuses, `commit`, `push`…; `None` for `git ucg gate`):
/// each blocker, then the way forward. A hook adds its own bypass line.
/// Each item by its handle (`git ucg pending --full` gives ids), unless `full`.
pub fn refusal(decision: &Decision, action: Option<&str>, where_read: &str, full: bool) -> String {
    let header = match action {
        Some(action) => format!("git-ucg: {action} refused"),
        None => "git-ucg gate: blocked".to_string(),
    };
    let mut out = match (decision.blocking.len(), decision.blockers.len()) {
        (0, 1) => format!("{header}: an artifact of the run cannot be read ({where_read})\n"),
        (0, n) => format!("{header}: {n} artifacts of the run cannot be read ({where_read})\n"),
        (1, _) => format!("{header}: the run waits on 1 decision ({where_read})\n"),
        (n, _) => format!("{header}: the run waits on {n} decisions ({where_read})\n"),
    };
    for item in &decision.blocking {
        out.push_str(&super::items::describe(item, full));
    }
    for blocker in &decision.blockers {
        out.push_str(&format!(
            "  blocked     {}: {}\n              {}\n",
            blocker.artifact, blocker.reason, blocker.way_out
        ));
    }
    // `resolve` refuses while an artifact it reads or writes cannot be read: repair comes first.
    out.push_str(match (decision.blocking.is_empty(), decision.blockers.is_empty()) {
        (_, true) => "Answer them with `git ucg resolve` (`git ucg pending` lists them).\n",
        (true, false) => "Repair what cannot be read (above), then run this again.\n",
        (false, false) => "Repair what cannot be read (above) first, then answer the rest with `git ucg resolve`.\n",
    });
    out
}
