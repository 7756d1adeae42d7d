//! Stamps — (change time seconds, nanoseconds, size, inode) — of many files that mostly share a
//! directory, as a cache's freshness check takes them: each directory is opened once and its
//! files are looked up relative to it (`fstatat`), instead of walking the whole path for each.
//! A path is followed as `std::fs::metadata` follows it (symbolic links resolved).
//!
//! The change time, not the modification time: every write moves both, but only the change time
//! also moves when a file's mode or owner changes (a registry made unreadable must not look the
//! same), and no program can set it back.

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
                stat.st_ctime,
                stat.st_ctime_nsec,
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
        .map(|m| (m.ctime(), m.ctime_nsec(), m.size(), m.ino()))
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

/// One stamp as a cache line: `<ctime> <nanoseconds> <size> <inode> <path>`, or `- <path>` for a
/// path that cannot be looked up. The path's bytes end the line (a path holding a newline cannot be
/// written: the caller checks).
pub fn stamp_line(path: &[u8], stamp: Stamp) -> Vec<u8> {
    let mut text = match stamp {
        Some((seconds, nanoseconds, size, inode)) => {
            format!("{seconds} {nanoseconds} {size} {inode} ").into_bytes()
        }
        None => b"- ".to_vec(),
    };
    text.extend_from_slice(path);
    text
}

/// A line [`stamp_line`] wrote: the stamp and the path's bytes.
pub fn parse_stamp_line(line: &[u8]) -> Option<(Stamp, &[u8])> {
    if let Some(path) = line.strip_prefix(b"- ") {
        return Some((None, path));
    }
    let mut fields = line.splitn(5, |b| *b == b' ');
    let seconds = signed(fields.next()?)?;
    let nanoseconds = signed(fields.next()?)?;
    let size = unsigned(fields.next()?)?;
    let inode = unsigned(fields.next()?)?;
    let path = fields.next()?;
    Some((Some((seconds, nanoseconds, size, inode)), path))
}

/// Whether every stamp line still matches its file, stopping at the first that does not. A
/// relative path is looked up under `root` (a cache stores the paths inside its work tree so, and a
/// copied repository checks its own files); an absolute one as it is.
pub fn all_stamps_match(lines: &[&[u8]], root: &Path) -> bool {
    let mut stamper = Stamper::default();
    let mut full = Vec::new();
    lines.iter().all(|line| {
        let Some((stamp, path)) = parse_stamp_line(line) else {
            return false;
        };
        full.clear();
        if !path.starts_with(b"/") {
            full.extend_from_slice(root.as_os_str().as_bytes());
            full.push(b'/');
        }
        full.extend_from_slice(path);
        stamper.stamp_bytes(&full) == stamp
    })
}

/// `stamps` with the paths inside `root` made relative to it (see [`all_stamps_match`]).
pub fn relative_stamps(
    root: &Path,
    stamps: Vec<(std::path::PathBuf, Stamp)>,
) -> Vec<(std::path::PathBuf, Stamp)> {
    stamps
        .into_iter()
        .map(|(path, s)| match path.strip_prefix(root) {
            Ok(inside) => (inside.to_path_buf(), s),
            Err(_) => (path, s),
        })
        .collect()
}

/// A decimal number as [`stamp_line`] writes it (digits only, at least one).
fn unsigned(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() {
        return None;
    }
    digits.iter().try_fold(0u64, |n, d| {
        d.is_ascii_digit()
            .then(|| n.checked_mul(10)?.checked_add(u64::from(d - b'0')))
            .flatten()
    })
}

/// As [`unsigned`], with an optional `-`.
fn signed(text: &[u8]) -> Option<i64> {
    match text.strip_prefix(b"-") {
        Some(digits) => i64::try_from(unsigned(digits)?)
            .ok()
            .map(i64::wrapping_neg)
            .or_else(|| (unsigned(digits)? == 1u64 << 63).then_some(i64::MIN)),
        None => i64::try_from(unsigned(text)?).ok(),
    }
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

    #[test]
    fn a_change_of_mode_alone_changes_the_stamp() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let file = dir.path().join("registry");
        std::fs::write(&file, b"{}").unwrap_or_else(|e| panic!("{e}"));
        let before = Stamper::default().stamp(&file);
        // The change time has nanoseconds; a few are enough to tell the two apart.
        std::thread::sleep(std::time::Duration::from_millis(10));
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o000))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_ne!(Stamper::default().stamp(&file), before);
    }
}
