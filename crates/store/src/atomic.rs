//! Atomic replacement: write a temporary file beside the target, fsync it, rename it over the
//! target, fsync the directory. A reader (or a crash) sees the complete old file or the complete
//! new one, never a mixture. The unsynced variant, for derived files, keeps that for readers only.

use super::{DirLock, StoreError};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Reads a file that may legitimately be absent (`Ok(None)`); any other failure is the io error,
/// for callers that word it themselves.
pub fn read_if_present(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    match super::read::read_file(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// [`read_if_present`], a failure named as a [`StoreError`].
pub fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, StoreError> {
    read_if_present(path).map_err(|e| StoreError::io(path, "read", e))
}

/// Replaces `target` with `bytes` atomically. The caller holds the directory's writer lock (the
/// `_lock` argument proves it), which also makes it safe to sweep temporary files that an earlier,
/// killed writer left behind.
pub fn write_atomic(lock: &DirLock, target: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    replace_with(lock, target, true, |file| file.write_all(bytes))
}

/// [`write_atomic`] for content written in pieces (no whole copy of it in memory). The disk is
/// set to work as the pieces come, so the final fsync waits only for the last of them.
pub fn write_atomic_with(
    lock: &DirLock,
    target: &Path,
    write: impl FnOnce(&mut Writeback) -> std::io::Result<()>,
) -> Result<(), StoreError> {
    replace_with(lock, target, true, |file| {
        let mut writeback = Writeback {
            file,
            written: 0,
            started: 0,
        };
        write(&mut writeback)
    })
}

/// A file being written whose pages are handed to the disk a few megabytes at a time
/// (`sync_file_range`), rather than all at the fsync that ends the write.
pub struct Writeback<'f> {
    file: &'f mut std::fs::File,
    written: u64,
    /// Where the pages not yet handed over begin.
    started: u64,
}

/// How much is written before it is handed to the disk.
const WRITEBACK_EVERY: u64 = 2 << 20;

impl Write for Writeback<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(bytes)?;
        self.written += n as u64;
        if self.written - self.started >= WRITEBACK_EVERY {
            start_writeback(self.file, self.started, self.written - self.started);
            self.started = self.written;
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Starts writing a range of `file` to the disk without waiting for it: a hint, which the fsync
/// after it makes good whatever it did.
#[cfg(target_os = "linux")]
fn start_writeback(file: &std::fs::File, offset: u64, len: u64) {
    use std::os::fd::AsRawFd;
    let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else {
        return;
    };
    // SAFETY: a system call on a descriptor this function borrows; it reads no memory of ours.
    unsafe {
        libc::sync_file_range(file.as_raw_fd(), offset, len, libc::SYNC_FILE_RANGE_WRITE);
    }
}

#[cfg(not(target_os = "linux"))]
fn start_writeback(_file: &std::fs::File, _offset: u64, _len: u64) {}

/// [`write_atomic_with`] without the fsyncs, for a file derived from another that is synced (a
/// cache or an index that can be rebuilt): readers still see the old file or the new one, never a
/// mixture; after a power loss it may be the old one, or empty or cut short.
pub fn write_atomic_unsynced_with(
    lock: &DirLock,
    target: &Path,
    write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<(), StoreError> {
    replace_with(lock, target, false, write)
}

fn replace_with(
    _lock: &DirLock,
    target: &Path,
    sync: bool,
    write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<(), StoreError> {
    let dir = crate::dir_of(target);
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!(".{name}.ucg-tmp-");
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
        temp.persist(target)
            .map_err(|e| StoreError::io(target, "rename over", e.error))?;
        std::fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| StoreError::io(dir, "fsync", e))?;
    } else {
        // Swapped with the existing file, whose old content is then removed under the temporary
        // name, rather than renamed over it: on ext4 a rename over an existing file allocates and
        // starts writing back the whole new file inside the rename (auto_da_alloc), which for the
        // lesson index costs more than the rest of an append together. The swap is as atomic for
        // readers; after a power loss the unsynced file may be empty or cut short (see the callers).
        let temp = temp.into_temp_path();
        let swappable = std::fs::symlink_metadata(target).is_ok_and(|m| m.file_type().is_file());
        if swappable && rename_exchange(&temp, target).is_ok() {
            // The new file is in place; an old copy that cannot be removed now is swept later.
            let _ = temp.close();
        } else {
            // No regular file to swap with, or a file system without the exchange: a rename.
            temp.persist(target)
                .map_err(|e| StoreError::io(target, "rename over", e.error))?;
        }
    }
    // What a writer of this target killed mid-write left behind.
    sweep(dir, |_, name| name.starts_with(&prefix));
    Ok(())
}

/// Linux `renameat2(RENAME_EXCHANGE)`: the two names swap files; an error where the system lacks
/// it.
fn rename_exchange(from: &Path, to: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        std::ffi::CString::new(p.as_os_str().as_bytes())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
    };
    let (from, to) = (c(from)?, c(to)?);
    // SAFETY: both paths are NUL-terminated C strings that outlive the call.
    let renamed = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    match renamed {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// How old another target's temporary file must be before a writer in its directory removes it:
/// far longer than any write takes, so only a killed writer's leftovers qualify.
const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(60);

/// Removes every temporary file of ours in `dir` (`.<name>.ucg-tmp-*`, a regular file) older
/// than [`STALE_AFTER`]: what killed writers left behind, whatever file they were writing. Called
/// with the directory's writer lock held.
pub(super) fn sweep_directory(dir: &Path) {
    let now = std::time::SystemTime::now();
    sweep(dir, |entry, name| {
        name.starts_with('.')
            && name.contains(".ucg-tmp-")
            && entry.metadata().is_ok_and(|m| {
                m.file_type().is_file()
                    && m.modified()
                        .ok()
                        .and_then(|t| now.duration_since(t).ok())
                        .is_some_and(|age| age >= STALE_AFTER)
            })
    });
}

/// Removes each file in `dir` that `doomed` picks, by its entry and its name.
fn sweep(dir: &Path, doomed: impl Fn(&std::fs::DirEntry, &str) -> bool) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if doomed(&entry, &entry.file_name().to_string_lossy()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::os::unix::fs::MetadataExt;

    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| name.contains(".ucg-tmp-"))
            .collect()
    }

    #[test]
    fn an_unsynced_replacement_swaps_the_whole_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let lock = crate::lock_dir(dir.path()).unwrap();
        let target = dir.path().join("index.json");
        // A missing target is created.
        write_atomic_unsynced_with(&lock, &target, |file| file.write_all(b"first")).unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
        let mut reader = std::fs::File::open(&target).unwrap();
        let old_inode = std::fs::metadata(&target).unwrap().ino();
        write_atomic_unsynced_with(&lock, &target, |file| file.write_all(b"second, longer"))
            .unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"second, longer");
        let meta = std::fs::metadata(&target).unwrap();
        assert_ne!(
            meta.ino(),
            old_inode,
            "a new file, not the old one rewritten"
        );
        assert_eq!(meta.permissions().mode() & 0o7777, 0o600);
        // A reader that opened the old file still reads it whole.
        let mut seen = String::new();
        reader.read_to_string(&mut seen).unwrap();
        assert_eq!(seen, "first");
        assert_eq!(leftovers(dir.path()), Vec::<String>::new());
    }

    #[test]
    fn an_unsynced_replacement_never_swaps_a_directory_or_follows_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let lock = crate::lock_dir(dir.path()).unwrap();
        let target = dir.path().join("index.json");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("inside"), b"kept").unwrap();
        assert!(write_atomic_unsynced_with(&lock, &target, |file| file.write_all(b"x")).is_err());
        assert_eq!(std::fs::read(target.join("inside")).unwrap(), b"kept");
        assert_eq!(leftovers(dir.path()), Vec::<String>::new());
        // A symlink is replaced by the file, as a rename replaces it; its target is untouched.
        let pointed = dir.path().join("pointed");
        std::fs::write(&pointed, b"elsewhere").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&pointed, &link).unwrap();
        write_atomic_unsynced_with(&lock, &link, |file| file.write_all(b"new")).unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().is_file());
        assert_eq!(std::fs::read(&link).unwrap(), b"new");
        assert_eq!(std::fs::read(&pointed).unwrap(), b"elsewhere");
    }
}
