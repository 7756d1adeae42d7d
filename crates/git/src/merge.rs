//! What the merge driver asks of git: its text merge (the fallback for files the driver does not
//! merge itself), and which commit is being merged in and whether it changes a path.

use gix::ObjectId;
use std::path::Path;

/// `git merge-file -L ours -L base -L theirs OURS BASE THEIRS`: git's own text merge, the result
/// (with conflict markers where the sides disagree) written over `ours`, with the user's merge
/// configuration (conflict style, …). Its exit code: 0 merged cleanly, else the number of
/// conflicts (or a failure), never 0.
pub fn merge_file_text(ours: &Path, base: &Path, theirs: &Path) -> std::io::Result<u8> {
    let status = std::process::Command::new("git")
        .args([
            "merge-file",
            "-L",
            "ours",
            "-L",
            "base",
            "-L",
            "theirs",
            "--",
        ])
        .args([ours, base, theirs])
        .status()?;
    Ok(match status.code() {
        Some(0) => 0,
        Some(code) => u8::try_from(code).unwrap_or(u8::MAX).max(1),
        None => 1,
    })
}

/// The commit `git merge` (and `git pull`) is merging in, from the `GITHEAD_<id>` variable it
/// gives its children; `None` for anything else (a rebase, a cherry-pick, an octopus merge).
pub fn merged_head() -> Option<ObjectId> {
    let mut heads = std::env::vars_os().filter_map(|(name, _)| {
        let hex = name.to_str()?.strip_prefix("GITHEAD_")?.to_string();
        ObjectId::from_hex(hex.as_bytes()).ok()
    });
    let head = heads.next()?;
    heads.next().is_none().then_some(head)
}

/// Whether merging `theirs` into HEAD changes `path` (relative to the work tree root): whether
/// `theirs` holds something else there than the merge base does. Git then writes the path in the
/// work tree at the end of the merge, over whatever was written there meanwhile. `None` when it
/// cannot be told.
pub fn merge_changes(repo: &gix::Repository, theirs: ObjectId, path: &Path) -> Option<bool> {
    let head = repo.head_id().ok()?.detach();
    let base = repo.merge_base(head, theirs).ok()?.map(|id| id.detach());
    let entry_at = |commit: ObjectId| -> Option<Option<ObjectId>> {
        let tree = repo.find_commit(commit).ok()?.tree().ok()?;
        let entry = tree.lookup_entry_by_path(path).ok()?;
        Some(entry.map(|e| e.object_id()))
    };
    // Unrelated histories: the base is empty.
    let before = match base {
        Some(base) => entry_at(base)?,
        None => None,
    };
    Some(before != entry_at(theirs)?)
}
