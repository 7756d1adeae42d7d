//! The plain file operations beside atomic replacement, for files that are not replaced whole:
//! appending a line to a log, removing a file that may be gone already, moving one aside, and
//! writing a small file (its directories first) that nothing reads half-written. io errors are
//! returned as they are; callers say which file and why.

use std::io::Write;
use std::path::Path;

/// Appends `bytes` to `path` in one write, creating the file when it is absent. A log opened
/// this way stays append-only: nothing before the end is ever rewritten.
pub fn append(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?
        .write_all(bytes)
}

/// Removes `path`; a file already gone is not an error.
pub fn remove_if_present(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Renames `from` to `to`, replacing `to`.
pub fn rename(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::rename(from, to)
}

/// Writes `bytes` to `path`, creating its directories first.
pub fn write_creating_dirs(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, bytes)
}

/// Appends `bytes` to the existing file `path` (absent is an error: the log belongs to someone
/// else, who creates it) and syncs it: an appended section survives a crash once this returns.
pub fn append_existing_synced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new().append(true).open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Creates `dir` and its missing parents.
pub fn create_dirs(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}
