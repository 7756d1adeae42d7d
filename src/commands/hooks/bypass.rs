//! Bypasses on record ([`ucg_ultracode::bypass`]): post-commit and post-merge, which git runs
//! under `--no-verify` and `GIT_UCG_SKIP` alike, judge the commit just made as pre-commit would
//! have and note it under `refs/notes/ucg-bypass` when the gate would have refused it; a push
//! sent under `GIT_UCG_SKIP` notes each tip the pre-push hook would have refused; the shared
//! remote reports (or refuses) pushed commits with a record; `status` and `gate` show the
//! records made since the run stopped.

use super::*;
use ucg_ultracode::bypass::{self, Bypass, NOTES_REF};
use ucg_ultracode::gate::Decision;

/// Notes the bypass of `commit` (made `via` a git command while `decisions` waited), and says so.
pub(super) fn record(
    ctx: &Context,
    commit: ucg_git::ObjectId,
    via: &str,
    by: Option<String>,
    decisions: &[&Decision],
) {
    // The items (ids) and unreadable artifacts the decisions waited on.
    let waiting: Vec<String> = decisions
        .iter()
        .flat_map(|d| {
            let unreadable = d
                .blockers
                .iter()
                .map(|b| format!("unreadable:{}", b.artifact));
            d.blocking
                .iter()
                .map(|item| item.id.clone())
                .chain(unreadable)
        })
        .collect();
    let pending = waiting.len();
    let by = by
        .or_else(|| {
            let repo = ctx.repo().ok()?;
            ucg_git::notes::committer_of(repo, commit).ok()
        })
        .unwrap_or_else(|| "(unknown)".into());
    let record = Bypass {
        commit: commit.to_string(),
        by,
        at: ucg_ultracode::answer::now_stamp(),
        via: via.to_string(),
        pending,
        waiting,
    };
    let short = record.commit.get(..12).unwrap_or(&record.commit);
    let written = ctx
        .repo()
        .map_err(|e| e.render().trim().to_string())
        .and_then(|repo| ucg_git::notes::check_ref_file(repo, NOTES_REF).map_err(|e| e.to_string()))
        .and_then(|()| {
            ucg_git::notes::append_note(here(), NOTES_REF, &record.commit, &record.render())
                .map_err(|e| e.to_string())
        });
    let said = match written {
        Ok(()) => format!(
            "git-ucg: {short} went past the gate ({via}) while {pending} decision(s) waited: \
             recorded; `git notes --ref ucg-bypass show {short}` shows it, \
             `git push <remote> {NOTES_REF}` shares it."
        ),
        Err(e) => format!(
            "git-ucg: {short} went past the gate ({via}) while {pending} decision(s) waited, \
             and the record could not be written: {e}"
        ),
    };
    crate::output::say(&visible::escape_controls(&format!("{said}\n"), &[]));
}

/// For post-merge: whether `HEAD` is a merge commit this merge just made (not a fast-forward to a
/// commit made elsewhere, which a merge of its own would have recorded there).
pub(super) fn merge_made_here() -> bool {
    ucg_git::notes::last_head_move(here())
        .is_some_and(|subject| subject.starts_with("merge ") && !subject.contains("Fast-forward"))
}

/// The shared remote's side: the pushed commits (each ref's new commits) that have a bypass on
/// record — in this repository's notes or in the notes this push brings — reported, or refused
/// under `ucg.gate.bypass = refuse`. Whether the push is refused.
pub(super) fn on_receive(ctx: &Context, lines: &[(&str, &str, &str)]) -> bool {
    let policy = ctx.gate_bypass();
    if policy == crate::context::BypassPolicy::Allow {
        return false;
    }
    let Ok(repo) = ctx.repo() else {
        return false;
    };
    let zero = |id: &str| id.bytes().all(|b| b == b'0');
    // The records: the server's, and those of a notes ref this push updates.
    // One note a commit: the pushed notes ref's (which holds the server's, appended to) over the
    // server's.
    let mut notes: std::collections::BTreeMap<String, Vec<u8>> =
        ucg_git::notes::notes(repo, NOTES_REF)
            .unwrap_or_default()
            .into_iter()
            .collect();
    for (_, new, reference) in lines {
        if *reference == NOTES_REF && !zero(new) {
            if let Some(tip) = ucg_git::repo::parse_id(new) {
                notes.extend(ucg_git::notes::notes_at(repo, tip).unwrap_or_default());
            }
        }
    }
    if notes.is_empty() {
        return false;
    }
    let mut found: Vec<Bypass> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (_, new, reference) in lines {
        if zero(new) || *reference == NOTES_REF {
            continue;
        }
        let known = ["--all".to_string()];
        let Ok(commits) = ucg_git::new_commits(repo, here(), new, &known) else {
            continue;
        };
        for commit in commits {
            let hex = commit.to_string();
            if !seen.insert(commit) {
                continue;
            }
            if let Some(note) = notes.get(&hex) {
                found.extend(bypass::parse(&hex, note));
            }
        }
    }
    if found.is_empty() {
        return false;
    }
    let refuse = policy == crate::context::BypassPolicy::Refuse;
    let heading = match refuse {
        true => "git-ucg: push refused: it carries commits that went past the gate:",
        false => "git-ucg: this push carries commits that went past the gate:",
    };
    let mut said = crate::render::bypass::listed(heading, &found);
    if refuse {
        said.push_str(
            "This server refuses them (ucg.gate.bypass = refuse): answer what waited, then \
             rewrite those commits, or ask whoever runs this server.\n",
        );
    }
    crate::output::say_narrower(&said, crate::output::REMOTE_PREFIX);
    refuse
}
