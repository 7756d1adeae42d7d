//! Where a pursuit started in git: the HEAD recorded when git-ucg first moved a session's state
//! into pursuing, under the git directory (`ucg/goal/<sid>.base`, shared by every worktree), so
//! `goal diff` shows the accumulated diff of the whole pursuit for the final code review.

use super::session::Session;
use crate::cli::GoalDiffArgs;
use crate::context::Context;
use crate::error::{Error, Result};
use std::path::PathBuf;

fn base_file(repo: &gix::Repository, sid: &str) -> PathBuf {
    repo.common_dir()
        .join("ucg")
        .join("goal")
        .join(format!("{sid}.base"))
}

fn recorded(repo: &gix::Repository, sid: &str) -> Option<gix::ObjectId> {
    let text = std::fs::read_to_string(base_file(repo, sid)).ok()?;
    gix::ObjectId::from_hex(text.trim().as_bytes()).ok()
}

/// After a successful `set`: a fresh plan forgets the old base; the first move into pursuing
/// records HEAD. Outside a repository (or without a commit) there is nothing to record.
pub fn after_transition(session: &Session, phase: &str, fresh: bool) {
    let Ok(cwd) = std::env::current_dir() else {
        return;
    };
    let Ok(repo) = gix::discover(cwd) else {
        return;
    };
    let file = base_file(&repo, &session.sid);
    if phase == "planning" && fresh {
        let _ = std::fs::remove_file(&file);
    } else if phase == "pursuing" && recorded(&repo, &session.sid).is_none() {
        if let Ok(head) = repo.head_id() {
            let written = file
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::write(&file, format!("{}\n", head.detach())));
            if let Err(e) = written {
                eprintln!(
                    "warning: cannot record the pursuit's base in {}: {e}",
                    file.display()
                );
            }
        }
    }
}

/// An adoption: the source session's base becomes this session's (or none, if it had none).
pub fn move_to(from_sid: &str, to_sid: &str) {
    let Ok(repo) =
        std::env::current_dir().and_then(|cwd| gix::discover(cwd).map_err(std::io::Error::other))
    else {
        return;
    };
    let ours = base_file(&repo, to_sid);
    let _ = std::fs::remove_file(&ours);
    let _ = std::fs::rename(base_file(&repo, from_sid), &ours);
}

pub fn run_diff(ctx: &Context, session: &Session, args: &GoalDiffArgs) -> Result<u8> {
    let repo = ctx.repo()?;
    let base = match &args.base {
        Some(rev) => repo
            .rev_parse_single(rev.as_str())
            .map_err(|e| Error::new(format!("--base {rev:?}: {e}")))?
            .object()
            .map_err(|e| Error::new(e.to_string()))?
            .peel_to_commit()
            .map_err(|e| Error::new(format!("--base {rev:?} is not a commit: {e}")))?
            .id,
        None => recorded(repo, &session.sid).ok_or_else(|| {
            Error::new(format!(
                "no recorded base for session {}: the pursuit never entered pursuing through git-ucg here",
                session.sid
            ))
            .hint("give the pursuit's first commit with --base REV")
        })?,
    };
    let end = repo
        .head_id()
        .map_err(|e| Error::new(format!("HEAD: {e}")))?
        .detach();
    crate::commands::diff::print_range(ctx, repo, base, end, None, &args.output)
}
