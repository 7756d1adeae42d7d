//! Where a pursuit started in git: the HEAD recorded when git-ucg first moved a session's state
//! into pursuing, under the git directory (`ucg/goal/<sid>.base`, shared by every worktree), so
//! `goal diff` shows the accumulated diff of the whole pursuit for the final code review.

use super::session::Session;
use std::path::{Path, PathBuf};
use ucg_git::{ObjectId, Repository};

fn base_file(common_dir: &Path, sid: &str) -> PathBuf {
    ucg_store::ucg_dir(common_dir)
        .join("goal")
        .join(format!("{sid}.base"))
}

/// The base recorded for session `sid` in `repo`.
pub fn recorded(repo: &Repository, sid: &str) -> Option<ObjectId> {
    let text = ucg_store::read_text(base_file(repo.common_dir(), sid)).ok()?;
    ucg_git::repo::parse_id(text.trim())
}

/// After a successful `set`: a fresh plan forgets the old base; the first move into pursuing
/// records HEAD. Outside a repository (or without a commit) there is nothing to record. A base
/// that cannot be written is a warning (returned), never a refusal: the transition is done.
pub(crate) fn after_transition(session: &Session, phase: &str, fresh: bool) -> Option<String> {
    let cwd = std::env::current_dir().ok()?;
    let repo = ucg_git::repo::discover(&cwd).ok()?;
    let file = base_file(repo.common_dir(), &session.sid);
    if phase == "planning" && fresh {
        let _ = ucg_store::remove_if_present(&file);
    } else if phase == "pursuing" && recorded(&repo, &session.sid).is_none() {
        let head = ucg_git::repo::head(&repo)?;
        if let Err(e) = ucg_store::write_creating_dirs(&file, format!("{head}\n").as_bytes()) {
            return Some(format!(
                "warning: cannot record the pursuit's base in {}: {e}",
                file.display()
            ));
        }
    }
    None
}

/// An adoption: the source session's base becomes this session's (or none, if it had none).
pub(crate) fn move_to(from_sid: &str, to_sid: &str) {
    let Some(common_dir) = std::env::current_dir()
        .ok()
        .and_then(|cwd| ucg_git::repo::common_dir_around(&cwd))
    else {
        return;
    };
    let ours = base_file(&common_dir, to_sid);
    let _ = ucg_store::remove_if_present(&ours);
    let _ = ucg_store::rename(&base_file(&common_dir, from_sid), &ours);
}
