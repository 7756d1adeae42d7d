//! What the merge driver asks of git: its text merge (the fallback for files the driver does not
//! merge itself), and which commit is being merged in and whether it changes a path.

use std::path::Path;

/// `git merge-file -L ours -L base -L theirs OURS BASE THEIRS`: git's own text merge, the result
/// (with conflict markers where the sides disagree) written over `ours`, with the user's merge
/// configuration (conflict style, …). Its exit code: 0 merged cleanly, else the number of
/// conflicts (or a failure), never 0.
pub fn merge_file_text(ours: &Path, base: &Path, theirs: &Path) -> std::io::Result<u8> {
    let status = std::process::Command::new("git")
        .args("merge-file -L ours -L base -L theirs --".split(' '))
        .args([ours, base, theirs])
        .status()?;
    Ok(match status.code() {
        Some(0) => 0,
        Some(code) => u8::try_from(code).unwrap_or(u8::MAX).max(1),
        None => 1,
    })
}
