//! The plain file operations beside atomic replacement: removing a file that may be gone already,
//! moving one, writing a small file nothing reads half-written, creating a file only where none
//! is, and replacing an existing one without ever creating it. io errors are
//! returned as they are; callers say which file and why.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Creates `dir` and its missing parents.
pub fn create_dirs(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

/// A new directory under the system's temporary directory, named `prefix…`, that stays after the
/// process ends (the demo's repository, for the operator to explore).
pub fn new_kept_temp_dir(prefix: &str) -> std::io::Result<PathBuf> {
    Ok(tempfile::Builder::new().prefix(prefix).tempdir()?.keep())
}

/// A new private directory under the system's temporary directory, named `prefix…`, removed with
/// everything in it when the value is dropped: scratch space that is never the project.
pub fn scratch_dir(prefix: &str) -> std::io::Result<tempfile::TempDir> {
    tempfile::Builder::new().prefix(prefix).tempdir()
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

/// Writes `bytes` to `path` in place, unsynced: for a small file whose loss or a torn copy only
/// costs a fast path (a stamp, a cache), never for data.
pub fn write_small(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::write(path, bytes)
}

/// Writes `bytes` to `path`, creating its directories first.
pub fn write_creating_dirs(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(crate::dir_of(path))?;
    std::fs::write(path, bytes)
}

/// Replaces an existing file atomically without creating it: the bytes go to `<file>.tmp.<pid>`
/// (the ultragoal CLI's name), are synced and renamed over it, and the directory is synced.
/// `Err(None)` when the file does not exist (it is never resurrected), else the failure, worded.
pub fn replace_existing(path: &Path, bytes: &[u8]) -> Result<(), Option<String>> {
    match std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
    {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(None),
        Err(e) => return Err(Some(format!("cannot open {}: {e}", path.display()))),
    }
    let mut temp_name = path.as_os_str().to_owned();
    temp_name.push(format!(".tmp.{}", std::process::id()));
    let temp = PathBuf::from(temp_name);
    let written = (|| {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temp, path)?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::File::open(dir)?.sync_all()?;
        }
        Ok::<(), std::io::Error>(())
    })();
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        Some(format!("cannot write {}: {e}", path.display()))
    })
}

/// Why [`create_new_synced`] failed: the file could not be created, or not written once created.
#[derive(Debug)]
pub enum CreateNewError {
    Create(std::io::Error),
    Write(std::io::Error),
}

/// Creates `path` with `bytes`, synced, only if nothing is there: `Ok(false)` (nothing written)
/// when a file already exists, so a racing creator's file is never replaced.
pub fn create_new_synced(path: &Path, bytes: &[u8]) -> Result<bool, CreateNewError> {
    let created = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path);
    match created {
        Ok(mut file) => file
            .write_all(bytes)
            .and_then(|()| file.sync_all())
            .map(|()| true)
            .map_err(CreateNewError::Write),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(CreateNewError::Create(e)),
    }
}

/// Why [`install_executable`] failed: no temporary file beside the target, the bytes or the mode
/// could not be written, or the rename into place failed.
#[derive(Debug)]
pub enum InstallError {
    NoTemporary(std::io::Error),
    Write(std::io::Error),
    Install(std::io::Error),
}

/// Puts an executable (mode 755) at `path` with `bytes`, by a rename from a temporary file beside
/// it: git never runs a half-written hook.
pub fn install_executable(path: &Path, bytes: &[u8]) -> Result<(), InstallError> {
    use std::os::unix::fs::PermissionsExt;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut temp = tempfile::Builder::new()
        .prefix(".git-ucg-hook")
        .tempfile_in(dir)
        .map_err(InstallError::NoTemporary)?;
    temp.write_all(bytes).map_err(InstallError::Write)?;
    temp.as_file()
        .set_permissions(std::fs::Permissions::from_mode(0o755))
        .map_err(InstallError::Write)?;
    temp.persist(path)
        .map_err(|e| InstallError::Install(e.error))?;
    Ok(())
}

/// Replaces `target` with `bytes` by a rename from a temporary file (named `temp_prefix…`) beside
/// it, without a lock and without syncing: readers see the old file or the new one, never a
/// mixture. For a cache that any process may rewrite and that is recomputed when lost.
pub fn replace_cache(target: &Path, temp_prefix: &str, bytes: &[u8]) -> std::io::Result<()> {
    let dir = target.parent().unwrap_or(Path::new("."));
    let mut file = tempfile::Builder::new()
        .prefix(temp_prefix)
        .tempfile_in(dir)?;
    file.write_all(bytes)?;
    file.persist(target).map_err(|e| e.error)?;
    Ok(())
}

/// Installs `bytes` as a file everyone may read (mode 0644) at `path`, its directories created:
/// written to a temporary beside it and renamed over it, so a reader sees the old file or the
/// new one (a man page, a shell completion).
pub fn install_readable(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let dir = crate::dir_of(path);
    std::fs::create_dir_all(dir)?;
    let mut file = tempfile::Builder::new()
        .prefix(".git-ucg-install")
        .tempfile_in(dir)?;
    file.write_all(bytes)?;
    file.as_file()
        .set_permissions(std::fs::Permissions::from_mode(0o644))?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Another process holds the lock [`try_lock_file`] asked for.
#[derive(Debug)]
pub struct HeldElsewhere;

/// An exclusive lock on the file `path` (created if absent, never truncated), without waiting:
/// `Err(HeldElsewhere)` when another process holds it, `Ok(None)` when no lock can be had at all
/// (the file cannot be opened, or the file system does not lock), which callers treat as no lock.
pub fn try_lock_file(path: &Path) -> Result<Option<std::fs::File>, HeldElsewhere> {
    use std::os::unix::fs::OpenOptionsExt;
    // Never blocks in open (a FIFO planted in its place would hold the caller forever), never
    // follows a symlink, and locks only a regular file.
    let Ok(file) = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path)
    else {
        return Ok(None);
    };
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Ok(None);
    }
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Err(HeldElsewhere),
        Err(std::fs::TryLockError::Error(_)) => Ok(None),
    }
}
