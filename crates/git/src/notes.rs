//! git notes: reading every note under a notes ref (its tree, fanned out or not), and appending
//! one through `git notes`, which keeps the notes ref's history and fan-out as git does.

use crate::tree::CommitTree;
use crate::{Error, ObjectId, Result};
use std::io::Write;
use std::path::Path;

/// The most a loose ref file holds: an object id or a `ref:` line.
const MAX_REF_BYTES: u64 = 4096;

/// Checks the loose file of `notes_ref`, before gitoxide or git reads it whole: one that is there
/// but not a regular file of a few bytes (a FIFO blocks every reader, git's too; a link to
/// `/dev/zero` never ends) cannot be read.
pub fn check_ref_file(repo: &gix::Repository, notes_ref: &str) -> Result<()> {
    let path = repo.common_dir().join(notes_ref);
    match std::fs::metadata(&path) {
        Ok(meta) if !meta.is_file() || meta.len() > MAX_REF_BYTES => {
            Err(Error::unreadable(format!(
                "{} is not a ref file (not a regular file of a few bytes): remove it",
                path.display()
            )))
        }
        _ => Ok(()),
    }
}

/// Every note of the notes commit `tip`: the annotated object's id (hex) and the note's bytes.
/// A path that does not spell an object id (git's fan-out joins `ab/cdef…`) is not a note and is
/// left out; a note over the artifact cap is an error, as any blob read here.
pub fn notes_at(repo: &gix::Repository, tip: ObjectId) -> Result<Vec<(String, Vec<u8>)>> {
    let files = CommitTree::of_commit(repo, tip)?.files_below(Path::new(""))?;
    Ok(files
        .into_iter()
        .filter_map(|file| {
            let id: String = file.path.chars().filter(|c| *c != '/').collect();
            let hex = id.len() == repo.object_hash().len_in_hex()
                && id.bytes().all(|b| b.is_ascii_hexdigit());
            hex.then_some((id, file.bytes))
        })
        .collect())
}

/// Every note under `notes_ref` (`refs/notes/…`; none when it does not exist).
pub fn notes(repo: &gix::Repository, notes_ref: &str) -> Result<Vec<(String, Vec<u8>)>> {
    check_ref_file(repo, notes_ref)?;
    match crate::repo::ref_tip(repo, notes_ref)? {
        Some(tip) => notes_at(repo, tip),
        None => Ok(Vec::new()),
    }
}

/// Appends `text` to the note of `object` under `notes_ref`, in the repository git finds from
/// `dir` (`git notes --ref … append`: a second record follows the first after a blank line).
pub fn append_note(dir: &Path, notes_ref: &str, object: &str, text: &str) -> Result<()> {
    let doing = || format!("add a note to {object} under {notes_ref}");
    let mut child = std::process::Command::new("git")
        .current_dir(dir)
        .args(["notes", "--ref", notes_ref, "append", "-F", "-", object])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| Error::failed(doing(), e))?;
    if let Some(mut input) = child.stdin.take() {
        input
            .write_all(text.as_bytes())
            .map_err(|e| Error::failed(doing(), e))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| Error::failed(doing(), e))?;
    if out.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&out.stderr);
    Err(Error::failed(doing(), said.trim()))
}

/// Who committed `commit`: `Name <email>`.
pub fn committer_of(repo: &gix::Repository, commit: ObjectId) -> Result<String> {
    let commit = repo
        .find_commit(commit)
        .map_err(|e| Error::failed(format!("read commit {commit}"), e))?;
    let signature = commit.committer().map_err(Error::unreadable)?;
    Ok(format!("{} <{}>", signature.name, signature.email))
}

/// Who git would commit as here (`user.name`, `user.email`, `GIT_COMMITTER_*`): `Name <email>`,
/// or `None` when nobody is configured.
pub fn configured_committer(repo: &gix::Repository) -> Option<String> {
    let signature = repo.committer()?.ok()?;
    Some(format!("{} <{}>", signature.name, signature.email))
}

/// The subject of the last entry of `HEAD`'s reflog (`git reflog -1`'s `%gs`), when there is one:
/// it tells a merge made here (`merge topic: Merge made by …`) from a fast-forward.
pub fn last_head_move(dir: &Path) -> Option<String> {
    let out = std::process::Command::new("git")
        .current_dir(dir)
        .args(["log", "-g", "-1", "--format=%gs", "HEAD"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}
