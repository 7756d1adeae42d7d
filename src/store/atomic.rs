//! Atomic replacement: write a temporary file beside the target, fsync it, rename it over the
//! target, fsync the directory. A reader (or a crash) sees the complete old file or the complete
//! new one, never a mixture.

use super::{DirLock, StoreError};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Reads a file that may legitimately be absent (`Ok(None)`).
pub fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, StoreError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(StoreError::io(path, "read", e)),
    }
}

/// Replaces `target` with `bytes` atomically. The caller holds the directory's writer lock (the
/// `_lock` argument proves it), which also makes it safe to sweep temporary files that an earlier,
/// killed writer left behind.
pub fn write_atomic(lock: &DirLock, target: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    replace(lock, target, bytes, true)
}

/// [`write_atomic`] without the fsyncs, for a file derived from another that is synced (a cache
/// or an index that can be rebuilt): readers still see the old file or the new one, never a
/// mixture; after a power loss it may be the old one.
pub fn write_atomic_unsynced(
    lock: &DirLock,
    target: &Path,
    bytes: &[u8],
) -> Result<(), StoreError> {
    replace(lock, target, bytes, false)
}

/// [`write_atomic_unsynced`] for content written in pieces (no whole copy of it in memory).
pub fn write_atomic_unsynced_with(
    lock: &DirLock,
    target: &Path,
    write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<(), StoreError> {
    replace_with(lock, target, false, write)
}

fn replace(lock: &DirLock, target: &Path, bytes: &[u8], sync: bool) -> Result<(), StoreError> {
    replace_with(lock, target, sync, |file| file.write_all(bytes))
}

fn replace_with(
    _lock: &DirLock,
    target: &Path,
    sync: bool,
    write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<(), StoreError> {
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = temp_prefix(&name);
    let mut temp = tempfile::Builder::new()
        .prefix(&prefix)
        .tempfile_in(dir)
        .map_err(|e| StoreError::io(dir, "create a temporary file in", e))?;
    // Keep the mode of the file we replace; a new file gets the usual 0644.
    let mode = std::fs::metadata(target)
        .map(|m| m.permissions().mode() & 0o7777)
        .unwrap_or(0o644);
    let io = |op| move |e| StoreError::io(target, op, e);
    temp.as_file()
        .set_permissions(std::fs::Permissions::from_mode(mode))
        .map_err(io("set permissions of"))?;
    write(temp.as_file_mut()).map_err(io("write"))?;
    if sync {
        temp.as_file().sync_all().map_err(io("fsync"))?;
    }
    temp.persist(target)
        .map_err(|e| StoreError::io(target, "rename over", e.error))?;
    if sync {
        std::fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| StoreError::io(dir, "fsync", e))?;
    }
    sweep_stale_temporaries(dir, &prefix);
    Ok(())
}

fn temp_prefix(name: &str) -> String {
    format!(".{name}.ucg-tmp-")
}

/// Removes temporary files of this target left by a writer that was killed mid-write.
fn sweep_stale_temporaries(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(prefix) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
