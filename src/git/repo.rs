//! Finding a repository and the small questions asked of it outside the diff machinery: its
//! directories, HEAD, a configuration integer, whether a commit made progress.

use gix::ObjectId;
use std::path::{Path, PathBuf};

pub use gix::Repository;

/// The repository around `dir`, by plain upward discovery (no environment overrides).
pub fn discover(dir: &Path) -> Result<Repository, String> {
    gix::discover(dir).map_err(|e| e.to_string())
}

/// The repository around `cwd`, honouring `GIT_DIR`, `GIT_WORK_TREE` and the rest of git's
/// environment, as a hook run by git must.
pub fn discover_from_environment(cwd: &Path) -> Result<Repository, String> {
    gix::discover_with_environment_overrides(cwd).map_err(|e| e.to_string())
}

/// The repository whose git directory is `git_dir`.
pub fn open(git_dir: &Path) -> Option<Repository> {
    gix::open(git_dir).ok()
}

/// The absolute git common directory of the repository around `cwd` (shared by every worktree).
pub fn common_dir_around(cwd: &Path) -> Option<PathBuf> {
    let repo = gix::discover(cwd).ok()?;
    std::path::absolute(repo.common_dir()).ok()
}

/// The commit HEAD points at, when there is one.
pub fn head(repo: &Repository) -> Option<ObjectId> {
    repo.head_id().ok().map(|id| id.detach())
}

/// The commit HEAD points at in the repository around `cwd`.
pub fn head_around(cwd: &Path) -> Option<ObjectId> {
    head(&gix::discover(cwd).ok()?)
}

/// A full hexadecimal object id.
pub fn parse_id(text: &str) -> Option<ObjectId> {
    ObjectId::from_hex(text.as_bytes()).ok()
}

/// `rev` peeled to the commit it names.
pub fn commit_of(repo: &Repository, rev: &str) -> Result<ObjectId, String> {
    repo.rev_parse_single(rev)
        .map_err(|e| format!("{rev:?}: {e}"))?
        .object()
        .map_err(|e| e.to_string())?
        .peel_to_commit()
        .map(|commit| commit.id)
        .map_err(|e| format!("{rev:?} is not a commit: {e}"))
}

/// An integer from the repository's configuration (`section.key`).
pub fn config_integer(repo: &Repository, key: &str) -> Option<i64> {
    repo.config_snapshot().integer(key)
}

/// Whether `head` is progress since `prior` in the repository around `cwd`: a descendant of it
/// whose tree differs (an empty commit, an amend or a revert to the same tree, or another line of
/// history is not).
pub fn changed_descendant(cwd: &Path, prior: ObjectId, head: ObjectId) -> bool {
    if prior == head {
        return false;
    }
    let Ok(repo) = gix::discover(cwd) else {
        return false;
    };
    let tree_of = |id: ObjectId| {
        repo.find_commit(id)
            .ok()
            .and_then(|c| c.tree_id().ok())
            .map(|t| t.detach())
    };
    let (Some(prior_tree), Some(head_tree)) = (tree_of(prior), tree_of(head)) else {
        return false;
    };
    prior_tree != head_tree && super::is_ancestor(&repo, prior, head).unwrap_or(false)
}
