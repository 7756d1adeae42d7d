//! The one decision the git hooks and `git ucg gate` share (PRODUCT.md §5.2): blocked while
//! anything of the gated sources is pending, or while the RED registry is corrupt (the gate fails
//! closed where the registry writer does). Raw escalation markers do not block: nothing can
//! answer them until the run promotes them.

use crate::pending::{Blocker, Pending, PendingItem, Source};

/// The sources `ucg.gate.sources` names (comma-separated; default all three). Unknown names are
/// ignored; an empty list gates nothing but a corrupt registry.
pub fn sources(config: Option<&str>) -> Vec<Source> {
    let Some(text) = config else {
        return vec![Source::Red, Source::Escalation, Source::Decision];
    };
    text.split(',')
        .filter_map(|name| match name.trim() {
            "reds" | "red" => Some(Source::Red),
            "escalations" | "escalation" => Some(Source::Escalation),
            "decisions" | "decision" => Some(Source::Decision),
            _ => None,
        })
        .collect()
}

/// What blocks.
#[derive(Debug, Default, serde::Serialize)]
pub struct Decision {
    pub blocking: Vec<PendingItem>,
    pub blockers: Vec<Blocker>,
}

impl Decision {
    pub fn blocked(&self) -> bool {
        !self.blocking.is_empty() || !self.blockers.is_empty()
    }
}

pub fn decide(pending: Pending, gated: &[Source]) -> Decision {
    Decision {
        blocking: pending
            .items
            .into_iter()
            .filter(|item| gated.contains(&item.source))
            .collect(),
        blockers: pending.blockers,
    }
}

/// The refusal a hook prints (`action`: `commit`, `push`; `None` for `git ucg gate`): each
/// blocker, then the way forward and, for a hook, the bypass.
pub fn refusal(decision: &Decision, action: Option<&str>, where_read: &str) -> String {
    let header = match action {
        Some(action) => format!("git-ucg: {action} refused"),
        None => "git-ucg gate: blocked".to_string(),
    };
    let mut out = format!(
        "{header}: the run waits on {} ({where_read})\n",
        match decision.blocking.len() {
            1 => "1 decision".to_string(),
            n => format!("{n} decisions"),
        }
    );
    for item in &decision.blocking {
        let source = match item.source {
            Source::Red => "RED",
            Source::Escalation => "escalation",
            Source::Decision => "decision",
        };
        out.push_str(&format!(
            "  {source:<10}  {}  [{}]\n              {}  ({})\n",
            item.id, item.kind, item.decision_needed, item.artifact
        ));
    }
    for blocker in &decision.blockers {
        out.push_str(&format!(
            "  blocked     {}: {}\n              {}\n",
            blocker.artifact, blocker.reason, blocker.way_out
        ));
    }
    out.push_str("Answer them with `git ucg resolve` (`git ucg pending` lists them).\n");
    if let Some(action) = action {
        out.push_str(&format!(
            "Bypass once: GIT_UCG_SKIP=1 git {action} …, or git {action} --no-verify.\n"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_from_the_configuration() {
        assert_eq!(sources(None).len(), 3);
        assert_eq!(
            sources(Some("reds, decisions,bogus")),
            [Source::Red, Source::Decision]
        );
        assert!(sources(Some("")).is_empty());
    }
}
