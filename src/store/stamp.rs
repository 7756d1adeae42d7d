//! Stamps — (mtime seconds, mtime nanoseconds, size, inode) — of many files that mostly share a
//! directory, as a cache's freshness check takes them: each directory is opened once and its
//! files are looked up relative to it (`fstatat`), instead of walking the whole path for each.
//! A path is followed as `std::fs::metadata` follows it (symbolic links resolved).

use std::ffi::{CStr, CString};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// A file's or directory's stamp: `None` when it cannot be looked up (absent, mostly).
pub type Stamp = Option<(i64, i64, u64, u64)>;

/// Takes stamps, keeping the last directory open and reusing its buffers (a freshness check of a
/// thousand files allocates nothing per file).
#[derive(Default)]
pub struct Stamper {
    /// The directory last opened (its path's bytes) and its descriptor, `None` when it cannot be
    /// opened as a directory.
    dir: Option<(Vec<u8>, Option<OwnedFd>)>,
    name: Vec<u8>,
}

impl Stamper {
    pub fn stamp(&mut self, path: &Path) -> Stamp {
        self.stamp_bytes(path.as_os_str().as_bytes())
    }

    /// The stamp of the path whose bytes are `path`.
    pub fn stamp_bytes(&mut self, path: &[u8]) -> Stamp {
        let (dir, name) = match path.iter().rposition(|b| *b == b'/') {
            Some(0) => (&path[..1], &path[1..]),
            Some(at) => (&path[..at], &path[at + 1..]),
            None => (&b"."[..], path),
        };
        if name.is_empty() || name.contains(&0) {
            return whole_path(Path::new(std::ffi::OsStr::from_bytes(path)));
        }
        if self.dir.as_ref().is_none_or(|(open, _)| open != dir) {
            self.dir = Some((dir.to_vec(), open_dir(dir)));
        }
        let Some((_, Some(fd))) = &self.dir else {
            return whole_path(Path::new(std::ffi::OsStr::from_bytes(path)));
        };
        self.name.clear();
        self.name.extend_from_slice(name);
        self.name.push(0);
        let name = CStr::from_bytes_with_nul(&self.name).ok()?;
        // SAFETY: `stat` is plain data, written whole by a successful `fstatat`, which is given
        // an open directory descriptor and a NUL-terminated name.
        let mut stat: libc::stat = unsafe { std::mem::zeroed() };
        let found = unsafe { libc::fstatat(fd.as_raw_fd(), name.as_ptr(), &mut stat, 0) } == 0;
        found.then(|| {
            (
                stat.st_mtime,
                stat.st_mtime_nsec,
                u64::try_from(stat.st_size).unwrap_or(0),
                stat.st_ino,
            )
        })
    }
}

/// The stamp through `std::fs::metadata` (a path without a parent, or whose parent cannot be
/// opened as a directory: the lookup then fails the same way).
fn whole_path(path: &Path) -> Stamp {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path)
        .ok()
        .map(|m| (m.mtime(), m.mtime_nsec(), m.size(), m.ino()))
}

fn open_dir(dir: &[u8]) -> Option<OwnedFd> {
    let name = CString::new(dir).ok()?;
    // SAFETY: a NUL-terminated path; O_PATH opens nothing but a handle for lookups (no read,
    // never blocks, even on a FIFO), and a non-negative result is a descriptor we now own.
    let fd = unsafe {
        libc::open(
            name.as_ptr(),
            libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn the_same_stamps_as_metadata() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let file = dir.path().join("a");
        std::fs::write(&file, b"bytes").unwrap_or_else(|e| panic!("{e}"));
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap_or_else(|e| panic!("{e}"));
        let mut stamper = Stamper::default();
        for path in [
            file.clone(),
            link,
            dir.path().to_path_buf(),
            dir.path().join("absent"),
            dir.path().join("absent/below"),
            file.join("not-a-directory"),
            PathBuf::from("/"),
            PathBuf::from("relative-and-absent"),
            dir.path().join("a/"),
        ] {
            assert_eq!(
                stamper.stamp(&path),
                whole_path(&path),
                "{}",
                path.display()
            );
        }
        assert!(stamper.stamp(&file).is_some());
    }
}
