//! Writing a commit on a branch without a checkout: the parent's tree with some files replaced or
//! removed, committed as git's configured identity, and the branch moved only if it still points
//! at the parent (a compare-and-swap: a writer in between is reported, never overwritten). The
//! work tree, the index and HEAD are not touched.

use crate::{Error, Result};
use gix::ObjectId;

/// One change to a tree: a file's new bytes, or its removal. Paths are '/'-separated from the
/// tree's root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    Write {
        path: String,
        bytes: Vec<u8>,
        executable: bool,
    },
    Remove {
        path: String,
    },
}

impl Edit {
    pub fn path(&self) -> &str {
        match self {
            Edit::Write { path, .. } | Edit::Remove { path } => path,
        }
    }
}

/// What became of the branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moved {
    /// The branch now points at the new commit.
    To(ObjectId),
    /// The edits change nothing: no commit was made.
    Unchanged,
    /// The branch no longer pointed at the expected commit (another writer moved it).
    Elsewhere,
}

/// The commit `refs/heads/<branch>` points at (`branch` may also be given whole, `refs/heads/…`).
pub fn branch_tip(repo: &gix::Repository, branch: &str) -> Result<ObjectId> {
    crate::repo::ref_tip(repo, &full_branch_name(branch))?
        .ok_or_else(|| Error::NoBranch(short_branch_name(branch).to_string()))
}

/// `refs/heads/<branch>`, unless given so already.
pub fn full_branch_name(branch: &str) -> String {
    match branch.starts_with("refs/heads/") {
        true => branch.to_string(),
        false => format!("refs/heads/{branch}"),
    }
}

/// The branch's name without `refs/heads/`.
pub fn short_branch_name(branch: &str) -> &str {
    branch.strip_prefix("refs/heads/").unwrap_or(branch)
}

/// Commits `edits` on `parent`'s tree with `message` (author and committer as git would set them
/// here) and moves `branch` from `expected` to the new commit — only if it still points at
/// `expected`.
pub fn commit_on_branch(
    repo: &gix::Repository,
    branch: &str,
    parent: ObjectId,
    expected: ObjectId,
    edits: &[Edit],
    message: &str,
) -> Result<Moved> {
    let parent_tree = repo
        .find_commit(parent)
        .and_then(|c| c.tree_id())
        .map_err(|e| Error::failed(format!("read commit {parent}"), e))?
        .detach();
    let mut editor = repo
        .edit_tree(parent_tree)
        .map_err(|e| Error::failed(format!("edit the tree of {parent}"), e))?;
    for edit in edits {
        match edit {
            Edit::Write {
                path,
                bytes,
                executable,
            } => {
                let blob = repo.write_blob(bytes).map_err(|e| {
                    Error::failed(format!("write {path} into the object database"), e)
                })?;
                let kind = match executable {
                    true => gix::object::tree::EntryKind::BlobExecutable,
                    false => gix::object::tree::EntryKind::Blob,
                };
                editor
                    .upsert(path.as_str(), kind, blob.detach())
                    .map_err(|e| Error::failed(format!("place {path} in the tree"), e))?;
            }
            Edit::Remove { path } => {
                editor
                    .remove(path.as_str())
                    .map_err(|e| Error::failed(format!("remove {path} from the tree"), e))?;
            }
        }
    }
    let tree = editor
        .write()
        .map_err(|e| Error::failed("write the tree", e))?
        .detach();
    if tree == parent_tree && parent == expected {
        return Ok(Moved::Unchanged);
    }
    let author = repo
        .author()
        .ok_or(Error::NoIdentity("author"))?
        .map_err(|e| Error::failed("read the author identity", e))?;
    let committer = repo
        .committer()
        .ok_or(Error::NoIdentity("committer"))?
        .map_err(|e| Error::failed("read the committer identity", e))?;
    let commit = repo
        .new_commit_as(committer, author, message, tree, [parent])
        .map_err(|e| Error::failed("write the commit", e))?;
    let name = full_branch_name(branch);
    let summary = message.lines().next().unwrap_or_default();
    let constraint = gix::refs::transaction::PreviousValue::MustExistAndMatch(
        gix::refs::Target::Object(expected),
    );
    match repo.reference(
        name.as_str(),
        commit.id,
        constraint,
        format!("ucg resolve: {summary}"),
    ) {
        Ok(_) => Ok(Moved::To(commit.id)),
        // Moved by another writer, or locked by one at this moment: the caller reads the branch
        // again and decides.
        Err(_) if branch_tip(repo, branch).ok() != Some(expected) => Ok(Moved::Elsewhere),
        Err(e) if e.to_string().contains("lock") => Ok(Moved::Elsewhere),
        Err(e) => Err(Error::failed(format!("move {name}"), e)),
    }
}

/// Moves `branch` back from `from` to `to` — only if it still points at `from` (whether it did).
pub fn move_branch_back(
    repo: &gix::Repository,
    branch: &str,
    from: ObjectId,
    to: ObjectId,
) -> Result<bool> {
    let name = full_branch_name(branch);
    let constraint =
        gix::refs::transaction::PreviousValue::MustExistAndMatch(gix::refs::Target::Object(from));
    match repo.reference(name.as_str(), to, constraint, "ucg resolve: undone") {
        Ok(_) => Ok(true),
        Err(_) if branch_tip(repo, branch).ok() != Some(from) => Ok(false),
        Err(e) => Err(Error::failed(format!("move {name} back"), e)),
    }
}

/// For a branch that exists only as a remote-tracking branch (`refs/remotes/<remote>/<branch>`,
/// of `preferred` when given, else of the only remote that has it): creates the local branch at
/// it, as `git checkout <branch>` would, without checking it out. The remote-tracking ref used.
pub fn branch_from_remote(
    repo: &gix::Repository,
    branch: &str,
    preferred: Option<&str>,
) -> Result<Option<String>> {
    let short = short_branch_name(branch);
    let references = repo.references().map_err(Error::unreadable)?;
    let remote_refs = references.remote_branches().map_err(Error::unreadable)?;
    let mut found: Vec<(String, ObjectId)> = Vec::new();
    for mut reference in remote_refs.flatten() {
        let name = reference.name().as_bstr().to_string();
        let Some(rest) = name.strip_prefix("refs/remotes/") else {
            continue;
        };
        let Some((remote, rest)) = rest.split_once('/') else {
            continue;
        };
        if rest != short || preferred.is_some_and(|p| p != remote) {
            continue;
        }
        if let Ok(id) = reference.peel_to_id() {
            found.push((name.clone(), id.detach()));
        }
    }
    let [(name, id)] = &found[..] else {
        return Ok(None);
    };
    repo.reference(
        full_branch_name(branch).as_str(),
        *id,
        gix::refs::transaction::PreviousValue::MustNotExist,
        format!("branch: Created from {name}"),
    )
    .map_err(|e| Error::failed(format!("create {}", full_branch_name(branch)), e))?;
    Ok(Some(name.clone()))
}
